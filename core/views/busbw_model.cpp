#include "views/busbw_model.h"

#include <stdexcept>

#include "collective/algorithms.h"
#include "collective/nccl/nccl_run.h"
#include "collective/simulated_executor.h"
#include "io/status.h"
#include "network/analytical.h"
#include "topology/builders.h"
#include "topology/presets.h"
#include "topology/topology.h"
#include "views/view_settings.h"

namespace commlab::views {

namespace {

double busbw_of(const char* algo, int ranks, uint64_t bytes, NetworkBackend& backend,
                PipelineConfig pipeline) {
  PlanRequest req;
  req.ranks = ranks;
  req.pipeline = pipeline;
  req.count = bytes / sizeof(float);
  req.time_only = true;
  Plan plan = build_plan(algo, req);
  ExecutorOptions options;
  options.backend = &backend;
  CollectiveReport rep = execute_plan(plan, {}, options);
  double algbw = static_cast<double>(bytes) / rep.time_s / 1e9;
  return algbw * busbw_factor(req.op, ranks);
}

}  // namespace

std::vector<BusbwSeries> compute_busbw(int ranks, double bw_gbps, double alpha_us,
                                       uint64_t min_bytes, uint64_t max_bytes,
                                       PipelineConfig pipeline) {
  AnalyticalBackend backend(make_flat(ranks, bw_gbps * 1e9, alpha_us * 1e-6));
  AnalyticalBackend no_latency(make_flat(ranks, bw_gbps * 1e9, 0));
  std::vector<BusbwSeries> result;
  for (const char* algo : {"ring", "tree", "hd", "direct"}) {
    BusbwSeries series{algo, {}};
    for (uint64_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2)
      series.points.push_back(
          {static_cast<double>(bytes), busbw_of(algo, ranks, bytes, backend, pipeline)});
    series.ceiling_gbps = busbw_of(algo, ranks, 1ull << 30, no_latency, pipeline);
    result.push_back(std::move(series));
  }
  return result;
}

std::vector<BusbwSeries> compute_nccl_busbw(const std::string& cluster, const std::string& proto,
                                            int channels, uint64_t min_bytes, uint64_t max_bytes) {
  const Topology topo = cluster_from_spec(cluster);
  // NCCL's ring is the largest plan the tuner may pick (its tree needs fewer transfers): an
  // oversized one is refused before the tuner's set-up and the sweep, as `collective --algo auto`
  // refuses it (a flat:100000 sweep ran over a minute before the refusal).
  check_plan_sizes("ring", PlanRequest{CollectiveOp::kAllReduce, topo.ranks(), 1, true}, min_bytes,
                   max_bytes);
  const NcclTuner tuner(tuner_inputs(topo));
  const int ranks = topo.ranks();
  std::vector<BusbwSeries> result;
  for (const char* algo : {"auto", "ring", "tree"}) {
    const NcclOverrides force = parse_nccl_overrides(algo, proto, channels);
    AnalyticalBackend backend(topo);
    BusbwSeries series{std::string(algo) == "auto" ? "NCCL" : std::string(algo) + " (NCCL)", {}};
    for (uint64_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
      const NcclTimed t = time_nccl(backend, tuner, CollectiveOp::kAllReduce, bytes, force);
      const NcclChoice& c = t.setup.choice;
      series.points.push_back(
          {static_cast<double>(bytes),
           bytes / t.time_s / 1e9 * busbw_factor(CollectiveOp::kAllReduce, ranks),
           std::string(nccl_algo_name(c.algo)) + " " + protocol_name(c.proto) + " x" +
               std::to_string(c.channels)});
    }
    result.push_back(std::move(series));
  }
  return result;
}

std::vector<BusbwSeries> compute_throughput(const ThroughputSettings& s) {
  if (StatusOr<ThroughputSettings> checked = check_throughput(s); !checked)
    throw StatusError(checked.status());
  const uint64_t max_bytes = s.largest_bytes();
  if (s.cluster.empty())
    return compute_busbw(s.ranks, s.bw_gbps, s.alpha_us, s.min_bytes, max_bytes, s.pipeline);
  return compute_nccl_busbw(s.cluster, s.proto, s.channels, s.min_bytes, max_bytes);
}

}  // namespace commlab::views
