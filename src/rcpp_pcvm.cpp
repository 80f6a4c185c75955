// Glue for one PCVM EM iteration (inst/include/krein/pcvm.hpp); the loop,
// pruning and convergence test are in R/pcvm.R. Validation is in R.
#include <RcppEigen.h>

#include "krein/pcvm.hpp"

namespace {

std::vector<Eigen::Index> zero_based_indices(const Rcpp::IntegerVector& active) {
  std::vector<Eigen::Index> out(active.size());
  for (R_xlen_t i = 0; i < active.size(); ++i) out[i] = active[i] - 1;
  return out;
}

Rcpp::List step_list(const krein::pcvm::Step& s) {
  return Rcpp::List::create(Rcpp::Named("weights") = s.weights, Rcpp::Named("bias") = s.bias);
}

}  // namespace

// [[Rcpp::export]]
Rcpp::List cpp_pcvm_step_full(const Eigen::Map<Eigen::MatrixXd> K, const Eigen::Map<Eigen::VectorXd> y,
                              const Rcpp::IntegerVector& active, const Eigen::Map<Eigen::VectorXd> w,
                              double b, Rcpp::Nullable<Rcpp::NumericVector> latent, int threads) {
  const Eigen::VectorXd yv = y, wv = w;
  Eigen::VectorXd start;
  if (latent.isNotNull()) start = Rcpp::as<Eigen::VectorXd>(latent.get());
  return step_list(krein::pcvm::step_full(K, yv, zero_based_indices(active), wv, b,
                                          latent.isNotNull() ? &start : nullptr, threads));
}

// [[Rcpp::export]]
Rcpp::List cpp_pcvm_step_factored(const Eigen::Map<Eigen::MatrixXd> Q, const Eigen::Map<Eigen::MatrixXd> R,
                                  const Eigen::Map<Eigen::VectorXd> y_rows,
                                  const Eigen::Map<Eigen::VectorXd> y_columns, const Rcpp::IntegerVector& active,
                                  const Eigen::Map<Eigen::VectorXd> w, double b,
                                  Rcpp::Nullable<Rcpp::NumericVector> latent) {
  const Eigen::VectorXd yr = y_rows, yc = y_columns, wv = w;
  Eigen::VectorXd start;
  if (latent.isNotNull()) start = Rcpp::as<Eigen::VectorXd>(latent.get());
  return step_list(krein::pcvm::step_factored(Q, R, yr, yc, zero_based_indices(active), wv, b,
                                              latent.isNotNull() ? &start : nullptr));
}

// Thin QR of the landmark kernel columns: Q (n x m, orthonormal) and R (m x m).
// [[Rcpp::export]]
Rcpp::List cpp_thin_qr(const Eigen::Map<Eigen::MatrixXd> C) {
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(C);
  const Eigen::Index k = std::min(C.rows(), C.cols());
  const Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(C.rows(), k);
  const Eigen::MatrixXd R = qr.matrixQR().topRows(k).triangularView<Eigen::Upper>();
  return Rcpp::List::create(Rcpp::Named("Q") = Q, Rcpp::Named("R") = R);
}

// [[Rcpp::export]]
Eigen::VectorXd cpp_pcvm_expected_latent(const Eigen::Map<Eigen::VectorXd> f, const Eigen::Map<Eigen::VectorXd> y) {
  return krein::pcvm::expected_latent(f, y);
}
