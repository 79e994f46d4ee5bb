#include "codec/placement.h"

#include <limits>
#include <stdexcept>
#include <string>

#include "codec/codec.h"
#include "io/status.h"

namespace commlab {
namespace {

struct Row {
  std::string_view name;
  double cpu_enc, cpu_dec;  // GB/s, one core, BF16 gaussian gradients (docs/codecs.md table)
  double gpu_enc, gpu_dec;  // GB/s on a data-center GPU (assumptions, see docs/codecs.md)
  bool nic;                 // has a line-rate NIC pipeline (NetZIP-style LZ4 / bit grouping)
};

// CPU: measured by bench/codec/codec_bench on this machine (rounded). GPU: memory-bound kernels
// (raw copy, casts) at ~1000 GB/s; byte-grouping + entropy coders at DietGPU-class ~250 GB/s;
// nvCOMP-class LZ4 ~100 GB/s and zstd ~30 GB/s (zstd -19 is not a GPU codec: CPU speed);
// top-k ~50 GB/s (selection), PowerSGD ~100 GB/s (two skinny GEMMs, memory-bound).
constexpr Row kRows[] = {
    {"raw", 7.0, 7.0, 1000, 1000, true},
    {"lz4", 5.0, 6.0, 100, 100, true},
    {"zstd-1", 0.85, 1.3, 30, 30, false},
    {"zstd-3", 0.75, 1.3, 30, 30, false},
    {"zstd-19", 0.002, 1.1, 0.002, 30, false},
    {"bytegroup-zstd-1", 0.55, 1.8, 30, 30, false},
    {"bytegroup-zstd", 0.002, 1.4, 0.002, 30, false},
    {"netzip-paper", 0.25, 0.25, 250, 250, true},
    {"netzip-lossless", 0.5, 2.0, 250, 250, true},
    {"netzip-lossless-bits", 0.27, 0.27, 250, 250, true},
    {"xor-prev", 0.58, 1.4, 250, 250, false},  // NIC would need a tensor of memory per stream
    {"cast-bf16", 3.0, 5.0, 1000, 1000, true},
    {"cast-fp16", 2.0, 2.0, 1000, 1000, true},
    {"topk", 0.13, 1.9, 50, 500, false},
    {"powersgd", 0.09, 0.3, 100, 100, false},
    {"commlab", 2.2, 5.1, 250, 250, false},
};

constexpr double kGpuLaunchUs = 5.0;    // kernel launch + sync
constexpr double kCpuCallUs = 1.0;      // call, cache warm-up
constexpr double kNicPipelineUs = 1.0;  // NetZIP U280: a few hundred cycles at 300 MHz

}  // namespace

CodecCost codec_cost(std::string_view codec, Placement where, double line_rate_gbps,
                     int cpu_cores) {
  for (const Row& r : kRows) {
    if (r.name != codec) continue;
    switch (where) {
      case Placement::kCpu: return {true, r.cpu_enc * cpu_cores, r.cpu_dec * cpu_cores, kCpuCallUs};
      case Placement::kGpu: return {true, r.gpu_enc, r.gpu_dec, kGpuLaunchUs};
      case Placement::kNic:
        if (!r.nic) return {};
        return {true, line_rate_gbps / 8.0, line_rate_gbps / 8.0, kNicPipelineUs};
    }
  }
  make_codec(codec);  // throws the registry's message for an unknown name
  throw bad_input("codec '" + std::string(codec) + "' has no placement cost");
}

double codec_seconds(const CodecCost& cost, size_t bytes, bool encode) {
  if (!cost.supported) return std::numeric_limits<double>::infinity();
  const double gbps = encode ? cost.encode_gbps : cost.decode_gbps;
  return cost.latency_us * 1e-6 + double(bytes) / (gbps * 1e9);
}

}  // namespace commlab
