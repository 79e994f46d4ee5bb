#include "workload/chakra/chakra_placement.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "io/status.h"

namespace commlab::workload::chakra_place {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw bad_input(where + ": " + what);
}

class Placer {
 public:
  Placer(RawRank& raw, RankGraph* out, uint64_t* forwarded, uint64_t max_forwarded)
      : raw_(raw), out_(out), forwarded_(*forwarded), max_forwarded_(max_forwarded) {}
  void run();

 private:
  std::string at_node(uint64_t id) const {
    return raw_.file + ": rank " + std::to_string(raw_.rank) + ", node " + std::to_string(id);
  }
  void index_ids();
  void resolve_deps();
  void sort_topologically();
  void emit(uint32_t v);
  void count_forwarded(uint32_t v, uint64_t count, uint32_t through);
  void move_nodes();

  RawRank& raw_;
  RankGraph* out_;
  std::vector<std::pair<uint64_t, uint32_t>> index_;  // (node id, raw index), sorted
  std::vector<uint32_t> deps_;                        // raw_.dep_ids as raw indices
  std::vector<uint32_t> position_;                    // raw index -> position in the RankGraph
  std::unordered_map<uint32_t, std::vector<uint32_t>> inherited_;  // skipped node -> positions
  uint64_t& forwarded_;
  const uint64_t max_forwarded_;
  uint32_t placed_ = 0;
  std::vector<uint32_t> stamp_;  // dedupe marks per position
  uint32_t stamp_now_ = 0;
  std::vector<uint32_t> lists_[2];  // data, ctrl positions of the node being placed (reused)
};

void Placer::run() {
  placed_ = static_cast<uint32_t>(out_->nodes.size());
  index_ids();
  resolve_deps();
  sort_topologically();
  index_ = {};
  deps_ = {};
  inherited_ = {};
  move_nodes();
}

// Ids sorted with their file position (16 bytes a node, where a hash map took about 40); the
// duplicate reported is the earliest in the file, as when each node was checked on reading.
void Placer::index_ids() {
  const auto count = static_cast<uint32_t>(raw_.nodes.size());
  index_.reserve(count);
  for (uint32_t v = 0; v < count; ++v) index_.emplace_back(raw_.nodes[v].id, v);
  std::sort(index_.begin(), index_.end());
  uint32_t duplicate = UINT32_MAX, first = 0;
  for (size_t i = 1; i < index_.size(); ++i)
    if (index_[i].first == index_[i - 1].first && index_[i].second < duplicate) {
      duplicate = index_[i].second;
      first = index_[i - 1].second;
    }
  if (duplicate != UINT32_MAX)
    fail(at_node(raw_.nodes[duplicate].id), "duplicate node id (first at byte offset " +
                                                std::to_string(raw_.links[first].offset) + ")");
}

void Placer::resolve_deps() {
  deps_.resize(raw_.dep_ids.size());
  for (uint32_t v = 0; v < raw_.nodes.size(); ++v) {
    const RawLinks& r = raw_.links[v];
    for (uint64_t i = r.dep_begin; i < r.dep_begin + r.data + r.ctrl; ++i) {
      const uint64_t id = raw_.dep_ids[i];
      auto it = std::lower_bound(index_.begin(), index_.end(), std::make_pair(id, uint32_t{0}));
      if (it == index_.end() || it->first != id)
        fail(at_node(raw_.nodes[v].id), std::string(i < r.dep_begin + r.data ? "data" : "control") +
                                            " dependency on node " + std::to_string(id) +
                                            ", which is not in the trace");
      deps_[i] = it->second;
    }
  }
  raw_.dep_ids = {};
}

// Depth-first from each node in file order, dependencies first; a dependency still on the stack
// closes a cycle.
void Placer::sort_topologically() {
  const auto count = static_cast<uint32_t>(raw_.nodes.size());
  std::vector<uint8_t> state(count, 0);  // 0 new, 1 on the DFS stack, 2 placed
  position_.assign(count, UINT32_MAX);
  std::vector<std::pair<uint32_t, uint64_t>> stack;  // node, next dependency
  for (uint32_t root = 0; root < count; ++root) {
    if (state[root]) continue;
    state[root] = 1;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [v, k] = stack.back();
      const RawLinks& r = raw_.links[v];
      if (k < uint64_t{r.data} + r.ctrl) {
        const uint32_t d = deps_[r.dep_begin + k++];
        if (state[d] == 1)
          fail(at_node(raw_.nodes[v].id), "lies on a dependency cycle (through node " +
                                              std::to_string(raw_.nodes[d].id) + ")");
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
  const RawLinks& r = raw_.links[v];
  std::vector<uint32_t>(&lists)[2] = lists_;
  lists[0].clear();
  lists[1].clear();
  if (stamp_.size() < placed_ + 1) stamp_.resize(placed_ + 1, 0);
  ++stamp_now_;
  auto take = [&](std::vector<uint32_t>& list, uint32_t pos) {
    if (stamp_[pos] == stamp_now_) return;  // through skipped nodes a dependency can recur
    stamp_[pos] = stamp_now_;
    list.push_back(pos);
  };
  for (uint64_t i = 0; i < uint64_t{r.data} + r.ctrl; ++i) {
    const uint32_t d = deps_[r.dep_begin + i];
    std::vector<uint32_t>& list = lists[r.skipped || i < r.data ? 0 : 1];
    if (raw_.links[d].skipped) {
      const std::vector<uint32_t>& passed = inherited_[d];
      if (!r.skipped) count_forwarded(v, passed.size(), d);  // before the copy, not after
      for (uint32_t p : passed) take(list, p);
    } else if (r.skipped) {
      take(list, position_[d]);
    } else {
      list.push_back(position_[d]);  // a kept node's own list stays as written
    }
  }
  if (r.skipped) {
    count_forwarded(v, lists[0].size(), v);
    inherited_[v] = lists[0];
    return;
  }
  Node& node = raw_.nodes[v];
  for (int k = 0; k < 2; ++k)
    if (lists[k].size() > UINT16_MAX)
      fail(at_node(node.id), std::string(k ? "control" : "data") + " dependencies: " +
                                 std::to_string(lists[k].size()) + " (at most 65535)");
  if (out_->deps.size() + lists[0].size() + lists[1].size() > UINT32_MAX)
    fail(at_node(node.id), "more than 2^32 - 1 dependencies in one rank");
  node.dep_begin = static_cast<uint32_t>(out_->deps.size());
  node.data_deps = static_cast<uint16_t>(lists[0].size());
  node.ctrl_deps = static_cast<uint16_t>(lists[1].size());
  for (const auto& list : lists) out_->deps.insert(out_->deps.end(), list.begin(), list.end());
  position_[v] = placed_++;
}

void Placer::count_forwarded(uint32_t v, uint64_t count, uint32_t through) {
  forwarded_ += count;
  if (forwarded_ > max_forwarded_)
    fail(at_node(raw_.nodes[v].id),
         "dependencies passed on through skipped nodes: " + std::to_string(forwarded_) +
             " in the trace so far (this node's through skipped node " +
             std::to_string(raw_.nodes[through].id) + ": " + std::to_string(count) +
             "), over the budget of " + std::to_string(max_forwarded_) +
             " (ChakraReadBudgets::forwarded_deps)");
}

// The kept nodes to the front in file order, then each to its position by following the
// permutation's cycles: the file's Node array becomes the RankGraph's without a second copy.
void Placer::move_nodes() {
  std::vector<Node>& nodes = raw_.nodes;
  const auto base = static_cast<uint32_t>(out_->nodes.size());
  std::vector<uint32_t>& dest = position_;  // reused: kept node k (file order) -> its slot
  uint32_t kept = 0;
  for (uint32_t v = 0; v < nodes.size(); ++v)
    if (!raw_.links[v].skipped) {
      dest[kept] = position_[v] - base;
      if (kept != v) nodes[kept] = nodes[v];
      ++kept;
    }
  nodes.resize(kept);
  for (uint32_t i = 0; i < kept; ++i)
    while (dest[i] != i) {
      const uint32_t j = dest[i];
      std::swap(nodes[i], nodes[j]);
      std::swap(dest[i], dest[j]);
    }
  if (base == 0) {
    out_->nodes = std::move(nodes);
  } else {
    out_->nodes.insert(out_->nodes.end(), nodes.begin(), nodes.end());
  }
  nodes = {};
}

}  // namespace

void place_rank(RawRank& raw, RankGraph* out, uint64_t* forwarded, uint64_t max_forwarded) {
  Placer(raw, out, forwarded, max_forwarded).run();
}

}  // namespace commlab::workload::chakra_place
