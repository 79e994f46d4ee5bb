#pragma once
// Attribute names shared by the Chakra reader and writer (no protobuf here). The standard names
// are the ones ASTRA-sim's feeder reads (feeder_v3/et_feeder_node_attr.h); the commlab_* names
// carry what Chakra lacks, and the reader prefers them when present.
namespace commlab::workload::chakra_attr {

inline constexpr const char* kSchemaVersion = "0.0.4";  // GlobalMetadata.version we write

// Standard Chakra / ASTRA-sim attributes.
inline constexpr const char* kCommType = "comm_type";      // CollectiveCommType (int)
inline constexpr const char* kCommSize = "comm_size";      // bytes (int)
inline constexpr const char* kCommSrc = "comm_src";        // send/recv source rank
inline constexpr const char* kCommDst = "comm_dst";        // send/recv destination rank
inline constexpr const char* kCommTag = "comm_tag";        // send/recv matching tag
inline constexpr const char* kPgName = "pg_name";          // communicator group key ("" / "0": all)
inline constexpr const char* kNumOps = "num_ops";          // FLOPs (roofline)
inline constexpr const char* kTensorSize = "tensor_size";  // bytes moved (roofline)
inline constexpr const char* kIsCpuOp = "is_cpu_op";       // bool

// CommLab's own (exact values; ASTRA-sim ignores attributes it does not know).
inline constexpr const char* kDuration = "commlab_duration_s";   // double seconds
inline constexpr const char* kFlops = "commlab_flops";           // double
inline constexpr const char* kMemBytes = "commlab_mem_bytes";    // double
inline constexpr const char* kCommKind = "commlab_comm_kind";    // "TP" "DP" "PP" "EP" "other"
inline constexpr const char* kStream = "commlab_stream";         // uint
inline constexpr const char* kGraphName = "commlab_graph_name";  // GlobalMetadata: Graph::name
// GlobalMetadata: true when the graph's receives hold no stream (Graph::receives_hold_stream
// false). Without it a trace CommLab wrote keeps its receives on their streams and a trace without
// commlab_graph_name (a third-party one) does not.
inline constexpr const char* kPostedReceives = "commlab_posted_receives";  // bool
// Exact Node::bytes of a collective when comm_size x group size is not it (chakra_comm_size.h).
inline constexpr const char* kCommBytes = "commlab_comm_bytes";  // uint
// GlobalMetadata: how comm_size was written. Traces CommLab wrote before it carry
// commlab_graph_name without it, and their all-gather comm_size is the gathered output.
inline constexpr const char* kCommSizeConvention = "commlab_comm_size";  // string
inline constexpr const char* kCommSizeInput = "input";  // ASTRA-sim's: this rank's input buffer

// Default stream of a node with no commlab_stream: compute 0, communication 1.
inline constexpr unsigned kDefaultCommStream = 1;

}  // namespace commlab::workload::chakra_attr
