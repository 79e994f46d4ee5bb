#pragma once
// The charts of training runs, built from (name, samples) lists: the GUI's Training tab draws them
// live and commlab-cli writes them as PNG / SVG (chart_files.h), so both show the same pictures.
// Builders only read the samples; they return a fresh QChart the caller owns.
#include <QColor>
#include <QFont>
#include <QSizeF>
#include <QString>
#include <QStringList>
#include <string>
#include <vector>

#include "train/trainer.h"

class QChart;
class QValueAxis;

namespace commlab::ui {

enum class RunChart {
  kLossIteration,       // training loss vs iteration, every run overlaid
  kLossTime,            // training loss vs simulated time
  kAccuracyIteration,   // test accuracy vs iteration
  kAccuracyTime,        // test accuracy vs simulated time
  kTimeSplit,           // mean iteration time per run: compute / exposed comm / codec (stacked)
  kCodec,               // wire / uncompressed bytes per bucket (per run without bucket data)
  kPlaneEntropy,        // bits per byte of each wire byte plane, per bucket or per run
  kEffectiveBits,       // bits per gradient coordinate on the wire per iteration (32 = FP32)
  kSkipReduce,          // dropped contributions per iteration
  kSkipBuckets,         // dropped contributions per bucket, summed over the run
  kTrimmed,             // trimmed packets per iteration
  kNmse,                // NMSE of the reduced gradient per iteration (worst bucket)
  kNetworkQueue,        // packet backend: deepest switch queue per iteration
  kNetworkUtilisation,  // packet backend: mean and busiest port utilisation per iteration
};

struct RunChartInfo {
  RunChart kind;
  const char* file;   // file stem, e.g. "loss_iteration"
  const char* title;  // chart title
};

// Every chart in the order the files are written and the GUI tabs list them.
const std::vector<RunChartInfo>& run_chart_infos();
const RunChartInfo& run_chart_info(RunChart kind);

struct RunSeries {
  std::string name;
  const std::vector<Sample>* samples = nullptr;
  double summary_ratio = -1;  // RunSummary::mean_ratio when known (codec chart before buckets)
  bool dashed = false;        // pinned runs in the GUI
  int color = -1;             // run_color index; -1: the run's position in the list
  bool ghost = false;         // the GUI's previous curve of a live run: faint, line charts only
  bool highlighted = false;   // the GUI's selected row in the runs table: a thicker line
};

// The colour index of runs[i] (its own when set, else its position).
int run_color_index(const std::vector<RunSeries>& runs, size_t i);

// True when some run has something to show in this chart (e.g. a dropped contribution for
// SkipReduce). Convergence and time split have data as soon as one sample exists.
bool run_chart_has_data(RunChart kind, const std::vector<RunSeries>& runs);

// A new chart (title, axes, legend with the run names); never null. With `reuse` (a chart this
// function built for the same kind), a line chart whose runs are unchanged is refreshed in place
// and returned (only points and axes move, which a live run needs ~20 times a second); otherwise
// a new chart is returned and `reuse` is left to the caller.
QChart* build_run_chart(RunChart kind, const std::vector<RunSeries>& runs, QChart* reuse = nullptr);

// Colour of the i-th run (the same in the GUI and in the files): a fixed palette of
// run_palette_size() colours at least CIE76 delta-E 20 apart, the first 8 colour-blind safe
// (Okabe-Ito), then more.
QColor run_color(int i);
int run_palette_size();

// The axis from a nice number at or below `lo` to one at or above `hi`, its ticks a nice step
// apart (1, 2 or 5 times a power of ten; about five of them), so labels read 0.2, 0.4, not
// 0.615, 0.674.
void set_nice_axis_range(QValueAxis* axis, double lo, double hi);

// A bar chart's category axis keeps its full category names (a QStringList) in this property;
// its shown labels may be shortened to fit (fit_category_labels). Hover readouts name the bar by
// its full category.
inline constexpr char kFullCategoriesProperty[] = "commlab_full_categories";

// The category labels of `names` when each may take `slot` px in `font`: the names themselves
// when all fit; else each wrapped at spaces onto two lines ("<br>": Qt Charts draws labels as rich
// text), a word or last line still too long elided in the middle (the end of a run's name says
// what differs); labels that would then read alike become the runs' numbers (1, 2, ... in the runs
// table's order). The labels are distinct whenever the names are.
QStringList fit_category_labels(const QStringList& names, const QFont& font, double slot);
// The category labels of `names` down a chart's side (bottom first, as Qt lists a horizontal
// chart's categories), each row `row` px high: each name elided in the middle to `width` px; the
// runs' numbers counted from the top row (the runs table's order) when a row is lower than a line
// of `font` or two labels would read alike.
QStringList fit_row_labels(const QStringList& names, const QFont& font, double width, double row);
// The narrowest a row label is cut to (about 12 characters).
inline constexpr double kMinRowLabelWidth = 90;
// True when a bottom legend of `labels` fits `width` px in one row with no label elided (Qt's
// bottom legend elides every label once the row is too narrow): each entry a marker (a
// font-height square), the gaps beside it and its label, plus the legend's margins; generous, so
// a legend judged to fit never elides.
bool legend_row_fits(const QStringList& labels, const QFont& font, double width);
// Applies fit_category_labels to every bar category axis along the bottom of `chart`, and
// fit_row_labels to every one down its side, for a plot area of `plot` px.
void fit_chart_categories(QChart* chart, QSizeF plot);

// A bar set whose legend marker a chart hides on purpose carries this property set to true.
inline constexpr char kLegendHiddenProperty[] = "commlab_legend_hidden";
// A line chart's "before" (ghost) lines carry this property set to true.
inline constexpr char kGhostProperty[] = "commlab_ghost";
// The live ghost's colour: no run's.
inline const QColor kGhostColor{120, 120, 120, 140};

}  // namespace commlab::ui
