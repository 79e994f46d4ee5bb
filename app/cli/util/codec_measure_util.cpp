#include "cli/util/codec_measure_util.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "codec/plane_entropy.h"
#include "codec/value_cast.h"

namespace commlab::cli {
namespace {

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

double gbps(uint64_t bytes, double seconds) {
  return double(bytes) / std::max(seconds, 1e-9) / 1e9;
}

}  // namespace

double Measured::ratio() const {
  return in_bytes == 0 ? 0.0 : double(out_bytes) / double(in_bytes);
}
double Measured::encode_gbps() const {
  return gbps(in_bytes, encode_seconds);
}
double Measured::decode_gbps() const {
  return gbps(in_bytes, decode_seconds);
}

void Measured::add(const Measured& o) {
  if (!o.ok && ok) ok = false, error = o.error;
  lossless = lossless && o.lossless;
  in_bytes += o.in_bytes, out_bytes += o.out_bytes;
  encode_seconds += o.encode_seconds, decode_seconds += o.decode_seconds;
  err.count += o.err.count;
  err.changed += o.err.changed;
  err.changed_fraction = err.count ? double(err.changed) / double(err.count) : 0.0;
  err.nonfinite_mismatches += o.err.nonfinite_mismatches;
  err.max_abs_error = std::max(err.max_abs_error, o.err.max_abs_error);
  err.max_rel_error = std::max(err.max_rel_error, o.err.max_rel_error);
  err.bit_exact = err.bit_exact && o.err.bit_exact;
}

Measured measure_codec(const std::string& name, std::span<const std::byte> in, DType dtype) {
  Measured m;
  m.in_bytes = in.size();
  double best_enc = 1e30, best_dec = 1e30;
  std::vector<std::byte> out(in.size());
  for (int rep = 0; rep < 3; ++rep) {
    auto codec = make_codec(name);
    m.lossless = codec->lossless();
    std::vector<std::byte> frame(codec->bound(in.size()));
    double t0 = cpu_seconds();
    Result<size_t> r = codec->encode(in, dtype, frame);
    double t1 = cpu_seconds();
    if (!r.ok()) {
      m.error = r.error();
      return m;
    }
    m.out_bytes = *r;
    auto decoder = make_codec(name);
    double t2 = cpu_seconds();
    Result<size_t> d = decoder->decode(std::span(frame).first(*r), out);
    double t3 = cpu_seconds();
    if (!d.ok()) {
      m.error = "decode: " + d.error();
      return m;
    }
    best_enc = std::min(best_enc, t1 - t0);
    best_dec = std::min(best_dec, t3 - t2);
    if (name == "zstd-19" || name == "bytegroup-zstd") break;  // slow: one repetition
  }
  m.ok = true;
  m.encode_seconds = best_enc, m.decode_seconds = best_dec;
  m.err = compare_values(in, out, dtype);
  return m;
}

nlohmann::json measured_json(const std::string& name, const Measured& m) {
  return {{"name", name},
          {"ratio", m.ratio()},
          {"lossless", m.err.bit_exact},
          // null when infinite (JSON has no infinity): see nonfinite_mismatches
          {"max_abs_error",
           m.err.nonfinite_mismatches ? nlohmann::json() : nlohmann::json(m.err.max_abs_error)},
          {"nonfinite_mismatches", m.err.nonfinite_mismatches},
          {"changed_fraction", m.err.changed_fraction},
          {"encode_gbps", m.encode_gbps()},
          {"decode_gbps", m.decode_gbps()}};
}

EntropyBounds entropy_bounds(std::span<const std::byte> in, DType dtype) {
  const size_t width = dtype_size(dtype), count = in.size() / width;
  std::vector<float> values(count);
  cast_to_float(in, dtype, values);
  EntropyBounds b;
  b.bytes = in.size();
  b.plane_bits = byte_plane_entropy(values, dtype);
  double sum = 0;
  for (double h : b.plane_bits) sum += h;
  b.byte_plane_bound = sum / (8.0 * static_cast<double>(width));
  if (width == 2 && count > 0) {
    std::vector<uint32_t> hist(1 << 16, 0);
    for (size_t i = 0; i < count; ++i) {
      uint16_t v;
      std::memcpy(&v, in.data() + 2 * i, 2);
      ++hist[v];
    }
    double h = 0;
    for (uint32_t c : hist)
      if (c) h -= static_cast<double>(c) / count * std::log2(static_cast<double>(c) / count);
    b.value_bound = h / 16.0;
  }
  return b;
}

EntropyBounds combined_bounds(const std::vector<EntropyBounds>& parts) {
  if (parts.size() == 1) return parts[0];
  EntropyBounds total;
  bool same_width = true, all_values = true;
  for (const EntropyBounds& p : parts) {
    total.bytes += p.bytes;
    same_width = same_width && p.plane_bits.size() == parts[0].plane_bits.size();
    all_values = all_values && p.value_bound.has_value();
  }
  const double denominator = std::max<double>(double(total.bytes), 1.0);
  if (same_width) total.plane_bits.assign(parts[0].plane_bits.size(), 0.0);
  if (all_values) total.value_bound = 0.0;
  for (const EntropyBounds& p : parts) {
    const double weight = double(p.bytes) / denominator;
    total.byte_plane_bound += weight * p.byte_plane_bound;
    if (all_values) *total.value_bound += weight * *p.value_bound;
    for (size_t i = 0; same_width && i < p.plane_bits.size(); ++i)
      total.plane_bits[i] += weight * p.plane_bits[i];
  }
  return total;
}

nlohmann::json entropy_json(const EntropyBounds& b) {
  return {{"plane_entropy_bits",
           b.plane_bits.empty() ? nlohmann::json() : nlohmann::json(b.plane_bits)},
          {"byte_plane_bound", b.byte_plane_bound},
          {"value_bound", b.value_bound ? nlohmann::json(*b.value_bound) : nlohmann::json()}};
}

}  // namespace commlab::cli
