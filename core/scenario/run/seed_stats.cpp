#include "scenario/run/seed_stats.h"

#include <array>
#include <cmath>
#include <functional>
#include <limits>

#include "scenario/run/tta_stats.h"

namespace commlab {

namespace {

using nlohmann::json;

}  // namespace

json number_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

double t_quantile_975(int df) {
  // t_{0.975, df} for df = 1..30 (standard tables, 6 decimals).
  static constexpr std::array<double, 30> kTable = {
      12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
      2.262157,  2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
      2.109816,  2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
      2.059539,  2.055529, 2.051831, 2.048407, 2.045230, 2.042272};
  if (df < 1) return kNaN;
  if (df <= 30) return kTable[static_cast<size_t>(df - 1)];
  // Cornish-Fisher expansion of the t quantile around the normal one z = 1.959964 (Abramowitz and
  // Stegun 26.7.5): t = z + g1/v + g2/v^2 + g3/v^3 + g4/v^4; within 1e-6 of the tables at v > 30.
  const double z = 1.959963985, v = df;
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z, z9 = z7 * z * z;
  const double g1 = (z3 + z) / 4;
  const double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
  const double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
  const double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
  return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

bool Interval::has_interval() const {
  return n >= 2 && std::isfinite(half_width);
}

bool Interval::overlaps(const Interval& o) const {
  return has_interval() && o.has_interval() && lo() <= o.hi() && o.lo() <= hi();
}

Interval mean_ci95(const std::vector<double>& values) {
  Interval r;
  r.n = static_cast<int>(values.size());
  r.mean = r.half_width = kNaN;
  if (r.n == 0) return r;
  double sum = 0;
  for (double x : values) sum += x;
  r.mean = sum / r.n;
  if (r.n < 2) return r;
  // Sample standard deviation s (n - 1 in the denominator); the 95% interval of the mean is
  // mean +- t_{0.975, n-1} * s / sqrt(n) (Student t with n - 1 degrees of freedom).
  double ss = 0;
  for (double x : values) ss += (x - r.mean) * (x - r.mean);
  const double s = std::sqrt(ss / (r.n - 1));
  r.half_width = t_quantile_975(r.n - 1) * s / std::sqrt(static_cast<double>(r.n));
  return r;
}

std::string replica_name(const std::string& run, uint64_t seed, int k) {
  return k == 0 ? run : run + "@seed=" + std::to_string(seed);
}

std::vector<RunConfig> expand_seeds(const std::vector<RunConfig>& runs, int seeds_override,
                                    std::vector<size_t>* first) {
  std::vector<RunConfig> out;
  if (first) first->clear();
  for (const RunConfig& r : runs) {
    if (first) first->push_back(out.size());
    const int n = seeds_override > 0 ? seeds_override : std::max(1, r.seeds);
    for (int k = 0; k < n; ++k) {
      RunConfig c = r;
      c.seeds = n;
      c.seed = r.seed + static_cast<uint64_t>(k);
      c.name = replica_name(r.name, c.seed, k);
      out.push_back(std::move(c));
    }
  }
  if (first) first->push_back(out.size());
  return out;
}

std::vector<RunResult> group_replicas(std::vector<RunResult> replicas,
                                      const std::vector<char>& started,
                                      const std::vector<size_t>& first,
                                      std::vector<size_t>* first_of) {
  std::vector<RunResult> out;
  if (first_of) first_of->clear();
  for (size_t j = 0; j + 1 < first.size(); ++j) {
    const size_t begin = first[j], end = first[j + 1];
    if (begin >= end || !started[begin]) continue;
    RunResult r = std::move(replicas[begin]);
    if (end - begin > 1) {
      r.per_seed.push_back(r.summary);
      for (size_t i = begin + 1; i < end; ++i) {
        if (!started[i]) {
          r.complete = false;
          continue;
        }
        r.complete = r.complete && replicas[i].complete;
        r.per_seed.push_back(replicas[i].summary);
      }
    }
    if (first_of) first_of->push_back(begin);
    out.push_back(std::move(r));
  }
  return out;
}

size_t baseline_run(const std::vector<RunResult>& runs) {
  for (size_t i = 0; i < runs.size(); ++i)
    if (runs[i].summary.name == "baseline") return i;
  return 0;
}

namespace {

std::vector<RunSummary> seeds_of(const RunResult& r) {
  return r.per_seed.empty() ? std::vector<RunSummary>{r.summary} : r.per_seed;
}

json interval_json(const Interval& iv) {
  json j = {{"n", iv.n}, {"mean", number_or_null(iv.mean)}};
  j["half_width"] = iv.has_interval() ? json(iv.half_width) : json(nullptr);
  j["ci95"] = iv.has_interval() ? json::array({iv.lo(), iv.hi()}) : json(nullptr);
  return j;
}

// One metric over the seeds: the values (null where a seed has none) and the interval of the
// finite ones; `within_noise_of_baseline` when compared with another run.
json metric_json(const std::vector<RunSummary>& seeds, const std::vector<RunSummary>& base,
                 bool is_baseline, const std::function<double(const RunSummary&)>& get) {
  auto collect = [&](const std::vector<RunSummary>& from, json* values) {
    std::vector<double> finite;
    for (const RunSummary& s : from) {
      const double v = get(s);
      if (values) values->push_back(number_or_null(v));
      if (std::isfinite(v)) finite.push_back(v);
    }
    return mean_ci95(finite);
  };
  json values = json::array();
  const Interval iv = collect(seeds, &values);
  json j = interval_json(iv);
  j["values"] = values;
  if (!is_baseline) {
    const Interval b = collect(base, nullptr);
    j["within_noise_of_baseline"] =
        iv.has_interval() && b.has_interval() ? json(iv.overlaps(b)) : json(nullptr);
  }
  return j;
}

}  // namespace

json seed_stats_json(const RunResult& run, const RunResult& baseline) {
  const std::vector<RunSummary> seeds = seeds_of(run);
  const std::vector<RunSummary> base = seeds_of(baseline);
  const bool is_base = &run == &baseline;
  json j;
  j["n"] = seeds.size();
  j["values"] = json::array();
  for (const RunSummary& s : seeds) j["values"].push_back(s.seed);
  auto tta = [](const RunSummary& s) {
    return s.time_to_accuracy_s >= 0 ? s.time_to_accuracy_s : kNaN;
  };
  auto tta_it = [](const RunSummary& s) {
    return s.iterations_to_accuracy >= 0 ? static_cast<double>(s.iterations_to_accuracy) : kNaN;
  };
  j["final_test_accuracy"] =
      metric_json(seeds, base, is_base, [](const RunSummary& s) { return s.final_test_accuracy; });
  j["final_train_loss"] =
      metric_json(seeds, base, is_base, [](const RunSummary& s) { return s.final_train_loss; });
  j["sim_time_s"] =
      metric_json(seeds, base, is_base, [](const RunSummary& s) { return s.sim_time_s; });
  // Time-to-accuracy: a seed that never reaches the target is null and left out of the mean and
  // interval, which are over the `reached` seeds only (so they describe the runs that got there).
  j["time_to_accuracy_s"] = metric_json(seeds, base, is_base, tta);
  j["iterations_to_accuracy"] = metric_json(seeds, base, is_base, tta_it);
  int reached = 0;
  for (const RunSummary& s : seeds) reached += s.time_to_accuracy_s >= 0 ? 1 : 0;
  j["time_to_accuracy_s"]["reached"] = reached;
  j["iterations_to_accuracy"]["reached"] = reached;
  // Paired by seed (replica k of this run against replica k of the baseline: same data order and
  // initialisation): ratio = TTA / TTA_baseline, speedup = TTA_baseline / TTA, over the seeds where
  // both reached the target.
  std::vector<double> ratio, speedup;
  for (size_t k = 0; k < seeds.size() && k < base.size(); ++k) {
    const double a = tta(seeds[k]), b = tta(base[k]);
    if (!std::isfinite(a) || !std::isfinite(b) || a <= 0 || b <= 0) continue;
    ratio.push_back(a / b);
    speedup.push_back(b / a);
  }
  j["baseline"] = baseline.summary.name;
  j["time_to_accuracy_ratio"] = interval_json(mean_ci95(ratio));
  j["time_to_accuracy_speedup"] = interval_json(mean_ci95(speedup));
  return j;
}

namespace {

// A seed's time-to-accuracy and its iteration count (the crossing evaluation's); NaN
// when not reached.
double tta_s(const RunSummary& s) {
  return s.time_to_accuracy_s >= 0 ? s.time_to_accuracy_s : kNaN;
}
double tta_iterations(const RunSummary& s) {
  return s.time_to_accuracy_s >= 0 && s.iterations_to_accuracy >= 0
             ? static_cast<double>(s.iterations_to_accuracy)
             : kNaN;
}

std::vector<double> per_seed(const std::vector<RunSummary>& seeds,
                             double (*get)(const RunSummary&)) {
  std::vector<double> v;
  for (const RunSummary& s : seeds) v.push_back(get(s));
  return v;
}

json values_json(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(number_or_null(x));
  return a;
}

// [lo, hi] with unknown or unbounded ends null; null without an interval.
json ci_json(bool has, double lo, double hi) {
  return has ? json::array({number_or_null(lo), number_or_null(hi)}) : json(nullptr);
}

json censored_json(const std::vector<RunSummary>& seeds, double target) {
  const std::vector<double> t = per_seed(seeds, tta_s), it = per_seed(seeds, tta_iterations);
  const CensoredTta ct = censored_tta(t), ci = censored_tta(it);
  json j;
  j["target"] = number_or_null(target);
  j["seeds"] = ct.seeds;
  j["reached"] = ct.reached;
  j["per_seed_s"] = values_json(t);
  j["per_seed_iterations"] = values_json(it);
  j["estimate_s"] = number_or_null(ct.estimate);
  j["estimate_iterations"] = number_or_null(ci.estimate);
  j["ci95_s"] = ci_json(ct.has_interval(), ct.lo, ct.hi);
  j["ci95_iterations"] = ci_json(ci.has_interval(), ci.lo, ci.hi);
  j["ci95_coverage"] = number_or_null(ct.coverage);
  j["method"] = kCensoredTtaMethod;
  const int window = seeds.empty() ? 0 : seeds.front().tta_window;
  j["smoothing"] =
      window > 0 ? json{{"iterations", window}} : json{{"evaluations", kTtaSmoothingWindow}};
  return j;
}

json speedup_json(const std::vector<RunSummary>& seeds, const std::vector<RunSummary>& base) {
  return paired_speedup_json(paired_log_speedup(per_seed(base, tta_s), per_seed(seeds, tta_s)));
}

json accuracy_delta_json(const std::vector<RunSummary>& seeds,
                         const std::vector<RunSummary>& base) {
  auto acc = [](const RunSummary& s) { return s.final_test_accuracy; };
  return paired_delta_json(paired_delta(per_seed(base, acc), per_seed(seeds, acc)));
}

}  // namespace

json paired_speedup_json(const PairedSpeedup& sp) {
  return {{"estimate", number_or_null(sp.estimate)},
          {"ci95", ci_json(sp.has_interval(), sp.lo, sp.hi)},
          {"pairs", sp.pairs},
          {"pairs_run", sp.pairs_run},
          {"censored", sp.censored},
          {"p_value", number_or_null(sp.p_value)},
          {"method", sp.method},
          {"verdict", sp.verdict},
          {"arm_missed", sp.arm_missed},
          {"baseline_missed", sp.baseline_missed},
          {"both_missed", sp.both_missed}};
}

json paired_delta_json(const PairedDelta& d) {
  return {{"estimate", number_or_null(d.estimate)},
          {"ci95", ci_json(d.has_interval(), d.lo, d.hi)},
          {"pairs", d.pairs}};
}

json tta_stats_json(const RunResult& run, const RunResult& baseline, double target) {
  const std::vector<RunSummary> seeds = seeds_of(run);
  const std::vector<RunSummary> base = seeds_of(baseline);
  bool has_accuracy = false;
  for (const RunSummary& s : seeds)
    has_accuracy = has_accuracy || std::isfinite(s.final_test_accuracy);
  json j = json::object();
  if (!has_accuracy) return j;  // a catalog run: no accuracy, no target to reach
  j["time_to_accuracy"] = censored_json(seeds, target);
  if (&run == &baseline) return j;
  j["speedup_vs_baseline"] = speedup_json(seeds, base);
  j["speedup_vs_baseline"]["baseline"] = baseline.summary.name;
  j["accuracy_delta_vs_baseline"] = accuracy_delta_json(seeds, base);
  return j;
}

}  // namespace commlab
