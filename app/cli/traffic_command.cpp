// commlab-cli traffic: plain traffic (no collective) through the packet backend; flow completion
// times, packet counts and the speed of the simulation itself (docs/cli.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/util/flag_parse_util.h"
#include "cli/util/size_flag_util.h"
#include "io/size_parse.h"
#include "network/packet_backend.h"
#include "network/traffic_patterns.h"
#include "topology/presets.h"

namespace commlab::cli {
namespace traffic_command {
namespace {

struct Options {
  std::string cluster;
  std::string pattern;
  std::string flow_size = "16M";
  std::string transport = "ndp";
  std::string admission = "trim";
  uint32_t queue = 8;
  uint32_t mtu = 4096;
  uint32_t paths = 0;  // 0: NDP and accept-trimmed spray over all paths, reliable and roce use one
  double trim_fraction = 0;
  std::string background;
  std::string background_size = "1M";
  uint64_t seed = 1;
  bool json = false;
};

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

int run(const Options& o) {
  TrafficSpec spec = parse_pattern(o.pattern);
  if (spec.pattern == Pattern::kOnOff)
    throw InvalidInput("--pattern: onoff is a background pattern; use perm, incast:K or alltoall");
  spec.flow_bytes = size_flag("--flow-size", o.flow_size);
  PacketConfig cfg;
  cfg.transport = parse_transport(o.transport);
  cfg.admission = parse_admission(o.admission);
  cfg.queue_packets = o.queue;
  cfg.mtu_bytes = o.mtu;
  // A trimmed packet keeps trim_bytes; it must be smaller than a full one (was an internal
  // message).
  if (uint64_t{cfg.mtu_bytes} + cfg.header_bytes <= cfg.trim_bytes)
    throw InvalidInput("--mtu " + std::to_string(o.mtu) + ": expected more than " +
                       std::to_string(cfg.trim_bytes - cfg.header_bytes) +
                       " payload bytes (a trimmed packet keeps " + std::to_string(cfg.trim_bytes) +
                       " bytes, headers included)");
  // NDP sprays every packet over the equal-cost paths (Handley et al., SIGCOMM 2017); 64 is the
  // most a packet's path index holds and more than any preset's equal-cost paths (k=16: 64).
  // RoCE, as the reliable transport, keeps a flow on its ECMP path (RC queue pairs do).
  const bool one_path = cfg.transport == Transport::kReliable || cfg.transport == Transport::kRoce;
  cfg.paths = o.paths > 0 ? o.paths : (one_path ? 1 : 64);
  cfg.random_trim_fraction = o.trim_fraction;
  cfg.seed = o.seed;
  PacketBackend net(cluster_from_spec(o.cluster), cfg);
  std::vector<Flow> flows = pattern_flows(spec, net.topology().ranks(), o.seed);
  if (!o.background.empty()) {
    TrafficSpec bg = parse_pattern(o.background);
    bg.flow_bytes = size_flag("--background-size", o.background_size);
    net.add_background(bg);
  }

  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  StepResult r = net.time_step(flows);
  const double cpu_s = cpu_seconds() - c0;
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();

  std::vector<double> fct;
  double ideal = 0;  // the slowest flow alone on an idle network: what `last` could be
  for (size_t i = 0; i < flows.size(); ++i) {
    fct.push_back(r.flows[i].finish_s * 1e6);
    ideal = std::max(ideal, net.ideal_time_s(flows[i]) * 1e6);
  }
  std::sort(fct.begin(), fct.end());
  const double median =
      fct.size() % 2 ? fct[fct.size() / 2] : (fct[fct.size() / 2 - 1] + fct[fct.size() / 2]) / 2;
  uint64_t sent = 0, rtx = 0, trimmed = 0, dropped = 0;
  for (const PacketFlowStats& s : net.last_step_stats()) {
    sent += s.sent;
    rtx += s.retransmitted;
    trimmed += s.trimmed;
    dropped += s.dropped;
  }
  const PacketTotals& t = net.totals();
  const double hops_per_s = wall_s > 0 ? t.data_packet_hops / wall_s : 0;
  if (o.json) {
    nlohmann::json j = {
        {"pattern", o.pattern},
        {"flows", flows.size()},
        {"fct_us",
         {{"first", fct.front()}, {"median", median}, {"last", fct.back()}, {"ideal", ideal}}},
        {"packets_sent", sent},
        {"retransmitted", rtx},
        {"trimmed", trimmed},
        {"dropped", dropped},
        {"data_packet_hops", t.data_packet_hops},
        {"wall_s", wall_s},
        {"packet_hops_per_s", hops_per_s},
        // extensions
        {"cluster", net.topology().name()},
        {"transport", transport_name(cfg.transport)},
        {"admission", admission_name(cfg.admission)},
        {"paths", cfg.paths},
        {"trimmed_packet_hops", t.trimmed_packet_hops},
        {"control_packet_hops", t.control_packet_hops},
        {"events", t.events},
        {"peak_packets", t.peak_packets},
        {"cpu_s", cpu_s},
        {"packet_hops_per_cpu_s", cpu_s > 0 ? t.data_packet_hops / cpu_s : 0}};
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  std::printf(
      "# commlab traffic: %s, %zu flows of %s, %d ranks (%s), transport %s, admission %s, "
      "queue %u packets, mtu %u, paths %u\n",
      o.pattern.c_str(), flows.size(), format_size(spec.flow_bytes).c_str(), net.topology().ranks(),
      net.topology().name().c_str(), transport_name(cfg.transport), admission_name(cfg.admission),
      o.queue, o.mtu, cfg.paths);
  std::printf("fct(us)      first %.1f  median %.1f  last %.1f  ideal %.1f\n", fct.front(), median,
              fct.back(), ideal);
  std::printf("packets      sent %llu  retransmitted %llu  trimmed %llu  dropped %llu\n",
              static_cast<unsigned long long>(sent), static_cast<unsigned long long>(rtx),
              static_cast<unsigned long long>(trimmed), static_cast<unsigned long long>(dropped));
  std::printf(
      "simulation   data packet-hops %llu  wall %.3f s  cpu %.3f s  %.2f M hops/s (wall)  "
      "%.2f M hops/s (cpu)\n",
      static_cast<unsigned long long>(t.data_packet_hops), wall_s, cpu_s, hops_per_s / 1e6,
      cpu_s > 0 ? t.data_packet_hops / cpu_s / 1e6 : 0.0);
  return kExitOk;
}

const RegisterCommand reg{Command{
    "traffic",
    "plain traffic through the packet backend: flow completion times, trims, drops, speed",
    [](CLI::App& app) {
      auto o = std::make_shared<Options>();
      app.add_option("--cluster", o->cluster, "cluster preset, spec (fattree:k=8) or JSON file")
          ->required();
      app.add_option("--pattern", o->pattern, "perm, incast:K or alltoall")->required();
      app.add_option("--flow-size", o->flow_size, "bytes per flow (K/M/G)")->capture_default_str();
      app.add_option("--transport", o->transport,
                     "reliable, ndp, accept-trimmed or roce (lossless: PFC + ECN + DCQCN; "
                     "--admission is then ignored)")
          ->capture_default_str();
      app.add_option("--admission", o->admission, "switch ports: trim, tail-drop or ecn")
          ->capture_default_str();
      app.add_option("--queue", o->queue, "switch data queue in packets (0: the links' buffers)")
          ->capture_default_str();
      app.add_option("--mtu", o->mtu, "payload bytes per packet")
          ->check(in_range(1u, 65000u))
          ->capture_default_str();
      app.add_option("--paths", o->paths,
                     "paths per flow: 1 per-flow ECMP, >1 packet spraying over up to that many; "
                     "default: all equal-cost paths for ndp/accept-trimmed, 1 for reliable/roce")
          ->check(in_range(0u, 64u))
          ->capture_default_str();
      app.add_option("--trim-fraction", o->trim_fraction,
                     "Bernoulli: trim this fraction of data packets at their first switch")
          ->check(in_range(0.0, 1.0))
          ->capture_default_str();
      app.add_option("--background", o->background,
                     "background traffic: perm, incast:K, alltoall or onoff:LOAD");
      app.add_option("--background-size", o->background_size, "bytes per background flow")
          ->capture_default_str();
      app.add_option("--seed", o->seed, "seed of patterns and random trimming")
          ->capture_default_str();
      app.add_flag("--json", o->json, "one JSON document on stdout");
      return [o] { return run(*o); };
    }}};

}  // namespace
}  // namespace traffic_command
}  // namespace commlab::cli
