// The pictures as JSON (views/views_json.h, `commlab-cli view`): the documents carry the engine's
// own numbers, every frame, box and bar the page draws, and nothing that changes between two runs
// of the same settings.
#include "views/views_json.h"

#include <gtest/gtest.h>

namespace commlab::views {
namespace {

using nlohmann::json;

TEST(ViewsJson, TopologyCarriesThePicturesBoxesEdgesAndLoads) {
  const TopologyPicture pic = compute_topology_picture(TopologySettings{});  // fattree:k=4
  const json j = to_json(pic);
  EXPECT_EQ(j["page"], "topology");
  ASSERT_EQ(j["boxes"].size(), pic.boxes.size());
  ASSERT_EQ(j["edges"].size(), pic.edges.size());
  ASSERT_EQ(j["links"].size(), pic.links.size());
  EXPECT_EQ(j["max_utilisation"].get<double>(), pic.max_utilisation);
  EXPECT_EQ(j["step_time_s"].get<double>(), pic.step_time_s);
  EXPECT_EQ(j["steps"], pic.steps);
  EXPECT_EQ(j["aggregation"], "node");
  for (size_t e = 0; e < pic.edges.size(); ++e) {
    const json& edge = j["edges"][e];
    EXPECT_EQ(edge["a"], pic.edges[e].a);
    EXPECT_EQ(edge["b"], pic.edges[e].b);
    for (int d = 0; d < 2; ++d) {
      EXPECT_EQ(edge["directions"][d]["utilisation"].get<double>(), pic.edges[e].utilisation[d]);
      EXPECT_EQ(edge["directions"][d]["bandwidth_Bps"].get<double>(),
                pic.edges[e].bandwidth_Bps[d]);
    }
  }
  // Every link folded into a drawn edge points at it, in its direction.
  for (size_t l = 0; l < pic.links.size(); ++l) {
    EXPECT_EQ(j["links"][l]["edge"], pic.link_edge[l]);
    EXPECT_EQ(j["links"][l]["bytes"].get<double>(), pic.links[l].bytes);
  }
  // Box kinds by name: k=4 fat-tree has k^3/4 = 16 GPU hosts.
  int gpus = 0;
  for (const json& b : j["boxes"]) gpus += b["kind"] == node_kind_name(NodeKind::kGpu);
  EXPECT_EQ(gpus, 16);
  EXPECT_EQ(j["settings"], to_json(pic.settings));
}

TEST(ViewsJson, TopologyLeavesOutTheWallClockSoTwoRunsAgree) {
  TopologySettings s;
  s.algorithm = "tree";
  s.message_bytes = 1 << 20;
  const TopologyPicture a = compute_topology_picture(s), b = compute_topology_picture(s);
  EXPECT_FALSE(to_json(a).contains("compute_s"));
  EXPECT_EQ(to_json(a).dump(), to_json(b).dump());
  EXPECT_EQ(to_json(a)["settings"]["algorithm"], "tree");
  EXPECT_EQ(to_json(a)["settings"]["message_bytes"], 1u << 20);
}

TEST(ViewsJson, TeachingRingOnFourRanksHasEveryFrameAndEndsWithEveryContribution) {
  const TeachingTrace trace = compute_teaching_trace(TeachingSettings{});  // ring, 4 ranks
  const json j = to_json(trace);
  // Ring all-reduce: N-1 reduce-scatter + N-1 all-gather steps = 2(N-1) = 6, plus frame 0.
  EXPECT_EQ(j["steps"], 6);
  ASSERT_EQ(j["frames"].size(), 7u);
  // Frame 0: rank r holds only its own data (bit r) in every cell.
  for (int r = 0; r < 4; ++r)
    for (const json& cell : j["frames"][0]["masks"][r]) EXPECT_EQ(cell, 1u << r);
  // Last frame: every cell of every rank holds all four contributions, 0b1111.
  for (const json& rank : j["frames"][6]["masks"])
    for (const json& cell : rank) EXPECT_EQ(cell, 0b1111u);
  for (size_t f = 0; f < trace.frames.size(); ++f) {
    const json& frame = j["frames"][f];
    EXPECT_EQ(frame["caption"], trace.frames[f].caption);
    ASSERT_EQ(frame["transfers"].size(), trace.frames[f].transfers.size());
    for (size_t t = 0; t < trace.frames[f].transfers.size(); ++t) {
      const auto [first, last] = trace.cells_of(trace.frames[f].transfers[t]);
      EXPECT_EQ(frame["transfers"][t]["first_cell"], first);
      EXPECT_EQ(frame["transfers"][t]["last_cell"], last);
    }
    EXPECT_FALSE(frame.contains("relative_error"));  // no trimming: every value exact
  }
  // Each ring step moves one chunk per rank: 4 transfers.
  EXPECT_EQ(j["frames"][1]["transfers"].size(), 4u);
}

TEST(ViewsJson, TeachingTrimmingCarriesTheErrorsAndPacketCounts) {
  TeachingSettings s;
  s.trim_rate = 0.5;
  const TeachingTrace trace = compute_teaching_trace(s);
  const json j = to_json(trace);
  EXPECT_EQ(j["settings"]["trim_rate"].get<double>(), 0.5);
  uint64_t packets = 0, trimmed = 0;
  for (size_t f = 0; f < trace.frames.size(); ++f) {
    EXPECT_EQ(j["frames"][f]["packets"], trace.frames[f].packets);
    EXPECT_EQ(j["frames"][f]["trimmed_packets"], trace.frames[f].trimmed);
    EXPECT_EQ(j["frames"][f]["relative_error"].size(), 4u);
    packets += trace.frames[f].packets;
    trimmed += trace.frames[f].trimmed;
  }
  EXPECT_GT(packets, 0u);
  EXPECT_GT(trimmed, 0u);
}

TEST(ViewsJson, FlatRingBusbwApproachesItsCeilingAtTheLargestSize) {
  const ThroughputSettings s;  // 8 ranks, 25 GB/s, 5 us, 1 KiB .. 256 MiB
  const json j = to_json(s, compute_throughput(s));
  EXPECT_EQ(j["settings"]["mode"], "flat");
  EXPECT_EQ(j["settings"]["max_bytes"], 256u << 20);
  ASSERT_EQ(j["series"].size(), 4u);
  const json& ring = j["series"][0];
  ASSERT_EQ(ring["algorithm"], "ring");
  // 1 KiB doubling to 256 MiB: 2^10 .. 2^28, 19 sizes.
  ASSERT_EQ(ring["points"].size(), 19u);
  // The ring's busbw ceiling is the link: 2(N-1)/N x S / (2(N-1) S/(N bw)) = bw = 25 GB/s.
  EXPECT_NEAR(ring["ceiling_gbps"].get<double>(), 25.0, 0.25);
  // At 256 MiB the 2(N-1) latencies (14 x 5 us) are under 1% of the 19 ms of transfer.
  const double largest = ring["points"].back()["busbw_gbps"].get<double>();
  EXPECT_GT(largest, 0.98 * ring["ceiling_gbps"].get<double>());
  EXPECT_LE(largest, ring["ceiling_gbps"].get<double>() * (1 + 1e-9));
  // At 1 KiB latency dominates: far below the ceiling.
  EXPECT_LT(ring["points"][0]["busbw_gbps"].get<double>(), 0.1 * 25.0);
}

TEST(ViewsJson, NcclThroughputNamesTheChoicePerSizeAndDrawsNoCeiling) {
  ThroughputSettings s;
  s.cluster = "dgx-h100-pod:nodes=1";
  s.min_bytes = 1 << 20;
  s.max_bytes = 4 << 20;
  const json j = to_json(s, compute_throughput(s));
  EXPECT_EQ(j["settings"]["mode"], "nccl");
  ASSERT_EQ(j["series"].size(), 3u);
  EXPECT_EQ(j["series"][0]["algorithm"], "NCCL");
  for (const json& c : j["series"]) {
    EXPECT_FALSE(c.contains("ceiling_gbps"));
    ASSERT_EQ(c["points"].size(), 3u);  // 1, 2, 4 MiB
    for (const json& p : c["points"]) EXPECT_FALSE(p["choice"].get<std::string>().empty());
  }
}

TEST(ViewsJson, ThroughputRefusesAnEmptySizeRange) {
  ThroughputSettings s;
  s.min_bytes = 1 << 20;
  s.max_bytes = 1 << 10;
  EXPECT_THROW(compute_throughput(s), std::invalid_argument);
}

TEST(ViewsJson, WorkloadCarriesTheTitleLanesAndTheReplaysTimes) {
  WorkloadSettings s;
  s.model = "gpt-7b";
  s.dp = 1;
  s.tp = 2;
  s.pp = 2;
  s.global_batch = 4;
  s.max_ranks = 2;
  const WorkloadPicture pic = compute_workload_picture(s);
  const json j = to_json(pic);
  EXPECT_EQ(j["title"], pic.title);
  EXPECT_EQ(j["iteration_s"].get<double>(), pic.result.iteration_s);
  EXPECT_EQ(j["ranks"], 4);  // dp 1 x tp 2 x pp 2
  ASSERT_EQ(j["lanes"].size(), pic.lanes.size());
  size_t critical = 0;
  for (size_t l = 0; l < pic.lanes.size(); ++l) {
    ASSERT_EQ(j["lanes"][l]["bars"].size(), pic.lanes[l].bars.size());
    for (size_t b = 0; b < pic.lanes[l].bars.size(); ++b) {
      const json& bar = j["lanes"][l]["bars"][b];
      EXPECT_EQ(bar["end_s"].get<double>(), pic.lanes[l].bars[b].end_s);
      EXPECT_EQ(bar["kind"], bar_kind_name(pic.lanes[l].bars[b].kind));
      critical += bar["critical"].get<bool>();
    }
  }
  EXPECT_EQ(critical, pic.critical_nodes_shown);
  // The critical path covers the iteration: compute + exposed communication + idle gaps.
  double sum = j["critical_compute_s"].get<double>() + j["critical_idle_s"].get<double>();
  for (const auto& [kind, s_exposed] : j["exposed_s"].items()) sum += s_exposed.get<double>();
  EXPECT_NEAR(sum, j["iteration_s"].get<double>(), 1e-9 * sum);
  // No wall-clock time: a second replay gives the same document.
  EXPECT_FALSE(j.contains("wall_s"));
  EXPECT_EQ(j.dump(), to_json(compute_workload_picture(s)).dump());
  EXPECT_EQ(j["settings"]["model"], "gpt-7b");
  EXPECT_EQ(j["settings"]["codec_placement"], "nic");
}

}  // namespace
}  // namespace commlab::views
