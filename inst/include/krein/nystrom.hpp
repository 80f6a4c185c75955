// krein: the Nystroem approximation of a possibly indefinite kernel matrix and
// its exact signed eigendecomposition in O(n m^2) (paper 002, Schleif,
// Gisbrecht & Tino, Sec. 3, eq. 10; the sign-keeping algebra, given in the
// Details of ?nystrom, is needed because the paper's recipe through B'B is
// right only for a positive semidefinite K_mm).
//
//   K_hat = C W^+ C',  C = K_nm (n x m),  W = K_mm (m x m)
//   1. W = U diag(l) U', keep |l| > sqrt(eps) max|l| (W^+ as MASS::ginv)
//   2. B = C U diag(|l|^-1/2), S = diag(sign(l))    =>  K_hat = B S B'
//   3. B = Q_B R (thin QR)
//   4. R S R' = V diag(Lambda) V'
//   5. K_hat = Q diag(Lambda) Q',  Q = Q_B V (orthonormal), Lambda signed
//
// Ny-iKFD (ikfd.hpp) runs the same steps on the triangular QR factor of C.
#ifndef KREIN_NYSTROM_HPP
#define KREIN_NYSTROM_HPP

#include <Eigen/Dense>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "krein/numerics.hpp"
#include "krein/symmetric_eigen.hpp"

namespace krein {
namespace nystrom {

// Step 1: the eigenpairs of W with |l| > sqrt(eps) max|l| (the
// pseudo-inverse's cutoff), in LAPACK's ascending order; `lapack_order`
// false: largest first (as R's eigen() gives them) and from LAPACK's dsyevr
// itself, the routine R's eigen(symmetric = TRUE) calls, so that the
// features of the Nystroem models equal those R computes from the same
// landmark kernel to the last bit. None: W is zero (a W that is not finite
// is an error of the eigensolver).
struct Eigenpairs {
  Eigen::MatrixXd vectors;  // m x r
  Eigen::VectorXd values;   // r
};

inline Eigenpairs kept_eigenpairs(const Eigen::Ref<const Eigen::MatrixXd>& W, bool lapack_order) {
  Eigenpairs out;
  const SymmetricEigen eig = lapack_order ? symmetric_eigen(W, true) : symmetric_eigen_dsyevr(W);
  const double largest = eig.values.cwiseAbs().maxCoeff();
  const Eigen::Index m = eig.values.size();
  std::vector<Eigen::Index> kept;
  for (Eigen::Index k = 0; k < m; ++k) {
    const Eigen::Index i = lapack_order ? k : m - 1 - k;
    if (std::abs(eig.values[i]) > numerics::pseudo_inverse_cutoff(largest)) kept.push_back(i);
  }
  const Eigen::Index r = static_cast<Eigen::Index>(kept.size());
  out.vectors.resize(W.rows(), r);
  out.values.resize(r);
  for (Eigen::Index j = 0; j < r; ++j) {
    out.vectors.col(j) = eig.vectors.col(kept[j]);
    out.values[j] = eig.values[kept[j]];
  }
  return out;
}

// Steps 1 and 2 on the landmarks alone, the feature map of the Nystroem
// kernel: phi(x) = |l|^-1/2 U' k(L, x) = map k(L, x) (map: r x m, largest
// eigenvalue first) and J = sign(l) (`signs`), so that k_hat(x, x') =
// phi(x)' J phi(x') = k(x, L) W^+ k(L, x'). Ny-KQD and the Nystroem Krein
// SVM work on these features. No row (r = 0): W is zero.
struct FeatureMap {
  Eigen::MatrixXd map;
  Eigen::VectorXd signs;
  Eigen::Index rank() const { return signs.size(); }
};

inline FeatureMap feature_map(const Eigen::Ref<const Eigen::MatrixXd>& W) {
  if (W.rows() != W.cols()) throw std::invalid_argument("W must be square");
  const Eigenpairs pairs = kept_eigenpairs(W, false);
  const Eigen::Index r = pairs.values.size();
  FeatureMap out;
  out.map.resize(r, W.rows());
  out.signs.resize(r);
  for (Eigen::Index k = 0; k < r; ++k) {
    out.map.row(k) = pairs.vectors.col(k).transpose() / std::sqrt(std::abs(pairs.values[k]));
    out.signs[k] = pairs.values[k] < 0 ? -1.0 : 1.0;
  }
  return out;
}

struct Decomposition {
  Eigen::MatrixXd vectors;    // Q, n x r, orthonormal columns
  Eigen::VectorXd values;     // Lambda, r signed eigenvalues of K_hat, decreasing
  Eigen::MatrixXd extension;  // E = Q' C W^+ (r x m): Q' k_hat(x, X) = E k(L, x)
  int landmark_rank = 0;      // nonzero eigenvalues of W
};

inline Decomposition decompose(const Eigen::Ref<const Eigen::MatrixXd>& C,
                               const Eigen::Ref<const Eigen::MatrixXd>& W) {
  const Eigen::Index n = C.rows(), m = C.cols();
  if (W.rows() != m || W.cols() != m) throw std::invalid_argument("W must be m x m for C of m columns");
  Decomposition out;
  // 1. eigenpairs of W with nonzero eigenvalue
  const Eigenpairs pairs = kept_eigenpairs(W, true);
  const Eigen::Index k = pairs.values.size();
  out.landmark_rank = static_cast<int>(k);
  if (k == 0) {
    out.vectors.resize(n, 0);
    out.extension.resize(0, m);
    return out;
  }
  const Eigen::MatrixXd& U = pairs.vectors;
  const Eigen::VectorXd& l = pairs.values;
  Eigen::VectorXd sign(k);
  for (Eigen::Index j = 0; j < k; ++j) sign[j] = l[j] < 0 ? -1.0 : 1.0;
  // 2. B = C U |l|^-1/2
  const Eigen::MatrixXd CU = C * U;
  const Eigen::MatrixXd B = CU * l.cwiseAbs().cwiseSqrt().cwiseInverse().asDiagonal();
  // 3. thin QR
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(B);
  const Eigen::Index kq = std::min(n, k);
  const Eigen::MatrixXd Q_B = qr.householderQ() * Eigen::MatrixXd::Identity(n, kq);
  const Eigen::MatrixXd R = qr.matrixQR().topRows(kq).triangularView<Eigen::Upper>();
  // 4. R S R' = V Lambda V'
  const Eigen::MatrixXd core = R * sign.asDiagonal() * R.transpose();
  const SymmetricEigen c_eig = symmetric_eigen(core, true);
  const double c_largest = c_eig.values.cwiseAbs().maxCoeff();
  std::vector<Eigen::Index> nonzero;
  for (Eigen::Index i = kq - 1; i >= 0; --i) {  // decreasing eigenvalues
    if (std::abs(c_eig.values[i]) > numerics::zero_eigenvalue_tolerance(kq, c_largest)) nonzero.push_back(i);
  }
  const Eigen::Index r = static_cast<Eigen::Index>(nonzero.size());
  Eigen::MatrixXd V(kq, r);
  out.values.resize(r);
  for (Eigen::Index j = 0; j < r; ++j) {
    V.col(j) = c_eig.vectors.col(nonzero[j]);
    out.values[j] = c_eig.values[nonzero[j]];
  }
  // 5. Q = Q_B V; E = Q' C W^+ = (Q' C U) diag(1/l) U'
  out.vectors = Q_B * V;
  out.extension = (out.vectors.transpose() * CU) * l.cwiseInverse().asDiagonal() * U.transpose();
  return out;
}

}  // namespace nystrom
}  // namespace krein

#endif  // KREIN_NYSTROM_HPP
