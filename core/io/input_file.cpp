#include "io/input_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "io/status.h"

namespace commlab {

uint64_t regular_file_size(const std::string& path, std::string_view what) {
  auto fail = [&](const std::string& why) { throw bad_input(path + ": " + why); };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail(std::string("cannot open: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail("is a directory, expected a " + std::string(what));
  if (!S_ISREG(st.st_mode))
    fail(std::string(S_ISFIFO(st.st_mode) ? "is a FIFO" : "is a device or socket") +
         ", expected a regular " + std::string(what));
  return static_cast<uint64_t>(st.st_size);
}

std::string read_input_file(const std::string& path, uint64_t max_bytes, std::string_view what) {
  auto fail = [&](const std::string& why) { throw bad_input(path + ": " + why); };
  const uint64_t size = regular_file_size(path, what);
  const std::string too_large =
      "file too large (more than " + std::to_string(max_bytes) + " bytes)";
  if (size > max_bytes) fail(too_large);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(std::string("cannot open: ") + std::strerror(errno));
  std::string text(static_cast<size_t>(size) + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > max_bytes) fail(too_large);
  return text;
}

JsonNesting json_nesting(std::string_view text, int max_depth) {
  JsonNesting n;
  int depth = 0;
  bool in_string = false, escape = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      n.deepest = std::max(n.deepest, ++depth);
      if (depth > max_depth && !n.first_over) n.first_over = i;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return n;
}

std::string line_col(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') ++line, line_start = i + 1;
  return std::to_string(line) + ":" + std::to_string(offset - line_start + 1);
}

std::string excerpt(std::string_view text, size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  return std::string(text.substr(0, max_chars)) + "...";
}

}  // namespace commlab
