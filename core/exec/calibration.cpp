#include "exec/calibration.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

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
  if (!(det > 0)) throw std::invalid_argument("latency/bandwidth fit: needs two distinct sizes");
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
  if (!list.is_array()) throw std::invalid_argument(w + ": expected an array of [bytes, value]");
  for (size_t i = 0; i < list.size(); ++i) {
    const json& s = list[i];
    if (!s.is_array() || s.size() != 2 || !s[0].is_number_unsigned() || !s[1].is_number() ||
        !(s[1].get<double>() > 0) || (i > 0 && s[0].get<uint64_t>() <= out.back().first))
      throw std::invalid_argument(w + "[" + std::to_string(i) +
                                  "]: expected [bytes, value > 0] with bytes increasing");
    out.emplace_back(s[0].get<uint64_t>(), s[1].get<double>() * scale);
  }
  return out;
}

LatencyBandwidth fit_from(const json& j, const std::string& where) {
  LatencyBandwidth f;
  if (!j.is_object()) throw std::invalid_argument(where + ": expected an object");
  for (const char* key : {"latency_us", "bandwidth_gbps"})
    if (!j.contains(key) || !j[key].is_number() || j[key].get<double>() < 0)
      throw std::invalid_argument(where + "." + key + ": expected a number >= 0");
  f.latency_s = j["latency_us"].get<double>() * 1e-6;
  f.bandwidth_Bps = j["bandwidth_gbps"].get<double>() * 1e9 / 8;
  f.max_rel_error = j.value("max_rel_error", 0.0);
  f.samples = samples_from(j, "samples_bytes_us", 1e-6, where);
  return f;
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
  std::ifstream in(cluster);
  if (!in) return std::nullopt;  // the topology reader reports the missing file
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("calibration")) return std::nullopt;
  const json& cal = j["calibration"];
  const std::string where = cluster + ":calibration";
  Calibration c;
  if (!cal.is_object() || !cal.contains("ranks") || !cal["ranks"].is_number_integer())
    throw std::invalid_argument(where + ".ranks: expected an integer");
  c.ranks = cal["ranks"].get<int>();
  if (c.ranks < 1 || c.ranks > 65536)
    throw std::invalid_argument(where + ".ranks: expected 1 to 65536, got " +
                                std::to_string(c.ranks));
  if (cal.contains("hosts") && !cal["hosts"].is_number_integer())
    throw std::invalid_argument(where + ".hosts: expected an integer");
  c.hosts = cal.value("hosts", 1);
  if (c.hosts < 1 || c.hosts > c.ranks)
    throw std::invalid_argument(where + ".hosts: expected 1 to ranks (" + std::to_string(c.ranks) +
                                "), got " + std::to_string(c.hosts));
  if (j.contains("nodes") && j["nodes"].is_array())
    for (const json& node : j["nodes"])
      if (node.is_object() && node.value("kind", std::string()) == "gpu") {
        if (node.contains("server") && !node["server"].is_number_integer())
          throw std::invalid_argument(cluster + ":nodes: a gpu's server must be an integer");
        c.host_of.push_back(node.value("server", 0));
      }
  if (static_cast<int>(c.host_of.size()) != c.ranks)
    throw std::invalid_argument(cluster + ":nodes: expected " + std::to_string(c.ranks) +
                                " gpu nodes (one per calibrated rank), found " +
                                std::to_string(c.host_of.size()));
  for (int h : c.host_of)
    if (h < 0 || h >= c.hosts)
      throw std::invalid_argument(cluster + ":nodes: a gpu's server is outside 0.." +
                                  std::to_string(c.hosts - 1));
  c.host_name = cal.value("host_name", std::string());
  c.oversubscribed = cal.value("oversubscribed", false);
  c.same_host = fit_from(cal["same_host"], where + ".same_host");
  c.ring = fit_from(cal["ring"], where + ".ring");
  if (cal.contains("other_host")) c.other_host = fit_from(cal["other_host"], where + ".other_host");
  if (!cal.contains("reduce_gbps") || !cal["reduce_gbps"].is_number())
    throw std::invalid_argument(where + ".reduce_gbps: expected a number");
  c.reduce_Bps = cal["reduce_gbps"].get<double>() * 1e9;
  c.reduce_samples = samples_from(cal, "reduce_samples_bytes_gbps", 1e9, where);
  if (cal.contains("codecs")) {
    const json& list = cal["codecs"];
    for (size_t i = 0; i < list.size(); ++i) {
      const json& s = list[i];
      const std::string w = where + ".codecs[" + std::to_string(i) + "]";
      if (!s.is_object() || !s.contains("codec") || !s["codec"].is_string() ||
          !s.contains("cpu_gbps") || !s["cpu_gbps"].is_number())
        throw std::invalid_argument(w + ": expected {\"codec\", \"dtype\", \"cpu_gbps\"}");
      c.codecs.push_back({s["codec"].get<std::string>(),
                          parse_dtype(s.value("dtype", std::string("fp32"))),
                          s["cpu_gbps"].get<double>() * 1e9, s.value("ratio", 0.0)});
    }
  }
  return c;
}

}  // namespace commlab::exec
