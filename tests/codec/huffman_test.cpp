// The entropy coder: the slow reference decoder (bit by bit, linear code search) must decode the
// fast encoder's output, and the fast decoder must agree with both.
#include "codec/huffman/huffman.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "numeric/rng.h"

namespace commlab::entropy {
namespace {

// Symbols with a geometric distribution of parameter p (a long tail that needs length limiting).
std::vector<uint16_t> geometric(size_t count, double p, int alphabet, uint64_t seed) {
  CounterRng rng(seed, Purpose::kCodec);
  std::vector<uint16_t> s(count);
  for (size_t i = 0; i < count; ++i) {
    double u = 1.0 - rng.uniform(i);
    int v = int(std::floor(std::log(u) / std::log(1.0 - p)));
    s[i] = uint16_t(std::min(v, alphabet - 1));
  }
  return s;
}

template <class Sym>
void check_round_trip(const std::vector<uint16_t>& symbols, int alphabet,
                      std::optional<Mode> expected_mode) {
  std::vector<Sym> in(symbols.begin(), symbols.end());
  std::vector<std::byte> buf(stream_bound(in.size(), alphabet));
  Result<size_t> n = encode_stream(in.data(), in.size(), alphabet, buf);
  ASSERT_TRUE(n.ok()) << n.error();
  if (expected_mode) EXPECT_EQ(static_cast<Mode>(uint8_t(buf[0])), *expected_mode);
  auto stream = std::span(buf).first(*n);
  std::vector<Sym> fast(in.size() + 1);
  Result<size_t> used = decode_stream(stream, in.size(), alphabet, fast.data());
  ASSERT_TRUE(used.ok()) << used.error();
  EXPECT_EQ(*used, *n);
  fast.resize(in.size());
  EXPECT_EQ(fast, in);
  size_t consumed = 0;
  auto ref = reference_decode_stream(stream, in.size(), alphabet, &consumed);
  ASSERT_TRUE(ref.ok()) << ref.error();
  EXPECT_EQ(consumed, *n);
  EXPECT_EQ(*ref, symbols);
}

TEST(Huffman, ReferenceDecoderDecodesFastEncoderOutput) {
  // Counts around the 4-segment split and the multi-symbol table threshold (16384).
  for (size_t count : {2u, 3u, 5u, 21u, 100u, 4095u, 4096u, 16383u, 16384u, 16387u, 50001u}) {
    SCOPED_TRACE(count);
    auto skewed = geometric(count, 0.35, 258, count);
    // Small streams may stay raw (the table costs more than it saves); long ones must not.
    std::optional<Mode> mode;
    if (count >= 4095) mode = Mode::kHuffman;
    check_round_trip<uint16_t>(skewed, 258, mode);
    auto bytes = geometric(count, 0.05, 256, count + 1);
    check_round_trip<uint8_t>(bytes, 256, mode);
  }
}

TEST(Huffman, FewSymbolByteStreamsRoundTripThroughEveryPath) {
  // Gradient exponents use ~20 byte values with 1-3 bit codes: the encoder codes them two per
  // lookup (pair table) and the decoder up to four per lookup. Both output placements (straight
  // into a roomy buffer, via scratch into a tight one) must give the same bytes, which the
  // reference decoder must read back.
  for (size_t count : {4096u, 4097u, 16384u, 16387u, 50001u, 65536u}) {
    SCOPED_TRACE(count);
    auto syms = geometric(count, 0.35, 256, count + 7);
    check_round_trip<uint8_t>(syms, 256, Mode::kHuffman);
    std::vector<uint8_t> in(syms.begin(), syms.end());
    std::vector<std::byte> tight(stream_bound(count, 256)), roomy(2 * count + 64);
    size_t a = *encode_stream(in.data(), count, 256, tight);
    size_t b = *encode_stream(in.data(), count, 256, roomy);
    ASSERT_EQ(a, b);
    EXPECT_TRUE(std::equal(tight.begin(), tight.begin() + a, roomy.begin()));
  }
}

TEST(Huffman, CallerCountedSampleGivesTheSameBytes) {
  // encode_stream may take the counts of symbols 0, 8, 16, ... from the caller instead of
  // sampling itself: the raw/Huffman decision, and so every output byte, must not change. Near-
  // uniform streams (raw) and skewed ones (Huffman) of lengths around the 16384 sampling limit.
  CounterRng rng(3, Purpose::kCodec);
  for (size_t count : {1024u, 16383u, 16384u, 16391u, 65536u}) {
    for (int skew : {0, 1}) {
      SCOPED_TRACE(count);
      std::vector<uint8_t> in(count);
      for (size_t i = 0; i < count; ++i) {
        in[i] = uint8_t(skew ? rng.below(i, 256) & rng.below(i + count, 256) : rng.below(i, 256));
      }
      uint32_t every8th[256] = {};
      for (size_t i = 0; i < count; i += 8) every8th[in[i]]++;
      std::vector<std::byte> a(stream_bound(count, 256)), b(stream_bound(count, 256));
      const size_t na = *encode_stream(in.data(), count, 256, a);
      const size_t nb = *encode_stream(in.data(), count, 256, b, every8th);
      ASSERT_EQ(na, nb);
      EXPECT_TRUE(std::equal(a.begin(), a.begin() + na, b.begin()));
      EXPECT_EQ(Mode(uint8_t(a[0])), skew ? Mode::kHuffman : Mode::kRaw);
    }
  }
}

TEST(Huffman, ConstantAndUniformStreamsPickTheCheapMode) {
  check_round_trip<uint16_t>(std::vector<uint16_t>(1000, 257), 258, Mode::kConstant);
  std::vector<uint16_t> uniform(70000);
  CounterRng rng(1, Purpose::kCodec);
  for (size_t i = 0; i < uniform.size(); ++i) uniform[i] = uint16_t(rng.below(i, 256));
  check_round_trip<uint8_t>(uniform, 256, Mode::kRaw);  // 8 bits/symbol: Huffman cannot win
  check_round_trip<uint8_t>({}, 256, Mode::kRaw);
}

TEST(Huffman, LengthsAreLimitedAndFormACompleteCode) {
  // Fibonacci weights give the deepest possible Huffman tree (depth n-1 for n symbols), far past
  // the 11-bit limit; the limited code must still satisfy Kraft with equality.
  uint32_t freq[30];
  freq[0] = freq[1] = 1;
  for (int i = 2; i < 30; ++i) freq[i] = freq[i - 1] + freq[i - 2];
  uint8_t len[30];
  huffman_lengths(freq, 30, len);
  uint32_t kraft = 0;
  for (int i = 0; i < 30; ++i) {
    EXPECT_GE(len[i], 1);
    EXPECT_LE(len[i], kMaxCodeBits);
    kraft += 1u << (kMaxCodeBits - len[i]);
  }
  EXPECT_EQ(kraft, 1u << kMaxCodeBits);
}

TEST(Huffman, MalformedStreamsAreErrors) {
  auto s = geometric(1000, 0.3, 258, 9);
  std::vector<std::byte> buf(stream_bound(s.size(), 258));
  size_t n = *encode_stream(s.data(), s.size(), 258, buf);
  std::vector<uint16_t> out(s.size() + 1);
  for (size_t len = 0; len < n; ++len) {
    EXPECT_FALSE(decode_stream(std::span(buf).first(len), s.size(), 258, out.data()).ok()) << len;
  }
  auto bad = buf;
  bad[0] = std::byte{7};  // unknown mode
  EXPECT_FALSE(decode_stream(std::span(bad).first(n), s.size(), 258, out.data()).ok());
  // Asking for more symbols than were encoded overruns the bit streams.
  std::vector<uint16_t> more(s.size() + 200);
  EXPECT_FALSE(decode_stream(std::span(buf).first(n), s.size() + 100, 258, more.data()).ok());
}

// The reference decoder holds raw and constant streams to the alphabet as the fast one does (a
// symbol >= alphabet is malformed, huffman.h), so the differential fuzz target (fuzz_huffman_diff)
// compares them on every stream, malformed ones included.
TEST(Huffman, TheReferenceRefusesSymbolsOutsideTheAlphabetLikeTheFastDecoder) {
  const std::vector<std::byte> raw = {std::byte{0}, std::byte{1}, std::byte{0xfe}};
  const std::vector<std::byte> constant = {std::byte{1}, std::byte{200}};
  for (const auto& stream : {raw, constant}) {
    const size_t count = stream == raw ? 2 : 5;
    size_t consumed = 0;
    std::vector<uint8_t> fast(count);
    EXPECT_FALSE(decode_stream<uint8_t>(stream, count, 163, fast.data()).ok());
    EXPECT_FALSE(reference_decode_stream(stream, count, 163, &consumed).ok());
    // Within the alphabet both accept the same stream.
    EXPECT_TRUE(decode_stream<uint8_t>(stream, count, 256, fast.data()).ok());
    EXPECT_TRUE(reference_decode_stream(stream, count, 256, &consumed).ok());
  }
}

}  // namespace
}  // namespace commlab::entropy
