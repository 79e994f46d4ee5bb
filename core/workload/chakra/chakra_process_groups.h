#pragma once
// PyTorch's process-group list ([{"pg_name": "K", "ranks": [...]}, ...] in a METADATA node) read
// in one pass through nlohmann's SAX interface: only the names and ranks are kept (about 4 bytes a
// listed rank), never the JSON tree (about 300 bytes a group, 16x the text).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace commlab::workload::chakra_files {

struct ProcessGroupText {
  std::string name;
  std::vector<int64_t> ranks;  // as listed; kBadRank where the value is not an integer
  std::string bad_rank;        // the first such value, as an error message quotes it
};
inline constexpr int64_t kBadRank = INT64_MIN;

// The groups, or nullopt when the text is not such a list (an entry without a string pg_name or
// an array of ranks, anything but an array of objects, invalid JSON). Nesting deeper than
// kMaxJsonDepth throws std::invalid_argument, as parse_json_or_discarded does.
std::optional<std::vector<ProcessGroupText>> read_process_group_list(std::string_view text);

// A communicator-group file's {"KEY": [rank, ...], ...} in file order, read the same way (keys and
// ranks only): throws std::invalid_argument naming the file for invalid JSON, a group that is not
// a non-empty list of distinct ranks in [0, ranks), a key twice, more than max_groups groups or
// more than max_members ranks listed in all (the caps named in the message).
std::vector<std::pair<std::string, std::vector<int>>> read_comm_group_entries(
    std::string_view text, const std::string& file, int ranks, uint64_t max_groups,
    uint64_t max_members);

}  // namespace commlab::workload::chakra_files
