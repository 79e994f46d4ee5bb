#include "cli/util/skipreduce_report_util.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "cli/util/seed_report_util.h"
#include "scenario/run/equivalent_runs.h"
#include "scenario/run/seed_stats.h"
#include "scenario/run/tta_stats.h"

namespace commlab::cli {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// An arm's name: POLICY-sS, then -lrcomp or -unbiased (the paper's semantics without a suffix).
struct Arm {
  std::string policy, semantics;
  int skip = 0;
};

Arm parse_arm(const std::string& name) {
  Arm a;
  const size_t dash = name.find("-s");
  if (dash == std::string::npos)
    throw std::runtime_error("skipreduce rows: unexpected run " + name);
  a.policy = name.substr(0, dash);
  size_t end = dash + 2;
  while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
  if (end == dash + 2)
    throw std::runtime_error("skipreduce rows: run " + name + " has no skip count after -s");
  a.skip = std::stoi(name.substr(dash + 2, end - dash - 2));
  const std::string rest = end < name.size() ? name.substr(end + 1) : "";
  a.semantics = rest == "lrcomp"     ? "lr x N/(N-s)"
                : rest == "unbiased" ? "unbiased"
                : rest.empty()       ? "paper's (no rescaling)"
                                     : rest;
  return a;
}

// A run's comparison with the baseline (every run but the baseline has one).
const BaselineComparison& comparison_of(const RunStats& run) {
  if (!run.tta.vs_baseline)
    throw std::runtime_error("skipreduce rows: run " + run.name() + " has no comparison");
  return *run.tta.vs_baseline;
}

const RunStats& run_named(const ExperimentSummary& summary, const std::string& name) {
  for (const RunStats& run : summary.runs)
    if (run.name() == name) return run;
  throw std::runtime_error("summary: no run named " + name);
}

// Measured gain per iteration: the baseline's mean simulated time over the arm's, for the same
// number of iterations (not the formula).
double per_iteration_gain(const RunStats& base, const RunStats& arm) {
  return finite_or_nan(base.seeds.sim_time_s.interval.mean) /
         finite_or_nan(arm.seeds.sim_time_s.interval.mean);
}

// How the crossing was smoothed (training.tta_window), for a row's note.
std::string smoothing_text(const TimeToAccuracy& t) {
  const std::string window = t.window_iterations > 0
                                 ? std::to_string(t.window_iterations) + " iterations"
                                 : std::to_string(kTtaSmoothingWindow) +
                                       " evaluations, every training.eval_every iterations";
  return "smoothed crossing (trailing " + window + ", at the evaluation that reaches it); ";
}

void baseline_row(Report& r, const RunStats& base, const std::string& command,
                  const std::string& prefix = "") {
  const TimeToAccuracy& t = time_to_accuracy_of(base);
  const std::string target = format_number("%g", 100 * t.target) + "%";
  r.row(
      prefix + "time to " + target + ", ring all-reduce (baseline)", "", "",
      tta_text(t) + "; final accuracy " + interval_text(base.seeds.final_test_accuracy.interval, 3),
      command,
      smoothing_text(t) +
          "the median counts unreached seeds at +inf; order-statistic 95% interval");
  const CensoredTta& s = t.seconds;
  r.value(s.estimate * 1e3, s.has_interval() ? s.lo * 1e3 : kNaN,
          s.has_interval() ? s.hi * 1e3 : kNaN);
}

// The summary's equivalent runs: whether run `k` equals an earlier run (its row is merged into
// that run's), and the note a run's row takes for the later runs equal to it ("" when none):
// " = random-s4-unbiased (arm random-s4-unbiased equals arm random-s4 on seed 7 (identical
// series))".
bool merged_into_earlier(const ExperimentSummary& summary, size_t k) {
  for (const EquivalentRun& e : summary.equivalent_runs)
    if (e.run == k) return true;
  return false;
}
std::string equal_runs_note(const ExperimentSummary& summary, size_t k) {
  std::string note;
  for (const EquivalentRun& e : summary.equivalent_runs)
    if (e.same_as == k)
      note += " = " + summary.runs[e.run].name() + " (" + equivalence_text(summary, e) + ")";
  return note;
}

// "1.24x [1.12, 1.37], faster (paired, 8/8 pairs; Holm-adjusted p = ...)", the row's value.
std::string comparison_cell(const BaselineComparison& c) {
  const std::string holm = c.holm ? holm_text(c.holm->p_holm, c.holm->family) : "";
  return speedup_text(c.speedup) + " (paired, " + pairs_text(c.speedup) + holm + ")";
}
void speedup_value(Report& r, const PairedSpeedup& sp) {
  if (sp.has_interval()) r.value(sp.estimate, sp.lo, sp.hi);
}

void arm_row(Report& r, const RunStats& base, const RunStats& run, const std::string& command,
             int ranks, const std::string& prefix, const std::string& same_note = "") {
  const Arm a = parse_arm(run.name());
  const BaselineComparison& c = comparison_of(run);
  const double ideal = 2.0 * (ranks - 1) / (2.0 * (ranks - 1) - a.skip);
  const double base_it = finite_or_nan(time_to_accuracy_of(base).iterations.estimate);
  const double arm_it = finite_or_nan(time_to_accuracy_of(run).iterations.estimate);
  std::string note =
      "per-iteration gain measured " + format_number("%.2f", per_iteration_gain(base, run)) +
      "x; iterations to target x" +
      (std::isfinite(base_it) && std::isfinite(arm_it) ? format_number("%.2f", arm_it / base_it)
                                                       : std::string("?")) +
      "; time to target " + tta_text(time_to_accuracy_of(run)) + "; final accuracy vs baseline " +
      delta_text(c.accuracy_delta);
  r.row(prefix + a.policy + " s=" + std::to_string(a.skip) + ", " + a.semantics + same_note,
        "up to 1.58x (abstract, 8 GPUs, VGG-19/BERT/Llama)",
        "communication only: 2(N-1)/(2(N-1)-s) = " + format_number("%.2f", ideal) + "x",
        comparison_cell(c), command, note);
  speedup_value(r, c.speedup);
}

// The baseline's row, then one arm_row per other run of `summary`.
void arm_rows(Report& r, const ExperimentSummary& summary, const std::string& command, int ranks,
              const std::string& prefix) {
  const RunStats& base = summary.runs.at(summary.baseline);
  baseline_row(r, base, command);
  for (size_t k = 0; k < summary.runs.size(); ++k)
    if (k != summary.baseline && !merged_into_earlier(summary, k))
      arm_row(r, base, summary.runs[k], command, ranks, prefix, equal_runs_note(summary, k));
}

// Every replica's evaluations from series.csv, grouped by run (the name before "@seed=") in the
// order the replicas appear (the first seed first, as the runner writes them).
std::map<std::string, std::vector<std::vector<EvalPoint>>> evaluations(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::string line;
  std::getline(f, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');) header.push_back(c);
  auto column = [&](const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    throw std::runtime_error(path + ": no column " + name);
  };
  const size_t run_col = column("run"), it_col = column("iteration"),
               time_col = column("sim_time_s"), acc_col = column("test_accuracy");
  std::map<std::string, std::vector<std::vector<EvalPoint>>> out;
  std::map<std::string, std::string> last_replica;
  while (std::getline(f, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
    if (cells.size() <= acc_col || cells[acc_col].empty() || cells[acc_col] == "nan") continue;
    std::string replica = cells[run_col];  // quoted by series_row
    if (replica.size() >= 2 && replica.front() == '"' && replica.back() == '"')
      replica = replica.substr(1, replica.size() - 2);
    const std::string run = replica.substr(0, replica.find("@seed="));
    auto& seeds = out[run];
    if (last_replica[run] != replica || seeds.empty()) seeds.emplace_back();
    last_replica[run] = replica;
    seeds.back().push_back(
        {std::stoi(cells[it_col]), std::stod(cells[time_col]), std::stod(cells[acc_col])});
  }
  return out;
}

std::vector<double> crossings(const std::vector<std::vector<EvalPoint>>& seeds, double target,
                              int tta_window) {
  std::vector<double> t;
  for (const std::vector<EvalPoint>& evals : seeds) {
    const SmoothedCrossing c = tta_crossing(evals, target, tta_window);
    t.push_back(c.reached ? c.time_s : kNaN);
  }
  return t;
}
}  // namespace

void skipreduce_tta_rows(Report& r, const ExperimentSummary& summary, const std::string& command,
                         int ranks) {
  arm_rows(r, summary, command, ranks, "time-to-accuracy speedup, ");
  r.text(
      "Three semantics of a skipped step. The paper's: a chunk that lost s of its N contributions "
      "sums N - s and is still divided by N, so the averaged gradient shrinks to (N - s)/N of its "
      "expected value, a learning-rate cut (random s = 4 at lr 0.1 updates exactly as unbiased "
      "skipping at lr 0.05). Each iteration is cheaper but more of them are needed, and the two "
      "largely cancel. lr x N/(N-s) (techniques.skipreduce.lr_compensation) undoes the cut on the "
      "optimizer side; unbiased rescales each chunk by N / contributors. Speedups are geometric "
      "means of per-seed ratios TTA_baseline / TTA_arm with a paired Student-t interval on the log "
      "ratios when every run of every pair reached the target; when one missed, every pair still "
      "counts, the miss ranked worst, and the speedup is the Hodges-Lehmann estimate of the log "
      "ratios with a Wilcoxon signed-rank interval. 'faster' or 'slower' when the interval "
      "excludes 1; Holm's adjustment across the arms is on each row. Arms whose first seed "
      "computed the identical series are one row. The per-iteration gain is measured from the "
      "simulated time of the same iterations, not the formula.");
}

void skipreduce_noniid_rows(Report& r, const ExperimentSummary& summary, const std::string& command,
                            int ranks) {
  arm_rows(r, summary, command, ranks, "non-iid shards, speedup, ");
  auto reached = [](const RunStats& run) {
    const CensoredTta& t = time_to_accuracy_of(run).seconds;
    return std::to_string(t.reached) + "/" + std::to_string(t.seeds);
  };
  const RunStats& naive = run_named(summary, "naive-s4-lrcomp");
  const RunStats& random = run_named(summary, "random-s4-lrcomp");
  // Random against naive directly, seed k with seed k: speedup = TTA_naive / TTA_random.
  const PairedSpeedup sp = paired_log_speedup(time_to_accuracy_of(naive).per_seed_s,
                                              time_to_accuracy_of(random).per_seed_s);
  const PairedDelta d =
      paired_delta(naive.seeds.final_test_accuracy.values, random.seeds.final_test_accuracy.values);
  r.row("non-iid shards: random over naive skipping, s=4, both lr x N/(N-s)",
        "naive biased, random unbiased in expectation (the paper's motivation for random)", "",
        (std::isfinite(sp.estimate) ? speedup_text(sp) + " (paired, " + pairs_text(sp) +
                                          "; exploratory: no multiplicity correction)"
                                    : "naive reached the target on " + reached(naive) +
                                          " seeds, random on " + reached(random)),
        command,
        "final accuracy random - naive " + delta_text(d) + " (" + std::to_string(d.pairs) +
            " pairs); naive missed the target on " + std::to_string(sp.baseline_missed) +
            " seeds random reached, random on " + std::to_string(sp.arm_missed));
  if (sp.has_interval()) r.value(sp.estimate, sp.lo, sp.hi);
}

void skipreduce_proxy_rows(Report& r, const ExperimentSummary& summary, const std::string& command,
                           int ranks) {
  const RunStats& base = summary.runs.at(summary.baseline);
  const std::string& timed_as = base.summary.timed_as;
  const std::string prefix = "timed as " + (timed_as.empty() ? "its own model" : timed_as) + ": ";
  baseline_row(r, base, command, prefix);
  for (size_t k = 0; k < summary.runs.size(); ++k) {
    const RunStats& run = summary.runs[k];
    const std::string& name = run.name();
    if (k == summary.baseline || merged_into_earlier(summary, k)) continue;
    const bool skipping = name.rfind("random", 0) == 0 || name.rfind("naive", 0) == 0 ||
                          name.rfind("selective", 0) == 0;
    if (skipping) {
      arm_row(r, base, run, command, ranks, prefix + "speedup, ", equal_runs_note(summary, k));
      continue;
    }
    // A compression baseline at equal bytes: its measured gain and time to target.
    const BaselineComparison& c = comparison_of(run);
    r.row(prefix + "speedup, " + name + equal_runs_note(summary, k),
          "SkipReduce up to 1.58x over PowerSGD and top-k", "", comparison_cell(c), command,
          "wire bytes x" + format_number("%.3f", finite_or_nan(run.summary.mean_ratio)) +
              " of the ring's; per-iteration gain measured " +
              format_number("%.2f", per_iteration_gain(base, run)) + "x; time to target " +
              tta_text(time_to_accuracy_of(run)) + "; final accuracy vs baseline " +
              delta_text(c.accuracy_delta));
    speedup_value(r, c.speedup);
  }
  r.text(
      "Proxy timing (workload.time_as, docs/scenario.md): the small model trains, each iteration "
      "is timed as the named model on the same cluster (its FLOPs, its gradients in 25 MiB DDP "
      "buckets reduced by the run's own plan at the data plane's measured wire ratio, overlapped "
      "with backward). Communication is then most of an iteration (VGG-19 on 8 A100s at 100 Gb/s: "
      "0.61 of 5.89 ms is compute), so the per-iteration gain of skipping approaches the ring's "
      "2(N-1)/(2(N-1)-s).");
}

void skipreduce_tuned_rows(Report& r, const ExperimentSummary& summary, const std::string& command,
                           int ranks) {
  arm_rows(r, summary, command, ranks, "tuned lr, speedup, ");
  if (!summary.lr_tuning) return;
  for (const RunTuning& t : *summary.lr_tuning) {
    const uint64_t last_seed = t.first_seed + static_cast<uint64_t>(t.seeds) - 1;
    r.row("learning rate chosen, " + t.run, "", "",
          format_number("%g", t.chosen_lr) +
              (t.chosen_lr == t.untuned_lr ? " (the untuned value)" : ""),
          command,
          "median time to " + format_number("%g", 100 * t.target) + "% over tuning seeds " +
              std::to_string(t.first_seed) + "-" + std::to_string(last_seed) +
              " (not the reported ones) on the " + tuning_evaluated_on(t) + ": " + lr_grid_text(t));
  }
  r.text(
      "Each arm at its own learning rate (training.lr_grid): every grid value trains on 3 tuning "
      "seeds disjoint from the reported ones and the fastest median to the target is kept. The "
      "paper's semantics (no rescaling) pick a learning rate about N/(N-s) = 2x the baseline's, "
      "where they update exactly as unbiased skipping at the baseline's rate; compared this way "
      "the time-to-accuracy gain of skipping is no longer cancelled by the learning-rate cut.");
}

}  // namespace commlab::cli

namespace commlab::cli {

void skipreduce_target_profile_rows(Report& r, const ExperimentSummary& summary,
                                    const std::string& series_csv,
                                    const std::vector<std::string>& arms,
                                    const std::vector<double>& targets,
                                    const std::string& command) {
  // The runs' training.tta_window (0: the 5-evaluation window).
  const int window = !summary.runs.empty() && summary.runs[0].tta.time_to_accuracy
                         ? summary.runs[0].tta.time_to_accuracy->window_iterations
                         : 0;
  const auto evals = evaluations(series_csv);
  const auto base = evals.find("baseline");
  if (base == evals.end()) throw std::runtime_error(series_csv + ": no baseline run");
  for (const std::string& arm : arms) {
    const auto it = evals.find(arm);
    if (it == evals.end()) throw std::runtime_error(series_csv + ": no run " + arm);
    std::string cells;
    for (double target : targets) {
      const PairedSpeedup sp = paired_log_speedup(crossings(base->second, target, window),
                                                  crossings(it->second, target, window));
      cells += std::string(cells.empty() ? "" : "; ") + format_number("%g", 100 * target) +
               "%: " + speedup_text(sp) + " (" + pairs_text(sp) + ")";
    }
    const Arm a = parse_arm(arm);
    r.row("speedup by target accuracy, " + a.policy + " s=" + std::to_string(a.skip) + ", " +
              a.semantics,
          "", "", cells, command,
          "exploratory (no multiplicity correction across targets): the same runs, each seed's "
          "smoothed crossing recomputed at each target (series.csv); near the plateau "
          "evaluations swing and the noisier arm pays more");
  }
}

}  // namespace commlab::cli
