#include "scenario_files.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <nlohmann/json.hpp>

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
  } catch (const ScenarioError& e) {
    for (const std::string& line : e.lines()) out.problems << QString::fromStdString(line);
  } catch (const std::exception& e) {
    out.problems << path + ": " + QString::fromUtf8(e.what());
  }
  if (out.problems.isEmpty() && out.runs.empty()) out.problems << path + ": no runs";
  return out;
}

std::string scenario_text(const QString& name, const QString& description, const RunConfig& base,
                          const std::vector<RunConfig>& runs) {
  json doc = json::object();
  doc["name"] = name.isEmpty() ? base.name : name.toStdString();
  if (!description.isEmpty()) doc["description"] = description.toStdString();
  json base_json = to_json(base);
  base_json.erase("name");
  for (auto it = base_json.begin(); it != base_json.end(); ++it) doc[it.key()] = it.value();
  doc["runs"] = json::array();
  const std::vector<RunConfig> list = runs.empty() ? std::vector<RunConfig>{base} : runs;
  for (const RunConfig& run : list) {
    json entry = {{"name", run.name}};
    json run_json = to_json(run);
    run_json.erase("name");
    json patch = merge_diff(base_json, run_json);
    if (!patch.empty()) entry["set"] = std::move(patch);
    doc["runs"].push_back(std::move(entry));
  }
  return doc.dump(2) + "\n";
}

QString save_scenario_file(const QString& path, const QString& name, const QString& description,
                           const RunConfig& base, const std::vector<RunConfig>& runs) {
  try {
    write_file(path.toStdString(), scenario_text(name, description, base, runs));
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
