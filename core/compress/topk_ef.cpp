#include "compress/topk_ef.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "io/status.h"
#include "numeric/float16.h"

namespace commlab {

namespace {

void check_wire(DType wire) {
  if (wire != DType::kFp32 && wire != DType::kBf16)
    throw bad_input("top-k: values travel as fp32 or bf16, got " + std::string(dtype_name(wire)));
}

float round_to_wire(float v, DType wire) {
  return wire == DType::kBf16 ? bf16_to_float(float_to_bf16(v)) : v;
}

}  // namespace

size_t topk_count(double fraction, size_t size) {
  if (size == 0) return 0;
  const double k = std::ceil(fraction * static_cast<double>(size));
  return std::clamp<size_t>(static_cast<size_t>(std::max(k, 1.0)), 1, size);
}

size_t sparse_wire_bytes(size_t k, DType wire) {
  return k * (sizeof(uint32_t) + dtype_size(wire));
}

void pack_sparse(const SparseSet& set, DType wire, std::span<std::byte> out) {
  check_wire(wire);
  const size_t k = set.index.size();
  if (out.size() < sparse_wire_bytes(k, wire)) throw bad_input("pack_sparse: output too small");
  std::memcpy(out.data(), set.index.data(), k * sizeof(uint32_t));
  std::byte* values = out.data() + k * sizeof(uint32_t);
  if (wire == DType::kFp32) {
    std::memcpy(values, set.value.data(), k * sizeof(float));
    return;
  }
  for (size_t i = 0; i < k; ++i) {
    const uint16_t h = float_to_bf16(set.value[i]);
    std::memcpy(values + 2 * i, &h, 2);
  }
}

void add_packed_sparse(std::span<const std::byte> in, size_t k, DType wire,
                       std::span<float> dense) {
  check_wire(wire);
  if (in.size() < sparse_wire_bytes(k, wire)) throw bad_input("add_packed_sparse: input too small");
  const std::byte* values = in.data() + k * sizeof(uint32_t);
  for (size_t i = 0; i < k; ++i) {
    uint32_t index = 0;
    std::memcpy(&index, in.data() + i * sizeof(uint32_t), sizeof index);
    if (index >= dense.size())
      throw std::out_of_range("add_packed_sparse: index " + std::to_string(index) +
                              " outside a bucket of " + std::to_string(dense.size()));
    float v = 0;
    if (wire == DType::kFp32) {
      std::memcpy(&v, values + 4 * i, 4);
    } else {
      uint16_t h = 0;
      std::memcpy(&h, values + 2 * i, 2);
      v = bf16_to_float(h);
    }
    dense[index] += v;
  }
}

TopKErrorFeedback::TopKErrorFeedback(double fraction, DType wire)
    : fraction_(fraction), wire_(wire) {
  check_wire(wire);
  if (!(fraction > 0 && fraction <= 1))
    throw bad_input("top-k: fraction must be in (0, 1], got " + std::to_string(fraction));
}

void TopKErrorFeedback::compress(std::span<const float> grad, SparseSet& out) {
  const size_t n = grad.size();
  if (residual_.size() != n) residual_.assign(n, 0.0f);
  for (size_t i = 0; i < n; ++i) residual_[i] += grad[i];  // a = g + e, in place
  const size_t k = topk_count(fraction_, n);
  order_.resize(n);
  for (size_t i = 0; i < n; ++i) order_[i] = static_cast<uint32_t>(i);
  // A strict total order (magnitude descending, NaN first, then index ascending): the kept set
  // does not depend on the selection algorithm.
  const float* a = residual_.data();
  auto magnitude = [a](uint32_t i) {
    return std::isnan(a[i]) ? std::numeric_limits<float>::infinity() : std::fabs(a[i]);
  };
  auto larger = [&magnitude](uint32_t x, uint32_t y) {
    const float ax = magnitude(x), ay = magnitude(y);
    return ax != ay ? ax > ay : x < y;
  };
  if (k < n) std::nth_element(order_.begin(), order_.begin() + k, order_.end(), larger);
  order_.resize(k);
  std::sort(order_.begin(), order_.end());
  out.index.assign(order_.begin(), order_.end());
  out.value.resize(k);
  for (size_t j = 0; j < k; ++j) {
    float& e = residual_[order_[j]];
    const float sent = round_to_wire(e, wire_);
    out.value[j] = sent;
    // a - round(a) is exact in FP32 (the dropped low mantissa bits), so e + sent == a exactly.
    e -= sent;
  }
}

}  // namespace commlab
