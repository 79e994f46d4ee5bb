// Sizes as users type them (binary multiples, as nccl-tests) and as tables print them.
#include "io/size_parse.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace commlab {
namespace {

TEST(ParseSize, BinaryMultiplesWithOrWithoutB) {
  EXPECT_EQ(parse_size("8"), 8u);
  EXPECT_EQ(parse_size("4K"), 4096u);          // 4 x 2^10
  EXPECT_EQ(parse_size("16m"), 16ull << 20);   // case-insensitive
  EXPECT_EQ(parse_size("16MB"), 16ull << 20);  // a trailing B is accepted
  EXPECT_EQ(parse_size("1G"), 1ull << 30);
  EXPECT_EQ(parse_size("2T"), 2ull << 40);
  EXPECT_EQ(parse_size("7B"), 7u);
  EXPECT_EQ(parse_size("0"), 0u);
}

TEST(ParseSize, GarbageAndOverflowAreNothing) {
  for (const char* bad : {"", "B", "K", "abc", "1.5M", "-1", "4 K", "4KK", " 4", "0x10", "1e3"})
    EXPECT_FALSE(parse_size(bad).has_value()) << bad;
  // 2^64 - 1 fits; 2^64 / 2^40 = 16,777,216 T is one past the largest whole T.
  EXPECT_EQ(parse_size("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(parse_size("18446744073709551616").has_value());
  EXPECT_EQ(parse_size("16777215T"), 16777215ull << 40);
  EXPECT_FALSE(parse_size("16777216T").has_value());
}

TEST(FormatSize, LargestWholeUnitAndRoundTrip) {
  EXPECT_EQ(format_size(0), "0B");
  EXPECT_EQ(format_size(1000), "1000B");  // not a multiple of 1024: stays in bytes
  EXPECT_EQ(format_size(1536), "1536B");
  EXPECT_EQ(format_size(64ull << 20), "64M");
  EXPECT_EQ(format_size(3ull << 40), "3T");
  EXPECT_EQ(format_size(2048ull << 40), "2048T");  // T is the largest unit
  for (uint64_t v : {1ull, 1023ull, 1024ull, 5ull << 20, 12345ull << 30, 7ull << 40})
    EXPECT_EQ(parse_size(format_size(v)), v) << v;
}

}  // namespace
}  // namespace commlab
