#pragma once
// Where the teaching canvas puts each GPU, by algorithm (Qt-free, so tests can check it): the
// ring on a circle; the double binary tree as a tree (tree 0 hanging from rank 0, its mirror tree 1
// standing on rank N-1); halving-doubling on a grid where the partners of every round share a row
// or a column; hierarchical as nodes side by side, each a column of its GPUs; direct on a circle.
#include <array>
#include <string>
#include <vector>

namespace commlab::ui {

struct TeachingLayout {
  enum class Kind { kCircle, kTree, kGrid, kNodes };
  Kind kind = Kind::kCircle;
  // Box centres per rank in grid units: column and row (fractional on the circle, where they are
  // the unit circle's cos and sin). The canvas maps [0, columns-1] x [0, rows-1] onto its area.
  std::vector<double> column, row;
  int columns = 1, rows = 1;
  // Widest box, in columns, that keeps boxes in the same row apart (tree: 2, others: 1).
  double box_columns = 1;
  // Hierarchical: the ranks of each node, framed together.
  std::vector<std::vector<int>> nodes;
  // Tree: parent of each rank in tree 0 and tree 1 (-1 at the root).
  std::array<std::vector<int>, 2> parent;
};

// `ranks_per_node` is used by "hier" only. Unknown algorithms get the circle.
TeachingLayout teaching_layout(const std::string& algorithm, int ranks, int ranks_per_node);

// Which tree an edge between two ranks belongs to (0 or 1), -1 when neither.
int tree_of_edge(const TeachingLayout& layout, int a, int b);

}  // namespace commlab::ui
