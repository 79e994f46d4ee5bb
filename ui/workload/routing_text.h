#pragma once
// The Workload page's routing line: the leaf-spine ECMP penalty of the replay shown,
// as `commlab-cli workload` prints it (docs/workload.md, "Routing: the leaf-spine ECMP penalty"):
// DP time under the chosen routing and under the other mode, their ratio, and the busiest link of
// the most imbalanced tier against the tier's mean, with a one-line explanation.
#include <QString>

#include "views/workload_model.h"

namespace commlab::ui {

// Rich text for the picture's RoutingComparison under `routing` (the settings' mode).
QString routing_html(const RoutingComparison& c, RoutingMode routing);

}  // namespace commlab::ui
