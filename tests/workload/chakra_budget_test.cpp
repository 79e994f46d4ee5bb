// The Chakra reader's memory follows what a trace says, not what it could be expanded into (issue
// 31): "ranks": [] groups are one every-rank group, dependencies passed on through a skipped node
// are counted against ChakraReadBudgets::forwarded_deps, and the graph's estimated memory against
// ChakraReadBudgets::memory_bytes; over a budget the error names the file, the budget and the
// value.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "chakra_wire.h"
#include "workload/chakra_trace.h"

namespace commlab::workload {
namespace {

using namespace commlab::test::chakra_wire;
using ::testing::HasSubstr;

Graph parse(const std::vector<std::string>& files, const ChakraReadBudgets& budgets = {}) {
  std::vector<std::string_view> views(files.begin(), files.end());
  return parse_chakra_trace(views, "", "t", nullptr, budgets);
}

std::string error_of(const std::vector<std::string>& files, const ChakraReadBudgets& budgets) {
  try {
    parse(files, budgets);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

// Rank 0 defines `count` process groups with "ranks": [] (each is every rank) and runs an
// all-reduce on the last; the other ranks only run it.
std::vector<std::string> every_rank_groups(int ranks, int count) {
  std::string pgs;
  for (int k = 1; k <= count; ++k)
    pgs += (k > 1 ? "," : "") + std::string(R"({"pg_name":")") + std::to_string(k) +
           R"(","ranks":[]})";
  auto all_reduce = [&] {
    return NodeMsg(2, "ar", kColl)
        .attr(attr_i("comm_type", kAllReduce))
        .attr(attr_u("comm_size", 64))
        .attr(attr_s("pg_name", std::to_string(count)));
  };
  std::vector<std::string> files(ranks, trace_file({all_reduce()}));
  files[0] = trace_file({NodeMsg(1, "pg", kMetadata).inputs("[[[" + pgs + "]]]"), all_reduce()});
  return files;
}

TEST(ChakraBudget, EveryRankGroupsAreOneGroupHoweverManyKeysNameThem) {
  // 3,000 keys x 1,000 ranks were 3,000 copies of every rank (12 MB; the 100,000 x 20,000
  // needed 8 GB); now one group of 1,000 ranks, which every key and the collective name.
  const Graph g = parse(every_rank_groups(1000, 3000));
  ASSERT_EQ(g.groups.size(), 1u);
  ASSERT_EQ(g.groups[0].size(), 1000u);
  for (int r = 0; r < 1000; r += 333) EXPECT_EQ(g.ranks[r].nodes[0].group_or_peer, 0);
  // Counted once against the group budget: 1,000 ranks fit a budget of 1,000.
  ChakraReadBudgets tight;
  tight.group_members = 1000;
  EXPECT_EQ(parse(every_rank_groups(1000, 3000), tight).groups.size(), 1u);
}

TEST(ChakraBudget, GroupMembersOverTheBudgetNameTheBudget) {
  // Two explicit groups of 2 ranks each list 4 ranks in all; a budget of 3 refuses the second.
  const std::string pgs = R"([{"pg_name":"1","ranks":[0,1]},{"pg_name":"2","ranks":[1,0]}])";
  ChakraReadBudgets budgets;
  budgets.group_members = 3;
  const std::string meta = trace_file({NodeMsg(1, "pg", kMetadata).inputs("[[" + pgs + "]]")});
  EXPECT_EQ(error_of({meta, meta}, budgets),
            "t.0.et: rank 0, node 1: the process groups list 4 ranks in all, over the cap of 3 "
            "(ChakraReadBudgets::group_members)");
  budgets.group_members = 4;
  EXPECT_EQ(parse({meta, meta}, budgets).groups.size(), 2u);
}

// The communicator-group file was once parsed into a JSON tree (~27x its size) with no cap on
// its groups; now it is read through SAX and its groups and listed ranks are capped as they come.
std::string group_file_error(const std::string& groups, const ChakraReadBudgets& budgets) {
  const std::vector<std::string> files(2, trace_file({}));
  std::vector<std::string_view> views(files.begin(), files.end());
  try {
    parse_chakra_trace(views, groups, "t", nullptr, budgets);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ChakraBudget, CommGroupFileGroupsAndRanksOverTheirCapsNameFileCapAndValue) {
  const std::string three = R"({"1": [0], "2": [1], "3": [0, 1]})";  // 3 groups, 4 ranks listed
  ChakraReadBudgets budgets;
  budgets.comm_groups = 2;
  EXPECT_EQ(group_file_error(three, budgets),
            "t.comm_groups.json: at least 3 groups, over the cap of 2 "
            "(ChakraReadBudgets::comm_groups)");
  budgets.comm_groups = 3;
  budgets.group_members = 3;
  EXPECT_EQ(group_file_error(three, budgets),
            "t.comm_groups.json: the groups list at least 4 ranks in all, over the cap of 3 "
            "(ChakraReadBudgets::group_members)");
  budgets.group_members = 4;
  EXPECT_EQ(group_file_error(three, budgets), "(no error)");
  // A key twice was silently the last list (a JSON object keeps one value per key).
  EXPECT_EQ(group_file_error(R"({"1": [0], "1": [1]})", {}),
            "t.comm_groups.json: group \"1\": listed twice (a key must name one group)");
  // Bad values stay one line naming the group and what is expected.
  EXPECT_EQ(group_file_error(R"({"1": [0, [1]]})", {}),
            "t.comm_groups.json: group \"1\": rank an array is not in [0, 2) (the trace has 2 "
            "rank files)");
  EXPECT_EQ(group_file_error(R"({"1": []})", {}),
            "t.comm_groups.json: group \"1\": expected a non-empty list of ranks");
  EXPECT_EQ(group_file_error(R"([1])", {}),
            "t.comm_groups.json: not a communicator-group file (expected a JSON object "
            "{\"1\": [0, 1, ...], ...})");
}

TEST(ChakraBudget, CommGroupFileKeysAreOrderedNumericallyThenByName) {
  const std::vector<std::string> files(2, trace_file({}));
  std::vector<std::string_view> views(files.begin(), files.end());
  const Graph g =
      parse_chakra_trace(views, R"({"b": [1], "10": [0, 1], "2": [1, 0], "a": [0]})", "t");
  ASSERT_EQ(g.groups.size(), 4u);
  EXPECT_EQ(g.groups[0], (std::vector<int>{1, 0}));  // "2"
  EXPECT_EQ(g.groups[1], (std::vector<int>{0, 1}));  // "10"
  EXPECT_EQ(g.groups[2], (std::vector<int>{0}));     // "a"
  EXPECT_EQ(g.groups[3], (std::vector<int>{1}));     // "b"
}

// One rank: `fan` compute nodes, a METADATA node depending on all of them, `kept` compute nodes
// depending on the METADATA node (fan 65,535 and kept 20,000 in 1.2 MB).
std::string fan_in_through_skipped(int fan, int kept) {
  std::vector<NodeMsg> nodes;
  NodeMsg meta(fan + 1, "m", kMetadata);
  for (int i = 1; i <= fan; ++i) {
    nodes.push_back(NodeMsg(i, "a", kComp).micros(1));
    meta.data(i);
  }
  nodes.push_back(meta);
  for (int i = 0; i < kept; ++i) nodes.push_back(NodeMsg(fan + 2 + i, "b", kComp).data(fan + 1));
  return trace_file(nodes);
}

TEST(ChakraBudget, DependenciesPassedThroughASkippedNodeAreBudgeted) {
  // Within the budget every kept dependant inherits all `fan` dependencies.
  const Graph g = parse({fan_in_through_skipped(300, 20)});
  ASSERT_EQ(g.ranks[0].nodes.size(), 320u);
  EXPECT_EQ(g.ranks[0].nodes[319].data_deps, 300);
  // The skipped node passes on 300 to itself (counted once), then 300 to each kept dependant:
  // the k-th kept dependant brings the count to 300 (k + 1). A budget of 3,000 is passed by the
  // 10th (300 x 11 = 3,300), node 300 + 2 + 9 = 311.
  ChakraReadBudgets budgets;
  budgets.forwarded_deps = 3000;
  EXPECT_EQ(error_of({fan_in_through_skipped(300, 20)}, budgets),
            "t.0.et: rank 0, node 311: dependencies passed on through skipped nodes: 3300 in the "
            "trace so far (this node's through skipped node 301: 300), over the budget of 3000 "
            "(ChakraReadBudgets::forwarded_deps)");
}

TEST(ChakraBudget, TheDefaultForwardingBudgetRefusesIssue31sTraceQuickly) {
  // 65,535 x 20,000 = 1.3e9 forwarded dependencies (5 GB of positions) are refused at the
  // default budget of 2^24 = 16,777,216 after 257 dependants: 65,535 x 257 > 2^24.
  const std::string error = error_of({fan_in_through_skipped(65535, 20000)}, {});
  EXPECT_THAT(error, HasSubstr("node " + std::to_string(65535 + 2 + 255) + ": "));
  EXPECT_THAT(error, HasSubstr("over the budget of 16777216 (ChakraReadBudgets::forwarded_deps)"));
}

}  // namespace
}  // namespace commlab::workload
