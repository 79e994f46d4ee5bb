#pragma once
// Builder parameters as key/value text, read with checks that name the parameter and what was
// expected. The same reader serves cluster specs ("fattree:k=8,gbps=100") and the compact JSON form
// ({"builder": "fattree", "params": {"k": 8}}); only the prefix of the messages differs.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace commlab {

// A number as it is written back into a spec ("%.10g": "100", "0.5", "1e-06").
std::string param_text(double v);

class Params {
 public:
  // `where` starts every message, e.g. "cluster 'fattree:k=3': " or "cluster.params.".
  Params(std::string where, std::vector<std::pair<std::string, std::string>> values);
  // Splits "a=1,b=2" (a bare first value becomes key `positional`, as in "flat:64").
  static Params parse(std::string where, std::string_view args, std::string positional = "");

  bool has(std::string_view key) const;
  // Integer in [min, max]; `multiple_of` > 1 also requires divisibility (fat-tree k is even).
  int get_int(std::string_view key, int fallback, int min, int max, int multiple_of = 1);
  // Finite number > min (or >= min when min_inclusive).
  double get_double(std::string_view key, double fallback, double min, bool min_inclusive = false);
  // One of `choices` (case-insensitive), returned lower-case.
  std::string get_choice(std::string_view key, std::string_view fallback,
                         const std::vector<std::string_view>& choices);
  // Dimensions written "8x8" or "4x4x4".
  std::vector<int> get_dims(std::string_view key, std::string_view fallback);
  // Throws on any key that no get_* asked for, listing the accepted ones.
  void finish() const;

  [[noreturn]] void fail(std::string_view key, std::string_view expected,
                         std::string_view got) const;
  const std::string& where() const { return where_; }

 private:
  const std::string* find(std::string_view key);

  std::string where_;
  std::vector<std::pair<std::string, std::string>> values_;
  std::vector<std::string> asked_;
};

}  // namespace commlab
