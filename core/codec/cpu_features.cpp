#include "codec/cpu_features.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace commlab {

namespace {

CpuFeatures detect() {
  CpuFeatures f;
  f.ssse3 = __builtin_cpu_supports("ssse3");
  f.sse41 = __builtin_cpu_supports("sse4.1");
  f.sse42 = __builtin_cpu_supports("sse4.2");
  f.pclmul = __builtin_cpu_supports("pclmul");
  f.popcnt = __builtin_cpu_supports("popcnt");
  f.bmi2 = __builtin_cpu_supports("bmi2");
  f.avx2 = __builtin_cpu_supports("avx2");
  f.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vbmi2");
  const char* cap = std::getenv("COMMLAB_CODEC_ISA");
  if (!cap || !*cap || std::strcmp(cap, "native") == 0) return f;
  const bool scalar = std::strcmp(cap, "scalar") == 0, sse = std::strcmp(cap, "sse") == 0,
             avx2 = std::strcmp(cap, "avx2") == 0;
  if (!scalar && !sse && !avx2) {
    std::fprintf(stderr,
                 "commlab: COMMLAB_CODEC_ISA='%s' is not scalar, sse, avx2 or native: "
                 "using native\n",
                 cap);
    return f;
  }
  f.avx512 = false;
  if (!avx2) f.avx2 = false;
  if (scalar) f = CpuFeatures{};
  return f;
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

}  // namespace commlab
