// TrainingView's run colours: a run takes a palette colour (run_color) when it is created and
// keeps it for its life; a run with the settings of the scenario's run i takes that run's colour
// (the file's "color", else i), so a run has the same colour in every session and after Save as;
// the Compare tab draws the scenario's runs in the colours of their rows.
#include <algorithm>

#include "seed_figures.h"
#include "training_view.h"

namespace commlab::ui {

bool TrainingView::color_in_use(int color) const {
  auto uses = [color](const Run& r) { return r.id != 0 && r.color == color; };
  if (uses(current_) || (starting_ && uses(*starting_))) return true;
  for (const Run& r : kept_)
    if (uses(r)) return true;
  for (const Removal& removal : removed_)  // Undo remove brings them back in their colours
    for (const Run& r : removal.runs)
      if (uses(r)) return true;
  return false;
}

int TrainingView::loaded_color(size_t i) const {
  return i < loaded_colors_.size() && loaded_colors_[i] >= 0 ? loaded_colors_[i]
                                                             : static_cast<int>(i);
}

int TrainingView::take_color(const std::string& settings) {
  // A run with the settings of the scenario's run i takes that run's colour (the file's, else
  // colour i), so the baseline (and every run of the file) has the same colour in every session,
  // whatever ran first; any other run takes the next colour after the scenario's, never one a
  // run on screen (or undoable) holds.
  int after = static_cast<int>(loaded_.size());
  for (size_t i = 0; i < loaded_.size(); ++i) after = std::max(after, loaded_color(i) + 1);
  for (size_t i = 0; i < loaded_.size(); ++i)
    if (settings_key(loaded_[i]) == settings && !color_in_use(loaded_color(i)))
      return loaded_color(i);
  int color = std::max(color_counter_, after);
  while (color_in_use(color)) ++color;
  color_counter_ = color + 1;
  return color;
}

std::vector<int> TrainingView::run_colors() const {
  const std::vector<RunConfig> all = runs();
  const std::vector<const Run*> rows = table();
  std::vector<int> out;
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string key = settings_key(all[i]);
    const auto row =
        std::find_if(rows.begin(), rows.end(), [&](const Run* r) { return r->settings == key; });
    out.push_back(row != rows.end() ? (*row)->color : loaded_color(i));
  }
  return out;
}

}  // namespace commlab::ui
