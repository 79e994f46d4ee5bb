#include "workload/catalog/proxy_model.h"

#include <stdexcept>

#include "io/status.h"
#include "workload/catalog/catalog.h"

namespace commlab {

int64_t ProxyModel::params() const {
  int64_t n = 0;
  for (const ProxyLayer& l : layers) n += l.params;
  return n;
}

double ProxyModel::forward_flops() const {
  double f = 0;
  for (const ProxyLayer& l : layers) f += l.forward_flops;
  return f;
}

ProxyModel vgg19_cifar(int classes) {
  ProxyModel m;
  m.name = classes == 100 ? "vgg19-cifar100" : "vgg19-cifar" + std::to_string(classes);
  m.display = "VGG-19 (CIFAR-" + std::to_string(classes) + ")";
  m.source =
      "Simonyan & Zisserman 2015, configuration E, on 32x32 inputs with a 512 -> classes head";
  // Output channels per convolution, 0 = 2x2 max-pool.
  const int config[] = {64,  64,  0,   128, 128, 0,   256, 256, 256, 256, 0,
                        512, 512, 512, 512, 0,   512, 512, 512, 512, 0};
  int64_t in = 3, side = 32;
  int conv = 0;
  for (int out : config) {
    if (out == 0) {
      side /= 2;
      continue;
    }
    ProxyLayer l;
    l.name = "conv" + std::to_string(++conv);
    l.params = 9 * in * out + out;
    l.forward_flops = 2.0 * 9 * static_cast<double>(in * out) * static_cast<double>(side * side);
    m.layers.push_back(l);
    in = out;
  }
  m.layers.push_back({"fc", in * classes + classes, 2.0 * static_cast<double>(in * classes)});
  return m;
}

ProxyModel transformer_proxy(const std::string& catalog_name, int64_t seq) {
  TransformerSpec s = find_workload(catalog_name);
  if (seq > 0) s.seq = seq;
  ProxyModel m;
  m.name = s.name;
  m.display = s.display;
  m.source = "workload catalog (workload/catalog/catalog.cpp), " + std::to_string(s.seq) +
             " tokens per sample";
  const double tokens = static_cast<double>(s.seq);
  const double h = static_cast<double>(s.hidden);
  const int64_t total = parameter_count(s), layer = layer_parameter_count(s);
  const int64_t head = s.tied_embeddings ? 0 : s.vocab * s.hidden;
  // forward_flops_per_token = 2 (layers x active layer + vocab x h) + 4 layers seq h: the head's
  // 2 vocab h go to the head (or, tied, to the embedding that holds its weights).
  const double head_flops = 2.0 * static_cast<double>(s.vocab) * h * tokens;
  const double per_block =
      (forward_flops_per_token(s) * tokens - head_flops) / static_cast<double>(s.layers);
  m.layers.push_back(
      {"embedding", total - s.layers * layer - head, s.tied_embeddings ? head_flops : 0.0});
  for (int i = 0; i < s.layers; ++i)
    m.layers.push_back({"block" + std::to_string(i + 1), layer, per_block});
  if (head > 0) m.layers.push_back({"head", head, head_flops});
  return m;
}

std::vector<std::string> proxy_model_names() {
  std::vector<std::string> names{"vgg19-cifar100"};
  for (const TransformerSpec& s : workload_catalog()) names.push_back(s.name);
  return names;
}

ProxyModel find_proxy_model(const std::string& name, int64_t seq) {
  if (name == "vgg19-cifar100") return vgg19_cifar(100);
  for (const TransformerSpec& s : workload_catalog())
    if (s.name == name) return transformer_proxy(name, seq);
  std::string known;
  for (const std::string& n : proxy_model_names()) known += (known.empty() ? "" : ", ") + n;
  throw bad_input("unknown model '" + name + "' to time as (known: " + known + ")");
}

}  // namespace commlab
