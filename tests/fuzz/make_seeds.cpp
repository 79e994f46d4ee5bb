// Writes the encoder-produced seed corpus of the fuzz targets into SOURCE_DIR/tests/fuzz/corpus
// (run by hand after a format change: fuzz_make_seeds SOURCE_DIR). Each seed is a valid encoding
// in the layout its target reads, plus a truncated and a bit-flipped variant.
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/lossy/trim_packet.h"

using namespace commlab;
namespace fs = std::filesystem;

namespace {

using Bytes = std::vector<uint8_t>;

void write(const fs::path& dir, const std::string& name, const Bytes& b) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary)
      .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// A gradient-like tensor: smooth plus a few outliers, deterministic.
std::vector<float> tensor(size_t n) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = 0.01f * std::sin(0.37f * i) + (i % 37 == 0 ? 0.5f : 0.0f);
  return x;
}

std::vector<std::byte> as_dtype(const std::vector<float>& x, DType d) {
  std::vector<std::byte> out(x.size() * dtype_size(d));
  for (size_t i = 0; i < x.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &x[i], 4);
    if (d == DType::kFp32) std::memcpy(&out[4 * i], &bits, 4);
    if (d == DType::kBf16) {
      uint16_t h = static_cast<uint16_t>(bits >> 16);
      std::memcpy(&out[2 * i], &h, 2);
    }
    if (d == DType::kFp16) {
      uint16_t h = static_cast<uint16_t>(0x3c00 ^ (i & 0x3ff));  // any finite half values
      std::memcpy(&out[2 * i], &h, 2);
    }
  }
  return out;
}

void codec_seeds(const fs::path& dir) {
  const auto names = codec_names();
  for (size_t c = 0; c < names.size(); ++c) {
    for (DType d : {DType::kFp32, DType::kBf16, DType::kFp16}) {
      auto codec = make_codec(names[c]);
      auto in = as_dtype(tensor(d == DType::kFp32 ? 300 : 512), d);
      std::vector<std::byte> f(codec->bound(in.size()));
      auto n = codec->encode(in, d, f);
      if (!n) continue;
      Bytes seed{static_cast<uint8_t>(c), 0};
      for (size_t i = 0; i < *n; ++i) seed.push_back(uint8_t(f[i]));
      const std::string base = names[c] + "-" + std::string(dtype_name(d));
      write(dir, base, seed);
      Bytes cut(seed.begin(), seed.begin() + 2 + *n / 2);
      write(dir, base + "-truncated", cut);
      Bytes flip = seed;
      flip[1] = 1;  // mode 1: the checksum is fixed, so the flipped payload reaches the decoder
      flip[2 + 24 + (*n - 24) / 3] ^= 0x10;
      if (*n > 24) write(dir, base + "-bitflip", flip);
    }
  }
}

void trim_seeds(const fs::path& dir) {
  using namespace trim;
  const auto x = tensor(300);
  int k = 0;
  for (auto [enc, bits] : {std::pair{TrimEncoding::kSq, 4}, std::pair{TrimEncoding::kDrive, 1},
                           std::pair{TrimEncoding::kEden, 2}}) {
    for (DType wire : {DType::kFp32, DType::kBf16}) {
      TrimConfig c;
      c.encoding = enc;
      c.head_bits = bits;
      c.wire = wire;
      set_coords_per_packet(c, 100);
      auto packets = encode_packets(x, c, 3, 7);
      const auto& p = packets[1];
      const std::string base = std::string(encoding_name(enc)) + std::to_string(bits) + "-" +
                               std::string(dtype_name(wire));
      for (int keep_bits = -1; keep_bits <= bits; ++keep_bits) {
        size_t keep = keep_bits < 0 ? p.size() : *packet_trim_size(p, keep_bits);
        Bytes seed{0, 0x2c, 0x01, 0};  // mode 0, tensor of 300 coordinates
        for (size_t i = 0; i < keep; ++i) seed.push_back(uint8_t(p[i]));
        write(dir, base + (keep_bits < 0 ? "-full" : "-trim" + std::to_string(keep_bits)), seed);
      }
      // Structured (mode 1): header fields, then the real body.
      Bytes s{1, uint8_t(enc), uint8_t(bits - 1), uint8_t(wire), 3, 0, 7, 0, 0, 0, 99, 0, 0, 0, 100,
              0};
      Result<PacketHeader> h = parse_header(p);
      for (int i = 0; i < 8; ++i) s.push_back(uint8_t(h->seed >> (8 * i)));
      for (float f : h->scales) {
        uint8_t b[4];
        std::memcpy(b, &f, 4);
        s.insert(s.end(), b, b + 4);
      }
      const size_t hb = header_bytes(enc, bits);
      for (size_t i = hb; i < p.size(); ++i) s.push_back(uint8_t(p[i]));
      write(dir, base + "-structured", s);
      ++k;
    }
  }
}

Bytes gzip(const Bytes& raw) {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  Bytes out(deflateBound(&z, raw.size()) + 32);
  z.next_in = const_cast<Bytef*>(raw.data());
  z.avail_in = static_cast<uInt>(raw.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

Bytes idx(int rank, std::vector<uint32_t> dims, size_t data_bytes) {
  Bytes b{0, 0, 8, uint8_t(rank)};
  for (uint32_t d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t(d >> s));
  for (size_t i = 0; i < data_bytes; ++i) b.push_back(uint8_t(i * 7 % 10));
  return b;
}

void idx_seeds(const fs::path& dir) {
  auto put = [&](const std::string& name, uint8_t sel, const Bytes& gz) {
    Bytes seed{sel};
    seed.insert(seed.end(), gz.begin(), gz.end());
    write(dir, name, seed);
  };
  put("labels-ok", 0, gzip(idx(1, {50}, 50)));
  put("images-ok", 1, gzip(idx(3, {2, 28, 28}, 2 * 28 * 28)));
  put("images-ok-keep", 3, gzip(idx(3, {3, 28, 28}, 3 * 28 * 28)));
  put("labels-truncated-data", 0, gzip(idx(1, {500}, 40)));
  put("images-lying-header", 1, gzip(idx(3, {60000, 28, 28}, 100)));
  Bytes gz = gzip(idx(1, {64}, 64));
  put("labels-cut-gzip", 0, Bytes(gz.begin(), gz.begin() + gz.size() / 2));
  gz[gz.size() / 2] ^= 0x40;
  put("labels-bitflip-gzip", 0, gz);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_make_seeds SOURCE_DIR\n";
    return 2;
  }
  const fs::path corpus = fs::path(argv[1]) / "tests/fuzz/corpus";
  codec_seeds(corpus / "fuzz_codec");
  trim_seeds(corpus / "fuzz_trim_packet");
  idx_seeds(corpus / "fuzz_idx");
  std::cout << "seeds written under " << corpus << "\n";
  return 0;
}
