#pragma once
// Spreading independent work (the runs of a sweep, the sections of `reproduce all`) over the
// processes of an `mpirun -np K` job: each process does the items assigned to it, and process 0
// gathers what they produced (MpiRuntime::gather_strings of the bytes written here) and writes
// the files a single process would write. No mpi.h here.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace commlab::exec {

// Item `index` of a deterministic list (runs in scenario order, report sections) goes to process
// index % size: the same split on every launch, whatever finishes first.
inline bool owns_item(int64_t index, int rank, int size) {
  return size <= 1 || index % size == rank;
}

// How long a batch process waits for the others at the final gather: they may still be running
// whole simulated runs. A process that dies ends the job through mpirun; this bounds a hung one.
inline constexpr double kBatchGatherTimeout_s = 6 * 3600.0;

// A small, exact binary encoding for what the processes exchange (PODs as their bytes, strings and
// vectors with a 64-bit length). Both ends are the same build on the same architecture.
class ByteWriter {
 public:
  template <typename T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void str(const std::string& s) {
    pod<uint64_t>(s.size());
    out_ += s;
  }
  void doubles(const std::vector<double>& v) {
    pod<uint64_t>(v.size());
    out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

class ByteReader {
 public:
  explicit ByteReader(const std::string& in) : in_(in) {}
  template <typename T>
  T pod() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    need(sizeof v);
    std::memcpy(&v, in_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  std::string str() {
    const uint64_t n = pod<uint64_t>();
    need(n);
    std::string s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::vector<double> doubles() {
    const uint64_t n = pod<uint64_t>();
    need_items(n, sizeof(double));
    std::vector<double> v(n);
    std::memcpy(v.data(), in_.data() + pos_, n * sizeof(double));
    pos_ += n * sizeof(double);
    return v;
  }
  bool done() const { return pos_ == in_.size(); }
  // Refuses (std::runtime_error) a count of items of `item_bytes` each that the bytes left cannot
  // hold, before anything is sized by it: a count from a peer is not trusted.
  void need_items(uint64_t count, size_t item_bytes) const {
    if (count > (in_.size() - pos_) / std::max<size_t>(item_bytes, 1))
      throw std::runtime_error("a process sent a count of " + std::to_string(count) +
                               " items that its remaining " + std::to_string(in_.size() - pos_) +
                               " bytes cannot hold");
  }

 private:
  void need(uint64_t n) const;
  const std::string& in_;
  size_t pos_ = 0;
};

}  // namespace commlab::exec
