#include "topology/presets.h"

#include <algorithm>
#include <stdexcept>

#include "io/status.h"
#include "topology/builders.h"
#include "topology/params.h"
#include "topology/topology_json.h"

namespace commlab {

namespace {
const std::vector<std::string_view> kGpus{"a100", "h100", "h200", "b200"};

LeafSpineParams read_leaf_spine(Params& p) {
  LeafSpineParams l;
  l.servers = p.get_int("servers", l.servers, 1, 1 << 20);
  l.gpus_per_server = p.get_int("gpus_per_server", l.gpus_per_server, 1, 64);
  l.gpu = p.get_choice("gpu", l.gpu, kGpus);
  l.nic_gbps = p.get_double("gbps", l.nic_gbps, 0, true);
  l.nvlink_GBps = p.get_double("nvlink", l.nvlink_GBps, 0, true);
  l.radix = p.get_int("radix", l.radix, 2, 4096);
  l.oversubscription = p.get_double("oversub", l.oversubscription, 0);
  l.hop_latency_us = p.get_double("hop_us", l.hop_latency_us, 0, true);
  l.local_latency_us = p.get_double("local_us", l.local_latency_us, 0, true);
  l.buffer_bytes =
      static_cast<uint64_t>(p.get_double("buffer", static_cast<double>(l.buffer_bytes), 1, true));
  return l;
}

// Named SuperPOD-like cluster: DGX boxes of 8 GPUs, rail-optimized, 64-port leaves at the NIC rate
// (NVIDIA's reference: scalable units of 32 DGX with one leaf per rail; 4 SUs ~ 1,024 GPUs).
Topology pod(Params& p, const char* gpu, const char* name) {
  LeafSpineParams l;
  l.servers = p.get_int("nodes", 128, 1, 4096);
  l.gpus_per_server = 8;
  l.gpu = gpu;
  l.radix = 64;
  l.hop_latency_us = p.get_double("hop_us", l.hop_latency_us, 0, true);
  p.finish();
  Topology t = make_rail_optimized(l);
  t.set_spec(std::string(name) + ":nodes=" + std::to_string(l.servers) +
             ",hop_us=" + param_text(l.hop_latency_us));
  return t;
}
}  // namespace

Topology build_cluster(std::string_view builder, Params& p) {
  std::string b(builder);
  std::transform(b.begin(), b.end(), b.begin(), [](unsigned char c) { return std::tolower(c); });
  if (b == "fattree" || b == "fat-tree") {
    FatTreeParams f;
    f.k = p.get_int("k", f.k, 2, 64, 2);
    f.link_gbps = p.get_double("gbps", f.link_gbps, 0);
    f.hop_latency_us = p.get_double("hop_us", f.hop_latency_us, 0, true);
    f.buffer_bytes =
        static_cast<uint64_t>(p.get_double("buffer", static_cast<double>(f.buffer_bytes), 1, true));
    p.finish();
    return make_fat_tree(f);
  }
  if (b == "flat") {
    int ranks = p.get_int("ranks", 8, 1, 1 << 20);
    double gbps = p.get_double("gbps", 400, 0);
    double alpha_us = p.get_double("alpha_us", 2.0, 0, true);
    p.finish();
    Topology t = make_flat(ranks, gbps_to_Bps(gbps), alpha_us * 1e-6);
    t.set_spec("flat:ranks=" + std::to_string(ranks) + ",gbps=" + param_text(gbps) +
               ",alpha_us=" + param_text(alpha_us));
    return t;
  }
  if (b == "node") {
    NodeParams n;
    n.gpus = p.get_int("gpus", n.gpus, 1, 64);
    n.gpu = p.get_choice("gpu", n.gpu, kGpus);
    n.fabric = p.get_choice("fabric", "nvswitch", {"nvswitch", "pcie"}) == "pcie"
                   ? NodeFabric::kPcie
                   : NodeFabric::kNvSwitch;
    n.local_latency_us = p.get_double("local_us", n.local_latency_us, 0, true);
    n.nvlink_GBps = p.get_double("nvlink", n.nvlink_GBps, 0, true);
    p.finish();
    return make_node(n);
  }
  if (b == "leafspine" || b == "leaf-spine") {
    LeafSpineParams l = read_leaf_spine(p);
    p.finish();
    return make_leaf_spine(l);
  }
  if (b == "rail" || b == "rail-optimized") {
    LeafSpineParams l = read_leaf_spine(p);
    p.finish();
    return make_rail_optimized(l);
  }
  if (b == "torus") {
    TorusParams t;
    t.dims = p.get_dims("dims", "4x4");
    t.link_gbps = p.get_double("gbps", t.link_gbps, 0);
    t.hop_latency_us = p.get_double("hop_us", t.hop_latency_us, 0, true);
    t.gpu = p.get_choice("gpu", t.gpu, kGpus);
    p.finish();
    return make_torus(t);
  }
  for (std::string_view gpu : kGpus) {
    if (b == "dgx-" + std::string(gpu)) {
      NodeParams n;
      n.gpu = std::string(gpu);
      p.finish();
      Topology t = make_node(n);
      t.set_spec(b);
      return t;
    }
  }
  if (b == "dgx-h100-pod") return pod(p, "h100", "dgx-h100-pod");
  if (b == "dgx-b200-pod") return pod(p, "b200", "dgx-b200-pod");
  if (b == "netzip-512") {
    // NetZIP's SimAI study: 512 GPUs, one per server, 100/200/400 Gb/s NICs (the NetZIP paper,
    // docs/papers.md).
    LeafSpineParams l;
    l.servers = 512;
    l.gpus_per_server = 1;
    l.radix = 64;
    l.nic_gbps = std::stod(p.get_choice("gbps", "100", {"100", "200", "400"}));
    p.finish();
    Topology t = make_leaf_spine(l);
    t.set_spec("netzip-512:gbps=" + param_text(l.nic_gbps));
    return t;
  }
  std::string names;
  for (const auto& [name, what] : cluster_catalog())
    names.append(names.empty() ? "" : ", ").append(name);
  throw bad_input(p.where() + "unknown cluster builder or preset '" + b + "' (expected one of " +
                  names + ", or a path to a .json file)");
}

Topology cluster_from_spec(std::string_view spec) {
  std::string s(spec);
  std::string lower = s;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (s.empty()) throw bad_input("cluster: expected a preset, builder or file, got ''");
  if (lower.ends_with(".json") || s.find('/') != std::string::npos) return load_topology(s);
  size_t colon = s.find(':');
  std::string name = s.substr(0, colon);
  std::string args = colon == std::string::npos ? "" : s.substr(colon + 1);
  Params p = Params::parse("cluster '" + s + "': ", args, name == "flat" ? "ranks" : "");
  return build_cluster(name, p);
}

std::vector<std::pair<std::string, std::string>> cluster_catalog() {
  return {
      {"fattree", "3-tier k-ary fat-tree, one GPU per host: k, gbps, hop_us, buffer"},
      {"flat", "N GPUs on a non-blocking crossbar (alpha-beta): ranks, gbps, alpha_us"},
      {"node", "one server: gpus, gpu, fabric=nvswitch|pcie, local_us"},
      {"leafspine",
       "servers on a 2-tier leaf-spine: servers, gpus_per_server, gpu, gbps, radix, "
       "oversub, hop_us"},
      {"rail", "rail-optimized leaf-spine (one leaf per GPU index): as leafspine"},
      {"torus", "2D/3D torus of GPUs: dims=8x8[x8], gbps, hop_us, gpu"},
      {"dgx-a100", "one DGX A100 box (8 GPUs, NVSwitch)"},
      {"dgx-h100", "one DGX H100 box"},
      {"dgx-h200", "one DGX H200 box"},
      {"dgx-b200", "one DGX B200 box"},
      {"dgx-h100-pod",
       "SuperPOD-like: nodes (default 128) DGX H100, 8 rails, 400G, 64-port leaves"},
      {"dgx-b200-pod", "as dgx-h100-pod with DGX B200"},
      {"netzip-512", "NetZIP study: 512 GPUs, 1 per server, leaf-spine, gbps=100|200|400"},
  };
}

}  // namespace commlab
