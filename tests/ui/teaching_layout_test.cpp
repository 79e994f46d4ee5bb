// Where the teaching canvas puts the GPUs (ui/teaching/teaching_layout.h): each algorithm's
// layout checked against the transfers of its real plan, and the canvas's boxes never overlapping
// at the default and the minimum canvas size.
#include "teaching_layout.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QLabel>
#include <bit>
#include <cmath>
#include <memory>

#include "teaching_canvas.h"
#include "teaching_view.h"
#include "ui_test_util.h"
#include "views/teaching_model.h"

namespace commlab::ui {
namespace {

// Calls f on every transfer of the teaching trace of `algorithm` on n ranks.
template <class F>
void for_each_transfer(const char* algorithm, int n, F&& f) {
  TeachingSettings s;
  s.ranks = n;
  s.algorithm = algorithm;
  for (const TeachingFrame& frame : compute_teaching_trace(s).frames)
    for (const Transfer& t : frame.transfers) f(t);
}

TEST(TeachingLayout, TreeParentsSitAboveAndBetweenTheirChildren) {
  for (int n = 2; n <= kTeachingMaxRanks; ++n) {
    const TeachingLayout l = teaching_layout("tree", n, 1);
    ASSERT_EQ(l.kind, TeachingLayout::Kind::kTree);
    // Rows = depth of the heap's last position + 1: floor(log2 n) + 1.
    EXPECT_EQ(l.rows, std::bit_width(static_cast<unsigned>(n))) << n;
    for (int r = 1; r < n; ++r) {
      const int p = l.parent[0][r];  // heap: (r - 1) / 2
      EXPECT_EQ(p, (r - 1) / 2);
      EXPECT_EQ(l.row[r], l.row[p] + 1) << "n " << n << " rank " << r;
      // In-order: a left child (odd r) is left of its parent, a right child right of it.
      if (r % 2 == 1)
        EXPECT_LT(l.column[r], l.column[p]);
      else
        EXPECT_GT(l.column[r], l.column[p]);
    }
    // Every column holds one rank.
    std::vector<int> seen(n, 0);
    for (int r = 0; r < n; ++r) ++seen[static_cast<int>(l.column[r])];
    for (int c = 0; c < n; ++c) EXPECT_EQ(seen[c], 1);
  }
}

TEST(TeachingLayout, EveryTreeTransferIsAnEdgeOfOneOfTheTwoTrees) {
  for (int n = 2; n <= kTeachingMaxRanks; ++n) {
    const TeachingLayout l = teaching_layout("tree", n, 1);
    for_each_transfer("tree", n, [&](const Transfer& t) {
      EXPECT_NE(tree_of_edge(l, t.src, t.dst), -1) << n << ": " << t.src << "->" << t.dst;
    });
  }
}

TEST(TeachingLayout, HalvingDoublingPartnersShareARowOrAColumn) {
  for (int n : {2, 4, 8}) {
    const TeachingLayout l = teaching_layout("hd", n, 1);
    for_each_transfer("hd", n, [&](const Transfer& t) {
      EXPECT_TRUE(l.row[t.src] == l.row[t.dst] || l.column[t.src] == l.column[t.dst])
          << n << ": " << t.src << "->" << t.dst;
    });
  }
  // 8 ranks: 4 columns (bits 0 and 2) x 2 rows (bit 1).
  const TeachingLayout l8 = teaching_layout("hd", 8, 1);
  EXPECT_EQ(l8.columns, 4);
  EXPECT_EQ(l8.rows, 2);
}

TEST(TeachingLayout, HierarchicalNodesAreColumnsOfConsecutiveRanks) {
  const TeachingLayout l = teaching_layout("hier", 8, 4);
  ASSERT_EQ(l.nodes.size(), 2u);
  EXPECT_EQ(l.nodes[1], (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(l.columns, 2);
  EXPECT_EQ(l.rows, 4);
  for (int r = 0; r < 8; ++r) {
    EXPECT_EQ(l.column[r], r / 4);
    EXPECT_EQ(l.row[r], r % 4);
  }
  // The teaching model runs the real hierarchical plan with those nodes: every rank ends with all.
  TeachingSettings s;
  s.ranks = 8;
  s.algorithm = "hier";
  s.ranks_per_node = 4;
  const TeachingTrace trace = compute_teaching_trace(s);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < trace.cells(); ++c) EXPECT_EQ(trace.frames.back().masks[r][c], 0xFFu);
}

TEST(TeachingCanvas, BoxesNeverOverlapInAnyLayoutOrSize) {
  test::app();
  for (const char* algo : {"ring", "tree", "hd", "hier", "direct"})
    for (int n = 2; n <= kTeachingMaxRanks; ++n) {
      TeachingSettings s;
      s.ranks = n;
      s.algorithm = algo;
      // hier: two GPUs per node, and four (four rows of boxes at 8 ranks) where they divide n.
      s.ranks_per_node = n % 4 == 0 && s.algorithm == "hier" ? 4 : n % 2 == 0 ? 2 : 1;
      auto trace = std::make_shared<const TeachingTrace>(compute_teaching_trace(s));
      TeachingCanvas canvas;
      canvas.set_trace(trace);
      // Zoomed, the canvas is laid out in its size / zoom: its minimum size grows with the zoom.
      for (double zoom : {1.0, 1.953125, TeachingCanvas::kMaxZoom})
        for (QSize size : {canvas.sizeHint(), canvas.minimumSizeHint(), QSize(1280, 700)}) {
          canvas.set_zoom(zoom);
          if (zoom > 1) size = size.expandedTo(canvas.minimumSizeHint());
          canvas.resize(size);
          for (int a = 0; a < n; ++a) {
            const QRectF ra = canvas.box_rect(a);
            EXPECT_TRUE(QRectF(0, 0, size.width() / zoom, size.height() / zoom).contains(ra))
                << algo << " n " << n << " rank " << a << " outside at " << size.width() << "x"
                << size.height();
            for (int b = a + 1; b < n; ++b)
              EXPECT_FALSE(ra.intersects(canvas.box_rect(b)))
                  << algo << " n " << n << ": GPU " << a << " and " << b << " overlap at "
                  << size.width() << "x" << size.height() << " zoom " << zoom;
          }
        }
    }
}

std::shared_ptr<const TeachingTrace> trace_of(const char* algorithm, int ranks, int per_node,
                                              double trim_rate = 0, int skip = 0) {
  TeachingSettings s;
  s.skip = skip;
  s.ranks = ranks;
  s.algorithm = algorithm;
  s.ranks_per_node = per_node;
  s.trim_rate = trim_rate;
  return std::make_shared<const TeachingTrace>(compute_teaching_trace(s));
}

TEST(TeachingArrows, CellRangesJoinAdjacentRangesAndListTheOthers) {
  EXPECT_EQ(cell_ranges_label({{3, 3}}), "c3");
  EXPECT_EQ(cell_ranges_label({{4, 7}, {0, 3}}), "c0-7");  // 0-3 then 4-7: one range
  EXPECT_EQ(cell_ranges_label({{4, 5}, {0, 1}}), "c0-1, c4-5");
}

// At 8 ranks the labels of one step overlapped each other ("c4-7 +" under
// "c0-3 +") and sat on boxes. Every step of every layout, at 1280x800's canvas and a smaller one:
// no two labels meet and none covers a GPU box, and each step with few arrows has its labels.
TEST(TeachingArrows, LabelsOfOneStepMeetNeitherEachOtherNorBoxes) {
  test::app();
  struct Case {
    const char* algorithm;
    int per_node;
  };
  for (const Case c : {Case{"ring", 1}, Case{"hier", 2}, Case{"hier", 4}, Case{"hd", 1},
                       Case{"tree", 1}, Case{"direct", 1}})
    for (int n : {4, 8}) {
      TeachingCanvas canvas;
      const auto trace = trace_of(c.algorithm, n, c.per_node);
      canvas.set_trace(trace);
      for (QSize size : {QSize(950, 650), QSize(800, 560)}) {
        canvas.resize(size);
        for (int f = 1; f <= trace->steps(); ++f) {
          canvas.set_frame(f);
          const std::vector<QRectF> labels = canvas.arrow_label_rects();
          const std::string where = std::string(c.algorithm) + " per node " +
                                    std::to_string(c.per_node) + " n " + std::to_string(n) +
                                    " step " + std::to_string(f) + " at " +
                                    std::to_string(size.width());
          if (n == 8 && c.algorithm != std::string("direct")) EXPECT_FALSE(labels.empty()) << where;
          for (size_t a = 0; a < labels.size(); ++a) {
            for (size_t b = a + 1; b < labels.size(); ++b)
              EXPECT_FALSE(labels[a].intersects(labels[b]))
                  << where << ": labels " << a << ", " << b;
            for (int r = 0; r < n; ++r)
              EXPECT_FALSE(labels[a].intersects(canvas.box_rect(r)))
                  << where << ": label " << a << " on GPU " << r;
          }
        }
      }
    }
}

// Tree at 8 ranks: rank 7's arrow to rank 3 (one row down) is ~30 px long, and its label on the
// middle hid all of it. A label leaves at least half of its own arrow's points in sight, pushed
// aside (a dotted leader joins them) where the arrow is shorter than about two labels.
TEST(TeachingArrows, ALabelLeavesHalfOfAShortArrowInSight) {
  test::app();
  const QFontMetricsF fm(QApplication::font());
  ArrowPath arrow;
  arrow.from = QPointF(200, 300);
  arrow.to = QPointF(205, 270);  // 30 px, upwards, between two boxes
  arrow.label = "c0  +";
  const std::vector<QRectF> boxes{QRectF(150, 300, 120, 100), QRectF(150, 170, 120, 100)};
  const std::vector<QRectF> labels = place_arrow_labels({arrow}, fm, boxes, QRectF(0, 0, 800, 600));
  ASSERT_EQ(labels.size(), 1u);
  constexpr int kSamples = 48;
  int covered = 0;
  for (int i = 0; i <= kSamples; ++i)
    covered += labels[0].contains(arrow.at(static_cast<double>(i) / kSamples)) ? 1 : 0;
  EXPECT_LE(covered, kSamples / 2) << "label at " << labels[0].x() << ", " << labels[0].y();
  for (const QRectF& b : boxes) EXPECT_FALSE(labels[0].intersects(b));
  // A long arrow keeps its label on its middle.
  ArrowPath long_arrow = arrow;
  long_arrow.to = QPointF(600, 300);
  const QRectF on = place_arrow_labels({long_arrow}, fm, {}, QRectF(0, 0, 800, 600))[0];
  EXPECT_TRUE(on.contains(long_arrow.at(0.5)));
}

double rgb_distance(const QColor& a, const QColor& b) {
  return std::hypot(a.red() - b.red(), a.green() - b.green(), a.blue() - b.blue());
}

// Trimmed cells used rank 1's orange and had no legend entry.
TEST(TeachingLegend, TrimmedColourIsItsOwnAndInTheLegend) {
  test::app();
  for (int r = 0; r < kTeachingMaxRanks; ++r)
    EXPECT_GT(rgb_distance(teaching_colors::kTrimmed, rank_color(r)), 100) << "rank " << r;
  TeachingCanvas canvas;
  canvas.resize(950, 650);
  canvas.set_trace(trace_of("ring", 8, 1, 0.3));
  int trimmed_entries = 0;
  for (const TeachingLegendEntry& e : canvas.legend_entries())
    if (e.text == "approximate (trimmed)") {
      ++trimmed_entries;
      EXPECT_EQ(e.brush.color(), teaching_colors::kTrimmed);
    }
  EXPECT_EQ(trimmed_entries, 1);
  // The trimmed-packet counts under the steps were 7 px text: now 90% of the canvas font.
  EXPECT_GE(canvas.trimmed_count_font().pointSizeF(), 0.9 * canvas.font().pointSizeF() - 1e-9);
  // Without trimming the entry is not there.
  canvas.set_trace(trace_of("ring", 8, 1, 0));
  for (const TeachingLegendEntry& e : canvas.legend_entries())
    EXPECT_NE(e.text, "approximate (trimmed)");
}

// The legend lists only what can happen: "dropped by SkipReduce" when the trace skipped steps
// (ring, tree and hd alike), not for a plain all-reduce; every rank up to 16 has its own colour.
TEST(TeachingLegend, ListsOnlyWhatCanHappen) {
  test::app();
  TeachingCanvas canvas;
  canvas.resize(950, 650);
  const auto has_dropped = [&] {
    for (const TeachingLegendEntry& e : canvas.legend_entries())
      if (e.text == "dropped by SkipReduce") return true;
    return false;
  };
  canvas.set_trace(trace_of("ring", 8, 1, 0));
  EXPECT_FALSE(has_dropped());
  for (const char* algo : {"ring", "tree", "hd"}) {
    canvas.set_trace(trace_of(algo, 8, 1, 0, 1));
    EXPECT_TRUE(has_dropped()) << algo;
  }
  for (int a = 0; a < kTeachingMaxRanks; ++a)
    for (int b = 0; b < a; ++b)
      EXPECT_GT(rgb_distance(rank_color(a), rank_color(b)), 30) << a << " vs " << b;
}

// The zoomed legend was clipped after rank 6: at every zoom it wraps, every item inside the
// canvas's logical area (width / zoom), no two items meeting, and the GPU boxes below it.
TEST(TeachingLegend, EveryItemStaysInsideAtEveryZoom) {
  test::app();
  TeachingCanvas canvas;
  canvas.resize(950, 650);
  canvas.set_trace(trace_of("ring", 8, 1, 0.3, 1));
  for (double zoom = 1; zoom <= TeachingCanvas::kMaxZoom + 1e-9; zoom *= 1.25) {
    canvas.set_zoom(zoom);
    const QRectF logical(0, 0, canvas.width() / canvas.zoom(), canvas.height() / canvas.zoom());
    const std::vector<TeachingLegendEntry> entries = canvas.legend_entries();
    ASSERT_EQ(entries.size(), 1u + 8 + 3);  // heading, 8 ranks, not yet, dropped, trimmed
    double bottom = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      const QRectF item = entries[i].swatch.isNull()
                              ? entries[i].text_rect
                              : entries[i].swatch.united(entries[i].text_rect);
      EXPECT_TRUE(logical.contains(item)) << entries[i].text.toStdString() << " at zoom " << zoom;
      bottom = std::max(bottom, item.bottom());
      for (size_t j = 0; j < i; ++j)
        EXPECT_FALSE(item.intersects(entries[j].text_rect)) << i << " meets " << j;
    }
    EXPECT_GT(canvas.box_rect(0).top(), bottom) << "zoom " << zoom;
  }
}

TEST(TeachingView, PresentationZoomScalesTheCanvasAndTheCaption) {
  test::app();
  TeachingView view;
  view.resize(1280, 800);
  view.show();
  ASSERT_TRUE(test::wait_for([&] { return view.idle() && view.trace(); }));
  auto* canvas = static_cast<TeachingCanvas*>(view.canvas());
  const QRectF box = canvas->box_rect(0);
  const QFont caption = view.findChild<QLabel*>("caption")->font();
  QTest::keyClick(&view, Qt::Key_Equal, Qt::ControlModifier);
  EXPECT_DOUBLE_EQ(view.zoom(), 1.25);
  EXPECT_DOUBLE_EQ(view.findChild<QLabel*>("caption")->font().pointSizeF(),
                   caption.pointSizeF() * 1.25);
  // The same widget at 1.25x: its logical area shrinks by 1/1.25, so boxes are laid out in less
  // room but drawn 1.25x larger; the box stays inside the logical canvas.
  EXPECT_TRUE(
      QRectF(0, 0, canvas->width() / 1.25, canvas->height() / 1.25).contains(canvas->box_rect(0)));
  QTest::keyClick(&view, Qt::Key_Minus, Qt::ControlModifier);
  QTest::keyClick(&view, Qt::Key_Minus, Qt::ControlModifier);
  EXPECT_DOUBLE_EQ(view.zoom(), 0.8);
  QTest::keyClick(&view, Qt::Key_0, Qt::ControlModifier);
  EXPECT_DOUBLE_EQ(view.zoom(), 1.0);
  EXPECT_EQ(canvas->box_rect(0), box);
  for (int i = 0; i < 12; ++i) QTest::keyClick(&view, Qt::Key_Equal, Qt::ControlModifier);
  EXPECT_DOUBLE_EQ(view.zoom(), TeachingCanvas::kMaxZoom);
}

// Zoomed in on a 1280x800 window the canvas had less logical room than its boxes need (hier's
// four rows overlapped): it now keeps its zoomed minimum size and the page scrolls.
TEST(TeachingView, ZoomedTheCanvasKeepsItsRoomAndThePageScrolls) {
  test::app();
  TeachingView view;
  view.resize(1280, 800);
  view.show();
  TeachingSettings s;
  s.ranks = 8;
  s.algorithm = "hier";
  s.ranks_per_node = 4;
  s.trim_rate = 0.3;
  view.set_settings(s);
  ASSERT_TRUE(
      test::wait_for([&] { return view.idle() && view.trace() && view.trace()->settings == s; }));
  auto* canvas = static_cast<TeachingCanvas*>(view.canvas());
  view.set_zoom(2);
  QApplication::processEvents();
  EXPECT_GE(canvas->width(), canvas->minimumSizeHint().width());
  EXPECT_GE(canvas->height(), canvas->minimumSizeHint().height());
  // Logical room (size / zoom) at least the unzoomed minimum: 480 wide.
  EXPECT_GE(canvas->width() / canvas->zoom(), 480 - 1);
  for (int a = 0; a < 8; ++a)
    for (int b = a + 1; b < 8; ++b)
      EXPECT_FALSE(canvas->box_rect(a).intersects(canvas->box_rect(b))) << a << " " << b;
}

}  // namespace
}  // namespace commlab::ui
