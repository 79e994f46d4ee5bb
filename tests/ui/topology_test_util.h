#pragma once
// The Topology page for widget tests; apart from ui_test_util.h, which tests of commlab_charts
// alone (chart_files_test) include without any page.
#include <memory>

#include "topology_view.h"
#include "ui_test_util.h"

namespace commlab::ui::test {

// A TopologyView of w x h px, shown, once its first picture (the default cluster) is drawn; nullptr
// when that picture did not come in time (callers ASSERT on the pointer before using the view).
inline std::unique_ptr<TopologyView> shown_topology_view(int w, int h) {
  app();
  auto view = std::make_unique<TopologyView>();
  view->resize(w, h);
  view->show();
  if (!wait_for([&] { return view->idle() && view->picture(); })) return nullptr;
  return view;
}

}  // namespace commlab::ui::test
