// Run under mpirun by exec_test: every algorithm and operation, with and without SkipReduce, over
// FP32, BF16, a real codec and Bernoulli trimming, executed across the job's processes by the MPI
// executor and, inside each process, for all ranks by the simulated data plane. Each rank's buffer
// must be bit-identical to the simulated one, and match the reference where the wire is exact.
// Prints one line per failing case; exits 1 when any rank saw one.
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "collective/algorithms.h"
#include "collective/codec_wire.h"
#include "collective/simulated_executor.h"
#include "exec/mpi_executor.h"
#include "exec/rank_reference.h"

using namespace commlab;
using namespace commlab::exec;

namespace {

struct WireKind {
  std::string name;
  bool exact;  // decode(encode(x)) == x for these test values
};

std::unique_ptr<TransferCodec> make_wire(const std::string& name) {
  if (name == "fp32") return nullptr;
  if (name == "bf16") return std::make_unique<Bf16Wire>();
  if (name == "lz4") return std::make_unique<CodecWire>("lz4", DType::kFp32);
  if (name == "commlab-bf16") return std::make_unique<CodecWire>("commlab", DType::kBf16);
  if (name == "trim") return std::make_unique<TrimWire>(trim::TrimConfig{}, 0.3, 7);
  throw std::invalid_argument("unknown wire " + name);
}

}  // namespace

int main() {
  MpiRuntime rt(RuntimeOptions{30});
  MpiExecutor executor(rt);
  const int n = rt.size(), me = rt.rank();
  int cases = 0, failures = 0;
  const std::vector<WireKind> wires = {
      {"fp32", true}, {"bf16", false}, {"lz4", true}, {"commlab-bf16", false}, {"trim", false}};
  for (const char* algo : {"ring", "tree", "hd", "hier", "direct"}) {
    for (CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kReduceScatter,
                            CollectiveOp::kAllGather, CollectiveOp::kBroadcast}) {
      for (uint64_t count : {1ull, 13ull, 1000ull, 40003ull}) {
        for (int skip : {0, 1}) {
          for (bool unbiased : {false, true}) {
            if (unbiased && skip == 0) continue;
            for (const WireKind& wk : wires) {
              if (skip && wk.name != "fp32" && wk.name != "trim") continue;
              PlanRequest req{op, n, count};
              req.ranks_per_node = n >= 4 ? 2 : 1;
              req.unbiased_skip = unbiased;
              req.pipeline.slice_bytes = 0;
              SkipConfig cfg{skip, skip ? SkipPolicy::kRandom : SkipPolicy::kNaive, 5, unbiased};
              cfg.min_elements = 0;
              req.skip = decide_skip(cfg, n, 0, "bucket0", count, 3);
              Plan plan;
              try {
                plan = build_plan(algo, req);
              } catch (const std::invalid_argument&) {
                continue;  // a combination the algorithm refuses, refused on every rank
              }
              ++cases;
              std::vector<std::vector<float>> sim(n, std::vector<float>(count));
              std::vector<std::span<float>> views;
              for (int r = 0; r < n; ++r) {
                fill_test_input(r, sim[r]);
                views.emplace_back(sim[r]);
              }
              std::vector<float> mine = sim[me];
              auto sim_wire = make_wire(wk.name);
              auto mpi_wire = make_wire(wk.name);
              ExecutorOptions ex;
              ex.codec = sim_wire.get();
              ex.iteration = 3;
              execute_plan(plan, views, ex);
              MpiExecOptions mo{mpi_wire.get(), 3, 0};
              if (wk.name == "trim") mo = MpiExecOptions{mpi_wire.get(), 3, 0, 0.3, 7};
              MpiCollectiveReport rep = executor.run(plan, mine, mo);
              std::string label = std::string(algo) + " " + op_name(op) + " count " +
                                  std::to_string(count) + " skip " + std::to_string(skip) +
                                  (unbiased ? " unbiased" : "") + " wire " + wk.name;
              bool ok = std::memcmp(mine.data(), sim[me].data(), count * sizeof(float)) == 0;
              if (!ok) {
                size_t i = 0;
                while (i < count && std::memcmp(&mine[i], &sim[me][i], sizeof(float)) == 0) ++i;
                std::fprintf(stderr, "rank %d: %s: element %zu is %g, simulated %g\n", me,
                             label.c_str(), i, mine[i], sim[me][i]);
              }
              if (wk.exact) {
                RankVerification v = verify_rank(plan, me, mine, 0.0);
                if (v.wrong) {
                  ok = false;
                  std::fprintf(stderr, "rank %d: %s: %s\n", me, label.c_str(),
                               v.first_mismatch.c_str());
                }
              }
              if (wk.name == "trim" && count >= 40003 && rep.packets_trimmed == 0 &&
                  rep.bytes_sent >= 40 * 4096) {
                ok = false;  // P(none of >= 40 packets cut at rate 0.3) = 0.7^40 ~ 6e-7
                std::fprintf(stderr, "rank %d: %s: no packet was cut\n", me, label.c_str());
              }
              failures += !ok;
            }
          }
        }
      }
    }
  }
  const double all_failures = rt.sum(failures);
  if (rt.root())
    std::printf("mpi_plan_check: %d ranks, %d cases, %g failures over all ranks\n", n, cases,
                all_failures);
  return all_failures == 0 ? 0 : 1;
}
