#pragma once
// Chakra execution traces (the format of ASTRA-sim and MLCommons) in and out of a workload Graph.
// A trace is one file per rank, PREFIX.RANK.et: a varint32 length-prefixed GlobalMetadata message,
// then length-prefixed Node messages; communicator groups live in a JSON file beside it
// (PREFIX.comm_groups.json, ASTRA-sim's --comm-group-configuration: {"1": [0, 1, 2, 3], ...}).
// docs/workload.md "Chakra execution traces" has the field mapping, CommLab's own attributes, the
// caps and the error messages. Only chakra/chakra_reader.cpp and chakra/chakra_writer.cpp know
// protobuf (with chakra/chakra_values.cpp); this header does not.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "workload/graph.h"

namespace commlab::workload {

// Caps a reader enforces before it allocates (a larger input is an error, not a crash).
inline constexpr uint64_t kChakraMaxFileBytes = uint64_t{1} << 30;  // one rank's .et file
inline constexpr uint32_t kChakraMaxMessageBytes = uint32_t{64}
                                                   << 20;  // one length-prefixed message
inline constexpr uint64_t kChakraMaxGroupFileBytes = uint64_t{256} << 20;
inline constexpr int kChakraMaxRanks = 1 << 20;
// Bounds on one node's values (a larger one is an error naming the bound): a rank holds at most
// ~10^8 nodes (kChakraMaxFileBytes), so its summed seconds stay below ~10^17 and never overflow
// to inf. 10^9 s is 31 years; 10^30 FLOPs is 10^4 times a large model's whole training run.
inline constexpr double kChakraMaxNodeSeconds = 1e9;
inline constexpr double kChakraMaxNodeFlops = 1e30;
inline constexpr double kChakraMaxNodeMemBytes = 1e30;

// What a node costs at the peak of reading and replaying a trace, measured as peak RSS over nodes
// on a chain of plain compute nodes with a unique name each (docs/workload.md "Memory budgets":
// 8.39 M nodes, 1.87 GB, 228 bytes a node; 11 M, 2.21 GB): the graph, the reader's tables, the
// name and the replay's state.
inline constexpr uint64_t kChakraPeakBytesPerNode = 230;

// Budgets on what a trace makes the reader hold, whatever the file size: a small file can ask for
// much (a skipped node's dependencies passed to each of its dependants, "ranks": [] meaning every
// rank). Over a budget the reader throws one line naming the file, the budget and the value.
// docs/workload.md "Chakra execution traces" has the measured peak memory of each.
struct ChakraReadBudgets {
  // Nodes in the whole trace, counted from each rank file's length-prefixed records before any
  // of its nodes is parsed: they bound the replay's memory (about kChakraPeakBytesPerNode each,
  // 1.8 GiB at the default) and the time to read and replay (about 2 us each on the
  // development machine: 17 s at the budget), not only the reader's. A 256 MB file of plain nodes
  // (11 M) is refused in about a second; the 1 GiB file cap alone allowed ~10^8 nodes.
  uint64_t nodes = uint64_t{1} << 23;
  // The reader's estimated memory: the graph (nodes, dependencies, groups, names) and one rank's
  // parse tables.
  uint64_t memory_bytes = uint64_t{4} << 30;
  // Dependencies passed on through skipped nodes (METADATA, MEM_*, ...), summed over the trace:
  // a skipped node with D dependencies and K dependants passes on D x K.
  uint64_t forwarded_deps = uint64_t{1} << 24;
  // Ranks listed by the communicator groups together (the group file and process-group metadata
  // nodes; every-rank groups named by many keys count once).
  uint64_t group_members = uint64_t{1} << 26;
  // Groups in the communicator-group file (each costs its key, its list and an index entry).
  uint64_t comm_groups = uint64_t{1} << 20;
};

struct TraceReadReport {
  uint64_t nodes = 0;               // nodes imported (all ranks)
  uint64_t unknown_attributes = 0;  // attributes read but not used (by name below)
  std::map<std::string, uint64_t> unknown_by_name;
  uint64_t skipped_nodes = 0;  // METADATA, MEM_LOAD/STORE, INVALID, STORAGE, BATCH, CHECKPOINT
};

// The communicator-group file that belongs to a trace prefix: PREFIX.comm_groups.json.
std::string chakra_comm_group_file(const std::string& prefix);

// The communicator-group file a trace is read with: `given` when set (ASTRA-sim's
// --comm-group-configuration; it must exist), else PREFIX.comm_groups.json, else PREFIX.json (the
// name ASTRA-sim's trace generators write), else "" (none).
std::string find_comm_group_file(const std::string& prefix, const std::string& given = "");

// Reads PREFIX.0.et, PREFIX.1.et, ... (the rank count is the number of consecutive files; a gap
// before a later file is an error) and the communicator-group file find_comm_group_file picks.
// Throws std::invalid_argument, one line naming the file, the rank and the node id (or byte
// offset).
Graph read_chakra_trace(const std::string& prefix, TraceReadReport* report = nullptr,
                        const std::string& comm_groups_file = "",
                        const ChakraReadBudgets& budgets = {});

// The same from memory: one buffer per rank, the group file's text (empty: none). label stands for
// the prefix in error messages (label.RANK.et).
Graph parse_chakra_trace(const std::vector<std::string_view>& rank_files,
                         std::string_view comm_groups_json, const std::string& label,
                         TraceReadReport* report = nullptr, const ChakraReadBudgets& budgets = {});

// Writes DIR/NAME.RANK.et for every rank and DIR/NAME.comm_groups.json (creating DIR). Throws
// std::invalid_argument for a graph check_graph rejects, with no rank or with duplicate node ids
// in a rank, and std::runtime_error when a file cannot be written.
void write_chakra_trace(const Graph& graph, const std::string& dir, const std::string& name);

// The bytes write_chakra_trace writes: one .et image per rank, and the group file's text.
std::vector<std::string> encode_chakra_trace(const Graph& graph, std::string* comm_groups_json);

}  // namespace commlab::workload
