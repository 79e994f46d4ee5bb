#include "exec/calibration.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <type_traits>

#include "io/input_file.h"
#include "io/json_input.h"
#include "io/status.h"

namespace commlab::exec {

using nlohmann::json;

LatencyBandwidth fit_latency_bandwidth(std::vector<std::pair<uint64_t, double>> samples) {
  // Minimise sum ((a + b x - t) / t)^2: the normal equations of a weighted line with w = 1/t^2.
  double sw = 0, sx = 0, sxx = 0, st = 0, sxt = 0;
  for (auto [bytes, t] : samples) {
    if (!(t > 0)) continue;
    const double w = 1.0 / (t * t), x = static_cast<double>(bytes);
    sw += w;
    sx += w * x;
    sxx += w * x * x;
    st += w * t;
    sxt += w * x * t;
  }
  const double det = sw * sxx - sx * sx;
  if (!(det > 0)) throw bad_input("latency/bandwidth fit: needs two distinct sizes");
  double b = (sw * sxt - sx * st) / det;
  double a = (st - b * sx) / sw;
  if (a < 0) {  // latency cannot be negative: refit the slope alone through the origin
    a = 0;
    b = sxt / sxx;
  }
  LatencyBandwidth fit;
  fit.latency_s = a;
  fit.bandwidth_Bps = b > 0 ? 1.0 / b : 0;
  for (auto [bytes, t] : samples)
    if (t > 0)
      fit.max_rel_error =
          std::max(fit.max_rel_error, std::abs(a + b * static_cast<double>(bytes) - t) / t);
  fit.samples = std::move(samples);
  return fit;
}

double interpolate_log_log(const std::vector<std::pair<uint64_t, double>>& samples, uint64_t x) {
  if (samples.empty()) return 0;
  if (x <= samples.front().first) return samples.front().second;
  if (x >= samples.back().first) return samples.back().second;
  size_t hi = 1;
  while (samples[hi].first < x) ++hi;
  const auto [x0, y0] = samples[hi - 1];
  const auto [x1, y1] = samples[hi];
  if (!(y0 > 0 && y1 > 0) || x1 == x0) return y1;
  const double f = std::log(static_cast<double>(x) / x0) / std::log(static_cast<double>(x1) / x0);
  return y0 * std::pow(y1 / y0, f);
}

double LatencyBandwidth::time_at(uint64_t bytes) const {
  const double line = latency_s + (bandwidth_Bps > 0 ? bytes / bandwidth_Bps : 0);
  if (samples.size() < 2 || bytes < samples.front().first || bytes > samples.back().first)
    return line;
  return interpolate_log_log(samples, bytes);
}

Calibration Calibration::at_message(uint64_t bytes) const {
  Calibration c = *this;
  const double beyond_latency = ring.time_at(bytes) - ring.latency_s;
  // A step no longer than the latency says nothing about bandwidth: keep the fitted one.
  if (beyond_latency > 0.05 * ring.time_at(bytes) && bytes > 0)
    c.ring.bandwidth_Bps = static_cast<double>(bytes) / beyond_latency;
  const double pair_beyond = same_host.time_at(bytes) - same_host.latency_s;
  if (same_host.bandwidth_Bps > 0 && pair_beyond > 0.05 * same_host.time_at(bytes) && bytes > 0)
    c.same_host.bandwidth_Bps = static_cast<double>(bytes) / pair_beyond;
  if (!reduce_samples.empty()) c.reduce_Bps = interpolate_log_log(reduce_samples, bytes);
  return c;
}

double Calibration::codec_Bps(const std::string& codec, DType dtype) const {
  for (const CodecSpeed& c : codecs)
    if (c.codec == codec && c.dtype == dtype) return c.cpu_Bps;
  return 0;
}

namespace {

constexpr uint64_t kMaxCalibrationBytes = 256ull << 20;  // the cluster file's own cap

std::string fmt_g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

json fit_json(const LatencyBandwidth& f) {
  json samples = json::array();
  for (auto [bytes, t] : f.samples) samples.push_back({bytes, t * 1e6});
  return {{"latency_us", f.latency_s * 1e6},
          {"bandwidth_gbps", f.bandwidth_Bps * 8 / 1e9},
          {"max_rel_error", f.max_rel_error},
          {"samples_bytes_us", samples}};
}

// [[bytes, value], ...] in increasing bytes, value * scale; absent: none.
std::vector<std::pair<uint64_t, double>> samples_from(const json& j, const char* key, double scale,
                                                      const std::string& where) {
  std::vector<std::pair<uint64_t, double>> out;
  if (!j.contains(key)) return out;
  const json& list = j[key];
  const std::string w = where + "." + key;
  if (!list.is_array()) throw bad_input(w + ": expected an array of [bytes, value]");
  for (size_t i = 0; i < list.size(); ++i) {
    const json& s = list[i];
    if (!s.is_array() || s.size() != 2 || !s[0].is_number_unsigned() || !s[1].is_number() ||
        !(s[1].get<double>() > 0) || (i > 0 && s[0].get<uint64_t>() <= out.back().first))
      throw bad_input(w + "[" + std::to_string(i) +
                      "]: expected [bytes, value > 0] with bytes increasing");
    out.emplace_back(s[0].get<uint64_t>(), s[1].get<double>() * scale);
  }
  return out;
}

// cal[key] as a finite number in [lo, hi]; absent: fallback (or an error when required).
double number_field(const json& j, const char* key, const std::string& where, double lo, double hi,
                    std::optional<double> fallback = std::nullopt) {
  const std::string w = where + "." + key;
  if (!j.contains(key)) {
    if (fallback) return *fallback;
    throw bad_input(w + ": missing (expected a number in [" + fmt_g(lo) + ", " + fmt_g(hi) + "])");
  }
  const json& v = j[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo ||
      v.get<double>() > hi)
    throw bad_input(w + ": expected a number in [" + fmt_g(lo) + ", " + fmt_g(hi) + "], got " +
                    json_excerpt(v));
  return v.get<double>();
}

template <typename T>
T typed_field(const json& j, const char* key, const std::string& where, const char* expected,
              T fallback) {
  if (!j.contains(key)) return fallback;
  const json& v = j[key];
  const bool ok = std::is_same_v<T, bool> ? v.is_boolean() : v.is_string();
  if (!ok)
    throw bad_input(where + "." + key + ": expected " + expected + ", got " + json_excerpt(v));
  return v.get<T>();
}

// A link's fit. The ring's bandwidth must be > 0 and the latency finite: a zero or infinite fit
// made rank 0 throw while predicting while the other ranks waited for it, so it is
// refused here, where every rank reads the file before the first collective.
LatencyBandwidth fit_from(const json& j, const std::string& where, double min_gbps = 0) {
  LatencyBandwidth f;
  if (!j.is_object()) throw bad_input(where + ": expected an object, got " + json_excerpt(j));
  f.latency_s = number_field(j, "latency_us", where, 0, 1e9) * 1e-6;
  f.bandwidth_Bps = number_field(j, "bandwidth_gbps", where, min_gbps, 1e7) * 1e9 / 8;
  f.max_rel_error = number_field(j, "max_rel_error", where, 0, 1e9, 0.0);
  f.samples = samples_from(j, "samples_bytes_us", 1e-6, where);
  return f;
}

void read_hosts(const json& j, const std::string& cluster, Calibration& c) {
  if (j.contains("nodes") && j["nodes"].is_array())
    for (const json& node : j["nodes"])
      if (node.is_object() && node.value("kind", json()) == "gpu") {
        if (node.contains("server") && !node["server"].is_number_integer())
          throw bad_input(cluster + ":nodes: a gpu's server must be an integer, got " +
                          json_excerpt(node["server"]));
        c.host_of.push_back(static_cast<int>(
            std::clamp<int64_t>(node.value("server", int64_t{0}), -1, int64_t{1} << 30)));
      }
  if (static_cast<int>(c.host_of.size()) != c.ranks)
    throw bad_input(cluster + ":nodes: expected " + std::to_string(c.ranks) +
                    " gpu nodes (one per calibrated rank), found " +
                    std::to_string(c.host_of.size()));
  for (int h : c.host_of)
    if (h < 0 || h >= c.hosts)
      throw bad_input(cluster + ":nodes: a gpu's server is outside 0.." +
                      std::to_string(c.hosts - 1));
}

std::vector<CodecSpeed> codecs_from(const json& list, const std::string& where) {
  if (!list.is_array()) throw bad_input(where + ": expected an array, got " + json_excerpt(list));
  std::vector<CodecSpeed> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const json& s = list[i];
    const std::string w = where + "[" + std::to_string(i) + "]";
    if (!s.is_object() || !s.contains("codec") || !s["codec"].is_string())
      throw bad_input(w + ": expected {\"codec\", \"dtype\", \"cpu_gbps\"}");
    const std::string dtype = typed_field<std::string>(s, "dtype", w, "a string", "fp32");
    out.push_back({s["codec"].get<std::string>(), parse_dtype(dtype),
                   number_field(s, "cpu_gbps", w, 1e-6, 1e7) * 1e9,
                   number_field(s, "ratio", w, 0, 1e6, 0.0)});
  }
  return out;
}

}  // namespace

json calibration_to_json(const Calibration& c) {
  json nodes = json::array(), links = json::array();
  for (int r = 0; r < c.ranks; ++r)
    nodes.push_back(
        {{"kind", "gpu"}, {"name", "rank" + std::to_string(r)}, {"server", c.host_of[r]}});
  for (int h = 0; h < c.hosts; ++h)
    nodes.push_back({{"kind", "switch"}, {"name", "host" + std::to_string(h)}, {"tier", 1}});
  // One host's ranks share its cores and memory bus: every copy on the host crosses one "bus"
  // link whose capacity is what all its ranks achieve together in a ring step (ranks x the ring
  // fit). A rank's own links carry what one pair achieves alone (the ping-pong fit, or the ring's
  // when that is higher), so a step where few ranks talk (a tree's) runs faster per rank than a
  // ring step where all do, as it does on a shared-memory host.
  std::vector<int> per_host(c.hosts, 0);
  for (int r = 0; r < c.ranks; ++r) ++per_host[c.host_of[r]];
  const double ring_gbps = c.ring.bandwidth_Bps * 8 / 1e9, lat_us = c.ring.latency_s * 1e6;
  const double rank_gbps = std::max(ring_gbps, c.same_host.bandwidth_Bps * 8 / 1e9);
  for (int h = 0; h < c.hosts; ++h) {
    nodes.push_back(
        {{"kind", "switch"}, {"name", "host" + std::to_string(h) + "-bus"}, {"tier", 1}});
    links.push_back({{"from", "host" + std::to_string(h)},
                     {"to", "host" + std::to_string(h) + "-bus"},
                     {"bandwidth_gbps", ring_gbps * std::max(1, per_host[h])},
                     {"latency_us", 0}});
  }
  for (int r = 0; r < c.ranks; ++r) {
    const std::string sw = "host" + std::to_string(c.host_of[r]);
    links.push_back({{"from", "rank" + std::to_string(r)},
                     {"to", sw},
                     {"bandwidth_gbps", rank_gbps},
                     {"latency_us", lat_us}});
    links.push_back({{"from", sw + "-bus"},
                     {"to", "rank" + std::to_string(r)},
                     {"bandwidth_gbps", rank_gbps},
                     {"latency_us", 0}});
  }
  if (c.hosts > 1 && c.other_host.bandwidth_Bps > 0) {
    nodes.push_back({{"kind", "switch"}, {"name", "core"}, {"tier", 2}});
    const double extra_us = std::max(0.0, (c.other_host.latency_s - c.same_host.latency_s) * 1e6);
    for (int h = 0; h < c.hosts; ++h)
      links.push_back({{"from", "host" + std::to_string(h)},
                       {"to", "core"},
                       {"bandwidth_gbps", c.other_host.bandwidth_Bps * 8 / 1e9},
                       {"latency_us", extra_us / 2},
                       {"duplex", true}});
  }
  json codecs = json::array();
  for (const CodecSpeed& s : c.codecs)
    codecs.push_back({{"codec", s.codec},
                      {"dtype", std::string(dtype_name(s.dtype))},
                      {"cpu_gbps", s.cpu_Bps / 1e9},
                      {"ratio", s.ratio}});
  json cal = {{"ranks", c.ranks},
              {"hosts", c.hosts},
              {"host_name", c.host_name},
              {"oversubscribed", c.oversubscribed},
              {"same_host", fit_json(c.same_host)},
              {"ring", fit_json(c.ring)},
              {"reduce_gbps", c.reduce_Bps / 1e9},
              {"codecs", codecs}};
  if (!c.reduce_samples.empty()) {
    json samples = json::array();
    for (auto [bytes, Bps] : c.reduce_samples) samples.push_back({bytes, Bps / 1e9});
    cal["reduce_samples_bytes_gbps"] = samples;
  }
  if (c.other_host.bandwidth_Bps > 0) cal["other_host"] = fit_json(c.other_host);
  return {{"name", "calibrated-" + c.host_name + "-" + std::to_string(c.ranks)},
          {"nodes", nodes},
          {"links", links},
          {"calibration", cal}};
}

std::optional<Calibration> read_calibration(const std::string& cluster) {
  if (!cluster.ends_with(".json")) return std::nullopt;
  if (!std::ifstream(cluster)) return std::nullopt;  // the topology reader reports the missing file
  const std::string text = read_input_file(cluster, kMaxCalibrationBytes, "cluster file");
  const json j = parse_json_or_discarded(text, cluster);
  if (j.is_discarded() || !j.is_object() || !j.contains("calibration")) return std::nullopt;
  const json& cal = j["calibration"];
  const std::string where = cluster + ":calibration";
  if (!cal.is_object()) throw bad_input(where + ": expected an object, got " + json_excerpt(cal));
  Calibration c;
  if (!cal.contains("ranks") || !cal["ranks"].is_number_integer())
    throw bad_input(where + ".ranks: expected an integer");
  c.ranks = static_cast<int>(number_field(cal, "ranks", where, 1, 65536));
  if (cal.contains("hosts") && !cal["hosts"].is_number_integer())
    throw bad_input(where + ".hosts: expected an integer, got " + json_excerpt(cal["hosts"]));
  const int64_t hosts = cal.value("hosts", int64_t{1});
  if (hosts < 1 || hosts > c.ranks)
    throw bad_input(where + ".hosts: expected 1 to ranks (" + std::to_string(c.ranks) + "), got " +
                    std::to_string(hosts));
  c.hosts = static_cast<int>(hosts);
  read_hosts(j, cluster, c);
  c.host_name = typed_field<std::string>(cal, "host_name", where, "a string", "");
  c.oversubscribed = typed_field<bool>(cal, "oversubscribed", where, "true or false", false);
  c.same_host = fit_from(cal["same_host"], where + ".same_host");
  c.ring = fit_from(cal["ring"], where + ".ring", 1e-6);  // every collective uses the ring
  if (cal.contains("other_host")) c.other_host = fit_from(cal["other_host"], where + ".other_host");
  // A negative or zero reduction rate made reductions free (or negative time).
  c.reduce_Bps = number_field(cal, "reduce_gbps", where, 1e-6, 1e7) * 1e9;
  c.reduce_samples = samples_from(cal, "reduce_samples_bytes_gbps", 1e9, where);
  if (cal.contains("codecs")) c.codecs = codecs_from(cal["codecs"], where + ".codecs");
  return c;
}

}  // namespace commlab::exec
