#pragma once
// Topology <-> JSON. Two forms:
//   compact:  {"builder": "fattree", "params": {"k": 8, "gbps": 100}}  (any builder or preset)
//   explicit: {"name": "...", "gpu_model": "h100",
//              "nodes": [{"kind": "gpu", "name": "g0", "server": 0, "tier": 0}, ...],
//              "links": [{"from": 0, "to": "g1", "bandwidth_gbps": 100, "latency_us": 1,
//                         "buffer_bytes": 524288, "duplex": true}, ...]}
// A bare string is a cluster spec ("fattree:k=8"). Errors name the JSON path, e.g.
// "cluster.links[3].bandwidth_gbps: expected a positive number, got 0".
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "topology/topology.h"

namespace commlab {

enum class JsonForm { kCompact, kExplicit };

// Compact needs a builder spec (Topology::spec); hand-made graphs are always written explicitly.
nlohmann::json topology_to_json(const Topology& topology, JsonForm form = JsonForm::kCompact);
// `path` is where `json` sits in its document ("" for the root, "cluster" in a scenario).
Topology topology_from_json(const nlohmann::json& json, const std::string& path = "");

void save_topology(const Topology& topology, const std::string& file,
                   JsonForm form = JsonForm::kCompact);
// Errors start with the file name: "x.json:links[3].bandwidth_gbps: ...".
Topology load_topology(const std::string& file);

}  // namespace commlab
