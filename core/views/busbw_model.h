#pragma once
// What the Throughput page draws: bus bandwidth vs message size, one series per algorithm, timed by
// the engine (time plane, analytical backend). On a flat alpha-beta network (link, latency, the
// ring's slice and chunk), or on a cluster as NCCL runs it (collective/nccl/nccl_run.h): the
// tuner's choice per size next to NCCL's ring and tree. No Qt: tests and the CLI call it too.
#include <cstdint>
#include <string>
#include <vector>

#include "collective/plan.h"

namespace commlab::views {

struct BusbwPoint {
  double bytes;
  double busbw_gbps;
  std::string choice = {};  // NCCL mode: "ring ll128 x16" (algorithm, protocol, channels)
};
struct BusbwSeries {
  std::string algorithm;
  std::vector<BusbwPoint> points;
  // The algorithm's bandwidth ceiling: its busbw with no latency (alpha = 0) on a 1 GiB message.
  double ceiling_gbps = 0;
};

// `pipeline` is the NCCL-style slicing of ring steps (collective/plan.h; zeros turn it off).
std::vector<BusbwSeries> compute_busbw(int ranks, double bw_gbps, double alpha_us,
                                       uint64_t min_bytes, uint64_t max_bytes,
                                       PipelineConfig pipeline = {});
// NCCL mode on a cluster spec: "NCCL" (the tuner's choice per size), "ring (NCCL)" and "tree
// (NCCL)"; `proto` auto | simple | ll | ll128, `channels` 0 = NCCL's choice. Throws
// std::invalid_argument for what NCCL cannot run.
std::vector<BusbwSeries> compute_nccl_busbw(const std::string& cluster, const std::string& proto,
                                            int channels, uint64_t min_bytes, uint64_t max_bytes);

// The Throughput page's controls, defaults as it opens: a flat network of `ranks` links of
// `bw_gbps` GB/s and `alpha_us` latency, or (`cluster` set) that cluster as NCCL runs it.
struct ThroughputSettings {
  std::string cluster;  // empty: the flat network; else a cluster spec (NCCL mode)
  int ranks = 8;
  double bw_gbps = 25;  // GB/s per rank (25 GB/s = a 200 Gb/s NIC)
  double alpha_us = 5;
  PipelineConfig pipeline = {};
  std::string proto = "auto";  // NCCL mode
  int channels = 0;            // NCCL mode; 0: the tuner's choice
  uint64_t min_bytes = 1024;
  uint64_t max_bytes = 0;  // 0: what the page draws, 256 MiB flat, 1 GiB NCCL
  uint64_t largest_bytes() const {
    return max_bytes ? max_bytes : cluster.empty() ? 256ull << 20 : 1ull << 30;
  }
  bool operator==(const ThroughputSettings&) const = default;
};

// compute_busbw or compute_nccl_busbw, as the settings say (throws what they throw, and
// std::invalid_argument for min_bytes of 0 or above the largest size).
std::vector<BusbwSeries> compute_throughput(const ThroughputSettings& settings);

}  // namespace commlab::views
