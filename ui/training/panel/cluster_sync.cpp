#include "cluster_sync.h"

#include <QHash>
#include <QRegularExpression>
#include <exception>
#include <filesystem>

#include "cluster_editor.h"
#include "topology/presets.h"

namespace commlab::ui {

std::optional<QString> spec_for_ranks(const QString& spec, int ranks, int spec_gpus, QString* why) {
  if (spec_gpus == ranks) return spec;
  CustomCluster c;
  if (parse_custom_cluster(spec, &c)) {
    if (c.kind == "flat") {
      QString out = spec;
      static const QRegularExpression count("^(\\s*flat\\s*:\\s*)\\d+");
      if (count.match(out).hasMatch()) return out.replace(count, QString("\\1%1").arg(ranks));
      c.gpus_per_node = ranks;
      return custom_cluster_spec(c, spec);
    }
    if (c.kind == "node") {
      c.gpus_per_node = ranks;
      return custom_cluster_spec(c, spec);
    }
    if (ranks % c.gpus_per_node == 0) {
      c.nodes = ranks / c.gpus_per_node;
      return custom_cluster_spec(c, spec);
    }
    *why = QString(
               "Ranks %1 is not a multiple of the cluster's %2 GPUs per node: change GPUs per "
               "node (Cluster) or Ranks")
               .arg(ranks)
               .arg(c.gpus_per_node);
    return std::nullopt;
  }
  if (spec_gpus < 0) {
    *why = "the Cluster spec does not build; fix it first";
    return std::nullopt;
  }
  *why = QString(
             "Ranks is %1 but the cluster '%2' has %3 GPUs: set Ranks to %3 or choose a cluster "
             "of %1 GPUs")
             .arg(ranks)
             .arg(spec)
             .arg(spec_gpus);
  return std::nullopt;
}

int spec_gpu_count(const QString& spec) {
  CustomCluster c;
  if (parse_custom_cluster(spec, &c)) return custom_cluster_gpus(c);
  // Built on the GUI thread once per spec (the presets build in milliseconds; files are small).
  static QHash<QString, int> cache;
  if (auto it = cache.constFind(spec); it != cache.constEnd()) return *it;
  int gpus = -1;
  try {
    gpus = static_cast<int>(cluster_from_spec(spec.toStdString()).gpus().size());
  } catch (const std::exception&) {
    gpus = -1;
  }
  // A cluster file can be edited between two looks: only builder specs and presets are cached.
  const bool file = std::filesystem::exists(spec.toStdString());
  if (!file && cache.size() < 256) cache.insert(spec, gpus);
  return gpus;
}

QString panel_wording(const QString& problem) {
  QString out = problem;
  out.replace("(omit one of them to take the other's)",
              "(change Ranks or the Cluster; editing either updates the other when it can)");
  return out;
}

}  // namespace commlab::ui
