#include "scenario/run/proxy_timer.h"

#include <algorithm>
#include <stdexcept>

#include "codec/codec.h"
#include "collective/simulated_executor.h"
#include "scenario/config_problem.h"
#include "topology/gpu_presets.h"

namespace commlab {

ProxyBuckets proxy_buckets(const ProxyModel& model, size_t cap_elements) {
  ProxyBuckets out;
  const size_t n = model.layers.size();
  out.layer_bucket.assign(n, -1);
  std::vector<size_t> offsets(n);
  for (size_t l = 0, at = 0; l < n; ++l) offsets[l] = at, at += model.layers[l].params;
  size_t l = n;
  while (l > 0) {
    // Layers [first, end) in forward order, gathered from the back.
    const size_t end = l;
    size_t elements = static_cast<size_t>(model.layers[--l].params);
    while (l > 0 && elements + static_cast<size_t>(model.layers[l - 1].params) <= cap_elements)
      elements += static_cast<size_t>(model.layers[--l].params);
    const size_t first = l;
    if (elements == 0) continue;
    BucketInfo b;
    b.index = static_cast<int>(out.buckets.size());
    b.layer = static_cast<int>(first);
    b.name = end - first == 1 ? model.layers[first].name
                              : model.layers[first].name + ".." + model.layers[end - 1].name;
    b.offset = offsets[first];
    b.size = elements;
    out.layer_bucket[first] = b.index;  // its backward ends last of the bucket's layers
    out.buckets.push_back(std::move(b));
  }
  return out;
}

ProxyTimer::ProxyTimer(const RunConfig& config, NetworkBackend& backend,
                       const CollectiveReducer& reducer)
    : config_(config), backend_(backend), reducer_(reducer) {
  if (config.cluster.backend != ClusterBackend::kAnalytical)
    throw ConfigError("workload.time_as",
                      "proxy timing runs on cluster.backend analytical (a packet simulation of "
                      "a large model's gradients every iteration would take hours), got " +
                          enum_name(config.cluster.backend));
  try {
    model_ = find_proxy_model(config.workload.time_as, config.workload.seq);
  } catch (const std::invalid_argument& e) {
    throw ConfigError("workload.time_as", e.what());
  }
  // DDP buckets FP32 gradients: bucket_mb MiB hold bucket_mb x 2^18 elements.
  const auto cap = static_cast<size_t>(config.workload.bucket_mb * (1 << 20) / 4);
  buckets_ = proxy_buckets(model_, std::max<size_t>(cap, 1));
  ComputeModel compute;
  compute.gpu = gpu_preset(config.cluster.gpu);
  compute.mfu = config.cluster.mfu;
  // Samples per rank; BF16 weights streamed once forward, twice backward (the trainer's charge).
  const double micro = static_cast<double>(config.training.global_batch) / config.training.ranks;
  for (size_t l = 0; l < model_.layers.size(); ++l) {
    const ProxyLayer& layer = model_.layers[l];
    const double weight_bytes = 2.0 * static_cast<double>(layer.params);
    LayerCost c;
    c.forward_s = compute.time(layer.forward_flops * micro, weight_bytes);
    c.backward_s = compute.time(2 * layer.forward_flops * micro, 2 * weight_bytes);
    c.bucket = buckets_.layer_bucket[l];
    layers_.push_back(c);
  }
  wire_element_bytes_ = static_cast<double>(dtype_size(config.collective.wire));
}

StepTiming ProxyTimer::time_iteration(int iteration, double ratio, double codec_s_per_byte) const {
  std::vector<double> comm(buckets_.buckets.size()), codec(buckets_.buckets.size());
  ExecutorOptions o;
  o.backend = &backend_;
  o.reduce_bandwidth_Bps = config_.cluster.reduce_gbps * 1e9;
  o.iteration = static_cast<uint64_t>(iteration);
  o.time_only_element_bytes = wire_element_bytes_ * ratio;
  for (const BucketInfo& b : buckets_.buckets) {
    o.bucket = b.index;
    const Plan plan = reducer_.plan_for(iteration, b, config_.training.ranks);
    comm[b.index] = execute_plan(plan, {}, o).time_s;
    codec[b.index] = codec_s_per_byte * 4.0 * static_cast<double>(b.size);
  }
  return overlap_step(layers_, comm, codec);
}

void ProxyTimer::retime(Sample& s) {
  // The data plane's codec seconds per FP32 gradient byte of its own model this iteration.
  uint64_t small_elements = 0;
  for (const BucketSample& b : s.buckets) small_elements += b.elements;
  const double codec_s_per_byte =
      small_elements ? s.codec_total_s / (4.0 * static_cast<double>(small_elements)) : 0.0;
  const StepTiming t = time_iteration(s.iteration - 1, s.ratio, codec_s_per_byte);
  clock_s_ += t.step_s;
  s.sim_time_s = clock_s_;
  set_step_timing(s, t);
}

}  // namespace commlab
