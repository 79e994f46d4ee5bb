// Cross-field checks of one resolved run: combinations each field allows on its own but the engine
// cannot run (SkipReduce on a tree, queue trimming without queues, a batch that does not split).
#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>

#include "codec/codec.h"
#include "codec/lossy/trim_format.h"
#include "collective/algorithms.h"
#include "collective/collective_settings.h"
#include "io/status.h"
#include "network/packet_config.h"
#include "scenario/scenario.h"
#include "scenario/scenario_internal.h"
#include "scenario/schema.h"
#include "topology/builders.h"
#include "topology/params.h"
#include "topology/presets.h"

namespace commlab {
namespace {

std::string str(long long v) {
  return std::to_string(v);
}

// The trim codec of a run's full packet (packet.mtu of payload), as collective_reducer builds it.
trim::TrimConfig trim_config_of(const RunConfig& c) {
  trim::TrimConfig tc;
  tc.encoding = c.techniques.trimming.encoding;
  tc.head_bits = c.techniques.trimming.head_bits;
  tc.payload_bytes = c.packet.mtu;
  tc.wire = c.collective.wire;
  return tc;
}

constexpr long long kMaxClusterFileBytes = 64 << 20;

// GPU count a builder spec asks for, read without building it, so that "flat:1000000" is refused
// before a million-GPU graph is allocated. 0 when the spec is not a builder this knows.
long long requested_gpus(const std::string& spec) {
  std::string name = spec.substr(0, spec.find(':'));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  std::string args = spec.find(':') == std::string::npos ? "" : spec.substr(spec.find(':') + 1);
  try {
    Params p = Params::parse("", args, name == "flat" ? "ranks" : "");
    if (name == "flat") return p.get_int("ranks", 8, 1, 1 << 20);
    if (name == "leafspine" || name == "leaf-spine" || name == "rail" || name == "rail-optimized") {
      LeafSpineParams l;
      return static_cast<long long>(p.get_int("servers", l.servers, 1, 1 << 20)) *
             p.get_int("gpus_per_server", l.gpus_per_server, 1, 64);
    }
  } catch (const std::invalid_argument&) {
    // cluster_from_spec reports it with the full message.
  }
  return 0;
}

// Input width of a trained data set (fashion-mnist images, 2-D synthetic points, text windows).
long long input_width(const std::string& dataset) {
  if (dataset == "fashion-mnist") return 28 * 28;
  return dataset.rfind("text:", 0) == 0 ? 32 : 2;
}

// The hidden widths the model is built with: an empty list is the model's default (mlp 256,
// transformer width 64), which the memory estimates must count too.
std::vector<int> hidden_widths(const RunConfig& c) {
  if (!c.workload.hidden.empty()) return c.workload.hidden;
  return {c.workload.model == "transformer" ? 64 : 256};
}

// Parameters of one replica, from the shapes alone (a hidden list of 65536-wide layers must be
// refused before make_model allocates terabytes). CNN shapes are fixed and small.
long long model_params(const RunConfig& c) {
  const std::vector<int> h = hidden_widths(c);
  if (c.workload.model == "transformer") {
    const long long dim = h[0];
    return 2 * 12 * dim * dim + 2 * 256 * dim;  // two blocks of ~12 d^2, embedding and head
  }
  if (c.workload.model != "mlp") return 0;
  long long params = 0, in = input_width(c.workload.dataset);
  for (int width : h) params += (in + 1) * width, in = width;
  return params + (in + 1) * 10;
}

// Training rows a run will load, or -1 when only loading tells (text).
long long training_rows(const RunConfig& c) {
  const std::string& d = c.workload.dataset;
  if (d.rfind("text:", 0) == 0) return -1;
  const long long full = d == "fashion-mnist" ? 60000 : 2000;  // synthetic: SyntheticConfig
  return c.workload.max_train > 0 ? std::min<long long>(c.workload.max_train, full) : full;
}

// training.sharding needs what the sampler (train/data/sampler.h) needs: non-iid one label per
// row, shard a micro-batch per rank in an epoch. Empty non-iid shards depend on the draw and are
// reported when the run starts.
std::vector<std::pair<const char*, std::string>> sharding_problems(const RunConfig& c) {
  std::vector<std::pair<const char*, std::string>> out;
  const auto& t = c.training;
  if (t.sharding == ShardingMode::kNonIid && c.workload.dataset.rfind("text:", 0) == 0)
    out.emplace_back("training.sharding",
                     "non-iid splits classes over the ranks and needs a classification data set, "
                     "not text");
  const long long rows = training_rows(c);
  if (t.sharding == ShardingMode::kShard && t.ranks > 0 && rows >= 0 &&
      t.global_batch % t.ranks == 0 && rows / t.ranks < t.global_batch / t.ranks)
    out.emplace_back("training.sharding", "shard: " + str(rows) + " training rows over " +
                                              str(t.ranks) + " ranks leave " + str(rows / t.ranks) +
                                              " per rank, less than one micro-batch of " +
                                              str(t.global_batch / t.ranks) +
                                              " (use more rows, fewer ranks or a smaller batch)");
  return out;
}

}  // namespace

TrafficSpec background_traffic(const PacketSection& packet) {
  const bool onoff = packet.background == "onoff";
  if (packet.background.rfind("onoff:", 0) == 0)
    throw bad_input("'" + packet.background + "': write onoff; its load is packet.background_load");
  TrafficSpec spec = parse_pattern(onoff ? "onoff:1" : packet.background);
  if (onoff && !(packet.background_load > 0))
    throw bad_input("onoff needs packet.background_load above 0, got " +
                    limit_text(packet.background_load));
  spec.load = packet.background_load;
  return spec;
}

ClusterInfo ClusterCache::lookup(const std::string& spec) {
  auto it = cache_.find(spec);
  if (it != cache_.end()) return it->second;
  ClusterInfo info;
  long long want = requested_gpus(spec);
  std::error_code ec;
  std::string lower = spec;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return std::tolower(ch); });
  const bool is_file = lower.ends_with(".json") || spec.find('/') != std::string::npos;
  if (is_file && (!std::filesystem::is_regular_file(spec, ec) ||
                  std::filesystem::file_size(spec, ec) > kMaxClusterFileBytes)) {
    // A FIFO or device would block or never end; a huge file would be read whole.
    info.error =
        std::filesystem::is_regular_file(spec, ec)
            ? "cluster file '" + spec + "' is larger than " + str(kMaxClusterFileBytes) + " bytes"
            : "cluster file '" + spec + "' does not exist or is not a regular file";
  } else if (want > kMaxRanks) {
    info.error = "cluster has " + str(want) + " GPUs, at most " + str(kMaxRanks);
  } else {
    try {
      Topology t = cluster_from_spec(spec);
      info.gpus = t.ranks();
      if (info.gpus > kMaxRanks)
        info.error = "cluster has " + str(info.gpus) + " GPUs, at most " + str(kMaxRanks);
    } catch (const std::exception& e) {
      info.error = e.what();
    }
  }
  if (cache_.size() < 64) cache_.emplace(spec, info);
  return info;
}

namespace {

// The problems of one run, each rule adding the field it refuses (a JSON path) and why.
struct RunProblems {
  ConfigProblems list;
  void add(const std::string& path, std::string message) {
    list.push_back({ErrorCode::kBadInput, path, std::move(message)});
  }
};

bool trains(const RunConfig& c) {
  return c.workload.kind == WorkloadKind::kTrain;
}

// cluster, training.ranks and the trained model's sizes.
void check_cluster_and_sizes(const RunConfig& c, ClusterCache& cache, RunProblems& p) {
  const auto& t = c.training;
  const bool train = trains(c);
  ClusterInfo cluster = cache.lookup(c.cluster.spec);
  if (!cluster.error.empty())
    p.add("cluster.spec", cluster.error);
  else if (cluster.gpus != t.ranks)
    p.add("training.ranks", "is " + str(t.ranks) + " but cluster.spec '" + c.cluster.spec +
                                "' has " + str(cluster.gpus) +
                                " GPUs (omit one of them to take the other's)");
  if (train && t.ranks > kMaxTrainingRanks)
    p.add("training.ranks", "training runs (workload.kind train) support at most " +
                                str(kMaxTrainingRanks) + " ranks, got " + str(t.ranks));
  if (train && t.global_batch % t.ranks != 0)
    p.add("training.global_batch", "must be a multiple of training.ranks (" + str(t.ranks) +
                                       "), got " + str(t.global_batch));
  if (!train || t.ranks > kMaxTrainingRanks) return;
  const long long params = model_params(c);
  if (params * t.ranks > kMaxTrainingFloats)
    p.add("workload.hidden", "the model has " + str(params) + " parameters per replica; times " +
                                 str(t.ranks) + " ranks that is more than " +
                                 str(kMaxTrainingFloats) + " floats");
  long long widest = input_width(c.workload.dataset);
  for (int width : hidden_widths(c)) widest = std::max<long long>(widest, width);
  const long long rows = (t.global_batch + t.ranks - 1) / t.ranks;
  if (rows * widest * t.ranks > kMaxTrainingFloats)
    p.add("training.global_batch", "batches of " + str(t.global_batch) + " rows of up to " +
                                       str(widest) + " values are more than " +
                                       str(kMaxTrainingFloats) + " floats");
  if (static_cast<long long>(c.workload.max_train) * input_width(c.workload.dataset) >
      kMaxTrainingFloats)
    p.add("workload.max_train", str(c.workload.max_train) + " rows of " +
                                    str(input_width(c.workload.dataset)) +
                                    " values are more than " + str(kMaxTrainingFloats) + " floats");
}

// workload: the data of a trained run, the parallelism of a catalog or trace run.
void check_workload(const RunConfig& c, RunProblems& p) {
  const auto& t = c.training;
  const bool train = trains(c);
  if (train)
    for (auto& [path, msg] : sharding_problems(c)) p.add(path, std::move(msg));
  if (train && c.workload.dataset.rfind("text:", 0) == 0 && c.workload.model != "transformer")
    p.add("workload.dataset",
          "a text data set needs workload.model transformer, got " + c.workload.model);
  if (!c.workload.comm_groups.empty() && c.workload.kind != WorkloadKind::kTrace)
    p.add("workload.comm_groups", "a communicator-group file belongs to kind trace, got kind " +
                                      enum_name(c.workload.kind));
  if (train) return;
  const auto& w = c.workload;
  long long tp_pp = static_cast<long long>(w.tp) * w.pp;
  const bool trace = w.kind == WorkloadKind::kTrace;
  if (trace && w.trace.empty())
    p.add("workload.trace", "kind trace needs a Chakra trace DIR/PREFIX (PREFIX.0.et, ...)");
  std::error_code ec;  // the files themselves, as run opens them
  if (trace && !w.trace.empty() && !std::filesystem::is_regular_file(w.trace + ".0.et", ec))
    p.add("workload.trace", "no trace file '" + w.trace.substr(0, 200) +
                                ".0.et' (expected a Chakra trace PREFIX.0.et, PREFIX.1.et, ...)");
  if (trace && !w.comm_groups.empty() && !std::filesystem::is_regular_file(w.comm_groups, ec))
    p.add("workload.comm_groups", "no file '" + w.comm_groups.substr(0, 200) +
                                      "' (expected a communicator-group JSON file)");
  if (trace && w.engine != WorkloadEngine::kGraph)
    p.add("workload.engine", "a trace is replayed by the graph engine, got " + enum_name(w.engine));
  if (!trace && w.engine == WorkloadEngine::kSum &&
      (w.ep > 1 || w.grad_dtype != DType::kBf16 || !w.overlap || !w.distributed_optimizer ||
       w.micro_batch > 1 || w.seq > 0))
    p.add("workload.engine",
          "ep, seq, micro_batch, grad_dtype, overlap and distributed_optimizer need engine graph");
  if (trace) {
    // The trace fixes its own ranks and parallelism.
  } else if (w.dp > 0 && w.dp * tp_pp != t.ranks) {
    p.add("workload.dp", "dp * tp * pp = " + str(w.dp * tp_pp) + " must equal training.ranks (" +
                             str(t.ranks) + ")");
  } else if (w.dp == 0 && t.ranks % tp_pp != 0) {
    p.add("workload.tp", "training.ranks (" + str(t.ranks) + ") is not a multiple of tp * pp (" +
                             str(tp_pp) + ")");
  }
  // Catalog and trace runs are time plane only (scenario/run/catalog_run.h).
  if (c.techniques.trimming.enabled)
    p.add("techniques.trimming.enabled",
          "catalog workloads have no packets to trim; use workload.kind train");
  if (c.cluster.backend != ClusterBackend::kAnalytical)
    p.add("cluster.backend", "catalog workloads are timed on the analytical backend, got " +
                                 enum_name(c.cluster.backend));
  if (c.collective.algorithm != "ring")
    p.add("collective.algorithm",
          "catalog workloads are timed with ring collectives, got " + c.collective.algorithm);
}

// techniques.topk and techniques.powersgd replace the all-reduce: one technique at a time, on
// trained gradients in this process (execution mpi runs them too: each process keeps its rank's
// state, compressed_exchange.h).
void check_compression_baselines(const RunConfig& c, RunProblems& p) {
  const auto& tech = c.techniques;
  if (!tech.topk.enabled && !tech.powersgd.enabled) return;
  const char* path = tech.topk.enabled ? "techniques.topk.enabled" : "techniques.powersgd.enabled";
  const std::string what = tech.topk.enabled ? "top-k" : "PowerSGD";
  if (tech.topk.enabled && tech.powersgd.enabled)
    p.add("techniques.powersgd.enabled", "top-k and PowerSGD exclude each other; enable one");
  if (tech.skipreduce.skip > 0 || tech.skipreduce.ratio > 0)
    p.add(path, what +
                    " replaces the all-reduce whose steps SkipReduce skips; set "
                    "techniques.skipreduce.skip and ratio to 0");
  if (tech.trimming.enabled)
    p.add(path, what + " sends its own format; set techniques.trimming.enabled to false");
  if (tech.codec != "none")
    p.add(path, what + " sends its own format; set techniques.codec to none, got " + tech.codec);
  if (!trains(c))
    p.add(path, "workload.kind " + enum_name(c.workload.kind) +
                    " has no gradients to compress; use train");
}

// techniques.skipreduce: the algorithm can skip, the skip (or the one a ratio gives) is within its
// limit on the ring's ranks, and one compensation at a time.
void check_skipreduce(const RunConfig& c, RunProblems& p) {
  const auto& t = c.training;
  const auto& sr = c.techniques.skipreduce;
  const bool skipping = sr.skip > 0 || sr.ratio > 0;
  const char* skip_path =
      sr.skip > 0 ? "techniques.skipreduce.skip" : "techniques.skipreduce.ratio";
  // docs/collectives.md: the paper skips ring reduce-scatter steps; tree and halving-doubling
  // have analogues (deepest reduce levels, last halving rounds); hier and direct have none.
  const std::string& algo = c.collective.algorithm;
  if (const Algorithm* a = lookup_algorithm(algo); skipping && a != nullptr && !a->skips())
    p.add(skip_path,
          "SkipReduce needs collective.algorithm " + skipping_algorithms_text() + ", got " + algo);
  // The skip a ratio gives is checked too: round(ratio * N) is N at ratio 1. A catalog model skips
  // steps of its data-parallel ring (scenario/run/catalog_run.cpp), of dp ranks.
  const long long tp_pp = static_cast<long long>(c.workload.tp) * c.workload.pp;
  const int ring = c.workload.kind != WorkloadKind::kCatalog ? t.ranks
                   : c.workload.dp > 0                       ? c.workload.dp
                                                             : static_cast<int>(t.ranks / tp_pp);
  const long long effective_skip = sr.skip > 0 ? sr.skip : std::llround(sr.ratio * ring);
  if (std::optional<Status> bad = skip_problem(algo, ring, effective_skip))
    p.add(skip_path, sr.skip > 0 ? bad->message
                                 : "ratio " + limit_text(sr.ratio) + " gives skip " +
                                       str(effective_skip) + ": " + bad->message);
  // lr_compensation undoes the ring's (N - s) / N scaling; unbiased already rescales each chunk by
  // N / contributors, so the two together would compensate twice.
  if (sr.lr_compensation && sr.unbiased)
    p.add("techniques.skipreduce.lr_compensation",
          "unbiased already rescales the skipped chunks; set one of lr_compensation and unbiased");
  if (sr.lr_compensation && skipping && algo != "ring")
    p.add("techniques.skipreduce.lr_compensation",
          "the N / (N - s) factor holds for the ring, whose every chunk loses s contributions; "
          "collective.algorithm is " +
              algo + " (use unbiased)");
}

// workload.time_as, the evaluation cadence and learning-rate tuning: what a trained run measures.
void check_measurement(const RunConfig& c, RunProblems& p) {
  const auto& t = c.training;
  const bool train = trains(c);
  // Proxy timing (scenario/run/proxy_timer.h) retimes a trained run in this process.
  if (!c.workload.time_as.empty() && !train)
    p.add("workload.time_as", "workload.kind " + enum_name(c.workload.kind) +
                                  " has no trained model to time as another; use train or \"\"");
  if (!c.workload.time_as.empty() && c.execution != ExecutionMode::kSimulated)
    p.add("workload.time_as", "proxy timing runs in the simulated execution only, got execution " +
                                  enum_name(c.execution));
  if (!c.workload.time_as.empty() && c.cluster.backend != ClusterBackend::kAnalytical)
    p.add("workload.time_as",
          "proxy timing runs on cluster.backend analytical, got " + enum_name(c.cluster.backend));
  // The adaptive evaluation cadence (train/eval_schedule.h) keeps the crossing exact only with a
  // smoothing window in iterations: one in evaluations would span both cadences.
  if (t.eval_every_far > 0 && t.tta_window <= 0)
    p.add("training.eval_every_far",
          "the adaptive cadence needs training.tta_window > 0 (the crossing's smoothing window in "
          "iterations; 4 x eval_every = " +
              str(4 * t.eval_every) + " is the 5-evaluation window)");
  if (t.eval_every_far > 0 && t.eval_every <= 0)
    p.add("training.eval_every_far", "the adaptive cadence needs training.eval_every > 0");
  if (t.eval_every_far > 0 && t.eval_fine_until > 0 && t.eval_fine_until < t.target_accuracy)
    p.add("training.eval_fine_until",
          "must be 0 or at least training.target_accuracy (" + limit_text(t.target_accuracy) +
              "), or the crossing would fall in the coarse cadence; got " +
              limit_text(t.eval_fine_until));
  // Tuning ranks grid values by time to target accuracy (scenario/run/lr_tuning.h).
  if (!t.lr_grid.empty() && !train)
    p.add("training.lr_grid", "workload.kind " + enum_name(c.workload.kind) +
                                  " has no accuracy to tune for; use train or []");
  for (size_t i = 1; i < t.lr_grid.size(); ++i)
    if (std::find(t.lr_grid.begin(), t.lr_grid.begin() + static_cast<std::ptrdiff_t>(i),
                  t.lr_grid[i]) != t.lr_grid.begin() + static_cast<std::ptrdiff_t>(i))
      p.add("training.lr_grid", "the values must differ (" + limit_text(t.lr_grid[i]) +
                                    " is there twice): each is trained on the same tuning seeds");
  if (!t.lr_grid.empty() && c.execution != ExecutionMode::kSimulated)
    p.add("training.lr_grid",
          "learning-rate tuning runs in the simulated execution only, got execution " +
              enum_name(c.execution));
}

// collective.ranks_per_node: an algorithm built of whole nodes needs the ranks to fill them.
void check_collective(const RunConfig& c, RunProblems& p) {
  const Algorithm* algorithm = lookup_algorithm(c.collective.algorithm);
  if (algorithm != nullptr && algorithm->whole_nodes && c.collective.ranks_per_node > 0 &&
      c.training.ranks % c.collective.ranks_per_node != 0)
    p.add("collective.ranks_per_node", "training.ranks (" + str(c.training.ranks) +
                                           ") is not a multiple of ranks_per_node (" +
                                           str(c.collective.ranks_per_node) + ")");
}

// An explicit trim_bytes below the whole head cuts into it: the experiment would measure a
// truncated head, not the scheme. Refused where the switch trims (packet backend, trim admission);
// 0 (auto) derives the size.
void check_head_kept(const RunConfig& c, RunProblems& p) {
  const auto& trim = c.techniques.trimming;
  const uint32_t head = head_trim_bytes(c);
  if (!(trim.enabled && c.cluster.backend == ClusterBackend::kPacket &&
        c.packet.admission == Admission::kTrim && c.packet.trim_bytes != 0 && head > 0 &&
        c.packet.trim_bytes < head))
    return;
  const trim::TrimConfig tc = trim_config_of(c);
  const size_t n = trim::coords_per_packet(tc);
  const trim::PacketLayout l = trim::packet_layout(tc.encoding, tc.head_bits, tc.wire, n);
  p.add("packet.trim_bytes",
        str(c.packet.trim_bytes) + " B cuts into the " + str(trim.head_bits) + "-bit " +
            enum_name(trim.encoding) + " head: a full packet of " + str(static_cast<long long>(n)) +
            " " + enum_name(c.collective.wire) + " coordinates keeps its head in " + str(head) +
            " B (" + str(PacketConfig{}.header_bytes) + " B packet header + " +
            str(static_cast<long long>(l.header)) + " B trim header + " + str(trim.head_bits) +
            " x " + str(static_cast<long long>(l.plane)) + " B head plane" +
            (trim.head_bits > 1 ? "s" : "") + "); set 0 (auto) or at least " + str(head));
}

// techniques.trimming: where packets are cut and how many head bits an encoding has.
void check_trim_heads(const RunConfig& c, RunProblems& p) {
  const auto& trim = c.techniques.trimming;
  if (trim.enabled && trim.mode == TrimMode::kQueue && c.cluster.backend != ClusterBackend::kPacket)
    p.add("techniques.trimming.mode",
          "queue trimming needs cluster.backend packet (the analytical backend has no queues), "
          "got " +
              enum_name(c.cluster.backend));
  if (trim.enabled && trim.mode == TrimMode::kQueue && c.packet.admission != Admission::kTrim)
    p.add("techniques.trimming.mode",
          "queue trimming needs packet.admission trim, got " + enum_name(c.packet.admission));
  // The packet format's own rule for the head width (packet.mtu's own rules come from the
  // schema and check_packet, so only the head_bits problem is reported here).
  const std::optional<Status> bad = trim::config_problem(trim_config_of(c));
  if (bad && bad->field == "head_bits") p.add("techniques.trimming.head_bits", bad->message);
}

// techniques.trimming.levels (docs/scenario.md, "Multi-level trimming"), and a trim size that keeps
// the whole head.
void check_trim_levels(const RunConfig& c, RunProblems& p) {
  const auto& trim = c.techniques.trimming;
  for (size_t i = 0; trim.enabled && i < trim.levels.size(); ++i) {
    const std::string path = "techniques.trimming.levels[" + str(static_cast<long long>(i)) + "]";
    if (trim.levels[i] > trim.head_bits)
      p.add(path, "a level keeps at most the head_bits (" + str(trim.head_bits) +
                      ") the packets are encoded with, got " + str(trim.levels[i]));
    if (i > 0 && trim.levels[i] >= trim.levels[i - 1])
      p.add(path, "levels must decrease (a deeper queue keeps fewer bits), got " +
                      str(trim.levels[i - 1]) + " then " + str(trim.levels[i]));
  }
  if (trim.enabled && !trim.levels.empty() && c.execution != ExecutionMode::kSimulated)
    p.add("techniques.trimming.levels",
          "multi-level trimming runs in the simulated execution only, got execution " +
              enum_name(c.execution));
  if (trim.enabled && !trim.levels.empty() && trim.mode == TrimMode::kQueue &&
      c.packet.trim_bytes != 0)
    p.add("packet.trim_bytes",
          "the levels set the kept sizes; set 0 (auto) with "
          "techniques.trimming.levels, got " +
              str(c.packet.trim_bytes));
  check_head_kept(c, p);
}

// packet: background traffic and trim sizes.
void check_packet(const RunConfig& c, RunProblems& p) {
  if (c.packet.background != "none") try {
      (void)background_traffic(c.packet);
    } catch (const std::invalid_argument& e) {
      p.add("packet.background", e.what());
    }
  if (c.packet.trim_bytes > c.packet.mtu)
    p.add("packet.trim_bytes", "must be at most packet.mtu (" + str(c.packet.mtu) + "), got " +
                                   str(c.packet.trim_bytes));
}

}  // namespace

ConfigProblems check_run(const RunConfig& c, ClusterCache& cache) {
  RunProblems p;
  check_cluster_and_sizes(c, cache, p);
  check_workload(c, p);
  check_compression_baselines(c, p);
  check_skipreduce(c, p);
  check_measurement(c, p);
  check_collective(c, p);
  check_trim_heads(c, p);
  check_packet(c, p);
  check_trim_levels(c, p);
  return p.list;
}

uint32_t head_trim_bytes(const RunConfig& c) {
  if (!c.techniques.trimming.enabled) return 0;
  try {
    const trim::TrimConfig tc = trim_config_of(c);
    trim::validate(tc);
    const size_t n = trim::coords_per_packet(tc);
    return static_cast<uint32_t>(PacketConfig{}.header_bytes +
                                 trim::trim_size_for_bits(tc, n, tc.head_bits));
  } catch (const std::exception&) {
    return 0;  // an unusable encoding, width or MTU has its own message
  }
}

std::vector<uint32_t> trim_level_bytes(const RunConfig& c) {
  const TrimmingSection& t = c.techniques.trimming;
  std::vector<uint32_t> out;
  if (!t.enabled || t.mode != TrimMode::kQueue || t.levels.empty()) return out;
  try {
    const trim::TrimConfig tc = trim_config_of(c);
    trim::validate(tc);
    const size_t n = trim::coords_per_packet(tc);
    for (int bits : t.levels)
      out.push_back(static_cast<uint32_t>(PacketConfig{}.header_bytes +
                                          trim::trim_size_for_bits(tc, n, bits)));
  } catch (const std::exception&) {
    out.clear();  // an unusable encoding, width or MTU has its own message
  }
  return out;
}

uint32_t effective_trim_bytes(const RunConfig& c) {
  if (c.packet.trim_bytes != 0) return c.packet.trim_bytes;
  const uint32_t head = head_trim_bytes(c);
  return head > 0 ? head : kDefaultTrimBytes;
}

int skipreduce_skip(const RunConfig& c) {
  const SkipReduceSection& k = c.techniques.skipreduce;
  return k.skip > 0 ? k.skip : static_cast<int>(std::lround(k.ratio * c.training.ranks));
}

double skipreduce_lr_factor(const RunConfig& c) {
  const int n = c.training.ranks, s = skipreduce_skip(c);
  if (!c.techniques.skipreduce.lr_compensation || s <= 0 || s >= n) return 1.0;
  return static_cast<double>(n) / static_cast<double>(n - s);
}

ConfigProblems check_run_config(const RunConfig& config) {
  ClusterCache cache;
  return check_run(config, cache);
}

}  // namespace commlab
