// The Workload page: lanes hold exactly the recorded ranks' nodes at the engine's times, bars sit
// where their times scale to, the critical path is the engine's, and a changed control replays
// (more bandwidth or a DP codec -> a shorter iteration; stale results are dropped).
#include "workload_view.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QImage>
#include <QPainter>
#include <QSpinBox>
#include <QTemporaryDir>
#include <cstdlib>
#include <map>
#include <set>

#include "gantt_canvas.h"
#include "ui_test_util.h"
#include "views/workload_model.h"
#include "workload/chakra_trace.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;
using workload::check_graph;
using workload::CommKind;
using workload::CriticalStep;
using workload::Graph;
using workload::Node;
using workload::NodeKind;
using workload::RankGraph;
using workload::ScheduleResult;
using workload::TimelineEntry;
using workload::write_chakra_trace;

Node compute(uint64_t id, double seconds) {
  Node n;
  n.id = id;
  n.duration_s = seconds;
  return n;
}

Node comm(uint64_t id, NodeKind kind, CommKind what, uint64_t bytes, int group_or_peer,
          uint8_t stream) {
  Node n;
  n.id = id;
  n.kind = kind;
  n.comm = what;
  n.bytes = bytes;
  n.group_or_peer = group_or_peer;
  n.stream = stream;
  return n;
}

// Two pipeline stages x two DP replicas: rank = 2 * stage + replica. Stage 0 runs forward (1 ms),
// sends its activations to stage 1, gets the gradient back, runs backward (2 ms) and all-reduces
// its gradients with its replica (DP, stream 1); stage 1 mirrors it. PP traffic on stream 2.
Graph pipeline_graph(uint64_t dp_bytes = 64 << 20) {
  Graph g;
  g.name = "two-stage";
  g.ranks.resize(4);
  g.groups = {{0, 1}, {2, 3}};
  const uint64_t act = 8 << 20;
  for (int replica = 0; replica < 2; ++replica) {
    RankGraph& s0 = g.ranks[replica];
    uint32_t f = s0.add(compute(1, 1e-3));
    s0.nodes[f].name = g.intern("fwd0");
    uint32_t tx = s0.add(comm(2, NodeKind::kSend, CommKind::kPp, act, 2 + replica, 2), {f});
    uint32_t rx = s0.add(comm(3, NodeKind::kRecv, CommKind::kPp, act, 2 + replica, 2), {tx});
    uint32_t b = s0.add(compute(4, 2e-3), {rx});
    s0.nodes[b].name = g.intern("bwd0");
    uint32_t ar = s0.add(comm(5, NodeKind::kCollective, CommKind::kDp, dp_bytes, 0, 1), {b});
    s0.add(compute(6, 0), {ar});

    RankGraph& s1 = g.ranks[2 + replica];
    uint32_t r1 = s1.add(comm(1, NodeKind::kRecv, CommKind::kPp, act, replica, 2));
    uint32_t f1 = s1.add(compute(2, 1e-3), {r1});
    uint32_t b1 = s1.add(compute(3, 2e-3), {f1});
    s1.nodes[b1].name = g.intern("bwd1");
    s1.add(comm(4, NodeKind::kSend, CommKind::kPp, act, replica, 2), {b1});
    uint32_t ar1 = s1.add(comm(5, NodeKind::kCollective, CommKind::kDp, dp_bytes, 1, 1), {b1});
    s1.add(compute(6, 0), {ar1});
  }
  check_graph(g);
  return g;
}

// A Megatron-like iteration: pp stages x dp replicas x tp ranks (rank = (d * pp + s) * tp + t),
// 1F1B over m micro-batches (pp-1-s warm-up forwards, then one forward one backward), `layers`
// layers per stage each followed by a TP all-reduce on the compute stream, PP activations and
// gradients as send (stream 3) / recv (stream 2), one DP all-reduce bucket per layer on stream 1
// after the last micro-batch's backward of that layer, then the optimizer.
Graph one_f_one_b_graph(int pp, int m, int dp, int tp, int layers) {
  Graph g;
  g.name = "1f1b";
  g.ranks.resize(pp * dp * tp);
  auto rank_of = [&](int d, int s, int t) { return (d * pp + s) * tp + t; };
  std::map<std::vector<int>, int> group_ids;
  auto group = [&](const std::vector<int>& members) {
    auto [it, added] = group_ids.emplace(members, int(g.groups.size()));
    if (added) g.groups.push_back(members);
    return it->second;
  };
  for (int d = 0; d < dp; ++d)
    for (int s = 0; s < pp; ++s)
      for (int t = 0; t < tp; ++t) {
        RankGraph& rg = g.ranks[rank_of(d, s, t)];
        uint64_t id = 1;
        std::vector<int> tp_members, dp_members;
        for (int x = 0; x < tp; ++x) tp_members.push_back(rank_of(d, s, x));
        for (int x = 0; x < dp; ++x) dp_members.push_back(rank_of(x, s, t));
        const int tp_group = group(tp_members), dp_group = group(dp_members);
        auto node = [&](Node n, const std::string& name, std::vector<uint32_t> deps) {
          n.id = id++;
          n.name = g.intern(name);
          return rg.add(n, deps, {});
        };
        auto p2p = [&](NodeKind kind, int peer, int tag, const std::string& name,
                       std::vector<uint32_t> deps) {
          Node n = comm(0, kind, CommKind::kPp, 16 << 20, peer, kind == NodeKind::kSend ? 3 : 2);
          n.tag = tag;
          return node(n, name, deps);
        };
        std::vector<int> order;  // micro-batch i: forward i, backward ~i
        int f = 0, b = 0;
        for (int i = 0; i < std::min(m, pp - 1 - s); ++i) order.push_back(f++);
        while (b < m) {
          if (f < m) order.push_back(f++);
          order.push_back(~b++);
        }
        std::vector<uint32_t> prev, last_backward(layers);
        for (int o : order) {
          const bool fwd = o >= 0;
          const int mb = fwd ? o : ~o;
          const std::string tag = " mb" + std::to_string(mb);
          std::vector<uint32_t> deps = prev;
          if (fwd && s > 0)
            deps = {p2p(NodeKind::kRecv, rank_of(d, s - 1, t), mb, "recv act" + tag, deps)};
          if (!fwd && s < pp - 1)
            deps = {p2p(NodeKind::kRecv, rank_of(d, s + 1, t), 1000 + mb, "recv grad" + tag, deps)};
          for (int l = 0; l < layers; ++l) {
            const int layer = s * layers + (fwd ? l : layers - 1 - l);
            const std::string ln = " L" + std::to_string(layer);
            uint32_t c =
                node(compute(0, fwd ? 0.6e-3 : 1.2e-3), (fwd ? "fwd" : "bwd") + ln + tag, deps);
            Node ar = comm(0, NodeKind::kCollective, CommKind::kTp, 8 << 20, tp_group, 0);
            deps = {node(ar, "TP all-reduce" + ln + tag, {c})};
            if (!fwd && mb == m - 1) last_backward[l] = deps[0];
          }
          if (fwd && s < pp - 1)
            p2p(NodeKind::kSend, rank_of(d, s + 1, t), mb, "send act" + tag, deps);
          if (!fwd && s > 0)
            p2p(NodeKind::kSend, rank_of(d, s - 1, t), 1000 + mb, "send grad" + tag, deps);
          prev = deps;
        }
        std::vector<uint32_t> before_step = prev;
        for (int l = 0; l < layers; ++l) {
          Node bucket = comm(0, NodeKind::kCollective, CommKind::kDp, 100 << 20, dp_group, 1);
          before_step.push_back(node(bucket, "DP bucket " + std::to_string(l), {last_backward[l]}));
        }
        node(compute(0, 1e-3), "optimizer", before_step);
      }
  check_graph(g);
  return g;
}

WorkloadSettings slow_network() {
  WorkloadSettings s;
  s.gbps = 10;
  s.gpus_per_server = 1;  // every rank its own server: DP and PP cross the network
  return s;
}

TEST(WorkloadModel, LanesHoldTheRecordedRanksNodesAtTheEnginesTimes) {
  auto graph = std::make_shared<const Graph>(pipeline_graph());
  WorkloadPicture pic = replay_graph(graph, slow_network());
  const ScheduleResult& r = pic.result;
  // Ranks drawn follow the pipeline from rank 0: its PP send goes to rank 2.
  EXPECT_EQ(r.timeline_ranks, (std::vector<int>{0, 2}));
  // Each drawn rank uses streams 0 (compute), 1 (DP) and 2 (PP): 2 ranks x 3 streams.
  ASSERT_EQ(pic.lanes.size(), 6u);
  for (size_t i = 0; i < r.timeline_ranks.size(); ++i) {
    const int rank = r.timeline_ranks[i];
    std::set<uint32_t> drawn;
    for (const GanttLane& lane : pic.lanes) {
      if (lane.rank != rank) continue;
      EXPECT_DOUBLE_EQ(lane.busy_s, r.stream_busy[rank][lane.stream].busy_s);
      for (const GanttBar& b : lane.bars) {
        EXPECT_EQ(graph->ranks[rank].nodes[b.node].stream, lane.stream);
        EXPECT_TRUE(drawn.insert(b.node).second) << "node drawn twice";
        // The bar's times are the engine's timeline entry for that node.
        bool found = false;
        for (const TimelineEntry& e : r.timelines[i]) {
          if (e.node != b.node) continue;
          found = true;
          EXPECT_EQ(b.start_s, e.start_s);
          EXPECT_EQ(b.end_s, e.end_s);
          EXPECT_EQ(b.ready_s, e.ready_s);
        }
        EXPECT_TRUE(found);
      }
    }
    // Every node of the rank, and nothing else.
    EXPECT_EQ(drawn.size(), graph->ranks[rank].nodes.size());
  }
  // The critical path ends at the last node, so its end is the iteration time.
  ASSERT_FALSE(r.critical_path.empty());
  EXPECT_DOUBLE_EQ(r.critical_path.back().end_s, r.iteration_s);
}

TEST(WorkloadModel, CriticalBarsAreExactlyTheEnginesCriticalPathOnDrawnRanks) {
  auto graph = std::make_shared<const Graph>(pipeline_graph());
  WorkloadPicture pic = replay_graph(graph, slow_network());
  std::set<std::pair<int, uint32_t>> expected, marked;
  for (const CriticalStep& c : pic.result.critical_path)
    if (c.rank == 0 || c.rank == 2) expected.insert({c.rank, c.node});
  for (const GanttLane& lane : pic.lanes)
    for (const GanttBar& b : lane.bars)
      if (b.critical) marked.insert({lane.rank, b.node});
  EXPECT_EQ(marked, expected);
  EXPECT_EQ(pic.critical_nodes_shown, expected.size());
  // A 64 MiB DP all-reduce at 10 Gb/s (~100 ms) dwarfs 3 ms of compute: the path ends in DP.
  const CriticalStep& last = pic.result.critical_path.back();
  EXPECT_EQ(graph->ranks[last.rank].nodes[last.node].comm, CommKind::kDp);
  EXPECT_GT(pic.result.exposed_s[int(CommKind::kDp)], 0.5 * pic.result.iteration_s);
}

TEST(WorkloadModel, A1F1BPipelineShowsTheFirstRankOfEveryStage) {
  const int pp = 4, m = 8, dp = 2, tp = 2, layers = 4;
  Graph g = one_f_one_b_graph(pp, m, dp, tp, layers);
  // The screenshot in docs/img/workload.png replays this trace: written when asked for.
  if (const char* dir = std::getenv("COMMLAB_WORKLOAD_TRACE_DIR"))
    write_chakra_trace(g, dir, "1f1b");
  auto graph = std::make_shared<const Graph>(std::move(g));
  WorkloadSettings s;
  s.gpus_per_server = 2;  // TP inside a server, PP and DP across the network
  WorkloadPicture pic = replay_graph(graph, s);
  // Stage s's first rank is (0 * pp + s) * tp: 0, 2, 4, 6.
  EXPECT_EQ(pic.result.timeline_ranks, (std::vector<int>{0, 2, 4, 6}));
  // Every rank runs m forwards and m backwards of `layers` layers: 2 m layers compute nodes plus
  // the optimizer, all on the compute lane.
  for (const GanttLane& lane : pic.lanes) {
    if (lane.stream != 0) continue;
    int computes = 0;
    for (const GanttBar& b : lane.bars) computes += b.kind == kBarCompute;
    EXPECT_EQ(computes, 2 * m * layers + 1) << "rank " << lane.rank;
  }
  // The iteration ends with an optimizer step on some rank: the path's last node is compute.
  const CriticalStep& last = pic.result.critical_path.back();
  EXPECT_EQ(graph->name_of(graph->ranks[last.rank].nodes[last.node]), "optimizer");
}

// Every lane says which it is: a rank whose pipeline sends go out on two streams read "rank 2 PP
// send" twice; each lane's label (without its busy share) is now its own. The 1F1B replay's lanes,
// plus a copy of a PP-send lane on another stream of the same rank (as a trace with separate
// forward and backward send streams has).
TEST(GanttCanvas, NoTwoLanesHaveTheSameLabel) {
  app();
  WorkloadSettings settings;
  settings.gpus_per_server = 2;
  WorkloadPicture replayed =
      replay_graph(std::make_shared<const Graph>(one_f_one_b_graph(4, 8, 2, 2, 4)), settings);
  GanttCanvas probe;
  probe.set_picture(std::make_shared<const WorkloadPicture>(replayed));
  int send_lane = -1;
  for (int lane = 0; lane < static_cast<int>(replayed.lanes.size()); ++lane)
    if (probe.lane_label(lane).contains("PP send")) send_lane = lane;
  ASSERT_GE(send_lane, 0) << "the 1F1B replay has no PP send lane";
  GanttLane twin = replayed.lanes[static_cast<size_t>(send_lane)];
  twin.stream += 10;
  replayed.lanes.push_back(twin);
  auto pic = std::make_shared<const WorkloadPicture>(std::move(replayed));
  GanttCanvas canvas;
  canvas.set_picture(pic);
  std::set<std::string> labels;
  for (int lane = 0; lane < static_cast<int>(pic->lanes.size()); ++lane) {
    const std::string label = canvas.lane_label(lane).section("  ", 0, 0).toStdString();
    EXPECT_TRUE(labels.insert(label).second) << "repeated: " << label;
  }
  EXPECT_EQ(labels.size(), pic->lanes.size());
}

TEST(GanttCanvas, BarsSpanTheirStartAndEndScaledToTheView) {
  app();
  auto pic = std::make_shared<const WorkloadPicture>(
      replay_graph(std::make_shared<const Graph>(pipeline_graph()), slow_network()));
  GanttCanvas canvas;
  canvas.set_picture(pic);
  const QSize size(1000, 400);
  const double T = pic->result.iteration_s;
  const double w = size.width() - GanttCanvas::kLabelWidth - 8;
  // Whole iteration: x(t) = label + t / T * plot width.
  for (int l = 0; l < int(pic->lanes.size()); ++l) {
    for (int b = 0; b < int(pic->lanes[l].bars.size()); ++b) {
      const GanttBar& bar = pic->lanes[l].bars[b];
      const QRectF r = canvas.bar_rect(l, b, size);
      EXPECT_NEAR(r.left(), GanttCanvas::kLabelWidth + bar.start_s / T * w, 1e-6);
      EXPECT_NEAR(r.right(), GanttCanvas::kLabelWidth + bar.end_s / T * w, 1e-6);
    }
  }
  // Zoomed to [T/4, T/2]: x(t) = label + (t - T/4) / (T/4) * plot width.
  canvas.set_view(T / 4, T / 2);
  const GanttBar& bar = pic->lanes[0].bars[0];
  EXPECT_NEAR(canvas.bar_rect(0, 0, size).left(),
              GanttCanvas::kLabelWidth + (bar.start_s - T / 4) / (T / 4) * w, 1e-6);
  // The painter fills each wide-enough bar with its kind's colour (paler off the critical path),
  // and the hover finds it there.
  canvas.reset_view();
  QImage image(size, QImage::Format_RGB32);
  {
    QPainter p(&image);
    canvas.paint(p, size);
  }
  int checked = 0;
  for (int l = 0; l < int(pic->lanes.size()); ++l) {
    for (int b = 0; b < int(pic->lanes[l].bars.size()); ++b) {
      const QRectF r = canvas.bar_rect(l, b, size);
      if (r.width() < 8) continue;
      const GanttBar& bar = pic->lanes[l].bars[b];
      EXPECT_EQ(image.pixelColor(r.center().toPoint()), bar_fill(bar.kind, bar.critical));
      int hit_lane = -1, hit_bar = -1;
      ASSERT_TRUE(canvas.bar_at(r.center(), size, &hit_lane, &hit_bar));
      EXPECT_EQ(hit_lane, l);
      EXPECT_EQ(hit_bar, b);
      ++checked;
    }
  }
  EXPECT_GE(checked, 2);
}

TEST(WorkloadView, MoreBandwidthOrACodecReplaysToAShorterIteration) {
  app();
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  write_chakra_trace(pipeline_graph(), dir.path().toStdString(), "pipe");
  WorkloadView view;
  view.resize(1280, 760);
  view.show();
  WorkloadSettings s = slow_network();
  s.source = WorkloadSettings::Source::kTrace;
  s.trace_prefix = QDir(dir.path()).filePath("pipe").toStdString();
  view.set_settings(s);
  auto current = [&] {
    return view.idle() && view.picture() && view.picture()->settings == view.settings();
  };
  ASSERT_TRUE(wait_for(current));
  ASSERT_TRUE(view.error_text().isEmpty()) << view.error_text().toStdString();
  const double slow = view.picture()->result.iteration_s;
  // The title names the trace (the prefix's file name), not the directory it was read from.
  EXPECT_EQ(view.picture()->title.rfind("trace pipe, ", 0), 0u) << view.picture()->title;
  EXPECT_EQ(view.picture()->title.find(dir.path().toStdString()), std::string::npos);

  // The bandwidth control: 10 -> 400 Gb/s. DP all-reduce time ~ bytes / bandwidth shrinks 40x.
  auto* gbps = view.findChild<QDoubleSpinBox*>("gbps");
  ASSERT_NE(gbps, nullptr);
  const int before = view.replays_started();
  gbps->setValue(400);
  ASSERT_TRUE(wait_for(current));
  EXPECT_GT(view.replays_started(), before);
  const double fast = view.picture()->result.iteration_s;
  EXPECT_LT(fast, slow);

  // DP codec ratio 0.5 halves the DP bytes on the wire: the iteration cannot get longer, and at
  // 10 Gb/s (DP-bound) it gets shorter.
  gbps->setValue(10);
  ASSERT_TRUE(wait_for(current));
  EXPECT_DOUBLE_EQ(view.picture()->result.iteration_s, slow);
  view.findChild<QDoubleSpinBox*>("dp_ratio")->setValue(0.5);
  ASSERT_TRUE(wait_for(current));
  const double in_nic = view.picture()->result.iteration_s;
  EXPECT_LT(in_nic, slow);
  EXPECT_EQ(view.picture()->result.codec_total_s[1], 0.0) << "the NIC codes at line rate";

  // The same codec as CPU code (1 GB/s each way): every DP payload byte pays 2 / 1e9 s, which the
  // engine counts in the DP totals and which lengthens the iteration.
  auto* placement = view.findChild<QComboBox*>("codec_placement");
  ASSERT_NE(placement, nullptr);
  placement->setCurrentIndex(placement->findData("cpu"));
  ASSERT_TRUE(wait_for(current));
  const workload::ScheduleResult& r = view.picture()->result;
  EXPECT_GT(r.codec_total_s[1], 0.0);
  EXPECT_GT(r.iteration_s, in_nic);
  EXPECT_TRUE(view.summary_text().contains("of it codec")) << view.summary_text().toStdString();
  placement->setCurrentIndex(placement->findData("nic"));
  ASSERT_TRUE(wait_for(current));

  // Changes in quick succession: the result drawn is the last setting's, never a stale one.
  for (int v : {20, 40, 80, 160}) gbps->setValue(v);
  ASSERT_TRUE(wait_for(current));
  EXPECT_EQ(view.picture()->settings.gbps, 160);
  EXPECT_FALSE(view.summary_text().isEmpty());
}

TEST(WorkloadView, ABadTracePrefixIsAOneLineErrorAndKeepsThePage) {
  app();
  WorkloadView view;
  WorkloadSettings s;
  s.source = WorkloadSettings::Source::kTrace;
  s.trace_prefix = "/nonexistent/dir/none";
  view.set_settings(s);
  ASSERT_TRUE(wait_for([&] { return view.idle() && !view.error_text().isEmpty(); }));
  EXPECT_FALSE(view.error_text().contains('\n'));
  EXPECT_TRUE(view.error_text().contains("none")) << view.error_text().toStdString();
}

}  // namespace
}  // namespace commlab::ui
