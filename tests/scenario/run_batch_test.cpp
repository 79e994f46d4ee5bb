// What crosses from one process to another in an `mpirun -np K` experiment: every member of a
// run's result and of its error arrives as sent, and bytes a peer did not send whole are refused
// before anything is sized by them.
#include "scenario/run/run_batch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "scenario/config_problem.h"

namespace commlab {
namespace {

// Every member set by name to a value no default has, so a member the codec drops shows.
RunResult full_result() {
  RunResult r;
  RunSummary& s = r.summary;
  s.name = "skip 4";
  s.seed = 17;
  s.timed_as = "vgg19";
  s.iterations = 240;
  s.sim_time_s = 1.5;
  s.wall_time_s = 2.5;
  s.final_train_loss = 0.25;
  s.final_test_accuracy = 0.83;
  s.final_class_accuracy = {0.9, std::nan(""), 0.75};  // a class with no test row is NaN
  s.bytes_on_wire = 123456789;
  s.mean_ratio = 0.66;
  s.effective_bits = 15.5;
  s.trimmed_packets = 42;
  s.skipped_steps = 7;
  s.time_to_accuracy_s = 0.75;
  s.iterations_to_accuracy = 120;
  s.tta_window = 40;
  Sample x;
  x.iteration = 3;
  x.sim_time_s = 0.1;
  x.wall_time_s = 0.2;
  x.train_loss = 0.3;
  x.test_loss = 0.4;
  x.test_accuracy = 0.5;
  x.class_accuracy = {0.25, 0.625, std::nan("")};
  x.grad_norm = 0.6;
  x.lr = 0.05;
  x.bytes_on_wire = 99;
  x.compute_time_s = 0.01;
  x.comm_time_s = 0.02;
  x.codec_time_s = 0.03;
  x.comm_total_s = 0.04;
  x.codec_total_s = 0.05;
  x.skipped_contributions = 11;
  x.trimmed_packets = 12;
  x.nmse = 0.001;
  x.divergence = 0.002;
  x.ratio = 0.7;
  x.effective_bits = 31;
  x.buckets.push_back({"fc1.weight", 200704, 0.65, 30.5, 3, 4, 1e-4, {7.9, 7.8, 2.1, 1.0}});
  x.network.push_back({1e-3, 4096, 0.5, 0.9, 6, 1});
  r.samples = {x, x};
  r.samples[1].iteration = 4;
  r.samples[1].test_accuracy = std::nan("");
  r.complete = false;
  r.per_seed = {s, s};
  r.per_seed[1].seed = 18;
  return r;
}

// Equal element by element, NaN equal to NaN (a class without test rows).
void expect_same_values(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(std::isnan(a[k]), std::isnan(b[k])) << "class " << k;
    if (!std::isnan(a[k])) EXPECT_EQ(a[k], b[k]) << "class " << k;
  }
}

void expect_equal(const RunSummary& a, const RunSummary& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.timed_as, b.timed_as);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.sim_time_s, b.sim_time_s);
  EXPECT_EQ(a.wall_time_s, b.wall_time_s);
  EXPECT_EQ(a.final_train_loss, b.final_train_loss);
  EXPECT_EQ(a.final_test_accuracy, b.final_test_accuracy);
  expect_same_values(a.final_class_accuracy, b.final_class_accuracy);
  EXPECT_EQ(a.bytes_on_wire, b.bytes_on_wire);
  EXPECT_EQ(a.mean_ratio, b.mean_ratio);
  EXPECT_EQ(a.effective_bits, b.effective_bits);
  EXPECT_EQ(a.trimmed_packets, b.trimmed_packets);
  EXPECT_EQ(a.skipped_steps, b.skipped_steps);
  EXPECT_EQ(a.time_to_accuracy_s, b.time_to_accuracy_s);
  EXPECT_EQ(a.iterations_to_accuracy, b.iterations_to_accuracy);
  EXPECT_EQ(a.tta_window, b.tta_window);
}

void expect_equal(const Sample& a, const Sample& b) {
  EXPECT_EQ(a.iteration, b.iteration);
  for (auto [x, y] : {std::pair{a.sim_time_s, b.sim_time_s},
                      {a.wall_time_s, b.wall_time_s},
                      {a.train_loss, b.train_loss},
                      {a.test_loss, b.test_loss},
                      {a.grad_norm, b.grad_norm},
                      {a.lr, b.lr},
                      {a.compute_time_s, b.compute_time_s},
                      {a.comm_time_s, b.comm_time_s},
                      {a.codec_time_s, b.codec_time_s},
                      {a.comm_total_s, b.comm_total_s},
                      {a.codec_total_s, b.codec_total_s},
                      {a.nmse, b.nmse},
                      {a.divergence, b.divergence},
                      {a.ratio, b.ratio},
                      {a.effective_bits, b.effective_bits}})
    EXPECT_EQ(x, y);
  // NaN (not evaluated) stays NaN.
  EXPECT_EQ(std::isnan(a.test_accuracy), std::isnan(b.test_accuracy));
  if (!std::isnan(a.test_accuracy)) EXPECT_EQ(a.test_accuracy, b.test_accuracy);
  expect_same_values(a.class_accuracy, b.class_accuracy);
  EXPECT_EQ(a.bytes_on_wire, b.bytes_on_wire);
  EXPECT_EQ(a.skipped_contributions, b.skipped_contributions);
  EXPECT_EQ(a.trimmed_packets, b.trimmed_packets);
  ASSERT_EQ(a.buckets.size(), b.buckets.size());
  for (size_t i = 0; i < a.buckets.size(); ++i) {
    const BucketSample &p = a.buckets[i], &q = b.buckets[i];
    EXPECT_EQ(p.name, q.name);
    EXPECT_EQ(p.elements, q.elements);
    EXPECT_EQ(p.ratio, q.ratio);
    EXPECT_EQ(p.effective_bits, q.effective_bits);
    EXPECT_EQ(p.dropped_contributions, q.dropped_contributions);
    EXPECT_EQ(p.trimmed_packets, q.trimmed_packets);
    EXPECT_EQ(p.nmse, q.nmse);
    EXPECT_EQ(p.plane_entropy, q.plane_entropy);
  }
  ASSERT_EQ(a.network.size(), b.network.size());
  for (size_t i = 0; i < a.network.size(); ++i) {
    EXPECT_EQ(a.network[i].t_s, b.network[i].t_s);
    EXPECT_EQ(a.network[i].max_queue_bytes, b.network[i].max_queue_bytes);
    EXPECT_EQ(a.network[i].mean_utilisation, b.network[i].mean_utilisation);
    EXPECT_EQ(a.network[i].max_utilisation, b.network[i].max_utilisation);
    EXPECT_EQ(a.network[i].trims, b.network[i].trims);
    EXPECT_EQ(a.network[i].drops, b.network[i].drops);
  }
}

TEST(RunBatch, EveryMemberOfAResultArrives) {
  const RunResult sent = full_result();
  const RunResult got = decode_result(encode_result(sent));
  expect_equal(sent.summary, got.summary);
  ASSERT_EQ(got.samples.size(), 2u);
  for (size_t i = 0; i < 2; ++i) expect_equal(sent.samples[i], got.samples[i]);
  EXPECT_EQ(got.complete, false);
  ASSERT_EQ(got.per_seed.size(), 2u);
  for (size_t i = 0; i < 2; ++i) expect_equal(sent.per_seed[i], got.per_seed[i]);
}

TEST(RunBatch, AnErrorKeepsItsCodeAndField) {
  BatchItem failed;
  failed.index = 5;
  failed.status = 2;
  failed.error = {ErrorCode::kBadInput, "techniques.codec", "unknown codec 'x'"};
  BatchItem done;
  done.index = 6;
  done.status = 1;
  done.result = full_result();
  done.series_rows = "6,1,0.5\n";
  bool stopped = false;
  const std::vector<BatchItem> got = decode_batch(encode_batch({failed, done}, true), &stopped);
  EXPECT_TRUE(stopped);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].index, 5);
  EXPECT_EQ(got[0].status, 2);
  EXPECT_EQ(got[0].error, failed.error);
  EXPECT_EQ(got[1].series_rows, done.series_rows);
  expect_equal(got[1].result.summary, done.result.summary);
  // Back into an exception, the problem is the one sent: bad input naming its field.
  try {
    std::rethrow_exception(exception_of(got[0].error));
  } catch (const std::exception& e) {
    EXPECT_EQ(problem_of(e), failed.error);
  }
}

TEST(RunBatch, BytesNotSentWholeAreRefusedBeforeSizingAnything) {
  bool stopped = false;
  const std::string bytes = encode_batch({BatchItem{}}, false);
  EXPECT_THROW(decode_batch(bytes.substr(0, bytes.size() - 1), &stopped), std::runtime_error);
  // A count of 2^60 items in 9 bytes: refused by the count, not by a failed allocation.
  std::string huge(1, '\0');
  const uint64_t count = 1ull << 60;
  huge.append(reinterpret_cast<const char*>(&count), sizeof count);
  EXPECT_THROW(decode_batch(huge, &stopped), std::runtime_error);
  EXPECT_THROW(decode_result("x"), std::runtime_error);
}

}  // namespace
}  // namespace commlab
