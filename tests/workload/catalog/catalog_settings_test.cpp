// catalog_settings: every field of a catalog workload request is checked once, and the refusal
// names the field as the Python module's time_workload names its argument (commlab-cli prints the
// flag of the same name). A good request comes back resolved on the cluster.
#include "workload/catalog/catalog_settings.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

namespace commlab {
namespace {

// llama3-8b: 32 layers, 32 heads, 8 KV heads.
CatalogRequest llama(std::function<void(CatalogRequest&)> edit = {}) {
  CatalogRequest r;
  r.catalog = "llama3-8b";
  if (edit) edit(r);
  return r;
}

Status refusal(const CatalogRequest& r, int gpus) {
  StatusOr<CatalogSettings> s = catalog_settings(r, gpus);
  if (s.ok()) {
    ADD_FAILURE() << "accepted";
    return {};
  }
  return s.status();
}

TEST(CatalogSettings, AGoodRequestIsResolvedOnTheCluster) {
  StatusOr<CatalogSettings> s = catalog_settings(llama([](CatalogRequest& r) {
                                                   r.tp = 2, r.pp = 2, r.seq = 4096;
                                                   r.engine = "sum", r.skip = 1, r.ratio = 0.5;
                                                 }),
                                                 16);
  ASSERT_TRUE(s.ok()) << s.status().text();
  // dp 0 fills the cluster: floor(16 / (tp 2 x pp 2)) = 4 replicas.
  EXPECT_EQ(s->parallel.dp, 4);
  EXPECT_EQ(s->parallel.gpus(), 16);
  EXPECT_EQ(s->spec.seq, 4096);  // the asked sequence length, not the model's 8192
  EXPECT_FALSE(s->graph_engine);
  EXPECT_EQ(s->compute.gpu.name, "h100");
  EXPECT_DOUBLE_EQ(s->techniques.dp_ratio, 0.5);
  EXPECT_EQ(s->techniques.dp_skip, 1);
}

TEST(CatalogSettings, EachBadFieldIsNamed) {
  struct Case {
    std::function<void(CatalogRequest&)> edit;
    int gpus;
    std::string field, message;
  };
  const Case cases[] = {
      {[](CatalogRequest& r) { r.catalog = "bogus"; }, 8, "catalog", ""},
      {[](CatalogRequest& r) { r.engine = "bogus"; }, 8, "engine",
       "expected graph or sum, got 'bogus'"},
      {[](CatalogRequest& r) { r.tp = 0; }, 8, "tp", "expected 1 to 4096, got 0"},
      {[](CatalogRequest& r) { r.pp = 5000; }, 8, "pp", "expected 1 to 4096, got 5000"},
      {[](CatalogRequest& r) { r.dp = -1; }, 8, "dp", "expected 0 to 1048576, got -1"},
      {[](CatalogRequest& r) { r.micro_batch = 0; }, 8, "micro_batch",
       "expected 1 to 65536, got 0"},
      {[](CatalogRequest& r) { r.global_batch = 0; }, 8, "global_batch",
       "expected 1 to 16777216, got 0"},
      {[](CatalogRequest& r) { r.seq = -1; }, 8, "seq", "expected 0 to 1048576, got -1"},
      {[](CatalogRequest& r) { r.gpu = "v100"; }, 8, "gpu", ""},
      {[](CatalogRequest& r) { r.mfu = NAN; }, 8, "mfu", "expected a number in (0, 1], got nan"},
      {[](CatalogRequest& r) { r.ratio = 0; }, 8, "ratio", "expected a number in (0, 1], got 0"},
      {[](CatalogRequest& r) { r.codec_s_per_byte = -1; }, 8, "codec_s_per_byte",
       "expected a finite number >= 0, got -1"},
      // tp 4 x pp 4 = 16 GPUs on 8.
      {[](CatalogRequest& r) { r.tp = 4, r.pp = 4; }, 8, "tp",
       "tp x pp = 16 exceeds the 8 GPUs of the cluster"},
      // dp 4 x tp 2 x pp 2 = 16 GPUs on 8.
      {[](CatalogRequest& r) { r.dp = 4, r.tp = 2, r.pp = 2; }, 8, "dp",
       "dp x tp x pp = 16 exceeds the 8 GPUs of the cluster"},
      // 32 layers over 3 stages.
      {[](CatalogRequest& r) { r.tp = 1, r.pp = 3; }, 24, "pp",
       "llama3-8b: 32 layers do not split into pp=3 stages"},
      // 32 heads over tp 3.
      {[](CatalogRequest& r) { r.tp = 3; }, 24, "tp", "llama3-8b: 32 heads do not split over tp=3"},
      // dp = 8 / tp 4 = 2 replicas: global batch 3 is not a multiple of dp x micro_batch = 2.
      {[](CatalogRequest& r) { r.global_batch = 3; }, 8, "global_batch",
       "global batch 3 is not a multiple of dp*micro_batch = 2"},
      // The DP ring of dp = 2 ranks has N-1 = 1 reduce-scatter step.
      {[](CatalogRequest& r) { r.skip = 2; }, 8, "skip",
       "the DP reduce-scatter's ring on 2 ranks skips at most 1 steps (N-1), got 2"},
  };
  for (const Case& c : cases) {
    const Status s = refusal(llama(c.edit), c.gpus);
    EXPECT_EQ(s.code, ErrorCode::kBadInput) << c.field;
    EXPECT_EQ(s.field, c.field) << s.text();
    if (!c.message.empty()) EXPECT_EQ(s.message, c.message) << c.field;
  }
}

}  // namespace
}  // namespace commlab
