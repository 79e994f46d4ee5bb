#include "train/data/synthetic.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace commlab {
namespace {

TEST(Synthetic, DeterministicBalancedAndSizedAsAsked) {
  SyntheticConfig c;
  c.kind = SyntheticKind::kBlobs;
  c.classes = 4;
  c.train_rows = 400;
  c.test_rows = 40;
  const TrainTest a = make_synthetic(c), b = make_synthetic(c);
  EXPECT_EQ(a.train.x, b.train.x);
  EXPECT_EQ(a.train.rows(), 400);
  EXPECT_EQ(a.test.rows(), 40);
  EXPECT_EQ(a.train.num_classes, 4);
  std::vector<int> count(4);
  for (int y : a.train.y) count[y]++;
  for (int n : count) EXPECT_EQ(n, 100);  // classes assigned round-robin
  // Train and test come from different streams.
  EXPECT_NE(a.train.x(0, 0), a.test.x(0, 0));
}

TEST(Synthetic, XorLabelIsSignProductWithoutNoise) {
  SyntheticConfig c;
  c.kind = SyntheticKind::kXor;
  c.noise = 0;
  const TrainTest t = make_synthetic(c);
  for (int i = 0; i < t.train.rows(); ++i) {
    EXPECT_EQ(t.train.y[i], (t.train.x(i, 0) > 0) != (t.train.x(i, 1) > 0)) << i;
  }
}

TEST(Synthetic, CirclesHaveTheirRadiiWithoutNoise) {
  SyntheticConfig c;
  c.kind = SyntheticKind::kCircles;
  c.noise = 0;
  const TrainTest t = make_synthetic(c);
  for (int i = 0; i < 50; ++i) {
    EXPECT_NEAR(t.train.x.row(i).norm(), t.train.y[i] == 0 ? 0.5 : 1.0, 1e-5);
  }
  EXPECT_THROW(parse_synthetic_kind("moons"), std::invalid_argument);
}

TEST(CharText, WindowsAndNextCharacterLabels) {
  const auto path = std::filesystem::temp_directory_path() / "commlab_char_text.txt";
  std::ofstream(path) << "abcabcabcabcabcabcabcabcab";  // 26 characters, vocabulary {a, b, c}
  auto r = load_char_text(path.string(), 4, 0.2);
  ASSERT_TRUE(r.ok()) << r.error();
  const TrainTest& t = r.value();
  // (26 - 1) / 4 = 6 windows; 20% -> 1 test window.
  EXPECT_EQ(t.train.rows(), 5);
  EXPECT_EQ(t.test.rows(), 1);
  EXPECT_EQ(t.train.num_classes, 3);
  EXPECT_EQ(t.train.labels_per_row, 4);
  // Window 1 starts at offset 4 ("bcab"), labels are the next characters "cabc".
  EXPECT_EQ(t.train.x(1, 0), 1.0f);
  EXPECT_EQ(t.train.y[4], 2);
  EXPECT_EQ(t.train.y[7], 2);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace commlab
