// CompareView's race: the headline beside the chart (one run's speedup over the baseline to the
// target, large, with its interval; compare_figures.h reads it from the runner's summary) and the
// finish marks on the chart (each run's median time to the target on the target line).
#include <QChart>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <cmath>

#include "compare_view.h"

namespace commlab::ui {

QWidget* CompareView::make_race_panel() {
  // Read from the back of a lecture hall: the speedup in large type, in the run's colour.
  auto* panel = new QWidget;
  panel->setFixedWidth(260);
  race_caption_ = new QLabel;
  race_caption_->setWordWrap(true);
  race_caption_->setStyleSheet("font-weight: bold;");
  race_number_ = new QLabel("–");
  QFont big = race_number_->font();
  big.setPixelSize(56);
  big.setBold(true);
  race_number_->setFont(big);
  race_number_->setObjectName("race_number");
  race_text_ = new QLabel;
  race_text_->setWordWrap(true);
  race_text_->setTextFormat(Qt::PlainText);
  QFont text = race_text_->font();
  text.setPixelSize(15);
  race_text_->setFont(text);
  auto* hint = new QLabel("Select a row of the table to race that run against the baseline.");
  hint->setWordWrap(true);
  hint->setStyleSheet("color: #666;");
  // The text takes the room the other labels leave, from its top: a wrapped label squeezed to its
  // first guess of a height would cut its last lines.
  race_text_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  race_text_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
  auto* column = new QVBoxLayout(panel);
  column->addWidget(race_caption_);
  column->addWidget(race_number_);
  column->addWidget(race_text_, 1);
  column->addWidget(hint);
  panel->setToolTip(
      "The speedup to the target accuracy over the baseline, paired by seed (baseline's time / "
      "this run's: their geometric mean, or the Hodges-Lehmann estimate when a seed missed the "
      "target), with its 95% interval, as summary.json's speedup_vs_baseline.");
  return panel;
}

RaceHeadline CompareView::race() const {
  return race_headline(summary_, race_row_);
}

void CompareView::set_race_run(int row) {
  race_row_ = row;
  show_race();
}

void CompareView::show_race() {
  RaceHeadline h = race();
  if (job_ && h.row < 0) h.verdict = "Running: the speedup shows when every seed has finished.";
  race_caption_->setText(h.row < 0 ? QString("Race to the target")
                                   : "Race to the target: " + h.run);
  race_number_->setText(h.number);
  const QColor color =
      h.row < 0 ? QColor(Qt::darkGray) : color_of(static_cast<size_t>(h.row), false);
  race_number_->setStyleSheet("color: " + color.name() + ";");
  QStringList lines{h.verdict};
  if (!h.interval.isEmpty()) lines << h.interval;
  if (!h.times.isEmpty()) lines << h.times;
  race_text_->setText(lines.join("\n\n"));
}

void CompareView::add_finish_marks(QChart* chart, double target) {
  QAbstractAxis* x = chart->axes(Qt::Horizontal).value(0);
  QAbstractAxis* y = chart->axes(Qt::Vertical).value(0);
  for (size_t k = 0; k < names_.size(); ++k) {
    const double t = race_finish_s(summary_, static_cast<int>(k));
    if (!std::isfinite(t)) continue;  // not reached by half of the seeds
    auto* mark = new QScatterSeries;
    mark->setName(names_[k] + " reaches the target (median)");
    mark->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    mark->setMarkerSize(12);
    mark->setColor(color_of(k, false));
    mark->setBorderColor(Qt::white);
    mark->append(1e3 * t, target);
    chart->addSeries(mark);
    mark->attachAxis(x);
    mark->attachAxis(y);
    for (QLegendMarker* m : chart->legend()->markers(mark)) m->setVisible(false);
  }
}

}  // namespace commlab::ui
