#include "collective/executor.h"

#include <algorithm>
#include <stdexcept>

#include "numeric/rng.h"

namespace commlab {

namespace {

uint64_t flow_id(const Transfer& t) {
  return hash_combine(static_cast<uint64_t>(t.src), static_cast<uint64_t>(t.dst));
}

// Rescale chunks after unbiased SkipReduce on the ranks that hold the reduced chunk.
void apply_chunk_scale(const Plan& plan, std::vector<std::span<float>>& buffers) {
  if (plan.chunk_scale.empty()) return;
  for (size_t c = 0; c < plan.chunk_scale.size(); ++c) {
    float scale = static_cast<float>(plan.chunk_scale[c]);
    for (int r = 0; r < plan.ranks; ++r) {
      if (plan.op == CollectiveOp::kReduceScatter && plan.chunk_owner[c] != r) continue;
      for (uint64_t i = plan.chunk_begin[c]; i < plan.chunk_begin[c + 1]; ++i)
        buffers[r][i] *= scale;
    }
  }
}

}  // namespace

CollectiveReport execute_plan(const Plan& plan, std::vector<std::span<float>> buffers,
                              const ExecutorOptions& options) {
  const bool data = !buffers.empty();
  if (data) {
    if (static_cast<int>(buffers.size()) != plan.ranks)
      throw std::invalid_argument("execute_plan: one buffer per rank expected");
    for (const auto& b : buffers)
      if (b.size() < plan.count) throw std::invalid_argument("execute_plan: buffer too short");
  }
  Fp32Wire fp32;
  TransferCodec& codec = options.codec ? *options.codec : fp32;
  CollectiveReport report;
  std::vector<std::vector<std::byte>> wire;
  std::vector<Flow> flows;
  std::vector<std::vector<size_t>> by_dst(plan.ranks);
  std::vector<uint64_t> reduced_elems(plan.ranks);

  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const PlanStep& step = plan.steps[s];
    const size_t n = step.transfers.size();
    if (wire.size() < n) wire.resize(n);
    flows.resize(n);
    CollectiveStepTime timing{step.phase, step.repeat};

    // Encode every transfer from the senders' buffers as they are at the start of the step.
    // Threads only pay off on large steps (a parallel region costs microseconds, more when the
    // machine is oversubscribed).
    uint64_t step_elements = 0;
    for (const Transfer& t : step.transfers) step_elements += t.count;
    const bool parallel = step_elements >= (1u << 18) && n > 1;
    if (data) {
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
      for (size_t i = 0; i < n; ++i) {
        const Transfer& t = step.transfers[i];
        WireContext ctx{&t, s, options.iteration, options.bucket};
        codec.encode(ctx, buffers[t.src].subspan(t.offset, t.count), wire[i]);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const Transfer& t = step.transfers[i];
      uint64_t bytes = data ? wire[i].size() : t.count * sizeof(float);
      flows[i] = Flow{t.src, t.dst, bytes, flow_id(t)};
      timing.wire_bytes += bytes;
      timing.codec_s = std::max(timing.codec_s, codec.codec_time_s(t.count * sizeof(float)));
      report.payload_bytes += t.count * sizeof(float) * step.repeat;
    }

    // Time the step's flows on the network (a stateful backend sees every repetition).
    StepResult timed;
    if (options.backend) {
      StepOptions so{options.want_fates};
      bool fold = !options.backend->stateful();
      for (uint32_t rep = 0; rep < (fold ? 1u : step.repeat); ++rep) {
        timed = options.backend->time_step(flows, so);
        timing.network_s += timed.duration_s / (fold ? 1 : step.repeat);
        for (const FlowResult& f : timed.flows) {
          report.packets_trimmed += f.trimmed * (fold ? step.repeat : 1);
          report.packets_dropped += f.dropped * (fold ? step.repeat : 1);
        }
      }
    }

    // Decode and reduce, grouped by receiver so every rank applies its transfers in plan order.
    std::fill(reduced_elems.begin(), reduced_elems.end(), 0);
    for (auto& list : by_dst) list.clear();
    for (size_t i = 0; i < n; ++i) {
      by_dst[step.transfers[i].dst].push_back(i);
      if (step.transfers[i].reduce) reduced_elems[step.transfers[i].dst] += step.transfers[i].count;
    }
    if (data) {
#pragma omp parallel if (parallel)
      {
        std::vector<float> decoded;
#pragma omp for schedule(dynamic, 1)
        for (int r = 0; r < plan.ranks; ++r) {
          for (size_t i : by_dst[r]) {
            const Transfer& t = step.transfers[i];
            WireContext ctx{&t, s, options.iteration, options.bucket};
            const FlowResult* fate = i < timed.flows.size() ? &timed.flows[i] : nullptr;
            std::span<float> target = buffers[r].subspan(t.offset, t.count);
            if (!t.reduce) {
              codec.decode(ctx, wire[i], fate, target);
              continue;
            }
            decoded.resize(t.count);
            codec.decode(ctx, wire[i], fate, decoded);
            float* dst = target.data();
            const float* src = decoded.data();
            for (uint64_t k = 0; k < t.count; ++k) dst[k] += src[k];
          }
        }
      }
    }
    if (options.reduce_bandwidth_Bps > 0) {
      uint64_t most = *std::max_element(reduced_elems.begin(), reduced_elems.end());
      timing.reduce_s =
          3.0 * sizeof(float) * static_cast<double>(most) / options.reduce_bandwidth_Bps;
    }
    report.time_s += step.repeat * (timing.network_s + timing.reduce_s + timing.codec_s);
    report.codec_time_s += step.repeat * timing.codec_s;
    report.steps += step.repeat;
    report.bytes_on_wire += timing.wire_bytes * step.repeat;
    report.step_timings.push_back(std::move(timing));
  }
  if (data) apply_chunk_scale(plan, buffers);
  return report;
}

}  // namespace commlab
