#include "cli/util/skipreduce_sweep_util.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <stdexcept>
#include <vector>

#include "cli/util/interval_chart_util.h"
#include "cli/util/seed_report_util.h"
#include "scenario/run/rank_stats.h"
#include "scenario/run/results_io.h"
#include "scenario/run/seed_stats.h"
#include "scenario/run/tta_stats.h"

namespace commlab::cli {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const char* const kPolicies[] = {"naive", "random"};

// One skew: its runs by policy, and where it sits on the chart's x axis (log10 alpha; iid two
// decades right of the largest alpha's neighbour, so the axis reads as a break).
struct Skew {
  std::string label;  // "0.1", ..., "iid"
  double x = 0;
  std::map<std::string, const RunStats*> runs;  // baseline, naive, random
};

std::vector<Skew> skews_of(const ExperimentSummary& summary) {
  std::map<double, Skew> by_x;
  for (const RunStats& run : summary.runs) {
    const std::string& name = run.name();
    const size_t dash = name.find('-');
    if (dash == std::string::npos)
      throw std::runtime_error("skipreduce sweep: unexpected run " + name);
    const std::string skew = name.substr(dash + 1);
    Skew s;
    if (skew == "iid") {
      s.label = "iid";
      s.x = 2;
    } else if (skew.size() > 1 && skew[0] == 'a') {
      s.label = skew.substr(1);
      s.x = std::log10(std::stod(s.label));
    } else {
      throw std::runtime_error("skipreduce sweep: run " + name + " names no skew (-aALPHA, -iid)");
    }
    Skew& at = by_x.emplace(s.x, s).first->second;
    at.runs[name.substr(0, dash)] = &run;
  }
  std::vector<Skew> out;
  for (auto& [x, s] : by_x) {
    for (const char* p : {"baseline", "naive", "random"})
      if (!s.runs.count(p))
        throw std::runtime_error("skipreduce sweep: skew " + s.label + " has no " + p + " run");
    out.push_back(s);
  }
  return out;
}

// A run's worst class over its seeds; none when the run has no per-class accuracy.
const ClassAccuracySeeds* class_seeds(const RunStats& run) {
  return run.class_accuracy ? &run.class_accuracy->seeds : nullptr;
}
std::vector<double> worst_values(const RunStats& run) {
  const ClassAccuracySeeds* c = class_seeds(run);
  return c ? c->worst_values : std::vector<double>{};
}

// The paired comparisons of one arm with its skew's baseline.
struct ArmStats {
  PairedSpeedup speedup;
  PairedDelta accuracy, worst;
  double p_holm = NAN;
};

ArmStats compare(const RunStats& base, const RunStats& arm) {
  ArmStats a;
  a.speedup =
      paired_log_speedup(time_to_accuracy_of(base).per_seed_s, time_to_accuracy_of(arm).per_seed_s);
  a.accuracy =
      paired_delta(base.seeds.final_test_accuracy.values, arm.seeds.final_test_accuracy.values);
  a.worst = paired_delta(worst_values(base), worst_values(arm));
  return a;
}

std::string points_text(const PairedDelta& d) {
  if (d.pairs == 0) return "n/a";
  return format_number("%+.2f", 100 * d.estimate) + " pts" +
         (d.has_interval() ? " [" + format_number("%+.2f", 100 * d.lo) + ", " +
                                 format_number("%+.2f", 100 * d.hi) + "]"
                           : std::string());
}

// The mean of the seeds' worst-class accuracies (NaN without one).
double worst_mean(const ClassAccuracySeeds& c) {
  return finite_or_nan(c.worst.n > 0 ? c.worst.mean : NAN);
}

// "0.612 [0.55, 0.67], class 6 worst on 7/10 seeds" from a run's per-class accuracy.
std::string worst_text(const RunStats& run) {
  const ClassAccuracySeeds* s = class_seeds(run);
  if (!s) return "n/a (no per-class accuracy)";
  std::map<int, int> count;
  for (int k : s->worst_classes)
    if (k >= 0) ++count[k];
  int label = -1, most = 0;
  for (auto [k, n] : count)
    if (n > most) label = k, most = n;
  return format_number("%.3f", worst_mean(*s)) +
         ends_text(s->worst.has_interval(), s->worst.lo(), s->worst.hi(), "%.3f") +
         (label >= 0 ? ", class " + std::to_string(label) + " worst on " + std::to_string(most) +
                           "/" + std::to_string(s->n) + " seeds"
                     : std::string());
}

std::string speedup_cell(const ArmStats& a, int family) {
  const PairedSpeedup& sp = a.speedup;
  if (speedup_estimate_text(sp).empty())
    return "target not reached in any pair (" + pairs_text(sp) + ")";
  return speedup_text(sp) + " (paired, " + pairs_text(sp) + holm_text(a.p_holm, family) + ")";
}

// A mean over seeds and its 95% interval as a chart point.
IntervalPoint mean_point(double x, double mean, const Interval& iv, bool joined) {
  IntervalPoint p;
  p.x = x;
  p.y = mean;
  if (iv.has_interval()) p.lo = iv.lo(), p.hi = iv.hi();
  p.joined = joined;
  return p;
}

// The speedup's point: an end a censored pair leaves unbounded (0 or +inf) is infinite.
IntervalPoint speedup_point(double x, const PairedSpeedup& sp, bool joined) {
  IntervalPoint p;
  p.x = x;
  p.y = std::isfinite(sp.estimate) ? sp.estimate : NAN;
  if (sp.has_interval()) {
    p.lo = std::isfinite(sp.lo) && sp.lo > 0 ? sp.lo : -kInf;
    p.hi = std::isfinite(sp.hi) ? sp.hi : kInf;
  }
  p.joined = joined;
  return p;
}

const std::map<std::string, std::string> kColors = {
    {"baseline", "#555555"}, {"naive", "#d62728"}, {"random", "#1f77b4"}};

std::string sweep_chart(const std::vector<Skew>& skews,
                        const std::map<std::string, std::vector<ArmStats>>& stats,
                        const std::string& target) {
  IntervalPanel speed{"Speedup over its skew's baseline (to " + target + ")", "speedup", {}, 1.0};
  IntervalPanel final_acc{"Final test accuracy", "accuracy", {}, NAN};
  IntervalPanel worst{"Worst class's test accuracy", "accuracy", {}, NAN};
  std::vector<XTick> ticks;
  for (const Skew& s : skews) ticks.push_back({s.x, s.label});
  for (const char* policy : {"baseline", "naive", "random"}) {
    const std::string name =
        std::string(policy) + (std::string(policy) == "baseline" ? "" : " s=4");
    IntervalSeries f{name, kColors.at(policy), {}}, w{name, kColors.at(policy), {}};
    IntervalSeries sp{name, kColors.at(policy), {}};
    for (size_t i = 0; i < skews.size(); ++i) {
      const RunStats& run = *skews[i].runs.at(policy);
      const bool joined = skews[i].label != "iid";  // the axis breaks before iid
      const Interval& acc = run.seeds.final_test_accuracy.interval;
      f.points.push_back(mean_point(skews[i].x, finite_or_nan(acc.mean), acc, joined));
      if (const ClassAccuracySeeds* cs = class_seeds(run))
        w.points.push_back(mean_point(skews[i].x, worst_mean(*cs), cs->worst, joined));
      else
        w.points.push_back(mean_point(skews[i].x, NAN, Interval{}, joined));
      if (stats.count(policy))
        sp.points.push_back(speedup_point(skews[i].x, stats.at(policy)[i].speedup, joined));
    }
    speed.series.push_back(sp);
    final_acc.series.push_back(f);
    worst.series.push_back(w);
  }
  return interval_chart_svg(
      "SkipReduce s=4 (lr x N/(N-s)) on Dirichlet(alpha) label-skewed shards, 8 ranks",
      {speed, final_acc, worst}, ticks, "Dirichlet alpha (log axis; iid at the right)",
      "Points: paired estimate (speedup; 0: the arm never reached the target) or mean over seeds; "
      "bars: 95% intervals (an open end: unbounded by censored pairs).");
}

}  // namespace

void skipreduce_sweep_rows(Report& r, const ExperimentSummary& summary, const std::string& command,
                           const std::string& chart_svg) {
  const std::vector<Skew> skews = skews_of(summary);
  std::map<std::string, std::vector<ArmStats>> stats;
  std::vector<double> p;
  for (const char* policy : kPolicies)
    for (const Skew& s : skews) {
      stats[policy].push_back(compare(*s.runs.at("baseline"), *s.runs.at(policy)));
      p.push_back(stats[policy].back().speedup.p_value);
    }
  const std::vector<double> holm = holm_adjust(p);
  int family = 0;
  for (double v : p) family += std::isfinite(v) ? 1 : 0;
  size_t k = 0;
  for (const char* policy : kPolicies)
    for (ArmStats& a : stats[policy]) a.p_holm = holm[k++];
  const RunStats& first = *skews.front().runs.at("baseline");
  const std::string target =
      format_number("%g", 100 * finite_or_nan(time_to_accuracy_of(first).target)) + "%";
  for (size_t i = 0; i < skews.size(); ++i) {
    const Skew& s = skews[i];
    const std::string skew = s.label == "iid" ? "iid" : "alpha " + s.label;
    const RunStats& base = *s.runs.at("baseline");
    r.row(skew + ": ring all-reduce (baseline), time to " + target, "", "",
          tta_text(time_to_accuracy_of(base)) + "; final accuracy " +
              interval_text(base.seeds.final_test_accuracy.interval, 3),
          command, "worst class's accuracy " + worst_text(base));
    for (const char* policy : kPolicies) {
      const ArmStats& a = stats[policy][i];
      const RunStats& run = *s.runs.at(policy);
      r.row(skew + ": " + policy + " s=4, lr x N/(N-s), speedup",
            "naive biased on skewed shards, random unbiased (the paper's case for random)", "",
            speedup_cell(a, family), command,
            "final accuracy vs baseline " + points_text(a.accuracy) + "; worst class " +
                worst_text(run) + ", vs baseline " + points_text(a.worst) + "; time to target " +
                tta_text(time_to_accuracy_of(run)));
      if (a.speedup.has_interval()) r.value(a.speedup.estimate, a.speedup.lo, a.speedup.hi);
    }
  }
  std::filesystem::create_directories(std::filesystem::path(chart_svg).parent_path());
  write_file(chart_svg, sweep_chart(skews, stats, target));
  r.text(
      "Each rank trains on a fixed shard whose class shares are drawn from Dirichlet(alpha) per "
      "class (training.sharding non-iid; small alpha: each rank sees few classes), iid the global "
      "shuffle. Each arm is paired by seed with the baseline at its own skew; the speedup is the "
      "geometric mean of TTA_baseline / TTA_arm with a paired log-t interval, or, when a run of a "
      "pair missed the target, the Hodges-Lehmann estimate with the miss ranked worst and a "
      "Wilcoxon interval; Holm's adjustment is over the sweep's arms. The worst class is the class "
      "with the lowest final test accuracy in each seed (summary.json class_accuracy): naive "
      "skipping drops the same ranks' contributions every step, so under skew the classes those "
      "ranks hold are learned least. Chart: " +
      chart_svg + ".");
}

}  // namespace commlab::cli
