#include "workload/chakra/chakra_files.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "io/json_input.h"
#include "io/status.h"
#include "workload/chakra/chakra_process_groups.h"
#include "workload/chakra_trace.h"

namespace commlab::workload::chakra_files {
namespace fs = std::filesystem;

namespace {

std::string rank_file(const std::string& prefix, long long rank) {
  return prefix + "." + std::to_string(rank) + ".et";
}

bool is_digits(std::string_view s) {
  return !s.empty() && s.size() < 10 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The folder of a prefix and the file-name start of its rank files ("NAME.").
fs::path prefix_dir(const std::string& prefix) {
  const fs::path p(prefix);
  return p.has_parent_path() ? p.parent_path() : fs::path(".");
}

// The rank of a file named STEM + digits + ".et", or -1 for any other name.
long long rank_of(const std::string& stem, const std::string& file) {
  if (file.size() <= stem.size() + 3 || file.compare(0, stem.size(), stem) != 0 ||
      file.compare(file.size() - 3, 3, ".et") != 0)
    return -1;
  const std::string_view idx =
      std::string_view(file).substr(stem.size(), file.size() - stem.size() - 3);
  return is_digits(idx) ? std::stoll(std::string(idx)) : -1;
}

}  // namespace

int count_rank_files(const std::string& prefix, int max_ranks) {
  std::error_code ec;
  int n = 0;
  while (n < max_ranks && fs::exists(rank_file(prefix, n), ec)) ++n;
  if (n == max_ranks && fs::exists(rank_file(prefix, n), ec))  // the cap, not the end
    throw bad_input(rank_file(prefix, n) + ": more than " + std::to_string(max_ranks) +
                    " rank files (the cap of a trace)");
  if (n == 0)
    throw bad_input(rank_file(prefix, 0) +
                    ": no such trace file (a trace is PREFIX.0.et, PREFIX.1.et, ...)");
  // A gap would silently drop the ranks after it: look for any PREFIX.K.et with K > n.
  const fs::path dir = prefix_dir(prefix);
  const std::string stem = fs::path(prefix).filename().string() + ".";
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string f = it->path().filename().string();
    if (rank_of(stem, f) > n)
      throw bad_input(rank_file(prefix, n) + ": missing rank file (" + (dir / f).string() +
                      " exists; rank files must be consecutive)");
  }
  return n;
}

void remove_rank_files_from(const std::string& prefix, int first_rank) {
  const fs::path dir = prefix_dir(prefix);
  const std::string stem = fs::path(prefix).filename().string() + ".";
  std::vector<fs::path> stale;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (rank_of(stem, it->path().filename().string()) >= first_rank) stale.push_back(it->path());
  if (ec) throw std::runtime_error("cannot list " + dir.string() + ": " + ec.message());
  for (const fs::path& f : stale)  // remove() unlinks a symlink itself, never its target
    if (!fs::remove(f, ec) && ec)
      throw std::runtime_error("cannot remove the stale rank file " + f.string() + ": " +
                               ec.message());
}

std::string read_regular_file(const std::string& path, uint64_t max_bytes, bool missing_ok,
                              bool* found) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (found) *found = true;
  if (st.type() == fs::file_type::not_found) {
    if (missing_ok) {
      if (found) *found = false;
      return {};
    }
    throw bad_input(path + ": no such file");
  }
  if (ec) throw bad_input(path + ": cannot read: " + ec.message());
  if (st.type() == fs::file_type::directory)
    throw bad_input(path + ": is a directory, not a trace file");
  if (st.type() == fs::file_type::fifo) throw bad_input(path + ": is a FIFO, not a regular file");
  if (st.type() != fs::file_type::regular) throw bad_input(path + ": is not a regular file");
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) throw bad_input(path + ": cannot read: " + ec.message());
  if (size > max_bytes)
    throw bad_input(path + ": " + std::to_string(size) + " bytes, over the cap of " +
                    std::to_string(max_bytes));
  std::ifstream in(path, std::ios::binary);
  std::string bytes(static_cast<size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (!in || in.gcount() != static_cast<std::streamsize>(size))
    throw bad_input(path + ": cannot read the file");
  return bytes;
}

uint64_t count_messages(std::string_view bytes, uint64_t pos) {
  uint64_t count = 0;
  while (pos < bytes.size()) {
    uint64_t len = 0;
    for (int shift = 0; pos < bytes.size() && shift < 35; shift += 7) {
      const auto b = static_cast<uint8_t>(bytes[pos++]);
      len |= uint64_t{b & 0x7Fu} << shift;
      if (!(b & 0x80)) break;
    }
    if (len > bytes.size() - pos) break;
    pos += len;
    ++count;
  }
  return count;
}

uint64_t count_file_nodes(const std::string& path, uint64_t max_bytes) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || ec) return 0;
  const uintmax_t size = fs::file_size(path, ec);
  if (ec || size > max_bytes) return 0;
  std::ifstream in(path, std::ios::binary);
  // No larger than the file: a trace of 2^20 small rank files must not zero 1 MiB for each.
  std::vector<char> block(std::min<uintmax_t>(size, uintmax_t{1} << 20) + 1);
  uint64_t records = 0, skip = 0, len = 0;  // skip: bytes of the current message still ahead
  int shift = 0;
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto got = static_cast<uint64_t>(in.gcount());
    for (uint64_t i = 0; i < got;) {
      if (skip > 0) {
        const uint64_t step = std::min(skip, got - i);
        i += step;
        skip -= step;
        records += skip == 0;
        continue;
      }
      const auto b = static_cast<uint8_t>(block[i++]);
      len |= uint64_t{b & 0x7Fu} << shift;
      shift += 7;
      if (!(b & 0x80) || shift >= 35) {  // a length prefix read (as count_messages reads it)
        records += len == 0;
        skip = len;
        len = 0;
        shift = 0;
      }
    }
  }
  return records > 0 ? records - 1 : 0;  // the first is the GlobalMetadata
}

void fail_node_budget(const std::string& file, int rank, uint64_t nodes, uint64_t trace_nodes,
                      uint64_t budget) {
  char size[32];
  std::snprintf(size, sizeof size, "%.3g GiB",
                static_cast<double>(budget) * kChakraPeakBytesPerNode / double(1 << 30));
  throw bad_input(
      file + ": rank " + std::to_string(rank) + ": " + std::to_string(nodes) + " nodes (" +
      std::to_string(trace_nodes) + " in the trace so far), over the budget of " +
      std::to_string(budget) + " nodes (about " + std::to_string(kChakraPeakBytesPerNode) +
      " bytes each read and replayed, " + size +
      "); a shorter trace, fewer ranks, or a larger budget (workload --max-trace-nodes)");
}

void check_trace_nodes(const std::string& prefix, int ranks, uint64_t budget) {
  uint64_t trace_nodes = 0;
  for (int r = 0; r < ranks; ++r) {
    const std::string file = rank_file(prefix, r);
    const uint64_t nodes = count_file_nodes(file, kChakraMaxFileBytes);
    trace_nodes += nodes;
    if (trace_nodes > budget) fail_node_budget(file, r, nodes, trace_nodes, budget);
  }
}

CommGroups parse_comm_groups(std::string_view text, const std::string& file, int ranks,
                             uint64_t max_groups, uint64_t max_members) {
  auto entries = read_comm_group_entries(text, file, ranks, max_groups, max_members);
  // Integer keys in numeric order (a written trace's group i is key i + 1), then the rest.
  std::vector<long long> numeric(entries.size());
  for (size_t i = 0; i < entries.size(); ++i)
    numeric[i] = is_digits(entries[i].first) ? std::stoll(entries[i].first) : -1LL;
  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const long long x = numeric[a], y = numeric[b];
    if ((x < 0) != (y < 0)) return x >= 0;
    return x >= 0 ? x < y : entries[a].first < entries[b].first;
  });
  CommGroups out;
  for (size_t i : order) {
    out.keys.push_back(std::move(entries[i].first));
    out.groups.push_back(std::move(entries[i].second));
  }
  return out;
}

GroupResolver::GroupResolver(std::string file, bool have_file, std::string_view json, int ranks,
                             std::vector<std::vector<int>>* graph_groups, uint64_t max_members,
                             uint64_t max_groups)
    : file_(std::move(file)),
      have_file_(have_file),
      ranks_(ranks),
      max_members_(max_members),
      groups_(graph_groups) {
  if (!have_file_) return;
  CommGroups g = parse_comm_groups(json, file_, ranks, max_groups, max_members);
  for (size_t i = 0; i < g.keys.size(); ++i) {
    keys_.emplace(g.keys[i], static_cast<int>(i));
    try {
      add_members(g.groups[i].size());
    } catch (const std::invalid_argument& e) {
      throw bad_input(file_ + ": " + e.what());
    }
  }
  *groups_ = std::move(g.groups);
}

int GroupResolver::all_ranks_group() {
  if (all_ranks_ >= 0) return all_ranks_;
  std::vector<int> all(ranks_);
  for (int r = 0; r < ranks_; ++r) all[r] = r;
  for (size_t i = 0; i < groups_->size() && all_ranks_ < 0; ++i)
    if ((*groups_)[i] == all) all_ranks_ = static_cast<int>(i);
  if (all_ranks_ < 0) {
    all_ranks_ = static_cast<int>(groups_->size());
    add_members(all.size());
    groups_->push_back(std::move(all));
  }
  return all_ranks_;
}

void GroupResolver::add_members(uint64_t count) {
  members_ += count;
  if (members_ > max_members_)
    throw bad_input("the process groups list " + std::to_string(members_) +
                    " ranks in all, over the cap of " + std::to_string(max_members_) +
                    " (ChakraReadBudgets::group_members)");
}

// Each rank resolves its groups once: a scan of a group of every rank by every rank would be
// quadratic in the rank count (10^12 steps at the 2^20-rank cap), a sorted copy is not.
bool GroupResolver::has_member(int g, int rank) {
  if (sorted_.size() <= static_cast<size_t>(g)) sorted_.resize(g + 1);
  std::vector<int>& sorted = sorted_[g];
  if (sorted.empty()) {
    sorted = (*groups_)[g];
    std::sort(sorted.begin(), sorted.end());
  }
  return std::binary_search(sorted.begin(), sorted.end(), rank);
}

int GroupResolver::resolve(const std::string& pg, int rank) {
  if (pg.empty() || pg == "0") return all_ranks_group();
  const auto it = keys_.find(pg);
  const int g = it == keys_.end() ? -1 : it->second;
  if (g < 0)
    throw bad_input("pg_name \"" + pg + "\" is not in " +
                    (have_file_ ? file_ : "a communicator-group file (there is no " + file_ + ")") +
                    " or a process_group:init metadata node");
  if (g != all_ranks_ && !has_member(g, rank))
    throw bad_input("collective on pg_name \"" + pg + "\", which does not contain this rank");
  return g;
}

bool GroupResolver::define_from_metadata(std::string_view values) {
  if (values.size() < 4) return false;
  std::optional<std::vector<ProcessGroupText>> list =
      read_process_group_list(values.substr(2, values.size() - 4));
  if (!list) return false;
  for (ProcessGroupText& pg : *list) {
    const std::string& key = pg.name;
    const std::string where = "process group \"" + key + "\": ";
    // No ranks is every rank: one shared group, however many keys name it (never a copy each).
    const int g = pg.ranks.empty() ? all_ranks_group() : -1;
    std::vector<int> members;
    if (g < 0) {
      if (seen_.size() != static_cast<size_t>(ranks_)) seen_.assign(ranks_, 0);
      ++seen_stamp_;
      for (const int64_t v : pg.ranks) {
        if (v < 0 || v >= ranks_)
          throw bad_input(where + "rank " + (v == kBadRank ? pg.bad_rank : std::to_string(v)) +
                          " is not in [0, " + std::to_string(ranks_) + ")");
        const int r = static_cast<int>(v);
        if (seen_[r] == seen_stamp_)
          throw bad_input(where + "rank " + std::to_string(r) + " twice");
        seen_[r] = seen_stamp_;
        members.push_back(r);
      }
      pg.ranks = {};
    }
    const auto it = keys_.find(key);
    if (it != keys_.end()) {
      if (g >= 0 ? (*groups_)[it->second] != (*groups_)[g] : (*groups_)[it->second] != members)
        throw bad_input(where + "ranks differ from its earlier definition");
      continue;
    }
    if (g >= 0) {
      keys_.emplace(key, g);
      continue;
    }
    add_members(members.size());
    keys_.emplace(key, static_cast<int>(groups_->size()));
    groups_->push_back(std::move(members));
  }
  return true;
}

}  // namespace commlab::workload::chakra_files
