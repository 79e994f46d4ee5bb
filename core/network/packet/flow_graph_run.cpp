// Flow graphs on the packet engine (backend.h, FlowGraph): a pipelined collective's slices, each
// started by the event that meets its last dependency: its inputs' arrival (complete()) plus their
// settle time, and the previous flow on its connection handing its last packet to the sender's
// NIC (send_data()), so a connection's slices follow each other on the wire without a gap.
#include <cmath>

#include "network/packet/packet_budget.h"
#include "network/packet/packet_sim.h"

namespace commlab {

namespace {

SimTime ps_of(double seconds) {
  return static_cast<SimTime>(std::llround(seconds * 1e12));
}

// Reverse adjacency in CSR form: for every flow, the flows that named it. `for_each_edge(f)`
// calls f(from, to) for every dependency of `to` on `from`; it is walked twice (count, fill).
template <typename Edges>
void invert(size_t n, Edges for_each_edge, std::vector<uint32_t>& begin,
            std::vector<uint32_t>& targets) {
  begin.assign(n + 1, 0);
  for_each_edge([&](uint32_t from, uint32_t) { ++begin[from + 1]; });
  for (size_t i = 0; i < n; ++i) begin[i + 1] += begin[i];
  targets.resize(begin[n]);
  std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
  for_each_edge([&](uint32_t from, uint32_t to) { targets[fill[from]++] = to; });
}

}  // namespace

StepResult PacketSim::run_graph(const FlowGraph& graph, bool want_fates,
                                std::vector<PacketFlowStats>* stats) {
  check_flow_graph(graph);
  StepResult result;
  begin_step(graph.flows, result, stats);
  const size_t n = graph.flows.size();
  GraphRun& g = graph_;
  g.graph = &graph;
  g.want_fates = want_fates;
  g.waiting.assign(n, 0);
  g.ready.assign(n, now_);
  g.started.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i)
    g.waiting[i] = graph.needs_begin[i + 1] - graph.needs_begin[i] + (graph.after_sent[i] >= 0);
  invert(
      n,
      [&](auto edge) {
        for (uint32_t i = 0; i < n; ++i)
          for (uint32_t k = graph.needs_begin[i]; k < graph.needs_begin[i + 1]; ++k)
            edge(graph.needs[k], i);
      },
      g.on_arrival_begin, g.on_arrival);
  invert(
      n,
      [&](auto edge) {
        for (uint32_t i = 0; i < n; ++i)
          if (graph.after_sent[i] >= 0) edge(static_cast<uint32_t>(graph.after_sent[i]), i);
      },
      g.on_sent_begin, g.on_sent);
  step_remaining_ = n;  // every flow, trivial ones included, counts until it has arrived
  for (uint32_t i = 0; i < n; ++i)
    if (g.waiting[i] == 0) schedule(now_, EventKind::kStartFlow, i);
  check_sim_budget(config_.budget, 0, memory_bytes());
  finish_step(result);
  return result;
}

void PacketSim::release(uint32_t dependent, SimTime ready) {
  GraphRun& g = graph_;
  g.ready[dependent] = std::max(g.ready[dependent], ready);
  if (--g.waiting[dependent] == 0)
    schedule(std::max(now_, g.ready[dependent]), EventKind::kStartFlow, dependent);
}

void PacketSim::release_sent(uint32_t index) {
  for (uint32_t k = graph_.on_sent_begin[index]; k < graph_.on_sent_begin[index + 1]; ++k)
    release(graph_.on_sent[k], now_);
}

void PacketSim::release_arrived(uint32_t index) {
  const SimTime usable = now_ + ps_of(graph_.graph->settle_s[index]);
  for (uint32_t k = graph_.on_arrival_begin[index]; k < graph_.on_arrival_begin[index + 1]; ++k)
    release(graph_.on_arrival[k], usable);
}

void PacketSim::on_start_flow(uint32_t index) {
  GraphRun& g = graph_;
  // An event left over from a graph that failed (max_step_s) may name a flow of a later graph:
  // only a flow whose dependencies are met and whose start time has come starts, once.
  if (!g.graph || index >= g.started.size() || g.started[index] || g.waiting[index] != 0 ||
      now_ < g.ready[index])
    return;
  g.started[index] = 1;
  const Flow& fl = g.graph->flows[index];
  if (fl.src != fl.dst && fl.bytes > 0) {
    open_flow(fl.src, fl.dst, fl.bytes, fl.id, static_cast<int>(index), g.want_fates);
    return;
  }
  // Nothing to send: sent at once, arrived after the path latency (as run_step times it).
  const double latency = fl.src == fl.dst ? 0.0 : path_latency_s(fl);
  (*step_results_)[index].finish_s = static_cast<double>(now_ - step_start_) * 1e-12 + latency;
  --step_remaining_;
  release_sent(index);
  const SimTime usable = now_ + ps_of(latency) + ps_of(g.graph->settle_s[index]);
  for (uint32_t k = g.on_arrival_begin[index]; k < g.on_arrival_begin[index + 1]; ++k)
    release(g.on_arrival[k], usable);
}

}  // namespace commlab
