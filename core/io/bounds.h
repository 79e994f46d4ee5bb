#pragma once
// A closed range a number field accepts, and the one wording of a refusal: "expected 1 to 4096,
// got 0" ("expected 2 to 16 ranks, got 99" with a unit). The settings constructors check their
// fields with it, and the flag checks of commlab-cli and the desktop app (cli/util/
// flag_parse_util.h in_range) are built from the same Bounds, so a value outside a range is
// refused with the same words at every door.
#include <optional>
#include <string>
#include <type_traits>

#include "io/size_parse.h"
#include "io/status.h"

namespace commlab {

template <typename T>
struct Bounds {
  T lo{};
  T hi{};
  const char* unit = "";  // said after the range: "ranks"; "" for none
  // False for NaN (every comparison with it is).
  constexpr bool contains(T v) const { return v >= lo && v <= hi; }
};

// A number as the refusals print it: integers in full, others as limit_text does ("0.05").
template <typename T>
std::string range_value_text(T v) {
  if constexpr (std::is_integral_v<T>)
    return std::to_string(v);
  else
    return limit_text(static_cast<double>(v));
}

// "expected LO to HI[ unit], got GOT", `got` as the caller shows the value.
template <typename T>
std::string range_refusal(const Bounds<T>& b, const std::string& got) {
  std::string unit = *b.unit ? std::string(" ") + b.unit : std::string();
  return "expected " + range_value_text(b.lo) + " to " + range_value_text(b.hi) + unit + ", got " +
         got;
}

// A bad-input Status naming `field` when `value` is outside `b`.
template <typename T>
std::optional<Status> out_of_range(const std::string& field, T value, const Bounds<T>& b) {
  if (b.contains(value)) return std::nullopt;
  return invalid_input(field, range_refusal(b, range_value_text(value)));
}

}  // namespace commlab
