// commlab-cli codec --input of tensor files: .npy / .safetensors / raw files and a
// directory of them, reported per tensor and in total; malformed headers refused with the offset.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace commlab {
namespace {

using testing::run_cli;
const std::string kTensors = std::string(COMMLAB_SOURCE_DIR) + "/tests/data/tensors";

TEST(CodecTensorInput, DirectoryIsReportedPerTensorAndInTotal) {
  const auto o = run_cli("codec --input " + kTensors + " --codecs raw,zstd-1 --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto doc = nlohmann::json::parse(o.out);
  // Files in name order; model.safetensors holds 3 tensors, in data-offset order.
  const std::vector<std::string> files = {"cols_fp32_v3.npy", "dump.bf16", "grad_fp16_v2.npy",
                                          "grad_fp32_v1.npy", "model.safetensors"};
  ASSERT_EQ(doc["files"].size(), files.size());
  for (size_t i = 0; i < files.size(); ++i)
    EXPECT_EQ(doc["files"][i]["path"], kTensors + "/" + files[i]);
  EXPECT_EQ(doc["files"][4]["metadata"]["format"], "pt");
  const auto& tensors = doc["tensors"];
  ASSERT_EQ(tensors.size(), 7u);
  EXPECT_EQ(tensors[4]["name"], "b.weight");
  EXPECT_EQ(tensors[5]["dtype"], "bf16");
  // count = 3*4 + 16 + 100 + 64*32 + 3*5 + 4*8 + 8 = 2231 values of three dtypes.
  EXPECT_EQ(doc["count"], 2231);
  EXPECT_EQ(doc["dtype"], "mixed");
  // A total is total wire bytes / total input bytes: ratio = sum_t ratio_t * bytes_t / sum bytes_t;
  // the entropy bound is the same byte-weighted mean of the tensors' bounds.
  for (size_t c = 0; c < 2; ++c) {
    double weighted = 0, bound = 0, bytes = 0;
    for (const auto& t : tensors) {
      weighted += t["codecs"][c]["ratio"].get<double>() * t["bytes"].get<double>();
      bound += t["entropy"]["byte_plane_bound"].get<double>() * t["bytes"].get<double>();
      bytes += t["bytes"].get<double>();
    }
    EXPECT_NEAR(doc["codecs"][c]["ratio"].get<double>(), weighted / bytes, 1e-12);
    EXPECT_TRUE(doc["codecs"][c]["lossless"].get<bool>());
    EXPECT_NEAR(doc["entropy"]["byte_plane_bound"].get<double>(), bound / bytes, 1e-12);
  }
  EXPECT_TRUE(doc["entropy"]["plane_entropy_bits"].is_null());  // 2- and 4-byte planes mixed

  const auto text = run_cli("codec --input " + kTensors + " --codecs raw");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("# commlab codec: 7 tensors in 5 files, 2231 values"), std::string::npos);
  EXPECT_NE(text.out.find("model.safetensors: a.weight: bf16 [4, 8]\n"), std::string::npos);
  EXPECT_NE(text.out.find("## total: 2231 values, mixed\n"), std::string::npos) << text.out;
}

TEST(CodecTensorInput, OneNpyFileKeepsTheSingleTableWithItsOwnDtype) {
  const std::string file = kTensors + "/grad_fp32_v1.npy";
  const auto o = run_cli("codec --input " + file + " --codecs raw");  // --dtype bf16 by default
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.rfind("# commlab codec: 2048 fp32 values (" + file + ")\n", 0), 0u) << o.out;
  EXPECT_EQ(o.out.find("total"), std::string::npos);
}

TEST(CodecTensorInput, LyingHeadersAreOneLineNamingFileAndOffset) {
  const auto dir = std::filesystem::path(::testing::TempDir()) /
                   ("codec_tensor_input_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string bad = (dir / "bad.safetensors").string();
  {
    std::ifstream in(kTensors + "/model.safetensors", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bytes[2] = 1;  // header length + 65536: beyond the 412-byte file
    std::ofstream(bad, std::ios::binary) << bytes;
  }
  const auto o = run_cli("codec --input " + dir.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.err, "commlab-cli: --input " + bad +
                       ": offset 0: header length 65800 reaches beyond the file (412 bytes)\n");
  std::filesystem::remove_all(dir);
}

// A file of `bytes` bytes: pseudo-random BF16 values (xorshift) or a sparse file of zeros.
std::filesystem::path temp_file(const std::string& name, uint64_t bytes, bool sparse) {
  const auto path = std::filesystem::path(::testing::TempDir()) /
                    (name + "_" + std::to_string(getpid()) + ".bf16");
  if (sparse) {
    std::ofstream(path, std::ios::binary).flush();
    std::filesystem::resize_file(path, bytes);
    return path;
  }
  std::ofstream f(path, std::ios::binary);
  std::vector<uint16_t> chunk(1 << 20);
  uint32_t x = 2463534242u;
  for (uint64_t done = 0; done < bytes; done += 2 * chunk.size()) {
    for (uint16_t& v : chunk) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      v = static_cast<uint16_t>(0x3c00 | (x & 0x03ff));  // finite values in [1, 2)
    }
    f.write(reinterpret_cast<const char*>(chunk.data()),
            static_cast<std::streamsize>(std::min<uint64_t>(bytes - done, 2 * chunk.size())));
  }
  return path;
}

// The 1 GiB per-tensor cap bounded the file, not the work: --codecs all on 1 GiB ran for
// many minutes. bytes x codecs = 2^30 x 16 > the 4 GiB budget: refused before any value is read.
TEST(CodecTensorInput, WorkOverTheBudgetIsRefusedBeforeAnyValueIsRead) {
  const auto file = temp_file("codec_budget", 1ull << 30, /*sparse=*/true);
  const auto start = std::chrono::steady_clock::now();
  const auto o = run_cli("codec --input " + file.string() + " --codecs all");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(o.err,
            "commlab-cli: --input: 1073741824 bytes x 16 codecs is over the work cap of 4294967296 "
            "bytes x codecs (4 GiB); lower it with --codecs (fewer codecs) or a smaller --input\n");
  EXPECT_LT(seconds, 5.0);
  // Generated values: the same budget, checked before they are generated.
  const auto g = run_cli("codec --count 536870912 --codecs all");
  EXPECT_EQ(g.code, 2);
  EXPECT_NE(g.err.find("--count: 1073741824 bytes x 16 codecs is over the work cap"),
            std::string::npos)
      << g.err;
  std::filesystem::remove(file);
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)  // clang's spelling (the ASan preset builds with clang)
#define COMMLAB_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(COMMLAB_UNDER_ASAN)
// ASan reserves terabytes of shadow address space: an address-space limit kills any process.
constexpr bool kUnderAsan = true;
#else
constexpr bool kUnderAsan = false;
#endif

// Runs `commlab-cli ARGS` under an address-space limit of `kb` KB; returns its exit status (as
// pclose gives it) and its stdout and stderr.
std::pair<int, std::string> run_within(int kb, const std::string& args) {
  const std::string cli = std::string(COMMLAB_BINARY_DIR) + "/app/commlab-cli";
  const std::string cmd =
      "ulimit -v " + std::to_string(kb) + "; exec " + cli + " " + args + " 2>&1";
  std::string out;
  FILE* pipe = popen(("sh -c '" + cmd + "'").c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  return {pclose(pipe), out};
}

// The ratio of raw on `bytes` in blocks of 32 MiB, each with its frame header of h bytes, where h
// is what a one-block input of `small` bytes shows: (bytes + blocks h) / bytes, with
// (small + h) / small = ratio_small.
double raw_ratio(uint64_t bytes, uint64_t blocks, uint64_t small, double ratio_small) {
  const double h = (ratio_small - 1.0) * static_cast<double>(small);
  EXPECT_GT(h, 0.0);
  return 1.0 + static_cast<double>(blocks) * h / static_cast<double>(bytes);
}

// Memory follows a block (32 MiB), not the tensor. 160 MiB held whole took the input,
// the decoded copy, the frame and a float copy (~5 x 160 MiB); under a 600 MB address-space limit
// it only runs block by block. raw codes each block with its own frame header: 5 blocks.
// A large input says its size before it is measured and its progress as it is, on stderr (stdout
// is the table or the JSON, unchanged); --progress sets the step (default 256M, 0: none). A 3 GB
// sparse file takes over 20 s; here 48 MiB (blocks of 32 and 16 MiB) with a
// step of 24M: a line when 32 MiB (crossing 24M) and 48 MiB (crossing 48M) are measured.
TEST(CodecTensorInput, ALargeInputShowsItsSizeAndProgressOnStderr) {
  const auto file = temp_file("codec_progress", 48ull << 20, /*sparse=*/true);
  const auto o = run_cli("codec --input " + file.string() + " --codecs raw --progress 24M --json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.err, "commlab-cli: codec: measuring 50331648 bytes (0.0469 GiB) of " + file.string() +
                       " in 1 tensor with 1 codec\n"
                       "commlab-cli: codec: 33554432 of 50331648 bytes measured (67%)\n"
                       "commlab-cli: codec: 50331648 of 50331648 bytes measured (100%)\n");
  EXPECT_EQ(nlohmann::json::parse(o.out)["count"], (48u << 20) / 2);
  // --progress 0: no line (the default, 256M, is over this input: none either).
  EXPECT_EQ(run_cli("codec --input " + file.string() + " --codecs raw --progress 0").err, "");
  const auto bad = run_cli("codec --input " + file.string() + " --progress 1X");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--progress"), std::string::npos) << bad.err;
  std::filesystem::remove(file);
}

TEST(CodecTensorInput, MemoryIsBoundedByTheBlockNotTheTensor) {
  if (kUnderAsan) GTEST_SKIP() << "ulimit -v cannot bound a sanitized process";
  const uint64_t big = 160ull << 20, small = 2ull << 20;
  const auto file = temp_file("codec_blocks", big, false);
  const auto one = temp_file("codec_one_block", small, false);
  const auto [status, out] =
      run_within(600000, "codec --input " + file.string() + " --codecs raw,lz4 --json");
  ASSERT_EQ(status, 0) << out;
  const auto doc = nlohmann::json::parse(out);
  EXPECT_EQ(doc["count"], big / 2);
  const auto s = run_cli("codec --input " + one.string() + " --codecs raw --json");
  ASSERT_EQ(s.code, 0) << s.err;
  const double small_ratio = nlohmann::json::parse(s.out)["codecs"][0]["ratio"].get<double>();
  EXPECT_NEAR(doc["codecs"][0]["ratio"].get<double>(), raw_ratio(big, 5, small, small_ratio),
              1e-12);
  for (const auto& c : doc["codecs"]) EXPECT_TRUE(c["lossless"].get<bool>()) << c["name"];
  std::filesystem::remove(file);
  std::filesystem::remove(one);
}

// --generate values are generated a block at a time too. 48 Mi BF16 values (96 MiB)
// were generated whole, as floats (192 MiB) and then as BF16 (96 MiB): exit 1 under a 300 MB
// address-space limit (316 MB RSS unlimited); block by block they run within it (153 MB RSS).
// Element i is a function of (seed, i) alone, so the blocks are the whole tensor's values
// (TensorGen.ATensorGeneratedInBlocksIsTheTensorGeneratedAtOnce) and raw's ratio is that of 3
// blocks.
TEST(CodecTensorInput, GeneratedValuesAreMadeBlockByBlock) {
  if (kUnderAsan) GTEST_SKIP() << "ulimit -v cannot bound a sanitized process";
  const uint64_t count = 48ull << 20, small = 1ull << 20;
  const auto [status, out] = run_within(300000, "codec --generate sparse:0.5 --count " +
                                                    std::to_string(count) + " --codecs raw --json");
  ASSERT_EQ(status, 0) << out;
  const auto doc = nlohmann::json::parse(out);
  EXPECT_EQ(doc["count"], count);
  const auto s = run_cli("codec --generate sparse:0.5 --count " + std::to_string(small) +
                         " --codecs raw --json");
  ASSERT_EQ(s.code, 0) << s.err;
  const double small_ratio = nlohmann::json::parse(s.out)["codecs"][0]["ratio"].get<double>();
  EXPECT_NEAR(doc["codecs"][0]["ratio"].get<double>(),
              raw_ratio(count * 2, 3, small * 2, small_ratio), 1e-12);
  for (const auto& c : doc["codecs"]) EXPECT_TRUE(c["lossless"].get<bool>()) << c["name"];
}

}  // namespace
}  // namespace commlab
