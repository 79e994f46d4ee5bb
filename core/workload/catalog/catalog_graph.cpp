#include "workload/catalog/catalog_graph.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/status.h"

namespace commlab::workload {
namespace {

// What one TP rank of a stage computes and sends per micro-batch, and the gradient bytes it holds.
struct Costs {
  double attn_flops = 0, mlp_flops = 0, head_flops = 0;  // forward, per micro-batch
  double attn_bytes = 0, mlp_bytes = 0, head_bytes = 0;  // weight bytes read by each
  uint64_t tp_bytes = 0, pp_bytes = 0, a2a_bytes = 0;
  uint64_t layer_dense_grad = 0, layer_expert_grad = 0;  // per layer, per TP rank
  uint64_t first_stage_grad = 0, last_stage_grad = 0;    // embedding / head + final norm
};

Costs costs_of(const TransformerSpec& s, const CatalogGraphOptions& o) {
  const Parallelism& p = o.parallel;
  const double tp = p.tp, h = s.hidden;
  const double tokens = static_cast<double>(p.micro_batch) * s.seq;
  const double attn = attention_parameter_count(s);
  const double dense_rest = router_parameter_count(s) + (s.biases ? 2 : 1) * h;  // router, norm
  const double mlp = mlp_parameter_count(s);
  const int local_experts = s.moe() ? s.experts / o.ep : 1;
  Costs c;
  // Forward FLOPs (workload/catalog/catalog.h): 2 per weight a token meets, + 4*seq*h of attention
  // scores and weighted values; a MoE token meets top_k experts (balanced routing).
  c.attn_flops = tokens * (2 * (attn + dense_rest) + 4.0 * s.seq * h) / tp;
  c.mlp_flops = tokens * 2 * mlp * (s.moe() ? s.top_k : 1) / tp;
  c.head_flops = tokens * 2 * s.vocab * h / tp;
  c.attn_bytes = (attn + dense_rest) / tp * p.wire_bytes;
  c.mlp_bytes = mlp * local_experts / tp * p.wire_bytes;
  c.head_bytes = s.vocab * h / tp * p.wire_bytes;
  const auto activation = static_cast<uint64_t>(tokens * h * p.wire_bytes);
  c.tp_bytes = activation;
  c.pp_bytes = activation;
  // Each TP rank dispatches its 1/tp of the micro-batch's tokens, top_k copies of each.
  c.a2a_bytes = static_cast<uint64_t>(tokens / tp * (s.moe() ? s.top_k : 1) * h * p.wire_bytes);
  const double g = o.grad_bytes;
  c.layer_dense_grad = static_cast<uint64_t>((attn + dense_rest) / tp * g);
  c.layer_expert_grad = static_cast<uint64_t>(mlp * local_experts / tp * g);
  double first = s.vocab * h;  // the embedding
  if (s.learned_positions) first += static_cast<double>(s.seq) * h;
  if (s.embedding_norm) first += 2 * h;
  double last = (s.biases ? 2 : 1) * h;  // the final norm
  // A tied head is the embedding; with pp > 1 Megatron keeps a copy on the last stage (the
  // copies' gradient all-reduce is not modelled).
  if (!s.tied_embeddings || p.pp > 1) last += s.vocab * h;
  c.first_stage_grad = static_cast<uint64_t>(first / tp * g);
  c.last_stage_grad = static_cast<uint64_t>(last / tp * g);
  return c;
}

// Bucket layers: stage-local layer indices, or one of these.
constexpr int kHead = -1;       // the output head and final norm (last stage)
constexpr int kEmbedding = -2;  // the embedding (first stage)

struct Bucket {
  uint64_t bytes = 0;
  bool expert = false;
  uint32_t ready = 0;       // the node after which its gradients are final
  std::vector<int> layers;  // stage-local layers it covers (or kHead, kEmbedding)
};

// Megatron's 1F1B order for stage s of pp over m micro-batches: pp-1-s warm-up forwards, then
// one forward and one backward, then the remaining backwards. ~i is micro-batch i's backward.
std::vector<int> one_f_one_b(int s, int pp, int m) {
  std::vector<int> order;
  int f = 0, b = 0;
  for (; f < std::min(m, pp - 1 - s); ++f) order.push_back(f);
  while (b < m) {
    if (f < m) order.push_back(f++);
    order.push_back(~b++);
  }
  return order;
}

class Builder {
 public:
  Builder(const TransformerSpec& spec, const CatalogGraphOptions& o, Graph& g)
      : s_(spec), o_(o), p_(o.parallel), g_(g), c_(costs_of(spec, o)) {
    m_ = p_.global_batch / (p_.dp * p_.micro_batch);
    layers_ = s_.layers / p_.pp;
  }

  int rank(int d, int s, int t) const { return (d * p_.pp + s) * p_.tp + t; }

  void build_rank(int d, int s, int t) {
    rg_ = &g_.ranks[rank(d, s, t)];
    id_ = 1;
    d_ = d, s_stage_ = s, t_ = t;
    dp_chain_.reset();
    std::vector<int> tp_members, dp_members, ep_members, edp_members;
    for (int x = 0; x < p_.tp; ++x) tp_members.push_back(rank(d, s, x));
    for (int x = 0; x < p_.dp; ++x) dp_members.push_back(rank(x, s, t));
    const int ep_base = d / o_.ep * o_.ep;  // EP groups are runs of ep consecutive replicas
    for (int j = 0; j < o_.ep; ++j) ep_members.push_back(rank(ep_base + j, s, t));
    for (int x = d % o_.ep; x < p_.dp; x += o_.ep) edp_members.push_back(rank(x, s, t));
    tp_group_ = group(tp_members);
    dp_group_ = group(dp_members);
    ep_group_ = group(ep_members);
    edp_group_ = group(edp_members);

    std::vector<Bucket> buckets = plan_buckets();
    // Distributed optimizer with overlap: this iteration's parameters are gathered bucket by
    // bucket as the forward pass reaches them (the previous step's all-gather, Megatron's
    // overlap_param_gather). Issued in forward order: the last bucket formed is the first needed.
    std::vector<std::vector<uint32_t>> gather_of(layers_ + 2);  // by slot(layer)
    if (p_.dp > 1 && o_.distributed_optimizer && o_.overlap)
      for (size_t i = buckets.size(); i-- > 0;) {
        const uint32_t ag = dp_collective(CommOp::kAllGather, buckets[i], {}, "param all-gather");
        for (int l : buckets[i].layers) gather_of[slot(l)].push_back(ag);
      }

    uint32_t tail = 0;
    bool any = false;
    std::vector<uint32_t> layer_done(layers_, 0);  // last micro-batch's backward of each layer
    uint32_t head_done = 0;
    for (int op : one_f_one_b(s, p_.pp, m_)) {
      std::vector<uint32_t> deps;
      if (any) deps.push_back(tail);
      if (op >= 0)
        tail = forward(op, deps, gather_of);
      else
        tail = backward(~op, deps, layer_done, head_done);
      any = true;
    }
    // Buckets are final when the last layer added to them (the one backward reached last) has
    // had its last micro-batch's backward; the embedding's when the stage's backward ends.
    for (Bucket& b : buckets) {
      b.ready = tail;
      if (!o_.overlap) continue;
      const int l = b.layers.back();
      if (l >= 0) b.ready = layer_done[l];
      if (l == kHead) b.ready = head_done;
    }
    finish_step(buckets, tail);
  }

 private:
  int group(const std::vector<int>& members) {
    auto [it, added] = group_ids_.emplace(members, static_cast<int>(g_.groups.size()));
    if (added) g_.groups.push_back(members);
    return it->second;
  }

  uint32_t add(Node n, const std::string& name, const std::vector<uint32_t>& data,
               const std::vector<uint32_t>& ctrl = {}) {
    n.id = id_++;
    n.name = g_.intern(name);
    return rg_->add(n, data, ctrl);
  }

  uint32_t compute(double flops, double bytes, const std::string& name,
                   const std::vector<uint32_t>& deps) {
    Node n;
    n.kind = NodeKind::kCompute;
    n.flops = flops;
    n.mem_bytes = bytes;
    return add(n, name, deps);
  }

  uint32_t collective(CommOp op, CommKind kind, uint8_t stream, uint64_t bytes, int grp,
                      const std::string& name, const std::vector<uint32_t>& deps,
                      const std::vector<uint32_t>& ctrl = {}) {
    Node n;
    n.kind = NodeKind::kCollective;
    n.op = op;
    n.comm = kind;
    n.stream = stream;
    n.bytes = bytes;
    n.group_or_peer = grp;
    return add(n, name, deps, ctrl);
  }

  uint32_t p2p(NodeKind kind, uint8_t stream, int peer, int tag, const std::string& name,
               const std::vector<uint32_t>& deps) {
    Node n;
    n.kind = kind;
    n.comm = CommKind::kPp;
    n.stream = stream;
    n.bytes = c_.pp_bytes;
    n.group_or_peer = peer;
    n.tag = tag;
    return add(n, name, deps);
  }

  // DP collectives run in program order (a control chain), so every member of every group sees
  // the same order and dense and expert buckets on one stream cannot deadlock.
  uint32_t dp_collective(CommOp op, const Bucket& b, std::vector<uint32_t> deps,
                         const std::string& what) {
    std::vector<uint32_t> ctrl;
    if (dp_chain_) ctrl.push_back(*dp_chain_);
    const int grp = b.expert ? edp_group_ : dp_group_;
    const uint32_t v =
        collective(op, CommKind::kDp, kDpStream, b.bytes, grp,
                   what + (b.expert ? " experts" : "") + " " + bucket_name(b), deps, ctrl);
    dp_chain_ = v;
    return v;
  }

  std::string bucket_name(const Bucket& b) const {
    auto layer = [&](int l) {
      if (l >= 0) return "L" + std::to_string(s_stage_ * layers_ + l);
      return std::string(l == kEmbedding ? "embedding" : "head");
    };
    std::string n = layer(b.layers.front());
    if (b.layers.size() > 1) n += "-" + layer(b.layers.back());
    return n;
  }

  int slot(int layer) const {
    return layer >= 0 ? layer + 1 : (layer == kEmbedding ? 0 : layers_ + 1);
  }
  bool is_last() const { return s_stage_ == p_.pp - 1; }
  bool tp() const { return p_.tp > 1; }
  bool ep() const { return s_.moe() && o_.ep > 1; }

  // Gradient buckets in backward order (PyTorch DDP: parameters in reverse, a bucket closes at
  // bucket_bytes; a layer larger than a bucket fills several). Dense and expert gradients are
  // reduced over different groups, so they fill separate buckets.
  std::vector<Bucket> plan_buckets() const {
    std::vector<Bucket> out;
    if (p_.dp == 1) return out;
    Bucket open[2];
    open[1].expert = true;
    const int edp = p_.dp / o_.ep;
    auto add_bytes = [&](int which, uint64_t bytes, int layer) {
      if (bytes == 0 || (which == 1 && edp == 1)) return;
      Bucket& b = open[which];
      while (bytes > 0) {
        const uint64_t take = std::min(bytes, o_.bucket_bytes - b.bytes);
        b.bytes += take;
        bytes -= take;
        if (b.layers.empty() || b.layers.back() != layer) b.layers.push_back(layer);
        if (b.bytes == o_.bucket_bytes) {
          out.push_back(b);
          b.bytes = 0;
          b.layers.clear();
        }
      }
    };
    if (is_last()) add_bytes(0, c_.last_stage_grad, kHead);
    const int expert_bucket = s_.moe() ? 1 : 0;  // a dense MLP's gradients are dense
    for (int l = layers_ - 1; l >= 0; --l) {
      add_bytes(expert_bucket, c_.layer_expert_grad, l);
      add_bytes(0, c_.layer_dense_grad, l);
    }
    if (s_stage_ == 0) add_bytes(0, c_.first_stage_grad, kEmbedding);
    for (Bucket& b : open)
      if (b.bytes > 0) out.push_back(b);
    return out;
  }

  uint32_t forward(int mb, std::vector<uint32_t> deps,
                   const std::vector<std::vector<uint32_t>>& gather_of) {
    const std::string tag = " mb" + std::to_string(mb);
    if (s_stage_ > 0)
      deps.push_back(p2p(NodeKind::kRecv, kPpRecvForward, rank(d_, s_stage_ - 1, t_), mb,
                         "recv act" + tag, {}));
    if (mb == 0)
      for (uint32_t ag : gather_of[slot(kEmbedding)]) deps.push_back(ag);
    uint32_t v = 0;
    for (int l = 0; l < layers_; ++l) {
      const std::string ln = " L" + std::to_string(s_stage_ * layers_ + l) + tag;
      if (mb == 0)
        for (uint32_t ag : gather_of[slot(l)]) deps.push_back(ag);
      v = compute(c_.attn_flops, c_.attn_bytes, "fwd attn" + ln, deps);
      if (tp())
        v = collective(CommOp::kAllReduce, CommKind::kTp, kTpStream, c_.tp_bytes, tp_group_,
                       "TP all-reduce attn" + ln, {v});
      v = mlp({v}, false, ln);
      if (tp())
        v = collective(CommOp::kAllReduce, CommKind::kTp, kTpStream, c_.tp_bytes, tp_group_,
                       "TP all-reduce mlp" + ln, {v});
      deps = {v};
    }
    if (is_last()) {
      if (mb == 0)
        for (uint32_t ag : gather_of[slot(kHead)]) deps.push_back(ag);
      v = compute(c_.head_flops, c_.head_bytes, "fwd head" + tag, deps);
    }
    if (!is_last())
      p2p(NodeKind::kSend, kPpSendForward, rank(d_, s_stage_ + 1, t_), mb, "send act" + tag, {v});
    return v;
  }

  // The MLP part of a block: dense, or MoE dispatch all-to-all, experts, combine all-to-all.
  // Backward mirrors it (the combine's gradient first) at twice the FLOPs.
  uint32_t mlp(std::vector<uint32_t> deps, bool backward, const std::string& ln) {
    const std::string first = backward ? "combine" : "dispatch";
    const std::string second = backward ? "dispatch" : "combine";
    const std::string dir = backward ? "bwd" : "fwd";
    if (ep())
      deps = {collective(CommOp::kAllToAll, CommKind::kEp, kEpStream, c_.a2a_bytes, ep_group_,
                         dir + " EP all-to-all " + first + ln, deps)};
    const double scale = backward ? 2 : 1;
    uint32_t v = compute(c_.mlp_flops * scale, c_.mlp_bytes * scale,
                         dir + (s_.moe() ? " experts" : " mlp") + ln, deps);
    if (ep())
      v = collective(CommOp::kAllToAll, CommKind::kEp, kEpStream, c_.a2a_bytes, ep_group_,
                     dir + " EP all-to-all " + second + ln, {v});
    return v;
  }

  uint32_t backward(int mb, std::vector<uint32_t> deps, std::vector<uint32_t>& layer_done,
                    uint32_t& head_done) {
    const std::string tag = " mb" + std::to_string(mb);
    const bool last_mb = mb == m_ - 1;
    if (!is_last())
      deps.push_back(p2p(NodeKind::kRecv, kPpRecvBackward, rank(d_, s_stage_ + 1, t_), m_ + mb,
                         "recv grad" + tag, {}));
    uint32_t v = 0;
    if (is_last()) {
      v = compute(2 * c_.head_flops, 2 * c_.head_bytes, "bwd head" + tag, deps);
      if (last_mb) head_done = v;
      deps = {v};
    }
    for (int l = layers_ - 1; l >= 0; --l) {
      const std::string ln = " L" + std::to_string(s_stage_ * layers_ + l) + tag;
      v = mlp(deps, true, ln);
      if (tp())
        v = collective(CommOp::kAllReduce, CommKind::kTp, kTpStream, c_.tp_bytes, tp_group_,
                       "TP all-reduce bwd mlp" + ln, {v});
      v = compute(2 * c_.attn_flops, 2 * c_.attn_bytes, "bwd attn" + ln, {v});
      if (last_mb) layer_done[l] = v;
      if (tp())
        v = collective(CommOp::kAllReduce, CommKind::kTp, kTpStream, c_.tp_bytes, tp_group_,
                       "TP all-reduce bwd attn" + ln, {v});
      deps = {v};
    }
    if (s_stage_ > 0)
      p2p(NodeKind::kSend, kPpSendBackward, rank(d_, s_stage_ - 1, t_), m_ + mb, "send grad" + tag,
          {v});
    return v;
  }

  // The DP step after the backward: per bucket a reduce-scatter (distributed optimizer) or an
  // all-reduce, then the optimizer (Adam: FP32 master weights, two moments and the gradient read
  // and written, 28 bytes per parameter it owns), then, without overlap, the all-gathers.
  void finish_step(const std::vector<Bucket>& buckets, uint32_t tail) {
    const bool zero = o_.distributed_optimizer;
    std::vector<uint32_t> before_step{tail};
    for (const Bucket& b : buckets) {
      const CommOp op = zero ? CommOp::kReduceScatter : CommOp::kAllReduce;
      before_step.push_back(
          dp_collective(op, b, {b.ready}, zero ? "grad reduce-scatter" : "grad all-reduce"));
    }
    const uint32_t step = compute(0, 28 * owned_params(), "optimizer", before_step);
    if (zero && !o_.overlap)
      for (size_t i = buckets.size(); i-- > 0;)
        dp_collective(CommOp::kAllGather, buckets[i], {step}, "param all-gather");
  }

  // Parameters this rank updates: what it holds, sharded over its DP group by the distributed
  // optimizer (experts over the expert-DP group).
  double owned_params() const {
    double dense = layers_ * static_cast<double>(c_.layer_dense_grad);
    double expert = layers_ * static_cast<double>(c_.layer_expert_grad);
    if (s_stage_ == 0) dense += static_cast<double>(c_.first_stage_grad);
    if (is_last()) dense += static_cast<double>(c_.last_stage_grad);
    if (!s_.moe()) dense += expert, expert = 0;
    if (o_.distributed_optimizer) dense /= p_.dp, expert /= p_.dp / o_.ep;
    return (dense + expert) / o_.grad_bytes;
  }

  const TransformerSpec& s_;
  const CatalogGraphOptions& o_;
  const Parallelism& p_;
  Graph& g_;
  Costs c_;
  int m_ = 0, layers_ = 0;
  std::map<std::vector<int>, int> group_ids_;
  RankGraph* rg_ = nullptr;
  uint64_t id_ = 1;
  int d_ = 0, s_stage_ = 0, t_ = 0;
  int tp_group_ = 0, dp_group_ = 0, ep_group_ = 0, edp_group_ = 0;
  std::optional<uint32_t> dp_chain_;
};

// An upper estimate of one rank's nodes (8 per block and micro-batch, 12 with all-to-alls, the
// pipeline's sends and recvs, two collectives per bucket of the largest stage) times the ranks.
double node_estimate(const TransformerSpec& spec, const CatalogGraphOptions& o) {
  const Parallelism& p = o.parallel;
  const Costs c = costs_of(spec, o);
  const double m = static_cast<double>(p.global_batch) / (p.dp * p.micro_batch);
  const double layers = static_cast<double>(spec.layers) / p.pp;
  const double grad = layers * static_cast<double>(c.layer_dense_grad + c.layer_expert_grad) +
                      static_cast<double>(c.first_stage_grad + c.last_stage_grad);
  const double per_rank = m * (layers * (o.ep > 1 ? 12 : 8) + 4) +
                          2 * (grad / static_cast<double>(o.bucket_bytes) + 4) + 1;
  return per_rank * p.gpus();
}

void check_options(const TransformerSpec& spec, const CatalogGraphOptions& o) {
  plan_iteration(spec, o.parallel);  // throws for a split that does not divide
  if (o.ep < 1 || o.parallel.dp % o.ep != 0)
    throw bad_input("ep=" + std::to_string(o.ep) +
                    " must divide dp=" + std::to_string(o.parallel.dp));
  if (o.ep > 1 && (!spec.moe() || spec.experts % o.ep != 0))
    throw bad_input(spec.name + ": ep=" + std::to_string(o.ep) +
                    (spec.moe() ? " does not divide " + std::to_string(spec.experts) + " experts"
                                : " needs a mixture-of-experts model"));
  if (o.grad_bytes != 2 && o.grad_bytes != 4)
    throw bad_input("gradient bytes must be 2 (BF16) or 4 (FP32)");
  if (o.bucket_bytes < 1024) throw bad_input("bucket size must be >= 1 KiB");
  // Bounded before anything is allocated (a node is ~64 bytes, plus the scheduler's state).
  const double nodes = node_estimate(spec, o);
  if (nodes > static_cast<double>(kMaxCatalogGraphNodes))
    throw bad_input(spec.name + ": the graph would have about " +
                    std::to_string(static_cast<int64_t>(nodes)) + " nodes, over the cap of " +
                    std::to_string(kMaxCatalogGraphNodes) +
                    "; use larger DP buckets, a smaller global batch or fewer GPUs");
}

}  // namespace

Graph catalog_graph(const TransformerSpec& spec, const CatalogGraphOptions& o) {
  check_options(spec, o);
  Graph g;
  const Parallelism& p = o.parallel;
  g.name = spec.display;
  g.ranks.resize(static_cast<size_t>(p.gpus()));
  Builder b(spec, o, g);
  for (int d = 0; d < p.dp; ++d)
    for (int s = 0; s < p.pp; ++s)
      for (int t = 0; t < p.tp; ++t) b.build_rank(d, s, t);
  return g;
}

double catalog_graph_node_estimate(const TransformerSpec& spec, const CatalogGraphOptions& o) {
  check_options(spec, o);
  return node_estimate(spec, o);
}

double catalog_graph_flops(const TransformerSpec& spec, const CatalogGraphOptions& o) {
  return training_flops_per_token(spec) * o.parallel.global_batch * static_cast<double>(spec.seq);
}

}  // namespace commlab::workload
