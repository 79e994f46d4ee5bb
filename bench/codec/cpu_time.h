#pragma once
// Thread CPU time in seconds: the codec benchmarks time one core, so a busy shared machine
// (other threads on the same core) disturbs them less than wall clock would.
#include <time.h>

namespace commlab {

inline double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

}  // namespace commlab
