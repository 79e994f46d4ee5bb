#include "io/tensor_files.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "io/input_file.h"
#include "io/status.h"

namespace commlab {
namespace {

[[noreturn]] void refuse(const std::string& path, uint64_t offset, const std::string& why) {
  throw bad_input(path + ": offset " + std::to_string(offset) + ": " + why);
}

uint64_t element_size(std::string_view dtype) {
  return dtype == "fp32" ? 4 : 2;
}

// product(shape) * width, refusing a product that does not fit in 64 bits.
uint64_t shape_bytes(const std::vector<uint64_t>& shape, uint64_t width, const std::string& path,
                     uint64_t offset) {
  uint64_t n = width;
  for (uint64_t d : shape) {
    if (d != 0 && n > UINT64_MAX / d)
      refuse(path, offset, "shape " + shape_text(shape) + " overflows 64-bit byte counts");
    n *= d;
  }
  return n;
}

uint64_t le_uint(std::span<const std::byte> b, size_t at, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) v |= uint64_t(std::to_integer<uint8_t>(b[at + i])) << (8 * i);
  return v;
}

// The Python literal NumPy writes as a .npy header: {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), } — strings, True/False and tuples of integers; nothing else is accepted.
class NpyDictParser {
 public:
  NpyDictParser(std::string_view text, uint64_t base, const std::string& path)
      : s_(text), base_(base), path_(path) {}

  TensorEntry parse() {
    TensorEntry t;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (skip_space(), peek() != '}') {
      const std::string key = string_value();
      expect(':');
      skip_space();
      if (key == "descr") {
        have_descr = true;
        descr_at_ = base_ + i_;
        descr_ = string_value();
      } else if (key == "fortran_order") {
        have_order = true;
        t.fortran_order = bool_value();
      } else if (key == "shape") {
        have_shape = true;
        t.shape = shape_value();
      } else {
        fail("unknown key '" + excerpt(key) + "': expected 'descr', 'fortran_order', 'shape'");
      }
      skip_space();
      if (peek() != ',') break;
      ++i_;
    }
    expect('}');
    if (!have_descr || !have_order || !have_shape)
      fail("header dict lacks " + std::string(!have_descr   ? "'descr'"
                                              : !have_order ? "'fortran_order'"
                                                            : "'shape'"));
    t.dtype = npy_dtype();
    return t;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const { refuse(path_, base_ + i_, why); }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t')) ++i_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c)
      fail(std::string("expected '") + c + "' in the header dict, got " +
           (i_ < s_.size() ? "'" + std::string(1, s_[i_]) + "'" : "its end"));
    ++i_;
  }
  std::string string_value() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string in the header dict");
    const size_t end = s_.find(quote, i_ + 1);
    if (end == std::string_view::npos) fail("unterminated string in the header dict");
    std::string v(s_.substr(i_ + 1, end - i_ - 1));
    i_ = end + 1;
    return v;
  }
  bool bool_value() {
    for (std::string_view word : {"True", "False"})
      if (s_.substr(i_, word.size()) == word) {
        i_ += word.size();
        return word == "True";
      }
    fail("expected True or False for 'fortran_order'");
  }
  std::vector<uint64_t> shape_value() {
    std::vector<uint64_t> shape;
    expect('(');
    while (skip_space(), peek() != ')') {
      if (peek() < '0' || peek() > '9') fail("expected a non-negative integer in 'shape'");
      uint64_t d = 0;
      for (; peek() >= '0' && peek() <= '9'; ++i_) {
        if (d > (UINT64_MAX - 9) / 10) fail("a 'shape' dimension does not fit in 64 bits");
        d = d * 10 + uint64_t(peek() - '0');
      }
      shape.push_back(d);
      skip_space();
      if (peek() != ',') break;
      ++i_;
    }
    expect(')');
    return shape;
  }
  std::string npy_dtype() const {
    if (descr_ == "<f4") return "fp32";
    if (descr_ == "<f2") return "fp16";
    const std::string hint =
        descr_ == "<V2" || descr_ == "|V2"
            ? " ('" + descr_ +
                  "' is an untyped 2-byte record: ml_dtypes' bfloat16 saves as it, "
                  "and so does any other 2-byte void; save BF16 as .safetensors or a raw file)"
            : "";
    refuse(path_, descr_at_,
           "dtype '" + excerpt(descr_) + "' not supported: expected '<f4' or '<f2'" + hint);
  }

  std::string_view s_;
  size_t i_ = 0;
  uint64_t base_;
  const std::string& path_;
  std::string descr_;
  uint64_t descr_at_ = 0;
};

std::string safetensors_dtype(const std::string& name, const std::string& path, uint64_t at,
                              const std::string& key) {
  if (name == "BF16") return "bf16";
  if (name == "F16") return "fp16";
  if (name == "F32") return "fp32";
  refuse(path, at,
         "tensor '" + excerpt(key) + "': dtype '" + excerpt(name) +
             "' not supported: expected BF16, F16 or F32");
}

// One "name": {"dtype", "shape", "data_offsets"} entry of a safetensors header; offsets relative
// to the data buffer, which starts at `buffer_at` and holds `buffer_size` bytes.
TensorEntry safetensors_entry(const std::string& key, const nlohmann::json& v,
                              const std::string& path, uint64_t buffer_at, uint64_t buffer_size) {
  const uint64_t at = 8;  // entries have no offsets of their own: they are in the header at 8
  auto bad = [&](const std::string& why) {
    refuse(path, at, "tensor '" + excerpt(key) + "': " + why);
  };
  if (!v.is_object()) bad("expected an object with dtype, shape and data_offsets");
  for (const char* field : {"dtype", "shape", "data_offsets"})
    if (!v.contains(field)) bad(std::string("missing '") + field + "'");
  if (!v["dtype"].is_string()) bad("'dtype' must be a string");
  TensorEntry t;
  t.name = key;
  t.dtype = safetensors_dtype(v["dtype"].get<std::string>(), path, at, key);
  const auto& shape = v["shape"];
  const auto& offsets = v["data_offsets"];
  if (!shape.is_array()) bad("'shape' must be an array of non-negative integers");
  for (const auto& d : shape) {
    if (!d.is_number_unsigned()) bad("'shape' must be an array of non-negative integers");
    t.shape.push_back(d.get<uint64_t>());
  }
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned())
    bad("'data_offsets' must be [begin, end], two non-negative integers");
  const uint64_t begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
  if (begin > end || end > buffer_size)
    refuse(path, buffer_at + std::min(begin, buffer_size),
           "tensor '" + excerpt(key) + "': data_offsets [" + std::to_string(begin) + ", " +
               std::to_string(end) + "] outside the data buffer of " + std::to_string(buffer_size) +
               " bytes");
  t.offset = buffer_at + begin;
  t.bytes = shape_bytes(t.shape, element_size(t.dtype), path, t.offset);
  if (t.bytes != end - begin)
    refuse(path, t.offset,
           "tensor '" + excerpt(key) + "': shape " + shape_text(t.shape) + " of " + t.dtype +
               " needs " + std::to_string(t.bytes) + " bytes, data_offsets give " +
               std::to_string(end - begin));
  return t;
}

// The first top-level key of a JSON object text that appears twice, or "". The spec's names are
// unique, and nlohmann keeps one of two equal keys, so a tensor named twice would vanish. A SAX
// pass, linear (nlohmann's parser callback rescans an object's members at the end of every
// member, quadratic: 20,000 tensors took 5 s). Call it on text that parsed.
std::string key_named_twice(std::string_view text) {
  struct Keys : nlohmann::json_sax<nlohmann::json> {
    int depth = 0;
    std::set<std::string> seen;
    std::string twice;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return ++depth, true; }
    bool end_object() override { return --depth, true; }
    bool start_array(std::size_t) override { return ++depth, true; }
    bool end_array() override { return --depth, true; }
    bool key(string_t& k) override {
      if (depth == 1 && !seen.insert(k).second) twice = k;
      return twice.empty();  // stops at the first
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
      return false;
    }
  } keys;
  nlohmann::json::sax_parse(text, &keys);
  return keys.twice;
}

std::vector<std::byte> read_range(const std::string& path, uint64_t offset, uint64_t bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw bad_input(path + ": cannot open: " + std::strerror(errno));
  std::vector<std::byte> out(bytes);
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(bytes));
  if (static_cast<uint64_t>(in.gcount()) != bytes)
    refuse(path, offset + static_cast<uint64_t>(in.gcount()),
           "file ended early: expected " + std::to_string(bytes) + " bytes from offset " +
               std::to_string(offset) + " (did it change while being read?)");
  return out;
}

// An input without values is an error (docs/cli.md), not a measurement of nothing: a file of
// no tensors, or a tensor of no values (a shape with a 0).
void refuse_empty(const TensorFile& f) {
  if (f.tensors.empty())
    refuse(f.path, 8, "holds no tensors (expected at least one tensor with values)");
  for (const TensorEntry& t : f.tensors)
    if (t.bytes == 0)
      refuse(f.path, t.offset,
             "tensor '" + excerpt(t.name) + "' of shape " + shape_text(t.shape) +
                 " has no values (an empty input cannot be measured)");
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

std::string shape_text(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

TensorFile parse_npy_header(std::span<const std::byte> head, uint64_t file_size,
                            const std::string& path) {
  static constexpr char kMagic[] = "\x93NUMPY";
  if (head.size() < 8 || std::memcmp(head.data(), kMagic, 6) != 0)
    refuse(path, 0, "expected the .npy magic \\x93NUMPY and a version (8 bytes)");
  const int major = std::to_integer<int>(head[6]);
  if (major < 1 || major > 3)
    refuse(path, 6,
           "format version " + std::to_string(major) + " not supported: expected 1, 2 or 3");
  const size_t len_width = major == 1 ? 2 : 4;
  if (head.size() < 8 + len_width)
    refuse(path, 8,
           "truncated header: expected a " + std::to_string(len_width) +
               "-byte header length, the file has " + std::to_string(head.size()) + " bytes");
  const uint64_t header_len = le_uint(head, 8, len_width), header_at = 8 + len_width;
  if (header_len > kMaxNpyHeaderBytes)
    refuse(path, 8,
           "header length " + std::to_string(header_len) + " over the cap of " +
               std::to_string(kMaxNpyHeaderBytes) + " bytes");
  if (header_at + header_len > file_size || header_at + header_len > head.size())
    refuse(path, 8,
           "header length " + std::to_string(header_len) + " reaches beyond the file (" +
               std::to_string(file_size) + " bytes)");
  const std::string_view text(reinterpret_cast<const char*>(head.data()) + header_at, header_len);
  TensorFile f{path, "npy", {}, {}};
  TensorEntry t = NpyDictParser(text, header_at, path).parse();
  t.name = std::filesystem::path(path).filename().string();
  t.offset = header_at + header_len;
  t.bytes = shape_bytes(t.shape, element_size(t.dtype), path, t.offset);
  if (t.bytes != file_size - t.offset)
    refuse(path, t.offset,
           "shape " + shape_text(t.shape) + " of " + t.dtype + " needs " + std::to_string(t.bytes) +
               " bytes after the header, the file has " + std::to_string(file_size - t.offset));
  f.tensors.push_back(std::move(t));
  return f;
}

TensorFile parse_safetensors_header(std::span<const std::byte> head, uint64_t file_size,
                                    const std::string& path) {
  if (head.size() < 8)
    refuse(path, 0,
           "truncated header: expected an 8-byte little-endian header length, the file has " +
               std::to_string(head.size()) + " bytes");
  const uint64_t header_len = le_uint(head, 0, 8);
  if (header_len > kMaxSafetensorsHeaderBytes)
    refuse(path, 0,
           "header length " + std::to_string(header_len) + " over the cap of " +
               std::to_string(kMaxSafetensorsHeaderBytes) + " bytes");
  if (8 + header_len > file_size || 8 + header_len > head.size())
    refuse(path, 0,
           "header length " + std::to_string(header_len) + " reaches beyond the file (" +
               std::to_string(file_size) + " bytes)");
  const std::string_view text(reinterpret_cast<const char*>(head.data()) + 8, header_len);
  // {"name": {"shape": [...]}} nests 3 deep; __metadata__ 2.
  if (auto over = json_nesting(text, 3).first_over)
    refuse(path, 8 + *over, "header JSON nests deeper than a safetensors header (3 levels)");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    refuse(path, 8 + (e.byte > 0 ? e.byte - 1 : 0), "header is not valid JSON");
  } catch (const nlohmann::json::exception&) {  // a number too large for a double
    refuse(path, 8, "header JSON has a number out of range");
  }
  if (!doc.is_object()) refuse(path, 8, "header must be a JSON object of tensors");
  if (const std::string twice = key_named_twice(text); !twice.empty())
    refuse(path, 8, "tensor '" + excerpt(twice) + "' is named twice in the header");
  const uint64_t buffer_at = 8 + header_len, buffer_size = file_size - buffer_at;
  TensorFile f{path, "safetensors", {}, {}};
  for (const auto& [key, v] : doc.items()) {
    if (key != "__metadata__") {
      f.tensors.push_back(safetensors_entry(key, v, path, buffer_at, buffer_size));
      continue;
    }
    if (!v.is_object()) refuse(path, 8, "__metadata__ must be an object of strings");
    for (const auto& [mk, mv] : v.items()) {
      if (!mv.is_string()) refuse(path, 8, "__metadata__ '" + excerpt(mk) + "' must be a string");
      f.metadata.emplace_back(mk, mv.get<std::string>());
    }
  }
  std::sort(f.tensors.begin(), f.tensors.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return a.offset != b.offset ? a.offset < b.offset : a.bytes < b.bytes;
  });
  // The spec: the tensors cover the data buffer exactly, without overlaps or holes.
  uint64_t covered = buffer_at;  // where the tensors so far end
  const TensorEntry* last = nullptr;
  for (const TensorEntry& t : f.tensors) {
    if (last && t.offset < covered)
      refuse(path, t.offset,
             "tensor '" + excerpt(t.name) + "' overlaps tensor '" + excerpt(last->name) +
                 "' (which ends at offset " + std::to_string(covered) + ")");
    if (t.offset > covered)
      refuse(path, covered,
             "the data buffer has a hole: bytes " + std::to_string(covered) + " to " +
                 std::to_string(t.offset) + " belong to no tensor (before tensor '" +
                 excerpt(t.name) + "'; safetensors forbids holes)");
    covered = t.offset + t.bytes;
    last = &t;
  }
  if (covered != file_size)
    refuse(path, covered,
           "the data buffer has a hole: bytes " + std::to_string(covered) + " to " +
               std::to_string(file_size) + " (the end of the file) belong to no tensor " +
               "(safetensors forbids holes)");
  return f;
}

TensorFile read_tensor_file_index(const std::string& path, std::string_view raw_dtype) {
  const uint64_t size = regular_file_size(path, "input file");
  const bool npy = ends_with(path, ".npy"), safetensors = ends_with(path, ".safetensors");
  if (npy || safetensors) {
    // The header's length field, then the header itself (when within its cap and the file).
    std::vector<std::byte> head = read_range(path, 0, std::min<uint64_t>(size, npy ? 12 : 8));
    const bool v1 = npy && head.size() >= 7 && std::to_integer<int>(head[6]) == 1;
    const uint64_t prefix = !npy ? 8 : v1 ? 10 : 12;
    const uint64_t len = head.size() < prefix ? 0
                         : npy                ? le_uint(head, 8, v1 ? 2 : 4)
                                              : le_uint(head, 0, 8);
    const uint64_t cap = npy ? kMaxNpyHeaderBytes : kMaxSafetensorsHeaderBytes;
    if (len <= cap && prefix + len <= size) head = read_range(path, 0, prefix + len);
    TensorFile f =
        npy ? parse_npy_header(head, size, path) : parse_safetensors_header(head, size, path);
    refuse_empty(f);
    return f;
  }
  const uint64_t width = element_size(raw_dtype);
  if (size == 0)
    throw bad_input(path + ": is empty (expected " + std::string(raw_dtype) + " values)");
  if (size % width != 0)
    refuse(path, size - size % width,
           "has " + std::to_string(size) + " bytes, not a multiple of the " +
               std::string(raw_dtype) + " element size (" + std::to_string(width) + ")");
  TensorEntry t{std::filesystem::path(path).filename().string(),
                std::string(raw_dtype),
                {size / width},
                0,
                size,
                false};
  return TensorFile{path, "raw", {t}, {}};
}

std::vector<std::string> tensor_input_paths(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(path, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.empty() && name[0] != '.' && e.is_regular_file(ec))
      files.push_back(e.path().string());
  }
  if (ec) throw bad_input(path + ": cannot list the directory: " + ec.message());
  if (files.empty())
    throw bad_input(path + ": the directory has no files (expected .npy, " +
                    ".safetensors or raw tensor files)");
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<TensorFile> read_tensor_input_index(const std::string& path, std::string_view raw_dtype,
                                                const TensorInputBudgets& budgets) {
  const std::vector<std::string> paths = tensor_input_paths(path);
  if (paths.size() > budgets.files)
    throw bad_input(path + ": " + std::to_string(paths.size()) + " files, over the budget of " +
                    std::to_string(budgets.files) + " files per input (" + budgets.files_raised_by +
                    ")");
  std::vector<TensorFile> files;
  uint64_t tensors = 0;
  for (const std::string& p : paths) {
    files.push_back(read_tensor_file_index(p, raw_dtype));
    tensors += files.back().tensors.size();
    if (tensors > budgets.tensors)
      throw bad_input(
          path + ": " + std::to_string(tensors) + " tensors" +
          (paths.size() > 1 ? " in its first " + std::to_string(files.size()) + " files" : "") +
          ", over the budget of " + std::to_string(budgets.tensors) + " tensors per input (" +
          budgets.tensors_raised_by + ")");
  }
  return files;
}

std::vector<std::byte> read_tensor_bytes(const TensorFile& file, const TensorEntry& tensor,
                                         uint64_t max_bytes) {
  if (tensor.bytes > max_bytes)
    refuse(file.path, tensor.offset,
           "tensor '" + excerpt(tensor.name) + "' has " + std::to_string(tensor.bytes) +
               " bytes, over the cap of " + std::to_string(max_bytes) + " per tensor");
  return read_range(file.path, tensor.offset, tensor.bytes);
}

}  // namespace commlab
