// Trimmable packets (codec/lossy/trim_packet.h, trim_format.h): encode a tensor into packets, cut
// any packet to k bytes as a switch would, decode whatever prefixes arrived.

#include <stdexcept>
#include <vector>

#include "bindings.h"
#include "codec/lossy/trim_packet.h"

namespace commlab::python {

namespace {

using trim::TrimConfig;

// A TrimConfig from TrimConfig(...)'s arguments; a refusal names the argument at fault.
TrimConfig make_config(const std::string& encoding, int head_bits, size_t payload_bytes,
                       const std::string& wire, uint64_t seed, bool unbiased,
                       size_t coords_per_packet) {
  TrimConfig c{named("encoding", [&] { return trim::parse_encoding(encoding); }),
               head_bits,
               payload_bytes,
               named("wire", [&] { return parse_dtype(wire); }),
               seed,
               unbiased,
               coords_per_packet};
  trim::validate(c);
  return c;
}

std::vector<py::array_t<uint8_t>> encode_packets(const py::array& values, const TrimConfig& c,
                                                 int sender, uint64_t stream) {
  auto packets = trim::encode_packets(const_float_span(values, "trim.encode_packets values"), c,
                                      sender, stream);
  std::vector<py::array_t<uint8_t>> out;
  for (const auto& p : packets) out.push_back(to_numpy(p));
  return out;
}

// Decodes received (possibly cut) packets into `count` values; returns (values, stats dict).
py::tuple decode_packets(const std::vector<py::array_t<uint8_t>>& received, const TrimConfig& c,
                         size_t count) {
  std::vector<std::span<const std::byte>> spans;
  for (size_t i = 0; i < received.size(); ++i)
    spans.push_back(byte_span(received[i], "trim.decode_packets packet " + std::to_string(i)));
  py::array_t<float> out(static_cast<py::ssize_t>(count));
  trim::DecodeStats stats;
  Result<size_t> n = trim::decode_packets(spans, c, {out.mutable_data(), count}, &stats);
  if (!n) throw StatusError("received", "trim.decode_packets: " + n.error());
  py::dict s;
  s["packets"] = stats.packets;
  s["packets_trimmed"] = stats.packets_trimmed;
  s["coordinates"] = stats.coordinates;
  s["exact_coordinates"] = stats.exact_coordinates;
  s["bits_per_coordinate"] = stats.bits_per_coordinate();
  s["effective_bits_per_coordinate"] = stats.effective_bits_per_coordinate();
  return py::make_tuple(out, s);
}

}  // namespace

void bind_trim(py::module_& m) {
  py::module_ t = m.def_submodule("trim", "Trimmable packets (docs/formats.md)");
  py::class_<TrimConfig>(t, "TrimConfig")
      .def(py::init(&make_config), py::arg("encoding") = "eden", py::arg("head_bits") = 1,
           py::arg("payload_bytes") = 4096, py::arg("wire") = "fp32", py::arg("seed") = 0,
           py::arg("unbiased") = true, py::arg("coords_per_packet") = 0)
      .def_property_readonly("encoding",
                             [](const TrimConfig& c) { return trim::encoding_name(c.encoding); })
      .def_readonly("head_bits", &TrimConfig::head_bits)
      .def_readonly("payload_bytes", &TrimConfig::payload_bytes)
      .def_property_readonly("coords_per_packet",
                             [](const TrimConfig& c) { return trim::coords_per_packet(c); });
  t.def("encode_packets", &encode_packets, py::arg("values"), py::arg("config"),
        py::arg("sender") = 0, py::arg("stream") = 0,
        "Cuts float32 values into self-contained trimmable packets (uint8 arrays)");
  t.def(
      "trim_size",
      [](const py::array& packet, int bits) {
        Result<size_t> n = trim::packet_trim_size(byte_span(packet, "trim.trim_size packet"), bits);
        if (!n) throw StatusError("packet", "trim.trim_size: " + n.error());
        return *n;
      },
      py::arg("packet"), py::arg("bits"),
      "Bytes of the packet to keep so that every coordinate keeps `bits` head bits");
  t.def(
      "trim_packet",
      [](const py::array_t<uint8_t>& packet, size_t k) {
        std::span<const std::byte> bytes = byte_span(packet, "trim.trim_packet packet");
        return to_numpy(bytes.first(std::min(k, bytes.size())));
      },
      py::arg("packet"), py::arg("k"), "The first k bytes: what a switch leaves of the packet");
  t.def("decode_packets", &decode_packets, py::arg("received"), py::arg("config"), py::arg("count"),
        "Decodes (possibly trimmed) packets into count values; lost packets read as zeros");
}

}  // namespace commlab::python
