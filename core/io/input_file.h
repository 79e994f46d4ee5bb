#pragma once
// Every file CommLab reads from a user goes through here: it must be a regular file
// (a FIFO, a directory or a device such as /dev/zero is refused before it is opened, so nothing
// blocks or reads forever), no larger than a cap the caller documents, and JSON text must not nest
// deeper than a limit. Errors are one line: "PATH: what is wrong".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace commlab {

// The size of PATH, after checking it is a regular file (the checks read_input_file makes).
uint64_t regular_file_size(const std::string& path, std::string_view what);

// Reads the whole file. `what` names the kind of file for messages ("cluster file"). Throws
// std::invalid_argument when the path is missing, not a regular file, unreadable, or larger than
// max_bytes (it reads at most max_bytes + 1 bytes, so a growing file is refused too).
std::string read_input_file(const std::string& path, uint64_t max_bytes, std::string_view what);

// Bracket nesting ({ and [ outside strings) of JSON text, in one linear pass: the byte offset
// where it first exceeds max_depth (none: within the limit) and the deepest it goes.
struct JsonNesting {
  std::optional<size_t> first_over;
  int deepest = 0;
};
JsonNesting json_nesting(std::string_view text, int max_depth);

// "LINE:COL" of a byte offset, for messages.
std::string line_col(std::string_view text, size_t offset);

// The first `max_chars` characters of a value's text, with "..." when cut: error messages quote
// what they got without dumping a 200 MB value.
std::string excerpt(std::string_view text, size_t max_chars = 60);

}  // namespace commlab
