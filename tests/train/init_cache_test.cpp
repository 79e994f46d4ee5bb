// A layer filled from the initial-weight cache (train/layers/init_cache.h) is bit-identical to one
// drawn afresh: the same seed gives the same weights however often a process builds the model.
#include "train/layers/init_cache.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "train/model.h"

namespace commlab {
namespace {

Model mlp() {
  Model m;
  m.add(std::make_unique<Linear>(784, 64, "fc1"));
  m.add(std::make_unique<Relu>("relu"));
  m.add(std::make_unique<Linear>(64, 10, "fc2"));
  return m;
}

// The He-normal draw as Linear::init defines it: N(0, 2 / in) by Box-Muller from layer i's stream
// (CounterRng(seed, kInit, 0, i)), biases 0.
std::vector<float> drawn(uint64_t seed, size_t layer, int in, int out) {
  StreamRng s(CounterRng(seed, Purpose::kInit, 0, layer));
  const double scale = std::sqrt(2.0 / in);
  std::vector<float> w(static_cast<size_t>(in) * out + out, 0.0f);
  for (size_t i = 0; i < static_cast<size_t>(in) * out; ++i)
    w[i] = static_cast<float>(s.normal() * scale);
  return w;
}

bool same_bits(std::span<const float> a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), b.size() * sizeof(float)) == 0;
}

TEST(InitCache, AModelBuiltAgainHasTheSameBitsAsTheDraw) {
  for (int build = 0; build < 3; ++build) {  // the first draws, the others copy from the cache
    Model m = mlp();
    m.init(42);
    EXPECT_TRUE(same_bits(m.layer(0).params(), drawn(42, 0, 784, 64))) << "build " << build;
    EXPECT_TRUE(same_bits(m.layer(2).params(), drawn(42, 2, 64, 10))) << "build " << build;
  }
  // Another seed is another stream: not the kept values.
  Model other = mlp();
  other.init(43);
  EXPECT_TRUE(same_bits(other.layer(0).params(), drawn(43, 0, 784, 64)));
  EXPECT_FALSE(same_bits(other.layer(0).params(), drawn(42, 0, 784, 64)));
}

TEST(InitCache, ALayerOfAnotherShapeOnTheSameStreamIsDrawnForItsShape) {
  // Layer 0 of seed 42 again, 784 x 32: a key with the shape, so not the 784 x 64 values.
  Model m;
  m.add(std::make_unique<Linear>(784, 32, "fc1"));
  m.init(42);
  EXPECT_TRUE(same_bits(m.layer(0).params(), drawn(42, 0, 784, 32)));
}

TEST(InitCache, ValuesLargerThanTheBudgetAreDrawnEveryTime) {
  int draws = 0;
  std::vector<float> big(kInitCacheBytes / sizeof(float) + 1);
  const auto fill = [&](std::span<float> out) {
    ++draws;
    for (float& v : out) v = 1.0f;
  };
  cached_init({7, 99, 1, 1}, big, fill);
  cached_init({7, 99, 1, 1}, big, fill);
  EXPECT_EQ(draws, 2);
  std::vector<float> small(16);
  cached_init({7, 99, 2, 2}, small, fill);
  cached_init({7, 99, 2, 2}, small, fill);
  EXPECT_EQ(draws, 3);  // kept after the first
}

}  // namespace
}  // namespace commlab
