// Writes the bad-input corpus (tests/data/bad_inputs): truncated, bit-flipped and resealed codec
// frames, malformed trimmable packets and corrupt IDX files, with manifest.json giving each file's
// decoder and its exact expected result (run by hand after a format change, then review the diff:
// make_bad_inputs SOURCE_DIR).
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>

#include "bad_input_cases.h"
#include "codec/frame.h"

using namespace commlab;
namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;
using nlohmann::json;

namespace {

struct Corpus {
  fs::path root;
  json cases = json::array();
  void add(const std::string& file, json c, const Bytes& b) {
    fs::create_directories((root / file).parent_path());
    std::ofstream(root / file, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    c["file"] = file;
    c["expected"] = hardening::run_case(c, root / file, b);
    cases.push_back(c);
  }
};

void reseal(Bytes& f) {
  auto* p = reinterpret_cast<std::byte*>(f.data());
  uint32_t payload = frame::get32(p + 16);
  if (payload > f.size() - frame::kHeaderSize) return;
  uint32_t crc = frame::crc32c(0, p, 20);
  frame::put32(p + 20, frame::crc32c(crc, p + frame::kHeaderSize, payload));
}

Bytes encode(const std::string& codec_name, DType d, size_t n) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = 0.01f * std::sin(0.37f * i) + (i % 37 == 0 ? 0.5f : 0.f);
  Bytes in(n * dtype_size(d));
  for (size_t i = 0; i < n; ++i) {
    uint32_t b;
    std::memcpy(&b, &x[i], 4);
    if (d == DType::kFp32)
      std::memcpy(&in[4 * i], &b, 4);
    else {
      uint16_t h = static_cast<uint16_t>(b >> 16);
      std::memcpy(&in[2 * i], &h, 2);
    }
  }
  auto codec = make_codec(codec_name);
  std::vector<std::byte> f(codec->bound(in.size()));
  auto r = codec->encode(std::as_bytes(std::span(in)), d, f);
  if (!r) throw std::runtime_error(codec_name + ": " + r.error());
  Bytes out(*r);
  std::memcpy(out.data(), f.data(), *r);
  return out;
}

void codec_cases(Corpus& c) {
  for (const auto& name : codec_names()) {
    const DType d = name.rfind("cast", 0) == 0 ? DType::kFp32 : DType::kBf16;
    const Bytes f = encode(name, d, 400);
    const size_t orig = 400 * dtype_size(d);
    json k = {{"kind", "codec"}, {"codec", name}, {"out_bytes", orig}};
    const std::string base = "codec/" + name;
    c.add(base + "-truncated-header.bin", k, Bytes(f.begin(), f.begin() + 10));
    c.add(base + "-truncated-payload.bin", k, Bytes(f.begin(), f.begin() + (24 + f.size()) / 2));
    Bytes flip = f;
    flip[24 + (f.size() - 24) / 2] ^= 0x08;
    c.add(base + "-bitflip.bin", k, flip);
    reseal(flip);
    c.add(base + "-bitflip-resealed.bin", k, flip);
    // The payload cut in half behind a valid header and checksum: the payload parser must notice.
    Bytes cut(f.begin(), f.begin() + 24 + (f.size() - 24) / 2);
    frame::put32(reinterpret_cast<std::byte*>(cut.data()) + 16, uint32_t(cut.size() - 24));
    reseal(cut);
    c.add(base + "-payload-cut-resealed.bin", k, cut);
    // A header that claims twice the original size.
    Bytes lie = f;
    frame::put64(reinterpret_cast<std::byte*>(lie.data()) + 8, 2 * orig);
    reseal(lie);
    json big = k;
    big["out_bytes"] = 2 * orig;
    c.add(base + "-size-lie-resealed.bin", big, lie);
    c.add(base + "-output-too-small.bin",
          json{{"kind", "codec"}, {"codec", name}, {"out_bytes", orig - 2}}, f);
  }
  // Header fields, once (every codec shares frame::parse).
  const Bytes f = encode("raw", DType::kBf16, 100);
  json k = {{"kind", "codec"}, {"codec", "raw"}, {"out_bytes", 200}};
  auto header = [&](const std::string& what, size_t at, uint8_t value) {
    Bytes b = f;
    b[at] = value;
    reseal(b);
    c.add("codec/header-" + what + ".bin", k, b);
  };
  header("bad-magic", 0, 0x00);
  header("unknown-codec-id", 2, 200);
  header("other-codec-id", 2, 1);
  header("version-2", 3, 2);
  header("dtype-3", 4, 3);
  header("unknown-flag", 5, 0x80);
  header("odd-original-size", 8, 201);
  header("payload-size-beyond-frame", 17, 0x7f);
  c.add("codec/empty.bin", k, Bytes{});
}

void trim_cases(Corpus& c) {
  using namespace trim;
  std::vector<float> x(300);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.1f * i);
  TrimConfig cfg;
  cfg.encoding = TrimEncoding::kEden;
  cfg.head_bits = 2;
  set_coords_per_packet(cfg, 100);
  auto packets = encode_packets(x, cfg, 1, 9);
  const Bytes p(reinterpret_cast<const uint8_t*>(packets[1].data()),
                reinterpret_cast<const uint8_t*>(packets[1].data()) + packets[1].size());
  json k = {{"kind", "trim"}, {"tensor", 300}};
  c.add("trim/valid.bin", k, p);
  c.add("trim/trimmed-to-header.bin", k,
        Bytes(p.begin(), p.begin() + header_bytes(cfg.encoding, 2)));
  c.add("trim/shorter-than-fixed-header.bin", k, Bytes(p.begin(), p.begin() + 20));
  c.add("trim/empty.bin", k, Bytes{});
  c.add("trim/tensor-too-small.bin", json{{"kind", "trim"}, {"tensor", 150}}, p);
  auto field = [&](const std::string& what, size_t at, uint8_t value) {
    Bytes b = p;
    b[at] = value;
    c.add("trim/" + what + ".bin", k, b);
  };
  field("bad-magic", 0, 0x00);
  field("unknown-encoding", 1, 7);
  field("head-bits-0", 2, 0);
  field("head-bits-9", 2, 9);
  field("bad-flags", 3, 0xe0);
  field("header-check-mismatch", 33, uint8_t(p[33] ^ 1));
  Bytes zero = p;
  std::memset(&zero[12], 0, 4);
  c.add("trim/count-0.bin", k, zero);
  Bytes huge = p;
  huge[15] = 0x10;  // 2^28 coordinates
  c.add("trim/count-2e28.bin", k, huge);
  Bytes longer = p;
  longer.push_back(0);
  c.add("trim/longer-than-layout.bin", k, longer);
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

Bytes idx(int rank, std::vector<uint32_t> dims, size_t data_bytes, uint8_t type = 8) {
  Bytes b{0, 0, type, uint8_t(rank)};
  for (uint32_t d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t(d >> s));
  for (size_t i = 0; i < data_bytes; ++i) b.push_back(uint8_t(i % 10));
  return b;
}

void idx_cases(Corpus& c) {
  json labels = {{"kind", "idx"}, {"rank", 1}}, images = {{"kind", "idx"}, {"rank", 3}};
  c.add("idx/valid-labels.gz", labels, gzip(idx(1, {100}, 100)));
  c.add("idx/too-small.gz", labels, Bytes{0x1f, 0x8b, 8, 0});
  c.add("idx/float-type.gz", labels, gzip(idx(1, {100}, 100, 0x0d)));
  c.add("idx/images-as-labels.gz", labels, gzip(idx(3, {1, 28, 28}, 784)));
  c.add("idx/truncated-header.gz", images, gzip(Bytes{0, 0, 8, 3, 0, 0, 0, 1, 0, 0}));
  c.add("idx/absurd-dimensions.gz", images, gzip(idx(3, {0xffffffff, 0xffffffff, 28}, 0)));
  c.add("idx/lying-header-60000x28x28.gz", images, gzip(idx(3, {60000, 28, 28}, 784)));
  c.add("idx/truncated-data.gz", labels, gzip(idx(1, {5000}, 1000)));
  Bytes gz = gzip(idx(1, {3000}, 3000));
  c.add("idx/cut-gzip-stream.gz", labels, Bytes(gz.begin(), gz.begin() + gz.size() / 2));
  Bytes flip = gzip(idx(1, {3000}, 3000));
  flip[flip.size() / 2] ^= 0x55;
  c.add("idx/bitflip-gzip-stream.gz", labels, flip);
  c.add("idx/not-gzip-raw-idx.gz", labels, idx(1, {100}, 100));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_bad_inputs SOURCE_DIR\n";
    return 2;
  }
  Corpus c{fs::path(argv[1]) / "tests/data/bad_inputs"};
  codec_cases(c);
  trim_cases(c);
  idx_cases(c);
  std::ofstream(c.root / "manifest.json") << json{{"cases", c.cases}}.dump(1) << "\n";
  std::cout << c.cases.size() << " cases written to " << c.root << "\n";
  return 0;
}
