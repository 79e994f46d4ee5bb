#pragma once
// Scenario files: a base configuration, named runs that merge-patch it, and grid sweeps; parsed and
// validated into one RunConfig per run and sweep point. docs/scenario.md is the reference.
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "network/traffic_patterns.h"
#include "scenario/config_problem.h"
#include "scenario/run_config.h"

namespace commlab {

// Where a run came from when it continued another run's training (the GUI's live forks): the
// run it forked from, by name (a run of the file, or one the GUI replaced and did not keep), and
// the iteration it forked at. Provenance only: `commlab-cli run` trains the run from iteration 1
// (run --fork-at K forks every run from the baseline).
struct ForkedFrom {
  std::string run;
  int iteration = 0;  // 0: not a fork
};

struct Experiment {
  std::string name, description;
  std::vector<RunConfig> runs;
  // runs[i]'s "forked_from" (iteration 0 when it has none); one per run, sweeps expanded.
  std::vector<ForkedFrom> forked_from;
  // runs[i]'s "color": the index of its colour in the GUI's run palette, which Save writes so a
  // run keeps its colour across sessions (-1: none given; the GUI then picks one). One per run,
  // sweeps expanded: every point of a run carries the run's.
  std::vector<int> colors;
  // The scenario as run: the base with every default filled, and every run (sweeps expanded) as a
  // merge patch of the base. parse_scenario(resolved) gives the same runs.
  nlohmann::json resolved;
};

// Every problem of a scenario file as a value: each a ConfigProblem whose field is the JSON path
// in the file ("" for the file as a whole). lines() is what users read, one line per problem:
// "FILE:JSON.PATH: message", or "FILE: message" for the file as a whole. A file that cannot be
// read or parsed as JSON has `file` "" and one problem whose message names its own place
// ("FILE:LINE:COL: invalid JSON: ..."). what() is the lines joined by newlines.
struct ScenarioError : std::invalid_argument {
  ScenarioError(std::string file, ConfigProblems problems);
  std::string file;
  ConfigProblems problems;
  std::vector<std::string> lines() const;
};

// Reads the file (at most kMaxScenarioBytes), parses it, applies the --set overrides ("PATH=VALUE",
// VALUE as JSON when it parses, else as a string) and validates. Throws ScenarioError.
Experiment load_scenario(const std::string& path, const std::vector<std::string>& sets = {});

// Parses text already read; `file_label` starts every message and names relative cluster files.
Experiment parse_scenario_text(const std::string& text, const std::string& file_label,
                               const std::vector<std::string>& sets = {});

// Validates and expands a parsed document. Throws ScenarioError.
Experiment parse_scenario(const nlohmann::json& doc, const std::string& file_label,
                          const std::vector<std::string>& sets = {});

// Cross-field checks of one resolved run (skip needs ring, queue trimming needs the packet backend,
// batch divisible by ranks, cluster GPUs == training.ranks, ...), each with the JSON path of the
// field it concerns (text() is "JSON.PATH: message"). Exposed for the runner and the GUI, which
// may edit RunConfigs directly.
ConfigProblems check_run_config(const RunConfig& config);

// What a trimmed packet must keep so every coordinate keeps its whole head: the packet
// header (64 B) plus the trim header and techniques.trimming.head_bits bit-planes of a full packet
// (packet.mtu of payload) of the run's encoding and collective.wire; e.g. 1-bit EDEN, FP32, MTU
// 4096: 983 coordinates, 64 + 36 + 128 = 228 B. 0 when trimming is off or the packet is unusable.
uint32_t head_trim_bytes(const RunConfig& config);
// packet.trim_bytes as run: the field when set; 0 (auto, the default) gives head_trim_bytes when
// trimming is on, else kDefaultTrimBytes (the packet backend's SAI default, a 64 B header).
inline constexpr uint32_t kDefaultTrimBytes = 128;
uint32_t effective_trim_bytes(const RunConfig& config);

// The background traffic of packet.background at packet.background_load (network/
// traffic_patterns.h): perm, incast:K, alltoall or onoff, the on-off senders' load being
// background_load too (an "onoff:LOAD" would say it twice and is refused). Throws
// std::invalid_argument for a pattern the packet backend cannot run; the scenario checks call it,
// so a bad pattern is refused by validate, not minutes into a run.
TrafficSpec background_traffic(const PacketSection& packet);
// Queue-mode multi-level trimming: the wire size of each techniques.trimming.levels entry, packet
// header included (the 64 B header + trim header + levels[i] head planes of a full packet); what
// the switch cuts a packet to at each level (PacketConfig::trim_level_bytes). Empty when trimming
// is off, not in queue mode, without levels, or the packet is unusable.
std::vector<uint32_t> trim_level_bytes(const RunConfig& config);
// SkipReduce's s for a trained run: techniques.skipreduce.skip, else round(ratio * training.ranks).
int skipreduce_skip(const RunConfig& config);
// The learning-rate factor of techniques.skipreduce.lr_compensation: N / (N - s) when it is set and
// 0 < s < N, else 1. A ring chunk reduced with s skipped steps sums N - s contributions and is
// divided by N, so plain SkipReduce scales the gradient by (N - s) / N; for SGD (momentum, no
// weight decay) multiplying the learning rate by N / (N - s) gives the same update as `unbiased`.
double skipreduce_lr_factor(const RunConfig& config);

}  // namespace commlab
