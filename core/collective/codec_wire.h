#pragma once
// Transfer codecs that put a real codec (codec/codec.h) or trimmable packets
// (codec/lossy/trim_packet.h) on every transfer of a collective. Each transfer is encoded by its
// sender and decoded by its receiver on the real bytes; a ring re-encodes the partial sum at every
// hop, as NetZIP's bump-in-the-wire NIC does, so errors of lossy codecs compound exactly as they
// would.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/lossy/trim_packet.h"
#include "codec/placement.h"
#include "collective/wire.h"
#include "numeric/rng.h"

namespace commlab {

// Where the codec runs, and so what it costs in time (docs/codecs.md, "Placement"):
// nic: bump in the wire at line rate, a fixed pipeline latency per transfer and end;
// gpu: a kernel streaming at gpu_Bps; cpu: one core at cpu_Bps.
// One enum for the cost table (codec/placement.h) and the time plane; scenario and flag spellings
// are config_enums' (parse_enum<CodecPlacement>).
using CodecPlacement = Placement;

struct PlacementModel {
  CodecPlacement placement = CodecPlacement::kNic;
  double nic_latency_s = 1e-6;  // per end; NetZIP's FPGA pipeline is in this range
  double gpu_Bps = 100e9;       // entropy-coding kernels on a modern GPU
  double cpu_Bps = 1e9;         // one core of this machine (bench/codec measures ours)
  // Encode + decode time of `input_bytes` on the critical path of one transfer.
  double time_s(uint64_t input_bytes) const;
};

// Encode + decode seconds per payload byte of a codec placed as `placement` (the NIC codes at line
// rate: 0), what the time-plane-only engines (catalog, workload) charge when a codec is on.
double codec_seconds_per_byte(const PlacementModel& placement);

class CodecWire : public TransferCodec {
 public:
  // `dtype`: the values are cast to it before the codec (bf16 is how gradients travel).
  // Throws std::invalid_argument for unknown or stateful codecs (their state would follow a
  // stream, and a collective's transfers are not streams).
  CodecWire(const std::string& codec_name, DType dtype, PlacementModel placement = {});
  std::string name() const override { return name_; }
  bool lossless() const override { return lossless_; }
  uint64_t encode(const WireContext& ctx, std::span<const float> values,
                  std::vector<std::byte>& wire) override;
  void decode(const WireContext& ctx, std::span<const std::byte> wire, const FlowResult* fate,
              std::span<float> out) override;
  double codec_time_s(uint64_t input_bytes) const override;
  DType dtype() const { return dtype_; }

 private:
  Codec& codec_for_thread();

  std::string name_;
  DType dtype_;
  bool lossless_;
  PlacementModel placement_;
  std::vector<std::unique_ptr<Codec>> pool_;  // one per OpenMP thread: codecs keep scratch
};

// The per-transfer stream key of trimmable packets (iteration, bucket, step, src -> dst, offset)
// and the Bernoulli draws that decide which of them are cut. The sender that trims
// (exec/mpi_executor.cpp) and TrimWire::decode must draw the same values, so both take them here.
uint64_t transfer_stream(const WireContext& ctx);
CounterRng trim_draws(uint64_t seed, const WireContext& ctx);

struct TrimWireStats {
  uint64_t packets = 0;
  uint64_t trimmed = 0;
  double bits = 0;  // information bits received (sum over coordinates)
  uint64_t coordinates = 0;
};

// Trimmable packets: the network (fates from the packet backend) or a Bernoulli draw (the paper's
// emulation) decides which packets arrive trimmed; trimmed ones decode at the head bits they kept.
class TrimWire : public TransferCodec {
 public:
  // bernoulli_rate > 0: trim that fraction of packets (to `config.head_bits`, or to the levels
  // below); otherwise use the packet backend's fates (kept bytes per packet) when the executor
  // passes them. `levels`: multi-level heads, kept head bits in decreasing order, each in
  // 1..head_bits (empty: the single level head_bits). Throws std::invalid_argument.
  TrimWire(trim::TrimConfig config, double bernoulli_rate, uint64_t seed,
           std::vector<int> levels = {});
  // Head bits a packet with uniform draw u in [0, 1) keeps under Bernoulli trimming, kKeepAll
  // when it is not trimmed. The draw trims it to at least levels[i] when u < rate^(i + 1): the
  // packets trimmed at all are those of a single-level run at the same rate and seed, and each
  // further level keeps a fraction `rate` of the previous one's, so
  // P(levels[i]) = rate^(i+1) (1 - rate) for i < L - 1 and P(levels[L-1]) = rate^L.
  static constexpr int kKeepAll = -1;
  int bernoulli_bits(double u) const;
  std::string name() const override;
  bool lossless() const override { return false; }
  uint64_t encode(const WireContext& ctx, std::span<const float> values,
                  std::vector<std::byte>& wire) override;
  void decode(const WireContext& ctx, std::span<const std::byte> wire, const FlowResult* fate,
              std::span<float> out) override;
  TrimWireStats take_stats();  // since the last call
  const trim::TrimConfig& config() const { return config_; }

 private:
  trim::TrimConfig config_;
  double rate_;
  uint64_t seed_;
  std::vector<int> levels_;  // never empty: {head_bits} for one level
  std::mutex mutex_;
  TrimWireStats stats_;
};

}  // namespace commlab
