#include "workload/chakra/chakra_process_groups.h"

#include <nlohmann/json.hpp>

#include "numeric/input_file.h"
#include "numeric/json_input.h"

namespace commlab::workload::chakra_files {
namespace {

using json = nlohmann::json;

// Depth 1 is the list, 2 an entry, 3 its ranks; `skip` counts the levels of a value under a key
// other than pg_name and ranks. Returning false stops the parse: not a process-group list.
class ListReader : public nlohmann::json_sax<json> {
 public:
  std::vector<ProcessGroupText> groups;

  bool null() override { return scalar("null"); }
  bool boolean(bool v) override { return scalar(v ? "true" : "false"); }
  bool number_integer(number_integer_t v) override { return rank(v, std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override {
    return v > static_cast<uint64_t>(INT64_MAX) ? scalar(std::to_string(v))
                                                : rank(static_cast<int64_t>(v), "");
  }
  bool number_float(number_float_t, const string_t& text) override { return scalar(text); }
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

}  // namespace

std::optional<std::vector<ProcessGroupText>> read_process_group_list(std::string_view text) {
  if (json_nesting(text, kMaxJsonDepth).first_over)
    parse_json_or_discarded(text, "process-group metadata");  // throws its nesting message
  ListReader reader;
  if (!json::sax_parse(text.begin(), text.end(), &reader)) return std::nullopt;
  return std::move(reader.groups);
}

}  // namespace commlab::workload::chakra_files
