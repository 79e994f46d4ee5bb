#pragma once
// Topology tab: the cluster as a QGraphicsView (zoom with the wheel, pan by dragging), links
// coloured by how busy one step of an all-reduce keeps them, hover for a link's numbers. On the
// packet backend each direction also gets a queue bar at its sending end (depth / port buffer)
// and orange (trims) and red (drops) markers with counts. The picture (layout and loads) is
// computed on a worker thread; the GUI only builds items.
#include <QGraphicsView>
#include <QWidget>
#include <memory>

#include "background_jobs.h"
#include "chart_export.h"
#include "views/topology_model.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QGraphicsScene;

namespace commlab::ui {

// The picture this page draws is computed in core/views (no Qt), named here unqualified.
using namespace commlab::views;

// Blue (idle) -> green -> yellow -> red (saturated).
QColor utilisation_color(double utilisation);

class ZoomView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit ZoomView(QGraphicsScene* scene, QWidget* parent = nullptr);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 public:
  // Fits the scene (never magnifying past 1.6x) until the user zooms.
  void fit();
  bool user_zoomed_ = false;
};

class TopologyView : public QWidget, public Exportable {
  Q_OBJECT
 public:
  explicit TopologyView(QWidget* parent = nullptr);
  bool idle() const { return jobs_.idle(); }
  std::shared_ptr<const TopologyPicture> picture() const { return picture_; }
  QGraphicsScene* scene() const { return scene_; }
  QString error_text() const;
  void set_spec(const QString& spec);  // e.g. "fattree:k=4"; recomputes
  // Sets every control from `settings` (spec, algorithm, size, step, backend, ...); recomputes.
  void set_settings(const TopologySettings& settings);
  TopologySettings settings() const;  // what the controls say now

  QString export_name() const override { return "topology"; }
  QSize export_size() const override;  // the whole scene, not just what is scrolled into view
  void export_render(QPainter& painter) const override;
  CsvTable export_data() const override;  // one row per drawn link

 public slots:
  void recompute();

 signals:
  void computed();

 private:
  void show_picture(std::shared_ptr<const TopologyPicture> picture);
  void add_edge_items(const TopologyPicture& pic, const TopoEdge& edge);

  QComboBox* cluster_;
  QComboBox* algorithm_;
  QComboBox* size_;
  QSpinBox* step_;
  QComboBox* backend_;
  QComboBox* admission_;
  QSpinBox* buffer_;
  QComboBox* background_;
  QLabel* summary_;
  QLabel* packet_legend_;  // the packet backend's extremes and what its marks mean
  QLabel* error_;
  QGraphicsScene* scene_;
  ZoomView* view_;
  std::shared_ptr<const TopologyPicture> picture_;
  BackgroundJobs jobs_;  // last: destroying the page first waits for its jobs
};

}  // namespace commlab::ui
