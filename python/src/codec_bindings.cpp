// Codecs (codec/codec.h) on NumPy buffers: encode to a frame, decode, ratio, lossless check.
#include <cstring>
#include <stdexcept>
#include <vector>

#include "bindings.h"
#include "codec/codec.h"

namespace commlab::python {

namespace {

// The dtype of an array's values: given by name, or float32 -> fp32, float16 -> fp16 and 16-bit
// integers (BF16 bit patterns, e.g. torch's bf16 tensor .view(torch.int16).numpy()) -> bf16.
DType dtype_of(const py::array& values, const std::string& given) {
  const DType dtype = [&] {
    if (!given.empty()) return named("dtype", [&] { return parse_dtype(given); });
    const char kind = values.dtype().kind();
    if (kind == 'f' && values.itemsize() == 4) return DType::kFp32;
    if (kind == 'f' && values.itemsize() == 2) return DType::kFp16;
    if ((kind == 'u' || kind == 'i') && values.itemsize() == 2) return DType::kBf16;
    throw StatusError("dtype", "codec: values of dtype " + std::string(py::str(values.dtype())) +
                                   " need dtype='bf16', 'fp16' or 'fp32'");
  }();
  if (static_cast<size_t>(values.itemsize()) != dtype_size(dtype))
    throw StatusError("dtype", "codec: dtype " + std::string(dtype_name(dtype)) + " has " +
                                   std::to_string(dtype_size(dtype)) +
                                   "-byte values, the array's items are " +
                                   std::to_string(values.itemsize()) + " bytes");
  return dtype;
}

std::vector<std::byte> encode(Codec& codec, const py::array& values, DType dtype) {
  std::span<const std::byte> in = byte_span(values, "codec.encode");
  if (in.empty()) throw StatusError("values", "codec.encode: empty values");
  std::vector<std::byte> frame(codec.bound(in.size()));
  Result<size_t> n = codec.encode(in, dtype, frame);
  // What a codec cannot encode is the values it was given (their size, their dtype).
  if (!n) throw StatusError("values", "codec " + codec.name() + ": encode failed: " + n.error());
  frame.resize(*n);
  return frame;
}

// Decoded values as an array of the dtype's width (float32, float16 or uint16 for bf16).
py::array decode(Codec& codec, const py::array& frame_array, DType dtype) {
  std::span<const std::byte> frame = byte_span(frame_array, "codec.decode");
  Result<size_t> size = frame_original_size(frame);
  if (!size) throw StatusError("frame", "codec.decode: bad frame header: " + size.error());
  if (*size % dtype_size(dtype) != 0)
    throw StatusError("frame", "codec.decode: the frame holds " + std::to_string(*size) +
                                   " bytes, not a whole number of " +
                                   std::string(dtype_name(dtype)) + " values");
  py::dtype out_type = dtype == DType::kFp32   ? py::dtype::of<float>()
                       : dtype == DType::kFp16 ? py::dtype("float16")
                                               : py::dtype::of<uint16_t>();
  py::array out(out_type, static_cast<py::ssize_t>(*size / dtype_size(dtype)));
  Result<size_t> n = codec.decode(
      frame, {static_cast<std::byte*>(out.mutable_data()), static_cast<size_t>(*size)});
  if (!n) throw StatusError("frame", "codec " + codec.name() + ": decode failed: " + n.error());
  return out;
}

}  // namespace

void bind_codecs(py::module_& m) {
  m.def("codec_names", &codec_names, "Names of every codec in the registry");
  py::class_<Codec, std::unique_ptr<Codec>>(m, "Codec",
                                            "A codec of the registry (codec/codec.h), by name")
      .def(py::init([](const std::string& name) {
             return named("name", [&] { return make_codec(name); });
           }),
           py::arg("name"))
      .def_property_readonly("name", &Codec::name)
      .def_property_readonly("lossless", &Codec::lossless)
      .def(
          "encode",
          [](Codec& c, const py::array& values, const std::string& dtype) {
            return to_numpy(encode(c, values, dtype_of(values, dtype)));
          },
          py::arg("values"), py::arg("dtype") = "",
          "Encodes values (float32, float16, or 16-bit BF16 patterns) into one frame (uint8)")
      .def(
          "decode",
          [](Codec& c, const py::array& frame, const std::string& dtype) {
            return decode(c, frame, named("dtype", [&] { return parse_dtype(dtype); }));
          },
          py::arg("frame"), py::arg("dtype") = "fp32",
          "Decodes a frame into values of dtype (fp32: float32, fp16: float16, bf16: uint16)")
      .def(
          "ratio",
          [](Codec& c, const py::array& values, const std::string& dtype) {
            const size_t in = static_cast<size_t>(values.nbytes());
            if (in == 0) throw StatusError("values", "codec.ratio: empty values");
            return static_cast<double>(encode(c, values, dtype_of(values, dtype)).size()) /
                   static_cast<double>(in);
          },
          py::arg("values"), py::arg("dtype") = "",
          "Frame bytes / input bytes (below 1: the codec compresses)")
      .def(
          "round_trips",
          [](Codec& c, const py::array& values, const std::string& dtype) {
            const DType d = dtype_of(values, dtype);
            py::array back = decode(c, to_numpy(encode(c, values, d)), d);
            return back.nbytes() == values.nbytes() &&
                   std::memcmp(back.data(), byte_span(values, "codec").data(),
                               static_cast<size_t>(values.nbytes())) == 0;
          },
          py::arg("values"), py::arg("dtype") = "",
          "True when decode(encode(values)) gives the same bytes (a lossless check)")
      .def("reset", &Codec::reset, "Forgets per-stream state (xor-prev, top-k, PowerSGD)");
}

}  // namespace commlab::python
