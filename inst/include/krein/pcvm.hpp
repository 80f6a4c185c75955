// krein: EM for the probabilistic classification vector machine (PCVM; Chen,
// Tino & Yao 2009, reviewed in paper 002, Schleif, Gisbrecht & Tino, Sec. 2.4,
// eqs. 4-7), with the order and constants of the authors' reference code (see
// ?pcvm, section "Model and EM"), for a full kernel and for Ny-PCVM (paper
// 002 Sec. 5.1) on the basis functions of the landmarks (see step_factored
// and ?pcvm for why not all n basis functions of the approximated kernel).
//
// Labels y in {-1, +1}; weights w >= 0 on the active basis functions
// phi_j(x) = k(x, x_j) y_j; f(x) = sum_j phi_j(x) w_j + b; p(+1 | x) = Psi(f(x)).
//   E:  Z_i = f_i + y_i phi(f_i) / Psi(y_i f_i)
//   w:  M = sqrt(2) diag(w_old),  Hess = I + M Phi'Phi M,
//       w = M Hess^{-1} M Phi'(Z - b_old 1)
//   b:  b = sum(Z - Phi w) / (n + 1 / (2 b_old^2))
//   prune w_j < prune
// EM stops (Control::convergence) when the training latent values f have
// settled (krein's default) or, as in the reference code, when no weight
// moves by tol or more.
// The full PCVM takes Phi_A'Phi_A from G = K'K, formed once (step_gram):
// the first iteration, with every basis function active, needs all of G
// anyway, and the later ones then cost O(|A|^3 + n |A|) instead of
// O(n |A|^2).
#ifndef KREIN_PCVM_HPP
#define KREIN_PCVM_HPP

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "krein/parallel_dense.hpp"

namespace krein {
namespace pcvm {

// phi(t) / Psi(t), the inverse Mills ratio, accurate for every t: directly
// for t >= -5, and for t < -5 (where both factors underflow together) through
// Laplace's continued fraction of the Mills ratio Psi(-x) / phi(x) =
// 1 / (x + 1 / (x + 2 / (x + 3 / (x + ...)))), x = -t.
inline double inverse_mills(double t) {
  if (t >= -5.0) {
    const double pdf = std::exp(-0.5 * t * t) / std::sqrt(2.0 * M_PI);
    const double cdf = 0.5 * std::erfc(-t / std::sqrt(2.0));
    return pdf / cdf;
  }
  const double x = -t;
  double tail = x;
  for (int k = 200; k >= 1; --k) tail = x + k / tail;
  return tail;  // 1 / Mills ratio
}

// The expected latent values of the E-step.
inline Eigen::VectorXd expected_latent(const Eigen::VectorXd& f, const Eigen::VectorXd& y) {
  Eigen::VectorXd Z(f.size());
  for (Eigen::Index i = 0; i < f.size(); ++i) Z[i] = f[i] + y[i] * inverse_mills(y[i] * f[i]);
  return Z;
}

struct Step {
  Eigen::VectorXd weights;  // new weights of the active set (before pruning)
  double bias = 0.0;
  Eigen::VectorXd latent;   // Z, the E-step's expected latent values
};

// One EM iteration with the full kernel. `latent` replaces f in the E-step
// when given (the reference code's random start consistent with y). Phi_A'
// = diag(y_A) K[A, ] is formed once, as the a x n matrix the tiled rank-k
// update takes.
inline Step step_full(const Eigen::Ref<const Eigen::MatrixXd>& K, const Eigen::VectorXd& y,
                      const std::vector<Eigen::Index>& active, const Eigen::VectorXd& w, double b,
                      const Eigen::VectorXd* latent, int threads) {
  const Eigen::Index n = K.rows(), a = static_cast<Eigen::Index>(active.size());
  Eigen::MatrixXd PhiT(a, n);
  for (Eigen::Index j = 0; j < a; ++j) PhiT.row(j) = K.col(active[j]).transpose() * y[active[j]];
  const Eigen::VectorXd f = latent ? *latent : (PhiT.transpose() * w).array() + b;
  const Eigen::VectorXd Z = expected_latent(f, y);
  const Eigen::VectorXd m = std::sqrt(2.0) * w;
  // Hess = I + M Phi'Phi M (lower triangle), positive definite for any kernel
  Eigen::MatrixXd Hess = Eigen::MatrixXd::Zero(a, a);
  dense::rank_update(Hess, PhiT, 1.0, threads);
  for (Eigen::Index j = 0; j < a; ++j) {
    Hess.col(j).tail(a - j) = Hess.col(j).tail(a - j).cwiseProduct(m.tail(a - j)) * m[j];
    Hess(j, j) += 1.0;
  }
  if (!dense::cholesky(Hess, threads)) throw std::runtime_error("the PCVM Hessian is not positive definite");
  const Eigen::VectorXd rhs = m.cwiseProduct(PhiT * (Z.array() - b).matrix());
  Step out;
  out.weights = m.cwiseProduct(dense::cholesky_solve(Hess, rhs));
  const double fitted_sum = PhiT.rowwise().sum().dot(out.weights);
  out.bias = (Z.sum() - fitted_sum) / (static_cast<double>(n) + 1.0 / (2.0 * b * b));
  out.latent = Z;
  return out;
}

// One EM iteration of Ny-PCVM: the basis functions are the landmarks', whose
// kernel columns the Nystroem approximation reproduces exactly
// (K_hat[, L] = K_nm W^+ W = K_nm), so Phi_A = K_nm[, A] diag(y_A). With the
// thin QR K_nm = Q R computed once (Q orthonormal, n x m; R, m x m, one
// column per landmark) and D = diag(y_A):
//   Phi_A w = Q (R_A D w),  Phi_A'Phi_A = D R_A'R_A D,  Phi_A'v = D R_A' (Q'v)
// so an iteration costs O(n m + m |A|^2) and no n x |A| matrix is formed.
// `y_rows` labels the training points, `y_columns` the landmarks.
inline Step step_factored(const Eigen::Ref<const Eigen::MatrixXd>& Q, const Eigen::Ref<const Eigen::MatrixXd>& R,
                          const Eigen::VectorXd& y_rows, const Eigen::VectorXd& y_columns,
                          const std::vector<Eigen::Index>& active, const Eigen::VectorXd& w, double b,
                          const Eigen::VectorXd* latent) {
  const Eigen::Index n = Q.rows(), k = R.rows(), a = static_cast<Eigen::Index>(active.size());
  Eigen::MatrixXd RA(k, a);  // R_A D
  for (Eigen::Index j = 0; j < a; ++j) RA.col(j) = R.col(active[j]) * y_columns[active[j]];
  const Eigen::VectorXd f = latent ? *latent : (Q * (RA * w)).array() + b;
  const Eigen::VectorXd Z = expected_latent(f, y_rows);
  const Eigen::VectorXd m = std::sqrt(2.0) * w;
  const Eigen::MatrixXd RAM = RA * m.asDiagonal();
  Eigen::MatrixXd Hess = Eigen::MatrixXd::Identity(a, a);
  Hess.selfadjointView<Eigen::Lower>().rankUpdate(RAM.transpose());
  const Eigen::LLT<Eigen::MatrixXd> llt(Hess);
  if (llt.info() != Eigen::Success) throw std::runtime_error("the PCVM Hessian is not positive definite");
  const Eigen::VectorXd projected = Q.transpose() * (Z.array() - b).matrix();
  const Eigen::VectorXd rhs = RAM.transpose() * projected;  // M Phi_A'(Z - b 1)
  Step out;
  out.weights = m.cwiseProduct(llt.solve(rhs));
  const double fitted_sum = Q.colwise().sum().dot(RA * out.weights);
  out.bias = (Z.sum() - fitted_sum) / (static_cast<double>(n) + 1.0 / (2.0 * b * b));
  out.latent = Z;
  return out;
}

// The full PCVM's M-step from the Gram matrix G = K'K, formed once (the
// fast path of FullBasis). With D = diag(y_A), Phi_A'Phi_A = D G[A, A] D,
// so an iteration gathers the active submatrix of G, O(|A|^2), where
// step_full forms it by a rank-|A| update over all n rows, O(n |A|^2): the
// iterates are the same up to rounding (the sums run in another order).
// Forming G costs what the first iteration of step_full costs (all n basis
// functions start active), the later ones come almost free; what remains
// per iteration is the Cholesky factorisation of the active Hessian
// (O(|A|^3), new in every iteration, as M changes every entry of it) and
// O(n |A|) for f and Phi_A'(Z - b 1). `column_sums` are 1'K.
inline Step step_gram(const Eigen::Ref<const Eigen::MatrixXd>& K, const Eigen::MatrixXd& G,
                      const Eigen::VectorXd& column_sums, const Eigen::VectorXd& y,
                      const std::vector<Eigen::Index>& active, const Eigen::VectorXd& w, double b,
                      const Eigen::VectorXd* latent, int threads) {
  const Eigen::Index n = K.rows(), a = static_cast<Eigen::Index>(active.size());
  // f = Phi_A w + b: the coefficients y_j w_j on K's active columns
  Eigen::VectorXd f;
  if (latent) {
    f = *latent;
  } else {
    f = Eigen::VectorXd::Constant(n, b);
    for (Eigen::Index j = 0; j < a; ++j) f += K.col(active[j]) * (y[active[j]] * w[j]);
  }
  const Eigen::VectorXd Z = expected_latent(f, y);
  const Eigen::VectorXd m = std::sqrt(2.0) * w;
  // below two tiles the factorisation is one or a few tiles: threads would
  // only add their start-up (and, on a busy machine, waits for a descheduled one)
  const int workers = a >= 2 * dense::tile_size ? threads : 1;
  // Hess = I + M D G[A, A] D M (lower triangle)
  Eigen::MatrixXd Hess(a, a);
  parallel::parallel_for(0, a, workers, parallel::Schedule::dynamic(), [&](Eigen::Index j) {
    const Eigen::Index cj = active[j];
    const double scale = m[j] * y[cj];
    for (Eigen::Index i = j; i < a; ++i) Hess(i, j) = G(active[i], cj) * (y[active[i]] * m[i] * scale);
    Hess(j, j) += 1.0;
  });
  if (!dense::cholesky(Hess, workers)) throw std::runtime_error("the PCVM Hessian is not positive definite");
  const Eigen::VectorXd residual = (Z.array() - b).matrix();
  Eigen::VectorXd rhs(a);  // M Phi_A'(Z - b 1)
  parallel::parallel_for(0, a, workers, parallel::Schedule::blocks(), [&](Eigen::Index j) {
    rhs[j] = m[j] * y[active[j]] * K.col(active[j]).dot(residual);
  });
  Step out;
  out.weights = m.cwiseProduct(dense::cholesky_solve(Hess, rhs));
  double fitted_sum = 0.0;  // 1'Phi_A w
  for (Eigen::Index j = 0; j < a; ++j) fitted_sum += column_sums[active[j]] * y[active[j]] * out.weights[j];
  out.bias = (Z.sum() - fitted_sum) / (static_cast<double>(n) + 1.0 / (2.0 * b * b));
  out.latent = Z;
  return out;
}

// G = K'K (lower triangle), in square tiles that threads work on at once;
// each tile is one Eigen product of two column blocks of K (no transposed
// copy of K).
inline Eigen::MatrixXd gram_lower(const Eigen::Ref<const Eigen::MatrixXd>& K, int threads) {
  const Eigen::Index n = K.cols();
  Eigen::MatrixXd G(n, n);
  const Eigen::Index tiles = (n + dense::tile_size - 1) / dense::tile_size;
  const auto jobs = dense::lower_tiles(tiles, 0);
  parallel::parallel_for(0, static_cast<Eigen::Index>(jobs.size()), threads, parallel::Schedule::dynamic(),
                         [&](Eigen::Index t) {
    const Eigen::Index i0 = jobs[t].first * dense::tile_size, j0 = jobs[t].second * dense::tile_size;
    const Eigen::Index rows = std::min(dense::tile_size, n - i0), cols = std::min(dense::tile_size, n - j0);
    G.block(i0, j0, rows, cols).noalias() = K.middleCols(i0, rows).transpose() * K.middleCols(j0, cols);
  });
  return G;
}

// The basis of the full PCVM: the pair's kernel, its labels on both sides.
// With `gram`, the M-step takes the active submatrix of G = K'K, formed in
// the first step (step_gram); without it, every step forms Phi_A'Phi_A anew
// (step_full: krein's path before G, kept for comparison). The width step
// of pcvm_control(optimize_width = TRUE) may replace the kernel between
// iterations; the new kernel's steps run on step_full, as forming its G
// would cost as much as the step itself.
class FullBasis {
 public:
  FullBasis(const Eigen::Ref<const Eigen::MatrixXd>& K, Eigen::VectorXd y, int threads, bool gram = true)
      : borrowed_(K), y_(std::move(y)), threads_(threads), gram_(gram) {
    if (K.rows() != K.cols() || K.rows() != y_.size()) throw std::invalid_argument("K must be n x n with one label per row");
  }
  Eigen::Index size() const { return y_.size(); }
  void replace_kernel(Eigen::MatrixXd K) {
    if (K.rows() != size() || K.cols() != size()) throw std::invalid_argument("the new kernel has the wrong size");
    owned_ = std::move(K);
    replaced_ = true;
    G_.resize(0, 0);  // the old kernel's: free it
  }
  Step step(const std::vector<Eigen::Index>& active, const Eigen::VectorXd& w, double b,
            const Eigen::VectorXd* latent) const {
    if (replaced_) return step_full(owned_, y_, active, w, b, latent, threads_);
    if (!gram_) return step_full(borrowed_, y_, active, w, b, latent, threads_);
    if (G_.size() == 0) {
      G_ = gram_lower(borrowed_, threads_);
      column_sums_ = borrowed_.colwise().sum().transpose();
    }
    return step_gram(borrowed_, G_, column_sums_, y_, active, w, b, latent, threads_);
  }
  // f = K[, A] diag(y_A) w + b on the training points, O(n |A|)
  Eigen::VectorXd latent(const std::vector<Eigen::Index>& active, const Eigen::VectorXd& w, double b) const {
    const Eigen::Ref<const Eigen::MatrixXd>& K = replaced_ ? Eigen::Ref<const Eigen::MatrixXd>(owned_) : borrowed_;
    Eigen::VectorXd f = Eigen::VectorXd::Constant(size(), b);
    for (size_t k = 0; k < active.size(); ++k) f += K.col(active[k]) * (y_[active[k]] * w[k]);
    return f;
  }

 private:
  Eigen::Ref<const Eigen::MatrixXd> borrowed_;
  Eigen::MatrixXd owned_;
  bool replaced_ = false;
  Eigen::VectorXd y_;
  int threads_;
  bool gram_;
  // G = K'K (lower triangle) and 1'K of the borrowed kernel, formed in the
  // first step that needs them
  mutable Eigen::MatrixXd G_;
  mutable Eigen::VectorXd column_sums_;
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
  Step step(const std::vector<Eigen::Index>& active, const Eigen::VectorXd& w, double b,
            const Eigen::VectorXd* latent) const {
    return step_factored(Q_, R_, y_rows_, y_columns_, active, w, b, latent);
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
};

struct Fit {
  Eigen::VectorXd weights;  // over all basis functions, zero where pruned
  double bias = 0.0;
  int iterations = 0;
  bool converged = false;
  bool all_pruned = false;  // EM stopped: pruning removed every basis function
};

// Called after each M-step, before pruning, with the active set the step ran
// on and its result (the width step of optimize_width).
using AfterStep = std::function<void(const std::vector<Eigen::Index>& active, const Step& step)>;

// EM from the start (w over all basis functions, active where positive; b;
// `latent`, when given, replaces f in the first E-step: the reference code's
// random start consistent with the labels). The start is drawn by the
// caller, so that R's RNG reproduces a fit.
template <class Basis>
inline Fit fit(const Basis& basis, Eigen::VectorXd w, double b, const Eigen::VectorXd* latent,
               const Control& control, const AfterStep& after_step = {},
               const std::function<void()>& checkpoint = {}) {
  const Eigen::Index n_basis = basis.size();
  if (w.size() != n_basis) throw std::invalid_argument("one start weight per basis function");
  std::vector<Eigen::Index> active;
  for (Eigen::Index j = 0; j < n_basis; ++j) {
    if (w[j] > 0) active.push_back(j);
  }
  Fit out;
  Eigen::VectorXd f_previous;  // the training latent values of the last iterate (latent rule)
  for (int iteration = 1; iteration <= control.max_iter; ++iteration) {
    if (checkpoint) checkpoint();
    out.iterations = iteration;
    Eigen::VectorXd w_active(active.size());
    for (size_t k = 0; k < active.size(); ++k) w_active[k] = w[active[k]];
    const Step step = basis.step(active, w_active, b, iteration == 1 ? latent : nullptr);
    if (after_step) after_step(active, step);
    Eigen::VectorXd w_new = Eigen::VectorXd::Zero(n_basis);
    for (size_t k = 0; k < active.size(); ++k) {
      const double value = step.weights[k];
      w_new[active[k]] = value < control.prune ? 0.0 : value;
    }
    const double change = (w_new - w).cwiseAbs().maxCoeff();
    w = std::move(w_new);
    b = step.bias;
    active.clear();
    for (Eigen::Index j = 0; j < n_basis; ++j) {
      if (w[j] > 0) active.push_back(j);
    }
    if (active.empty()) {
      out.all_pruned = true;
      break;
    }
    if (control.convergence == Convergence::weights) {
      if (iteration > 1 && change < control.tol) {
        out.converged = true;
        break;
      }
      continue;
    }
    // after the width step: f on the kernel of the next iteration
    Eigen::VectorXd w_active_new(active.size());
    for (size_t k = 0; k < active.size(); ++k) w_active_new[k] = w[active[k]];
    Eigen::VectorXd f = basis.latent(active, w_active_new, b);
    const bool settled = iteration > 1 && (f - f_previous).norm() <= control.tol * f_previous.norm();
    f_previous = std::move(f);
    if (settled) {
      out.converged = true;
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
