// krein: the two O(n^3) kernels of the full iKFD -- the symmetric rank-k
// update A += alpha X X' and the Cholesky factorisation -- split into square
// tiles that OpenMP threads work on at once. Eigen parallelises only its
// general matrix product; its rank update and LLT run on one core, which on a
// multi-core machine leaves most of the time of iKFD on the table. Each tile
// is an Eigen product (single-threaded inside the parallel region).
#ifndef KREIN_PARALLEL_DENSE_HPP
#define KREIN_PARALLEL_DENSE_HPP

#include <Eigen/Dense>

#include <algorithm>
#include <utility>
#include <vector>

#include "krein/parallel.hpp"

namespace krein {
namespace dense {

constexpr Eigen::Index tile_size = 192;

// Lower-triangular tile pairs (i, j), i >= j, of an n x n matrix starting at
// tile `first`.
inline std::vector<std::pair<Eigen::Index, Eigen::Index>> lower_tiles(Eigen::Index tiles,
                                                                      Eigen::Index first) {
  std::vector<std::pair<Eigen::Index, Eigen::Index>> jobs;
  for (Eigen::Index i = first; i < tiles; ++i) {
    for (Eigen::Index j = first; j <= i; ++j) jobs.emplace_back(i, j);
  }
  return jobs;
}

// Lower triangle of A += alpha X X'.
inline void rank_update(Eigen::Ref<Eigen::MatrixXd> A, const Eigen::Ref<const Eigen::MatrixXd>& X,
                        double alpha, int threads) {
  const Eigen::Index n = A.rows();
  const Eigen::Index tiles = (n + tile_size - 1) / tile_size;
  const auto jobs = lower_tiles(tiles, 0);
  parallel::parallel_for(0, static_cast<Eigen::Index>(jobs.size()), threads, parallel::Schedule::dynamic(),
                         [&](Eigen::Index t) {
    const Eigen::Index i0 = jobs[t].first * tile_size, j0 = jobs[t].second * tile_size;
    const Eigen::Index rows = std::min(tile_size, n - i0), cols = std::min(tile_size, n - j0);
    if (i0 == j0) {
      A.block(i0, i0, rows, rows).selfadjointView<Eigen::Lower>().rankUpdate(X.middleRows(i0, rows), alpha);
    } else {
      A.block(i0, j0, rows, cols).noalias() +=
          alpha * X.middleRows(i0, rows) * X.middleRows(j0, cols).transpose();
    }
  });
}

// In-place Cholesky factorisation A = L L' of the lower triangle (right-looking,
// blocked; the panel solves and the trailing update run in parallel). Returns
// false if A is not numerically positive definite.
inline bool cholesky(Eigen::Ref<Eigen::MatrixXd> A, int threads) {
  const Eigen::Index n = A.rows();
  const Eigen::Index tiles = (n + tile_size - 1) / tile_size;
  const int workers = parallel::thread_count(threads);
  for (Eigen::Index k = 0; k < tiles; ++k) {
    const Eigen::Index k0 = k * tile_size, kb = std::min(tile_size, n - k0);
    Eigen::Ref<Eigen::MatrixXd> pivot_block = A.block(k0, k0, kb, kb);
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower> diagonal(pivot_block);  // in place
    if (diagonal.info() != Eigen::Success) return false;
    const Eigen::Index below = n - k0 - kb;
    if (below == 0) break;
    // panel: L_ik = A_ik L_kk^-T
    parallel::parallel_for(0, tiles - k - 1, workers, parallel::Schedule::dynamic(), [&](Eigen::Index p) {
      const Eigen::Index i0 = k0 + kb + p * tile_size, rows = std::min(tile_size, n - i0);
      auto panel = A.block(i0, k0, rows, kb);
      A.block(k0, k0, kb, kb).triangularView<Eigen::Lower>().adjoint().solveInPlace<Eigen::OnTheRight>(panel);
    });
    // trailing update: A_ij -= L_ik L_jk'
    const auto jobs = lower_tiles(tiles, k + 1);
    parallel::parallel_for(0, static_cast<Eigen::Index>(jobs.size()), workers, parallel::Schedule::dynamic(),
                           [&](Eigen::Index t) {
      const Eigen::Index i0 = jobs[t].first * tile_size, j0 = jobs[t].second * tile_size;
      const Eigen::Index rows = std::min(tile_size, n - i0), cols = std::min(tile_size, n - j0);
      if (i0 == j0) {
        A.block(i0, i0, rows, rows).selfadjointView<Eigen::Lower>().rankUpdate(A.block(i0, k0, rows, kb), -1.0);
      } else {
        A.block(i0, j0, rows, cols).noalias() -= A.block(i0, k0, rows, kb) * A.block(j0, k0, cols, kb).transpose();
      }
    });
  }
  return true;
}

// Solve L L' x = b with the factor from cholesky().
inline Eigen::VectorXd cholesky_solve(const Eigen::Ref<const Eigen::MatrixXd>& L, Eigen::VectorXd b) {
  L.triangularView<Eigen::Lower>().solveInPlace(b);
  L.triangularView<Eigen::Lower>().adjoint().solveInPlace(b);
  return b;
}

}  // namespace dense
}  // namespace krein

#endif  // KREIN_PARALLEL_DENSE_HPP
