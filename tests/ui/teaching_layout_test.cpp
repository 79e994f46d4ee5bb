// Where the teaching canvas puts the GPUs (ui/teaching/teaching_layout.h): each algorithm's
// layout checked against the transfers of its real plan, and the canvas's boxes never overlapping
// at the default and the minimum canvas size.
#include "teaching_layout.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QLabel>
#include <bit>
#include <memory>

#include "teaching_canvas.h"
#include "views/teaching_model.h"
#include "teaching_view.h"
#include "ui_test_util.h"

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
      s.ranks_per_node = n % 2 == 0 ? 2 : 1;
      auto trace = std::make_shared<const TeachingTrace>(compute_teaching_trace(s));
      TeachingCanvas canvas;
      canvas.set_trace(trace);
      for (QSize size : {canvas.sizeHint(), canvas.minimumSizeHint(), QSize(1280, 700)}) {
        canvas.resize(size);
        for (int a = 0; a < n; ++a) {
          const QRectF ra = canvas.box_rect(a);
          EXPECT_TRUE(QRectF(canvas.rect()).contains(ra))
              << algo << " n " << n << " rank " << a << " outside at " << size.width() << "x"
              << size.height();
          for (int b = a + 1; b < n; ++b)
            EXPECT_FALSE(ra.intersects(canvas.box_rect(b)))
                << algo << " n " << n << ": GPU " << a << " and " << b << " overlap at "
                << size.width() << "x" << size.height();
        }
      }
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

}  // namespace
}  // namespace commlab::ui
