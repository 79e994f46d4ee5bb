#pragma once
// For core/exec's own files only (the one place that may include mpi.h): the runtime's
// communicator and the watchdog's waits. Every wait on peers goes through these, so a peer that
// died or stopped answering ends the job within the runtime's timeout instead of hanging it.
#include <mpi.h>

#include <span>
#include <string>

#include "exec/mpi_runtime.h"

namespace commlab::exec {

inline MPI_Comm world(const MpiRuntime& rt) {
  return static_cast<MPI_Comm>(rt.world_handle());
}

// Polls the requests (MPI_Testall) until all complete; past rt.timeout_s() calls rt.abort() with
// "no answer within T s while WHAT". Yields the core between polls when oversubscribed.
void wait_all(const MpiRuntime& rt, std::span<MPI_Request> requests, const std::string& what);
inline void wait_one(const MpiRuntime& rt, MPI_Request& request, const std::string& what) {
  wait_all(rt, std::span<MPI_Request>(&request, 1), what);
}
// Polls MPI_Improbe for a message from `source` with `tag` on `comm`, under the same watchdog;
// returns its matched handle and byte count.
MPI_Message wait_message(const MpiRuntime& rt, MPI_Comm comm, int source, int tag,
                         const std::string& what, int* bytes);

}  // namespace commlab::exec
