#include "scenario/run/run_engine.h"

#include <optional>
#include <stdexcept>

#include "exec/mpi_runtime.h"
#include "exec/runs/rank_trainer.h"
#include "io/status.h"
#include "network/analytical.h"
#include "network/packet_backend.h"
#include "scenario/run/catalog_run.h"
#include "scenario/run/collective_reducer.h"
#include "scenario/run/compressed_reducer.h"
#include "scenario/run/network_probe.h"
#include "scenario/run/proxy_timer.h"
#include "scenario/runner.h"
#include "scenario/scenario.h"
#include "topology/presets.h"
#include "train/data/sampler.h"
#include "train/models.h"

namespace commlab {
namespace {

std::unique_ptr<NetworkBackend> make_run_backend(const RunConfig& c) {
  Topology topo = cluster_from_spec(c.cluster.spec);
  if (topo.ranks() < c.training.ranks)
    throw ConfigError("cluster.spec",
                      "'" + c.cluster.spec + "' has " + std::to_string(topo.ranks()) +
                          " GPUs, training.ranks asks for " + std::to_string(c.training.ranks));
  if (c.cluster.backend == ClusterBackend::kAnalytical)
    return std::make_unique<AnalyticalBackend>(std::move(topo));
  PacketConfig pc;
  pc.mtu_bytes = c.packet.mtu;
  pc.queue_packets = c.packet.queue_packets;
  pc.admission = c.packet.admission;
  pc.transport = c.packet.transport;
  pc.trim_bytes = effective_trim_bytes(c);    // 0: the whole head (scenario.h)
  pc.trim_level_bytes = trim_level_bytes(c);  // multi-level heads in queue mode
  pc.seed = c.seed;
  pc.sample_interval_s = kNetworkSampleInterval_s;  // for Sample::network (charts)
  auto backend = std::make_unique<PacketBackend>(std::move(topo), pc);
  if (c.packet.background != "none") {
    backend->add_background(background_traffic(c.packet));
  }
  return backend;
}

// What the real collective runs: the scenario's plan and codec, from a reducer of its own (codecs
// keep per-transfer state, which must not mix with the shadow's).
class ScenarioCollective final : public exec::BucketCollective {
 public:
  ScenarioCollective(const RunConfig& c, NetworkBackend& backend)
      : reducer_(c, backend), ranks_(c.training.ranks), seed_(c.seed) {
    const TechniquesConfig& t = c.techniques;
    if (t.topk.enabled) compression_.kind = exec::CompressionSpec::Kind::kTopK;
    if (t.powersgd.enabled) compression_.kind = exec::CompressionSpec::Kind::kPowerSgd;
    compression_.topk_fraction = t.topk.fraction;
    compression_.powersgd_rank = t.powersgd.rank;
    compression_.wire = c.collective.wire;
    compression_.seed = c.seed;
  }
  Plan plan(int iteration, const BucketInfo& bucket) override {
    return reducer_.plan_for(iteration, bucket, ranks_);
  }
  TransferCodec* codec() override { return reducer_.codec(); }
  double trim_rate() const override { return reducer_.trim_rate(); }
  uint64_t trim_seed() const override { return seed_; }
  exec::CompressionSpec compression() const override { return compression_; }

 private:
  CollectiveReducer reducer_;
  int ranks_;
  uint64_t seed_;
  exec::CompressionSpec compression_;  // techniques.topk or powersgd (CompressedReducer checked it)
};

// What a training run builds before its first iteration, in the order the checks run. The engines
// keep the parts; check_run_engine_parts builds and drops them, so validate refuses exactly what
// run would refuse before training starts.
struct TrainParts {
  std::unique_ptr<NetworkBackend> backend;
  std::shared_ptr<const TrainTest> data;
  std::optional<Model> model;
  std::unique_ptr<CollectiveReducer> reducer;
  std::unique_ptr<CompressedReducer> compressed;  // techniques.topk or powersgd: trains instead
};

TrainParts build_train_parts(const RunConfig& config) {
  TrainParts p;
  p.backend = make_run_backend(config);
  p.data = load_run_data(config);
  // The shards each rank trains on depend on the data (a non-iid rank may be left without rows):
  // built here as the trainer builds them, so validate refuses what the run would.
  ShardSampler(p.data->train,
               SamplerConfig{config.training.ranks, config.training.global_batch, config.seed,
                             Sharding{config.training.sharding, config.training.sharding_alpha}});
  p.model.emplace(make_model(config.workload.model, p.data->train, config.workload.hidden));
  p.reducer = std::make_unique<CollectiveReducer>(config, *p.backend);
  if (uses_compression_baseline(config))
    p.compressed = std::make_unique<CompressedReducer>(config, *p.backend);
  if (!config.workload.time_as.empty()) ProxyTimer(config, *p.backend, *p.reducer);  // its checks
  return p;
}

// The checks of the execution mode; `mpi` null in validate (not launched by mpirun).
void check_execution(const RunConfig& config, const exec::MpiRuntime* mpi, bool validating) {
  const bool real = config.execution == ExecutionMode::kMpi;
  if (real && !mpi && !validating) throw bad_input("execution: mpi: " + exec::launch_hint("run"));
  if (real && config.workload.kind != WorkloadKind::kTrain)
    throw bad_input("execution: mpi trains real replicas; workload.kind " +
                    enum_name(config.workload.kind) + " has none (use simulated)");
  if (real && config.techniques.trimming.enabled &&
      config.techniques.trimming.mode == TrimMode::kQueue)
    throw bad_input(
        "execution: mpi cuts trimmed packets with Bernoulli draws; techniques.trimming.mode "
        "queue needs the packet backend's queues (use bernoulli, or execution simulated)");
}

// Everything but catalog runs trains: the parts both training engines keep.
struct TrainingParts {
  std::unique_ptr<NetworkBackend> backend;
  std::shared_ptr<const TrainTest> data;
  std::unique_ptr<CollectiveReducer> reducer;
  std::unique_ptr<CompressedReducer> compressed;  // techniques.topk or powersgd
  std::unique_ptr<NetworkProbe> probe;

  explicit TrainingParts(TrainParts& p)
      : backend(std::move(p.backend)),
        data(std::move(p.data)),
        reducer(std::move(p.reducer)),
        compressed(std::move(p.compressed)),
        probe(std::make_unique<NetworkProbe>(*backend)) {}
  // The reducer the trainer sends its buckets through.
  GradientReducer& gradient_reducer() {
    return compressed ? static_cast<GradientReducer&>(*compressed) : *reducer;
  }
  ReducerTotals totals() const { return compressed ? compressed->totals() : reducer->totals(); }
};

std::vector<std::string> names_of(const std::vector<BucketInfo>& buckets) {
  std::vector<std::string> names;
  for (const BucketInfo& b : buckets) names.push_back(b.name);
  return names;
}

// The summary fields every training engine fills the same way.
void summarize_training(RunSummary& s, const ReducerTotals& t, const Sample& last,
                        double last_accuracy) {
  s.bytes_on_wire = t.bytes_on_wire;
  s.mean_ratio = t.wire_reference_bytes ? static_cast<double>(t.bytes_on_wire) /
                                              static_cast<double>(t.wire_reference_bytes)
                                        : 1.0;
  s.effective_bits = t.coordinates ? t.info_bits / static_cast<double>(t.coordinates) : 0.0;
  s.trimmed_packets = t.trimmed_packets;
  s.skipped_steps = t.skipped_steps;
  if (s.iterations > 0) {
    s.sim_time_s = last.sim_time_s;
    s.final_train_loss = last.train_loss;
    s.final_test_accuracy = last_accuracy;
  }
}

// Every rank in this process (execution simulated).
class SimulatedEngine final : public RunEngine {
 public:
  SimulatedEngine(const RunConfig& config, TrainParts p) : parts_(p) {
    if (!config.workload.time_as.empty())
      proxy_ = std::make_unique<ProxyTimer>(config, *parts_.backend, *parts_.reducer);
    trainer_ = std::make_unique<DataParallelTrainer>(std::move(*p.model), parts_.data->train,
                                                     parts_.data->test, trainer_config(config),
                                                     parts_.gradient_reducer());
  }
  int iteration() const override { return trainer_->iteration(); }
  Sample step() override {
    Sample s = trainer_->step();
    if (proxy_) proxy_->retime(s);
    s.network = parts_.probe->take();
    return s;
  }
  std::vector<std::string> bucket_names() const override { return names_of(trainer_->buckets()); }
  void summarize(RunSummary& s, const Sample& last, double last_accuracy) const override {
    if (proxy_) s.timed_as = proxy_->model().display;
    ReducerTotals t = parent_totals_;
    t.add(parts_.totals());
    summarize_training(s, t, last, last_accuracy);
  }
  const DataParallelTrainer* trainer() const override { return trainer_.get(); }
  void continue_from(const RunEngine& parent) override {
    const auto* p = dynamic_cast<const SimulatedEngine*>(&parent);
    if (!p) return RunEngine::continue_from(parent);  // refuses: only these runs fork
    trainer_->continue_from(*p->trainer_);
    parent_totals_ = p->parent_totals_;
    parent_totals_.add(p->parts_.totals());
  }

 private:
  TrainingParts parts_;
  std::unique_ptr<ProxyTimer> proxy_;  // workload.time_as: the time plane of another model
  std::unique_ptr<DataParallelTrainer> trainer_;
  ReducerTotals parent_totals_;  // a fork: what the run it forks from sent up to the fork point
};

// This process's rank of an MPI run (execution mpi): real collectives, and on rank 0 the
// simulated reducer as the shadow that gives the time plane.
class MpiRankEngine final : public RunEngine {
 public:
  MpiRankEngine(const RunConfig& config, TrainParts p, const exec::MpiRuntime& mpi)
      : parts_(p), real_(std::make_unique<ScenarioCollective>(config, *parts_.backend)) {
    trainer_ = std::make_unique<exec::RankTrainer>(mpi, std::move(*p.model), parts_.data->train,
                                                   parts_.data->test, trainer_config(config),
                                                   *real_, &parts_.gradient_reducer());
  }
  int iteration() const override { return trainer_->iteration(); }
  Sample step() override {
    Sample s = trainer_->step();
    s.network = parts_.probe->take();
    return s;
  }
  std::vector<std::string> bucket_names() const override { return names_of(trainer_->buckets()); }
  void summarize(RunSummary& s, const Sample& last, double last_accuracy) const override {
    summarize_training(s, parts_.totals(), last, last_accuracy);
  }
  MpiRunStats mpi_stats() const override {
    MpiRunStats s;
    const exec::MeasuredSplit& m = trainer_->measured();
    s.compute_s = m.compute_s;
    s.comm_s = m.comm_s;
    s.codec_s = m.codec_s;
    s.wall_s = m.wall_s;
    s.mismatched_buckets = trainer_->mismatched_buckets();
    s.bytes_sent = m.bytes_sent;
    return s;
  }

 private:
  TrainingParts parts_;
  std::unique_ptr<ScenarioCollective> real_;
  std::unique_ptr<exec::RankTrainer> trainer_;
};

// A catalog or trace workload: its time plane per iteration, nothing trained.
class CatalogEngine final : public RunEngine {
 public:
  explicit CatalogEngine(const RunConfig& config) : catalog_(config) {}
  int iteration() const override { return iterations_; }
  Sample step() override { return catalog_.sample(++iterations_); }
  std::vector<std::string> bucket_names() const override { return {}; }
  void summarize(RunSummary& s, const Sample& last, double) const override {
    s.mean_ratio = catalog_.ratio();
    s.effective_bits = 16.0 * catalog_.ratio();
    // SkipReduce skips `skip` steps of every DP reduce-scatter of every iteration.
    for (const MessageTiming& msg : catalog_.timing().messages)
      if (msg.kind == MessageKind::kDpReduceScatter)
        s.skipped_steps += static_cast<uint64_t>(catalog_.skip()) *
                           static_cast<uint64_t>(msg.count) * s.iterations;
    s.final_train_loss = Sample::kNaN;
    s.final_test_accuracy = Sample::kNaN;
    s.sim_time_s = last.sim_time_s;
  }

 private:
  CatalogRun catalog_;
  int iterations_ = 0;
};

}  // namespace

MpiRunStats RunEngine::mpi_stats() const {
  return {};
}

void RunEngine::continue_from(const RunEngine&) {
  throw bad_input(
      "only a simulated training run can be forked (execution simulated, "
      "workload.kind train)");
}

std::unique_ptr<RunEngine> make_run_engine(const RunConfig& config, const exec::MpiRuntime* mpi) {
  check_execution(config, mpi, false);
  if (config.workload.kind != WorkloadKind::kTrain)  // catalog or trace: time plane only
    return std::make_unique<CatalogEngine>(config);
  TrainParts parts = build_train_parts(config);
  if (config.execution == ExecutionMode::kMpi)
    return std::make_unique<MpiRankEngine>(config, std::move(parts), *mpi);
  return std::make_unique<SimulatedEngine>(config, std::move(parts));
}

void check_run_engine_parts(const RunConfig& config) {
  check_execution(config, nullptr, true);
  if (config.workload.kind == WorkloadKind::kTrain) build_train_parts(config);
}

}  // namespace commlab
