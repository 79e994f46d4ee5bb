#include <functional>
#include <stdexcept>
#include <utility>

#include "codec/codec.h"
#include "codec/codec_factories.h"
#include "codec/frame.h"
#include "io/status.h"

namespace commlab {
namespace {

using Factory = std::function<std::unique_ptr<Codec>()>;

// The one table of codec names (CLI `--codecs`, scenario files, the collective executor).
const std::vector<std::pair<std::string, Factory>>& registry() {
  static const std::vector<std::pair<std::string, Factory>> table = {
      {"raw", [] { return make_raw_codec(); }},
      {"lz4", [] { return make_lz4_codec(); }},
      {"zstd-1", [] { return make_zstd_codec(1); }},
      {"zstd-3", [] { return make_zstd_codec(3); }},
      {"zstd-19", [] { return make_zstd_codec(19); }},
      {"bytegroup-zstd-1", [] { return make_bytegroup_zstd_codec(1, "bytegroup-zstd-1"); }},
      {"bytegroup-zstd", [] { return make_bytegroup_zstd_codec(19, "bytegroup-zstd"); }},
      {"netzip-paper", [] { return make_netzip_paper_codec(); }},
      {"netzip-lossless", [] { return make_netzip_lossless_codec(false); }},
      {"netzip-lossless-bits", [] { return make_netzip_lossless_codec(true); }},
      {"xor-prev", [] { return make_xor_prev_codec(); }},
      {"cast-bf16", [] { return make_cast_codec(DType::kBf16); }},
      {"cast-fp16", [] { return make_cast_codec(DType::kFp16); }},
      {"topk", [] { return make_topk_codec(0.01); }},
      {"powersgd", [] { return make_powersgd_codec(4); }},
      {"commlab", [] { return make_commlab_codec(); }},
  };
  return table;
}

}  // namespace

size_t dtype_size(DType dtype) {
  return dtype == DType::kFp32 ? 4 : 2;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kBf16: return "bf16";
    case DType::kFp16: return "fp16";
    case DType::kFp32: return "fp32";
  }
  return "?";
}

DType parse_dtype(std::string_view name) {
  if (name == "bf16") return DType::kBf16;
  if (name == "fp16") return DType::kFp16;
  if (name == "fp32") return DType::kFp32;
  throw bad_input("unknown dtype '" + std::string(name) + "' (expected bf16, fp16, fp32)");
}

std::vector<std::string> codec_names() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : registry()) names.push_back(name);
  return names;
}

std::unique_ptr<Codec> make_codec(std::string_view name) {
  for (const auto& [n, factory] : registry()) {
    if (n == name) return factory();
  }
  std::string list;
  for (const auto& n : codec_names()) list += (list.empty() ? "" : ", ") + n;
  throw bad_input("unknown codec '" + std::string(name) + "' (expected one of: " + list + ")");
}

Result<size_t> frame_original_size(std::span<const std::byte> in) {
  Result<frame::Header> h = frame::parse_any(in);
  if (!h.ok()) return make_error(h.error());
  return size_t(h->original_size);
}

}  // namespace commlab
