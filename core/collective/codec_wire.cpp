#include "collective/codec_wire.h"

#include <omp.h>

#include <cstring>
#include <stdexcept>

#include "codec/value_cast.h"
#include "io/status.h"
#include "numeric/rng.h"

namespace commlab {

namespace {

thread_local std::vector<std::byte> tls_values;

}  // namespace

uint64_t transfer_stream(const WireContext& ctx) {
  const Transfer& t = *ctx.transfer;
  uint64_t k = hash_combine(ctx.iteration, static_cast<uint64_t>(ctx.bucket));
  k = hash_combine(k, ctx.step);
  k = hash_combine(k, (static_cast<uint64_t>(t.src) << 32) | static_cast<uint32_t>(t.dst));
  return hash_combine(k, t.offset);
}

CounterRng trim_draws(uint64_t seed, const WireContext& ctx) {
  return CounterRng(seed, Purpose::kTrim, ctx.transfer->src, ctx.iteration)
      .sub(transfer_stream(ctx));
}

double PlacementModel::time_s(uint64_t input_bytes) const {
  switch (placement) {
    case CodecPlacement::kNic: return 2 * nic_latency_s;
    case CodecPlacement::kGpu: return 2.0 * static_cast<double>(input_bytes) / gpu_Bps;
    case CodecPlacement::kCpu: return 2.0 * static_cast<double>(input_bytes) / cpu_Bps;
  }
  return 0;
}

double codec_seconds_per_byte(const PlacementModel& placement) {
  if (placement.placement == CodecPlacement::kNic) return 0;
  const uint64_t probe = 1 << 20;  // time_s is linear in the bytes off the NIC
  return placement.time_s(probe) / static_cast<double>(probe);
}

CodecWire::CodecWire(const std::string& codec_name, DType dtype, PlacementModel placement)
    : name_(codec_name), dtype_(dtype), placement_(placement) {
  auto probe = make_codec(codec_name);
  if (probe->state_bytes(1 << 20) > 0)
    throw bad_input("codec '" + codec_name +
                    "' keeps state per stream; collectives need a stateless codec");
  lossless_ = probe->lossless() && dtype == DType::kFp32;
  name_ = probe->name();
  const int threads = std::max(1, omp_get_max_threads());
  for (int i = 0; i < threads; ++i) pool_.push_back(make_codec(codec_name));
}

Codec& CodecWire::codec_for_thread() {
  int t = omp_get_thread_num();
  if (t < 0 || t >= static_cast<int>(pool_.size()))
    throw std::logic_error("CodecWire used from more threads than it was built for");
  return *pool_[t];
}

uint64_t CodecWire::encode(const WireContext&, std::span<const float> values,
                           std::vector<std::byte>& wire) {
  tls_values.resize(values.size() * dtype_size(dtype_));
  cast_from_float(values, dtype_, tls_values);
  Codec& codec = codec_for_thread();
  wire.resize(codec.bound(tls_values.size()));
  Result<size_t> n = codec.encode(tls_values, dtype_, wire);
  if (!n) throw std::runtime_error("codec " + name_ + ": encode failed: " + n.error());
  wire.resize(*n);
  return wire.size();
}

void CodecWire::decode(const WireContext&, std::span<const std::byte> wire, const FlowResult*,
                       std::span<float> out) {
  tls_values.resize(out.size() * dtype_size(dtype_));
  Result<size_t> n = codec_for_thread().decode(wire, tls_values);
  // Bytes that do not decode came from outside (a peer, a Python caller): bad input.
  if (!n || *n != tls_values.size())
    throw bad_input("codec " + name_ + ": decode failed: " + (n ? "size mismatch" : n.error()));
  cast_to_float(tls_values, dtype_, out);
}

double CodecWire::codec_time_s(uint64_t input_bytes) const {
  return placement_.time_s(input_bytes / sizeof(float) * dtype_size(dtype_));
}

TrimWire::TrimWire(trim::TrimConfig config, double bernoulli_rate, uint64_t seed,
                   std::vector<int> levels)
    : config_(config), rate_(bernoulli_rate), seed_(seed), levels_(std::move(levels)) {
  trim::validate(config_);
  if (!(rate_ >= 0 && rate_ <= 1))
    throw bad_input("trim rate must be in [0, 1], got " + std::to_string(rate_));
  for (size_t i = 0; i < levels_.size(); ++i) {
    if (levels_[i] < 1 || levels_[i] > config_.head_bits)
      throw bad_input("trim levels: each must be 1.." + std::to_string(config_.head_bits) +
                      " (head bits), got " + std::to_string(levels_[i]));
    if (i > 0 && levels_[i] >= levels_[i - 1])
      throw bad_input("trim levels must decrease, got " + std::to_string(levels_[i - 1]) +
                      " then " + std::to_string(levels_[i]));
  }
  if (levels_.empty()) levels_.push_back(config_.head_bits);
}

int TrimWire::bernoulli_bits(double u) const {
  int bits = kKeepAll;
  double bound = rate_;
  for (int level : levels_) {
    if (!(u < bound)) break;
    bits = level;
    bound *= rate_;
  }
  return bits;
}

std::string TrimWire::name() const {
  std::string name = "trim-" + std::string(trim::encoding_name(config_.encoding)) +
                     std::to_string(config_.head_bits);
  if (levels_.size() > 1 || levels_[0] != config_.head_bits) {
    for (size_t i = 0; i < levels_.size(); ++i)
      name += (i ? "/" : "[") + std::to_string(levels_[i]);
    name += "]";
  }
  return name;
}

uint64_t TrimWire::encode(const WireContext& ctx, std::span<const float> values,
                          std::vector<std::byte>& wire) {
  // Every packet but the last occupies one whole network packet (payload_bytes, zero padded), so
  // packet i of the flow in the packet backend is trimmable packet i here.
  auto packets =
      trim::encode_packets(values, config_, ctx.transfer->src % 65536, transfer_stream(ctx));
  const size_t slot = config_.payload_bytes;
  wire.assign(packets.empty() ? 0 : (packets.size() - 1) * slot + packets.back().size(),
              std::byte{0});
  for (size_t i = 0; i < packets.size(); ++i)
    std::memcpy(wire.data() + i * slot, packets[i].data(), packets[i].size());
  return wire.size();
}

void TrimWire::decode(const WireContext& ctx, std::span<const std::byte> wire,
                      const FlowResult* fate, std::span<float> out) {
  // Split the wire into its packets (their sizes follow from the config), then keep what arrived.
  const size_t per_packet = trim::coords_per_packet(config_);
  const CounterRng rng = trim_draws(seed_, ctx);
  const bool fates = rate_ == 0 && fate && !fate->fates.empty();
  std::vector<std::span<const std::byte>> received;
  size_t pos = 0, trimmed = 0;
  for (size_t index = 0, left = out.size(); left > 0; ++index) {
    size_t count = std::min(per_packet, left);
    left -= count;
    size_t size =
        trim::packet_layout(config_.encoding, config_.head_bits, config_.wire, count).total();
    std::span<const std::byte> packet = wire.subspan(pos, size);
    pos += config_.payload_bytes;
    size_t keep = size;
    if (rate_ > 0) {
      const int bits = bernoulli_bits(rng.uniform(index));
      if (bits != kKeepAll) keep = trim::trim_size_for_bits(config_, count, bits);
    } else if (fates && index < fate->fates.size()) {
      const PacketFate& f = fate->fates[index];
      if (f.lost) continue;  // decodes as zeros
      if (f.kept_bytes < f.payload_bytes)
        keep = std::max(trim::trim_size_for_bits(config_, count, 0),
                        std::min<size_t>(size, f.kept_bytes));
    }
    trimmed += keep < size;
    received.push_back(packet.first(keep));
  }
  trim::DecodeStats stats;
  Result<size_t> n = trim::decode_packets(received, config_, out, &stats);
  if (!n) throw bad_input("trimmed packet decode failed: " + n.error());
  std::lock_guard lock(mutex_);
  stats_.packets += received.size();
  stats_.trimmed += trimmed;
  stats_.bits += stats.precision_bits;
  stats_.coordinates += stats.coordinates;
}

TrimWireStats TrimWire::take_stats() {
  std::lock_guard lock(mutex_);
  TrimWireStats s = stats_;
  stats_ = {};
  return s;
}

}  // namespace commlab
