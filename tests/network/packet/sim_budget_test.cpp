// Every packet simulation has a budget in events and memory and says which one was exceeded
//: on/off background at full load with 1-byte flows
// starts flows 65 times faster than a NIC can send them, and grew to 7.5 GB before std::bad_alloc.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "network/packet_backend.h"
#include "packet_test_util.h"
#include "topology/builders.h"

namespace commlab {
namespace {

using testing::k4;

// Runs `body`, which must throw SimBudgetExceeded, and returns its message; fails if it took more
// than the 10 s (a generous bound: the budgets below stop in well under a second).
template <typename F>
std::string budget_error(F body) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string message = "(no exception)";
  try {
    body();
  } catch (const SimBudgetExceeded& e) {
    message = e.what();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 10.0) << message;
  return message;
}

// `generators` on/off backgrounds at full load with 1-byte flows, under a memory budget of `bytes`
// (and no practical bound on a source's open flows unless `open_flows` says otherwise).
std::unique_ptr<PacketBackend> overloaded_background(uint64_t bytes, int generators,
                                                     uint32_t open_flows = 1u << 31) {
  PacketConfig cfg;
  cfg.budget.max_memory_bytes = bytes;
  cfg.budget.max_open_background_flows = open_flows;
  auto net = std::make_unique<PacketBackend>(k4(), cfg);
  TrafficSpec bg;
  bg.pattern = Pattern::kOnOff;
  bg.load = 1.0;
  bg.flow_bytes = 1;
  for (int g = 0; g < generators; ++g) net->add_background(bg);
  return net;
}

// A source that really explodes: four generators at load 1 offer each NIC 4x what it can send,
// so its backlog of open flows (~700 B each: record, paths, window records, a queued packet)
// grows by ~3 flows per packet time, ~10,000 flows/us over the 16 hosts: 64 MiB within ~10 us
// of simulated time. One generator at load 1 is barely overloaded (its backlog grows ~100
// flows/us, 0.5 ms of simulated time and ~5 s of wall time to 64 MiB); it only looked explosive
// while completed flows stayed alive until their 1 ms retransmit timer fired.
std::unique_ptr<PacketBackend> exploding_background(uint64_t bytes) {
  return overloaded_background(bytes, 4);
}

TEST(SimBudget, ExplodingBackgroundStopsAtTheMemoryBudget) {
  auto net_ptr = exploding_background(64ull << 20);
  PacketBackend& net = *net_ptr;
  const Flow flow{0, 5, 64 << 20, 1};
  const std::string message = budget_error([&] { net.time_step(std::span(&flow, 1)); });
  // The MiB figure is where the check found it: 64 or a little more.
  EXPECT_NE(message.find("packet backend: memory budget exceeded: "), std::string::npos) << message;
  EXPECT_NE(message.find(" MiB of flows, packets and events alive, budget 64 MiB "
                         "(PacketConfig::budget.max_memory_bytes); the simulation was stopped"),
            std::string::npos)
      << message;
}

TEST(SimBudget, AnOverloadedOnOffSourceStopsAtItsOpenFlowBudget) {
  // 1-byte flows at load 1 start one per 65-byte packet time (the load counts the 64-byte
  // header), but each also needs its ACKs and PULLs and random receivers collide, so a source's
  // open flows only grow: `traffic --cluster fattree:k=4 --pattern perm --background onoff:1
  // --background-size 1` ran 100 s to the memory budget; a source's 1,000th open flow stops it.
  auto net_ptr = overloaded_background(1ull << 30, 1, 1000);
  const Flow flow{0, 5, 64 << 20, 1};
  const std::string message = budget_error([&] { net_ptr->time_step(std::span(&flow, 1)); });
  EXPECT_NE(message.find("packet backend: background budget exceeded: on/off source at rank "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(" has more than 1000 flows of 1 B open at once at load 1 "
                         "(PacketConfig::budget.max_open_background_flows)"),
            std::string::npos)
      << message;
}

TEST(SimBudget, AnAllToAllStopsWhileItsFlowsOpen) {
  // k=8 fat-tree, 128 hosts, all-to-all of 64 KiB: 16,256 flows, each sprayed (NDP) over the 16
  // core paths, so its path lists alone hold 16 x 6 hops x 2 directions x 4 B = 768 B, 12 MB in
  // all, opened before the first event. With one packet in flight per flow, packets and events
  // stay small: counting only sizeof(FlowState) (about 6 MB here) let this run under a 9 MB
  // budget, and let traffic --cluster fattree:k=16 --pattern alltoall --flow-size 1M reach
  // 5.8 GB against its 1 GiB budget in 132 s; counting the flows' vectors stops it at 1.4 GB.
  PacketConfig cfg;
  cfg.window_packets = 1;
  cfg.budget.max_memory_bytes = 9ull << 20;
  PacketBackend net(make_fat_tree(FatTreeParams{8, 100, 1.0}), cfg);
  std::vector<Flow> flows;
  for (int s = 0; s < 128; ++s)
    for (int d = 0; d < 128; ++d)
      if (s != d) flows.push_back({s, d, 64 << 10, flows.size()});
  const std::string message = budget_error([&] { net.time_step(flows); });
  EXPECT_NE(message.find("memory budget exceeded"), std::string::npos) << message;
  EXPECT_NE(message.find("budget 9 MiB"), std::string::npos) << message;
}

// The same all-to-all sprayed over all 16 core paths, refused before its flows open (once
// the k=16 all-to-all of 1 MiB, 1,047,552 flows, opened for ~17 s before the budget fired). A
// flow between pods holds its record (sizeof(FlowState), ~470 B) and 16 paths x 6 hops x 4 B
// each way (capacity 128 ints each way after the appends: 1 KiB), so the records and paths of
// 16,256 flows alone are ~20 MiB, over a 9 MiB budget: refused while what is alive is still the
// idle network, well under 1 MiB.
TEST(SimBudget, AStepThatCannotFitIsRefusedBeforeItsFlowsOpen) {
  auto all_to_all = [](uint64_t budget, uint64_t bytes = 64 << 10) {
    PacketConfig cfg;
    cfg.paths = 64;
    cfg.budget.max_memory_bytes = budget;
    auto net = std::make_unique<PacketBackend>(make_fat_tree(FatTreeParams{8, 100, 1.0}), cfg);
    std::vector<Flow> flows;
    for (int s = 0; s < 128; ++s)
      for (int d = 0; d < 128; ++d)
        if (s != d) flows.push_back({s, d, bytes, flows.size()});
    return std::make_pair(std::move(net), flows);
  };
  // Not a structured binding: clang (the ASan build) cannot capture one in a lambda.
  const auto tight = all_to_all(9ull << 20);
  const auto& net = tight.first;
  const auto& flows = tight.second;
  const uint64_t idle = net->memory_bytes();
  const std::string message = budget_error([&] { net->time_step(flows); });
  EXPECT_NE(message.find("packet backend: memory budget exceeded: 16256 flows open at once need "
                         "an estimated "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(" MiB for their records and sprayed paths alone (about "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(" bytes a flow, routed for 1024 of them across the step), budget 9 MiB "
                         "(PacketConfig::budget.max_memory_bytes); refused before the flows open"),
            std::string::npos)
      << message;
  EXPECT_EQ(net->memory_bytes(), idle) << message;  // not one flow was opened
  // The estimate is what the step really holds: the same flows of one packet each run under a
  // 64 MiB budget, and the memory at the end (every record and path list kept for reuse) is
  // above the budget they were refused at.
  auto [roomy, same] = all_to_all(64ull << 20, 4096);
  const StepResult r = roomy->time_step(same);
  EXPECT_EQ(r.flows.size(), 16256u);
  EXPECT_GT(roomy->memory_bytes(), 9ull << 20);
}

TEST(SimBudget, ACompletedFlowFreesItsStateAtOnce) {
  // 30 steps of 16 flows of 32 KiB on a k=4 fat-tree: each step lasts ~16 us, all 30 well under
  // the 1 ms RTO. A completed flow must not keep its slot (its 472-byte record plus its window
  // records, ~730 B in all) until its retransmit timer fired, so the steps' flows piled up:
  // 29 x 16 x 730 B = 340 KB more after the 30th step than after the first. Freed at completion,
  // slots are reused and what grows is each completed flow's stale timer event, 16 B (32 B while
  // the event queue's buckets double), plus at most one more step of flows whose last ACKs are
  // still in flight: 30 x 16 x 32 B + 16 x 2 KiB = 48 KB.
  PacketBackend net(k4());
  std::vector<Flow> flows;
  for (int r = 0; r < 16; ++r) flows.push_back({r, (r + 5) % 16, 32 << 10, uint64_t(r)});
  net.time_step(flows);
  const uint64_t first = net.memory_bytes();
  for (int i = 1; i < 30; ++i) net.time_step(flows);
  EXPECT_LT(net.now_s(), 1e-3);  // every timer of the first step is still pending
  EXPECT_LE(net.memory_bytes(), first + 30 * 16 * 32 + 16 * 2048)
      << "after 1 step " << first << " B, after 30 " << net.memory_bytes() << " B";
}

TEST(SimBudget, AdvanceIsBudgetedToo) {
  auto net_ptr = exploding_background(32ull << 20);
  PacketBackend& net = *net_ptr;
  const std::string message = budget_error([&] { net.advance(1.0); });
  EXPECT_NE(message.find("memory budget exceeded"), std::string::npos) << message;
}

TEST(SimBudget, LongStepStopsAtTheEventBudget) {
  PacketConfig cfg;
  cfg.budget.max_events = 100000;
  PacketBackend net(k4(), cfg);
  std::vector<Flow> flows;
  for (int r = 0; r < 16; ++r) flows.push_back({r, (r + 5) % 16, 64 << 20, uint64_t(r)});
  const std::string message = budget_error([&] { net.time_step(flows); });
  EXPECT_EQ(message,
            "packet backend: event budget exceeded: more than 100000 events in one step "
            "(PacketConfig::budget.max_events); the simulation was stopped");
}

TEST(SimBudget, TheBudgetCountsEachStepAlone) {
  // Ten steps of ~60k events each pass a 100k budget: it is per step, not per backend.
  PacketConfig cfg;
  cfg.budget.max_events = 100000;
  PacketBackend net(k4(), cfg);
  const Flow flow{0, 5, 8 << 20, 1};
  for (int i = 0; i < 10; ++i) EXPECT_NO_THROW(net.time_step(std::span(&flow, 1)));
  EXPECT_GT(net.totals().events, 100000u);
}

TEST(SimBudget, DefaultsAreDocumented) {
  const SimBudget b;
  EXPECT_EQ(b.max_events, 500000000u);
  EXPECT_EQ(b.max_memory_bytes, 1ull << 30);
  EXPECT_EQ(b.max_open_background_flows, 4096u);
}

}  // namespace
}  // namespace commlab
