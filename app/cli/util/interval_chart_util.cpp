#include "cli/util/interval_chart_util.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace commlab::cli {
namespace {

constexpr double kPanelW = 400, kPanelH = 300, kLeft = 60, kTop = 50, kGap = 40, kPlotW = 320,
                 kPlotH = 210;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

std::string text_at(double x, double y, const std::string& s, const std::string& extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" " + extra + ">" + escape(s) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& style) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
         num(y2) + "\" " + style + "/>\n";
}

// A readable step for about five ticks over [lo, hi].
double tick_step(double lo, double hi) {
  const double raw = (hi - lo) / 5, p = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0})
    if (raw <= m * p) return m * p;
  return 10 * p;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  void add(double v) {
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
};

Range y_range(const IntervalPanel& p) {
  Range r;
  r.add(p.reference);
  for (const IntervalSeries& s : p.series)
    for (const IntervalPoint& q : s.points) {
      r.add(q.y);  // an infinite interval end (unbounded) does not widen the range
      r.add(q.lo);
      r.add(q.hi);
    }
  if (!(r.lo <= r.hi)) r.lo = 0, r.hi = 1;
  const double pad = std::max(0.05 * (r.hi - r.lo), 1e-3);
  r.lo -= pad;
  r.hi += pad;
  return r;
}

std::string panel_svg(const IntervalPanel& p, double x0, const Range& xr,
                      const std::vector<XTick>& ticks, const std::string& x_label) {
  const Range yr = y_range(p);
  auto px = [&](double x) { return x0 + kLeft + (x - xr.lo) / (xr.hi - xr.lo) * kPlotW; };
  auto py = [&](double y) {
    const double c = std::clamp(y, yr.lo, yr.hi);
    return kTop + kPlotH - (c - yr.lo) / (yr.hi - yr.lo) * kPlotH;
  };
  std::string out = text_at(x0 + kLeft + kPlotW / 2, kTop - 12, p.title,
                            "text-anchor=\"middle\" font-weight=\"bold\"");
  out += "<rect x=\"" + num(x0 + kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(kPlotW) +
         "\" height=\"" + num(kPlotH) + "\" fill=\"none\" stroke=\"#888\"/>\n";
  const double step = tick_step(yr.lo, yr.hi);
  for (double y = std::ceil(yr.lo / step) * step; y <= yr.hi; y += step) {
    out += line(x0 + kLeft, py(y), x0 + kLeft + kPlotW, py(y), "stroke=\"#eee\"");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", std::round(y / step) * step + 0.0);  // no "-0"
    out += text_at(x0 + kLeft - 6, py(y) + 4, buf, "text-anchor=\"end\"");
  }
  for (const XTick& t : ticks)
    out += text_at(px(t.x), kTop + kPlotH + 16, t.label, "text-anchor=\"middle\"");
  out += text_at(x0 + kLeft + kPlotW / 2, kTop + kPlotH + 34, x_label, "text-anchor=\"middle\"");
  out += text_at(x0 + 14, kTop + kPlotH / 2, p.y_label,
                 "text-anchor=\"middle\" transform=\"rotate(-90 " + num(x0 + 14) + " " +
                     num(kTop + kPlotH / 2) + ")\"");
  if (std::isfinite(p.reference))
    out += line(x0 + kLeft, py(p.reference), x0 + kLeft + kPlotW, py(p.reference),
                "stroke=\"#444\" stroke-dasharray=\"4 3\"");
  const double n = static_cast<double>(p.series.size());
  for (size_t si = 0; si < p.series.size(); ++si) {
    const IntervalSeries& s = p.series[si];
    const double dodge = (static_cast<double>(si) - (n - 1) / 2) * 7;
    const std::string stroke = "stroke=\"" + s.color + "\"";
    const IntervalPoint* prev = nullptr;
    for (const IntervalPoint& q : s.points) {
      if (!std::isfinite(q.y)) {
        prev = nullptr;
        continue;
      }
      const double x = px(q.x) + dodge;
      if (prev && q.joined)
        out += line(px(prev->x) + dodge, py(prev->y), x, py(q.y), stroke + " stroke-width=\"1.5\"");
      if (!std::isnan(q.lo) && !std::isnan(q.hi)) {
        out += line(x, py(q.lo), x, py(q.hi), stroke + " stroke-width=\"1.5\"");
        for (double end : {q.lo, q.hi})
          if (end >= yr.lo && end <= yr.hi) out += line(x - 4, py(end), x + 4, py(end), stroke);
      }
      out += "<circle cx=\"" + num(x) + "\" cy=\"" + num(py(q.y)) + "\" r=\"3.5\" fill=\"" +
             s.color + "\"/>\n";
      prev = &q;
    }
  }
  return out;
}

}  // namespace

std::string interval_chart_svg(const std::string& title, const std::vector<IntervalPanel>& panels,
                               const std::vector<XTick>& ticks, const std::string& x_label,
                               const std::string& caption) {
  Range xr;
  for (const XTick& t : ticks) xr.add(t.x);
  if (!(xr.lo < xr.hi)) xr.lo -= 1, xr.hi += 1;
  const double pad = 0.06 * (xr.hi - xr.lo);
  xr.lo -= pad;
  xr.hi += pad;
  const double width = kPanelW * static_cast<double>(panels.size()) + kGap, height = kPanelH + 60;
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) +
                    "\" height=\"" + num(height) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out +=
      text_at(width / 2, 20, title, "text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\"");
  for (size_t i = 0; i < panels.size(); ++i)
    out += panel_svg(panels[i], kGap / 2 + kPanelW * static_cast<double>(i), xr, ticks, x_label);
  double lx = kGap / 2 + kLeft;
  if (!panels.empty())
    for (const IntervalSeries& s : panels.front().series) {
      out += "<circle cx=\"" + num(lx) + "\" cy=\"" + num(kPanelH + 12) + "\" r=\"4\" fill=\"" +
             s.color + "\"/>\n";
      out += text_at(lx + 8, kPanelH + 16, s.name);
      lx += 12 + 7.0 * static_cast<double>(s.name.size()) + 20;
    }
  out += text_at(kGap / 2 + kLeft, kPanelH + 40, caption, "fill=\"#444\"");
  return out + "</svg>\n";
}

}  // namespace commlab::cli
