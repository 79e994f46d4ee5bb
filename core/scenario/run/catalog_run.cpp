#include "scenario/run/catalog_run.h"

#include <cmath>
#include <stdexcept>

#include "codec/codec.h"
#include "codec/value_cast.h"
#include "collective/codec_wire.h"
#include "network/analytical.h"
#include "numeric/tensor_gen.h"
#include "scenario/config_problem.h"
#include "topology/gpu_presets.h"
#include "topology/presets.h"
#include "train/layers/model_gradients.h"
#include "workload/catalog/catalog.h"
#include "workload/catalog/catalog_graph.h"
#include "workload/catalog/catalog_settings.h"
#include "workload/chakra_trace.h"
#include "workload/scheduler.h"

namespace commlab {

double measure_codec_ratio(const std::string& codec_name, const std::string& source,
                           uint64_t seed) {
  if (codec_name == "none") return 1.0;
  const std::vector<float> x = source.rfind("model:", 0) == 0
                                   ? model_gradients(source.substr(6), seed).values
                                   : generate_tensor(source, size_t(1) << 20, seed);
  const std::vector<std::byte> in = to_dtype_bytes(x, DType::kBf16);
  auto codec = make_codec(codec_name);
  std::vector<std::byte> out(codec->bound(in.size()));
  Result<size_t> n = codec->encode(in, DType::kBf16, out);
  if (!n) throw std::runtime_error("codec " + codec_name + ": " + n.error());
  return static_cast<double>(*n) / static_cast<double>(in.size());
}

namespace {

// The scenario path of a catalog_settings field.
std::string scenario_path(const std::string& field) {
  if (field == "global_batch") return "training.global_batch";
  if (field == "gpu" || field == "mfu") return "cluster." + field;
  return "workload." + field;
}

// A catalog model's settings from the scenario, through the checks every door shares
// (workload/catalog/catalog_settings.h), on training.ranks GPUs. SkipReduce and the codec's
// ratio are the run's own (a skip from a ratio, a measured ratio) and are checked by it.
CatalogSettings catalog_settings_of(const RunConfig& c) {
  const WorkloadConfig& w = c.workload;
  CatalogRequest r;
  r.catalog = w.catalog;
  r.engine = w.engine == WorkloadEngine::kGraph ? "graph" : "sum";
  r.dp = w.dp, r.tp = w.tp, r.pp = w.pp, r.seq = w.seq;
  r.micro_batch = w.micro_batch, r.global_batch = c.training.global_batch;
  r.gpu = c.cluster.gpu, r.mfu = c.cluster.mfu;
  StatusOr<CatalogSettings> settings = catalog_settings(r, c.training.ranks);
  if (!settings)
    throw ConfigError(scenario_path(settings.status().field), settings.status().message);
  return *std::move(settings);
}

}  // namespace

CatalogRun::CatalogRun(const RunConfig& c) {
  const TechniquesConfig& t = c.techniques;
  if (t.trimming.enabled)
    throw ConfigError("techniques.trimming",
                      "catalog workloads are time-plane only and have no packets to "
                      "trim; use a trained workload (workload.kind train)");
  if (c.cluster.backend != ClusterBackend::kAnalytical)
    throw ConfigError("cluster.backend",
                      "catalog workloads are timed on the analytical backend (a packet "
                      "simulation of every message at this scale would take hours)");
  if (c.collective.algorithm != "ring")
    throw ConfigError("collective.algorithm",
                      "catalog workloads are timed with ring "
                      "collectives, got '" +
                          c.collective.algorithm + "'");
  const WorkloadConfig& w = c.workload;
  const bool trace = w.kind == WorkloadKind::kTrace;
  const bool graph = trace || w.engine == WorkloadEngine::kGraph;
  TransformerSpec spec;
  Parallelism p;  // a trace fixes its own ranks and parallelism
  ComputeModel compute;  // a trace's too: its compute nodes may count FLOPs
  compute.gpu = gpu_preset(c.cluster.gpu);
  compute.mfu = c.cluster.mfu;
  if (!trace) {
    const CatalogSettings settings = catalog_settings_of(c);
    spec = settings.spec;
    p = settings.parallel;
  }
  AnalyticalBackend backend(cluster_from_spec(c.cluster.spec));
  try {
    ratio_ = measure_codec_ratio(t.codec, w.tensor_source, c.seed);
  } catch (const std::invalid_argument& e) {  // e.g. model:cnn without Fashion-MNIST installed
    throw ConfigError("workload.tensor_source", e.what());
  }
  workload::Graph g;
  if (trace) {
    try {
      g = workload::read_chakra_trace(w.trace, nullptr, w.comm_groups);
    } catch (const std::invalid_argument& e) {
      throw ConfigError("workload.trace", e.what());
    }
  } else if (graph) {
    workload::CatalogGraphOptions o;
    o.parallel = p;
    o.ep = w.ep;
    o.grad_bytes = static_cast<int>(dtype_size(w.grad_dtype));
    o.bucket_bytes = static_cast<uint64_t>(w.bucket_mb * (1 << 20));
    o.overlap = w.overlap;
    o.distributed_optimizer = w.distributed_optimizer;
    try {
      g = workload::catalog_graph(spec, o);
    } catch (const std::invalid_argument& e) {
      throw ConfigError("workload.catalog", e.what());
    }
  }
  // SkipReduce acts on the DP reduce-scatter ring of dp ranks (a trace: its first DP group).
  int dp = p.dp;
  if (trace) {
    dp = 0;
    for (const workload::Node& n : g.ranks.at(0).nodes)
      if (n.kind == workload::NodeKind::kCollective && n.comm == workload::CommKind::kDp) {
        dp = static_cast<int>(g.groups[n.group_or_peer].size());
        break;
      }
  }
  skip_ = t.skipreduce.skip > 0 ? t.skipreduce.skip
                                : static_cast<int>(std::lround(t.skipreduce.ratio * dp));
  if (skip_ >= dp && skip_ > 0)
    throw ConfigError("techniques.skipreduce", "skip " + std::to_string(skip_) +
                                                   " must be below the data-parallel degree " +
                                                   std::to_string(dp));
  // Where the codec runs decides what encoding and decoding cost (codec_wire.h's PlacementModel).
  PlacementModel placement;
  placement.placement = t.codec_placement;
  const double codec_s_per_byte = t.codec == "none" ? 0.0 : codec_seconds_per_byte(placement);
  if (!graph) {
    WorkloadTechniques tech{ratio_, ratio_, skip_};
    tech.codec_s_per_byte = codec_s_per_byte;
    try {
      timing_ = time_workload(spec, p, backend, compute, tech);
    } catch (const std::invalid_argument& e) {
      throw ConfigError("workload.catalog", e.what());
    }
    return;
  }
  workload::ScheduleResult r;
  try {
    WorkloadTechniques tech{ratio_, ratio_, skip_};
    tech.codec_s_per_byte = codec_s_per_byte;
    r = workload::schedule(g, backend, graph_options(compute, tech));
  } catch (const std::invalid_argument& e) {
    throw ConfigError(trace ? "workload.trace" : "workload.catalog", e.what());
  }
  timing_ = timing_of(r);
  // Rank 0's DP reduce-scatters (and all-reduces), for the summary's skipped steps.
  MessageTiming rs{MessageKind::kDpReduceScatter, 0, 0, 0};
  for (const workload::Node& n : g.ranks.at(0).nodes)
    if (n.kind == workload::NodeKind::kCollective && n.comm == workload::CommKind::kDp &&
        (n.op == workload::CommOp::kReduceScatter || n.op == workload::CommOp::kAllReduce))
      ++rs.count;
  timing_.messages.push_back(rs);
}

Sample CatalogRun::sample(int iteration) const {
  Sample s;
  s.iteration = iteration;
  s.sim_time_s = timing_.iteration_s * iteration;
  s.train_loss = Sample::kNaN;
  s.compute_time_s = timing_.compute_s;
  // Exposed communication (the closed form: all of it; the graph engine: what the critical path
  // does not hide) and the critical path's idle gaps, so compute + comm = iteration.
  s.comm_time_s =
      timing_.tp_s + timing_.dp_s + timing_.pp_s + timing_.ep_s + timing_.other_s + timing_.idle_s;
  s.comm_total_s = s.comm_time_s;
  s.codec_time_s = timing_.codec_s;
  s.codec_total_s = timing_.codec_s;
  s.ratio = ratio_;
  s.effective_bits = 16.0 * ratio_;  // BF16 wire: 8 x wire bytes per coordinate
  return s;
}

}  // namespace commlab
