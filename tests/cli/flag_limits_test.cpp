// Flags that crashed, ran for minutes or reported what did not happen: each bad value
// is refused with exit 2 and one exact line naming the flag, before any work; the limits are the
// scenarios' (scenario/flag_config.h). And the codec error metric counts NaN and infinities.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"

namespace commlab {
namespace {

using testing::run_cli;

struct BadFlags {
  const char* args;
  const char* message;  // the whole of stderr after "commlab-cli: "
};

// The corpus of refused command lines: the first one once segfaulted in libgomp, the
// second ran for minutes into bad_alloc, and the rest exited 0.
const BadFlags kBad[] = {
    {"train --threads 100000 --iterations 1",
     "--threads: expected an integer in [0, 256], got 100000"},
    {"train --batch 2000000 --iterations 1",
     "--batch: batches of 2000000 rows of up to 784 values are more than 134217728 floats"},
    {"train --data spiral --batch 2000000 --iterations 1",
     "--batch: batches of 2000000 rows of up to 256 values are more than 134217728 floats"},
    {"train --ranks 256 --batch 256 --hidden 4096,4096",
     "--hidden: the model has 20037642 parameters per replica; times 256 ranks that is more than "
     "134217728 floats"},
    {"train --momentum 5", "--momentum: expected a number in [0, 1], got 5"},
    {"train --lr 1000", "--lr: expected a number in (0, 100], got 1000"},
    {"train --ranks 3", "--batch: must be a multiple of --ranks (3), got 64"},
    {"train --ranks 512 --batch 512",
     "--ranks: training runs (workload.kind train) support at most 256 ranks, got 512"},
    {"train --iterations 0", "--iterations: expected a positive integer, got 0"},
    {"train --hidden 0", "--hidden: item 0: expected a positive integer, got 0"},
    {"train --link-gbps 0", "--link-gbps: expected a number in (0, 1000000], got 0"},
    {"train --mfu 0", "--mfu: expected a number in (0, 1], got 0"},
    {"train --data text --model transformer", "--data: text needs --text FILE"},
    {"train --data text --text /dev/null",
     "--data: a text data set needs --model transformer, got mlp"},
    {"run no_such.json --threads 100000", "--threads: expected an integer in [0, 256], got 100000"},
    {"run no_such.json --jobs -1", "--jobs: expected a non-negative integer, got -1"},
    {"collective --ranks 8 --skip 8 --sizes 1K:1K",
     "--skip: ring on 8 ranks skips at most 7 steps (N-1), got 8"},
    {"collective --ranks 8 --algo tree --skip 4 --sizes 1K:1K",
     "--skip: tree on 8 ranks skips at most 3 reduce levels (its depth), got 4"},
    {"collective --ranks 8 --algo hd --skip 4 --sizes 1K:1K",
     "--skip: hd on 8 ranks skips at most 3 halving rounds (log2 N), got 4"},
    {"collective --ranks 8 --skip -1 --sizes 1K:1K",
     "--skip: expected a non-negative integer, got -1"},
    {"collective --sizes 3:3",
     "--sizes: MIN must be a multiple of the 4-byte element, got 3 bytes "
     "in '3:3'"},
    {"collective --sizes 2T:2T --time-only",
     "--sizes: MAX must be at most 1T per rank, got 2199023255552 bytes in '2T:2T'"},
    {"workload --catalog gpt3-175b --cluster netzip-512:gbps=100 --tp 4 --skip 128",
     "--skip: the DP reduce-scatter's ring on 128 ranks skips at most 127 steps (N-1), got 128"},
    {"codec --count 100000000000 --codecs raw",
     "--count: expected at most 536870912 bf16 values (1 GiB of generated values), got "
     "100000000000"},
};

TEST(FlagLimits, EachBadValueIsOneExactLineAndExitTwoAtOnce) {
  for (const BadFlags& c : kBad) {
    const auto start = std::chrono::steady_clock::now();
    const auto o = run_cli(c.args);
    EXPECT_EQ(o.code, 2) << c.args;
    EXPECT_EQ(o.err, std::string("commlab-cli: ") + c.message + "\n") << c.args;
    EXPECT_EQ(o.out, "") << c.args;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10)
        << c.args;
  }
}

TEST(FlagLimits, ValuesAtTheLimitsStillRun) {
  const auto skip = run_cli("collective --ranks 8 --skip 7 --sizes 1K:1K --json");
  ASSERT_EQ(skip.code, 0) << skip.err;
  EXPECT_EQ(nlohmann::json::parse(skip.out)["verified"], true);
  const auto hd = run_cli("collective --ranks 8 --algo hd --skip 3 --sizes 4:4 --json");
  ASSERT_EQ(hd.code, 0) << hd.err;
  EXPECT_EQ(nlohmann::json::parse(hd.out)["rows"][0]["size_bytes"], 4);
  // The top of the size range in the time plane: bytes_on_wire of 8 ranks x 1 TiB, exact.
  const auto huge = run_cli("collective --ranks 8 --sizes 1T:1T --time-only --json");
  ASSERT_EQ(huge.code, 0) << huge.err;
  EXPECT_EQ(nlohmann::json::parse(huge.out)["rows"][0]["bytes_on_wire"].get<uint64_t>(),
            2ull * 7 * (1ull << 40));
  const auto train = run_cli("train --data spiral --iterations 2 --threads 2 --momentum 1 --json");
  ASSERT_EQ(train.code, 0) << train.err;
  EXPECT_EQ(nlohmann::json::parse(train.out)["iterations"], 2);
}

TEST(CodecErrorMetric, NanAndInfinityCountAsInfiniteErrors) {
  // 1e6 is finite in FP32 and infinite in FP16: cast-fp16 gets it infinitely wrong. The NaN and
  // the Inf survive the cast as themselves (no error).
  const std::string file = ::testing::TempDir() + "/nonfinite_" + std::to_string(getpid());
  {
    std::vector<float> v(64, 0.5f);
    v[3] = 1e6f, v[7] = NAN, v[9] = INFINITY;
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  }
  const auto o = run_cli("codec --input " + file + " --dtype fp32 --codecs cast-fp16,raw --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto rows = nlohmann::json::parse(o.out)["codecs"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["name"], "cast-fp16");
  EXPECT_EQ(rows[0]["nonfinite_mismatches"], 1);
  EXPECT_TRUE(rows[0]["max_abs_error"].is_null()) << rows[0];  // infinite: JSON has no Inf
  EXPECT_EQ(rows[1]["nonfinite_mismatches"], 0);
  EXPECT_EQ(rows[1]["max_abs_error"], 0.0);
  const auto table = run_cli("codec --input " + file + " --dtype fp32 --codecs cast-fp16");
  EXPECT_NE(table.out.find(" inf "), std::string::npos) << table.out;
  std::remove(file.c_str());
}

}  // namespace
}  // namespace commlab
