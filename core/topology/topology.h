#pragma once
// The cluster graph: GPUs, NVSwitch / PCIe domains, NICs and switches joined by directed links
// with bandwidth, latency and buffer size. Ranks are GPUs in the order they were added.
#include <cstdint>
#include <string>
#include <vector>

namespace commlab {

enum class NodeKind { kGpu, kNvSwitch, kPcieSwitch, kNic, kSwitch };
const char* node_kind_name(NodeKind kind);

struct Node {
  NodeKind kind;
  std::string name;
  int server = -1;  // index of the server (box) this node sits in; -1 for network switches
  int tier = 0;     // 0 for endpoints and in-box parts, 1 leaf, 2 spine, ... (layout and routing)
};

struct Link {
  int from;
  int to;
  double bandwidth_Bps;   // bytes per second
  double latency_s;       // propagation + switching latency of this hop
  uint64_t buffer_bytes;  // output-queue buffer at the sending port (packet backend)
};

class Topology {
 public:
  explicit Topology(std::string name = "custom") : name_(std::move(name)) {}

  int add_node(NodeKind kind, std::string name, int server = -1, int tier = 0);
  int add_link(int from, int to, double bandwidth_Bps, double latency_s,
               uint64_t buffer_bytes = kDefaultBufferBytes);
  // Two directed links, one each way, with the same parameters.
  void add_duplex(int a, int b, double bandwidth_Bps, double latency_s,
                  uint64_t buffer_bytes = kDefaultBufferBytes);

  const std::string& name() const { return name_; }
  // The builder spec that recreates this topology (e.g. "fattree:k=8,gbps=100,hop_us=1"); empty
  // for hand-made graphs. JSON saving uses it for the compact form.
  const std::string& spec() const { return spec_; }
  void set_spec(std::string spec) { spec_ = std::move(spec); }
  // GPU preset name ("h100", ...) whose compute figures the training engine uses; empty = unknown.
  const std::string& gpu_model() const { return gpu_model_; }
  void set_gpu_model(std::string model) { gpu_model_ = std::move(model); }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Link>& links() const { return links_; }
  const std::vector<int>& out_links(int node) const { return out_[node]; }
  const std::vector<int>& in_links(int node) const { return in_[node]; }
  // rank -> node id of that GPU.
  const std::vector<int>& gpus() const { return gpus_; }
  int ranks() const { return static_cast<int>(gpus_.size()); }

  // Throws std::invalid_argument naming the first problem: no GPU, a link with non-positive or
  // non-finite bandwidth, negative latency, a GPU that cannot reach another GPU.
  void check() const;

  static constexpr uint64_t kDefaultBufferBytes = 512 * 1024;

 private:
  std::string name_;
  std::string spec_;
  std::string gpu_model_;
  std::vector<Node> nodes_;
  std::vector<Link> links_;
  std::vector<std::vector<int>> out_;
  std::vector<std::vector<int>> in_;
  std::vector<int> gpus_;
};

// N GPUs, each with one egress link (bandwidth B, latency alpha) into a non-blocking crossbar and
// one ingress link (bandwidth B, latency 0) out of it: the textbook alpha-beta model, where a ring
// step costs alpha + bytes/B and a rank's concurrent sends share its B.
Topology make_flat(int ranks, double bandwidth_Bps, double alpha_s);

}  // namespace commlab
