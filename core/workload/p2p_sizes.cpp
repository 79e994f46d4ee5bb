#include "workload/p2p_sizes.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "io/status.h"

namespace commlab::workload {

namespace {

struct Post {
  uint64_t bytes;
  uint32_t position;  // in its rank's nodes
};

struct Channel {
  std::vector<Post> sends;  // on the source rank
  std::vector<Post> recvs;  // on the destination rank
};

std::string node_text(const std::string& label, int rank, const Node& node) {
  return (label.empty() ? "" : label + "." + std::to_string(rank) + ".et: ") + "rank " +
         std::to_string(rank) + ", node " + std::to_string(node.id);
}

void sort_by_size(std::vector<Post>* posts) {
  std::sort(posts->begin(), posts->end(), [](const Post& a, const Post& b) {
    return std::tie(a.bytes, a.position) < std::tie(b.bytes, b.position);
  });
}

}  // namespace

void check_p2p_sizes(const Graph& graph, const std::string& label) {
  // (source, destination, tag); ordered, so the error reported is the same on every run.
  std::map<std::tuple<int, int, int32_t>, Channel> channels;
  for (int r = 0; r < graph.rank_count(); ++r) {
    const std::vector<Node>& nodes = graph.ranks[r].nodes;
    for (uint32_t v = 0; v < nodes.size(); ++v) {
      const Node& n = nodes[v];
      if (n.kind == NodeKind::kSend)
        channels[{r, n.group_or_peer, n.tag}].sends.push_back({n.bytes, v});
      else if (n.kind == NodeKind::kRecv)
        channels[{n.group_or_peer, r, n.tag}].recvs.push_back({n.bytes, v});
    }
  }
  for (auto& [key, channel] : channels) {
    if (channel.sends.size() != channel.recvs.size()) continue;
    sort_by_size(&channel.sends);
    sort_by_size(&channel.recvs);
    const auto [src, dst, tag] = key;
    // Equal sizes pair off in sorted order; at the first pair that differs the smaller one has
    // no partner of its size (all later ones on the other side are larger).
    for (size_t i = 0; i < channel.sends.size(); ++i) {
      const Post& s = channel.sends[i];
      const Post& r = channel.recvs[i];
      if (s.bytes == r.bytes) continue;
      const std::string send = node_text(label, src, graph.ranks[src].nodes[s.position]);
      const std::string recv = node_text(label, dst, graph.ranks[dst].nodes[r.position]);
      const std::string send_size = std::to_string(s.bytes) + " bytes";
      const std::string recv_size = std::to_string(r.bytes) + " bytes";
      const std::string channel_text = "rank " + std::to_string(src) + " to rank " +
                                       std::to_string(dst) + ", tag " + std::to_string(tag);
      throw bad_input(s.bytes < r.bytes
                          ? send + ": send of " + send_size + " (" + channel_text +
                                ") has no receive of that size; " + recv + " receives " + recv_size
                          : recv + ": receive of " + recv_size + " (" + channel_text +
                                ") has no send of that size; " + send + " sends " + send_size);
    }
  }
}

}  // namespace commlab::workload
