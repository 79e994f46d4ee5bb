// --emit-trace's file handling: write_chakra_trace stages every rank file
// and the group file under temporary names and renames them into place only when all are written
// (io/staged_files.h), so a symlink at PREFIX.0.et is replaced, never written through; a
// smaller trace over a larger one leaves no extra ranks; a failed write leaves the earlier trace
// byte-identical and no temporaries.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "test_dir.h"
#include "workload/chakra_trace.h"

namespace commlab::workload {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using test::fresh_test_dir;

// Rank r is a chain of nodes_per_rank[r] compute nodes of distinct durations.
Graph compute_graph(const std::vector<int>& nodes_per_rank) {
  Graph g;
  g.name = "chain";
  g.ranks.resize(nodes_per_rank.size());
  for (size_t r = 0; r < nodes_per_rank.size(); ++r) {
    for (int i = 0; i < nodes_per_rank[r]; ++i) {
      Node n;
      n.id = static_cast<uint64_t>(i);
      n.kind = NodeKind::kCompute;
      n.name = g.intern("step " + std::to_string(i));
      n.duration_s = 1e-6 * (r + 1) + 1e-9 * i;
      if (i == 0)
        g.ranks[r].add(n);
      else
        g.ranks[r].add(n, {static_cast<uint32_t>(i - 1)});
    }
  }
  return g;
}

Graph compute_graph(int ranks, int nodes) {
  return compute_graph(std::vector<int>(ranks, nodes));
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every file in the folder with its bytes (a symlink is recorded as "-> target").
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    files[e.path().filename().string()] =
        e.is_symlink() ? "-> " + fs::read_symlink(e.path()).string() : bytes_of(e.path());
  return files;
}

TEST(ChakraOutput, ASymlinkAtARankFileIsReplacedNotFollowed) {
  const fs::path dir = fresh_test_dir("chakra_out_symlink");
  const fs::path victim = dir / "victim.txt";
  std::ofstream(victim) << "precious";
  fs::create_directories(dir / "trace");
  fs::create_symlink(victim, dir / "trace" / "t.0.et");
  fs::create_symlink(victim, dir / "trace" / "t.comm_groups.json");
  const Graph g = compute_graph(2, 3);
  write_chakra_trace(g, (dir / "trace").string(), "t");
  EXPECT_EQ(bytes_of(victim), "precious");  // the link's target is untouched
  EXPECT_FALSE(fs::is_symlink(dir / "trace" / "t.0.et"));
  EXPECT_FALSE(fs::is_symlink(dir / "trace" / "t.comm_groups.json"));
  std::string groups;
  EXPECT_EQ(bytes_of(dir / "trace" / "t.0.et"), encode_chakra_trace(g, &groups)[0]);
  EXPECT_EQ(read_chakra_trace((dir / "trace" / "t").string()).rank_count(), 2);
}

TEST(ChakraOutput, FewerRanksOverALargerTraceLeaveNoExtraRanks) {
  const fs::path dir = fresh_test_dir("chakra_out_stale");
  write_chakra_trace(compute_graph(64, 1), dir.string(), "t");
  std::ofstream(dir / "other.5.et") << "not this trace's";  // another prefix: kept
  write_chakra_trace(compute_graph(4, 2), dir.string(), "t");
  for (int r = 4; r < 64; ++r)
    EXPECT_FALSE(fs::exists(dir / ("t." + std::to_string(r) + ".et"))) << r;
  EXPECT_TRUE(fs::exists(dir / "other.5.et"));
  // The replay sees the 4 ranks written, not 64 (4 new + 60 old ones).
  const Graph back = read_chakra_trace((dir / "t").string());
  EXPECT_EQ(back.rank_count(), 4);
  EXPECT_EQ(back.ranks[3].nodes.size(), 2u);
}

// In a child (the limit and the signal are per process): RLIMIT_FSIZE below the new trace's file
// size makes write() fail with EFBIG, as a full disk fails with ENOSPC. The child reports the error
// message through a pipe; exit code 0 when write_chakra_trace threw std::runtime_error.
std::pair<int, std::string> write_with_file_size_limit(const Graph& g, const fs::path& dir,
                                                       rlim_t limit) {
  int fds[2];
  if (::pipe(fds) != 0) return {-1, "pipe"};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::signal(SIGXFSZ, SIG_IGN);  // else the kernel kills the process instead of EFBIG
    const rlimit lim{limit, limit};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    int code = 3;
    std::string message = "no error";
    try {
      write_chakra_trace(g, dir.string(), "t");
    } catch (const std::runtime_error& e) {
      code = 0;
      message = e.what();
    } catch (const std::exception& e) {
      code = 4;
      message = e.what();
    }
    if (::write(fds[1], message.data(), message.size()) < 0) code = 5;
    ::_exit(code);
  }
  ::close(fds[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) message.append(buf, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status), message};
}

TEST(ChakraOutput, AFailedWriteLeavesTheEarlierTraceByteIdentical) {
  const fs::path dir = fresh_test_dir("chakra_out_full");
  write_chakra_trace(compute_graph(3, 4), dir.string(), "t");
  const auto before = snapshot(dir);
  // The new trace's rank files are ~20 KB each (1000 nodes); the earlier ones are under 1 KB, so
  // 4 KB fails on the first rank file, after some of it is written.
  std::string groups;
  const Graph bigger = compute_graph(2, 1000);
  ASSERT_GT(encode_chakra_trace(bigger, &groups)[0].size(), 4096u);
  const auto [code, message] = write_with_file_size_limit(bigger, dir, 4096);
  EXPECT_EQ(code, 0) << message;
  EXPECT_THAT(message, HasSubstr("cannot write " + (dir / "t.0.et").string() + ": "));
  EXPECT_EQ(message.find('\n'), std::string::npos);  // one line
  EXPECT_EQ(snapshot(dir), before);                  // same names (no temporaries left), same bytes
}

TEST(ChakraOutput, AFailureOnALaterFileStillLeavesEveryEarlierFile) {
  // The first rank file fits under the limit and the second does not: rank 0 must not have been
  // renamed into place alone (a trace mixing ranks of two writes).
  const fs::path dir = fresh_test_dir("chakra_out_later");
  write_chakra_trace(compute_graph(2, 4), dir.string(), "t");
  const auto before = snapshot(dir);
  const Graph mixed = compute_graph({5, 1000});
  const auto [code, message] = write_with_file_size_limit(mixed, dir, 4096);
  EXPECT_EQ(code, 0) << message;
  EXPECT_THAT(message, HasSubstr("cannot write " + (dir / "t.1.et").string() + ": "));
  EXPECT_EQ(snapshot(dir), before);
}

}  // namespace
}  // namespace commlab::workload
