// Every file read from a user: a regular file within a cap, one-line errors "PATH: what is wrong".
#include "io/input_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

namespace commlab {
namespace {

std::string error_of(const std::string& path, uint64_t cap) {
  try {
    read_input_file(path, cap, "scenario file");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(InputFile, ReadsUpToTheCapAndRefusesOneByteMore) {
  const std::string path = ::testing::TempDir() + "/numeric_input_" + std::to_string(getpid());
  std::ofstream(path) << "0123456789";
  EXPECT_EQ(read_input_file(path, 10, "scenario file"), "0123456789");  // exactly the cap
  EXPECT_EQ(regular_file_size(path, "scenario file"), 10u);
  EXPECT_EQ(error_of(path, 9), path + ": file too large (more than 9 bytes)");
  ::unlink(path.c_str());
  EXPECT_EQ(error_of(path, 9).rfind(path + ": cannot open: ", 0), 0u);
}

TEST(InputFile, DirectoriesFifosAndDevicesAreRefusedBeforeOpening) {
  const std::string dir = ::testing::TempDir();
  EXPECT_EQ(error_of(dir, 100), dir + ": is a directory, expected a scenario file");
  const std::string fifo = dir + "/numeric_fifo_" + std::to_string(getpid());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of(fifo, 100), fifo + ": is a FIFO, expected a regular scenario file");
  ::unlink(fifo.c_str());
  EXPECT_EQ(error_of("/dev/zero", 100),
            "/dev/zero: is a device or socket, expected a regular scenario file");
}

TEST(InputFile, NestingLineColumnAndExcerpt) {
  const JsonNesting n = json_nesting(R"([{"a": "[[[["}, [[]]])", 2);
  EXPECT_EQ(n.deepest, 3);       // [ [ [ ]: strings do not count
  EXPECT_EQ(n.first_over, 17u);  // [ { } [ [: the second [ after the object, byte 17, is depth 3
  EXPECT_FALSE(json_nesting("[[]]", 2).first_over.has_value());
  EXPECT_EQ(line_col("ab\ncd\nef", 0), "1:1");
  EXPECT_EQ(line_col("ab\ncd\nef", 4), "2:2");
  EXPECT_EQ(line_col("ab", 99), "1:3");  // clamped to the end
  EXPECT_EQ(excerpt("abcdef", 6), "abcdef");
  EXPECT_EQ(excerpt("abcdefg", 6), "abcdef...");
}

}  // namespace
}  // namespace commlab
