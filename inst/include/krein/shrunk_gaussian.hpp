// krein: the classes that Gaussian class models in the leading p of a set
// of coordinates give new points, for several p and models at once -- the
// candidates of a cross-validation: ikpca_qd()'s `pvar` (Pekalska and
// Haasdonk 2009, kernel PCA followed by quadratic discriminant analysis)
// and kmdc()'s classifiers and path values (Haasdonk and Pekalska 2010, the
// Fisher and quadratic discriminants on kernel Mahalanobis distances).
//
// The model of dimension p: class means m_k and covariances S_k of the
// leading p coordinates (ML, scatter / n_k, or unbiased, scatter / (n_k -
// 1)), pooled with weight w as M_k = (1 - w) S_k + w S (S the pooled
// covariance, the scatter over n, or over n - K when unbiased; w = 1 is a
// linear discriminant) and shrunk towards tr(M_k) / p I (PRTools' qdc): C_k
// = (1 - s) M_k + s tr(M_k) / p I. A point x goes to the class of the
// largest log q_k - log det(C_k) / 2 - (x - m_k)' C_k^-1 (x - m_k) / 2 (the
// first on ties).
//
// Why here: the fits of R's gaussian_classes() hold each C_k as the
// triangular factor of a QR of stacked factors, which never squares the data
// (gaussian.R) but costs about 10/3 p^3 a QR, two to three QRs per class and
// candidate, and R's own work per fit (most of a fold of kmdc on small data).
// The covariances of the leading p coordinates are the leading p x p blocks
// of those of all, so one scatter matrix per class serves every candidate,
// and the Cholesky factor of the formed C_k (p^3 / 3) is as good as the QR's
// where C_k is well conditioned -- always with s > 0, whose C_k has its
// eigenvalues in [s tr(M_k) / p, tr(M_k)], a condition number below p / s. A
// candidate whose factor is not clearly well conditioned is left to the
// caller (class 0), whose QR route decides it.

#ifndef KREIN_SHRUNK_GAUSSIAN_HPP
#define KREIN_SHRUNK_GAUSSIAN_HPP

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "parallel.hpp"

namespace krein {
namespace shrunk_gaussian {

// The reciprocal condition number (LLT's estimate for C_k) below which a
// candidate is left to the caller's QR route: the QR factor R has rcond(R)^2
// about rcond(C_k), and the callers refuse rcond(R) below sqrt(eps)
// (ikpca_qd()) or 1e-8 (kmdc(), which then asks MASS), so a covariance this
// far from those bounds is accepted there too, and its Cholesky factor has
// lost at most ten digits to the squaring.
constexpr double min_rcond = 1e-10;

// Z: n x p_max training coordinates; codes: their classes 0, ..., K - 1;
// Z_new: m x p_max new points; dims: the candidates' p (1 <= p <= p_max);
// pooling: the candidates' w in [0, 1]; shrinkage: s in [0, 1]; unbiased:
// the denominators n_k - 1 and n - K; log_prior: K values. Returns m x
// candidates class codes 1, ..., K, or 0 in every row of a candidate left to
// the caller.
inline Eigen::MatrixXi leading_classes(const Eigen::Ref<const Eigen::MatrixXd>& Z,
                                       const Eigen::Ref<const Eigen::VectorXi>& codes, int classes,
                                       const Eigen::Ref<const Eigen::MatrixXd>& Z_new,
                                       const Eigen::Ref<const Eigen::VectorXi>& dims,
                                       const Eigen::Ref<const Eigen::VectorXd>& pooling, double shrinkage,
                                       bool unbiased, const Eigen::Ref<const Eigen::VectorXd>& log_prior,
                                       int threads = 1) {
  const Eigen::Index n = Z.rows(), p_max = Z.cols(), m = Z_new.rows(), candidates = dims.size();
  if (codes.size() != n || Z_new.cols() != p_max || pooling.size() != candidates ||
      log_prior.size() != classes || classes < 1) {
    throw std::invalid_argument("leading_classes: inconsistent dimensions");
  }
  if (!(shrinkage >= 0.0 && shrinkage <= 1.0)) throw std::invalid_argument("leading_classes: shrinkage must be in [0, 1]");
  for (Eigen::Index c = 0; c < candidates; ++c) {
    if (dims[c] < 1 || dims[c] > p_max) throw std::invalid_argument("leading_classes: p must be in 1, ..., p_max");
    if (!(pooling[c] >= 0.0 && pooling[c] <= 1.0)) throw std::invalid_argument("leading_classes: pooling must be in [0, 1]");
  }
  std::vector<Eigen::Index> counts(classes, 0);
  for (Eigen::Index i = 0; i < n; ++i) {
    if (codes[i] < 0 || codes[i] >= classes) throw std::invalid_argument("leading_classes: class code out of range");
    ++counts[codes[i]];
  }
  // the means, and the covariances of all p_max coordinates (as
  // gaussian_classes() scales them: denominators of at least 1)
  Eigen::MatrixXd means = Eigen::MatrixXd::Zero(classes, p_max);
  for (Eigen::Index i = 0; i < n; ++i) means.row(codes[i]) += Z.row(i);
  for (int k = 0; k < classes; ++k) {
    if (counts[k] == 0) throw std::invalid_argument("leading_classes: every class needs a point");
    means.row(k) /= static_cast<double>(counts[k]);
  }
  std::vector<Eigen::MatrixXd> covariances(classes);
  parallel::parallel_for(0, classes, threads, parallel::Schedule::dynamic(), [&](Eigen::Index k) {
    Eigen::MatrixXd centred(counts[k], p_max);
    Eigen::Index row = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      if (codes[i] == k) centred.row(row++) = Z.row(i) - means.row(k);
    }
    Eigen::MatrixXd& S = covariances[k];
    S = Eigen::MatrixXd::Zero(p_max, p_max);
    S.selfadjointView<Eigen::Lower>().rankUpdate(centred.transpose());
    S.triangularView<Eigen::StrictlyUpper>() = S.transpose();
  });
  // the scatter matrices pooled, then each class's scaled
  Eigen::MatrixXd pooled = Eigen::MatrixXd::Zero(p_max, p_max);
  for (int k = 0; k < classes; ++k) pooled += covariances[k];
  pooled /= std::max(1.0, static_cast<double>(n) - (unbiased ? classes : 0));
  for (int k = 0; k < classes; ++k) {
    covariances[k] /= std::max(1.0, static_cast<double>(counts[k]) - (unbiased ? 1 : 0));
  }

  // the discriminants of each candidate and class, then each row's class
  std::vector<Eigen::MatrixXd> scores(candidates, Eigen::MatrixXd(m, classes));
  std::vector<char> accepted(candidates * classes, 1);
  parallel::parallel_for(0, candidates * classes, threads, parallel::Schedule::dynamic(), [&](Eigen::Index task) {
    const Eigen::Index c = task / classes;
    const int k = static_cast<int>(task % classes);
    const Eigen::Index p = dims[c];
    const double w = pooling[c];
    Eigen::MatrixXd C = w < 1.0 ? Eigen::MatrixXd((1.0 - w) * covariances[k].topLeftCorner(p, p))
                                : Eigen::MatrixXd::Zero(p, p);
    if (w > 0.0) C += w * pooled.topLeftCorner(p, p);
    const double target = shrinkage * C.trace() / static_cast<double>(p);
    if (shrinkage > 0.0) {
      C *= 1.0 - shrinkage;
      C.diagonal().array() += target;
    }
    const Eigen::LLT<Eigen::MatrixXd> factor(C);
    if (factor.info() != Eigen::Success || !C.allFinite() || !std::isfinite(target) ||
        !(factor.rcond() >= min_rcond)) {
      accepted[task] = 0;
      return;
    }
    const auto L = factor.matrixL();
    double logdet = 0.0;
    for (Eigen::Index j = 0; j < p; ++j) logdet += 2.0 * std::log(factor.matrixLLT()(j, j));
    Eigen::MatrixXd centred = (Z_new.leftCols(p).rowwise() - means.row(k).head(p)).transpose();
    L.solveInPlace(centred);
    scores[c].col(k) = (log_prior[k] - 0.5 * logdet) - 0.5 * centred.colwise().squaredNorm().transpose().array();
  });
  Eigen::MatrixXi out = Eigen::MatrixXi::Zero(m, candidates);
  for (Eigen::Index c = 0; c < candidates; ++c) {
    bool ok = true;
    for (int k = 0; k < classes; ++k) ok = ok && accepted[c * classes + k];
    if (!ok) continue;
    for (Eigen::Index i = 0; i < m; ++i) {
      int best = 0;
      for (int k = 1; k < classes; ++k) {
        if (scores[c](i, k) > scores[c](i, best)) best = k;
      }
      out(i, c) = best + 1;
    }
  }
  return out;
}

}  // namespace shrunk_gaussian
}  // namespace krein

#endif  // KREIN_SHRUNK_GAUSSIAN_HPP
