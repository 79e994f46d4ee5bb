// The Python module commlab._commlab: the engine's codecs, collective plans, trimmable packets and
// simulator entry points on NumPy buffers (docs/python.md). Everything here calls the engine; the
// data plane and the time plane are the ones commlab-cli runs.
#include <cstring>
#include <stdexcept>

#include "bindings.h"

namespace commlab::python {

namespace {

const py::array& checked(const py::array& array, const std::string& what) {
  if (!(array.flags() & py::array::c_style))
    throw std::invalid_argument(what +
                                ": expected a C-contiguous array (use numpy.ascontiguousarray)");
  return array;
}

}  // namespace

std::span<float> float_span(py::array& array, const std::string& what) {
  if (!array.dtype().is(py::dtype::of<float>()))
    throw std::invalid_argument(what + ": expected a float32 array, got dtype " +
                                std::string(py::str(array.dtype())));
  checked(array, what);
  if (!array.writeable()) throw std::invalid_argument(what + ": the array is read-only");
  return {static_cast<float*>(array.mutable_data()), static_cast<size_t>(array.size())};
}

std::span<const float> const_float_span(const py::array& array, const std::string& what) {
  if (!array.dtype().is(py::dtype::of<float>()))
    throw std::invalid_argument(what + ": expected a float32 array, got dtype " +
                                std::string(py::str(array.dtype())));
  checked(array, what);
  return {static_cast<const float*>(array.data()), static_cast<size_t>(array.size())};
}

std::span<const std::byte> byte_span(const py::array& array, const std::string& what) {
  checked(array, what);
  return {static_cast<const std::byte*>(array.data()), static_cast<size_t>(array.nbytes())};
}

// Every Status the engine reports reaches Python with its three parts: bad input raises
// commlab.InvalidInput (a ValueError) with .field, .code and .message, str() the engine's line
// "field: message"; a failed run or an internal error raises RuntimeError with that line. Plain
// std::invalid_argument (bad input without a field) maps the same way, field "".
void register_errors(py::module_& m) {
  static py::exception<StatusError> invalid_input(m, "InvalidInput", PyExc_ValueError);
  invalid_input.doc() =
      "Bad input: .field names the argument at fault ('' if none), .code is 'bad_input', "
      ".message says what was expected";
  py::register_exception_translator([](std::exception_ptr p) {
    const auto raise = [](const Status& s) {
      if (s.code != ErrorCode::kBadInput) {
        PyErr_SetString(PyExc_RuntimeError, s.text().c_str());
        return;
      }
      py::object error = py::reinterpret_borrow<py::object>(invalid_input.ptr())(s.text());
      error.attr("field") = s.field;
      error.attr("code") = code_name(s.code);
      error.attr("message") = s.message;
      PyErr_SetObject(invalid_input.ptr(), error.ptr());
    };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      raise(e.status);
    } catch (const std::invalid_argument& e) {
      raise(Status{ErrorCode::kBadInput, "", e.what()});
    }
  });
}

py::array_t<uint8_t> to_numpy(std::span<const std::byte> bytes) {
  py::array_t<uint8_t> out(static_cast<py::ssize_t>(bytes.size()));
  if (!bytes.empty()) std::memcpy(out.mutable_data(), bytes.data(), bytes.size());
  return out;
}

}  // namespace commlab::python

PYBIND11_MODULE(_commlab, m) {
  using namespace commlab::python;
  m.doc() = "CommLab's engine: codecs, collective plans, trimmable packets, simulator";
  register_errors(m);
  bind_codecs(m);
  bind_collective(m);
  bind_rank_stepper(m);
  bind_trim(m);
  bind_simulator(m);
}
