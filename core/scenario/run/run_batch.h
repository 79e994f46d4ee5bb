#pragma once
// What the processes of an `mpirun -np K` experiment (experiment_runner.h) send to process 0: each
// finished run's summary, its kept samples (for the charts) and its series.csv rows, exactly, so
// process 0 writes the same files a single process writes.
#include <string>
#include <vector>

#include "io/status.h"
#include "scenario/run/results_io.h"

namespace commlab {

struct BatchItem {
  int index = 0;   // the replica's place in the experiment
  int status = 0;  // 0 not started (stopped), 1 finished or stopped cleanly, 2 failed
  Status error;    // status 2: why (its code, field and message)
  RunResult result;
  std::string series_rows;  // the run's rows of series.csv, as streamed
};

// One run's result (summary, samples, completeness, per-seed summaries) as bytes and back, every
// member carried.
std::string encode_result(const RunResult& result);
// Throws std::runtime_error on bytes that are not one whole result.
RunResult decode_result(const std::string& bytes);

std::string encode_batch(const std::vector<BatchItem>& items, bool stopped);
// Throws std::runtime_error on bytes that are not a whole batch.
std::vector<BatchItem> decode_batch(const std::string& bytes, bool* stopped);

}  // namespace commlab
