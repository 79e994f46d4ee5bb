#include "topology/topology_json.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "io/input_file.h"
#include "io/json_input.h"
#include "io/status.h"
#include "topology/params.h"
#include "topology/presets.h"

namespace commlab {

using nlohmann::json;

namespace {
constexpr NodeKind kKinds[] = {NodeKind::kGpu, NodeKind::kNvSwitch, NodeKind::kPcieSwitch,
                               NodeKind::kNic, NodeKind::kSwitch};

std::string at(const std::string& path, const std::string& key) {
  if (path.empty()) return key;
  return key.starts_with("[") ? path + key : path + "." + key;
}

[[noreturn]] void fail(const std::string& where, const std::string& expected, const json& got) {
  throw bad_input(where + ": expected " + expected + ", got " +
                  (got.is_null() ? std::string("nothing") : json_excerpt(got)));
}

// obj[key] without operator[] on a const object (undefined for a missing key): null when absent.
const json& member(const json& obj, const char* key) {
  static const json kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

// Cluster files may name other cluster files (a spec string that is a path); these bound that.
constexpr int kMaxClusterFileDepth = 8;
constexpr uint64_t kMaxClusterFileBytes = 256ull << 20;  // a 60k-GPU explicit file is ~20 MB
constexpr int kMaxClusterNesting = 32;
thread_local std::vector<std::string> loading_files;  // the chain being loaded, outermost first

double number(const json& obj, const std::string& key, const std::string& where, double fallback,
              bool positive) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (std::isnan(fallback)) fail(at(where, key), "a number", json());
    return fallback;
  }
  bool ok = it->is_number() && std::isfinite(it->get<double>()) &&
            (positive ? it->get<double>() > 0 : it->get<double>() >= 0);
  if (!ok) fail(at(where, key), positive ? "a positive number" : "a number >= 0", *it);
  return it->get<double>();
}

// Parameters travel as text; integral numbers print without ".0" so integer parameters parse.
std::string value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return v.dump();
  double d = v.get<double>();
  char buf[32];
  if (d == std::floor(d) && std::fabs(d) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", d);
  else
    std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

Topology from_compact(const json& j, const std::string& path) {
  const json& b = member(j, "builder");
  if (!b.is_string()) fail(at(path, "builder"), "a builder or preset name", b);
  std::vector<std::pair<std::string, std::string>> values;
  if (auto it = j.find("params"); it != j.end()) {
    if (!it->is_object()) fail(at(path, "params"), "an object", *it);
    for (const auto& [k, v] : it->items()) {
      if (!v.is_number() && !v.is_string())
        fail(at(at(path, "params"), k), "a number or string", v);
      values.emplace_back(k, value_text(v));
    }
  }
  Params p(at(path, "params") + ".", std::move(values));
  return build_cluster(b.get<std::string>(), p);
}

// Node names -> the first node of that name (a hash map: a 60k-GPU file has 100k+ link ends).
using NameIndex = std::unordered_map<std::string, int>;

int node_ref(const json& v, const std::string& where, const std::vector<Node>& nodes,
             const NameIndex& names) {
  if (v.is_number_integer()) {
    long long i = v.get<long long>();
    if (i >= 0 && i < static_cast<long long>(nodes.size())) return static_cast<int>(i);
  } else if (v.is_string()) {
    if (auto it = names.find(v.get<std::string>()); it != names.end()) return it->second;
  }
  fail(where, "a node index in [0, " + std::to_string(nodes.size()) + ") or a node name", v);
}

// An optional member of the expected JSON type, else `fallback`; the wrong type names the field
// (j.value() would throw nlohmann's type_error, which says neither the file nor the field).
std::string opt_string(const json& j, const char* key, const std::string& fallback,
                       const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_string()) fail(where + "." + key, "a string", *it);
  return it->get<std::string>();
}

int opt_int(const json& j, const char* key, int fallback, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_number_integer() || it->get<int64_t>() < -1 || it->get<int64_t>() > (1 << 30))
    fail(where + "." + key, "an integer in [-1, 2^30]", *it);
  return it->get<int>();
}

bool opt_bool(const json& j, const char* key, bool fallback, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_boolean()) fail(where + "." + key, "true or false", *it);
  return it->get<bool>();
}

Topology from_explicit(const json& j, const std::string& path) {
  Topology t(opt_string(j, "name", "custom", path.empty() ? "topology" : path));
  if (auto it = j.find("gpu_model"); it != j.end() && it->is_string())
    t.set_gpu_model(it->get<std::string>());
  const json& nodes = member(j, "nodes");
  if (!nodes.is_array() || nodes.empty()) fail(at(path, "nodes"), "a non-empty array", nodes);
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::string w = at(path, "nodes[" + std::to_string(i) + "]");
    const json& n = nodes[i];
    if (!n.is_object()) fail(w, "an object", n);
    const json& kind = member(n, "kind");
    int found = -1;
    for (int k = 0; k < 5; ++k)
      if (kind.is_string() && kind.get<std::string>() == node_kind_name(kKinds[k])) found = k;
    if (found < 0) fail(w + ".kind", "one of gpu|nvswitch|pcie-switch|nic|switch", kind);
    std::string name =
        opt_string(n, "name", std::string(node_kind_name(kKinds[found])) + std::to_string(i), w);
    t.add_node(kKinds[found], name, opt_int(n, "server", -1, w), opt_int(n, "tier", 0, w));
  }
  const json& links = member(j, "links");
  if (!links.is_array()) fail(at(path, "links"), "an array", links);
  NameIndex names;
  for (size_t i = 0; i < t.nodes().size(); ++i)
    names.emplace(t.nodes()[i].name, static_cast<int>(i));
  for (size_t i = 0; i < links.size(); ++i) {
    std::string w = at(path, "links[" + std::to_string(i) + "]");
    const json& l = links[i];
    if (!l.is_object()) fail(w, "an object", l);
    int from = node_ref(member(l, "from"), w + ".from", t.nodes(), names);
    int to = node_ref(member(l, "to"), w + ".to", t.nodes(), names);
    if (from == to) fail(w + ".to", "a node other than 'from'", member(l, "to"));
    double gbps = number(l, "bandwidth_gbps", w, NAN, true);
    double lat_us = number(l, "latency_us", w, 0.0, false);
    double buffer = number(l, "buffer_bytes", w, Topology::kDefaultBufferBytes, true);
    double bps = gbps * 1e9 / 8;
    auto buf = static_cast<uint64_t>(buffer);
    if (opt_bool(l, "duplex", false, w))
      t.add_duplex(from, to, bps, lat_us * 1e-6, buf);
    else
      t.add_link(from, to, bps, lat_us * 1e-6, buf);
  }
  try {
    t.check();
  } catch (const std::invalid_argument& e) {
    throw bad_input((path.empty() ? std::string("topology") : path) + ": " + e.what());
  }
  return t;
}
}  // namespace

json topology_to_json(const Topology& t, JsonForm form) {
  if (form == JsonForm::kCompact && !t.spec().empty()) {
    const std::string& s = t.spec();
    size_t colon = s.find(':');
    json params = json::object();
    if (colon != std::string::npos) {
      std::string args = s.substr(colon + 1);
      size_t pos = 0;
      while (pos < args.size()) {
        size_t comma = args.find(',', pos), eq = args.find('=', pos);
        std::string key = args.substr(pos, eq - pos);
        std::string val =
            args.substr(eq + 1, (comma == std::string::npos ? args.size() : comma) - eq - 1);
        char* end = nullptr;
        double d = std::strtod(val.c_str(), &end);
        if (end && *end == '\0' && !val.empty())
          params[key] = d;
        else
          params[key] = val;
        if (comma == std::string::npos) break;
        pos = comma + 1;
      }
    }
    return json{{"builder", s.substr(0, colon)}, {"params", params}};
  }
  json nodes = json::array(), links = json::array();
  for (const Node& n : t.nodes())
    nodes.push_back({{"kind", node_kind_name(n.kind)},
                     {"name", n.name},
                     {"server", n.server},
                     {"tier", n.tier}});
  for (const Link& l : t.links())
    links.push_back({{"from", l.from},
                     {"to", l.to},
                     {"bandwidth_gbps", l.bandwidth_Bps * 8 / 1e9},
                     {"latency_us", l.latency_s * 1e6},
                     {"buffer_bytes", l.buffer_bytes}});
  json out{{"name", t.name()}, {"nodes", nodes}, {"links", links}};
  if (!t.gpu_model().empty()) out["gpu_model"] = t.gpu_model();
  return out;
}

Topology topology_from_json(const json& j, const std::string& path) {
  if (j.is_string()) return cluster_from_spec(j.get<std::string>());
  if (!j.is_object())
    fail(path.empty() ? "topology" : path, "a cluster spec string or an object", j);
  if (j.contains("builder")) return from_compact(j, path);
  if (j.contains("nodes")) return from_explicit(j, path);
  fail(path.empty() ? "topology" : path, "an object with \"builder\" or \"nodes\"", j);
}

void save_topology(const Topology& t, const std::string& file, JsonForm form) {
  std::ofstream out(file);
  if (!out) throw bad_input(file + ": cannot open for writing");
  out << topology_to_json(t, form).dump(1) << "\n";
}

Topology load_topology(const std::string& file) {
  std::error_code ec;
  std::string key = std::filesystem::weakly_canonical(file, ec).string();
  if (ec || key.empty()) key = file;
  if (std::find(loading_files.begin(), loading_files.end(), key) != loading_files.end()) {
    std::string chain;
    for (const std::string& f : loading_files) chain += f + " -> ";
    // Thrown inside the outer file's load, which prefixes its own name.
    throw bad_input(" cluster file names itself (" + chain + key + ")");
  }
  if (loading_files.size() >= kMaxClusterFileDepth)
    throw bad_input(" cluster files name each other more than " +
                    std::to_string(kMaxClusterFileDepth) + " levels deep");
  const std::string text = read_input_file(file, kMaxClusterFileBytes, "cluster file");
  json j = parse_json_limited(text, file, kMaxClusterNesting);
  loading_files.push_back(key);
  struct Pop {
    ~Pop() { loading_files.pop_back(); }
  } pop;
  try {
    return topology_from_json(j, "");
  } catch (const std::invalid_argument& e) {
    throw bad_input(file + ":" + e.what());
  }
}

}  // namespace commlab
