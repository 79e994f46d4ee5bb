#include "cli/util/size_flag_util.h"

#include "cli/command.h"
#include "io/size_parse.h"

namespace commlab::cli {

uint64_t size_flag(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi) {
  const std::string shown = text.substr(0, 80);
  const auto v = parse_size(text);
  if (!v || (lo == 1 && *v == 0))  // 0 is no size, like a typo
    throw InvalidInput(flag + ": expected a" + (lo > 0 ? " positive" : "") +
                       " byte size such as 16M (K/M/G suffixes), got '" + shown + "'");
  if (*v < lo || *v > hi)
    throw InvalidInput(flag + ": expected a byte size in [" + format_size(lo) + ", " +
                       format_size(hi) + "], got '" + shown + "'");
  return *v;
}

}  // namespace commlab::cli
