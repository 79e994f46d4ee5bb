#include "collective/simulated_executor.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

#include "collective/pipeline_graph.h"
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

// True when no transfer of the step reads a region another transfer of the step writes: then
// receivers can read straight from the senders' buffers (no wire copy) and get what the start of
// the step held. Rings, trees and halving-doubling qualify; direct all-reduce does not.
bool reads_untouched(const PlanStep& step, int ranks, std::vector<std::vector<Transfer>>& written) {
  for (auto& w : written) w.clear();
  for (const Transfer& t : step.transfers) written[t.dst].push_back(t);
  for (auto& w : written)
    std::sort(w.begin(), w.end(),
              [](const Transfer& a, const Transfer& b) { return a.offset < b.offset; });
  for (const Transfer& t : step.transfers) {
    if (t.src < 0 || t.src >= ranks) return false;
    const auto& w = written[t.src];
    // Any written region that starts before t's end and ends after its start overlaps it.
    auto end = std::lower_bound(w.begin(), w.end(), t.offset + t.count,
                                [](const Transfer& a, uint64_t v) { return a.offset < v; });
    for (auto it = w.begin(); it != end; ++it)
      if (it->offset + it->count > t.offset && it->count > 0 && t.count > 0) return false;
  }
  return true;
}

// Pipelining parameters of a chain of pipelined steps: `loops` loops of `slices` slices each.
struct Slicing {
  uint64_t loops = 1;
  uint64_t slices = 1;
};

Slicing slicing_for(const PipelineConfig& cfg, uint64_t chunk_bytes) {
  Slicing s;
  if (cfg.slice_bytes == 0 || chunk_bytes == 0) return s;
  const uint64_t loop_chunk = cfg.chunk_bytes == 0 ? chunk_bytes : cfg.chunk_bytes;
  s.loops = (chunk_bytes + loop_chunk - 1) / loop_chunk;
  const uint64_t per_loop = std::min(chunk_bytes, loop_chunk);
  s.slices = std::max<uint64_t>(1, (per_loop + cfg.slice_bytes - 1) / cfg.slice_bytes);
  return s;
}

// The largest transfer of the chain of pipelined steps starting at `first`: it fixes the chain's
// loops and slices.
uint64_t widest_in_chain(const Plan& plan, size_t first) {
  uint64_t widest = 0;
  for (size_t j = first; j < plan.steps.size() && plan.steps[j].pipelined; ++j)
    for (const Transfer& t : plan.steps[j].transfers)
      widest = std::max(widest, t.count * sizeof(float));
  return widest;
}

// True when every rank sends in the step (a ring's): its slices then share each rank's program
// order with every other step's instead of having connections of their own.
bool every_rank_sends(const PlanStep& step, int ranks) {
  std::vector<char> sends(ranks, 0);
  for (const Transfer& t : step.transfers) sends[t.src] = 1;
  return std::count(sends.begin(), sends.end(), 1) == ranks;
}

}  // namespace

double pipeline_time(std::span<const SliceCost> steps, uint64_t loops, uint64_t slices) {
  if (steps.empty() || loops == 0 || slices == 0) return 0;
  bool uniform = true;
  uint64_t depth = 0;
  for (const SliceCost& s : steps) {
    uniform &= s.link_s == steps[0].link_s && s.arrive_s == steps[0].arrive_s &&
               s.senders == steps[0].senders;
    depth += s.repeat;
  }
  const double k = static_cast<double>(slices);
  if (uniform) {  // the closed form (longest path: all program order, or all arrivals)
    const double b = steps[0].link_s, a = steps[0].arrive_s, d = static_cast<double>(depth);
    return static_cast<double>(loops) * std::max(d * k * b + a - b, d * a + (k - 1) * b);
  }
  // Loops are identical and each starts when the previous one's last slice arrived.
  std::vector<double> arrive(slices, 0.0);
  // When each sender finishes its previous slice: busy[r], but never before `floor` (set by
  // steps where every rank sends); `all` is the latest of them.
  std::vector<double> busy;
  double floor = 0, all = 0;
  for (const SliceCost& s : steps)
    for (int r : s.senders) busy.resize(std::max<size_t>(busy.size(), r + 1), 0.0);
  bool first = true;
  for (const SliceCost& s : steps) {
    for (uint32_t rep = 0; rep < s.repeat; ++rep) {
      for (uint64_t i = 0; i < slices; ++i) {
        double ready = s.senders.empty() ? all : floor;
        for (int r : s.senders) ready = std::max(ready, busy[r]);
        const double start = first ? ready : std::max(ready, arrive[i]);
        const double done = start + s.link_s;
        if (s.senders.empty()) floor = done;
        for (int r : s.senders) busy[r] = done;
        all = std::max(all, done);
        arrive[i] = start + s.arrive_s;
      }
      first = false;
    }
  }
  return static_cast<double>(loops) * arrive.back();
}

namespace {

// One execution of a plan, step after step: each step's transfers are encoded from the senders'
// buffers, timed on the network as flows, then decoded and reduced into the receivers' buffers;
// pipelined steps join a chain that is timed as a whole when it closes.
class PlanExecution {
 public:
  PlanExecution(const Plan& plan, std::vector<std::span<float>> buffers,
                const ExecutorOptions& options)
      : plan_(plan),
        buffers_(std::move(buffers)),
        options_(options),
        data_(!buffers_.empty()),
        codec_(options.codec ? *options.codec : fp32_),
        threads_(options.threads > 0 ? options.threads : std::max(1, omp_get_max_threads())),
        by_dst_(plan.ranks),
        written_(plan.ranks),
        reduced_elems_(plan.ranks),
        decoded_(threads_),
        // A stateful backend is timed step after step as it runs; pipelining needs extra probes,
        // unless the backend times the slices themselves as a flow graph (not with fates: the
        // data plane reads them per whole transfer).
        graph_pipeline_(options.backend && options.backend->times_flow_graphs() &&
                        !options.want_fates),
        can_pipeline_(options.backend && (!options.backend->stateful() || graph_pipeline_)) {
    if (data_) {
      if (static_cast<int>(buffers_.size()) != plan.ranks)
        throw std::logic_error("execute_plan: one buffer per rank expected");
      for (const auto& b : buffers_)
        if (b.size() < plan.count) throw std::logic_error("execute_plan: buffer too short");
    }
  }

  CollectiveReport run() {
    for (size_t s = 0; s < plan_.steps.size(); ++s) run_step(s);
    close_chain();
    if (data_) apply_chunk_scale(plan_, buffers_);
    return std::move(report_);
  }

 private:
  void run_step(size_t s) {
    const PlanStep& step = plan_.steps[s];
    CollectiveStepTime timing{step.phase, step.repeat};
    if (step.pipelined && can_pipeline_ && chain_.empty() && graph_chain_.empty())
      chain_slicing_ = slicing_for(plan_.pipeline, widest_in_chain(plan_, s));
    const uint64_t m = chain_slicing_.loops * chain_slicing_.slices;
    // One slice per loop is the bulk step, which a graph backend times as one (as --slice-bytes 0
    // asks); the closed form gives the bulk-synchronous time for it anyway.
    const bool in_chain = step.pipelined && can_pipeline_ && !(graph_pipeline_ && m == 1);
    const bool in_graph = in_chain && graph_pipeline_;  // timed with its chain, by slices
    // Threads only pay off on large steps (a parallel region costs microseconds, more when the
    // machine is oversubscribed).
    uint64_t step_elements = 0;
    for (const Transfer& t : step.transfers) step_elements += t.count;
    const bool parallel = step_elements >= (1u << 18) && step.transfers.size() > 1 && threads_ > 1;
    // Identity wire and no transfer reading what another writes: receivers read the senders'
    // buffers directly (the same bytes the wire would carry, without the copy).
    const bool direct = data_ && codec_.identity() && reads_untouched(step, plan_.ranks, written_);
    if (data_ && !direct) encode(s, parallel);
    const uint64_t largest = make_flows(step, direct, timing);
    const StepResult timed = in_graph ? StepResult{} : time_flows(step, timing);
    decode_and_reduce(s, direct, parallel, timed, timing);

    // Time plane: pipelined steps join the current chain; the others run after it, in bulk.
    if (in_chain) {
      const double settle_s = timing.reduce_s / m + codec_.codec_time_s(largest / m);
      const bool ring_like = every_rank_sends(step, plan_.ranks);
      if (graph_pipeline_)  // the backend times the slices themselves when the chain closes
        graph_chain_.push_back(PipelinedStep{flows_, step.repeat, settle_s, ring_like,
                                             std::hash<std::string>{}(step.phase)});
      else
        chain_.push_back(slice_cost(step, timing, settle_s, ring_like, m));
    } else {
      close_chain();
      report_.time_s += step.repeat * (timing.network_s + timing.reduce_s + timing.codec_s);
    }
    report_.codec_time_s += step.repeat * timing.codec_s;
    report_.steps += step.repeat;
    report_.bytes_on_wire += timing.wire_bytes * step.repeat;
    report_.step_timings.push_back(std::move(timing));
  }

  // Encodes every transfer of step s from the senders' buffers as they are at the start of the
  // step.
  void encode(size_t s, bool parallel) {
    const PlanStep& step = plan_.steps[s];
    const size_t n = step.transfers.size();
    if (wire_.size() < n) wire_.resize(n);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_) if (parallel)
    for (size_t i = 0; i < n; ++i) {
      const Transfer& t = step.transfers[i];
      WireContext ctx{&t, s, options_.iteration, options_.bucket};
      codec_.encode(ctx, buffers_[t.src].subspan(t.offset, t.count), wire_[i]);
    }
  }

  // The step's flows with the bytes each transfer puts on the wire; returns the largest
  // transfer's FP32 bytes.
  uint64_t make_flows(const PlanStep& step, bool direct, CollectiveStepTime& timing) {
    const size_t n = step.transfers.size();
    flows_.resize(n);
    uint64_t largest = 0;
    for (size_t i = 0; i < n; ++i) {
      const Transfer& t = step.transfers[i];
      const uint64_t bytes =
          !data_   ? static_cast<uint64_t>(std::llround(static_cast<double>(t.count) *
                                                        options_.time_only_element_bytes))
          : direct ? t.count * sizeof(float)
                   : wire_[i].size();
      flows_[i] = Flow{t.src, t.dst, bytes, flow_id(t)};
      largest = std::max(largest, t.count * sizeof(float));
      timing.wire_bytes += bytes;
      timing.codec_s = std::max(timing.codec_s, codec_.codec_time_s(t.count * sizeof(float)));
      report_.payload_bytes += t.count * sizeof(float) * step.repeat;
    }
    return largest;
  }

  // Times the step's flows on the network (a stateful backend sees every repetition).
  StepResult time_flows(const PlanStep& step, CollectiveStepTime& timing) {
    StepResult timed;
    if (!options_.backend) return timed;
    StepOptions so{options_.want_fates};
    const bool fold = !options_.backend->stateful();
    for (uint32_t rep = 0; rep < (fold ? 1u : step.repeat); ++rep) {
      timed = options_.backend->time_step(flows_, so);
      timing.network_s += timed.duration_s / (fold ? 1 : step.repeat);
      for (const FlowResult& f : timed.flows) {
        report_.packets_trimmed += f.trimmed * (fold ? step.repeat : 1);
        report_.packets_dropped += f.dropped * (fold ? step.repeat : 1);
      }
    }
    return timed;
  }

  // Decodes and reduces, grouped by receiver so every rank applies its transfers in plan order
  // (one thread per receiver: the result does not depend on the thread count); charges the
  // reduction's memory traffic to the step.
  void decode_and_reduce(size_t s, bool direct, bool parallel, const StepResult& timed,
                         CollectiveStepTime& timing) {
    const PlanStep& step = plan_.steps[s];
    std::fill(reduced_elems_.begin(), reduced_elems_.end(), 0);
    for (auto& list : by_dst_) list.clear();
    for (size_t i = 0; i < step.transfers.size(); ++i) {
      by_dst_[step.transfers[i].dst].push_back(i);
      if (step.transfers[i].reduce)
        reduced_elems_[step.transfers[i].dst] += step.transfers[i].count;
    }
    if (data_) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_) if (parallel)
      for (int r = 0; r < plan_.ranks; ++r) receive_all(s, r, direct, timed);
    }
    if (options_.reduce_bandwidth_Bps > 0) {
      const uint64_t most = *std::max_element(reduced_elems_.begin(), reduced_elems_.end());
      timing.reduce_s =
          3.0 * sizeof(float) * static_cast<double>(most) / options_.reduce_bandwidth_Bps;
    }
  }

  // Rank r's transfers of step s, in plan order (called from one thread per rank).
  void receive_all(size_t s, int r, bool direct, const StepResult& timed) {
    const PlanStep& step = plan_.steps[s];
    std::vector<float>& scratch = decoded_[omp_get_thread_num()];
    for (size_t i : by_dst_[r]) {
      const Transfer& t = step.transfers[i];
      float* dst = buffers_[r].data() + t.offset;
      const float* src;
      if (direct) {
        src = buffers_[t.src].data() + t.offset;
        if (!t.reduce) {
          std::copy(src, src + t.count, dst);
          continue;
        }
      } else {
        WireContext ctx{&t, s, options_.iteration, options_.bucket};
        const FlowResult* fate = i < timed.flows.size() ? &timed.flows[i] : nullptr;
        if (!t.reduce) {
          codec_.decode(ctx, wire_[i], fate, buffers_[r].subspan(t.offset, t.count));
          continue;
        }
        scratch.resize(t.count);
        codec_.decode(ctx, wire_[i], fate, scratch);
        src = scratch.data();
      }
      for (uint64_t k = 0; k < t.count; ++k) dst[k] += src[k];
    }
  }

  // Times the chain of pipelined steps built so far and starts a new one.
  void close_chain() {
    if (chain_.empty() && graph_chain_.empty()) return;
    if (graph_pipeline_) {
      const PipelineGraphTime t = time_pipeline_graph(*options_.backend, graph_chain_, plan_.ranks,
                                                      chain_slicing_.loops, chain_slicing_.slices);
      report_.time_s += t.time_s;
      report_.packets_trimmed += t.trimmed;
      report_.packets_dropped += t.dropped;
    } else {
      report_.time_s += pipeline_time(chain_, chain_slicing_.loops, chain_slicing_.slices);
    }
    report_.pipeline_loops = chain_slicing_.loops;
    report_.pipeline_slices = chain_slicing_.slices;
    chain_.clear();
    graph_chain_.clear();
    connections_.clear();
  }

  // One pipelined step for the closed form: probe one slice on the backend (its latency part
  // stays, its bandwidth part shrinks m-fold) and number the step's connections.
  SliceCost slice_cost(const PlanStep& step, const CollectiveStepTime& timing, double settle_s,
                       bool ring_like, uint64_t m) {
    SliceCost cost{0, timing.network_s + timing.reduce_s + timing.codec_s, step.repeat, {}};
    // Connections, unless every rank sends (rings): then the step shares them with every other.
    if (!ring_like)
      for (const Transfer& t : step.transfers) {
        // Per phase: a tree's reduce going up and its broadcast coming down are separate
        // channels even between the same two ranks (the double tree's two halves).
        const uint64_t phase = std::hash<std::string>{}(step.phase);
        const uint64_t key = hash_combine(
            phase, static_cast<uint64_t>(t.src) * static_cast<uint64_t>(plan_.ranks) + t.dst);
        auto it = connections_.try_emplace(key, static_cast<int>(connections_.size())).first;
        cost.senders.push_back(it->second);
      }
    if (m > 1) {
      std::vector<Flow> slice = flows_;
      for (Flow& f : slice) f.bytes = (f.bytes + m - 1) / m;
      const double slice_s = options_.backend->time_step(slice).duration_s;
      cost.link_s = std::max(0.0, (timing.network_s - slice_s) / static_cast<double>(m - 1));
      cost.arrive_s = slice_s + settle_s;
    } else {
      cost.link_s = 0;  // one slice: the bulk step (arrival) is all there is
    }
    return cost;
  }

  const Plan& plan_;
  std::vector<std::span<float>> buffers_;
  const ExecutorOptions& options_;
  const bool data_;  // buffers given: the data plane runs (else time only)
  Fp32Wire fp32_;
  TransferCodec& codec_;
  const int threads_;
  CollectiveReport report_;
  std::vector<std::vector<std::byte>> wire_;  // the step's encoded transfers
  std::vector<Flow> flows_;                   // the step's transfers as network flows
  std::vector<std::vector<size_t>> by_dst_;   // the step's transfers by receiver
  std::vector<std::vector<Transfer>> written_;
  std::vector<uint64_t> reduced_elems_;
  std::vector<std::vector<float>> decoded_;  // per thread
  const bool graph_pipeline_;
  const bool can_pipeline_;
  // The chain of pipelined steps being built.
  std::vector<SliceCost> chain_;
  std::vector<PipelinedStep> graph_chain_;
  std::unordered_map<uint64_t, int> connections_;  // of the current chain, densely numbered
  Slicing chain_slicing_;
};

}  // namespace

CollectiveReport execute_plan(const Plan& plan, std::vector<std::span<float>> buffers,
                              const ExecutorOptions& options) {
  return PlanExecution(plan, std::move(buffers), options).run();
}

}  // namespace commlab
