// Staged writes: a set of files appears whole or not at all, and links are never written through.
#include "io/staged_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace commlab {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / (name + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(StagedFiles, NothingAppearsUntilCommitAndNoTemporaryStays) {
  const fs::path dir = fresh_dir("staged_commit_");
  {
    StagedFiles set;
    set.add((dir / "a").string(), "one");
    set.add((dir / "b").string(), "two");
    EXPECT_FALSE(fs::exists(dir / "a"));
    set.commit();
  }
  EXPECT_EQ(read(dir / "a"), "one");
  EXPECT_EQ(read(dir / "b"), "two");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 2);
}

TEST(StagedFiles, AnUncommittedSetLeavesEarlierFilesByteIdentical) {
  const fs::path dir = fresh_dir("staged_abort_");
  std::ofstream(dir / "a") << "old";
  {
    StagedFiles set;
    set.add((dir / "a").string(), "new");
  }  // destroyed without commit: the temporary is removed
  EXPECT_EQ(read(dir / "a"), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
  // A folder that does not exist: one line naming the path, nothing left behind.
  try {
    write_file_atomically((dir / "missing/x").string(), "z");
    ADD_FAILURE() << "wrote into a missing folder";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write " + (dir / "missing/x").string()),
              std::string::npos)
        << e.what();
  }
}

TEST(StagedFiles, ASymlinkAtTheFinalNameIsReplacedNotFollowed) {
  const fs::path dir = fresh_dir("staged_link_");
  std::ofstream(dir / "target") << "precious";
  fs::create_symlink(dir / "target", dir / "out");
  write_file_atomically((dir / "out").string(), "written");
  EXPECT_EQ(read(dir / "target"), "precious");
  EXPECT_FALSE(fs::is_symlink(dir / "out"));
  EXPECT_EQ(read(dir / "out"), "written");
}

}  // namespace
}  // namespace commlab
