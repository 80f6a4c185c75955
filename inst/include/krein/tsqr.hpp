// krein: tall-skinny QR. The triangular factor R of a tall matrix A = Q R is
// all that a Gram matrix A'A = R'R carries, but without squaring the
// condition number; it can be built from row blocks (each block's factor,
// then the factor of the stacked factors), so A itself is never held whole.
// Used by Ny-iKFD (ikfd.hpp) and by the class covariances of KFDA (kfda.hpp).
#ifndef KREIN_TSQR_HPP
#define KREIN_TSQR_HPP

#include <Eigen/Dense>

#include <algorithm>

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

}  // namespace tsqr
}  // namespace krein

#endif  // KREIN_TSQR_HPP
