// MainWindow's typed setters, which main_gui.cpp calls instead of finding a page's widgets by
// name: the Workload tab's settings and the Throughput tab's cluster by index.
#include <gtest/gtest.h>

#include <QChart>

#include "busbw_view.h"
#include "main_window.h"
#include "ui_test_util.h"
#include "workload_view.h"

namespace commlab::ui {
namespace {

using test::app;
using test::wait_for;

TEST(MainWindowSetters, WorkloadSettingsReachTheWorkloadTabAndReplay) {
  app();
  MainWindow window;
  WorkloadView* page = window.workload_view();
  ASSERT_NE(page, nullptr);
  WorkloadSettings s;
  s.gbps = 25;
  s.overlap = false;
  s.global_batch = 32;
  ASSERT_NE(page->settings(), s);  // else a setter doing nothing would pass
  window.set_workload_settings(s);
  EXPECT_EQ(page->settings(), s);
  // The page replayed with them: its picture is of these settings, not of the defaults.
  ASSERT_TRUE(wait_for(
      [&] { return page->idle() && page->picture() && page->picture()->settings == s; }, 60000));
  EXPECT_TRUE(page->error_text().isEmpty()) << page->error_text().toStdString();
}

TEST(MainWindowSetters, ThroughputClusterIsChosenByIndexAndCounted) {
  app();
  MainWindow window;
  BusbwView* busbw = window.busbw_view();
  // The chooser: the flat network, then 6 NCCL clusters (1, 2, 4, 16 nodes of 8 H100,
  // leaf-spine, fat-tree).
  constexpr int kCount = 7;
  ASSERT_EQ(busbw->cluster_index(), 0);
  const MainWindow::ClusterChoice two = window.choose_throughput_cluster(2);
  EXPECT_TRUE(two.valid);
  EXPECT_EQ(two.count, kCount);
  EXPECT_EQ(busbw->cluster_index(), 2);
  // The page recomputed for that cluster: NCCL on 2 nodes of 8 H100 is in the title.
  ASSERT_TRUE(
      wait_for([&] { return busbw->idle() && busbw->chart()->title().contains("2 nodes"); }, 60000))
      << busbw->chart()->title().toStdString();
  // Outside [0, count): refused, the count still given, the choice unchanged.
  for (int bad : {-1, kCount, 1000}) {
    const MainWindow::ClusterChoice c = window.choose_throughput_cluster(bad);
    EXPECT_FALSE(c.valid) << bad;
    EXPECT_EQ(c.count, kCount) << bad;
    EXPECT_EQ(busbw->cluster_index(), 2) << bad;
  }
  // Both ends are valid.
  EXPECT_TRUE(window.choose_throughput_cluster(kCount - 1).valid);
  EXPECT_EQ(busbw->cluster_index(), kCount - 1);
  EXPECT_TRUE(window.choose_throughput_cluster(0).valid);
  EXPECT_EQ(busbw->cluster_index(), 0);
  ASSERT_TRUE(wait_for([&] { return window.idle(); }, 60000));
}

}  // namespace
}  // namespace commlab::ui
