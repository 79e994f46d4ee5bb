#pragma once
// The per-transfer hook where codecs and trimming plug into a collective: the sender's values are
// encoded into wire bytes (their size is what the network times), and the receiver decodes them,
// possibly after the network trimmed some packets. FP32 accumulation always; the wire format is the
// codec's business.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "collective/plan.h"
#include "network/backend.h"

namespace commlab {

struct WireContext {
  const Transfer* transfer = nullptr;
  uint64_t step = 0;       // step index inside the collective
  uint64_t iteration = 0;  // training iteration (for seeds)
  int bucket = 0;
};

class TransferCodec {
 public:
  virtual ~TransferCodec() = default;
  virtual std::string name() const = 0;
  virtual bool lossless() const = 0;
  // True when decode(encode(x)) is x as FP32 with the FP32 byte count: the executor may then read
  // the sender's buffer directly instead of copying through the wire.
  virtual bool identity() const { return false; }
  // Encodes `values` into `wire` (resized by the codec); returns bytes on the wire.
  virtual uint64_t encode(const WireContext& ctx, std::span<const float> values,
                          std::vector<std::byte>& wire) = 0;
  // Decodes into `out` (same length as the encoded values). `fate` tells what the network did to
  // the flow's packets (packet backend with fates), or is null.
  virtual void decode(const WireContext& ctx, std::span<const std::byte> wire,
                      const FlowResult* fate, std::span<float> out) = 0;
  // Modelled encode + decode time for this many input bytes (placement model; 0 = free).
  virtual double codec_time_s(uint64_t input_bytes) const { return 0.0 * input_bytes; }
};

// The two plain wire formats: FP32 (bit-exact) and BF16 (round to nearest even, 2 bytes/value).
class Fp32Wire : public TransferCodec {
 public:
  std::string name() const override { return "fp32"; }
  bool lossless() const override { return true; }
  bool identity() const override { return true; }
  uint64_t encode(const WireContext&, std::span<const float> values,
                  std::vector<std::byte>& wire) override;
  void decode(const WireContext&, std::span<const std::byte> wire, const FlowResult*,
              std::span<float> out) override;
};

class Bf16Wire : public TransferCodec {
 public:
  std::string name() const override { return "bf16"; }
  bool lossless() const override { return false; }
  uint64_t encode(const WireContext&, std::span<const float> values,
                  std::vector<std::byte>& wire) override;
  void decode(const WireContext&, std::span<const std::byte> wire, const FlowResult*,
              std::span<float> out) override;
};

}  // namespace commlab
