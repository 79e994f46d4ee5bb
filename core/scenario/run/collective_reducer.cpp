#include "scenario/run/collective_reducer.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include "codec/plane_entropy.h"
#include "collective/algorithms.h"
#include "collective/simulated_executor.h"
#include "scenario/scenario.h"
#include "topology/topology.h"

namespace commlab {

namespace {

int ranks_per_node_of(const Topology& t, int configured) {
  if (configured > 0) return configured;
  std::map<int, int> per_server;
  for (int g : t.gpus()) ++per_server[t.nodes()[g].server];
  return per_server.empty() ? 1 : per_server.begin()->second;
}

}  // namespace

CollectiveReducer::CollectiveReducer(const RunConfig& config, NetworkBackend& backend)
    : config_(config), backend_(backend) {
  const TechniquesConfig& t = config.techniques;
  skip_.skip = skipreduce_skip(config);
  skip_.policy = t.skipreduce.policy;
  skip_.seed = config.seed;
  skip_.unbiased = t.skipreduce.unbiased;
  skip_.protected_buckets = t.skipreduce.protected_buckets;
  skip_.min_elements = t.skipreduce.min_elements;
  // The paper skips ring reduce-scatter steps; tree and halving-doubling have the analogues of
  // docs/collectives.md (deepest reduce levels, last halving rounds). The others have none.
  const std::string& algo = config.collective.algorithm;
  if (skip_.skip > 0 && !find_algorithm(algo).skips())
    throw ConfigError("techniques.skipreduce", "SkipReduce needs collective.algorithm " +
                                                   skipping_algorithms_text() + ", got '" + algo +
                                                   "'");
  const DType wire = config.collective.wire;
  wire_ = wire;
  wire_element_bytes_ = static_cast<double>(dtype_size(wire));
  if (t.trimming.enabled) {
    if (t.codec != "none")
      throw ConfigError("techniques.codec",
                        "trimming carries its own encoding; set codec "
                        "to none when techniques.trimming.enabled is true");
    trim::TrimConfig tc;
    tc.encoding = t.trimming.encoding;
    tc.head_bits = t.trimming.head_bits;
    tc.payload_bytes = config.packet.mtu;
    tc.wire = wire;
    tc.seed = config.seed;
    const bool bernoulli = t.trimming.mode == TrimMode::kBernoulli;
    auto codec = std::make_unique<TrimWire>(tc, bernoulli ? t.trimming.rate : 0.0, config.seed,
                                            t.trimming.levels);
    trim_ = codec.get();
    codec_ = std::move(codec);
  } else if (t.codec != "none") {
    PlacementModel placement;
    placement.placement = t.codec_placement;
    codec_ = std::make_unique<CodecWire>(t.codec, wire, placement);
  } else if (wire == DType::kBf16) {
    codec_ = std::make_unique<Bf16Wire>();
  } else if (wire == DType::kFp32) {
    codec_ = std::make_unique<Fp32Wire>();
  } else {
    codec_ = std::make_unique<CodecWire>("raw", wire);
  }
  ranks_per_node_ = ranks_per_node_of(backend.topology(), config.collective.ranks_per_node);
}

std::string CollectiveReducer::name() const {
  return config_.collective.algorithm + "/" + codec_->name();
}

PlanRequest CollectiveReducer::request_for(int iteration, const BucketInfo& bucket,
                                           int ranks) const {
  PlanRequest req;
  req.ranks = ranks;
  req.count = bucket.size;
  req.skip = decide_skip(skip_, ranks, bucket.index, bucket.name, bucket.size, iteration);
  req.unbiased_skip = skip_.unbiased;
  req.ranks_per_node = ranks_per_node_;
  return req;
}

Plan CollectiveReducer::plan_for(int iteration, const BucketInfo& bucket, int ranks) const {
  return build_plan(config_.collective.algorithm, request_for(iteration, bucket, ranks));
}

double CollectiveReducer::trim_rate() const {
  const TrimmingSection& t = config_.techniques.trimming;
  return trim_ && t.mode == TrimMode::kBernoulli ? t.rate : 0.0;
}

ReduceReport CollectiveReducer::reduce(int iteration, const BucketInfo& bucket,
                                       std::vector<std::span<float>>& grads) {
  const int n = static_cast<int>(grads.size());
  const size_t count = bucket.size;
  // The exact average, for the NMSE report (FP32 sum in rank order, as ExactAverageReducer).
  exact_.assign(count, 0.0f);
  for (int r = 0; r < n; ++r)
    for (size_t i = 0; i < count; ++i) exact_[i] += grads[r][i];
  const float inv_n = 1.0f / static_cast<float>(n);
  for (float& v : exact_) v *= inv_n;

  // What a lossless codec would see of rank 0's contribution (before the plan rounds it).
  std::vector<double> planes = byte_plane_entropy(grads[0], wire_);

  const PlanRequest req = request_for(iteration, bucket, n);
  Plan plan = build_plan(config_.collective.algorithm, req);

  ExecutorOptions options;
  options.backend = &backend_;
  options.codec = codec_.get();
  options.reduce_bandwidth_Bps = config_.cluster.reduce_gbps * 1e9;
  options.want_fates = trim_ != nullptr && config_.techniques.trimming.mode == TrimMode::kQueue;
  options.iteration = static_cast<uint64_t>(iteration);
  options.bucket = bucket.index;
  CollectiveReport rep = execute_plan(plan, grads, options);

  // DDP divides the sum by N (SkipReduce keeps that division: skipped chunks are biased low).
  for (auto& g : grads)
    for (float& v : g) v *= inv_n;

  ReduceReport report;
  report.bytes_on_wire = rep.bytes_on_wire;
  report.codec_time_s = rep.codec_time_s;
  report.comm_time_s = rep.time_s - rep.codec_time_s;
  report.skipped_contributions = plan.dropped.size();
  report.trimmed_packets = rep.packets_trimmed;
  report.payload_bytes = rep.payload_bytes;
  report.reference_bytes =
      static_cast<uint64_t>(static_cast<double>(rep.payload_bytes) / 4.0 * wire_element_bytes_);
  report.info_bits = 8.0 * static_cast<double>(rep.bytes_on_wire);
  if (trim_) {
    TrimWireStats ts = trim_->take_stats();
    // Packets that arrived trimmed: the network counts them in queue mode (NDP's retransmitted
    // ones too; the decoder sees those whole), the decoder in Bernoulli mode (the network trims
    // nothing). Adding both counted accept-trimmed packets twice.
    if (!options.want_fates) report.trimmed_packets = ts.trimmed;
    // What the decoders received: heads of trimmed packets, full precision of the rest.
    report.info_bits = ts.bits;
    report.payload_bytes = ts.coordinates * sizeof(float);
  }
  double worst = 0;
  for (int r = 0; r < n; ++r) worst = std::max(worst, nmse(grads[r], exact_));
  report.nmse = worst;
  report.plane_entropy = std::move(planes);

  totals_.add(report);
  totals_.skipped_steps += static_cast<uint64_t>(req.skip.skip);
  totals_.skipped_contributions += plan.dropped.size();
  return report;
}

}  // namespace commlab
