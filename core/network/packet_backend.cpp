#include "network/packet_backend.h"

#include "network/packet/packet_sim.h"

namespace commlab {

PacketBackend::PacketBackend(Topology topology, PacketConfig config)
    : topo_(std::move(topology)), router_(topo_), config_(config) {
  topo_.check();
  sim_ = std::make_unique<PacketSim>(topo_, router_, config_);
}

PacketBackend::~PacketBackend() = default;

StepResult PacketBackend::time_step(std::span<const Flow> flows, const StepOptions& options) {
  return sim_->run_step(flows, options.want_fates, &last_stats_);
}

StepResult PacketBackend::time_flow_graph(const FlowGraph& graph, const StepOptions& options) {
  return sim_->run_graph(graph, options.want_fates, &last_stats_);
}

void PacketBackend::add_background(const TrafficSpec& spec) {
  sim_->add_background(spec);
}
void PacketBackend::clear_background() {
  sim_->clear_background();
}
void PacketBackend::advance(double seconds) {
  sim_->advance(seconds);
}
double PacketBackend::now_s() const {
  return sim_->now_s();
}
const PacketTotals& PacketBackend::totals() const {
  return sim_->totals();
}
uint64_t PacketBackend::memory_bytes() const {
  return sim_->memory_bytes();
}
const PortSeries& PacketBackend::port_series() const {
  return sim_->series();
}

double PacketBackend::ideal_time_s(const Flow& flow) const {
  return sim_->ideal_time_s(flow.src, flow.dst, flow.bytes, flow.id);
}

std::vector<uint64_t> PacketBackend::pfc_pauses_per_link() const {
  return sim_->pfc_pauses_per_link();
}

}  // namespace commlab
