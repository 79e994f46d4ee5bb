// commlab-cli run: runs every run of an experiment and writes summary.json, series.csv, the
// scenario as run and the version into --out. Independent runs execute in parallel (--jobs); each
// run's numbers do not depend on it (every run owns its engine; OpenMP reductions use fixed
// chunks). Ctrl-C stops cleanly and keeps what finished.
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli/command.h"
#ifdef COMMLAB_HAVE_CHARTS
#include "chart_files.h"  // Qt-free: the charts are drawn inside commlab_ui
#endif
#include "scenario/results_io.h"
#include "scenario/scenario.h"

namespace commlab::cli {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_sigint(int) {
  g_stop.store(true);
}

struct Options {
  std::string scenario;
  std::string out;
  std::vector<std::string> sets;
  int64_t seed = -1;
  int threads = 0;
  int jobs = 0;  // 0: as many as threads allow
  bool quiet = false;
  bool reproducible = false;
  bool charts = true;  // leave wall-clock times out so files are bit-identical
};

class Progress {
 public:
  Progress(int64_t total, bool quiet) : total_(total), quiet_(quiet), tty_(isatty(2)) {}
  // Thread-safe: one more iteration of `run` finished.
  void advance(const std::string& run) {
    std::lock_guard<std::mutex> lock(mutex_);
    update(run, ++done_);
  }
  void update(const std::string& run, int64_t done) {
    if (quiet_) return;
    const double frac = total_ ? static_cast<double>(done) / total_ : 1.0;
    const double elapsed = std::chrono::duration<double>(clock::now() - start_).count();
    const double eta = frac > 0 ? elapsed * (1 - frac) / frac : 0;
    if (tty_) {
      const int width = 30, filled = static_cast<int>(frac * width);
      std::fprintf(stderr, "\r[%-*s] %3.0f%%  %s  ETA %4.0fs ", width,
                   std::string(filled, '#').c_str(), 100 * frac, run.c_str(), eta);
    } else if (static_cast<int>(frac * 10) > last_decile_ || done == total_) {
      last_decile_ = static_cast<int>(frac * 10);
      std::fprintf(stderr, "progress: %3.0f%% (%lld/%lld iterations) run %s, ETA %.0f s\n",
                   100 * frac, static_cast<long long>(done), static_cast<long long>(total_),
                   run.c_str(), eta);
    }
  }
  void finish() {
    if (!quiet_ && tty_) std::fprintf(stderr, "\n");
  }

 private:
  using clock = std::chrono::steady_clock;
  int64_t total_;
  bool quiet_, tty_;
  int last_decile_ = -1;
  int64_t done_ = 0;
  std::mutex mutex_;
  clock::time_point start_ = clock::now();
};

// Samples kept per run for the charts (a chart line holds at most ~2000 points anyway).
constexpr size_t kChartSamples = 4096;

std::string series_part(const std::string& out, int run) {
  return out + "/.series." + std::to_string(run) + ".csv";
}

// series.csv = the header, then each run's streamed rows in scenario order (atomically renamed).
void join_series(const std::string& out, const std::vector<char>& started) {
  const std::string path = out + "/series.csv", tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << series_header();
    for (size_t i = 0; i < started.size(); ++i) {
      if (!started[i]) continue;
      std::ifstream part(series_part(out, static_cast<int>(i)), std::ios::binary);
      if (part.peek() != std::ifstream::traits_type::eof()) f << part.rdbuf();
    }
    if (!f.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
  for (size_t i = 0; i < started.size(); ++i)
    std::filesystem::remove(series_part(out, static_cast<int>(i)));
}

// DIR/charts/*.png and *.svg (CLI.md), drawn by the GUI's chart code; returns a note for the
// final line. A chart failure is reported but keeps the numbers already written.
std::string write_charts(const std::vector<RunResult>& results, const std::string& dir) {
#ifdef COMMLAB_HAVE_CHARTS
  std::vector<ChartRun> runs;
  for (const RunResult& r : results) runs.push_back({r.summary.name, r.samples, r.summary});
  std::string error;
  const std::vector<std::string> files = write_run_charts(runs, dir, &error);
  if (!error.empty()) std::fprintf(stderr, "warning: charts: %s\n", error.c_str());
  return ", " + std::to_string(files.size()) + " chart files in charts/";
#else
  (void)results;
  (void)dir;
  return ", no charts (this build has no Qt: configure with COMMLAB_BUILD_GUI=ON)";
#endif
}

int run(const Options& o) {
  Experiment exp;
  try {
    exp = load_scenario(o.scenario, o.sets);
  } catch (const ScenarioError& e) {
    for (const std::string& p : e.problems) std::cerr << p << "\n";
    return kExitInvalid;
  }
  if (o.seed >= 0)
    for (RunConfig& r : exp.runs) r.seed = static_cast<uint64_t>(o.seed);
  const int threads = o.threads > 0 ? o.threads : std::max(1, omp_get_max_threads());
  const int runs = static_cast<int>(exp.runs.size());
  const int jobs = std::clamp(o.jobs > 0 ? o.jobs : threads, 1, std::max(runs, 1));
  const int threads_per_job = std::max(1, threads / jobs);
  const std::string out = o.out.empty() ? "results/" + exp.name : o.out;
  std::filesystem::create_directories(out);

  int64_t total = 0;
  for (const RunConfig& r : exp.runs) total += r.training.iterations;
  Progress progress(total, o.quiet);
  g_stop.store(false);
  auto previous = std::signal(SIGINT, on_sigint);
  // Workers take runs in scenario order; results keep that order whatever finishes first.
  std::vector<RunResult> slots(runs);
  std::vector<char> started(runs, 0);
  std::vector<std::exception_ptr> errors(runs);
  std::atomic<int> next{0};
  auto worker = [&] {
    omp_set_num_threads(threads_per_job);
    for (int i = next++; i < runs && !g_stop.load(); i = next++) {
      const RunConfig& config = exp.runs[i];
      started[i] = 1;
      try {
        // Every sample goes to this run's part of series.csv as it comes; the session keeps a
        // bounded, thinned copy for the charts, so memory does not grow with the iterations.
        std::ofstream rows(series_part(out, i), std::ios::binary | std::ios::trunc);
        RunSession session(config);
        session.set_sample_budget(kChartSamples);
        session.run(
            [&](const Sample& s) {
              if (o.reproducible) {
                Sample copy = s;
                copy.wall_time_s = Sample::kNaN;
                rows << series_row(config.name, copy);
              } else {
                rows << series_row(config.name, s);
              }
              progress.advance(config.name);
            },
            &g_stop);
        if (!rows.flush()) throw std::runtime_error("cannot write " + series_part(out, i));
        slots[i] = {session.summary(), session.samples(), session.done()};
      } catch (...) {  // rethrown below, in scenario order, so the exit code keeps its kind
        errors[i] = std::current_exception();
        g_stop.store(true);
      }
    }
  };
  std::vector<std::thread> pool;
  for (int j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  std::signal(SIGINT, previous);
  progress.finish();
  std::vector<RunResult> results;
  for (int i = 0; i < runs; ++i) {
    if (errors[i]) {
      for (int k = 0; k < runs; ++k) std::filesystem::remove(series_part(out, k));
      std::rethrow_exception(errors[i]);
    }
    if (!started[i]) continue;
    results.push_back(std::move(slots[i]));
    if (o.reproducible) results.back().summary.wall_time_s = Sample::kNaN;  // varies by host
  }

  write_file(out + "/summary.json", summary_json(exp.name, results));
  join_series(out, started);
  write_file(out + "/scenario.json", exp.resolved.dump(2) + "\n");
  write_file(out + "/VERSION", std::string("commlab ") + kCommLabVersion + "\n");
  std::string charts_note = ", no charts (--no-charts)";
  if (o.charts) charts_note = write_charts(results, out + "/charts");
  if (!o.quiet) {
    for (const RunResult& r : results) {
      const RunSummary& s = r.summary;
      if (std::isnan(s.final_train_loss) && s.iterations > 0)  // a catalog run: time plane only
        std::fprintf(stderr,
                     "%-28s iteration %.4g s  sim %.4f s  ratio %.3f  (time plane only)%s\n",
                     s.name.c_str(), s.sim_time_s / s.iterations, s.sim_time_s, s.mean_ratio,
                     r.complete ? "" : "  (stopped)");
      else
        std::fprintf(stderr, "%-28s acc %.4f  loss %.4f  sim %.4f s  wire %.3g B  ratio %.3f%s\n",
                     s.name.c_str(), s.final_test_accuracy, s.final_train_loss, s.sim_time_s,
                     static_cast<double>(s.bytes_on_wire), s.mean_ratio,
                     r.complete ? "" : "  (stopped)");
    }
    std::fprintf(stderr, "results in %s (summary.json, series.csv, scenario.json%s)\n", out.c_str(),
                 charts_note.c_str());
  }
  if (g_stop.load()) return kExitFailed;
  return kExitOk;
}

const RegisterCommand reg{Command{
    "run", "run an experiment (all runs of a scenario) and write its results", [](CLI::App& app) {
      auto o = std::make_shared<Options>();
      app.add_option("scenario", o->scenario, "scenario file (JSON)")->required();
      app.add_option("--out", o->out, "output directory (default results/NAME)");
      app.add_option("--set", o->sets, "override a field: PATH=VALUE (repeatable)");
      app.add_option("--seed", o->seed, "seed for every run (overrides the scenario)");
      app.add_option("--threads", o->threads, "worker threads (results never depend on it)")
          ->check(CLI::Range(1, 256));
      app.add_option("--jobs", o->jobs,
                     "runs executed at once (default: --threads; results never depend on it)")
          ->check(CLI::Range(1, 256));
      app.add_flag("--quiet", o->quiet, "no progress output");
      app.add_flag("!--no-charts", o->charts, "skip DIR/charts/*.png and *.svg");
      app.add_flag("--reproducible", o->reproducible,
                   "write wall_time_s as null (empty in series.csv): bit-identical files for the "
                   "same scenario and seed, whatever --threads and --jobs");
      return [o] { return run(*o); };
    }}};

}  // namespace
}  // namespace commlab::cli
