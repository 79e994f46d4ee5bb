#pragma once
// A catalog transformer (workload/catalog/catalog.h) as a workload graph, one DAG per rank, the way
// Megatron runs it: tensor parallelism inside a block (two all-reduces forward, two backward), a
// 1F1B pipeline over the stages (activations and their gradients as send/recv), expert parallelism
// for MoE blocks (dispatch and combine all-to-alls), and data parallelism as gradient buckets that
// overlap the backward pass (reduce-scatter + all-gather of a distributed optimizer, or DDP's
// all-reduce). Compute nodes carry FLOPs and weight bytes, so the scheduler's ComputeModel times
// them; communication carries payload bytes, so the network times it. docs/workload.md states
// every modelling choice.
#include <cstdint>

#include "workload/catalog/catalog.h"
#include "workload/graph.h"

namespace commlab::workload {

// Streams of a generated rank (kComputeStream is 0).
inline constexpr uint8_t kTpStream = 1;
inline constexpr uint8_t kDpStream = 2;
inline constexpr uint8_t kEpStream = 3;
inline constexpr uint8_t kPpSendForward = 4;   // activations to the next stage
inline constexpr uint8_t kPpRecvForward = 5;   // activations from the previous stage
inline constexpr uint8_t kPpSendBackward = 6;  // gradients to the previous stage
inline constexpr uint8_t kPpRecvBackward = 7;  // gradients from the next stage

// The most nodes a generated graph may have (GPT-3 175B on 16,384 GPUs has 17 M and takes 2.8 GB
// replayed); catalog_graph refuses larger before allocating.
inline constexpr uint64_t kMaxCatalogGraphNodes = uint64_t{64} << 20;

struct CatalogGraphOptions {
  Parallelism parallel;  // dp x tp x pp, micro and global batch (wire_bytes: activations)
  int ep = 1;            // expert-parallel degree (MoE only; divides dp and the expert count)
  int grad_bytes = 2;    // bytes per gradient element on the wire (2: BF16, 4: FP32)
  uint64_t bucket_bytes = 25ull << 20;  // DP bucket size (PyTorch DDP's default 25 MiB)
  bool distributed_optimizer = true;    // reduce-scatter + all-gather (ZeRO-1); else all-reduce
  bool overlap = true;  // buckets start as their layer's backward ends; else after the backward
};

// Ranks are laid out tp innermost, then pp, then dp: rank = (d * pp + s) * tp + t, so a TP group
// is consecutive ranks (one server) and a pipeline crosses servers. Throws std::invalid_argument
// for a split that does not divide (plan_iteration's checks, and ep: dp % ep, experts % ep) and
// for a graph over kMaxCatalogGraphNodes.
Graph catalog_graph(const TransformerSpec& spec, const CatalogGraphOptions& options);

// The upper estimate of the nodes catalog_graph would build (what kMaxCatalogGraphNodes is
// compared with), without building them; throws what catalog_graph throws for bad options.
double catalog_graph_node_estimate(const TransformerSpec& spec, const CatalogGraphOptions& options);

// Training FLOPs the graph's compute nodes carry in total, over every rank: training FLOPs per
// token x global batch x sequence length (the invariant the tests pin).
double catalog_graph_flops(const TransformerSpec& spec, const CatalogGraphOptions& options);

}  // namespace commlab::workload
