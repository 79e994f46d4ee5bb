// Writes the tensors the codec table of docs/tensors.md is measured on, as raw little-endian BF16
// (round to nearest even), one file per (model, tensor, layer kind, iteration):
//   - the project's character-level transformer (core/train/layers/transformer.h, width 64, 2
//   blocks,
//     4 heads) trained on a real text: gradients, weights and activations after iterations 1, 100
//     and 400, split by layer kind (embedding, attention, mlp, norm, linear = the output head;
//     activations: the embedding output, each block's output, the logits);
//   - the Fashion-MNIST MLP and CNN: gradients after 20 iterations, by kind (linear, conv);
//   - real trained parameters shipped by Debian: the CMU Sphinx US-English acoustic model's
//     Gaussian means and variances (pocketsphinx-en-us, Sphinx-3 binary float32 files).
// Usage: tensor_dump OUT_DIR [TEXT=/usr/share/common-licenses/GPL-3] [SPHINX_DIR]
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "numeric/float16.h"
#include "train/data/synthetic.h"
#include "train/dataset.h"
#include "train/models.h"
#include "train/trainer.h"

namespace commlab {
namespace {

namespace fs = std::filesystem;

void write_bf16(const fs::path& file, const std::vector<float>& values) {
  std::vector<uint16_t> h(values.size());
  for (size_t i = 0; i < values.size(); ++i) h[i] = float_to_bf16(values[i]);
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(h.data()), static_cast<std::streamsize>(h.size() * 2));
  if (!out) throw std::runtime_error("cannot write " + file.string());
  std::printf("%-56s %9zu values\n", file.filename().c_str(), values.size());
}

// Gradients or weights of every layer, concatenated per layer kind in forward order.
std::map<std::string, std::vector<float>> by_kind(const Model& m, bool grads) {
  std::map<std::string, std::vector<float>> out;
  for (size_t i = 0; i < m.num_layers(); ++i) {
    const Layer& l = m.layer(i);
    std::span<const float> v = grads ? l.grads() : l.params();
    for (const Layer::ParamSegment& s : l.param_segments())
      out[s.kind].insert(out[s.kind].end(), v.begin() + s.offset, v.begin() + s.offset + s.count);
  }
  return out;
}

void dump_model(const fs::path& dir, const std::string& model, const Model& m, int iteration,
                bool weights, bool activations) {
  const std::string it = "-it" + std::to_string(iteration);
  for (const auto& [kind, v] : by_kind(m, true))
    write_bf16(dir / (model + "-grad-" + kind + it + ".bf16"), v);
  if (weights)
    for (const auto& [kind, v] : by_kind(m, false))
      write_bf16(dir / (model + "-weight-" + kind + it + ".bf16"), v);
  if (!activations) return;
  std::map<std::string, std::vector<float>> acts;
  for (size_t i = 0; i < m.num_layers(); ++i) {
    const Layer& l = m.layer(i);
    const std::string kind = l.param_segments().size() > 1 ? "block" : l.kind();
    const Matrix& a = m.activation(i);
    acts[kind].insert(acts[kind].end(), a.data(), a.data() + a.size());
  }
  for (const auto& [kind, v] : acts)
    write_bf16(dir / (model + "-activation-" + kind + it + ".bf16"), v);
}

void train_and_dump(const fs::path& dir, const std::string& model, const TrainTest& data,
                    std::vector<int> hidden, const std::vector<int>& at, bool weights,
                    bool activations) {
  TrainerConfig c;
  c.iterations = at.back();
  c.global_batch = 32;
  c.eval_every = 0;
  c.eval_rows = 200;
  c.optimizer.lr = model == "transformer" ? 0.003 : 0.05;
  if (model == "transformer") c.optimizer.kind = OptimizerKind::kAdamW;
  ExactAverageReducer reducer;
  DataParallelTrainer trainer(make_model(model, data.train, hidden), data.train, data.test, c,
                              reducer);
  for (int i = 1; i <= at.back(); ++i) {
    Sample s = trainer.step();
    for (int want : at)
      if (i == want) {
        std::printf("# %s iteration %d: train loss %.4f\n", model.c_str(), i, s.train_loss);
        dump_model(dir, model, trainer.replica(0), i, weights, activations);
      }
  }
}

// A Sphinx-3 binary parameter file: text header up to "endhdr\n", the byte-order magic 0x11223344,
// n_mgau, n_feat, n_density, n_feat vector lengths, the float count, the floats, a checksum.
std::vector<float> read_sphinx(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t end = bytes.find("endhdr\n");
  if (end == std::string::npos) throw std::runtime_error(file.string() + ": no Sphinx header");
  size_t at = end + 7;
  auto u32 = [&](const char* what) {
    if (at + 4 > bytes.size()) throw std::runtime_error(file.string() + ": truncated at " + what);
    uint32_t v;
    std::memcpy(&v, bytes.data() + at, 4);
    at += 4;
    return v;
  };
  if (u32("magic") != 0x11223344u) throw std::runtime_error(file.string() + ": not little-endian");
  u32("n_mgau");
  const uint32_t n_feat = u32("n_feat");
  u32("n_density");
  for (uint32_t f = 0; f < n_feat; ++f) u32("veclen");
  const uint32_t count = u32("count");
  if (at + 4ull * count > bytes.size())
    throw std::runtime_error(file.string() + ": fewer floats than its header says");
  std::vector<float> v(count);
  std::memcpy(v.data(), bytes.data() + at, 4ull * count);
  return v;
}

}  // namespace
}  // namespace commlab

int main(int argc, char** argv) {
  using namespace commlab;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR [TEXT] [SPHINX_DIR]\n", argv[0]);
    return 2;
  }
  try {
    const fs::path dir = argv[1];
    fs::create_directories(dir);
    const std::string text = argc > 2 ? argv[2] : "/usr/share/common-licenses/GPL-3";
    const fs::path sphinx = argc > 3 ? argv[3] : "/usr/share/pocketsphinx/model/en-us/en-us";
    auto chars = load_char_text(text, 64, 0.1);
    if (!chars) throw std::runtime_error(chars.error());
    train_and_dump(dir, "transformer", chars.value(), {64}, {1, 100, 400}, true, true);
    auto fmnist = load_fashion_mnist();
    if (!fmnist) throw std::runtime_error(fmnist.error());
    train_and_dump(dir, "mlp", fmnist.value(), {256}, {20}, false, false);
    train_and_dump(dir, "cnn", fmnist.value(), {}, {20}, false, false);
    for (const char* name : {"means", "variances"})
      if (fs::exists(sphinx / name))
        write_bf16(dir / (std::string("sphinx-weight-") + name + ".bf16"),
                   read_sphinx(sphinx / name));
      else
        std::printf("# %s not found (apt install pocketsphinx-en-us)\n", (sphinx / name).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensor_dump: %s\n", e.what());
    return 1;
  }
  return 0;
}
