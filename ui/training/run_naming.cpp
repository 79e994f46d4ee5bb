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

QString describe_run(const RunConfig& baseline, const RunConfig& as_loaded,
                     const RunConfig& config) {
  if (!config.name.empty() && changed_settings(as_loaded, config).isEmpty())
    return QString::fromStdString(config.name);
  QStringList changes = changed_settings(baseline, config);
  if (changes.isEmpty()) return "baseline";
  constexpr int kShown = 4;
  if (changes.size() > kShown) {
    const qsizetype more = changes.size() - kShown;
    changes = changes.mid(0, kShown);
    changes << QString("+%1 more").arg(more);
  }
  return changes.join(", ");
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
