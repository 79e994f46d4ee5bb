// Layer::param_segments(): what each parameter is (docs/tensors.md measures codecs per kind).
#include <gtest/gtest.h>

#include <map>

#include "train/layers/conv.h"
#include "train/layers/transformer.h"
#include "train/model.h"

namespace commlab {
namespace {

// Every layer's segments tile its parameters in order, without gap or overlap.
void expect_tiling(const Model& m) {
  for (size_t i = 0; i < m.num_layers(); ++i) {
    const Layer& l = m.layer(i);
    size_t at = 0;
    for (const Layer::ParamSegment& s : l.param_segments()) {
      EXPECT_EQ(s.offset, at) << l.name();
      EXPECT_GT(s.count, 0u) << l.name() << " " << s.kind;
      at += s.count;
    }
    EXPECT_EQ(at, l.num_params()) << l.name();
  }
}

TEST(ParamSegments, TransformerKindsCountEveryParameterOnce) {
  // vocab V = 50, sequence T = 16, width d = 32, ffn f = 4d = 128, 2 blocks.
  const int V = 50, T = 16, d = 32, f = 4 * d;
  const Model m = make_transformer(V, T, d, 4, 2);
  expect_tiling(m);
  std::map<std::string, size_t> by_kind;
  for (size_t i = 0; i < m.num_layers(); ++i)
    for (const Layer::ParamSegment& s : m.layer(i).param_segments()) by_kind[s.kind] += s.count;
  // Embedding: token table V x d + position table T x d.
  EXPECT_EQ(by_kind["embedding"], size_t(V * d + T * d));
  // Per block: QKV d x 3d + 3d, projection d x d + d; MLP d x f + f + f x d + d.
  EXPECT_EQ(by_kind["attention"], size_t(2 * (3 * d * d + 3 * d + d * d + d)));
  EXPECT_EQ(by_kind["mlp"], size_t(2 * (d * f + f + f * d + d)));
  // LayerNorm gain + shift: two per block and the final one, 2d each.
  EXPECT_EQ(by_kind["norm"], size_t((2 * 2 + 1) * 2 * d));
  // The head: d x V + V.
  EXPECT_EQ(by_kind["linear"], size_t(d * V + V));
  EXPECT_EQ(by_kind.size(), 5u);
}

TEST(ParamSegments, ConvAndLinearLayersAreOneSegmentOfTheirKind) {
  Model m;
  m.add(std::make_unique<Conv2d>(ImageShape{28, 28, 1}, 4, 3, 1, "conv1"));
  m.add(std::make_unique<Linear>(10, 3, "fc"));
  m.add(std::make_unique<Relu>("relu"));
  expect_tiling(m);
  ASSERT_EQ(m.layer(0).param_segments().size(), 1u);
  EXPECT_EQ(m.layer(0).param_segments()[0].kind, "conv");
  EXPECT_EQ(m.layer(1).param_segments()[0].kind, "linear");
  EXPECT_TRUE(m.layer(2).param_segments().empty());  // ReLU has no parameters
}

}  // namespace
}  // namespace commlab
