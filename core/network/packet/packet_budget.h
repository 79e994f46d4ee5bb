#pragma once
// Every packet simulation has a budget in events and in memory: background traffic
// whose flows start faster than they can be sent (on/off at full load with 1-byte flows) grew to
// 7.5 GB before std::bad_alloc, and a trimming livelock ran 250 s of wall time before max_step_s
// of simulated time stopped it. The event loop checks the budget every kBudgetStride events and
// throws SimBudgetExceeded, whose message says which budget was exceeded (docs/hardening.md).
#include <cstdint>
#include <stdexcept>
#include <string>

namespace commlab {

struct SimBudget {
  // Events one call of the event loop (one step: a collective, a traffic run, an advance) may
  // process. About 10-20 s of wall time at the simulator's usual 25-50 M events/s.
  uint64_t max_events = 500'000'000;
  // Bytes of simulator state (flows, packets, events) alive at once.
  uint64_t max_memory_bytes = 1ull << 30;
  // On/off background flows one source may have started and not finished. An open-loop source
  // whose flows start faster than the network finishes them (tiny flows at full load: each
  // packet's header and the receivers' collisions make the real load exceed the offered one)
  // has a backlog that grows without bound; this stops it within microseconds of simulated
  // time instead of after the memory budget's minutes of wall time.
  uint32_t max_open_background_flows = 4096;
};

struct SimBudgetExceeded : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Events between two budget checks (a power of two: the check is a mask test).
inline constexpr uint64_t kBudgetStride = 4096;

// Throws SimBudgetExceeded when `events` processed in this call or `memory_bytes` of state
// exceed the budget; the message names the budget, its value and the field that sets it.
inline void check_sim_budget(const SimBudget& b, uint64_t events, uint64_t memory_bytes) {
  if (events > b.max_events)
    throw SimBudgetExceeded("packet backend: event budget exceeded: more than " +
                            std::to_string(b.max_events) +
                            " events in one step (PacketConfig::budget.max_events); the "
                            "simulation was stopped");
  if (memory_bytes > b.max_memory_bytes)
    throw SimBudgetExceeded(
        "packet backend: memory budget exceeded: " + std::to_string(memory_bytes >> 20) +
        " MiB of flows, packets and events alive, budget " +
        std::to_string(b.max_memory_bytes >> 20) +
        " MiB (PacketConfig::budget.max_memory_bytes); the simulation was "
        "stopped");
}

// A step opens all its flows before its first event; a million sprayed flows reached the budget
// only after ~17 s of opening. Before they open, PacketSim estimates what the new
// flow records and their sprayed paths alone will hold (`per_flow` bytes a flow, measured by
// routing a sample spread over the step) and refuses the step at once when that, on top of what
// is alive, exceeds the budget. The message names the flows, the bytes a flow, the estimate, the
// budget and what to change.
inline void check_opening_budget(const SimBudget& b, uint64_t alive, uint64_t flows,
                                 uint64_t new_records, uint64_t per_flow, uint64_t sampled) {
  const long double estimate =
      static_cast<long double>(alive) + static_cast<long double>(new_records) * per_flow;
  if (estimate <= static_cast<long double>(b.max_memory_bytes)) return;
  throw SimBudgetExceeded(
      "packet backend: memory budget exceeded: " + std::to_string(flows) +
      " flows open at once need an estimated " +
      std::to_string(static_cast<uint64_t>(estimate) >> 20) +
      " MiB for their records and sprayed paths alone (about " + std::to_string(per_flow) +
      " bytes a flow, routed for " + std::to_string(sampled) +
      " of them across the step), budget " + std::to_string(b.max_memory_bytes >> 20) +
      " MiB (PacketConfig::budget.max_memory_bytes); refused before the flows open: use fewer "
      "flows at once (a smaller cluster or pattern) or fewer sprayed paths (PacketConfig::paths, "
      "traffic --paths)");
}

}  // namespace commlab
