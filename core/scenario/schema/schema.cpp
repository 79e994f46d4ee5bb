// The field table: one row per RunConfig field. Adding a field to RunConfig means adding a row
// here; the docs and the JSON Schema are regenerated from it (commlab-cli validate --write-docs
// docs).
#include "scenario/schema.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "codec/codec.h"
#include "numeric/tensor_gen.h"
#include "workload/catalog/catalog.h"
#include "workload/catalog/proxy_model.h"

namespace commlab {
namespace {

using nlohmann::json;
using Check = std::function<std::optional<std::string>(const json&)>;

// Binds a row to a RunConfig member through an accessor lambda.
template <class F>
Field bind(Field f, F acc) {
  using T = std::remove_reference_t<decltype(acc(std::declval<RunConfig&>()))>;
  f.set = [acc](RunConfig& c, const json& v) { acc(c) = v.get<T>(); };
  f.get = [acc](const RunConfig& c) { return json(acc(const_cast<RunConfig&>(c))); };
  return f;
}

Field row(std::string path, FieldType type) {
  Field f;
  f.path = std::move(path);
  f.type = type;
  return f;
}

#define ACC(member)            \
  [](RunConfig & c) -> auto& { \
    return c.member;           \
  }

template <class F>
Field int_field(std::string path, F acc, double min, double max, std::string desc) {
  Field f = row(std::move(path), FieldType::kInt);
  f.min = min, f.max = max;
  f.description = std::move(desc);
  return bind(std::move(f), acc);
}

template <class F>
Field num_field(std::string path, F acc, double min, double max, std::string desc,
                bool min_exclusive = false) {
  Field f = row(std::move(path), FieldType::kNumber);
  f.min = min, f.max = max;
  f.min_exclusive = min_exclusive;
  f.description = std::move(desc);
  return bind(std::move(f), acc);
}

template <class F>
Field bool_field(std::string path, F acc, std::string desc) {
  Field f = row(std::move(path), FieldType::kBool);
  f.description = std::move(desc);
  return bind(std::move(f), acc);
}

// A row of an enum member (config_enums.h): its choices are the enum's spellings, and the JSON
// value is parsed into the enum once, here.
template <class F>
Field enum_field(std::string path, F acc, std::string desc) {
  using E = std::remove_reference_t<decltype(acc(std::declval<RunConfig&>()))>;
  static_assert(std::is_enum_v<E>);
  Field f = row(std::move(path), FieldType::kEnum);
  f.choices = enum_names<E>();
  f.description = std::move(desc);
  f.set = [acc](RunConfig& c, const json& v) {
    std::optional<E> value = parse_enum<E>(v.get<std::string>());
    if (!value) throw std::logic_error("unchecked enum value " + v.dump());  // validated before
    acc(c) = *value;
  };
  f.get = [acc](const RunConfig& c) { return json(enum_name(acc(const_cast<RunConfig&>(c)))); };
  return f;
}

// A row of a string member with a fixed list of values (cluster.gpu, workload.model).
template <class F>
Field enum_field(std::string path, F acc, std::vector<std::string> choices, std::string desc) {
  Field f = row(std::move(path), FieldType::kEnum);
  f.choices = std::move(choices);
  f.description = std::move(desc);
  return bind(std::move(f), acc);
}

template <class F>
Field str_field(std::string path, F acc, size_t max_len, std::string desc, Check check = {}) {
  Field f = row(std::move(path), FieldType::kString);
  f.max_items = max_len;
  f.description = std::move(desc);
  f.check = std::move(check);
  return bind(std::move(f), acc);
}

template <class F>
Field list_field(std::string path, F acc, FieldType type, double min, double max, size_t max_items,
                 std::string desc) {
  Field f = row(std::move(path), type);
  f.min = min, f.max = max, f.max_items = max_items;
  f.description = std::move(desc);
  return bind(std::move(f), acc);
}

Field positive_list(Field f) {
  f.min_exclusive = true;
  return f;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::optional<std::string> one_of(const std::string& v, const std::vector<std::string>& names,
                                  const std::string& what) {
  if (std::find(names.begin(), names.end(), v) != names.end()) return std::nullopt;
  std::string hint = did_you_mean(v, names);
  return "unknown " + what + " '" + v + "'" +
         (hint.empty() ? "" : " (did you mean '" + hint + "'?)") + " (expected one of " +
         join(names) + ")";
}

Check codec_check() {
  return [](const json& v) -> std::optional<std::string> {
    std::vector<std::string> names = codec_names();
    names.insert(names.begin(), "none");
    return one_of(v.get<std::string>(), names, "codec");
  };
}

Check catalog_check() {
  return [](const json& v) -> std::optional<std::string> {
    std::vector<std::string> names;
    for (const auto& spec : workload_catalog()) names.push_back(spec.name);
    return one_of(v.get<std::string>(), names, "catalog workload");
  };
}

Check time_as_check() {
  return [](const json& v) -> std::optional<std::string> {
    if (v.get<std::string>().empty()) return std::nullopt;
    return one_of(v.get<std::string>(), proxy_model_names(), "model to time as");
  };
}

// "name" or "name:ARG" with ARG non-empty, for the fields that take a parameter after a colon.
bool has_arg(const std::string& v, const std::string& prefix) {
  return v.size() > prefix.size() && v.compare(0, prefix.size(), prefix) == 0;
}

Check dataset_check() {
  return [](const json& j) -> std::optional<std::string> {
    const std::string v = j.get<std::string>();
    for (const char* name : {"fashion-mnist", "spiral", "circles", "blobs", "xor"})
      if (v == name) return std::nullopt;
    if (has_arg(v, "text:")) return std::nullopt;
    return "expected one of fashion-mnist, spiral, circles, blobs, xor, text:PATH, got \"" + v +
           "\"";
  };
}

Check background_check() {
  return [](const json& j) -> std::optional<std::string> {
    const std::string v = j.get<std::string>();
    for (const char* name : {"none", "perm", "alltoall", "onoff"})
      if (v == name) return std::nullopt;
    if (has_arg(v, "incast:")) {
      const std::string k = v.substr(7);
      if (k.size() <= 5 && std::all_of(k.begin(), k.end(), ::isdigit) && std::stoi(k) >= 1 &&
          std::stoi(k) <= kMaxRanks)
        return std::nullopt;
      return "incast:K needs K in [1, 65536], got \"" + v + "\"";
    }
    return "expected one of none, incast:K, perm, alltoall, onoff, got \"" + v + "\"";
  };
}

Check distribution_check() {
  return [](const json& j) -> std::optional<std::string> {
    const std::string v = j.get<std::string>();
    // model:NAME: a real gradient of the zoo model (train/layers/model_gradients.h).
    if (has_arg(v, "model:"))
      return v == "model:mlp" || v == "model:cnn"
                 ? std::nullopt
                 : std::optional<std::string>("expected model:mlp or model:cnn, got '" + v + "'");
    try {
      validate_distribution(v);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::nullopt;
  };
}

std::vector<Field> make_table() {
  constexpr double kBig = 1e7;  // iterations, batches, rows: at most ten million
  const std::vector<std::string> gpus = {"a100", "h100", "h200", "b200"};
  return {
      int_field("seed", ACC(seed), 0, double(kMaxSeed),
                "Seed of every random choice (data order, init, SkipReduce rotation, trimming)."),
      int_field("seeds", ACC(seeds), 1, 100,
                "Seeds the run is repeated over: seed, seed+1, ..., seed+seeds-1 (run --seeds N "
                "overrides it); summary.json gives each seed's values, their mean and 95% "
                "interval."),
      enum_field("execution", ACC(execution),
                 "simulated: all ranks in one process; mpi: one real process per rank over Open "
                 "MPI (mpirun -np <training.ranks>), same results, measured wall-clock split."),
      // cluster
      str_field("cluster.spec", ACC(cluster.spec), 1024,
                "Cluster: a builder spec (flat:8, fattree:k=8), a preset (dgx-h100-pod) or a "
                "topology JSON file relative to the scenario; default flat:<training.ranks>."),
      enum_field("cluster.backend", ACC(cluster.backend),
                 "Network timing backend: analytical max-min sharing or packet-level simulation."),
      num_field("cluster.reduce_gbps", ACC(cluster.reduce_gbps), 0, 1e6,
                "GPU memory bandwidth charged for reductions, GB/s (0: reductions are free)."),
      enum_field("cluster.gpu", ACC(cluster.gpu), gpus, "GPU of the compute-time model."),
      num_field("cluster.mfu", ACC(cluster.mfu), 0, 1,
                "Model FLOPs utilisation of the compute-time model.", true),
      // packet
      int_field("packet.mtu", ACC(packet.mtu), 64, 65536, "Payload bytes per data packet."),
      int_field("packet.queue_packets", ACC(packet.queue_packets), 1, 1 << 20,
                "Data-queue length per switch port at which admission acts, in packets."),
      enum_field("packet.admission", ACC(packet.admission),
                 "What a full switch queue does to an arriving packet."),
      int_field("packet.trim_bytes", ACC(packet.trim_bytes), 0, 65536,
                "Bytes a trimmed packet keeps on the wire, header included (at most packet.mtu); "
                "0 (auto): the 64 B header plus the whole head of a full packet of the trimming "
                "encoding (1-bit EDEN, FP32, MTU 4096: 228), 128 without trimming. A value below "
                "the head is refused where the switch trims."),
      enum_field("packet.transport", ACC(packet.transport),
                 "Transport: go-back-N, NDP-like NACK and retransmit, accept trimmed payloads, "
                 "or lossless RoCE (PFC pauses, ECN marking, DCQCN rate control; "
                 "docs/packet-backend.md)."),
      str_field("packet.background", ACC(packet.background), 64,
                "Background traffic: none, incast:K, perm or alltoall (closed loop: a pair starts "
                "its next 1 MiB flow when the last completes) or onoff (1 MiB flows started as a "
                "Poisson process per sender at packet.background_load).",
                background_check()),
      num_field("packet.background_load", ACC(packet.background_load), 0, 1,
                "Fraction of line rate each onoff sender offers, on the wire; onoff only: incast, "
                "perm and alltoall are closed loop and refuse it."),
      // workload
      enum_field("workload.kind", ACC(workload.kind),
                 "train: a real model trained on real data; catalog: a large model's time plane; "
                 "trace: a Chakra execution trace replayed on the time plane."),
      enum_field("workload.model", ACC(workload.model), {"mlp", "cnn", "transformer"},
                 "Trained model architecture (kind train)."),
      list_field("workload.hidden", ACC(workload.hidden), FieldType::kIntList, 1, 65536, 64,
                 "Hidden layer widths of the MLP."),
      str_field("workload.dataset", ACC(workload.dataset), 1024,
                "Data set: fashion-mnist, spiral, circles, blobs, xor or text:PATH.",
                dataset_check()),
      int_field("workload.max_train", ACC(workload.max_train), 0, 1e8,
                "Training rows used (0: the whole training set)."),
      str_field("workload.catalog", ACC(workload.catalog), 256,
                "Catalog workload (kind catalog), e.g. gpt3-175b, llama3-70b.", catalog_check()),
      int_field("workload.dp", ACC(workload.dp), 0, kMaxRanks,
                "Catalog data parallelism (0: training.ranks / (tp * pp))."),
      int_field("workload.tp", ACC(workload.tp), 1, 1024, "Catalog tensor parallelism."),
      int_field("workload.pp", ACC(workload.pp), 1, 1024, "Catalog pipeline parallelism."),
      str_field("workload.tensor_source", ACC(workload.tensor_source), 256,
                "Tensors whose codec ratios the catalog uses: gaussian, laplace, student-t, "
                "sparse:F or model:NAME.",
                distribution_check()),
      enum_field("workload.engine", ACC(workload.engine),
                 "Catalog timing: graph replays the iteration as per-rank graphs (overlap, 1F1B, "
                 "all-to-alls); sum is the closed form with every message exposed."),
      str_field("workload.trace", ACC(workload.trace), 4096,
                "Chakra trace DIR/PREFIX (files PREFIX.RANK.et) for kind trace."),
      str_field("workload.comm_groups", ACC(workload.comm_groups), 4096,
                "Kind trace: the communicator-group file (ASTRA-sim's "
                "--comm-group-configuration; \"\": PREFIX.comm_groups.json, else PREFIX.json)."),
      int_field("workload.ep", ACC(workload.ep), 1, 1024,
                "Catalog expert parallelism (MoE models such as mixtral-8x7b; divides dp)."),
      int_field("workload.seq", ACC(workload.seq), 0, 1 << 20,
                "Catalog sequence length (0: the model's own)."),
      int_field("workload.micro_batch", ACC(workload.micro_batch), 1, 65536,
                "Catalog sequences per micro-batch (training.global_batch is in sequences)."),
      enum_field("workload.grad_dtype", ACC(workload.grad_dtype), "Catalog gradients on the wire."),
      str_field("workload.time_as", ACC(workload.time_as), 64,
                "Trained runs: time every iteration as this model (vgg19-cifar100 or a catalog "
                "name) while the data plane trains the small one (\"\": its own time).",
                time_as_check()),
      num_field("workload.bucket_mb", ACC(workload.bucket_mb), 0.001, 65536,
                "Catalog DP gradient bucket size in MiB (PyTorch DDP's 25)."),
      bool_field("workload.overlap", ACC(workload.overlap),
                 "Catalog DP buckets overlap the backward pass (graph engine)."),
      bool_field("workload.distributed_optimizer", ACC(workload.distributed_optimizer),
                 "Catalog DP as reduce-scatter + all-gather (ZeRO-1); false: all-reduce."),
      // training
      int_field("training.ranks", ACC(training.ranks), 1, kMaxRanks,
                "Data-parallel ranks (at most 256 for kind train); default: the cluster's GPUs."),
      int_field("training.iterations", ACC(training.iterations), 1, kBig,
                "Training iterations (optimizer steps)."),
      int_field("training.global_batch", ACC(training.global_batch), 1, kBig,
                "Rows per iteration over all ranks (a multiple of training.ranks)."),
      int_field("training.eval_every", ACC(training.eval_every), 0, kBig,
                "Iterations between test evaluations (0: only at the end)."),
      int_field("training.eval_every_far", ACC(training.eval_every_far), 0, kBig,
                "Adaptive cadence (0: off): iterations between evaluations while the accuracy is "
                "below target_accuracy - eval_fine_margin and once the smoothed crossing of "
                "eval_fine_until is settled; eval_every in between, where time to target is "
                "decided. Needs tta_window."),
      num_field("training.eval_fine_margin", ACC(training.eval_fine_margin), 0, 1,
                "Adaptive cadence: how far below target_accuracy the fine cadence starts."),
      num_field("training.eval_fine_until", ACC(training.eval_fine_until), 0, 1,
                "Adaptive cadence: the accuracy whose smoothed crossing ends the fine cadence "
                "(0: target_accuracy; higher to keep time to several targets exact)."),
      int_field("training.eval_rows", ACC(training.eval_rows), 0, kBig,
                "Test rows per evaluation: a random sample of the test set drawn once from the "
                "seed, the same at every evaluation (0: the whole test set)."),
      enum_field("training.sharding", ACC(training.sharding),
                 "Rows each rank trains on: random slices of a global shuffle per iteration; "
                 "shard: disjoint per-epoch shards (DistributedSampler); non-iid: fixed "
                 "label-skewed shards (Dirichlet over the ranks per class)."),
      num_field("training.sharding_alpha", ACC(training.sharding_alpha), 0, 1e6,
                "non-iid: Dirichlet concentration (0.1: each rank mostly one or two classes; "
                "100: near iid).",
                true),
      enum_field("training.optimizer", ACC(training.optimizer), "Optimizer."),
      num_field("training.lr", ACC(training.lr), 0, 100, "Peak learning rate.", true),
      positive_list(list_field("training.lr_grid", ACC(training.lr_grid), FieldType::kNumberList, 0,
                               100, 16,
                               "Learning rates to tune over before the reported seeds: each is "
                               "trained on tune_seeds seeds from seed + 1000, the one with the "
                               "smallest median time to target_accuracy is reported ([]: lr as "
                               "given).")),
      int_field("training.tune_seeds", ACC(training.tune_seeds), 1, 20,
                "Seeds per learning rate when tuning (training.lr_grid, run --tune-lr)."),
      int_field("training.validation_rows", ACC(training.validation_rows), 0, kBig,
                "Training rows held out as a validation set (0: none): no run trains on them and "
                "learning-rate tuning evaluates on them instead of the test set, which is then "
                "read only for the reported runs."),
      num_field("training.momentum", ACC(training.momentum), 0, 1, "SGD momentum, or AdamW beta1."),
      num_field("training.weight_decay", ACC(training.weight_decay), 0, 10, "Weight decay."),
      int_field("training.warmup", ACC(training.warmup), 0, kBig,
                "Iterations of linear learning-rate warm-up."),
      enum_field("training.decay", ACC(training.decay), "Learning-rate schedule after warm-up."),
      num_field("training.target_accuracy", ACC(training.target_accuracy), 0, 1,
                "Test accuracy that defines time-to-accuracy."),
      int_field("training.tta_window", ACC(training.tta_window), 0, kBig,
                "Smoothing window of the time-to-accuracy crossing, in iterations, so that it "
                "does not change with eval_every (0: 5 evaluations, i.e. 4 x eval_every)."),
      // collective
      enum_field("collective.algorithm", ACC(collective.algorithm),
                 {"ring", "tree", "hd", "hier", "direct"}, "All-reduce algorithm."),
      enum_field("collective.wire", ACC(collective.wire),
                 "Wire format of gradients when no codec is set."),
      int_field("collective.ranks_per_node", ACC(collective.ranks_per_node), 0, kMaxRanks,
                "Ranks per node for hier (0: from the cluster)."),
      // techniques
      str_field("techniques.codec", ACC(techniques.codec), 256,
                "none, or a codec name from the registry (commlab-cli codec --codecs all).",
                codec_check()),
      enum_field("techniques.codec_placement", ACC(techniques.codec_placement),
                 "Where codec time is charged."),
      int_field("techniques.skipreduce.skip", ACC(techniques.skipreduce.skip), 0, kMaxRanks - 1,
                "SkipReduce: reduce-scatter steps skipped per all-reduce (ring; tree and hd: the "
                "analogues of docs/collectives.md; < ranks)."),
      num_field("techniques.skipreduce.ratio", ACC(techniques.skipreduce.ratio), 0, 1,
                "SkipReduce: skip = round(ratio * ranks) when skip is 0."),
      enum_field("techniques.skipreduce.policy", ACC(techniques.skipreduce.policy),
                 "Which steps SkipReduce skips."),
      bool_field("techniques.skipreduce.unbiased", ACC(techniques.skipreduce.unbiased),
                 "Rescale the partial sums so the reduced gradient stays unbiased."),
      bool_field("techniques.skipreduce.lr_compensation",
                 ACC(techniques.skipreduce.lr_compensation),
                 "Multiply the learning rate by N / (N - s) (ring): undoes the paper's implicit "
                 "learning-rate cut of dividing N - s contributions by N."),
      list_field("techniques.skipreduce.protected_buckets",
                 ACC(techniques.skipreduce.protected_buckets), FieldType::kStringList, 0, 0, 1024,
                 "Bucket (layer) names never skipped (selective policy)."),
      int_field("techniques.skipreduce.min_elements", ACC(techniques.skipreduce.min_elements), 0,
                1e12, "Buckets smaller than this are never skipped."),
      bool_field("techniques.trimming.enabled", ACC(techniques.trimming.enabled),
                 "Send gradients as trimmable packets."),
      enum_field("techniques.trimming.encoding", ACC(techniques.trimming.encoding),
                 "Head encoding of trimmable packets."),
      int_field("techniques.trimming.head_bits", ACC(techniques.trimming.head_bits), 1, 8,
                "Bits per coordinate kept by a trimmed packet (sq 1-8, drive 1, eden 1-4)."),
      num_field("techniques.trimming.rate", ACC(techniques.trimming.rate), 0, 1,
                "Fraction of packets trimmed (mode bernoulli)."),
      enum_field("techniques.trimming.mode", ACC(techniques.trimming.mode),
                 "bernoulli: trim at random at the given rate; queue: switch queues decide "
                 "(cluster.backend packet)."),
      list_field("techniques.trimming.levels", ACC(techniques.trimming.levels), FieldType::kIntList,
                 1, 8, 4,
                 "Multi-level heads: head bits a trimmed packet keeps, decreasing, each at most "
                 "head_bits (e.g. [4, 2, 1]); queue: levels[i] above (i + 1) x the queue "
                 "threshold; bernoulli: levels[i] with probability rate^(i+1) (1 - rate), the "
                 "last rate^L. Empty: head_bits only."),
      bool_field("techniques.topk.enabled", ACC(techniques.topk.enabled),
                 "Top-k with error feedback instead of the all-reduce: each rank all-gathers its "
                 "k largest (index, value) pairs (core/compress/topk_ef.h)."),
      num_field("techniques.topk.fraction", ACC(techniques.topk.fraction), 0, 1,
                "Top-k: k = ceil(fraction * bucket size) pairs per rank and bucket.", true),
      bool_field("techniques.powersgd.enabled", ACC(techniques.powersgd.enabled),
                 "Rank-r PowerSGD with error feedback and warm start instead of the all-reduce: "
                 "two all-reduces of (rows + cols) * rank values per bucket "
                 "(core/compress/powersgd.h)."),
      int_field("techniques.powersgd.rank", ACC(techniques.powersgd.rank), 1, 1024,
                "PowerSGD: rank of the approximation."),
  };
}

}  // namespace

const std::vector<Field>& scenario_fields() {
  static const std::vector<Field> table = make_table();
  return table;
}

const Field* find_field(const std::string& path) {
  for (const Field& f : scenario_fields())
    if (f.path == path) return &f;
  return nullptr;
}

}  // namespace commlab
