#pragma once
// Open MPI's own collectives on the same processes, as the yardstick for ours (bench/exec):
// blocking calls, as applications make them, so Open MPI picks its tuned algorithm.
#include <span>

#include "collective/plan.h"
#include "exec/mpi_runtime.h"

namespace commlab::exec {

// Runs MPI_Allreduce (sum, in place), MPI_Reduce_scatter_block or MPI_Allgather on `buffer`
// (every rank's count elements; reduce-scatter leaves this rank's block at its chunk offset) and
// returns this rank's wall time. Broadcast is MPI_Bcast from rank 0.
double native_collective(const MpiRuntime& rt, CollectiveOp op, std::span<float> buffer);

}  // namespace commlab::exec
