// commlab-cli workload: iteration time of a catalog workload (GPT-3 175B, Llama-3, ...) on a
// cluster, with every message timed on the network, and what compression and SkipReduce change.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/network_util.h"
#include "scenario/catalog_run.h"
#include "scenario/workload_timing.h"
#include "topology/gpu_presets.h"
#include "topology/topology.h"

namespace commlab::cli {
namespace {

struct Options {
  std::string catalog = "gpt3-175b";
  NetworkFlags net;
  int dp = 0, tp = 4, pp = 1, micro_batch = 1, global_batch = 128;
  std::string gpu = "h100";
  double mfu = 0.4;
  double ratio = 0;  // 0: measure --codec on --tensor-source
  std::string codec = "none";
  std::string source = "gaussian";
  int skip = 0;
  bool json = false;
};

int run(const Options& o) {
  const TransformerSpec& spec = find_workload(o.catalog);
  if (o.net.cluster.empty()) throw InvalidInput("--cluster is required (e.g. netzip-512:gbps=400)");
  auto backend = make_backend(o.net, 0);
  const int gpus = backend->topology().ranks();
  Parallelism p;
  p.tp = o.tp;
  p.pp = o.pp;
  p.dp = o.dp > 0 ? o.dp : gpus / (o.tp * o.pp);
  p.micro_batch = o.micro_batch;
  p.global_batch = o.global_batch;
  if (p.dp < 1)
    throw InvalidInput("--tp x --pp exceeds the cluster's " + std::to_string(gpus) + " GPUs");
  ComputeModel compute;
  compute.gpu = gpu_preset(o.gpu);
  compute.mfu = o.mfu;
  const double ratio = o.ratio > 0 ? o.ratio : measure_codec_ratio(o.codec, o.source, 1);
  WorkloadTiming base = time_workload(spec, p, *backend, compute);
  auto backend2 = make_backend(o.net, 0);  // a fresh network for the second timing
  WorkloadTechniques tech{ratio, ratio, o.skip};
  WorkloadTiming with = time_workload(spec, p, *backend2, compute, tech);
  const double saving = 1.0 - with.iteration_s / base.iteration_s;
  if (o.json) {
    auto timing = [](const WorkloadTiming& w) {
      return nlohmann::json{{"iteration_s", w.iteration_s},
                            {"compute_s", w.compute_s},
                            {"tp_s", w.tp_s},
                            {"dp_s", w.dp_s},
                            {"pp_s", w.pp_s}};
    };
    nlohmann::json doc = {{"workload", spec.name},
                          {"gpus", p.gpus()},
                          {"dp", p.dp},
                          {"tp", p.tp},
                          {"pp", p.pp},
                          {"ratio", ratio},
                          {"codec", o.codec},
                          {"tensor_source", o.source},
                          {"skip", o.skip},
                          {"baseline", timing(base)},
                          {"with_techniques", timing(with)},
                          {"time_saving", saving}};
    std::cout << doc.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("# %s on %s: dp %d x tp %d x pp %d = %d GPUs, %s at MFU %.2f\n", spec.display.c_str(),
              backend->topology().name().c_str(), p.dp, p.tp, p.pp, p.gpus(), o.gpu.c_str(), o.mfu);
  std::printf("# wire ratio %.3f (%s), SkipReduce s=%d on DP reduce-scatter\n", ratio,
              o.ratio > 0 ? "given" : (o.codec + " measured on " + o.source + " BF16").c_str(),
              o.skip);
  std::printf("%-18s %12s %12s %12s %12s %12s\n", "", "iteration(s)", "compute(s)", "TP(s)",
              "DP(s)", "PP(s)");
  for (auto [name, w] : {std::pair{"baseline", &base}, std::pair{"with techniques", &with}})
    std::printf("%-18s %12.3f %12.3f %12.3f %12.3f %12.3f\n", name, w->iteration_s, w->compute_s,
                w->tp_s, w->dp_s, w->pp_s);
  std::printf("time saving: %.1f%%\n", 100 * saving);
  return kExitOk;
}

const RegisterCommand reg{Command{
    "workload", "iteration time of a catalog workload (GPT-3, Llama-3, ...) on a cluster",
    [](CLI::App& app) {
      auto o = std::make_shared<Options>();
      app.add_option("--catalog", o->catalog,
                     "gpt3-175b, llama3-8b, llama3-70b, llama3-405b, bloom-176b, gpt-7b")
          ->capture_default_str();
      add_network_flags(app, o->net);
      app.add_option("--dp", o->dp, "data-parallel degree (0: GPUs / (tp x pp))");
      app.add_option("--tp", o->tp, "tensor-parallel degree")
          ->capture_default_str()
          ->check(CLI::Range(1, 4096));
      app.add_option("--pp", o->pp, "pipeline-parallel degree")
          ->capture_default_str()
          ->check(CLI::Range(1, 4096));
      app.add_option("--micro-batch", o->micro_batch, "sequences per micro-batch")
          ->check(CLI::Range(1, 65536));
      app.add_option("--global-batch", o->global_batch, "sequences per iteration")
          ->capture_default_str()
          ->check(CLI::Range(1, 1 << 24));
      app.add_option("--gpu", o->gpu, "GPU preset for compute time")->capture_default_str();
      app.add_option("--mfu", o->mfu, "model FLOPs utilisation")->check(CLI::Range(0.01, 1.0));
      app.add_option("--ratio", o->ratio, "wire ratio to apply (0: measure --codec)")
          ->check(CLI::Range(0.0, 1.0));
      app.add_option("--codec", o->codec, "codec whose ratio is measured on --tensor-source")
          ->capture_default_str();
      app.add_option("--tensor-source", o->source, "gaussian, laplace, student-t or sparse:F")
          ->capture_default_str();
      app.add_option("--skip", o->skip, "SkipReduce steps skipped in the DP reduce-scatter")
          ->check(CLI::NonNegativeNumber);
      app.add_flag("--json", o->json, "one JSON document on stdout");
      return [o] { return run(*o); };
    }}};

}  // namespace
}  // namespace commlab::cli
