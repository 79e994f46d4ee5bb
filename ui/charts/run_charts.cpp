#include "run_charts.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "chart_markers.h"
#include "run_chart_builders.h"

namespace commlab::ui {

namespace {

using namespace detail;

// Sample grows per-iteration codec fields (effective_bits, ratio, buckets); these read them when
// the engine has them and report "absent" otherwise, so the charts compile against either.
template <class S>
double effective_bits_of(const S& s) {
  if constexpr (requires { s.effective_bits; })
    return s.effective_bits;
  else
    return -1;
}

struct BucketValues {
  std::string name;
  double ratio = 0;
  uint64_t dropped = 0;
};

template <class S, class F>
void for_each_bucket(const S& s, F&& f) {
  if constexpr (requires { s.buckets; })
    for (const auto& b : s.buckets) f(BucketValues{b.name, b.ratio, b.dropped_contributions});
}

// Per-bucket aggregate of one run: names in first-seen order, mean ratio, total dropped.
struct BucketTotals {
  std::vector<std::string> names;
  std::map<std::string, double> ratio_sum;
  std::map<std::string, int> count;
  std::map<std::string, uint64_t> dropped;
};

BucketTotals bucket_totals(const std::vector<Sample>& samples) {
  BucketTotals t;
  for (const Sample& s : samples)
    for_each_bucket(s, [&](const BucketValues& b) {
      if (!t.count.count(b.name)) t.names.push_back(b.name);
      t.ratio_sum[b.name] += b.ratio;
      ++t.count[b.name];
      t.dropped[b.name] += b.dropped;
    });
  return t;
}

bool any_sample(const std::vector<RunSeries>& runs, const auto& pred) {
  for (const RunSeries& r : runs)
    for (const Sample& s : samples_of(r))
      if (pred(s)) return true;
  return false;
}

QPen run_pen(const RunSeries& r, int i) {
  // The ghost (the curve before the last change) is a faint grey dotted line: another hue than
  // the current run's, so the two never read as one run.
  if (r.ghost) return QPen(kGhostColor, 1.4, Qt::DotLine);
  QPen pen(run_color(i), r.highlighted ? 4.0 : r.dashed ? 1.6 : 2.2);
  if (r.dashed) pen.setStyle(Qt::DashLine);
  return pen;
}

// Bar charts compare finished runs; a live run's ghost is only a line.
std::vector<RunSeries> without_ghosts(const std::vector<RunSeries>& runs) {
  std::vector<RunSeries> out;
  for (const RunSeries& r : runs)
    if (!r.ghost) out.push_back(r);
  return out;
}

struct LineSpec {
  QString title, x_title, y_title;
  bool by_time = false;
  bool log_y = false;
  bool zero_floor = true;
  bool unit = false;  // a share (accuracy): the axis stays within 0 to 1
};

// True when `chart` already has one line per run, named and styled as these runs: a live run
// then only moves points and axes, which costs a fraction of a new chart (its axes, legend and
// text items); a new set of runs builds a new chart (replacing series in a live chart leaves
// its legend empty, Qt 6.4).
bool same_lines(QChart* chart, const std::vector<RunSeries>& runs) {
  if (!chart || chart->series().size() != static_cast<qsizetype>(runs.size())) return false;
  for (size_t i = 0; i < runs.size(); ++i) {
    auto* line = qobject_cast<QLineSeries*>(chart->series()[static_cast<qsizetype>(i)]);
    if (!line || line->name() != QString::fromStdString(runs[i].name) ||
        (line->pen().style() == Qt::DashLine) != runs[i].dashed ||
        line->pen().color() != run_pen(runs[i], run_color_index(runs, i)).color() ||
        line->pen().widthF() != run_pen(runs[i], run_color_index(runs, i)).widthF())
      return false;
  }
  return true;
}

// One line per run; `value` returns NaN for iterations without a value (not evaluated). Refreshes
// `reuse` in place when it has the same lines (same_lines), else builds a new chart.
template <class Value>
QChart* line_chart(const LineSpec& spec, const std::vector<RunSeries>& runs, Value value,
                   QChart* reuse) {
  const bool refresh =
      same_lines(reuse, runs) && reuse->axes(Qt::Vertical).size() == 1 &&
      (reuse->axes(Qt::Vertical).front()->type() == QAbstractAxis::AxisTypeLogValue) == spec.log_y;
  QChart* chart = refresh ? reuse : new_chart(spec.title);
  QValueAxis* x;
  QAbstractAxis* y_axis;
  if (refresh) {
    x = static_cast<QValueAxis*>(chart->axes(Qt::Horizontal).front());
    y_axis = chart->axes(Qt::Vertical).front();
    chart->setTitle(spec.title);
  } else {
    x = new QValueAxis;
    if (spec.log_y) {
      auto* log = new QLogValueAxis;
      log->setLabelFormat("%.0e");
      y_axis = log;
    } else {
      y_axis = new QValueAxis;
    }
    x->setTitleText(spec.x_title);
    y_axis->setTitleText(spec.y_title);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y_axis, Qt::AlignLeft);
  }
  double x_lo = 1e300, x_hi = 1e-12, y_lo = 1e300, y_hi = -1e300;
  bool any_markers = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::vector<Sample>& samples = samples_of(runs[i]);
    QList<QPointF> points;
    // At most ~2000 points per line: a chart is ~1000 px wide.
    const size_t stride = std::max<size_t>(1, samples.size() / 2000);
    for (size_t k = 0; k < samples.size(); ++k) {
      const Sample& s = samples[k];
      if (k % stride != 0 && k + 1 != samples.size() && !s.evaluated()) continue;
      const double v = value(s);
      if (!std::isfinite(v) || (spec.log_y && v <= 0)) continue;
      const double xv = spec.by_time ? s.sim_time_s : static_cast<double>(s.iteration);
      points.append({xv, v});
      x_lo = std::min(x_lo, xv);
      x_hi = std::max(x_hi, xv);
      y_lo = std::min(y_lo, v);
      y_hi = std::max(y_hi, v);
    }
    // A line of one point draws nothing (a run evaluated only at its last iteration): its points
    // are drawn as markers until there are enough to see the line.
    const bool markers = points.size() < 3;
    any_markers = any_markers || (markers && !points.isEmpty());
    if (refresh) {
      auto* line = static_cast<QLineSeries*>(chart->series()[static_cast<qsizetype>(i)]);
      line->replace(points);
      line->setPointsVisible(markers);
      continue;
    }
    auto* line = new QLineSeries;
    line->setName(QString::fromStdString(runs[i].name));
    line->replace(points);
    line->setPointsVisible(markers);
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y_axis);
    line->setPen(run_pen(runs[i], run_color_index(runs, i)));
    line->setProperty(kGhostProperty, runs[i].ghost);
  }
  if (y_hi < y_lo) y_lo = 0, y_hi = 1;
  // The x axis ends at the last point (a nice range would run on past it), with ticks at a
  // nice step from 0. The interval is set before the range: a refreshed axis still holds the
  // previous interval, and an empty chart's (x_hi ~ 0) on a new range would lay out ~1e13 ticks
  // (Qt Charts then spins in calculateLayout).
  x->setLabelFormat("%g");
  x->setTickType(QValueAxis::TicksFixed);
  x->setTickInterval(nice_step(x_hi / 5));
  // Markers (lines of one or two points) get room at the axis ends, or half of them is clipped.
  const auto [x_min, x_max] =
      any_markers ? range_with_marker_room(0, x_hi, x_lo, x_hi) : std::pair(0.0, x_hi);
  x->setRange(x_min, x_max);
  if (x_hi >= 1e-9) {  // an empty chart keeps fixed ticks
    x->setTickAnchor(0);
    x->setTickType(QValueAxis::TicksDynamic);
  }
  if (spec.log_y) {  // a factor of 2 on a log axis is room for a marker already
    y_axis->setRange(y_lo / 2, y_hi * 2);
  } else if (spec.unit && y_hi - y_lo < 0.1) {
    // One point, or a flat line: the whole 0 to 1 scale (a span around the point read 0.5-2.0).
    auto* y = static_cast<QValueAxis*>(y_axis);
    y->setLabelFormat("%g");
    set_nice_range(y, 0, 1);
  } else {
    auto* y = static_cast<QValueAxis*>(y_axis);
    double lo = spec.zero_floor ? std::min(0.0, y_lo) : y_lo;
    double hi = y_hi > lo ? y_hi + 0.05 * (y_hi - lo) : lo + 1;
    if (any_markers) std::tie(lo, hi) = range_with_marker_room(lo, hi, y_lo, y_hi);
    if (spec.unit) lo = std::max(0.0, lo), hi = std::min(1.0, hi);
    y->setLabelFormat("%g");
    set_nice_range(y, lo, hi);
  }
  return chart;
}

// Grouped bars per bucket (one set per run) of a per-bucket value, or per run when no run
// reports buckets (`per_run` gives the value then; negative = unknown).
template <class PerBucket, class PerRun>
QChart* bucket_chart(RunChart kind, const QString& y_title, const std::vector<RunSeries>& runs,
                     PerBucket per_bucket, PerRun per_run) {
  std::vector<BucketTotals> totals;
  QStringList categories;
  for (const RunSeries& r : runs) {
    totals.push_back(bucket_totals(samples_of(r)));
    for (const std::string& n : totals.back().names)
      if (!categories.contains(QString::fromStdString(n))) categories << QString::fromStdString(n);
  }
  auto* series = new QBarSeries;
  double top = 0;
  if (!categories.isEmpty()) {
    for (size_t i = 0; i < runs.size(); ++i) {
      auto* set = new QBarSet(QString::fromStdString(runs[i].name));
      set->setColor(run_color(run_color_index(runs, i)));
      for (const QString& c : categories) {
        const double v = per_bucket(totals[i], c.toStdString());
        set->append(v);
        top = std::max(top, v);
      }
      series->append(set);
    }
  } else {
    auto* set = new QBarSet(run_chart_info(kind).title);
    for (size_t i = 0; i < runs.size(); ++i) {
      const double v = std::max(0.0, per_run(runs[i]));
      set->append(v);
      top = std::max(top, v);
      categories << QString::fromStdString(runs[i].name);
    }
    series->append(set);
  }
  return bar_chart(run_chart_info(kind).title, y_title, categories, series, top);
}

}  // namespace

const std::vector<RunChartInfo>& run_chart_infos() {
  static const std::vector<RunChartInfo> infos{
      {RunChart::kLossIteration, "loss_iteration", "Training loss"},
      {RunChart::kLossTime, "loss_time", "Training loss vs simulated time"},
      {RunChart::kAccuracyIteration, "accuracy_iteration", "Test accuracy"},
      {RunChart::kAccuracyTime, "accuracy_time", "Test accuracy vs simulated time"},
      {RunChart::kTimeSplit, "time_split",
       "Iteration time: compute / exposed communication / codec"},
      {RunChart::kCodec, "codec", "Codec: wire bytes / uncompressed bytes per bucket"},
      {RunChart::kPlaneEntropy, "plane_entropy",
       "Codec: byte-plane entropy of the gradient (latest iteration)"},
      {RunChart::kEffectiveBits, "effective_bits", "Bits per gradient coordinate on the wire"},
      {RunChart::kSkipReduce, "skipreduce", "SkipReduce: dropped contributions per iteration"},
      {RunChart::kSkipBuckets, "skipreduce_buckets",
       "SkipReduce: dropped contributions per bucket"},
      {RunChart::kTrimmed, "trimmed_packets", "Trimming: trimmed packets per iteration"},
      {RunChart::kNmse, "nmse", "NMSE of the reduced gradient (worst bucket)"},
      {RunChart::kNetworkQueue, "network_queue", "Network: deepest switch queue per iteration"},
      {RunChart::kNetworkUtilisation, "network_utilisation",
       "Network: mean port utilisation per iteration"},
  };
  return infos;
}

const RunChartInfo& run_chart_info(RunChart kind) {
  for (const RunChartInfo& info : run_chart_infos())
    if (info.kind == kind) return info;
  return run_chart_infos().front();
}

int run_color_index(const std::vector<RunSeries>& runs, size_t i) {
  return runs[i].color >= 0 ? runs[i].color : static_cast<int>(i);
}

QColor run_color(int i) {
  // 20 colours any two of which differ by at least CIE76 delta-E 26 (Lab, D65; 20 is "clearly
  // different" at a glance): the first 8 are Okabe and Ito's colour-blind-safe set (yellow, the
  // faintest on white, last of them), the other 12 were picked greedily for the largest
  // smallest delta-E to every earlier colour and to the ghost's grey, lightness 20-75 and chroma
  // 25-75 (readable on white, not grey). tests/ui/runs_palette_test.cpp computes the distances.
  // Past 20 the hue turns by the golden angle.
  static const QRgb colors[] = {0x0072b2, 0xd55e00, 0x009e73, 0xcc79a7, 0xe69f00,
                                0x56b4e9, 0x000000, 0xf0e442, 0x441188, 0xcc0044,
                                0x667700, 0x662200, 0xaa88ff, 0xddaa77, 0x660044,
                                0x66cc55, 0x114422, 0xcc1188, 0xee7766, 0x99bb77};
  constexpr int n = static_cast<int>(std::size(colors));
  if (i < 0) i = -i;
  if (i < n) return QColor(colors[i]);
  return QColor::fromHsv(static_cast<int>(std::fmod(i * 137.508, 360.0)), 200, 180 - 40 * (i % 2));
}

int run_palette_size() {
  return 20;
}

bool run_chart_has_data(RunChart kind, const std::vector<RunSeries>& runs) {
  switch (kind) {
    case RunChart::kLossIteration:
    case RunChart::kLossTime:  // catalog runs (time plane only) have no loss
      return any_sample(runs, [](const Sample& s) { return std::isfinite(s.train_loss); });
    case RunChart::kTimeSplit: return any_sample(runs, [](const Sample&) { return true; });
    case RunChart::kAccuracyIteration:
    case RunChart::kAccuracyTime:
      return any_sample(runs, [](const Sample& s) { return s.evaluated(); });
    case RunChart::kCodec:
      return any_sample(runs,
                        [](const Sample& s) {
                          bool any = false;
                          for_each_bucket(s, [&](const BucketValues&) { any = true; });
                          return any;
                        }) ||
             std::any_of(runs.begin(), runs.end(),
                         [](const RunSeries& r) { return r.summary_ratio >= 0; });
    case RunChart::kPlaneEntropy: return plane_entropy_has_data(runs);
    case RunChart::kEffectiveBits:
      return any_sample(runs, [](const Sample& s) { return effective_bits_of(s) > 0; });
    case RunChart::kSkipReduce:
      return any_sample(runs, [](const Sample& s) { return s.skipped_contributions > 0; });
    case RunChart::kSkipBuckets:
      return any_sample(runs, [](const Sample& s) {
        bool any = false;
        for_each_bucket(s, [&](const BucketValues& b) { any = any || b.dropped > 0; });
        return any;
      });
    case RunChart::kTrimmed:
      return any_sample(runs, [](const Sample& s) { return s.trimmed_packets > 0; });
    case RunChart::kNmse: return any_sample(runs, [](const Sample& s) { return s.nmse > 0; });
    case RunChart::kNetworkQueue:
    case RunChart::kNetworkUtilisation:
      return any_sample(runs, [](const Sample& s) { return !s.network.empty(); });
  }
  return false;
}

QChart* build_run_chart(RunChart kind, const std::vector<RunSeries>& all_runs, QChart* reuse) {
  const QString title = run_chart_info(kind).title;
  const bool lines = kind != RunChart::kTimeSplit && kind != RunChart::kCodec &&
                     kind != RunChart::kPlaneEntropy && kind != RunChart::kSkipBuckets;
  const std::vector<RunSeries> runs = lines ? all_runs : without_ghosts(all_runs);
  const QString iteration = "iteration", time = "simulated time (s)";
  switch (kind) {
    case RunChart::kLossIteration:
    case RunChart::kLossTime:
      return line_chart(
          {title, kind == RunChart::kLossTime ? time : iteration, "loss",
           kind == RunChart::kLossTime},
          runs, [](const Sample& s) { return s.train_loss; }, reuse);
    case RunChart::kAccuracyIteration:
    case RunChart::kAccuracyTime:
      return line_chart(
          {title, kind == RunChart::kAccuracyTime ? time : iteration, "accuracy",
           kind == RunChart::kAccuracyTime, false, false, true},
          runs, [](const Sample& s) { return s.test_accuracy; }, reuse);
    case RunChart::kTimeSplit: return time_split_chart(runs, reuse);
    case RunChart::kCodec:
      return bucket_chart(
          kind, "ratio", runs,
          [](const BucketTotals& t, const std::string& n) {
            auto c = t.count.find(n);
            return c == t.count.end() ? 0.0 : t.ratio_sum.at(n) / c->second;
          },
          [](const RunSeries& r) { return r.summary_ratio; });
    case RunChart::kPlaneEntropy: return plane_entropy_chart(runs);
    case RunChart::kEffectiveBits:
      return line_chart(
          {title, iteration, "bits"}, runs, [](const Sample& s) { return effective_bits_of(s); },
          reuse);
    case RunChart::kSkipReduce:
      return line_chart(
          {title, iteration, "dropped"}, runs,  // the title says of what
          [](const Sample& s) { return double(s.skipped_contributions); }, reuse);
    case RunChart::kSkipBuckets:
      return bucket_chart(
          kind, "dropped", runs,
          [](const BucketTotals& t, const std::string& n) {
            auto d = t.dropped.find(n);
            return d == t.dropped.end() ? 0.0 : double(d->second);
          },
          [](const RunSeries&) { return 0.0; });
    case RunChart::kTrimmed:
      return line_chart(
          {title, iteration, "packets"}, runs,
          [](const Sample& s) { return double(s.trimmed_packets); }, reuse);
    case RunChart::kNmse:
      return line_chart(
          {title, iteration, "NMSE", false, true}, runs, [](const Sample& s) { return s.nmse; },
          reuse);
    case RunChart::kNetworkQueue:
      return line_chart(
          {title, iteration, "KiB"}, runs,
          [](const Sample& s) {
            double q = s.network.empty() ? NAN : 0.0;
            for (const NetworkPoint& p : s.network) q = std::max(q, p.max_queue_bytes / 1024);
            return q;
          },
          reuse);
    case RunChart::kNetworkUtilisation:
      // Mean over the iteration's sample intervals of the mean over ports.
      return line_chart(
          {title, iteration, "utilisation"}, runs,
          [](const Sample& s) {
            double u = 0;
            for (const NetworkPoint& p : s.network) u += p.mean_utilisation;
            return s.network.empty() ? NAN : u / static_cast<double>(s.network.size());
          },
          reuse);
  }
  return new_chart(title);
}

}  // namespace commlab::ui
