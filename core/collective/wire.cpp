#include "collective/wire.h"

#include <cstring>

#include "numeric/float16.h"

namespace commlab {

uint64_t Fp32Wire::encode(const WireContext&, std::span<const float> values,
                          std::vector<std::byte>& wire) {
  wire.resize(values.size_bytes());
  if (!values.empty()) std::memcpy(wire.data(), values.data(), values.size_bytes());
  return wire.size();
}

void Fp32Wire::decode(const WireContext&, std::span<const std::byte> wire, const FlowResult*,
                      std::span<float> out) {
  if (!out.empty()) std::memcpy(out.data(), wire.data(), out.size_bytes());
}

uint64_t Bf16Wire::encode(const WireContext&, std::span<const float> values,
                          std::vector<std::byte>& wire) {
  wire.resize(values.size() * 2);
  auto* dst = reinterpret_cast<uint16_t*>(wire.data());
  for (size_t i = 0; i < values.size(); ++i) dst[i] = float_to_bf16(values[i]);
  return wire.size();
}

void Bf16Wire::decode(const WireContext&, std::span<const std::byte> wire, const FlowResult*,
                      std::span<float> out) {
  const auto* src = reinterpret_cast<const uint16_t*>(wire.data());
  for (size_t i = 0; i < out.size(); ++i) out[i] = bf16_to_float(src[i]);
}

}  // namespace commlab
