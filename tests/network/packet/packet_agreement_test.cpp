// The packet backend against the analytical one on an uncongested ring: with the
// packet backend's framing added to the alpha-beta model (network/framed_backend.h: a header per
// 4096 B packet, one control packet back per data packet) they agree within 2% at several sizes
// and topologies; without it the packet backend is slower by about the two framing terms. The
// first test runs the ring as bulk-synchronous steps (slicing off), the second NCCL's slices,
// which the packet backend times slice by slice (collective/pipeline_graph.h).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "collective/algorithms.h"
#include "collective/simulated_executor.h"
#include "network/analytical.h"
#include "network/framed_backend.h"
#include "network/packet_backend.h"
#include "topology/presets.h"

namespace commlab {
namespace {

// slice_bytes 0: bulk-synchronous steps; PipelineConfig{}: NCCL's default slicing.
double ring_time(NetworkBackend& backend, uint64_t bytes, uint64_t slice_bytes = 0) {
  PlanRequest req;
  req.op = CollectiveOp::kAllReduce;
  req.ranks = backend.topology().ranks();
  req.count = bytes / sizeof(float);
  req.time_only = true;
  req.pipeline.slice_bytes = slice_bytes;
  const Plan plan = build_plan("ring", req);
  ExecutorOptions ex;
  ex.backend = &backend;
  return execute_plan(plan, {}, ex).time_s;
}

TEST(PacketAgreement, FramedAnalyticalRingMatchesThePacketBackendWithin2Percent) {
  const PacketConfig config;  // NDP, 4096 B packets, 64 B headers
  const double header_share = double(config.header_bytes) / config.mtu_bytes;
  for (const char* spec : {"flat:16", "flat:8,gbps=100", "fattree:k=4"})
    for (uint64_t bytes : {4ull << 20, 16ull << 20, 64ull << 20}) {
      PacketBackend packet(cluster_from_spec(spec), config);
      AnalyticalBackend plain(cluster_from_spec(spec));
      FramedBackend framed(std::make_unique<AnalyticalBackend>(cluster_from_spec(spec)),
                           framing_of(config));
      const double p = ring_time(packet, bytes), a = ring_time(plain, bytes),
                   f = ring_time(framed, bytes);
      SCOPED_TRACE(std::string(spec) + " " + std::to_string(bytes >> 20) + " MiB");
      EXPECT_NEAR(p / f, 1.0, 0.02) << "packet " << p << " s, framed analytical " << f << " s";
      // Without framing the packet backend is slower, by at least part of the data headers and
      // the reverse control packets sharing each link (2 x 64 / 4096 = 3.1% of the bandwidth
      // term), plus store and forward on long paths; framing brings it closer.
      EXPECT_GT(p / a, 1.0 + 0.5 * header_share) << "packet " << p << " s, plain " << a << " s";
      EXPECT_LT(std::abs(p / f - 1), std::abs(p / a - 1));
    }
}

TEST(PacketAgreement, DefaultSlicedRingTimesTheSameOnBothBackends) {
  // The case: flat:16, 64 MiB, NCCL's default slicing (512 KiB slices, 2 MiB loops). A
  // rank's chunk C = 4 MiB is L = 2 loops of K = 4 slices; the D = 2(N-1) = 30 steps pipeline,
  // so the analytical time is L (D K b + alpha) with b = 512 KiB / B (executor.h's closed form).
  const PacketConfig config;
  const uint64_t bytes = 64ull << 20, slice = PipelineConfig{}.slice_bytes;
  PacketBackend packet(cluster_from_spec("flat:16"), config);
  AnalyticalBackend plain(cluster_from_spec("flat:16"));
  FramedBackend framed(std::make_unique<AnalyticalBackend>(cluster_from_spec("flat:16")),
                       framing_of(config));
  const double p = ring_time(packet, bytes, slice), a = ring_time(plain, bytes, slice),
               f = ring_time(framed, bytes, slice);
  const Link& up = plain.topology().links()[0];  // gpu -> crossbar: the alpha and the bandwidth
  const double alpha = up.latency_s, b = slice / up.bandwidth_Bps, D = 30, K = 4, L = 2;
  EXPECT_NEAR(a, L * (D * K * b + alpha), 1e-9);
  // The packet backend runs the same slices (was bulk-synchronous: 5.9% over a): within 1% of
  // the framed analytical model, and over the plain one by the framing alone, a header and a
  // control packet back per 4096 B packet on the bandwidth term: L (D K b (1 + 2 h / mtu) + alpha).
  EXPECT_NEAR(p / f, 1.0, 0.01) << "packet " << p << " s, framed analytical " << f << " s";
  const double framing = 1 + 2.0 * config.header_bytes / config.mtu_bytes;
  EXPECT_NEAR(p / (L * (D * K * b * framing + alpha)), 1.0, 0.005) << "packet " << p << " s";
  // Slicing gains the same on both backends: bulk D (alpha + C/B) against L (D K b + alpha)
  // saves (D - L) alpha of latency (plus the pipelined store and forward on the packet side).
  const double p_bulk = ring_time(packet, bytes), a_bulk = ring_time(plain, bytes);
  EXPECT_NEAR(a_bulk - a, (D - L) * alpha, 1e-9);
  EXPECT_NEAR((p_bulk - p) / (a_bulk - a), 1.0, 0.05)
      << "packet bulk " << p_bulk << " s, sliced " << p << " s";
}

TEST(PacketAgreement, FramingAddsHeadersAndReverseControlFlows) {
  // One flow of 10 full packets + 1 byte on a flat 2-rank network: 11 packets, 11 headers on the
  // data, 11 control packets back (on the other direction's links). Alone on its links:
  // time = alpha + (B + 11 h) / bw + (mtu + h) / bw (the first packet stored and forwarded once
  // at the switch: two links, one already counted).
  FramedBackend framed(std::make_unique<AnalyticalBackend>(make_flat(2, 1e9, 1e-6)),
                       Framing{4096, 64, 1});
  const Flow flow{0, 1, 10 * 4096 + 1, 7};
  StepResult r = framed.time_step(std::span<const Flow>(&flow, 1));
  ASSERT_EQ(r.flows.size(), 1u);
  EXPECT_EQ(r.flows[0].packets, 11u);
  EXPECT_NEAR(r.flows[0].finish_s, 1e-6 + (10 * 4096 + 1 + 11 * 64) / 1e9 + (4096 + 64) / 1e9,
              1e-12);
}

}  // namespace
}  // namespace commlab
