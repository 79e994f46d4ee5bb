// Reads Chakra traces into a Graph, field by field after docs/workload.md "Chakra execution
// traces". Every length is checked against what is left and against a cap before anything is
// allocated, and nodes are ordered topologically here (Chakra files need not list a dependency
// before its dependant), so a cycle is found while sorting and named.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "io/status.h"
#include "workload/chakra/chakra_attrs.h"
#include "workload/chakra/chakra_comm_size.h"
#include "workload/chakra/chakra_files.h"
#include "workload/chakra/chakra_placement.h"
#include "workload/chakra/chakra_values.h"
#include "workload/chakra/et_def.pb.h"
#include "workload/chakra_trace.h"
#include "workload/p2p_sizes.h"

namespace commlab::workload {
namespace {

namespace pb = commlab::chakra;
namespace attr = chakra_attr;

using chakra_values::fail;
using Where = chakra_values::NodeWhere;
using namespace chakra_values;

// What the trace as a whole shares: rank count, groups, the report.
struct TraceContext {
  std::string label;
  std::string group_file;
  bool have_group_file = false;
  int ranks = 0;
  chakra_files::GroupResolver groups;
  Graph* graph = nullptr;
  TraceReadReport* report = nullptr;
  ChakraReadBudgets budgets;
  uint64_t forwarded_deps = 0;  // counted against budgets.forwarded_deps
  uint64_t held_bytes = 0;      // the graph's nodes and dependencies from the ranks read, names
  uint64_t trace_nodes = 0;     // the ranks' records so far, counted against budgets.nodes
};

// Kinds an attribute is used by; on any other kind it is counted as ignored.
enum : uint8_t { kC = 1, kL = 2, kS = 4, kR = 8, kAll = 15 };
uint8_t kind_bit(NodeKind k) {
  switch (k) {
    case NodeKind::kCompute: return kC;
    case NodeKind::kCollective: return kL;
    case NodeKind::kSend: return kS;
    case NodeKind::kRecv: return kR;
  }
  return 0;
}

class RankParser {
 public:
  RankParser(TraceContext& ctx, int rank, std::string file)
      : ctx_(ctx), rank_(rank), file_(std::move(file)) {}
  // owner: the string holding bytes when the reader read the file (freed once the nodes are
  // parsed, before placement), else null.
  void parse(std::string_view bytes, RankGraph* out, std::string* owner);

 private:
  std::string at_offset(uint64_t offset) const;
  bool next_message(std::string_view bytes, std::string_view* msg);
  void read_metadata(std::string_view msg);
  void read_node(const pb::Node& n, uint64_t offset);
  uint64_t estimated_bytes() const;
  [[noreturn]] void fail_memory(const std::string& where, const std::string& so_far) const;
  void map_attributes(const pb::Node& n, Node* node, const Where& where);
  void read_collective(Node* node, uint64_t comm_size, std::optional<uint64_t> exact_bytes,
                       const std::string* pg_name, const Where& where);

  TraceContext& ctx_;
  const int rank_;
  const std::string file_;
  uint64_t pos_ = 0;
  uint64_t last_id_ = 0;
  bool any_node_ = false;
  bool gathered_all_gather_ = false;  // written by CommLab before commlab_comm_size (see attrs)
  chakra_place::RawRank raw_;
  uint64_t file_bytes_ = 0;
  uint64_t node_count_ = 0;  // messages after the GlobalMetadata (reserved for)
  std::unordered_map<std::string, int> pg_cache_;  // pg_name -> group index
};

std::string RankParser::at_offset(uint64_t offset) const {
  return file_ + ": rank " + std::to_string(rank_) + ", byte offset " + std::to_string(offset) +
         (any_node_ ? " (after node " + std::to_string(last_id_) + ")" : "");
}

// A varint32 length prefix and the message it announces; false at a clean end of file.
bool RankParser::next_message(std::string_view bytes, std::string_view* msg) {
  const uint64_t start = pos_;
  if (pos_ == bytes.size()) return false;
  uint32_t len = 0;
  for (int i = 0;; ++i) {
    if (pos_ == bytes.size()) fail(at_offset(start), "truncated length prefix");
    const auto b = static_cast<uint8_t>(bytes[pos_++]);
    if (i == 4 && (b & 0xF0)) fail(at_offset(start), "bad varint length prefix (over 32 bits)");
    len |= uint32_t{b & 0x7Fu} << (7 * i);
    if (!(b & 0x80)) break;
  }
  if (len > kChakraMaxMessageBytes)
    fail(at_offset(start), "message length " + std::to_string(len) + " is over the cap of " +
                               std::to_string(kChakraMaxMessageBytes) + " bytes");
  if (len > bytes.size() - pos_)
    fail(at_offset(start), "truncated message: length " + std::to_string(len) + ", only " +
                               std::to_string(bytes.size() - pos_) + " bytes left");
  *msg = bytes.substr(pos_, len);
  pos_ += len;
  return true;
}

void RankParser::read_metadata(std::string_view msg) {
  pb::GlobalMetadata meta;
  if (!meta.ParseFromArray(msg.data(), static_cast<int>(msg.size())))
    fail(at_offset(0), "not a valid GlobalMetadata message");
  bool commlab = false, convention = false;
  std::optional<bool> posted_receives;
  for (const pb::AttributeProto& a : meta.attr()) {
    if (a.name() == attr::kGraphName && a.has_string_val()) {
      commlab = true;
      if (rank_ == 0) ctx_.graph->name = a.string_val();
    } else if (a.name() == attr::kPostedReceives) {
      if (!a.has_bool_val())
        fail(at_offset(0), std::string("GlobalMetadata attribute ") + attr::kPostedReceives +
                               ": expected bool_val");
      posted_receives = a.bool_val();
    } else if (a.name() == attr::kCommSizeConvention) {
      convention = true;
      if (!a.has_string_val() || a.string_val() != attr::kCommSizeInput)
        fail(at_offset(0), std::string("GlobalMetadata attribute ") + attr::kCommSizeConvention +
                               ": expected string_val \"" + attr::kCommSizeInput + "\"");
    } else if (ctx_.report) {
      ++ctx_.report->unknown_attributes;
      ++ctx_.report->unknown_by_name[a.name()];
    }
  }
  gathered_all_gather_ = commlab && !convention;
  // A trace CommLab wrote carries commlab_graph_name or commlab_comm_size; a third-party one
  // names no streams, and its receives hold none, as ASTRA-sim issues them.
  if (rank_ == 0)
    ctx_.graph->receives_hold_stream = !posted_receives.value_or(!(commlab || convention));
}

void RankParser::parse(std::string_view bytes, RankGraph* out, std::string* owner) {
  std::string_view msg;
  if (!next_message(bytes, &msg)) fail(at_offset(0), "empty file (expected a GlobalMetadata)");
  read_metadata(msg);
  file_bytes_ = bytes.size();
  node_count_ = chakra_files::count_messages(bytes, pos_);
  ctx_.trace_nodes += node_count_;
  if (ctx_.trace_nodes > ctx_.budgets.nodes)
    chakra_files::fail_node_budget(file_, rank_, node_count_, ctx_.trace_nodes, ctx_.budgets.nodes);
  if (estimated_bytes() > ctx_.budgets.memory_bytes)
    fail_memory(file_ + ": rank " + std::to_string(rank_), std::to_string(node_count_) + " nodes");
  raw_.nodes.reserve(node_count_);
  raw_.links.reserve(node_count_);
  // Reserved, not touched: a node usually has a dependency, and names are often one a node; a
  // trace with fewer leaves the pages unused (never resident), one with more grows them.
  raw_.dep_ids.reserve(node_count_);
  std::vector<std::string>& names = ctx_.graph->names;
  if (names.capacity() < names.size() + node_count_)  // doubling: ranks of new names add up
    names.reserve(std::max(2 * names.capacity(), names.size() + node_count_));
  pb::Node n;  // reused: parsing clears it
  uint64_t offset = pos_;
  while (next_message(bytes, &msg)) {
    if (!n.ParseFromArray(msg.data(), static_cast<int>(msg.size())))
      fail(at_offset(offset), "not a valid Chakra Node message");
    read_node(n, offset);
    offset = pos_;
  }
  if (owner) {  // the file is parsed: placement needs only its nodes
    std::string().swap(*owner);
    file_bytes_ = 0;
  }
  raw_.file = file_;
  raw_.rank = rank_;
  out->deps.reserve(raw_.dep_ids.size());
  chakra_place::place_rank(raw_, out, &ctx_.forwarded_deps, ctx_.budgets.forwarded_deps);
  ctx_.held_bytes += out->nodes.size() * sizeof(Node) + out->deps.capacity() * sizeof(uint32_t);
  if (ctx_.report) ctx_.report->nodes += out->nodes.size();
}

// What reading holds now: the earlier ranks' graph and the names, this rank's file, its nodes
// (all reserved at the start) and the dependencies read so far (chakra_placement.h).
uint64_t RankParser::estimated_bytes() const {
  return ctx_.held_bytes + file_bytes_ + node_count_ * chakra_place::kBytesPerRawNode +
         raw_.dep_ids.size() * chakra_place::kBytesPerRawDep;
}

void RankParser::fail_memory(const std::string& where, const std::string& so_far) const {
  fail(where, "reading needs about " + std::to_string(estimated_bytes()) + " bytes (" + so_far +
                  "), over the memory budget of " + std::to_string(ctx_.budgets.memory_bytes) +
                  " bytes (ChakraReadBudgets::memory_bytes)");
}

void RankParser::read_node(const pb::Node& n, uint64_t offset) {
  const Where where{file_, rank_, n.id()};
  if (raw_.nodes.size() >= UINT32_MAX) fail(where, "more than 2^32 - 1 nodes in one rank");
  chakra_place::RawLinks r;
  Node node;
  r.offset = offset;
  node.id = n.id();
  r.dep_begin = raw_.dep_ids.size();
  r.data = static_cast<uint32_t>(n.data_deps_size());
  r.ctrl = static_cast<uint32_t>(n.ctrl_deps_size());
  raw_.dep_ids.insert(raw_.dep_ids.end(), n.data_deps().begin(), n.data_deps().end());
  raw_.dep_ids.insert(raw_.dep_ids.end(), n.ctrl_deps().begin(), n.ctrl_deps().end());
  switch (n.type()) {
    case pb::COMP_NODE: node.kind = NodeKind::kCompute; break;
    case pb::COMM_COLL_NODE: node.kind = NodeKind::kCollective; break;
    case pb::COMM_SEND_NODE: node.kind = NodeKind::kSend; break;
    case pb::COMM_RECV_NODE: node.kind = NodeKind::kRecv; break;
    case pb::INVALID_NODE:
    case pb::METADATA_NODE:
    case pb::MEM_LOAD_NODE:
    case pb::MEM_STORE_NODE:
    case pb::STORAGE_NODE:
    case pb::BATCH_NODE:
    case pb::CHECKPOINT_NODE: r.skipped = true; break;
    default: fail(where, "unknown node type " + std::to_string(static_cast<int>(n.type())));
  }
  if (!r.skipped) {
    const size_t names = ctx_.graph->names.size();
    node.name = ctx_.graph->intern(n.name());
    // A new name: its string, its index slots and its text past the inline 15 bytes.
    if (ctx_.graph->names.size() != names)
      ctx_.held_bytes += Graph::kBytesPerName + (n.name().size() > 15 ? n.name().size() + 1 : 0);
    map_attributes(n, &node, where);
  } else {
    if (ctx_.report) ++ctx_.report->skipped_nodes;
    if (n.type() == pb::METADATA_NODE && !n.inputs().values().empty()) {
      bool read = false;
      try {
        read = ctx_.groups.define_from_metadata(n.inputs().values());
      } catch (const std::invalid_argument& e) {
        fail(where, e.what());
      }
      if (!read && ctx_.report) {
        ++ctx_.report->unknown_attributes;
        ++ctx_.report->unknown_by_name["METADATA_NODE inputs.values"];
      }
    }
  }
  if (estimated_bytes() > ctx_.budgets.memory_bytes)  // dependencies and names grow it
    fail_memory(where.str(), std::to_string(raw_.nodes.size() + 1) + " of " +
                                 std::to_string(node_count_) + " nodes, " +
                                 std::to_string(raw_.dep_ids.size()) + " dependencies read");
  raw_.nodes.push_back(node);
  raw_.links.push_back(r);
  last_id_ = n.id();
  any_node_ = true;
}

void RankParser::map_attributes(const pb::Node& n, Node* node, const Where& where) {
  std::optional<uint64_t> comm_type, comm_size, comm_src, comm_dst, num_ops, tensor_size, stream;
  std::optional<uint64_t> comm_bytes;
  std::optional<int64_t> comm_tag;
  std::optional<double> duration, flops, mem_bytes;
  const std::string* pg_name = nullptr;
  const std::string* kind = nullptr;
  bool cpu_op = false;
  const uint8_t bit = kind_bit(node->kind);
  for (const pb::AttributeProto& a : n.attr()) {
    const std::string& name = a.name();
    uint8_t used = 0;  // kinds that use this attribute; 0: unknown
    if (name == attr::kCommType) {
      if ((used = kL) & bit) comm_type = int_in(a, where, 0, UINT64_MAX);
    } else if (name == attr::kCommSize) {
      if ((used = kL | kS | kR) & bit) comm_size = int_in(a, where, 0, UINT64_MAX);
    } else if (name == attr::kCommBytes) {
      if ((used = kL) & bit) comm_bytes = int_in(a, where, 0, UINT64_MAX);
    } else if (name == attr::kCommSrc) {
      if ((used = kS | kR) & bit) comm_src = int_in(a, where, 0, INT32_MAX);
    } else if (name == attr::kCommDst) {
      if ((used = kS | kR) & bit) comm_dst = int_in(a, where, 0, INT32_MAX);
    } else if (name == attr::kCommTag) {
      if ((used = kL | kS | kR) & bit)
        comm_tag = static_cast<int64_t>(int_in(a, where, INT32_MIN, INT32_MAX));
    } else if (name == attr::kPgName) {
      if ((used = kL) & bit) pg_name = &string_value(a, where);
    } else if (name == attr::kNumOps) {
      if ((used = kC) & bit) num_ops = int_in(a, where, 0, UINT64_MAX);
    } else if (name == attr::kTensorSize) {
      if ((used = kC) & bit) tensor_size = int_in(a, where, 0, UINT64_MAX);
    } else if (name == attr::kIsCpuOp) {
      used = kAll;
      cpu_op = int_in(a, where, 0, 1) != 0;
    } else if (name == attr::kDuration) {
      used = kAll;
      duration = bounded_double(a, where, kChakraMaxNodeSeconds, "seconds");
    } else if (name == attr::kFlops) {
      used = kAll;
      flops = bounded_double(a, where, kChakraMaxNodeFlops, "FLOPs");
    } else if (name == attr::kMemBytes) {
      used = kAll;
      mem_bytes = bounded_double(a, where, kChakraMaxNodeMemBytes, "bytes");
    } else if (name == attr::kCommKind) {
      used = kAll;
      kind = &string_value(a, where);
    } else if (name == attr::kStream) {
      used = kAll;
      stream = int_in(a, where, 0, kMaxStreams - 1);
    }
    if (!(used & bit) && ctx_.report) {
      ++ctx_.report->unknown_attributes;
      ++ctx_.report->unknown_by_name[name];
    }
  }
  const bool comm = node->kind != NodeKind::kCompute;
  if (comm && cpu_op) fail(where, "is_cpu_op is true on a communication node");
  node->stream = static_cast<uint8_t>(stream.value_or(comm ? attr::kDefaultCommStream : 0));
  if (kind) {
    bool found = false;
    for (int k = 0; k < kCommKinds && !found; ++k)
      if (*kind == comm_kind_name(static_cast<CommKind>(k))) {
        node->comm = static_cast<CommKind>(k);
        found = true;
      }
    if (!found)
      fail(where,
           std::string(attr::kCommKind) + " \"" + *kind + "\" (expected TP, DP, PP, EP or other)");
  }
  if (!comm) {
    node->flops = flops.value_or(num_ops ? static_cast<double>(*num_ops) : 0.0);
    node->mem_bytes = mem_bytes.value_or(tensor_size ? static_cast<double>(*tensor_size) : 0.0);
    // Exact seconds, else Chakra's microseconds; with no duration but num_ops / tensor_size, the
    // roofline (ASTRA-sim's roofline mode; CPU ops always replay their duration, as there).
    const bool roofline = !cpu_op && n.duration_micros() == 0 && (num_ops || tensor_size);
    if (static_cast<double>(n.duration_micros()) * 1e-6 > kChakraMaxNodeSeconds)
      fail(where, "duration_micros " + std::to_string(n.duration_micros()) +
                      " is over the bound (expected seconds in [0, " +
                      number_text(kChakraMaxNodeSeconds) + "])");
    node->duration_s =
        duration.value_or(roofline ? -1.0 : static_cast<double>(n.duration_micros()) * 1e-6);
    return;
  }
  // Communication is timed by the scheduler; Chakra's duration_micros of it is not used.
  node->duration_s = duration.value_or(-1.0);
  const char* type_name = node->kind == NodeKind::kCollective ? "COMM_COLL_NODE"
                          : node->kind == NodeKind::kSend     ? "COMM_SEND_NODE"
                                                              : "COMM_RECV_NODE";
  if (!comm_size) fail(where, std::string(type_name) + " without comm_size");
  node->bytes = *comm_size;
  node->tag = static_cast<int32_t>(comm_tag.value_or(0));
  if (node->kind == NodeKind::kCollective) {
    if (!comm_type) fail(where, "COMM_COLL_NODE without comm_type");
    node->op = comm_op_or_fail(*comm_type, where);
    read_collective(node, *comm_size, comm_bytes, pg_name, where);
    return;
  }
  const bool send = node->kind == NodeKind::kSend;
  const std::optional<uint64_t>& peer = send ? comm_dst : comm_src;
  const std::optional<uint64_t>& self = send ? comm_src : comm_dst;
  if (!peer)
    fail(where, std::string(type_name) + (send ? " without comm_dst" : " without comm_src"));
  if (self && *self != static_cast<uint64_t>(rank_))
    fail(where, std::string(send ? "comm_src " : "comm_dst ") + std::to_string(*self) +
                    " is not this file's rank");
  if (*peer >= static_cast<uint64_t>(ctx_.ranks) || *peer == static_cast<uint64_t>(rank_))
    fail(where, std::string(send ? "send to" : "recv from") + " rank " + std::to_string(*peer) +
                    " (the trace has " + std::to_string(ctx_.ranks) + " ranks, this is rank " +
                    std::to_string(rank_) + ")");
  node->group_or_peer = static_cast<int32_t>(*peer);
}

// The group (checked once per name) and Node::bytes: comm_size is this rank's input buffer, so an
// all-gather's gathered bytes are comm_size x group size (chakra_comm_size.h), unless the exact
// bytes are given or the trace was written by CommLab before the convention was recorded.
void RankParser::read_collective(Node* node, uint64_t comm_size,
                                 std::optional<uint64_t> exact_bytes, const std::string* pg_name,
                                 const Where& where) {
  const std::string& pg = pg_name ? *pg_name : std::string();
  auto cached = pg_cache_.find(pg);
  if (cached == pg_cache_.end()) {
    try {
      cached = pg_cache_.emplace(pg, ctx_.groups.resolve(pg, rank_)).first;
    } catch (const std::invalid_argument& e) {
      fail(where, e.what());
    }
  }
  node->group_or_peer = cached->second;
  const uint64_t members = ctx_.graph->groups[cached->second].size();
  if (exact_bytes) {
    if (chakra_size::comm_size_of(node->op, *exact_bytes, members) != comm_size)
      fail(where, std::string(attr::kCommBytes) + " " + std::to_string(*exact_bytes) +
                      " does not match comm_size " + std::to_string(comm_size));
    node->bytes = *exact_bytes;
  } else if (!gathered_all_gather_) {
    const std::optional<uint64_t> bytes = chakra_size::bytes_of(node->op, comm_size, members);
    if (!bytes)
      fail(where, "all-gather comm_size " + std::to_string(comm_size) + " x " +
                      std::to_string(members) + " ranks is over 2^64 bytes");
    node->bytes = *bytes;
  }
}

Graph parse_with(TraceContext& ctx, int ranks, std::string_view groups_json,
                 const std::function<std::string_view(int, std::string*)>& rank_bytes) {
  Graph graph;
  ctx.graph = &graph;
  ctx.ranks = ranks;
  if (ranks <= 0 || ranks > kChakraMaxRanks)
    throw bad_input(ctx.label + ": " + std::to_string(ranks) + " ranks (at most " +
                    std::to_string(kChakraMaxRanks) + ")");
  ctx.groups = chakra_files::GroupResolver(ctx.group_file, ctx.have_group_file, groups_json, ranks,
                                           &graph.groups, ctx.budgets.group_members,
                                           ctx.budgets.comm_groups);
  graph.ranks.resize(ranks);
  std::string storage;
  for (int r = 0; r < ranks; ++r) {
    std::string file = ctx.label + "." + std::to_string(r) + ".et";
    const std::string_view bytes = rank_bytes(r, &storage);
    RankParser(ctx, r, std::move(file)).parse(bytes, &graph.ranks[r], &storage);
  }
  check_p2p_sizes(graph, ctx.label);
  if (graph.name.empty()) graph.name = std::filesystem::path(ctx.label).filename().string();
  // No check_graph here: the reader checks each of its rules as it reads (with the file, rank and
  // node in the message), and fuzz_chakra asserts check_graph accepts whatever the reader returns.
  return graph;
}

}  // namespace

Graph parse_chakra_trace(const std::vector<std::string_view>& rank_files,
                         std::string_view comm_groups_json, const std::string& label,
                         TraceReadReport* report, const ChakraReadBudgets& budgets) {
  TraceContext ctx;
  ctx.budgets = budgets;
  ctx.label = label;
  ctx.group_file = chakra_comm_group_file(label);
  ctx.have_group_file = !comm_groups_json.empty();
  ctx.report = report;
  return parse_with(ctx, static_cast<int>(rank_files.size()), comm_groups_json,
                    [&](int r, std::string*) { return rank_files[r]; });
}

std::string find_comm_group_file(const std::string& prefix, const std::string& given) {
  if (!given.empty()) return given;
  for (const std::string& name : {chakra_comm_group_file(prefix), prefix + ".json"})
    if (std::filesystem::exists(name)) return name;
  return "";
}

Graph read_chakra_trace(const std::string& prefix, TraceReadReport* report,
                        const std::string& comm_groups_file, const ChakraReadBudgets& budgets) {
  const int ranks = chakra_files::count_rank_files(prefix, kChakraMaxRanks);
  TraceContext ctx;
  ctx.budgets = budgets;
  ctx.label = prefix;
  ctx.report = report;
  const std::string found = find_comm_group_file(prefix, comm_groups_file);
  // Messages name the file looked for: the given one, the one found, or the default name.
  ctx.group_file = found.empty() ? chakra_comm_group_file(prefix) : found;
  std::string groups;
  if (!found.empty())
    groups = chakra_files::read_regular_file(found, kChakraMaxGroupFileBytes,
                                             /*missing_ok=*/comm_groups_file.empty(),
                                             &ctx.have_group_file);
  chakra_files::check_trace_nodes(prefix, ranks, budgets.nodes);
  return parse_with(ctx, ranks, groups, [&](int r, std::string* storage) {
    *storage = chakra_files::read_regular_file(prefix + "." + std::to_string(r) + ".et",
                                               kChakraMaxFileBytes);
    return std::string_view(*storage);
  });
}

}  // namespace commlab::workload
