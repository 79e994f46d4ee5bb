#include "topology/builders.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "io/status.h"
#include "topology/gpu_presets.h"
#include "topology/params.h"

namespace commlab {

namespace {
[[noreturn]] void bad(const std::string& builder, const std::string& key,
                      const std::string& expected, const std::string& got) {
  throw bad_input(builder + ": " + key + ": expected " + expected + ", got " + got);
}

void require_positive(const std::string& builder, const std::string& key, double v) {
  if (!(v > 0) || !std::isfinite(v)) bad(builder, key, "a positive number", param_text(v));
}

void require_non_negative(const std::string& builder, const std::string& key, double v) {
  if (!(v >= 0) || !std::isfinite(v)) bad(builder, key, "a number >= 0", param_text(v));
}

const GpuPreset& preset_for(const std::string& builder, const std::string& name) {
  try {
    return gpu_preset(name);
  } catch (const std::invalid_argument& e) {
    throw bad_input(builder + ": gpu: " + e.what());
  }
}

// GPUs of one server joined by an NVSwitch (when more than one), each GPU with its own NIC.
// Returns the NIC node ids in GPU order.
std::vector<int> add_server(Topology& t, int server, int gpus, const GpuPreset& gpu,
                            double nvlink_Bps, double local_s) {
  std::string prefix = std::string("s").append(std::to_string(server)).append(".");
  std::vector<int> gpu_ids, nics;
  for (int g = 0; g < gpus; ++g)
    gpu_ids.push_back(t.add_node(NodeKind::kGpu, prefix + "gpu" + std::to_string(g), server));
  if (gpus > 1) {
    int nvs = t.add_node(NodeKind::kNvSwitch, prefix + "nvswitch", server);
    for (int g : gpu_ids) t.add_duplex(g, nvs, nvlink_Bps, local_s);
  }
  for (int g = 0; g < gpus; ++g) {
    int nic = t.add_node(NodeKind::kNic, prefix + "nic" + std::to_string(g), server);
    t.add_duplex(gpu_ids[g], nic, gpu.pcie_Bps, local_s);
    nics.push_back(nic);
  }
  return nics;
}

struct LeafPlan {
  int down = 0;  // leaf ports facing NICs
  int up = 0;    // leaf ports facing spines (= number of spines)
};

LeafPlan plan_leaf(const std::string& builder, const LeafSpineParams& p) {
  if (p.servers < 1) bad(builder, "servers", "an integer >= 1", std::to_string(p.servers));
  if (p.gpus_per_server < 1 || p.gpus_per_server > 64)
    bad(builder, "gpus_per_server", "an integer in [1, 64]", std::to_string(p.gpus_per_server));
  if (p.radix < 2) bad(builder, "radix", "an integer >= 2", std::to_string(p.radix));
  require_positive(builder, "oversub", p.oversubscription);
  require_non_negative(builder, "hop_us", p.hop_latency_us);
  require_non_negative(builder, "local_us", p.local_latency_us);
  if (p.nic_gbps != 0) require_positive(builder, "gbps", p.nic_gbps);
  LeafPlan plan;
  double o = p.oversubscription;
  plan.down = static_cast<int>(std::floor(p.radix * o / (1 + o) + 1e-9));
  plan.up = p.radix - plan.down;
  if (plan.down < 1 || plan.up < 1)
    bad(builder, "oversub",
        "a ratio leaving at least one up and one down port on a radix-" + std::to_string(p.radix) +
            " leaf",
        param_text(o));
  return plan;
}

void add_spines(Topology& t, const std::vector<int>& leaves, int spines, double bw, double lat,
                uint64_t buffer, int radix, const std::string& builder) {
  if (leaves.size() < 2) return;  // one leaf switches everything itself
  if (static_cast<int>(leaves.size()) > radix)
    throw bad_input(builder + ": radix too small: " + std::to_string(leaves.size()) +
                    " leaves need spines with >= " + std::to_string(leaves.size()) +
                    " ports but radix is " + std::to_string(radix) +
                    " (raise radix, lower servers, or use a fat-tree)");
  for (int s = 0; s < spines; ++s) {
    int spine = t.add_node(NodeKind::kSwitch, "spine" + std::to_string(s), -1, 2);
    for (int leaf : leaves) t.add_duplex(leaf, spine, bw, lat, buffer);
  }
}

std::string leaf_spine_spec(const char* name, const LeafSpineParams& p) {
  return std::string(name) + ":servers=" + std::to_string(p.servers) +
         ",gpus_per_server=" + std::to_string(p.gpus_per_server) + ",gpu=" + p.gpu +
         ",gbps=" + param_text(p.nic_gbps) + ",radix=" + std::to_string(p.radix) +
         ",oversub=" + param_text(p.oversubscription) + ",hop_us=" + param_text(p.hop_latency_us) +
         ",local_us=" + param_text(p.local_latency_us) +
         ",buffer=" + std::to_string(p.buffer_bytes) +
         (p.nvlink_GBps > 0 ? ",nvlink=" + param_text(p.nvlink_GBps) : std::string());
}

// The NVLink rate of a server's GPUs: the spec's when given, else the GPU type's.
double nvlink_rate(const std::string& builder, double GBps, const GpuPreset& gpu) {
  if (GBps != 0) require_positive(builder, "nvlink", GBps);
  return GBps > 0 ? GBps * 1e9 : gpu.nvlink_Bps;
}
}  // namespace

Topology make_fat_tree(const FatTreeParams& p) {
  const std::string b = "fattree";
  if (p.k < 2 || p.k > 64 || p.k % 2 != 0)
    bad(b, "k", "an even integer in [2, 64]", std::to_string(p.k));
  require_positive(b, "gbps", p.link_gbps);
  require_non_negative(b, "hop_us", p.hop_latency_us);
  if (p.buffer_bytes == 0) bad(b, "buffer", "a positive number of bytes", "0");
  const int k = p.k, half = k / 2;
  const double bw = gbps_to_Bps(p.link_gbps), lat = p.hop_latency_us * 1e-6;
  Topology t("fattree-k" + std::to_string(k));
  // Hosts first so that rank == node id; hosts of edge switch e are e*half .. e*half+half-1.
  for (int h = 0; h < k * k * k / 4; ++h) t.add_node(NodeKind::kGpu, "host" + std::to_string(h), h);
  std::vector<int> edge(k * half), agg(k * half), core(half * half);
  for (int i = 0; i < k * half; ++i)
    edge[i] = t.add_node(NodeKind::kSwitch, "edge" + std::to_string(i), -1, 1);
  for (int i = 0; i < k * half; ++i)
    agg[i] = t.add_node(NodeKind::kSwitch, "agg" + std::to_string(i), -1, 2);
  for (int i = 0; i < half * half; ++i)
    core[i] = t.add_node(NodeKind::kSwitch, "core" + std::to_string(i), -1, 3);
  for (int e = 0; e < k * half; ++e)
    for (int i = 0; i < half; ++i) t.add_duplex(e * half + i, edge[e], bw, lat, p.buffer_bytes);
  for (int pod = 0; pod < k; ++pod)
    for (int e = 0; e < half; ++e)
      for (int a = 0; a < half; ++a)
        t.add_duplex(edge[pod * half + e], agg[pod * half + a], bw, lat, p.buffer_bytes);
  for (int pod = 0; pod < k; ++pod)
    for (int a = 0; a < half; ++a)
      for (int c = 0; c < half; ++c)
        t.add_duplex(agg[pod * half + a], core[a * half + c], bw, lat, p.buffer_bytes);
  t.set_spec("fattree:k=" + std::to_string(k) + ",gbps=" + param_text(p.link_gbps) + ",hop_us=" +
             param_text(p.hop_latency_us) + ",buffer=" + std::to_string(p.buffer_bytes));
  return t;
}

Topology make_node(const NodeParams& p) {
  const std::string b = "node";
  if (p.gpus < 1 || p.gpus > 64) bad(b, "gpus", "an integer in [1, 64]", std::to_string(p.gpus));
  require_non_negative(b, "local_us", p.local_latency_us);
  const GpuPreset& gpu = preset_for(b, p.gpu);
  const double lat = p.local_latency_us * 1e-6;
  bool pcie = p.fabric == NodeFabric::kPcie;
  Topology t(std::string(pcie ? "pcie" : "nvswitch") + "-node-" + std::to_string(p.gpus));
  std::vector<int> gpus;
  for (int g = 0; g < p.gpus; ++g)
    gpus.push_back(t.add_node(NodeKind::kGpu, "gpu" + std::to_string(g), 0));
  if (!pcie) {
    int nvs = t.add_node(NodeKind::kNvSwitch, "nvswitch", 0);
    for (int g : gpus) t.add_duplex(g, nvs, nvlink_rate(b, p.nvlink_GBps, gpu), lat);
  } else {
    // Two GPUs per PCIe switch, switches under the CPU root complex: pairs talk at PCIe rate,
    // other pairs share their switch's uplink.
    int root = t.add_node(NodeKind::kPcieSwitch, "root-complex", 0);
    for (int s = 0; s * 2 < p.gpus; ++s) {
      int sw = t.add_node(NodeKind::kPcieSwitch, "pcie" + std::to_string(s), 0);
      t.add_duplex(sw, root, gpu.pcie_Bps, lat);
      for (int g = s * 2; g < std::min(p.gpus, s * 2 + 2); ++g)
        t.add_duplex(gpus[g], sw, gpu.pcie_Bps, lat);
    }
  }
  t.set_gpu_model(std::string(gpu.name));
  t.set_spec("node:gpus=" + std::to_string(p.gpus) + ",gpu=" + std::string(gpu.name) + ",fabric=" +
             (pcie ? "pcie" : "nvswitch") + ",local_us=" + param_text(p.local_latency_us) +
             (p.nvlink_GBps > 0 ? ",nvlink=" + param_text(p.nvlink_GBps) : std::string()));
  return t;
}

Topology make_leaf_spine(const LeafSpineParams& p) {
  const std::string b = "leafspine";
  LeafPlan plan = plan_leaf(b, p);
  const GpuPreset& gpu = preset_for(b, p.gpu);
  if (plan.down < p.gpus_per_server)
    throw bad_input(b + ": radix too small: a leaf has " + std::to_string(plan.down) +
                    " server ports but a server has " + std::to_string(p.gpus_per_server) +
                    " NICs");
  const int per_leaf = plan.down / p.gpus_per_server;
  const int num_leaves = (p.servers + per_leaf - 1) / per_leaf;
  const double nic = p.nic_gbps > 0 ? gbps_to_Bps(p.nic_gbps) : gpu.nic_Bps;
  const double nvlink = nvlink_rate(b, p.nvlink_GBps, gpu);
  const double hop = p.hop_latency_us * 1e-6, local = p.local_latency_us * 1e-6;
  Topology t("leafspine-" + std::to_string(p.servers * p.gpus_per_server));
  std::vector<int> leaves;
  for (int l = 0; l < num_leaves; ++l)
    leaves.push_back(t.add_node(NodeKind::kSwitch, "leaf" + std::to_string(l), -1, 1));
  if (num_leaves > p.radix)  // fail before building a huge graph
    add_spines(t, leaves, 0, nic, hop, p.buffer_bytes, p.radix, b);
  for (int s = 0; s < p.servers; ++s)
    for (int nic_id : add_server(t, s, p.gpus_per_server, gpu, nvlink, local))
      t.add_duplex(nic_id, leaves[s / per_leaf], nic, hop, p.buffer_bytes);
  add_spines(t, leaves, plan.up, nic, hop, p.buffer_bytes, p.radix, b);
  t.set_gpu_model(std::string(gpu.name));
  t.set_spec(leaf_spine_spec("leafspine", p));
  return t;
}

Topology make_rail_optimized(const LeafSpineParams& p) {
  const std::string b = "rail";
  LeafPlan plan = plan_leaf(b, p);
  const GpuPreset& gpu = preset_for(b, p.gpu);
  const int groups = (p.servers + plan.down - 1) / plan.down;  // leaves per rail
  const int num_leaves = groups * p.gpus_per_server;
  const double nic = p.nic_gbps > 0 ? gbps_to_Bps(p.nic_gbps) : gpu.nic_Bps;
  const double nvlink = nvlink_rate(b, p.nvlink_GBps, gpu);
  const double hop = p.hop_latency_us * 1e-6, local = p.local_latency_us * 1e-6;
  Topology t("rail-" + std::to_string(p.servers * p.gpus_per_server));
  std::vector<int> leaves;
  for (int l = 0; l < num_leaves; ++l)
    leaves.push_back(t.add_node(
        NodeKind::kSwitch,
        "rail" + std::to_string(l / groups) + ".leaf" + std::to_string(l % groups), -1, 1));
  if (num_leaves > p.radix) add_spines(t, leaves, 0, nic, hop, p.buffer_bytes, p.radix, b);
  for (int s = 0; s < p.servers; ++s) {
    std::vector<int> nics = add_server(t, s, p.gpus_per_server, gpu, nvlink, local);
    for (int g = 0; g < p.gpus_per_server; ++g)
      t.add_duplex(nics[g], leaves[g * groups + s / plan.down], nic, hop, p.buffer_bytes);
  }
  add_spines(t, leaves, plan.up, nic, hop, p.buffer_bytes, p.radix, b);
  t.set_gpu_model(std::string(gpu.name));
  t.set_spec(leaf_spine_spec("rail", p));
  return t;
}

Topology make_torus(const TorusParams& p) {
  const std::string b = "torus";
  if (p.dims.size() < 2 || p.dims.size() > 3)
    bad(b, "dims", "2 or 3 dimensions like 8x8 or 4x4x4", std::to_string(p.dims.size()) + " dims");
  long long total = 1;
  std::string dims_text;
  for (int d : p.dims) {
    if (d < 1) bad(b, "dims", "every dimension >= 1", std::to_string(d));
    total *= d;
    dims_text.append(dims_text.empty() ? "" : "x").append(std::to_string(d));
  }
  if (total < 2 || total > 65536) bad(b, "dims", "2 to 65536 GPUs in all", std::to_string(total));
  require_positive(b, "gbps", p.link_gbps);
  require_non_negative(b, "hop_us", p.hop_latency_us);
  const GpuPreset& gpu = preset_for(b, p.gpu);
  const double bw = gbps_to_Bps(p.link_gbps), lat = p.hop_latency_us * 1e-6;
  Topology t("torus-" + dims_text);
  for (int i = 0; i < total; ++i) t.add_node(NodeKind::kGpu, "gpu" + std::to_string(i), i);
  // Row-major coordinates; each GPU links to its +1 neighbour per dimension (wrapping), which
  // with duplex links gives both neighbours. A dimension of 2 has a single neighbour.
  int stride = 1;
  for (size_t d = p.dims.size(); d-- > 0;) {
    int n = p.dims[d];
    for (int i = 0; i < total; ++i) {
      int c = (i / stride) % n;
      if (n == 1 || (n == 2 && c == 1)) continue;
      int j = i + ((c + 1) % n - c) * stride;
      t.add_duplex(i, j, bw, lat);
    }
    stride *= n;
  }
  t.set_gpu_model(std::string(gpu.name));
  t.set_spec("torus:dims=" + dims_text + ",gbps=" + param_text(p.link_gbps) +
             ",hop_us=" + param_text(p.hop_latency_us) + ",gpu=" + std::string(gpu.name));
  return t;
}

}  // namespace commlab
