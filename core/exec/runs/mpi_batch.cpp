#include "exec/runs/mpi_batch.h"

#include <cstdlib>
#include <stdexcept>

extern char** environ;

namespace commlab::exec {

void forget_mpi_launcher_env() {
  std::vector<std::string> names;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    const std::string name = kv.substr(0, kv.find('='));
    if (name.rfind("OMPI_", 0) == 0 || name.rfind("PMIX_", 0) == 0 || name.rfind("PMI_", 0) == 0)
      names.push_back(name);
  }
  for (const std::string& n : names) unsetenv(n.c_str());
}

void ByteReader::need(uint64_t n) const {
  if (n > in_.size() - pos_)
    throw std::runtime_error("a process sent a truncated result (" + std::to_string(in_.size()) +
                             " bytes)");
}

}  // namespace commlab::exec
