// Flags and input files that must not pass or hang: NaN and infinities in number
// flags, FIFOs and devices as input files, a cluster file that names itself. Each is one line on
// stderr and exit 2.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "support/cli_runner.h"

namespace commlab {
namespace {

using testing::run_cli;

TEST(HostileFlags, NanAndInfinityAreRefusedByEveryNumberFlag) {
  // Each of these went through CLI11's range check, since NaN compares false with every bound.
  for (const char* args :
       {"collective --reduce-gbps nan --sizes 1K:1K", "train --lr nan", "train --lr -inf",
        "workload --mfu NaN --cluster netzip-512:gbps=100", "collective --bw inf --sizes 1K:1K"}) {
    const auto o = run_cli(args);
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_NE(o.err.find("expected a finite number"), std::string::npos) << args << ": " << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  }
  // A finite value still passes the same flag.
  EXPECT_EQ(run_cli("collective --reduce-gbps 1.5 --sizes 1K:1K --ranks 2").code, 0);
}

TEST(HostileFlags, FifosAndDevicesAreRefusedWithoutBlocking) {
  const std::string fifo = ::testing::TempDir() + "/hostile_fifo_" + std::to_string(getpid());
  ::unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Opening a FIFO with no writer blocks forever: each of these must return at once.
  const auto codec = run_cli("codec --input " + fifo + " --dtype bf16");
  EXPECT_EQ(codec.code, 2);
  EXPECT_EQ(codec.err,
            "commlab-cli: --input " + fifo + ": is a FIFO, expected a regular input file\n");
  const auto zero = run_cli("codec --input /dev/zero --dtype bf16");
  EXPECT_EQ(zero.code, 2);
  EXPECT_NE(zero.err.find("/dev/zero: is a device or socket"), std::string::npos) << zero.err;
  const auto scenario = run_cli("validate " + fifo);
  EXPECT_EQ(scenario.code, 2);
  EXPECT_EQ(scenario.err, fifo + ": is a FIFO, expected a regular scenario file\n");
  const auto cluster = run_cli("collective --sizes 1K:1K --cluster " + fifo);
  EXPECT_EQ(cluster.code, 2);
  EXPECT_NE(cluster.err.find("is a FIFO"), std::string::npos) << cluster.err;
  ::unlink(fifo.c_str());
}

TEST(HostileFlags, AClusterFileThatNamesItselfIsAnErrorNotACrash) {
  const std::string self = ::testing::TempDir() + "/self_" + std::to_string(getpid()) + ".json";
  std::ofstream(self) << "\"" << self << "\"";
  for (const std::string& cmd :
       {"collective --sizes 1K:1K --cluster " + self, "traffic --pattern perm --cluster " + self}) {
    const auto o = run_cli(cmd);
    EXPECT_EQ(o.code, 2) << cmd;  // was SIGSEGV from unbounded recursion
    EXPECT_NE(o.err.find("cluster file names itself"), std::string::npos) << o.err;
  }
}

// `--exec` takes the scenario's words in every command: collective once took only
// sim, run only simulated. Both spell the same execution, and anything else is refused by name.
TEST(HostileFlags, ExecTakesTheScenarioWordsInEveryCommand) {
  const std::string collective = "collective --ranks 4 --sizes 64K:64K --json --exec ";
  const auto sim = run_cli(collective + "sim");
  const auto simulated = run_cli(collective + "simulated");
  ASSERT_EQ(sim.code, 0) << sim.err;
  EXPECT_EQ(simulated.code, 0) << simulated.err;
  EXPECT_EQ(simulated.out, sim.out);  // the same simulated collective, byte for byte
  for (const std::string& cmd : {collective + "gpu", "run " + std::string(COMMLAB_SOURCE_DIR) +
                                                         "/samples/quickstart.json --exec gpu"}) {
    const auto bad = run_cli(cmd);
    EXPECT_EQ(bad.code, 2) << cmd;
    EXPECT_NE(bad.err.find("--exec: expected simulated (or sim) or mpi, got 'gpu'"),
              std::string::npos)
        << bad.err;
  }
  // --exec overrides a run's execution after the scenario was checked: the checks run again, so
  // proxy timing (simulated only) is refused under mpi by its field, before any process starts.
  const auto proxy = run_cli("run " + std::string(COMMLAB_SOURCE_DIR) +
                             "/samples/skipreduce_vgg19.json --exec mpi --quiet");
  EXPECT_EQ(proxy.code, 2);
  EXPECT_NE(proxy.err.find("--exec mpi: run 'baseline': workload.time_as: proxy timing runs in "
                           "the simulated execution only"),
            std::string::npos)
      << proxy.err;
}

}  // namespace
}  // namespace commlab
