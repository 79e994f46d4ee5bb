#pragma once
// The CPU features the codecs' fast paths dispatch on, read once per process. COMMLAB_CODEC_ISA
// caps them, so that every path can be tested on one machine and a user can step back from a fast
// path: "scalar" (none of them), "sse" (SSSE3, SSE4.1/4.2, PCLMUL, POPCNT, BMI2), "avx2" (and
// AVX2), unset or "native" (all the CPU has, AVX-512 VBMI2 included). Every path writes the same
// bytes (tests/codec runs the codec tests under each cap). An unknown value is treated as
// "native" and said once on stderr.
namespace commlab {

struct CpuFeatures {
  bool ssse3 = false, sse41 = false, sse42 = false, pclmul = false, popcnt = false, bmi2 = false;
  bool avx2 = false;
  bool avx512 = false;  // AVX-512 F + BW + VBMI2
};

const CpuFeatures& cpu_features();

}  // namespace commlab
