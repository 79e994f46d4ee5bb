// Topology JSON: compact and explicit round trips; errors carry the JSON path.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "support/error_of.h"
#include "topology/builders.h"
#include "topology/presets.h"
#include "topology/topology_json.h"

namespace commlab {
namespace {

using nlohmann::json;

void expect_same(const Topology& a, const Topology& b) {
  ASSERT_EQ(a.nodes().size(), b.nodes().size());
  ASSERT_EQ(a.links().size(), b.links().size());
  for (size_t i = 0; i < a.nodes().size(); ++i) {
    EXPECT_EQ(a.nodes()[i].kind, b.nodes()[i].kind);
    EXPECT_EQ(a.nodes()[i].name, b.nodes()[i].name);
    EXPECT_EQ(a.nodes()[i].tier, b.nodes()[i].tier);
  }
  for (size_t i = 0; i < a.links().size(); ++i) {
    EXPECT_EQ(a.links()[i].from, b.links()[i].from);
    EXPECT_EQ(a.links()[i].to, b.links()[i].to);
    EXPECT_NEAR(a.links()[i].bandwidth_Bps, b.links()[i].bandwidth_Bps,
                1e-12 * a.links()[i].bandwidth_Bps);
    EXPECT_NEAR(a.links()[i].latency_s, b.links()[i].latency_s, 1e-18);
    EXPECT_EQ(a.links()[i].buffer_bytes, b.links()[i].buffer_bytes);
  }
}

std::string json_error(const json& j) {
  return testing::error_of([&] { topology_from_json(j, "cluster"); });
}

TEST(TopologyJson, CompactRoundTrip) {
  for (const char* spec : {"fattree:k=4,gbps=200", "flat:16", "netzip-512:gbps=400",
                           "leafspine:servers=6,gpus_per_server=4,oversub=2", "torus:dims=3x3"}) {
    Topology t = cluster_from_spec(spec);
    json j = topology_to_json(t);
    ASSERT_TRUE(j.contains("builder")) << spec;
    expect_same(t, topology_from_json(json::parse(j.dump())));
  }
}

TEST(TopologyJson, ExplicitRoundTripThroughAFile) {
  Topology t = cluster_from_spec("rail:servers=2,gpus_per_server=4");
  std::string file = std::string(COMMLAB_BINARY_DIR) + "/topology_roundtrip.json";
  save_topology(t, file, JsonForm::kExplicit);
  Topology back = load_topology(file);
  expect_same(t, back);
  EXPECT_EQ(back.gpu_model(), "h100");
}

TEST(TopologyJson, ExplicitFormAcceptsNamesAndDuplex) {
  json j = json::parse(R"({"nodes": [{"kind": "gpu", "name": "a"}, {"kind": "gpu", "name": "b"}],
      "links": [{"from": "a", "to": "b", "bandwidth_gbps": 80, "latency_us": 2, "duplex": true}]})");
  Topology t = topology_from_json(j);
  ASSERT_EQ(t.links().size(), 2u);
  EXPECT_DOUBLE_EQ(t.links()[1].bandwidth_Bps, 10e9);  // 80 Gb/s
  EXPECT_DOUBLE_EQ(t.links()[1].latency_s, 2e-6);
}

TEST(TopologyJson, ErrorsNameTheJsonPath) {
  json base = json::parse(R"({"nodes": [{"kind": "gpu"}, {"kind": "switch"}, {"kind": "gpu"}],
      "links": [{"from": 0, "to": 1, "bandwidth_gbps": 100, "duplex": true},
                {"from": 2, "to": 1, "bandwidth_gbps": 100, "duplex": true}]})");
  json zero = base;
  zero["links"][1]["bandwidth_gbps"] = 0;
  EXPECT_EQ(json_error(zero), "cluster.links[1].bandwidth_gbps: expected a positive number, got 0");
  json bad_ref = base;
  bad_ref["links"][0]["to"] = 9;
  EXPECT_EQ(json_error(bad_ref),
            "cluster.links[0].to: expected a node index in [0, 3) or a node name, got 9");
  json kind = base;
  kind["nodes"][1]["kind"] = "router";
  EXPECT_EQ(json_error(kind),
            "cluster.nodes[1].kind: expected one of gpu|nvswitch|pcie-switch|nic|switch, got "
            "\"router\"");
  json disconnected = base;
  disconnected["links"].erase(1);
  EXPECT_EQ(json_error(disconnected),
            "cluster: topology 'custom': the graph is disconnected: gpu2 cannot be reached from "
            "gpu0");
  EXPECT_EQ(json_error(json{{"builder", "fattree"}, {"params", {{"k", 5}}}}),
            "cluster.params.k: expected an even integer in [2, 64], got 5");
  // Optional members of the wrong type (the fuzzer's find: a number as a node name would
  // escape as nlohmann's type_error, without file or field).
  json name = base;
  name["nodes"][1]["name"] = 100;
  EXPECT_EQ(json_error(name), "cluster.nodes[1].name: expected a string, got 100");
  json server = base;
  server["nodes"][0]["server"] = "zero";
  EXPECT_EQ(json_error(server),
            "cluster.nodes[0].server: expected an integer in [-1, 2^30], got \"zero\"");
  json duplex = base;
  duplex["links"][0]["duplex"] = 1;
  EXPECT_EQ(json_error(duplex), "cluster.links[0].duplex: expected true or false, got 1");
}

}  // namespace
}  // namespace commlab
