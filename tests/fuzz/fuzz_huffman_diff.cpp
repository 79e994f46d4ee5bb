// Differential fuzzing of the fast Huffman decoder (codec/huffman/huffman_decode.cpp: tables of
// one, two and four symbols, segments) against the slow reference decoder
// (huffman_reference.cpp: bit by bit, canonical codes searched linearly). Input:
// [mode][alphabet][count: 2 bytes][bytes...]. Mode bit 0 set: the bytes are symbols (each taken
// modulo the alphabet), encoded by encode_stream and decoded by both, which must give back the
// symbols and consume the bytes written. Mode bit 0 clear: the bytes are a stream as received;
// both decoders must agree on whether it is malformed and, when not, on every symbol and on the
// bytes consumed. Mode bit 1: 16-bit symbols (alphabet up to 258), else bytes.
#include <cstring>
#include <vector>

#include "codec/huffman/huffman.h"

using namespace commlab;
using namespace commlab::entropy;

namespace {

constexpr size_t kMaxCount = 1 << 16;

template <class Sym>
void differential(std::span<const std::byte> stream, size_t count, int alphabet,
                  const std::vector<Sym>* expected, size_t expected_bytes) {
  std::vector<Sym> fast(count);
  TableCache cache;
  const Result<size_t> f = decode_stream<Sym>(stream, count, alphabet, fast.data(), &cache);
  size_t consumed = 0;
  const Result<std::vector<uint16_t>> r =
      reference_decode_stream(stream, count, alphabet, &consumed);
  if (f.ok() != r.ok()) __builtin_trap();  // one decoder accepts what the other refuses
  if (!f.ok()) {
    if (expected) __builtin_trap();  // the encoder's own stream refused
    return;
  }
  if (*f != consumed || r->size() != count) __builtin_trap();
  for (size_t i = 0; i < count; ++i)
    if (fast[i] != (*r)[i]) __builtin_trap();
  if (expected && (fast != *expected || *f != expected_bytes)) __builtin_trap();
}

template <class Sym>
void run(const uint8_t* data, size_t size, bool encode, int alphabet, size_t count) {
  if (encode) {
    const size_t n = std::min(count, size / sizeof(Sym));
    if (n == 0) return;
    std::vector<Sym> symbols(n);
    for (size_t i = 0; i < n; ++i) {
      Sym s;
      std::memcpy(&s, data + i * sizeof(Sym), sizeof(Sym));
      symbols[i] = static_cast<Sym>(s % alphabet);
    }
    std::vector<std::byte> stream(stream_bound(n, alphabet));
    const Result<size_t> w = encode_stream<Sym>(symbols.data(), n, alphabet, stream);
    if (!w.ok()) __builtin_trap();  // the bound was given
    differential<Sym>(std::span<const std::byte>(stream).first(*w), n, alphabet, &symbols, *w);
  } else {
    differential<Sym>(std::as_bytes(std::span(data, size)), count, alphabet, nullptr, 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const uint8_t mode = data[0];
  const bool wide = mode & 2;
  // Alphabets of 2 symbols up to 256 for bytes, kMaxAlphabet (258) for 16-bit symbols.
  const int alphabet = wide ? 2 + data[1] % (kMaxAlphabet - 1) : 2 + data[1] % 255;
  const size_t count = 1 + ((size_t(data[2]) | size_t(data[3]) << 8) % kMaxCount);
  if (wide)
    run<uint16_t>(data + 4, size - 4, mode & 1, alphabet, count);
  else
    run<uint8_t>(data + 4, size - 4, mode & 1, alphabet, count);
  return 0;
}
