#include "io/size_parse.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace commlab {

std::optional<uint64_t> parse_size(std::string_view text) {
  if (text.empty()) return std::nullopt;
  uint64_t multiplier = 1;
  char last = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
  if (last == 'B') {  // accept "16MB" / "16B"
    text.remove_suffix(1);
    if (text.empty()) return std::nullopt;
    last = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
  }
  switch (last) {
    case 'K': multiplier = 1ull << 10; break;
    case 'M': multiplier = 1ull << 20; break;
    case 'G': multiplier = 1ull << 30; break;
    case 'T': multiplier = 1ull << 40; break;
    default: break;
  }
  if (multiplier != 1) text.remove_suffix(1);
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  if (value > UINT64_MAX / multiplier) return std::nullopt;
  return value * multiplier;
}

std::string format_size(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "K", "M", "G", "T"};
  int unit = 0;
  while (unit < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + kUnits[unit];
}

std::string limit_text(double v) {
  char buf[40];
  if (std::fabs(v) < 1e16 && v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace commlab
