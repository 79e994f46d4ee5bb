// NCCL's tuning model; every constant is NCCL 2.28's (src/graph/tuning.cc, ncclTunerConstants
// Defaults, Hopper rows, Intel CPU for the multi-node LL limit), docs/collectives.md lists them.
#include "collective/nccl/tuner.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "io/status.h"
#include "topology/topology.h"

namespace commlab {

namespace {

constexpr int kLL = 0, kLL128 = 1, kSimple = 2;
constexpr int kTree = 0, kRing = 1;
constexpr int kNvlink = 0, kPci = 1, kNet = 2;

// baseLatencies[algo][proto], us.
constexpr double kBaseLat[2][3] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}};
// hwLatencies[hw][algo][proto], us per step.
constexpr double kHwLat[3][2][3] = {
    {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}},   // NVLink
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}},    // PCI
    {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}},  // network
};
// Hopper: llMaxBws (N1 from the GPU row, N2/N4 from the Intel CPU row), per-channel limits.
constexpr double kLlMaxBw[3] = {141.0, 39.0, 20.4};
constexpr double kPerChRingLL128 = 36.7;
constexpr double kPerChTree[3] = {38.7, 41.4, 36.0};
constexpr double kPerChTreeLL128[3] = {36.7, 36.7, 29.0};
constexpr double kNetOverheadUs = 1.0;  // getNetOverhead, x86 Intel
// treeCorrectionFactor[proto][log2(bytes / 64)], 64 B .. 256 MiB.
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6, .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6, .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
// maxThreads and threadThresholds (device.h, comm.h): Simple 512 x 64, LL 512 x 8 (ring: x ranks),
// LL128 640 x 8.
constexpr int kMaxThreads[3] = {512, 640, 512};
constexpr int kThreadThreshold[3] = {8, 8, 64};

int log2i(uint64_t v) {
  return v == 0 ? -1 : std::bit_width(v) - 1;
}

int nsteps(CollectiveOp op, int n) {
  if (op == CollectiveOp::kAllReduce) return 2 * (n - 1);
  if (op == CollectiveOp::kReduceScatter || op == CollectiveOp::kAllGather) return n - 1;
  return n;
}

}  // namespace

NcclTunerInputs tuner_inputs(const Topology& t, int channels) {
  NcclTunerInputs in;
  in.ranks = t.ranks();
  in.channels = std::max(channels, 1);
  std::map<int, int> gpus_per_server;
  for (int g : t.gpus()) ++gpus_per_server[t.nodes()[g].server];
  in.nodes = static_cast<int>(gpus_per_server.size());
  if (t.gpus().empty()) return in;
  const int g0 = t.gpus()[0];
  const int server = t.nodes()[g0].server;
  double nvlink = 0, pci = 0, net = 0;
  for (int l : t.out_links(g0)) {
    const Link& link = t.links()[l];
    const Node& to = t.nodes()[link.to];
    if (to.kind == NodeKind::kNvSwitch || to.kind == NodeKind::kGpu)
      nvlink = std::max(nvlink, link.bandwidth_Bps);
    else if (to.kind == NodeKind::kPcieSwitch)
      pci = std::max(pci, link.bandwidth_Bps);
    else if (to.server < 0 || to.server != server)
      net += link.bandwidth_Bps;  // a GPU wired straight to the network (flat)
  }
  // The node's NICs: their links out of the server, capped by the GPU side of each NIC.
  for (size_t v = 0; v < t.nodes().size(); ++v) {
    const Node& nic = t.nodes()[v];
    if (nic.kind != NodeKind::kNic || nic.server != server || server < 0) continue;
    double out = 0, in_side = 0;
    for (int l : t.out_links(static_cast<int>(v))) {
      const Link& link = t.links()[l];
      if (t.nodes()[link.to].server != server) out += link.bandwidth_Bps;
    }
    for (int l : t.in_links(static_cast<int>(v))) in_side += t.links()[l].bandwidth_Bps;
    net += std::min(out, in_side);
  }
  const int local = gpus_per_server[server];
  in.nvlink = nvlink > 0 || pci == 0;
  in.intra_Bps = local > 1 ? (nvlink > 0 ? nvlink : pci) : 0;
  in.inter_Bps = in.nodes > 1 ? net / local : 0;
  return in;
}

NcclTuner::NcclTuner(const NcclTunerInputs& inputs) : in_(inputs) {
  if (in_.ranks < 1 || in_.nodes < 1 || in_.nodes > in_.ranks)
    throw bad_input("NCCL tuner: expected 1 <= nodes <= ranks");
  if (in_.channels < 1) throw bad_input("NCCL tuner: channels must be >= 1");
}

double NcclTuner::bus_bw(CollectiveOp op, NcclAlgo algo, NcclProtocol proto) const {
  const int a = static_cast<int>(algo), p = static_cast<int>(proto);
  if (in_.ranks <= 1) return 0;
  if (algo == NcclAlgo::kTree && op != CollectiveOp::kAllReduce) return 0;
  if (proto == NcclProtocol::kLL128 && !in_.ll128) return 0;
  const int index2 = in_.nodes <= 2 ? in_.nodes - 1 : 2;
  const double ppn = static_cast<double>(in_.ranks) / in_.nodes;
  // nChannels * bw: NCCL's searched graph bandwidth; here what the links give a GPU (a ring
  // between nodes leaves every node through all its NICs, one channel per rail).
  double bw = in_.nodes == 1 ? in_.intra_Bps : in_.inter_Bps * ppn;
  if (in_.nodes > 1 && in_.intra_Bps > 0) bw = std::min(bw, in_.intra_Bps);
  double busbw = bw / 1e9;
  const double C = in_.channels;
  if (a == kRing && p == kLL) busbw = std::min(kLlMaxBw[index2], busbw * 0.5);
  if (a == kRing && p == kLL128) busbw = std::min(busbw * 0.92, C * kPerChRingLL128);
  if (a == kTree) busbw = std::min(busbw * 0.92, C * kPerChTree[index2]);
  if (a == kTree && p == kLL) busbw = std::min(busbw / 3.8, kLlMaxBw[index2]);
  if (a == kTree && p == kLL128)
    busbw =
        std::min(busbw * (in_.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), C * kPerChTreeLL128[index2]);
  return busbw;
}

double NcclTuner::bandwidth_GBps(CollectiveOp op, NcclAlgo algo, NcclProtocol proto) const {
  // Bus bandwidth to algorithm bandwidth: ring n / nsteps, tree 0.5.
  const double ratio =
      algo == NcclAlgo::kRing ? static_cast<double>(in_.ranks) / nsteps(op, in_.ranks) : 0.5;
  return bus_bw(op, algo, proto) * ratio;
}

double NcclTuner::latency_us(CollectiveOp op, NcclAlgo algo, NcclProtocol proto) const {
  const int a = static_cast<int>(algo), p = static_cast<int>(proto);
  const int intra_hw = in_.nvlink ? kNvlink : kPci;
  const double ppn = static_cast<double>(in_.ranks) / in_.nodes;
  double lat = kBaseLat[a][p];
  double intra = kHwLat[intra_hw][a][p];
  // With one GPU per node every latency is exposed: NCCL takes the tree's network figure.
  const double inter = ppn == 1 ? kHwLat[kNet][kTree][p] : kHwLat[kNet][a][p];
  const int n = in_.ranks, nodes = in_.nodes;
  if (algo == NcclAlgo::kRing) {
    const int hw = nodes == 1 ? intra_hw : kNet;
    if (op == CollectiveOp::kBroadcast) {
      const double step = p == kSimple ? kHwLat[hw][kTree][p] : kHwLat[hw][kRing][p];
      return lat + nsteps(op, n) * step;
    }
    if (nodes > 1) intra = std::max(intra, kNetOverheadUs * (p == kSimple ? 3 : 1));
    const int inter_steps =
        nodes == 1 ? 0 : (op == CollectiveOp::kAllReduce ? 2 * (nodes - 1) : nodes - 1);
    return lat + (nsteps(op, n) - inter_steps) * intra + inter_steps * inter;
  }
  return lat + 2 * ((n / nodes - 1) * intra + log2i(static_cast<uint64_t>(nodes)) * inter);
}

double NcclTuner::base_latency_s(NcclAlgo a, NcclProtocol p) const {
  return kBaseLat[static_cast<int>(a)][static_cast<int>(p)] * 1e-6;
}

double NcclTuner::predict_s(CollectiveOp op, NcclAlgo algo, NcclProtocol proto,
                            uint64_t bytes) const {
  double bw = bandwidth_GBps(op, algo, proto);
  double lat = latency_us(op, algo, proto);
  if (bw <= 0) return -1;
  const int log_size = log2i(bytes >> 6);
  if (algo == NcclAlgo::kTree && op == CollectiveOp::kAllReduce && log_size >= 0 && log_size < 23)
    bw *= kTreeCorrection[static_cast<int>(proto)][log_size];
  // The ring's plateau (compute capability >= 80).
  if (algo == NcclAlgo::kRing && proto == NcclProtocol::kSimple && in_.nodes > 1 &&
      op == CollectiveOp::kAllReduce &&
      bytes / (static_cast<uint64_t>(in_.channels) * in_.ranks) >= 64)
    lat *= 1.4;
  return (lat + static_cast<double>(bytes) / (1000.0 * bw)) * 1e-6;
}

int NcclTuner::channels_for(NcclAlgo algo, NcclProtocol proto, uint64_t bytes) const {
  const int p = static_cast<int>(proto);
  uint64_t threshold = kThreadThreshold[p];
  if (algo == NcclAlgo::kRing && proto == NcclProtocol::kLL) threshold *= in_.ranks;
  int nc = in_.channels;
  while (nc >= 2 && bytes < static_cast<uint64_t>(nc) * kMaxThreads[p] * threshold) --nc;
  return nc;
}

NcclChoice NcclTuner::choose(CollectiveOp op, uint64_t bytes, const NcclOverrides& force) const {
  NcclChoice best;
  best.predicted_s = -1;
  for (NcclAlgo a : {NcclAlgo::kTree, NcclAlgo::kRing}) {
    if (force.algo && *force.algo != a) continue;
    for (NcclProtocol p : {NcclProtocol::kLL, NcclProtocol::kLL128, NcclProtocol::kSimple}) {
      if (force.proto && *force.proto != p) continue;
      const double t = predict_s(op, a, p, bytes);
      if (t >= 0 && (best.predicted_s < 0 || t < best.predicted_s)) best = {a, p, 1, t};
    }
  }
  if (best.predicted_s < 0)
    throw bad_input(
        std::string("NCCL model: no ") + (force.algo ? nccl_algo_name(*force.algo) : "") +
        (force.proto ? std::string(" ") + protocol_name(*force.proto) : "") + " for " +
        op_name(op) + " on " + std::to_string(in_.ranks) + " ranks" +
        (force.proto == NcclProtocol::kLL128 && !in_.ll128 ? " (LL128 disabled here)" : "") +
        (force.algo == NcclAlgo::kTree ? " (NCCL's tree runs all-reduce only)" : ""));
  best.channels = force.channels > 0 ? force.channels : channels_for(best.algo, best.proto, bytes);
  return best;
}

ChannelConfig NcclTuner::channel_config(CollectiveOp op, const NcclChoice& choice) const {
  ChannelConfig c;
  c.protocol = choice.proto;
  c.channels = choice.channels;
  // NCCL's bus bandwidth is reached with all its channels; fewer run proportionally slower.
  c.rate_cap_Bps = bus_bw(op, choice.algo, choice.proto) * 1e9 * choice.channels / in_.channels;
  // A tree channel's threads are split between the reduce going up and the broadcast coming
  // down (all_reduce.h, runTreeSplit), which run at once: each direction gets half (NCCL's 0.5).
  if (choice.algo == NcclAlgo::kTree) c.rate_cap_Bps *= 0.5;
  const int a = static_cast<int>(choice.algo), p = static_cast<int>(choice.proto);
  const double ppn = static_cast<double>(in_.ranks) / in_.nodes;
  double intra = kHwLat[in_.nvlink ? kNvlink : kPci][a][p];
  if (choice.algo == NcclAlgo::kRing && in_.nodes > 1)
    intra = std::max(intra, kNetOverheadUs * (p == kSimple ? 3 : 1));
  c.intra_step_s = intra * 1e-6;
  c.inter_step_s = (ppn == 1 ? kHwLat[kNet][kTree][p] : kHwLat[kNet][a][p]) * 1e-6;
  return c;
}

NcclSetup nccl_setup(const NcclTuner& tuner, CollectiveOp op, uint64_t bytes,
                     const NcclOverrides& force) {
  NcclSetup s;
  s.choice = tuner.choose(op, bytes, force);
  const ProtocolTraits traits = protocol_traits(s.choice.proto);
  uint64_t slice = traits.slice_bytes;
  if (s.choice.algo == NcclAlgo::kTree) {
    // Simple, enqueue.cc (tree up-down): the chunk halves while a channel's share of the message
    // gives fewer than depth x 8 chunks (down to 128 KiB), x 4 (64 KiB), x 1 (32 KiB), so that a
    // deep tree pipelines. LL and LL128 forward each line as soon as its flag arrives: their unit
    // here is one warp's lines (LL: 32 threads x 8 data bytes = 256 B; LL128: 32 threads x 16 B
    // x 120/128 = 480 B), reached by the same halving (docs/collectives.md).
    const NcclTunerInputs& in = tuner.inputs();
    const uint64_t depth = static_cast<uint64_t>(in.ranks / in.nodes - 1) +
                           static_cast<uint64_t>(std::bit_width(static_cast<unsigned>(in.nodes)));
    const uint64_t per_channel = bytes / static_cast<uint64_t>(s.choice.channels);
    const bool simple = s.choice.proto == NcclProtocol::kSimple;
    const uint64_t unit = s.choice.proto == NcclProtocol::kLL ? 256 : 480;
    const std::pair<uint64_t, uint64_t> rules[] = {
        {8, simple ? 131072 : unit}, {4, simple ? 65536 : unit}, {1, simple ? 32768 : unit}};
    for (auto [chunks, floor] : rules)
      while (per_channel / slice < depth * chunks && slice / 2 >= floor) slice /= 2;
  }
  s.pipeline.slice_bytes = slice * s.choice.channels;
  // A tree streams its chunks through without waiting for a loop to end (no ring loop).
  s.pipeline.chunk_bytes =
      s.choice.algo == NcclAlgo::kTree ? 0 : traits.chunk_bytes * s.choice.channels;
  s.channel = tuner.channel_config(op, s.choice);
  s.base_latency_s = tuner.base_latency_s(s.choice.algo, s.choice.proto);
  return s;
}

NcclOverrides parse_nccl_overrides(std::string_view algo, std::string_view proto, int channels) {
  NcclOverrides o;
  if (algo == "ring")
    o.algo = NcclAlgo::kRing;
  else if (algo == "tree")
    o.algo = NcclAlgo::kTree;
  else if (algo != "auto")
    throw bad_input("--algo '" + std::string(algo) +
                    "' has no NCCL model: with --proto or --channels use auto, ring or "
                    "tree");
  if (!proto.empty() && proto != "auto") o.proto = parse_protocol(proto);
  if (channels < 0 || channels > 64)
    throw bad_input("--channels: expected 1 to 64 (NCCL's MAXCHANNELS), got " +
                    std::to_string(channels));
  o.channels = channels;
  return o;
}

void mark_pipelined(Plan& plan) {
  for (PlanStep& step : plan.steps) step.pipelined = true;
}

}  // namespace commlab
