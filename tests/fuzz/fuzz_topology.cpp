// Fuzzes cluster/topology files (topology/topology_json.h) through load_topology, the reader
// `collective --cluster`, `traffic`, `workload`, `validate` and `run` use: size cap, regular-file
// check, nesting bound, self-reference guard, node-name index, builder parameters. Input: the
// file's bytes, written to a scratch file whose name the input may name (the self-reference case).
// load_topology must return a topology or throw std::invalid_argument / std::runtime_error whose
// message is one line starting with the file name; anything else is a finding.
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "topology/topology_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string file = "/tmp/fuzz_topology_" + std::to_string(getpid()) + ".json";
  if (FILE* f = std::fopen(file.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  try {
    const commlab::Topology t = commlab::load_topology(file);
    if (t.ranks() < 1) __builtin_trap();  // a loaded topology has GPUs
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).rfind(file, 0) != 0) __builtin_trap();  // names the file
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).rfind(file, 0) != 0) __builtin_trap();
  }
  return 0;
}
