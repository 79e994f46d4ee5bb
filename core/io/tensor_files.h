#pragma once
// Tensor files as published checkpoints and gradient dumps hold them: NumPy .npy
// (format 1.0, 2.0, 3.0) and .safetensors, with BF16, FP16 or FP32 values, plus raw files of one
// dtype. Only headers are read whole (capped); a tensor's values are read on their own, so a
// checkpoint of many tensors is processed one tensor at a time. Every refusal is one line:
// "PATH: offset N: what was expected, what was found" (std::invalid_argument).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace commlab {

// Header caps: a .npy header (its format 1.0 length field is 16 bits; 2.0/3.0 allow 4 GiB) and a
// .safetensors JSON header (the reference library allows 100 MB; thousands of tensors take ~1 MB).
inline constexpr uint64_t kMaxNpyHeaderBytes = 1u << 20;
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 16u << 20;

struct TensorEntry {
  std::string name;   // the safetensors key; for .npy and raw files the file name
  std::string dtype;  // "bf16", "fp16" or "fp32" (parse_dtype's names)
  std::vector<uint64_t> shape;
  uint64_t offset = 0;         // absolute byte offset of the first value in the file
  uint64_t bytes = 0;          // product(shape) * element size
  bool fortran_order = false;  // .npy column-major: the values are as stored, not transposed
};

struct TensorFile {
  std::string path;
  std::string format;                // "npy", "safetensors" or "raw"
  std::vector<TensorEntry> tensors;  // safetensors: in file order (by data offset)
  std::vector<std::pair<std::string, std::string>> metadata;  // safetensors __metadata__
};

// Parsers over a file's first bytes (`head`, at least the whole header when the file has it) and
// its total size; `path` only names the file in messages. The fuzz target calls these. A
// safetensors header is read as its specification says: unique tensor names, and tensors that
// cover the data buffer exactly (no overlap, no hole, up to the end of the file).
TensorFile parse_npy_header(std::span<const std::byte> head, uint64_t file_size,
                            const std::string& path);
TensorFile parse_safetensors_header(std::span<const std::byte> head, uint64_t file_size,
                                    const std::string& path);

// Opens PATH (a regular file) and reads its header: .npy and .safetensors by their extension,
// anything else as a raw file of `raw_dtype` values (its size must be a non-zero multiple of the
// element size). No tensor's values are read. A file without tensors, or with a tensor of no
// values (a 0 in its shape), is refused: an empty input is an error.
TensorFile read_tensor_file_index(const std::string& path, std::string_view raw_dtype);

// PATH itself when it is a file; when it is a directory, its regular files (names not starting
// with '.'; subdirectories are not entered) sorted by name, so the order never depends on the
// file system. An empty directory is an error.
std::vector<std::string> tensor_input_paths(const std::string& path);

// Work budgets of one input that count items, not bytes: every file and every tensor costs a
// fixed overhead (opening, a header, a table per codec), so a directory of 100,000 two-byte files
// or a safetensors file of 200,000 one-value tensors would run for minutes under every byte cap.
// A published checkpoint has hundreds of tensors per file and tens of files.
struct TensorInputBudgets {
  uint64_t files = 4096;     // codec --max-files
  uint64_t tensors = 16384;  // codec --max-tensors
  // What raises each budget, as the refusal's last words say it: "(codec --max-files raises it)".
  const char* files_raised_by = "codec --max-files raises it";
  const char* tensors_raised_by = "codec --max-tensors raises it";
};

// The headers of every file of tensor_input_paths(path), in that order, refusing an input over
// `budgets` (std::invalid_argument naming the count, the budget and codec's flag that raises it)
// before any value is read: the file count before any file is opened, the tensor count as soon
// as the files read so far exceed it.
std::vector<TensorFile> read_tensor_input_index(const std::string& path, std::string_view raw_dtype,
                                                const TensorInputBudgets& budgets = {});

// The bytes of one tensor of a file read by read_tensor_file_index. Refuses a tensor larger than
// max_bytes, and a file that became shorter than its header says.
std::vector<std::byte> read_tensor_bytes(const TensorFile& file, const TensorEntry& tensor,
                                         uint64_t max_bytes);

// "[2, 3]" for messages and reports.
std::string shape_text(const std::vector<uint64_t>& shape);

}  // namespace commlab
