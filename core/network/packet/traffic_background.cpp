// Background traffic generators of the packet backend: closed-loop patterns (a pair's next flow
// starts when its last one completes) and open-loop on/off sources (Poisson flow starts at a
// chosen load). They share ports and queues with every step's flows.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "io/status.h"
#include "network/packet/packet_sim.h"
#include "network/traffic_patterns.h"

namespace commlab {
namespace {

std::string load_text(double load) {
  std::ostringstream out;
  out << load;
  return out.str();
}

}  // namespace

uint64_t PacketSim::background_flow_id(uint32_t g) {
  // Distinct from the small ids collectives use; deterministic per generator and start.
  return hash_combine(0xbac6ull << 48 | g, generators_[g].draws++);
}

void PacketSim::add_background(const TrafficSpec& spec) {
  if (spec.flow_bytes == 0) throw bad_input("background traffic: flow_bytes must be > 0");
  if (spec.pattern == Pattern::kOnOff && !(spec.load > 0 && spec.load <= 1))
    throw bad_input("background traffic: load must be in (0, 1]");
  if (topo_.ranks() < 2) throw bad_input("background traffic needs at least 2 ranks");
  if (topo_.ranks() >= (1 << 16) || generators_.size() >= (1u << 15))
    throw bad_input("background traffic: too many ranks or generators");
  const uint32_t g = static_cast<uint32_t>(generators_.size());
  generators_.push_back(Generator{spec, 0, true, {}});
  if (spec.pattern == Pattern::kOnOff) generators_.back().open_by_source.assign(topo_.ranks(), 0);
  const uint64_t seed = hash_combine(config_.seed, g);
  const int owner = -1 - static_cast<int>(g);
  if (spec.pattern != Pattern::kOnOff) {
    for (auto [s, d] : pattern_pairs(spec, topo_.ranks(), seed))
      open_flow(s, d, spec.flow_bytes, background_flow_id(g), owner, false);
    return;
  }
  for (int r = 0; r < topo_.ranks(); ++r) schedule_next_start(g, r);
}

void PacketSim::clear_background() {
  for (Generator& g : generators_) g.active = false;
}

void PacketSim::on_flow_done_background(uint32_t flow) {
  const FlowState& f = flows_[flow];
  ++totals_.background_flows_done;
  totals_.background_bytes_done += f.bytes;
  const uint32_t g = static_cast<uint32_t>(-1 - f.owner);
  Generator& gen = generators_[g];
  if (gen.spec.pattern == Pattern::kOnOff) {
    --gen.open_by_source[f.src];
    return;
  }
  if (!gen.active || !gen.spec.repeat) return;
  const int src = f.src, dst = f.dst, owner = f.owner;
  open_flow(src, dst, gen.spec.flow_bytes, background_flow_id(g), owner, false);
}

void PacketSim::schedule_next_start(uint32_t g, int src) {
  Generator& gen = generators_[g];
  double bw = 0;
  for (int li : topo_.out_links(topo_.gpus()[src]))
    bw = std::max(bw, topo_.links()[li].bandwidth_Bps);
  // Flow starts of one source form a Poisson process offering load * bw on average, counted on
  // the wire: a flow of B bytes in ceil(B / mtu) packets occupies B + packets * header bytes of
  // it. Counting payload only, 1-byte flows at load 1 started 65 flows per packet time (64-byte
  // headers): a sender backlog that grows without bound, which the simulation cannot finish.
  const uint64_t packets = (gen.spec.flow_bytes + config_.mtu_bytes - 1) / config_.mtu_bytes;
  const double wire_bytes = static_cast<double>(gen.spec.flow_bytes) +
                            static_cast<double>(packets) * config_.header_bytes;
  const double mean_gap_s = wire_bytes / (gen.spec.load * bw);
  const double gap_s = -std::log(1.0 - traffic_rng_.sub(g).uniform(gen.draws++)) * mean_gap_s;
  schedule(now_ + static_cast<SimTime>(gap_s * 1e12 + 0.5), EventKind::kGenerate,
           g << 16 | static_cast<uint32_t>(src));
}

void PacketSim::on_generate(uint32_t target) {
  const uint32_t g = target >> 16;
  const int src = static_cast<int>(target & 0xffff);
  Generator& gen = generators_[g];
  if (!gen.active) return;
  const int ranks = topo_.ranks();
  int dst = static_cast<int>(traffic_rng_.sub(g).below(gen.draws++, ranks - 1));
  if (dst >= src) ++dst;
  if (++gen.open_by_source[src] > config_.budget.max_open_background_flows)
    throw SimBudgetExceeded(
        "packet backend: background budget exceeded: on/off source at rank " + std::to_string(src) +
        " has more than " + std::to_string(config_.budget.max_open_background_flows) +
        " flows of " + std::to_string(gen.spec.flow_bytes) + " B open at once at load " +
        load_text(gen.spec.load) +
        " (PacketConfig::budget.max_open_background_flows): its flows start faster than the "
        "network finishes them; the simulation was stopped");
  open_flow(src, dst, gen.spec.flow_bytes, background_flow_id(g), -1 - static_cast<int>(g), false);
  schedule_next_start(g, src);
}

}  // namespace commlab
