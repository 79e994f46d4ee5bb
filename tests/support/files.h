#pragma once
// A whole file as bytes, for tests that compare what a run wrote (a missing file reads as "").
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace commlab::testing {

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace commlab::testing
