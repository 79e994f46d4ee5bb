// commlab-cli quantize: vNMSE and bias of a trimmable gradient encoding (SQ, DRIVE, EDEN) when a
// fraction of its packets is trimmed to the head (docs/formats.md ("Trimmable packets"),
// the trimming paper (docs/papers.md)).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "cli/command.h"
#include "cli/util/flag_parse_util.h"
#include "codec/lossy/trim_packet.h"
#include "numeric/rng.h"
#include "numeric/tensor_gen.h"

namespace commlab::cli {
namespace quantize_command {
namespace {

struct Options {
  std::string encoding;
  int bits = 1;
  int keep_bits = -1;  // head bits a trimmed packet keeps; -1 (flag absent): all head bits
  size_t dim = size_t{1} << 14;
  int trials = 20;
  double trim = 1.0;
  std::string dist = "gaussian";
  uint64_t seed = 1;
  size_t payload = 0;  // 0: 4096, or exactly one --per-packet packet
  size_t per_packet = 0;
  std::string wire = "fp32";
  bool biased = false;
  bool json = false;
};

struct Outcome {
  double vnmse = 0.0;
  double bias_norm = 0.0;
  trim::DecodeStats stats;
  size_t per_packet = 0;
  // SQ with exact FP32 tails: the expected vNMSE over the rounding and the Bernoulli trimming,
  // trim x sq_expected_error / ||x||^2 (quant_head.h); NaN for the other encodings.
  double vnmse_theory = std::nan("");
};

trim::TrimConfig make_config(const Options& o) {
  trim::TrimConfig c;
  c.encoding = trim::parse_encoding(o.encoding);
  c.head_bits = o.bits;
  c.payload_bytes = o.payload > 0 ? o.payload : 4096;
  c.coords_per_packet = o.per_packet;
  c.unbiased = !o.biased;
  if (o.wire == "fp32") {
    c.wire = DType::kFp32;
  } else if (o.wire == "bf16") {
    c.wire = DType::kBf16;
  } else {
    throw InvalidInput("--wire: expected fp32 or bf16, got '" + o.wire + "'");
  }
  if (o.payload == 0 && o.per_packet > 0) trim::set_coords_per_packet(c, o.per_packet);
  if (std::optional<Status> bad = trim::config_problem(c)) {
    // The packet format names TrimConfig's fields; this command's flags for them.
    static const std::pair<const char*, const char*> kFlags[] = {
        {"head_bits", "--bits"},
        {"payload_bytes", "--payload"},
        {"coords_per_packet", "--per-packet"}};
    for (auto [field, flag] : kFlags)
      if (bad->field == field) bad->field = flag;
    throw InvalidInput(bad->text());
  }
  return c;
}

// One fixed x (the vNMSE is an expectation over the encoding's randomness for a given vector);
// each trial draws fresh RHT signs, rounding and trim decisions.
Outcome measure(const Options& o, trim::TrimConfig c) {
  if (o.dist.rfind("model:", 0) == 0) {
    throw InvalidInput(
        "--dist: model gradients are not available to quantize yet; use gaussian, "
        "laplace, student-t or sparse:F");
  }
  const std::vector<float> x = generate_tensor(o.dist, o.dim, o.seed);
  double norm2 = 0.0;
  for (float v : x) norm2 += static_cast<double>(v) * v;
  if (norm2 == 0.0) throw InvalidInput("--dist: the generated vector is all zeros");
  const int keep = o.keep_bits < 0 ? o.bits : o.keep_bits;
  Outcome out;
  out.per_packet = trim::coords_per_packet(c);
  std::vector<double> mean(o.dim, 0.0);
  std::vector<float> decoded(o.dim);
  for (int t = 0; t < o.trials; ++t) {
    c.seed = hash_combine(o.seed, static_cast<uint64_t>(t) + 1);
    auto packets = trim::encode_packets(x, c, 0, 0);
    auto received = trim::emulate_bernoulli_trim(packets, o.trim, keep, c.seed, 0, t);
    auto r = trim::decode_packets(received, c, decoded, &out.stats);
    if (!r) throw std::runtime_error(r.error());
    double err = 0.0;
    for (size_t i = 0; i < o.dim; ++i) {
      double e = static_cast<double>(decoded[i]) - x[i];
      err += e * e;
      mean[i] += decoded[i];
    }
    out.vnmse += err / norm2 / o.trials;
  }
  double bias = 0.0;
  for (size_t i = 0; i < o.dim; ++i) {
    double e = mean[i] / o.trials - x[i];
    bias += e * e;
  }
  out.bias_norm = std::sqrt(bias / norm2);
  if (c.encoding == trim::TrimEncoding::kSq && c.wire == DType::kFp32)
    out.vnmse_theory =
        o.trim * trim::sq_expected_error(x, out.per_packet, c.head_bits, keep) / norm2;
  return out;
}

int run(const Options& o) {
  // 2^26 coordinates keep the run near 1.5 GB (vector, mean, decode and packets).
  if (o.dim == 0 || o.dim > (size_t{1} << 26)) {
    throw InvalidInput("--dim: expected 1..67108864, got " + std::to_string(o.dim));
  }
  if (o.trials < 1) throw InvalidInput("--trials: expected a positive integer");
  // Time grows with trials x dim (2e9 trials ran for hours): a cap on the work, not on either flag.
  constexpr uint64_t kMaxCoordinates = uint64_t{1} << 30;
  const uint64_t work = static_cast<uint64_t>(o.trials) * o.dim;
  if (work > kMaxCoordinates)
    throw InvalidInput("--trials " + std::to_string(o.trials) + " x --dim " +
                       std::to_string(o.dim) + " = " + std::to_string(work) +
                       " coordinates to encode, over the cap of " +
                       std::to_string(kMaxCoordinates) + " (lower --trials or --dim)");
  if (!(o.trim >= 0.0 && o.trim <= 1.0)) {
    throw InvalidInput("--trim: expected a fraction in [0, 1], got " + std::to_string(o.trim));
  }
  if (o.keep_bits != -1 && (o.keep_bits < 0 || o.keep_bits > o.bits)) {
    throw InvalidInput("--keep-bits: expected 0..--bits (" + std::to_string(o.bits) + "), got " +
                       std::to_string(o.keep_bits));
  }
  validate_distribution(o.dist.rfind("model:", 0) == 0 ? "gaussian" : o.dist);
  trim::TrimConfig c = make_config(o);
  Outcome m = measure(o, c);
  const auto& s = m.stats;
  const double trimmed = s.packets ? static_cast<double>(s.packets_trimmed) / s.packets : 0.0;
  if (o.json) {
    nlohmann::json doc = {
        {"encoding", o.encoding},
        {"bits", o.bits},
        {"dim", o.dim},
        {"trials", o.trials},
        {"trim", o.trim},
        {"vnmse", m.vnmse},
        {"vnmse_theory",
         std::isfinite(m.vnmse_theory) ? nlohmann::json(m.vnmse_theory) : nlohmann::json(nullptr)},
        {"bias_norm", m.bias_norm},
        {"dist", o.dist},
        {"keep_bits", o.keep_bits < 0 ? o.bits : o.keep_bits},
        {"unbiased", !o.biased},
        {"wire", o.wire},
        {"coords_per_packet", m.per_packet},
        {"packets_trimmed_fraction", trimmed},
        {"bits_per_coordinate", s.bits_per_coordinate()},
        {"effective_bits_per_coordinate", s.effective_bits_per_coordinate()}};
    std::cout << doc.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("# commlab quantize: %s, %d head bit(s)%s, dim %zu, %d trials, trim %g, dist %s\n",
              o.encoding.c_str(), o.bits, o.biased ? " (min-MSE scale)" : "", o.dim, o.trials,
              o.trim, o.dist.c_str());
  std::printf("%-28s %.6g\n", "vnmse", m.vnmse);
  if (std::isfinite(m.vnmse_theory)) std::printf("%-28s %.6g\n", "vnmse_theory", m.vnmse_theory);
  std::printf("%-28s %.6g\n", "bias_norm", m.bias_norm);
  std::printf("%-28s %zu\n", "coords_per_packet", m.per_packet);
  std::printf("%-28s %.4f\n", "packets_trimmed_fraction", trimmed);
  std::printf("%-28s %.3f\n", "bits_per_coordinate", s.bits_per_coordinate());
  std::printf("%-28s %.3f\n", "effective_bits_per_coordinate", s.effective_bits_per_coordinate());
  return kExitOk;
}

const RegisterCommand reg{Command{
    "quantize",
    "vNMSE and bias of a trimmable gradient encoding with a fraction of packets trimmed",
    [](CLI::App& app) {
      auto o = std::make_shared<Options>();
      app.add_option("--encoding", o->encoding, "sq, drive or eden")->required();
      app.add_option("--bits", o->bits, "head bits per coordinate (sq 1..8, drive 1, eden 1..4)")
          ->capture_default_str();
      app.add_option("--dim", o->dim, "coordinates of the vector")->capture_default_str();
      app.add_option("--trials", o->trials, "independent encodings averaged")
          ->capture_default_str();
      app.add_option("--trim", o->trim, "fraction of packets trimmed to the head (Bernoulli)")
          ->capture_default_str();
      app.add_option("--keep-bits", o->keep_bits,
                     "head bits a trimmed packet keeps, 0..--bits (default: all of --bits)")
          ->check(in_range(0, 8));
      app.add_option("--dist", o->dist, "gaussian, laplace, student-t or sparse:F")
          ->capture_default_str();
      app.add_option("--seed", o->seed, "seed of the vector, the encodings and the trimming")
          ->capture_default_str();
      app.add_option("--payload", o->payload,
                     "packet size in bytes: header, heads and tails (default 4096, or what "
                     "--per-packet needs)");
      app.add_option("--per-packet", o->per_packet,
                     "coordinates per packet (0: as many as fit --payload)")
          ->capture_default_str();
      app.add_option("--wire", o->wire, "exact tails: fp32 or bf16")->capture_default_str();
      app.add_flag("--biased", o->biased,
                   "min-MSE scale instead of the unbiased one (drive, eden)");
      app.add_flag("--json", o->json, "one JSON document on stdout");
      return [o] { return run(*o); };
    }}};

}  // namespace
}  // namespace quantize_command
}  // namespace commlab::cli
