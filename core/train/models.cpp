#include "train/models.h"

#include <cmath>
#include <stdexcept>

#include "io/status.h"
#include "train/layers/conv.h"
#include "train/layers/transformer.h"

namespace commlab {

Model make_model(const std::string& name, const Dataset& train, const std::vector<int>& hidden) {
  if (name == "mlp") {
    if (train.labels_per_row != 1) {
      throw bad_input("model mlp needs a classification data set (not text)");
    }
    return make_mlp(static_cast<int>(train.x.cols()),
                    hidden.empty() ? std::vector<int>{256} : hidden, train.num_classes);
  }
  if (name == "cnn") {
    const int side = static_cast<int>(std::lround(std::sqrt(static_cast<double>(train.x.cols()))));
    if (train.labels_per_row != 1 || side * side != train.x.cols() || side % 4 != 0) {
      throw bad_input(
          "model cnn needs square single-channel images with a side "
          "divisible by 4 (e.g. fashion-mnist)");
    }
    return make_cnn(ImageShape{side, side, 1}, train.num_classes);
  }
  if (name == "transformer") {
    if (train.labels_per_row <= 1) {
      throw bad_input("model transformer needs text data (--data text --text FILE)");
    }
    const int dim = hidden.empty() ? 64 : hidden[0];
    return make_transformer(train.num_classes, static_cast<int>(train.x.cols()), dim, 4, 2);
  }
  throw bad_input("unknown model '" + name + "' (expected mlp, cnn or transformer)");
}

}  // namespace commlab
