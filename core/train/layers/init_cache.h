#pragma once
// Initial weights kept for a process that draws the same layer from the same random stream again.
// The GUI re-trains after every edit with the same model and seed, and each He-normal weight costs
// a log, a cosine and a square root (StreamRng::normal): ~200k of them for the quickstart MLP, the
// largest part of the time from an edit to the re-trained run's first point on a loaded machine
// (bench/gui/gui_responsiveness). Kept values are the generator's own, so a layer filled from the
// cache is bit-identical to one drawn afresh.
#include <array>
#include <cstdint>
#include <functional>
#include <span>

namespace commlab {

// What identifies a layer's initial values: its random stream's key and whatever else they
// depend on (its kind and shape).
using InitKey = std::array<uint64_t, 4>;

// Fills `out` with what `draw` writes into it for `key`: drawn and kept the first time, copied
// from the kept values after that. At most kInitCacheBytes are kept, the least recently used
// dropped first; thread-safe (runs are built on several threads).
void cached_init(const InitKey& key, std::span<float> out,
                 const std::function<void(std::span<float>)>& draw);

inline constexpr size_t kInitCacheBytes = size_t{64} << 20;

}  // namespace commlab
