#pragma once
// The Training tab's charts, one page per topic (convergence and time split, codec, SkipReduce,
// trimming), all drawn by the shared builders of run_charts.h from the current and pinned runs.
// Only the visible page is rebuilt on a redraw, so a live run costs one page per frame.
#include <QTabWidget>
#include <vector>

#include "run_charts.h"

class QChartView;
class QLabel;

namespace commlab::ui {

class RunChartPages : public QTabWidget {
  Q_OBJECT
 public:
  explicit RunChartPages(QWidget* parent = nullptr);
  // The runs to draw (the samples must stay alive until the next set_runs); redraws the page.
  void set_runs(std::vector<RunSeries> runs);
  // Convergence against simulated time instead of iterations.
  void set_by_time(bool by_time);
  bool by_time() const { return by_time_; }
  bool select_page(
      const QString& name);  // "convergence", "codec", "skipreduce", "trimming", "network"
  QStringList page_names() const;
  // The chart showing `kind` on its page (as last drawn), or null; drawn on demand. A convergence
  // chart is named by either of its kinds (kLossIteration or kLossTime: the loss chart) and is
  // drawn against the axis set_by_time chose.
  QChart* chart(RunChart kind);
  void redraw();  // rebuilds the charts of the visible page
  // The Codec page draws a tensor file (or directory) instead of the runs until cleared
  // (tensor_file_samples.h); returns the error (file, offset, what was expected) or "" on success,
  // when the Codec page is shown.
  QString show_tensor_file(const QString& path);
  void clear_tensor_file();
  // True when a legend of these labels fits `width` px in one row with no label elided (Qt's
  // bottom legend elides every label once the row is too narrow): otherwise the chart shows no
  // legend and the runs table, with each run's colour and full name, is the legend.
  static bool legend_fits(const QStringList& labels, const QFont& font, double width);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  struct Slot {
    QChartView* view;
    RunChart kind;       // vs iteration
    RunChart time_kind;  // vs simulated time (same as kind when it has no time variant)
    int page;
    int col_span = 1;  // of the page's two columns
    int row_span = 1;  // of its two rows
    bool stale = true;
    bool drawn = false;  // the view shows a chart built from runs (not the one set at construction)
    RunChart drawn_kind = RunChart::kLossIteration;
  };
  QWidget* page(const QString& title, const QString& tip, std::initializer_list<int> rows);
  void add_slot(QWidget* page, int row, int col, int col_span, RunChart kind, RunChart time_kind,
                int row_span = 1);
  void draw(Slot& slot);
  void fit_legend(const Slot& slot) const;

  void add_tensor_file_bar(QWidget* codec_page);
  void mark_page_stale(int page);

  std::vector<Slot> slots_;
  std::vector<RunSeries> runs_;
  int codec_page_ = -1;
  std::vector<Sample> file_samples_;  // the Codec page's tensor file, when one is shown
  std::vector<RunSeries> file_runs_;
  QLabel* file_label_ = nullptr;
  bool by_time_ = false;
};

}  // namespace commlab::ui
