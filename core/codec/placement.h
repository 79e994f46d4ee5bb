#pragma once
// Where a codec runs and what it costs there, so the time plane charges compression honestly:
// a GPU kernel, host CPU cores, or a NIC "bump in the wire" at line rate (NetZIP's placement).
// Parameters are documented in docs/codecs.md ("Placement time model"); CPU numbers are this
// machine's single-core measurements (bench/codec), GPU and NIC numbers are stated assumptions.
#include <cstddef>
#include <string_view>

namespace commlab {

// Spelled gpu, cpu and nic where a scenario or a flag names it (scenario/config_enums.h parses it).
enum class Placement { kGpu, kCpu, kNic };

struct CodecCost {
  bool supported = false;  // e.g. zstd has no line-rate NIC pipeline
  double encode_gbps = 0;  // GB/s of input
  double decode_gbps = 0;  // GB/s of output
  double latency_us = 0;   // fixed cost per call (kernel launch, pipeline fill)
};

// Cost of `codec` (a codec_names() entry) at `where`. line_rate_gbps: NIC line rate in Gbit/s;
// cpu_cores: cores working on independent blocks. Throws std::invalid_argument for an unknown
// codec.
CodecCost codec_cost(std::string_view codec, Placement where, double line_rate_gbps = 400.0,
                     int cpu_cores = 1);

// Seconds to encode (or decode) `bytes` of input at that cost; +infinity when not supported.
double codec_seconds(const CodecCost& cost, size_t bytes, bool encode);

}  // namespace commlab
