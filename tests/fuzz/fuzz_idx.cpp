// Fuzzes the gzip IDX loader (train/dataset.h read_idx_gz_bytes, the same checks as the file
// reader behind load_fashion_mnist). Input: [rank selector][gzip bytes...]. Rank 1 (labels) or 3
// (images); the declared size may lie, so the reader must bound every allocation by what the
// compressed bytes can hold.
#include <vector>

#include "train/dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int rank = (data[0] & 1) ? 3 : 1;
  const uint64_t max_items = (data[0] & 2) ? 1000 : 0;
  std::span<const uint8_t> gz(data + 1, size - 1);
  auto r = commlab::read_idx_gz_bytes(gz, "fuzz.gz", rank, max_items);
  if (r.ok()) {
    uint64_t items = 1;
    for (uint32_t d : r->dims) items *= d;
    if (r->dims.size() != static_cast<size_t>(rank)) __builtin_trap();
    if (r->data.size() != (max_items && max_items < items ? max_items : items)) __builtin_trap();
  } else if (r.error().rfind("fuzz.gz: ", 0) != 0) {
    __builtin_trap();  // every message names the file
  }
  return 0;
}
