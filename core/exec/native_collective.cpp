#include "exec/native_collective.h"

#include <vector>

#if COMMLAB_HAVE_MPI
#include "exec/mpi_detail.h"
#endif

namespace commlab::exec {

#if COMMLAB_HAVE_MPI

double native_collective(const MpiRuntime& rt, CollectiveOp op, std::span<float> buffer) {
  MPI_Comm comm = world(rt);
  const int n = rt.size(), count = static_cast<int>(buffer.size());
  thread_local std::vector<float> scratch;
  const double t0 = MPI_Wtime();
  switch (op) {
    case CollectiveOp::kAllReduce:
      MPI_Allreduce(MPI_IN_PLACE, buffer.data(), count, MPI_FLOAT, MPI_SUM, comm);
      break;
    case CollectiveOp::kReduceScatter: {
      const int block = count / n;  // the remainder stays unreduced: sizes here are multiples
      scratch.resize(block);
      MPI_Reduce_scatter_block(buffer.data(), scratch.data(), block, MPI_FLOAT, MPI_SUM, comm);
      break;
    }
    case CollectiveOp::kAllGather: {
      const int block = count / n;
      MPI_Allgather(MPI_IN_PLACE, block, MPI_FLOAT, buffer.data(), block, MPI_FLOAT, comm);
      break;
    }
    case CollectiveOp::kBroadcast: MPI_Bcast(buffer.data(), count, MPI_FLOAT, 0, comm); break;
  }
  return MPI_Wtime() - t0;
}

#else

double native_collective(const MpiRuntime&, CollectiveOp, std::span<float>) {
  throw MpiUnavailable(launch_hint("collective"));
}

#endif

}  // namespace commlab::exec
