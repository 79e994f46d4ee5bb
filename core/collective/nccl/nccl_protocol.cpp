#include "collective/nccl/nccl_protocol.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "collective/plan.h"
#include "io/status.h"
#include "numeric/rng.h"
#include "topology/topology.h"

namespace commlab {

const char* protocol_name(NcclProtocol p) {
  switch (p) {
    case NcclProtocol::kLL: return "ll";
    case NcclProtocol::kLL128: return "ll128";
    case NcclProtocol::kSimple: return "simple";
  }
  return "?";
}

const char* nccl_algo_name(NcclAlgo a) {
  return a == NcclAlgo::kTree ? "tree" : "ring";
}

const char* nccl_plan_name(NcclAlgo a) {
  return a == NcclAlgo::kTree ? "nccl-tree" : "ring";
}

NcclProtocol parse_protocol(std::string_view text) {
  for (NcclProtocol p : {NcclProtocol::kLL, NcclProtocol::kLL128, NcclProtocol::kSimple})
    if (text == protocol_name(p)) return p;
  throw bad_input("protocol '" + std::string(text) + "': expected simple, ll or ll128");
}

ProtocolTraits protocol_traits(NcclProtocol p) {
  switch (p) {
    case NcclProtocol::kLL: return {16.0 / 8.0, 32u << 10, 32u << 10};
    case NcclProtocol::kLL128: return {128.0 / 120.0, 576'000, 576'000};
    case NcclProtocol::kSimple: return {1.0, 512u << 10, 2u << 20};
  }
  return {};
}

ChannelBackend::ChannelBackend(NetworkBackend& inner, const ChannelConfig& config)
    : inner_(inner), config_(config), router_(inner.topology()) {
  if (config_.channels < 1)
    throw bad_input("channels: expected at least 1, got " + std::to_string(config_.channels));
  const Topology& t = inner.topology();
  const int ranks = t.ranks();
  server_.resize(ranks);
  local_.resize(ranks);
  std::unordered_map<int, int> index;  // server id -> dense index
  for (int r = 0; r < ranks; ++r) {
    const int s = t.nodes()[t.gpus()[r]].server;
    // A GPU outside any server (flat networks) is a node of its own.
    const int key = s >= 0 ? s : -1 - r;
    auto [it, fresh] = index.try_emplace(key, static_cast<int>(by_server_.size()));
    if (fresh) by_server_.emplace_back();
    server_[r] = it->second;
    local_[r] = static_cast<int>(by_server_[it->second].size());
    by_server_[it->second].push_back(r);
  }
}

double ChannelBackend::path_latency_s(int src, int dst, uint64_t id) {
  const uint64_t key = hash_combine(hash_combine(static_cast<uint64_t>(src), dst), id);
  auto it = latency_cache_.find(key);
  if (it != latency_cache_.end()) return it->second;
  double s = 0;
  for (int link : router_.path(src, dst, id)) s += inner_.topology().links()[link].latency_s;
  latency_cache_.emplace(key, s);
  return s;
}

StepResult ChannelBackend::time_step(std::span<const Flow> flows, const StepOptions& options) {
  const int C = config_.channels;
  const double grow = protocol_traits(config_.protocol).wire_factor;
  expanded_.clear();
  expanded_.reserve(flows.size() * C);
  for (const Flow& f : flows) {
    const uint64_t wire = static_cast<uint64_t>(static_cast<double>(f.bytes) * grow + 0.5);
    const bool inter = server_[f.src] != server_[f.dst];
    for (int c = 0; c < C; ++c) {
      Flow g{f.src, f.dst, chunk_start(wire, C, c + 1) - chunk_start(wire, C, c),
             hash_combine(f.id, static_cast<uint64_t>(c))};
      if (inter) {
        // Channel c crosses between the nodes on rail (local(src) + c): the GPUs of that index
        // on both sides (NCCL's rail-aligned channels; PXN's NVLink hop is not charged).
        const auto& a = by_server_[server_[f.src]];
        const auto& b = by_server_[server_[f.dst]];
        const int rail = local_[f.src] + c;
        g.src = a[rail % a.size()];
        g.dst = b[rail % b.size()];
      }
      expanded_.push_back(g);
    }
  }
  StepOptions inner_options = options;
  inner_options.want_fates = options.want_fates && C == 1 && grow == 1;
  StepResult timed = inner_.time_step(expanded_, inner_options);
  StepResult out;
  out.flows.resize(flows.size());
  for (size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    FlowResult& r = out.flows[i];
    double latency = 0;
    for (int c = 0; c < C; ++c) {
      const size_t k = i * C + c;
      FlowResult& part = timed.flows[k];
      r.finish_s = std::max(r.finish_s, part.finish_s);
      r.packets += part.packets;
      r.retransmitted += part.retransmitted;
      r.trimmed += part.trimmed;
      r.dropped += part.dropped;
      if (C == 1) r.fates = std::move(part.fates);
      latency =
          std::max(latency, path_latency_s(expanded_[k].src, expanded_[k].dst, expanded_[k].id));
    }
    if (config_.rate_cap_Bps > 0)
      r.finish_s = std::max(r.finish_s, static_cast<double>(f.bytes) / config_.rate_cap_Bps);
    // The protocol's step latency replaces the path's own (it already contains it).
    const double step =
        server_[f.src] != server_[f.dst] ? config_.inter_step_s : config_.intra_step_s;
    if (f.bytes > 0) r.finish_s += std::max(0.0, step - latency);
    out.duration_s = std::max(out.duration_s, r.finish_s);
  }
  return out;
}

}  // namespace commlab
