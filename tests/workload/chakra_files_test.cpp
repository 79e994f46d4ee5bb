// Finding a trace's rank files (workload/chakra/chakra_files.h): consecutive PREFIX.K.et from 0,
// and past the cap an error, never a silently dropped rank (issue 31: 1,048,577 rank files
// replayed as "gpus": 1048576).
#include "workload/chakra/chakra_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace commlab::workload {
namespace {

namespace fs = std::filesystem;

std::string trace_prefix(const std::string& stem, int files) {
  const fs::path dir = fs::path(::testing::TempDir()) / (stem + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (int r = 0; r < files; ++r) std::ofstream(dir / ("t." + std::to_string(r) + ".et")) << "x";
  return (dir / "t").string();
}

TEST(ChakraFiles, CountsConsecutiveRankFilesUpToTheCap) {
  EXPECT_EQ(chakra_files::count_rank_files(trace_prefix("four", 4), 4), 4);  // exactly the cap
  EXPECT_EQ(chakra_files::count_rank_files(trace_prefix("three", 3), 4), 3);
}

TEST(ChakraFiles, OneFileMoreThanTheCapIsAnErrorNotADroppedRank) {
  const std::string prefix = trace_prefix("five", 5);
  try {
    chakra_files::count_rank_files(prefix, 4);
    FAIL() << "the fifth rank file was dropped silently";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), prefix + ".4.et: more than 4 rank files (the cap of a trace)");
  }
}

}  // namespace
}  // namespace commlab::workload
