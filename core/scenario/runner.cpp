#include "scenario/runner.h"

#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "exec/mpi_runtime.h"
#include "exec/runs/rank_trainer.h"
#include "network/analytical.h"
#include "network/packet_backend.h"
#include "scenario/run/catalog_run.h"
#include "scenario/run/collective_reducer.h"
#include "scenario/run/compressed_reducer.h"
#include "scenario/run/fork.h"
#include "scenario/run/network_probe.h"
#include "scenario/run/proxy_timer.h"
#include "scenario/run/tta_stats.h"
#include "scenario/scenario.h"
#include "topology/presets.h"
#include "train/data/sampler.h"
#include "train/data/synthetic.h"
#include "train/models.h"
#include "train/sample_store.h"

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

}  // namespace

namespace {

// What a training run builds before its first iteration, in the order the checks run. RunSession
// keeps the parts; check_run_startable builds and drops them, so validate refuses exactly what
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
  if (real && !mpi && !validating)
    throw std::invalid_argument("execution: mpi: " + exec::launch_hint("run"));
  if (real && config.workload.kind != WorkloadKind::kTrain)
    throw std::invalid_argument("execution: mpi trains real replicas; workload.kind " +
                                enum_name(config.workload.kind) + " has none (use simulated)");
  if (real && config.techniques.trimming.enabled &&
      config.techniques.trimming.mode == TrimMode::kQueue)
    throw std::invalid_argument(
        "execution: mpi cuts trimmed packets with Bernoulli draws; techniques.trimming.mode "
        "queue needs the packet backend's queues (use bernoulli, or execution simulated)");
}

}  // namespace

std::optional<ConfigProblem> check_run_startable(const RunConfig& config) {
  try {
    check_execution(config, nullptr, true);
    if (config.workload.kind == WorkloadKind::kTrain) build_train_parts(config);
  } catch (const std::invalid_argument& e) {
    return problem_of(e);
  } catch (const std::runtime_error& e) {
    return problem_of(e);
  }
  return std::nullopt;
}

TrainerConfig trainer_config(const RunConfig& c) {
  TrainerConfig tc;
  tc.ranks = c.training.ranks;
  tc.iterations = c.training.iterations;
  tc.global_batch = c.training.global_batch;
  tc.eval_every = c.training.eval_every;
  tc.eval_every_far = c.training.eval_every_far;
  tc.eval_fine_from = c.training.target_accuracy - c.training.eval_fine_margin;
  tc.eval_fine_until =
      c.training.eval_fine_until > 0 ? c.training.eval_fine_until : c.training.target_accuracy;
  tc.eval_window = c.training.tta_window;
  tc.eval_rows = c.training.eval_rows;
  tc.sharding.mode = c.training.sharding;
  tc.sharding.alpha = c.training.sharding_alpha;
  tc.seed = c.seed;
  tc.optimizer.kind = c.training.optimizer;
  tc.optimizer.lr = c.training.lr * skipreduce_lr_factor(c);
  tc.optimizer.momentum = c.training.momentum;
  tc.optimizer.weight_decay = c.training.weight_decay;
  tc.schedule.warmup_iterations = c.training.warmup;
  tc.schedule.decay = c.training.decay;
  tc.schedule.total_iterations = c.training.iterations;
  tc.schedule.step_every = std::max(1, c.training.iterations / 3);
  tc.compute.gpu = gpu_preset(c.cluster.gpu);
  tc.compute.mfu = c.cluster.mfu;
  return tc;
}

struct RunSession::Impl {
  RunConfig config;
  std::shared_ptr<const TrainTest> data;
  std::unique_ptr<NetworkBackend> backend;
  std::unique_ptr<CollectiveReducer> reducer;
  std::unique_ptr<CompressedReducer> compressed;  // techniques.topk or powersgd
  std::unique_ptr<DataParallelTrainer> trainer;
  std::unique_ptr<ScenarioCollective> real;         // execution mpi
  std::unique_ptr<exec::RankTrainer> rank_trainer;  // execution mpi: this process's rank
  std::unique_ptr<NetworkProbe> probe;
  std::unique_ptr<ProxyTimer> proxy;    // workload.time_as: the time plane of another model
  std::unique_ptr<CatalogRun> catalog;  // workload.kind catalog: time plane only
  int catalog_iterations = 0;           // completed (catalog runs)
  SampleStore samples;                  // thinned when a budget is set (set_sample_budget)
  Sample last;                          // the latest sample, kept or not
  double last_accuracy = 0;             // test accuracy of the latest evaluated sample
  std::vector<EvalPoint> evals;         // every evaluation, for the time-to-accuracy crossing
  double wall_s = 0;
  ReducerTotals parent_totals;  // a fork: what the run it forks from sent up to the fork point
};

namespace {

const RunConfig& forkable(const RunConfig& config, const RunSession& parent) {
  const std::string problem = fork_problem(parent.config(), config);
  if (!problem.empty()) throw std::invalid_argument(problem);
  return config;
}

}  // namespace

RunSession::RunSession(const RunConfig& config) : RunSession(config, nullptr) {}

RunSession::RunSession(const RunConfig& config, const exec::MpiRuntime* mpi)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  check_execution(config, mpi, false);
  const bool real = config.execution == ExecutionMode::kMpi;
  m.config = config;
  if (config.workload.kind != WorkloadKind::kTrain) {  // catalog or trace: time plane only
    m.catalog = std::make_unique<CatalogRun>(config);
    return;
  }
  TrainParts parts = build_train_parts(config);
  m.backend = std::move(parts.backend);
  m.data = std::move(parts.data);
  Model model = std::move(*parts.model);
  m.reducer = std::move(parts.reducer);
  m.compressed = std::move(parts.compressed);
  m.probe = std::make_unique<NetworkProbe>(*m.backend);

  const TrainerConfig tc = trainer_config(config);
  if (real) {
    m.real = std::make_unique<ScenarioCollective>(config, *m.backend);
    m.rank_trainer = std::make_unique<exec::RankTrainer>(
        *mpi, std::move(model), m.data->train, m.data->test, tc, *m.real,
        m.compressed ? static_cast<GradientReducer*>(m.compressed.get()) : m.reducer.get());
    return;
  }
  if (!config.workload.time_as.empty())
    m.proxy = std::make_unique<ProxyTimer>(config, *m.backend, *m.reducer);
  GradientReducer& reducer =
      m.compressed ? static_cast<GradientReducer&>(*m.compressed) : *m.reducer;
  m.trainer = std::make_unique<DataParallelTrainer>(std::move(model), m.data->train, m.data->test,
                                                    tc, reducer);
}

RunSession::RunSession(const RunConfig& config, const RunSession& parent)
    : RunSession(forkable(config, parent), nullptr) {
  Impl& m = *impl_;
  const Impl& p = *parent.impl_;
  m.trainer->continue_from(*p.trainer);
  m.samples = p.samples;
  m.last = p.last;
  m.last_accuracy = p.last_accuracy;
  m.evals = p.evals;
  m.wall_s = p.wall_s;
  m.parent_totals = p.parent_totals;
  m.parent_totals.add(p.compressed ? p.compressed->totals() : p.reducer->totals());
}

RunSession::~RunSession() = default;

const RunConfig& RunSession::config() const {
  return impl_->config;
}

int RunSession::iteration() const {
  if (impl_->rank_trainer) return impl_->rank_trainer->iteration();
  return impl_->catalog ? impl_->catalog_iterations : impl_->trainer->iteration();
}

bool RunSession::done() const {
  return iteration() >= impl_->config.training.iterations;
}

const Sample& RunSession::step() {
  Impl& m = *impl_;
  if (done()) throw std::logic_error("RunSession::step after the last iteration");
  auto t0 = std::chrono::steady_clock::now();
  Sample s = m.catalog        ? m.catalog->sample(++m.catalog_iterations)
             : m.rank_trainer ? m.rank_trainer->step()
                              : m.trainer->step();
  if (m.proxy) m.proxy->retime(s);
  m.wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.wall_time_s = m.wall_s;
  if (m.probe) s.network = m.probe->take();
  if (s.evaluated()) {
    m.last_accuracy = s.test_accuracy;
    m.evals.push_back({s.iteration, s.sim_time_s, s.test_accuracy});
  }
  m.last = std::move(s);
  m.samples.add(m.last);
  return m.last;
}

void RunSession::set_sample_budget(size_t max_kept) {
  impl_->samples.set_budget(max_kept);
}

void RunSession::run(const SampleObserver& observer, const std::atomic<bool>* cancel) {
  while (!done() && !(cancel && cancel->load())) {
    const Sample& s = step();
    if (observer) observer(s);
  }
}

const std::vector<Sample>& RunSession::samples() const {
  return impl_->samples.samples();
}

RunSummary RunSession::summary() const {
  const Impl& m = *impl_;
  RunSummary s;
  s.name = m.config.name;
  s.iterations = iteration();
  s.wall_time_s = m.wall_s;
  s.seed = m.config.seed;
  if (m.proxy) s.timed_as = m.proxy->model().display;
  // Time-to-accuracy on the smoothed curve, so one lucky evaluation does not decide it.
  s.tta_window = m.config.training.tta_window;
  const SmoothedCrossing c = tta_crossing(m.evals, m.config.training.target_accuracy, s.tta_window);
  if (c.reached) {
    s.time_to_accuracy_s = c.time_s;
    s.iterations_to_accuracy = static_cast<int>(std::ceil(c.iterations - 1e-9));
  }
  if (m.catalog) {
    s.mean_ratio = m.catalog->ratio();
    s.effective_bits = 16.0 * m.catalog->ratio();
    // SkipReduce skips `skip` steps of every DP reduce-scatter of every iteration.
    for (const MessageTiming& msg : m.catalog->timing().messages)
      if (msg.kind == MessageKind::kDpReduceScatter)
        s.skipped_steps += static_cast<uint64_t>(m.catalog->skip()) *
                           static_cast<uint64_t>(msg.count) * s.iterations;
    s.final_train_loss = Sample::kNaN;
    s.final_test_accuracy = Sample::kNaN;
    s.sim_time_s = m.last.sim_time_s;
    return s;
  }
  ReducerTotals t = m.parent_totals;
  t.add(m.compressed ? m.compressed->totals() : m.reducer->totals());
  s.bytes_on_wire = t.bytes_on_wire;
  s.mean_ratio = t.wire_reference_bytes ? static_cast<double>(t.bytes_on_wire) /
                                              static_cast<double>(t.wire_reference_bytes)
                                        : 1.0;
  s.effective_bits = t.coordinates ? t.info_bits / static_cast<double>(t.coordinates) : 0.0;
  s.trimmed_packets = t.trimmed_packets;
  s.skipped_steps = t.skipped_steps;
  if (s.iterations > 0) {
    s.sim_time_s = m.last.sim_time_s;
    s.final_train_loss = m.last.train_loss;
    s.final_test_accuracy = m.last_accuracy;
  }
  return s;
}

const DataParallelTrainer* RunSession::trainer() const {
  return impl_->trainer.get();
}

std::vector<std::string> RunSession::bucket_names() const {
  std::vector<std::string> names;
  const std::vector<BucketInfo>* buckets = impl_->trainer        ? &impl_->trainer->buckets()
                                           : impl_->rank_trainer ? &impl_->rank_trainer->buckets()
                                                                 : nullptr;
  if (!buckets) return names;  // catalog runs have no gradient buckets
  for (const BucketInfo& b : *buckets) names.push_back(b.name);
  return names;
}

MpiRunStats RunSession::mpi_stats() const {
  MpiRunStats s;
  if (!impl_->rank_trainer) return s;
  const exec::MeasuredSplit& m = impl_->rank_trainer->measured();
  s.compute_s = m.compute_s;
  s.comm_s = m.comm_s;
  s.codec_s = m.codec_s;
  s.wall_s = m.wall_s;
  s.mismatched_buckets = impl_->rank_trainer->mismatched_buckets();
  s.bytes_sent = m.bytes_sent;
  return s;
}

}  // namespace commlab
