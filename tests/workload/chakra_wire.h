#pragma once
// Hand-rolled protobuf wire encoding of Chakra messages for the tests, written from the PUBLIC
// schema's field numbers (mlcommons/chakra et_def.proto), not from CommLab's generated code: a
// wrong field number in core/workload/chakra/et_def.proto makes these traces read wrongly.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace commlab::test::chakra_wire {

enum NodeType : int {
  kInvalid = 0,
  kMetadata = 1,
  kMemLoad = 2,
  kComp = 4,
  kSend = 5,
  kRecv = 6,
  kColl = 7
};
enum CommType : int {
  kAllReduce = 0,
  kReduce = 1,
  kAllGather = 2,
  kBroadcast = 5,
  kAllToAll = 6,
  kReduceScatter = 7,
  kReduceScatterBlock = 8
};

inline void varint(std::string* b, uint64_t v) {
  while (v >= 0x80) {
    b->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  b->push_back(static_cast<char>(v));
}

struct Msg {
  std::string b;
  Msg& u(int field, uint64_t v) {
    varint(&b, uint64_t(field) << 3);
    varint(&b, v);
    return *this;
  }
  Msg& s(int field, std::string_view v) {
    varint(&b, uint64_t(field) << 3 | 2);
    varint(&b, v.size());
    b.append(v);
    return *this;
  }
  Msg& m(int field, const Msg& sub) { return s(field, sub.b); }
  Msg& d(int field, double v) {
    varint(&b, uint64_t(field) << 3 | 1);
    char raw[8];
    std::memcpy(raw, &v, 8);
    b.append(raw, 8);
    return *this;
  }
};

// AttributeProto: name 1, double_val 3, int64_val 9, uint64_val 13, bool_val 27, bool_list 28,
// string_val 29.
inline Msg attr_i(std::string_view name, int64_t v) {
  return Msg().s(1, name).u(9, static_cast<uint64_t>(v));
}
inline Msg attr_u(std::string_view name, uint64_t v) {
  return Msg().s(1, name).u(13, v);
}
inline Msg attr_d(std::string_view name, double v) {
  return Msg().s(1, name).d(3, v);
}
inline Msg attr_b(std::string_view name, bool v) {
  return Msg().s(1, name).u(27, v);
}
inline Msg attr_s(std::string_view name, std::string_view v) {
  return Msg().s(1, name).s(29, v);
}
inline Msg attr_bools(std::string_view name, std::vector<bool> v) {
  std::string packed;
  for (bool x : v) packed.push_back(x ? 1 : 0);
  return Msg().s(1, name).m(28, Msg().s(1, packed));
}

// Node: id 1, name 2, type 3, ctrl_deps 4, data_deps 5, duration_micros 7, inputs 8 (IOInfo:
// values 1), attr 10.
struct NodeMsg {
  Msg msg;
  NodeMsg(uint64_t id, std::string_view name, NodeType type) { msg.u(1, id).s(2, name).u(3, type); }
  NodeMsg& data(uint64_t id) { return msg.u(5, id), *this; }
  NodeMsg& ctrl(uint64_t id) { return msg.u(4, id), *this; }
  NodeMsg& micros(uint64_t us) { return msg.u(7, us), *this; }
  NodeMsg& attr(const Msg& a) { return msg.m(10, a), *this; }
  NodeMsg& inputs(std::string_view values) { return msg.m(8, Msg().s(1, values)), *this; }
};

inline void frame(std::string* file, const std::string& msg) {
  varint(file, msg.size());
  file->append(msg);
}

// A rank file: GlobalMetadata (version 1, attr 2) then the nodes.
inline std::string trace_file(const std::vector<NodeMsg>& nodes,
                              const std::vector<Msg>& metadata_attrs = {}) {
  std::string f;
  Msg meta = Msg().s(1, "0.0.4");
  for (const Msg& a : metadata_attrs) meta.m(2, a);
  frame(&f, meta.b);
  for (const NodeMsg& n : nodes) frame(&f, n.msg.b);
  return f;
}

// Decoding for checks on what the writer wrote: the top-level fields of one message.
struct Field {
  int number = 0;
  int wire = 0;
  uint64_t value = 0;      // varint / fixed64 bits
  std::string_view bytes;  // length-delimited
};
inline bool read_varint(std::string_view b, size_t* p, uint64_t* v) {
  *v = 0;
  for (int shift = 0; *p < b.size() && shift < 64; shift += 7) {
    const auto c = static_cast<uint8_t>(b[(*p)++]);
    *v |= uint64_t(c & 0x7F) << shift;
    if (!(c & 0x80)) return true;
  }
  return false;
}
inline std::vector<Field> fields(std::string_view b) {
  std::vector<Field> out;
  size_t p = 0;
  uint64_t key;
  while (p < b.size() && read_varint(b, &p, &key)) {
    Field f{int(key >> 3), int(key & 7)};
    if (f.wire == 0) {
      read_varint(b, &p, &f.value);
    } else if (f.wire == 1) {
      std::memcpy(&f.value, b.data() + p, 8);
      p += 8;
    } else if (f.wire == 2) {
      uint64_t len;
      read_varint(b, &p, &len);
      f.bytes = b.substr(p, len);
      p += len;
    } else {
      break;
    }
    out.push_back(f);
  }
  return out;
}
// The length-prefixed messages of a file.
inline std::vector<std::string_view> messages(std::string_view file) {
  std::vector<std::string_view> out;
  size_t p = 0;
  uint64_t len;
  while (p < file.size() && read_varint(file, &p, &len)) {
    out.push_back(file.substr(p, len));
    p += len;
  }
  return out;
}

}  // namespace commlab::test::chakra_wire
