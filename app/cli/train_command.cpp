// commlab-cli train: data-parallel training with the exact reducer (the reference the lossy
// techniques are compared against), and --dump-gradients for codec studies on real gradients.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "cli/command.h"
#include "network/analytical.h"
#include "scenario/flag_config.h"
#include "scenario/runner.h"
#include "topology/topology.h"
#include "train/model.h"
#include "train/models.h"
#include "train/reducer.h"
#include "train/trainer.h"
#include "workload/chakra_trace.h"
#include "workload/scheduler.h"
#include "workload/trainer_graph.h"

namespace commlab::cli {
namespace train_command {
namespace {

struct TrainOptions {
  std::string model = "mlp";
  std::string data = "fashion-mnist";
  std::string hidden;  // empty: the model's default (mlp 256, transformer width 64)
  std::string optimizer = "sgd";
  std::string decay = "constant";
  std::string gpu = "a100";
  std::string dump_gradients;
  std::string emit_trace;  // DIR: write the iteration as a Chakra trace, and replay it
  std::string dump_activations;
  std::string text_file;
  // Wide integers, so that any value reaches the scenario's range checks and their messages.
  long long ranks = 1;
  long long iterations = 200;
  long long batch = 64;
  long long eval_every = 50;
  long long eval_rows = 0;
  long long warmup = 0;
  long long threads = 0;
  long long max_train = 0;
  double lr = 0.05;
  double momentum = 0.9;
  double weight_decay = 0;
  double mfu = 0.4;
  double link_gbps = 100;
  uint64_t seed = 1;
  bool json = false;
};

// --hidden 512,256 as a list of integers; their range is the scenario's (workload.hidden).
nlohmann::json parse_widths(const std::string& s) {
  nlohmann::json out = nlohmann::json::array();
  if (s.empty()) return out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      size_t used = 0;
      const long long w = std::stoll(item, &used);
      if (used != item.size()) throw std::invalid_argument("");
      out.push_back(w);
    } catch (const std::exception&) {
      throw InvalidInput("--hidden: expected comma-separated positive widths, got '" + s + "'");
    }
  }
  return out;
}

// The scenario defaults with cluster.spec empty: run_config_from_flags makes it flat:<--ranks>.
RunConfig flat_cluster_base() {
  RunConfig base;
  base.cluster.spec.clear();
  return base;
}

// Every flag is the scenario field it stands for, checked by the same table and cross-field
// checks as a scenario (scenario/flag_config.h): the same limits and messages, naming the flag.
RunConfig train_config(const TrainOptions& o) {
  if (o.data == "text" && o.text_file.empty()) throw InvalidInput("--data: text needs --text FILE");
  const std::string dataset = o.data == "text" ? "text:" + o.text_file : o.data;
  check_flags({{"--threads", "threads", o.threads}, {"--link-gbps", "link_gbps", o.link_gbps}});
  return run_config_from_flags({{"--model", "workload.model", o.model},
                                {"--data", "workload.dataset", dataset},
                                {"--hidden", "workload.hidden", parse_widths(o.hidden)},
                                {"--max-train", "workload.max_train", o.max_train},
                                {"--ranks", "training.ranks", o.ranks},
                                {"--iterations", "training.iterations", o.iterations},
                                {"--batch", "training.global_batch", o.batch},
                                {"--eval-every", "training.eval_every", o.eval_every},
                                {"--eval-rows", "training.eval_rows", o.eval_rows},
                                {"--optimizer", "training.optimizer", o.optimizer},
                                {"--lr", "training.lr", o.lr},
                                {"--momentum", "training.momentum", o.momentum},
                                {"--weight-decay", "training.weight_decay", o.weight_decay},
                                {"--warmup", "training.warmup", o.warmup},
                                {"--decay", "training.decay", o.decay},
                                {"--gpu", "cluster.gpu", o.gpu},
                                {"--mfu", "cluster.mfu", o.mfu},
                                {"--seed", "seed", o.seed}},
                               flat_cluster_base());
}

int run_train(const TrainOptions& o) {
  const RunConfig config = train_config(o);
  std::shared_ptr<const TrainTest> data;
  try {
    data = load_run_data(config);
  } catch (const std::invalid_argument& e) {  // "workload.dataset: ..." names the flag here
    const std::string msg = e.what(), field = "workload.dataset: ";
    throw InvalidInput(msg.rfind(field, 0) == 0 ? "--data: " + msg.substr(field.size()) : msg);
  }
  Model model = make_model(o.model, data->train, config.workload.hidden);
  TrainerConfig c = trainer_config(config);
  c.threads = static_cast<int>(o.threads);
  ExactAverageReducer reducer(o.link_gbps, 2e-6);
  DataParallelTrainer trainer(std::move(model), data->train, data->test, c, reducer);
  if (!o.json) {
    std::printf("# model %s, %zu parameters, %zu buckets, %d ranks, batch %d, data %s\n",
                o.model.c_str(), trainer.replica(0).num_params(), trainer.buckets().size(),
                config.training.ranks, config.training.global_batch, o.data.c_str());
    std::printf("%8s %11s %10s %9s %12s %10s\n", "iter", "train_loss", "test_loss", "test_acc",
                "sim_time_s", "wall_s");
  }
  uint64_t bytes = 0;
  double last_acc = Sample::kNaN, last_test_loss = Sample::kNaN;
  Sample last = trainer.run([&](const Sample& s) {
    bytes += s.bytes_on_wire;
    if (!s.evaluated()) return;
    last_acc = s.test_accuracy;
    last_test_loss = s.test_loss;
    if (!o.json) {
      std::printf("%8d %11.5f %10.5f %9.4f %12.6f %10.3f\n", s.iteration, s.train_loss, s.test_loss,
                  s.test_accuracy, s.sim_time_s, s.wall_time_s);
      std::fflush(stdout);
    }
  });
  if (!o.dump_gradients.empty()) {
    // Raw little-endian FP32 (x86), all buckets concatenated in forward order.
    const std::vector<float> g = trainer.replica(0).flat_grads();
    std::ofstream out(o.dump_gradients, std::ios::binary);
    out.write(reinterpret_cast<const char*>(g.data()), static_cast<std::streamsize>(g.size() * 4));
    if (!out) throw std::runtime_error("cannot write " + o.dump_gradients);
    if (!o.json)
      std::printf("# wrote %zu FP32 gradients to %s\n", g.size(), o.dump_gradients.c_str());
  }
  if (!o.dump_activations.empty()) {
    // The trained replica's forward pass over `batch` test rows. Dumped: the input of every layer
    // with parameters but the first (post-ReLU for the MLP): the tensors a pipeline-parallel
    // stage boundary would carry, concatenated in layer order, raw little-endian FP32.
    Model& m = trainer.replica(0);
    const int rows = std::min(config.training.global_batch, data->test.rows());
    std::vector<int32_t> index(rows), labels;
    std::iota(index.begin(), index.end(), 0);
    Matrix x;
    gather_batch(data->test, index, x, labels);
    m.forward(x);
    std::ofstream out(o.dump_activations, std::ios::binary);
    size_t values = 0;
    const std::vector<int> with_params = m.bucket_layers();
    for (size_t k = 1; k < with_params.size(); ++k) {
      const Matrix& a = m.activation(static_cast<size_t>(with_params[k] - 1));
      out.write(reinterpret_cast<const char*>(a.data()),
                static_cast<std::streamsize>(a.size() * sizeof(float)));
      values += static_cast<size_t>(a.size());
    }
    if (!out) throw std::runtime_error("cannot write " + o.dump_activations);
    if (!o.json)
      std::printf("# wrote %zu FP32 activations to %s\n", values, o.dump_activations.c_str());
  }
  double replayed_s = -1;
  if (!o.emit_trace.empty()) {
    // The iteration as it ran (the trainer's compute durations, one FP32 all-reduce per bucket),
    // written as Chakra files, read back and replayed on the trainer's flat ring network (slicing
    // off: the reducer's alpha-beta ring), so the replay is checked against the trainer itself.
    const std::string name = "train-" + o.model;
    workload::write_chakra_trace(workload::trainer_graph(trainer, 4, name), o.emit_trace, name);
    const workload::Graph back = workload::read_chakra_trace(o.emit_trace + "/" + name);
    AnalyticalBackend net(make_flat(config.training.ranks, o.link_gbps * 1e9 / 8, 2e-6));
    workload::SchedulerOptions so;
    so.pipeline = PipelineConfig{0, 0};
    so.timeline_ranks = {};
    replayed_s = workload::schedule(back, net, so).iteration_s;
    if (!o.json)
      std::printf(
          "# wrote %s/%s.*.et (%llu nodes); replayed: %.9f s per iteration, trainer %.9f s\n",
          o.emit_trace.c_str(), name.c_str(), static_cast<unsigned long long>(back.node_count()),
          replayed_s, last.iteration > 0 ? last.sim_time_s / last.iteration : 0.0);
  }
  if (o.json) {
    nlohmann::json j;
    if (replayed_s >= 0) j["trace_replay_iteration_s"] = replayed_s;
    j["model"] = o.model;
    j["data"] = o.data;
    j["ranks"] = config.training.ranks;
    j["params"] = trainer.replica(0).num_params();
    j["iterations"] = last.iteration;
    j["final_train_loss"] = last.train_loss;
    j["final_test_loss"] = last_test_loss;
    j["final_test_accuracy"] = last_acc;
    j["sim_time_s"] = last.sim_time_s;
    j["wall_time_s"] = last.wall_time_s;
    j["bytes_on_wire"] = bytes;
    j["divergence"] = last.divergence;
    std::cout << j.dump() << "\n";
  }
  return kExitOk;
}

Command make_command() {
  auto opts = std::make_shared<TrainOptions>();
  return Command{
      "train", "Data-parallel training of a real model with the exact all-reduce",
      [opts](CLI::App& app) -> std::function<int()> {
        app.add_option("--model", opts->model, "mlp | cnn | transformer")
            ->check(CLI::IsMember({"mlp", "cnn", "transformer"}));
        app.add_option("--data", opts->data,
                       "fashion-mnist | spiral | circles | blobs | xor | text (with --text FILE)");
        app.add_option("--text", opts->text_file, "text file for --data text");
        app.add_option(
            "--hidden", opts->hidden,
            "MLP hidden widths (default 256), e.g. 512,256; transformer: width (default 64)");
        // Limits: the scenario's (train_config); --help lists them in docs/scenario.md's terms.
        app.add_option("--ranks", opts->ranks, "data-parallel ranks (1-256)");
        app.add_option("--iterations", opts->iterations, "iterations (1-10^7)");
        app.add_option("--batch", opts->batch, "global batch (a multiple of --ranks)");
        app.add_option("--lr", opts->lr, "peak learning rate (0-100]");
        app.add_option("--optimizer", opts->optimizer, "sgd | adamw");
        app.add_option("--momentum", opts->momentum, "SGD momentum, or AdamW beta1 [0, 1]");
        app.add_option("--weight-decay", opts->weight_decay, "weight decay");
        app.add_option("--warmup", opts->warmup, "linear warm-up iterations");
        app.add_option("--decay", opts->decay, "constant | cosine | step");
        app.add_option("--eval-every", opts->eval_every, "test evaluation every k iterations");
        app.add_option("--eval-rows", opts->eval_rows, "test rows per evaluation (0: all)");
        app.add_option("--max-train", opts->max_train, "use only the first rows of the train set");
        app.add_option("--gpu", opts->gpu, "GPU preset for simulated compute: a100|h100|h200|b200");
        app.add_option("--mfu", opts->mfu, "model FLOPs utilisation (0, 1]");
        app.add_option("--link-gbps", opts->link_gbps,
                       "ring link bandwidth for simulated comm, Gb/s (0, 10^6]");
        app.add_option("--seed", opts->seed, "seed (init and data order)");
        app.add_option("--threads", opts->threads,
                       "OpenMP threads, at most 256 (0: one per core; never changes results)");
        app.add_option("--dump-activations", opts->dump_activations,
                       "after training, write the activations entering each parametrised layer "
                       "but the first, on --batch test rows (raw FP32), to this file");
        app.add_option("--dump-gradients", opts->dump_gradients,
                       "write rank 0's last gradient (raw little-endian FP32, all layers) to FILE");
        app.add_option(
            "--emit-trace", opts->emit_trace,
            "after training, write one iteration as Chakra traces DIR/train-MODEL.RANK.et "
            "and replay them");
        app.add_flag("--json", opts->json, "one JSON summary on stdout");
        return [opts] { return run_train(*opts); };
      }};
}

RegisterCommand reg{make_command()};

}  // namespace
}  // namespace train_command
}  // namespace commlab::cli
