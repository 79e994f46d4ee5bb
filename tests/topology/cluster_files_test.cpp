// Hostile cluster files: a file that names itself, very deep nesting, a FIFO, a huge
// value in an error message, a big explicit file whose links name nodes.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "topology/presets.h"
#include "topology/topology.h"
#include "topology/topology_json.h"

namespace commlab {
namespace {

namespace fs = std::filesystem;

fs::path scratch() {
  fs::path dir = fs::temp_directory_path() / ("commlab_cluster_files_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

std::string load_error(const std::string& file) {
  try {
    load_topology(file);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ClusterFiles, AFileThatNamesItselfIsRefusedNotRecursed) {
  const fs::path dir = scratch();
  const std::string self = (dir / "self.json").string();
  write(self, "\"" + self + "\"");
  const std::string e = load_error(self);
  EXPECT_NE(e.find("cluster file names itself"), std::string::npos) << e;
  // Two files naming each other: the chain is in the message.
  const std::string a = (dir / "a.json").string(), b = (dir / "b.json").string();
  write(a, "\"" + b + "\"");
  write(b, "\"" + a + "\"");
  const std::string e2 = load_error(a);
  EXPECT_NE(e2.find("names itself (" + a + " -> " + b + " -> " + a + ")"), std::string::npos) << e2;
  // Through the spec parser, as --cluster FILE does.
  EXPECT_THROW(cluster_from_spec(self), std::invalid_argument);
}

TEST(ClusterFiles, DeepNestingIsRefusedWithItsPositionAndNoDump) {
  const fs::path file = scratch() / "deep.json";
  write(file, std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_EQ(load_error(file.string()), file.string() + ":1:33: nesting deeper than 32 levels (100000 deep)");
  // A huge value in an error is quoted by its first 60 characters only.
  const fs::path big = scratch() / "big.json";
  write(big, "{\"nodes\": \"" + std::string(1 << 20, 'x') + "\"}");
  const std::string e = load_error(big.string());
  EXPECT_LT(e.size(), 200u) << e.substr(0, 300);
  EXPECT_NE(e.find("nodes: expected a non-empty array, got \"xxx"), std::string::npos) << e;
}

TEST(ClusterFiles, AFifoOrADirectoryIsRefusedBeforeOpening) {
  const fs::path fifo = scratch() / "fifo.json";
  fs::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Opening a FIFO for reading blocks until a writer comes: the check must not open it.
  EXPECT_EQ(load_error(fifo.string()),
            fifo.string() + ": is a FIFO, expected a regular cluster file");
  EXPECT_EQ(load_error(scratch().string()),
            scratch().string() + ": is a directory, expected a cluster file");
  EXPECT_EQ(load_error("/dev/zero"),
            "/dev/zero: is a device or socket, expected a regular cluster file");
}

TEST(ClusterFiles, LinksThatNameNodesResolveThroughAnIndex) {
  // 20,000 GPUs on one switch, every link naming its nodes: loads and resolves every name.
  const int n = 20000;
  std::string text = "{\"nodes\": [{\"kind\": \"switch\", \"name\": \"sw\"}";
  for (int i = 0; i < n; ++i)
    text += ",{\"kind\": \"gpu\", \"name\": \"g" + std::to_string(i) + "\"}";
  text += "], \"links\": [";
  for (int i = 0; i < n; ++i)
    text += std::string(i ? "," : "") + "{\"from\": \"g" + std::to_string(i) +
            "\", \"to\": \"sw\", \"bandwidth_gbps\": 100, \"duplex\": true}";
  text += "]}";
  const fs::path file = scratch() / "wide.json";
  write(file, text);
  const Topology t = load_topology(file.string());
  EXPECT_EQ(t.ranks(), n);
  EXPECT_EQ(t.links().size(), 2u * n);  // duplex: one link each way
}

}  // namespace
}  // namespace commlab
