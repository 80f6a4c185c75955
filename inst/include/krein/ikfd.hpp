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
#include <limits>
#include <stdexcept>
#include <vector>

#include "krein/nystrom.hpp"
#include "krein/parallel.hpp"
#include "krein/parallel_dense.hpp"
#include "krein/tsqr.hpp"

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
// factorisation for the full iKFD and Eigen's for small systems. N is a
// scatter matrix, positive semidefinite in exact arithmetic, but rounding can
// leave it slightly indefinite in its null space, where a ridge far below the
// rounding level of N (a relative ridge of 1e-200, say) does not help. Whether
// the factorisation of such an M then fails or succeeds is up to the rounding
// (it differed between Eigen 3.3 and 3.4): where it succeeds, a pivot L_ii^2
// of the order of the rounding error carries a direction of alpha that
// rounding alone decides. In exact arithmetic every pivot is >= mu (N is
// semidefinite), and the smallest pivot bounds the smallest eigenvalue of M
// from above; so a pivot below the rounding level counts as a failure too. On
// failure, mu is raised to at least 1e-12 of the largest diagonal element of N
// (the rounding level of a scatter held in doubles, with a margin) and then
// doubled, at most 60 times in all (up to 1e6 times that diagonal), until the
// factorisation succeeds with every pivot above that level. A zero scatter (a kernel constant on
// each class) has no scale of its own: `fallback_scale` (> 0, the size of
// the scatter the group means would give) stands in for its diagonal, so that
// alpha = (mA - mB) / mu cannot overflow. Returns the factor L; mu is the
// ridge that was used.
inline Eigen::MatrixXd ridged_cholesky(const Eigen::MatrixXd& N, double& mu, bool& retried,
                                       int threads, double fallback_scale) {
  const double largest = N.rows() > 0 ? N.diagonal().cwiseAbs().maxCoeff() : 0.0;
  const double scale = largest > 0 ? largest : fallback_scale;
  const double smallest_useful = std::max(1e-12 * scale, std::numeric_limits<double>::min());
  for (int attempt = 0; attempt < 60; ++attempt) {
    Eigen::MatrixXd M = N;
    M.diagonal().array() += mu;
    if (dense::cholesky(M, threads) && M.diagonal().minCoeff() >= std::sqrt(smallest_useful)) return M;
    retried = true;
    mu = std::max(2.0 * mu, smallest_useful);
  }
  throw std::runtime_error("the within-class scatter could not be factorised");
}

// One discriminant from its within-class scatter S (lower triangle read) and
// the group means mA, mB in the same basis: alpha = (S + mu I)^{-1} (mA - mB)
// with the relative ridge mu = reg tr(S) / n, b = -alpha' (mA + mB) / 2.
struct Direction {
  Eigen::VectorXd alpha;
  double bias = 0.0;
  double ridge = 0.0;
};

inline Direction fisher_direction(const Eigen::MatrixXd& S, const Eigen::VectorXd& mA,
                                  const Eigen::VectorXd& mB, double reg, double n, bool& retried,
                                  int threads) {
  Direction out;
  out.ridge = reg * S.diagonal().sum() / n;
  // the diagonal of a scatter of n points whose coordinates are of the size
  // of the group means (used only if S is zero)
  const double mean_size =
      std::max(mA.size() ? mA.cwiseAbs().maxCoeff() : 0.0, mB.size() ? mB.cwiseAbs().maxCoeff() : 0.0);
  const Eigen::MatrixXd L = ridged_cholesky(S, out.ridge, retried, threads, n * mean_size * mean_size);
  out.alpha = dense::cholesky_solve(L, mA - mB);
  out.bias = -0.5 * out.alpha.dot(mA + mB);
  return out;
}

inline void set_discriminant(Discriminants& out, int i, const Eigen::VectorXd& coefficients,
                             const Direction& direction) {
  out.coefficients.col(i) = coefficients;
  out.bias[i] = direction.bias;
  out.ridge[i] = direction.ridge;
}

inline Discriminants empty_discriminants(Eigen::Index rows, int classes) {
  const int d = discriminant_count(classes);
  Discriminants out;
  out.coefficients.resize(rows, d);
  out.bias.resize(d);
  out.ridge.resize(d);
  return out;
}

// The within-class scatter of group A = class i against the rest B (lower
// triangle): with KKt = K K' (lower triangle), sums s_c = K[, I_c] 1, total s.
inline void full_scatter(Eigen::MatrixXd& N, const Eigen::Ref<const Eigen::MatrixXd>& K,
                         const Eigen::MatrixXd& KKt, const std::vector<int>& labels, int i,
                         const Eigen::VectorXd& sA, const Eigen::VectorXd& sB, double nA, double nB,
                         Weights weights, int threads) {
  const Eigen::Index n = K.rows();
  if (weights == Weights::equal) {
    N.triangularView<Eigen::Lower>() = KKt;
    N.selfadjointView<Eigen::Lower>().rankUpdate(sA, -1.0 / nA);
    N.selfadjointView<Eigen::Lower>().rankUpdate(sB, -1.0 / nB);
    return;
  }
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

  Discriminants out = empty_discriminants(n, classes);
  Eigen::MatrixXd N(n, n);
  for (int i = 0; i < discriminant_count(classes); ++i) {
    const Eigen::VectorXd sA = sums.col(i);
    const Eigen::VectorXd sB = total - sA;
    const double nA = counts[i], nB = static_cast<double>(n) - counts[i];
    full_scatter(N, K, KKt, labels, i, sA, sB, nA, nB, weights, threads);
    const Direction dir = fisher_direction(N, sA / nA, sB / nB, reg, static_cast<double>(n),
                                           out.ridge_needed_more, threads);
    set_discriminant(out, i, dir.alpha, dir);
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
  std::vector<Eigen::MatrixXd> out(classes);
  for (int c = 0; c < classes; ++c) {
    out[c] = tsqr::chunked_factor(static_cast<Eigen::Index>(rows[c].size()), 4 * (m + 1), threads,
                                  [&](Eigen::Index begin, Eigen::Index end) {
      Eigen::MatrixXd block(end - begin, m + 1);
      for (Eigen::Index r = begin; r < end; ++r) {
        block.row(r - begin).head(m) = C.row(rows[c][r]);
        block(r - begin, m) = 1.0;
      }
      return tsqr::triangular_factor(block, m + 1);
    });
  }
  return out;
}

// What the Ny-iKFD systems need of each class c, in the orthonormal basis Q
// of K_hat = Q Lambda Q' (below): Q_c'Q_c and q_c = Q'e_c.
struct ClassProjections {
  std::vector<Eigen::MatrixXd> gram;  // Q_c'Q_c, r x r
  Eigen::MatrixXd sums;               // q_c, r x classes
};

// Ny-iKFD from the class factors and W = K_mm (the algebra of ?ikfd,
// "Nystroem low rank", in the orthonormal basis the factors give). Stack
// S = [R_1; ...; R_c] = Q_S R_C, so C = Q_C R_C with Q_C orthonormal (rows of
// class c: Q_c Q_S[c]). The Nystroem decomposition of R_C against W (as
// nystrom.hpp does for C) gives R_C W^+ R_C' = Z Lambda Z', so K_hat = Q
// Lambda Q' with Q = Q_C Z. The rows of Q in class c are Q_c Y_c with
// Y_c = Q_S[c] Z, whence
//   q_c = Q'e_c = Y_c' u_c,   Q_c'Q_c = Y_c'Y_c
// and each discriminant solves an r x r system:
//   G    = Lambda (sum_G P_G (Q_G'Q_G - q_G q_G' / n_G)) Lambda
//   beta = (G + mu I)^{-1} Lambda (q_A / n_A - q_B / n_B),  mu = reg tr(G) / n
//   b    = -beta' Lambda (q_A / n_A + q_B / n_B) / 2
// with out-of-sample coefficients a = W^+ C'Q beta = W^+ R_C' Z beta = E' beta
// (E the decomposition's extension, an r x m matrix), so that
// f(x) = k(x, L) a + b needs only the landmarks.
inline ClassProjections class_projections(const std::vector<Eigen::MatrixXd>& factors,
                                          const Eigen::MatrixXd& Q_S, const Eigen::MatrixXd& Z) {
  const int classes = static_cast<int>(factors.size());
  const Eigen::Index m = Z.rows();
  ClassProjections out;
  out.gram.resize(classes);
  out.sums.resize(Z.cols(), classes);
  for (int c = 0; c < classes; ++c) {
    const Eigen::MatrixXd Y = Q_S.middleRows(c * m, m) * Z;
    out.gram[c] = Y.transpose() * Y;
    out.sums.col(c) = Y.transpose() * factors[c].col(m).head(m);
  }
  return out;
}

// The scatter G of discriminant i (class i against the rest) and its group
// means Lambda q_G / n_G.
inline void nystrom_scatter(const ClassProjections& proj, const Eigen::VectorXd& lambda,
                            const std::vector<double>& counts, double n, int i, Weights weights,
                            Eigen::MatrixXd& G, Eigen::VectorXd& mA, Eigen::VectorXd& mB) {
  const Eigen::Index r = lambda.size();
  Eigen::MatrixXd HB = Eigen::MatrixXd::Zero(r, r);
  Eigen::VectorXd qB = Eigen::VectorXd::Zero(r);
  for (int c = 0; c < static_cast<int>(counts.size()); ++c) {
    if (c == i) continue;
    HB += proj.gram[c];
    qB += proj.sums.col(c);
  }
  const Eigen::VectorXd qA = proj.sums.col(i);
  const double nA = counts[i], nB = n - nA;
  const double PA = weights == Weights::equal ? 1.0 : nA / n;
  const double PB = weights == Weights::equal ? 1.0 : nB / n;
  const Eigen::MatrixXd scatter =
      PA * (proj.gram[i] - qA * qA.transpose() / nA) + PB * (HB - qB * qB.transpose() / nB);
  G = lambda.asDiagonal() * scatter * lambda.asDiagonal();
  G = 0.5 * (G + G.transpose()).eval();
  mA = lambda.cwiseProduct(qA) / nA;
  mB = lambda.cwiseProduct(qB) / nB;
}

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
  const nystrom::Decomposition d = nystrom::decompose(R_C, W);
  // no eigenvalue above rounding (a kernel block of zeros): the approximated
  // kernel C W^+ C' is zero and there is no direction to fit
  if (d.values.size() == 0) {
    throw std::invalid_argument(
        "the Nystroem approximation of the kernel is zero: the landmarks' kernel block K(L, L) has no "
        "eigenvalue above its rounding level; check the kernel, or choose other landmarks");
  }
  const ClassProjections proj = class_projections(factors, Q_S, d.vectors);

  Discriminants out = empty_discriminants(m, classes);
  out.values = d.values;
  out.landmark_rank = d.landmark_rank;
  double n = 0;
  for (double count : counts) n += count;
  Eigen::MatrixXd G;
  Eigen::VectorXd mA, mB;
  for (int i = 0; i < discriminant_count(classes); ++i) {
    nystrom_scatter(proj, d.values, counts, n, i, weights, G, mA, mB);
    const Direction dir = fisher_direction(G, mA, mB, reg, n, out.ridge_needed_more, 1);
    set_discriminant(out, i, d.extension.transpose() * dir.alpha, dir);
  }
  return out;
}

// The leave-one-out squared residuals of the ridge regressions behind the
// discriminants (R's ikfd_loo_ridge(), which documents the algebra), summed
// over the discriminants: one column per relative ridge of `grid`, n rows.
// Q and lambda: the eigenpairs of K; targets: n x D indicators of the
// discriminants' first groups; traces: tr(N_d). Per discriminant, mu = ridge
// tr(N_d) / n and w = mu / (lambda^2 + mu); u = Q (w o Q'1), 1 - H_ii = (Q o
// Q) w - u_i^2 / c1 with c1 = sum(w o (Q'1)^2), residual = Q (w o Q't) - u
// (u't) / c1. A ridge whose mu is not positive, or some 1 - H_ii not above
// 1e-12, gives a column of Inf. The ridges of a discriminant are columns of
// three products with Q (compute-bound, where one matrix-vector product per
// ridge and discriminant re-read Q from memory 3 x 15 x D times).
inline Eigen::MatrixXd loo_ridge_losses(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                        const Eigen::Ref<const Eigen::VectorXd>& lambda,
                                        const Eigen::Ref<const Eigen::MatrixXd>& targets,
                                        const Eigen::Ref<const Eigen::VectorXd>& traces,
                                        const Eigen::Ref<const Eigen::VectorXd>& grid, int threads = 1) {
  const Eigen::Index n = Q.rows(), ridges = grid.size(), discriminants = targets.cols();
  if (Q.cols() != n || lambda.size() != n || targets.rows() != n || traces.size() != discriminants) {
    throw std::invalid_argument("loo_ridge_losses: inconsistent dimensions");
  }
  const parallel::EigenThreads eigen_threads(threads);
  const Eigen::ArrayXd lambda2 = lambda.array().square();
  const Eigen::VectorXd Q1 = Q.transpose() * Eigen::VectorXd::Ones(n);
  const Eigen::MatrixXd Qt = Q.transpose() * targets;
  const Eigen::MatrixXd Q2 = Q.array().square().matrix();
  Eigen::MatrixXd losses = Eigen::MatrixXd::Zero(n, ridges);
  std::vector<char> infinite(ridges, 0);
  Eigen::MatrixXd W(n, ridges), WQ1(n, ridges), WQt(n, ridges);
  for (Eigen::Index d = 0; d < discriminants; ++d) {
    for (Eigen::Index r = 0; r < ridges; ++r) {
      const double mu = grid[r] * traces[d] / static_cast<double>(n);
      if (!(mu > 0.0)) infinite[r] = 1;
      W.col(r) = (mu / (lambda2 + mu)).matrix();
    }
    WQ1 = W.array().colwise() * Q1.array();
    WQt = W.array().colwise() * Qt.col(d).array();
    const Eigen::MatrixXd U = Q * WQ1;
    const Eigen::MatrixXd leverage = Q2 * W;
    const Eigen::MatrixXd fitted = Q * WQt;
    for (Eigen::Index r = 0; r < ridges; ++r) {
      if (infinite[r]) continue;
      const double c1 = W.col(r).dot(Q1.cwiseAbs2());
      if (!(c1 > 0.0)) {
        infinite[r] = 1;
        continue;
      }
      const Eigen::ArrayXd gap = leverage.col(r).array() - U.col(r).array().square() / c1;
      if (!(gap > 1e-12).all()) {
        infinite[r] = 1;
        continue;
      }
      const double ut = U.col(r).dot(targets.col(d));
      const Eigen::ArrayXd residual = fitted.col(r).array() - U.col(r).array() * (ut / c1);
      losses.col(r).array() += (residual / gap).square();
    }
  }
  for (Eigen::Index r = 0; r < ridges; ++r) {
    if (infinite[r]) losses.col(r).setConstant(std::numeric_limits<double>::infinity());
  }
  return losses;
}

}  // namespace ikfd
}  // namespace krein

#endif  // KREIN_IKFD_HPP
