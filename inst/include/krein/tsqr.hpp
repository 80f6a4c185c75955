// krein: tall-skinny QR. The triangular factor R of a tall matrix A = Q R is
// all that a Gram matrix A'A = R'R carries, but without squaring the
// condition number; it can be built from row blocks (each block's factor,
// then the factor of the stacked factors), so A itself is never held whole.
// Used by Ny-iKFD (ikfd.hpp) and by the class covariances of KFDA (kfda.hpp).
#ifndef KREIN_TSQR_HPP
#define KREIN_TSQR_HPP

#include <Eigen/Dense>

#include <algorithm>
#include <vector>

#include "krein/parallel.hpp"

namespace krein {
namespace tsqr {

// The upper-triangular columns x columns factor of QR of the stacked rows
// (zero rows below when there are fewer rows than columns).
inline Eigen::MatrixXd triangular_factor(const Eigen::Ref<const Eigen::MatrixXd>& rows,
                                         Eigen::Index columns) {
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(columns, columns);
  if (rows.rows() == 0) return out;
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(rows);
  const Eigen::Index k = std::min(rows.rows(), columns);
  out.topRows(k) = qr.matrixQR().topRows(k).triangularView<Eigen::Upper>();
  return out;
}

// The factor of [A; B] from the factors of A and of B.
inline Eigen::MatrixXd merge_factor(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  Eigen::MatrixXd stacked(a.rows() + b.rows(), a.cols());
  stacked << a, b;
  return triangular_factor(stacked, a.cols());
}

// The factor of `rows` rows split into contiguous chunks, one per thread,
// each chunk of at least `min_chunk_rows` rows (so that each QR reduces its
// block); chunk_factor(begin, end) returns the factor of rows [begin, end),
// and the chunks' factors are merged in order.
template <class ChunkFactor>
inline Eigen::MatrixXd chunked_factor(Eigen::Index rows, Eigen::Index min_chunk_rows, int threads,
                                      ChunkFactor chunk_factor) {
  const int chunks = static_cast<int>(std::max<Eigen::Index>(
      1, std::min<Eigen::Index>(parallel::thread_count(threads), rows / min_chunk_rows)));
  std::vector<Eigen::MatrixXd> partial(chunks);
  parallel::parallel_for(0, chunks, chunks, parallel::Schedule::blocks(), [&](Eigen::Index t) {
    partial[t] = chunk_factor(rows * t / chunks, rows * (t + 1) / chunks);
  });
  Eigen::MatrixXd factor = partial[0];
  for (int t = 1; t < chunks; ++t) factor = merge_factor(factor, partial[t]);
  return factor;
}

}  // namespace tsqr
}  // namespace krein

#endif  // KREIN_TSQR_HPP
