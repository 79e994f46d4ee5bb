#include "views/teaching_model.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <span>
#include <sstream>
#include <stdexcept>

#include "collective/algorithms.h"
#include "collective/codec_wire.h"
#include "collective/simulated_executor.h"
#include "collective/skip.h"
#include "io/status.h"
#include "views/view_settings.h"

namespace commlab::views {

namespace {

// Divisible by every rank count 2..8, so ring chunks are equal and the picture is regular.
constexpr uint64_t kTeachingCount = 840;

std::string chunk_label(const TeachingTrace& trace, const Transfer& t) {
  auto [first, last] = trace.cells_of(t);
  if (first == last) return "chunk " + std::to_string(first);
  return "chunks " + std::to_string(first) + "-" + std::to_string(last);
}

std::string ranks_label(uint32_t mask) {
  std::string out;
  for (int r = 0; r < 32; ++r)
    if (mask & (1u << r)) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

}  // namespace

std::pair<int, int> TeachingTrace::cells_of(const Transfer& t) const {
  auto first = std::upper_bound(cell_begin.begin(), cell_begin.end(), t.offset) - 1;
  auto last = std::lower_bound(cell_begin.begin(), cell_begin.end(), t.offset + t.count) - 1;
  return {static_cast<int>(first - cell_begin.begin()),
          static_cast<int>(last - cell_begin.begin())};
}

TeachingTrace compute_teaching_trace(const TeachingSettings& s) {
  if (StatusOr<TeachingSettings> checked = check_teaching(s); !checked)
    throw StatusError(checked.status());
  SkipConfig skip_config;
  skip_config.skip = s.skip;
  skip_config.policy = parse_skip_policy(s.policy);
  skip_config.seed = s.seed;
  skip_config.min_elements = 0;  // the teaching buffer is tiny; selective would never skip
  const Algorithm& algorithm = find_algorithm(s.algorithm);
  PlanRequest request;
  request.ranks = s.ranks;
  request.count = kTeachingCount;
  request.ranks_per_node = algorithm.whole_nodes ? s.ranks_per_node : 1;
  request.skip = decide_skip(skip_config, s.ranks, 0, "teaching", kTeachingCount, s.iteration);
  const Plan plan = build_plan(s.algorithm, request);

  TeachingTrace trace;
  trace.settings = s;
  trace.ranks = s.ranks;
  trace.count = plan.count;
  trace.rotation = request.skip.rotation;
  trace.skipped_steps = algorithm.skips() ? request.skip.skip : 0;

  // Display cells: every chunk boundary and every transfer edge, so each cell is uniform.
  std::vector<uint64_t> edges(plan.chunk_begin.begin(), plan.chunk_begin.end());
  edges.push_back(0);
  edges.push_back(plan.count);
  for (const PlanStep& step : plan.steps)
    for (const Transfer& t : step.transfers) {
      edges.push_back(t.offset);
      edges.push_back(t.offset + t.count);
    }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  trace.cell_begin = edges;

  trace.dropped_mask.assign(trace.cells(), 0);
  for (const DroppedContribution& d : plan.dropped)
    for (int c = 0; c < trace.cells(); ++c)
      if (trace.cell_begin[c] >= plan.chunk_begin[d.chunk] &&
          trace.cell_begin[c] < plan.chunk_begin[d.chunk + 1])
        trace.dropped_mask[c] |= 1u << d.rank;

  std::vector<std::vector<float>> data(s.ranks), trimmed(s.ranks);
  std::vector<std::span<float>> spans, trimmed_spans;
  for (int r = 0; r < s.ranks; ++r) {
    data[r].assign(plan.count, static_cast<float>(1u << r));
    trimmed[r] = data[r];
    spans.emplace_back(data[r]);
    trimmed_spans.emplace_back(trimmed[r]);
  }
  std::unique_ptr<TrimWire> wire;
  if (s.trim_rate > 0) {
    trim::TrimConfig tc;
    tc.encoding = trim::TrimEncoding::kEden;
    tc.head_bits = 1;
    tc.wire = DType::kFp32;
    tc.seed = s.seed;
    tc.coords_per_packet = kTeachingPacketValues;
    wire = std::make_unique<TrimWire>(tc, s.trim_rate, s.seed);
  }
  auto snapshot = [&] {
    TeachingFrame f;
    f.masks.assign(s.ranks, std::vector<uint32_t>(trace.cells()));
    for (int r = 0; r < s.ranks; ++r)
      for (int c = 0; c < trace.cells(); ++c)
        f.masks[r][c] = static_cast<uint32_t>(data[r][trace.cell_begin[c]]);
    if (!wire) return f;
    f.error.assign(s.ranks, std::vector<float>(trace.cells(), 0.0f));
    for (int r = 0; r < s.ranks; ++r)
      for (int c = 0; c < trace.cells(); ++c)
        for (uint64_t i = trace.cell_begin[c]; i < trace.cell_begin[c + 1]; ++i)
          f.error[r][c] =
              std::max(f.error[r][c], std::abs(trimmed[r][i] - data[r][i]) / std::abs(data[r][i]));
    return f;
  };
  trace.frames.push_back(snapshot());
  // One single-step plan per step through the real executor (data plane only): the exact buffers,
  // and with trimming the second copy through the trimmable-packet codec.
  for (const PlanStep& step : plan.steps) {
    Plan one;
    one.op = plan.op;
    one.ranks = plan.ranks;
    one.count = plan.count;
    one.steps = {step};
    execute_plan(one, spans, ExecutorOptions{});
    TrimWireStats stats;
    if (wire) {
      ExecutorOptions with_trim;
      with_trim.codec = wire.get();
      execute_plan(one, trimmed_spans, with_trim);
      stats = wire->take_stats();
    }
    TeachingFrame f = snapshot();
    f.phase = step.phase;
    f.transfers = step.transfers;
    f.packets = stats.packets;
    f.trimmed = stats.trimmed;
    trace.frames.push_back(std::move(f));
  }
  for (int f = 0; f < static_cast<int>(trace.frames.size()); ++f)
    trace.frames[f].caption = teaching_caption(trace, f);
  return trace;
}

std::string teaching_caption(const TeachingTrace& trace, int frame) {
  std::ostringstream out;
  const auto& s = trace.settings;
  const int n = trace.ranks;
  if (frame == 0) {
    out << s.algorithm << " all-reduce on " << n << " ranks, " << trace.steps()
        << " steps. Start: each rank holds only its own gradient (its colour) in every chunk.";
    if (trace.skipped_steps > 0)
      out << " SkipReduce s=" << trace.skipped_steps << " removes " << trace.skipped_steps << " of "
          << n - 1 << " reduce-scatter steps, so every chunk will miss " << trace.skipped_steps
          << (trace.skipped_steps == 1 ? " rank." : " ranks.");
    if (s.trim_rate > 0)
      out << " Trimming: every transfer is cut into packets of " << kTeachingPacketValues
          << " values and " << s.trim_rate * 100
          << "% of them arrive trimmed to a 1-bit EDEN head (the switch cut the rest).";
    return out.str();
  }
  const TeachingFrame& f = trace.frames[frame];
  out << "step " << frame << "/" << trace.steps() << " " << f.phase << ": ";
  if (!f.transfers.empty()) {
    const Transfer& t = f.transfers.front();
    out << "rank " << t.src << " sends " << chunk_label(trace, t) << " to rank " << t.dst
        << (t.reduce ? ", which adds it" : ", which stores it");
    if (f.transfers.size() > 1) {
      out << " (likewise";
      const size_t shown = std::min<size_t>(f.transfers.size(), 5);
      for (size_t i = 1; i < shown; ++i) {
        const Transfer& u = f.transfers[i];
        out << (i > 1 ? "," : "") << " " << u.src << "\u2192" << u.dst << " "
            << chunk_label(trace, u) << (u.reduce == t.reduce ? "" : (u.reduce ? " +" : " copy"));
      }
      if (f.transfers.size() > shown) out << ", +" << f.transfers.size() - shown << " more";
      out << ")";
    }
    out << ".";
  }
  if (f.packets > 0 && trace.settings.trim_rate > 0) {
    out << " " << f.trimmed << " of " << f.packets
        << " packets arrived trimmed to their 1-bit EDEN head";
    if (f.trimmed > 0) out << ": the cells they fed are approximate (magenta cross-hatch)";
    out << ".";
  }
  if (frame == trace.steps()) {
    const uint32_t all = (1u << n) - 1;
    std::string misses;
    for (int c = 0; c < trace.cells(); ++c) {
      uint32_t missing = 0;
      for (const auto& rank : f.masks) missing |= all & ~rank[c];
      if (missing)
        misses += (misses.empty() ? "" : "; ") + std::string("chunk ") + std::to_string(c) +
                  " lacks rank " + ranks_label(missing);
    }
    float worst = 0;
    for (const auto& rank : f.error)
      for (float e : rank) worst = std::max(worst, e);
    if (misses.empty() && worst > 0)
      out << " Done: every rank holds all " << n
          << " contributions, approximately (largest relative error " << worst << ").";
    else if (misses.empty())
      out << " Done: every rank holds the sum of all " << n << " contributions.";
    else
      out << " Done, but SkipReduce dropped contributions: " << misses << ".";
  }
  return out.str();
}

}  // namespace commlab::views
