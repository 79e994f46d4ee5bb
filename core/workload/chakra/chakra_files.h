#pragma once
// The file-system and JSON side of the Chakra reader (no protobuf): finding a trace's rank files,
// reading one with its caps, and the communicator-group file.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace commlab::workload::chakra_files {

// The number of consecutive rank files PREFIX.0.et, PREFIX.1.et, ...; throws when there is none,
// when a later PREFIX.K.et exists past the first gap, or when there are more than `max_ranks`
// (kChakraMaxRanks; a parameter so tests can reach the cap).
int count_rank_files(const std::string& prefix, int max_ranks);

// Removes PREFIX.K.et for every K >= first_rank (a trace written over a larger one must not leave
// the old ranks behind: the reader would replay them). Throws std::runtime_error naming the file.
void remove_rank_files_from(const std::string& prefix, int first_rank);

// The whole file, which must be a regular file of at most max_bytes (a FIFO or a directory is an
// error, never a blocking read). missing_ok: an absent file gives "" and *found = false.
std::string read_regular_file(const std::string& path, uint64_t max_bytes, bool missing_ok = false,
                              bool* found = nullptr);

// The varint32-length-prefixed messages in a rank file from byte `pos` (the reader reserves its
// arrays with it): a bad or truncated length prefix ends the count, never an error (the reader
// names it when it gets there).
uint64_t count_messages(std::string_view bytes, uint64_t pos);

// The same count over a file, read in blocks (never held whole): the records of PREFIX.RANK.et
// minus its GlobalMetadata, so a trace's node count is known before any file is parsed. 0 for
// anything but a readable regular file of at most max_bytes (the reader names those).
uint64_t count_file_nodes(const std::string& path, uint64_t max_bytes);

// Over ChakraReadBudgets::nodes: throws std::invalid_argument naming the file and rank, its nodes,
// the trace's so far, the budget and the memory it stands for.
[[noreturn]] void fail_node_budget(const std::string& file, int rank, uint64_t nodes,
                                   uint64_t trace_nodes, uint64_t budget);

// The node budget over every rank file PREFIX.0.et .. PREFIX.(ranks-1).et, counted in blocks
// before any is read whole or parsed: a trace over it is refused in the time of reading its files
// once, whatever its rank count.
void check_trace_nodes(const std::string& prefix, int ranks, uint64_t budget);

// ASTRA-sim's communicator-group file: {"KEY": [rank, ...], ...}. Groups come back sorted by key
// (numerically when keys are integers), keys beside them; every rank in [0, ranks), none twice,
// no key twice. Read through nlohmann's SAX interface (never a JSON tree); more than max_groups
// groups or max_members ranks listed in all throws naming the file, the cap and the value.
struct CommGroups {
  std::vector<std::string> keys;
  std::vector<std::vector<int>> groups;
};
CommGroups parse_comm_groups(std::string_view json, const std::string& file, int ranks,
                             uint64_t max_groups, uint64_t max_members);

// A collective's pg_name -> index in the graph's groups. The file's groups become the graph's
// groups 0.. in key order; "" and "0" are every rank (ASTRA-sim's default), an equal group reused
// or one appended when first needed. Throws (the caller adds where) for a key not in the file or
// a group without the rank. Equal groups named by many keys are one group where they come from a
// process-group metadata node's "ranks": [] (every rank), so its memory follows the text read;
// the ranks listed by all groups together are capped at max_members (throws naming the cap).
class GroupResolver {
 public:
  GroupResolver() = default;
  GroupResolver(std::string file, bool have_file, std::string_view json, int ranks,
                std::vector<std::vector<int>>* graph_groups, uint64_t max_members,
                uint64_t max_groups);
  int resolve(const std::string& pg_name, int rank);
  // PyTorch's process groups in a "## process_group:init ##" METADATA node, read as ASTRA-sim
  // does: inputs.values minus two characters at each end is a JSON list of {"pg_name": "K",
  // "ranks": [...]} (no ranks: every rank). New keys become groups; a key defined twice must
  // name the same ranks. False when the text is not such a list (ASTRA-sim skips it too); throws
  // for bad ranks or a conflicting definition.
  bool define_from_metadata(std::string_view inputs_values);

 private:
  int all_ranks_group();             // the index of the every-rank group, added when first needed
  void add_members(uint64_t count);  // counts ranks listed against max_members_
  bool has_member(int g, int rank);  // through a sorted copy of the group, made when first needed

  std::string file_;
  bool have_file_ = false;
  int ranks_ = 0;
  uint64_t max_members_ = 0;
  uint64_t members_ = 0;
  std::vector<std::vector<int>> sorted_;  // has_member's copies, by group index
  std::vector<uint32_t> seen_;            // duplicate-rank marks, stamped per group
  uint32_t seen_stamp_ = 0;
  std::unordered_map<std::string, int> keys_;  // key -> group index
  std::vector<std::vector<int>>* groups_ = nullptr;
  int all_ranks_ = -1;
};

}  // namespace commlab::workload::chakra_files
