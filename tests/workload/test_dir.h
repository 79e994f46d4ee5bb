#pragma once
// A fresh, empty folder for a test's files under the build tree (build/test_tmp/NAME).
#include <filesystem>
#include <string>

namespace commlab::test {

inline std::filesystem::path fresh_test_dir(const std::string& name) {
  const std::filesystem::path d = std::filesystem::path(COMMLAB_BINARY_DIR) / "test_tmp" / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace commlab::test
