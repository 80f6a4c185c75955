// Glue for the dense linear algebra of inst/include/krein/symmetric_eigen.hpp.
#include <RcppEigen.h>

#include <chrono>
#include <cmath>

#include "krein/symmetric_eigen.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

// Eigenvalues in decreasing order (R's convention, as eigen()), with vectors to match.
// [[Rcpp::export]]
Rcpp::List cpp_symmetric_eigen(const Eigen::Map<Eigen::MatrixXd> a, bool vectors) {
  const krein::SymmetricEigen eig = krein::symmetric_eigen(a, vectors);
  const Eigen::VectorXd values = eig.values.reverse();
  if (!vectors) return Rcpp::List::create(Rcpp::Named("values") = values);
  const Eigen::MatrixXd vecs = eig.vectors.rowwise().reverse();
  return Rcpp::List::create(Rcpp::Named("values") = values, Rcpp::Named("vectors") = vecs);
}

// The rate (GFLOP/s) of a plain Eigen product A (k x k) times B (k x m), timed
// once: the machine's limit beside which bench/kqd.R reports krein's kernels.
// [[Rcpp::export]]
double cpp_gemm_rate(int k, int m) {
  // deterministic fill: compiled code must not use the C library's RNG
  const Eigen::MatrixXd a = Eigen::MatrixXd::NullaryExpr(
      k, k, [](Eigen::Index i, Eigen::Index j) { return std::sin(1.0 + i + 3.0 * j); });
  const Eigen::MatrixXd b = Eigen::MatrixXd::NullaryExpr(
      k, m, [](Eigen::Index i, Eigen::Index j) { return std::cos(2.0 + i + 5.0 * j); });
  Eigen::MatrixXd c(k, m);
  const auto start = std::chrono::steady_clock::now();
  c.noalias() = a * b;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return 2.0 * k * static_cast<double>(k) * m / seconds / 1e9 + 0.0 * c(0, 0);
}

// Set the number of OpenMP threads of this process (Eigen's products follow
// it); returns the previous number. tune_krein() runs each parallel worker's
// fits on one thread, so that workers do not oversubscribe the cores.
// [[Rcpp::export]]
int cpp_set_omp_threads(int threads) {
#ifdef _OPENMP
  const int previous = omp_get_max_threads();
  if (threads > 0) omp_set_num_threads(threads);
  return previous;
#else
  (void)threads;
  return 1;
#endif
}
