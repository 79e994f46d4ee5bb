#pragma once
// Byte sizes as users type them ("8", "4K", "16M", "1G": binary multiples, as nccl-tests does) and
// as tables print them; numbers as messages print them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace commlab {

std::optional<uint64_t> parse_size(std::string_view text);
std::string format_size(uint64_t bytes);
// A limit or value as messages and docs print it: integers without a fraction, else 6 digits.
std::string limit_text(double v);

}  // namespace commlab
