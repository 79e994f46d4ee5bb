#include "fork_figures.h"

namespace commlab::ui {

OwnIterations own_iterations(const std::vector<Sample>& samples, int forked_at) {
  OwnIterations out;
  const Sample* at = nullptr;  // the parent's last iteration: where the fork's own time starts
  double wire = 0;
  int own = 0;
  for (const Sample& s : samples) {
    if (s.iteration == forked_at) at = &s;
    if (s.iteration > forked_at) {
      wire += static_cast<double>(s.bytes_on_wire);
      ++own;
    }
  }
  if (!at || own == 0) return out;
  const Sample& last = samples.back();
  out.s_per_iteration = (last.sim_time_s - at->sim_time_s) / (last.iteration - forked_at);
  out.wire_bytes_per_iteration = wire / own;
  out.separated = true;
  return out;
}

}  // namespace commlab::ui
