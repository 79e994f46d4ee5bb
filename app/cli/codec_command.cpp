// commlab-cli codec: compresses the same bytes with each codec and reports ratio, loss and speed
// (contract: ../shared/CLI.md). --verify fails on any lossless codec that does not round-trip.
#include <time.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/command.h"
#include "codec/codec.h"
#include "codec/error_stats.h"
#include "codec/plane_entropy.h"
#include "codec/value_cast.h"
#include "numeric/float16.h"
#include "numeric/input_file.h"
#include "numeric/tensor_gen.h"
#include "train/layers/model_gradients.h"

namespace commlab::cli {
namespace {

struct Options {
  std::string input;
  std::string dtype = "bf16";
  std::string generate;
  size_t count = 1 << 20;
  std::string codecs = "all";
  bool json = false;
  bool verify = false;
  uint64_t seed = 1;
};

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

constexpr uint64_t kMaxCodecInputBytes = 1ull << 30;

std::vector<std::byte> load_input(const Options& o, DType dtype) {
  if (!o.input.empty() && !o.generate.empty())
    throw InvalidInput("give either --input FILE or --generate DIST, not both");
  if (!o.input.empty()) {
    // A regular file of at most 1 GiB (4x that in the encoders' buffers): a FIFO or /dev/zero is
    // refused before it is read.
    std::string raw;
    try {
      raw = read_input_file(o.input, kMaxCodecInputBytes, "input file");
    } catch (const std::invalid_argument& e) {
      throw InvalidInput(std::string("--input ") + e.what());
    }
    if (raw.size() % dtype_size(dtype) != 0)
      throw InvalidInput("--input '" + o.input + "' has " + std::to_string(raw.size()) +
                         " bytes, not a multiple of the " + o.dtype + " element size");
    if (raw.empty())  // a ratio of 0 for nothing measured was reported as a result
      throw InvalidInput("--input '" + o.input + "' is empty (expected " + o.dtype + " values)");
    std::vector<std::byte> out(raw.size());
    if (!raw.empty()) std::memcpy(out.data(), raw.data(), raw.size());
    return out;
  }
  std::string dist = o.generate.empty() ? "gaussian" : o.generate;
  if (dist.rfind("model:", 0) == 0) {
    ModelGradients m;
    try {
      m = model_gradients(dist.substr(6), o.seed);
    } catch (const std::invalid_argument& e) {
      throw InvalidInput(std::string("--generate ") + e.what());
    }
    if (!m.note.empty()) std::cerr << "commlab-cli: " << m.note << "\n";
    std::vector<float>& g = m.values;
    if (g.size() > o.count) g.resize(o.count);  // --count caps the values taken
    return to_dtype_bytes(g, dtype);
  }
  try {
    validate_distribution(dist);
  } catch (const std::invalid_argument& e) {
    throw InvalidInput(std::string("--generate: ") + e.what());
  }
  std::vector<float> v = generate_tensor(dist, o.count, o.seed);
  return to_dtype_bytes(v, dtype);
}

std::vector<std::string> codec_list(const std::string& spec) {
  if (spec == "all") return codec_names();
  std::vector<std::string> names;
  std::stringstream ss(spec);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item.empty()) continue;
    try {
      make_codec(item);
    } catch (const std::invalid_argument& e) {
      throw InvalidInput(std::string("--codecs: ") + e.what());
    }
    names.push_back(item);
  }
  if (names.empty()) throw InvalidInput("--codecs: expected a comma-separated list or 'all'");
  return names;
}

struct Measured {
  bool ok = false;
  std::string error;
  double ratio = 0, enc_gbps = 0, dec_gbps = 0;
  bool lossless = false;
  ErrorStats err;  // NaN and Inf count (ErrorStats::nonfinite_mismatches, issue 21)
};

// Best of three encode/decode pairs on fresh instances (stateful codecs see a first iteration).
Measured measure(const std::string& name, std::span<const std::byte> in, DType dtype) {
  Measured m;
  double best_enc = 1e30, best_dec = 1e30;
  std::vector<std::byte> out(in.size());
  size_t size = 0;
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
    size = *r;
    auto decoder = make_codec(name);
    double t2 = cpu_seconds();
    Result<size_t> d = decoder->decode(std::span(frame).first(size), out);
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
  m.ratio = in.empty() ? 0.0 : double(size) / double(in.size());
  m.enc_gbps = double(in.size()) / std::max(best_enc, 1e-9) / 1e9;
  m.dec_gbps = double(in.size()) / std::max(best_dec, 1e-9) / 1e9;
  m.err = compare_values(in, out, dtype);
  return m;
}

// Order-0 bounds of the input, in ratio units (bits / bits of the dtype): with one code table per
// byte plane, sum_p H(plane p) / (8 * width), what a byte-grouping entropy coder reaches at best
// without context; with one table over whole 16-bit values, H(value) / 16 (null for FP32).
nlohmann::json entropy_bounds(std::span<const std::byte> in, DType dtype) {
  const size_t width = dtype_size(dtype), count = in.size() / width;
  std::vector<float> values(count);
  cast_to_float(in, dtype, values);
  const std::vector<double> planes = byte_plane_entropy(values, dtype);
  double sum = 0;
  for (double h : planes) sum += h;
  nlohmann::json j = {{"plane_entropy_bits", planes},
                      {"byte_plane_bound", sum / (8.0 * static_cast<double>(width))},
                      {"value_bound", nullptr}};
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
    j["value_bound"] = h / 16.0;
  }
  return j;
}

int run(const Options& o) {
  DType dtype;
  try {
    dtype = parse_dtype(o.dtype);
  } catch (const std::invalid_argument& e) {
    throw InvalidInput(std::string("--dtype: ") + e.what());
  }
  if (o.input.empty() && o.count == 0) throw InvalidInput("--count: expected a positive integer");
  // Generated values have the --input cap: --count 10^11 ended in std::bad_alloc (exit 1).
  if (o.count > kMaxCodecInputBytes / dtype_size(dtype))
    throw InvalidInput("--count: expected at most " +
                       std::to_string(kMaxCodecInputBytes / dtype_size(dtype)) + " " + o.dtype +
                       " values (1 GiB, as --input), got " + std::to_string(o.count));
  std::vector<std::string> names = codec_list(o.codecs);
  std::vector<std::byte> in = load_input(o, dtype);
  const size_t count = in.size() / dtype_size(dtype);
  nlohmann::json rows = nlohmann::json::array();
  bool verified = true;
  if (!o.json) {
    std::printf("# commlab codec: %zu %s values (%s)\n", count, o.dtype.c_str(),
                o.input.empty()
                    ? ("--generate " + (o.generate.empty() ? "gaussian" : o.generate)).c_str()
                    : o.input.c_str());
    std::printf("%-22s %8s %9s %9s %12s %10s %10s\n", "codec", "ratio", "lossless", "changed",
                "max_abs_err", "enc(GB/s)", "dec(GB/s)");
  }
  for (const auto& name : names) {
    Measured m = measure(name, in, dtype);
    if (!m.ok) {
      if (!o.json) std::printf("%-22s %s\n", name.c_str(), ("n/a: " + m.error).c_str());
      continue;
    }
    if (m.lossless && !m.err.bit_exact) {
      verified = false;
      std::cerr << "commlab-cli: codec " << name << " did not round-trip bit-exactly\n";
    }
    if (o.json) {
      rows.push_back(
          {{"name", name},
           {"ratio", m.ratio},
           {"lossless", m.err.bit_exact},
           // null when infinite (JSON has no infinity): see nonfinite_mismatches
           {"max_abs_error",
            m.err.nonfinite_mismatches ? nlohmann::json() : nlohmann::json(m.err.max_abs_error)},
           {"nonfinite_mismatches", m.err.nonfinite_mismatches},
           {"changed_fraction", m.err.changed_fraction},
           {"encode_gbps", m.enc_gbps},
           {"decode_gbps", m.dec_gbps}});
    } else {
      std::printf("%-22s %8.4f %9s %9.4f %12.4g %10.3f %10.3f\n", name.c_str(), m.ratio,
                  m.err.bit_exact ? "yes" : "no", m.err.changed_fraction, m.err.max_abs_error,
                  m.enc_gbps, m.dec_gbps);
    }
  }
  if (o.json) {
    nlohmann::json doc = {{"count", count},
                          {"dtype", o.dtype},
                          {"codecs", rows},
                          {"entropy", entropy_bounds(in, dtype)}};
    std::cout << doc.dump(2) << "\n";
  }
  return (o.verify && !verified) ? kExitFailed : kExitOk;
}

const RegisterCommand reg{Command{
    "codec", "compresses the same bytes with each codec: ratio, loss and single-core speed",
    [](CLI::App& app) {
      auto o = std::make_shared<Options>();
      app.add_option("--input", o->input, "raw file of bf16, fp16 or fp32 values")
          ->check(kNonEmpty);
      app.add_option("--dtype", o->dtype, "bf16, fp16 or fp32")->capture_default_str();
      app.add_option("--generate", o->generate,
                     "gaussian, laplace, student-t, sparse:F or model:NAME (default gaussian)");
      app.add_option("--count", o->count, "values to generate (model:NAME: at most this many)")
          ->capture_default_str();
      app.add_option("--codecs", o->codecs, "comma-separated codec names, or all")
          ->capture_default_str();
      app.add_option("--seed", o->seed, "seed of the generator")->capture_default_str();
      app.add_flag("--json", o->json, "one JSON document on stdout");
      app.add_flag("--verify", o->verify,
                   "exit 1 if a lossless codec does not round-trip bit-exactly");
      return [o] { return run(*o); };
    }}};

}  // namespace
}  // namespace commlab::cli
