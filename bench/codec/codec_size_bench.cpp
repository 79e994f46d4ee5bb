// commlab against libzstd -1 and liblz4 by buffer size: real BF16 MLP gradient bytes
// (gradient_stream.h) cut to each size, every codec and memcpy timed alternately sample by sample
// on one core (thread CPU time, best of the samples), so a load change on the shared machine hits
// all alike. commlab goes through its whole Codec API (frame header, CRC-32C); the peers are the
// bare library calls, with their contexts made once. Every sample's round trip is checked.
// Usage: codec_size_bench [--sizes 64K,400K,4M,64M] [--samples N] [--sample-bytes B]
//                         [--profile enc|dec] (commlab only, ~1 GB through it: for perf)
//                         [--threads T] (then: commlab on T threads against 1, wall clock)
#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/codec_factories.h"
#include "cpu_time.h"
#include "gradient_stream.h"

namespace commlab {
namespace {

size_t parse_size(const std::string& s) {
  size_t mult = 1;
  std::string digits = s;
  if (!s.empty() && (s.back() == 'K' || s.back() == 'M')) {
    mult = s.back() == 'K' ? 1024 : 1024 * 1024;
    digits.pop_back();
  }
  return std::stoull(digits) * mult;
}

// One codec as three calls on fixed buffers: encode in -> packed (returns its size), decode
// packed -> out.
struct Peer {
  std::string name;
  std::function<size_t(const std::vector<std::byte>&, std::vector<std::byte>&)> encode;
  std::function<void(const std::vector<std::byte>&, size_t, std::vector<std::byte>&)> decode;
  std::vector<std::byte> packed;
  size_t packed_size = 0;
  double best_enc = 1e30, best_dec = 1e30;
};

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "codec_size_bench: %s\n", what.c_str());
  std::exit(1);
}

Peer commlab_peer(int threads) {
  auto enc = std::shared_ptr<Codec>(make_commlab_codec(threads));
  auto dec = std::shared_ptr<Codec>(make_commlab_codec(threads));
  return {"commlab",
          [enc](const std::vector<std::byte>& in, std::vector<std::byte>& out) {
            out.resize(enc->bound(in.size()));
            Result<size_t> r = enc->encode(in, DType::kBf16, out);
            if (!r.ok()) fail("commlab: " + r.error());
            return *r;
          },
          [dec](const std::vector<std::byte>& in, size_t n, std::vector<std::byte>& out) {
            Result<size_t> r = dec->decode(std::span(in).first(n), out);
            if (!r.ok()) fail("commlab: " + r.error());
          }};
}

std::vector<Peer> make_peers() {
  std::vector<Peer> peers;
  peers.push_back(commlab_peer(1));
  auto cctx = std::shared_ptr<ZSTD_CCtx>(ZSTD_createCCtx(), ZSTD_freeCCtx);
  auto dctx = std::shared_ptr<ZSTD_DCtx>(ZSTD_createDCtx(), ZSTD_freeDCtx);
  peers.push_back(
      {"zstd-1",
       [cctx](const std::vector<std::byte>& in, std::vector<std::byte>& out) {
         out.resize(ZSTD_compressBound(in.size()));
         size_t r = ZSTD_compressCCtx(cctx.get(), out.data(), out.size(), in.data(), in.size(), 1);
         if (ZSTD_isError(r)) fail("zstd compress");
         return r;
       },
       [dctx](const std::vector<std::byte>& in, size_t n, std::vector<std::byte>& out) {
         size_t r = ZSTD_decompressDCtx(dctx.get(), out.data(), out.size(), in.data(), n);
         if (ZSTD_isError(r) || r != out.size()) fail("zstd decompress");
       }});
  peers.push_back({"lz4",
                   [](const std::vector<std::byte>& in, std::vector<std::byte>& out) {
                     out.resize(size_t(LZ4_compressBound(int(in.size()))));
                     int r = LZ4_compress_default(reinterpret_cast<const char*>(in.data()),
                                                  reinterpret_cast<char*>(out.data()),
                                                  int(in.size()), int(out.size()));
                     if (r <= 0) fail("lz4 compress");
                     return size_t(r);
                   },
                   [](const std::vector<std::byte>& in, size_t n, std::vector<std::byte>& out) {
                     int r = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()),
                                                 reinterpret_cast<char*>(out.data()), int(n),
                                                 int(out.size()));
                     if (r != int(out.size())) fail("lz4 decompress");
                   }});
  peers.push_back({"memcpy",
                   [](const std::vector<std::byte>& in, std::vector<std::byte>& out) {
                     out.resize(in.size());
                     std::memcpy(out.data(), in.data(), in.size());
                     return in.size();
                   },
                   [](const std::vector<std::byte>& in, size_t n, std::vector<std::byte>& out) {
                     std::memcpy(out.data(), in.data(), n);
                   }});
  return peers;
}

// One sample of p: `calls` encodes, then `calls` decodes (round trip checked), timed by clock.
void time_sample(Peer& p, const std::vector<std::byte>& in, std::vector<std::byte>& out,
                 size_t calls, double (*clock)()) {
  double t0 = clock();
  for (size_t c = 0; c < calls; ++c) p.packed_size = p.encode(in, p.packed);
  double t1 = clock();
  std::fill(out.begin(), out.end(), std::byte{0xa5});
  double t2 = clock();
  for (size_t c = 0; c < calls; ++c) p.decode(p.packed, p.packed_size, out);
  double t3 = clock();
  if (out != in) fail(p.name + " failed a round trip");
  p.best_enc = std::min(p.best_enc, (t1 - t0) / double(calls));
  p.best_dec = std::min(p.best_dec, (t3 - t2) / double(calls));
}

double wall_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// commlab on `threads` threads against one, alternately, wall clock (CPU time of the calling
// thread would miss the others' work), and whether both wrote the same frame.
void thread_table(const std::vector<std::byte>& all, const std::vector<size_t>& sizes, int threads,
                  int samples) {
  std::printf(
      "\n| size | threads | enc GB/s | dec GB/s | 1-thread enc GB/s | 1-thread dec GB/s | enc "
      "speedup | dec speedup | same bytes |\n|---|---|---|---|---|---|---|---|---|\n");
  for (size_t size : sizes) {
    const std::vector<std::byte> in(all.begin(), all.begin() + std::ptrdiff_t(size & ~size_t(1)));
    std::vector<std::byte> out(in.size());
    Peer one = commlab_peer(1), many = commlab_peer(threads);
    const size_t calls = std::max<size_t>(1, (size_t(64) << 20) / std::max<size_t>(in.size(), 1));
    for (int s = 0; s < samples; ++s) {
      time_sample(one, in, out, calls, wall_seconds);
      time_sample(many, in, out, calls, wall_seconds);
    }
    const bool same =
        one.packed_size == many.packed_size &&
        std::equal(one.packed.begin(), one.packed.begin() + one.packed_size, many.packed.begin());
    const double n = double(in.size());
    std::printf("| %zu KiB | %d | %.3f | %.3f | %.3f | %.3f | %.2fx | %.2fx | %s |\n",
                in.size() / 1024, threads, n / many.best_enc / 1e9, n / many.best_dec / 1e9,
                n / one.best_enc / 1e9, n / one.best_dec / 1e9, one.best_enc / many.best_enc,
                one.best_dec / many.best_dec, same ? "yes" : "NO");
    std::fflush(stdout);
  }
  std::printf("\nwall clock per call, best of %d samples, the two alternating\n", samples);
}

}  // namespace
}  // namespace commlab

int main(int argc, char** argv) {
  using namespace commlab;
  std::string sizes = "64K,400K,4M,64M";
  int samples = 15;
  size_t sample_bytes = 8 << 20;  // calls per sample: at least this many input bytes
  std::string profile;            // "enc" or "dec": only commlab, in a loop (for perf record)
  int threads = 0;                // > 1: the thread table after the one-core table
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--sizes")
      sizes = v;
    else if (a == "--samples")
      samples = std::stoi(v);
    else if (a == "--profile")
      profile = v;
    else if (a == "--threads")
      threads = std::stoi(v);
    else if (a == "--sample-bytes")
      sample_bytes = parse_size(v);
    else
      fail("unknown option " + a);
  }
  std::vector<size_t> list;
  std::stringstream ss(sizes);
  for (std::string item; std::getline(ss, item, ',');) list.push_back(parse_size(item));
  std::string note;
  const std::vector<std::byte> all =
      mlp_gradient_stream(*std::max_element(list.begin(), list.end()), note);
  if (all.empty()) fail("no gradient data: " + note);
  std::printf(
      "| size | commlab ratio | zstd-1 ratio | lz4 ratio | commlab enc GB/s | commlab dec GB/s | "
      "zstd-1 enc GB/s | zstd-1 dec GB/s | lz4 enc GB/s | lz4 dec GB/s | memcpy GB/s | "
      "enc vs zstd-1 | dec vs zstd-1 |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (size_t size : list) {
    const std::vector<std::byte> in(all.begin(), all.begin() + std::ptrdiff_t(size & ~size_t(1)));
    std::vector<Peer> peers = make_peers();
    if (!profile.empty()) {  // ~1 GB of input through commlab's encoder or decoder
      Peer& p = peers[0];
      std::vector<std::byte> back(in.size());
      p.packed_size = p.encode(in, p.packed);
      for (size_t k = 0; k < (size_t(1) << 30) / in.size(); ++k) {
        if (profile == "enc") p.packed_size = p.encode(in, p.packed);
        if (profile == "dec") p.decode(p.packed, p.packed_size, back);
      }
      continue;
    }
    std::vector<std::byte> out(in.size());
    const size_t calls = std::max<size_t>(1, sample_bytes / std::max<size_t>(in.size(), 1));
    for (int s = 0; s < samples; ++s) {
      for (Peer& p : peers) time_sample(p, in, out, calls, cpu_seconds);
    }
    const double n = double(in.size());
    auto gbps = [n](double t) { return n / t / 1e9; };
    const Peer &c = peers[0], &z = peers[1], &l = peers[2], &m = peers[3];
    std::printf(
        "| %zu KiB | %.4f | %.4f | %.4f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f | %.2fx | "
        "%.2fx |\n",
        in.size() / 1024, double(c.packed_size) / n, double(z.packed_size) / n,
        double(l.packed_size) / n, gbps(c.best_enc), gbps(c.best_dec), gbps(z.best_enc),
        gbps(z.best_dec), gbps(l.best_enc), gbps(l.best_dec), gbps(m.best_enc),
        z.best_enc / c.best_enc, z.best_dec / c.best_dec);
    std::fflush(stdout);
  }
  std::printf("\none core, thread CPU time per call, best of %d samples of >= %zu bytes each\n",
              samples, sample_bytes);
  if (threads > 1) thread_table(all, list, threads, samples);
  return 0;
}
