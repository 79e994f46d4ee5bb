#include "train/layers/init_cache.h"

#include <algorithm>
#include <list>
#include <mutex>
#include <utility>
#include <vector>

namespace commlab {

namespace {

struct Kept {
  InitKey key;
  std::vector<float> values;
};

struct InitCache {
  std::mutex mutex;
  std::list<Kept> kept;  // most recently used first
  size_t bytes = 0;
};

InitCache& init_cache() {
  static InitCache cache;
  return cache;
}

std::list<Kept>::iterator find(InitCache& cache, const InitKey& key, size_t count) {
  return std::find_if(cache.kept.begin(), cache.kept.end(),
                      [&](const Kept& k) { return k.key == key && k.values.size() == count; });
}

}  // namespace

void cached_init(const InitKey& key, std::span<float> out,
                 const std::function<void(std::span<float>)>& draw) {
  InitCache& cache = init_cache();
  {
    std::lock_guard lock(cache.mutex);
    const auto hit = find(cache, key, out.size());
    if (hit != cache.kept.end()) {
      std::copy(hit->values.begin(), hit->values.end(), out.begin());
      cache.kept.splice(cache.kept.begin(), cache.kept, hit);
      return;
    }
  }
  draw(out);  // outside the lock: other runs' layers are drawn meanwhile
  const size_t bytes = out.size_bytes();
  std::lock_guard lock(cache.mutex);
  // Too large to keep, or kept meanwhile by a run that drew the same layer.
  if (bytes > kInitCacheBytes || find(cache, key, out.size()) != cache.kept.end()) return;
  cache.kept.push_front({key, std::vector<float>(out.begin(), out.end())});
  cache.bytes += bytes;
  while (cache.bytes > kInitCacheBytes) {
    cache.bytes -= cache.kept.back().values.size() * sizeof(float);
    cache.kept.pop_back();
  }
}

}  // namespace commlab
