#include "routing_text.h"

#include "format_util.h"

namespace commlab::ui {

namespace {

QString mode_name(RoutingMode mode) {
  return mode == RoutingMode::kEcmp ? "ECMP" : "ideal";
}

QString times(double ratio) {
  return QString::number(ratio, 'f', 2) + "x";
}

}  // namespace

QString routing_html(const RoutingComparison& c, RoutingMode routing) {
  const QString mode = mode_name(routing);
  if (!c.ecmp_choices)
    return QString(
               "Routing %1: every flow has a single shortest path on this cluster (its servers "
               "share a leaf switch), so ECMP and ideal routing agree.")
        .arg(mode);
  const QString other = mode_name(c.other);
  QString text = QString("Routing %1: DP <b>%2</b>, %3 under %4 routing")
                     .arg(mode, seconds_text(c.dp_s), seconds_text(c.other_dp_s), other);
  text += c.ecmp_penalty_dp > 0 ? QString(": <b>ECMP penalty %1</b>.").arg(times(c.ecmp_penalty_dp))
                                : QString(" (no DP time to compare).");
  if (!c.load.tier.empty())
    text += QString(" Busiest %1 link carries %2 its tier's mean (%3 under %4).")
                .arg(QString::fromStdString(c.load.tier), times(c.load.ratio()),
                     times(c.other_load.ratio()), other);
  return text +
         "<br><small>Per-flow ECMP hashes each flow onto one of the equal-cost paths through the "
         "spines, so concurrent DP rings collide on some links while others idle; ideal routing "
         "sprays every flow over all of them (the load-balance bound).</small>";
}

}  // namespace commlab::ui
