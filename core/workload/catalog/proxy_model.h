#pragma once
// Models a trained run can be timed as (workload.time_as): the data plane trains the small model
// while every iteration is timed as this model would be on the cluster, from its layers'
// parameters and forward FLOPs per sample. Transformers come from the workload catalog
// (catalog.h); VGG-19 for CIFAR-100 is counted here from its layer shapes.
#include <cstdint>
#include <string>
#include <vector>

namespace commlab {

struct ProxyLayer {
  std::string name;
  int64_t params = 0;
  double forward_flops = 0;  // per training sample (a transformer: per sequence)
};

struct ProxyModel {
  std::string name;                // workload.time_as key
  std::string display;             // "VGG-19 (CIFAR-100)"
  std::string source;              // where its shapes come from
  std::vector<ProxyLayer> layers;  // forward order
  int64_t params() const;
  double forward_flops() const;  // per sample
};

// VGG-19 (Simonyan & Zisserman 2015, configuration E: 16 3x3 convolutions with max-pooling after
// blocks of 2, 2, 4, 4, 4) on 32x32 CIFAR images with the CIFAR head used by common CIFAR
// implementations (one linear layer 512 -> classes after the last 1x1 feature map); each
// convolution has a bias. Forward FLOPs = 2 per multiply-accumulate.
ProxyModel vgg19_cifar(int classes);

// A catalog transformer at `seq` tokens per sample (0: the catalog's sequence length): the
// embedding, one layer per block, and the output head when untied; FLOPs as
// catalog.h's forward_flops_per_token times seq.
ProxyModel transformer_proxy(const std::string& catalog_name, int64_t seq);

// "vgg19-cifar100" or any workload_catalog() name; throws std::invalid_argument naming the known.
ProxyModel find_proxy_model(const std::string& name, int64_t seq = 0);
std::vector<std::string> proxy_model_names();

}  // namespace commlab
