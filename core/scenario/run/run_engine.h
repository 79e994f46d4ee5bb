#pragma once
// What a RunSession steps, behind one interface. Three engines: the simulated data-parallel
// trainer (every rank in this process), this process's rank of an MPI run (`execution: mpi`), and
// a catalog or trace workload's time plane (no training). RunSession keeps what every run keeps
// (samples, evaluations, wall time, the time-to-accuracy crossing) and asks its engine for the
// rest, so no caller switches on which engine it holds.
#include <memory>
#include <string>
#include <vector>

#include "scenario/run_config.h"
#include "train/trainer.h"

namespace commlab {

namespace exec {
class MpiRuntime;
}

struct RunSummary;
struct MpiRunStats;

class RunEngine {
 public:
  virtual ~RunEngine() = default;
  // Iterations completed.
  virtual int iteration() const = 0;
  // Runs one iteration; the sample carries the network intervals it covered (packet backend).
  virtual Sample step() = 0;
  // Names of the gradient buckets (layers) in forward order; none for a time-plane-only run.
  virtual std::vector<std::string> bucket_names() const = 0;
  // Fills the engine's part of the summary (wire totals, compression, skipped and trimmed work and
  // the final values) given the run's latest sample and latest evaluated accuracy.
  virtual void summarize(RunSummary& s, const Sample& last, double last_accuracy) const = 0;
  // execution "mpi": this process's measured split; zeros for the others.
  virtual MpiRunStats mpi_stats() const;
  // The simulated trainer, for engines that have one.
  virtual const DataParallelTrainer* trainer() const { return nullptr; }
  // A fork: carry on `parent`'s training from its current iteration. Throws std::invalid_argument
  // unless both are simulated training runs of the same model on the same ranks.
  virtual void continue_from(const RunEngine& parent);
};

// The engine for `config` (throws std::invalid_argument or ConfigError naming the field for a
// configuration it cannot run). `mpi` is needed by execution "mpi" and ignored otherwise.
std::unique_ptr<RunEngine> make_run_engine(const RunConfig& config, const exec::MpiRuntime* mpi);

// Builds and drops what the engine for `config` builds before its first iteration (execution
// mode, cluster, backend, data set, shards, model, codec and collective; catalog and trace runs
// get their execution checks only): throws what make_run_engine would throw.
void check_run_engine_parts(const RunConfig& config);

}  // namespace commlab
