// Speed of the packet backend on the scenarios htsim was measured on: a 128-host k=8
// fat-tree, 100 Gb/s links, 1 us per hop, 4 KB packets, NDP transport with trimming.
//   build-*/bench/network/packet/packet_scenarios [perm|incast|all] [--queue P] [--paths N]
//   [--repeat R]
//       [--transport ndp|reliable|accept-trimmed|roce]
// prints one line per run: scenario, flows, last FCT, packets, trims, data packet-hops, wall
// seconds and data packet-hops per second (whole data packets only; trimmed headers and control
// packets are counted separately and not included).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>

#include "network/packet_backend.h"
#include "network/traffic_patterns.h"
#include "topology/builders.h"

using namespace commlab;

namespace {

// The machine is shared: CPU time of this process is the fairer speed measure next to wall time.
double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

void run(const char* name, const TrafficSpec& spec, uint32_t queue_packets, uint32_t paths,
         Transport transport) {
  PacketConfig cfg;
  cfg.admission = Admission::kTrim;
  cfg.transport = transport;
  cfg.queue_packets = queue_packets;
  cfg.paths = paths;
  PacketBackend net(make_fat_tree(FatTreeParams{8, 100, 1.0}), cfg);
  std::vector<Flow> flows = pattern_flows(spec, net.topology().ranks(), 1);
  auto t0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  StepResult r = net.time_step(flows);
  const double cpu = cpu_seconds() - c0;
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const PacketTotals& t = net.totals();
  std::printf(
      "%-8s %s flows=%zu last_fct_us=%.1f sent=%llu rtx=%llu trimmed=%llu dropped=%llu "
      "data_hops=%llu trimmed_hops=%llu control_hops=%llu events=%llu peak_packets=%llu "
      "wall_s=%.3f cpu_s=%.3f data_hops_per_wall_s=%.3gM data_hops_per_cpu_s=%.3gM\n",
      name, transport_name(transport), flows.size(), r.duration_s * 1e6,
      (unsigned long long)t.packets_sent, (unsigned long long)t.retransmitted,
      (unsigned long long)t.trimmed, (unsigned long long)t.dropped,
      (unsigned long long)t.data_packet_hops, (unsigned long long)t.trimmed_packet_hops,
      (unsigned long long)t.control_packet_hops, (unsigned long long)t.events,
      (unsigned long long)t.peak_packets, wall, cpu, t.data_packet_hops / wall / 1e6,
      t.data_packet_hops / cpu / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  std::string which = argc > 1 ? argv[1] : "all";
  uint32_t queue = 8;  // NDP's 8-packet data queue
  int repeat = 1;
  uint32_t paths = 16;  // NDP sprays packets over all 16 core paths of a k=8 fat-tree
  Transport transport = Transport::kNdp;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--queue")) queue = static_cast<uint32_t>(std::stoul(argv[i + 1]));
    if (!std::strcmp(argv[i], "--repeat")) repeat = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--paths")) paths = static_cast<uint32_t>(std::stoul(argv[i + 1]));
    if (!std::strcmp(argv[i], "--transport")) transport = parse_transport(argv[i + 1]);
  }
  for (int k = 0; k < repeat; ++k) {
    if (which == "perm" || which == "all") {
      TrafficSpec perm;
      perm.pattern = Pattern::kPermutation;
      perm.flow_bytes = 16ull << 20;
      run("perm", perm, queue, paths, transport);
    }
    if (which == "incast" || which == "all") {
      TrafficSpec incast;
      incast.pattern = Pattern::kIncast;
      incast.senders = 16;
      incast.flow_bytes = 128ull << 20;
      run("incast", incast, queue, paths, transport);
    }
  }
}
