#pragma once
// Storage for the replay's per-rank arrays (scheduler_state.h): one bump allocator over large
// chunks instead of three heap blocks per rank. A 16,384-rank replay holds ~700 MB of them, read in
// time order across every rank: in 4 KiB pages that is ~180 K page faults to fill them and a TLB
// miss on nearly every record. The chunks are 2 MiB aligned and, on Linux, advised as transparent
// huge pages (MADV_HUGEPAGE; the system's setting decides whether that is honoured), and a rank's
// arrays sit next to each other. Internal to core/workload.
#include <algorithm>
#include <cstddef>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace commlab::workload::detail {

class ReplayArena {
 public:
  ReplayArena() = default;
  ReplayArena(const ReplayArena&) = delete;
  ReplayArena& operator=(const ReplayArena&) = delete;
  ~ReplayArena() {
    // Unsized: clang declares the sized aligned form only with -fsized-deallocation.
    for (const auto& chunk : chunks_) ::operator delete (chunk.first, std::align_val_t{kAlign});
  }

  // n objects of T, uninitialized storage (T is trivially destructible: nothing runs at the end).
  template <class T>
  std::span<T> take(size_t n) {
    static_assert(std::is_trivially_destructible_v<T> && alignof(T) <= kItemAlign);
    const size_t bytes = (n * sizeof(T) + kItemAlign - 1) / kItemAlign * kItemAlign;
    if (bytes > left_) {
      const size_t size = std::max(kChunk, (bytes + kAlign - 1) / kAlign * kAlign);
      auto* p = static_cast<std::byte*>(::operator new (size, std::align_val_t{kAlign}));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
      madvise(p, size, MADV_HUGEPAGE);  // advice only: without it the pages are 4 KiB
#endif
      chunks_.emplace_back(p, size);
      next_ = p, left_ = size;
    }
    T* out = reinterpret_cast<T*>(next_);
    next_ += bytes, left_ -= bytes;
    return {out, n};
  }

 private:
  static constexpr size_t kAlign = size_t{2} << 20;  // a huge page
  static constexpr size_t kChunk = size_t{32} << 20;
  static constexpr size_t kItemAlign = 16;
  std::vector<std::pair<std::byte*, size_t>> chunks_;
  std::byte* next_ = nullptr;
  size_t left_ = 0;
};

}  // namespace commlab::workload::detail
