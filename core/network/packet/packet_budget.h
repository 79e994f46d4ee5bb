#pragma once
// Every packet simulation has a budget in events and in memory (issue 21): background traffic
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

}  // namespace commlab
