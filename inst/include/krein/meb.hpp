// krein: core sets of (1 + eps)-approximate minimum enclosing balls in a kernel
// feature space, the supervised landmark selection of paper 002 (Schleif,
// Gisbrecht & Tino, Sec. 4.1 and Algorithm 1; the core-set loop of Badoiu &
// Clarkson, described in ?select_landmarks).
//
// The kernel enters only through its diagonal and the columns K[., s] of the
// core-set points, which a caller-supplied function computes on demand: one
// class of n_j points costs O(n_j |S|) kernel evaluations and O(n_j |S|^2)
// further flops, never an n_j x n_j matrix.
//
//   d2(j) = K_jj - 2 (K_jS a)_j + a' K_SS a          (distance to the centre)
//   MEB(S): max_a  a' diag(K_SS) - a' K_SS a,  a >= 0, 1'a = 1,  R^2 = optimum
//   loop:   S = {p, farthest from p}; solve MEB(S); j = argmax d2;
//           stop if d2(j) <= (1 + eps)^2 R^2, else S += j
#ifndef KREIN_MEB_HPP
#define KREIN_MEB_HPP

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <vector>

#include "krein/kernels.hpp"
#include "krein/numerics.hpp"

namespace krein {
namespace meb {

// K[., s] over the class's points for the class point s.
using ColumnFunction = std::function<Eigen::VectorXd(Eigen::Index)>;

struct Result {
  std::vector<Eigen::Index> core;  // core-set points, in the order they were added
  Eigen::VectorXd weights;         // centre weights a over `core` (simplex)
  double radius2 = 0.0;            // R^2 of MEB(core)
  double farthest2 = 0.0;          // max_j d2(j) at the end: <= (1 + eps)^2 R^2 when converged
  int iterations = 0;              // core-set additions
  int smo_iterations = 0;          // pairwise steps in total
  bool converged = false;          // false: stopped at max_core
};

// MEB of a small set by pairwise SMO on the simplex (notes section 4), warm
// started from `a`. Q is |S| x |S|, `diag` its diagonal. Returns the steps taken.
inline int solve_small_meb(const Eigen::MatrixXd& Q, Eigen::VectorXd& a, double tol,
                           int max_steps) {
  const Eigen::Index k = Q.rows();
  const Eigen::VectorXd diag = Q.diagonal();
  // gradient of the dual objective a'diag - a'Qa
  Eigen::VectorXd g = diag - 2.0 * (Q * a);
  int steps = 0;
  for (; steps < max_steps; ++steps) {
    Eigen::Index up = 0, down = -1;
    for (Eigen::Index i = 1; i < k; ++i) {
      if (g[i] > g[up]) up = i;
    }
    for (Eigen::Index i = 0; i < k; ++i) {
      if (a[i] > 0.0 && (down < 0 || g[i] < g[down])) down = i;
    }
    if (down < 0 || up == down || g[up] - g[down] < tol) break;
    const double eta = Q(up, up) + Q(down, down) - 2.0 * Q(up, down);
    // Maximising along a_up += t, a_down -= t: the objective gains
    // t (g_up - g_down) - t^2 eta, so the step is (g_up - g_down) / (2 eta),
    // clipped to what a_down holds (all of it when eta <= 0).
    double t = eta > 0.0 ? (g[up] - g[down]) / (2.0 * eta) : a[down];
    t = std::min(t, a[down]);
    a[up] += t;
    a[down] -= t;
    if (a[down] < 1e-300) a[down] = 0.0;
    g.noalias() -= 2.0 * t * (Q.col(up) - Q.col(down));
  }
  return steps;
}

// `diag` holds K_jj for the n_j points of the class; `column(s)` returns K[., s].
// `start` is the first point (chosen by the caller's RNG). `max_core` bounds
// the core set (a safeguard: the loop needs O(1/eps) additions).
inline Result core_set(const Eigen::VectorXd& diag, const ColumnFunction& column,
                       Eigen::Index start, double eps, Eigen::Index max_core,
                       const std::function<void()>& checkpoint = {}) {
  const Eigen::Index n = diag.size();
  if (n < 1) throw std::invalid_argument("a class needs at least one point");
  if (start < 0 || start >= n) throw std::invalid_argument("start point out of range");
  if (!(eps > 0.0)) throw std::invalid_argument("eps must be positive");
  Result out;
  const double scale = std::max(diag.cwiseAbs().maxCoeff(), 1e-300);
  const double tol = 1e-12 * scale;

  // Columns of the core set, kept as an n x capacity matrix grown by doubling.
  Eigen::MatrixXd columns(n, std::min<Eigen::Index>(std::max<Eigen::Index>(max_core, 2), 16));
  Eigen::Index size = 0;
  auto add = [&](Eigen::Index s) {
    if (size == columns.cols()) columns.conservativeResize(Eigen::NoChange, 2 * size);
    columns.col(size++) = column(s);
    out.core.push_back(s);
  };

  // S = {start, farthest from start}
  add(start);
  Eigen::VectorXd d2 = diag.array() - 2.0 * columns.col(0).array() + diag[start];
  Eigen::Index farthest = 0;
  d2.maxCoeff(&farthest);
  if (n == 1 || d2[farthest] <= tol) {  // one point, or all points coincide
    out.weights = Eigen::VectorXd::Ones(1);
    out.converged = true;
    return out;
  }
  add(farthest);
  Eigen::VectorXd a = Eigen::VectorXd::Constant(2, 0.5);

  const double bound = (1.0 + eps) * (1.0 + eps);
  for (;;) {
    if (checkpoint) checkpoint();
    // Q = K_SS from the stored columns
    Eigen::MatrixXd Q(size, size);
    for (Eigen::Index i = 0; i < size; ++i) {
      for (Eigen::Index j = 0; j < size; ++j) Q(i, j) = columns(out.core[i], j);
    }
    Q = 0.5 * (Q + Q.transpose()).eval();
    out.smo_iterations += solve_small_meb(Q, a, tol, 100000);
    const double aQa = a.dot(Q * a);
    out.radius2 = a.dot(Q.diagonal()) - aQa;
    d2 = diag - 2.0 * (columns.leftCols(size) * a);
    d2.array() += aQa;
    out.farthest2 = d2.maxCoeff(&farthest);
    if (out.farthest2 <= bound * out.radius2 + tol) {
      out.converged = true;
      break;
    }
    if (size >= max_core) break;
    // A point already in S cannot be outside the ball by more than the SMO
    // tolerance; guard against a loop anyway.
    if (std::find(out.core.begin(), out.core.end(), farthest) != out.core.end()) {
      out.converged = true;
      break;
    }
    add(farthest);
    a.conservativeResize(size);
    a[size - 1] = 0.0;
    ++out.iterations;
  }
  out.weights = a;
  return out;
}

// The core set of a class under a built-in kernel, whose columns are
// evaluated on demand: X holds the class's points (and X_tau their images
// tau(x) for the invariant kernel, else nullptr).
inline Result kernel_core_set(const KernelSpec& spec, const MatrixRef& X, const MatrixRef* X_tau,
                              Eigen::Index start, double eps, Eigen::Index max_core, int threads,
                              const std::function<void()>& checkpoint = {}) {
  const ColumnFunction column = [&](Eigen::Index s) {
    Eigen::VectorXd out(X.rows());
    Eigen::Map<Eigen::MatrixXd> out_map(out.data(), X.rows(), 1);
    const Eigen::MatrixXd point = X.row(s);
    if (X_tau != nullptr) {
      const Eigen::MatrixXd image = X_tau->row(s);
      const MatrixRef image_ref(image);
      kernel_matrix(spec, X, point, &image_ref, out_map, false, threads);
    } else {
      kernel_matrix(spec, X, point, nullptr, out_map, false, threads);
    }
    return out;
  };
  return core_set(kernel_diagonal(spec, X, X_tau), column, start, eps, max_core, checkpoint);
}

enum class Definiteness { unknown, psd, indefinite };

struct BlockResult {
  Result ball;
  bool squared = false;  // the ball is that of K K' (the block is not psd)
};

// The core set of a class whose kernel block K is held whole. A block that is
// not positive semidefinite (known, or by the Cholesky test of numerics.hpp)
// gives no ball in a feature space; as paper 002 does (Algorithm 1, step 4),
// the ball is then that of the psd K K' (same eigenvectors, squared
// eigenvalues), whose columns K K[., s] cost O(n^2) each.
inline BlockResult block_core_set(const Eigen::Ref<const Eigen::MatrixXd>& K, Definiteness known,
                                  Eigen::Index start, double eps, Eigen::Index max_core,
                                  const std::function<void()>& checkpoint = {}) {
  const Eigen::Index n = K.rows();
  if (K.cols() != n) throw std::invalid_argument("a class kernel block must be square");
  BlockResult out;
  out.squared = known == Definiteness::indefinite ||
                (known == Definiteness::unknown && !numerics::is_psd(K, numerics::psd_block_jitter));
  if (!out.squared) {
    out.ball = core_set(K.diagonal(), [&K](Eigen::Index s) { return Eigen::VectorXd(K.col(s)); }, start, eps,
                        max_core, checkpoint);
    return out;
  }
  // diag(K K') = the columns' squared norms, summed in extended precision (as
  // R's colSums, which computed it before)
  Eigen::VectorXd diag(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    long double sum = 0.0L;
    for (Eigen::Index i = 0; i < n; ++i) sum += K(i, j) * K(i, j);
    diag[j] = static_cast<double>(sum);
  }
  const ColumnFunction column = [&K, n](Eigen::Index s) {
    // K K[., s] = sum_j K[., j] K[j, s], column by column
    Eigen::VectorXd out = Eigen::VectorXd::Zero(n);
    for (Eigen::Index j = 0; j < n; ++j) {
      const double weight = K(j, s);
      const double* kj = K.col(j).data();
      for (Eigen::Index i = 0; i < n; ++i) out[i] += kj[i] * weight;
    }
    return out;
  };
  out.ball = core_set(diag, column, start, eps, max_core, checkpoint);
  return out;
}

}  // namespace meb
}  // namespace krein

#endif  // KREIN_MEB_HPP
