#pragma once
// The topology the packet tests share.
#include "topology/builders.h"

namespace commlab::testing {

// A k = 4 fat tree: 16 hosts, 20 switches, 100 Gbit/s links, 1 us per hop.
inline Topology k4() {
  return make_fat_tree(FatTreeParams{4, 100, 1.0});
}

}  // namespace commlab::testing
