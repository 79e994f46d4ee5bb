#include "busbw_view.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPointer>
#include <QSpinBox>
#include <QThreadPool>
#include <QValueAxis>

#include "collective/algorithms.h"
#include "collective/executor.h"
#include "network/analytical.h"
#include "topology/topology.h"

namespace commlab::ui {

std::vector<BusbwSeries> compute_busbw(int ranks, double bw_gbps, double alpha_us,
                                       uint64_t min_bytes, uint64_t max_bytes) {
  AnalyticalBackend backend(make_flat(ranks, bw_gbps * 1e9, alpha_us * 1e-6));
  std::vector<BusbwSeries> result;
  for (const char* algo : {"ring", "tree", "hd", "direct"}) {
    BusbwSeries series{algo, {}};
    for (uint64_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
      PlanRequest req;
      req.ranks = ranks;
      req.count = bytes / sizeof(float);
      req.time_only = true;
      Plan plan = build_plan(algo, req);
      ExecutorOptions options;
      options.backend = &backend;
      CollectiveReport rep = execute_plan(plan, {}, options);
      double algbw = static_cast<double>(bytes) / rep.time_s / 1e9;
      series.points.push_back({static_cast<double>(bytes), algbw * busbw_factor(req.op, ranks)});
    }
    result.push_back(std::move(series));
  }
  return result;
}

BusbwView::BusbwView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  auto* form = new QFormLayout;
  ranks_ = new QSpinBox;
  ranks_->setRange(2, 256);
  ranks_->setValue(8);
  ranks_->setToolTip("Number of GPUs (ranks) taking part in the all-reduce.");
  bw_ = new QDoubleSpinBox;
  bw_->setRange(0.1, 2000);
  bw_->setValue(25);
  bw_->setSuffix(" GB/s");
  bw_->setToolTip(
      "Bandwidth of each rank's link into the flat network (25 GB/s = a 200 Gb/s NIC).");
  alpha_ = new QDoubleSpinBox;
  alpha_->setRange(0, 1000);
  alpha_->setValue(5);
  alpha_->setSuffix(" us");
  alpha_->setToolTip(
      "Latency paid by every step of the collective (alpha in the alpha-beta model).");
  form->addRow("Ranks", ranks_);
  form->addRow("Link bandwidth", bw_);
  form->addRow("Latency (alpha)", alpha_);
  status_ = new QLabel;
  status_->setObjectName("status");
  status_->setWordWrap(true);
  form->addRow(status_);
  view_ = new QChartView;
  view_->setRenderHint(QPainter::Antialiasing);
  layout->addLayout(form, 0);
  layout->addWidget(view_, 1);
  for (auto* box : {static_cast<QAbstractSpinBox*>(ranks_), static_cast<QAbstractSpinBox*>(bw_),
                    static_cast<QAbstractSpinBox*>(alpha_)})
    connect(box, &QAbstractSpinBox::editingFinished, this, &BusbwView::recompute);
  connect(ranks_, &QSpinBox::valueChanged, this, &BusbwView::recompute);
  recompute();
}

void BusbwView::recompute() {
  const int ranks = ranks_->value();
  const double bw = bw_->value(), alpha = alpha_->value();
  const int generation = ++generation_;
  ++pending_;
  status_->setText("computing...");
  QPointer<BusbwView> self(this);
  QThreadPool::globalInstance()->start([self, ranks, bw, alpha, generation] {
    auto result = compute_busbw(ranks, bw, alpha, 1024, 256ull << 20);
    QMetaObject::invokeMethod(qApp, [self, result, generation] {
      if (!self) return;
      --self->pending_;
      if (generation == self->generation_) self->show_result(result);
    });
  });
}

int BusbwView::series_count() const {
  return view_->chart()->series().size();
}

void BusbwView::show_result(const std::vector<BusbwSeries>& result) {
  auto* chart = new QChart;
  chart->setTitle(QString("All-reduce bus bandwidth vs message size, %1 ranks (analytical backend)")
                      .arg(ranks_->value()));
  auto* x = new QLogValueAxis;
  x->setBase(2);
  x->setLabelFormat("%.0g");
  x->setTitleText("message size per rank (bytes)");
  auto* y = new QValueAxis;
  y->setTitleText("busbw (GB/s)");
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  double top = 0;
  for (const BusbwSeries& s : result) {
    auto* line = new QLineSeries;
    line->setName(s.algorithm);
    for (const BusbwPoint& p : s.points) {
      line->append(p.bytes, p.busbw_gbps);
      top = std::max(top, p.busbw_gbps);
    }
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
  }
  y->setRange(0, top * 1.1);
  QChart* old = view_->chart();
  view_->setChart(chart);
  delete old;
  status_->setText(QString("Link %1 GB/s, alpha %2 us. busbw = algbw x 2(n-1)/n (nccl-tests); "
                           "the ceiling is the link bandwidth.")
                       .arg(bw_->value())
                       .arg(alpha_->value()));
  emit computed();
}

}  // namespace commlab::ui
