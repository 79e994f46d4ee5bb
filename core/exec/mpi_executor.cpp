#include "exec/mpi_executor.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "collective/codec_wire.h"
#include "exec/rank_step.h"
#include "io/status.h"
#include "numeric/rng.h"
#if COMMLAB_HAVE_MPI
#include "exec/mpi_detail.h"
#endif

namespace commlab::exec {

#if COMMLAB_HAVE_MPI

namespace {

// Both ends derive a transfer's tag from (step parity, index in the step); MPI's non-overtaking
// rule keeps consecutive steps apart.
int tag_of(size_t step, size_t index) {
  return static_cast<int>(((step & 1) << 24) | (index & 0xFFFFFF));
}

int byte_count(uint64_t bytes) {
  if (bytes > static_cast<uint64_t>(INT32_MAX))
    throw std::logic_error("mpi executor: a transfer of " + std::to_string(bytes) +
                           " bytes exceeds MPI's int count (2 GiB)");
  return static_cast<int>(bytes);
}

bool overlaps(const Transfer& a, const Transfer& b) {
  return a.offset < b.offset + b.count && b.offset < a.offset + a.count && a.count && b.count;
}

}  // namespace

MpiExecutor::MpiExecutor(const MpiRuntime& runtime) : rt_(runtime) {
  MPI_Comm comm;
  MPI_Comm_dup(world(rt_), &comm);
  comm_ = comm;
}

MpiExecutor::~MpiExecutor() {
  MPI_Comm comm = static_cast<MPI_Comm>(comm_);
  MPI_Comm_free(&comm);
}

MpiCollectiveReport MpiExecutor::run(const Plan& plan, std::span<float> buffer,
                                     const MpiExecOptions& options) {
  if (plan.ranks != rt_.size())
    throw bad_input("mpi executor: the plan has " + std::to_string(plan.ranks) +
                    " ranks but the job has " + std::to_string(rt_.size()) + " processes");
  if (buffer.size() < plan.count) throw std::logic_error("mpi executor: buffer too short");
  const MPI_Comm comm = static_cast<MPI_Comm>(comm_);
  const int me = rt_.rank();
  Fp32Wire fp32;
  TransferCodec& codec = options.codec ? *options.codec : fp32;
  const bool identity = codec.identity();
  auto* trim = dynamic_cast<TrimWire*>(&codec);
  const bool cut = trim && options.trim_rate > 0;
  MpiCollectiveReport report;
  std::vector<MPI_Request> requests;
  std::vector<char> to_buffer;
  std::vector<std::byte> slotted;
  const double start = MPI_Wtime();

  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const PlanStep& step = plan.steps[s];
    if (step.repeat != 1)
      throw std::logic_error("mpi executor: folded (time-only) plans cannot run for real");
    rt_.fault_point();
    auto [sends, recvs] = rank_transfers(step, me);
    if (send_wire_.size() < sends.size()) send_wire_.resize(sends.size());
    if (recv_wire_.size() < recvs.size()) recv_wire_.resize(recvs.size());
    if (recv_values_.size() < recvs.size()) recv_values_.resize(recvs.size());
    requests.assign(sends.size() + recvs.size(), MPI_REQUEST_NULL);
    to_buffer.assign(recvs.size(), 0);
    const std::string what = "step " + std::to_string(s + 1) + " of " +
                             std::to_string(plan.steps.size()) + " (" + step.phase + ")";

    if (identity) {
      // FP32: receive straight into the buffer where nothing this rank sends in the step is
      // overwritten (what the simulator's reads_untouched() checks for all ranks), else a scratch.
      for (size_t k = 0; k < recvs.size(); ++k) {
        const Transfer& t = step.transfers[recvs[k]];
        bool clash = t.reduce;
        for (size_t i : sends) clash |= overlaps(t, step.transfers[i]);
        to_buffer[k] = !clash;
        float* target = buffer.data() + t.offset;
        if (clash) {
          recv_values_[k].resize(t.count);
          target = recv_values_[k].data();
        }
        MPI_Irecv(target, byte_count(t.count * sizeof(float)), MPI_BYTE, t.src, tag_of(s, recvs[k]),
                  comm, &requests[k]);
      }
      for (size_t k = 0; k < sends.size(); ++k) {
        const Transfer& t = step.transfers[sends[k]];
        MPI_Isend(buffer.data() + t.offset, byte_count(t.count * sizeof(float)), MPI_BYTE, t.dst,
                  tag_of(s, sends[k]), comm, &requests[recvs.size() + k]);
        report.bytes_sent += t.count * sizeof(float);
      }
      wait_all(rt_, requests, what);
    } else {
      // Encode from the buffer as it is at the start of the step (before any of its reductions).
      for (size_t k = 0; k < sends.size(); ++k) {
        const Transfer& t = step.transfers[sends[k]];
        WireContext ctx{&t, s, options.iteration, options.bucket};
        const double t0 = MPI_Wtime();
        std::vector<std::byte>& wire = send_wire_[k];
        codec.encode(ctx, buffer.subspan(t.offset, t.count), wire);
        if (cut)  // the switch cuts trimmed packets: only their kept bytes travel
          report.packets_trimmed +=
              cut_packets(wire, trim_cuts(*trim, ctx, options.trim_rate, options.trim_seed),
                          trim->config().payload_bytes);
        report.codec_s += MPI_Wtime() - t0;
        MPI_Isend(wire.data(), byte_count(wire.size()), MPI_BYTE, t.dst, tag_of(s, sends[k]), comm,
                  &requests[recvs.size() + k]);
        report.bytes_sent += wire.size();
      }
      for (size_t k = 0; k < recvs.size(); ++k) {
        const Transfer& t = step.transfers[recvs[k]];
        int bytes = 0;
        MPI_Message message = wait_message(rt_, comm, t.src, tag_of(s, recvs[k]), what, &bytes);
        recv_wire_[k].resize(bytes);
        MPI_Imrecv(recv_wire_[k].data(), bytes, MPI_BYTE, &message, &requests[k]);
      }
      wait_all(rt_, requests, what);
    }

    // Decode and reduce in plan order, as execute_plan does for each receiver.
    for (size_t k = 0; k < recvs.size(); ++k) {
      const Transfer& t = step.transfers[recvs[k]];
      float* dst = buffer.data() + t.offset;
      const float* src = recv_values_[k].data();
      report.payload_bytes += t.count * sizeof(float);
      if (identity) {
        if (to_buffer[k]) continue;
        if (!t.reduce) {
          std::copy(src, src + t.count, dst);
          continue;
        }
      } else {
        WireContext ctx{&t, s, options.iteration, options.bucket};
        const double t0 = MPI_Wtime();
        std::span<const std::byte> wire = recv_wire_[k];
        if (cut) {  // put the kept bytes back in their slots; TrimWire redraws the same cuts
          reslot_packets(wire, trim_cuts(*trim, ctx, options.trim_rate, options.trim_seed),
                         trim->config().payload_bytes, slotted);
          wire = slotted;
        }
        decode_into(codec, ctx, wire, nullptr, buffer, recv_values_[k]);
        report.codec_s += MPI_Wtime() - t0;
        continue;
      }
      for (uint64_t e = 0; e < t.count; ++e) dst[e] += src[e];
    }
    report.steps += 1;
  }
  // Unbiased SkipReduce: the same rescaling execute_plan applies, on this rank's copy.
  apply_chunk_scale(plan, me, buffer);
  report.time_s = MPI_Wtime() - start;
  return report;
}

#else  // without MPI there is no job to run in (the runtime refuses to start first)

MpiExecutor::MpiExecutor(const MpiRuntime& runtime) : rt_(runtime) {
  throw MpiUnavailable(launch_hint("collective"));
}
MpiExecutor::~MpiExecutor() = default;
MpiCollectiveReport MpiExecutor::run(const Plan&, std::span<float>, const MpiExecOptions&) {
  throw MpiUnavailable(launch_hint("collective"));
}

#endif

}  // namespace commlab::exec
