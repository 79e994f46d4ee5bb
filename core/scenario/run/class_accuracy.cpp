#include "scenario/run/class_accuracy.h"

#include <algorithm>
#include <cmath>

#include "scenario/run/seed_stats.h"
#include "scenario/run/tta_stats.h"

namespace commlab {

using json = nlohmann::json;

WorstClass worst_class_accuracy(const std::vector<double>& class_accuracy) {
  WorstClass w;
  for (size_t k = 0; k < class_accuracy.size(); ++k) {
    const double a = class_accuracy[k];
    if (std::isnan(a) || (w.label >= 0 && a >= w.accuracy)) continue;
    w.label = static_cast<int>(k);
    w.accuracy = a;
  }
  return w;
}

namespace {

std::vector<RunSummary> seeds_of(const RunResult& r) {
  return r.per_seed.empty() ? std::vector<RunSummary>{r.summary} : r.per_seed;
}

json values_json(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(number_or_null(x));
  return a;
}

std::vector<double> worst_per_seed(const std::vector<RunSummary>& seeds) {
  std::vector<double> out;
  for (const RunSummary& s : seeds)
    out.push_back(worst_class_accuracy(s.final_class_accuracy).accuracy);
  return out;
}

// Per class, the mean over the seeds that have a value for it (NaN when none has).
std::vector<double> mean_per_class(const std::vector<RunSummary>& seeds) {
  size_t classes = 0;
  for (const RunSummary& s : seeds) classes = std::max(classes, s.final_class_accuracy.size());
  std::vector<double> out(classes, kNaN);
  for (size_t k = 0; k < classes; ++k) {
    std::vector<double> v;
    for (const RunSummary& s : seeds)
      if (k < s.final_class_accuracy.size() && !std::isnan(s.final_class_accuracy[k]))
        v.push_back(s.final_class_accuracy[k]);
    if (!v.empty()) out[k] = mean_ci95(v).mean;
  }
  return out;
}

ClassAccuracySeeds seeds_stats(const std::vector<RunSummary>& seeds) {
  ClassAccuracySeeds c;
  c.n = seeds.size();
  c.worst_values = worst_per_seed(seeds);
  std::vector<double> known;
  for (double w : c.worst_values)
    if (!std::isnan(w)) known.push_back(w);
  for (const RunSummary& s : seeds)
    c.worst_classes.push_back(worst_class_accuracy(s.final_class_accuracy).label);
  c.worst = mean_ci95(known);
  c.final_mean = mean_per_class(seeds);
  return c;
}

json seeds_json(const ClassAccuracySeeds& c) {
  json labels = json::array();
  for (int label : c.worst_classes) labels.push_back(label >= 0 ? json(label) : json(nullptr));
  const Interval& iv = c.worst;
  return {{"n", c.n},
          {"worst_values", values_json(c.worst_values)},
          {"worst_classes", std::move(labels)},
          {"worst_mean", number_or_null(iv.n > 0 ? iv.mean : kNaN)},
          {"worst_ci95", iv.has_interval() ? json::array({iv.lo(), iv.hi()}) : json(nullptr)},
          {"final_mean", values_json(c.final_mean)}};
}

}  // namespace

std::optional<ClassAccuracy> class_accuracy_stats(const RunResult& run, const RunResult& baseline) {
  const RunSummary& first = run.summary;
  if (first.final_class_accuracy.empty()) return std::nullopt;
  ClassAccuracy c;
  c.final = first.final_class_accuracy;
  c.worst = worst_class_accuracy(first.final_class_accuracy);
  c.seeds = seeds_stats(seeds_of(run));
  if (&run != &baseline)
    c.worst_delta_vs_baseline =
        paired_delta(worst_per_seed(seeds_of(baseline)), worst_per_seed(seeds_of(run)));
  return c;
}

json class_accuracy_json(const ClassAccuracy& a) {
  json c = {{"final", values_json(a.final)},
            {"worst", number_or_null(a.worst.accuracy)},
            {"worst_class", a.worst.label >= 0 ? json(a.worst.label) : json(nullptr)},
            {"seeds", seeds_json(a.seeds)}};
  if (a.worst_delta_vs_baseline)
    c["worst_delta_vs_baseline"] = paired_delta_json(*a.worst_delta_vs_baseline);
  return c;
}

}  // namespace commlab
