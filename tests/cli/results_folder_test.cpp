// A results folder is never lost or mixed: run writes
// into DIR.incomplete and renames it into place, the old DIR becoming DIR.prev. These tests start
// commlab-cli, kill it once it is writing (SIGKILL, SIGTERM) or make a write fail as a full disk
// would (COMMLAB_FAIL_WRITE), and check that DIR is either the old folder untouched or a folder
// marked INCOMPLETE, never a mix.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_runner.h"
#include "support/files.h"

namespace commlab {
namespace {

using commlab::testing::read_file;

namespace fs = std::filesystem;
using testing::run_cli;

const std::string kTiny = std::string(COMMLAB_SOURCE_DIR) + "/tests/data/golden/tiny.json";

// A fresh DIR holding a finished run of the golden scenario plus a file no run writes.
fs::path old_results(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("results_folder_" + name);
  for (const char* suffix : {"", ".prev", ".incomplete"}) fs::remove_all(dir.string() + suffix);
  const auto o = run_cli("run " + kTiny + " --out " + dir.string() + " --quiet --no-charts");
  EXPECT_EQ(o.code, 0) << o.err;
  std::ofstream(dir / "stale.txt") << "from an earlier experiment\n";
  return dir;
}

// Starts a long run into `dir` (one run at a time) and returns its pid once it is writing:
// the first run's series rows have reached DIR.incomplete.
pid_t start_long_run(const fs::path& dir) {
  const std::string cli = std::string(COMMLAB_BINARY_DIR) + "/app/commlab-cli";
  const std::string out = dir.string();
  const pid_t pid = fork();
  if (pid == 0) {
    freopen("/dev/null", "w", stderr);
    execl(cli.c_str(), cli.c_str(), "run", kTiny.c_str(), "--out", out.c_str(), "--quiet",
          "--no-charts", "--threads", "1", "--jobs", "1", "--set", "training.iterations=2000000",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  const fs::path part = dir.string() + ".incomplete/.series.0.csv";
  for (int i = 0; i < 6000; ++i) {  // at most 60 s to start writing
    std::error_code ec;
    if (fs::file_size(part, ec) > 0 && !ec) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ADD_FAILURE() << "commlab-cli never wrote " << part;
  return pid;
}

int wait_exit(pid_t pid, bool* signalled) {
  int status = 0;
  waitpid(pid, &status, 0);
  *signalled = WIFSIGNALED(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
}

TEST(ResultsFolder, RunOverAnOldFolderKeepsItAsPrevAndLeavesNoStaleFile) {
  const fs::path dir = old_results("overwrite");
  const std::string old_summary = read_file(dir / "summary.json");
  const auto o = run_cli("run " + kTiny + " --out " + dir.string() +
                         " --quiet --no-charts --set training.iterations=3");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_FALSE(fs::exists(dir / "stale.txt"));
  EXPECT_FALSE(fs::exists(dir / "INCOMPLETE"));
  EXPECT_NE(read_file(dir / "summary.json").find("\"iterations\": 3"), std::string::npos);
  EXPECT_EQ(read_file(dir.string() + ".prev/summary.json"), old_summary);
  EXPECT_TRUE(fs::exists(dir.string() + ".prev/stale.txt"));
  EXPECT_FALSE(fs::exists(dir.string() + ".incomplete"));
}

TEST(ResultsFolder, SigkillMidRunLeavesTheOldFolderUntouched) {
  const fs::path dir = old_results("sigkill");
  const std::string old_summary = read_file(dir / "summary.json");
  const pid_t pid = start_long_run(dir);
  kill(pid, SIGKILL);
  bool signalled = false;
  EXPECT_EQ(wait_exit(pid, &signalled), SIGKILL);
  EXPECT_TRUE(signalled);
  EXPECT_EQ(read_file(dir / "summary.json"), old_summary);
  EXPECT_TRUE(fs::exists(dir / "stale.txt"));
  EXPECT_FALSE(fs::exists(dir.string() + ".prev"));
  // What the killed run wrote is aside, and says it is not a result.
  EXPECT_NE(read_file(dir.string() + ".incomplete/INCOMPLETE").find("is writing this folder"),
            std::string::npos);
  // The next run to DIR clears it.
  const auto o = run_cli("run " + kTiny + " --out " + dir.string() + " --quiet --no-charts");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_FALSE(fs::exists(dir.string() + ".incomplete"));
  EXPECT_EQ(read_file(dir.string() + ".prev/summary.json"), old_summary);
}

TEST(ResultsFolder, SigtermMidRunCommitsWhatFinishedMarkedIncomplete) {
  const fs::path dir = old_results("sigterm");
  const std::string old_summary = read_file(dir / "summary.json");
  const pid_t pid = start_long_run(dir);
  kill(pid, SIGTERM);
  bool signalled = true;
  EXPECT_EQ(wait_exit(pid, &signalled), 1);  // the run failed: stopped
  EXPECT_FALSE(signalled);
  // DIR is wholly the new, stopped run; the old one is DIR.prev.
  EXPECT_EQ(read_file(dir / "INCOMPLETE"), "stopped by SIGTERM: 0 of 5 runs complete\n");
  EXPECT_FALSE(fs::exists(dir / "stale.txt"));
  const nlohmann::json summary = nlohmann::json::parse(read_file(dir / "summary.json"));
  ASSERT_EQ(summary["runs"].size(), 1u);  // one run at a time: the first was under way
  EXPECT_EQ(summary["runs"][0]["complete"], false);
  EXPECT_EQ(read_file(dir.string() + ".prev/summary.json"), old_summary);
  EXPECT_TRUE(fs::exists(dir.string() + ".prev/stale.txt"));
  EXPECT_FALSE(fs::exists(dir.string() + ".incomplete"));
}

TEST(ResultsFolder, AFailedWriteLeavesTheOldFolderUntouched) {
  // COMMLAB_FAIL_WRITE=NAME makes writing DIR/NAME fail with ENOSPC (scenario/run/results_io.h).
  for (const char* file : {"summary.json", "series.csv", "scenario.json"}) {
    const fs::path dir = old_results(std::string("enospc_") + file);
    const std::string old_summary = read_file(dir / "summary.json");
    setenv("COMMLAB_FAIL_WRITE", file, 1);
    const auto o = run_cli("run " + kTiny + " --out " + dir.string() + " --quiet --no-charts");
    unsetenv("COMMLAB_FAIL_WRITE");
    EXPECT_EQ(o.code, 1) << file;
    EXPECT_EQ(o.err, "commlab-cli: failed: cannot write " + dir.string() + ".incomplete/" + file +
                         ": No space left on device\n");
    EXPECT_EQ(read_file(dir / "summary.json"), old_summary) << file;
    EXPECT_TRUE(fs::exists(dir / "stale.txt")) << file;
    EXPECT_FALSE(fs::exists(dir.string() + ".incomplete")) << file;
    EXPECT_FALSE(fs::exists(dir.string() + ".prev")) << file;
  }
}

TEST(ResultsFolder, NamesThatLeaveResultsAreRefusedByValidateAndRun) {
  const fs::path dir = fs::path(::testing::TempDir()) / "names";
  fs::create_directories(dir);
  const struct {
    const char* json_name;  // as written in the scenario file
    const char* problem;
  } cases[] = {
      {R"("../../escape")", R"(must not contain '/' or '\', got "../../escape")"},
      {R"(".hidden")", R"(must not start with '.', got ".hidden")"},
      {R"("a\\b")", R"(must not contain '/' or '\', got "a\\b")"},
  };
  for (const auto& c : cases) {
    std::string text = read_file(kTiny);
    text.replace(text.find("\"golden_tiny\""), 13, c.json_name);
    const fs::path file = dir / "s.json";
    std::ofstream(file) << text;
    for (const char* command : {"validate ", "run "}) {
      const auto o = run_cli(std::string(command) + file.string());
      EXPECT_EQ(o.code, 2) << command << c.json_name;
      EXPECT_EQ(o.err,
                file.string() + ":name: is the results folder results/NAME: " + c.problem + "\n")
          << command << c.json_name;
    }
  }
  const std::string long_name = std::string(201, 'x');
  const auto o = run_cli("validate " + kTiny + " --set name=" + long_name);
  EXPECT_EQ(o.code, 2);
}

TEST(ResultsFolder, OutIsRefusedWhenItIsNotAResultsFolder) {
  const fs::path dir = fs::path(::testing::TempDir()) / "precious";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "thesis.tex") << "not a result\n";
  const auto o = run_cli("run " + kTiny + " --out " + dir.string() + " --quiet");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err, "commlab-cli: --out: " + dir.string() +
                       " is not a results folder (no summary.json, REPORT.md or INCOMPLETE in "
                       "it); give a new or empty folder\n");
  EXPECT_TRUE(fs::exists(dir / "thesis.tex"));
  EXPECT_FALSE(fs::exists(dir.string() + ".prev"));
}

// DIR.incomplete and DIR.prev are touched only when commlab-cli wrote them (their INCOMPLETE and
// PREVIOUS markers): a user's folder of that name survives, and the command exits 2 naming it.
TEST(ResultsFolder, AUserFolderNamedIncompleteSurvivesRunAndReproduce) {
  const fs::path base = fs::path(::testing::TempDir()) / "user_incomplete";
  fs::remove_all(base);
  const fs::path staging = base.string() + ".incomplete";
  fs::create_directories(staging);
  std::ofstream(staging / "thesis.tex") << "not a result\n";
  const std::string message = "commlab-cli: --out: " + staging.string() +
                              " exists and was not written by commlab-cli (no INCOMPLETE in "
                              "it); move or remove it, or choose another folder\n";
  for (const std::string command :
       {"run " + kTiny + " --quiet --no-charts", std::string("reproduce netzip --quick")}) {
    const auto o = run_cli(command + " --out " + base.string());
    EXPECT_EQ(o.code, 2) << command;
    EXPECT_EQ(o.err, message) << command;
    EXPECT_EQ(read_file(staging / "thesis.tex"), "not a result\n") << command;
    EXPECT_FALSE(fs::exists(base)) << command;
  }
}

TEST(ResultsFolder, AUserFolderNamedPrevIsNeverReplaced) {
  const fs::path dir = old_results("user_prev");
  const fs::path prev = dir.string() + ".prev";
  fs::create_directories(prev);
  std::ofstream(prev / "thesis.tex") << "not a result\n";
  const std::string old_summary = read_file(dir / "summary.json");
  const auto o = run_cli("run " + kTiny + " --out " + dir.string() + " --quiet --no-charts");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err, "commlab-cli: --out: " + prev.string() +
                       " exists and was not written by commlab-cli (no PREVIOUS in it); move or "
                       "remove it, or choose another folder\n");
  EXPECT_TRUE(fs::exists(prev / "thesis.tex"));
  EXPECT_EQ(read_file(dir / "summary.json"), old_summary);
  EXPECT_FALSE(fs::exists(dir.string() + ".incomplete"));
}

TEST(ResultsFolder, APrevFolderCommlabWroteIsReplacedByTheNextRun) {
  const fs::path dir = old_results("own_prev");
  const std::string first = read_file(dir / "summary.json");
  const std::string run = "run " + kTiny + " --out " + dir.string() + " --quiet --no-charts ";
  ASSERT_EQ(run_cli(run + "--set training.iterations=3").code, 0);
  EXPECT_TRUE(fs::exists(dir.string() + ".prev/PREVIOUS"));
  EXPECT_EQ(read_file(dir.string() + ".prev/summary.json"), first);
  EXPECT_FALSE(fs::exists(dir / "PREVIOUS"));
  const std::string second = read_file(dir / "summary.json");
  ASSERT_EQ(run_cli(run + "--set training.iterations=4").code, 0);
  EXPECT_EQ(read_file(dir.string() + ".prev/summary.json"), second);
  EXPECT_FALSE(fs::exists(dir / "INCOMPLETE"));
}

}  // namespace
}  // namespace commlab
