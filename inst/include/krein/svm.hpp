// krein: the two-class C-SVM dual on a precomputed kernel matrix, by
// sequential minimal optimisation with the second-order working set
// selection of Fan, Chen and Lin (2005, "Working set selection using second
// order information for training support vector machines", JMLR 6,
// 1889-1918, WSS 2 and its treatment of non-positive curvature), as libsvm
// solves C-SVC without shrinking.
//
// The problem: min_a 1/2 a'Qa - 1'a subject to 0 <= a_i <= C and y'a = 0,
// with Q_ij = y_i y_j K_ij and labels y_i = +1 / -1; the decision value
// f(x) = sum_i a_i y_i k(x_i, x) - rho. It stops when the maximal violation
// of the KKT conditions, m(a) - M(a), is below `eps` (libsvm's and
// kernlab's default 1e-3).
//
// Why krein solves it: choosing C by cross-validation takes twenty fits and
// more on small data, where kernlab's ksvm() spends most of a fit building
// its S4 objects (about 4 ms a call against well under a millisecond for
// the optimisation of a hundred points). The cross-validations of isvm()
// and krein_svm() use this solver; their final fits remain kernlab's.

#ifndef KREIN_SVM_HPP
#define KREIN_SVM_HPP

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace krein {
namespace svm {

struct BinaryFit {
  Eigen::VectorXd alpha;  // the dual variables a
  double rho = 0.0;       // f(x) = sum_i a_i y_i k(x_i, x) - rho
  long iterations = 0;
  bool converged = false;
};

// Solves the dual for the kernel K (n x n; indefinite kernels are allowed:
// a pair of non-positive curvature takes libsvm's tau, so every step still
// decreases the objective), labels y (+1 / -1) and cost C.
inline BinaryFit solve_binary(const Eigen::Ref<const Eigen::MatrixXd>& K, const Eigen::VectorXd& y, double C,
                              double eps = 1e-3, long max_iterations = -1) {
  const Eigen::Index n = K.rows();
  if (K.cols() != n || y.size() != n) throw std::invalid_argument("K must be n x n with one label per row");
  if (!(C > 0.0)) throw std::invalid_argument("C must be positive");
  const double tau = 1e-12;
  if (max_iterations < 0) max_iterations = std::max<long>(10000000L, 100L * static_cast<long>(n));
  BinaryFit out;
  out.alpha = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd& a = out.alpha;
  Eigen::VectorXd G = Eigen::VectorXd::Constant(n, -1.0);  // the gradient Qa - 1
  const double inf = std::numeric_limits<double>::infinity();
  auto upper = [&](Eigen::Index t) { return a[t] >= C; };
  auto lower = [&](Eigen::Index t) { return a[t] <= 0.0; };
  for (out.iterations = 0; out.iterations < max_iterations; ++out.iterations) {
    // i: the most violating index of I_up (largest -y_t G_t)
    double g_max = -inf;
    Eigen::Index i = -1;
    for (Eigen::Index t = 0; t < n; ++t) {
      if (y[t] > 0 ? !upper(t) : !lower(t)) {
        const double v = -y[t] * G[t];
        if (v >= g_max) {
          g_max = v;
          i = t;
        }
      }
    }
    // j: of I_low, the one whose pair with i decreases the objective most
    // (second-order), and the violation's other end
    double g_max2 = -inf, objective_min = inf;
    Eigen::Index j = -1;
    for (Eigen::Index t = 0; t < n; ++t) {
      if (y[t] > 0 ? lower(t) : upper(t)) continue;
      const double v = y[t] * G[t];
      if (v >= g_max2) g_max2 = v;
      if (i < 0) continue;
      const double gap = g_max + v;
      if (gap > 0.0) {
        // Q_ii + Q_tt - 2 y_i y_t Q_it = K_ii + K_tt - 2 K_it
        double curvature = K(i, i) + K(t, t) - 2.0 * K(i, t);
        if (curvature <= 0.0) curvature = tau;
        const double objective = -gap * gap / curvature;
        if (objective <= objective_min) {
          objective_min = objective;
          j = t;
        }
      }
    }
    if (i < 0 || j < 0 || g_max + g_max2 < eps) {
      out.converged = true;
      break;
    }
    // the two-variable subproblem (libsvm's Solver::Solve, C_i = C_j = C)
    const double old_i = a[i], old_j = a[j];
    const double Q_ij = y[i] * y[j] * K(i, j);
    if (y[i] != y[j]) {
      double curvature = K(i, i) + K(j, j) + 2.0 * Q_ij;
      if (curvature <= 0.0) curvature = tau;
      const double delta = (-G[i] - G[j]) / curvature;
      const double diff = a[i] - a[j];
      a[i] += delta;
      a[j] += delta;
      if (diff > 0.0) {
        if (a[j] < 0.0) {
          a[j] = 0.0;
          a[i] = diff;
        }
      } else if (a[i] < 0.0) {
        a[i] = 0.0;
        a[j] = -diff;
      }
      if (diff > 0.0) {
        if (a[i] > C) {
          a[i] = C;
          a[j] = C - diff;
        }
      } else if (a[j] > C) {
        a[j] = C;
        a[i] = C + diff;
      }
    } else {
      double curvature = K(i, i) + K(j, j) - 2.0 * Q_ij;
      if (curvature <= 0.0) curvature = tau;
      const double delta = (G[i] - G[j]) / curvature;
      const double sum = a[i] + a[j];
      a[i] -= delta;
      a[j] += delta;
      if (sum > C) {
        if (a[i] > C) {
          a[i] = C;
          a[j] = sum - C;
        }
      } else if (a[j] < 0.0) {
        a[j] = 0.0;
        a[i] = sum;
      }
      if (sum > C) {
        if (a[j] > C) {
          a[j] = C;
          a[i] = sum - C;
        }
      } else if (a[i] < 0.0) {
        a[i] = 0.0;
        a[j] = sum;
      }
    }
    const double change_i = (a[i] - old_i) * y[i], change_j = (a[j] - old_j) * y[j];
    // G_k += Q_ki da_i + Q_kj da_j, Q_kt = y_k y_t K_kt
    for (Eigen::Index k = 0; k < n; ++k) G[k] += y[k] * (K(k, i) * change_i + K(k, j) * change_j);
  }
  // rho: the mean of y_t G_t over the free variables, else the middle of
  // the interval the bounded ones leave (libsvm's calculate_rho)
  double upper_bound = inf, lower_bound = -inf, free_sum = 0.0;
  long free = 0;
  for (Eigen::Index t = 0; t < n; ++t) {
    const double v = y[t] * G[t];
    if (upper(t)) {
      if (y[t] < 0) upper_bound = std::min(upper_bound, v); else lower_bound = std::max(lower_bound, v);
    } else if (lower(t)) {
      if (y[t] > 0) upper_bound = std::min(upper_bound, v); else lower_bound = std::max(lower_bound, v);
    } else {
      ++free;
      free_sum += v;
    }
  }
  out.rho = free > 0 ? free_sum / static_cast<double>(free) : (upper_bound + lower_bound) / 2.0;
  return out;
}

// The held-out decision values of one-vs-one two-class SVMs for each cost
// of `costs`: the SVMs are fitted on the training kernel K (n x n) of points
// whose classes are `codes` (0, ..., n_classes - 1), one per pair of classes
// (i, j), i < j, in kernlab's order, on the pair's points (in their order in
// K) labelled +1 for class j and -1 for class i; K_new (n_new x n) holds the
// held-out points' kernel rows. Column c * n_pairs + p of the result is the
// pair p's f(x) = sum_t a_t y_t k(x_t, x) - rho at cost c (f > 0 favours
// class j). One call serves a fold of a cost's cross-validation: the pairs'
// kernels are gathered once for all costs.
inline Eigen::MatrixXd one_vs_one_decisions(const Eigen::Ref<const Eigen::MatrixXd>& K,
                                            const Eigen::Ref<const Eigen::VectorXi>& codes, int n_classes,
                                            const Eigen::Ref<const Eigen::VectorXd>& costs,
                                            const Eigen::Ref<const Eigen::MatrixXd>& K_new, double eps = 1e-3) {
  const Eigen::Index n = K.rows();
  if (K.cols() != n || codes.size() != n || K_new.cols() != n) {
    throw std::invalid_argument("K must be n x n, with one class code per row and n columns of K_new");
  }
  if (n_classes < 2) throw std::invalid_argument("one-vs-one SVMs need two classes");
  for (Eigen::Index t = 0; t < n; ++t) {
    if (codes[t] < 0 || codes[t] >= n_classes) throw std::invalid_argument("class codes must be 0, ..., n_classes - 1");
  }
  const Eigen::Index n_pairs = static_cast<Eigen::Index>(n_classes) * (n_classes - 1) / 2;
  Eigen::MatrixXd out(K_new.rows(), n_pairs * costs.size());
  Eigen::Index pair = 0;
  for (int first = 0; first < n_classes - 1; ++first) {
    for (int second = first + 1; second < n_classes; ++second, ++pair) {
      std::vector<Eigen::Index> members;
      for (Eigen::Index t = 0; t < n; ++t) {
        if (codes[t] == first || codes[t] == second) members.push_back(t);
      }
      const Eigen::Index m = static_cast<Eigen::Index>(members.size());
      Eigen::MatrixXd K_pair(m, m), K_new_pair(K_new.rows(), m);
      Eigen::VectorXd y(m);
      for (Eigen::Index b = 0; b < m; ++b) {
        y[b] = codes[members[b]] == second ? 1.0 : -1.0;
        K_new_pair.col(b) = K_new.col(members[b]);
        for (Eigen::Index a = 0; a < m; ++a) K_pair(a, b) = K(members[a], members[b]);
      }
      for (Eigen::Index c = 0; c < costs.size(); ++c) {
        const BinaryFit fit = solve_binary(K_pair, y, costs[c], eps);
        out.col(c * n_pairs + pair) =
            (K_new_pair * fit.alpha.cwiseProduct(y)).array() - fit.rho;
      }
    }
  }
  return out;
}

}  // namespace svm
}  // namespace krein

#endif  // KREIN_SVM_HPP
