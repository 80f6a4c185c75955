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

// The Nystroem basis of Ny-iKFD from the class factors and W = K_mm: the
// decomposition K_hat = Q Lambda Q' (in the basis the factors give, see
// above) and the class projections Q_c'Q_c, Q'e_c.
struct NystromBasis {
  nystrom::Decomposition decomposition;
  ClassProjections projections;
  std::vector<double> counts;
  double n = 0.0;
};

inline NystromBasis nystrom_basis(const std::vector<Eigen::MatrixXd>& factors,
                                  const std::vector<double>& counts,
                                  const Eigen::Ref<const Eigen::MatrixXd>& W) {
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
  NystromBasis out;
  out.decomposition = nystrom::decompose(R_C, W);
  // no eigenvalue above rounding (a kernel block of zeros): the approximated
  // kernel C W^+ C' is zero and there is no direction to fit
  if (out.decomposition.values.size() == 0) {
    throw std::invalid_argument(
        "the Nystroem approximation of the kernel is zero: the landmarks' kernel block K(L, L) has no "
        "eigenvalue above its rounding level; check the kernel, or choose other landmarks");
  }
  out.projections = class_projections(factors, Q_S, out.decomposition.vectors);
  out.counts = counts;
  for (double count : counts) out.n += count;
  return out;
}

inline Discriminants fit_nystrom(const std::vector<Eigen::MatrixXd>& factors,
                                 const std::vector<double>& counts,
                                 const Eigen::Ref<const Eigen::MatrixXd>& W, Weights weights,
                                 double reg) {
  const NystromBasis basis = nystrom_basis(factors, counts, W);
  const nystrom::Decomposition& d = basis.decomposition;
  const int classes = static_cast<int>(factors.size());
  Discriminants out = empty_discriminants(W.rows(), classes);
  out.values = d.values;
  out.landmark_rank = d.landmark_rank;
  Eigen::MatrixXd G;
  Eigen::VectorXd mA, mB;
  for (int i = 0; i < discriminant_count(classes); ++i) {
    nystrom_scatter(basis.projections, d.values, counts, basis.n, i, weights, G, mA, mB);
    const Direction dir = fisher_direction(G, mA, mB, reg, basis.n, out.ridge_needed_more, 1);
    set_discriminant(out, i, d.extension.transpose() * dir.alpha, dir);
  }
  return out;
}

// The leave-one-out squared residuals of the ridge regressions behind the
// discriminants (R's ikfd_loo_ridge(), which documents the algebra), summed
// over the discriminants: one column per relative ridge of `grid`, one row per
// point. The kernel is K = Q diag(lambda) Q' with Q (n x r) orthonormal: all
// n eigenpairs of the full kernel (`complete`), or the r of the Nystroem
// kernel K_hat (paper 002), whose n - r missing eigenvalues are 0. Without
// the intercept the hat matrix is H0 = Q diag(v) Q' with v = lambda^2 /
// (lambda^2 + mu), so I - H0 = (I - QQ') + Q diag(w) Q', w = 1 - v = mu /
// (lambda^2 + mu); with it H = H0 + u u' / c1, u = (I - H0) 1, c1 = 1'u, and
// the leave-one-out residual of point i is ((I - H) t)_i / (1 - H_ii). Every
// point needs only its row of Q and the sums over all points in `LooSums`,
// so the rows can come in blocks (Ny-iKFD never holds Q).
//
// The per-point terms take the form that keeps their digits. Complete: I -
// QQ' = 0 and I - H0 = Q diag(w) Q' directly, so that 1 - H_ii keeps its
// digits when it is small. Low rank: I - H0 = I - Q diag(v) Q', where the
// rows of Q come from the landmark kernel (Q = C E' Lambda^{-1}) and carry
// errors of the order of rounding / |lambda_j| in column j; v_j ~ lambda_j^2
// / mu damps them, where the complement's 1 - ||Q_i||^2 with weights w ~ 1
// would not.
struct LooSums {
  Eigen::VectorXd Q1;           // Q'1, r
  Eigen::MatrixXd Qt;           // Q't_d, r x D
  Eigen::VectorXd target_sums;  // 1't_d, D
  double n = 0.0;               // all points, not those of a block
  bool complete = true;         // Q is n x n
};

// The sums of the full form, from its complete Q
inline LooSums complete_loo_sums(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                 const Eigen::Ref<const Eigen::MatrixXd>& targets) {
  LooSums out;
  out.Q1 = Q.transpose() * Eigen::VectorXd::Ones(Q.rows());
  out.Qt = Q.transpose() * targets;
  out.target_sums = targets.colwise().sum().transpose();
  out.n = static_cast<double>(Q.rows());
  out.complete = true;
  return out;
}

// Q and targets: the rows of a block of points (all of them for the full
// form); traces: tr(N_d) of each discriminant, mu = ridge tr(N_d) / n. A
// ridge whose mu is not positive, or some 1 - H_ii not above 1e-12, gives a
// column of Inf. The ridges of a discriminant are columns of three products
// with Q (compute-bound, where one matrix-vector product per ridge and
// discriminant re-read Q from memory 3 x 15 x D times).
inline Eigen::MatrixXd loo_ridge_losses(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                        const Eigen::Ref<const Eigen::VectorXd>& lambda,
                                        const Eigen::Ref<const Eigen::MatrixXd>& targets,
                                        const Eigen::Ref<const Eigen::VectorXd>& traces,
                                        const Eigen::Ref<const Eigen::VectorXd>& grid, const LooSums& sums,
                                        int threads = 1) {
  const Eigen::Index rows = Q.rows(), r = Q.cols(), ridges = grid.size(), discriminants = targets.cols();
  if (lambda.size() != r || targets.rows() != rows || traces.size() != discriminants ||
      sums.Q1.size() != r || sums.Qt.rows() != r || sums.Qt.cols() != discriminants ||
      sums.target_sums.size() != discriminants || (sums.complete && r != static_cast<Eigen::Index>(sums.n))) {
    throw std::invalid_argument("loo_ridge_losses: inconsistent dimensions");
  }
  const parallel::EigenThreads eigen_threads(threads);
  const Eigen::ArrayXd lambda2 = lambda.array().square();
  const Eigen::MatrixXd Q2 = Q.array().square().matrix();
  // the part of the sums c1 = 1'(I - H0)1 and u't = 1'(I - H0)t outside the
  // span of Q: 1'(I - QQ')1 and 1'(I - QQ')t (zero when Q is complete)
  const double outside_c1 = sums.complete ? 0.0 : sums.n - sums.Q1.squaredNorm();
  // the per-point weights: w (complete) or v (low rank), entering with `sign`
  // on top of `base` (the diagonal, ones or t of I - QQ': 0 or 1)
  const double sign = sums.complete ? 1.0 : -1.0, base = sums.complete ? 0.0 : 1.0;
  Eigen::MatrixXd losses = Eigen::MatrixXd::Zero(rows, ridges);
  std::vector<char> infinite(ridges, 0);
  Eigen::MatrixXd W(r, ridges), X(r, ridges), XQ1(r, ridges), XQt(r, ridges);
  for (Eigen::Index d = 0; d < discriminants; ++d) {
    for (Eigen::Index k = 0; k < ridges; ++k) {
      const double mu = grid[k] * traces[d] / sums.n;
      if (!(mu > 0.0)) infinite[k] = 1;
      W.col(k) = (mu / (lambda2 + mu)).matrix();
      if (sums.complete) {
        X.col(k) = W.col(k);
      } else {
        X.col(k) = (lambda2 / (lambda2 + mu)).matrix();
      }
    }
    XQ1 = X.array().colwise() * sums.Q1.array();
    XQt = X.array().colwise() * sums.Qt.col(d).array();
    const Eigen::MatrixXd U = ((sign * (Q * XQ1)).array() + base).matrix();
    const Eigen::MatrixXd leverage = ((sign * (Q2 * X)).array() + base).matrix();
    const Eigen::MatrixXd fitted = (sign * (Q * XQt)).colwise() + base * targets.col(d);
    const double outside_ut = sums.complete ? 0.0 : sums.target_sums[d] - sums.Q1.dot(sums.Qt.col(d));
    for (Eigen::Index k = 0; k < ridges; ++k) {
      if (infinite[k]) continue;
      const double c1 = outside_c1 + W.col(k).dot(sums.Q1.cwiseAbs2());
      if (!(c1 > 0.0)) {
        infinite[k] = 1;
        continue;
      }
      const Eigen::ArrayXd gap = leverage.col(k).array() - U.col(k).array().square() / c1;
      if (!(gap > 1e-12).all()) {
        infinite[k] = 1;
        continue;
      }
      const double ut = outside_ut + W.col(k).cwiseProduct(sums.Q1).dot(sums.Qt.col(d));
      const Eigen::ArrayXd residual = fitted.col(k).array() - U.col(k).array() * (ut / c1);
      losses.col(k).array() += (residual / gap).square();
    }
  }
  for (Eigen::Index k = 0; k < ridges; ++k) {
    if (infinite[k]) losses.col(k).setConstant(std::numeric_limits<double>::infinity());
  }
  return losses;
}

// The full form: all n eigenpairs of K
inline Eigen::MatrixXd loo_ridge_losses(const Eigen::Ref<const Eigen::MatrixXd>& Q,
                                        const Eigen::Ref<const Eigen::VectorXd>& lambda,
                                        const Eigen::Ref<const Eigen::MatrixXd>& targets,
                                        const Eigen::Ref<const Eigen::VectorXd>& traces,
                                        const Eigen::Ref<const Eigen::VectorXd>& grid, int threads = 1) {
  if (Q.cols() != Q.rows() || targets.rows() != Q.rows()) {
    throw std::invalid_argument("loo_ridge_losses: inconsistent dimensions");
  }
  return loo_ridge_losses(Q, lambda, targets, traces, grid, complete_loo_sums(Q, targets), threads);
}

// What Ny-iKFD's leave-one-out choice of its ridge needs beside the landmark
// kernel C of a block of rows, from the basis of the fit (NystromBasis): the
// rows of Q are C `map` with map = E' Lambda^{-1} (C E' = C W^+ C' Q = K_hat Q
// = Q Lambda); the sums Q'1 = sum_c q_c and Q't_d = q_d with q_c = Q'e_c; and
// tr(N_d) of K_hat with equal weights, tr(G_d) of the r x r scatter (G = Q'N
// Q as Q'Q = I), as the full form's traces are tr(N_d) of K.
struct NystromLoo {
  Eigen::MatrixXd map;     // m x r
  Eigen::VectorXd values;  // lambda, r
  LooSums sums;
  Eigen::VectorXd traces;  // D
  int classes = 0;
};

inline NystromLoo nystrom_loo(const NystromBasis& basis) {
  const nystrom::Decomposition& d = basis.decomposition;
  const int classes = static_cast<int>(basis.counts.size());
  const int discriminants = discriminant_count(classes);
  NystromLoo out;
  out.classes = classes;
  out.values = d.values;
  out.map = d.extension.transpose() * d.values.cwiseInverse().asDiagonal();
  out.sums.complete = false;
  out.sums.n = basis.n;
  out.sums.Q1 = basis.projections.sums.rowwise().sum();
  out.sums.Qt = basis.projections.sums.leftCols(discriminants);
  out.sums.target_sums.resize(discriminants);
  out.traces.resize(discriminants);
  Eigen::MatrixXd G;
  Eigen::VectorXd mA, mB;
  for (int i = 0; i < discriminants; ++i) {
    out.sums.target_sums[i] = basis.counts[i];
    nystrom_scatter(basis.projections, d.values, basis.counts, basis.n, i, Weights::equal, G, mA, mB);
    out.traces[i] = G.trace();
  }
  return out;
}

// The leave-one-out losses (loo_ridge_losses()) of the rows of a block, from
// their landmark kernel C and labels (0..classes-1)
inline Eigen::MatrixXd nystrom_loo_losses(const Eigen::Ref<const Eigen::MatrixXd>& C, const NystromLoo& loo,
                                          const std::vector<int>& labels,
                                          const Eigen::Ref<const Eigen::VectorXd>& grid, int threads = 1) {
  const Eigen::Index rows = C.rows();
  if (C.cols() != loo.map.rows() || static_cast<Eigen::Index>(labels.size()) != rows) {
    throw std::invalid_argument("nystrom_loo_losses: C must have one column per landmark and one label per row");
  }
  check_labels(labels, loo.classes);
  const int discriminants = discriminant_count(loo.classes);
  Eigen::MatrixXd targets = Eigen::MatrixXd::Zero(rows, discriminants);
  for (Eigen::Index i = 0; i < rows; ++i) {
    if (labels[i] < discriminants) targets(i, labels[i]) = 1.0;
  }
  Eigen::MatrixXd Q;
  {
    const parallel::EigenThreads eigen_threads(threads);
    Q.noalias() = C * loo.map;
  }
  return loo_ridge_losses(Q, loo.values, targets, loo.traces, grid, loo.sums, threads);
}

}  // namespace ikfd
}  // namespace krein

#endif  // KREIN_IKFD_HPP
