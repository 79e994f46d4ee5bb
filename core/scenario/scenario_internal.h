#pragma once
// Shared between the scenario parser files; not part of the public API.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "scenario/config_problem.h"
#include "scenario/run_config.h"

namespace commlab {

struct ClusterInfo {
  int gpus = 0;
  std::string error;  // non-empty: the spec cannot be built
};

// Builds each distinct cluster spec once per scenario (a 1,000-run sweep shares one cluster).
class ClusterCache {
 public:
  ClusterInfo lookup(const std::string& spec);

 private:
  std::map<std::string, ClusterInfo> cache_;
};

// Cross-field problems of one resolved run (code kBadInput, the field each concerns).
ConfigProblems check_run(const RunConfig& config, ClusterCache& cache);

}  // namespace commlab
