#pragma once
// Factories of the individual codecs (one .cpp each); the registry (codec_registry.cpp) names them.
#include <memory>

#include "codec/codec.h"

namespace commlab {

std::unique_ptr<Codec> make_raw_codec();
std::unique_ptr<Codec> make_lz4_codec();
std::unique_ptr<Codec> make_zstd_codec(int level);
std::unique_ptr<Codec> make_bytegroup_zstd_codec(int level, std::string name);
std::unique_ptr<Codec> make_netzip_paper_codec();
std::unique_ptr<Codec> make_netzip_lossless_codec(bool bit_planes);
std::unique_ptr<Codec> make_xor_prev_codec();
std::unique_ptr<Codec> make_cast_codec(DType target);
// threads: OpenMP threads for buffers of several 4 MiB chunks (0: omp_get_max_threads(), 1 inside
// a parallel region); the bytes are the same for any count.
std::unique_ptr<Codec> make_commlab_codec(int threads = 0);
std::unique_ptr<Codec> make_topk_codec(double fraction);
std::unique_ptr<Codec> make_powersgd_codec(int rank);

}  // namespace commlab
