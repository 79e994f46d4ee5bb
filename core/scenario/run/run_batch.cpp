#include "scenario/run/run_batch.h"

#include <cstddef>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

#include "exec/runs/mpi_batch.h"

namespace commlab {

namespace {

using exec::ByteReader;
using exec::ByteWriter;

// Each struct's members, listed once: the writer and the reader walk the same list, so they cannot
// disagree, and member_count (below) holds the list to the struct, so a member added to the struct
// and not here fails to compile.
auto fields(BucketSample& b) {
  return std::tie(b.name, b.elements, b.ratio, b.effective_bits, b.dropped_contributions,
                  b.trimmed_packets, b.nmse, b.plane_entropy);
}
auto fields(Sample& s) {
  return std::tie(s.iteration, s.sim_time_s, s.wall_time_s, s.train_loss, s.test_loss,
                  s.test_accuracy, s.class_accuracy, s.grad_norm, s.lr, s.bytes_on_wire,
                  s.compute_time_s, s.comm_time_s, s.codec_time_s, s.comm_total_s, s.codec_total_s,
                  s.skipped_contributions, s.trimmed_packets, s.nmse, s.divergence, s.ratio,
                  s.effective_bits, s.buckets, s.network);
}
auto fields(RunSummary& s) {
  return std::tie(s.name, s.seed, s.timed_as, s.iterations, s.sim_time_s, s.wall_time_s,
                  s.final_train_loss, s.final_test_accuracy, s.final_class_accuracy,
                  s.bytes_on_wire, s.mean_ratio, s.effective_bits, s.trimmed_packets,
                  s.skipped_steps, s.time_to_accuracy_s, s.iterations_to_accuracy, s.tta_window);
}
auto fields(RunResult& r) {
  return std::tie(r.summary, r.samples, r.complete, r.per_seed);
}
auto fields(Status& s) {
  return std::tie(s.code, s.field, s.message);
}

// The number of members of an aggregate: the most initializers its braces take.
struct AnyMember {
  template <typename T>
  operator T() const;  // never called: unevaluated only
};
template <typename T, typename... Given>
constexpr size_t member_count() {
  if constexpr (requires { T{Given{}..., AnyMember{}}; })
    return member_count<T, Given..., AnyMember>();
  else
    return sizeof...(Given);
}
template <typename T>
constexpr bool all_listed() {
  return member_count<T>() == std::tuple_size_v<decltype(fields(std::declval<T&>()))>;
}
static_assert(all_listed<BucketSample>(), "BucketSample: list its new member in fields()");
static_assert(all_listed<Sample>(), "Sample: list its new member in fields()");
static_assert(all_listed<RunSummary>(), "RunSummary: list its new member in fields()");
static_assert(all_listed<RunResult>(), "RunResult: list its new member in fields()");
static_assert(all_listed<Status>(), "Status: list its new member in fields()");
static_assert(std::is_trivially_copyable_v<NetworkPoint>);

template <typename T>
void put(ByteWriter& w, const T& value);
template <typename T>
void get(ByteReader& r, T& value);

template <typename T>
void put(ByteWriter& w, const std::vector<T>& list) {
  w.pod<uint64_t>(list.size());
  for (const T& item : list) put(w, item);
}
template <typename T>
void get(ByteReader& r, std::vector<T>& list) {
  const uint64_t n = r.pod<uint64_t>();
  r.need_items(n, 1);  // every item takes at least one byte
  list.resize(n);
  for (T& item : list) get(r, item);
}

template <typename T>
void put(ByteWriter& w, const T& value) {
  if constexpr (std::is_same_v<T, std::string>) {
    w.str(value);
  } else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T> ||
                       std::is_same_v<T, NetworkPoint>) {
    w.pod(value);
  } else {
    std::apply([&](const auto&... member) { (put(w, member), ...); },
               fields(const_cast<T&>(value)));
  }
}
template <typename T>
void get(ByteReader& r, T& value) {
  if constexpr (std::is_same_v<T, std::string>) {
    value = r.str();
  } else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T> ||
                       std::is_same_v<T, NetworkPoint>) {
    value = r.pod<T>();
  } else {
    std::apply([&](auto&... member) { (get(r, member), ...); }, fields(value));
  }
}

}  // namespace

std::string encode_result(const RunResult& result) {
  ByteWriter w;
  put(w, result);
  return std::move(w.bytes());
}

RunResult decode_result(const std::string& bytes) {
  ByteReader r(bytes);
  RunResult result;
  get(r, result);
  if (!r.done()) throw std::runtime_error("a run's result has bytes after its samples");
  return result;
}

std::string encode_batch(const std::vector<BatchItem>& items, bool stopped) {
  ByteWriter w;
  w.pod<uint8_t>(stopped);
  w.pod<uint64_t>(items.size());
  for (const BatchItem& it : items) {
    w.pod(it.index);
    w.pod(it.status);
    put(w, it.error);
    w.str(encode_result(it.result));
    w.str(it.series_rows);
  }
  return std::move(w.bytes());
}

std::vector<BatchItem> decode_batch(const std::string& bytes, bool* stopped) {
  ByteReader r(bytes);
  *stopped = r.pod<uint8_t>() != 0;
  const uint64_t n = r.pod<uint64_t>();
  r.need_items(n, 1);
  std::vector<BatchItem> items(n);
  for (BatchItem& it : items) {
    it.index = r.pod<int>();
    it.status = r.pod<int>();
    get(r, it.error);
    it.result = decode_result(r.str());
    it.series_rows = r.str();
  }
  if (!r.done()) throw std::runtime_error("a process sent more bytes than its runs");
  return items;
}

}  // namespace commlab
