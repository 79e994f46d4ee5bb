#pragma once
// Topology builders with the parameters a user knows. Every builder validates its parameters and
// throws std::invalid_argument naming the parameter; every result passes Topology::check() and
// records its spec (Topology::spec) so it can be saved in the compact JSON form.
//
// Node tiers: 0 GPUs and in-box parts (NVSwitch, PCIe, NIC), 1 edge/leaf, 2 aggregation/spine,
// 3 core. Network link rates are given in Gb/s (decimal, as NICs are sold), latencies in us.
#include <cstdint>
#include <string>
#include <vector>

#include "topology/topology.h"

namespace commlab {

// Classic 3-tier k-ary fat-tree (Al-Fares et al. 2008): k pods of k/2 edge and k/2 aggregation
// switches, (k/2)^2 core switches, k^3/4 hosts with one GPU each (k=8 -> 128 hosts, 80 switches).
// Ranks are hosts in pod/edge order; every link (host-edge too) has latency hop_latency_us.
struct FatTreeParams {
  int k = 8;
  double link_gbps = 100;
  double hop_latency_us = 1.0;
  uint64_t buffer_bytes = Topology::kDefaultBufferBytes;
};
Topology make_fat_tree(const FatTreeParams& params);

enum class NodeFabric { kNvSwitch, kPcie };

// One server: N GPUs on an NVSwitch (every GPU one link of its NVLink bandwidth to the switch) or
// on a PCIe tree (two GPUs per PCIe switch, switches under a root complex, PCIe bandwidth).
struct NodeParams {
  int gpus = 8;
  std::string gpu = "h100";
  NodeFabric fabric = NodeFabric::kNvSwitch;
  double local_latency_us = 0.5;  // per in-box hop
  double nvlink_GBps = 0;         // NVLink GB/s per GPU and direction; 0: the GPU type's
};
Topology make_node(const NodeParams& params);

// Servers of `gpus_per_server` GPUs (NVSwitch inside when > 1), each GPU with its own NIC, on a
// two-tier leaf-spine of switches with `radix` ports at the NIC rate. A leaf gives
// radix * o / (1 + o) ports to servers and the rest to the spines (o = oversubscription), one link
// to each spine; a spine needs one port per leaf, so leaves <= radix ("radix too small" otherwise).
struct LeafSpineParams {
  int servers = 16;
  int gpus_per_server = 8;
  std::string gpu = "h100";
  double nic_gbps = 0;     // 0: the GPU preset's NIC rate
  double nvlink_GBps = 0;  // NVLink GB/s per GPU and direction; 0: the GPU type's
  int radix = 64;
  double oversubscription = 1.0;
  double hop_latency_us = 1.0;
  double local_latency_us = 0.5;
  uint64_t buffer_bytes = Topology::kDefaultBufferBytes;
};
Topology make_leaf_spine(const LeafSpineParams& params);

// Rail-optimized: GPU index g of every server goes to a leaf of rail g (DGX SuperPOD style); leaves
// are grouped by rail, each leaf takes radix/(1+o)*o servers, and all leaves meet at the spines.
Topology make_rail_optimized(const LeafSpineParams& params);

// 2D or 3D torus of GPUs with wrap-around links in every dimension (TPU-pod style).
struct TorusParams {
  std::vector<int> dims{4, 4};
  double link_gbps = 400;
  double hop_latency_us = 1.0;
  std::string gpu = "h100";
};
Topology make_torus(const TorusParams& params);

// Gb/s (decimal) to bytes per second.
constexpr double gbps_to_Bps(double gbps) {
  return gbps * 1e9 / 8;
}

}  // namespace commlab
