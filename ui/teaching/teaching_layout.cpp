#include "teaching_layout.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>

#include "collective/algorithms.h"

namespace commlab::ui {

namespace {

int heap_depth(int position) {
  return std::bit_width(static_cast<unsigned>(position + 1)) - 1;
}

// In-order positions of the complete binary tree stored as a heap of n nodes.
void in_order(int position, int n, std::vector<int>& out) {
  if (position >= n) return;
  in_order(2 * position + 1, n, out);
  out.push_back(position);
  in_order(2 * position + 2, n, out);
}

TeachingLayout circle(int ranks) {
  TeachingLayout l;
  l.kind = TeachingLayout::Kind::kCircle;
  l.columns = l.rows = 3;  // centres span [0, 2] x [0, 2]
  for (int r = 0; r < ranks; ++r) {
    const double angle = -std::numbers::pi / 2 + 2 * std::numbers::pi * r / ranks;  // 0 on top
    l.column.push_back(1 + std::cos(angle));
    l.row.push_back(1 + std::sin(angle));
  }
  return l;
}

// Tree 0 is the heap over ranks (rank = position); tree 1 its mirror (rank n-1-i at position i),
// as collective/tree.cpp builds them. Drawn by tree 0: depth down, in-order across, so a parent
// sits above and between its children and tree 1's edges run upwards towards rank n-1.
TeachingLayout tree(int ranks) {
  TeachingLayout l;
  l.kind = TeachingLayout::Kind::kTree;
  l.column.assign(ranks, 0);
  l.row.assign(ranks, 0);
  std::vector<int> order;
  in_order(0, ranks, order);
  for (int c = 0; c < ranks; ++c) l.column[order[c]] = c;
  for (int r = 0; r < ranks; ++r) l.row[r] = heap_depth(r);
  l.columns = ranks;
  l.rows = heap_depth(ranks - 1) + 1;
  // Two nodes of one depth are never neighbours in in-order (their common ancestor lies between).
  l.box_columns = 2;
  for (int t = 0; t < 2; ++t) l.parent[t].assign(ranks, -1);
  for (int p = 1; p < ranks; ++p) {
    l.parent[0][p] = (p - 1) / 2;
    l.parent[1][ranks - 1 - p] = ranks - 1 - (p - 1) / 2;
  }
  return l;
}

// Rank bits alternate between the axes (bit 0 across, bit 1 down, bit 2 across, ...): the
// partners of round k differ in bit k, so they share a row or a column.
TeachingLayout grid(int ranks) {
  TeachingLayout l;
  l.kind = TeachingLayout::Kind::kGrid;
  for (int r = 0; r < ranks; ++r) {
    int col = 0, row = 0;
    for (int bit = 0; (1 << bit) <= r; ++bit) {
      const int b = (r >> bit) & 1;
      if (bit % 2 == 0)
        col |= b << (bit / 2);
      else
        row |= b << (bit / 2);
    }
    l.column.push_back(col);
    l.row.push_back(row);
    l.columns = std::max(l.columns, col + 1);
    l.rows = std::max(l.rows, row + 1);
  }
  return l;
}

TeachingLayout nodes(int ranks, int ranks_per_node) {
  TeachingLayout l;
  l.kind = TeachingLayout::Kind::kNodes;
  const int g = std::clamp(ranks_per_node, 1, ranks);
  for (int r = 0; r < ranks; ++r) {
    if (r % g == 0) l.nodes.emplace_back();
    l.nodes.back().push_back(r);
    l.column.push_back(r / g);
    l.row.push_back(r % g);
  }
  l.columns = static_cast<int>(l.nodes.size());
  l.rows = g;
  return l;
}

}  // namespace

TeachingLayout teaching_layout(const std::string& algorithm, int ranks, int ranks_per_node) {
  if (ranks < 1) return {};
  const Algorithm* a = lookup_algorithm(algorithm);
  switch (a ? a->layout : RankLayout::kRing) {
    case RankLayout::kTree: return tree(ranks);
    case RankLayout::kGrid: return grid(ranks);
    case RankLayout::kNodes: return nodes(ranks, ranks_per_node);
    case RankLayout::kRing: break;
  }
  return circle(ranks);
}

int tree_of_edge(const TeachingLayout& layout, int a, int b) {
  for (int t = 0; t < 2; ++t) {
    const std::vector<int>& p = layout.parent[t];
    if (a < 0 || b < 0 || a >= static_cast<int>(p.size()) || b >= static_cast<int>(p.size()))
      return -1;
    if (p[a] == b || p[b] == a) return t;
  }
  return -1;
}

}  // namespace commlab::ui
