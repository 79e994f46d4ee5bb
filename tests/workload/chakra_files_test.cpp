// Finding a trace's rank files (workload/chakra/chakra_files.h): consecutive PREFIX.K.et from 0,
// and past the cap an error, never a silently dropped rank (1,048,577 rank files
// replayed as "gpus": 1048576).
#include "workload/chakra/chakra_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
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

// The node budget's count from the file in blocks agrees with count_messages on the bytes in
// memory, across the 1 MiB block edges, for a zero-length message and a truncated last one; a
// FIFO, a directory or a file over the cap count 0 (the reader's own errors name them), never a
// blocking read.
TEST(ChakraFiles, CountFileNodesMatchesTheRecordsInMemory) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("count_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string bytes("\x02\x0a\x00", 3);  // a GlobalMetadata of 2 bytes
  const uint64_t after_metadata = bytes.size();
  for (int i = 0; i < 200000; ++i) {
    const int len = i % 7 == 0 ? 0 : (i % 5 == 0 ? 200 : 9);  // 200: a two-byte length prefix
    bytes += static_cast<char>(len < 128 ? len : (len & 0x7F) | 0x80);
    if (len >= 128) bytes += static_cast<char>(len >> 7);
    bytes += std::string(len, 'n');
  }
  bytes += std::string("\x20" "abc", 4);  // a truncated message: 32 bytes announced, 3 left
  const fs::path file = dir / "t.0.et";
  std::ofstream(file, std::ios::binary) << bytes;
  ASSERT_GT(bytes.size(), 3u << 20);
  const uint64_t in_memory = chakra_files::count_messages(bytes, after_metadata);
  EXPECT_EQ(in_memory, 200000u);
  EXPECT_EQ(chakra_files::count_file_nodes(file.string(), 1 << 30), in_memory);
  EXPECT_EQ(chakra_files::count_file_nodes(file.string(), bytes.size() - 1), 0u);
  EXPECT_EQ(chakra_files::count_file_nodes(dir.string(), 1 << 30), 0u);
  const fs::path fifo = dir / "fifo.0.et";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(chakra_files::count_file_nodes(fifo.string(), 1 << 30), 0u);
}

}  // namespace
}  // namespace commlab::workload
