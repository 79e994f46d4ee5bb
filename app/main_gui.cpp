// commlab: the desktop app. Thin: parse arguments (with commlab-cli's flag parser and checks),
// open the main window (or render it to a PNG with --screenshot, which works with
// QT_QPA_PLATFORM=offscreen).
#include <QApplication>
#include <QFile>
#include <QTimer>
#include <charconv>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "cli/command.h"
#include "cli/util/flag_parse_util.h"
#include "cli/util/size_flag_util.h"
#include "compare_view.h"
#include "main_window.h"
#include "run_chart_pages.h"
#include "scenario/run/results_io.h"
#include "scenario/scenario.h"
#include "teaching_view.h"
#include "topology_view.h"
#include "training_panel.h"
#include "training_view.h"
#include "views/view_settings.h"
#include "workload_view.h"

namespace {

using commlab::cli::kExitInvalid;

struct GuiFlags {
  std::string scenario;
  std::string screenshot, tab, export_file, chart, tensor_file, workload_trace;
  std::string size;
  std::optional<int> iterations, step, compare_seeds;
  int wait_s = 120;  // the longest --screenshot waits for the window to be idle
  // Checked against what the window holds (the scenario's runs, the Throughput tab's clusters).
  std::optional<std::string> run_index, throughput_cluster;
  bool run_all = false;
  // Teaching
  std::optional<int> skip, teach_ranks, teach_per_node;
  std::optional<double> trim;
  std::string teach_algo;
  // Topology
  std::string cluster, topology_backend, background, message;

  bool teaching() const {
    return skip || trim || !teach_algo.empty() || teach_ranks || teach_per_node;
  }
  bool topology() const {
    return !topology_backend.empty() || !background.empty() || !message.empty();
  }
};

void add_flags(CLI::App& app, GuiFlags& f) {
  namespace views = commlab::views;
  using commlab::cli::in_range;
  app.set_version_flag("--version", std::string("commlab ") + commlab::commlab_version());
  app.add_option("scenario", f.scenario, "scenario file to open (JSON)");
  app.add_option("--screenshot", f.screenshot, "render the main window to FILE.png and exit");
  app.add_option("--iterations", f.iterations, "iterations to run before the screenshot")
      ->check(in_range(1, 1000000));
  app.add_option("--tab", f.tab, "tab to show in the screenshot");
  app.add_option("--export", f.export_file,
                 "with --screenshot: also export the shown tab to FILE (.png, .svg, .csv)");
  app.add_option("--step", f.step, "teaching tab: show step N of the collective")
      ->check(in_range(views::kTeachingFrame));
  app.add_option("--skip", f.skip,
                 "teaching tab: SkipReduce s (ring, tree, hd: within the algorithm's limit)")
      ->check(in_range(views::kTeachingSkip));
  app.add_option("--trim", f.trim, "teaching tab: fraction of packets trimmed")
      ->check(in_range(views::kTeachingTrimRate));
  app.add_option("--cluster", f.cluster, "topology tab: cluster preset or spec");
  app.add_option("--topology-backend", f.topology_backend,
                 "topology tab: analytical or packet (queues, trims, drops)")
      ->check(CLI::IsMember(views::kTopologyBackends));
  app.add_option("--background", f.background,
                 "topology tab, packet backend: background traffic (incast:8, ...)");
  app.add_option("--message", f.message, "topology tab: all-reduce size per rank (e.g. 4M)");
  app.add_option("--size", f.size, "window size for the screenshot, WxH");
  app.add_option("--chart", f.chart,
                 "training tab: chart page to show (convergence, codec, skipreduce, trimming)");
  app.add_flag("--run-all", f.run_all, "with --screenshot: run every run of the scenario, pinned");
  app.add_option("--compare-seeds", f.compare_seeds,
                 "with --screenshot: run the Compare tab over N seeds (2-50)")
      ->check(in_range(2, 50));
  app.add_option("--wait", f.wait_s,
                 "with --screenshot: wait at most SECONDS for the work to end (default 120)")
      ->check(in_range(1, 86400));
  app.add_option("--run", f.run_index, "training tab: the scenario's run to show (0-based)");
  app.add_option("--workload-trace", f.workload_trace,
                 "workload tab: replay the Chakra trace PREFIX.RANK.et")
      ->check(commlab::cli::kNonEmpty);
  app.add_option("--teach-algo", f.teach_algo, "teaching tab: ring, tree, hd, hier or direct")
      ->check(CLI::IsMember(views::kTeachingAlgorithms));
  app.add_option("--teach-ranks", f.teach_ranks, "teaching tab: GPUs")
      ->check(in_range(views::kTeachingRanks));
  app.add_option("--teach-per-node", f.teach_per_node, "teaching tab, hier: GPUs per node")
      ->check(in_range(views::kTeachingRanksPerNode));
  app.add_option("--throughput-cluster", f.throughput_cluster,
                 "throughput tab: 0 the flat network, 1-4 NCCL on 1, 2, 4 or 16 nodes of 8 H100, 5 "
                 "a leaf-spine, 6 a fat-tree");
  app.add_option("--tensor-file", f.tensor_file,
                 "training tab, Codec page: draw a .npy/.safetensors file instead of the runs");
}

// The integer `text` holds, or `fallback` when it holds something else.
// (from_chars: no locale, and a value out of int's range is `fallback`, not undefined.)
int integer_or(std::string_view text, int fallback) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() ? value : fallback;
}

bool refuse(const char* flag, const std::string& message) {
  std::fprintf(stderr, "commlab: --%s: %s\n", flag, message.c_str());
  return false;
}

// A page's settings refused by core/views' check, naming the app's flag of the field at fault
// (the Teaching and Topology fields these flags set).
bool refuse(const commlab::Status& bad) {
  static const std::pair<const char*, const char*> kFlags[] = {{"ranks", "teach-ranks"},
                                                               {"algorithm", "teach-algo"},
                                                               {"ranks_per_node", "teach-per-node"},
                                                               {"trim_rate", "trim"},
                                                               {"spec", "cluster"},
                                                               {"backend", "topology-backend"},
                                                               {"message_bytes", "message"}};
  for (auto [field, flag] : kFlags)
    if (bad.field == field) return refuse(flag, bad.message);
  return refuse(bad.field.c_str(), bad.message);  // skip, background: the flag is the field
}

// The Teaching settings of the flags, checked as the view command and the page check them (the
// algorithm's skip limit on the chosen ranks, whole nodes) so that a refused value exits 2
// instead of showing an error later.
bool apply_teaching(const GuiFlags& f, commlab::ui::MainWindow& window) {
  commlab::ui::TeachingSettings s;
  if (f.skip) s.skip = *f.skip;
  if (f.trim) s.trim_rate = *f.trim;
  if (!f.teach_algo.empty()) s.algorithm = f.teach_algo;
  if (f.teach_ranks) s.ranks = *f.teach_ranks;
  if (f.teach_per_node) s.ranks_per_node = *f.teach_per_node;
  const commlab::StatusOr<commlab::ui::TeachingSettings> checked =
      commlab::views::check_teaching(s);
  if (!checked) return refuse(checked.status());
  window.teaching_view()->set_settings(s);
  return true;
}

// The Topology settings of the flags; --message as view topology --bytes reads it.
bool apply_topology(const GuiFlags& f, commlab::ui::MainWindow& window) {
  commlab::ui::TopologySettings t;
  if (!f.cluster.empty()) t.spec = f.cluster;
  if (!f.topology_backend.empty()) t.backend = f.topology_backend;
  if (!f.background.empty()) t.background = f.background;
  if (!f.message.empty()) {
    try {
      const auto& range = commlab::views::kTopologyMessageBytes;
      t.message_bytes = commlab::cli::size_flag("--message", f.message, range.lo, range.hi);
    } catch (const commlab::cli::InvalidInput& e) {
      std::fprintf(stderr, "commlab: %s\n", e.what());
      return false;
    }
  }
  const commlab::StatusOr<commlab::ui::TopologySettings> checked =
      commlab::views::check_topology(t);
  if (!checked) return refuse(checked.status());
  window.topology_view()->set_settings(t);
  return true;
}

bool apply_window_flags(const GuiFlags& f, commlab::ui::MainWindow& window) {
  if (!f.workload_trace.empty()) {
    commlab::ui::WorkloadSettings w;
    w.source = commlab::ui::WorkloadSettings::Source::kTrace;
    w.trace_prefix = f.workload_trace;
    window.set_workload_settings(w);
  }
  if (!f.tab.empty() && !window.select_tab(QString::fromStdString(f.tab)))
    return refuse("tab", "no tab named '" + f.tab +
                             "' (tabs: " + window.tab_names().join(", ").toStdString() + ")");
  if (!f.size.empty()) {
    const size_t x = f.size.find('x');
    const std::string_view text(f.size);
    const int w = x == std::string::npos ? -1 : integer_or(text.substr(0, x), -1);
    const int h = x == std::string::npos ? -1 : integer_or(text.substr(x + 1), -1);
    if (w < 100 || h < 100 || w > 16384 || h > 16384)
      return refuse("size", "expected WxH with each from 100 to 16384 (e.g. 1400x900), got '" +
                                f.size.substr(0, 80) + "'");
    window.resize(w, h);
  }
  // Explicit Teaching / Topology settings win over the scenario's.
  if (f.teaching() || f.topology() || !f.cluster.empty()) window.set_follow_scenario(false);
  if (f.throughput_cluster) {
    const int index = integer_or(*f.throughput_cluster, -1);
    const auto choice = window.choose_throughput_cluster(index);
    if (!choice.valid)
      return refuse("throughput-cluster", "expected an integer from 0 to " +
                                              std::to_string(choice.count - 1) + ", got '" +
                                              f.throughput_cluster->substr(0, 80) + "'");
  }
  if (f.teaching() && !apply_teaching(f, window)) return false;
  if (f.topology()) {
    if (!apply_topology(f, window)) return false;
  } else if (!f.cluster.empty()) {
    window.topology_view()->set_spec(QString::fromStdString(f.cluster));
  }
  return true;
}

bool open_scenario(const GuiFlags& f, commlab::ui::MainWindow& window) {
  if (f.scenario.empty()) {
    if (f.run_index) {
      std::fprintf(stderr,
                   "commlab: --run %s: chooses one of a scenario's runs; give the scenario file "
                   "too (commlab SCENARIO.json --run I)\n",
                   f.run_index->substr(0, 80).c_str());
      return false;
    }
    return true;
  }
  // The scenario's runs fill the Training tab's chooser; the first is shown.
  const QStringList problems = window.open_scenario(QString::fromStdString(f.scenario));
  for (const QString& p : problems) std::fprintf(stderr, "%s\n", qPrintable(p));
  if (!problems.isEmpty()) return false;
  if (!f.tab.empty() && !window.select_tab(QString::fromStdString(f.tab))) return false;
  if (f.run_index) {
    const int runs = static_cast<int>(commlab::load_scenario(f.scenario, {}).runs.size());
    const int index = integer_or(*f.run_index, -1);
    if (index < 0 || index >= runs)
      return refuse("run", "expected an integer from 0 to " + std::to_string(runs - 1) + ", got '" +
                               f.run_index->substr(0, 80) + "'");
    window.training_view()->choose_run(index);
  }
  return true;
}

bool apply_training_flags(const GuiFlags& f, commlab::ui::MainWindow& window) {
  auto* charts = window.training_view()->charts();
  if (!f.chart.empty() && !charts->select_page(QString::fromStdString(f.chart)))
    return refuse("chart", "no chart page named '" + f.chart +
                               "' (pages: " + charts->page_names().join(", ").toStdString() + ")");
  if (!f.tensor_file.empty()) {
    const QString error = charts->show_tensor_file(QString::fromStdString(f.tensor_file));
    if (!error.isEmpty()) {
      std::fprintf(stderr, "commlab: --tensor-file %s\n", qPrintable(error));
      return false;
    }
  }
  // With --screenshot, a scenario (or --iterations on the training tab) runs before the grab.
  if (!f.screenshot.empty() && (!f.scenario.empty() || f.iterations)) {
    const int n = f.iterations.value_or(0);
    // Both --compare-seeds and --run-all: the Training table shows the runs with their seed
    // intervals once both have ended.
    if (f.compare_seeds) {
      window.compare_view()->set_seeds(*f.compare_seeds);
      window.compare_view()->run();
    }
    if (f.run_all)
      window.training_view()->run_all(n);
    else if (!f.compare_seeds)
      window.training_view()->run(n);
  }
  return true;
}

// Waits until the window is idle (at most --wait seconds), shows --step, grabs the window to the
// file and exports the tab; the exit status says whether both were written.
int screenshot(QApplication& app, const GuiFlags& f, commlab::ui::MainWindow& window) {
  window.show();
  auto* poll = new QTimer(&window);
  int waited_ms = 0;
  bool stepped = false;
  QObject::connect(poll, &QTimer::timeout, [&] {
    waited_ms += 50;
    if (!window.idle() && waited_ms < f.wait_s * 1000) return;
    if (f.step && !stepped) {  // frames change only after the trace has arrived
      window.teaching_view()->show_frame(*f.step);
      stepped = true;
      return;
    }
    poll->stop();
    const QString file = QString::fromStdString(f.screenshot);
    bool ok = window.grab().save(file);
    if (!ok) std::fprintf(stderr, "commlab: could not write %s\n", qPrintable(file));
    if (ok && !f.export_file.empty()) {
      const QString error = window.export_current(QString::fromStdString(f.export_file));
      if (!error.isEmpty()) std::fprintf(stderr, "commlab: --export: %s\n", qPrintable(error));
      ok = error.isEmpty();
    }
    app.exit(ok ? 0 : 1);
  });
  poll->start(50);
  return app.exec();
}

}  // namespace

int main(int argc, char** argv) {
  // QApplication takes Qt's own arguments (-platform, ...) out of argv; the rest are ours.
  QApplication app(argc, argv);
  GuiFlags flags;
  CLI::App cli{"CommLab: a laboratory for the communication of distributed training", "commlab"};
  add_flags(cli, flags);
  if (std::optional<int> status = commlab::cli::parse_flags(cli, argc, argv, "commlab"))
    return *status;
  // The style sheet is compiled into the static commlab_ui library: its resources must be
  // registered by name, or :/style.qss is never found.
  Q_INIT_RESOURCE(commlab);
  QApplication::setApplicationName("CommLab");
  QApplication::setApplicationVersion(commlab::commlab_version());
  QFile style(":/style.qss");
  if (style.open(QIODevice::ReadOnly)) app.setStyleSheet(QString::fromUtf8(style.readAll()));

  commlab::ui::MainWindow window;
  if (!apply_window_flags(flags, window) || !open_scenario(flags, window) ||
      !apply_training_flags(flags, window))
    return kExitInvalid;
  if (flags.screenshot.empty()) {
    window.show();
    return app.exec();
  }
  return screenshot(app, flags, window);
}
