// Bench utility: the rate (GFLOP/s) of a plain Eigen product A (k x k) times
// B (k x m), timed once, compiled with the package's flags (RcppEigen,
// OpenMP): the machine's limit beside which bench/kqd.R and bench/ikfd.R
// report krein's dense kernels. Loaded by bench/gemm_rate.R; not part of the
// package.
// [[Rcpp::depends(RcppEigen)]]
// [[Rcpp::plugins(openmp)]]
#include <RcppEigen.h>

#include <chrono>
#include <cmath>

// [[Rcpp::export]]
double gemm_rate(int k, int m) {
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
