#include "topology/gpu_presets.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>
#include <string>

#include "io/status.h"

namespace commlab {

namespace {
constexpr double kGB = 1e9;      // vendors quote decimal GB/s
constexpr double kGb = 1e9 / 8;  // and decimal Gb/s for NICs
constexpr double kT = 1e12;

// Datasheet values (SXM parts; docs/topology.md cites each). NVLink is quoted bidirectional.
constexpr std::array<GpuPreset, 4> kPresets{{
    // A100 SXM4 80 GB: NVLink 3 600 GB/s, BF16 312 TFLOPS, HBM2e 2,039 GB/s; DGX A100 200G HDR.
    {"a100", 600 * kGB / 2, 200 * kGb, 32 * kGB, 312 * kT, 2039 * kGB, 80 * kGB},
    // H100 SXM5: NVLink 4 900 GB/s, BF16 989 TFLOPS dense, HBM3 3.35 TB/s; DGX H100 400G NDR.
    {"h100", 900 * kGB / 2, 400 * kGb, 64 * kGB, 989 * kT, 3350 * kGB, 80 * kGB},
    // H200 SXM: as H100 with HBM3e 4.8 TB/s, 141 GB.
    {"h200", 900 * kGB / 2, 400 * kGb, 64 * kGB, 989 * kT, 4800 * kGB, 141 * kGB},
    // B200 (HGX/DGX B200): NVLink 5 1.8 TB/s, BF16 2.25 PFLOPS dense, HBM3e 8 TB/s, 180 GB;
    // DGX B200 ships 400G ConnectX-7 per GPU.
    {"b200", 1800 * kGB / 2, 400 * kGb, 64 * kGB, 2250 * kT, 8000 * kGB, 180 * kGB},
}};

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == y;
         });
}
}  // namespace

std::span<const GpuPreset> gpu_presets() {
  return kPresets;
}

const GpuPreset& gpu_preset(std::string_view name) {
  for (const GpuPreset& p : kPresets)
    if (iequal(name, p.name)) return p;
  std::string known;
  for (const GpuPreset& p : kPresets) known.append(known.empty() ? "" : ", ").append(p.name);
  throw bad_input("unknown GPU '" + std::string(name) + "' (expected one of " + known + ")");
}

}  // namespace commlab
