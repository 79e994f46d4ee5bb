// commlab-cli run: runs every run of an experiment and writes summary.json, series.csv, the
// scenario as run and the version into --out. Ctrl-C stops cleanly and keeps what finished.
#include <omp.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
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
  bool quiet = false;
};

class Progress {
 public:
  Progress(int64_t total, bool quiet) : total_(total), quiet_(quiet), tty_(isatty(2)) {}
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
  clock::time_point start_ = clock::now();
};

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
  if (o.threads > 0) omp_set_num_threads(o.threads);
  const std::string out = o.out.empty() ? "results/" + exp.name : o.out;
  std::filesystem::create_directories(out);

  int64_t total = 0, done = 0;
  for (const RunConfig& r : exp.runs) total += r.training.iterations;
  Progress progress(total, o.quiet);
  g_stop.store(false);
  auto previous = std::signal(SIGINT, on_sigint);
  std::vector<RunResult> results;
  for (const RunConfig& config : exp.runs) {
    if (g_stop.load()) break;
    RunSession session(config);
    session.run([&](const Sample&) { progress.update(config.name, ++done); }, &g_stop);
    results.push_back({session.summary(), session.samples(), session.done()});
  }
  std::signal(SIGINT, previous);
  progress.finish();

  write_file(out + "/summary.json", summary_json(exp.name, results));
  write_file(out + "/series.csv", series_csv(results));
  write_file(out + "/scenario.json", exp.resolved.dump(2) + "\n");
  write_file(out + "/VERSION", std::string("commlab ") + kCommLabVersion + "\n");
  if (!o.quiet) {
    for (const RunResult& r : results)
      std::fprintf(stderr, "%-28s acc %.4f  loss %.4f  sim %.4f s  wire %.3g B  ratio %.3f%s\n",
                   r.summary.name.c_str(), r.summary.final_test_accuracy,
                   r.summary.final_train_loss, r.summary.sim_time_s,
                   static_cast<double>(r.summary.bytes_on_wire), r.summary.mean_ratio,
                   r.complete ? "" : "  (stopped)");
    std::fprintf(stderr, "results in %s (summary.json, series.csv, scenario.json)\n", out.c_str());
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
      app.add_flag("--quiet", o->quiet, "no progress output");
      return [o] { return run(*o); };
    }}};

}  // namespace
}  // namespace commlab::cli
