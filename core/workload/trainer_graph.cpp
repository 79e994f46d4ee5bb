#include "workload/trainer_graph.h"

#include <vector>

namespace commlab::workload {

Graph trainer_graph(const DataParallelTrainer& trainer, int wire_bytes, const std::string& name) {
  const std::vector<LayerCost>& layers = trainer.layer_costs();
  const std::vector<BucketInfo>& buckets = trainer.buckets();
  const int ranks = trainer.config().ranks;
  Graph g;
  g.name = name;
  g.ranks.resize(static_cast<size_t>(ranks));
  g.groups.emplace_back();
  for (int r = 0; r < ranks; ++r) g.groups[0].push_back(r);
  for (int r = 0; r < ranks; ++r) {
    RankGraph& rg = g.ranks[static_cast<size_t>(r)];
    uint64_t id = 1;
    auto compute = [&](double seconds, const std::string& what, std::vector<uint32_t> deps) {
      Node n;
      n.id = id++;
      n.name = g.intern(what);
      n.duration_s = seconds;
      return rg.add(n, deps, {});
    };
    std::vector<uint32_t> deps;
    for (size_t l = 0; l < layers.size(); ++l)
      deps = {compute(layers[l].forward_s, "fwd layer " + std::to_string(l), deps)};
    std::vector<uint32_t> done(layers.size());
    for (size_t l = layers.size(); l-- > 0;) {
      deps = {compute(layers[l].backward_s, "bwd layer " + std::to_string(l), deps)};
      done[l] = deps[0];
    }
    std::vector<uint32_t> before_step = deps;
    // Buckets in readiness order (last layer first), each once its layer's backward ends.
    for (size_t b = buckets.size(); b-- > 0;) {
      const BucketInfo& info = buckets[b];
      Node n;
      n.id = id++;
      n.name = g.intern("grad all-reduce " + info.name);
      n.kind = NodeKind::kCollective;
      n.op = CommOp::kAllReduce;
      n.comm = CommKind::kDp;
      n.stream = 1;
      n.bytes = static_cast<uint64_t>(info.size) * static_cast<uint64_t>(wire_bytes);
      n.group_or_peer = 0;
      before_step.push_back(rg.add(n, {done[static_cast<size_t>(info.layer)]}, {}));
    }
    compute(0, "optimizer", before_step);
  }
  check_graph(g);
  return g;
}

}  // namespace commlab::workload
