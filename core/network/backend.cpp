#include "network/backend.h"

#include <stdexcept>
#include <string>

namespace commlab {

StepResult NetworkBackend::time_flow_graph(const FlowGraph&, const StepOptions&) {
  throw std::logic_error(name() + " backend: flow graphs are not supported (times_flow_graphs())");
}

void check_flow_graph(const FlowGraph& graph) {
  const size_t n = graph.flows.size();
  auto fail = [](const std::string& what) { throw std::logic_error("flow graph: " + what); };
  auto one_per_flow = [&](const char* field, size_t size, size_t expected) {
    if (size != expected)
      fail(std::string(field) + " has " + std::to_string(size) + " entries, expected " +
           std::to_string(expected));
  };
  one_per_flow("settle_s", graph.settle_s.size(), n);
  one_per_flow("after_sent", graph.after_sent.size(), n);
  one_per_flow("needs_begin", graph.needs_begin.size(), n + 1);
  if (graph.needs_begin.front() != 0 || graph.needs_begin.back() != graph.needs.size())
    fail("needs_begin must run from 0 to needs.size() = " + std::to_string(graph.needs.size()));
  for (size_t i = 0; i < n; ++i) {
    const std::string at = "flow " + std::to_string(i) + ": ";
    if (graph.needs_begin[i + 1] < graph.needs_begin[i]) fail(at + "needs_begin decreases");
    for (uint32_t k = graph.needs_begin[i]; k < graph.needs_begin[i + 1]; ++k)
      if (graph.needs[k] >= i)
        fail(at + "needs flow " + std::to_string(graph.needs[k]) + ", expected an earlier flow");
    if (graph.after_sent[i] >= static_cast<int64_t>(i) || graph.after_sent[i] < -1)
      fail(at + "after_sent " + std::to_string(graph.after_sent[i]) +
           ", expected an earlier flow or -1");
    if (!(graph.settle_s[i] >= 0)) fail(at + "settle_s must be >= 0");
  }
}

}  // namespace commlab
