#include "workload/chakra/chakra_placement.h"

#include <stdexcept>
#include <utility>

namespace commlab::workload::chakra_place {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::invalid_argument(where + ": " + what);
}

class Placer {
 public:
  Placer(const RawRank& raw, RankGraph* out, uint64_t* forwarded, uint64_t max_forwarded)
      : raw_(raw), out_(out), forwarded_(*forwarded), max_forwarded_(max_forwarded) {}
  void run();

 private:
  std::string at_node(uint64_t id) const {
    return raw_.file + ": rank " + std::to_string(raw_.rank) + ", node " + std::to_string(id);
  }
  void emit(uint32_t v);
  void count_forwarded(const RawNode& r, uint64_t count, uint32_t through);

  const RawRank& raw_;
  RankGraph* out_;
  std::vector<uint32_t> deps_;      // raw_.dep_ids resolved to raw_.nodes indices
  std::vector<uint32_t> position_;  // raw index -> position in the RankGraph
  std::unordered_map<uint32_t, std::vector<uint32_t>> inherited_;  // skipped node -> positions
  uint64_t& forwarded_;
  const uint64_t max_forwarded_;
  std::vector<uint32_t> stamp_;  // dedupe marks per position
  uint32_t stamp_now_ = 0;
  std::vector<uint32_t> lists_[2];  // data, ctrl positions of the node being placed (reused)
};

// Depth-first from each node in file order, dependencies first; a dependency still on the stack
// closes a cycle.
void Placer::run() {
  const auto count = static_cast<uint32_t>(raw_.nodes.size());
  deps_.resize(raw_.dep_ids.size());
  for (uint32_t v = 0; v < count; ++v) {
    const RawNode& r = raw_.nodes[v];
    for (uint64_t i = r.dep_begin; i < r.dep_begin + r.data + r.ctrl; ++i) {
      auto it = raw_.index.find(raw_.dep_ids[i]);
      if (it == raw_.index.end())
        fail(at_node(r.node.id), std::string(i < r.dep_begin + r.data ? "data" : "control") +
                                     " dependency on node " + std::to_string(raw_.dep_ids[i]) +
                                     ", which is not in the trace");
      deps_[i] = it->second;
    }
  }
  std::vector<uint8_t> state(count, 0);  // 0 new, 1 on the DFS stack, 2 placed
  position_.assign(count, UINT32_MAX);
  std::vector<std::pair<uint32_t, uint64_t>> stack;  // node, next dependency
  for (uint32_t root = 0; root < count; ++root) {
    if (state[root]) continue;
    state[root] = 1;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [v, k] = stack.back();
      const RawNode& r = raw_.nodes[v];
      if (k < uint64_t{r.data} + r.ctrl) {
        const uint32_t d = deps_[r.dep_begin + k++];
        if (state[d] == 1)
          fail(at_node(r.node.id), "lies on a dependency cycle (through node " +
                                       std::to_string(raw_.nodes[d].node.id) + ")");
        if (state[d] == 0) {
          state[d] = 1;
          stack.emplace_back(d, 0);
        }
        continue;
      }
      state[v] = 2;
      const uint32_t placed = v;
      stack.pop_back();
      emit(placed);
    }
  }
}

void Placer::emit(uint32_t v) {
  const RawNode& r = raw_.nodes[v];
  std::vector<uint32_t>(&lists)[2] = lists_;
  lists[0].clear();
  lists[1].clear();
  if (stamp_.size() < out_->nodes.size() + 1) stamp_.resize(out_->nodes.size() + 1, 0);
  ++stamp_now_;
  auto take = [&](std::vector<uint32_t>& list, uint32_t pos) {
    if (stamp_[pos] == stamp_now_) return;  // through skipped nodes a dependency can recur
    stamp_[pos] = stamp_now_;
    list.push_back(pos);
  };
  for (uint64_t i = 0; i < uint64_t{r.data} + r.ctrl; ++i) {
    const uint32_t d = deps_[r.dep_begin + i];
    std::vector<uint32_t>& list = lists[r.skipped || i < r.data ? 0 : 1];
    if (raw_.nodes[d].skipped) {
      const std::vector<uint32_t>& passed = inherited_[d];
      if (!r.skipped) count_forwarded(r, passed.size(), d);  // before the copy, not after
      for (uint32_t p : passed) take(list, p);
    } else if (r.skipped) {
      take(list, position_[d]);
    } else {
      list.push_back(position_[d]);  // a kept node's own list stays as written
    }
  }
  if (r.skipped) {
    count_forwarded(r, lists[0].size(), v);
    inherited_[v] = lists[0];
    return;
  }
  for (int k = 0; k < 2; ++k)
    if (lists[k].size() > UINT16_MAX)
      fail(at_node(r.node.id), std::string(k ? "control" : "data") + " dependencies: " +
                                   std::to_string(lists[k].size()) + " (at most 65535)");
  position_[v] = out_->add(r.node, lists[0], lists[1]);
}

void Placer::count_forwarded(const RawNode& r, uint64_t count, uint32_t through) {
  forwarded_ += count;
  if (forwarded_ > max_forwarded_)
    fail(at_node(r.node.id),
         "dependencies passed on through skipped nodes: " + std::to_string(forwarded_) +
             " in the trace so far (this node's through skipped node " +
             std::to_string(raw_.nodes[through].node.id) + ": " + std::to_string(count) +
             "), over the budget of " + std::to_string(max_forwarded_) +
             " (ChakraReadBudgets::forwarded_deps)");
}

}  // namespace

void place_rank(const RawRank& raw, RankGraph* out, uint64_t* forwarded, uint64_t max_forwarded) {
  Placer(raw, out, forwarded, max_forwarded).run();
}

}  // namespace commlab::workload::chakra_place
