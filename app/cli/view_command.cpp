// commlab-cli view PAGE: what a GUI page draws, as one JSON document (docs/cli.md, "view"). The
// pictures are the ones the pages draw, computed by core/views without Qt; every flag mirrors a
// control of the page and defaults to what the page shows when the app opens.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.h"
#include "cli/util/collective_options.h"
#include "cli/util/experiment_files_util.h"
#include "cli/util/network_util.h"
#include "cli/util/size_flag_util.h"
#include "collective/algorithms.h"
#include "io/staged_files.h"
#include "scenario/config_enums.h"
#include "scenario/scenario.h"
#include "views/views_json.h"
#include "workload/catalog/catalog_graph.h"

namespace commlab::cli {
namespace view_command {
namespace {

using namespace commlab::views;

struct Options {
  std::string page;  // the subcommand given
  TopologySettings topology;
  std::string message_bytes = "64M";  // topology --bytes
  TeachingSettings teaching;
  int64_t iteration = 0, seed = 1;  // teaching
  WorkloadSettings workload;
  std::string routing = "ecmp", codec_placement = "nic";
  bool no_overlap = false;
  ThroughputSettings throughput;
  std::string min_bytes = "1K", max_bytes, slice_bytes = "512K", chunk_bytes = "2M";
  std::string out;  // empty: stdout
};

// Integer flags: CLI11's range check (NaN and infinities are refused before, in main).
template <class T>
CLI::Option* add_int(CLI::App& app, const char* flag, T& value, T lo, T hi, const char* help) {
  return app.add_option(flag, value, help)->check(CLI::Range(lo, hi))->capture_default_str();
}

CLI::App* add_page(CLI::App& app, Options& o, const char* name, const char* description) {
  CLI::App* page = app.add_subcommand(name, description);
  page->callback([&o, name] { o.page = name; });
  page->add_option("--out", o.out, "write the JSON to FILE (atomically) instead of stdout")
      ->check(kNonEmpty);
  return page;
}

void add_topology(CLI::App& app, Options& o) {
  CLI::App* p = add_page(app, o, "topology",
                         "The Topology page: boxes, links and how busy one step of an all-reduce "
                         "keeps each link");
  TopologySettings& s = o.topology;
  p->add_option("--cluster", s.spec, "cluster preset or builder spec")->capture_default_str();
  p->add_option("--algorithm", s.algorithm, "all-reduce algorithm whose step is timed")
      ->check(CLI::IsMember({"ring", "tree", "hd", "direct"}))
      ->capture_default_str();
  p->add_option("--bytes", o.message_bytes, "all-reduce message size per rank (K/M/G suffixes)")
      ->capture_default_str();
  add_int(*p, "--step", s.step, 1, 1 << 20, "step of the collective to time (clamped)");
  p->add_option("--backend", s.backend, "analytical or packet")
      ->check(CLI::IsMember({"analytical", "packet"}))
      ->capture_default_str();
  p->add_option("--admission", s.admission, "packet: a full switch port trims, drops or marks")
      ->check(CLI::IsMember({"trim", "tail-drop", "ecn"}))
      ->capture_default_str();
  add_int(*p, "--queue-packets", s.queue_packets, 0, 4096,
          "packet: data queue per switch port in full packets (0: the link's buffer)");
  p->add_option("--background", s.background,
                "packet: none, perm, incast:K, alltoall or onoff:LOAD")
      ->capture_default_str();
  add_int(*p, "--max-endpoints", s.max_endpoints, 1, 1 << 20,
          "more GPUs than this: one box per server");
  add_int(*p, "--max-servers", s.max_servers, 1, 1 << 20,
          "more servers than this: one box per leaf");
  add_int<uint64_t>(*p, "--max-links", s.max_links, 1, uint64_t{1} << 32,
                    "work budget: a cluster of more directed links is refused");
  add_int<uint64_t>(*p, "--max-transfers", s.max_transfers, 1, kMaxPlanTransfers,
                    "work budget: a collective plan of more transfers is refused");
  add_int<uint64_t>(*p, "--max-flows", s.max_flows, 1, kMaxPlanTransfers,
                    "work budget: a timed step of more flows is refused");
}

void add_teaching(CLI::App& app, Options& o) {
  CLI::App* p = add_page(app, o, "teaching",
                         "The Teaching page: an all-reduce on a few ranks, step by step, on real "
                         "buffers (which ranks' data every cell holds)");
  TeachingSettings& s = o.teaching;
  add_int(*p, "--ranks", s.ranks, 2, kTeachingMaxRanks, "ranks");
  p->add_option("--algorithm", s.algorithm, "ring, tree, hd, hier or direct")
      ->check(CLI::IsMember({"ring", "tree", "hd", "hier", "direct"}))
      ->capture_default_str();
  add_int(*p, "--ranks-per-node", s.ranks_per_node, 1, kTeachingMaxRanks,
          "hier: consecutive ranks per node");
  add_int(*p, "--skip", s.skip, 0, kTeachingMaxRanks - 1,
          "SkipReduce s (ring, tree, hd: within the algorithm's limit)");
  p->add_option("--policy", s.policy, "SkipReduce policy: naive, random or selective")
      ->check(CLI::IsMember({"naive", "random", "selective"}))
      ->capture_default_str();
  // Signed with the scenarios' seed range: an unsigned flag took -1 as 2^64 - 1.
  add_int<int64_t>(*p, "--iteration", o.iteration, 0, kMaxSeed,
                   "random policy: the iteration (rotation)");
  add_int<int64_t>(*p, "--seed", o.seed, 0, kMaxSeed, "random policy: seed");
  p->add_option("--trim-rate", s.trim_rate, "fraction of packets that arrive trimmed, in [0, 1]")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
}

void add_workload(CLI::App& app, Options& o) {
  CLI::App* p = add_page(app, o, "workload",
                         "The Workload page: a training iteration replayed by the graph engine, "
                         "as Gantt lanes per rank and stream");
  WorkloadSettings& s = o.workload;
  auto* model =
      p->add_option("--model", s.model, "catalog model (commlab-cli workload --help lists them)")
          ->capture_default_str();
  p->add_option("--trace", s.trace_prefix, "DIR/PREFIX of a Chakra trace (PREFIX.RANK.et)")
      ->check(kNonEmpty)
      ->excludes(model);
  add_int(*p, "--dp", s.dp, 1, 1024, "data-parallel replicas");
  add_int(*p, "--tp", s.tp, 1, 64, "tensor-parallel ranks");
  add_int(*p, "--pp", s.pp, 1, 64, "pipeline stages");
  add_int(*p, "--micro-batch", s.micro_batch, 1, 64, "sequences per micro-batch");
  add_int(*p, "--global-batch", s.global_batch, 1, 65536, "sequences per iteration");
  p->add_option("--gbps", s.gbps, "NIC rate of every GPU in Gb/s")
      ->check(CLI::Range(1.0, 3200.0))
      ->capture_default_str();
  add_int(*p, "--gpus-per-server", s.gpus_per_server, 1, 8, "GPUs per server (NVSwitch)");
  p->add_option("--dp-ratio", s.dp_ratio, "DP codec: wire bytes / payload bytes, in [0.05, 1]")
      ->check(CLI::Range(0.05, 1.0))
      ->capture_default_str();
  p->add_option("--codec-placement", o.codec_placement, "where the DP codec runs: nic, gpu or cpu")
      ->check(CLI::IsMember(enum_names<CodecPlacement>()))
      ->capture_default_str();
  add_int(*p, "--skip", s.skip, 0, 63, "SkipReduce s on DP reduce-scatters");
  p->add_flag("--no-overlap", o.no_overlap, "DP communication waits for the whole backward pass");
  add_int(*p, "--max-ranks", s.max_ranks, 1, 32, "ranks drawn");
  add_int<uint64_t>(*p, "--max-graph-nodes", s.max_graph_nodes, 1, workload::kMaxCatalogGraphNodes,
                    "work budget: a catalog graph of more nodes (estimated) is refused");
  p->add_option("--routing", o.routing, "ecmp (per flow) or ideal (spraying)")
      ->check(CLI::IsMember({"ecmp", "ideal"}))
      ->capture_default_str();
}

void add_throughput(CLI::App& app, Options& o) {
  CLI::App* p = add_page(app, o, "throughput",
                         "The Throughput page: all-reduce bus bandwidth vs message size per "
                         "algorithm, on a flat network or (--cluster) as NCCL runs it");
  ThroughputSettings& s = o.throughput;
  auto* cluster =
      p->add_option("--cluster", s.cluster, "NCCL mode: a cluster spec")->check(kNonEmpty);
  add_int(*p, "--ranks", s.ranks, 2, 256, "flat: ranks")->excludes(cluster);
  p->add_option("--bw-gbps", s.bw_gbps, "flat: GB/s per rank (25 GB/s = a 200 Gb/s NIC)")
      ->check(CLI::Range(0.1, 2000.0))
      ->capture_default_str()
      ->excludes(cluster);
  p->add_option("--alpha-us", s.alpha_us, "flat: latency per step in microseconds")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str()
      ->excludes(cluster);
  p->add_option("--slice-bytes", o.slice_bytes, "flat: ring slice (0: off)")
      ->capture_default_str()
      ->excludes(cluster);
  p->add_option("--chunk-bytes", o.chunk_bytes, "flat: ring chunk (0: off)")
      ->capture_default_str()
      ->excludes(cluster);
  p->add_option("--proto", s.proto, "NCCL mode: auto, simple, ll or ll128")
      ->check(CLI::IsMember({"auto", "simple", "ll", "ll128"}))
      ->capture_default_str()
      ->needs(cluster);
  add_int(*p, "--channels", s.channels, 0, 64, "NCCL mode: channels (0: the tuner's)")
      ->needs(cluster);
  p->add_option("--min-bytes", o.min_bytes, "smallest message (K/M/G suffixes)")
      ->capture_default_str();
  p->add_option("--max-bytes", o.max_bytes, "largest message (default 256M flat, 1G NCCL)");
}

// The string flags that become numbers or enums, each checked naming its flag.
void resolve(Options& o) {
  if (o.page.empty())
    throw InvalidInput("view: expected a page: topology, teaching, workload or throughput");
  if (o.page == "teaching") {
    TeachingSettings& s = o.teaching;
    s.iteration = static_cast<uint64_t>(o.iteration);
    s.seed = static_cast<uint64_t>(o.seed);
    if (s.skip > 0 && !find_algorithm(s.algorithm).skips())
      throw InvalidInput("--skip: SkipReduce runs on --algorithm " + skipping_algorithms_text() +
                         ", not " + s.algorithm + ", got " + std::to_string(s.skip));
    if (std::optional<Status> bad = skip_problem(s.algorithm, s.ranks, s.skip))
      throw_flag_error(*bad);
  } else if (o.page == "topology") {
    o.topology.message_bytes = size_flag("--bytes", o.message_bytes, 4, kMaxCollectiveBytes);
  } else if (o.page == "workload") {
    WorkloadSettings& s = o.workload;
    if (!s.trace_prefix.empty()) s.source = WorkloadSettings::Source::kTrace;
    s.codec_placement = *parse_enum<CodecPlacement>(o.codec_placement);  // IsMember checked it
    s.routing = parse_routing_mode(o.routing);
    s.overlap = !o.no_overlap;
  } else if (o.page == "throughput") {
    ThroughputSettings& s = o.throughput;
    s.min_bytes = size_flag("--min-bytes", o.min_bytes, 4, kMaxCollectiveBytes);
    if (!o.max_bytes.empty())
      s.max_bytes = size_flag("--max-bytes", o.max_bytes, s.min_bytes, kMaxCollectiveBytes);
    s.pipeline.slice_bytes = size_flag("--slice-bytes", o.slice_bytes, 0, kMaxCollectiveBytes);
    s.pipeline.chunk_bytes = size_flag("--chunk-bytes", o.chunk_bytes, 0, kMaxCollectiveBytes);
  }
}

nlohmann::json compute(const Options& o) {
  if (o.page == "topology") return to_json(compute_topology_picture(o.topology));
  if (o.page == "teaching") return to_json(compute_teaching_trace(o.teaching));
  if (o.page == "workload") return to_json(compute_workload_picture(o.workload));
  return to_json(o.throughput, compute_throughput(o.throughput));
}

int run(Options& o) {
  resolve(o);
  // The engine's refusals (std::invalid_argument) reach main's one error path: exit 2.
  const std::string text = compute(o).dump(2) + "\n";
  if (o.out.empty())
    std::cout << text;
  else
    write_file_atomically(o.out, text);
  return kExitOk;
}

RegisterCommand reg{
    Command{"view",
            "What a GUI page draws, as JSON: view topology|teaching|workload|throughput [flags] "
            "(defaults: the page as the app opens)",
            [](CLI::App& app) -> std::function<int()> {
              auto o = std::make_shared<Options>();
              app.require_subcommand(0, 1);  // none: run() names the pages
              add_topology(app, *o);
              add_teaching(app, *o);
              add_workload(app, *o);
              add_throughput(app, *o);
              return [o] { return run(*o); };
            }}};

}  // namespace
}  // namespace view_command
}  // namespace commlab::cli
