// krein: EM for the probabilistic classification vector machine (PCVM; Chen,
// Tino & Yao 2009, reviewed in paper 002, Schleif, Gisbrecht & Tino, Sec. 2.4,
// eqs. 4-7), with the order and constants of the authors' reference code (see
// ?pcvm, section "Model and EM"), for a full kernel and for Ny-PCVM (paper
// 002 Sec. 5.1) on the basis functions of the landmarks (see step_factored
// and ?pcvm for why not all n basis functions of the approximated kernel).
//
// Labels y in {-1, +1}; weights w >= 0 on the active basis functions
// phi_j(x) = k(x, x_j) y_j; f(x) = sum_j phi_j(x) w_j + b; p(+1 | x) = Psi(f(x)).
//   E:  Z_i = f_i + y_i phi(f_i) / Psi(y_i f_i), with the ratio bounded
//       below y_i f_i = -8, the exact ratio, or the reference code's
//       phi(f_i) / (Psi(y_i f_i) + eps) (Control::e_step, expected_latent())
//   w:  M = sqrt(2) diag(w_old),  Hess = I + M Phi'Phi M,
//       w = M Hess^{-1} M Phi'(Z - b_old 1)
//   b:  b = sum(Z - Phi w) / (n + 1 / (2 b_old^2))
//   prune w_j < prune
// EM stops (Control::convergence) when the training latent values f have
// settled (krein's default) or, as in the reference code, when no weight
// moves by tol or more.
// The full PCVM (FullBasis) solves its first M-steps, while many basis
// functions are active, by preconditioned conjugate gradients (step_cg,
// O(n |A|) per CG step, no n^3 work), then forms G_A = K_A'K_A once for the
// active set of that moment and takes every later Phi_A'Phi_A from it
// (step_gram, O(|A|^3 + n |A|) per iteration instead of O(n |A|^2)).
#ifndef KREIN_PCVM_HPP
#define KREIN_PCVM_HPP

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "krein/deterministic_uniform.hpp"
#include "krein/parallel_dense.hpp"
#include "krein/symmetric_eigen.hpp"

namespace krein {
namespace pcvm {

// phi(t) / Psi(t), the inverse Mills ratio, from its long forms, accurate for
// every t: directly for t >= -5, and for t < -5 (where both factors
// underflow together) through Laplace's continued fraction of the Mills
// ratio Psi(-x) / phi(x) = 1 / (x + 1 / (x + 2 / (x + 3 / (x + ...)))), x =
// -t, evaluated from its 40th term back (for x >= 5 the same bits as from
// the 200th: checked on a grid of 3e6 points in [5, 50], where 28 terms
// still differ in the last bit and 32 do not). From t = mills_unit_cdf on,
// Psi(t) rounds to 1 (its complement is below half an ulp of 1), so erfc()
// is skipped: the same bits. inverse_mills() below takes these values from a
// table where the E-step needs most of them.
constexpr double mills_unit_cdf = 8.3;
constexpr int mills_fraction_terms = 40;

inline double inverse_mills_long(double t) {
  if (t >= -5.0) {
    const double pdf = std::exp(-0.5 * t * t) / std::sqrt(2.0 * M_PI);
    if (t >= mills_unit_cdf) return pdf;
    const double cdf = 0.5 * std::erfc(-t / std::sqrt(2.0));
    return pdf / cdf;
  }
  const double x = -t;
  double tail = x;
  for (int k = mills_fraction_terms; k >= 1; --k) tail = x + k / tail;
  return tail;  // 1 / Mills ratio
}

namespace detail {

// The inverse Mills ratio on [mills_table_low, mills_unit_cdf) as piecewise
// polynomials of degree mills_table_degree on intervals of width 1 /
// mills_table_per_unit, each interpolating inverse_mills_long() at the
// Chebyshev points of its interval, built once (on first use) from the long
// forms themselves. Below 0 the ratio itself (smooth, 0.80 to 8.12 on [-8,
// 0]); from 0 on, g(t) = 1 / (sqrt(2 pi) Psi(t)) (0.40 to 0.80), times
// exp(-t^2 / 2), so that the relative accuracy holds where the ratio falls
// towards 1e-15. Why: the E-step evaluates the ratio for every training point
// in every EM iteration, and the long forms cost 20-40 ns a point (erfc(),
// or the 40 divisions of the fraction in a dependent chain) where a polynomial
// of degree 7 costs a few: on mlbench's Glass (15 pairs x 10 starts x ~500
// iterations of ~60 points) exp() and erfc() of the E-step were 40% of the
// default fit's profile, and the table made the fit 1.35 times faster.
// Agreement with the long forms: tests/cpp (test_pcvm_estep).
constexpr double mills_table_low = -8.0;
constexpr int mills_table_per_unit = 16;
constexpr int mills_table_degree = 7;

class MillsTable {
 public:
  MillsTable() {
    const int intervals = static_cast<int>(std::ceil((mills_unit_cdf - mills_table_low) * mills_table_per_unit));
    coefficients_.resize(static_cast<size_t>(intervals) * (mills_table_degree + 1));
    constexpr int points = mills_table_degree + 1;
    for (int k = 0; k < intervals; ++k) {
      const double left = mills_table_low + static_cast<double>(k) / mills_table_per_unit;
      const double half = 0.5 / mills_table_per_unit, middle = left + half;
      // values at the Chebyshev points u_j = cos(pi (j + 1/2) / points) of
      // [-1, 1], t = middle + half u
      double values[points], nodes[points];
      for (int j = 0; j < points; ++j) {
        nodes[j] = std::cos(M_PI * (j + 0.5) / points);
        values[j] = smooth_part(middle + half * nodes[j]);
      }
      // Chebyshev coefficients, then the monomial ones in u (operator()
      // sums them by Estrin's scheme); the coefficients fall fast on an
      // interval this short, so the sum is its leading terms plus small
      // corrections
      double chebyshev[points];
      for (int i = 0; i < points; ++i) {
        double sum = 0.0;
        for (int j = 0; j < points; ++j) sum += values[j] * std::cos(M_PI * i * (j + 0.5) / points);
        chebyshev[i] = (i == 0 ? 1.0 : 2.0) * sum / points;
      }
      // T_i(u) as monomials: T_0 = 1, T_1 = u, T_{i+1} = 2 u T_i - T_{i-1}
      double monomial[points] = {0.0};
      double previous[points] = {0.0}, current[points] = {0.0}, next[points];
      previous[0] = 1.0;
      current[1] = 1.0;
      monomial[0] += chebyshev[0];
      for (int d = 0; d < points; ++d) monomial[d] += chebyshev[1] * current[d];
      for (int i = 2; i < points; ++i) {
        for (int d = 0; d < points; ++d) next[d] = (d > 0 ? 2.0 * current[d - 1] : 0.0) - previous[d];
        for (int d = 0; d < points; ++d) {
          monomial[d] += chebyshev[i] * next[d];
          previous[d] = current[d];
          current[d] = next[d];
        }
      }
      for (int d = 0; d < points; ++d) coefficients_[static_cast<size_t>(k) * points + d] = monomial[d];
    }
  }
  // t in [mills_table_low, mills_unit_cdf)
  double operator()(double t) const {
    const double position = (t - mills_table_low) * mills_table_per_unit;
    const int k = static_cast<int>(position);
    const double u = 2.0 * (position - k) - 1.0;
    const double* c = &coefficients_[static_cast<size_t>(k) * (mills_table_degree + 1)];
    // Estrin's scheme: a dependent chain of three multiply-adds instead of
    // Horner's seven
    static_assert(mills_table_degree == 7, "the evaluation below is written for degree 7");
    const double u2 = u * u, u4 = u2 * u2;
    const double value = (c[0] + c[1] * u) + u2 * (c[2] + c[3] * u) + u4 * ((c[4] + c[5] * u) + u2 * (c[6] + c[7] * u));
    return t < 0.0 ? value : value * std::exp(-0.5 * t * t);
  }

 private:
  // the interpolated function: the ratio below 0, g(t) from 0 on (the
  // intervals' edges fall on 0, so no interval mixes the two)
  static double smooth_part(double t) {
    if (t < 0.0) return inverse_mills_long(t);
    return 1.0 / (std::sqrt(2.0 * M_PI) * 0.5 * std::erfc(-t / std::sqrt(2.0)));
  }
  std::vector<double> coefficients_;
};

inline const MillsTable& mills_table() {
  static const MillsTable table;  // built once, thread-safe (C++11)
  return table;
}

}  // namespace detail

// phi(t) / Psi(t) for every t: from detail::MillsTable on [-8, 8.3), where
// the E-step's values mostly fall, else from the long forms
inline double inverse_mills(double t) {
  if (t >= detail::mills_table_low && t < mills_unit_cdf) return detail::mills_table()(t);
  return inverse_mills_long(t);
}

// The E-step's expected latent values (Control::e_step):
//   exact:     Z_i = f_i + y_i phi(f_i) / Psi(y_i f_i), the posterior mean of
//              the latent value under the probit model (Chen, Tino & Yao 2009);
//   reference: Z_i = f_i + y_i phi(f_i) / (Psi(y_i f_i) + eps), eps = 2^-52,
//              as the authors' MATLAB code computes it. Their relative
//              difference is eps / Psi(y_i f_i): 2e-7 at y_i f_i = -6, 36% at
//              -8; below, where phi and Psi both vanish, eps keeps the
//              denominator from following them, so
//              Z_i -> f_i and a badly misclassified point stops pulling its
//              latent value towards the boundary, where the exact E-step
//              pulls it by about |f_i| (see ?pcvm, "Which E-step");
//   bounded:   Z_i = f_i + y_i r(max(y_i f_i, -bounded_e_step_limit)),
//              r = inverse_mills(): the exact E-step where y_i f_i >= -8,
//              and beyond, the pull a point has at y_i f_i = -8 (r(-8) =
//              8.12), neither growing like |f_i| (the exact E-step, which
//              runs away at large N) nor falling to 0 (the reference code,
//              whose badly misclassified points stop pulling and whose EM
//              can then settle on a poor model). The limit 8 is where the
//              reference code's ratio parts from the exact one (36%).
enum class EStep { exact, reference, bounded };

constexpr double bounded_e_step_limit = 8.0;

inline double standard_normal_density(double t) { return std::exp(-0.5 * t * t) / std::sqrt(2.0 * M_PI); }

inline Eigen::VectorXd expected_latent(const Eigen::VectorXd& f, const Eigen::VectorXd& y, EStep kind) {
  Eigen::VectorXd Z(f.size());
  if (kind == EStep::exact) {
    for (Eigen::Index i = 0; i < f.size(); ++i) Z[i] = f[i] + y[i] * inverse_mills(y[i] * f[i]);
  } else if (kind == EStep::bounded) {
    for (Eigen::Index i = 0; i < f.size(); ++i)
      Z[i] = f[i] + y[i] * inverse_mills(std::max(y[i] * f[i], -bounded_e_step_limit));
  } else {
    const double eps = std::numeric_limits<double>::epsilon();
    for (Eigen::Index i = 0; i < f.size(); ++i) {
      const double cdf = 0.5 * std::erfc(-y[i] * f[i] / std::sqrt(2.0));
      Z[i] = f[i] + y[i] * standard_normal_density(f[i]) / (cdf + eps);
    }
  }
  return Z;
}

struct Step {
  Eigen::VectorXd weights;  // new weights of the active set (before pruning)
  double bias = 0.0;
  Eigen::VectorXd latent;   // Z, the E-step's expected latent values
  bool hessian_fallback = false;  // solved by solve_hessian()'s fallback
};

// Solves Hess x = rhs for the M-step's Hess = I + M Phi'Phi M, whose lower
// triangle `form_hessian()` returns. Its eigenvalues are at least 1 in exact
// arithmetic, but where weights have grown huge (1e6: an EM that runs away,
// see ?pcvm) the identity is lost to rounding beside entries of 1e12 and the
// Cholesky factorisation can fail; then the Hessian is formed again (the
// factorisation overwrote it; forming it twice on that rare path is cheaper
// than copying it in every iteration) and the symmetric eigendecomposition
// solves it with the eigenvalues raised to 1, the least they are in exact
// arithmetic, and `fallback` is set.
template <typename FormHessian>
inline Eigen::VectorXd solve_hessian(FormHessian form_hessian, const Eigen::VectorXd& rhs, int threads,
                                     bool& fallback) {
  fallback = false;
  Eigen::MatrixXd Hess = form_hessian();
  if (dense::cholesky(Hess, threads)) return dense::cholesky_solve(Hess, rhs);
  fallback = true;
  const SymmetricEigen eigen = symmetric_eigen(form_hessian(), true);
  const Eigen::ArrayXd values = eigen.values.array().max(1.0);
  return eigen.vectors * ((eigen.vectors.transpose() * rhs).array() / values).matrix();
}

// The M-step of one EM iteration with the full kernel, from the E-step's
// expected latent values Z (fit() computes them). Phi_A' = diag(y_A) K[A, ]
// is formed once, as the a x n matrix the tiled rank-k update takes.
inline Step step_full(const Eigen::Ref<const Eigen::MatrixXd>& K, const Eigen::VectorXd& y,
                      const std::vector<Eigen::Index>& active, const Eigen::VectorXd& w, double b,
                      const Eigen::VectorXd& Z, int threads) {
  const Eigen::Index n = K.rows(), a = static_cast<Eigen::Index>(active.size());
  Eigen::MatrixXd PhiT(a, n);
  for (Eigen::Index j = 0; j < a; ++j) PhiT.row(j) = K.col(active[j]).transpose() * y[active[j]];
  const Eigen::VectorXd m = std::sqrt(2.0) * w;
  // Hess = I + M Phi'Phi M (lower triangle), positive definite for any kernel
  const auto form_hessian = [&]() {
    Eigen::MatrixXd Hess = Eigen::MatrixXd::Zero(a, a);
    dense::rank_update(Hess, PhiT, 1.0, threads);
    for (Eigen::Index j = 0; j < a; ++j) {
      Hess.col(j).tail(a - j) = Hess.col(j).tail(a - j).cwiseProduct(m.tail(a - j)) * m[j];
      Hess(j, j) += 1.0;
    }
    return Hess;
  };
  const Eigen::VectorXd rhs = m.cwiseProduct(PhiT * (Z.array() - b).matrix());
  Step out;
  out.weights = m.cwiseProduct(solve_hessian(form_hessian, rhs, threads, out.hessian_fallback));
  const double fitted_sum = PhiT.rowwise().sum().dot(out.weights);
  out.bias = (Z.sum() - fitted_sum) / (static_cast<double>(n) + 1.0 / (2.0 * b * b));
  out.latent = Z;
  return out;
}

// The M-step of Ny-PCVM: the basis functions are the landmarks', whose
// kernel columns the Nystroem approximation reproduces exactly
// (K_hat[, L] = K_nm W^+ W = K_nm), so Phi_A = C_A D with C = K_nm (the
// pair's rows, its landmark columns) and D = diag(y_A). Given any R with
// R'R = C'C (k x m, one column per landmark) and RA = R_A D:
//   Phi_A'Phi_A = RA'RA,  Hess = I + M RA'RA M,  w = M Hess^{-1} rhs,
//   b = (sum(Z) - 1'Phi_A w) / (n + 1 / (2 b_old^2)),
// with rhs = M Phi_A'(Z - b_old 1), so an M-step costs O(m |A|^2) and needs
// of the n rows only rhs, sum(Z) and n. Data in memory get them from the QR
// of C (step_factored: rhs = M RA'Q'(Z - b 1)); data in chunks from one pass
// over the chunks per iteration (pass_moments(), summed over the blocks:
// rhs = M D g_A with g = C'(Z - b 1)), with R from the landmark pass's class
// factors (step_moments). Both run this function. `fitted_sum(w)` gives
// 1'Phi_A w for the new weights.
template <class Rhs, class FittedSum>
inline Step step_landmarks(const Eigen::MatrixXd& RA, const Eigen::VectorXd& w, double b, Rhs rhs_of,
                           FittedSum fitted_sum, double latent_sum, Eigen::Index n) {
  const Eigen::Index a = RA.cols();
  const Eigen::VectorXd m = std::sqrt(2.0) * w;
  const Eigen::MatrixXd RAM = RA * m.asDiagonal();
  const auto form_hessian = [&]() {
    Eigen::MatrixXd Hess = Eigen::MatrixXd::Identity(a, a);
    Hess.selfadjointView<Eigen::Lower>().rankUpdate(RAM.transpose());
    return Hess;
  };
  const Eigen::VectorXd rhs = rhs_of(RAM, m);
  Step out;
  out.weights = m.cwiseProduct(solve_hessian(form_hessian, rhs, 1, out.hessian_fallback));
  out.bias = (latent_sum - fitted_sum(out.weights)) / (static_cast<double>(n) + 1.0 / (2.0 * b * b));
  return out;
}

// RA = R_A D, the active landmarks' columns of R signed by their classes
inline Eigen::MatrixXd signed_active_columns(const Eigen::Ref<const Eigen::MatrixXd>& R, const Eigen::VectorXd& y_columns,
                                             const std::vector<Eigen::Index>& active) {
  const Eigen::Index a = static_cast<Eigen::Index>(active.size());
  Eigen::MatrixXd RA(R.rows(), a);
  for (Eigen::Index j = 0; j < a; ++j) RA.col(j) = R.col(active[j]) * y_columns[active[j]];
  return RA;
}

// One EM iteration of Ny-PCVM on data in memory, with the thin QR C = Q R
// computed once (Q orthonormal, n x k; R, k x m): Phi_A w = Q (RA w), so no
// n x |A| matrix is formed. `y_columns` labels the landmarks; Z are the
// E-step's expected latent values.
inline Step step_factored(const Eigen::Ref<const Eigen::MatrixXd>& Q, const Eigen::Ref<const Eigen::MatrixXd>& R,
                          const Eigen::VectorXd& y_columns, const std::vector<Eigen::Index>& active,
                          const Eigen::VectorXd& w, double b, const Eigen::VectorXd& Z) {
  const Eigen::MatrixXd RA = signed_active_columns(R, y_columns, active);
  const Eigen::VectorXd projected = Q.transpose() * (Z.array() - b).matrix();
  Step out = step_landmarks(
      RA, w, b, [&](const Eigen::MatrixXd& RAM, const Eigen::VectorXd&) -> Eigen::VectorXd { return RAM.transpose() * projected; },
      [&](const Eigen::VectorXd& weights) { return Q.colwise().sum().dot(RA * weights); }, Z.sum(), Q.rows());
  out.latent = Z;
  return out;
}

// One EM iteration of Ny-PCVM from the moments of a pass over data in
// chunks: g = C'(Z - b 1) over all the pair's landmark columns, sum(Z) and
// the row count n; `column_sums` are 1'C.
inline Step step_moments(const Eigen::Ref<const Eigen::MatrixXd>& R, const Eigen::VectorXd& y_columns,
                         const Eigen::VectorXd& column_sums, const std::vector<Eigen::Index>& active,
                         const Eigen::VectorXd& w, double b, const Eigen::VectorXd& g, double latent_sum,
                         Eigen::Index n) {
  const Eigen::Index a = static_cast<Eigen::Index>(active.size());
  return step_landmarks(
      signed_active_columns(R, y_columns, active), w, b,
      [&](const Eigen::MatrixXd&, const Eigen::VectorXd& m) {
        Eigen::VectorXd rhs(a);  // M D g_A
        for (Eigen::Index j = 0; j < a; ++j) rhs[j] = m[j] * y_columns[active[j]] * g[active[j]];
        return rhs;
      },
      [&](const Eigen::VectorXd& weights) {
        double sum = 0.0;  // s_A' D w
        for (Eigen::Index j = 0; j < a; ++j) sum += column_sums[active[j]] * y_columns[active[j]] * weights[j];
        return sum;
      },
      latent_sum, n);
}

// What one pass over a pair's training rows gives its M-step in moment form
// (step_moments), summed over the blocks of rows: g = C'(Z - b 1) over the
// pair's landmark columns, sum(Z), the count of rows with y f <= 0 (the
// training error of the latent values the E-step started from) and, for the
// "latent" stopping rule, ||f - f_prev||^2 and ||f_prev||^2.
struct PassMoments {
  Eigen::VectorXd g;
  double latent_sum = 0.0;
  double errors = 0.0;
  double change = 0.0;
  double size = 0.0;
};

// A pair's part of a pass over a block: its two classes (codes; rows of the
// first are +1), its landmark columns, the current f = C a + b (`a` signed,
// over its columns), the previous one where the latent test needs it, and in
// the first pass (before any f) the start latent values instead: column
// `start_first` of `start` for the rows of the first class, `start_second`
// for those of the second.
struct PassTask {
  int first_class = 0;
  int second_class = 0;
  std::vector<Eigen::Index> columns;
  Eigen::VectorXd coefficients;
  double bias = 0.0;
  bool has_previous = false;
  Eigen::VectorXd previous_coefficients;
  double previous_bias = 0.0;
  Eigen::Index start_first = -1;  // -1: f from the coefficients
  Eigen::Index start_second = -1;
};

// The moments of one block of rows for one pair: C holds the block's kernel
// values against every landmark, `codes` the rows' classes, `start` (first
// pass only) the rows' start latent values. The E-step is fit()'s.
inline PassMoments pass_moments(const Eigen::Ref<const Eigen::MatrixXd>& C, const std::vector<int>& codes,
                                const Eigen::Ref<const Eigen::MatrixXd>& start, const PassTask& task, EStep kind) {
  const Eigen::Index c = static_cast<Eigen::Index>(task.columns.size());
  PassMoments out;
  out.g = Eigen::VectorXd::Zero(c);
  std::vector<Eigen::Index> rows;
  for (Eigen::Index i = 0; i < C.rows(); ++i) {
    if (codes[i] == task.first_class || codes[i] == task.second_class) rows.push_back(i);
  }
  const Eigen::Index r = static_cast<Eigen::Index>(rows.size());
  if (r == 0) return out;
  Eigen::MatrixXd Cp(r, c);
  Eigen::VectorXd y(r);
  for (Eigen::Index i = 0; i < r; ++i) {
    for (Eigen::Index j = 0; j < c; ++j) Cp(i, j) = C(rows[i], task.columns[j]);
    y[i] = codes[rows[i]] == task.first_class ? 1.0 : -1.0;
  }
  Eigen::VectorXd f(r);
  if (task.start_first >= 0) {
    for (Eigen::Index i = 0; i < r; ++i) f[i] = start(rows[i], y[i] > 0 ? task.start_first : task.start_second);
  } else {
    f = (Cp * task.coefficients).array() + task.bias;
  }
  const Eigen::VectorXd Z = expected_latent(f, y, kind);
  out.g.noalias() = Cp.transpose() * (Z.array() - task.bias).matrix();
  out.latent_sum = Z.sum();
  for (Eigen::Index i = 0; i < r; ++i) out.errors += y[i] * f[i] <= 0.0;
  if (task.has_previous) {
    const Eigen::VectorXd f_previous = (Cp * task.previous_coefficients).array() + task.previous_bias;
    out.change = (f - f_previous).squaredNorm();
    out.size = f_previous.squaredNorm();
  }
  return out;
}

// The weights after an M-step, over all basis functions: the step's weights
// on the active set, those below `prune` dropped (set to 0) with their basis
// functions; `change` is the largest move of a weight (the "weights"
// stopping rule's). fit() and the EM over chunks both prune here.
struct Pruned {
  Eigen::VectorXd weights;
  double change = 0.0;
};

inline Pruned prune_weights(const Eigen::VectorXd& previous, const std::vector<Eigen::Index>& active,
                            const Eigen::VectorXd& step_weights, double prune) {
  Pruned out;
  out.weights = Eigen::VectorXd::Zero(previous.size());
  for (size_t k = 0; k < active.size(); ++k) {
    const double value = step_weights[static_cast<Eigen::Index>(k)];
    out.weights[active[k]] = value < prune ? 0.0 : value;
  }
  out.change = (out.weights - previous).cwiseAbs().maxCoeff();
  return out;
}

namespace detail {

constexpr Eigen::Index row_block = 1024;

// Below this many kernel entries touched, a product runs on one thread: the
// threads' start-up would cost more than they save.
constexpr Eigen::Index parallel_entries = Eigen::Index(1) << 18;

// out = K[, A] c: threads take blocks of rows, each walking all active
// columns in order (so the sums do not depend on the thread count).
inline void active_times(const Eigen::Ref<const Eigen::MatrixXd>& K, const std::vector<Eigen::Index>& active,
                         const Eigen::VectorXd& c, Eigen::VectorXd& out, int threads) {
  const Eigen::Index n = K.rows(), a = static_cast<Eigen::Index>(active.size());
  out.setZero(n);
  const Eigen::Index blocks = (n + row_block - 1) / row_block;
  parallel::parallel_for(0, blocks, n * a >= parallel_entries ? threads : 1, parallel::Schedule::blocks(),
                         [&](Eigen::Index t) {
    const Eigen::Index r0 = t * row_block, rows = std::min(row_block, n - r0);
    auto segment = out.segment(r0, rows);
    for (Eigen::Index j = 0; j < a; ++j) segment += K.col(active[j]).segment(r0, rows) * c[j];
  });
}

// out = K[, A]' u, one dot product per active column
inline void active_transpose_times(const Eigen::Ref<const Eigen::MatrixXd>& K, const std::vector<Eigen::Index>& active,
                                   const Eigen::VectorXd& u, Eigen::VectorXd& out, int threads) {
  const Eigen::Index n = K.rows(), a = static_cast<Eigen::Index>(active.size());
  out.resize(a);
  parallel::parallel_for(0, a, n * a >= parallel_entries ? threads : 1, parallel::Schedule::blocks(),
                         [&](Eigen::Index j) { out[j] = K.col(active[j]).dot(u); });
}

// f = K[, A] D w + b (D = diag(y_A)): the training latent values of the
// weights w on the active set, the E-step's input and the convergence
// test's
inline Eigen::VectorXd latent_values(const Eigen::Ref<const Eigen::MatrixXd>& K, const std::vector<Eigen::Index>& active,
                                     const Eigen::VectorXd& y, const Eigen::VectorXd& w, double b, int threads) {
  const Eigen::Index a = static_cast<Eigen::Index>(active.size());
  Eigen::VectorXd signed_w(a);
  for (Eigen::Index j = 0; j < a; ++j) signed_w[j] = y[active[j]] * w[j];
  Eigen::VectorXd f;
  active_times(K, active, signed_w, f, threads);
  f.array() += b;
  return f;
}

}  // namespace detail

// The full PCVM's M-step from G_A = K[, A]'K[, A] for an active set A
// formed once (the direct path of FullBasis): later active sets are subsets
// of it (pruning only removes basis functions), and `position` maps a basis
// function to its row and column of G (increasing, so that G's lower
// triangle stays the lower triangle of every submatrix). With D = diag(y_A),
// Phi_A'Phi_A = D G[A, A] D, so an iteration gathers the active submatrix
// of G, O(|A|^2), where step_full forms it by a rank-|A| update over all n
// rows, O(n |A|^2): the iterates are the same up to rounding (the sums run
// in another order). What remains per iteration is the Cholesky
// factorisation of the active Hessian (O(|A|^3), new in every iteration, as
// M changes every entry of it) and O(n |A|) for f and Phi_A'(Z - b 1).
// `column_sums` are 1'K.
inline Step step_gram(const Eigen::Ref<const Eigen::MatrixXd>& K, const Eigen::MatrixXd& G,
                      const std::vector<Eigen::Index>& position, const Eigen::VectorXd& column_sums,
                      const Eigen::VectorXd& y, const std::vector<Eigen::Index>& active, const Eigen::VectorXd& w,
                      double b, const Eigen::VectorXd& Z, int threads) {
  const Eigen::Index n = K.rows(), a = static_cast<Eigen::Index>(active.size());
  const Eigen::VectorXd m = std::sqrt(2.0) * w;
  // below two tiles the factorisation is one or a few tiles: threads would
  // only add their start-up (and, on a busy machine, waits for a descheduled one)
  const int workers = a >= 2 * dense::tile_size ? threads : 1;
  // Hess = I + M D G[A, A] D M (lower triangle)
  const auto form_hessian = [&]() {
    Eigen::MatrixXd Hess(a, a);
    parallel::parallel_for(0, a, workers, parallel::Schedule::dynamic(), [&](Eigen::Index j) {
      const Eigen::Index cj = active[j], gj = position[cj];
      const double scale = m[j] * y[cj];
      for (Eigen::Index i = j; i < a; ++i) Hess(i, j) = G(position[active[i]], gj) * (y[active[i]] * m[i] * scale);
      Hess(j, j) += 1.0;
    });
    return Hess;
  };
  const Eigen::VectorXd residual = (Z.array() - b).matrix();
  Eigen::VectorXd rhs(a);  // M Phi_A'(Z - b 1)
  parallel::parallel_for(0, a, workers, parallel::Schedule::blocks(), [&](Eigen::Index j) {
    rhs[j] = m[j] * y[active[j]] * K.col(active[j]).dot(residual);
  });
  Step out;
  out.weights = m.cwiseProduct(solve_hessian(form_hessian, rhs, workers, out.hessian_fallback));
  double fitted_sum = 0.0;  // 1'Phi_A w
  for (Eigen::Index j = 0; j < a; ++j) fitted_sum += column_sums[active[j]] * y[active[j]] * out.weights[j];
  out.bias = (Z.sum() - fitted_sum) / (static_cast<double>(n) + 1.0 / (2.0 * b * b));
  out.latent = Z;
  return out;
}

// G = X'X (lower triangle), in square tiles that threads work on at once;
// each tile is one Eigen product of two column blocks of X (no transposed
// copy of X).
inline Eigen::MatrixXd gram_lower(const Eigen::Ref<const Eigen::MatrixXd>& X, int threads) {
  const Eigen::Index n = X.cols();
  Eigen::MatrixXd G(n, n);
  const Eigen::Index tiles = (n + dense::tile_size - 1) / dense::tile_size;
  const auto jobs = dense::lower_tiles(tiles, 0);
  parallel::parallel_for(0, static_cast<Eigen::Index>(jobs.size()), threads, parallel::Schedule::dynamic(),
                         [&](Eigen::Index t) {
    const Eigen::Index i0 = jobs[t].first * dense::tile_size, j0 = jobs[t].second * dense::tile_size;
    const Eigen::Index rows = std::min(dense::tile_size, n - i0), cols = std::min(dense::tile_size, n - j0);
    G.block(i0, j0, rows, cols).noalias() = X.middleCols(i0, rows).transpose() * X.middleCols(j0, cols);
  });
  return G;
}

// ---- The iterative M-step (step_cg) ----
//
// Any direct M-step needs all of Phi_A'Phi_A while |A| is large: forming it
// costs n |A|^2 flops and its Cholesky factorisation |A|^3 / 3, both about
// n^3 in the first iterations, where every basis function is active. The
// conjugate gradient method (Hestenes & Stiefel 1952) needs only products
// with Hess = I + M D K_A'K_A D M, i.e. one product with K[, A] and one with
// its transpose per step, O(n |A|); Hess >= I is positive definite for any
// kernel, also an indefinite or asymmetric one (K_A'K_A is positive
// semidefinite), so CG applies unchanged. Preconditioned by a low-rank sketch
// of K'K (below), it reaches a residual of 1e-14 relative to the right-hand
// side in a few steps, so that the weights equal the direct solve's up
// to rounding; where it does not within `cg_max_steps`, FullBasis falls back
// to the direct path (G_A and Cholesky).

// How the full PCVM solves its M-step (FullBasis).
enum class Solver {
  automatic,  // CG while at least cg_min_active(n) basis functions are active, then G_A once
  cholesky,   // G = K'K formed in the first step, a Cholesky factorisation in every step
  cg          // CG in every step (where it converges; for the tests)
};

struct SolverControl {
  Solver solver = Solver::automatic;
  int cg_max_steps = 200;         // CG steps of one M-step before the direct fallback
  Eigen::Index cg_min_active = 0; // automatic: CG while |A| >= this (0: cg_min_active(n))
  double cg_tolerance = 1e-14;    // CG stops at ||rhs - Hess x|| <= cg_tolerance ||rhs||
  double sketch_spread = 300.0;    // see sketch_gram (chosen by measurement, bench/pcvm.R)
  Eigen::Index sketch_block = 50;  // columns added to the sketch at a time
  Eigen::Index sketch_max_rank = 1000;  // and at most n / 8 (4 n^2 l flops: below half a direct step)
};

// What the M-steps of a fit did (FullBasis::statistics()).
struct SolverStatistics {
  int cg_iterations = 0;       // EM iterations whose M-step CG solved
  int cg_steps = 0;            // CG steps over all M-steps that tried CG (those that fell back too)
  int fallbacks = 0;           // M-steps where CG did not converge within cg_max_steps
  Eigen::Index gram_size = 0;  // |A| when G_A was formed (0: never)
  Eigen::Index sketch_rank = 0;  // columns of the sketch W (0: no sketch)
};

// The size of the active set below which the automatic solver forms G_A
// and goes direct. A CG M-step costs s steps of two memory-bound passes
// over K[, A] (s is about 5 with the sketch of sketch_gram on the
// benchmark's data); forming G_A costs n |A|^2 flops once (fast dense
// products), after which each of the remaining iterations (typically about
// a hundred, on ever smaller sets) costs only a small Cholesky
// factorisation. On checkerboard() data (bench/pcvm.R, n = 2000-10000,
// the active set shrinking to about a fifth of n within five iterations),
// thresholds from 100 to 1250 (n = 5000) gave the same time within the
// noise of the shared machine, 2500 (G_A formed at |A| = 1946) was slower;
// max(1000, n / 4) keeps the CG steps, which are memory-bound and suffer
// most on a busy machine, to the first few iterations.
inline Eigen::Index cg_min_active(Eigen::Index n) { return std::max<Eigen::Index>(1000, n / 4); }

namespace detail {

// Columns first_column, ..., first_column + cols - 1 of one fixed n x inf
// test matrix (krein/deterministic_uniform.hpp): not from R's RNG, so that
// set.seed() reproduces a fit and R's random stream is left untouched.
inline Eigen::MatrixXd fixed_test_matrix(Eigen::Index rows, Eigen::Index cols, Eigen::Index first_column) {
  return deterministic_uniform_block(rows, cols,
                                     0x2545F4914F6CDD1DULL + static_cast<std::uint64_t>(first_column) *
                                                                 static_cast<std::uint64_t>(rows) *
                                                                 0x9E3779B97F4A7C15ULL);
}

}  // namespace detail

// The sketch of K'K behind the CG preconditioner, computed once per fit:
// Q (n x l, orthonormal) spans an approximate range of K, found by the
// adaptive randomized range finder (Halko, Martinsson & Tropp 2011,
// "Finding structure with randomness", SIAM Review 53(2), 217-288,
// doi:10.1137/090771806, Algorithm 4.2, in blocks of `block` columns), and
//   K'K ~= K'Q Q'K = W'W,   W = Q'K  (l x n).
// K'K - W'W = E'E with E = (I - QQ')K is positive semidefinite whatever the
// sign of K's eigenvalues (and for an asymmetric K), so the preconditioner
// P below is positive definite and P <= Hess: the eigenvalues of P^{-1} Hess
// lie in [1, 1 + max(m)^2 ||E||^2], and CG needs few more steps than there
// are eigenvalues of E'E far above 1 / max(m)^2. The range grows by blocks
// until max(m)^2 e^2 <= `spread`, where e = sqrt(3) max_i ||E omega_i|| over
// the block's test vectors (entries uniform on (-1, 1), variance 1/3) is
// about ||E|| when E's spectrum decays fast (Halko et al.'s eq. 4.3 bounds
// ||E|| by 10 sqrt(2 / pi) times that for any E, a bound we found ten times
// too pessimistic for kernel matrices), with m of the first step, or until
// l reaches `max_rank`. On the benchmark's data (checkerboard(), Gaussian
// kernel) the rank came out at 200 for n = 2000 and 5000 and 250 for
// n = 10000, with 3-5 CG steps per M-step; spreads from 100 to 1000 gave
// ranks 250 to 150 and 3 to 7 steps, at about the same total time. The cost is two products of K with n x l blocks,
// 4 n^2 l flops: the rank follows the kernel's spectrum. The test vectors
// are fixed (detail::fixed_test_matrix).
inline Eigen::MatrixXd sketch_gram(const Eigen::Ref<const Eigen::MatrixXd>& K, double max_scale, double spread,
                                   Eigen::Index block, Eigen::Index max_rank, int threads) {
  const parallel::EigenThreads eigen_threads(threads);
  const Eigen::Index n = K.rows(), limit = std::max<Eigen::Index>(1, std::min(max_rank, n));
  const double estimate_factor = std::sqrt(3.0);
  const double target = std::sqrt(spread) / max_scale;  // the largest acceptable ||E||
  Eigen::MatrixXd Q(n, 0);
  while (Q.cols() < limit) {
    const Eigen::Index used = Q.cols(), b = std::min(block, limit - used);
    Eigen::MatrixXd Y = K * detail::fixed_test_matrix(n, b, used);
    for (int pass = 0; pass < 2; ++pass) Y -= Q * (Q.transpose() * Y);  // twice: orthogonal to working precision
    const double residual = estimate_factor * Y.colwise().norm().maxCoeff();
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(Y);
    Q.conservativeResize(n, used + b);
    Q.rightCols(b) = qr.householderQ() * Eigen::MatrixXd::Identity(n, b);
    if (residual <= target) break;
  }
  return Q.transpose() * K;
}

// The preconditioner of one M-step: with V = M D W_A' (|A| x l),
//   P = I + M D W_A'W_A D M = I + V V',  P^{-1} = I - V (I + V'V)^{-1} V'
// by the Woodbury identity, O(|A| l^2) to set up and O(|A| l) to apply.
class SketchPreconditioner {
 public:
  SketchPreconditioner(const Eigen::MatrixXd& W, const Eigen::VectorXd& scale, const std::vector<Eigen::Index>& active,
                       int threads) {
    const Eigen::Index a = static_cast<Eigen::Index>(active.size());
    V_.resize(a, W.rows());
    for (Eigen::Index j = 0; j < a; ++j) V_.row(j) = W.col(active[j]).transpose() * scale[j];
    Eigen::MatrixXd capacitance = Eigen::MatrixXd::Identity(W.rows(), W.rows());
    {
      const parallel::EigenThreads eigen_threads(threads);
      capacitance.selfadjointView<Eigen::Lower>().rankUpdate(V_.transpose());
    }
    capacitance_.compute(capacitance);  // >= I: positive definite
  }
  Eigen::VectorXd apply(const Eigen::VectorXd& r) const {
    return r - V_ * capacitance_.solve(V_.transpose() * r);
  }

 private:
  Eigen::MatrixXd V_;
  Eigen::LLT<Eigen::MatrixXd> capacitance_;
};

// One EM iteration with the M-step by preconditioned CG (see above): the
// same E-step, weights and bias as step_gram, Hess x = rhs solved without
// forming Hess. Returns false (and leaves `out` alone) when CG has not
// reached the tolerance within control.cg_max_steps steps. `W` is the
// sketch (sketch_gram), `column_sums` are 1'K.
inline bool step_cg(const Eigen::Ref<const Eigen::MatrixXd>& K, const Eigen::MatrixXd& W,
                    const Eigen::VectorXd& column_sums, const Eigen::VectorXd& y,
                    const std::vector<Eigen::Index>& active, const Eigen::VectorXd& w, double b,
                    const Eigen::VectorXd& Z, const SolverControl& control, int threads,
                    SolverStatistics& statistics, Step& out) {
  const Eigen::Index n = K.rows(), a = static_cast<Eigen::Index>(active.size());
  Eigen::VectorXd scale(a);  // the diagonal of M D
  for (Eigen::Index j = 0; j < a; ++j) scale[j] = std::sqrt(2.0) * w[j] * y[active[j]];
  Eigen::VectorXd rhs;  // M D K_A'(Z - b 1)
  detail::active_transpose_times(K, active, (Z.array() - b).matrix(), rhs, threads);
  rhs.array() *= scale.array();
  // Hess v = v + M D K_A'(K_A (D M v))
  Eigen::VectorXd column_space, row_space;
  auto hess_times = [&](const Eigen::VectorXd& v) {
    detail::active_times(K, active, scale.cwiseProduct(v), column_space, threads);
    detail::active_transpose_times(K, active, column_space, row_space, threads);
    return Eigen::VectorXd(v + scale.cwiseProduct(row_space));
  };
  const SketchPreconditioner preconditioner(W, scale, active, threads);
  // preconditioned CG (e.g. Saad 2003, Iterative Methods for Sparse Linear
  // Systems, Algorithm 9.1) from x = 0
  Eigen::VectorXd x = Eigen::VectorXd::Zero(a), r = rhs;
  const double target = control.cg_tolerance * rhs.norm();
  bool converged = r.norm() <= target;
  Eigen::VectorXd z = preconditioner.apply(r), p = z;
  double rz = r.dot(z);
  int steps = 0;
  const double start_norm = r.norm();
  while (!converged && steps < control.cg_max_steps) {
    // a CG that would need more than cg_max_steps at the rate of its first
    // ten steps gives up now rather than after all of them (a kernel whose
    // spectrum the sketch did not capture): the direct solve is cheaper
    if (steps == 10) {
      const double rate = std::log(r.norm() / start_norm) / steps;  // log reduction per step
      if (!(rate < 0.0) || std::log(control.cg_tolerance) / rate > control.cg_max_steps) break;
    }
    ++steps;
    const Eigen::VectorXd q = hess_times(p);
    const double curvature = p.dot(q);
    if (!(curvature > 0.0) || !(rz > 0.0)) break;  // only in rounding trouble: fall back
    const double alpha = rz / curvature;
    x += alpha * p;
    r -= alpha * q;
    if (r.norm() <= target) {
      converged = true;
      break;
    }
    z = preconditioner.apply(r);
    const double rz_next = r.dot(z);
    p = z + (rz_next / rz) * p;
    rz = rz_next;
  }
  statistics.cg_steps += steps;
  if (!converged) {
    ++statistics.fallbacks;
    return false;
  }
  ++statistics.cg_iterations;
  out.weights = std::sqrt(2.0) * w.cwiseProduct(x);
  double fitted_sum = 0.0;  // 1'Phi_A w
  for (Eigen::Index j = 0; j < a; ++j) fitted_sum += column_sums[active[j]] * y[active[j]] * out.weights[j];
  out.bias = (Z.sum() - fitted_sum) / (static_cast<double>(n) + 1.0 / (2.0 * b * b));
  out.latent = Z;
  return true;
}

// The basis of the full PCVM: the pair's kernel, its labels on both sides.
// With `gram`, the M-step runs by `solver` (SolverControl): the automatic
// solver takes CG steps (step_cg) while at least cg_min_active(n) basis
// functions are active, then forms G_A = K[, A]'K[, A] for the active set
// of that moment and takes the direct steps of step_gram on its submatrices
// (later active sets are subsets); "cholesky" forms G = K'K in the first
// step (all basis functions active); a CG step that does not converge falls
// back to G_A at once. Without `gram`, every step forms Phi_A'Phi_A anew
// (step_full: krein's path before G, kept for comparison). The width step
// of pcvm_control(optimize_width = TRUE) may replace the kernel between
// iterations; the new kernel's steps run on step_full, as forming its G
// would cost as much as the step itself.
class FullBasis {
 public:
  FullBasis(const Eigen::Ref<const Eigen::MatrixXd>& K, Eigen::VectorXd y, int threads, bool gram = true,
            SolverControl solver = SolverControl())
      : borrowed_(K), y_(std::move(y)), threads_(threads), gram_(gram), solver_(solver) {
    if (K.rows() != K.cols() || K.rows() != y_.size()) throw std::invalid_argument("K must be n x n with one label per row");
  }
  Eigen::Index size() const { return y_.size(); }
  void replace_kernel(Eigen::MatrixXd K) {
    if (K.rows() != size() || K.cols() != size()) throw std::invalid_argument("the new kernel has the wrong size");
    owned_ = std::move(K);
    replaced_ = true;
    G_.resize(0, 0);  // the old kernel's: free them
    W_.resize(0, 0);
  }
  const Eigen::VectorXd& labels() const { return y_; }
  // Several EM starts on the same kernel (pcvm_control(starts)):
  // `keep_sketch(true)` before the first, next_start() between them. Each
  // start has its own G_A and statistics, but the sketch of K'K, which
  // depends only on K, is kept from the first start's first step (its rank
  // was chosen for that start's weights; for another start it remains a
  // positive definite preconditioner, and CG reaches the same tolerance). It
  // costs 4 n^2 l flops, most of a start's time at a few thousand points.
  void keep_sketch(bool keep) { keep_sketch_ = keep; }
  void next_start() {
    G_.resize(0, 0);
    position_.clear();
    const Eigen::Index rank = W_.rows();
    statistics_ = SolverStatistics();
    statistics_.sketch_rank = rank;
  }
  Step step(const std::vector<Eigen::Index>& active, const Eigen::VectorXd& w, double b,
            const Eigen::VectorXd& Z) const {
    if (replaced_) return step_full(owned_, y_, active, w, b, Z, threads_);
    if (!gram_) return step_full(borrowed_, y_, active, w, b, Z, threads_);
    if (column_sums_.size() == 0) column_sums_ = borrowed_.colwise().sum().transpose();
    const Eigen::Index a = static_cast<Eigen::Index>(active.size());
    const bool iterative = solver_.solver == Solver::cg ||
                           (solver_.solver == Solver::automatic &&
                            a >= (solver_.cg_min_active > 0 ? solver_.cg_min_active : cg_min_active(size())));
    if (G_.size() == 0 && iterative) {
      if (W_.size() == 0) {
        W_ = sketch_gram(borrowed_, std::sqrt(2.0) * w.cwiseAbs().maxCoeff(), solver_.sketch_spread,
                         solver_.sketch_block, std::min(solver_.sketch_max_rank, std::max<Eigen::Index>(1, size() / 8)),
                         threads_);
        statistics_.sketch_rank = W_.rows();
      }
      Step out;
      if (step_cg(borrowed_, W_, column_sums_, y_, active, w, b, Z, solver_, threads_, statistics_, out)) {
        return out;
      }
    }
    if (G_.size() == 0) form_gram(active);
    return step_gram(borrowed_, G_, position_, column_sums_, y_, active, w, b, Z, threads_);
  }
  // f = K[, A] diag(y_A) w + b on the training points, O(n |A|)
  Eigen::VectorXd latent(const std::vector<Eigen::Index>& active, const Eigen::VectorXd& w, double b) const {
    const Eigen::Ref<const Eigen::MatrixXd>& K = replaced_ ? Eigen::Ref<const Eigen::MatrixXd>(owned_) : borrowed_;
    return detail::latent_values(K, active, y_, w, b, threads_);
  }
  const SolverStatistics& statistics() const { return statistics_; }

 private:
  // G_A = K[, A]'K[, A] for the current active set (all of K'K when every
  // basis function is active); the sketch is not needed after it
  void form_gram(const std::vector<Eigen::Index>& active) const {
    const Eigen::Index a = static_cast<Eigen::Index>(active.size());
    position_.assign(static_cast<size_t>(size()), -1);
    for (Eigen::Index j = 0; j < a; ++j) position_[active[j]] = j;
    if (a == size()) {
      G_ = gram_lower(borrowed_, threads_);
    } else {
      Eigen::MatrixXd KA(size(), a);
      for (Eigen::Index j = 0; j < a; ++j) KA.col(j) = borrowed_.col(active[j]);
      G_ = gram_lower(KA, threads_);
    }
    statistics_.gram_size = a;
    if (!keep_sketch_) W_.resize(0, 0);
  }

  Eigen::Ref<const Eigen::MatrixXd> borrowed_;
  Eigen::MatrixXd owned_;
  bool replaced_ = false;
  Eigen::VectorXd y_;
  int threads_;
  bool gram_;
  SolverControl solver_;
  // formed in the first step that needs them: G_A (lower triangle) with the
  // positions of the basis functions in it, 1'K, the sketch W of K'K
  mutable Eigen::MatrixXd G_;
  mutable std::vector<Eigen::Index> position_;
  mutable Eigen::VectorXd column_sums_;
  mutable Eigen::MatrixXd W_;
  mutable SolverStatistics statistics_;
  bool keep_sketch_ = false;  // more starts follow: forming G_A does not free the sketch
};

// The basis of Ny-PCVM: the pair's landmark columns C = K_nm[rows, columns],
// by their thin QR C = Q R computed once (see step_factored).
class FactoredBasis {
 public:
  FactoredBasis(const Eigen::Ref<const Eigen::MatrixXd>& C, Eigen::VectorXd y_rows, Eigen::VectorXd y_columns)
      : y_rows_(std::move(y_rows)), y_columns_(std::move(y_columns)) {
    if (C.rows() != y_rows_.size() || C.cols() != y_columns_.size()) {
      throw std::invalid_argument("C must have one label per row and per column");
    }
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(C);
    const Eigen::Index k = std::min(C.rows(), C.cols());
    Q_ = qr.householderQ() * Eigen::MatrixXd::Identity(C.rows(), k);
    R_ = qr.matrixQR().topRows(k).triangularView<Eigen::Upper>();
  }
  Eigen::Index size() const { return y_columns_.size(); }
  const Eigen::VectorXd& labels() const { return y_rows_; }
  Step step(const std::vector<Eigen::Index>& active, const Eigen::VectorXd& w, double b,
            const Eigen::VectorXd& Z) const {
    return step_factored(Q_, R_, y_columns_, active, w, b, Z);
  }
  // f = Q R_A diag(y_A) w + b on the training points, O(n m)
  Eigen::VectorXd latent(const std::vector<Eigen::Index>& active, const Eigen::VectorXd& w, double b) const {
    Eigen::VectorXd coefficients = Eigen::VectorXd::Zero(R_.rows());
    for (size_t k = 0; k < active.size(); ++k) coefficients += R_.col(active[k]) * (y_columns_[active[k]] * w[k]);
    return (Q_ * coefficients).array() + b;
  }

 private:
  Eigen::MatrixXd Q_, R_;
  Eigen::VectorXd y_rows_, y_columns_;
};

// When EM has converged. The reference code stops when no weight moves by
// tol or more (`weights`); on real data its weights keep drifting (basis
// functions die slowly) long after the predictions have settled, so it rarely
// stops within 500 iterations. `latent` stops when the training latent
// values f, which give every prediction (class, Psi(f), decision values),
// move by less than tol relative to their size: ||f_t - f_{t-1}||_2 <= tol
// ||f_{t-1}||_2, a test that does not depend on the scale of the kernel.
enum class Convergence { latent, weights };

struct Control {
  int max_iter = 500;   // EM iterations at most
  double tol = 1e-3;    // see Convergence
  double prune = 1e-3;  // weights below prune are dropped with their basis functions
  Convergence convergence = Convergence::latent;
  EStep e_step = EStep::exact;
  // EM stops, unconverged, once a training latent value exceeds this in
  // magnitude: a run-away whose fit the caller discards for one on a
  // narrower kernel (R's pcvm_narrower_pair()). A run-away takes thousands
  // of iterations to settle; nothing is lost by stopping it early.
  double stop_latent_beyond = std::numeric_limits<double>::infinity();
};

struct Fit {
  Eigen::VectorXd weights;  // over all basis functions, zero where pruned
  double bias = 0.0;
  int iterations = 0;
  bool converged = false;
  bool all_pruned = false;  // EM stopped: pruning removed every basis function
  bool ran_away = false;    // EM stopped at Control::stop_latent_beyond
  // per iteration, the share of training points on the wrong side (y_i f_i
  // <= 0) of the latent values its E-step started from: a run that goes wrong
  // shows as a rise (R reports it)
  std::vector<double> training_errors;
  int hessian_fallbacks = 0;  // M-steps solved by solve_hessian()'s fallback
};

// Called after each M-step, before pruning, with the active set the step ran
// on and its result (the width step of optimize_width).
using AfterStep = std::function<void(const std::vector<Eigen::Index>& active, const Step& step)>;

// The share of points with y_i f_i <= 0
inline double training_error(const Eigen::VectorXd& f, const Eigen::VectorXd& y) {
  Eigen::Index wrong = 0;
  for (Eigen::Index i = 0; i < f.size(); ++i) wrong += y[i] * f[i] <= 0.0;
  return f.size() ? static_cast<double>(wrong) / static_cast<double>(f.size()) : 0.0;
}

// EM from the start (w over all basis functions, active where positive; b;
// `latent`, when given, replaces f in the first E-step: the reference code's
// random start consistent with the labels). The start is drawn by the
// caller, so that R's RNG reproduces a fit. Each iteration takes the E-step
// here, from the training latent values f of the current weights (computed
// once per iteration: the next E-step's input is also what the `latent`
// stopping rule compares), and the M-step in the basis.
template <class Basis>
inline Fit fit(const Basis& basis, Eigen::VectorXd w, double b, const Eigen::VectorXd* latent,
               const Control& control, const AfterStep& after_step = {},
               const std::function<void()>& checkpoint = {}) {
  const Eigen::Index n_basis = basis.size();
  if (w.size() != n_basis) throw std::invalid_argument("one start weight per basis function");
  std::vector<Eigen::Index> active;
  auto active_weights = [&]() {
    active.clear();
    for (Eigen::Index j = 0; j < n_basis; ++j) {
      if (w[j] > 0) active.push_back(j);
    }
    Eigen::VectorXd values(active.size());
    for (size_t k = 0; k < active.size(); ++k) values[k] = w[active[k]];
    return values;
  };
  Eigen::VectorXd w_active = active_weights();
  Fit out;
  // the latent values the next E-step starts from
  Eigen::VectorXd f = latent ? *latent : basis.latent(active, w_active, b);
  for (int iteration = 1; iteration <= control.max_iter; ++iteration) {
    if (checkpoint) checkpoint();
    out.iterations = iteration;
    out.training_errors.push_back(training_error(f, basis.labels()));
    const Eigen::VectorXd Z = expected_latent(f, basis.labels(), control.e_step);
    const Step step = basis.step(active, w_active, b, Z);
    out.hessian_fallbacks += step.hessian_fallback;
    if (after_step) after_step(active, step);
    Pruned pruned = prune_weights(w, active, step.weights, control.prune);
    const double change = pruned.change;
    w = std::move(pruned.weights);
    b = step.bias;
    w_active = active_weights();
    if (active.empty()) {
      out.all_pruned = true;
      break;
    }
    if (control.convergence == Convergence::weights && iteration > 1 && change < control.tol) {
      out.converged = true;
      break;
    }
    // after the width step: f on the kernel of the next iteration
    Eigen::VectorXd f_next = basis.latent(active, w_active, b);
    const bool settled = control.convergence == Convergence::latent && iteration > 1 &&
                         (f_next - f).norm() <= control.tol * f.norm();
    f = std::move(f_next);
    if (settled) {
      out.converged = true;
      break;
    }
    if (f.size() && f.cwiseAbs().maxCoeff() > control.stop_latent_beyond) {
      out.ran_away = true;
      break;
    }
  }
  out.weights = std::move(w);
  out.bias = b;
  return out;
}

}  // namespace pcvm
}  // namespace krein

#endif  // KREIN_PCVM_HPP
