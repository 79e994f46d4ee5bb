#pragma once
// Training tab: the scenario panel, Run / Pause / Step / Reset / Pin, Live mode, the run charts
// (run_chart_pages.h) and the runs list (runs_list.h) of every run on them. Samples arrive
// through the TrainingBridge; the charts redraw from a snapshot every ~40 ms when something
// changed. A scenario with several runs fills the run chooser; Run all runs them one after the
// other, each kept on the charts.
//
// Live mode (on by default): a settings change restarts the chosen run at once (at most one
// restart per 250 ms, the last change always applied); each replaced curve stays as a faint ghost
// (the last kMaxGhosts of them) until Reset or Clear all, which Undo remove brings back. Heavy
// configurations (live_blocker) wait for Run and say why. A run that is refused (schema or engine
// checks) changes nothing on the charts: the previous current run is replaced only when the new
// one's first sample arrives.
#include <QElapsedTimer>
#include <QString>
#include <QWidget>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <vector>

#include "chart_export.h"
#include "run_charts.h"
#include "scenario/config_problem.h"
#include "scenario/run_config.h"
#include "scenario/runner.h"
#include "scenario_files.h"
#include "seed_figures.h"
#include "train/sample_store.h"
#include "train/trainer.h"

class QCheckBox;
class QComboBox;
class QGridLayout;
class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTimer;
class QUndoStack;

namespace commlab::ui {

class RunChartPages;
class RunsList;
class TrainingBridge;
class TrainingPanel;

class TrainingView : public QWidget, public Exportable {
  Q_OBJECT
 public:
  explicit TrainingView(QWidget* parent = nullptr);
  ~TrainingView() override;
  TrainingPanel* panel() const { return panel_; }
  TrainingBridge* bridge() const { return bridge_; }
  RunChartPages* charts() const { return charts_; }
  RunsList* runs_list() const { return runs_list_; }
  // Setting edits, one command each (settings_undo.h); clean = as opened or last saved.
  QUndoStack* undo_stack() const { return undo_; }
  // No run is active or queued and every sample that came back is drawn.
  bool idle() const;
  // The current run's samples: all of them up to kChartSamples, then thinned like commlab-cli's
  // (train/sample_store.h), the latest always last.
  const std::vector<Sample>& samples() const { return samples_.samples(); }
  // The current run's name ("lr 0.08, skip 4", or the scenario run's name when unedited).
  QString current_name() const { return current_.name; }
  // Summaries of the completed runs in the order they ended.
  const std::vector<RunSummary>& summaries() const { return summaries_; }
  // Kept runs (pinned, or from Run all), in the order kept.
  int pinned_count() const { return static_cast<int>(kept_.size()); }
  QStringList pinned_names() const;
  // The names of the line series drawn in the loss chart (ghost and hidden runs included or not,
  // as on screen).
  QStringList drawn_names();
  // The curve the last live change replaced (empty when there is none).
  const std::vector<Sample>& ghost() const;
  // Every replaced live curve still drawn (oldest first, at most kMaxGhosts), until Reset or Clear.
  int ghost_count() const { return static_cast<int>(ghosts_.size()); }
  // Points in the loss chart's current-run series (what is drawn, not what was received).
  int drawn_points() const;
  // Chart redraws so far (bench/gui measures how often a run refreshes its charts).
  int redraw_count() const { return redraw_count_; }
  // Starts a run of the panel's settings, capped at `iterations` when > 0.
  bool run(int iterations = 0);

  // Live mode: a settings change restarts the run (see the header comment).
  void set_live(bool live);
  bool live() const;
  // Why the panel's settings cannot run live right now (empty: they can).
  QString live_blocker_text() const;

  // The runs of a loaded scenario: the chooser lists them and the panel shows the first.
  // `scenario` names them in the runs list (runs kept from another scenario keep theirs).
  // `forked_from` (one per run, or empty): the file's provenance of each run, kept when Save writes
  // a run that was not trained here again and told in the chooser's tooltip. `colors` (one per
  // run, or empty; -1: none): the file's run_color index of each run, which a run with its
  // settings takes (run i takes colour i when the file gives none).
  void set_runs(const std::vector<RunConfig>& runs, const QString& scenario = QString(),
                const std::vector<ForkedFrom>& forked_from = {},
                const std::vector<int>& colors = {});
  // The scenario file's description, shown above the settings (empty hides it).
  void set_description(const QString& text);
  QString description() const;
  // The scenario's runs with the chosen one replaced by the panel's settings (what Save writes).
  std::vector<RunConfig> runs() const;
  // The scenario's runs as set_runs was given them (what runs() is compared with on Save).
  const std::vector<RunConfig>& loaded_runs() const { return loaded_; }
  // runs() with the file's provenance of each (what Save adds after the table's rows when no row
  // has its settings).
  std::vector<SavedRun> scenario_runs() const;
  // The runs table's rows as Save writes them, in the table's order: each row's settings under its
  // name, a live fork with the run it continued and the iteration; `baseline` (when given) is set
  // to the index of the row the speedups are against.
  std::vector<SavedRun> table_runs(int* baseline = nullptr) const;
  // The colour (run_color index) of each of runs(): the runs table's row with its settings when
  // there is one, else the colour a run of it would take (the file's, else its index); the Compare
  // tab draws the runs in these.
  std::vector<int> run_colors() const;
  int chosen_run() const;
  void choose_run(int index);
  // Runs every run of the scenario in turn, each kept when it ends (capped like run()).
  bool run_all(int iterations = 0);
  // Runs list actions (also its buttons): show or hide, rename, remove one, remove all.
  void set_run_visible(int id, bool visible);
  void rename_run(int id, const QString& name);
  void remove_run(int id);
  void clear_runs();
  // Remove and Clear all can be undone (most recent first): the runs come back as kept curves.
  void undo_remove();
  // A seeds comparison of `compared` ended (the Compare tab's summary.json): rows with the same
  // settings show their time to target and speedup over seeds with intervals (seed_figures.h).
  void set_seed_results(const ExperimentSummary& summary, const std::vector<RunConfig>& compared);
  // The run the table's speedups are against (its id; 0: the run named "baseline", else the
  // first).
  void set_baseline_run(int id);
  // The run whose curves are drawn thicker (the runs table's selected row; 0: none).
  void set_highlighted_run(int id);
  int highlighted_run() const { return highlighted_id_; }
  bool can_undo_remove() const;
  // Ids of the runs in the list, kept ones first, the current run last (when it has samples).
  std::vector<int> run_ids() const;
  // The progress bar's text ("120/800 iterations, about 14 s left").
  QString progress_text() const;

  QString export_name() const override { return "training"; }
  QSize export_size() const override;
  void export_render(QPainter& painter) const override;
  CsvTable export_data() const override;

 signals:
  // The current run's first points are on the charts (bench/gui times change -> first point).
  void first_points_drawn();

 public slots:
  void pause_or_resume();
  void step();
  void reset();
  void pin();

 private:
  // The constructor's parts: the scenario column with its controls, the charts over the runs
  // table, the redraw and live timers, and the signals.
  void make_run_controls(QHBoxLayout*& choice, QGridLayout*& buttons);
  QWidget* make_side_panel();
  QSplitter* make_charts_and_runs();
  void make_timers();
  void connect_controls();
  struct Run {
    int id = 0;
    QString name, scenario, changes;
    bool named_by_user = false;
    bool from_run_all = false;
    std::vector<Sample> samples;  // kept runs only (the current run's are in samples_)
    double ratio = -1;            // RunSummary::mean_ratio when the run completed
    int color = 0;
    bool visible = true;
    double target = 0.85;  // training.target_accuracy and tta_window: the table's time to target
    int tta_window = 0;
    std::string settings;  // settings_key(): matches the run to a seeds comparison
    RunConfig config;      // its settings as set (not capped): what Save writes under `name`
    int parent = 0;        // a live fork: the id of the run it continued (0: started afresh)
    QString parent_name;   // that run's name at the fork (Save's word for it once it is gone)
    int forked_at = 0;     // the iteration it forked at
    QString saved_fork;    // the file's forked_from of a run trained here from iteration 1
  };
  // The table's runs in order (kept ones, then the current one when it has samples).
  std::vector<const Run*> table() const;
  // The index in `rows` of the run speedups are against: the one the user chose, else the row
  // named "baseline", else the first.
  size_t baseline_row(const std::vector<const Run*>& rows) const;
  bool start(RunConfig config, int iterations, bool from_run_all);
  void promote();  // the starting run's first sample came: it becomes the current run
  void drain();    // takes queued samples (redraw timer)
  void redraw();   // hands the snapshot to the chart pages and the runs list
  void finished();
  void refused(const ConfigProblems& problems);
  void remember_batch();  // before a start: the progress a refusal returns to  // the engine
                          // refused the starting run
  void update_buttons();
  void update_progress();
  void settings_edited();  // a panel control changed: undo entry, live restart
  void live_change();
  void apply_undo(int run, const RunConfig& config);
  void update_rows();
  QString display_name(const Run& r) const;
  // The colour of a new run with these settings (settings_key; empty: none of the scenario's).
  int take_color(const std::string& settings);
  // The colour of the scenario's run i: the file's, else i.
  int loaded_color(size_t i) const;
  bool color_in_use(int color) const;
  void remember_removal();  // before Remove / Clear all: what undo_remove brings back

  TrainingPanel* panel_;
  TrainingBridge* bridge_;
  QComboBox* run_choice_;
  QPushButton* run_all_;
  QPushButton* run_;
  QPushButton* pause_;
  QPushButton* step_;
  QPushButton* reset_;
  QPushButton* pin_;
  QCheckBox* live_;
  QCheckBox* fork_;                 // live changes fork the running run instead of restarting it
  bool live_fork_request_ = false;  // set while a live change starts its run
  QComboBox* x_axis_;
  QLabel* status_;
  QLabel* description_;
  QProgressBar* progress_;
  RunChartPages* charts_;
  RunsList* runs_list_;
  QTimer* redraw_timer_;
  QTimer* live_timer_;
  QUndoStack* undo_;
  static constexpr size_t kChartSamples = 4096;
  SampleStore samples_{kChartSamples, true};
  Run current_;                  // id 0: no current run
  std::optional<Run> starting_;  // started, first sample not yet here
  bool starting_live_ = false;   // the starting run is a live restart (the old curve ghosts)
  std::vector<Run> kept_;
  // A live run's earlier curves: each change that restarted or forked it leaves one, faint.
  struct Ghost {
    std::vector<Sample> samples;
    QString name;  // "before: NAME", numbered when NAME repeats
  };
  static constexpr size_t kMaxGhosts = 8;
  std::vector<Ghost> ghosts_;
  struct Removal {  // what Remove / Clear all took, for Undo remove
    std::vector<Run> runs;
    std::vector<Ghost> ghosts;
  };
  std::vector<Removal> removed_;
  int baseline_id_ = 0;                          // set_baseline_run
  int highlighted_id_ = 0;                       // set_highlighted_run
  std::map<std::string, SeedTimes> seed_times_;  // set_seed_results, by settings_key
  bool announce_first_ = false;                  // emit first_points_drawn after the next redraw
  std::vector<RunSummary> summaries_;
  std::vector<RunConfig> runs_;           // the loaded scenario's runs (edits of each kept)
  std::vector<RunConfig> loaded_;         // the same as loaded (names describe edits against these)
  std::vector<ForkedFrom> loaded_forks_;  // the file's forked_from of each loaded run
  std::vector<int> loaded_colors_;        // the file's colour of each loaded run (-1: none)
  QString scenario_;
  RunConfig last_config_;  // the panel's settings before the edit being recorded
  int chosen_ = 0;
  std::deque<RunConfig> queue_;  // Run all: the runs still to start
  int queue_iterations_ = 0;
  int run_iterations_ = 0;
  bool dirty_ = false;
  bool start_paused_ = false;  // step(): the run starts paused, its first iteration on request
  bool awaiting_end_ = false;  // a run started whose finished / failed report has not come yet
  bool live_pending_ = false;  // a change came during the live throttle window
  int run_counter_ = 0;
  int color_counter_ = 0;
  int redraw_count_ = 0;
  // Progress of the batch (a run, or Run all): iterations of its finished runs + the current one.
  int batch_total_ = 0;
  int batch_done_ = 0;
  QElapsedTimer batch_clock_;
  // The batch's progress when a run started over a running one (a refusal returns to it).
  std::tuple<int, int, int, QElapsedTimer> before_start_;
};

}  // namespace commlab::ui
