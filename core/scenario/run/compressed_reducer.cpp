#include "scenario/run/compressed_reducer.h"

#include <stdexcept>

#include "codec/plane_entropy.h"
#include "exec/runs/compressed_exchange.h"
#include "scenario/config_problem.h"

namespace commlab {

namespace {

// The exact average (FP32 sum in rank order times 1/N, as ExactAverageReducer), for the NMSE.
void exact_average(const std::vector<std::span<float>>& grads, std::vector<float>& out) {
  out.assign(grads[0].size(), 0.0f);
  for (const auto& g : grads)
    for (size_t i = 0; i < out.size(); ++i) out[i] += g[i];
  const float inv_n = 1.0f / static_cast<float>(grads.size());
  for (float& v : out) v *= inv_n;
}

}  // namespace

bool uses_compression_baseline(const RunConfig& config) {
  return config.techniques.topk.enabled || config.techniques.powersgd.enabled;
}

CompressedReducer::CompressedReducer(const RunConfig& config, NetworkBackend& backend)
    : config_(config), backend_(backend), dense_(config, backend) {
  const TechniquesConfig& t = config.techniques;
  const char* path = t.topk.enabled ? "techniques.topk.enabled" : "techniques.powersgd.enabled";
  if (!uses_compression_baseline(config))
    throw std::logic_error("CompressedReducer: neither techniques.topk nor powersgd is on");
  if (t.topk.enabled && t.powersgd.enabled)
    throw ConfigError("techniques.powersgd.enabled",
                      "top-k and PowerSGD exclude each "
                      "other; enable one");
  if (t.skipreduce.skip > 0 || t.skipreduce.ratio > 0 || t.trimming.enabled || t.codec != "none")
    throw ConfigError(path,
                      "the compression baselines replace the all-reduce; turn "
                      "techniques.skipreduce, trimming and codec off");
  wire_ = config.collective.wire;  // fp32 or bf16: the scenario's spellings of DType
  // Fail here, not at the first bucket: an invalid fraction or rank names its field.
  if (t.topk.enabled && !(t.topk.fraction > 0 && t.topk.fraction <= 1))
    throw ConfigError("techniques.topk.fraction", "expected a number in (0, 1]");
  if (t.powersgd.enabled && t.powersgd.rank < 1)
    throw ConfigError("techniques.powersgd.rank", "expected at least 1");
  compute_.gpu = gpu_preset(config.cluster.gpu);
  compute_.mfu = config.cluster.mfu;
}

std::string CompressedReducer::name() const {
  const TechniquesConfig& t = config_.techniques;
  if (t.topk.enabled) return "topk-ef/" + enum_name(config_.collective.wire);
  return "powersgd-r" + std::to_string(t.powersgd.rank) + "/" + config_.collective.algorithm + "/" +
         enum_name(config_.collective.wire);
}

void CompressedReducer::run_plan(const Plan& plan, std::vector<std::span<float>> buffers,
                                 int iteration, const BucketInfo& bucket, TransferCodec& codec,
                                 ReduceReport& report) {
  ExecutorOptions options;
  options.backend = &backend_;
  options.codec = &codec;
  options.reduce_bandwidth_Bps = config_.cluster.reduce_gbps * 1e9;
  options.iteration = static_cast<uint64_t>(iteration);
  options.bucket = bucket.index;
  const CollectiveReport rep = execute_plan(plan, std::move(buffers), options);
  report.bytes_on_wire += rep.bytes_on_wire;
  report.comm_time_s += rep.time_s - rep.codec_time_s;
  report.codec_time_s += rep.codec_time_s;
}

void CompressedReducer::all_reduce_average(std::vector<std::span<float>> buffers, int iteration,
                                           const BucketInfo& bucket, ReduceReport& report) {
  BucketInfo part = bucket;
  part.size = buffers[0].size();
  const ReduceReport rep = dense_.reduce(iteration, part, buffers);
  report.bytes_on_wire += rep.bytes_on_wire;
  report.comm_time_s += rep.comm_time_s;
  report.codec_time_s += rep.codec_time_s;
  report.payload_bytes += rep.payload_bytes;  // the values the transfers carried
}

ReduceReport CompressedReducer::reduce(int iteration, const BucketInfo& bucket,
                                       std::vector<std::span<float>>& grads) {
  const int n = static_cast<int>(grads.size());
  exact_average(grads, exact_);
  std::vector<double> planes = byte_plane_entropy(grads[0], wire_);
  ReduceReport report = config_.techniques.topk.enabled ? reduce_topk(iteration, bucket, grads)
                                                        : reduce_powersgd(iteration, bucket, grads);
  // The dense ring all-reduce in the wire dtype moves 2 (N-1) * size values in all.
  report.reference_bytes = 2ull * static_cast<uint64_t>(n - 1) * bucket.size * dtype_size(wire_);
  report.info_bits = 8.0 * static_cast<double>(report.bytes_on_wire);
  double worst = 0;
  for (int r = 0; r < n; ++r) worst = std::max(worst, nmse(grads[r], exact_));
  report.nmse = worst;
  report.plane_entropy = std::move(planes);

  totals_.add(report);
  return report;
}

ReduceReport CompressedReducer::reduce_topk(int iteration, const BucketInfo& bucket,
                                            std::vector<std::span<float>>& grads) {
  const int n = static_cast<int>(grads.size());
  if (topk_.size() <= static_cast<size_t>(bucket.index)) topk_.resize(bucket.index + 1);
  auto& states = topk_[bucket.index];
  if (states.empty()) states.assign(n, TopKErrorFeedback(config_.techniques.topk.fraction, wire_));
  const exec::SparseGather gather(n, bucket.size, config_.techniques.topk.fraction, wire_);
  const size_t k = gather.k;
  scratch_.resize(n);
  std::vector<std::span<float>> buffers(n);
  std::vector<SparseSet> sets(n);
#pragma omp parallel for schedule(static)
  for (int r = 0; r < n; ++r) {
    states[r].compress(grads[r], sets[r]);
    scratch_[r].assign(gather.plan.count, 0.0f);
    buffers[r] = scratch_[r];
    gather.pack(r, sets[r], buffers[r]);  // the owner's chunk of its own buffer
  }
  ReduceReport report;
  run_plan(gather.plan, buffers, iteration, bucket, bytes_codec_, report);
  // Every rank decodes what reached its own buffer: the N sets in rank order, then 1/N.
#pragma omp parallel for schedule(static)
  for (int r = 0; r < n; ++r) gather.average(buffers[r], grads[r]);
  // Received pairs: read (4 + v) B, then a read-modify-write of the 4 B accumulator.
  const double pairs_bytes =
      static_cast<double>(n) * static_cast<double>(k) * (12.0 + dtype_size(wire_));
  report.codec_time_s += compute_.time(0, 16.0 * static_cast<double>(bucket.size) + pairs_bytes);
  // The values each rank's k pairs carried to its N-1 peers.
  report.payload_bytes =
      static_cast<uint64_t>(n) * static_cast<uint64_t>(n - 1) * k * sizeof(float);
  return report;
}

ReduceReport CompressedReducer::reduce_powersgd(int iteration, const BucketInfo& bucket,
                                                std::vector<std::span<float>>& grads) {
  const int n = static_cast<int>(grads.size());
  const int rank = config_.techniques.powersgd.rank;
  ReduceReport report;
  if (!lowrank_compresses(bucket.size, rank)) {
    all_reduce_average(grads, iteration, bucket, report);
    return report;
  }
  if (powersgd_.size() <= static_cast<size_t>(bucket.index)) powersgd_.resize(bucket.index + 1);
  auto& states = powersgd_[bucket.index];
  if (states.empty())
    for (int r = 0; r < n; ++r) states.emplace_back(bucket.size, rank, config_.seed, bucket.index);
  scratch_.resize(n);
  std::vector<std::span<float>> buffers(n);
  // Phase 1: P = M Q on every rank, all-reduced.
#pragma omp parallel for schedule(static)
  for (int r = 0; r < n; ++r) {
    std::span<const float> p = states[r].begin_step(grads[r]);
    scratch_[r].assign(p.begin(), p.end());
    buffers[r] = scratch_[r];
  }
  all_reduce_average(buffers, iteration, bucket, report);
  // Phase 2: orthogonalise the averaged P, Q = M^T P, all-reduced.
#pragma omp parallel for schedule(static)
  for (int r = 0; r < n; ++r) {
    std::span<const float> q = states[r].project(buffers[r]);
    scratch_[r].assign(q.begin(), q.end());
    buffers[r] = scratch_[r];
  }
  all_reduce_average(buffers, iteration, bucket, report);
  // Phase 3: M_hat = P Q^T is what every rank receives; the rest stays in its residual.
#pragma omp parallel for schedule(static)
  for (int r = 0; r < n; ++r) states[r].finish_step(buffers[r], grads[r]);
  const LowRankShape& sh = states[0].shape();
  const double rows = static_cast<double>(sh.rows), cols = static_cast<double>(sh.cols),
               r = static_cast<double>(sh.rank);
  report.codec_time_s +=
      compute_.time(3 * 2 * rows * cols * r + 2 * rows * r * r, 4 * 4 * rows * cols);
  return report;
}

}  // namespace commlab
