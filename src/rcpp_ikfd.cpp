// Glue for the iKFD core (inst/include/krein/ikfd.hpp). Validation is in R.
#include "glue.h"
#include "krein/ikfd.hpp"

namespace {

krein::ikfd::Weights parse_weights(const std::string& weights) {
  if (weights == "equal") return krein::ikfd::Weights::equal;
  if (weights == "prior") return krein::ikfd::Weights::prior;
  throw std::invalid_argument("unknown weights '" + weights + "'");
}

Rcpp::List discriminants_list(const krein::ikfd::Discriminants& d) {
  return Rcpp::List::create(
      Rcpp::Named("coefficients") = d.coefficients, Rcpp::Named("bias") = d.bias,
      Rcpp::Named("ridge") = d.ridge, Rcpp::Named("ridge_increased") = d.ridge_needed_more,
      Rcpp::Named("values") = d.values, Rcpp::Named("landmark_rank") = d.landmark_rank);
}

}  // namespace

// [[Rcpp::export]]
Rcpp::List cpp_ikfd_full(const Eigen::Map<Eigen::MatrixXd> K, const Rcpp::IntegerVector& labels,
                         int classes, const std::string& weights, double reg, int threads) {
  return discriminants_list(krein::ikfd::fit_full(K, glue::zero_based_labels(labels), classes,
                                                  parse_weights(weights), reg, threads));
}

// [[Rcpp::export]]
Rcpp::List cpp_class_factors(const Eigen::Map<Eigen::MatrixXd> C, const Rcpp::IntegerVector& labels,
                             int classes, int threads) {
  return Rcpp::wrap(krein::ikfd::class_factors(C, glue::zero_based_labels(labels), classes, threads));
}

// [[Rcpp::export]]
Rcpp::List cpp_merge_factors(const Rcpp::List& a, const Rcpp::List& b) {
  const std::vector<Eigen::MatrixXd> first = glue::matrix_list(a), second = glue::matrix_list(b);
  Rcpp::List out(first.size());
  for (size_t c = 0; c < first.size(); ++c) out[c] = krein::tsqr::merge_factor(first[c], second[c]);
  return out;
}

// [[Rcpp::export]]
Rcpp::List cpp_ikfd_nystrom(const Rcpp::List& factors, const Rcpp::NumericVector& counts,
                            const Eigen::Map<Eigen::MatrixXd> W, const std::string& weights,
                            double reg) {
  const std::vector<double> n(counts.begin(), counts.end());
  return discriminants_list(
      krein::ikfd::fit_nystrom(glue::matrix_list(factors), n, W, parse_weights(weights), reg));
}

// The leave-one-out squared residuals of ikfd_loo_ridge(), n x ridges
// (krein::ikfd::loo_ridge_losses()).
// [[Rcpp::export]]
Eigen::MatrixXd cpp_ikfd_loo_losses(const Eigen::Map<Eigen::MatrixXd> Q, const Eigen::Map<Eigen::VectorXd> lambda,
                                    const Eigen::Map<Eigen::MatrixXd> targets, const Eigen::Map<Eigen::VectorXd> traces,
                                    const Eigen::Map<Eigen::VectorXd> grid, int threads) {
  return krein::ikfd::loo_ridge_losses(Q, lambda, targets, traces, grid, threads);
}
