// The topology view on the packet backend: controls, queue bars, trim markers, hover text, CSV.
#include <gtest/gtest.h>

#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QImage>
#include <QLabel>
#include <QPainter>

#include "topology_test_util.h"
#include "topology_view.h"

namespace commlab::ui {
namespace {

using test::wait_for;

TEST(TopologyView, PacketBackendDrawsQueuesAndTrimMarkers) {
  const auto view = test::shown_topology_view(1200, 760);
  ASSERT_NE(view, nullptr) << "no first picture";
  TopologySettings s;
  s.spec = "fattree:k=4";
  s.backend = "packet";
  s.message_bytes = 4 << 20;
  s.background = "incast:8";  // 8 senders into rank 0 through 8-packet switch buffers
  view->set_settings(s);
  ASSERT_TRUE(wait_for(
      [&] { return view->idle() && view->picture()->settings.backend == "packet"; }, 5000));
  EXPECT_TRUE(view->error_text().isEmpty()) << view->error_text().toStdString();
  auto pic = view->picture();
  ASSERT_GT(pic->total_trims, 0u);
  // One orange marker per link direction with trims, one queue bar per switch port that queued.
  int trim_directions = 0, queued = 0;
  for (const TopoEdge& e : pic->edges)
    for (int d = 0; d < 2; ++d) {
      trim_directions += e.trims[d] > 0;
      queued += e.queue_capacity_bytes[d] > 0 && e.queue_bytes[d] > 0;
    }
  int trim_items = 0, queue_items = 0, drop_items = 0, tips = 0;
  for (QGraphicsItem* item : view->scene()->items()) {
    trim_items += item->data(0).toString() == "trims";
    drop_items += item->data(0).toString() == "drops";
    queue_items += item->data(0).toString() == "queue";
    tips += item->type() == QGraphicsPathItem::Type && item->toolTip().contains("trims");
  }
  EXPECT_EQ(trim_items, trim_directions);
  EXPECT_GE(trim_items, 1);
  EXPECT_EQ(queue_items, queued);
  EXPECT_EQ(drop_items, 0);  // trim admission: no data packet is dropped
  EXPECT_GE(tips, 48);       // every line (48 cables) and bar explains queue, trims and drops

  // CSV: the trims columns add up to the picture's total (fattree:k=4 folds no link into a box).
  const CsvTable table = view->export_data();
  const int fwd = table.header.indexOf("trims_fwd"), back = table.header.indexOf("trims_back");
  ASSERT_GE(fwd, 0);
  ASSERT_GE(back, 0);
  uint64_t trims = 0;
  for (const auto& row : table.rows) trims += row[fwd].toULongLong() + row[back].toULongLong();
  EXPECT_EQ(trims, pic->total_trims);

  // Renders (COMMLAB_TOPOLOGY_PNG=path keeps the image, e.g. for docs/img).
  QImage image(view->export_size(), QImage::Format_ARGB32);
  QPainter painter(&image);
  view->export_render(painter);
  painter.end();
  EXPECT_GT(image.width(), 300);
  if (qEnvironmentVariableIsSet("COMMLAB_TOPOLOGY_PNG")) {
    QTest::qWait(100);  // let the side panel's layout take the new legend's height
    view->grab().save(qEnvironmentVariable("COMMLAB_TOPOLOGY_PNG"));
  }
}

// dgx-h100-pod draws 32 spines and 32 rail leaves over 4 boxes of 256 GPUs: the tiers' boxes kept
// a 24 px minimum width on a narrower pitch, so each one hid the next one's name ("spin",
// "spir"). No two boxes of the picture overlap (crowded tiers widen the picture instead).
TEST(TopologyView, CrowdedTiersNeverOverlapTheirBoxes) {
  const auto view = test::shown_topology_view(1000, 700);
  ASSERT_NE(view, nullptr) << "no first picture";
  for (const char* spec : {"dgx-h100-pod", "leafspine:servers=8,gpus_per_server=4"}) {
    TopologySettings s;
    s.spec = spec;
    view->set_settings(s);
    ASSERT_TRUE(wait_for(
        [&] { return view->idle() && view->picture() && view->picture()->settings.spec == spec; }));
    const auto pic = view->picture();
    std::vector<QRectF> boxes;
    for (const TopoBox& b : pic->boxes)
      if (!b.frame) boxes.emplace_back(b.x, b.y, b.w, b.h);
    ASSERT_GT(boxes.size(), 8u) << spec;
    int overlaps = 0;
    for (size_t i = 0; i < boxes.size(); ++i)
      for (size_t j = i + 1; j < boxes.size(); ++j)
        overlaps += boxes[i].intersects(boxes[j]) ? 1 : 0;
    EXPECT_EQ(overlaps, 0) << spec;
  }
}

// 512 GPUs drew one row of 64 server boxes (dgx-h100-pod:nodes=64) under the switch tiers: a
// 5,500 x 300 px strip that the page shrank to 12-px boxes. The bottom row wraps into rows: the
// picture is at least a quarter as tall as it is wide (in one row: 5,530 x 331 for the pod,
// 1,737 x 331 for netzip-512), every box is inside the view as fitted, no two overlap, and each
// aggregated box (72 px wide in the scene) is at least 40 px wide on screen (in one row: 12 and
// 38 px). netzip-512 (one box per leaf) is held to the same.
TEST(TopologyView, A512GpuClusterUsesThePage) {
  const auto view = test::shown_topology_view(1280, 760);
  ASSERT_NE(view, nullptr) << "no first picture";
  auto* zoom = view->findChild<QGraphicsView*>();
  ASSERT_NE(zoom, nullptr);
  // The colour scale is whole beside it (a wider scale was cut, "100%" read "1").
  auto* legend = view->findChild<QLabel*>("link_legend");
  ASSERT_NE(legend, nullptr);
  EXPECT_GE(legend->contentsRect().width(), legend->pixmap().width());
  for (const char* spec : {"dgx-h100-pod:nodes=64", "netzip-512"}) {
    TopologySettings s;
    s.spec = spec;
    view->set_settings(s);
    ASSERT_TRUE(wait_for(
        [&] { return view->idle() && view->picture() && view->picture()->settings.spec == spec; },
        30000))
        << spec;
    QApplication::processEvents();
    const auto pic = view->picture();
    EXPECT_EQ(pic->ranks, 512);
    EXPECT_GE(pic->height, pic->width / 4) << spec << ": " << pic->width << " x " << pic->height;
    std::vector<QRectF> boxes;
    int gpus = 0;
    double narrowest = 1e9;
    const QRect port = zoom->viewport()->rect();
    for (const TopoBox& b : pic->boxes) {
      const QRect on_screen = zoom->mapFromScene(QRectF(b.x, b.y, b.w, b.h)).boundingRect();
      EXPECT_TRUE(port.adjusted(-1, -1, 1, 1).contains(on_screen)) << spec << ": " << b.label;
      if (b.frame) continue;
      boxes.emplace_back(b.x, b.y, b.w, b.h);
      gpus += b.gpus;
      if (b.gpus > 1) narrowest = std::min<double>(narrowest, on_screen.width());
    }
    EXPECT_EQ(gpus, 512) << spec;
    EXPECT_GE(narrowest, 40) << spec;
    int overlaps = 0;
    for (size_t i = 0; i < boxes.size(); ++i)
      for (size_t j = i + 1; j < boxes.size(); ++j)
        overlaps += boxes[i].intersects(boxes[j]) ? 1 : 0;
    EXPECT_EQ(overlaps, 0) << spec;
  }
}

}  // namespace
}  // namespace commlab::ui
