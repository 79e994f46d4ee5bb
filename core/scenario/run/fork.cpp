#include "scenario/run/fork.h"

#include <array>
#include <nlohmann/json.hpp>
#include <string_view>

#include "scenario/run/compressed_reducer.h"
#include "scenario/schema.h"

namespace commlab {

namespace {

// JSON pointers (of to_json's flattened document) a fork may change, with everything under them
// ("/training/lr_grid" covers "/training/lr_grid/0"; "/training/lr" is not "/training/lr_grid").
constexpr std::array<std::string_view, 17> kForkMayChange = {"/name",
                                                             "/seeds",
                                                             "/cluster",
                                                             "/collective",
                                                             "/packet",
                                                             "/techniques",
                                                             "/workload/time_as",
                                                             "/training/lr",
                                                             "/training/lr_grid",
                                                             "/training/tune_seeds",
                                                             "/training/momentum",
                                                             "/training/weight_decay",
                                                             "/training/warmup",
                                                             "/training/decay",
                                                             "/training/iterations",
                                                             "/training/target_accuracy",
                                                             "/training/tta_window"};

bool may_change(const std::string& pointer) {
  for (std::string_view allowed : kForkMayChange) {
    if (pointer.starts_with(allowed) &&
        (pointer.size() == allowed.size() || pointer[allowed.size()] == '/'))
      return true;
  }
  return false;
}

// "/workload/hidden/0" -> "workload.hidden[0]", as scenario messages name fields.
std::string field_name(const std::string& pointer) {
  std::string name;
  size_t at = 1;
  while (at <= pointer.size()) {
    const size_t end = std::min(pointer.find('/', at), pointer.size());
    const std::string part = pointer.substr(at, end - at);
    const bool index = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
    name += index ? "[" + part + "]" : (name.empty() ? "" : ".") + part;
    at = end + 1;
  }
  return name;
}

std::string value_text(const nlohmann::json& flat, const std::string& pointer) {
  const auto it = flat.find(pointer);
  if (it == flat.end()) return "unset";
  std::string text = it->dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

}  // namespace

std::string fork_problem(const RunConfig& parent, const RunConfig& child) {
  if (parent.execution != ExecutionMode::kSimulated || child.execution != ExecutionMode::kSimulated)
    return "a fork continues a simulated run (execution \"simulated\")";
  if (parent.workload.kind != WorkloadKind::kTrain || child.workload.kind != WorkloadKind::kTrain)
    return "a fork continues a training run (workload.kind \"train\")";
  // State a fork does not carry over, so the fork would not continue the same run: the packet
  // network's clock, queues and background traffic, and the compressors' error-feedback residuals
  // and warm starts.
  for (const RunConfig* c : {&parent, &child}) {
    if (c->cluster.backend == ClusterBackend::kPacket)
      return "'" + c->name + "' runs the packet backend (cluster.backend), whose queues and " +
             "background traffic a fork cannot carry over: a fork needs the analytical backend";
    if (uses_compression_baseline(*c))
      return "'" + c->name + "' uses a stateful compressor (techniques.topk or " +
             "techniques.powersgd), whose residuals a fork cannot carry over";
  }
  const nlohmann::json a = to_json(parent).flatten();
  const nlohmann::json b = to_json(child).flatten();
  for (const nlohmann::json* doc : {&a, &b}) {
    for (auto it = doc->begin(); it != doc->end(); ++it) {
      const std::string& pointer = it.key();
      if (may_change(pointer) ||
          (a.contains(pointer) && b.contains(pointer) && a.at(pointer) == b.at(pointer)))
        continue;
      return field_name(pointer) + " is " + value_text(b, pointer) + " in '" + child.name +
             "' but " + value_text(a, pointer) + " in '" + parent.name +
             "', which it forks from: a fork keeps the training (seed, ranks, batch, sharding, "
             "evaluation, optimizer, model and data) and may change the techniques, the "
             "collective, the network and the learning-rate schedule";
    }
  }
  return "";
}

}  // namespace commlab
