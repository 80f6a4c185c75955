// krein: the nearest columns of each row of a block of squared distances,
// IKNN's neighbours (paper 000, Sec. IV-E: d2(x, x') = k(x, x) - 2 k(x, x') +
// k(x', x'), which an indefinite kernel can make negative; the neighbours
// are still the smallest). The order is R's order() on each row: smaller
// distances first, equal ones by column (ties to the smaller index), NaN
// after every number, so that the R fits that sorted rows with order()
// keep their results.
//
// A row keeps its `count` best candidates in a bounded max-heap while the
// columns stream past: after the first few columns almost every candidate
// is rejected by one comparison with the heap's worst, so a row of m
// distances costs O(m) comparisons and O(log count) per accepted one (about
// count (1 + log(m / count)) of them in a random order), not a sort (1e6
// rows x 5,000 prototypes is 5e9 distances per fit).
// Columns stream in order and rows are taken in tiles, so a column-major
// block is read down its columns, contiguously.
#ifndef KREIN_NEAREST_HPP
#define KREIN_NEAREST_HPP

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "krein/parallel.hpp"

namespace krein {
namespace nearest {

// A candidate neighbour as R's order() ranks it: by its key, the distance
// with NaN taken as +Inf, then by its rank, the column, or for a NaN the
// column plus the number of columns -- so a NaN comes after every number,
// +Inf included, and NaNs among themselves by column. Keys are never NaN
// and ranks are distinct, so before() is a strict total order, cheap to
// compare (the heap compares on every accepted column).
struct Candidate {
  double key;
  Eigen::Index rank;
};

inline bool before(const Candidate& a, const Candidate& b) {
  return a.key < b.key || (a.key == b.key && a.rank < b.rank);
}

inline Candidate candidate(double distance, Eigen::Index column, Eigen::Index columns) {
  if (std::isnan(distance)) return Candidate{std::numeric_limits<double>::infinity(), column + columns};
  return Candidate{distance, column};
}

// The column of a candidate
inline Eigen::Index column_of(const Candidate& c, Eigen::Index columns) {
  return c.rank >= columns ? c.rank - columns : c.rank;
}

// Puts `c` in the place of the worst candidate of a max-heap under before()
// (its root) and sifts it down: one pass of the heap's height instead of
// std::pop_heap() and std::push_heap()
inline void replace_worst(Candidate* heap, Eigen::Index count, const Candidate& c) {
  Eigen::Index hole = 0;
  for (;;) {
    Eigen::Index child = 2 * hole + 1;
    if (child >= count) break;
    if (child + 1 < count && before(heap[child], heap[child + 1])) ++child;
    if (!before(c, heap[child])) break;
    heap[hole] = heap[child];
    hole = child;
  }
  heap[hole] = c;
}

// Rows per tile. A tile reads its part of each column of a column-major
// block contiguously (8 KB), long enough for the hardware prefetcher: on a
// block of 2,097 rows x 2,000 landmarks, 64-row tiles took 61 ms, 1,024-row
// tiles 27 ms (a plain sum over the block 7 ms). Its heaps (rows x count
// candidates, 426 KB for 26) stay in the second-level cache.
constexpr Eigen::Index tile_rows = 1024;

// For each of `rows` rows, the `count` nearest of `columns` columns under
// distance(i, j), nearest first, as 0-based columns in `out` (rows x
// count); `count` is at most `columns`. Returns the number of distances
// below zero, leaving out each row's `own` column (0-based, -1 for none;
// empty: no row has one). Every row is computed by one thread alone and the
// counts are whole numbers, so nothing depends on the threads or the tiles.
template <class Distance>
double nearest_columns(Eigen::Index rows, Eigen::Index columns, Eigen::Index count, const Distance& distance,
                       const std::vector<Eigen::Index>& own, Eigen::Ref<Eigen::MatrixXi> out, int threads) {
  if (count < 1 || count > columns) throw std::invalid_argument("the number of nearest columns must be in 1..columns");
  if (out.rows() != rows || out.cols() != count) throw std::invalid_argument("the output must be rows x count");
  if (!own.empty() && static_cast<Eigen::Index>(own.size()) != rows) {
    throw std::invalid_argument("one own column per row");
  }
  // at least one tile per thread, of equal sizes
  const Eigen::Index workers = std::min<Eigen::Index>(rows, parallel::thread_count(threads));
  const Eigen::Index tiles = std::max<Eigen::Index>({Eigen::Index(1), workers, (rows + tile_rows - 1) / tile_rows});
  const Eigen::Index rows_per_tile = (rows + tiles - 1) / tiles;
  std::vector<double> negative(static_cast<size_t>(tiles), 0.0);
  parallel::parallel_for(0, tiles, threads, parallel::Schedule::dynamic(1), [&](Eigen::Index tile) {
    const Eigen::Index begin = std::min(rows, tile * rows_per_tile);
    const Eigen::Index end = std::min(rows, begin + rows_per_tile);
    const Eigen::Index width = end - begin;
    // row r's heap: heaps[r * count, (r + 1) * count), its worst candidate
    // first; worst[r] is that candidate's distance, read contiguously by the
    // one comparison that rejects most columns
    std::vector<Candidate> heaps(static_cast<size_t>(width * count));
    std::vector<double> worst(static_cast<size_t>(width));
    const auto heap_of = [&](Eigen::Index r) { return heaps.begin() + r * count; };
    const auto is_own = [&](Eigen::Index r, Eigen::Index j) { return !own.empty() && own[begin + r] == j; };
    double below_zero = 0.0;
    // the first `count` columns fill the heaps
    for (Eigen::Index j = 0; j < count; ++j) {
      for (Eigen::Index r = 0; r < width; ++r) {
        const double d = distance(begin + r, j);
        if (d < 0.0 && !is_own(r, j)) below_zero += 1.0;
        heap_of(r)[j] = candidate(d, j, columns);
      }
    }
    for (Eigen::Index r = 0; r < width; ++r) {
      std::make_heap(heap_of(r), heap_of(r) + count, before);
      worst[r] = heap_of(r)[0].key;
    }
    // every later column replaces a row's worst candidate if it comes before
    // it; a larger distance never does (a NaN fails the quick test and is
    // judged by before())
    for (Eigen::Index j = count; j < columns; ++j) {
      for (Eigen::Index r = 0; r < width; ++r) {
        const double d = distance(begin + r, j);
        if (d < 0.0 && !is_own(r, j)) below_zero += 1.0;
        if (d > worst[r]) continue;
        const Candidate c = candidate(d, j, columns);
        Candidate* heap = &*heap_of(r);
        if (!before(c, heap[0])) continue;
        replace_worst(heap, count, c);
        worst[r] = heap[0].key;
      }
    }
    for (Eigen::Index r = 0; r < width; ++r) {
      const auto heap = heap_of(r);
      std::sort_heap(heap, heap + count, before);
      for (Eigen::Index t = 0; t < count; ++t) out(begin + r, t) = static_cast<int>(column_of(heap[t], columns));
    }
    negative[tile] = below_zero;
  });
  double total = 0.0;
  for (double found : negative) total += found;
  return total;
}

// The nearest columns of a matrix of squared distances D (rows x columns).
// The distance functions read raw column-major storage: through Eigen::Ref
// the compiler reloads the data pointer and stride after every store to a
// heap (an Eigen::Index might alias them).
inline void nearest_of_distances(const Eigen::Ref<const Eigen::MatrixXd>& D, Eigen::Index count,
                                 Eigen::Ref<Eigen::MatrixXi> out, int threads) {
  const double* data = D.data();
  const Eigen::Index stride = D.outerStride();
  nearest_columns(D.rows(), D.cols(), count, [data, stride](Eigen::Index i, Eigen::Index j) { return data[i + j * stride]; },
                  std::vector<Eigen::Index>(), out, threads);
}

// The squared kernel distance of row i to column j, d2 = k(x_i, x_i) -
// 2 k(x_i, l_j) + k(l_j, l_j), evaluated as R's iknn_distances() evaluates
// it, (row_self[i] - 2 K(i, j)) + column_self[j], so that the two give the
// same doubles
struct KernelDistance {
  const double* K;
  Eigen::Index stride;
  const double* row_self;
  const double* column_self;
  double operator()(Eigen::Index i, Eigen::Index j) const {
    const double twice = 2.0 * K[i + j * stride];
    const double partial = row_self[i] - twice;
    return partial + column_self[j];
  }
};

// The nearest columns by the squared kernel distances of the kernel block K
// (rows x columns: rows against the reference points) and the
// self-similarities of the rows and of the references, without forming the
// distances. Returns the number of pairs with d2 < 0 (a sign of an
// indefinite kernel), leaving out each row's `own` column: the row itself
// among the references, whose distance is zero up to rounding.
inline double nearest_of_kernel(const Eigen::Ref<const Eigen::MatrixXd>& K,
                                const Eigen::Ref<const Eigen::VectorXd>& row_self,
                                const Eigen::Ref<const Eigen::VectorXd>& column_self,
                                const std::vector<Eigen::Index>& own, Eigen::Index count,
                                Eigen::Ref<Eigen::MatrixXi> out, int threads) {
  if (row_self.size() != K.rows() || column_self.size() != K.cols()) {
    throw std::invalid_argument("one self-similarity per row and per column of the kernel block");
  }
  const KernelDistance distance{K.data(), K.outerStride(), row_self.data(), column_self.data()};
  return nearest_columns(K.rows(), K.cols(), count, distance, own, out, threads);
}

}  // namespace nearest
}  // namespace krein

#endif  // KREIN_NEAREST_HPP
