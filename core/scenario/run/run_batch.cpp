#include "scenario/run/run_batch.h"

#include <stdexcept>

#include "exec/runs/mpi_batch.h"

namespace commlab {

namespace {

using exec::ByteReader;
using exec::ByteWriter;

// A field added to these structs must be added below too; the sizes catch a forgotten one.
static_assert(sizeof(Sample) == 208, "Sample changed: update run_batch.cpp");
static_assert(sizeof(BucketSample) == 104, "BucketSample changed: update run_batch.cpp");
static_assert(sizeof(RunSummary) == 168, "RunSummary changed: update run_batch.cpp");
static_assert(std::is_trivially_copyable_v<NetworkPoint>);

void put(ByteWriter& w, const BucketSample& b) {
  w.str(b.name);
  w.pod(b.elements);
  w.pod(b.ratio);
  w.pod(b.effective_bits);
  w.pod(b.dropped_contributions);
  w.pod(b.trimmed_packets);
  w.pod(b.nmse);
  w.doubles(b.plane_entropy);
}

BucketSample get_bucket(ByteReader& r) {
  BucketSample b;
  b.name = r.str();
  b.elements = r.pod<uint64_t>();
  b.ratio = r.pod<double>();
  b.effective_bits = r.pod<double>();
  b.dropped_contributions = r.pod<uint64_t>();
  b.trimmed_packets = r.pod<uint64_t>();
  b.nmse = r.pod<double>();
  b.plane_entropy = r.doubles();
  return b;
}

void put(ByteWriter& w, const Sample& s) {
  w.pod(s.iteration);
  for (double v :
       {s.sim_time_s, s.wall_time_s, s.train_loss, s.test_loss, s.test_accuracy, s.grad_norm, s.lr})
    w.pod(v);
  w.pod(s.bytes_on_wire);
  for (double v :
       {s.compute_time_s, s.comm_time_s, s.codec_time_s, s.comm_total_s, s.codec_total_s})
    w.pod(v);
  w.pod(s.skipped_contributions);
  w.pod(s.trimmed_packets);
  for (double v : {s.nmse, s.divergence, s.ratio, s.effective_bits}) w.pod(v);
  w.pod<uint64_t>(s.buckets.size());
  for (const BucketSample& b : s.buckets) put(w, b);
  w.pod<uint64_t>(s.network.size());
  for (const NetworkPoint& p : s.network) w.pod(p);
}

Sample get_sample(ByteReader& r) {
  Sample s;
  s.iteration = r.pod<int>();
  for (double* v : {&s.sim_time_s, &s.wall_time_s, &s.train_loss, &s.test_loss, &s.test_accuracy,
                    &s.grad_norm, &s.lr})
    *v = r.pod<double>();
  s.bytes_on_wire = r.pod<uint64_t>();
  for (double* v :
       {&s.compute_time_s, &s.comm_time_s, &s.codec_time_s, &s.comm_total_s, &s.codec_total_s})
    *v = r.pod<double>();
  s.skipped_contributions = r.pod<uint64_t>();
  s.trimmed_packets = r.pod<uint64_t>();
  for (double* v : {&s.nmse, &s.divergence, &s.ratio, &s.effective_bits}) *v = r.pod<double>();
  s.buckets.resize(r.pod<uint64_t>());
  for (BucketSample& b : s.buckets) b = get_bucket(r);
  s.network.resize(r.pod<uint64_t>());
  for (NetworkPoint& p : s.network) p = r.pod<NetworkPoint>();
  return s;
}

void put(ByteWriter& w, const RunSummary& s) {
  w.str(s.name);
  w.pod(s.iterations);
  for (double v : {s.sim_time_s, s.wall_time_s, s.final_train_loss, s.final_test_accuracy})
    w.pod(v);
  w.pod(s.bytes_on_wire);
  w.pod(s.mean_ratio);
  w.pod(s.effective_bits);
  w.pod(s.trimmed_packets);
  w.pod(s.skipped_steps);
  w.pod(s.time_to_accuracy_s);
  w.pod(s.seed);
  w.pod(s.iterations_to_accuracy);
  w.str(s.timed_as);
}

RunSummary get_summary(ByteReader& r) {
  RunSummary s;
  s.name = r.str();
  s.iterations = r.pod<int>();
  for (double* v : {&s.sim_time_s, &s.wall_time_s, &s.final_train_loss, &s.final_test_accuracy})
    *v = r.pod<double>();
  s.bytes_on_wire = r.pod<uint64_t>();
  s.mean_ratio = r.pod<double>();
  s.effective_bits = r.pod<double>();
  s.trimmed_packets = r.pod<uint64_t>();
  s.skipped_steps = r.pod<uint64_t>();
  s.time_to_accuracy_s = r.pod<double>();
  s.seed = r.pod<uint64_t>();
  s.iterations_to_accuracy = r.pod<int>();
  s.timed_as = r.str();
  return s;
}

}  // namespace

std::string encode_batch(const std::vector<BatchItem>& items, bool stopped) {
  ByteWriter w;
  w.pod<uint8_t>(stopped);
  w.pod<uint64_t>(items.size());
  for (const BatchItem& it : items) {
    w.pod(it.index);
    w.pod(it.status);
    w.pod<uint8_t>(it.invalid);
    w.str(it.error);
    put(w, it.result.summary);
    w.pod<uint8_t>(it.result.complete);
    w.pod<uint64_t>(it.result.samples.size());
    for (const Sample& s : it.result.samples) put(w, s);
    w.str(it.series_rows);
  }
  return std::move(w.bytes());
}

std::vector<BatchItem> decode_batch(const std::string& bytes, bool* stopped) {
  ByteReader r(bytes);
  *stopped = r.pod<uint8_t>() != 0;
  std::vector<BatchItem> items(r.pod<uint64_t>());
  for (BatchItem& it : items) {
    it.index = r.pod<int>();
    it.status = r.pod<int>();
    it.invalid = r.pod<uint8_t>() != 0;
    it.error = r.str();
    it.result.summary = get_summary(r);
    it.result.complete = r.pod<uint8_t>() != 0;
    it.result.samples.resize(r.pod<uint64_t>());
    for (Sample& s : it.result.samples) s = get_sample(r);
    it.series_rows = r.str();
  }
  if (!r.done()) throw std::runtime_error("a process sent more bytes than its runs");
  return items;
}

}  // namespace commlab
