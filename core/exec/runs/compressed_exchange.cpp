#include "exec/runs/compressed_exchange.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "collective/algorithms.h"
#include "io/status.h"

namespace commlab::exec {

namespace {

// The chunk of `buffer` that rank `owner` fills in the all-gather.
template <typename T>
std::span<T> owner_chunk(const Plan& plan, int owner, size_t words, std::span<T> buffer) {
  for (size_t c = 0; c < plan.chunk_owner.size(); ++c)
    if (plan.chunk_owner[c] == owner) return buffer.subspan(plan.chunk_begin[c], words);
  throw std::logic_error("sparse all-gather: no chunk for rank " + std::to_string(owner));
}

// Times the compression kernels between the collectives (selection, packing, the sum of the sets;
// PowerSGD's products and Gram-Schmidt) as codec time, part of the exchange's time.
class KernelClock {
 public:
  explicit KernelClock(MpiCollectiveReport& report)
      : report_(report), start_(std::chrono::steady_clock::now()) {}
  ~KernelClock() {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    report_.codec_s += s;
    report_.time_s += s;
  }
  KernelClock(const KernelClock&) = delete;
  KernelClock& operator=(const KernelClock&) = delete;

 private:
  MpiCollectiveReport& report_;
  std::chrono::steady_clock::time_point start_;
};

void add_report(MpiCollectiveReport& total, const MpiCollectiveReport& part) {
  total.time_s += part.time_s;
  total.codec_s += part.codec_s;
  total.steps += part.steps;
  total.bytes_sent += part.bytes_sent;
  total.payload_bytes += part.payload_bytes;
  total.packets_trimmed += part.packets_trimmed;
}

}  // namespace

SparseGather::SparseGather(int ranks, size_t bucket_size, double fraction, DType wire_dtype)
    : k(topk_count(fraction, bucket_size)),
      words((sparse_wire_bytes(k, wire_dtype) + sizeof(float) - 1) / sizeof(float)),
      wire(wire_dtype) {
  PlanRequest req;
  req.op = CollectiveOp::kAllGather;
  req.ranks = ranks;
  req.count = static_cast<uint64_t>(ranks) * words;
  plan = build_plan("ring", req);
}

void SparseGather::pack(int owner, const SparseSet& set, std::span<float> buffer) const {
  pack_sparse(set, wire, std::as_writable_bytes(owner_chunk(plan, owner, words, buffer)));
}

void SparseGather::average(std::span<const float> buffer, std::span<float> out) const {
  std::fill(out.begin(), out.end(), 0.0f);
  for (int owner = 0; owner < plan.ranks; ++owner)
    add_packed_sparse(std::as_bytes(owner_chunk(plan, owner, words, buffer)), k, wire, out);
  scale_by_inverse(out, plan.ranks);
}

void scale_by_inverse(std::span<float> values, int ranks) {
  const float inv_n = 1.0f / static_cast<float>(ranks);
  for (float& v : values) v *= inv_n;
}

RankCompressor::RankCompressor(const CompressionSpec& spec, int rank, int ranks)
    : spec_(spec), rank_(rank), ranks_(ranks) {
  if (spec.kind == CompressionSpec::Kind::kNone)
    throw std::logic_error("rank compressor: no compression baseline configured");
}

MpiCollectiveReport RankCompressor::exchange(int iteration, const BucketInfo& bucket,
                                             std::span<float> grad, MpiExecutor& executor,
                                             BucketCollective& collective) {
  if (grad.size() != bucket.size)
    throw bad_input("rank compressor: bucket " + bucket.name + " has " +
                    std::to_string(bucket.size) + " elements, the gradient " +
                    std::to_string(grad.size()));
  return spec_.kind == CompressionSpec::Kind::kTopK
             ? exchange_topk(iteration, bucket, grad, executor)
             : exchange_powersgd(iteration, bucket, grad, executor, collective);
}

MpiCollectiveReport RankCompressor::exchange_topk(int iteration, const BucketInfo& bucket,
                                                  std::span<float> grad, MpiExecutor& executor) {
  const size_t b = static_cast<size_t>(bucket.index);
  if (topk_.size() <= b) topk_.resize(b + 1);
  if (!topk_[b]) topk_[b] = std::make_unique<TopKErrorFeedback>(spec_.topk_fraction, spec_.wire);
  const SparseGather gather(ranks_, bucket.size, spec_.topk_fraction, spec_.wire);
  MpiCollectiveReport report;
  {
    KernelClock clock(report);
    topk_[b]->compress(grad, set_);
    buffer_.assign(gather.plan.count, 0.0f);
    gather.pack(rank_, set_, buffer_);
  }
  MpiExecOptions options;  // no codec: FP32 on the wire, the packed bytes bit for bit
  options.iteration = static_cast<uint64_t>(iteration);
  options.bucket = bucket.index;
  add_report(report, executor.run(gather.plan, buffer_, options));
  {
    KernelClock clock(report);  // stops before the report is returned
    gather.average(buffer_, grad);
  }
  return report;
}

MpiCollectiveReport RankCompressor::exchange_powersgd(int iteration, const BucketInfo& bucket,
                                                      std::span<float> grad, MpiExecutor& executor,
                                                      BucketCollective& collective) {
  MpiExecOptions options;
  options.codec = collective.codec();
  options.iteration = static_cast<uint64_t>(iteration);
  options.bucket = bucket.index;
  // The scenario's all-reduce of `values` (sized as the part it carries), then 1/N.
  auto all_reduce_average = [&](std::span<float> values, MpiCollectiveReport& total) {
    BucketInfo part = bucket;
    part.size = values.size();
    add_report(total, executor.run(collective.plan(iteration, part), values, options));
    scale_by_inverse(values, ranks_);
  };
  MpiCollectiveReport report;
  if (!lowrank_compresses(bucket.size, spec_.powersgd_rank)) {
    all_reduce_average(grad, report);
    return report;
  }
  const size_t b = static_cast<size_t>(bucket.index);
  if (powersgd_.size() <= b) powersgd_.resize(b + 1);
  if (!powersgd_[b])
    powersgd_[b] =
        std::make_unique<PowerSgdState>(bucket.size, spec_.powersgd_rank, spec_.seed, bucket.index);
  PowerSgdState& state = *powersgd_[b];
  {
    KernelClock clock(report);
    std::span<const float> p = state.begin_step(grad);
    buffer_.assign(p.begin(), p.end());
  }
  all_reduce_average(buffer_, report);
  {
    KernelClock clock(report);
    std::span<const float> q = state.project(buffer_);
    buffer_.assign(q.begin(), q.end());
  }
  all_reduce_average(buffer_, report);
  {
    KernelClock clock(report);
    state.finish_step(buffer_, grad);
  }
  return report;
}

}  // namespace commlab::exec
