// commlab-cli codec: compresses the same bytes with each codec and reports ratio, loss and speed
// (contract: docs/cli.md). --verify fails on any lossless codec that does not round-trip.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <sstream>

#include "cli/command.h"
#include "cli/util/codec_measure_util.h"
#include "cli/util/flag_parse_util.h"
#include "cli/util/size_flag_util.h"
#include "codec/codec.h"
#include "codec/value_cast.h"
#include "io/tensor_files.h"
#include "numeric/tensor_gen.h"
#include "train/layers/model_gradients.h"

namespace commlab::cli {
namespace codec_command {
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
  TensorInputBudgets budgets;     // --max-files, --max-tensors
  std::string progress = "256M";  // --progress: a stderr line per this many bytes measured
};

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

// Generated values: --count stays within 1 GiB of them. A distribution's values are generated
// block by block (below), a model's gradients are in memory whole.
constexpr uint64_t kMaxCodecInputBytes = 1ull << 30;
// Tensors are measured in blocks of this size, each coded on its own (a 1 GiB input
// held the tensor, the decoded copy, the frame and a float copy, 3.1 GB), so memory is a few
// blocks whatever the input size; a tensor within one block gives the numbers it always gave.
constexpr uint64_t kCodecBlockBytes = 32ull << 20;
// Work budget: input bytes x codecs measured, checked before any value is read (a 1 GiB
// input with --codecs all ran for many minutes). 4 GiB is 256 MiB with all 16 codecs.
constexpr uint64_t kMaxCodecWorkBytes = 4ull << 30;

// One buffer the codecs are measured on: a tensor of a file (read when its turn comes, so only one
// is in memory at a time) or the generated values: a model's gradients, held whole, or a
// distribution's, generated a block at a time when measured (element i is a function of the
// seed and i, so the blocks are the values generated at once, and so are the numbers).
struct Source {
  std::string file;    // empty for generated values
  std::string format;  // "npy", "safetensors", "raw" or "generated"
  TensorEntry tensor;
  std::vector<std::byte> generated;  // model:NAME
  std::string dist;                  // a distribution, generated per block (source_block)
  uint64_t seed = 0;
};

// A model's gradients (model:NAME, in memory whole), or none for a distribution: checked here and
// generated per block.
std::vector<std::byte> generated_values(const Options& o, DType dtype) {
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
  return {};
}

// Every tensor of --input (a file, or a directory's files in name order), headers checked before
// any value is read; or the --generate values.
std::vector<Source> sources(const Options& o, DType dtype, std::vector<nlohmann::json>& file_rows) {
  if (!o.input.empty() && !o.generate.empty())
    throw InvalidInput("give either --input FILE or --generate DIST, not both");
  std::vector<Source> out;
  if (o.input.empty()) {
    Source s{"", "generated", {}, generated_values(o, dtype), "", o.seed};
    const std::string name = o.generate.empty() ? "gaussian" : o.generate;
    if (name.rfind("model:", 0) != 0) s.dist = name;
    const uint64_t bytes = s.dist.empty() ? s.generated.size() : o.count * dtype_size(dtype);
    s.tensor = {name, o.dtype, {bytes / dtype_size(dtype)}, 0, bytes, false};
    out.push_back(std::move(s));
    return out;
  }
  try {
    for (const TensorFile& f : read_tensor_input_index(o.input, o.dtype, o.budgets)) {
      const std::string& path = f.path;
      nlohmann::json metadata = nlohmann::json::object();
      for (const auto& [k, v] : f.metadata) metadata[k] = v;
      file_rows.push_back({{"path", path},
                           {"format", f.format},
                           {"tensors", f.tensors.size()},
                           {"metadata", metadata}});
      for (const TensorEntry& t : f.tensors) out.push_back({path, f.format, t, {}, "", 0});
    }
  } catch (const std::invalid_argument& e) {
    throw InvalidInput(std::string("--input ") + e.what());
  }
  return out;
}

// Bytes [offset, offset + bytes) of a tensor: a view of a model's gradients, or generated or read
// from the file into `buffer`.
std::span<const std::byte> source_block(const Source& s, uint64_t offset, uint64_t bytes,
                                        std::vector<std::byte>& buffer) {
  if (s.format == "generated" && s.dist.empty())
    return std::span(s.generated).subspan(offset, bytes);
  if (s.format == "generated") {
    const DType dtype = parse_dtype(s.tensor.dtype);
    const size_t size = dtype_size(dtype);
    buffer =
        to_dtype_bytes(generate_tensor_range(s.dist, offset / size, bytes / size, s.seed), dtype);
    return buffer;
  }
  TensorEntry block = s.tensor;
  block.offset += offset;
  block.bytes = bytes;
  try {
    buffer = read_tensor_bytes(TensorFile{s.file, s.format, {}, {}}, block, kCodecBlockBytes);
  } catch (const std::invalid_argument& e) {
    throw InvalidInput(std::string("--input ") + e.what());
  }
  return buffer;
}

// Refuses, before any value is read or coded, inputs whose bytes x codecs exceed the work budget.
void check_work_budget(uint64_t bytes, size_t codecs, const Options& o) {
  const uint64_t work = bytes > kMaxCodecWorkBytes ? kMaxCodecWorkBytes + 1 : bytes * codecs;
  if (work <= kMaxCodecWorkBytes) return;
  throw InvalidInput(std::string(o.input.empty() ? "--count" : "--input") + ": " +
                     std::to_string(bytes) + " bytes x " + std::to_string(codecs) +
                     " codecs is over the work cap of " + std::to_string(kMaxCodecWorkBytes) +
                     " bytes x codecs (4 GiB); lower it with --codecs (fewer codecs) or " +
                     (o.input.empty() ? "a smaller --count" : "a smaller --input"));
}

void print_table_head() {
  std::printf("%-22s %8s %9s %9s %12s %10s %10s\n", "codec", "ratio", "lossless", "changed",
              "max_abs_err", "enc(GB/s)", "dec(GB/s)");
}

void print_row(const std::string& name, const Measured& m) {
  if (!m.ok) {
    std::printf("%-22s %s\n", name.c_str(), ("n/a: " + m.error).c_str());
    return;
  }
  std::printf("%-22s %8.4f %9s %9.4f %12.4g %10.3f %10.3f\n", name.c_str(), m.ratio(),
              m.err.bit_exact ? "yes" : "no", m.err.changed_fraction, m.err.max_abs_error,
              m.encode_gbps(), m.decode_gbps());
}

std::string tensor_label(const Source& s) {
  if (s.format == "generated") return "--generate " + s.tensor.name;
  if (s.format == "safetensors") return s.file + ": " + s.tensor.name;
  return s.file;
}

nlohmann::json tensor_json(const Source& s, size_t count) {
  nlohmann::json j = {{"file", s.file.empty() ? nlohmann::json() : nlohmann::json(s.file)},
                      {"format", s.format},
                      {"name", s.tensor.name},
                      {"dtype", s.tensor.dtype},
                      {"shape", s.tensor.shape},
                      {"count", count},
                      {"offset", s.tensor.offset},
                      {"bytes", s.tensor.bytes}};
  if (s.tensor.fortran_order) j["fortran_order"] = true;
  return j;
}

// Totals over the tensors, per codec in --codecs order.
struct Totals {
  std::vector<Measured> codecs;
  std::vector<EntropyBounds> entropy;
  size_t count = 0;
  std::string dtype;
  bool verified = true;  // every lossless codec round-tripped every tensor
};

DType checked_raw_dtype(const Options& o) {
  DType dtype;
  try {
    dtype = parse_dtype(o.dtype);
  } catch (const std::invalid_argument& e) {
    throw InvalidInput(std::string("--dtype: ") + e.what());
  }
  if (o.input.empty() && o.count == 0) throw InvalidInput("--count: expected a positive integer");
  // --count 10^11 ended in std::bad_alloc (exit 1) when values were made at once; a model's
  // gradients still are, and 1 GiB bounds the time a distribution's take.
  if (o.count > kMaxCodecInputBytes / dtype_size(dtype))
    throw InvalidInput("--count: expected at most " +
                       std::to_string(kMaxCodecInputBytes / dtype_size(dtype)) + " " + o.dtype +
                       " values (1 GiB of generated values), got " + std::to_string(o.count));
  return dtype;
}

// Progress on stderr for a large input: its size up front, then a line each time another
// `every` bytes have been measured (checked per block, so at most one line per block).
struct Progress {
  uint64_t every = 0;  // 0: silent
  uint64_t total = 0, done = 0, next = 0;
  void start(const Options& o, uint64_t bytes, size_t tensors, size_t codecs) {
    total = bytes;
    next = every;
    if (every == 0 || bytes < every) {
      every = 0;  // a small input is measured without progress lines
      return;
    }
    std::fprintf(stderr,
                 "commlab-cli: codec: measuring %llu bytes (%.3g GiB) of %s in %zu tensor%s with "
                 "%zu codec%s\n",
                 static_cast<unsigned long long>(bytes), static_cast<double>(bytes) / (1 << 30),
                 o.input.empty() ? "generated values" : o.input.c_str(), tensors,
                 tensors == 1 ? "" : "s", codecs, codecs == 1 ? "" : "s");
  }
  void add(uint64_t bytes) {
    done += bytes;
    if (every == 0 || done < next) return;
    std::fprintf(stderr, "commlab-cli: codec: %llu of %llu bytes measured (%.0f%%)\n",
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
                 100.0 * static_cast<double>(done) / static_cast<double>(total));
    next = (done / every + 1) * every;
  }
};

struct BlockMeasures {
  std::vector<Measured> codecs;  // per codec in --codecs order, summed over the blocks
  EntropyBounds entropy;         // byte-weighted over the blocks (each has its own tables)
};

// Measures every codec on one tensor block by block; a codec that fails on a block is not run on
// the later ones (the tensor's measurement is a failure already).
BlockMeasures measure_blocks(const std::vector<std::string>& names, const Source& s, DType dtype,
                             Progress& progress) {
  BlockMeasures out{std::vector<Measured>(names.size()), {}};
  std::vector<EntropyBounds> parts;
  std::vector<std::byte> buffer;
  for (uint64_t offset = 0; offset == 0 || offset < s.tensor.bytes; offset += kCodecBlockBytes) {
    const uint64_t bytes = std::min(kCodecBlockBytes, s.tensor.bytes - offset);
    const std::span<const std::byte> in = source_block(s, offset, bytes, buffer);
    for (size_t c = 0; c < names.size(); ++c) {
      if (offset == 0)
        out.codecs[c] = measure_codec(names[c], in, dtype);
      else if (out.codecs[c].ok)
        out.codecs[c].add(measure_codec(names[c], in, dtype));
    }
    parts.push_back(entropy_bounds(in, dtype));
    progress.add(bytes);
  }
  out.entropy = combined_bounds(parts);
  return out;
}

// Reads one tensor, measures every codec on it, prints its table (text) and adds it to the
// totals; returns its --json object. `single`: the only tensor (the single-tensor table).
nlohmann::json measure_source(const Options& o, const std::vector<std::string>& names, Source& s,
                              bool single, Totals& total, Progress& progress) {
  const DType dtype = parse_dtype(s.tensor.dtype);
  const size_t count = s.tensor.bytes / dtype_size(dtype);
  total.count += count;
  if (s.tensor.dtype != total.dtype) total.dtype = "mixed";
  if (!o.json) {
    if (single)
      std::printf("# commlab codec: %zu %s values (%s)\n", count, s.tensor.dtype.c_str(),
                  s.format == "generated" ? tensor_label(s).c_str() : o.input.c_str());
    else
      std::printf("## %s: %s %s\n", tensor_label(s).c_str(), s.tensor.dtype.c_str(),
                  shape_text(s.tensor.shape).c_str());
    print_table_head();
  }
  const BlockMeasures blocks = measure_blocks(names, s, dtype, progress);
  nlohmann::json rows = nlohmann::json::array();
  for (size_t c = 0; c < names.size(); ++c) {
    const Measured& m = blocks.codecs[c];
    total.codecs[c].add(m);
    if (m.ok && m.lossless && !m.err.bit_exact) {
      total.verified = false;
      std::cerr << "commlab-cli: codec " << names[c] << " did not round-trip bit-exactly on "
                << tensor_label(s) << "\n";
    }
    if (!o.json) print_row(names[c], m);
    if (m.ok) rows.push_back(measured_json(names[c], m));
  }
  total.entropy.push_back(blocks.entropy);
  nlohmann::json t = tensor_json(s, count);
  t["codecs"] = rows;
  t["entropy"] = entropy_json(total.entropy.back());
  return t;
}

int run(const Options& o) {
  const DType raw_dtype = checked_raw_dtype(o);
  const std::vector<std::string> names = codec_list(o.codecs);
  std::vector<nlohmann::json> file_rows;
  if (o.input.empty())  // before the values are generated
    check_work_budget(uint64_t(o.count) * dtype_size(raw_dtype), names.size(), o);
  std::vector<Source> inputs = sources(o, raw_dtype, file_rows);
  uint64_t input_bytes = 0;
  for (const Source& s : inputs) input_bytes += s.tensor.bytes;
  check_work_budget(input_bytes, names.size(), o);
  Progress progress;
  progress.every = o.progress == "0" ? 0 : size_flag("--progress", o.progress);
  progress.start(o, input_bytes, inputs.size(), names.size());
  const bool single = inputs.size() == 1;
  Totals total{std::vector<Measured>(names.size()), {}, 0, inputs[0].tensor.dtype};
  for (Measured& m : total.codecs) m.ok = m.lossless = true;
  size_t values = 0;
  for (const Source& s : inputs) values += s.tensor.bytes / (s.tensor.dtype == "fp32" ? 4 : 2);
  if (!o.json && !single)
    std::printf("# commlab codec: %zu tensors in %zu files, %zu values (%s)\n", inputs.size(),
                file_rows.size(), values, o.input.c_str());
  nlohmann::json tensor_rows = nlohmann::json::array();
  for (Source& s : inputs)
    tensor_rows.push_back(measure_source(o, names, s, single, total, progress));
  if (!o.json && !single) {
    std::printf("## total: %zu values, %s\n", total.count, total.dtype.c_str());
    print_table_head();
    for (size_t c = 0; c < names.size(); ++c) print_row(names[c], total.codecs[c]);
  }
  if (o.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (size_t c = 0; c < names.size(); ++c)
      if (total.codecs[c].ok) rows.push_back(measured_json(names[c], total.codecs[c]));
    nlohmann::json doc = {
        {"count", total.count},   {"dtype", total.dtype},
        {"codecs", rows},         {"entropy", entropy_json(combined_bounds(total.entropy))},
        {"tensors", tensor_rows}, {"files", file_rows}};
    // File names and safetensors metadata need not be UTF-8: invalid bytes become U+FFFD.
    std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
  return (o.verify && !total.verified) ? kExitFailed : kExitOk;
}

const RegisterCommand reg{Command{
    "codec", "compresses the same bytes with each codec: ratio, loss and single-core speed",
    [](CLI::App& app) {
      auto o = std::make_shared<Options>();
      app.add_option("--input", o->input,
                     ".npy or .safetensors file (BF16/FP16/FP32), raw file of --dtype values, "
                     "or a directory of them")
          ->check(kNonEmpty);
      app.add_option("--dtype", o->dtype,
                     "bf16, fp16 or fp32: generated values and raw files (typed files say theirs)")
          ->capture_default_str();
      app.add_option("--generate", o->generate,
                     "gaussian, laplace, student-t, sparse:F or model:NAME (default gaussian)");
      app.add_option("--count", o->count, "values to generate (model:NAME: at most this many)")
          ->capture_default_str();
      app.add_option("--codecs", o->codecs, "comma-separated codec names, or all")
          ->capture_default_str();
      app.add_option("--seed", o->seed, "seed of the generator")->capture_default_str();
      app.add_option("--max-files", o->budgets.files,
                     "--input DIR: refuse a directory of more files, before any is opened")
          ->check(in_range(uint64_t{1}, uint64_t{1} << 32))
          ->capture_default_str();
      app.add_option("--max-tensors", o->budgets.tensors,
                     "--input: refuse more tensors (all files together), before any value is read")
          ->check(in_range(uint64_t{1}, uint64_t{1} << 32))
          ->capture_default_str();
      app.add_option("--progress", o->progress,
                     "an input of at least SIZE bytes: its size, then a line per SIZE measured, "
                     "on stderr (0: none)")
          ->capture_default_str();
      app.add_flag("--json", o->json, "one JSON document on stdout");
      app.add_flag("--verify", o->verify,
                   "exit 1 if a lossless codec does not round-trip bit-exactly");
      return [o] { return run(*o); };
    }}};

}  // namespace
}  // namespace codec_command
}  // namespace commlab::cli
