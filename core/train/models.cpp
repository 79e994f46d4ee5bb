#include "train/models.h"

#include <stdexcept>

namespace commlab {

Model make_model(const std::string& name, const Dataset& train, const std::vector<int>& hidden) {
  if (name == "mlp") {
    if (train.labels_per_row != 1) {
      throw std::invalid_argument("model mlp needs a classification data set (not text)");
    }
    return make_mlp(static_cast<int>(train.x.cols()),
                    hidden.empty() ? std::vector<int>{256} : hidden, train.num_classes);
  }
  throw std::invalid_argument("model '" + name + "' is not available yet (expected mlp)");
}

}  // namespace commlab
