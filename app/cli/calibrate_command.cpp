// commlab-cli calibrate: under mpirun, measures what this machine's processes achieve over MPI
// (core/exec/calibration.h) and writes it as a cluster file for --cluster (docs/validation.md).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "exec/calibration.h"
#include "exec/mpi_runtime.h"
#include "io/size_parse.h"

namespace commlab::cli {
namespace calibrate_command {
namespace {

struct Options {
  std::string out = "cluster.json";
  std::string sizes = "8:64M";
  std::string codecs = "lz4,zstd-1,commlab";
  double timeout_s = 60;
  bool json = false;
};

void print_fit(const char* what, const exec::LatencyBandwidth& f) {
  if (f.bandwidth_Bps <= 0) {
    std::printf("%-28s not measured (one host)\n", what);
    return;
  }
  std::printf("%-28s latency %8.2f us  bandwidth %8.3f GB/s  worst fit error %5.1f%%\n", what,
              f.latency_s * 1e6, f.bandwidth_Bps / 1e9, 100 * f.max_rel_error);
}

int run(const Options& o) {
  if (!exec::mpi_built() || !exec::launched_by_mpirun())
    throw InvalidInput(exec::launch_hint("calibrate"));
  exec::CalibrationOptions co;
  auto colon = o.sizes.find(':');
  auto lo = parse_size(o.sizes.substr(0, colon));
  auto hi = colon == std::string::npos ? lo : parse_size(o.sizes.substr(colon + 1));
  if (!lo || !hi || *lo == 0 || *hi < 2 * *lo || *hi > (1ull << 30))
    throw InvalidInput("--sizes: expected MIN:MAX with MAX >= 2 MIN and <= 1G, got '" + o.sizes +
                       "'");
  co.min_bytes = *lo;
  co.max_bytes = *hi;
  co.codecs.clear();
  for (size_t pos = 0; pos <= o.codecs.size();) {
    size_t comma = std::min(o.codecs.find(',', pos), o.codecs.size());
    if (comma > pos) co.codecs.push_back(o.codecs.substr(pos, comma - pos));
    pos = comma + 1;
  }
  for (const std::string& c : co.codecs) try {
      make_codec(c);
    } catch (const std::invalid_argument& e) {
      throw InvalidInput(std::string("--codecs: ") + e.what());
    }
  exec::MpiRuntime rt(exec::RuntimeOptions{o.timeout_s});
  if (std::string m = rt.check_same_inputs(exec::hash_inputs(exec::process_arguments(), {}));
      !m.empty()) {
    rt.report_everywhere(m);
    throw AlreadyReported(kExitInvalid);
  }
  if (rt.size() < 2) throw InvalidInput("calibrate needs at least 2 processes (mpirun -np 2 ...)");
  exec::Calibration cal;
  try {
    cal = exec::run_calibration(rt, co);
  } catch (const std::exception& e) {
    rt.abort(std::string("calibrate failed: ") + e.what());
  }
  if (!rt.root()) return kExitOk;
  nlohmann::json doc = exec::calibration_to_json(cal);
  std::ofstream out(o.out);
  if (!out) throw InvalidInput("--out: cannot write " + o.out);
  out << doc.dump(1) << "\n";
  if (o.json) {
    std::cout << doc["calibration"].dump(2) << "\n";
    return kExitOk;
  }
  std::printf("# commlab calibrate: %d processes on %d host(s) (%s)%s -> %s\n", cal.ranks,
              cal.hosts, cal.host_name.c_str(), cal.oversubscribed ? ", oversubscribed" : "",
              o.out.c_str());
  print_fit("ping-pong, same host", cal.same_host);
  print_fit("ping-pong, other host", cal.other_host);
  print_fit("ring step (all ranks at once)", cal.ring);
  std::printf("%-28s %8.3f GB/s (12 bytes per element)\n", "reduction", cal.reduce_Bps / 1e9);
  for (const exec::CodecSpeed& s : cal.codecs)
    std::printf("codec %-14s %-5s %8.3f GB/s encode+decode, ratio %.3f\n", s.codec.c_str(),
                std::string(dtype_name(s.dtype)).c_str(), s.cpu_Bps / 1e9, s.ratio);
  return kExitOk;
}

const RegisterCommand reg{Command{
    "calibrate", "under mpirun: measure latency, bandwidth, reduction and codec speeds over MPI",
    [](CLI::App& app) {
      auto o = std::make_shared<Options>();
      app.add_option("--out", o->out, "cluster file to write (for --cluster)")
          ->capture_default_str();
      app.add_option("--sizes", o->sizes, "MIN:MAX message bytes, doubling (K/M/G suffixes)")
          ->capture_default_str();
      app.add_option("--codecs", o->codecs, "codecs whose speed to measure (comma-separated)")
          ->capture_default_str();
      app.add_option("--timeout", o->timeout_s,
                     "seconds without an answer from a peer before the job is ended")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
      app.add_flag("--json", o->json, "print the calibration block as JSON");
      return [o] { return run(*o); };
    }}};

}  // namespace
}  // namespace calibrate_command
}  // namespace commlab::cli
