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

}  // namespace commlab::views
