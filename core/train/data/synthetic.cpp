#include "train/data/synthetic.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "io/status.h"
#include "numeric/rng.h"

namespace commlab {

SyntheticKind parse_synthetic_kind(const std::string& name) {
  if (name == "spiral") return SyntheticKind::kSpiral;
  if (name == "circles") return SyntheticKind::kCircles;
  if (name == "blobs") return SyntheticKind::kBlobs;
  if (name == "xor") return SyntheticKind::kXor;
  throw bad_input("unknown data set '" + name +
                  "' (expected fashion-mnist, spiral, circles, blobs, xor or text)");
}

namespace {

Dataset generate(const SyntheticConfig& c, int rows, uint64_t split) {
  Dataset d;
  const bool two = c.kind == SyntheticKind::kCircles || c.kind == SyntheticKind::kXor;
  d.num_classes = two ? 2 : std::max(2, c.classes);
  d.x.resize(rows, 2);
  d.y.resize(rows);
  StreamRng rng(CounterRng(c.seed, Purpose::kGenerator, 0, split));
  for (int i = 0; i < rows; ++i) {
    const int k = i % d.num_classes;
    double x = 0, y = 0;
    const double t = rng.uniform();
    switch (c.kind) {
      case SyntheticKind::kSpiral: {
        const double angle = 4.0 * t + 2.0 * M_PI * k / d.num_classes;
        x = t * std::cos(angle);
        y = t * std::sin(angle);
        break;
      }
      case SyntheticKind::kCircles: {
        const double radius = k == 0 ? 0.5 : 1.0;
        x = radius * std::cos(2 * M_PI * t);
        y = radius * std::sin(2 * M_PI * t);
        break;
      }
      case SyntheticKind::kBlobs: {
        const double angle = 2.0 * M_PI * k / d.num_classes;
        x = std::cos(angle);
        y = std::sin(angle);
        break;
      }
      case SyntheticKind::kXor: {
        // A random point in the unit square; class = sign(x) xor sign(y).
        x = 2 * t - 1;
        y = 2 * rng.uniform() - 1;
        d.y[i] = (x > 0) != (y > 0);
        break;
      }
    }
    if (c.kind != SyntheticKind::kXor) d.y[i] = k;
    d.x(i, 0) = static_cast<float>(x + c.noise * rng.normal());
    d.x(i, 1) = static_cast<float>(y + c.noise * rng.normal());
  }
  return d;
}

}  // namespace

TrainTest make_synthetic(const SyntheticConfig& c) {
  if (c.train_rows <= 0 || c.test_rows <= 0) throw bad_input("rows must be positive");
  TrainTest t{generate(c, c.train_rows, 0), generate(c, c.test_rows, 1)};
  t.train.name = "synthetic/train";
  t.test.name = "synthetic/test";
  return t;
}

Result<TrainTest> load_char_text(const std::string& path, int seq, double test_fraction) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return make_error(path + ": cannot read text file");
  if (size > (64u << 20)) return make_error(path + ": text file above 64 MiB");
  if (seq < 1) return make_error("sequence length must be positive");
  std::ifstream in(path, std::ios::binary);
  std::string text(size, '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  const int64_t windows = (static_cast<int64_t>(text.size()) - 1) / seq;
  if (windows < 2)
    return make_error(path + ": too short for two windows of " + std::to_string(seq));
  int id[256];
  bool present[256] = {};
  for (unsigned char ch : text) present[ch] = true;
  int vocab = 0;
  for (int b = 0; b < 256; ++b) id[b] = present[b] ? vocab++ : -1;
  const int64_t test_windows = std::max<int64_t>(1, static_cast<int64_t>(windows * test_fraction));
  TrainTest t;
  for (int split = 0; split < 2; ++split) {
    Dataset& d = split == 0 ? t.train : t.test;
    const int64_t first = split == 0 ? 0 : windows - test_windows;
    const int64_t rows = split == 0 ? windows - test_windows : test_windows;
    d.name = split == 0 ? "text/train" : "text/test";
    d.num_classes = vocab;
    d.labels_per_row = seq;
    d.x.resize(rows, seq);
    d.y.resize(rows * seq);
    for (int64_t r = 0; r < rows; ++r) {
      const size_t base = static_cast<size_t>((first + r) * seq);
      for (int j = 0; j < seq; ++j) {
        d.x(r, j) = static_cast<float>(id[static_cast<unsigned char>(text[base + j])]);
        d.y[r * seq + j] = id[static_cast<unsigned char>(text[base + j + 1])];
      }
    }
  }
  return t;
}

}  // namespace commlab
