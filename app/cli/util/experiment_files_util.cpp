#include "cli/util/experiment_files_util.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>
#include <vector>

#include "cli/command.h"
#include "cli/util/results_dir_util.h"
#include "io/input_file.h"
#include "io/json_input.h"
#ifdef COMMLAB_HAVE_CHARTS
#include "chart_files.h"  // Qt-free: the charts are drawn inside commlab_charts
#endif

namespace commlab::cli {

namespace {

// DIR/charts/*.png and *.svg (docs/cli.md), drawn by the GUI's chart code; returns a note for the
// final line. A chart failure is reported but keeps the numbers already written.
std::string write_charts(const std::vector<RunResult>& results, const std::string& dir) {
#ifdef COMMLAB_HAVE_CHARTS
  std::vector<ChartRun> runs;
  // A proxy-timed run says so in every legend: its time axis is another model's.
  for (const RunResult& r : results)
    runs.push_back({r.summary.timed_as.empty()
                        ? r.summary.name
                        : r.summary.name + " (timed as " + r.summary.timed_as + ")",
                    r.samples, r.summary});
  std::string error;
  const std::vector<std::string> files = write_run_charts(runs, dir, &error);
  // A chart that failed to write (a full disk: a truncated SVG, a 0-byte PNG) fails the run, so the
  // folder is not committed with it.
  if (!error.empty()) throw std::runtime_error("charts: " + error);
  return ", " + std::to_string(files.size()) + " chart files in charts/";
#else
  (void)results;
  (void)dir;
  return ", no charts (this build has no Qt: configure with COMMLAB_BUILD_GUI=ON)";
#endif
}

// "7-16" or "7, 9" for a list of seeds.
std::string seeds_text(const std::vector<uint64_t>& seeds) {
  if (seeds.empty()) return "none";
  bool consecutive = true;
  for (size_t i = 1; i < seeds.size(); ++i) consecutive = consecutive && seeds[i] == seeds[0] + i;
  if (consecutive)
    return seeds.size() == 1 ? std::to_string(seeds[0])
                             : std::to_string(seeds.front()) + "-" + std::to_string(seeds.back());
  std::string out;
  for (uint64_t s : seeds) out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out;
}

}  // namespace

void check_preregistered_seeds(const std::string& dir, const Experiment& exp, int seeds_override) {
  namespace fs = std::filesystem;
  const fs::path summary = fs::path(dir) / "summary.json";
  std::error_code ec;
  if (!fs::is_regular_file(summary, ec) || fs::exists(fs::path(dir) / kIncompleteMarker, ec))
    return;
  const nlohmann::json doc = parse_json_or_discarded(
      read_input_file(summary.string(), 256ull << 20, "summary.json"), summary.string());
  if (!doc.is_object() || !doc.contains("runs") || !doc["runs"].is_array()) return;
  for (const RunConfig& run : exp.runs) {
    for (const nlohmann::json& done : doc["runs"]) {
      if (!done.is_object() || done.value("name", std::string()) != run.name) continue;
      const nlohmann::json& seeds = done.contains("seeds") ? done["seeds"] : nlohmann::json();
      std::vector<uint64_t> had, want;
      if (seeds.is_object() && seeds.contains("values") && seeds["values"].is_array())
        for (const nlohmann::json& v : seeds["values"])
          if (v.is_number_unsigned()) had.push_back(v.get<uint64_t>());
      const int n = seeds_override > 0 ? seeds_override : std::max(1, run.seeds);  // expand_seeds
      for (int k = 0; k < n; ++k) want.push_back(run.seed + k);
      if (had.empty() || had == want) continue;
      const bool adds =
          want.size() > had.size() && std::equal(had.begin(), had.end(), want.begin());
      throw InvalidInput("--out: " + dir + " holds a finished result of run '" + run.name +
                         "' over seeds " + seeds_text(had) + "; this run " +
                         (adds ? "adds seeds to it" : "changes its seeds") + " (seeds " +
                         seeds_text(want) +
                         "): the seeds of a finished result are fixed in the scenario before "
                         "looking (`seeds`, --seeds, --seed); write to a new --out folder");
    }
  }
}

ExecutionMode parse_exec_flag(const std::string& value) {
  if (value == "sim") return ExecutionMode::kSimulated;
  const std::optional<ExecutionMode> mode = parse_enum<ExecutionMode>(value);
  if (!mode) throw InvalidInput("--exec: expected simulated (or sim) or mpi, got '" + value + "'");
  return *mode;
}

void apply_run_overrides(Experiment& exp, int64_t seed, int seeds, const std::string& exec) {
  if (seed >= 0) {
    // Recorded in scenario.json too, so a rerun from the results folder uses the same seed.
    for (RunConfig& r : exp.runs) r.seed = static_cast<uint64_t>(seed);
    exp.resolved["seed"] = seed;
    if (exp.resolved.contains("runs"))
      for (nlohmann::json& r : exp.resolved["runs"])
        if (r.is_object()) {
          r.erase("seed");
          if (r.contains("set") && r["set"].is_object()) r["set"].erase("seed");
        }
  }
  if (!exec.empty()) {
    const ExecutionMode mode = parse_exec_flag(exec);
    for (RunConfig& r : exp.runs) {
      r.execution = mode;
      // What the scenario's checks refuse under this execution is refused under --exec too (a
      // run with proxy timing or multi-level trimming under mpi, say).
      if (const ConfigProblems problems = check_run_config(r); !problems.empty())
        throw InvalidInput("--exec " + exec + ": run '" + r.name + "': " + problems.front().text());
    }
    exp.resolved["execution"] = enum_name(mode);  // the scenario's word, also for "sim"
    for (nlohmann::json& r : exp.resolved["runs"]) r.erase("execution");
  }
  if (seeds > 0) {
    exp.resolved["seeds"] = seeds;
    for (nlohmann::json& r : exp.resolved["runs"]) r.erase("seeds");
  }
}

std::string write_experiment_files(const std::string& dir, const Experiment& exp,
                                   const ExperimentOutcome& outcome, bool charts) {
  write_file(dir + "/summary.json", outcome.summary_json);
  join_series(dir, outcome.started);
  write_file(dir + "/scenario.json", exp.resolved.dump(2) + "\n");
  write_file(dir + "/VERSION", std::string("commlab ") + commlab_version() + "\n");
  if (!charts) return ", no charts (--no-charts)";
  return write_charts(outcome.results, dir + "/charts");
}

}  // namespace commlab::cli
