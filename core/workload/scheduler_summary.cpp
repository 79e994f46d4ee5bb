// The end of a replay (scheduler_state.h): iteration time, busy and waiting time per stream, the
// critical path and its parts, and the recorded timelines.
#include <algorithm>

#include "workload/scheduler.h"
#include "workload/scheduler_state.h"

namespace commlab::workload::detail {

void summarize_schedule(const Graph& graph, const std::vector<RankState>& ranks,
                        const SchedulerOptions& options, uint64_t total, ScheduleResult& out) {
  Pred last;
  double end = -1;
  for (int r = 0; r < graph.rank_count(); ++r) {
    const RankState& s = ranks[r];
    for (uint32_t v = 0; v < s.nodes.size(); ++v)
      if (s.nodes[v].end_s > end) end = s.nodes[v].end_s, last = Pred{r, v};
  }
  out.iteration_s = std::max(end, 0.0);
  if (options.want_critical_path && last.rank >= 0) {
    for (Pred p = last; p.rank >= 0 && out.critical_path.size() <= total;) {
      const RankState& s = ranks[p.rank];
      out.critical_path.push_back(
          CriticalStep{p.rank, p.node, s.nodes[p.node].start_s, s.nodes[p.node].end_s});
      p = s.nodes[p.node].pred;
    }
    std::reverse(out.critical_path.begin(), out.critical_path.end());
    double covered = 0;
    for (const CriticalStep& c : out.critical_path) {
      const Node& node = graph.ranks[c.rank].nodes[c.node];
      const double d = c.end_s - c.start_s;
      covered += d;
      if (node.kind == NodeKind::kCompute)
        out.critical_compute_s += d;
      else
        out.exposed_s[static_cast<int>(node.comm)] += d;
    }
    out.critical_idle_s = std::max(0.0, out.iteration_s - covered);
  }
  for (int r : timeline_ranks(options, graph.rank_count())) {
    const RankState& s = ranks[r];
    std::vector<TimelineEntry> line;
    line.reserve(s.nodes.size());
    for (uint32_t v = 0; v < s.nodes.size(); ++v)
      line.push_back(
          {v, graph.ranks[r].nodes[v].stream, s.ready_s[v], s.nodes[v].start_s, s.nodes[v].end_s});
    std::stable_sort(line.begin(), line.end(), [](const TimelineEntry& a, const TimelineEntry& b) {
      return a.start_s < b.start_s;
    });
    out.timeline_ranks.push_back(r);
    out.timelines.push_back(std::move(line));
  }
}

std::vector<int> timeline_ranks(const SchedulerOptions& options, int ranks) {
  std::vector<int> wanted;
  if (std::find(options.timeline_ranks.begin(), options.timeline_ranks.end(), -1) !=
      options.timeline_ranks.end()) {
    wanted.resize(ranks);
    for (int r = 0; r < ranks; ++r) wanted[r] = r;
    return wanted;
  }
  for (int r : options.timeline_ranks)
    if (r >= 0 && r < ranks) wanted.push_back(r);
  return wanted;
}

}  // namespace commlab::workload::detail
