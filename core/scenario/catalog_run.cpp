#include "scenario/catalog_run.h"

#include <cmath>
#include <stdexcept>

#include "codec/codec.h"
#include "codec/value_cast.h"
#include "network/analytical.h"
#include "numeric/tensor_gen.h"
#include "topology/gpu_presets.h"
#include "topology/presets.h"
#include "train/catalog.h"
#include "train/model_gradients.h"

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

CatalogRun::CatalogRun(const RunConfig& c) {
  const TechniquesConfig& t = c.techniques;
  if (t.trimming.enabled)
    throw std::invalid_argument(
        "techniques.trimming: catalog workloads are time-plane only and have no packets to "
        "trim; use a trained workload (workload.kind train)");
  if (c.cluster.backend != "analytical")
    throw std::invalid_argument(
        "cluster.backend: catalog workloads are timed on the analytical backend (a packet "
        "simulation of every message at this scale would take hours)");
  if (c.collective.algorithm != "ring")
    throw std::invalid_argument(
        "collective.algorithm: catalog workloads are timed with ring "
        "collectives, got '" +
        c.collective.algorithm + "'");
  const TransformerSpec& spec = find_workload(c.workload.catalog);
  AnalyticalBackend backend(cluster_from_spec(c.cluster.spec));
  Parallelism p;
  p.tp = c.workload.tp;
  p.pp = c.workload.pp;
  p.dp = c.workload.dp > 0 ? c.workload.dp : c.training.ranks / (p.tp * p.pp);
  p.global_batch = c.training.global_batch;
  if (p.dp < 1)
    throw std::invalid_argument("workload.tp: tp x pp = " + std::to_string(p.tp * p.pp) +
                                " exceeds training.ranks (" + std::to_string(c.training.ranks) +
                                ")");
  ComputeModel compute;
  compute.gpu = gpu_preset(c.cluster.gpu);
  compute.mfu = c.cluster.mfu;
  try {
    ratio_ = measure_codec_ratio(t.codec, c.workload.tensor_source, c.seed);
  } catch (const std::invalid_argument& e) {  // e.g. model:cnn without Fashion-MNIST installed
    throw std::invalid_argument(std::string("workload.tensor_source: ") + e.what());
  }
  // SkipReduce acts on the DP reduce-scatter ring of dp ranks.
  skip_ = t.skipreduce.skip > 0 ? t.skipreduce.skip
                                : static_cast<int>(std::lround(t.skipreduce.ratio * p.dp));
  if (skip_ >= p.dp && skip_ > 0)
    throw std::invalid_argument("techniques.skipreduce: skip " + std::to_string(skip_) +
                                " must be below the data-parallel degree " + std::to_string(p.dp));
  WorkloadTechniques tech{ratio_, ratio_, skip_};
  try {
    timing_ = time_workload(spec, p, backend, compute, tech);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("workload.catalog: ") + e.what());
  }
}

Sample CatalogRun::sample(int iteration) const {
  Sample s;
  s.iteration = iteration;
  s.sim_time_s = timing_.iteration_s * iteration;
  s.train_loss = Sample::kNaN;
  s.compute_time_s = timing_.compute_s;
  s.comm_time_s = timing_.tp_s + timing_.dp_s + timing_.pp_s;  // all exposed (workload_timing.h)
  s.comm_total_s = s.comm_time_s;
  s.ratio = ratio_;
  s.effective_bits = 16.0 * ratio_;  // BF16 wire: 8 x wire bytes per coordinate
  return s;
}

}  // namespace commlab
