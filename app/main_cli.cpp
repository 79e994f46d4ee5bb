// commlab-cli: the headless engine. Thin: the command line goes to the registered subcommands
// (app/cli/util/command_line_util.h).
#include <csignal>
#include <string>
#include <vector>

#include "cli/util/command_line_util.h"

int main(int argc, char** argv) {
  // A shell's file-size limit (ulimit -f) would kill the process with SIGXFSZ in mid-write, before
  // the staged writers could remove their temporaries or say which file; ignored, the write fails
  // with EFBIG and the error path runs (one line naming the file, exit 1, earlier files intact).
  std::signal(SIGXFSZ, SIG_IGN);
  return commlab::cli::run_command_line(std::vector<std::string>(argv, argv + argc));
}
