#pragma once
// Top-k sparsification with error feedback (Stich et al. 2018; Lin et al. 2018, DGC): each rank
// keeps a residual e per bucket, sends the k = ceil(fraction * size) largest entries of
// a = g + e as (index, value) pairs and keeps the rest, e = a - sent. The values go out in the wire
// dtype, so the rounding of a sent value stays in the residual too: e + sent == g + e_prev holds
// exactly, element by element, in FP32.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "codec/codec.h"

namespace commlab {

// The (index, value) pairs one rank sends, indices ascending; values already rounded to the wire
// dtype (and held as FP32).
struct SparseSet {
  std::vector<uint32_t> index;
  std::vector<float> value;
};

// k = ceil(fraction * size), at least 1 and at most size (0 for an empty bucket).
size_t topk_count(double fraction, size_t size);
// Bytes of k pairs on the wire: 4 B index + the value in `wire` (FP32 4 B, BF16 2 B).
size_t sparse_wire_bytes(size_t k, DType wire);
// The pairs as wire bytes: the k indices (u32, little endian), then the k values in `wire`.
// `out` must hold sparse_wire_bytes(set.index.size(), wire) bytes.
void pack_sparse(const SparseSet& set, DType wire, std::span<std::byte> out);
// Adds the k pairs packed in `in` to `dense` (dense[index] += value). Throws std::out_of_range
// for an index outside dense.
void add_packed_sparse(std::span<const std::byte> in, size_t k, DType wire, std::span<float> dense);

class TopKErrorFeedback {
 public:
  // wire: FP32 or BF16 (the dtype the values travel in).
  TopKErrorFeedback(double fraction, DType wire);
  // a = grad + residual; out = the k largest |a| (ties: the lower index), rounded to the wire;
  // residual = a - out (0 where a was sent exactly). The first call sizes the residual (zeros).
  void compress(std::span<const float> grad, SparseSet& out);
  std::span<const float> residual() const { return residual_; }

 private:
  double fraction_;
  DType wire_;
  std::vector<float> residual_;
  std::vector<uint32_t> order_;
};

}  // namespace commlab
