// krein: the heavy steps of kernel Fisher discriminant analysis on the kernel
// data (paper 003, Huang, Hwang & Lin, Sec. 4).
// Each training point x_j is represented by its kernel data row
// (k(x_j, x_1), ..., k(x_j, x_n)) -- or by a reduction of it (leading principal
// components, or the columns of a random subset of bases, Sec. 4.2) -- and
// classical Fisher discriminant analysis runs on these rows. What costs time
// is (1) the class means and the triangular factors of the centred class data
// of an n x p matrix of reduced kernel data, O(n p^2), and (2) the quadratic forms
// (z - m_c)' M_c^{-1} (z - m_c) of KFQDA (eq. 12) at many points, O(n p^2 K).
// Both are here; the p x p algebra (Cholesky factors, determinants) is small
// and stays in R.
#ifndef KREIN_KFDA_HPP
#define KREIN_KFDA_HPP

#include <Eigen/Dense>
#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <stdexcept>
#include <vector>

#include "krein/deterministic_uniform.hpp"
#include "krein/parallel.hpp"
#include "krein/tsqr.hpp"

namespace krein {
namespace kfda {

// Principal components of the kernel data from a thin SVD of the centred
// data Z = K - 1 m' = U D V' (m the column means of K): rotation V, component
// variances D^2 / (n - 1). Not from the eigenvectors of the scatter Z'Z: that
// squares the condition number, so that components whose singular values lie
// below sqrt(eps) D_max (eigenvalues below eps * max) are rounding noise --
// for the RBF kernel data of paper 003, Table 3 (sigma^2 = 5, n = 400) only
// 54 components survive, where the paper fits 100. A backward stable SVD
// (BDCSVD here) gets every singular value to within a small multiple of
// eps * D_max, and the leading singular vectors accurately wherever their
// singular values are separated by more than that. U is not formed.
struct CentredSvd {
  Eigen::VectorXd means;     // column means m of K
  Eigen::VectorXd singular;  // D, descending
  Eigen::MatrixXd vectors;   // V, p x min(n, p)
};

inline CentredSvd centred_svd(const Eigen::Ref<const Eigen::MatrixXd>& K, int threads) {
  CentredSvd out;
  out.means = K.colwise().mean().transpose();
  // centring by subtraction of the exact column means: a large common offset
  // of the kernel values costs no digits
  const Eigen::MatrixXd Z = K.rowwise() - out.means.transpose();
  // BDCSVD's bidiagonalisation and back-transformation run through Eigen's
  // blocked products, which use Eigen's own OpenMP threads: give them the
  // caller's count.
  Eigen::BDCSVD<Eigen::MatrixXd> svd;
  {
    const parallel::EigenThreads eigen_threads(threads);
    svd.compute(Z, Eigen::ComputeThinV);
  }
  // Eigen 3.3 (older RcppEigen builds) has no BDCSVD::info(): a failed SVD
  // shows there as non-finite singular values, which the check below catches.
#if EIGEN_VERSION_AT_LEAST(3, 4, 0)
  if (svd.info() != Eigen::Success) throw std::runtime_error("centred_svd: the SVD did not converge");
#endif
  if (!svd.singularValues().allFinite()) throw std::runtime_error("centred_svd: the SVD did not converge");
  out.singular = svd.singularValues();
  out.vectors = svd.matrixV();
  return out;
}

// The leading `k` principal components alone, by block Golub-Kahan-Lanczos
// bidiagonalisation of the centred data Z = K - 1 m' with full
// reorthogonalisation (Golub, Luk and Overton 1981, "A block Lanczos method
// for computing the singular values and corresponding singular vectors of a
// matrix", ACM TOMS 7(2), 149-169, doi:10.1145/355945.355946). Only products
// Z V and Z'U with blocks of b vectors are needed: O(n p b) per block instead
// of the O(n p min(n, p)) of a full SVD, and kernel data have fast-decaying
// spectra, so a few blocks give the leading components.
//
// Accuracy is the full SVD's: Z itself is applied (never Z'Z, which would
// square the condition number, as the scatter's eigenvectors did), and a
// Ritz triplet (d, u, v) is accepted when its residual ||Z'u - d v|| is below
// `tolerance` * d_1, a backward error of the order of a backward stable SVD's
// (Z v = d u holds by construction). Its singular value is then within that
// of one of Z's, and its vector within residual / gap of the SVD's -- the
// same sensitivity to gaps as the SVD's own vectors. Ritz values below the
// noise level have residuals below it too, so a rank-deficient Z converges.
//
// The start block is fixed (a deterministic pseudo-random sequence, the same
// on every call and platform): results do not depend on it beyond the
// tolerance, and R's random number stream is left alone.
struct PartialSvd {
  Eigen::VectorXd means;      // column means m of K
  Eigen::VectorXd singular;   // the leading k singular values, descending
  Eigen::MatrixXd vectors;    // their right singular vectors, p x k
  Eigen::VectorXd residuals;  // ||Z'u - d v|| / d_1 of each
  double total = 0.0;         // ||Z||_F^2, the sum of all squared singular values
  bool converged = false;
  Eigen::Index dimension = 0;  // size of the Krylov basis used
};

namespace detail {

// The block Lanczos start block: fixed, so that a fit is reproducible
// (krein/deterministic_uniform.hpp).
inline Eigen::MatrixXd fixed_start_block(Eigen::Index rows, Eigen::Index cols) {
  return deterministic_uniform_block(rows, cols, 0x9E3779B97F4A7C15ULL);
}

// Orthonormalise the block W against the first `used` columns of `basis`
// (classical Gram-Schmidt twice, which keeps orthogonality to working
// precision), then within itself by Householder QR, and once more against the
// basis: a block that was nearly inside the basis comes out of the QR with
// directions of rounding noise, which the last pass makes orthogonal again.
// On return W = basis[, used] * coefficients + Q R with Q written into
// basis[, used : used + b].
inline void orthonormalise_block(Eigen::MatrixXd& basis, Eigen::Index used, Eigen::MatrixXd& W,
                                 Eigen::MatrixXd& coefficients, Eigen::MatrixXd& R) {
  const Eigen::Index n = W.rows(), b = W.cols();
  coefficients = Eigen::MatrixXd::Zero(used, b);
  if (used > 0) {
    const auto previous = basis.leftCols(used);
    for (int pass = 0; pass < 2; ++pass) {
      const Eigen::MatrixXd c = previous.transpose() * W;
      W.noalias() -= previous * c;
      coefficients += c;
    }
  }
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(W);
  R = qr.matrixQR().topRows(b).triangularView<Eigen::Upper>();
  Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(n, b);
  if (used > 0) {
    const auto previous = basis.leftCols(used);
    const Eigen::MatrixXd c = previous.transpose() * Q;
    Q.noalias() -= previous * c;
    Eigen::HouseholderQR<Eigen::MatrixXd> again(Q);
    const Eigen::MatrixXd R2 = again.matrixQR().topRows(b).triangularView<Eigen::Upper>();
    Q = again.householderQ() * Eigen::MatrixXd::Identity(n, b);
    // W = previous (coefficients + c R) + Q2 (R2 R)
    coefficients.noalias() += c * R;
    R = (R2 * R).eval();
  }
  basis.middleCols(used, b) = Q;
}

}  // namespace detail

inline PartialSvd centred_partial_svd(const Eigen::Ref<const Eigen::MatrixXd>& K, Eigen::Index k,
                                      double tolerance, Eigen::Index max_dimension, int threads) {
  const Eigen::Index n = K.rows(), p = K.cols();
  if (k < 1 || k > std::min(n, p)) throw std::invalid_argument("centred_partial_svd: k must be in 1..min(n, p)");
  PartialSvd out;
  out.means = K.colwise().mean().transpose();
  // the centred data formed explicitly, as for the full SVD: implicit centring
  // (K v - 1 m'v) would lose the digits of a large common offset of K
  const Eigen::MatrixXd Z = K.rowwise() - out.means.transpose();
  out.total = Z.squaredNorm();
  // block size: a third of the wanted components, 10 to 24. Convergence
  // grows with the number of blocks (the degree of the Krylov polynomials),
  // the cost with the basis size; blocks of 10 or more hold clusters of
  // singular values and keep the products with Z matrix-matrix products.
  const Eigen::Index b = std::min(std::min(n, p) / 4 + 1, std::min<Eigen::Index>(24, std::max<Eigen::Index>(10, (k + 2) / 3)));
  max_dimension = std::min(max_dimension, std::min(n, p));
  const Eigen::Index capacity = std::max(b, (max_dimension / b) * b);
  if (capacity < k || capacity + b > std::min(n, p)) {
    throw std::invalid_argument("centred_partial_svd: max_dimension must leave room for k components and one more block");
  }
  Eigen::MatrixXd U(n, capacity), V(p, capacity + b);
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(capacity, capacity);  // U'ZV, block upper bidiagonal
  // Eigen's threads only for the products with Z, where the time is: every
  // parallel region is a synchronisation, and the basis algebra is small.
  const parallel::EigenThreads one_thread(1);
  {
    Eigen::MatrixXd start = detail::fixed_start_block(p, b), none, R;
    detail::orthonormalise_block(V, 0, start, none, R);
  }
  Eigen::MatrixXd W, X, coefficients, R, S;
  for (Eigen::Index used = 0; used + b <= capacity; used += b) {
    const Eigen::Index m = used + b;
    {
      const parallel::EigenThreads eigen_threads(threads);
      W.noalias() = Z * V.middleCols(used, b);
    }
    detail::orthonormalise_block(U, used, W, coefficients, R);
    B.block(0, used, used, b) = coefficients;
    B.block(used, used, b, b) = R;
    {
      const parallel::EigenThreads eigen_threads(threads);
      X.noalias() = Z.transpose() * U.middleCols(used, b);
    }
    detail::orthonormalise_block(V, m, X, coefficients, S);
    out.dimension = m;
    if (m < k) continue;
    // Ritz triplets of the projection B = P D Q': u = U P, v = V Q, and
    // Z'U = V B' + V_next S E' gives ||Z'u_i - d_i v_i|| = ||S p_i,last||
    Eigen::BDCSVD<Eigen::MatrixXd> small(B.topLeftCorner(m, m), Eigen::ComputeFullU | Eigen::ComputeFullV);
    const Eigen::VectorXd d = small.singularValues();
    if (!d.allFinite()) throw std::runtime_error("centred_partial_svd: the projected SVD did not converge");
    const double scale = d[0] > 0 ? d[0] : 1.0;
    const Eigen::MatrixXd last = S * small.matrixU().bottomLeftCorner(b, k);
    out.residuals = last.colwise().norm().transpose() / scale;
    out.singular = d.head(k);
    out.vectors.noalias() = V.leftCols(m) * small.matrixV().leftCols(k);
    out.converged = out.residuals.maxCoeff() <= tolerance;
    if (out.converged || m + b > capacity) break;
  }
  return out;
}

// The factor of one class's centred rows by Householder tall-skinny QR over
// row chunks, one chunk per thread (chunks of at least 4p rows, so each QR
// reduces its block). Cholesky-QR (the Cholesky factor of the scatter) would
// be faster, but the reduced kernel data of a random subset of bases are
// typically ill-conditioned (condition numbers of the scatter near 1e7 in
// bench/kfda.R), where it would lose half the digits.
inline Eigen::MatrixXd centred_factor(const Eigen::Ref<const Eigen::MatrixXd>& Z,
                                      const std::vector<Eigen::Index>& rows,
                                      const Eigen::Ref<const Eigen::VectorXd>& mean, int threads) {
  const Eigen::Index p = Z.cols();
  return tsqr::chunked_factor(static_cast<Eigen::Index>(rows.size()), 4 * (p + 1), threads,
                              [&](Eigen::Index begin, Eigen::Index end) {
    // blocks of rows stacked under the running factor: memory stays O(block p)
    Eigen::MatrixXd factor = Eigen::MatrixXd::Zero(p, p);
    constexpr Eigen::Index block = 8192;
    for (Eigen::Index start = begin; start < end; start += block) {
      const Eigen::Index b = std::min(block, end - start);
      Eigen::MatrixXd stacked(p + b, p);
      stacked.topRows(p) = factor;
      for (Eigen::Index k = 0; k < b; ++k) stacked.row(p + k) = Z.row(rows[start + k]) - mean.transpose();
      factor = tsqr::triangular_factor(stacked, p);
    }
    return factor;
  });
}

// Class means of the rows of Z (n x p) and, per class, the p x p upper
// triangular factor R_c of the centred class rows (Z_c - 1 m_c' = Q R_c), so
// that the scatter matrix is S_c = R_c'R_c. A QR factor rather than the
// scatter itself: forming S_c squares the condition number, and near-singular
// class covariances of kernel data (paper 003, Table 3) would lose all their
// small directions to rounding.
struct ClassFactors {
  Eigen::MatrixXd means;                // p x K
  std::vector<Eigen::MatrixXd> factors;  // K upper-triangular p x p
  Eigen::VectorXd counts;
};

inline ClassFactors class_factors(const Eigen::Ref<const Eigen::MatrixXd>& Z,
                                  const std::vector<int>& labels, int classes, int threads) {
  const Eigen::Index n = Z.rows(), p = Z.cols();
  if (static_cast<Eigen::Index>(labels.size()) != n) {
    throw std::invalid_argument("class_factors: one label per row is needed");
  }
  ClassFactors out;
  out.counts = Eigen::VectorXd::Zero(classes);
  std::vector<std::vector<Eigen::Index>> members(classes);
  for (Eigen::Index i = 0; i < n; ++i) {
    const int c = labels[i];
    if (c < 0 || c >= classes) throw std::invalid_argument("class_factors: label out of range");
    members[c].push_back(i);
    out.counts[c] += 1.0;
  }
  out.means = Eigen::MatrixXd::Zero(p, classes);
  parallel::parallel_for(0, p, threads, parallel::Schedule::blocks(), [&](Eigen::Index j) {
    for (Eigen::Index i = 0; i < n; ++i) out.means(j, labels[i]) += Z(i, j);
  });
  for (int c = 0; c < classes; ++c) {
    if (out.counts[c] > 0) out.means.col(c) /= out.counts[c];
  }
  out.factors.resize(classes);
  for (int c = 0; c < classes; ++c) {
    out.factors[c] = centred_factor(Z, members[c], out.means.col(c), threads);
  }
  return out;
}

// Column means and standard deviations (denominator n - 1) of K, two passes.
inline std::pair<Eigen::VectorXd, Eigen::VectorXd> column_moments(const Eigen::Ref<const Eigen::MatrixXd>& K,
                                                                  int threads) {
  const Eigen::Index n = K.rows(), p = K.cols();
  Eigen::VectorXd mean(p), sd(p);
  parallel::parallel_for(0, p, threads, parallel::Schedule::blocks(), [&](Eigen::Index j) {
    const double m = K.col(j).mean();
    mean[j] = m;
    sd[j] = n > 1 ? std::sqrt((K.col(j).array() - m).square().sum() / static_cast<double>(n - 1)) : 0.0;
  });
  return {mean, sd};
}

// Reduced kernel data: ((K - 1 center') R) diag(1 / scale), or without R when
// `rotation` has no columns (the identity: subset and ridge reductions).
inline Eigen::MatrixXd project(const Eigen::Ref<const Eigen::MatrixXd>& K,
                               const Eigen::Ref<const Eigen::VectorXd>& center,
                               const Eigen::Ref<const Eigen::MatrixXd>& rotation,
                               const Eigen::Ref<const Eigen::VectorXd>& scale) {
  if (center.size() != K.cols()) throw std::invalid_argument("project: center does not match the kernel columns");
  Eigen::MatrixXd Z;
  if (rotation.cols() == 0) {
    Z = K.rowwise() - center.transpose();
  } else {
    if (rotation.rows() != K.cols()) throw std::invalid_argument("project: rotation does not match the kernel columns");
    Z.noalias() = K * rotation;
    Z.rowwise() -= (rotation.transpose() * center).transpose();
  }
  if (scale.size() != Z.cols()) throw std::invalid_argument("project: scale does not match the reduced dimension");
  Z.array().rowwise() /= scale.transpose().array();
  return Z;
}

}  // namespace kfda
}  // namespace krein

#endif  // KREIN_KFDA_HPP
