// Flow graphs on the packet backend (network/backend.h, FlowGraph): a flow starts when its
// inputs have arrived and settled and when the previous flow on its connection has left the
// sender, timed against the store-and-forward closed form of single flows.
#include <gtest/gtest.h>

#include <stdexcept>

#include "network/analytical.h"
#include "network/packet_backend.h"
#include "topology/builders.h"

namespace commlab {
namespace {

// A graph whose flows have no dependencies but those given afterwards.
FlowGraph independent(std::vector<Flow> flows) {
  FlowGraph g;
  g.flows = std::move(flows);
  g.settle_s.assign(g.flows.size(), 0.0);
  g.after_sent.assign(g.flows.size(), -1);
  g.needs_begin.assign(g.flows.size() + 1, 0);
  return g;
}

TEST(PacketFlowGraph, AFlowStartsWhenItsInputHasArrivedAndSettled) {
  const PacketConfig cfg;
  PacketBackend net(make_flat(3, 25e9, 2e-6), cfg);
  // 0 -> 1, then 1 -> 2 once the first has arrived at 1 and settled for s = 3 us; alone on their
  // links each takes its store-and-forward time t_i = ideal_time_s, so T_1 = t_0 + s + t_1.
  FlowGraph g = independent({{0, 1, 40 * cfg.mtu_bytes, 1}, {1, 2, 25 * cfg.mtu_bytes + 7, 2}});
  g.settle_s[0] = 3e-6;
  g.needs = {0};
  g.needs_begin = {0, 0, 1};
  const StepResult r = net.time_flow_graph(g);
  const double t0 = net.ideal_time_s(g.flows[0]), t1 = net.ideal_time_s(g.flows[1]);
  EXPECT_NEAR(r.flows[0].finish_s, t0, 1e-12);
  EXPECT_NEAR(r.flows[1].finish_s, t0 + 3e-6 + t1, 1e-11);
  EXPECT_DOUBLE_EQ(r.duration_s, r.flows[1].finish_s);
}

TEST(PacketFlowGraph, ProgramOrderKeepsTheSendersLinkBusy) {
  const PacketConfig cfg;
  PacketBackend net(make_flat(2, 25e9, 2e-6), cfg);
  // Two flows of 8 full packets each on one connection, the second after the first has handed
  // its last packet to the NIC: the link never idles, so the second ends when one flow of 16
  // packets would (its store-and-forward time, ideal_time_s), and the first as a flow of 8.
  FlowGraph g = independent({{0, 1, 8 * cfg.mtu_bytes, 5}, {0, 1, 8 * cfg.mtu_bytes, 5}});
  g.after_sent = {-1, 0};
  const StepResult r = net.time_flow_graph(g);
  const Flow both{0, 1, 16 * cfg.mtu_bytes, 5};
  EXPECT_NEAR(r.flows[0].finish_s, net.ideal_time_s(g.flows[0]), 1e-12);
  EXPECT_NEAR(r.flows[1].finish_s, net.ideal_time_s(both), 1e-12);
  // The clock moved on by the graph's duration, as after a step.
  EXPECT_NEAR(net.now_s(), r.duration_s, 1e-12);
}

TEST(PacketFlowGraph, EmptyFlowsPassTheirDependenciesOn) {
  const PacketConfig cfg;
  PacketBackend net(make_flat(2, 25e9, 2e-6), cfg);
  // A zero-byte flow arrives after its path latency (the flat network's alpha = 2 us, on the
  // uplink); the flow needing it starts then: T_1 = alpha + t_1.
  FlowGraph g = independent({{0, 1, 0, 1}, {1, 0, 4 * cfg.mtu_bytes, 2}});
  g.needs = {0};
  g.needs_begin = {0, 0, 1};
  const StepResult r = net.time_flow_graph(g);
  EXPECT_NEAR(r.flows[0].finish_s, 2e-6, 1e-12);
  EXPECT_NEAR(r.flows[1].finish_s, 2e-6 + net.ideal_time_s(g.flows[1]), 1e-12);
}

TEST(PacketFlowGraph, MalformedGraphsAreRefusedNamingTheField) {
  PacketBackend net(make_flat(2, 25e9, 2e-6));
  FlowGraph g = independent({{0, 1, 4096, 1}, {1, 0, 4096, 2}});
  g.after_sent = {1, -1};  // names a later flow: not a graph in order
  try {
    net.time_flow_graph(g);
    FAIL() << "a dependency on a later flow was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("flow 0: after_sent 1, expected an earlier flow"),
              std::string::npos)
        << e.what();
  }
  g = independent({{0, 1, 4096, 1}});
  g.settle_s.clear();
  EXPECT_THROW(net.time_flow_graph(g), std::logic_error);
  // A backend without flow graphs says so instead of timing something else.
  AnalyticalBackend analytical(make_flat(2, 25e9, 2e-6));
  EXPECT_FALSE(analytical.times_flow_graphs());
  EXPECT_THROW(analytical.time_flow_graph(independent({{0, 1, 4096, 1}})), std::logic_error);
}

}  // namespace
}  // namespace commlab
