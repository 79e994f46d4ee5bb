// Collective plans (collective/plan.h, algorithms.h, skip.h), the wire formats of their transfers
// (collective/wire.h, codec_wire.h) and the simulated data plane that runs a plan on real buffers
// (collective/simulated_executor.h).

#include <stdexcept>
#include <vector>

#include "bindings.h"
#include "collective/algorithms.h"
#include "collective/codec_wire.h"
#include "collective/simulated_executor.h"
#include "scenario/scenario.h"

namespace commlab::python {

namespace {

SkipConfig skip_config(int skip, const std::string& policy, uint64_t seed, bool unbiased,
                       std::vector<std::string> protected_buckets, uint64_t min_elements) {
  SkipConfig c;
  c.skip = skip;
  c.policy = parse_skip_policy(policy);
  c.seed = seed;
  c.unbiased = unbiased;
  c.protected_buckets = std::move(protected_buckets);
  c.min_elements = min_elements;
  return c;
}

// SkipReduce's learning-rate compensation N / (N - s) (scenario.h), for a trained run of `ranks`
// replicas skipping `skip` steps.
double lr_compensation(int ranks, int skip) {
  RunConfig c;
  c.training.ranks = ranks;
  c.techniques.skipreduce.skip = skip;
  c.techniques.skipreduce.lr_compensation = true;
  return skipreduce_lr_factor(c);
}

// execute_plan's data plane on a (ranks, count) float32 array, in place.
void execute(const Plan& plan, py::array& buffers, const Wire* wire, uint64_t iteration,
             int bucket) {
  if (buffers.ndim() != 2 || buffers.shape(0) != plan.ranks ||
      static_cast<uint64_t>(buffers.shape(1)) != plan.count)
    throw std::invalid_argument("execute: expected a float32 array of shape (" +
                                std::to_string(plan.ranks) + ", " + std::to_string(plan.count) +
                                ") (ranks, count)");
  for (const PlanStep& step : plan.steps)
    if (step.repeat != 1)
      throw std::invalid_argument("execute: the plan was built time_only (folded steps)");
  std::span<float> all = float_span(buffers, "execute buffers");
  std::vector<std::span<float>> views;
  for (int r = 0; r < plan.ranks; ++r) views.push_back(all.subspan(r * plan.count, plan.count));
  ExecutorOptions options;
  options.codec = wire ? wire->codec.get() : nullptr;
  options.iteration = iteration;
  options.bucket = bucket;
  py::gil_scoped_release release;
  execute_plan(plan, views, options);
}

void bind_plan_types(py::module_& m) {
  py::class_<Transfer>(m, "Transfer", "Elements [offset, offset+count) from src to dst")
      .def_readonly("src", &Transfer::src)
      .def_readonly("dst", &Transfer::dst)
      .def_readonly("offset", &Transfer::offset)
      .def_readonly("count", &Transfer::count)
      .def_readonly("reduce", &Transfer::reduce)
      .def("__repr__", [](const Transfer& t) {
        return "Transfer(" + std::to_string(t.src) + "->" + std::to_string(t.dst) + ", [" +
               std::to_string(t.offset) + ", +" + std::to_string(t.count) + ")" +
               (t.reduce ? ", reduce)" : ", copy)");
      });
  py::class_<PlanStep>(m, "PlanStep",
                       "One step of a plan: transfers that run at once, `repeat` times (folded)")
      .def_readonly("transfers", &PlanStep::transfers)
      .def_readonly("repeat", &PlanStep::repeat)
      .def_readonly("phase", &PlanStep::phase);
  py::class_<Plan>(m, "Plan", "A collective as bulk-synchronous steps of transfers")
      .def_property_readonly("op", [](const Plan& p) { return op_name(p.op); })
      .def_readonly("ranks", &Plan::ranks)
      .def_readonly("count", &Plan::count)
      .def_readonly("steps", &Plan::steps)
      .def_readonly("chunk_begin", &Plan::chunk_begin)
      .def_readonly("chunk_owner", &Plan::chunk_owner)
      .def_property_readonly("dropped",
                             [](const Plan& p) {
                               std::vector<std::pair<int, int>> out;
                               for (auto d : p.dropped) out.emplace_back(d.chunk, d.rank);
                               return out;
                             })
      .def_readonly("chunk_scale", &Plan::chunk_scale)
      .def("total_steps", &Plan::total_steps);
}

void bind_wires(py::module_& m) {
  py::class_<Wire>(m, "Wire", "What a collective's transfers carry on the wire")
      .def_property_readonly("name", [](const Wire& w) { return w.codec->name(); })
      .def_property_readonly("lossless", [](const Wire& w) { return w.codec->lossless(); })
      .def_static("fp32", [] { return Wire{std::make_shared<Fp32Wire>()}; })
      .def_static("bf16", [] { return Wire{std::make_shared<Bf16Wire>()}; })
      .def_static(
          "codec",
          [](const std::string& name, const std::string& dtype) {
            return Wire{std::make_shared<CodecWire>(name, parse_dtype(dtype))};
          },
          py::arg("name"), py::arg("dtype") = "fp32",
          "A stateless codec on every transfer; values are cast to dtype first")
      .def_static(
          "trim",
          [](const std::string& encoding, int head_bits, size_t payload_bytes,
             const std::string& wire, uint64_t seed, bool unbiased, double rate, uint64_t trim_seed,
             std::vector<int> levels) {
            trim::TrimConfig c{trim::parse_encoding(encoding),
                               head_bits,
                               payload_bytes,
                               parse_dtype(wire),
                               seed,
                               unbiased};
            return Wire{std::make_shared<TrimWire>(c, rate, trim_seed, std::move(levels)), rate,
                        trim_seed};
          },
          py::arg("encoding") = "eden", py::arg("head_bits") = 1, py::arg("payload_bytes") = 4096,
          py::arg("wire") = "fp32", py::arg("seed") = 0, py::arg("unbiased") = true,
          py::arg("rate") = 0.0, py::arg("trim_seed") = 0, py::arg("levels") = std::vector<int>{},
          "Trimmable packets; rate > 0 trims that fraction of packets (Bernoulli, trim_seed)");
}

}  // namespace

void bind_collective(py::module_& m) {
  bind_plan_types(m);
  bind_wires(m);
  m.def("algorithms", [] {
    std::vector<std::string> names;
    for (const Algorithm& a : algorithms()) names.push_back(a.name);
    return names;
  });
  m.def(
      "skip_limit",
      [](const std::string& algorithm, int ranks) {
        const Algorithm& a = find_algorithm(algorithm);
        return a.skips() ? a.skip_limit(ranks).max : 0;
      },
      py::arg("algorithm"), py::arg("ranks"),
      "The most SkipReduce steps `algorithm` can skip on `ranks` ranks (ring N-1, tree and hd "
      "floor(log2 N)); 0 when it has none to skip");
  m.def(
      "decide_skip",
      [](int skip, const std::string& policy, uint64_t seed, int ranks, int bucket,
         const std::string& bucket_name, uint64_t elements, uint64_t iteration, bool unbiased,
         std::vector<std::string> protected_buckets, uint64_t min_elements, int segment) {
        SkipDecision d = decide_skip(
            skip_config(skip, policy, seed, unbiased, std::move(protected_buckets), min_elements),
            ranks, bucket, bucket_name, elements, iteration, segment);
        return std::pair{d.skip, d.rotation};
      },
      py::arg("skip"), py::arg("policy"), py::arg("seed"), py::arg("ranks"), py::arg("bucket"),
      py::arg("bucket_name"), py::arg("elements"), py::arg("iteration"), py::arg("unbiased"),
      py::arg("protected_buckets"), py::arg("min_elements"), py::arg("segment"),
      "SkipReduce's (skip, rotation) for one collective call, as every rank derives it (defaults: "
      "commlab.decide_skip)");
  m.def(
      "build_plan",
      [](const std::string& algorithm, const std::string& op, int ranks, uint64_t count, int skip,
         int rotation, bool unbiased, int ranks_per_node, bool time_only) {
        PlanRequest req;
        req.op = parse_op(op);
        req.ranks = ranks;
        req.count = count;
        req.time_only = time_only;
        req.skip = SkipDecision{skip, rotation};
        req.unbiased_skip = unbiased;
        req.ranks_per_node = ranks_per_node;
        return build_plan(algorithm, req);
      },
      py::arg("algorithm"), py::arg("op"), py::arg("ranks"), py::arg("count"), py::arg("skip"),
      py::arg("rotation"), py::arg("unbiased"), py::arg("ranks_per_node"), py::arg("time_only"),
      "The steps of a collective (defaults: commlab.build_plan)");
  m.def("lr_compensation", &lr_compensation, py::arg("ranks"), py::arg("skip"),
        "The learning-rate factor N / (N - s) of compensated SkipReduce (1 when s is 0 or >= N)");
  m.def("execute", &execute, py::arg("plan"), py::arg("buffers"), py::arg("wire") = nullptr,
        py::arg("iteration") = 0, py::arg("bucket") = 0,
        "Runs the plan's data plane on a (ranks, count) float32 array in place");
}

}  // namespace commlab::python
