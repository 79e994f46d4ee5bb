#pragma once
// One decoder call per bad-input kind, shared by the corpus test and the corpus generator so that
// the committed .expected text and the check are the same function. Each returns "ok" or the
// exact error message.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/lossy/trim_packet.h"
#include "train/dataset.h"

namespace commlab::hardening {

// kind "codec": {"codec": NAME, "out_bytes": N} decodes the file as a frame of that codec.
// kind "trim": {"tensor": N} decodes the file as one trimmable packet into N coordinates.
// kind "idx": {"rank": R} reads the file with read_idx_gz (message path replaced by "FILE").
inline std::string run_case(const nlohmann::json& c, const std::filesystem::path& file,
                            const std::vector<uint8_t>& bytes) {
  const std::string kind = c.at("kind");
  std::span<const std::byte> in(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
  if (kind == "codec") {
    auto codec = make_codec(c.at("codec").get<std::string>());
    std::vector<std::byte> out(c.at("out_bytes").get<size_t>());
    auto r = codec->decode(in, out);
    return r.ok() ? "ok" : r.error();
  }
  if (kind == "trim") {
    std::vector<float> out(c.at("tensor").get<size_t>());
    trim::HeadScratch scratch;
    auto r = trim::decode_packet(in, out, nullptr, scratch);
    return r.ok() ? "ok" : r.error();
  }
  if (kind == "idx") {
    auto r = read_idx_gz(file.string(), c.at("rank").get<int>());
    if (r.ok()) return "ok";
    std::string e = r.error();
    if (e.rfind(file.string(), 0) == 0) e = "FILE" + e.substr(file.string().size());
    // The in-memory reader must give the same message.
    auto m = read_idx_gz_bytes(bytes, "FILE", c.at("rank").get<int>());
    if (m.ok() || m.error() != e) return "file and memory readers differ: " + e;
    return e;
  }
  return "unknown kind " + kind;
}

}  // namespace commlab::hardening
