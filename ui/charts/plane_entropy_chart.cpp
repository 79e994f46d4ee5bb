// The codec page's byte-plane entropy chart: why byte grouping pays. One category per byte of the
// wire dtype (most significant first); one bar per bucket when a single run is drawn, one bar per
// run (element-weighted over its buckets) when several are overlaid. Values are from each run's
// latest sample that has buckets, in bits per byte (8 = incompressible by an order-0 coder).
#include <QAbstractAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>

#include "run_chart_builders.h"

namespace commlab::ui::detail {

namespace {

const Sample* latest_with_planes(const RunSeries& r) {
  const std::vector<Sample>& samples = samples_of(r);
  for (auto it = samples.rbegin(); it != samples.rend(); ++it)
    for (const BucketSample& b : it->buckets)
      if (!b.plane_entropy.empty()) return &*it;
  return nullptr;
}

// Labels of the wire dtype's bytes, most significant first (short: a wider label is elided at
// 1280 x 800); the axis title names the dtype. BF16 is the top half of FP32, so BF16 bars beside
// FP32 ones stand under the two bytes they share.
QStringList plane_labels(size_t planes) {
  if (planes == 4) return {"sign, exp", "exp, mantissa", "mantissa", "mantissa (low)"};
  if (planes == 2) return {"high (sign, exp)", "low (mantissa)"};
  QStringList labels;
  for (size_t p = 0; p < planes; ++p) labels << QString("byte %1").arg(planes - 1 - p);
  return labels;
}

QString planes_title(size_t planes, bool mixed) {
  if (mixed) return "FP32 bytes, most significant first (BF16 = the first two)";
  if (planes == 4) return "FP32 bytes, most significant first";
  if (planes == 2) return "BF16 bytes, most significant first";
  return "bytes, most significant first";
}

QString dtype_of(size_t planes) {
  return planes == 4 ? "FP32" : planes == 2 ? "BF16" : QString("%1 bytes").arg(planes);
}

// Element-weighted mean of the buckets' plane entropies (what per-bucket tables would reach).
std::vector<double> weighted_planes(const Sample& s) {
  std::vector<double> sum;
  double weight = 0;
  for (const BucketSample& b : s.buckets) {
    if (b.plane_entropy.empty()) continue;
    if (sum.empty()) sum.assign(b.plane_entropy.size(), 0.0);
    if (b.plane_entropy.size() != sum.size()) continue;
    for (size_t p = 0; p < sum.size(); ++p)
      sum[p] += b.plane_entropy[p] * static_cast<double>(b.elements);
    weight += static_cast<double>(b.elements);
  }
  for (double& v : sum) v = weight > 0 ? v / weight : 0;
  return sum;
}

}  // namespace

bool plane_entropy_has_data(const std::vector<RunSeries>& runs) {
  for (const RunSeries& r : runs)
    if (latest_with_planes(r)) return true;
  return false;
}

QChart* plane_entropy_chart(const std::vector<RunSeries>& runs) {
  const QString title = run_chart_info(RunChart::kPlaneEntropy).title;
  auto* series = new QBarSeries;
  size_t planes = 0;
  bool mixed = false;
  std::vector<const Sample*> latest;
  for (const RunSeries& r : runs) latest.push_back(latest_with_planes(r));
  int drawn = 0;
  for (const Sample* s : latest) drawn += s != nullptr;
  if (drawn == 1) {
    for (size_t i = 0; i < runs.size(); ++i) {
      if (!latest[i]) continue;
      int k = 0;
      for (const BucketSample& b : latest[i]->buckets) {
        if (b.plane_entropy.empty()) continue;
        planes = std::max(planes, b.plane_entropy.size());
        auto* set = new QBarSet(QString::fromStdString(b.name));
        set->setColor(run_color(k++));
        for (double v : b.plane_entropy) set->append(v);
        series->append(set);
      }
    }
  } else {
    size_t fewest = 0;  // runs of different dtypes: each bar set says its own
    for (const Sample* s : latest)
      if (s) {
        const size_t n = weighted_planes(*s).size();
        planes = std::max(planes, n);
        fewest = fewest == 0 ? n : std::min(fewest, n);
      }
    mixed = fewest != planes;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (!latest[i]) continue;
      const std::vector<double> planes_of_run = weighted_planes(*latest[i]);
      QString name = QString::fromStdString(runs[i].name);
      if (mixed) name += " (" + dtype_of(planes_of_run.size()) + ")";
      auto* set = new QBarSet(name);
      set->setColor(run_color(run_color_index(runs, i)));
      for (double v : planes_of_run) set->append(v);
      series->append(set);
    }
  }
  // 8 bits per byte is the ceiling (a random byte); the axis always shows it for scale.
  QChart* chart = bar_chart(title, "bits/byte", plane_labels(planes), series, 8.0 / 1.1);
  chart->axes(Qt::Horizontal).front()->setTitleText(planes_title(planes, mixed));
  return chart;
}

}  // namespace commlab::ui::detail
