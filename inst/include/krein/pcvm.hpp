// krein: one EM iteration of the probabilistic classification vector machine
// (PCVM; Chen, Tino & Yao 2009, reviewed in paper 002, Schleif, Gisbrecht &
// Tino, Sec. 2.4, eqs. 4-7), with the order and constants of the authors'
// reference code (see ?pcvm, section "Model and EM"), for a full kernel and
// for Ny-PCVM (paper 002 Sec. 5.1) on the
// basis functions of the landmarks (see step_factored and ?pcvm for why not
// all n basis functions of the approximated kernel).
//
// Labels y in {-1, +1}; weights w >= 0 on the active basis functions
// phi_j(x) = k(x, x_j) y_j; f(x) = sum_j phi_j(x) w_j + b; p(+1 | x) = Psi(f(x)).
//   E:  Z_i = f_i + y_i phi(f_i) / Psi(y_i f_i)
//   w:  M = sqrt(2) diag(w_old),  Hess = I + M Phi'Phi M,
//       w = M Hess^{-1} M Phi'(Z - b_old 1)
//   b:  b = sum(Z - Phi w) / (n + 1 / (2 b_old^2))
//   prune w_j < prune
#ifndef KREIN_PCVM_HPP
#define KREIN_PCVM_HPP

#include <Eigen/Dense>

#include <cmath>
#include <stdexcept>
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
  return out;
}

}  // namespace pcvm
}  // namespace krein

#endif  // KREIN_PCVM_HPP
