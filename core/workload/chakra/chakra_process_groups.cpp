#include "workload/chakra/chakra_process_groups.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_set>

#include "io/input_file.h"
#include "io/json_input.h"
#include "io/status.h"

namespace commlab::workload::chakra_files {
namespace {

using json = nlohmann::json;

// The scalar events both readers handle alike: an integer that fits int64 is a candidate rank
// (Derived::rank), anything else is a value where a rank was expected (Derived::scalar, its text).
template <class Derived>
class RankScalars : public nlohmann::json_sax<json> {
 public:
  bool null() override { return self().scalar("null"); }
  bool boolean(bool v) override { return self().scalar(v ? "true" : "false"); }
  bool number_integer(number_integer_t v) override { return self().rank(v, std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override {
    return v > static_cast<uint64_t>(INT64_MAX) ? self().scalar(std::to_string(v))
                                                : self().rank(static_cast<int64_t>(v), "");
  }
  bool number_float(number_float_t, const string_t& text) override { return self().scalar(text); }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

// Depth 1 is the list, 2 an entry, 3 its ranks; `skip` counts the levels of a value under a key
// other than pg_name and ranks. Returning false stops the parse: not a process-group list.
class ListReader : public RankScalars<ListReader> {
  friend class RankScalars<ListReader>;

 public:
  std::vector<ProcessGroupText> groups;

  bool string(string_t& v) override {
    if (skip_ == 0 && depth_ == 2 && key_ == Key::kName && !has_name_) {
      groups.back().name = v;
      has_name_ = true;
      return true;
    }
    return scalar(json(v).dump());
  }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override { return open(true); }
  bool end_object() override { return close(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_array() override { return close(false); }
  bool key(string_t& k) override {
    if (skip_ == 0 && depth_ == 2)
      key_ = k == "pg_name" ? Key::kName : k == "ranks" ? Key::kRanks : Key::kOther;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  enum class Key { kName, kRanks, kOther };

  bool skipping() const { return skip_ > 0 || (depth_ == 2 && key_ == Key::kOther); }
  // A scalar: a rank when inside ranks, else fine only where it is skipped.
  bool scalar(const std::string& text) {
    if (skip_ == 0 && depth_ == 3) return bad_rank(text);
    return skipping();
  }
  bool rank(int64_t v, const std::string& text) {
    if (skip_ == 0 && depth_ == 3) {
      groups.back().ranks.push_back(v);
      return true;
    }
    return text.empty() ? skipping() : scalar(text);
  }
  bool bad_rank(const std::string& text) {
    ProcessGroupText& g = groups.back();
    if (g.bad_rank.empty()) g.bad_rank = excerpt(text, 80);
    g.ranks.push_back(kBadRank);
    return true;
  }
  bool open(bool object) {
    if (skipping()) return ++skip_, true;
    if (depth_ == 3) {  // a nested value in ranks: an error naming it, skipped
      bad_rank(object ? "an object" : "an array");
      return ++skip_, true;
    }
    if (depth_ == 0 && object) return false;
    if (depth_ == 1) {
      if (!object) return false;
      groups.emplace_back();
      has_name_ = has_ranks_ = false;
      key_ = Key::kOther;
    }
    if (depth_ == 2) {  // under pg_name (not a string) or ranks
      if (object || key_ != Key::kRanks || has_ranks_) return false;
      has_ranks_ = true;
    }
    ++depth_;
    return true;
  }
  bool close(bool object) {
    if (skip_ > 0) return --skip_, true;
    --depth_;
    if (depth_ == 1 && object) return has_name_ && has_ranks_;
    if (depth_ == 2) key_ = Key::kOther;
    return true;
  }

  int depth_ = 0;
  int skip_ = 0;
  Key key_ = Key::kOther;
  bool has_name_ = false, has_ranks_ = false;
};

// ASTRA-sim's {"KEY": [rank, ...], ...} in one pass: depth 1 is the object, 2 a group's ranks.
// Only keys and ranks are kept (4 bytes a rank), never the JSON tree (~27x the text);
// the group count and the ranks listed are capped as they are read. Bad values throw at once;
// returning false (not an object, invalid JSON) stops the parse.
class GroupFileReader : public RankScalars<GroupFileReader> {
  friend class RankScalars<GroupFileReader>;

 public:
  GroupFileReader(const std::string& file, int ranks, uint64_t max_groups, uint64_t max_members)
      : file_(file),
        ranks_(ranks),
        max_groups_(max_groups),
        max_members_(max_members),
        seen_(static_cast<size_t>(std::max(ranks, 0)), 0) {}

  std::vector<std::pair<std::string, std::vector<int>>> entries;

  bool string(string_t& v) override { return scalar(json_excerpt(json(v))); }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override {
    if (depth_ == 0) return depth_ = 1, true;
    return scalar("an object");
  }
  bool end_object() override { return depth_ = 0, true; }
  bool start_array(std::size_t) override {
    if (depth_ != 1) return depth_ == 0 ? false : scalar("an array");
    if (entries.size() >= max_groups_)
      throw bad_input(file_ + ": at least " + std::to_string(entries.size() + 1) +
                      " groups, over the cap of " + std::to_string(max_groups_) +
                      " (ChakraReadBudgets::comm_groups)");
    if (!keys_.insert(key_).second) fail("listed twice (a key must name one group)");
    entries.emplace_back(key_, std::vector<int>());
    ++stamp_;
    depth_ = 2;
    return true;
  }
  bool end_array() override {
    if (entries.back().second.empty()) fail("expected a non-empty list of ranks");
    depth_ = 1;
    return true;
  }
  bool key(string_t& k) override { return key_ = k, true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw bad_input(file_ + ": group \"" + excerpt(key_, 80) + "\": " + what);
  }
  // A value other than an integer: not a group (depth 1) or not a rank (depth 2).
  bool scalar(const std::string& text) {
    if (depth_ == 0) return false;
    if (depth_ == 1) fail("expected a non-empty list of ranks");
    fail("rank " + text + " is not in [0, " + std::to_string(ranks_) + ") (the trace has " +
         std::to_string(ranks_) + " rank files)");
  }
  bool rank(int64_t v, const std::string& text) {
    if (depth_ != 2 || v < 0 || v >= ranks_) return scalar(text.empty() ? std::to_string(v) : text);
    if (seen_[v] == stamp_) fail("rank " + std::to_string(v) + " twice");
    seen_[v] = stamp_;
    if (++members_ > max_members_)
      throw bad_input(file_ + ": the groups list at least " + std::to_string(members_) +
                      " ranks in all, over the cap of " + std::to_string(max_members_) +
                      " (ChakraReadBudgets::group_members)");
    entries.back().second.push_back(static_cast<int>(v));
    return true;
  }

  const std::string& file_;
  int ranks_;
  uint64_t max_groups_, max_members_;
  uint64_t members_ = 0;
  std::vector<uint32_t> seen_;  // stamp_ where the rank is in the current group
  uint32_t stamp_ = 0;
  std::unordered_set<std::string> keys_;
  std::string key_;
  int depth_ = 0;
};

}  // namespace

std::optional<std::vector<ProcessGroupText>> read_process_group_list(std::string_view text) {
  if (json_nesting(text, kMaxJsonDepth).first_over)
    parse_json_or_discarded(text, "process-group metadata");  // throws its nesting message
  ListReader reader;
  if (!json::sax_parse(text.begin(), text.end(), &reader)) return std::nullopt;
  return std::move(reader.groups);
}

std::vector<std::pair<std::string, std::vector<int>>> read_comm_group_entries(
    std::string_view text, const std::string& file, int ranks, uint64_t max_groups,
    uint64_t max_members) {
  if (json_nesting(text, kMaxJsonDepth).first_over)
    parse_json_or_discarded(text, file);  // throws its nesting message
  GroupFileReader reader(file, ranks, max_groups, max_members);
  if (!json::sax_parse(text.begin(), text.end(), &reader))
    throw bad_input(file +
                    ": not a communicator-group file (expected a JSON object "
                    "{\"1\": [0, 1, ...], ...})");
  return std::move(reader.entries);
}

}  // namespace commlab::workload::chakra_files
