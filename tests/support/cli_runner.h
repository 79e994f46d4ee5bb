#pragma once
// Runs the built commlab-cli for the contract tests: exit code, stdout and stderr.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <string>

namespace commlab::testing {

struct CliOutput {
  int code = -1;
  std::string out;
  std::string err;
};

inline CliOutput run_cli(const std::string& args) {
  static std::atomic<int> counter{0};
  // The pid keeps test processes that ctest runs in parallel from sharing a file.
  const std::string err_file = ::testing::TempDir() + "/cli_stderr_" + std::to_string(getpid()) +
                               "_" + std::to_string(counter++) + ".txt";
  const std::string cmd =
      std::string(COMMLAB_BINARY_DIR) + "/app/commlab-cli " + args + " 2>" + err_file;
  CliOutput o;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return o;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) o.out.append(buf.data(), n);
  int status = pclose(pipe);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (FILE* f = fopen(err_file.c_str(), "r")) {
    while (size_t n = fread(buf.data(), 1, buf.size(), f)) o.err.append(buf.data(), n);
    fclose(f);
  }
  std::remove(err_file.c_str());
  return o;
}

}  // namespace commlab::testing
