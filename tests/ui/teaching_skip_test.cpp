// Teaching for every algorithm that can skip, up to 16 ranks: for the double binary tree and
// halving-doubling the Skip field is on and what it says runs (it was greyed "ring only" yet showed
// 1), 16 typed into Ranks stays 16 (it snapped back to 8), and the chunks end short of the
// contributions SkipReduce dropped.
#include <gtest/gtest.h>

#include <QSpinBox>

#include "teaching_view.h"
#include "ui_test_util.h"
#include "views/teaching_model.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

TEST(TeachingSkip, TreeAndHalvingDoublingSkipOnSixteenRanks) {
  app();
  TeachingView view;
  view.show();
  auto* ranks = view.findChild<QSpinBox*>("ranks");
  auto* skip = view.findChild<QSpinBox*>("skip");
  ASSERT_NE(ranks, nullptr);
  ASSERT_NE(skip, nullptr);
  ranks->setFocus();
  ranks->selectAll();
  QTest::keyClicks(ranks, "16");
  QTest::keyClick(ranks, Qt::Key_Enter);
  EXPECT_EQ(ranks->value(), 16);
  for (const char* algorithm : {"tree", "hd"}) {
    views::TeachingSettings s = view.settings();
    s.algorithm = algorithm;
    s.skip = 2;
    view.set_settings(s);
    ASSERT_TRUE(wait_for([&] {
      return view.idle() && view.trace() && view.trace()->settings == s;
    })) << algorithm;
    EXPECT_TRUE(view.error_text().isEmpty()) << view.error_text().toStdString();
    EXPECT_TRUE(skip->isEnabled()) << algorithm;
    EXPECT_EQ(view.settings().ranks, 16) << algorithm;
    EXPECT_EQ(view.settings().skip, 2) << algorithm;
    // s = 2 skipped reduce levels (tree) or halving rounds (hd) of log2(16) = 4: every chunk ends
    // without some ranks' contributions, so the last frame is not all 16 bits everywhere.
    EXPECT_EQ(view.trace()->skipped_steps > 0, true) << algorithm;
    int short_cells = 0;
    for (const auto& rank : view.trace()->frames.back().masks)
      for (uint32_t mask : rank) short_cells += mask != 0xFFFFu;
    EXPECT_GT(short_cells, 0) << algorithm;
  }
}

}  // namespace
}  // namespace commlab::ui
