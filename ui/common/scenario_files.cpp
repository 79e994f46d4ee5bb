#include "scenario_files.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "scenario/run/results_io.h"
#include "scenario/scenario.h"
#include "scenario/schema.h"

namespace commlab::ui {

namespace {

using nlohmann::json;

// RFC 7386 merge patch that turns `from` into `to` (neither holds nulls: configs are complete).
json merge_diff(const json& from, const json& to) {
  json patch = json::object();
  for (auto it = to.begin(); it != to.end(); ++it) {
    auto f = from.find(it.key());
    if (f == from.end()) {
      patch[it.key()] = it.value();
    } else if (f->is_object() && it->is_object()) {
      json sub = merge_diff(*f, *it);
      if (!sub.empty()) patch[it.key()] = std::move(sub);
    } else if (*f != *it) {
      patch[it.key()] = it.value();
    }
  }
  return patch;
}

}  // namespace

LoadedScenario load_scenario_file(const QString& path) {
  LoadedScenario out;
  try {
    Experiment e = load_scenario(path.toStdString());
    out.name = QString::fromStdString(e.name);
    out.description = QString::fromStdString(e.description);
    out.runs = std::move(e.runs);
    out.forked_from = std::move(e.forked_from);
    out.forked_from.resize(out.runs.size());
    out.colors = std::move(e.colors);
    out.colors.resize(out.runs.size(), -1);
  } catch (const ScenarioError& e) {
    for (const std::string& line : e.lines()) out.problems << QString::fromStdString(line);
  } catch (const std::exception& e) {
    out.problems << path + ": " + QString::fromUtf8(e.what());
  }
  if (out.problems.isEmpty() && out.runs.empty()) out.problems << path + ": no runs";
  return out;
}

namespace {

// A run's settings without its name: what makes two runs the same run.
nlohmann::json unnamed(const RunConfig& config) {
  json j = to_json(config);
  j.erase("name");
  return j;
}

}  // namespace

SavePlan plan_save(std::vector<SavedRun> rows, int baseline,
                   const std::vector<SavedRun>& scenario) {
  SavePlan plan;
  // The scenario's runs no row has the settings of come after the rows.
  std::vector<json> shown;
  std::set<int> colors;  // held by a saved run
  for (const SavedRun& r : rows) {
    shown.push_back(unnamed(r.config));
    if (r.color >= 0) colors.insert(r.color);
  }
  const int first_extra = static_cast<int>(rows.size());
  for (const SavedRun& s : scenario)
    if (std::find(shown.begin(), shown.end(), unnamed(s.config)) == shown.end()) {
      rows.push_back(s);
      rows.back().parent = -1;  // the scenario's own provenance names its parent by name
      int& color = rows.back().color;
      if (color < 0 || colors.count(color))
        for (color = 0; colors.count(color);) ++color;
      colors.insert(color);
    }
  if (rows.empty()) return plan;
  if (baseline < 0 || baseline >= first_extra) baseline = 0;
  // The file's rule picks the run named "baseline", else the first.
  const std::string& base_name = rows[baseline].config.name;
  std::vector<int> order(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) order[i] = static_cast<int>(i);
  if (base_name != "baseline" && baseline != 0) {
    order.erase(order.begin() + baseline);
    order.insert(order.begin(), baseline);
    plan.note = "'" + QString::fromStdString(base_name) +
                "' is the baseline, so it is the file's first run";
  }
  for (size_t i = 0; i < rows.size(); ++i)
    if (static_cast<int>(i) != baseline && rows[i].config.name == "baseline") {
      rows[i].config.name = "baseline (earlier)";
      plan.note += QString(plan.note.isEmpty() ? "" : "; ") +
                   "another run named baseline is saved as 'baseline (earlier)'";
    }
  // Unique names, in the saved order (the first of a name keeps it).
  std::set<std::string> taken;
  for (int i : order) {
    std::string& name = rows[i].config.name;
    if (name.empty()) name = "run";
    const std::string stem = name;
    for (int k = 2; !taken.insert(name).second; ++k) name = stem + " (" + std::to_string(k) + ")";
  }
  std::vector<int> position(rows.size());
  for (size_t p = 0; p < order.size(); ++p) position[order[p]] = static_cast<int>(p);
  for (int i : order) {
    SavedRun r = rows[i];
    if (r.parent >= 0 && r.parent < static_cast<int>(rows.size())) {
      r.forked_from.run = rows[r.parent].config.name;
      r.parent = position[r.parent];
    } else {
      r.parent = -1;
      // A row's parent that is not saved (a live run the fork replaced) may share its name with
      // a saved run; the provenance must not point at that one.
      if (i < first_extra && r.forked_from.iteration > 0 && taken.count(r.forked_from.run))
        r.forked_from.run += " (not saved)";
    }
    plan.runs.push_back(std::move(r));
  }
  return plan;
}

std::string scenario_text(const QString& name, const QString& description,
                          const std::vector<SavedRun>& runs) {
  size_t base = 0;
  for (size_t i = 0; i < runs.size(); ++i)
    if (runs[i].config.name == "baseline") base = i;
  json doc = json::object();
  doc["name"] = name.isEmpty() ? runs.at(base).config.name : name.toStdString();
  if (!description.isEmpty()) doc["description"] = description.toStdString();
  const json base_json = unnamed(runs.at(base).config);
  for (auto it = base_json.begin(); it != base_json.end(); ++it) doc[it.key()] = it.value();
  doc["runs"] = json::array();
  for (const SavedRun& run : runs) {
    json entry = {{"name", run.config.name}};
    json patch = merge_diff(base_json, unnamed(run.config));
    if (!patch.empty()) entry["set"] = std::move(patch);
    if (run.forked_from.iteration > 0)
      entry["forked_from"] = {{"run", run.forked_from.run},
                              {"iteration", run.forked_from.iteration}};
    if (run.color >= 0) entry["color"] = run.color;
    doc["runs"].push_back(std::move(entry));
  }
  return doc.dump(2) + "\n";
}

QString save_scenario_file(const QString& path, const QString& name, const QString& description,
                           const std::vector<SavedRun>& runs) {
  if (runs.empty()) return "no runs to save";
  try {
    write_file(path.toStdString(), scenario_text(name, description, runs));
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
  return {};
}

QString samples_dir() {
  QStringList candidates;
  const QString env = qEnvironmentVariable("COMMLAB_SOURCE_DIR");
  if (!env.isEmpty()) candidates << env + "/samples";
  if (QCoreApplication::instance()) {
    const QString exe = QCoreApplication::applicationDirPath();
    candidates << exe + "/samples" << exe + "/../samples" << exe + "/../../samples"
               << exe + "/../share/commlab/samples";
  }
#ifdef COMMLAB_SOURCE_DIR
  candidates << QString(COMMLAB_SOURCE_DIR) + "/samples";
#endif
  for (const QString& c : candidates)
    if (QFileInfo(c).isDir() && !QDir(c).entryList({"*.json"}, QDir::Files).isEmpty())
      return QDir(c).canonicalPath();
  return {};
}

QStringList preset_files() {
  const QString dir = samples_dir();
  if (dir.isEmpty()) return {};
  QStringList files;
  for (const QString& f : QDir(dir).entryList({"*.json"}, QDir::Files, QDir::Name))
    files << QDir(dir).filePath(f);
  return files;
}

}  // namespace commlab::ui
