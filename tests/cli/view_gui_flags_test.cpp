// Two doors into the same pages: `commlab-cli view PAGE` and the desktop app's own command line
// refuse the same value with the same message (core/views/view_settings.h checks both, and their
// flags take their ranges from it), each naming its own flag, exit 2.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "support/cli_runner.h"

namespace commlab {
namespace {

using testing::run_cli;

// The app's exit status and the last line of its stderr, offscreen; the flags are refused before
// anything is drawn. (Qt may say something of its own before the app's one line: "QStandardPaths:
// XDG_RUNTIME_DIR not set".)
testing::CliOutput run_gui(const std::string& args) {
  const std::string err = ::testing::TempDir() + "/view_gui_err_" + std::to_string(getpid());
  const std::string cmd = std::string("QT_QPA_PLATFORM=offscreen ") + COMMLAB_BINARY_DIR +
                          "/app/commlab --screenshot " + ::testing::TempDir() + "/never.png " +
                          args + " >/dev/null 2>" + err;
  const int status = std::system(cmd.c_str());
  testing::CliOutput o;
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::stringstream text;
  text << std::ifstream(err).rdbuf();
  o.err = text.str();
  const size_t end = o.err.size() > 1 ? o.err.rfind('\n', o.err.size() - 2) : std::string::npos;
  if (end != std::string::npos) o.err.erase(0, end + 1);
  std::remove(err.c_str());
  return o;
}

struct SameValue {
  const char* view;  // commlab-cli arguments
  const char* view_flag;
  const char* gui;  // the app's arguments
  const char* gui_flag;
  const char* message;  // what both say after "PROGRAM: FLAG: "
};

TEST(ViewCliAndGuiFlags, TheSameBadValueIsRefusedWithTheSameMessage) {
  const SameValue kCases[] = {
      // Ranges: the flag parser, with the settings' words and CLI11's hint.
      {"view teaching --ranks 99", "--ranks", "--teach-ranks 99", "--teach-ranks",
       "expected 2 to 16 ranks, got 99 (see --help)"},
      {"view teaching --ranks 1", "--ranks", "--teach-ranks 1", "--teach-ranks",
       "expected 2 to 16 ranks, got 1 (see --help)"},
      {"view teaching --ranks abc", "--ranks", "--teach-ranks abc", "--teach-ranks",
       "expected an integer from 2 to 16, got 'abc' (see --help)"},
      {"view teaching --ranks-per-node 0", "--ranks-per-node", "--teach-per-node 0",
       "--teach-per-node", "expected 1 to 16, got 0 (see --help)"},
      {"view teaching --skip 16", "--skip", "--skip 16", "--skip",
       "expected 0 to 15, got 16 (see --help)"},
      {"view teaching --trim-rate 1.5", "--trim-rate", "--trim 1.5", "--trim",
       "expected 0 to 1, got 1.5 (see --help)"},
      // Cross-field rules: check_teaching, after parsing.
      {"view teaching --algorithm direct --skip 1", "--skip", "--teach-algo direct --skip 1",
       "--skip", "SkipReduce runs on ring, tree or hd, not direct, got 1"},
      // Tree on 8 ranks: depth floor(log2 8) = 3 reduce levels.
      {"view teaching --algorithm tree --ranks 8 --skip 4", "--skip",
       "--teach-algo tree --teach-ranks 8 --skip 4", "--skip",
       "tree on 8 ranks skips at most 3 reduce levels (its depth), got 4"},
      // Ring on 4 ranks: N-1 = 3 steps.
      {"view teaching --ranks 4 --skip 4", "--skip", "--teach-ranks 4 --skip 4", "--skip",
       "ring on 4 ranks skips at most 3 steps (N-1), got 4"},
      // hier with the default 2 ranks per node: 5 ranks do not fill whole nodes.
      {"view teaching --algorithm hier --ranks 5", "--ranks-per-node",
       "--teach-algo hier --teach-ranks 5", "--teach-per-node",
       "hier groups ranks into whole nodes: 5 ranks are not a multiple of 2"},
      {"view topology --bytes 3", "--bytes", "--message 3", "--message",
       "expected a byte size in [4B, 1T], got '3'"}};
  for (const SameValue& c : kCases) {
    const auto view = run_cli(c.view);
    const auto gui = run_gui(c.gui);
    EXPECT_EQ(view.code, 2) << c.view;
    EXPECT_EQ(gui.code, 2) << c.gui;
    EXPECT_EQ(view.err, std::string("commlab-cli: ") + c.view_flag + ": " + c.message + "\n")
        << c.view;
    EXPECT_EQ(gui.err, std::string("commlab: ") + c.gui_flag + ": " + c.message + "\n") << c.gui;
  }
}

}  // namespace
}  // namespace commlab
