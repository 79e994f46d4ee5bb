#include "network/framed_backend.h"

#include <algorithm>
#include <stdexcept>

#include "io/status.h"

namespace commlab {

Framing framing_of(const PacketConfig& config) {
  return Framing{config.mtu_bytes, config.header_bytes, 1};
}

FramedBackend::FramedBackend(std::unique_ptr<NetworkBackend> inner, Framing framing)
    : inner_(inner ? std::move(inner) : throw bad_input("framed backend: no backend to frame")),
      framing_(framing),
      router_(inner_->topology()) {
  if (framing_.mtu_bytes == 0) throw bad_input("framed backend: mtu must be > 0");
}

StepResult FramedBackend::time_step(std::span<const Flow> flows, const StepOptions& options) {
  scratch_.assign(flows.begin(), flows.end());
  const uint64_t mtu = framing_.mtu_bytes, header = framing_.header_bytes;
  std::vector<uint64_t> packets(flows.size());
  for (size_t i = 0; i < flows.size(); ++i) {
    packets[i] = (flows[i].bytes + mtu - 1) / mtu;
    scratch_[i].bytes += packets[i] * header;
  }
  if (framing_.control_per_packet > 0)
    for (size_t i = 0; i < flows.size(); ++i)
      if (packets[i] > 0)
        // A distinct ECMP key (so a sprayed or hashed reverse path is its own) per flow.
        scratch_.push_back({flows[i].dst, flows[i].src,
                            packets[i] * framing_.control_per_packet * header,
                            flows[i].id ^ 0xc0ffee0000000000ull});
  StepResult inner = inner_->time_step(scratch_, options);
  StepResult out;
  out.flows.assign(inner.flows.begin(), inner.flows.begin() + flows.size());
  const auto& links = inner_->topology().links();
  for (size_t i = 0; i < flows.size(); ++i) {
    out.flows[i].packets = packets[i];
    // Store and forward: the first packet crosses every link whole before the next link starts
    // it; the flow-level time already holds one serialisation over the slowest link.
    path_.clear();
    router_.append_path(flows[i].src, flows[i].dst, flows[i].id, path_);
    const double first = static_cast<double>(std::min<uint64_t>(flows[i].bytes, mtu) + header);
    double sum = 0, slowest = 0;
    for (int l : path_) {
      const double t = first / links[l].bandwidth_Bps;
      sum += t;
      slowest = std::max(slowest, t);
    }
    if (packets[i] > 0) out.flows[i].finish_s += sum - slowest;
    out.duration_s = std::max(out.duration_s, out.flows[i].finish_s);
  }
  return out;
}

}  // namespace commlab
