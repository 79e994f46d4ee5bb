// Typed reads of Chakra attribute values for the reader (chakra_values.h).
#include "workload/chakra/chakra_values.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "io/status.h"
#include "workload/chakra/et_def.pb.h"

namespace commlab::workload::chakra_values {

namespace pb = commlab::chakra;

void fail(const std::string& where, const std::string& what) {
  throw bad_input(where + ": " + what);
}

void fail(const NodeWhere& where, const std::string& what) {
  fail(where.str(), what);
}

namespace {

std::optional<CommOp> comm_op(uint64_t type) {
  switch (type) {
    case pb::ALL_REDUCE: return CommOp::kAllReduce;
    case pb::ALL_GATHER: return CommOp::kAllGather;
    case pb::REDUCE_SCATTER:
    case pb::REDUCE_SCATTER_BLOCK: return CommOp::kReduceScatter;  // equal blocks: the same pattern
    case pb::ALL_TO_ALL: return CommOp::kAllToAll;
    case pb::BROADCAST: return CommOp::kBroadcast;
    default: return std::nullopt;
  }
}

std::string value_case_name(const pb::AttributeProto& a) {
  const auto* field = a.GetDescriptor()->FindFieldByNumber(static_cast<int>(a.value_case()));
  return field ? field->name() : "no value";
}

__int128 int_value(const pb::AttributeProto& a, const NodeWhere& where) {
  switch (a.value_case()) {
    case pb::AttributeProto::kInt32Val: return a.int32_val();
    case pb::AttributeProto::kInt64Val: return a.int64_val();
    case pb::AttributeProto::kUint32Val: return a.uint32_val();
    case pb::AttributeProto::kUint64Val: return a.uint64_val();
    case pb::AttributeProto::kSint32Val: return a.sint32_val();
    case pb::AttributeProto::kSint64Val: return a.sint64_val();
    case pb::AttributeProto::kFixed32Val: return a.fixed32_val();
    case pb::AttributeProto::kFixed64Val: return a.fixed64_val();
    case pb::AttributeProto::kSfixed32Val: return a.sfixed32_val();
    case pb::AttributeProto::kSfixed64Val: return a.sfixed64_val();
    case pb::AttributeProto::kBoolVal: return a.bool_val() ? 1 : 0;
    default:
      fail(where,
           "attribute " + a.name() + ": expected an integer value, found " + value_case_name(a));
  }
}

}  // namespace

uint64_t int_in(const pb::AttributeProto& a, const NodeWhere& where, __int128 lo, __int128 hi) {
  const __int128 v = int_value(a, where);
  if (v < lo || v > hi) {
    const bool neg = v < 0;
    const auto mag = static_cast<unsigned __int128>(neg ? -v : v);
    fail(where, "attribute " + a.name() + ": " + (neg ? "-" : "") +
                    std::to_string(static_cast<uint64_t>(mag)) + " is out of range [" +
                    std::to_string(static_cast<int64_t>(lo)) + ", " +
                    std::to_string(static_cast<uint64_t>(hi)) + "]");
  }
  return static_cast<uint64_t>(v);
}

double double_value(const pb::AttributeProto& a, const NodeWhere& where) {
  if (a.value_case() != pb::AttributeProto::kDoubleVal)
    fail(where, "attribute " + a.name() + ": expected double_val, found " + value_case_name(a));
  if (!std::isfinite(a.double_val()))
    fail(where, "attribute " + a.name() + ": not a finite number");
  return a.double_val();
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

double bounded_double(const pb::AttributeProto& a, const NodeWhere& where, double max,
                      const char* unit) {
  const double v = double_value(a, where);
  if (v < 0 || v > max)
    fail(where, "attribute " + a.name() + ": " + number_text(v) + " is " +
                    (v < 0 ? "negative" : "over the bound") + " (expected " + unit + " in [0, " +
                    number_text(max) + "])");
  return v;
}

const std::string& string_value(const pb::AttributeProto& a, const NodeWhere& where) {
  if (a.value_case() != pb::AttributeProto::kStringVal)
    fail(where, "attribute " + a.name() + ": expected string_val, found " + value_case_name(a));
  return a.string_val();
}

CommOp comm_op_or_fail(uint64_t type, const NodeWhere& where) {
  if (const std::optional<CommOp> op = comm_op(type)) return *op;
  const auto* e = pb::CollectiveCommType_descriptor()->FindValueByNumber(
      static_cast<int>(std::min<uint64_t>(type, INT32_MAX)));
  fail(where, "comm_type " + (e ? e->name() + " (" : "(") + std::to_string(type) +
                  ") is not supported (CommLab times ALL_REDUCE, REDUCE_SCATTER, "
                  "REDUCE_SCATTER_BLOCK, ALL_GATHER, ALL_TO_ALL and BROADCAST)");
}

}  // namespace commlab::workload::chakra_values
