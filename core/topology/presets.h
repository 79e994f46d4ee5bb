#pragma once
// Clusters by name: builder specs ("fattree:k=8,gbps=100"), named presets ("dgx-h100-pod",
// "netzip-512:gbps=200") and topology JSON files. The one entry point for --cluster and scenarios.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "topology/params.h"
#include "topology/topology.h"

namespace commlab {

// `spec` is one of
//   - a builder with parameters: fattree:k=K[,gbps=G][,hop_us=U]   flat:N[,gbps=G][,alpha_us=U]
//     node:gpus=8,gpu=h100,fabric=nvswitch|pcie   leafspine:servers=S,gpus_per_server=G,radix=R,
//     oversub=O,gbps=G   rail:(as leafspine)   torus:dims=8x8[x8],gbps=G
//     (node, leafspine and rail also take nvlink=GB/s per GPU and direction; default the GPU's)
//   - a named preset, optionally with parameters: dgx-a100|dgx-h100|dgx-h200|dgx-b200 (one box),
//     dgx-h100-pod[:nodes=N], dgx-b200-pod[:nodes=N], netzip-512[:gbps=100|200|400]
//   - a path to a topology JSON file (ends in .json or contains '/')
// Throws std::invalid_argument naming the parameter and what was expected.
Topology cluster_from_spec(std::string_view spec);

// Builds `builder` from already split parameters (the compact JSON form shares this); every
// message starts with params.where().
Topology build_cluster(std::string_view builder, Params& params);

// (name, one-line description) of every builder and preset, for --help texts and the GUI.
std::vector<std::pair<std::string, std::string>> cluster_catalog();

}  // namespace commlab
