// commlab: the desktop app. Thin: parse arguments, open the main window (or render it to a PNG
// with --screenshot, which works with QT_QPA_PLATFORM=offscreen).
#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QTimer>
#include <cstdio>

#include "compare_view.h"
#include "io/size_parse.h"
#include "main_window.h"
#include "run_chart_pages.h"
#include "scenario/run/results_io.h"
#include "scenario/scenario.h"
#include "teaching_view.h"
#include "topology_view.h"
#include "training_panel.h"
#include "training_view.h"
#include "workload_view.h"

namespace {

// An integer flag in [lo, hi], or a one-line error naming the flag, the value and the range:
// --iterations -5, --run 99 and --size abc used to be ignored silently (issue #31).
bool int_flag(const QString& flag, const QString& text, int lo, int hi, int& out) {
  bool ok = false;
  const long long v = text.trimmed().toLongLong(&ok);
  if (ok && v >= lo && v <= hi) {
    out = static_cast<int>(v);
    return true;
  }
  std::fprintf(stderr, "commlab: --%s: expected an integer from %d to %d, got '%s'\n",
               qPrintable(flag), lo, hi, qPrintable(text.left(80)));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  // The style sheet is compiled into the static commlab_ui library: its resources must be
  // registered by name, or :/style.qss is never found.
  Q_INIT_RESOURCE(commlab);
  QApplication::setApplicationName("CommLab");
  QApplication::setApplicationVersion(commlab::commlab_version());
  QFile style(":/style.qss");
  if (style.open(QIODevice::ReadOnly)) app.setStyleSheet(QString::fromUtf8(style.readAll()));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      "CommLab: a laboratory for the communication of distributed training");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("scenario", "scenario file to open (JSON)", "[SCENARIO.json]");
  QCommandLineOption shot("screenshot", "render the main window to FILE.png and exit", "FILE");
  QCommandLineOption iterations("iterations", "iterations to run before the screenshot", "N");
  QCommandLineOption tab("tab", "tab to show in the screenshot", "NAME");
  QCommandLineOption exp(
      "export", "with --screenshot: also export the shown tab to FILE (.png, .svg, .csv)", "FILE");
  QCommandLineOption step("step", "teaching tab: show step N of the collective", "N");
  QCommandLineOption skip("skip", "teaching tab: SkipReduce s", "S");
  QCommandLineOption trim("trim", "teaching tab: fraction of packets trimmed", "RATE");
  QCommandLineOption cluster("cluster", "topology tab: cluster preset or spec", "SPEC");
  QCommandLineOption topo_backend(
      "topology-backend", "topology tab: analytical or packet (queues, trims, drops)", "NAME");
  QCommandLineOption background(
      "background", "topology tab, packet backend: background traffic (incast:8, ...)", "SPEC");
  QCommandLineOption message("message", "topology tab: all-reduce size per rank (e.g. 4M)", "SIZE");
  QCommandLineOption size("size", "window size for the screenshot, WxH", "WxH");
  QCommandLineOption chart("chart",
                           "training tab: chart page to show (convergence, codec, skipreduce, "
                           "trimming)",
                           "PAGE");
  QCommandLineOption run_all("run-all", "with --screenshot: run every run of the scenario, pinned");
  QCommandLineOption compare_seeds(
      "compare-seeds", "with --screenshot: run the Compare tab over N seeds (2-50)", "N");
  parser.addOption(compare_seeds);
  QCommandLineOption run_index("run", "training tab: the scenario's run to show (0-based)", "I");
  parser.addOptions({shot, iterations, tab, exp, step, skip, trim, cluster, topo_backend,
                     background, message, size, chart, run_all, run_index});
  QCommandLineOption workload_trace(
      "workload-trace", "workload tab: replay the Chakra trace PREFIX.RANK.et", "PREFIX");
  parser.addOption(workload_trace);
  QCommandLineOption teach_algo("teach-algo", "teaching tab: ring, tree, hd, hier or direct",
                                "NAME");
  QCommandLineOption teach_ranks("teach-ranks", "teaching tab: GPUs (2-8)", "N");
  QCommandLineOption teach_per_node("teach-per-node", "teaching tab, hier: GPUs per node", "N");
  QCommandLineOption busbw_cluster(
      "throughput-cluster",
      "throughput tab: 0 the flat network, 1-4 NCCL on 1, 2, 4 or 16 nodes of 8 H100, 5 a "
      "leaf-spine, 6 a fat-tree",
      "I");
  QCommandLineOption tensor_file(
      "tensor-file", "training tab, Codec page: draw a .npy/.safetensors file instead of the runs",
      "FILE");
  parser.addOptions({teach_algo, teach_ranks, teach_per_node, busbw_cluster, tensor_file});
  parser.process(app);

  commlab::ui::MainWindow window;
  if (parser.isSet(workload_trace)) {
    commlab::ui::WorkloadSettings w;
    w.source = commlab::ui::WorkloadSettings::Source::kTrace;
    w.trace_prefix = parser.value(workload_trace).toStdString();
    window.set_workload_settings(w);
  }
  if (parser.isSet(tab) && !window.select_tab(parser.value(tab))) {
    std::fprintf(stderr, "commlab: --tab: no tab named '%s' (tabs: %s)\n",
                 qPrintable(parser.value(tab)), qPrintable(window.tab_names().join(", ")));
    return 2;
  }
  if (parser.isSet(size)) {
    const QStringList wh = parser.value(size).split('x');
    int w = 0, h = 0;
    if (wh.size() != 2 || !int_flag("size (width)", wh[0], 100, 16384, w) ||
        !int_flag("size (height)", wh[1], 100, 16384, h)) {
      std::fprintf(stderr, "commlab: --size: expected WxH (e.g. 1400x900), got '%s'\n",
                   qPrintable(parser.value(size).left(80)));
      return 2;
    }
    window.resize(w, h);
  }
  int iteration_count = 0;
  if (parser.isSet(iterations) &&
      !int_flag("iterations", parser.value(iterations), 1, 1000000, iteration_count))
    return 2;
  // Explicit Teaching / Topology settings win over the scenario's.
  const bool teaching = parser.isSet(skip) || parser.isSet(trim) || parser.isSet(teach_algo) ||
                        parser.isSet(teach_ranks) || parser.isSet(teach_per_node);
  if (teaching || parser.isSet(cluster) || parser.isSet(topo_backend) || parser.isSet(background) ||
      parser.isSet(message))
    window.set_follow_scenario(false);
  if (parser.isSet(busbw_cluster)) {
    // Not a number ("abc" read as 0 before) is refused like an index out of range.
    bool number = false;
    const int index = parser.value(busbw_cluster).trimmed().toInt(&number);
    const auto choice = window.choose_throughput_cluster(number ? index : -1);
    if (!choice.valid) {
      std::fprintf(stderr,
                   "commlab: --throughput-cluster: expected an integer from 0 to %d, got '%s'\n",
                   choice.count - 1, qPrintable(parser.value(busbw_cluster).left(80)));
      return 2;
    }
  }
  if (teaching) {
    commlab::ui::TeachingSettings s;
    s.skip = parser.value(skip).toInt();
    s.trim_rate = parser.value(trim).toDouble();
    if (parser.isSet(teach_algo)) s.algorithm = parser.value(teach_algo).toStdString();
    if (parser.isSet(teach_ranks)) s.ranks = parser.value(teach_ranks).toInt();
    if (parser.isSet(teach_per_node)) s.ranks_per_node = parser.value(teach_per_node).toInt();
    window.teaching_view()->set_settings(s);
  }
  if (parser.isSet(topo_backend) || parser.isSet(background) || parser.isSet(message)) {
    commlab::ui::TopologySettings t;
    if (parser.isSet(cluster)) t.spec = parser.value(cluster).toStdString();
    if (parser.isSet(topo_backend)) t.backend = parser.value(topo_backend).toStdString();
    if (parser.isSet(background)) t.background = parser.value(background).toStdString();
    if (parser.isSet(message)) {
      const auto bytes = commlab::parse_size(parser.value(message).toStdString());
      if (!bytes) {
        std::fprintf(stderr, "commlab: --message: expected a size like 4M, got '%s'\n",
                     qPrintable(parser.value(message)));
        return 2;
      }
      t.message_bytes = *bytes;
    }
    window.topology_view()->set_settings(t);
  } else if (parser.isSet(cluster)) {
    window.topology_view()->set_spec(parser.value(cluster));
  }
  const QStringList args = parser.positionalArguments();
  if (args.isEmpty() && parser.isSet(run_index)) {
    std::fprintf(stderr,
                 "commlab: --run %s: chooses one of a scenario's runs; give the scenario "
                 "file too (commlab SCENARIO.json --run I)\n",
                 qPrintable(parser.value(run_index)));
    return 2;
  }
  if (!args.isEmpty()) {
    // The scenario's runs fill the Training tab's chooser; the first is shown.
    const QStringList problems = window.open_scenario(args.front());
    for (const QString& p : problems) std::fprintf(stderr, "%s\n", qPrintable(p));
    if (!problems.isEmpty()) return 2;
    if (parser.isSet(tab) && !window.select_tab(parser.value(tab))) return 2;
    if (parser.isSet(run_index)) {
      const int runs =
          static_cast<int>(commlab::load_scenario(args.front().toStdString(), {}).runs.size());
      int index = 0;
      if (!int_flag("run", parser.value(run_index), 0, runs - 1, index)) return 2;
      window.training_view()->choose_run(index);
    }
  }
  if (parser.isSet(chart) && !window.training_view()->charts()->select_page(parser.value(chart))) {
    std::fprintf(stderr, "commlab: --chart: no chart page named '%s' (pages: %s)\n",
                 qPrintable(parser.value(chart)),
                 qPrintable(window.training_view()->charts()->page_names().join(", ")));
    return 2;
  }
  if (parser.isSet(tensor_file)) {
    const QString error =
        window.training_view()->charts()->show_tensor_file(parser.value(tensor_file));
    if (!error.isEmpty()) {
      std::fprintf(stderr, "commlab: --tensor-file %s\n", qPrintable(error));
      return 2;
    }
  }
  // With --screenshot, a scenario (or --iterations on the training tab) runs before the grab.
  if (parser.isSet(shot) && (!args.isEmpty() || parser.isSet(iterations))) {
    const int n = iteration_count;
    // Both --compare-seeds and --run-all: the Training table shows the runs with their seed
    // intervals once both have ended.
    if (parser.isSet(compare_seeds)) {
      window.compare_view()->set_seeds(parser.value(compare_seeds).toInt());
      window.compare_view()->run();
    }
    if (parser.isSet(run_all))
      window.training_view()->run_all(n);
    else if (!parser.isSet(compare_seeds))
      window.training_view()->run(n);
  }
  if (!parser.isSet(shot)) {
    window.show();
    return app.exec();
  }
  const QString file = parser.value(shot);
  window.show();
  auto* poll = new QTimer(&window);
  int waited_ms = 0;
  bool stepped = false;
  QObject::connect(poll, &QTimer::timeout, [&] {
    waited_ms += 50;
    if (!window.idle() && waited_ms < 120000) return;
    if (parser.isSet(step) && !stepped) {  // frames change only after the trace has arrived
      window.teaching_view()->show_frame(parser.value(step).toInt());
      stepped = true;
      return;
    }
    poll->stop();
    bool ok = window.grab().save(file);
    if (!ok) std::fprintf(stderr, "commlab: could not write %s\n", qPrintable(file));
    if (ok && parser.isSet(exp)) {
      const QString error = window.export_current(parser.value(exp));
      if (!error.isEmpty()) std::fprintf(stderr, "commlab: --export: %s\n", qPrintable(error));
      ok = error.isEmpty();
    }
    app.exit(ok ? 0 : 1);
  });
  poll->start(50);
  return app.exec();
}
