#include "workload/catalog/catalog_settings.h"

#include <cmath>
#include <optional>
#include <stdexcept>

#include "collective/collective_settings.h"
#include "io/size_parse.h"

namespace commlab {
namespace {

// `parse()`, a refusal of which names `field`.
template <typename Parse>
auto named(const char* field, Parse parse) -> StatusOr<decltype(parse())> {
  try {
    return parse();
  } catch (const std::invalid_argument& e) {
    return invalid_input(field, e.what());
  }
}

std::optional<Status> degree_problem(const CatalogRequest& r) {
  const std::pair<const char*, int> model_parallel[] = {{"tp", r.tp}, {"pp", r.pp}};
  for (auto [field, value] : model_parallel)
    if (auto bad = out_of_range(field, value, kCatalogModelParallel)) return bad;
  if (auto bad = out_of_range("dp", r.dp, kCatalogDataParallel)) return bad;
  if (auto bad = out_of_range("micro_batch", r.micro_batch, kCatalogMicroBatch)) return bad;
  if (auto bad = out_of_range("global_batch", r.global_batch, kCatalogGlobalBatch)) return bad;
  return out_of_range("seq", r.seq, kCatalogSeq);
}

// `field` refused unless `value` is in (0, 1].
std::optional<Status> fraction_problem(const char* field, double value) {
  if (std::isfinite(value) && value > 0 && value <= 1) return std::nullopt;
  return invalid_input(field, "expected a number in (0, 1], got " + limit_text(value));
}

std::optional<Status> number_problem(const CatalogRequest& r) {
  if (auto bad = mfu_problem(r.mfu)) return bad;
  if (auto bad = ratio_problem(r.ratio)) return bad;
  if (!(std::isfinite(r.codec_s_per_byte) && r.codec_s_per_byte >= 0))
    return invalid_input("codec_s_per_byte",
                         "expected a finite number >= 0, got " + limit_text(r.codec_s_per_byte));
  return std::nullopt;
}

// The split resolved on the cluster (resolve_parallelism's rule) and valid for the model's shape
// (plan_iteration's rules), each refusal naming the degree at fault.
StatusOr<Parallelism> parallelism_of(const CatalogRequest& r, const TransformerSpec& spec,
                                     int gpus) {
  Parallelism asked;
  asked.dp = r.dp, asked.tp = r.tp, asked.pp = r.pp;
  asked.micro_batch = r.micro_batch, asked.global_batch = r.global_batch;
  Parallelism p;
  try {
    p = resolve_parallelism(asked, gpus);
  } catch (const std::invalid_argument& e) {
    return invalid_input(r.dp > 0 && static_cast<long long>(r.tp) * r.pp <= gpus ? "dp" : "tp",
                         std::string(e.what()) + " of the cluster");
  }
  if (std::optional<Status> bad = iteration_problem(spec, p)) return *bad;
  return p;
}

}  // namespace

std::optional<Status> mfu_problem(double mfu) {
  return fraction_problem("mfu", mfu);
}
std::optional<Status> ratio_problem(double ratio) {
  return fraction_problem("ratio", ratio);
}

StatusOr<CatalogSettings> catalog_settings(const CatalogRequest& r, int gpus) {
  CatalogSettings s;
  StatusOr<TransformerSpec> spec = named("catalog", [&] { return find_workload(r.catalog); });
  if (!spec) return spec.status();
  s.spec = *spec;
  if (r.engine != "graph" && r.engine != "sum")
    return invalid_input("engine", "expected graph or sum, got '" + r.engine + "'");
  s.graph_engine = r.engine == "graph";
  if (std::optional<Status> bad = degree_problem(r)) return *bad;
  if (r.seq > 0) s.spec.seq = r.seq;
  StatusOr<GpuPreset> gpu = named("gpu", [&] { return gpu_preset(r.gpu); });
  if (!gpu) return gpu.status();
  if (std::optional<Status> bad = number_problem(r)) return *bad;
  StatusOr<Parallelism> p = parallelism_of(r, s.spec, gpus);
  if (!p) return p.status();
  s.parallel = *p;
  // SkipReduce skips steps of the DP reduce-scatter ring of dp ranks.
  if (std::optional<Status> bad = skip_problem("ring", s.parallel.dp, r.skip))
    return invalid_input("skip", "the DP reduce-scatter's " + bad->message);
  s.compute.gpu = *gpu;
  s.compute.mfu = r.mfu;
  s.techniques = WorkloadTechniques{r.ratio, r.ratio, r.skip};
  s.techniques.codec_s_per_byte = r.codec_s_per_byte;
  return s;
}

}  // namespace commlab
