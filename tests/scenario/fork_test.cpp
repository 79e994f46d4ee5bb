// Forks (scenario/run/fork.h): a run that continues another's training from iteration K
// with new settings. Its first K iterations are the parent's; a fork that changes nothing is the
// unforked run, bit for bit; one that changes what a fork must keep is refused naming the field.
#include "scenario/run/fork.h"

#include <gtest/gtest.h>

#include <string>

#include "scenario/runner.h"
#include "scenario/scenario.h"

namespace commlab {
namespace {

RunConfig tiny_run(const std::string& name, const std::string& training_extra = "",
                   const std::string& techniques = "{}") {
  return parse_scenario_text(R"({"name": ")" + name + R"(", "seed": 3,
    "cluster": {"spec": "flat:4,gbps=100"},
    "workload": {"model": "mlp", "hidden": [16], "dataset": "spiral"},
    "training": {"ranks": 4, "iterations": 24, "global_batch": 32, "eval_every": 4,
                 "eval_rows": 0, "lr": 0.05)" +
                                 training_extra + R"(},
    "techniques": )" + techniques +
                                 "}",
                             name + ".json")
      .runs.at(0);
}

void expect_same_sample(const Sample& a, const Sample& b) {
  EXPECT_EQ(a.iteration, b.iteration);
  EXPECT_EQ(a.train_loss, b.train_loss) << "iteration " << a.iteration;
  EXPECT_EQ(a.sim_time_s, b.sim_time_s) << "iteration " << a.iteration;
  if (a.evaluated() || b.evaluated())
    EXPECT_EQ(a.test_accuracy, b.test_accuracy) << "iteration " << a.iteration;
}

TEST(Fork, ForkingWithTheSameSettingsIsTheUnforkedRunBitForBit) {
  RunSession whole(tiny_run("a"));
  whole.run();
  RunSession parent(tiny_run("a"));
  for (int i = 0; i < 10; ++i) parent.step();
  RunSession fork(tiny_run("a"), parent);
  EXPECT_EQ(fork.iteration(), 10);
  fork.run();
  ASSERT_EQ(fork.samples().size(), whole.samples().size());
  for (size_t i = 0; i < whole.samples().size(); ++i)
    expect_same_sample(fork.samples()[i], whole.samples()[i]);
  const RunSummary f = fork.summary(), w = whole.summary();
  EXPECT_EQ(f.final_test_accuracy, w.final_test_accuracy);
  EXPECT_EQ(f.bytes_on_wire, w.bytes_on_wire);  // the parent's 10 iterations + the fork's 14
  EXPECT_EQ(f.sim_time_s, w.sim_time_s);
}

TEST(Fork, AForkKeepsTheParentsPrefixAndAppliesItsOwnSettingsAfter) {
  // SkipReduce s = 2 on 4 ranks (ring: 2(N-1) = 6 steps): after the fork at 10 every bucket's
  // reduce-scatter skips 2 of its 3 steps' sends of one chunk, so the fork sends fewer bytes than
  // the baseline over the same 24 iterations, and its first 10 samples are the baseline's.
  RunSession baseline(tiny_run("baseline"));
  baseline.run();
  RunSession parent(tiny_run("baseline"));
  for (int i = 0; i < 10; ++i) parent.step();
  RunSession fork(
      tiny_run("skip", "", R"({"skipreduce": {"skip": 2, "policy": "random", "min_elements": 0}})"),
      parent);
  fork.run();
  for (size_t i = 0; i < 10; ++i) expect_same_sample(fork.samples()[i], baseline.samples()[i]);
  // Iteration 11's loss is taken before its update, on the weights of iteration 10 (the
  // parent's); iteration 12's is on weights that the skipped reduce-scatter of 11 moved.
  EXPECT_EQ(fork.samples()[10].train_loss, baseline.samples()[10].train_loss);
  EXPECT_NE(fork.samples()[11].train_loss, baseline.samples()[11].train_loss);
  EXPECT_LT(fork.summary().bytes_on_wire, baseline.summary().bytes_on_wire);
  EXPECT_GT(fork.summary().skipped_steps, 0u);
  EXPECT_EQ(fork.summary().name, "skip");
  // A new learning rate after the fork point: the iteration after it moves differently.
  RunSession lr_parent(tiny_run("baseline"));
  for (int i = 0; i < 10; ++i) lr_parent.step();
  RunSession lr_fork(tiny_run("lr", R"(, "lr": 0.2)"), lr_parent);
  lr_fork.step();
  // As above: iteration 11's loss is the baseline's, iteration 12's reflects lr 0.2's update.
  EXPECT_EQ(lr_fork.samples()[10].train_loss, baseline.samples()[10].train_loss);
  lr_fork.step();
  EXPECT_NE(lr_fork.samples()[11].train_loss, baseline.samples()[11].train_loss);
}

TEST(Fork, ChangingWhatAForkKeepsIsRefusedNamingTheField) {
  const RunConfig parent = tiny_run("baseline");
  EXPECT_EQ(fork_problem(parent, tiny_run("fast", R"(, "lr": 0.1, "iterations": 40)")), "");
  EXPECT_EQ(
      fork_problem(parent, tiny_run("trim", "", R"({"trimming": {"enabled": true, "rate": 0.1}})")),
      "");
  // An lr grid is a list (flattened to /training/lr_grid/0, ...): a fork may change it too.
  EXPECT_EQ(fork_problem(parent, tiny_run("grid", R"(, "lr_grid": [0.05, 0.1])")), "");
  const std::string batch = fork_problem(parent, tiny_run("b", R"(, "global_batch": 64)"));
  EXPECT_EQ(batch.rfind("training.global_batch is 64 in 'b' but 32 in 'baseline', which it forks "
                        "from",
                        0),
            0u)
      << batch;
  RunConfig wider = tiny_run("w");
  wider.workload.hidden = {32};
  EXPECT_EQ(fork_problem(parent, wider).rfind("workload.hidden[0] is 32 in 'w' but 16", 0), 0u)
      << fork_problem(parent, wider);
  RunConfig reseeded = tiny_run("s");
  reseeded.seed = 4;
  EXPECT_EQ(fork_problem(parent, reseeded).rfind("seed is 4 in 's' but 3", 0), 0u);
  // State a fork does not carry (the packet network's queues, a compressor's residuals) is refused
  // on either side: with it a fork that changes nothing would not be the unforked run.
  RunConfig packet = tiny_run("packet");
  packet.cluster.backend = ClusterBackend::kPacket;
  EXPECT_EQ(fork_problem(parent, packet).rfind("'packet' runs the packet backend", 0), 0u)
      << fork_problem(parent, packet);
  EXPECT_NE(fork_problem(packet, parent), "");
  const RunConfig topk = tiny_run("topk", "", R"({"topk": {"enabled": true}})");
  EXPECT_EQ(fork_problem(parent, topk).rfind("'topk' uses a stateful compressor", 0), 0u)
      << fork_problem(parent, topk);
  // The session refuses it too, before training anything.
  RunSession running(parent);
  running.step();
  EXPECT_THROW(RunSession(tiny_run("b", R"(, "global_batch": 64)"), running),
               std::invalid_argument);
}

}  // namespace
}  // namespace commlab
