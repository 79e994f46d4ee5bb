// Fashion-MNIST IDX reader over zlib. Bounded allocation: the decompressed size is checked against
// the header and against the gzip trailer's ISIZE and the deflate ratio limit before any buffer
// grows.
#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>

#include "train/dataset.h"

namespace commlab {
namespace {

constexpr const char* kPackageHint = " (install the Debian package dataset-fashion-mnist)";
// Deflate cannot expand data by more than ~1032:1, so a file of C bytes holds at most 1032*C bytes.
constexpr uint64_t kMaxDeflateRatio = 1032;

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};

uint32_t big_endian(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

bool read_exact(gzFile f, uint8_t* out, uint64_t n) {
  while (n > 0) {
    unsigned chunk = static_cast<unsigned>(std::min<uint64_t>(n, 1u << 20));
    int got = gzread(f, out, chunk);
    if (got <= 0) return false;
    out += got;
    n -= static_cast<uint64_t>(got);
  }
  return true;
}

}  // namespace

namespace {

// Reads exactly n bytes of decompressed data into out, or returns false.
using ReadExact = std::function<bool(uint8_t* out, uint64_t n)>;

// The IDX checks shared by the file and the in-memory readers; `gz_size` is the compressed size.
Result<IdxArray> parse_idx(const ReadExact& read, uint64_t gz_size, const std::string& path,
                           int expected_rank, uint64_t max_items) {
  if (gz_size < 20) return make_error(path + ": corrupt: file too small" + kPackageHint);
  uint8_t head[4];
  if (!read(head, 4)) return make_error(path + ": corrupt: truncated header");
  if (head[0] != 0 || head[1] != 0 || head[2] != 0x08 || head[3] != expected_rank) {
    return make_error(path + ": corrupt: bad magic (expected unsigned-byte IDX of rank " +
                      std::to_string(expected_rank) + ")" + kPackageHint);
  }
  IdxArray out;
  uint64_t items = 1;
  for (int i = 0; i < expected_rank; ++i) {
    uint8_t d[4];
    if (!read(d, 4)) return make_error(path + ": corrupt: truncated header");
    out.dims.push_back(big_endian(d));
    items *= out.dims.back();
    if (items > (uint64_t{1} << 40)) return make_error(path + ": corrupt: absurd dimensions");
  }
  const uint64_t capacity = gz_size * kMaxDeflateRatio;
  if (items > capacity) {
    return make_error(path + ": corrupt: header declares " + std::to_string(items) +
                      " bytes but a " + std::to_string(gz_size) + "-byte gzip file holds at most " +
                      std::to_string(capacity) + kPackageHint);
  }
  uint64_t keep = items;
  if (max_items > 0 && max_items < items) keep = max_items;
  // Grow as data really arrives, so a lying header costs at most one chunk beyond the real data.
  constexpr uint64_t kChunk = 1u << 22;
  while (out.data.size() < keep) {
    uint64_t old = out.data.size();
    uint64_t n = std::min(kChunk, keep - old);
    out.data.resize(old + n);
    if (!read(out.data.data() + old, n)) {
      return make_error(path + ": corrupt: truncated (header declares " + std::to_string(items) +
                        " bytes of data)" + kPackageHint);
    }
  }
  return out;
}

}  // namespace

Result<IdxArray> read_idx_gz(const std::string& path, int expected_rank, uint64_t max_items) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return make_error(path + ": missing" + kPackageHint);
  }
  const uint64_t file_size = std::filesystem::file_size(path, ec);
  if (ec || file_size < 20) return make_error(path + ": corrupt: file too small" + kPackageHint);
  std::unique_ptr<gzFile_s, GzCloser> f(gzopen(path.c_str(), "rb"));
  if (!f) return make_error(path + ": cannot open" + kPackageHint);
  return parse_idx([&](uint8_t* out, uint64_t n) { return read_exact(f.get(), out, n); }, file_size,
                   path, expected_rank, max_items);
}

Result<IdxArray> read_idx_gz_bytes(std::span<const uint8_t> gz, const std::string& name,
                                   int expected_rank, uint64_t max_items) {
  if (gz.size() < 2 || gz[0] != 0x1f || gz[1] != 0x8b) {
    // Like gzread, bytes without the gzip magic are read as they are.
    size_t at = 0;
    auto raw = [&](uint8_t* out, uint64_t n) {
      if (n > gz.size() - at) return false;
      std::memcpy(out, gz.data() + at, n);
      at += n;
      return true;
    };
    return parse_idx(raw, gz.size(), name, expected_rank, max_items);
  }
  z_stream z{};
  // 16 + MAX_WBITS: gzip framing, as gzread expects of the Debian files.
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return make_error(name + ": zlib init failed");
  std::unique_ptr<z_stream, void (*)(z_stream*)> guard(&z, [](z_stream* s) { inflateEnd(s); });
  z.next_in = const_cast<Bytef*>(gz.data());
  z.avail_in = static_cast<uInt>(std::min<size_t>(gz.size(), UINT32_MAX));
  auto read = [&](uint8_t* out, uint64_t n) {
    while (n > 0) {
      z.next_out = out;
      z.avail_out = static_cast<uInt>(std::min<uint64_t>(n, 1u << 20));
      const uInt asked = z.avail_out;
      int rc = inflate(&z, Z_NO_FLUSH);
      const uInt got = asked - z.avail_out;
      out += got;
      n -= got;
      // Concatenated gzip members read as one stream, as with gzread.
      if (rc == Z_STREAM_END && z.avail_in > 0 && inflateReset(&z) == Z_OK) continue;
      if (n > 0 && (rc != Z_OK || got == 0)) return false;
    }
    return true;
  };
  return parse_idx(read, gz.size(), name, expected_rank, max_items);
}

Result<TrainTest> load_fashion_mnist(const std::string& dir, int max_train, int max_test) {
  TrainTest result;
  for (int split = 0; split < 2; ++split) {
    const std::string prefix = dir + (split == 0 ? "/train" : "/t10k");
    const int max_rows = split == 0 ? max_train : max_test;
    auto labels = read_idx_gz(prefix + "-labels-idx1-ubyte.gz", 1,
                              max_rows > 0 ? static_cast<uint64_t>(max_rows) : 0);
    if (!labels) return Error{labels.error()};
    const uint64_t row_bytes = 28 * 28;
    auto images =
        read_idx_gz(prefix + "-images-idx3-ubyte.gz", 3, max_rows > 0 ? max_rows * row_bytes : 0);
    if (!images) return Error{images.error()};
    const auto& idims = images.value().dims;
    if (idims[1] != 28 || idims[2] != 28 || idims[0] != labels.value().dims[0]) {
      return make_error(prefix + ": corrupt: dimension mismatch (images " +
                        std::to_string(idims[0]) + "x" + std::to_string(idims[1]) + "x" +
                        std::to_string(idims[2]) + ", labels " +
                        std::to_string(labels.value().dims[0]) + ")" + kPackageHint);
    }
    const auto& lab = labels.value().data;
    const auto& pix = images.value().data;
    const int rows = static_cast<int>(lab.size());
    Dataset& d = split == 0 ? result.train : result.test;
    d.name = split == 0 ? "fashion-mnist/train" : "fashion-mnist/test";
    d.num_classes = 10;
    d.x.resize(rows, static_cast<Eigen::Index>(row_bytes));
    d.y.resize(rows);
    for (int i = 0; i < rows; ++i) {
      if (lab[i] > 9) {
        return make_error(prefix + ": corrupt: label " + std::to_string(lab[i]) + " at row " +
                          std::to_string(i) + kPackageHint);
      }
      d.y[i] = lab[i];
      for (uint64_t j = 0; j < row_bytes; ++j) d.x(i, j) = pix[i * row_bytes + j] * (1.0f / 255);
    }
  }
  return result;
}

void gather_batch(const Dataset& d, std::span<const int32_t> index, Matrix& x,
                  std::vector<int32_t>& y) {
  const int n = static_cast<int>(index.size());
  const int lpr = d.labels_per_row;
  x.resize(n, d.x.cols());
  y.resize(static_cast<size_t>(n) * lpr);
  for (int i = 0; i < n; ++i) {
    x.row(i) = d.x.row(index[i]);
    for (int k = 0; k < lpr; ++k) y[static_cast<size_t>(i) * lpr + k] = d.y[index[i] * lpr + k];
  }
}

}  // namespace commlab
