// The core experiment runner (scenario/run/experiment_runner.h): the numbers do not depend on
// jobs or threads, a cancel before the start runs nothing, results come back in scenario order
// whatever finishes first, and the streamed series parts join into the series.csv the results
// give.
#include "scenario/run/experiment_runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include "scenario/scenario.h"

namespace commlab {
namespace {

// Three runs of a tiny MLP; the first is the longest, so with two jobs it finishes last.
Experiment tiny_experiment(int seeds) {
  return parse_scenario_text(
      R"({"name": "runner", "seed": 3, "seeds": )" + std::to_string(seeds) + R"(,
    "cluster": {"spec": "flat:2,gbps=100"},
    "workload": {"model": "mlp", "hidden": [8], "dataset": "spiral"},
    "training": {"ranks": 2, "iterations": 12, "global_batch": 16, "eval_every": 4,
                 "eval_rows": 0},
    "runs": [
      {"name": "baseline", "set": {"training": {"iterations": 40}}},
      {"name": "skip", "set": {"techniques": {"skipreduce": {"skip": 1}}}},
      {"name": "fp32", "set": {"collective": {"wire": "fp32"}}}
    ]})",
      "runner.json");
}

ExperimentOutcome run_with(const Experiment& exp, int jobs, int threads,
                           const std::atomic<bool>* cancel = nullptr) {
  RunnerOptions o;
  o.jobs = jobs;
  o.threads = threads;
  o.reproducible = true;
  o.cancel = cancel;
  return run_experiment(exp, o);
}

TEST(ExperimentRunner, SameSummariesWhateverJobsAndThreads) {
  const Experiment exp = tiny_experiment(2);
  const ExperimentOutcome one = run_with(exp, 1, 1), two = run_with(exp, 2, 2);
  ASSERT_FALSE(one.error);
  ASSERT_FALSE(two.error);
  ASSERT_EQ(one.results.size(), 3u);
  ASSERT_EQ(two.results.size(), 3u);
  for (size_t k = 0; k < one.results.size(); ++k) {
    const std::vector<RunSummary>& a = one.results[k].per_seed;
    const std::vector<RunSummary>& b = two.results[k].per_seed;
    ASSERT_EQ(a.size(), 2u);
    ASSERT_EQ(b.size(), 2u);
    for (size_t s = 0; s < a.size(); ++s) {
      EXPECT_EQ(a[s].seed, b[s].seed);
      EXPECT_EQ(a[s].final_train_loss, b[s].final_train_loss);
      EXPECT_EQ(a[s].final_test_accuracy, b[s].final_test_accuracy);
      EXPECT_EQ(a[s].sim_time_s, b[s].sim_time_s);
      EXPECT_EQ(a[s].bytes_on_wire, b[s].bytes_on_wire);
    }
    EXPECT_NE(a[0].final_train_loss, a[1].final_train_loss) << "the seeds differ";
  }
  EXPECT_EQ(one.summary_json, two.summary_json);
  EXPECT_EQ(one.complete_runs(), 3);
  EXPECT_FALSE(one.stopped);
}

TEST(ExperimentRunner, CancelBeforeStartRunsNothing) {
  const std::atomic<bool> cancel{true};
  const ExperimentOutcome out = run_with(tiny_experiment(2), 2, 2, &cancel);
  EXPECT_FALSE(out.error);
  EXPECT_TRUE(out.stopped);
  EXPECT_EQ(out.complete_runs(), 0);
  EXPECT_TRUE(out.results.empty());
  for (char started : out.started) EXPECT_FALSE(started);
}

TEST(ExperimentRunner, CancelMidRunKeepsWhatFinished) {
  std::atomic<bool> cancel{false};
  RunnerOptions o;
  o.jobs = o.threads = 1;
  o.cancel = &cancel;
  RunnerCallbacks cb;
  cb.on_sample = [&](int replica, const std::string&, const Sample& s) {
    if (replica == 1 && s.iteration == 5) cancel.store(true);
  };
  const ExperimentOutcome out = run_experiment(tiny_experiment(1), o, cb);
  EXPECT_TRUE(out.stopped);
  ASSERT_EQ(out.results.size(), 2u);  // the third run never started
  EXPECT_TRUE(out.results[0].complete);
  EXPECT_FALSE(out.results[1].complete);
  EXPECT_EQ(out.results[1].summary.iterations, 5);
}

TEST(ExperimentRunner, ResultsInScenarioOrderAndCallbacksPerReplica) {
  const Experiment exp = tiny_experiment(2);
  RunnerOptions o;
  o.jobs = o.threads = 2;
  std::mutex mutex;
  std::vector<int> samples(6, 0);
  std::vector<std::string> names(6);
  std::vector<int> done;
  int64_t total = 0;
  RunnerCallbacks cb;
  cb.on_start = [&](int64_t iterations) { total = iterations; };
  cb.on_sample = [&](int replica, const std::string& run, const Sample&) {
    std::lock_guard<std::mutex> lock(mutex);
    ++samples.at(replica);
    names.at(replica) = run;
  };
  cb.on_replica_done = [&](int replica, const RunSession& s) {
    std::lock_guard<std::mutex> lock(mutex);
    EXPECT_TRUE(s.done());
    done.push_back(replica);
  };
  const ExperimentOutcome out = run_experiment(exp, o, cb);
  ASSERT_FALSE(out.error);
  ASSERT_EQ(out.results.size(), 3u);
  EXPECT_EQ(out.results[0].summary.name, "baseline");
  EXPECT_EQ(out.results[1].summary.name, "skip");
  EXPECT_EQ(out.results[2].summary.name, "fp32");
  EXPECT_EQ(out.result_replica, (std::vector<size_t>{0, 2, 4}));
  EXPECT_EQ(total, 2 * (40 + 12 + 12));
  EXPECT_EQ(samples, (std::vector<int>{40, 40, 12, 12, 12, 12}));
  EXPECT_EQ(names[0], "baseline");
  EXPECT_EQ(names[1], "baseline@seed=4");
  EXPECT_EQ(std::set<int>(done.begin(), done.end()), (std::set<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(done.size(), 6u);
}

TEST(ExperimentRunner, SeriesPartsJoinIntoTheResultsSeries) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / "commlab-runner-test-series").string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  RunnerOptions o;
  o.jobs = o.threads = 2;
  o.reproducible = true;
  o.sample_budget = 0;  // every sample kept: series_csv of the results is the whole file
  o.series_dir = dir;
  ExperimentOutcome out = run_experiment(tiny_experiment(1), o);
  ASSERT_FALSE(out.error);
  join_series(dir, out.started);
  std::ifstream f(dir + "/series.csv", std::ios::binary);
  std::stringstream joined;
  joined << f.rdbuf();
  for (RunResult& r : out.results)
    for (Sample& s : r.samples) s.wall_time_s = Sample::kNaN;
  EXPECT_EQ(joined.str(), series_csv(out.results));
  EXPECT_FALSE(std::filesystem::exists(series_part(dir, 0)));
  std::filesystem::remove_all(dir);
}

TEST(ExperimentRunner, AFailedRunIsReportedNotThrown) {
  Experiment exp = tiny_experiment(1);
  exp.runs[1].execution = ExecutionMode::kMpi;  // no runtime given: the session refuses it
  RunnerOptions o;
  o.jobs = o.threads = 1;
  const ExperimentOutcome out = run_experiment(exp, o);
  ASSERT_TRUE(out.error);
  EXPECT_THROW(std::rethrow_exception(out.error), std::invalid_argument);
  EXPECT_TRUE(out.results.empty());
}

}  // namespace
}  // namespace commlab
