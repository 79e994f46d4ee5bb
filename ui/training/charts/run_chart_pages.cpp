#include "run_chart_pages.h"

#include <QBarLegendMarker>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPushButton>
#include <QResizeEvent>
#include <stdexcept>

#include "chart_hover.h"
#include "tensor_file_samples.h"

namespace commlab::ui {

namespace {
constexpr qsizetype kMaxLegendEntries = 4;  // more make a legend to read rather than glance at
constexpr double kValueAxisWidth = 80;      // a bar chart's value axis (labels, title) and margins
constexpr double kTitleAndLegendHeight = 110;  // a chart's title, legend, bottom axis and margins
}  // namespace

bool RunChartPages::legend_fits(const QStringList& labels, const QFont& font, double width) {
  return labels.size() <= kMaxLegendEntries && legend_row_fits(labels, font, width);
}

// A page not laid out yet (never shown) has views of a default size: its share of this widget
// (one or both of the page's two columns) stands in for the view's width.
void RunChartPages::fit_legend(const Slot& s) const {
  QChart* chart = s.view->chart();
  if (!chart) return;
  const double chart_width =
      s.view->testAttribute(Qt::WA_WState_Visible) ? s.view->width() : width() * s.col_span / 2.0;
  // Markers a chart leaves out on purpose say so on their bar set (a marker's own visibility
  // reads false whenever the legend is hidden, so it cannot tell). A line's entry is its series'
  // name (its marker's label may be the ghosts' summary below).
  QStringList labels;
  std::vector<QLegendMarker*> ghosts;
  for (QLegendMarker* marker : chart->legend()->markers()) {
    auto* bar = qobject_cast<QBarLegendMarker*>(marker);
    if (bar) {
      if (!bar->barset()->property(kLegendHiddenProperty).toBool()) labels << marker->label();
      continue;
    }
    labels << marker->series()->name();
    if (marker->series()->property(kGhostProperty).toBool()) ghosts.push_back(marker);
  }
  const bool fits = legend_fits(labels, chart->legend()->font(), chart_width);
  if (!fits && !ghosts.empty()) {
    // The runs table is the runs' legend, but the grey "before" curves have no row: the legend
    // keeps one entry for them (each one's name is in its hover readout).
    for (QLegendMarker* marker : chart->legend()->markers())
      marker->setVisible(marker == ghosts.back());
    ghosts.back()->setLabel(ghosts.size() == 1
                                ? QString("grey dotted: the current run before the last change")
                                : QString("grey dotted: the current run before each of the last "
                                          "%1 changes")
                                      .arg(ghosts.size()));
    chart->legend()->setVisible(true);
  } else {
    // Markers are touched only for a legend that shows (a hidden legend's layout is left alone).
    if (fits)
      for (QLegendMarker* marker : chart->legend()->markers())
        if (!qobject_cast<QBarLegendMarker*>(marker)) {
          marker->setVisible(true);
          marker->setLabel(marker->series()->name());
        }
    chart->legend()->setVisible(fits);
  }
  // Bar labels that fit their bars (the full names in the hover readout): the laid-out plot's
  // size, or before the first layout the chart's less what the axes and margins take.
  const bool laid_out = s.view->testAttribute(Qt::WA_WState_Visible) &&
                        chart->plotArea().width() > 0 && chart->plotArea().height() > 0;
  fit_chart_categories(chart, laid_out
                                  ? chart->plotArea().size()
                                  : QSizeF(chart_width - kValueAxisWidth,
                                           height() * s.row_span / 2.0 - kTitleAndLegendHeight));
}

void RunChartPages::resizeEvent(QResizeEvent* event) {
  QTabWidget::resizeEvent(event);
  for (const Slot& s : slots_)
    if (s.drawn) fit_legend(s);
}

RunChartPages::RunChartPages(QWidget* parent) : QTabWidget(parent) {
  // Loss over accuracy (their time axes aligned) and, beside them, the time split's horizontal
  // bars, one row per run with its name whole.
  QWidget* p = page("Convergence",
                    "Loss and accuracy of the current and pinned runs, and where iteration time "
                    "goes.",
                    {1, 1});
  add_slot(p, 0, 0, 1, RunChart::kLossIteration, RunChart::kLossTime);
  add_slot(p, 1, 0, 1, RunChart::kAccuracyIteration, RunChart::kAccuracyTime);
  add_slot(p, 0, 1, 1, RunChart::kTimeSplit, RunChart::kTimeSplit, 2);
  p = page("Codec",
           "How many bytes each bucket puts on the wire, how predictable each byte of the "
           "gradient is (the entropy a byte-grouping codec can reach), and the bits per value.",
           {1, 1});
  add_slot(p, 0, 0, 1, RunChart::kCodec, RunChart::kCodec);
  add_slot(p, 0, 1, 1, RunChart::kPlaneEntropy, RunChart::kPlaneEntropy);
  add_slot(p, 1, 0, 2, RunChart::kEffectiveBits, RunChart::kEffectiveBits);
  codec_page_ = indexOf(p);
  add_tensor_file_bar(p);
  p = page("SkipReduce",
           "Which gradient contributions SkipReduce left out, per iteration and "
           "per bucket.",
           {1, 1});
  add_slot(p, 0, 0, 1, RunChart::kSkipReduce, RunChart::kSkipReduce);
  add_slot(p, 1, 0, 1, RunChart::kSkipBuckets, RunChart::kSkipBuckets);
  p = page("Trimming",
           "Packets the network trimmed, the bits per coordinate that arrived, and the "
           "error that left in the gradient.",
           {1, 1});
  add_slot(p, 0, 0, 1, RunChart::kTrimmed, RunChart::kTrimmed);
  add_slot(p, 0, 1, 1, RunChart::kNmse, RunChart::kNmse);
  add_slot(p, 1, 0, 2, RunChart::kEffectiveBits, RunChart::kEffectiveBits);
  p = page("Network",
           "The packet-level backend's switch queues and port utilisation during each "
           "iteration (empty on the analytical backend, which has no queues).",
           {1, 1});
  add_slot(p, 0, 0, 1, RunChart::kNetworkQueue, RunChart::kNetworkQueue);
  add_slot(p, 1, 0, 1, RunChart::kNetworkUtilisation, RunChart::kNetworkUtilisation);
  connect(this, &QTabWidget::currentChanged, this, [this] { redraw(); });
}

QWidget* RunChartPages::page(const QString& title, const QString& tip,
                             std::initializer_list<int> rows) {
  auto* w = new QWidget;
  auto* grid = new QGridLayout(w);
  grid->setContentsMargins(0, 0, 0, 0);
  int r = 0;
  for (int stretch : rows) grid->setRowStretch(r++, stretch);
  const int index = addTab(w, title);
  setTabToolTip(index, tip);
  return w;
}

void RunChartPages::add_slot(QWidget* page, int row, int col, int col_span, RunChart kind,
                             RunChart time_kind, int row_span) {
  auto* view = new QChartView(build_run_chart(kind, {}));
  view->setRenderHint(QPainter::Antialiasing);
  view->setMinimumSize(320, 200);
  static_cast<QGridLayout*>(page->layout())->addWidget(view, row, col, row_span, col_span);
  slots_.push_back(Slot{view, kind, time_kind, indexOf(page), col_span, row_span});
}

void RunChartPages::set_runs(std::vector<RunSeries> runs) {
  runs_ = std::move(runs);
  for (Slot& s : slots_) s.stale = true;
  redraw();
}

void RunChartPages::add_tensor_file_bar(QWidget* codec_page) {
  auto* bar = new QWidget;
  auto* row = new QHBoxLayout(bar);
  row->setContentsMargins(4, 0, 4, 0);
  auto* open = new QPushButton("Tensor file...");
  open->setToolTip(QString("Draw a .npy or .safetensors file (BF16/FP16/FP32; other files: raw "
                           "BF16) instead of the runs: one bucket per tensor, ratio of the %1 "
                           "codec and byte-plane entropy")
                       .arg(kTensorFileCodec));
  auto* clear = new QPushButton("Show runs");
  clear->setToolTip("Leave the tensor file and draw the runs' gradient buckets again");
  file_label_ = new QLabel;
  file_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  row->addWidget(open);
  row->addWidget(clear);
  row->addWidget(file_label_, 1);
  static_cast<QGridLayout*>(codec_page->layout())->addWidget(bar, 2, 0, 1, 2);
  connect(open, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, "Open tensor file", QString(), "Tensor files (*.npy *.safetensors);;All files (*)");
    if (!path.isEmpty()) show_tensor_file(path);
  });
  connect(clear, &QPushButton::clicked, this, [this] { clear_tensor_file(); });
}

QString RunChartPages::show_tensor_file(const QString& path) {
  try {
    file_samples_ = tensor_file_samples(path.toStdString());
  } catch (const std::exception& e) {
    file_label_->setText(QString::fromUtf8(e.what()));
    return file_label_->text();
  }
  file_runs_ = {RunSeries{QFileInfo(path).fileName().toStdString(), &file_samples_}};
  file_label_->setText(QString("%1: %2 tensors (ratio: %3 codec)")
                           .arg(path)
                           .arg(file_samples_.front().buckets.size())
                           .arg(kTensorFileCodec));
  mark_page_stale(codec_page_);
  setCurrentIndex(codec_page_);
  redraw();
  return {};
}

void RunChartPages::clear_tensor_file() {
  file_runs_.clear();
  file_samples_.clear();
  file_label_->clear();
  mark_page_stale(codec_page_);
  redraw();
}

void RunChartPages::mark_page_stale(int page) {
  for (Slot& s : slots_)
    if (s.page == page) s.stale = true, s.drawn = false;  // other runs: a fresh chart
}

void RunChartPages::set_by_time(bool by_time) {
  if (by_time == by_time_) return;
  by_time_ = by_time;
  for (Slot& s : slots_) s.stale = s.stale || s.kind != s.time_kind;
  redraw();
}

bool RunChartPages::select_page(const QString& name) {
  for (int i = 0; i < count(); ++i)
    if (tabText(i).compare(name, Qt::CaseInsensitive) == 0) {
      setCurrentIndex(i);
      return true;
    }
  return false;
}

QStringList RunChartPages::page_names() const {
  QStringList names;
  for (int i = 0; i < count(); ++i) names << tabText(i);
  return names;
}

QChart* RunChartPages::chart(RunChart kind) {
  for (Slot& s : slots_)
    if (s.kind == kind || s.time_kind == kind) {
      if (s.stale) draw(s);
      return s.view->chart();
    }
  return nullptr;
}

void RunChartPages::redraw() {
  for (Slot& s : slots_)
    if (s.page == currentIndex() && s.stale) draw(s);
}

void RunChartPages::draw(Slot& s) {
  // The chart on screen is refreshed in place when it shows the same kind and runs (a live run);
  // otherwise a fresh chart replaces it (a live chart's legend stays empty after its series are
  // replaced, Qt 6.4).
  const RunChart kind = by_time_ ? s.time_kind : s.kind;
  const std::vector<RunSeries>& runs =
      s.page == codec_page_ && !file_runs_.empty() ? file_runs_ : runs_;
  QChart* old = s.view->chart();
  QChart* chart = build_run_chart(kind, runs, s.drawn && s.drawn_kind == kind ? old : nullptr);
  if (!run_chart_has_data(kind, runs)) {
    // The network charts need the packet backend: the empty state says how to get data.
    const bool network = kind == RunChart::kNetworkQueue || kind == RunChart::kNetworkUtilisation;
    chart->setTitle(chart->title() + (network ? " (packet backend only: set Backend to packet)"
                                              : " (no data in these runs)"));
  }
  if (chart != old) {
    // Hover readout on every line: run, x and the exact value of the nearest point.
    add_hover_readouts(chart, s.view);
    s.view->setChart(chart);
    delete old;
  }
  s.drawn = true;
  s.drawn_kind = kind;
  s.stale = false;
  // A legend that would elide a name ("my pin...") is not drawn: the runs list below the charts,
  // with each run's colour and full name, is the legend then.
  fit_legend(s);
}

}  // namespace commlab::ui
