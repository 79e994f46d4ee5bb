#include "topology/topology.h"

#include <cmath>
#include <deque>
#include <stdexcept>

#include "io/status.h"

namespace commlab {

const char* node_kind_name(NodeKind kind) {
  switch (kind) {
    case NodeKind::kGpu: return "gpu";
    case NodeKind::kNvSwitch: return "nvswitch";
    case NodeKind::kPcieSwitch: return "pcie-switch";
    case NodeKind::kNic: return "nic";
    case NodeKind::kSwitch: return "switch";
  }
  return "?";
}

int Topology::add_node(NodeKind kind, std::string name, int server, int tier) {
  nodes_.push_back(Node{kind, std::move(name), server, tier});
  out_.emplace_back();
  in_.emplace_back();
  int id = static_cast<int>(nodes_.size()) - 1;
  if (kind == NodeKind::kGpu) gpus_.push_back(id);
  return id;
}

int Topology::add_link(int from, int to, double bandwidth_Bps, double latency_s,
                       uint64_t buffer_bytes) {
  int n = static_cast<int>(nodes_.size());
  if (from < 0 || from >= n || to < 0 || to >= n || from == to)
    throw bad_input("topology '" + name_ + "': link " + std::to_string(from) + "->" +
                    std::to_string(to) + " does not join two distinct nodes");
  links_.push_back(Link{from, to, bandwidth_Bps, latency_s, buffer_bytes});
  int id = static_cast<int>(links_.size()) - 1;
  out_[from].push_back(id);
  in_[to].push_back(id);
  return id;
}

void Topology::add_duplex(int a, int b, double bandwidth_Bps, double latency_s,
                          uint64_t buffer_bytes) {
  add_link(a, b, bandwidth_Bps, latency_s, buffer_bytes);
  add_link(b, a, bandwidth_Bps, latency_s, buffer_bytes);
}

void Topology::check() const {
  auto where = [&](const Link& l) {
    return "topology '" + name_ + "': link " + nodes_[l.from].name + "->" + nodes_[l.to].name;
  };
  if (gpus_.empty()) throw bad_input("topology '" + name_ + "': has no GPU");
  for (const Link& l : links_) {
    if (!(l.bandwidth_Bps > 0) || !std::isfinite(l.bandwidth_Bps))
      throw bad_input(where(l) + ": bandwidth must be a positive finite number");
    if (!(l.latency_s >= 0) || !std::isfinite(l.latency_s))
      throw bad_input(where(l) + ": latency must be >= 0");
  }
  // Every GPU must reach every other: forward reachability from GPU 0 and backward to it.
  for (bool forward : {true, false}) {
    std::vector<char> seen(nodes_.size(), 0);
    std::deque<int> queue{gpus_[0]};
    seen[gpus_[0]] = 1;
    while (!queue.empty()) {
      int v = queue.front();
      queue.pop_front();
      for (int li : forward ? out_[v] : in_[v]) {
        int w = forward ? links_[li].to : links_[li].from;
        if (!seen[w]) {
          seen[w] = 1;
          queue.push_back(w);
        }
      }
    }
    for (int g : gpus_)
      if (!seen[g])
        throw bad_input("topology '" + name_ + "': the graph is disconnected: " + nodes_[g].name +
                        (forward ? " cannot be reached from " : " cannot reach ") +
                        nodes_[gpus_[0]].name);
  }
}

Topology make_flat(int ranks, double bandwidth_Bps, double alpha_s) {
  if (ranks < 1) throw bad_input("flat topology: ranks must be >= 1");
  Topology t("flat");
  int xbar = t.add_node(NodeKind::kSwitch, "crossbar", -1, 1);
  for (int r = 0; r < ranks; ++r) {
    int g = t.add_node(NodeKind::kGpu, "gpu" + std::to_string(r), r);
    t.add_link(g, xbar, bandwidth_Bps, alpha_s);
    t.add_link(xbar, g, bandwidth_Bps, 0.0);
  }
  return t;
}

}  // namespace commlab
