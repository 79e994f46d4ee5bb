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

using nlohmann::json;

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

// "1.24x [1.12, 1.37], faster" from a speedup_vs_baseline object (or a PairedSpeedup as JSON).
std::string speedup_text(const json& sp) {
  if (!sp.is_object()) return "target not reached in any pair";
  const std::string estimate = speedup_estimate_text(sp);
  if (estimate.empty()) return "target not reached in any pair";
  return estimate + ends_text(sp["ci95"], "%.2f") + ", " + sp["verdict"].get<std::string>();
}

// "-0.12 pts [-0.40, +0.16]" from an accuracy_delta_vs_baseline object (fractions).
std::string delta_text(const json& d) {
  if (!d.is_object() || d["estimate"].is_null()) return "n/a";
  return format_number("%+.2f", 100 * d["estimate"].get<double>()) + " pts" +
         ends_text(d["ci95"], "%+.2f", 100);
}

// "10/10 reached, median 25.1 ms [23.0, 27.0]" from a time_to_accuracy object.
std::string tta_text(const json& t) {
  std::string s = std::to_string(t["reached"].get<int>()) + "/" +
                  std::to_string(t["seeds"].get<int>()) + " reached";
  if (t["estimate_s"].is_null()) return s + ", median not reached";
  return s + ", median " + format_number("%.2f", 1e3 * t["estimate_s"].get<double>()) + " ms" +
         ends_text(t["ci95_s"], "%.2f", 1e3);
}

const json& run_named(const json& summary, const std::string& name) {
  for (const json& run : summary["runs"])
    if (run["name"] == name) return run;
  throw std::runtime_error("summary.json: no run named " + name);
}

// Measured gain per iteration: the baseline's mean simulated time over the arm's, for the same
// number of iterations (not the formula).
double per_iteration_gain(const json& base, const json& arm) {
  return number_or_nan(base["seeds"]["sim_time_s"]["mean"]) /
         number_or_nan(arm["seeds"]["sim_time_s"]["mean"]);
}

// How the crossing was smoothed (summary.json time_to_accuracy.smoothing), for a row's note.
std::string smoothing_text(const json& smoothing) {
  const std::string window =
      smoothing.contains("iterations")
          ? std::to_string(smoothing["iterations"].get<int>()) + " iterations"
          : std::to_string(smoothing.value("evaluations", kTtaSmoothingWindow)) +
                " evaluations, every training.eval_every iterations";
  return "smoothed crossing (trailing " + window + ", at the evaluation that reaches it); ";
}

void baseline_row(Report& r, const json& base, const std::string& command,
                  const std::string& prefix = "") {
  const json& t = base["time_to_accuracy"];
  const std::string target = format_number("%g", 100 * t["target"].get<double>()) + "%";
  r.row(prefix + "time to " + target + ", ring all-reduce (baseline)", "", "",
        tta_text(t) + "; final accuracy " + interval_text(base["seeds"]["final_test_accuracy"], 3),
        command,
        smoothing_text(t.value("smoothing", json::object())) +
            "the median counts unreached seeds at +inf; order-statistic 95% interval");
  r.value(number_or_nan(t["estimate_s"]) * 1e3,
          t["ci95_s"].is_array() ? number_or_nan(t["ci95_s"][0]) * 1e3 : kNaN,
          t["ci95_s"].is_array() ? number_or_nan(t["ci95_s"][1]) * 1e3 : kNaN);
}

// summary.json's equivalent_runs: whether `name` equals an earlier run (its row is merged into
// that run's), and the note a run's row takes for the later runs equal to it ("" when none):
// " = random-s4-unbiased (arm random-s4-unbiased equals arm random-s4 on seed 7 (identical
// series))".
bool merged_into_earlier(const json& summary, const std::string& name) {
  for (const json& e : summary.value("equivalent_runs", json::array()))
    if (e["run"] == name) return true;
  return false;
}
std::string equal_runs_note(const json& summary, const std::string& name) {
  std::string note;
  for (const json& e : summary.value("equivalent_runs", json::array()))
    if (e["equals"] == name)
      note += " = " + e["run"].get<std::string>() + " (" + equivalence_text(e) + ")";
  return note;
}

// " Holm p = 0.012 over 7 arms" from a speedup_vs_baseline object; "" without a p-value.
std::string holm_text(const json& sp) {
  if (!sp.is_object() || !sp.value("p_holm", json()).is_number()) return "";
  const int family = sp["holm_family"].get<int>();
  return "; Holm-adjusted p = " + format_number("%.3g", sp["p_holm"].get<double>()) + " over " +
         std::to_string(family) + (family == 1 ? " arm" : " arms");
}

void arm_row(Report& r, const json& base, const json& run, const std::string& command, int ranks,
             const std::string& prefix, const std::string& same_note = "") {
  const Arm a = parse_arm(run["name"].get<std::string>());
  const json& sp = run["speedup_vs_baseline"];
  const double ideal = 2.0 * (ranks - 1) / (2.0 * (ranks - 1) - a.skip);
  const double base_it = number_or_nan(base["time_to_accuracy"]["estimate_iterations"]);
  const double arm_it = number_or_nan(run["time_to_accuracy"]["estimate_iterations"]);
  std::string note =
      "per-iteration gain measured " + format_number("%.2f", per_iteration_gain(base, run)) +
      "x; iterations to target x" +
      (std::isfinite(base_it) && std::isfinite(arm_it) ? format_number("%.2f", arm_it / base_it)
                                                       : std::string("?")) +
      "; time to target " + tta_text(run["time_to_accuracy"]) + "; final accuracy vs baseline " +
      delta_text(run["accuracy_delta_vs_baseline"]);
  r.row(prefix + a.policy + " s=" + std::to_string(a.skip) + ", " + a.semantics + same_note,
        "up to 1.58x (abstract, 8 GPUs, VGG-19/BERT/Llama)",
        "communication only: 2(N-1)/(2(N-1)-s) = " + format_number("%.2f", ideal) + "x",
        speedup_text(sp) + " (paired, " + pairs_text(sp) + holm_text(sp) + ")", command, note);
  if (sp.is_object() && sp["ci95"].is_array())
    r.value(number_or_nan(sp["estimate"]), number_or_nan(sp["ci95"][0]),
            number_or_nan(sp["ci95"][1]));
}

// The baseline's row, then one arm_row per other run of `summary`.
void arm_rows(Report& r, const json& summary, const std::string& command, int ranks,
              const std::string& prefix) {
  const json& base = baseline_run(summary);
  baseline_row(r, base, command);
  for (const json& run : summary["runs"]) {
    const std::string name = run["name"].get<std::string>();
    if (&run != &base && !merged_into_earlier(summary, name))
      arm_row(r, base, run, command, ranks, prefix, equal_runs_note(summary, name));
  }
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

void skipreduce_tta_rows(Report& r, const json& summary, const std::string& command, int ranks) {
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

void skipreduce_noniid_rows(Report& r, const json& summary, const std::string& command, int ranks) {
  arm_rows(r, summary, command, ranks, "non-iid shards, speedup, ");
  auto reached = [](const json& run) {
    const json& t = run["time_to_accuracy"];
    return std::to_string(t["reached"].get<int>()) + "/" + std::to_string(t["seeds"].get<int>());
  };
  const json& naive = run_named(summary, "naive-s4-lrcomp");
  const json& random = run_named(summary, "random-s4-lrcomp");
  // Random against naive directly, seed k with seed k: speedup = TTA_naive / TTA_random.
  const PairedSpeedup sp = paired_log_speedup(per_seed(naive["time_to_accuracy"]["per_seed_s"]),
                                              per_seed(random["time_to_accuracy"]["per_seed_s"]));
  const PairedDelta d = paired_delta(per_seed(naive["seeds"]["final_test_accuracy"]["values"]),
                                     per_seed(random["seeds"]["final_test_accuracy"]["values"]));
  const json delta = paired_delta_json(d);
  r.row("non-iid shards: random over naive skipping, s=4, both lr x N/(N-s)",
        "naive biased, random unbiased in expectation (the paper's motivation for random)", "",
        (std::isfinite(sp.estimate) ? speedup_text(paired_speedup_json(sp)) + " (paired, " +
                                          pairs_text(paired_speedup_json(sp)) +
                                          "; exploratory: no multiplicity correction)"
                                    : "naive reached the target on " + reached(naive) +
                                          " seeds, random on " + reached(random)),
        command,
        "final accuracy random - naive " + delta_text(delta) + " (" + std::to_string(d.pairs) +
            " pairs); naive missed the target on " + std::to_string(sp.baseline_missed) +
            " seeds random reached, random on " + std::to_string(sp.arm_missed));
  if (sp.has_interval()) r.value(sp.estimate, sp.lo, sp.hi);
}

void skipreduce_proxy_rows(Report& r, const json& summary, const std::string& command, int ranks) {
  const json& base = baseline_run(summary);
  const std::string prefix =
      "timed as " + base.value("timed_as", std::string("its own model")) + ": ";
  baseline_row(r, base, command, prefix);
  for (const json& run : summary["runs"]) {
    const std::string name = run["name"].get<std::string>();
    if (&run == &base || merged_into_earlier(summary, name)) continue;
    const bool skipping = name.rfind("random", 0) == 0 || name.rfind("naive", 0) == 0 ||
                          name.rfind("selective", 0) == 0;
    if (skipping) {
      arm_row(r, base, run, command, ranks, prefix + "speedup, ", equal_runs_note(summary, name));
      continue;
    }
    // A compression baseline at equal bytes: its measured gain and time to target.
    const json& sp = run["speedup_vs_baseline"];
    r.row(prefix + "speedup, " + name + equal_runs_note(summary, name),
          "SkipReduce up to 1.58x over PowerSGD and top-k", "",
          speedup_text(sp) + " (paired, " + pairs_text(sp) + holm_text(sp) + ")", command,
          "wire bytes x" + format_number("%.3f", number_or_nan(run["mean_ratio"])) +
              " of the ring's; per-iteration gain measured " +
              format_number("%.2f", per_iteration_gain(base, run)) + "x; time to target " +
              tta_text(run["time_to_accuracy"]) + "; final accuracy vs baseline " +
              delta_text(run["accuracy_delta_vs_baseline"]));
    if (sp.is_object() && sp["ci95"].is_array())
      r.value(number_or_nan(sp["estimate"]), number_or_nan(sp["ci95"][0]),
              number_or_nan(sp["ci95"][1]));
  }
  r.text(
      "Proxy timing (workload.time_as, docs/scenario.md): the small model trains, each iteration "
      "is timed as the named model on the same cluster (its FLOPs, its gradients in 25 MiB DDP "
      "buckets reduced by the run's own plan at the data plane's measured wire ratio, overlapped "
      "with backward). Communication is then most of an iteration (VGG-19 on 8 A100s at 100 Gb/s: "
      "0.61 of 5.89 ms is compute), so the per-iteration gain of skipping approaches the ring's "
      "2(N-1)/(2(N-1)-s).");
}

void skipreduce_tuned_rows(Report& r, const json& summary, const std::string& command, int ranks) {
  arm_rows(r, summary, command, ranks, "tuned lr, speedup, ");
  if (!summary.contains("lr_tuning")) return;
  for (const json& t : summary["lr_tuning"]["runs"]) {
    r.row("learning rate chosen, " + t["run"].get<std::string>(), "", "",
          format_number("%g", t["chosen_lr"].get<double>()) +
              (t.value("chose_untuned", false) ? " (the untuned value)" : ""),
          command,
          "median time to " + format_number("%g", 100 * t["target"].get<double>()) +
              "% over tuning seeds " + std::to_string(t["seeds"][0].get<long long>()) + "-" +
              std::to_string(t["seeds"][1].get<long long>()) + " (not the reported ones) on the " +
              t.value("evaluated_on", std::string("test set")) + ": " + lr_grid_text(t));
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

void skipreduce_target_profile_rows(Report& r, const json& summary, const std::string& series_csv,
                                    const std::vector<std::string>& arms,
                                    const std::vector<double>& targets,
                                    const std::string& command) {
  // The runs' training.tta_window (0: the 5-evaluation window; also for a summary without the key).
  const int window =
      summary.value(json::json_pointer("/runs/0/time_to_accuracy/smoothing/iterations"), 0);
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
      const json j = paired_speedup_json(sp);
      cells += std::string(cells.empty() ? "" : "; ") + format_number("%g", 100 * target) +
               "%: " + speedup_text(j) + " (" + pairs_text(j) + ")";
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
