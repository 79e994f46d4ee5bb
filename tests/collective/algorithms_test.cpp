// Every algorithm and operation gives every rank the reference result on integer-valued data (so
// the check is exact), for awkward rank counts and sizes not divisible by the rank count; step and
// byte counts match the textbook.
#include "collective/algorithms.h"

#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace commlab {
namespace {

struct Case {
  std::string algo;
  CollectiveOp op;
};

std::vector<Case> supported_cases() {
  std::vector<Case> cases;
  for (const char* algo : {"ring", "tree", "hd", "hier", "direct"})
    for (CollectiveOp op :
         {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter, CollectiveOp::kAllGather})
      cases.push_back({algo, op});
  for (const char* algo : {"ring", "tree", "hd", "direct"})
    cases.push_back({algo, CollectiveOp::kBroadcast});
  return cases;
}

// Hierarchical needs a node size dividing n: 4 where possible, else 2, else 1 (13 and 3 ranks run
// as one rank per node: the intra-node phases are empty and only the inter-node ring remains).
int node_size_for(int n) {
  return n % 4 == 0 ? 4 : n % 2 == 0 ? 2 : 1;
}

TEST(Collectives, EveryAlgorithmAndOperationMatchesTheReference) {
  for (const Case& c : supported_cases()) {
    for (int n : {2, 3, 4, 8, 13, 64}) {
      for (uint64_t count : {1ull, 7ull, 300ull + static_cast<uint64_t>(n) / 2 + 1}) {
        PlanRequest req;
        req.op = c.op;
        req.ranks = n;
        req.count = count;
        req.ranks_per_node = node_size_for(n);
        Plan plan = build_plan(c.algo, req);
        auto run = testing::run_on_test_data(plan);
        Verification v = verify_collective(plan, run.inputs, run.views(), 0.0);
        EXPECT_TRUE(v.ok) << c.algo << " " << op_name(c.op) << " n=" << n << " count=" << count
                          << ": " << v.first_mismatch;
      }
    }
  }
}

TEST(Collectives, ReduceScatterLeavesEachRankItsOneNthSlice) {
  // Every rank owns chunks totalling floor(S/n) or ceil(S/n) elements (hd with n not a power of
  // two leaves the extra ranks without a chunk, documented).
  for (const char* algo : {"ring", "tree", "hier", "direct", "hd"}) {
    for (int n : {4, 8, 13}) {
      if (std::string(algo) == "hd" && n == 13) continue;
      PlanRequest req;
      req.op = CollectiveOp::kReduceScatter;
      req.ranks = n;
      req.count = 1001;
      req.ranks_per_node = node_size_for(n);
      Plan plan = build_plan(algo, req);
      std::vector<uint64_t> owned(n, 0);
      for (size_t c = 0; c < plan.chunk_owner.size(); ++c)
        owned[plan.chunk_owner[c]] += plan.chunk_begin[c + 1] - plan.chunk_begin[c];
      for (int r = 0; r < n; ++r) {
        EXPECT_GE(owned[r], 1001u / n) << algo << " n=" << n << " rank " << r;
        EXPECT_LE(owned[r], (1001u + n - 1) / n) << algo << " n=" << n << " rank " << r;
      }
    }
  }
}

TEST(Collectives, UnsupportedCombinationsAreRejectedWithTheirName) {
  PlanRequest req;
  req.op = CollectiveOp::kBroadcast;
  req.ranks = 4;
  req.count = 16;
  EXPECT_THROW(build_plan("hier", req), std::invalid_argument);
  EXPECT_THROW(build_plan("nosuch", req), std::invalid_argument);
  req.op = CollectiveOp::kAllReduce;
  req.ranks_per_node = 3;  // 4 ranks are not a multiple of 3 per node
  EXPECT_THROW(build_plan("hier", req), std::invalid_argument);
}

TEST(Collectives, OversizedPlansAreRefusedNotBuilt) {
  PlanRequest req;
  req.ranks = 200000;  // direct: n^2 = 4e10 transfers
  req.count = 256;
  req.time_only = true;
  EXPECT_THROW(build_plan("direct", req), std::invalid_argument);
  // Ring with unequal chunks cannot fold: 2 n^2 = 8e10 transfers.
  req.count = 200001;
  EXPECT_THROW(build_plan("ring", req), std::invalid_argument);
  // Equal chunks fold to 2 steps of n transfers: built, and it has 2(n-1) steps.
  req.count = 200000;
  EXPECT_EQ(build_plan("ring", req).total_steps(), 2u * (200000 - 1));
}

TEST(Collectives, RingSendsTwoNMinusOneOverNOfTheBufferPerRank) {
  for (int n : {2, 5, 8}) {
    PlanRequest req;
    req.ranks = n;
    req.count = 1000 * n;  // divisible, so every chunk is S/n
    Plan plan = build_plan("ring", req);
    std::vector<uint64_t> sent(n, 0);
    for (const PlanStep& s : plan.steps)
      for (const Transfer& t : s.transfers) sent[t.src] += t.count * s.repeat;
    // Ring all-reduce: each rank sends 2(n-1) chunks of S/n elements = 2(n-1)S/n.
    for (int r = 0; r < n; ++r) EXPECT_EQ(sent[r], 2u * (n - 1) * 1000) << "rank " << r;
    // 2(n-1) steps.
    EXPECT_EQ(plan.total_steps(), 2u * (n - 1));
  }
}

TEST(Collectives, DoubleBinaryTreeSendsAboutTwoSPerRank) {
  const int n = 8;
  const uint64_t count = 1 << 12;
  PlanRequest req;
  req.ranks = n;
  req.count = count;
  Plan plan = build_plan("tree", req);
  std::vector<uint64_t> sent(n, 0);
  for (const PlanStep& s : plan.steps)
    for (const Transfer& t : s.transfers) sent[t.src] += t.count;
  // A rank interior in one tree (two children) and a leaf in the other sends S/2 up + 2 x S/2 down
  // in the first and S/2 up in the second: 2S. Rank 1 is interior in tree 0 (children 3, 4) and
  // position 6 (a leaf) in the mirrored tree 1.
  EXPECT_EQ(sent[1], 2 * count);
  // No rank sends more than 2S: the tree's traffic bound.
  for (int r = 0; r < n; ++r) EXPECT_LE(sent[r], 2 * count) << "rank " << r;
  // 2 log2-depth levels: depth of an 8-node complete tree is 3, reduce + broadcast = 6 steps.
  EXPECT_EQ(plan.total_steps(), 6u);
}

TEST(Collectives, HalvingDoublingTakesTwoLogNSteps) {
  PlanRequest req;
  req.ranks = 16;
  req.count = 4096;
  // Power of two: log2(16) halving + log2(16) doubling steps = 8.
  EXPECT_EQ(build_plan("hd", req).total_steps(), 8u);
  // 13 ranks: 5 extra ranks fold in and out around a p = 8 exchange: 2 + 2 log2(8) = 8.
  req.ranks = 13;
  EXPECT_EQ(build_plan("hd", req).total_steps(), 8u);
}

// Bytes each rank sends, summed over the plan (elements x repeat).
std::vector<uint64_t> sent_per_rank(const Plan& plan) {
  std::vector<uint64_t> sent(plan.ranks, 0);
  for (const PlanStep& s : plan.steps)
    for (const Transfer& t : s.transfers) sent[t.src] += t.count * s.repeat;
  return sent;
}

TEST(Collectives, RingReduceScatterAndAllGatherSendNMinusOneOverNOfTheBuffer) {
  for (CollectiveOp op : {CollectiveOp::kReduceScatter, CollectiveOp::kAllGather}) {
    PlanRequest req;
    req.op = op;
    req.ranks = 6;
    req.count = 600;
    Plan plan = build_plan("ring", req);
    // Ring RS / AG: n-1 steps, each rank sends n-1 chunks of S/n = (n-1)S/n = 500 elements.
    for (uint64_t sent : sent_per_rank(plan)) EXPECT_EQ(sent, 500u) << op_name(op);
    EXPECT_EQ(plan.total_steps(), 5u);
  }
}

TEST(Collectives, HalvingDoublingSendsTwoTimesNMinusOneOverNOfTheBuffer) {
  PlanRequest req;
  req.ranks = 8;
  req.count = 800;
  // Rabenseifner all-reduce: halving sends S/2 + S/4 + ... + S/p = (p-1)S/p, doubling the same:
  // 2(p-1)S/p = 1400 elements per rank for p = 8, S = 800.
  for (uint64_t sent : sent_per_rank(build_plan("hd", req))) EXPECT_EQ(sent, 1400u);
  req.op = CollectiveOp::kReduceScatter;  // halving only: (p-1)S/p = 700
  for (uint64_t sent : sent_per_rank(build_plan("hd", req))) EXPECT_EQ(sent, 700u);
}

TEST(Collectives, HierarchicalSplitsTrafficIntoIntraAndInterNode) {
  const int n = 8, g = 4;  // two nodes of four
  PlanRequest req;
  req.ranks = n;
  req.count = 800;
  req.ranks_per_node = g;
  Plan plan = build_plan("hier", req);
  uint64_t intra = 0, inter = 0;
  for (const PlanStep& s : plan.steps)
    for (const Transfer& t : s.transfers) (t.src / g == t.dst / g ? intra : inter) += t.count;
  // Intra-node RS + AG: each rank sends 2(g-1)S/g = 1200 elements, 8 ranks -> 9600.
  EXPECT_EQ(intra, 8u * 1200);
  // Inter-node all-reduce of S/g = 200 per rank over 2 nodes: 2(2-1)/2 * 200 = 200 per rank.
  EXPECT_EQ(inter, 8u * 200);
  // Steps: 2(g-1) intra + 2(nodes-1) inter = 6 + 2.
  EXPECT_EQ(plan.total_steps(), 8u);
}

TEST(Collectives, DirectAllReduceSendsTheWholeBufferToEveryPeerInOneStep) {
  PlanRequest req;
  req.ranks = 5;
  req.count = 100;
  Plan plan = build_plan("direct", req);
  // One step; each rank sends S to each of n-1 peers: (n-1)S = 400 elements.
  EXPECT_EQ(plan.total_steps(), 1u);
  for (uint64_t sent : sent_per_rank(plan)) EXPECT_EQ(sent, 400u);
}

TEST(Collectives, TreeReduceScatterAndAllGatherTakeTwoTreeDepthsAndAtMostTwoS) {
  for (CollectiveOp op : {CollectiveOp::kReduceScatter, CollectiveOp::kAllGather}) {
    PlanRequest req;
    req.op = op;
    req.ranks = 13;  // depth 3
    req.count = 1300;
    Plan plan = build_plan("tree", req);
    // Reduce + scatter (or gather + broadcast): one step per level each way, 2 x 3 steps.
    EXPECT_EQ(plan.total_steps(), 6u) << op_name(op);
    // Each tree moves at most its half per edge each way: no rank sends more than 2S.
    for (uint64_t sent : sent_per_rank(plan)) EXPECT_LE(sent, 2u * 1300) << op_name(op);
  }
}

TEST(Collectives, Bf16WireRoundsEachHopButStaysClose) {
  PlanRequest req;
  req.ranks = 4;
  req.count = 999;
  Plan plan = build_plan("ring", req);
  Bf16Wire wire;
  ExecutorOptions opts;
  opts.codec = &wire;
  auto run = testing::run_on_test_data(plan, opts);
  // Values are integers below 64 in magnitude per rank, sums below 256: bf16 keeps 8 significant
  // bits, so every partial sum below 256 is exact -> the result is exact.
  Verification v = verify_collective(plan, run.inputs, run.views(), 0.0);
  EXPECT_TRUE(v.ok) << v.first_mismatch;
  // Half the bytes of FP32 on the wire: 2(n-1) chunks of ~count/n values at 2 bytes each.
  EXPECT_EQ(run.report.bytes_on_wire, run.report.payload_bytes / 2);
}

}  // namespace
}  // namespace commlab

namespace commlab {
namespace {

// Non-integer data, so a different summation order would change the bits.
std::vector<std::vector<float>> awkward_data(int ranks, uint64_t count) {
  std::vector<std::vector<float>> data(ranks, std::vector<float>(count));
  for (int r = 0; r < ranks; ++r)
    for (uint64_t i = 0; i < count; ++i)
      data[r][i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i) + r) * (r + 1) / 3.0);
  return data;
}

TEST(Collectives, ResultsAreBitIdenticalForOneAndTwoThreads) {
  // Steps of at least 2^18 elements run in parallel: a ring step moves all 2^18 + 8 elements.
  const int n = 8;
  const uint64_t count = (1u << 18) + 8;
  const std::vector<std::vector<float>> input = awkward_data(n, count);
  Bf16Wire bf16;
  struct Case {
    const char* algo;
    TransferCodec* codec;  // fp32 reads senders directly; bf16 goes through the wire
  };
  for (Case c : {Case{"ring", nullptr}, Case{"ring", &bf16}, Case{"hd", nullptr}}) {
    PlanRequest req;
    req.ranks = n;
    req.count = count;
    Plan plan = build_plan(c.algo, req);
    std::vector<std::vector<float>> out[2];
    for (int threads : {1, 2}) {
      auto& bufs = out[threads - 1];
      bufs = input;
      std::vector<std::span<float>> views(bufs.begin(), bufs.end());
      ExecutorOptions opts;
      opts.codec = c.codec;
      opts.threads = threads;
      execute_plan(plan, views, opts);
    }
    EXPECT_TRUE(out[0] == out[1]) << c.algo << (c.codec ? " bf16" : " fp32");
  }
}

// Each algorithm's descriptor is what build_plan and the scenario checks consult instead
// of if-chains on its name, so it must tell the truth about the plans build() makes.
TEST(AlgorithmDescriptors, OpsTransferBoundsAndSkipLimitsMatchThePlans) {
  const CollectiveOp all_ops[] = {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter,
                                  CollectiveOp::kAllGather, CollectiveOp::kBroadcast};
  for (const Algorithm& a : algorithms())
    for (CollectiveOp op : all_ops)
      for (int ranks : {4, 8, 12}) {
        PlanRequest r{op, ranks, 1000};
        r.ranks_per_node = 4;
        SCOPED_TRACE(a.name + " " + op_name(op) + " on " + std::to_string(ranks));
        if (!a.supports(op)) {  // refused by name before build() runs
          EXPECT_THROW(build_plan(a.name, r), std::invalid_argument);
          continue;
        }
        const Plan plan = build_plan(a.name, r);
        uint64_t transfers = 0;
        for (const PlanStep& step : plan.steps) transfers += step.transfers.size() * step.repeat;
        // transfers() is the upper bound build_plan refuses plans by (kMaxPlanTransfers).
        EXPECT_LE(transfers, a.transfers(r));
        if (!a.skips()) continue;
        // skip_limit(N).max steps build a plan; beyond it build_plan, the scenario checks and the
        // flags refuse (skip_problem, collective_settings.h).
        const int max = a.skip_limit(ranks).max;
        r.skip.skip = max;
        if (op != CollectiveOp::kBroadcast) EXPECT_NO_THROW(build_plan(a.name, r));
      }
  // ring skips at most N-1 = 7 steps on 8 ranks, tree and hd floor(log2 8) = 3.
  EXPECT_EQ(find_algorithm("ring").skip_limit(8).max, 7);
  EXPECT_EQ(find_algorithm("tree").skip_limit(8).max, 3);
  EXPECT_EQ(find_algorithm("hd").skip_limit(12).max, 3);
  EXPECT_EQ(skipping_algorithms_text(), "ring, tree or hd");
  PlanRequest skip{CollectiveOp::kAllReduce, 8, 1000};
  skip.skip.skip = 1;
  skip.ranks_per_node = 4;
  for (const char* none : {"hier", "direct", "nccl-tree"}) {
    EXPECT_FALSE(find_algorithm(none).skips()) << none;
    EXPECT_THROW(build_plan(none, skip), std::invalid_argument) << none;
  }
  try {
    build_plan("hier", PlanRequest{CollectiveOp::kBroadcast, 8, 1000});
    ADD_FAILURE() << "hier has no broadcast";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "algorithm 'hier' implements allreduce, reducescatter and allgather, not "
                 "broadcast");
  }
}

}  // namespace
}  // namespace commlab
