// Simulator entry points: the time of a collective on a cluster (what `commlab-cli collective
// --time-only` computes per size, without NCCL mode), the iteration time of a catalog workload
// (what `commlab-cli workload` computes), and DDP's overlap of a step's compute and buckets
// (train/compute_model.h), to predict a data-parallel iteration from measured layers.

#include <optional>
#include <stdexcept>

#include "bindings.h"
#include "collective/algorithms.h"
#include "collective/collective_settings.h"
#include "collective/simulated_executor.h"
#include "exec/calibration.h"
#include "network/backend_factory.h"
#include "topology/gpu_presets.h"
#include "topology/topology.h"
#include "workload/catalog/catalog_graph.h"
#include "workload/catalog/catalog_settings.h"
#include "workload/scheduler.h"
#include "workload/workload_timing.h"

namespace commlab::python {

namespace {

// The backend every door builds: checked by backend_settings, built by make_backend, a cluster
// file's calibration block checked as commlab-cli checks it.
std::unique_ptr<NetworkBackend> backend_of(const BackendRequest& request) {
  std::unique_ptr<NetworkBackend> backend = make_backend(backend_settings(request).value()).value();
  if (!request.cluster.empty()) exec::read_calibration(request.cluster);
  return backend;
}

py::dict time_collective(CollectiveRequest request, const BackendRequest& net) {
  std::unique_ptr<NetworkBackend> backend = backend_of(net);
  request.ranks = backend->topology().ranks();
  const CollectiveSettings s = collective_settings(request).value();
  const uint64_t count = std::max<uint64_t>(s.bytes / sizeof(float), 1);
  PlanRequest req;
  req.op = s.op;
  req.ranks = s.ranks;
  req.count = count;
  req.time_only = true;
  req.unbiased_skip = s.skip.unbiased;
  req.ranks_per_node = backend_ranks_per_node(*backend);
  req.skip = decide_skip(s.skip, s.ranks, 0, "bucket0", count, s.iteration);
  req.pipeline = s.pipeline;
  Plan plan = build_plan(s.algorithm->name, req);
  ExecutorOptions ex{backend.get(), nullptr, s.reduce_Bps};
  ex.iteration = s.iteration;
  ex.time_only_element_bytes = s.element_bytes;
  CollectiveReport rep = execute_plan(plan, {}, ex);
  py::dict d;
  d["time_s"] = rep.time_s;
  d["steps"] = rep.steps;
  d["bytes_on_wire"] = rep.bytes_on_wire;
  d["ranks"] = s.ranks;
  d["backend"] = backend->name();
  d["algbw_gbps"] =
      rep.time_s > 0 ? static_cast<double>(count * sizeof(float)) / rep.time_s / 1e9 : 0.0;
  return d;
}

py::dict to_dict(const WorkloadTiming& w) {
  py::dict d;
  d["iteration_s"] = w.iteration_s;
  d["compute_s"] = w.compute_s;
  d["tp_s"] = w.tp_s;
  d["dp_s"] = w.dp_s;
  d["pp_s"] = w.pp_s;
  d["ep_s"] = w.ep_s;
  d["codec_s"] = w.codec_s;
  return d;
}

// `commlab-cli workload --catalog NAME` for one set of techniques (graph or sum engine), with the
// command's checks (workload/catalog/catalog_settings.h).
py::dict time_workload(const CatalogRequest& request, const BackendRequest& net) {
  std::unique_ptr<NetworkBackend> backend = backend_of(net);
  const CatalogSettings s =
      catalog_settings(request, backend->topology().ranks()).value();  // throws the Status
  if (!s.graph_engine)
    return to_dict(time_workload(s.spec, s.parallel, *backend, s.compute, s.techniques));
  workload::CatalogGraphOptions go;
  go.parallel = s.parallel;
  const workload::Graph graph = workload::catalog_graph(s.spec, go);
  return to_dict(
      timing_of(workload::schedule(graph, *backend, graph_options(s.compute, s.techniques))));
}

py::dict overlap(const std::vector<std::tuple<double, double, int>>& layers,
                 const std::vector<double>& bucket_comm_s,
                 const std::vector<double>& bucket_codec_s) {
  std::vector<LayerCost> costs;
  for (auto [f, b, bucket] : layers) {
    if (bucket >= static_cast<int>(bucket_comm_s.size()) ||
        bucket >= static_cast<int>(bucket_codec_s.size()))
      throw std::invalid_argument("overlap_step: layer bucket " + std::to_string(bucket) +
                                  " has no comm/codec time");
    costs.push_back(LayerCost{f, b, bucket});
  }
  if (std::optional<Status> bad = step_costs_problem(costs, bucket_comm_s, bucket_codec_s))
    throw StatusError(*bad);
  StepTiming t = overlap_step(costs, bucket_comm_s, bucket_codec_s);
  py::dict d;
  d["compute_s"] = t.compute_s;
  d["comm_total_s"] = t.comm_total_s;
  d["comm_exposed_s"] = t.comm_exposed_s;
  d["codec_exposed_s"] = t.codec_exposed_s;
  d["step_s"] = t.step_s;
  return d;
}

}  // namespace

void bind_simulator(py::module_& m) {
  m.def(
      "time_collective",
      [](const std::string& algorithm, const std::string& op, int ranks, uint64_t bytes,
         const std::string& cluster, const std::string& backend, double bw_gbps, double alpha_us,
         int skip, const std::string& policy, uint64_t seed, uint64_t iteration, bool unbiased,
         double element_bytes, double reduce_gbps, uint64_t slice_bytes, uint64_t chunk_bytes) {
        CollectiveRequest request{algorithm,   op,          ranks,      bytes,    skip,
                                  policy,      seed,        iteration,  unbiased, element_bytes,
                                  reduce_gbps, slice_bytes, chunk_bytes};
        return time_collective(request, BackendRequest{cluster, backend, bw_gbps, alpha_us, ranks});
      },
      py::arg("algorithm"), py::arg("op"), py::arg("ranks"), py::arg("bytes"), py::arg("cluster"),
      py::arg("backend"), py::arg("bw_gbps"), py::arg("alpha_us"), py::arg("skip"),
      py::arg("policy"), py::arg("seed"), py::arg("iteration"), py::arg("unbiased"),
      py::arg("element_bytes"), py::arg("reduce_gbps"), py::arg("slice_bytes"),
      py::arg("chunk_bytes"),
      "Time of one collective of `bytes` per rank, as commlab-cli collective --time-only "
      "(defaults: commlab.time_collective)");
  m.def(
      "time_workload",
      [](const std::string& catalog, const std::string& cluster, const std::string& backend,
         const std::string& engine, int dp, int tp, int pp, int micro_batch, int global_batch,
         const std::string& gpu, double mfu, double ratio, int skip, double codec_s_per_byte) {
        if (cluster.empty()) throw StatusError("cluster", "time_workload needs a cluster");
        CatalogRequest request;
        request.catalog = catalog, request.engine = engine;
        request.dp = dp, request.tp = tp, request.pp = pp;
        request.micro_batch = micro_batch, request.global_batch = global_batch;
        request.gpu = gpu, request.mfu = mfu, request.ratio = ratio, request.skip = skip;
        request.codec_s_per_byte = codec_s_per_byte;
        return time_workload(request, BackendRequest{cluster, backend});
      },
      py::arg("catalog"), py::arg("cluster"), py::arg("backend"), py::arg("engine"), py::arg("dp"),
      py::arg("tp"), py::arg("pp"), py::arg("micro_batch"), py::arg("global_batch"), py::arg("gpu"),
      py::arg("mfu"), py::arg("ratio"), py::arg("skip"), py::arg("codec_s_per_byte"),
      "Iteration time of a catalog workload on a cluster, as commlab-cli workload (defaults: "
      "commlab.time_workload)");
  m.def("overlap_step", &overlap, py::arg("layers"), py::arg("bucket_comm_s"),
        py::arg("bucket_codec_s"),
        "DDP overlap of layers (forward_s, backward_s, bucket) with their buckets' "
        "communication: step_s = compute + exposed communication");
}

}  // namespace commlab::python
