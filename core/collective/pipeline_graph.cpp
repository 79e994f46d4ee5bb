#include "collective/pipeline_graph.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "collective/plan.h"
#include "numeric/rng.h"

namespace commlab {

namespace {

// Where the flows of one step instance (a repetition of a step) start in the graph, and how many
// transfers each of its slices has.
struct Instance {
  uint32_t base = 0;
  uint32_t transfers = 0;
};

uint64_t connection_key(const PipelinedStep& step, const Flow& f) {
  const uint64_t pair = hash_combine(static_cast<uint64_t>(f.src), static_cast<uint64_t>(f.dst));
  return step.every_rank_sends ? pair : hash_combine(pair, step.phase);
}

void check_steps(std::span<const PipelinedStep> steps, int ranks, uint64_t loop, uint64_t loops,
                 uint64_t slices) {
  if (ranks <= 0 || loops == 0 || slices == 0 || loop >= loops)
    throw std::logic_error("pipeline_graph: needs ranks, loops and slices > 0, loop < loops");
  for (const PipelinedStep& step : steps)
    for (const Flow& f : step.flows)
      if (f.src < 0 || f.src >= ranks || f.dst < 0 || f.dst >= ranks)
        throw std::logic_error("pipeline_graph: a flow joins ranks " + std::to_string(f.src) +
                               "->" + std::to_string(f.dst) + ", outside [0, " +
                               std::to_string(ranks) + ")");
}

}  // namespace

FlowGraph pipeline_graph(std::span<const PipelinedStep> steps, int ranks, uint64_t loop,
                         uint64_t loops, uint64_t slices) {
  check_steps(steps, ranks, loop, loops, slices);
  const uint64_t m = loops * slices;
  FlowGraph g;
  g.needs_begin.push_back(0);
  // Per rank: the latest instance that delivered to it, and which of its transfers did.
  std::vector<Instance> input_of(ranks);
  std::vector<std::vector<uint32_t>> inputs(ranks), delivered(ranks);
  std::unordered_map<uint64_t, int32_t> last_on_connection;
  for (const PipelinedStep& step : steps) {
    const auto transfers = static_cast<uint32_t>(step.flows.size());
    for (uint32_t rep = 0; rep < step.repeat; ++rep) {
      const Instance here{static_cast<uint32_t>(g.flows.size()), transfers};
      for (uint64_t k = 0; k < slices; ++k) {
        const uint64_t piece = loop * slices + k;
        for (const Flow& whole : step.flows) {
          Flow f = whole;
          f.bytes = chunk_start(whole.bytes, m, piece + 1) - chunk_start(whole.bytes, m, piece);
          const Instance& in = input_of[f.src];
          for (uint32_t t : inputs[f.src])
            g.needs.push_back(in.base + static_cast<uint32_t>(k) * in.transfers + t);
          g.needs_begin.push_back(static_cast<uint32_t>(g.needs.size()));
          int32_t& last = last_on_connection.try_emplace(connection_key(step, f), -1).first->second;
          g.after_sent.push_back(last);
          last = static_cast<int32_t>(g.flows.size());
          g.settle_s.push_back(step.settle_s);
          g.flows.push_back(f);
        }
      }
      for (auto& d : delivered) d.clear();
      for (uint32_t j = 0; j < transfers; ++j) delivered[step.flows[j].dst].push_back(j);
      for (int r = 0; r < ranks; ++r)
        if (!delivered[r].empty()) {
          input_of[r] = here;
          inputs[r].swap(delivered[r]);
        }
    }
  }
  return g;
}

PipelineGraphTime time_pipeline_graph(NetworkBackend& backend, std::span<const PipelinedStep> steps,
                                      int ranks, uint64_t loops, uint64_t slices) {
  PipelineGraphTime out;
  for (uint64_t loop = 0; loop < loops; ++loop) {
    const FlowGraph g = pipeline_graph(steps, ranks, loop, loops, slices);
    const StepResult r = backend.time_flow_graph(g);
    double end = 0;
    for (size_t i = 0; i < r.flows.size(); ++i) {
      end = std::max(end, r.flows[i].finish_s + g.settle_s[i]);
      out.trimmed += r.flows[i].trimmed;
      out.dropped += r.flows[i].dropped;
    }
    out.time_s += end;
  }
  return out;
}

}  // namespace commlab
