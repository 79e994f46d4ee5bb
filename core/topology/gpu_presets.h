#pragma once
// GPU presets from the vendors' datasheets (sources in docs/topology.md). The network builders use
// the link figures; the training engine uses peak BF16 FLOP/s and HBM bandwidth for compute time.
// All figures are SI base units: bytes per second (per direction), FLOP/s, bytes.
#include <span>
#include <string_view>

namespace commlab {

struct GpuPreset {
  std::string_view name;  // "a100", "h100", "h200", "b200"
  double nvlink_Bps;      // NVLink bandwidth per GPU, one direction (half the quoted bidirectional)
  double nic_Bps;         // the per-GPU network NIC line rate of the vendor's reference system
  double pcie_Bps;        // GPU <-> NIC / host PCIe x16, one direction
  double bf16_flops;      // dense peak BF16 tensor-core FLOP/s (no sparsity)
  double hbm_Bps;         // HBM bandwidth
  double hbm_bytes;       // HBM capacity
};

// All presets, in the order above.
std::span<const GpuPreset> gpu_presets();
// The preset called `name` (case-insensitive); throws std::invalid_argument listing the known ones.
const GpuPreset& gpu_preset(std::string_view name);

}  // namespace commlab
