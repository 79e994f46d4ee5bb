#pragma once
// Datasets for the trained workloads: Fashion-MNIST (real, from Debian's dataset-fashion-mnist),
// synthetic 2-D sets for teaching, and character-level text.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "io/status.h"
#include "train/tensor.h"

namespace commlab {

// One sample per row of x. A row has `labels_per_row` labels (1 for classification; the sequence
// length for a language model, whose labels are the next characters).
struct Dataset {
  std::string name;
  Matrix x;
  std::vector<int32_t> y;
  int num_classes = 0;
  int labels_per_row = 1;
  int rows() const { return static_cast<int>(x.rows()); }
};

struct TrainTest {
  Dataset train;
  Dataset test;
};

inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// Loads {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz; pixels scaled to [0, 1]. The error names
// the Debian package when files are missing, and says which check failed when one is corrupt.
// max_train / max_test > 0 keep only the first rows (fast tests).
Result<TrainTest> load_fashion_mnist(const std::string& dir = kFashionMnistDir, int max_train = 0,
                                     int max_test = 0);

// Reads one gzip IDX file (magic 0x0000080N, big-endian dims). Every allocation is bounded by the
// header AND by what the file can really hold, so a hostile header cannot allocate gigabytes.
struct IdxArray {
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;
};
Result<IdxArray> read_idx_gz(const std::string& path, int expected_rank, uint64_t max_items = 0);
// The same reader over a gzip file already in memory (fuzzing, embedded data); `name` starts every
// message in place of the path.
Result<IdxArray> read_idx_gz_bytes(std::span<const uint8_t> gz, const std::string& name,
                                   int expected_rank, uint64_t max_items = 0);

// Gathers rows `index` of a dataset into a batch (x rows and their labels).
void gather_batch(const Dataset& d, std::span<const int32_t> index, Matrix& x,
                  std::vector<int32_t>& y);

}  // namespace commlab
