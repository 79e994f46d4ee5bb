// Fuzzes the Chakra trace reader (workload/chakra_trace.h parse_chakra_trace, the same parser
// read_chakra_trace runs on the files). Input: [flags][rank 0 bytes] SEP [rank 1 bytes] ... with
// SEP = "\nRANK\n"; flags bit 0: the last segment is the communicator-group JSON. Every error
// must name the trace (label "fz"); every accepted trace must pass check_graph and write and read
// back to the same bytes (the writer and the reader agree on everything the reader keeps).
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "workload/chakra_trace.h"

namespace {
constexpr std::string_view kSep = "\nRANK\n";
constexpr size_t kMaxRanks = 16;  // more segments are folded into the last rank
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commlab::workload;
  if (size < 1) return 0;
  const bool with_groups = data[0] & 1;
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<std::string_view> parts;
  for (;;) {
    const size_t at = rest.find(kSep);
    if (at == std::string_view::npos || parts.size() + 1 == kMaxRanks) {
      parts.push_back(rest);
      break;
    }
    parts.push_back(rest.substr(0, at));
    rest.remove_prefix(at + kSep.size());
  }
  std::string_view groups;
  if (with_groups && parts.size() > 1) {
    groups = parts.back();
    parts.pop_back();
  }
  Graph g;
  try {
    g = parse_chakra_trace(parts, groups, "fz");
  } catch (const std::invalid_argument& e) {
    if (std::strncmp(e.what(), "fz", 2) != 0) __builtin_trap();  // every message names the trace
    return 0;
  }
  try {
    check_graph(g);  // the reader's own checks must cover the graph's invariants
  } catch (const std::invalid_argument&) {
    __builtin_trap();
  }
  std::string j1, j2;
  const std::vector<std::string> once = encode_chakra_trace(g, &j1);
  std::vector<std::string_view> views(once.begin(), once.end());
  const Graph back = parse_chakra_trace(views, j1, "fz");
  if (back.node_count() != g.node_count() || back.groups != g.groups) __builtin_trap();
  if (encode_chakra_trace(back, &j2) != once || j1 != j2) __builtin_trap();
  return 0;
}
