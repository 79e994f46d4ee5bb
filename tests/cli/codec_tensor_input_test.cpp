// commlab-cli codec --input of tensor files (issue 35): .npy / .safetensors / raw files and a
// directory of them, reported per tensor and in total; malformed headers refused with the offset.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../support/cli_runner.h"

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

}  // namespace
}  // namespace commlab
