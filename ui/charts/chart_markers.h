#pragma once
// Room for point markers: Qt Charts clips every series at its plot area, so a marker
// on a point at an axis end is drawn half. An axis that ends on marked data runs on past it by a
// share of its span: 5% is 10 px on a 200 px plot, more than half of Qt's 15 px default marker.
#include <algorithm>
#include <utility>

namespace commlab::ui {

constexpr double kMarkerRoomShare = 0.05;

// The range [lo, hi] widened so the data's [data_lo, data_hi] keeps kMarkerRoomShare of the span
// on either side (an end already that far away stays).
inline std::pair<double, double> range_with_marker_room(double lo, double hi, double data_lo,
                                                        double data_hi) {
  const double span = std::max(hi, data_hi) - std::min(lo, data_lo);
  const double room = kMarkerRoomShare * (span > 0 ? span : 1.0);
  return {std::min(lo, data_lo - room), std::max(hi, data_hi + room)};
}

}  // namespace commlab::ui
