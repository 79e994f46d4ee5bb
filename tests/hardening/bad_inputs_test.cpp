// The committed bad-input corpus (tests/data/bad_inputs/manifest.json): every truncated,
// bit-flipped or resealed codec frame, malformed trimmable packet and corrupt IDX file gives
// exactly its expected result, quickly, with no crash (run under the asan preset for out-of-bounds
// reads). Hostile scenarios live in tests/data/bad_scenarios (tests/scenario) plus the generated
// ones of tests/scenario/hostile_scenario_test.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <set>

#include "bad_input_cases.h"

namespace commlab {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = fs::path(COMMLAB_SOURCE_DIR) / "tests/data/bad_inputs";

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

nlohmann::json manifest() {
  std::ifstream in(kRoot / "manifest.json");
  return nlohmann::json::parse(in).at("cases");
}

TEST(BadInputs, EachGivesExactlyItsExpectedResult) {
  int errors = 0;
  for (const auto& c : manifest()) {
    const std::string file = c.at("file");
    SCOPED_TRACE(file);
    const auto bytes = read_bytes(kRoot / file);
    const auto start = std::chrono::steady_clock::now();
    const std::string got = hardening::run_case(c, kRoot / file, bytes);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Unpinned cases (a format being rewritten) must still not crash, hang or give two lines.
    if (c.value("pinned", true)) EXPECT_EQ(got, c.at("expected").get<std::string>());
    EXPECT_EQ(got.find('\n'), std::string::npos) << got;
    // Each input is at most a few KiB: anything slower than this is a hang in the making.
    EXPECT_LT(seconds, 5.0);
    errors += got != "ok";
  }
  // Only the valid references and the resealed flips that still decode may succeed.
  EXPECT_GE(errors, 120);
}

TEST(BadInputs, ManifestCoversEveryCodecAndEveryFile) {
  std::set<std::string> codecs, listed;
  for (const auto& c : manifest()) {
    listed.insert(c.at("file").get<std::string>());
    if (c.at("kind") == "codec") codecs.insert(c.at("codec").get<std::string>());
  }
  for (const auto& name : codec_names()) EXPECT_TRUE(codecs.count(name)) << name;
  // A file nobody checks is a file nobody reads: every committed input is in the manifest.
  for (const auto& e : fs::recursive_directory_iterator(kRoot)) {
    if (!e.is_regular_file() || e.path().filename() == "manifest.json") continue;
    EXPECT_TRUE(listed.count(fs::relative(e.path(), kRoot).string())) << e.path();
  }
}

TEST(BadInputs, ErrorsAreOneLineAndNameTheProblem) {
  for (const auto& c : manifest()) {
    const std::string e = c.at("expected");
    EXPECT_EQ(e.find('\n'), std::string::npos) << c.at("file");
    EXPECT_FALSE(e.empty()) << c.at("file");
  }
}

}  // namespace
}  // namespace commlab
