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
#include <utility>
#include <stdexcept>
#include <vector>

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
