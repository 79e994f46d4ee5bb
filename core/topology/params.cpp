#include "topology/params.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "io/status.h"

namespace commlab {

std::string param_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

namespace {
std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}
}  // namespace

Params::Params(std::string where, std::vector<std::pair<std::string, std::string>> values)
    : where_(std::move(where)), values_(std::move(values)) {
  for (size_t i = 0; i < values_.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (!values_[i].first.empty() && values_[i].first == values_[j].first)
        throw bad_input(where_ + values_[i].first + ": given twice");
}

Params Params::parse(std::string where, std::string_view args, std::string positional) {
  std::vector<std::pair<std::string, std::string>> values;
  size_t pos = 0;
  bool first = true;
  while (pos <= args.size() && !args.empty()) {
    size_t comma = args.find(',', pos);
    std::string item =
        trim(args.substr(pos, comma == std::string_view::npos ? args.npos : comma - pos));
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
      // A bare value is only meaningful first, for builders with a positional parameter; others
      // keep it under "" so that the builder name is checked first, then finish() reports it.
      if (item.empty()) throw bad_input(where + "expected key=value, got ''");
      values.emplace_back(first ? positional : std::string(), item);
    } else {
      values.emplace_back(lower(trim(item.substr(0, eq))), trim(item.substr(eq + 1)));
    }
    first = false;
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return Params(std::move(where), std::move(values));
}

const std::string* Params::find(std::string_view key) {
  asked_.emplace_back(key);
  for (const auto& [k, v] : values_)
    if (k == key) return &v;
  return nullptr;
}

bool Params::has(std::string_view key) const {
  return std::any_of(values_.begin(), values_.end(),
                     [&](const auto& kv) { return kv.first == key; });
}

void Params::fail(std::string_view key, std::string_view expected, std::string_view got) const {
  throw bad_input(where_ + std::string(key) + ": expected " + std::string(expected) + ", got " +
                  std::string(got.empty() ? "nothing" : got));
}

int Params::get_int(std::string_view key, int fallback, int min, int max, int multiple_of) {
  const std::string* text = find(key);
  if (!text) return fallback;
  std::string expected = (multiple_of == 2 ? "an even integer" : "an integer") +
                         std::string(" in [") + std::to_string(min) + ", " + std::to_string(max) +
                         "]";
  long long v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size() || v < min || v > max ||
      v % multiple_of != 0)
    fail(key, expected, *text);
  return static_cast<int>(v);
}

double Params::get_double(std::string_view key, double fallback, double min, bool min_inclusive) {
  const std::string* text = find(key);
  if (!text) return fallback;
  double v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  // Every number has a ceiling too (gbps=1e30 passed validate and run): 10^6 (GB/s,
  // microseconds, ratios), buffer sizes in bytes up to 10^12.
  const double max = key == "buffer" ? 1e12 : 1e6;
  bool ok = ec == std::errc() && end == text->data() + text->size() && std::isfinite(v) &&
            (min_inclusive ? v >= min : v > min);
  if (!ok) {
    std::string m = std::to_string(min);
    m.erase(m.find_last_not_of('0') + 1);
    if (m.back() == '.') m.pop_back();
    fail(key, std::string("a number ") + (min_inclusive ? ">= " : "> ") + m, *text);
  }
  if (v > max)
    fail(key, std::string("a number at most ") + (key == "buffer" ? "1000000000000" : "1000000"),
         *text);
  return v;
}

std::string Params::get_choice(std::string_view key, std::string_view fallback,
                               const std::vector<std::string_view>& choices) {
  const std::string* text = find(key);
  if (!text) return std::string(fallback);
  std::string v = lower(*text);
  for (std::string_view c : choices)
    if (v == c) return v;
  std::string list;
  for (std::string_view c : choices) list.append(list.empty() ? "" : "|").append(c);
  fail(key, "one of " + list, *text);
}

std::vector<int> Params::get_dims(std::string_view key, std::string_view fallback) {
  const std::string* found = find(key);
  std::string text = found ? *found : std::string(fallback);
  std::vector<int> dims;
  size_t pos = 0;
  while (true) {
    size_t x = text.find_first_of("xX", pos);
    std::string part = text.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    int v = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size() || v < 1 || v > 4096)
      fail(key, "dimensions like 8x8 or 4x4x4 (each 1..4096)", text);
    dims.push_back(v);
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  return dims;
}

void Params::finish() const {
  for (const auto& [k, v] : values_) {
    if (std::find(asked_.begin(), asked_.end(), k) != asked_.end()) continue;
    if (k.empty()) throw bad_input(where_ + "expected key=value, got '" + v + "'");
    std::vector<std::string> seen;
    std::string list;
    for (const std::string& a : asked_) {
      if (std::find(seen.begin(), seen.end(), a) != seen.end()) continue;
      seen.push_back(a);
      list.append(list.empty() ? "" : ", ").append(a);
    }
    throw bad_input(where_ + k + ": unknown parameter (accepted: " + list + ")");
  }
}

}  // namespace commlab
