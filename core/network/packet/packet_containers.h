#pragma once
// The few containers of the packet DES, all flat and reused so the hot path never allocates once
// warmed up: a growable FIFO ring, a binary min-heap of 16-byte events, and a packet pool.
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace commlab {

// FIFO over a power-of-two ring; grows by doubling (amortised, capacity is kept). A ring told to
// count_in(tally) adds the bytes each growth allocates there (the memory budget's queues).
template <typename T>
class RingBuffer {
 public:
  void count_in(uint64_t* tally) { tally_ = tally; }
  bool empty() const { return size_ == 0; }
  uint32_t size() const { return size_; }
  size_t capacity() const { return buf_.capacity(); }
  T& front() { return buf_[head_]; }
  void push_back(T value) {
    if (size_ == buf_.size()) grow();
    buf_[(head_ + size_) & mask_] = value;
    ++size_;
  }
  T pop_front() {
    T value = buf_[head_];
    head_ = (head_ + 1) & mask_;
    --size_;
    return value;
  }
  void clear() { head_ = size_ = 0; }

 private:
  void grow() {
    uint32_t cap = buf_.empty() ? 8 : static_cast<uint32_t>(buf_.size()) * 2;
    std::vector<T> next(cap);
    for (uint32_t i = 0; i < size_; ++i) next[i] = buf_[(head_ + i) & mask_];
    if (tally_) *tally_ += (next.capacity() - buf_.capacity()) * sizeof(T);
    buf_.swap(next);
    head_ = 0;
    mask_ = cap - 1;
  }
  std::vector<T> buf_;
  uint32_t head_ = 0, size_ = 0, mask_ = 0;
  uint64_t* tally_ = nullptr;
};

using SimTime = uint64_t;  // picoseconds: exact, and 2^64 ps is over 200 days

enum class EventKind : uint32_t {
  kArrive,
  kTxDone,
  kTimer,
  kPull,
  kSample,
  kGenerate,
  kPfc,        // a PFC frame reaches the upstream port (RoCE)
  kPace,       // a DCQCN-paced sender may send again
  kDcqcn,      // DCQCN rate-increase timer
  kStartFlow,  // a flow of a flow graph whose dependencies are met starts
};

struct Event {
  SimTime time;
  uint32_t target;  // packet, port, flow slot, host or generator, by kind
  EventKind kind;
};

// Binary min-heap on time (a 4-ary heap measured no faster here). Ties pop in an order fixed by
// the sequence of pushes and pops, so a run is deterministic; no model decision depends on the
// order of simultaneous events.
class EventHeap {
 public:
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  size_t capacity() const { return heap_.capacity(); }
  const Event& top() const { return heap_.front(); }
  void push(Event e) {
    size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      size_t parent = (i - 1) >> 1;
      if (heap_[parent].time <= e.time) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  Event pop() {
    Event top = heap_.front();
    Event last = heap_.back();
    heap_.pop_back();
    size_t n = heap_.size();
    if (n == 0) return top;
    size_t i = 0;
    while (true) {
      size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && heap_[child + 1].time < heap_[child].time) ++child;
      if (last.time <= heap_[child].time) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = last;
    return top;
  }

 private:
  std::vector<Event> heap_;
};

// Radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990) for the DES's monotone clock: event i sits in
// bucket 1 + (index of the highest bit where its time differs from the last popped time), so a
// push is O(1) and an element moves down a few buckets over its life; pops need no comparisons
// in the common case. Events scheduled before the last popped time (only possible after the
// clock was stopped at a deadline and new work starts at `now`) go to a small binary heap that
// pops first: every one of them is earlier than everything in the buckets. Ties pop in an order
// fixed by the sequence of operations, so runs are deterministic.
class RadixEventQueue {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // Bytes its buckets hold: they keep their capacity, so this is the high-water mark of events.
  size_t capacity_bytes() const {
    size_t n = early_.capacity();
    for (const std::vector<Event>& b : buckets_) n += b.capacity();
    return n * sizeof(Event);
  }
  void push(Event e) {
    ++size_;
    if (e.time < last_) {
      early_.push(e);
      return;
    }
    buckets_[bucket_of(e.time)].push_back(e);
  }
  // Time of the next event without popping it (does not move the clock forward).
  SimTime next_time() const {
    if (!early_.empty()) return early_.top().time;
    if (!buckets_[0].empty()) return last_;
    size_t i = 1;
    while (buckets_[i].empty()) ++i;
    SimTime m = buckets_[i][0].time;
    for (const Event& e : buckets_[i]) m = e.time < m ? e.time : m;
    return m;
  }
  Event pop() {
    --size_;
    if (!early_.empty()) return early_.pop();
    if (buckets_[0].empty()) refill();
    Event e = buckets_[0].back();
    buckets_[0].pop_back();
    return e;
  }

 private:
  size_t bucket_of(SimTime t) const {
    return t == last_ ? 0 : 64 - static_cast<size_t>(__builtin_clzll(t ^ last_));
  }
  void refill() {
    size_t i = 1;
    while (buckets_[i].empty()) ++i;
    std::vector<Event>& b = buckets_[i];
    SimTime m = b[0].time;
    for (const Event& e : b) m = e.time < m ? e.time : m;
    last_ = m;
    for (const Event& e : b) buckets_[bucket_of(e.time)].push_back(e);
    b.clear();
  }
  std::array<std::vector<Event>, 65> buckets_;
  EventHeap early_;
  SimTime last_ = 0;
  size_t size_ = 0;
};

// Fixed-size records handed out by index, recycled through a free list.
template <typename T>
class Pool {
 public:
  uint32_t alloc() {
    if (!free_.empty()) {
      uint32_t i = free_.back();
      free_.pop_back();
      return i;
    }
    items_.emplace_back();
    return static_cast<uint32_t>(items_.size() - 1);
  }
  void release(uint32_t i) { free_.push_back(i); }
  T& operator[](uint32_t i) { return items_[i]; }
  const T& operator[](uint32_t i) const { return items_[i]; }
  size_t live() const { return items_.size() - free_.size(); }
  size_t capacity() const { return items_.size(); }
  // Bytes it holds: records and free list (both keep their capacity).
  size_t bytes() const {
    return items_.capacity() * sizeof(T) + free_.capacity() * sizeof(uint32_t);
  }

 private:
  std::vector<T> items_;
  std::vector<uint32_t> free_;
};

}  // namespace commlab
