// One rank's side of a plan for a transport written in Python (the PyTorch hooks): the engine
// encodes what this rank sends and decodes and reduces what it receives (exec/rank_step.h), the
// hook only moves bytes. Receives must be applied in the order recvs() lists them, as the
// simulated executor applies them; the buffer then matches execute()'s bit for bit.

#include <optional>
#include <stdexcept>
#include <vector>

#include "bindings.h"
#include "exec/rank_step.h"

namespace commlab::python {

namespace {

class RankStepper {
 public:
  RankStepper(Plan plan, int rank, const Wire* wire, uint64_t iteration, int bucket)
      : plan_(std::move(plan)), rank_(rank), iteration_(iteration), bucket_(bucket) {
    if (rank < 0 || rank >= plan_.ranks)
      throw std::invalid_argument("RankStepper: rank " + std::to_string(rank) + " outside 0.." +
                                  std::to_string(plan_.ranks - 1));
    for (const PlanStep& step : plan_.steps)
      if (step.repeat != 1)
        throw std::invalid_argument("RankStepper: the plan was built time_only (folded steps)");
    codec_ = wire ? wire->codec : std::make_shared<Fp32Wire>();
    trim_ = dynamic_cast<TrimWire*>(codec_.get());
    if (trim_) trim_rate_ = wire->trim_rate, trim_seed_ = wire->trim_seed;
  }

  size_t steps() const { return plan_.steps.size(); }
  std::vector<size_t> sends(size_t s) const { return exec::rank_transfers(step(s), rank_).sends; }
  std::vector<size_t> recvs(size_t s) const { return exec::rank_transfers(step(s), rank_).recvs; }
  const Transfer& transfer(size_t s, size_t i) const {
    if (i >= step(s).transfers.size())
      throw std::invalid_argument("RankStepper: step " + std::to_string(s) + " has " +
                                  std::to_string(step(s).transfers.size()) + " transfers, not " +
                                  std::to_string(i + 1));
    return step(s).transfers[i];
  }
  size_t packets(size_t s, size_t i) const {
    if (!trim_) throw std::invalid_argument("RankStepper.packets: the wire is not trimmable");
    return exec::packet_count(*trim_, transfer(s, i).count);
  }

  // The packets of transfer i of step s that Bernoulli trimming at `rate` with `seed` cuts (the
  // draws TrimWire makes), as a mask: 1 = cut to the head bits.
  py::array_t<uint8_t> bernoulli_mask(size_t s, size_t i, double rate, uint64_t seed) const {
    if (!trim_)
      throw std::invalid_argument("RankStepper.bernoulli_mask: the wire is not trimmable");
    WireContext ctx{&transfer(s, i), s, iteration_, bucket_};
    std::vector<exec::PacketCut> cuts = exec::trim_cuts(*trim_, ctx, rate, seed);
    py::array_t<uint8_t> mask(static_cast<py::ssize_t>(cuts.size()));
    for (size_t p = 0; p < cuts.size(); ++p) mask.mutable_data()[p] = cuts[p].keep < cuts[p].size;
    return mask;
  }

  // Encodes transfer i of step s from `buffer` as it is now (before the step's receives).
  py::array_t<uint8_t> encode(size_t s, size_t i, const py::array& buffer,
                              std::optional<py::array_t<uint8_t>> mask) {
    const Transfer& t = own(s, i, t_src);
    std::span<const float> values = const_float_span(buffer, "RankStepper.encode buffer");
    check_length(values.size());
    WireContext ctx{&t, s, iteration_, bucket_};
    std::vector<std::byte> wire;
    codec_->encode(ctx, values.subspan(t.offset, t.count), wire);
    if (auto cuts = cuts_for(ctx, mask)) exec::cut_packets(wire, *cuts, slot());
    return to_numpy(wire);
  }

  // Decodes transfer i of step s from the received bytes and reduces or copies it into `buffer`.
  void receive(size_t s, size_t i, py::array& buffer, const py::array& received,
               std::optional<py::array_t<uint8_t>> mask) {
    const Transfer& t = own(s, i, t_dst);
    std::span<float> values = float_span(buffer, "RankStepper.receive buffer");
    check_length(values.size());
    WireContext ctx{&t, s, iteration_, bucket_};
    std::span<const std::byte> wire = byte_span(received, "RankStepper.receive bytes");
    std::optional<FlowResult> fate;
    if (auto cuts = cuts_for(ctx, mask)) {
      exec::reslot_packets(wire, *cuts, slot(), slotted_);
      wire = slotted_;
      // Bernoulli cuts: TrimWire::decode redraws them; a mask's reach it as the packets' fates.
      if (mask) fate = exec::fates_of(*cuts);
    }
    exec::decode_into(*codec_, ctx, wire, fate ? &*fate : nullptr, values, scratch_);
  }

  void finish(py::array& buffer) {
    std::span<float> values = float_span(buffer, "RankStepper.finish buffer");
    check_length(values.size());
    exec::apply_chunk_scale(plan_, rank_, values);
  }

 private:
  static constexpr bool t_src = true, t_dst = false;
  const PlanStep& step(size_t s) const {
    if (s >= plan_.steps.size())
      throw std::invalid_argument("RankStepper: the plan has " +
                                  std::to_string(plan_.steps.size()) + " steps, not " +
                                  std::to_string(s + 1));
    return plan_.steps[s];
  }
  const Transfer& own(size_t s, size_t i, bool as_src) const {
    const Transfer& t = transfer(s, i);
    if ((as_src ? t.src : t.dst) != rank_)
      throw std::invalid_argument("RankStepper: transfer " + std::to_string(i) + " of step " +
                                  std::to_string(s) + " is not " + (as_src ? "sent" : "received") +
                                  " by rank " + std::to_string(rank_));
    return t;
  }
  void check_length(size_t n) const {
    if (n != plan_.count)
      throw std::invalid_argument("RankStepper: buffer of " + std::to_string(n) +
                                  " values, the plan has " + std::to_string(plan_.count));
  }
  size_t slot() const { return trim_->config().payload_bytes; }
  // The packets the switch cuts: given by a mask (one byte per packet, non-zero = trimmed), or
  // drawn (Bernoulli trim_rate); none without a trimmable wire.
  std::optional<std::vector<exec::PacketCut>> cuts_for(
      const WireContext& ctx, const std::optional<py::array_t<uint8_t>>& mask) const {
    if (mask) {
      if (!trim_) throw std::invalid_argument("RankStepper: a trim mask needs a Wire.trim wire");
      if (trim_rate_ > 0)
        throw std::invalid_argument(
            "RankStepper: a trim mask needs a Wire.trim without a Bernoulli rate");
      return exec::mask_cuts(*trim_, ctx, {mask->data(), static_cast<size_t>(mask->size())});
    }
    if (trim_ && trim_rate_ > 0) return exec::trim_cuts(*trim_, ctx, trim_rate_, trim_seed_);
    return std::nullopt;
  }

  Plan plan_;
  int rank_;
  uint64_t iteration_;
  int bucket_;
  double trim_rate_ = 0;  // the trim wire's Bernoulli rate: the sender cuts what it draws
  uint64_t trim_seed_ = 0;
  std::shared_ptr<TransferCodec> codec_;
  TrimWire* trim_ = nullptr;
  std::vector<std::byte> slotted_;
  std::vector<float> scratch_;
};

}  // namespace

void bind_rank_stepper(py::module_& m) {
  py::class_<RankStepper>(m, "RankStepper",
                          "One rank's side of a plan: encode its sends, decode and reduce its "
                          "receives (exec/rank_step.h)")
      .def(py::init<Plan, int, const Wire*, uint64_t, int>(), py::arg("plan"), py::arg("rank"),
           py::arg("wire") = nullptr, py::arg("iteration") = 0, py::arg("bucket") = 0)
      .def_property_readonly("steps", &RankStepper::steps)
      .def("sends", &RankStepper::sends, py::arg("step"), "Transfer indices this rank sends")
      .def("recvs", &RankStepper::recvs, py::arg("step"),
           "Transfer indices this rank receives, in the order to apply them")
      .def("transfer", &RankStepper::transfer, py::arg("step"), py::arg("index"))
      .def("packets", &RankStepper::packets, py::arg("step"), py::arg("index"),
           "Trimmable packets of a transfer (the length of its trim mask)")
      .def("bernoulli_mask", &RankStepper::bernoulli_mask, py::arg("step"), py::arg("index"),
           py::arg("rate"), py::arg("seed"))
      .def("encode", &RankStepper::encode, py::arg("step"), py::arg("index"), py::arg("buffer"),
           py::arg("mask") = py::none())
      .def("receive", &RankStepper::receive, py::arg("step"), py::arg("index"), py::arg("buffer"),
           py::arg("received"), py::arg("mask") = py::none())
      .def("finish", &RankStepper::finish, py::arg("buffer"),
           "Unbiased SkipReduce's rescaling, after the last step");
}

}  // namespace commlab::python
