#pragma once
// The Chakra reader's typed reads of attribute values (chakra_reader.cpp): any integer encoding
// where an integer is expected, range checks, and one-line errors that name the file, rank and
// node. The generated protobuf classes are only declared here; chakra_values.cpp knows them.
#include <cstdint>
#include <string>

#include "workload/graph.h"

namespace commlab::chakra {
class AttributeProto;
}

namespace commlab::workload::chakra_values {

// Where a node's error is: "FILE: rank R, node ID", made only when there is an error.
struct NodeWhere {
  const std::string& file;
  int rank;
  uint64_t id;
  std::string str() const {
    return file + ": rank " + std::to_string(rank) + ", node " + std::to_string(id);
  }
};

// Throws std::invalid_argument "WHERE: WHAT".
[[noreturn]] void fail(const std::string& where, const std::string& what);
[[noreturn]] void fail(const NodeWhere& where, const std::string& what);

// An integer attribute in [lo, hi] (any of the schema's integer encodings, bool_val too).
uint64_t int_in(const chakra::AttributeProto& a, const NodeWhere& where, __int128 lo, __int128 hi);
// A finite double_val.
double double_value(const chakra::AttributeProto& a, const NodeWhere& where);
// A double_val in [0, max]: negative (a duration, FLOP or byte count) or over the bound is an
// error naming the attribute, the value and the range; `unit` is what it counts ("seconds").
double bounded_double(const chakra::AttributeProto& a, const NodeWhere& where, double max,
                      const char* unit);
// A value's text for messages: %g, enough digits to tell it apart from the bound.
std::string number_text(double v);
const std::string& string_value(const chakra::AttributeProto& a, const NodeWhere& where);

// The CollectiveCommType CommLab times, or an error naming the type.
CommOp comm_op_or_fail(uint64_t type, const NodeWhere& where);

}  // namespace commlab::workload::chakra_values
