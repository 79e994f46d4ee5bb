#include "network/traffic_patterns.h"

#include <charconv>
#include <stdexcept>
#include <string>

#include "io/status.h"
#include "numeric/rng.h"

namespace commlab {

TrafficSpec parse_pattern(std::string_view text) {
  TrafficSpec spec;
  auto bad = [&](const std::string& why) {
    return bad_input("pattern '" + std::string(text) + "': " + why +
                     " (expected perm, incast:K, alltoall or onoff:LOAD)");
  };
  std::string_view head = text.substr(0, text.find(':'));
  std::string_view arg = head.size() < text.size() ? text.substr(head.size() + 1) : "";
  if (head == "perm" || head == "permutation") {
    spec.pattern = Pattern::kPermutation;
  } else if (head == "alltoall") {
    spec.pattern = Pattern::kAllToAll;
  } else if (head == "incast") {
    spec.pattern = Pattern::kIncast;
    int k = 0;
    auto [ptr, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), k);
    if (arg.empty() || ec != std::errc() || ptr != arg.data() + arg.size() || k < 1)
      throw bad("K must be a positive integer");
    spec.senders = k;
  } else if (head == "onoff") {
    spec.pattern = Pattern::kOnOff;
    size_t used = 0;
    double load = 0;
    try {
      load = std::stod(std::string(arg), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (arg.empty() || used != arg.size() || !(load > 0 && load <= 1))
      throw bad("LOAD must be a number in (0, 1]");
    spec.load = load;
  } else {
    throw bad("unknown pattern");
  }
  if (!arg.empty() && spec.pattern != Pattern::kIncast && spec.pattern != Pattern::kOnOff)
    throw bad("takes no argument");
  return spec;
}

std::vector<std::pair<int, int>> pattern_pairs(const TrafficSpec& spec, int ranks, uint64_t seed) {
  if (ranks < 2) throw bad_input("traffic pattern needs at least 2 ranks");
  CounterRng rng(seed, Purpose::kTraffic, static_cast<uint64_t>(spec.pattern), 1);
  std::vector<std::pair<int, int>> pairs;
  switch (spec.pattern) {
    case Pattern::kPermutation: {
      std::vector<int> perm(ranks);
      for (int i = 0; i < ranks; ++i) perm[i] = i;
      for (int i = ranks - 1; i > 0; --i) std::swap(perm[i], perm[rng.below(i, i + 1)]);
      // Fixed points swap with the next rank: still a permutation, now without self-sends.
      for (int i = 0; i < ranks; ++i)
        if (perm[i] == i) std::swap(perm[i], perm[(i + 1) % ranks]);
      for (int i = 0; i < ranks; ++i) pairs.emplace_back(i, perm[i]);
      break;
    }
    case Pattern::kIncast: {
      if (spec.target < 0 || spec.target >= ranks)
        throw bad_input("incast target " + std::to_string(spec.target) + " is not a rank of " +
                        std::to_string(ranks));
      if (spec.senders < 1 || spec.senders > ranks - 1)
        throw bad_input("incast:" + std::to_string(spec.senders) + " needs " +
                        std::to_string(spec.senders + 1) + " ranks, the cluster has " +
                        std::to_string(ranks));
      std::vector<int> others;
      for (int i = 0; i < ranks; ++i)
        if (i != spec.target) others.push_back(i);
      for (int i = 0; i < spec.senders; ++i) {  // partial Fisher-Yates
        int j = i + static_cast<int>(rng.below(i, others.size() - i));
        std::swap(others[i], others[j]);
        pairs.emplace_back(others[i], spec.target);
      }
      break;
    }
    case Pattern::kAllToAll:
      for (int s = 0; s < ranks; ++s)
        for (int d = 0; d < ranks; ++d)
          if (s != d) pairs.emplace_back(s, d);
      break;
    case Pattern::kOnOff: break;
  }
  return pairs;
}

std::vector<Flow> pattern_flows(const TrafficSpec& spec, int ranks, uint64_t seed,
                                uint64_t id_base) {
  std::vector<Flow> flows;
  for (auto [s, d] : pattern_pairs(spec, ranks, seed))
    flows.push_back(Flow{s, d, spec.flow_bytes, id_base + flows.size()});
  return flows;
}

}  // namespace commlab
