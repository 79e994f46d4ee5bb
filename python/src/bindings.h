#pragma once
// Shared pieces of the pybind11 module: one bind_* function per engine area, and the checks that
// turn NumPy buffers into spans (C-contiguous, right dtype) or refuse them with a clear message.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // in every file: type casters must agree across the module

#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "collective/wire.h"
#include "io/status.h"

namespace commlab::python {

namespace py = pybind11;

void bind_codecs(py::module_& m);
void bind_collective(py::module_& m);
void bind_rank_stepper(py::module_& m);
void bind_trim(py::module_& m);
void bind_simulator(py::module_& m);
// commlab.InvalidInput and the translation of the engine's errors (commlab_module.cpp).
void register_errors(py::module_& m);

// A float32 array as a mutable span (std::invalid_argument naming `what` otherwise).
std::span<float> float_span(py::array& array, const std::string& what);
std::span<const float> const_float_span(const py::array& array, const std::string& what);
// Any C-contiguous array's bytes.
std::span<const std::byte> byte_span(const py::array& array, const std::string& what);
py::array_t<uint8_t> to_numpy(std::span<const std::byte> bytes);

// `parse()`, a refusal of which names `field` (the Python argument): the engine's parsers of names
// (codecs, dtypes, encodings) refuse without a field, as every door names it its own way.
template <typename Parse>
auto named(const char* field, Parse parse) {
  try {
    return parse();
  } catch (const std::invalid_argument& e) {
    throw StatusError(field, e.what());
  }
}

// A wire format of a collective's transfers (collective/wire.h), shared by Python objects.
struct Wire {
  std::shared_ptr<TransferCodec> codec;
  double trim_rate = 0;  // Wire.trim: Bernoulli rate and seed of its TrimWire (0: none)
  uint64_t trim_seed = 0;
};

}  // namespace commlab::python
