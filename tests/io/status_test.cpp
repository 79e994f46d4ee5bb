// Result<T>: a value or a message, never both.
#include "io/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace commlab {
namespace {

Result<int> half(int v) {
  if (v % 2 != 0) return make_error(std::to_string(v) + " is odd");
  return v / 2;
}

TEST(Result, HoldsAValueOrAMessage) {
  const Result<int> ok = half(8);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(static_cast<bool>(ok));
  EXPECT_EQ(*ok, 4);
  const Result<int> bad = half(7);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "7 is odd");
  EXPECT_THROW((void)bad.value(), std::bad_variant_access);
}

TEST(Result, MovesOutMoveOnlyValues) {
  Result<std::unique_ptr<int>> r(std::make_unique<int>(5));
  std::unique_ptr<int> p = std::move(r).value();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p, 5);
}

}  // namespace
}  // namespace commlab
