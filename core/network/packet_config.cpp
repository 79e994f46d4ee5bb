#include "network/packet_config.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "io/status.h"

namespace commlab {

const char* admission_name(Admission admission) {
  switch (admission) {
    case Admission::kTailDrop: return "tail-drop";
    case Admission::kEcn: return "ecn";
    case Admission::kTrim: return "trim";
  }
  return "?";
}

const char* transport_name(Transport transport) {
  switch (transport) {
    case Transport::kReliable: return "reliable";
    case Transport::kNdp: return "ndp";
    case Transport::kAcceptTrimmed: return "accept-trimmed";
    case Transport::kRoce: return "roce";
  }
  return "?";
}

Admission parse_admission(std::string_view text) {
  for (Admission a : {Admission::kTailDrop, Admission::kEcn, Admission::kTrim})
    if (text == admission_name(a)) return a;
  throw bad_input("admission policy '" + std::string(text) + "': expected tail-drop, ecn or trim");
}

Transport parse_transport(std::string_view text) {
  for (Transport t :
       {Transport::kReliable, Transport::kNdp, Transport::kAcceptTrimmed, Transport::kRoce})
    if (text == transport_name(t)) return t;
  throw bad_input("transport '" + std::string(text) +
                  "': expected reliable, ndp, accept-trimmed or roce");
}

int trim_level_for_queue(uint64_t queued, uint32_t wire, uint64_t threshold,
                         std::span<const uint32_t> levels) {
  if (queued + wire <= threshold) return kTrimNone;
  const int last = static_cast<int>(levels.size()) - 1;
  for (int i = 0; i < last; ++i) {
    const uint64_t kept = std::min(wire, levels[i]);
    if (queued + kept <= static_cast<uint64_t>(i + 2) * threshold) return i;
  }
  return last;
}

}  // namespace commlab
