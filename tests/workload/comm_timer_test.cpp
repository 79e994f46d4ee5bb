// The comm timer's all-to-all: an all-to-all materialises n (n - 1) transfers per
// group, so it has the same transfer cap as the collective planner; over the cap it is a one-line
// error naming the ranks, the transfers and the limit, raised before any plan is allocated.
#include "workload/comm_timer.h"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>
#include <string>

#include "collective/algorithms.h"
#include "network/analytical.h"
#include "topology/topology.h"

namespace commlab::workload {
namespace {

std::string error_of(int group_size, size_t groups) {
  try {
    check_all_to_all_transfers(group_size, groups);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(CommTimerAllToAll, TenThousandRanksIsRefusedNamingTheCapAndTheValue) {
  AnalyticalBackend backend(make_flat(10000, 25e9, 5e-6));
  CommTimer timer(backend, "ring", PipelineConfig{});
  std::vector<std::vector<int>> group_ranks(1, std::vector<int>(10000));
  std::iota(group_ranks[0].begin(), group_ranks[0].end(), 0);
  CollectiveShape shape{CommOp::kAllToAll, 10000, 10000, {}};
  try {
    timer.time_collectives(shape, {0}, group_ranks);
    FAIL() << "an all-to-all of 10,000 ranks was planned";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    // transfers = n (n - 1) = 10000 * 9999 = 99,990,000 > kMaxPlanTransfers
    EXPECT_NE(what.find("10000 ranks"), std::string::npos) << what;
    EXPECT_NE(what.find("99990000 transfers"), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(kMaxPlanTransfers)), std::string::npos) << what;
  }
}

TEST(CommTimerAllToAll, TheCapCountsEveryConcurrentGroup) {
  // One group of 4000: 4000 * 3999 = 15,996,000 transfers, under the cap of 50,000,000;
  // four concurrent groups: 4 * 15,996,000 = 63,984,000, over it.
  EXPECT_EQ(error_of(4000, 1), "");
  const std::string what = error_of(4000, 4);
  EXPECT_NE(what.find("4 concurrent groups"), std::string::npos) << what;
  EXPECT_NE(what.find("63984000 transfers"), std::string::npos) << what;
  // The boundary: n (n - 1) <= cap passes for the largest such n and fails for n + 1.
  int n = 1;
  while (static_cast<uint64_t>(n + 1) * n <= kMaxPlanTransfers) ++n;
  EXPECT_EQ(error_of(n, 1), "");
  EXPECT_NE(error_of(n + 1, 1), "");
}

TEST(CommTimerAllToAll, ASmallAllToAllStillRunsAndMovesEveryChunk) {
  constexpr int kRanks = 8;
  constexpr uint64_t kElements = 8 * 1024;  // per rank, 4 B each on the wire
  AnalyticalBackend backend(make_flat(kRanks, 25e9, 5e-6));
  CommTimer timer(backend, "ring", PipelineConfig{});
  std::vector<std::vector<int>> group_ranks(1, std::vector<int>(kRanks));
  std::iota(group_ranks[0].begin(), group_ranks[0].end(), 0);
  CommTiming t =
      timer.time_collectives({CommOp::kAllToAll, kElements, kRanks, {}}, {0}, group_ranks);
  // bytes on wire = n (n - 1) chunks of (elements / n) elements x 4 B = 8 * 7 * 1024 * 4
  EXPECT_EQ(t.bytes_on_wire, 8ull * 7 * 1024 * 4);
  EXPECT_GT(t.time_s, 0);
}

}  // namespace
}  // namespace commlab::workload
