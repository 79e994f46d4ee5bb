#pragma once
// Runs a shell command and keeps its exit status and its stdout and stderr together, for the tests
// that start whole jobs (mpirun under `timeout`).
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace commlab::testing {

struct Outcome {
  int code = -1;  // exit status of the whole job (124: killed by timeout, i.e. it hung)
  std::string output;
};

inline Outcome shell(const std::string& command) {
  Outcome out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.output.append(buf.data(), n);
  int status = pclose(pipe);
  out.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

}  // namespace commlab::testing
