// Trimmable packets: encode + decode of 1-bit EDEN (with its RHT) at d = 2^16, against memcpy of
// the same buffer in the same run (target: >= 500 MB/s of FP32 input per core).
// bytes_per_second counts the FP32 input once per iteration.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "codec/lossy/trim_packet.h"
#include "numeric/rng.h"
#include "numeric/wht.h"

namespace commlab::trim {
namespace {

constexpr size_t kD = size_t{1} << 16;

std::vector<float> input() {
  StreamRng rng(CounterRng(1, Purpose::kGenerator));
  std::vector<float> x(kD);
  for (float& v : x) v = static_cast<float>(rng.normal());
  return x;
}

// Packets encoded into preallocated buffers, as a NIC-side encoder would.
struct Packets {
  explicit Packets(const TrimConfig& c) : config(c), per(coords_per_packet(c)) {
    for (size_t off = 0; off < kD; off += per) {
      size_t n = std::min(per, kD - off);
      buffers.emplace_back(packet_layout(c.encoding, c.head_bits, c.wire, n).total());
    }
  }
  void encode(const std::vector<float>& x) {
    for (size_t i = 0, off = 0; off < kD; off += per, ++i) {
      size_t n = std::min(per, kD - off);
      encode_packet(std::span(x).subspan(off, n), off, config, 0, 0, i, buffers[i], scratch);
    }
  }
  TrimConfig config;
  size_t per;
  std::vector<std::vector<std::byte>> buffers;
  HeadScratch scratch;
};

TrimConfig eden1(size_t per_packet) {
  TrimConfig c;
  c.encoding = TrimEncoding::kEden;
  c.head_bits = 1;
  if (per_packet > 0) set_coords_per_packet(c, per_packet);
  return c;
}

// Encode every packet, then decode every packet trimmed to its 1-bit head (the RHT path both ways).
void BM_Eden1EncodeDecodeTrimmed(benchmark::State& state) {
  auto x = input();
  Packets p(eden1(static_cast<size_t>(state.range(0))));
  std::vector<float> out(kD);
  for (auto _ : state) {
    p.encode(x);
    for (auto& b : p.buffers) {
      size_t keep = *packet_trim_size(b, 1);
      auto r = decode_packet(std::span(b).first(keep), out, nullptr, p.scratch);
      benchmark::DoNotOptimize(r);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kD * sizeof(float)));
}
// 0: as many as fit a 4096-byte payload (983); 2^16: one RHT block for the whole tensor.
BENCHMARK(BM_Eden1EncodeDecodeTrimmed)->Arg(0)->Arg(1024)->Arg(kD);

// Other heads for reference: encode, then decode every packet trimmed to its whole head.
void BM_EncodeDecodeHead(benchmark::State& state) {
  auto x = input();
  TrimConfig c;
  c.encoding = static_cast<TrimEncoding>(state.range(0));
  c.head_bits = static_cast<int>(state.range(1));
  Packets p(c);
  std::vector<float> out(kD);
  for (auto _ : state) {
    p.encode(x);
    for (auto& b : p.buffers) {
      size_t keep = *packet_trim_size(b, c.head_bits);
      auto r = decode_packet(std::span(b).first(keep), out, nullptr, p.scratch);
      benchmark::DoNotOptimize(r);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kD * sizeof(float)));
}
BENCHMARK(BM_EncodeDecodeHead)
    ->ArgNames({"enc", "bits"})
    ->Args({0, 1})
    ->Args({0, 4})
    ->Args({2, 2})
    ->Args({2, 4});

// Untrimmed packets: encode, then the exact decode (tails only).
void BM_Eden1EncodeDecodeUntrimmed(benchmark::State& state) {
  auto x = input();
  Packets p(eden1(0));
  std::vector<float> out(kD);
  for (auto _ : state) {
    p.encode(x);
    for (auto& b : p.buffers) {
      auto r = decode_packet(b, out, nullptr, p.scratch);
      benchmark::DoNotOptimize(r);
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kD * sizeof(float)));
}
BENCHMARK(BM_Eden1EncodeDecodeUntrimmed);

void BM_Eden1EncodeOnly(benchmark::State& state) {
  auto x = input();
  Packets p(eden1(0));
  for (auto _ : state) {
    p.encode(x);
    benchmark::DoNotOptimize(p.buffers[0].data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kD * sizeof(float)));
}
BENCHMARK(BM_Eden1EncodeOnly);

void BM_RhtForwardInverse(benchmark::State& state) {
  auto x = input();
  for (auto _ : state) {
    rht_forward(x, 7);
    rht_inverse(x, 7);
    benchmark::DoNotOptimize(x.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kD * sizeof(float)));
}
BENCHMARK(BM_RhtForwardInverse);

// The peer: copying the same FP32 buffer.
void BM_Memcpy(benchmark::State& state) {
  auto x = input();
  std::vector<float> out(kD);
  for (auto _ : state) {
    std::memcpy(out.data(), x.data(), kD * sizeof(float));
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kD * sizeof(float)));
}
BENCHMARK(BM_Memcpy);

}  // namespace
}  // namespace commlab::trim

BENCHMARK_MAIN();
