#include "exec/runs/mpi_batch.h"

#include <stdexcept>

namespace commlab::exec {

void ByteReader::need(uint64_t n) const {
  if (n > in_.size() - pos_)
    throw std::runtime_error("a process sent a truncated result (" + std::to_string(in_.size()) +
                             " bytes)");
}

}  // namespace commlab::exec
