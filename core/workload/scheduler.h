#pragma once
// The graph engine's loop (SimGrid's activity model): take the next finished activity, release
// its dependants, start what is ready on free streams. Compute nodes take their duration (or the
// roofline of their FLOPs and bytes); a collective starts when every member of its group has
// reached it on a free stream (rendezvous, matched per group in issue order) and is planned by
// the collective planners and timed on the network backend; a send's data is one flow that starts
// when the send is posted (eager, the default; rendezvous: when its recv, matched by source,
// destination and tag in issue order, is posted too). Communication that
// starts at the same instant is timed together, so it shares links (max-min on the analytical
// backend, real queues on the packet backend); docs/workload.md states every modelling choice.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "collective/plan.h"
#include "collective/skip.h"
#include "network/backend.h"
#include "train/compute_model.h"
#include "workload/graph.h"

namespace commlab::workload {

// The three techniques as they act on communication nodes, per kind (CommKind).
// A network codec and SkipReduce. Ratios and codec time apply to traffic that leaves a server: a
// group or a send whose ranks all sit in one server (TP on NVLink) moves its payload as it is.
struct CommTechniques {
  std::array<double, kCommKinds> ratio{1, 1, 1, 1, 1};  // wire bytes / payload bytes (a codec)
  // Codec time charged per collective or send: payload / encode + payload / decode (seconds per
  // byte, 0 = free), per kind, added to the node's network time.
  std::array<double, kCommKinds> codec_s_per_byte{0, 0, 0, 0, 0};
  SkipConfig dp_skip;  // SkipReduce on DP reduce-scatters (and the reduce-scatter of all-reduce)
};

// Point-to-point semantics. Eager (ASTRA-sim's default, NCCL's for small messages): a send
// completes when its data has arrived, whether or not the receive is posted, and the receive
// completes at max(its post, the arrival). Rendezvous: the send and its receive start together
// when both are posted and end together.
enum class P2pMode : uint8_t { kEager, kRendezvous };
const char* p2p_mode_name(P2pMode mode);          // "eager", "rendezvous"
P2pMode parse_p2p_mode(const std::string& name);  // the inverse; throws std::invalid_argument

// How a rank issues communication (docs/workload.md "The graph engine"). overlap, CommLab's: each
// stream runs its own node, so communication on different streams is in flight together (a TP
// all-reduce beside a DP bucket). astra, ASTRA-sim's (HardwareResource at commit 518bd51): a rank
// runs one compute node at a time (stream 0) and one collective or send at a time (stream 1, its
// communication slot), the smallest node id first among those ready; a receive holds neither.
// The streams a graph names are then not used.
enum class CommIssue : uint8_t { kOverlap, kAstra };
const char* comm_issue_name(CommIssue issue);         // "overlap", "astra"
CommIssue parse_comm_issue(const std::string& name);  // the inverse; throws std::invalid_argument

struct SchedulerOptions {
  std::string algorithm = "ring";  // collective planner (collective/algorithms.h)
  PipelineConfig pipeline;         // NCCL slicing of ring steps in the time plane
  ComputeModel compute;            // for compute nodes given as FLOPs and bytes
  CommTechniques techniques;
  uint64_t iteration = 0;              // for SkipReduce's random rotation
  std::vector<int> timeline_ranks{0};  // ranks whose per-node timeline is recorded (-1: all)
  bool want_critical_path = true;
  P2pMode p2p = P2pMode::kEager;
  CommIssue comm_issue = CommIssue::kOverlap;
};

struct TimelineEntry {
  uint32_t node = 0;  // position in the rank's node list
  uint8_t stream = 0;
  double ready_s = 0;  // dependencies done and stream free (collectives: reached the rendezvous)
  double start_s = 0;  // work began (collectives: every member arrived)
  double end_s = 0;
};

struct CriticalStep {
  int rank = 0;
  uint32_t node = 0;
  double start_s = 0;
  double end_s = 0;
};

struct StreamBusy {
  double busy_s = 0;  // executing (collectives: from the rendezvous to the end)
  double wait_s = 0;  // held by a collective or send/recv waiting for its peers
};

struct ScheduleResult {
  double iteration_s = 0;  // the last node's end
  uint64_t nodes = 0;
  uint64_t collectives = 0;  // collective instances (one per group call, not per rank)
  uint64_t p2p = 0;          // point-to-point messages (matched pairs under rendezvous)
  // Eager sends no recv ever matched: their data left and was timed, but nothing received it (a
  // trace cut short, or a missing recv). Under rendezvous such a send deadlocks instead.
  uint64_t unreceived_sends = 0;
  // Critical path, first to last node; exposed time per kind is the communication time on it.
  std::vector<CriticalStep> critical_path;
  double critical_compute_s = 0;
  std::array<double, kCommKinds> exposed_s{};  // per CommKind, on the critical path
  double critical_idle_s = 0;                  // gaps on the path (nothing of it running)
  // Per rank, per stream (streams used by the graph).
  std::vector<std::vector<StreamBusy>> stream_busy;
  // Per recorded rank (SchedulerOptions::timeline_ranks), every node's times.
  std::vector<int> timeline_ranks;
  std::vector<std::vector<TimelineEntry>> timelines;
  // Timing totals summed over instances (not exposed): seconds per kind.
  std::array<double, kCommKinds> comm_total_s{};
  // The part of comm_total_s that is codec time (TechniqueOptions::codec_s_per_byte x bytes).
  std::array<double, kCommKinds> codec_total_s{};
  uint64_t bytes_on_wire = 0;
  double wall_s = 0;  // the scheduler's own run time
};

// Throws std::invalid_argument when the graph does not fit the backend's topology (more ranks
// than GPUs), when collectives do not match across a group (different op or bytes at the same
// position, naming both ranks and nodes), or when the graph deadlocks (a rank waits forever: names
// the waiting nodes; under rendezvous, says that eager sends would not wait).
ScheduleResult schedule(const Graph& graph, NetworkBackend& backend,
                        const SchedulerOptions& options = {});

}  // namespace commlab::workload
