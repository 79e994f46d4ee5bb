// summary.json's per-run statistics: the JSON form of SeedStats and TtaStats (seed_stats.h).
#include <cmath>

#include "scenario/run/seed_stats.h"

namespace commlab {

using nlohmann::json;

json number_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

namespace {

json interval_json(const Interval& iv) {
  json j = {{"n", iv.n}, {"mean", number_or_null(iv.mean)}};
  j["half_width"] = iv.has_interval() ? json(iv.half_width) : json(nullptr);
  j["ci95"] = iv.has_interval() ? json::array({iv.lo(), iv.hi()}) : json(nullptr);
  return j;
}

json values_json(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(number_or_null(x));
  return a;
}

json metric_json(const SeedMetric& m) {
  json j = interval_json(m.interval);
  j["values"] = values_json(m.values);
  switch (m.against_baseline) {
    case NoiseCheck::kNotCompared: break;
    case NoiseCheck::kUnknown: j["within_noise_of_baseline"] = nullptr; break;
    case NoiseCheck::kWithinNoise:
    case NoiseCheck::kBeyondNoise:
      j["within_noise_of_baseline"] = m.against_baseline == NoiseCheck::kWithinNoise;
      break;
  }
  return j;
}

// [lo, hi] with unknown or unbounded ends null; null without an interval.
json ci_json(bool has, double lo, double hi) {
  return has ? json::array({number_or_null(lo), number_or_null(hi)}) : json(nullptr);
}

json time_to_accuracy_json(const TimeToAccuracy& t) {
  json j;
  j["target"] = number_or_null(t.target);
  j["seeds"] = t.seconds.seeds;
  j["reached"] = t.seconds.reached;
  j["per_seed_s"] = values_json(t.per_seed_s);
  j["per_seed_iterations"] = values_json(t.per_seed_iterations);
  j["estimate_s"] = number_or_null(t.seconds.estimate);
  j["estimate_iterations"] = number_or_null(t.iterations.estimate);
  j["ci95_s"] = ci_json(t.seconds.has_interval(), t.seconds.lo, t.seconds.hi);
  j["ci95_iterations"] = ci_json(t.iterations.has_interval(), t.iterations.lo, t.iterations.hi);
  j["ci95_coverage"] = number_or_null(t.seconds.coverage);
  j["method"] = kCensoredTtaMethod;
  j["smoothing"] = t.window_iterations > 0 ? json{{"iterations", t.window_iterations}}
                                           : json{{"evaluations", kTtaSmoothingWindow}};
  return j;
}

}  // namespace

json seed_stats_json(const SeedStats& st) {
  json j;
  j["n"] = st.seeds.size();
  j["values"] = st.seeds;
  j["final_test_accuracy"] = metric_json(st.final_test_accuracy);
  j["final_train_loss"] = metric_json(st.final_train_loss);
  j["sim_time_s"] = metric_json(st.sim_time_s);
  j["time_to_accuracy_s"] = metric_json(st.time_to_accuracy_s);
  j["iterations_to_accuracy"] = metric_json(st.iterations_to_accuracy);
  j["time_to_accuracy_s"]["reached"] = st.reached;
  j["iterations_to_accuracy"]["reached"] = st.reached;
  j["baseline"] = st.baseline;
  j["time_to_accuracy_ratio"] = interval_json(st.time_to_accuracy_ratio);
  j["time_to_accuracy_speedup"] = interval_json(st.time_to_accuracy_speedup);
  return j;
}

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

json tta_stats_json(const TtaStats& st) {
  json j = json::object();
  if (st.time_to_accuracy) j["time_to_accuracy"] = time_to_accuracy_json(*st.time_to_accuracy);
  if (!st.vs_baseline) return j;
  const BaselineComparison& c = *st.vs_baseline;
  json& speedup = j["speedup_vs_baseline"] = paired_speedup_json(c.speedup);
  speedup["baseline"] = c.baseline;
  if (c.holm) {
    speedup["p_holm"] = number_or_null(c.holm->p_holm);
    speedup["holm_family"] = c.holm->family;
  }
  j["accuracy_delta_vs_baseline"] = paired_delta_json(c.accuracy_delta);
  return j;
}

}  // namespace commlab
