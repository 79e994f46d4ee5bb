// A slow, obviously-correct decoder of the entropy streams (docs/formats.md), written from the
// format description without sharing code with huffman.cpp: bits are read one at a time and each
// code is found by linear search among the canonical codes. Tests decode the fast encoder's output
// with it.
#include <algorithm>
#include <utility>

#include "codec/huffman/huffman.h"

namespace commlab::entropy {
namespace {

uint32_t byte_at(std::span<const std::byte> in, size_t i) {
  return static_cast<uint32_t>(in[i]);
}

uint32_t le(std::span<const std::byte> in, size_t pos, size_t bytes) {
  uint32_t v = 0;
  for (size_t k = 0; k < bytes; ++k) v |= byte_at(in, pos + k) << (8 * k);
  return v;
}

struct Code {
  uint32_t bits;  // MSB-first code value
  int length;
  uint16_t symbol;
};

}  // namespace

Result<std::vector<uint16_t>> reference_decode_stream(std::span<const std::byte> in, size_t count,
                                                      int alphabet, size_t* consumed) {
  const size_t sb = alphabet > 256 ? 2 : 1;
  if (in.empty()) return make_error("reference: empty");
  const uint32_t mode = byte_at(in, 0);
  std::vector<uint16_t> out;
  if (mode == 0) {
    if (in.size() < 1 + count * sb) return make_error("reference: truncated raw");
    for (size_t i = 0; i < count; ++i) {
      const uint32_t symbol = le(in, 1 + i * sb, sb);
      if (symbol >= uint32_t(alphabet)) return make_error("reference: raw symbol outside alphabet");
      out.push_back(uint16_t(symbol));
    }
    *consumed = 1 + count * sb;
    return out;
  }
  if (mode == 1) {
    if (in.size() < 1 + sb) return make_error("reference: truncated constant");
    const uint32_t symbol = le(in, 1, sb);
    if (symbol >= uint32_t(alphabet)) return make_error("reference: constant outside alphabet");
    out.assign(count, uint16_t(symbol));
    *consumed = 1 + sb;
    return out;
  }
  if (mode != 2 || in.size() < 5) return make_error("reference: bad mode");
  const size_t total = le(in, 1, 4);
  if (in.size() < 5 + total) return make_error("reference: truncated");
  // Nibbles, low nibble of each byte first.
  std::vector<uint32_t> nibbles;
  for (size_t i = 5; i < 5 + total; ++i) {
    nibbles.push_back(byte_at(in, i) & 15);
    nibbles.push_back(byte_at(in, i) >> 4);
  }
  std::vector<int> lengths;
  size_t ni = 0;
  while (int(lengths.size()) < alphabet) {
    if (ni >= nibbles.size()) return make_error("reference: truncated lengths");
    uint32_t v = nibbles[ni++];
    if (v == 15) {
      if (ni + 2 > nibbles.size()) return make_error("reference: truncated run");
      uint32_t run = nibbles[ni] + 16 * nibbles[ni + 1] + 2;
      ni += 2;
      for (uint32_t k = 0; k < run; ++k) lengths.push_back(0);
    } else {
      lengths.push_back(int(v));
    }
  }
  if (int(lengths.size()) != alphabet) return make_error("reference: run past alphabet");
  size_t pos = 5 + (ni + 1) / 2;
  // Canonical code: sort by (length, symbol); each code is the previous plus one, shifted left by
  // the growth in length.
  std::vector<Code> codes;
  for (int s = 0; s < alphabet; ++s) {
    if (lengths[s]) codes.push_back({0, lengths[s], uint16_t(s)});
  }
  std::sort(codes.begin(), codes.end(), [](const Code& a, const Code& b) {
    return std::pair(a.length, a.symbol) < std::pair(b.length, b.symbol);
  });
  uint32_t next = 0;
  for (size_t k = 0; k < codes.size(); ++k) {
    if (k > 0) next = (next + 1) << (codes[k].length - codes[k - 1].length);
    codes[k].bits = next;
  }
  size_t sizes[4];
  size_t sum = 0;
  for (int k = 0; k < 3; ++k) sum += sizes[k] = le(in, pos + 2 * k, 2);
  pos += 6;
  if (5 + total < pos + sum) return make_error("reference: bad sizes");
  sizes[3] = 5 + total - pos - sum;
  size_t start[4];
  for (int k = 0; k < 4; ++k) {
    start[k] = pos;
    pos += sizes[k];
  }
  // Symbols are cut into four contiguous segments of ceil(count / 4) (the last ones shorter), one
  // per bit stream.
  const size_t q = (count + 3) / 4;
  out.resize(count);
  for (int k = 0; k < 4; ++k) {
    size_t bitpos = 0;
    for (size_t i = std::min(count, k * q); i < std::min(count, (k + 1) * q); ++i) {
      uint32_t value = 0;
      int length = 0;
      bool found = false;
      while (!found) {
        if (length == 16 || bitpos >= 8 * sizes[k]) return make_error("reference: bad code");
        const size_t b = bitpos++;
        value = (value << 1) | ((byte_at(in, start[k] + b / 8) >> (b % 8)) & 1);
        ++length;
        for (const Code& c : codes) {
          if (c.length == length && c.bits == value) {
            out[i] = c.symbol;
            found = true;
            break;
          }
        }
      }
    }
    if ((bitpos + 7) / 8 != sizes[k]) return make_error("reference: stream length mismatch");
  }
  *consumed = 5 + total;
  return out;
}

}  // namespace commlab::entropy
