// Fuzzes the tensor-file header parsers (io/tensor_files.h) behind codec --input. Input:
// [format selector][file bytes...]; selector bit 0: .safetensors, else .npy. A header may lie
// about every length and offset: the parser must refuse it with a message naming the file, or
// return tensors that lie inside the file, within their dtype's size and without overlapping.
#include <stdexcept>
#include <string>

#include "io/tensor_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool safetensors = data[0] & 1;
  std::span<const std::byte> file(reinterpret_cast<const std::byte*>(data + 1), size - 1);
  const std::string path = safetensors ? "fuzz.safetensors" : "fuzz.npy";
  try {
    const commlab::TensorFile f = safetensors
                                      ? commlab::parse_safetensors_header(file, file.size(), path)
                                      : commlab::parse_npy_header(file, file.size(), path);
    uint64_t end = 0;
    for (const auto& t : f.tensors) {
      if (t.offset < end || t.offset + t.bytes > file.size()) __builtin_trap();
      if (t.dtype != "bf16" && t.dtype != "fp16" && t.dtype != "fp32") __builtin_trap();
      end = t.offset + t.bytes;
    }
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).rfind(path + ": offset ", 0) != 0) __builtin_trap();
  }
  return 0;
}
