// Tensor files (io/tensor_files.h): .npy written by NumPy and .safetensors written to the
// format's specification (tests/data/make_tensor_fixtures.py made both; the values follow the
// formulas in that script), and malformed headers refused with the file and the byte offset.
#include "io/tensor_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "codec/codec.h"
#include "codec/value_cast.h"
#include "support/error_of.h"

namespace commlab {
namespace {

using ::testing::HasSubstr;

const std::string kData = std::string(COMMLAB_SOURCE_DIR) + "/tests/data/tensors/";

std::vector<float> values_of(const TensorFile& f, const TensorEntry& t) {
  const std::vector<std::byte> bytes = read_tensor_bytes(f, t, 1 << 20);
  const DType dtype = parse_dtype(t.dtype);
  std::vector<float> v(bytes.size() / dtype_size(dtype));
  cast_to_float(bytes, dtype, v);
  return v;
}

using testing::error_of;

std::vector<std::byte> bytes_of(std::string_view s) {
  std::vector<std::byte> b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  return b;
}

// A safetensors file: 8-byte little-endian length, the header text, `buffer` zero bytes.
std::vector<std::byte> safetensors(const std::string& header, size_t buffer) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = char((uint64_t(header.size()) >> (8 * i)) & 0xff);
  return bytes_of(s + header + std::string(buffer, '\0'));
}

std::string st_error(const std::string& header, size_t buffer) {
  const auto file = safetensors(header, buffer);
  return error_of([&] { parse_safetensors_header(file, file.size(), "x.safetensors"); });
}

std::vector<std::byte> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return bytes_of(s);
}

TEST(TensorFiles, NpyVersion1Fp32WrittenByNumpy) {
  const TensorFile f = read_tensor_file_index(kData + "grad_fp32_v1.npy", "bf16");
  ASSERT_EQ(f.format, "npy");
  ASSERT_EQ(f.tensors.size(), 1u);
  const TensorEntry& t = f.tensors[0];
  EXPECT_EQ(t.dtype, "fp32");
  EXPECT_EQ(t.shape, (std::vector<uint64_t>{64, 32}));
  // NumPy pads magic + length + dict to a multiple of 64 bytes: 128 here; 2048 * 4 bytes follow.
  EXPECT_EQ(t.offset, 128u);
  EXPECT_EQ(t.bytes, 8192u);
  const std::vector<float> v = values_of(f, t);
  for (size_t i = 0; i < v.size(); ++i)  // v[i] = (i - 1000) * 2^-10, exact in FP32
    ASSERT_EQ(v[i], (double(i) - 1000.0) / 1024.0) << i;
}

TEST(TensorFiles, NpyVersion2Fp16AndVersion3FortranOrder) {
  const TensorFile h = read_tensor_file_index(kData + "grad_fp16_v2.npy", "bf16");
  ASSERT_EQ(h.tensors[0].dtype, "fp16");
  EXPECT_EQ(h.tensors[0].shape, (std::vector<uint64_t>{100}));
  const std::vector<float> hv = values_of(h, h.tensors[0]);
  ASSERT_EQ(hv.size(), 100u);
  for (size_t i = 0; i < hv.size(); ++i) ASSERT_EQ(hv[i], 0.25f * float(i));  // v[i] = i / 4

  const TensorFile c = read_tensor_file_index(kData + "cols_fp32_v3.npy", "bf16");
  ASSERT_TRUE(c.tensors[0].fortran_order);
  const std::vector<float> cv = values_of(c, c.tensors[0]);
  // Column-major storage of a[r][c] = 10 r + c (3 x 4): element k is row k % 3, column k / 3.
  ASSERT_EQ(cv.size(), 12u);
  for (size_t k = 0; k < cv.size(); ++k) ASSERT_EQ(cv[k], float(10 * (k % 3) + k / 3)) << k;
}

TEST(TensorFiles, SafetensorsThreeDtypesInBufferOrderWithMetadata) {
  const TensorFile f = read_tensor_file_index(kData + "model.safetensors", "bf16");
  ASSERT_EQ(f.format, "safetensors");
  ASSERT_EQ(f.tensors.size(), 3u);
  // The header lists a.bias, a.weight, b.weight; the reader orders by data offset.
  EXPECT_EQ(f.tensors[0].name, "b.weight");
  EXPECT_EQ(f.tensors[1].name, "a.weight");
  EXPECT_EQ(f.tensors[2].name, "a.bias");
  EXPECT_EQ(f.tensors[1].dtype, "bf16");
  EXPECT_EQ(f.tensors[1].shape, (std::vector<uint64_t>{4, 8}));
  ASSERT_EQ(f.metadata.size(), 2u);
  EXPECT_EQ(f.metadata[0], (std::pair<std::string, std::string>{"format", "pt"}));
  const std::vector<float> w = values_of(f, f.tensors[0]), a = values_of(f, f.tensors[1]),
                           b = values_of(f, f.tensors[2]);
  ASSERT_EQ(w.size() + a.size() + b.size(), 15u + 32u + 8u);
  for (size_t i = 0; i < w.size(); ++i) ASSERT_EQ(w[i], float(i) - 7.0f);         // i - 7
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], (float(i) - 16.0f) / 2);  // (i-16)/2
  for (size_t i = 0; i < b.size(); ++i) ASSERT_EQ(b[i], -float(i));               // -i
  // The data buffer starts after the 8-byte length and the header: offsets add up to the file.
  EXPECT_EQ(f.tensors[2].offset + f.tensors[2].bytes,
            std::filesystem::file_size(kData + "model.safetensors"));
}

TEST(TensorFiles, RawFileAndDirectoryInSortedOrder) {
  const TensorFile r = read_tensor_file_index(kData + "dump.bf16", "bf16");
  ASSERT_EQ(r.format, "raw");
  const std::vector<float> v = values_of(r, r.tensors[0]);
  ASSERT_EQ(v.size(), 16u);
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], float(i + 1));  // v[i] = i + 1
  // 32 bytes are 8 FP32 values; 30 bytes are 15 BF16 values and no whole number of FP32 ones.
  EXPECT_EQ(read_tensor_file_index(kData + "dump.bf16", "fp32").tensors[0].shape[0], 8u);
  const auto odd = std::filesystem::temp_directory_path() / "commlab_tensor_files_odd.bin";
  std::ofstream(odd, std::ios::binary) << std::string(30, '\1');
  EXPECT_THAT(
      error_of([&] { read_tensor_file_index(odd.string(), "fp32"); }),
      HasSubstr("odd.bin: offset 28: has 30 bytes, not a multiple of the fp32 element size"));
  EXPECT_EQ(read_tensor_file_index(odd.string(), "bf16").tensors[0].shape[0], 15u);
  std::filesystem::remove(odd);

  std::vector<std::string> names;
  for (const auto& p : tensor_input_paths(kData)) names.push_back(p.substr(p.rfind('/') + 1));
  EXPECT_EQ(names, (std::vector<std::string>{"cols_fp32_v3.npy", "dump.bf16", "grad_fp16_v2.npy",
                                             "grad_fp32_v1.npy", "model.safetensors"}));
  const auto empty = std::filesystem::temp_directory_path() / "commlab_tensor_files_empty";
  std::filesystem::create_directories(empty);
  EXPECT_THAT(error_of([&] { tensor_input_paths(empty.string()); }), HasSubstr("has no files"));
}

TEST(TensorFiles, TruncatedAndLyingNpyHeadersAreRefusedWithTheOffset) {
  const std::vector<std::byte> good = file_bytes(kData + "grad_fp32_v1.npy");
  auto err = [](std::vector<std::byte> b, uint64_t size) {
    return error_of([&] { parse_npy_header(b, size, "g.npy"); });
  };
  EXPECT_THAT(err({good.begin(), good.begin() + 9}, 9),
              HasSubstr("g.npy: offset 8: truncated header: expected a 2-byte header length"));
  std::vector<std::byte> lying = good;
  lying[8] = std::byte{0x60}, lying[9] = std::byte{0xea};  // 60000 header bytes
  EXPECT_THAT(err(lying, lying.size()), HasSubstr("g.npy: offset 8: header length 60000 reaches "
                                                  "beyond the file (8320 bytes)"));
  // 4 bytes short of 64 * 32 FP32 values: refused at the first data byte.
  EXPECT_THAT(err(good, good.size() - 4),
              HasSubstr("g.npy: offset 128: shape [64, 32] of fp32 needs 8192 bytes after the "
                        "header, the file has 8188"));
  std::vector<std::byte> f8 = good;
  f8[23] =
      std::byte{'8'};  // '<f4' -> '<f8'; 10 bytes precede {'descr': , its value's quote is at 20
  EXPECT_THAT(err(f8, f8.size()),
              HasSubstr("g.npy: offset 20: dtype '<f8' not supported: expected '<f4' or '<f2'"));
  // ml_dtypes' bfloat16 saves as '<V2', which any 2-byte record also is: refused with the hint.
  std::vector<std::byte> v2 = good;
  v2[22] = std::byte{'V'}, v2[23] = std::byte{'2'};
  EXPECT_THAT(err(v2, v2.size()), HasSubstr("offset 20: dtype '<V2' not supported: expected '<f4' "
                                            "or '<f2' ('<V2' is an untyped 2-byte record"));
  std::vector<std::byte> magic = good;
  magic[1] = std::byte{'X'};
  EXPECT_THAT(err(magic, magic.size()), HasSubstr("g.npy: offset 0: expected the .npy magic"));
  std::vector<std::byte> v9 = good;
  v9[6] = std::byte{9};
  EXPECT_THAT(err(v9, v9.size()), HasSubstr("g.npy: offset 6: format version 9 not supported"));
}

TEST(TensorFiles, TruncatedAndLyingSafetensorsHeadersAreRefusedWithTheOffset) {
  const std::string t = R"("t":{"dtype":"F32","shape":[4],"data_offsets":[0,16]})";
  EXPECT_EQ(
      parse_safetensors_header(safetensors("{" + t + "}", 16), 8 + 55 + 16, "x").tensors[0].bytes,
      16u);
  const auto five = bytes_of("\x05\x00\x00\x00\x00");
  EXPECT_THAT(error_of([&] { parse_safetensors_header(five, 5, "x.safetensors"); }),
              HasSubstr("x.safetensors: offset 0: truncated header: expected an 8-byte"));
  auto beyond = safetensors("{" + t + "}", 16);
  beyond[1] = std::byte{1};  // header length + 256
  EXPECT_THAT(error_of([&] { parse_safetensors_header(beyond, beyond.size(), "x.safetensors"); }),
              HasSubstr("offset 0: header length 311 reaches beyond the file (79 bytes)"));
  // The data buffer starts at 8 + header length (53 + 2 braces = 55): offset 63.
  EXPECT_THAT(st_error("{" + t + "}", 12),
              HasSubstr("offset 63: tensor 't': data_offsets [0, 16] outside the data buffer of "
                        "12 bytes"));
  const std::string overlap = R"({"a":{"dtype":"F16","shape":[8],"data_offsets":[0,16]},)"
                              R"("b":{"dtype":"F16","shape":[4],"data_offsets":[8,16]}})";
  EXPECT_THAT(st_error(overlap, 16),
              HasSubstr("tensor 'b' overlaps tensor 'a' (which ends at offset " +
                        std::to_string(8 + overlap.size() + 16) + ")"));
  EXPECT_THAT(st_error(R"({"t":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}})", 16),
              HasSubstr("offset 8: tensor 't': dtype 'F64' not supported: expected BF16, F16"));
  EXPECT_THAT(st_error(R"({"t":{"dtype":"BF16","shape":[3],"data_offsets":[0,8]}})", 8),
              HasSubstr("tensor 't': shape [3] of bf16 needs 6 bytes, data_offsets give 8"));
  EXPECT_THAT(st_error(R"({"t":{"dtype":"BF16",)", 8),
              HasSubstr("x.safetensors: offset 29: header is not valid JSON"));  // its end: 8 + 21
  // The fourth bracket, [[[ at header byte 15, is one level deeper than a header goes.
  EXPECT_THAT(st_error(R"({"t":{"shape":[[[1]]]}})", 0),
              HasSubstr("offset 23: header JSON nests deeper than a safetensors header"));
  // Found by fuzz_tensor_files: nlohmann's out_of_range escaped the parser as an exception.
  EXPECT_THAT(st_error(R"({"t":[1E300000000]})", 0),
              HasSubstr("offset 8: header JSON has a number out of range"));
  EXPECT_THAT(st_error(R"({"__metadata__":{"k":1}})", 0),
              HasSubstr("offset 8: __metadata__ 'k' must be a string"));
}

TEST(TensorFiles, TensorsOverTheCapAreRefusedBeforeTheyAreRead) {
  const TensorFile f = read_tensor_file_index(kData + "grad_fp32_v1.npy", "bf16");
  EXPECT_THAT(error_of([&] { read_tensor_bytes(f, f.tensors[0], 8191); }),
              HasSubstr("grad_fp32_v1.npy: offset 128: tensor 'grad_fp32_v1.npy' has 8192 bytes, "
                        "over the cap of 8191 per tensor"));
}

// The safetensors specification: unique names, and tensors covering the data buffer exactly.
TEST(TensorFiles, SafetensorsDuplicateNamesHolesAndOverlapsAreRefused) {
  const std::string a = R"("a":{"dtype":"F16","shape":[4],"data_offsets":[0,8]})";
  const std::string a2 = R"("a":{"dtype":"F16","shape":[4],"data_offsets":[8,16]})";
  EXPECT_THAT(st_error("{" + a + "," + a2 + "}", 16),
              HasSubstr("offset 8: tensor 'a' is named twice in the header"));
  // b starts at 10: bytes 8..10 of the buffer belong to no tensor.
  const std::string gap = "{" + a + R"(,"b":{"dtype":"F16","shape":[3],"data_offsets":[10,16]}})";
  const size_t at = 8 + gap.size();  // where the data buffer starts
  EXPECT_THAT(
      st_error(gap, 16),
      HasSubstr("offset " + std::to_string(at + 8) + ": the data buffer has a hole: bytes " +
                std::to_string(at + 8) + " to " + std::to_string(at + 10)));
  // A hole before the first tensor, and after the last one (up to the end of the file).
  EXPECT_THAT(st_error(R"({"t":{"dtype":"F16","shape":[2],"data_offsets":[4,8]}})", 8),
              HasSubstr("the data buffer has a hole"));
  EXPECT_THAT(st_error("{" + a + "}", 9), HasSubstr("(the end of the file) belong to no tensor"));
  // Two tensors sharing bytes, whatever their order in the header.
  const std::string share = R"({"b":{"dtype":"F16","shape":[4],"data_offsets":[4,12]},)" + a + "}";
  EXPECT_THAT(st_error(share, 12), HasSubstr("overlaps tensor"));
  // Zero-size tensors take no bytes and may sit anywhere a tensor ends.
  const std::string empty_one =
      "{" + a + R"(,"z":{"dtype":"F16","shape":[0],"data_offsets":[8,8]}})";
  const auto ok = safetensors(empty_one, 8);
  EXPECT_EQ(parse_safetensors_header(ok, ok.size(), "x").tensors.size(), 2u);
}

TEST(TensorFiles, InputsWithoutValuesAreRefused) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "tensor_files_empty";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::vector<std::byte>& b) {
    std::ofstream(dir / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    return (dir / name).string();
  };
  // np.save of np.zeros(0, np.float32): shape (0,), no bytes after the header.
  std::string npy_header = "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }";
  npy_header += std::string(128 - 10 - npy_header.size() - 1, ' ') + "\n";  // 128-byte aligned
  std::string npy = std::string("\x93NUMPY\x01\x00", 8);
  npy += char(npy_header.size()), npy += '\0';
  const std::string zero_npy = write("zero.npy", bytes_of(npy + npy_header));
  EXPECT_THAT(error_of([&] { read_tensor_file_index(zero_npy, "bf16"); }),
              HasSubstr("zero.npy: offset 128: tensor 'zero.npy' of shape [0] has no values"));
  const std::string zero_st =
      write("zero.safetensors",
            safetensors(R"({"z":{"dtype":"F32","shape":[3,0],"data_offsets":[0,0]}})", 0));
  EXPECT_THAT(error_of([&] { read_tensor_file_index(zero_st, "bf16"); }),
              HasSubstr("tensor 'z' of shape [3, 0] has no values"));
  const std::string none = write("none.safetensors", safetensors(R"({"__metadata__":{}})", 0));
  EXPECT_THAT(error_of([&] { read_tensor_file_index(none, "bf16"); }),
              HasSubstr("holds no tensors"));
}

}  // namespace
}  // namespace commlab
