#include "scenario/run/seed_stats.h"

#include <array>
#include <cmath>
#include <limits>

#include "scenario/run/tta_stats.h"

namespace commlab {

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

// A seed's time-to-accuracy and its iteration count (the crossing evaluation's); NaN when not
// reached.
double tta_s(const RunSummary& s) {
  return s.time_to_accuracy_s >= 0 ? s.time_to_accuracy_s : kNaN;
}
double tta_iterations(const RunSummary& s) {
  return s.time_to_accuracy_s >= 0 && s.iterations_to_accuracy >= 0
             ? static_cast<double>(s.iterations_to_accuracy)
             : kNaN;
}
// The seed statistics' iteration count: as recorded, without the reached-in-time check.
double recorded_iterations(const RunSummary& s) {
  return s.iterations_to_accuracy >= 0 ? static_cast<double>(s.iterations_to_accuracy) : kNaN;
}
double final_accuracy(const RunSummary& s) {
  return s.final_test_accuracy;
}
double final_loss(const RunSummary& s) {
  return s.final_train_loss;
}
double sim_time(const RunSummary& s) {
  return s.sim_time_s;
}

std::vector<double> per_seed(const std::vector<RunSummary>& seeds,
                             double (*get)(const RunSummary&)) {
  std::vector<double> v;
  for (const RunSummary& s : seeds) v.push_back(get(s));
  return v;
}

Interval finite_interval(const std::vector<double>& values) {
  std::vector<double> finite;
  for (double v : values)
    if (std::isfinite(v)) finite.push_back(v);
  return mean_ci95(finite);
}

// One metric over the seeds, compared with the baseline's unless `base` is null.
SeedMetric metric(const std::vector<RunSummary>& seeds, const std::vector<RunSummary>* base,
                  double (*get)(const RunSummary&)) {
  SeedMetric m;
  m.values = per_seed(seeds, get);
  m.interval = finite_interval(m.values);
  if (base) {
    const Interval b = finite_interval(per_seed(*base, get));
    m.against_baseline = !m.interval.has_interval() || !b.has_interval() ? NoiseCheck::kUnknown
                         : m.interval.overlaps(b)                        ? NoiseCheck::kWithinNoise
                                                                         : NoiseCheck::kBeyondNoise;
  }
  return m;
}

}  // namespace

SeedStats seed_stats(const RunResult& run, const RunResult& baseline) {
  const std::vector<RunSummary> seeds = seeds_of(run);
  const std::vector<RunSummary> base = seeds_of(baseline);
  const std::vector<RunSummary>* compared = &run == &baseline ? nullptr : &base;
  SeedStats st;
  for (const RunSummary& s : seeds) st.seeds.push_back(s.seed);
  st.final_test_accuracy = metric(seeds, compared, final_accuracy);
  st.final_train_loss = metric(seeds, compared, final_loss);
  st.sim_time_s = metric(seeds, compared, sim_time);
  st.time_to_accuracy_s = metric(seeds, compared, tta_s);
  st.iterations_to_accuracy = metric(seeds, compared, recorded_iterations);
  for (const RunSummary& s : seeds) st.reached += s.time_to_accuracy_s >= 0 ? 1 : 0;
  std::vector<double> ratio, speedup;
  for (size_t k = 0; k < seeds.size() && k < base.size(); ++k) {
    const double a = tta_s(seeds[k]), b = tta_s(base[k]);
    if (!std::isfinite(a) || !std::isfinite(b) || a <= 0 || b <= 0) continue;
    ratio.push_back(a / b);
    speedup.push_back(b / a);
  }
  st.baseline = baseline.summary.name;
  st.time_to_accuracy_ratio = mean_ci95(ratio);
  st.time_to_accuracy_speedup = mean_ci95(speedup);
  return st;
}

TtaStats tta_stats(const RunResult& run, const RunResult& baseline, double target) {
  const std::vector<RunSummary> seeds = seeds_of(run);
  const std::vector<RunSummary> base = seeds_of(baseline);
  bool has_accuracy = false;
  for (const RunSummary& s : seeds)
    has_accuracy = has_accuracy || std::isfinite(s.final_test_accuracy);
  TtaStats st;
  if (!has_accuracy) return st;  // a catalog run: no accuracy, no target to reach
  TimeToAccuracy& t = st.time_to_accuracy.emplace();
  t.target = target;
  t.per_seed_s = per_seed(seeds, tta_s);
  t.per_seed_iterations = per_seed(seeds, tta_iterations);
  t.seconds = censored_tta(t.per_seed_s);
  t.iterations = censored_tta(t.per_seed_iterations);
  t.window_iterations = seeds.empty() ? 0 : seeds.front().tta_window;
  if (&run == &baseline) return st;
  BaselineComparison& c = st.vs_baseline.emplace();
  c.baseline = baseline.summary.name;
  c.speedup = paired_log_speedup(per_seed(base, tta_s), t.per_seed_s);
  c.accuracy_delta = paired_delta(per_seed(base, final_accuracy), per_seed(seeds, final_accuracy));
  return st;
}

}  // namespace commlab
