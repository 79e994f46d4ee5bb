#pragma once
// A small SVG chart of estimates with their 95% intervals against one x axis, in side-by-side
// panels (one per quantity), for `reproduce` rows that a table alone reads poorly: a sweep's
// speedup and accuracies per policy. No dependencies: the SVG is text.
#include <cmath>
#include <string>
#include <vector>

namespace commlab::cli {

struct IntervalPoint {
  double x = 0;                        // axis units (the caller's: log10 of a parameter, say)
  double y = NAN, lo = NAN, hi = NAN;  // y NaN: no point; lo/hi NaN: no interval
  bool joined = true;                  // a line from the series' previous point
};
struct IntervalSeries {
  std::string name, color;  // color: any SVG color ("#1f77b4")
  std::vector<IntervalPoint> points;
};
struct IntervalPanel {
  std::string title, y_label;
  std::vector<IntervalSeries> series;
  double reference = NAN;  // a dashed horizontal line (1 for a speedup), NaN: none
};
struct XTick {
  double x = 0;
  std::string label;
};

// The panels left to right, sharing the x ticks and the series legend (the first panel's names).
// Each panel's y range covers its points, finite interval ends and reference; an infinite end (an
// interval unbounded by censored pairs: pass -inf or +inf) is drawn to the panel's edge, uncapped.
std::string interval_chart_svg(const std::string& title, const std::vector<IntervalPanel>& panels,
                               const std::vector<XTick>& ticks, const std::string& x_label,
                               const std::string& caption);

}  // namespace commlab::cli
