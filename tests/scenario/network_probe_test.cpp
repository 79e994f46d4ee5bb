// Sample::network: what the packet backend's queues and ports did during each iteration.
#include <gtest/gtest.h>

#include "scenario/runner.h"
#include "scenario/scenario.h"

namespace commlab {
namespace {

// `load` empty: the scenario leaves packet.background_load out (closed-loop backgrounds).
std::string probe_text(const std::string& backend, const std::string& background,
                       const std::string& load) {
  return R"({"name": "probe", "seed": 3,
    "cluster": {"spec": "fattree:k=4,gbps=100", "backend": ")" +
         backend + R"("},
    "packet": {"queue_packets": 8, "background": ")" +
         background + "\"" + (load.empty() ? "" : R"(, "background_load": )" + load) + R"(},
    "workload": {"model": "mlp", "hidden": [16], "dataset": "spiral"},
    "training": {"ranks": 16, "iterations": 3, "global_batch": 64, "eval_every": 0, "eval_rows": 0}})";
}

RunConfig tiny_run(const std::string& backend, const std::string& background = "incast:4",
                   const std::string& load = "") {
  return parse_scenario_text(probe_text(backend, background, load), "probe.json").runs.at(0);
}

TEST(NetworkProbe, PacketBackendReportsEveryIntervalOnceInTimeOrder) {
  RunSession session(tiny_run("packet"));
  double last_t = 0;
  size_t points = 0;
  for (int i = 0; i < 3; ++i) {
    const Sample& s = session.step();
    ASSERT_FALSE(s.network.empty()) << "iteration " << i;
    for (const NetworkPoint& p : s.network) {
      // Intervals arrive in time order and none twice (t_s strictly increases).
      EXPECT_GT(p.t_s, last_t);
      last_t = p.t_s;
      // Utilisation is a busy fraction of the interval, for the mean and the busiest port.
      EXPECT_GE(p.mean_utilisation, 0.0);
      EXPECT_LE(p.mean_utilisation, p.max_utilisation + 1e-12);
      EXPECT_LE(p.max_utilisation, 1.0 + 1e-6);
      EXPECT_GE(p.max_queue_bytes, 0.0);
      ++points;
    }
  }
  // The closed-loop incast (4 senders at line rate into one port) keeps some port busy: not
  // every interval can be idle.
  double busiest = 0;
  for (const Sample& s : session.samples())
    for (const NetworkPoint& p : s.network) busiest = std::max(busiest, p.max_utilisation);
  EXPECT_GT(busiest, 0.5);
  EXPECT_GT(points, 3u);
}

TEST(NetworkProbe, AnalyticalBackendHasNoQueuesToReport) {
  RunSession session(tiny_run("analytical"));
  EXPECT_TRUE(session.step().network.empty());
}

// "onoff" is what the schema, the docs and the Training panel offer: it once passed validation and
// failed when the run began ("LOAD must be a number"). Its load is packet.background_load.
TEST(NetworkProbe, OnOffBackgroundRunsAtTheScenariosLoad) {
  // 30% of line rate: an open-loop source above what the ring leaves free backs up without bound
  // (at 80% the packet backend's memory budget stops it, as it should).
  const RunConfig c = tiny_run("packet", "onoff", "0.3");
  EXPECT_TRUE(check_run_config(c).empty());
  const TrafficSpec spec = background_traffic(c.packet);
  EXPECT_EQ(spec.pattern, Pattern::kOnOff);
  EXPECT_EQ(spec.load, 0.3);
  RunSession session(c);
  double busiest = 0;
  for (const NetworkPoint& p : session.step().network)
    busiest = std::max(busiest, p.max_utilisation);
  EXPECT_GT(busiest, 0.0);  // the on-off senders put bytes on some port
  RunConfig idle = c;
  idle.packet.background_load = 0;  // an on-off source at load 0 sends nothing: refused by name
  const ConfigProblems problems = check_run_config(idle);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "packet.background");
  EXPECT_EQ(problems[0].text(),
            "packet.background: onoff needs packet.background_load above 0, got 0");
}

// A closed-loop background (perm, alltoall, incast:K) never reads packet.background_load: a
// scenario that writes it beside one was accepted and the load silently had no effect.
// It is refused by name, written in the file or by --set; the default is not, and the resolved
// scenario a results folder keeps (to_json) leaves it out so that folder reruns.
TEST(NetworkProbe, BackgroundLoadBesideAClosedLoopPatternIsRefused) {
  for (const std::string bg : {"perm", "alltoall", "incast:4"}) {
    try {
      parse_scenario_text(probe_text("packet", bg, "0.9"), "probe.json");
      ADD_FAILURE() << bg << ": background_load accepted";
    } catch (const ScenarioError& e) {
      ASSERT_EQ(e.problems.size(), 1u) << bg;
      EXPECT_EQ(e.lines()[0],
                "probe.json:packet.background_load: 0.9 given but packet.background is '" + bg +
                    "', a closed-loop pattern (a pair starts its next flow when the last "
                    "completes) that does not read it; the load applies to onoff only: remove "
                    "the field or use onoff");
    }
  }
  EXPECT_THROW(parse_scenario_text(probe_text("packet", "perm", ""), "probe.json",
                                   {"packet.background_load=0.5"}),
               ScenarioError);
  // onoff reads it; none has no background at all: both keep accepting it.
  EXPECT_NO_THROW(parse_scenario_text(probe_text("packet", "onoff", "0.3"), "probe.json"));
  EXPECT_NO_THROW(parse_scenario_text(probe_text("packet", "none", "0.3"), "probe.json"));
  // The resolved scenario of a perm run has no background_load, and parses again.
  const Experiment exp = parse_scenario_text(probe_text("packet", "perm", ""), "probe.json");
  EXPECT_FALSE(exp.resolved.contains(nlohmann::json::json_pointer("/packet/background_load")));
  EXPECT_NO_THROW(parse_scenario_text(exp.resolved.dump(), "probe.json"));
}

}  // namespace
}  // namespace commlab
