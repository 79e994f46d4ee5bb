// Writes the FP32 gradient (raw little-endian, all layers concatenated in forward order) of a
// Fashion-MNIST MLP after a few SGD iterations: real gradients for the codec benchmarks.
// Usage: train_dump_gradients OUT.f32 [ITERATIONS=20] [HIDDEN=256]
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "train/models.h"
#include "train/trainer.h"

int main(int argc, char** argv) {
  using namespace commlab;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.f32 [ITERATIONS] [HIDDEN]\n", argv[0]);
    return 2;
  }
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 20;
  const int hidden = argc > 3 ? std::atoi(argv[3]) : 256;
  auto data = load_fashion_mnist();
  if (!data) {
    std::fprintf(stderr, "%s\n", data.error().c_str());
    return 2;
  }
  TrainerConfig c;
  c.iterations = iterations;
  c.global_batch = 64;
  c.eval_every = 0;
  c.eval_rows = 1000;
  ExactAverageReducer reducer;
  DataParallelTrainer trainer(make_mlp(784, {hidden}, 10), data.value().train, data.value().test, c,
                              reducer);
  Sample s = trainer.run();
  const std::vector<float> g = trainer.replica(0).flat_grads();
  std::ofstream out(argv[1], std::ios::binary);
  out.write(reinterpret_cast<const char*>(g.data()), static_cast<std::streamsize>(g.size() * 4));
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("wrote %zu FP32 gradients (%d iterations, train loss %.4f, test acc %.4f) to %s\n",
              g.size(), s.iteration, s.train_loss, s.test_accuracy, argv[1]);
  return 0;
}
