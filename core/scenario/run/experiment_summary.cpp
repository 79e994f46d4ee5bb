#include "scenario/run/experiment_summary.h"

#include <cmath>

#include "scenario/run/rank_stats.h"

namespace commlab {

using nlohmann::json;

namespace {

// Holm's adjustment across the experiment's arms: every comparison with the baseline gets the
// holm_adjust of the distinct arms' p-values (an arm equal to an earlier one takes that one's,
// counted once) and the size of that family.
void adjust_holm(ExperimentSummary& s) {
  std::vector<size_t> twin(s.runs.size());
  for (size_t k = 0; k < s.runs.size(); ++k) twin[k] = k;
  for (const EquivalentRun& e : s.equivalent_runs) twin[e.run] = twin[e.same_as];
  std::vector<double> p;
  std::vector<size_t> member;  // the runs whose p-value is in the family, in order
  for (size_t k = 0; k < s.runs.size(); ++k) {
    const std::optional<BaselineComparison>& c = s.runs[k].tta.vs_baseline;
    if (twin[k] != k || !c || !std::isfinite(c->speedup.p_value)) continue;
    p.push_back(c->speedup.p_value);
    member.push_back(k);
  }
  const std::vector<double> adjusted = holm_adjust(p);
  std::vector<double> holm(s.runs.size(), std::nan(""));
  for (size_t i = 0; i < member.size(); ++i) holm[member[i]] = adjusted[i];
  for (size_t k = 0; k < s.runs.size(); ++k)
    if (std::optional<BaselineComparison>& c = s.runs[k].tta.vs_baseline)
      c->holm = HolmAdjustment{holm[twin[k]], member.size()};
}

std::vector<std::string> run_names(const ExperimentSummary& s) {
  std::vector<std::string> names;
  for (const RunStats& r : s.runs) names.push_back(r.name());
  return names;
}

json finite_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

json run_json(const RunStats& r) {
  const RunSummary& s = r.summary;
  json run = {{"name", s.name},
              {"complete", r.complete},
              {"seed", s.seed},
              {"iterations", s.iterations},
              {"sim_time_s", finite_or_null(s.sim_time_s)},
              {"wall_time_s", finite_or_null(s.wall_time_s)},
              {"final_train_loss", finite_or_null(s.final_train_loss)},
              {"final_test_accuracy", finite_or_null(s.final_test_accuracy)},
              {"bytes_on_wire", s.bytes_on_wire},
              {"mean_ratio", finite_or_null(s.mean_ratio)},
              {"effective_bits", finite_or_null(s.effective_bits)},
              {"trimmed_packets", s.trimmed_packets},
              {"skipped_steps", s.skipped_steps},
              {"time_to_accuracy_s",
               s.time_to_accuracy_s >= 0 ? json(s.time_to_accuracy_s) : json(nullptr)},
              {"iterations_to_accuracy",
               s.iterations_to_accuracy >= 0 ? json(s.iterations_to_accuracy) : json(nullptr)},
              {"seeds", seed_stats_json(r.seeds)}};
  if (!s.timed_as.empty()) run["timed_as"] = s.timed_as;  // workload.time_as
  run.update(tta_stats_json(r.tta));
  if (r.class_accuracy) run["class_accuracy"] = class_accuracy_json(*r.class_accuracy);
  if (r.mpi) run["mpi"] = mpi_json(*r.mpi, s.sim_time_s);
  if (r.forked_from)
    run["forked_from"] = {{"run", r.forked_from->run}, {"iteration", r.forked_from->iteration}};
  return run;
}

}  // namespace

ExperimentSummary summarize_experiment(const std::string& experiment,
                                       const std::vector<RunResult>& runs,
                                       const std::vector<double>& target_accuracy) {
  ExperimentSummary s;
  s.experiment = experiment;
  s.version = commlab_version();
  s.baseline = baseline_run(runs);
  for (size_t k = 0; k < runs.size(); ++k) {
    const double target = k < target_accuracy.size() ? target_accuracy[k] : std::nan("");
    RunStats r;
    r.summary = runs[k].summary;
    r.complete = runs[k].complete;
    r.seeds = seed_stats(runs[k], runs[s.baseline]);
    r.tta = tta_stats(runs[k], runs[s.baseline], target);
    r.class_accuracy = class_accuracy_stats(runs[k], runs[s.baseline]);
    s.runs.push_back(std::move(r));
  }
  s.equivalent_runs = equivalent_runs(runs);
  adjust_holm(s);
  return s;
}

json summary_document(const ExperimentSummary& s) {
  json doc;
  doc["experiment"] = s.experiment;
  doc["version"] = s.version;
  doc["runs"] = json::array();
  for (const RunStats& r : s.runs) doc["runs"].push_back(run_json(r));
  if (!s.equivalent_runs.empty())
    doc["equivalent_runs"] = equivalent_runs_json(run_names(s), s.equivalent_runs);
  if (s.lr_tuning) doc["lr_tuning"] = lr_tuning_json(*s.lr_tuning);
  return doc;
}

std::string summary_text(const ExperimentSummary& s) {
  return summary_document(s).dump(2) + "\n";
}

json mpi_json(const MpiMeasure& m, double sim_time_s) {
  auto split = [](const MpiRunStats& s) {
    return json{{"compute_s", finite_or_null(s.compute_s)},
                {"comm_s", finite_or_null(s.comm_s)},
                {"codec_s", finite_or_null(s.codec_s)},
                {"wall_s", finite_or_null(s.wall_s)}};
  };
  return {{"processes", m.processes},
          {"mismatched_buckets", m.mismatched},
          {"bytes_sent", m.bytes_sent},
          {"measured_mean", split(m.mean)},
          {"measured_max", split(m.max)},
          {"predicted",
           {{"sim_time_s", sim_time_s},
            {"compute_s", m.predicted_compute_s},
            {"comm_exposed_s", m.predicted_comm_s},
            {"codec_exposed_s", m.predicted_codec_s},
            {"comm_total_s", m.predicted_comm_total_s},
            {"codec_total_s", m.predicted_codec_total_s}}}};
}

std::string equivalence_text(const ExperimentSummary& s, const EquivalentRun& same) {
  return equivalence_text(equivalent_runs_json(run_names(s), {same})[0]);
}

}  // namespace commlab
