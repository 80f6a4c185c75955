// krein: the indefinite kernel Fisher discriminant (paper 000, Pekalska &
// Haasdonk, Sec. III-A, eqs. 7-8) with the conventions of the DisTools
// reference code, in full and in the Nystroem low-rank basis (Ny-iKFD, paper
// 002, Sec. 5.2; exact algebra in ?ikfd, section "Nystroem low rank").
//
// Each discriminant separates two groups A and B of training points: class 1
// from class 2 for two classes, class i from the rest (one-vs-rest) otherwise.
// With K the n x n training kernel (not centred), s_G = K[, G] 1 and n_G = |G|:
//
//   N     = sum_G P_G (K[, G] K[, G]' - s_G s_G' / n_G)       (within-class scatter)
//   alpha = (N + mu I)^{-1} (s_A / n_A - s_B / n_B)
//   b     = -alpha' (s_A / n_A + s_B / n_B) / 2,   f(x) = k_x' alpha + b
//
// P_G = 1 (DisTools) or n_G / n (the priors of eq. 7). The ridge mu is
// relative: mu = reg * tr(N) / n, so that reg does not depend on the scale of
// the kernel (scaling k by c scales N by c^2 and leaves the classifier as is).
#ifndef KREIN_IKFD_HPP
#define KREIN_IKFD_HPP

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "krein/nystrom.hpp"
#include "krein/parallel_dense.hpp"
#include "krein/symmetric_eigen.hpp"
#include "krein/tsqr.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace krein {
namespace ikfd {

enum class Weights { equal, prior };

struct Discriminants {
  Eigen::MatrixXd coefficients;  // one column per discriminant: alpha (n) or a (m)
  Eigen::VectorXd bias;          // b per discriminant
  Eigen::VectorXd ridge;         // the absolute mu per discriminant
  bool ridge_needed_more = false;  // a Cholesky factorisation failed and was retried
  // Nystroem fits only
  Eigen::VectorXd values;        // signed eigenvalues of K_hat
  int landmark_rank = 0;
};

// Which training classes form group A of discriminant i (group B: the others).
inline int discriminant_count(int classes) { return classes == 2 ? 1 : classes; }

inline void check_labels(const std::vector<int>& labels, int classes) {
  if (classes < 2) throw std::invalid_argument("iKFD needs at least two classes");
  for (int l : labels) {
    if (l < 0 || l >= classes) throw std::invalid_argument("label out of range");
  }
}

// Cholesky of M = N + mu I (lower triangle of N read), by the tiled parallel
// factorisation for the full iKFD and Eigen's for small systems; if rounding
// makes it fail, the ridge is doubled until it succeeds. Returns the factor L.
inline Eigen::MatrixXd ridged_cholesky(const Eigen::MatrixXd& N, double& mu, bool& retried,
                                       int threads) {
  for (int attempt = 0; attempt < 60; ++attempt) {
    Eigen::MatrixXd M = N;
    M.diagonal().array() += mu;
    if (dense::cholesky(M, threads)) return M;
    retried = true;
    mu = mu > 0 ? 2.0 * mu : 1e-12 * std::max(1.0, N.diagonal().cwiseAbs().maxCoeff());
  }
  throw std::runtime_error("the within-class scatter could not be factorised");
}

// Full iKFD on the n x n training kernel K (symmetric); labels 0..classes-1.
inline Discriminants fit_full(const Eigen::Ref<const Eigen::MatrixXd>& K,
                              const std::vector<int>& labels, int classes, Weights weights,
                              double reg, int threads) {
  const Eigen::Index n = K.rows();
  if (K.cols() != n || static_cast<Eigen::Index>(labels.size()) != n) {
    throw std::invalid_argument("K must be n x n with one label per row");
  }
  check_labels(labels, classes);
  // class sums s_c = K[, I_c] 1 and sizes
  Eigen::MatrixXd sums = Eigen::MatrixXd::Zero(n, classes);
  std::vector<double> counts(classes, 0.0);
  for (Eigen::Index i = 0; i < n; ++i) {
    sums.col(labels[i]) += K.col(i);
    counts[labels[i]] += 1.0;
  }
  const Eigen::VectorXd total = sums.rowwise().sum();
  // K K' (lower triangle), the scatter of all points about the origin
  Eigen::MatrixXd KKt = Eigen::MatrixXd::Zero(n, n);
  dense::rank_update(KKt, K, 1.0, threads);

  const int d = discriminant_count(classes);
  Discriminants out;
  out.coefficients.resize(n, d);
  out.bias.resize(d);
  out.ridge.resize(d);
  Eigen::MatrixXd N(n, n);
  for (int i = 0; i < d; ++i) {
    const Eigen::VectorXd sA = sums.col(i);
    const Eigen::VectorXd sB = total - sA;
    const double nA = counts[i], nB = static_cast<double>(n) - counts[i];
    if (weights == Weights::equal) {
      N.triangularView<Eigen::Lower>() = KKt;
      N.selfadjointView<Eigen::Lower>().rankUpdate(sA, -1.0 / nA);
      N.selfadjointView<Eigen::Lower>().rankUpdate(sB, -1.0 / nB);
    } else {
      // P_A K_A K_A' + P_B (K K' - K_A K_A') = P_B K K' + (P_A - P_B) K_A K_A'
      const double PA = nA / n, PB = nB / n;
      Eigen::MatrixXd KA(n, static_cast<Eigen::Index>(nA));
      Eigen::Index col = 0;
      for (Eigen::Index j = 0; j < n; ++j) {
        if (labels[j] == i) KA.col(col++) = K.col(j);
      }
      N.setZero();
      dense::rank_update(N, KA, PA - PB, threads);
      N.triangularView<Eigen::Lower>() += PB * KKt;
      N.selfadjointView<Eigen::Lower>().rankUpdate(sA, -PA / nA);
      N.selfadjointView<Eigen::Lower>().rankUpdate(sB, -PB / nB);
    }
    double mu = reg * N.diagonal().sum() / static_cast<double>(n);
    const Eigen::MatrixXd L = ridged_cholesky(N, mu, out.ridge_needed_more, threads);
    const Eigen::VectorXd mA = sA / nA, mB = sB / nB;
    const Eigen::VectorXd alpha = dense::cholesky_solve(L, mA - mB);
    out.coefficients.col(i) = alpha;
    out.bias[i] = -0.5 * alpha.dot(mA + mB);
    out.ridge[i] = mu;
  }
  return out;
}

// Ny-iKFD never holds the n x m landmark kernel C = K_nm: it is streamed in
// row blocks, and each class c keeps only the triangular factor of a QR
// decomposition of [C_c | 1] (tall-skinny QR, merged block by block):
//   [C_c | 1] = Q_c [R_c  u_c; 0  rho_c],  so C_c = Q_c R_c and u_c = Q_c' 1.
// A Gram matrix C'C would do in half the flops but squares the condition
// number, and the discriminant then loses digits in the directions of small
// eigenvalues of K_mm; the QR factors keep the accuracy of nystrom().

// Factors of one row block of C (labels 0..classes-1), the class's rows split
// over threads and the partial factors merged.
inline std::vector<Eigen::MatrixXd> class_factors(const Eigen::Ref<const Eigen::MatrixXd>& C,
                                                  const std::vector<int>& labels, int classes,
                                                  int threads) {
  const Eigen::Index n = C.rows(), m = C.cols();
  if (static_cast<Eigen::Index>(labels.size()) != n) throw std::invalid_argument("one label per row");
  check_labels(labels, classes);
  std::vector<std::vector<Eigen::Index>> rows(classes);
  for (Eigen::Index i = 0; i < n; ++i) rows[labels[i]].push_back(i);
#ifdef _OPENMP
  const int workers = threads > 0 ? threads : omp_get_max_threads();
#else
  const int workers = 1;
  (void)threads;
#endif
  std::vector<Eigen::MatrixXd> out(classes);
  for (int c = 0; c < classes; ++c) {
    const Eigen::Index nc = static_cast<Eigen::Index>(rows[c].size());
    const int chunks = static_cast<int>(
        std::max<Eigen::Index>(1, std::min<Eigen::Index>(workers, nc / (4 * (m + 1)))));
    std::vector<Eigen::MatrixXd> partial(chunks);
#pragma omp parallel for num_threads(chunks) schedule(static)
    for (int t = 0; t < chunks; ++t) {
      const Eigen::Index begin = nc * t / chunks, end = nc * (t + 1) / chunks;
      Eigen::MatrixXd block(end - begin, m + 1);
      for (Eigen::Index r = begin; r < end; ++r) {
        block.row(r - begin).head(m) = C.row(rows[c][r]);
        block(r - begin, m) = 1.0;
      }
      partial[t] = tsqr::triangular_factor(block, m + 1);
    }
    out[c] = partial[0];
    for (int t = 1; t < chunks; ++t) out[c] = tsqr::merge_factor(out[c], partial[t]);
  }
  return out;
}

// Ny-iKFD from the class factors and W = K_mm (notes section 3, in the
// orthonormal basis the factors give). Stack S = [R_1; ...; R_c] = Q_S R_C, so
// C = Q_C R_C with Q_C orthonormal (rows of class c: Q_c Q_S[c]). Then, as in
// nystrom.hpp, B = C U |l|^-1/2 = Q_C (R_C U |l|^-1/2) = Q_C Q_2 R and
// R S R' = V Lambda V', so K_hat = Q Lambda Q' with Q = Q_C Z, Z = Q_2 V. The
// rows of Q in class c are Q_c Y_c with Y_c = Q_S[c] Z, whence
//   q_c = Q'e_c = Y_c' u_c,   Q_c'Q_c = Y_c'Y_c
// and each discriminant solves an r x r system:
//   G    = Lambda (sum_G P_G (Q_G'Q_G - q_G q_G' / n_G)) Lambda
//   beta = (G + mu I)^{-1} Lambda (q_A / n_A - q_B / n_B),  mu = reg tr(G) / n
//   b    = -beta' Lambda (q_A / n_A + q_B / n_B) / 2
// with out-of-sample coefficients a = W^+ C'Q beta = W^+ R_C' Z beta (an
// m-vector), so that f(x) = k(x, L) a + b needs only the landmarks.
inline Discriminants fit_nystrom(const std::vector<Eigen::MatrixXd>& factors,
                                 const std::vector<double>& counts,
                                 const Eigen::Ref<const Eigen::MatrixXd>& W, Weights weights,
                                 double reg) {
  const int classes = static_cast<int>(factors.size());
  const Eigen::Index m = W.rows();
  if (classes < 2 || static_cast<int>(counts.size()) != classes) {
    throw std::invalid_argument("one factor and one count per class, at least two classes");
  }
  Eigen::MatrixXd stacked(classes * m, m);
  for (int c = 0; c < classes; ++c) {
    if (factors[c].rows() != m + 1 || factors[c].cols() != m + 1) {
      throw std::invalid_argument("class factors must be (m + 1) x (m + 1)");
    }
    stacked.middleRows(c * m, m) = factors[c].topLeftCorner(m, m);
  }
  Eigen::HouseholderQR<Eigen::MatrixXd> s_qr(stacked);
  const Eigen::MatrixXd Q_S = s_qr.householderQ() * Eigen::MatrixXd::Identity(classes * m, m);
  const Eigen::MatrixXd R_C = s_qr.matrixQR().topRows(m).triangularView<Eigen::Upper>();

  // eigenpairs of W kept for W^+ = U diag(1/l) U'
  const SymmetricEigen w_eig = symmetric_eigen(W, true);
  const double w_largest = w_eig.values.cwiseAbs().maxCoeff();
  std::vector<Eigen::Index> kept;
  for (Eigen::Index i = 0; i < m; ++i) {
    if (std::abs(w_eig.values[i]) > nystrom::pseudo_inverse_cutoff(w_largest)) kept.push_back(i);
  }
  const Eigen::Index k = static_cast<Eigen::Index>(kept.size());
  Eigen::MatrixXd UD(m, k), U(m, k);
  Eigen::VectorXd sign(k), inverse(k);
  for (Eigen::Index j = 0; j < k; ++j) {
    const double l = w_eig.values[kept[j]];
    U.col(j) = w_eig.vectors.col(kept[j]);
    UD.col(j) = U.col(j) / std::sqrt(std::abs(l));
    sign[j] = l < 0 ? -1.0 : 1.0;
    inverse[j] = 1.0 / l;
  }
  // R_C U |l|^-1/2 = Q_2 R;  R S R' = V Lambda V'
  const Eigen::MatrixXd M = R_C * UD;
  Eigen::HouseholderQR<Eigen::MatrixXd> m_qr(M);
  const Eigen::Index kq = std::min(m, k);
  const Eigen::MatrixXd Q_2 = m_qr.householderQ() * Eigen::MatrixXd::Identity(m, kq);
  const Eigen::MatrixXd R = m_qr.matrixQR().topRows(kq).triangularView<Eigen::Upper>();
  Eigen::MatrixXd core = R * sign.asDiagonal() * R.transpose();
  core = 0.5 * (core + core.transpose()).eval();
  const SymmetricEigen c_eig = symmetric_eigen(core, true);
  const double c_largest = kq > 0 ? c_eig.values.cwiseAbs().maxCoeff() : 0.0;
  std::vector<Eigen::Index> nonzero;
  for (Eigen::Index i = kq - 1; i >= 0; --i) {
    if (std::abs(c_eig.values[i]) > nystrom::relative_zero(kq, c_largest)) nonzero.push_back(i);
  }
  const Eigen::Index r = static_cast<Eigen::Index>(nonzero.size());
  Eigen::MatrixXd V(kq, r);
  Eigen::VectorXd lambda(r);
  for (Eigen::Index j = 0; j < r; ++j) {
    V.col(j) = c_eig.vectors.col(nonzero[j]);
    lambda[j] = c_eig.values[nonzero[j]];
  }
  const Eigen::MatrixXd Z = Q_2 * V;

  std::vector<Eigen::MatrixXd> H(classes);  // Q_c'Q_c
  Eigen::MatrixXd q(r, classes);            // Q'e_c
  double n = 0;
  for (int c = 0; c < classes; ++c) {
    const Eigen::MatrixXd Y = Q_S.middleRows(c * m, m) * Z;
    H[c] = Y.transpose() * Y;
    q.col(c) = Y.transpose() * factors[c].col(m).head(m);
    n += counts[c];
  }
  const int d = discriminant_count(classes);
  Discriminants out;
  out.coefficients.resize(m, d);
  out.bias.resize(d);
  out.ridge.resize(d);
  out.values = lambda;
  out.landmark_rank = static_cast<int>(k);
  // a = back * beta, W^+ applied in factored form
  const Eigen::MatrixXd back = U * (inverse.asDiagonal() * (U.transpose() * (R_C.transpose() * Z)));
  for (int i = 0; i < d; ++i) {
    Eigen::MatrixXd HB = Eigen::MatrixXd::Zero(r, r);
    Eigen::VectorXd qB = Eigen::VectorXd::Zero(r);
    for (int c = 0; c < classes; ++c) {
      if (c == i) continue;
      HB += H[c];
      qB += q.col(c);
    }
    const Eigen::VectorXd qA = q.col(i);
    const double nA = counts[i], nB = n - nA;
    const double PA = weights == Weights::equal ? 1.0 : nA / n;
    const double PB = weights == Weights::equal ? 1.0 : nB / n;
    const Eigen::MatrixXd scatter =
        PA * (H[i] - qA * qA.transpose() / nA) + PB * (HB - qB * qB.transpose() / nB);
    Eigen::MatrixXd G = lambda.asDiagonal() * scatter * lambda.asDiagonal();
    G = 0.5 * (G + G.transpose()).eval();
    double mu = reg * G.trace() / n;
    const Eigen::MatrixXd L = ridged_cholesky(G, mu, out.ridge_needed_more, 1);
    const Eigen::VectorXd mA = lambda.cwiseProduct(qA) / nA, mB = lambda.cwiseProduct(qB) / nB;
    const Eigen::VectorXd beta = dense::cholesky_solve(L, mA - mB);
    out.coefficients.col(i) = back * beta;
    out.bias[i] = -0.5 * beta.dot(mA + mB);
    out.ridge[i] = mu;
  }
  return out;
}

}  // namespace ikfd
}  // namespace krein

#endif  // KREIN_IKFD_HPP
