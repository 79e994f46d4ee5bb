#pragma once
// Byte sizes as users type them ("8", "4K", "16M", "1G": binary multiples, as nccl-tests does) and
// as tables print them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace commlab {

std::optional<uint64_t> parse_size(std::string_view text);
std::string format_size(uint64_t bytes);

}  // namespace commlab
