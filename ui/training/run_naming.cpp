#include "run_naming.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "scenario/schema.h"

namespace commlab::ui {

namespace {

// Short labels of the fields people change most; the rest use their last name.
const std::map<std::string, QString>& labels() {
  static const std::map<std::string, QString> m{
      {"training.lr", "lr"},
      {"training.global_batch", "batch"},
      {"training.eval_every", "eval every"},
      {"techniques.skipreduce.skip", "skip"},
      {"techniques.skipreduce.ratio", "skip ratio"},
      {"techniques.skipreduce.policy", "skip policy"},
      {"techniques.skipreduce.protected_buckets", "protected"},
      {"techniques.trimming.enabled", "trimming"},
      {"techniques.trimming.rate", "trim"},
      {"techniques.trimming.encoding", "trim encoding"},
      {"techniques.trimming.mode", "trim mode"},
      {"techniques.codec", "codec"},
      {"collective.algorithm", "algorithm"},
      {"collective.wire", "wire"},
      {"cluster.spec", "cluster"},
      {"cluster.backend", "backend"},
      {"packet.background", "background"},
      {"workload.kind", "workload"},
  };
  return m;
}

QString value_text(const nlohmann::json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "on" : "off";
  if (v.is_string()) return QString::fromStdString(v.get<std::string>());
  if (v.is_number_float()) return QString::number(v.get<double>(), 'g', 4);
  if (v.is_number()) return QString::number(v.get<long long>());
  if (v.is_array()) {
    QStringList parts;
    for (const auto& e : v) parts << value_text(e);
    return parts.join(",");
  }
  return QString::fromStdString(v.dump());
}

// Depth-first over `config`'s leaves (arrays are leaves), comparing with `base` at the same path.
void diff(const nlohmann::json& base, const nlohmann::json& config, const std::string& path,
          std::vector<SettingChange>& out) {
  if (config.is_object()) {
    for (auto it = config.begin(); it != config.end(); ++it) {
      const std::string sub = path.empty() ? it.key() : path + "." + it.key();
      if (sub == "name") continue;
      static const nlohmann::json missing;
      const nlohmann::json& b =
          base.is_object() && base.contains(it.key()) ? base.at(it.key()) : missing;
      diff(b, it.value(), sub, out);
    }
    return;
  }
  if (base == config) return;
  auto label = labels().find(path);
  QString name;
  if (label != labels().end()) {
    name = label->second;
  } else {
    name = QString::fromStdString(path.substr(path.rfind('.') + 1));
    name.replace('_', ' ');
  }
  out.push_back({QString::fromStdString(path), name, value_text(base), value_text(config),
                 config.is_string()});
}

// "'flat:4,gbps=100'" for text (a spec holds commas), "4" for the rest.
QString quoted(const QString& value, bool text) {
  return text ? "'" + value + "'" : value;
}

}  // namespace

std::vector<SettingChange> setting_changes(const RunConfig& base, const RunConfig& config) {
  std::vector<SettingChange> out;
  diff(to_json(base), to_json(config), "", out);
  return out;
}

QStringList changed_settings(const RunConfig& base, const RunConfig& config) {
  QStringList out;
  for (const SettingChange& c : setting_changes(base, config)) out << c.label + " " + c.after;
  return out;
}

QString edited_description(const QString& description, const QString& source,
                           const std::vector<RunConfig>& loaded,
                           const std::vector<RunConfig>& saved) {
  if (source.isEmpty()) return description;
  QStringList runs;
  const size_t n = std::min(loaded.size(), saved.size());
  for (size_t i = 0; i < n; ++i) {
    QStringList fields;
    for (const SettingChange& c : setting_changes(loaded[i], saved[i]))
      fields << c.path + " " + quoted(c.before, c.text) + " -> " + quoted(c.after, c.text);
    if (fields.isEmpty()) continue;
    const QString list = fields.join(", ");
    runs << (loaded.size() > 1 ? "run " + QString::fromStdString(loaded[i].name) + ": " + list
                               : list);
  }
  if (runs.isEmpty()) return description;
  const QString line = "Edited from " + source + ": " + runs.join("; ") + ".";
  return description.isEmpty() ? line : description + "\n" + line;
}

namespace {

// One difference as a run name says it, short: a cluster by its spec's first part ("flat:16"), a
// codec or an algorithm by its name, the rest as "label value".
QString short_change(const SettingChange& c) {
  if (c.path == "cluster.spec") return c.after.section(',', 0, 0);
  if (c.path == "techniques.codec" || c.path == "collective.algorithm") return c.after;
  return c.label + " " + c.after;
}

}  // namespace

QString describe_run(const RunConfig& baseline, const RunConfig& as_loaded,
                     const RunConfig& config) {
  if (!config.name.empty() && changed_settings(as_loaded, config).isEmpty())
    return QString::fromStdString(config.name);
  const std::vector<SettingChange> changes = setting_changes(baseline, config);
  if (changes.empty()) return "baseline";
  // Which differences the name shows: first those the user edited (against the scenario's run the
  // edit started from), then the rest, each taken when the name still fits in kRunNameChars with
  // "+N" for those left out; two edits of one run then differ in their names. They are shown in
  // the schema's order.
  std::vector<size_t> candidates;
  const std::vector<SettingChange> edits = setting_changes(as_loaded, config);
  auto edited = [&](const SettingChange& c) {
    return std::any_of(edits.begin(), edits.end(),
                       [&](const SettingChange& e) { return e.path == c.path; });
  };
  for (size_t i = 0; i < changes.size(); ++i)
    if (edited(changes[i])) candidates.push_back(i);
  for (size_t i = 0; i < changes.size(); ++i)
    if (!edited(changes[i])) candidates.push_back(i);
  std::vector<bool> shown(changes.size(), false);
  auto name_of = [&](const std::vector<bool>& with) {
    QStringList parts;
    int left = 0;
    for (size_t i = 0; i < changes.size(); ++i)
      if (with[i])
        parts << short_change(changes[i]);
      else
        ++left;
    return parts.join(", ") + (left > 0 ? QString(" +%1").arg(left) : QString());
  };
  for (size_t i : candidates) {
    std::vector<bool> with = shown;
    with[i] = true;
    if (name_of(with).size() <= kRunNameChars) shown = with;
  }
  if (std::none_of(shown.begin(), shown.end(), [](bool b) { return b; })) {
    // The first difference alone is too long: cut it.
    const QString more = changes.size() > 1 ? QString(" +%1").arg(changes.size() - 1) : QString();
    return short_change(changes[candidates.front()]).left(kRunNameChars - more.size() - 1) +
           "\u2026" + more;
  }
  return name_of(shown);
}

QString fork_text(const QString& parent, int iteration) {
  return QString("forked from '%1' at iteration %2").arg(parent).arg(iteration);
}

QString saved_fork_text(const ForkedFrom& forked_from) {
  return QString("saved as a fork of '%1' at iteration %2; trained here from iteration 1")
      .arg(QString::fromStdString(forked_from.run))
      .arg(forked_from.iteration);
}

QString live_blocker(const RunConfig& config) {
  if (config.workload.kind == WorkloadKind::kCatalog)
    return "a catalog workload times every message of a large model (seconds per iteration)";
  if (config.workload.kind == WorkloadKind::kTrace)
    return "a trace replays every node of every rank";
  if (config.cluster.backend == ClusterBackend::kPacket && config.packet.background != "none")
    return "the packet backend with background traffic simulates every packet of the "
           "competing flows";
  if (config.cluster.backend == ClusterBackend::kPacket && config.training.ranks > 64)
    return "the packet backend on more than 64 ranks simulates every packet";
  return {};
}

}  // namespace commlab::ui
