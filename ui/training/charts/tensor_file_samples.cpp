#include "tensor_file_samples.h"

#include <filesystem>
#include <stdexcept>

#include "codec/codec.h"
#include "codec/plane_entropy.h"
#include "codec/value_cast.h"
#include "io/tensor_files.h"

namespace commlab::ui {
namespace {

constexpr uint64_t kMaxTensorBytes = 1ull << 30;  // per tensor, as commlab-cli codec

BucketSample measure_tensor(const TensorFile& file, const TensorEntry& t, const std::string& codec,
                            bool several_files) {
  const DType dtype = parse_dtype(t.dtype);
  const std::vector<std::byte> bytes = read_tensor_bytes(file, t, kMaxTensorBytes);
  BucketSample b;
  const std::string file_name = std::filesystem::path(file.path).filename().string();
  b.name = file.format == "safetensors" && several_files ? file_name + ": " + t.name : t.name;
  b.elements = bytes.size() / dtype_size(dtype);
  std::vector<float> values(b.elements);
  cast_to_float(bytes, dtype, values);
  b.plane_entropy = byte_plane_entropy(values, dtype);
  auto c = make_codec(codec);
  std::vector<std::byte> frame(c->bound(bytes.size()));
  const Result<size_t> r = c->encode(bytes, dtype, frame);
  if (!r.ok()) throw std::invalid_argument(file.path + ": tensor '" + t.name + "': " + r.error());
  b.ratio = bytes.empty() ? 1.0 : double(*r) / double(bytes.size());
  return b;
}

}  // namespace

TensorInputBudgets tensor_file_page_budgets() {
  TensorInputBudgets b;
  b.tensors = 256;
  b.tensors_raised_by =
      "the Codec page's charts draw at most 256; commlab-cli codec --input "
      "measures up to its --max-tensors";
  b.files_raised_by = "the Codec page's budget; commlab-cli codec --max-files raises it";
  return b;
}

std::vector<Sample> tensor_file_samples(const std::string& path, const std::string& codec,
                                        const TensorInputBudgets& budgets) {
  // Every header checked, and the item budgets, before a value is read.
  const std::vector<TensorFile> files = read_tensor_input_index(path, "bf16", budgets);
  Sample s;
  s.iteration = 1;
  for (const TensorFile& f : files)
    for (const TensorEntry& t : f.tensors)
      s.buckets.push_back(measure_tensor(f, t, codec, files.size() > 1));
  return {s};
}

}  // namespace commlab::ui
