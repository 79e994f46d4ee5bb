// cluster_from_spec: presets, builder specs and precise errors.
#include "topology/presets.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "support/error_of.h"

namespace commlab {
namespace {

std::string spec_error(std::string_view spec) {
  return testing::error_of([&] { cluster_from_spec(spec); });
}

TEST(ClusterSpec, FatTreeWithParameters) {
  Topology t = cluster_from_spec("fattree:k=4,gbps=400,hop_us=0.5");
  EXPECT_EQ(t.ranks(), 16);  // k^3/4
  EXPECT_DOUBLE_EQ(t.links()[0].bandwidth_Bps, 400e9 / 8);
  EXPECT_DOUBLE_EQ(t.links()[0].latency_s, 0.5e-6);
  EXPECT_EQ(cluster_from_spec("fattree").ranks(), 128);  // default k = 8
}

TEST(ClusterSpec, FlatTakesRanksFirst) {
  Topology t = cluster_from_spec("flat:64,gbps=100,alpha_us=3");
  EXPECT_EQ(t.ranks(), 64);
  EXPECT_DOUBLE_EQ(t.links()[0].bandwidth_Bps, 12.5e9);
  EXPECT_DOUBLE_EQ(t.links()[0].latency_s, 3e-6);
  EXPECT_EQ(t.spec(), "flat:ranks=64,gbps=100,alpha_us=3");
}

TEST(ClusterSpec, NamedClusters) {
  EXPECT_EQ(cluster_from_spec("dgx-h100").ranks(), 8);
  EXPECT_EQ(cluster_from_spec("dgx-h100-pod").ranks(), 1024);  // 128 DGX x 8 GPUs
  EXPECT_EQ(cluster_from_spec("dgx-h100-pod:nodes=32").ranks(), 256);
  Topology nz = cluster_from_spec("netzip-512:gbps=200");
  EXPECT_EQ(nz.ranks(), 512);
  for (const Link& l : nz.links())  // NIC links run at 200 Gb/s = 25 GB/s
    if (nz.nodes()[l.from].kind == NodeKind::kNic && nz.nodes()[l.to].kind == NodeKind::kSwitch)
      EXPECT_DOUBLE_EQ(l.bandwidth_Bps, 25e9);
  EXPECT_EQ(cluster_from_spec("torus:dims=4x4x2").ranks(), 32);
  EXPECT_EQ(cluster_from_spec("rail:servers=4,gpus_per_server=4").ranks(), 16);
}

TEST(ClusterSpec, NvlinkOverridesTheGpuTypesRate) {
  // Every GPU -> NVSwitch link carries the NVLink rate: h100's 450 GB/s per direction by default,
  // nvlink=200 GB/s when the spec says so (node, leafspine and rail alike); the spec round-trips.
  auto nvlink_rates = [](const Topology& t) {
    std::vector<double> rates;
    for (const Link& l : t.links())
      if (t.nodes()[l.from].kind == NodeKind::kGpu && t.nodes()[l.to].kind == NodeKind::kNvSwitch)
        rates.push_back(l.bandwidth_Bps);
    return rates;
  };
  for (const char* spec : {"node:gpus=4", "leafspine:servers=2,gpus_per_server=4",
                           "rail:servers=2,gpus_per_server=4"}) {
    SCOPED_TRACE(spec);
    for (double r : nvlink_rates(cluster_from_spec(spec))) EXPECT_DOUBLE_EQ(r, 450e9);
    const Topology t = cluster_from_spec(std::string(spec) + ",nvlink=200");
    ASSERT_FALSE(nvlink_rates(t).empty());
    for (double r : nvlink_rates(t)) EXPECT_DOUBLE_EQ(r, 200e9);
    EXPECT_NE(t.spec().find(",nvlink=200"), std::string::npos) << t.spec();
    for (double r : nvlink_rates(cluster_from_spec(t.spec()))) EXPECT_DOUBLE_EQ(r, 200e9);
  }
  EXPECT_EQ(cluster_from_spec("node:gpus=4").spec().find("nvlink"), std::string::npos);
  EXPECT_NE(spec_error("node:gpus=4,nvlink=-1").find("nvlink"), std::string::npos);
}

TEST(ClusterSpec, ErrorsNameTheParameter) {
  EXPECT_EQ(spec_error("fattree:k=3"),
            "cluster 'fattree:k=3': k: expected an even integer in [2, 64], got 3");
  EXPECT_EQ(spec_error("fattree:k=8,gbps=0"),
            "cluster 'fattree:k=8,gbps=0': gbps: expected a number > 0, got 0");
  EXPECT_EQ(spec_error("fattree:kk=8"),
            "cluster 'fattree:kk=8': kk: unknown parameter (accepted: k, gbps, hop_us, buffer)");
  EXPECT_EQ(spec_error("netzip-512:gbps=300"),
            "cluster 'netzip-512:gbps=300': gbps: expected one of 100|200|400, got 300");
  EXPECT_EQ(spec_error("flat:abc"),
            "cluster 'flat:abc': ranks: expected an integer in [1, 1048576], got abc");
  EXPECT_NE(spec_error("mesh:4").find("unknown cluster builder or preset 'mesh'"),
            std::string::npos);
  EXPECT_EQ(spec_error("no/such/file.json"),
            "no/such/file.json: cannot open: No such file or directory");
}

}  // namespace
}  // namespace commlab
