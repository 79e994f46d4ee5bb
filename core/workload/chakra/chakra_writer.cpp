// Writes a Graph as a Chakra trace: per rank a length-prefixed GlobalMetadata and one Node message
// per node (in position order, so every dependency precedes its dependant), plus the
// communicator-group JSON ASTRA-sim reads. Standard fields first (what ASTRA-sim replays), then
// CommLab's exact values as commlab_* attributes (docs/workload.md "Chakra execution traces").
#include <google/protobuf/io/coded_stream.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "io/staged_files.h"
#include "io/status.h"
#include "workload/chakra/chakra_attrs.h"
#include "workload/chakra/chakra_comm_size.h"
#include "workload/chakra/chakra_files.h"
#include "workload/chakra/et_def.pb.h"
#include "workload/chakra_trace.h"

namespace commlab::workload {
namespace {

namespace pb = commlab::chakra;
namespace attr = chakra_attr;

void append_message(const google::protobuf::MessageLite& msg, std::string* out) {
  const size_t size = msg.ByteSizeLong();
  if (size > kChakraMaxMessageBytes)
    throw bad_input("a Chakra message of " + std::to_string(size) +
                    " bytes is over the reader's cap");
  uint8_t prefix[5];
  uint8_t* end = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(
      static_cast<uint32_t>(size), prefix);
  out->append(reinterpret_cast<const char*>(prefix), end - prefix);
  msg.AppendToString(out);
}

pb::AttributeProto* add_attr(pb::Node* n, const char* name) {
  pb::AttributeProto* a = n->add_attr();
  a->set_name(name);
  return a;
}

pb::CollectiveCommType chakra_comm_type(CommOp op) {
  switch (op) {
    case CommOp::kAllReduce: return pb::ALL_REDUCE;
    case CommOp::kReduceScatter: return pb::REDUCE_SCATTER;
    case CommOp::kAllGather: return pb::ALL_GATHER;
    case CommOp::kAllToAll: return pb::ALL_TO_ALL;
    case CommOp::kBroadcast: return pb::BROADCAST;
  }
  return pb::ALL_REDUCE;
}

// Chakra's integer fields hold what ASTRA-sim replays; the exact double goes in commlab_*.
uint64_t to_u64(double v) {
  if (!(v > 0)) return 0;
  if (v >= 1.8e19) return UINT64_MAX;
  return static_cast<uint64_t>(std::round(v));
}

void encode_node(const Graph& graph, const RankGraph& g, int rank, const Node& node, pb::Node* n) {
  n->Clear();
  n->set_id(node.id);
  n->set_name(graph.name_of(node));
  for (uint32_t i = 0; i < node.data_deps; ++i)
    n->add_data_deps(g.nodes[g.deps[node.dep_begin + i]].id);
  for (uint32_t i = 0; i < node.ctrl_deps; ++i)
    n->add_ctrl_deps(g.nodes[g.deps[node.dep_begin + node.data_deps + i]].id);
  const bool comm = node.kind != NodeKind::kCompute;
  switch (node.kind) {
    case NodeKind::kCompute:
      n->set_type(pb::COMP_NODE);
      if (node.duration_s >= 0) {
        n->set_duration_micros(to_u64(node.duration_s * 1e6));
      } else {  // the roofline: num_ops and tensor_size mark it (ASTRA-sim's roofline mode)
        // A memory-only node (an optimizer step) as 1 op: ASTRA-sim's roofline divides num_ops
        // by min(bandwidth x num_ops / tensor_size, peak), which is 0 / 0 for 0 ops and
        // tensor_size / bandwidth, the memory time, for 1; a reader's 1 FLOP is never the bound.
        const bool memory_only = node.flops < 1 && node.mem_bytes > 0;
        add_attr(n, attr::kNumOps)->set_uint64_val(memory_only ? 1 : to_u64(node.flops));
        add_attr(n, attr::kTensorSize)->set_uint64_val(to_u64(node.mem_bytes));
      }
      break;
    case NodeKind::kCollective:
      n->set_type(pb::COMM_COLL_NODE);
      add_attr(n, attr::kCommType)->set_int64_val(chakra_comm_type(node.op));
      // Group index + 1: ASTRA-sim takes pg_name "" and "0" as all ranks.
      add_attr(n, attr::kPgName)->set_string_val(std::to_string(node.group_or_peer + 1));
      break;
    case NodeKind::kSend:
      n->set_type(pb::COMM_SEND_NODE);
      add_attr(n, attr::kCommSrc)->set_int64_val(rank);
      add_attr(n, attr::kCommDst)->set_int64_val(node.group_or_peer);
      break;
    case NodeKind::kRecv:
      n->set_type(pb::COMM_RECV_NODE);
      add_attr(n, attr::kCommSrc)->set_int64_val(node.group_or_peer);
      add_attr(n, attr::kCommDst)->set_int64_val(rank);
      break;
  }
  if (node.kind == NodeKind::kCollective) {
    // comm_size is this rank's input buffer, as ASTRA-sim reads it (an all-gather's shard).
    const uint64_t members = graph.groups[node.group_or_peer].size();
    add_attr(n, attr::kCommSize)
        ->set_uint64_val(chakra_size::comm_size_of(node.op, node.bytes, members));
    if (chakra_size::needs_exact_bytes(node.op, node.bytes, members))
      add_attr(n, attr::kCommBytes)->set_uint64_val(node.bytes);
  } else if (comm) {
    add_attr(n, attr::kCommSize)->set_uint64_val(node.bytes);
  }
  if (comm) {
    if (node.kind != NodeKind::kCollective || node.tag != 0)
      add_attr(n, attr::kCommTag)->set_int64_val(node.tag);
  }
  // Exact values, written whenever they differ from what the reader would infer without them.
  if (node.duration_s != -1) add_attr(n, attr::kDuration)->set_double_val(node.duration_s);
  // (A memory-only roofline node says 1 op in num_ops, so its exact 0 FLOPs are written too.)
  if (!comm) {  // (a communication node's flops are its bytes: graph.h)
    const bool memory_only_roofline = node.duration_s < 0 && node.flops < 1 && node.mem_bytes > 0;
    if (node.flops != 0 || memory_only_roofline)
      add_attr(n, attr::kFlops)->set_double_val(node.flops);
    if (node.mem_bytes != 0) add_attr(n, attr::kMemBytes)->set_double_val(node.mem_bytes);
  }
  if (node.comm != CommKind::kOther)
    add_attr(n, attr::kCommKind)->set_string_val(comm_kind_name(node.comm));
  const unsigned default_stream = comm ? attr::kDefaultCommStream : kComputeStream;
  if (node.stream != default_stream) add_attr(n, attr::kStream)->set_uint32_val(node.stream);
}

}  // namespace

std::string chakra_comm_group_file(const std::string& prefix) {
  return prefix + ".comm_groups.json";
}

std::vector<std::string> encode_chakra_trace(const Graph& graph, std::string* comm_groups_json) {
  check_graph(graph);
  if (graph.ranks.empty())  // a reader finds a trace by its PREFIX.0.et
    throw bad_input("a Chakra trace needs at least one rank");
  std::vector<std::string> files(graph.ranks.size());
  pb::GlobalMetadata meta;
  meta.set_version(attr::kSchemaVersion);
  pb::AttributeProto* convention = meta.add_attr();
  convention->set_name(attr::kCommSizeConvention);
  convention->set_string_val(attr::kCommSizeInput);
  if (!graph.name.empty()) {
    pb::AttributeProto* a = meta.add_attr();
    a->set_name(attr::kGraphName);
    a->set_string_val(graph.name);
  }
  if (!graph.receives_hold_stream) {
    pb::AttributeProto* a = meta.add_attr();
    a->set_name(attr::kPostedReceives);
    a->set_bool_val(true);
  }
  pb::Node n;
  for (int r = 0; r < graph.rank_count(); ++r) {
    const RankGraph& g = graph.ranks[r];
    std::unordered_set<uint64_t> ids;
    ids.reserve(g.nodes.size());
    append_message(meta, &files[r]);
    for (const Node& node : g.nodes) {
      // Chakra names dependencies by id, so an id must name one node.
      if (!ids.insert(node.id).second)
        throw bad_input("rank " + std::to_string(r) + ", node " + std::to_string(node.id) +
                        ": duplicate node id");
      encode_node(graph, g, r, node, &n);
      append_message(n, &files[r]);
    }
  }
  if (comm_groups_json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (size_t i = 0; i < graph.groups.size(); ++i) j[std::to_string(i + 1)] = graph.groups[i];
    *comm_groups_json = j.dump() + "\n";
  }
  return files;
}

void write_chakra_trace(const Graph& graph, const std::string& dir, const std::string& name) {
  std::string groups;
  const std::vector<std::string> files = encode_chakra_trace(graph, &groups);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir + ": cannot create the directory: " + ec.message());
  const std::string prefix = (std::filesystem::path(dir) / name).string();
  // Every file complete before any replaces an earlier trace's (io/staged_files.h), then
  // the earlier trace's extra ranks go.
  StagedFiles staged;
  for (size_t r = 0; r < files.size(); ++r)
    staged.add(prefix + "." + std::to_string(r) + ".et", files[r]);
  staged.add(chakra_comm_group_file(prefix), groups);
  staged.commit();
  chakra_files::remove_rank_files_from(prefix, static_cast<int>(files.size()));
}

}  // namespace commlab::workload
