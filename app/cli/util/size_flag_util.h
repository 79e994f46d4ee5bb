#pragma once
// Byte-size flags as users type them ("16M": K/M/G suffixes, binary multiples), checked against a
// range with one message that names the flag, the value and what is expected (traffic, view).
#include <cstdint>
#include <string>

namespace commlab::cli {

// The size `text` gives `flag`, in [lo, hi] bytes; throws InvalidInput naming the flag otherwise.
uint64_t size_flag(const std::string& flag, const std::string& text, uint64_t lo = 1,
                   uint64_t hi = UINT64_MAX);

}  // namespace commlab::cli
