// Golden transcripts of commlab-cli refusals (SimGrid's tesh files): each file in
// tests/cli/transcripts/ holds one command, its exact stdout, stderr and exit status; this test
// runs each and compares them exactly. The inputs are made here, in a scratch folder that the
// transcripts name ${DIR} (the source tree is ${SRC}), so no binary input is committed.
//
// File format, one item per line:
//   # comment                 ignored
//   $ ARGS                    the command line after `commlab-cli` (one per file)
//   > TEXT                    a line of stdout
//   2> TEXT                   a line of stderr
//   = N                       the exit status
// COMMLAB_UPDATE_TRANSCRIPTS=1 rewrites each file's expected lines from what the command gives
// (review the diff: the expected lines come from the program under test).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_runner.h"
#include "support/files.h"

namespace commlab {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;

const fs::path kTranscripts = fs::path(COMMLAB_SOURCE_DIR) / "tests/cli/transcripts";

void write(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A safetensors file: 8-byte little-endian header length, the JSON header, the data.
std::string safetensors(const std::string& header, size_t data_bytes) {
  std::string file(8, '\0');
  for (int b = 0; b < 8; ++b) file[b] = static_cast<char>((header.size() >> (8 * b)) & 0xff);
  return file + header + std::string(data_bytes, '\x3f');
}

std::string many_tensors(int n) {
  std::string header = "{";
  for (int i = 0; i < n; ++i)
    header += (i ? "," : "") + std::string("\"t") + std::to_string(i) +
              "\":{\"dtype\":\"BF16\",\"shape\":[1],\"data_offsets\":[" + std::to_string(2 * i) +
              "," + std::to_string(2 * i + 2) + "]}";
  return safetensors(header + "}", 2 * static_cast<size_t>(n));
}

// A NumPy 1.0 file of `shape` FP16 values (<f2), header padded to 128 bytes.
std::string npy(const std::string& shape, size_t data_bytes) {
  std::string dict = "{'descr': '<f2', 'fortran_order': False, 'shape': " + shape + ", }";
  dict += std::string(128 - 10 - dict.size() - 1, ' ') + "\n";
  std::string head = "\x93NUMPY\x01";
  head += '\0';
  head += static_cast<char>(dict.size() & 0xff);
  head += static_cast<char>(dict.size() >> 8);
  return head + dict + std::string(data_bytes, '\0');
}

// The inputs the transcripts refer to, made fresh in `dir`.
void make_inputs(const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  write(dir / "empty_shape.npy", npy("(0,)", 0));
  write(dir / "zero.safetensors",
        safetensors(R"({"z":{"dtype":"BF16","shape":[0],"data_offsets":[0,0]}})", 0));
  write(dir / "twice.safetensors",
        safetensors(R"({"a":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]},)"
                    R"("a":{"dtype":"BF16","shape":[1],"data_offsets":[2,4]}})",
                    4));
  write(dir / "hole.safetensors",
        safetensors(R"({"a":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]},)"
                    R"("b":{"dtype":"BF16","shape":[1],"data_offsets":[4,6]}})",
                    6));
  write(dir / "many.safetensors", many_tensors(20));
  fs::create_directories(dir / "files");
  for (int i = 0; i < 5; ++i) write(dir / "files" / ("f" + std::to_string(i) + ".bf16"), "ab");
  // A results folder's staging sibling that a user made: no INCOMPLETE marker.
  fs::create_directories(dir / "r1.incomplete");
  write(dir / "r1.incomplete" / "thesis.tex", "not a result\n");
  std::string tiny =
      testing::read_file(std::string(COMMLAB_SOURCE_DIR) + "/tests/data/golden/tiny.json");
  const size_t at = tiny.find("\"seed\": 11");
  ASSERT_NE(at, std::string::npos);
  tiny.replace(at, 10, "\"seed\": 9007199254740993");  // 2^53 + 1
  write(dir / "seed.json", tiny);
}

// The inverse of substitute: the scratch folder and the source tree named as the files name them.
std::string unsubstitute(std::string text, const fs::path& dir) {
  for (const auto& [value, key] :
       {std::pair<std::string, std::string>{dir.string(), "${DIR}"},
        std::pair<std::string, std::string>{COMMLAB_SOURCE_DIR, "${SRC}"}})
    for (size_t at; (at = text.find(value)) != std::string::npos;)
      text.replace(at, value.size(), key);
  return text;
}

// Rewrites `file`: its comments and command as they are, then what the command gave.
void update(const fs::path& file, const fs::path& dir, const testing::CliOutput& o) {
  std::ifstream in(file);
  std::string kept;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("#", 0) == 0 || line.rfind("$ ", 0) == 0) kept += line + "\n";
  in.close();
  auto lines = [&](const std::string& text, const std::string& mark) {
    std::string out;
    std::istringstream s(unsubstitute(text, dir));
    for (std::string line; std::getline(s, line);) out += mark + line + "\n";
    return out;
  };
  std::ofstream(file) << kept << lines(o.out, "> ") << lines(o.err, "2> ") << "= " << o.code
                      << "\n";
}

struct Transcript {
  std::string args, out, err;
  int status = -1;
};

std::string substitute(std::string text, const fs::path& dir) {
  for (const auto& [key, value] :
       {std::pair<std::string, std::string>{"${DIR}", dir.string()},
        std::pair<std::string, std::string>{"${SRC}", COMMLAB_SOURCE_DIR}})
    for (size_t at; (at = text.find(key)) != std::string::npos;)
      text.replace(at, key.size(), value);
  return text;
}

Transcript parse(const fs::path& file, const fs::path& dir) {
  Transcript t;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    line = substitute(line, dir);
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("$ ", 0) == 0) {
      EXPECT_TRUE(t.args.empty()) << file << ": one command per transcript";
      t.args = line.substr(2);
    } else if (line.rfind("> ", 0) == 0 || line == ">") {
      t.out += line.substr(std::min<size_t>(2, line.size())) + "\n";
    } else if (line.rfind("2> ", 0) == 0) {
      t.err += line.substr(3) + "\n";
    } else if (line.rfind("= ", 0) == 0) {
      t.status = std::stoi(line.substr(2));
    } else {
      ADD_FAILURE() << file << ": unknown line: " << line;
    }
  }
  return t;
}

TEST(Transcripts, EachCommandGivesExactlyItsStdoutStderrAndStatus) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("transcripts_" + std::to_string(getpid()));
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kTranscripts))
    if (e.path().extension() == ".tesh") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 8u);
  for (const fs::path& file : files) {
    make_inputs(dir);  // each command sees the same inputs, whatever the one before did
    const Transcript t = parse(file, dir);
    ASSERT_FALSE(t.args.empty()) << file << ": no command";
    if (!std::getenv("COMMLAB_UPDATE_TRANSCRIPTS")) ASSERT_GE(t.status, 0) << file << ": no status";
    const auto o = run_cli(t.args);
    if (std::getenv("COMMLAB_UPDATE_TRANSCRIPTS")) update(file, dir, o);
    EXPECT_EQ(o.code, t.status) << file.filename() << ": " << t.args;
    EXPECT_EQ(o.out, t.out) << file.filename() << ": " << t.args;
    EXPECT_EQ(o.err, t.err) << file.filename() << ": " << t.args;
  }
  // A refused run deleted nothing of the user's.
  EXPECT_EQ(testing::read_file(dir / "r1.incomplete" / "thesis.tex"), "not a result\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace commlab
