#include "codec/frame.h"

#include <nmmintrin.h>

#include <algorithm>
#include <array>
#include <string>

#include "codec/cpu_features.h"
#include "codec/framed_codec.h"

namespace commlab::frame {
namespace {

constexpr uint32_t kPoly = 0x82f63b78u;  // CRC-32C, reflected

std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[i] = c;
  }
  return t;
}

uint32_t crc32c_soft(uint32_t crc, const std::byte* p, size_t n) {
  static const std::array<uint32_t, 256> table = make_table();
  for (size_t i = 0; i < n; ++i) crc = table[(crc ^ uint8_t(p[i])) & 0xff] ^ (crc >> 8);
  return crc;
}

// GF(2) product of two polynomials modulo the CRC-32C polynomial, in the reflected bit order
// (zlib's multmodp): a * b mod P.
uint32_t multmodp(uint32_t a, uint32_t b) {
  uint32_t m = 1u << 31, p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) == 0) break;
    }
    m >>= 1;
    b = (b & 1) ? (b >> 1) ^ kPoly : b >> 1;
  }
  return p;
}

// x^(8 * bytes) mod P: what a CRC register is multiplied by when `bytes` zero bytes follow. The
// powers x^(8 * 2^k) come from a table (squaring them at every call was ~2% of decoding 64 KiB).
uint32_t shift_op(size_t bytes) {
  static const std::array<uint32_t, 64> x2n = [] {
    std::array<uint32_t, 64> t{};
    t[0] = 1u << 23;  // x^8 (bit 31 - k holds x^k): one byte
    for (size_t k = 1; k < t.size(); ++k) t[k] = multmodp(t[k - 1], t[k - 1]);
    return t;
  }();
  uint32_t p = 1u << 31;  // x^0
  for (size_t n = bytes, k = 0; n; n >>= 1, ++k) {
    if (n & 1) p = multmodp(x2n[k], p);
  }
  return p;
}

__attribute__((target("sse4.2"))) uint64_t crc32c_hw_serial(uint64_t c, const std::byte* p,
                                                            size_t n) {
  for (size_t i = 0; i < n; i += 8) c = _mm_crc32_u64(c, get64(p + i));
  return c;
}

// The crc32 instruction has a latency of 3 cycles and a throughput of 1: three lanes over thirds
// of the buffer run at once and are joined with the linearity of the CRC register,
// reg(A B) = reg(A) * x^(8|B|) xor reg_from_zero(B).
__attribute__((target("sse4.2"))) uint32_t crc32c_hw(uint32_t crc, const std::byte* p, size_t n) {
  uint64_t c = crc;
  size_t i = 0;
  if (n >= 3 * 4096) {
    const size_t lane = (n / 24) * 8;
    uint64_t c1 = 0, c2 = 0;
    const std::byte* b = p + lane;
    const std::byte* d = p + 2 * lane;
    for (size_t j = 0; j < lane; j += 8) {
      c = _mm_crc32_u64(c, get64(p + j));
      c1 = _mm_crc32_u64(c1, get64(b + j));
      c2 = _mm_crc32_u64(c2, get64(d + j));
    }
    const uint32_t op = shift_op(lane);
    c = multmodp(op, uint32_t(c)) ^ uint32_t(c1);
    c = multmodp(op, uint32_t(c)) ^ uint32_t(c2);
    i = 3 * lane;
  }
  const size_t whole = (n - i) & ~size_t(7);
  c = crc32c_hw_serial(c, p + i, whole);
  i += whole;
  uint32_t c32 = static_cast<uint32_t>(c);
  for (; i < n; ++i) c32 = _mm_crc32_u8(c32, uint8_t(p[i]));
  return c32;
}

bool valid_codec(uint8_t id) {
  return id <= static_cast<uint8_t>(CodecId::kNetzipLosslessBits);
}

}  // namespace

uint32_t crc32c(uint32_t crc, const std::byte* data, size_t size, int threads) {
  static const bool hw = cpu_features().sse42;
  auto reg = [](uint32_t c, const std::byte* p, size_t n) {
    return hw ? crc32c_hw(c, p, n) : crc32c_soft(c, p, n);
  };
  crc = ~crc;
  if (threads <= 1 || size < (size_t(1) << 20)) return ~reg(crc, data, size);
  // Part k's register from zero, joined like crc32c_hw's lanes.
  const size_t parts = size_t(threads);
  uint32_t regs[64];
  const size_t used = std::min<size_t>(parts, 64);
#pragma omp parallel for num_threads(int(used)) schedule(static, 1)
  for (size_t k = 0; k < used; ++k) {
    const size_t a = size * k / used, b = size * (k + 1) / used;
    regs[k] = reg(k == 0 ? crc : 0, data + a, b - a);
  }
  crc = regs[0];
  for (size_t k = 1; k < used; ++k) {
    const size_t a = size * k / used, b = size * (k + 1) / used;
    crc = multmodp(shift_op(b - a), crc) ^ regs[k];
  }
  return ~crc;
}

size_t finish(std::span<std::byte> out, const Header& h, int threads) {
  std::byte* p = out.data();
  p[0] = std::byte{0x43};
  p[1] = std::byte{0x4c};
  p[2] = std::byte{static_cast<uint8_t>(h.codec)};
  p[3] = std::byte{kVersion};
  p[4] = std::byte{static_cast<uint8_t>(h.dtype)};
  p[5] = std::byte{h.flags};
  put16(p + 6, 0);
  put64(p + 8, h.original_size);
  put32(p + 16, h.payload_size);
  uint32_t crc = crc32c(0, p, 20);
  crc = crc32c(crc, p + kHeaderSize, h.payload_size, threads);
  put32(p + 20, crc);
  return kHeaderSize + h.payload_size;
}

Result<Header> parse(std::span<const std::byte> in, CodecId expected, int threads) {
  if (in.size() < kHeaderSize) return make_error("frame truncated: shorter than its header");
  const std::byte* p = in.data();
  if (p[0] != std::byte{0x43} || p[1] != std::byte{0x4c}) return make_error("bad frame magic");
  uint8_t id = uint8_t(p[2]);
  if (!valid_codec(id)) return make_error("unknown codec id " + std::to_string(id));
  if (id != static_cast<uint8_t>(expected)) {
    return make_error("frame of codec id " + std::to_string(id) + " given to codec id " +
                      std::to_string(static_cast<int>(expected)));
  }
  if (uint8_t(p[3]) != kVersion) return make_error("unsupported frame version");
  uint8_t dtype = uint8_t(p[4]);
  if (dtype > 2) return make_error("bad dtype in frame header");
  uint8_t flags = uint8_t(p[5]);
  if ((flags & ~kFlagStored) != 0 || get16(p + 6) != 0) return make_error("bad frame flags");
  Header h{static_cast<CodecId>(id), static_cast<DType>(dtype), flags, get64(p + 8), get32(p + 16)};
  if (h.payload_size > in.size() - kHeaderSize) return make_error("frame truncated: payload");
  if (h.original_size % dtype_size(h.dtype) != 0) return make_error("bad original size");
  uint32_t crc = crc32c(0, p, 20);
  crc = crc32c(crc, p + kHeaderSize, h.payload_size, threads);
  if (crc != get32(p + 20)) return make_error("frame checksum mismatch (corrupt frame)");
  if ((h.flags & kFlagStored) && h.payload_size != h.original_size) {
    return make_error("stored frame size mismatch");
  }
  Result<uint64_t> most = max_original_size(h, payload(in, h));
  if (!most) return make_error(most.error());
  if (h.original_size > *most)
    return make_error("frame claims " + std::to_string(h.original_size) + " decoded bytes, its " +
                      std::to_string(h.payload_size) + "-byte payload holds at most " +
                      std::to_string(*most));
  return h;
}

Result<Header> parse_any(std::span<const std::byte> in, int threads) {
  if (in.size() < kHeaderSize) return make_error("frame truncated: shorter than its header");
  return parse(in, static_cast<CodecId>(uint8_t(in[2])), threads);
}

Result<size_t> store(std::span<const std::byte> in, DType dtype, CodecId codec,
                     std::span<std::byte> out) {
  if (out.size() < kHeaderSize + in.size()) return make_error("output buffer too small");
  if (in.size() > UINT32_MAX) return make_error("input too large for one frame (4 GiB)");
  if (!in.empty()) std::memcpy(out.data() + kHeaderSize, in.data(), in.size());
  return finish(out, Header{codec, dtype, kFlagStored, in.size(), uint32_t(in.size())});
}

}  // namespace commlab::frame

namespace commlab {

size_t FramedCodec::bound(size_t input_bytes) const {
  if (allow_stored_) return frame::kHeaderSize + input_bytes;
  return frame::kHeaderSize + payload_bound(input_bytes);
}

Result<size_t> FramedCodec::encode(std::span<const std::byte> in, DType dtype,
                                   std::span<std::byte> out) {
  if (in.size() % dtype_size(dtype) != 0) {
    return make_error("input size is not a multiple of the " + std::string(dtype_name(dtype)) +
                      " element size");
  }
  if (!supports(dtype)) {
    return make_error(name_ + " does not support " + std::string(dtype_name(dtype)) + " input");
  }
  if (in.size() > UINT32_MAX) return make_error("input too large for one frame (4 GiB)");
  if (out.size() < bound(in.size())) return make_error("output buffer smaller than bound()");
  auto body = out.subspan(frame::kHeaderSize);
  if (allow_stored_) body = body.first(std::min(body.size(), in.size()));
  Result<size_t> r = encode_payload(in, dtype, body);
  if (!r.ok() || (allow_stored_ && *r >= in.size())) {
    if (!allow_stored_) return r;
    Result<size_t> s = frame::store(in, dtype, id_, out);
    if (s.ok()) observe_encoded(in, dtype);
    return s;
  }
  observe_encoded(in, dtype);
  return frame::finish(out, frame::Header{id_, dtype, 0, in.size(), uint32_t(*r)},
                       threads_for(in.size()));
}

Result<size_t> FramedCodec::decode(std::span<const std::byte> in, std::span<std::byte> out) {
  Result<frame::Header> h = frame::parse(in, id_, threads_for(in.size()));
  if (!h.ok()) return make_error(h.error());
  if (out.size() < h->original_size) return make_error("output buffer smaller than the frame");
  auto dst = out.first(h->original_size);
  auto payload = frame::payload(in, *h);
  if (h->flags & frame::kFlagStored) {
    if (!payload.empty()) std::memcpy(dst.data(), payload.data(), payload.size());
  } else {
    Result<size_t> r = decode_payload(payload, h->dtype, dst);
    if (!r.ok()) return r;
    if (*r != dst.size()) return make_error("payload decoded to the wrong size");
  }
  observe_decoded(dst, h->dtype);
  return dst.size();
}

}  // namespace commlab
