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

// What Ny-iKFD's leave-one-out choice of its ridge needs beside the landmark
// kernel of the rows (krein::ikfd::nystrom_loo()), as a list for
// cpp_ikfd_nystrom_loo_losses()
// [[Rcpp::export]]
Rcpp::List cpp_ikfd_nystrom_loo(const Rcpp::List& factors, const Rcpp::NumericVector& counts,
                                const Eigen::Map<Eigen::MatrixXd> W) {
  const std::vector<double> n(counts.begin(), counts.end());
  const krein::ikfd::NystromLoo loo =
      krein::ikfd::nystrom_loo(krein::ikfd::nystrom_basis(glue::matrix_list(factors), n, W));
  return Rcpp::List::create(
      Rcpp::Named("map") = loo.map, Rcpp::Named("values") = loo.values, Rcpp::Named("Q1") = loo.sums.Q1,
      Rcpp::Named("Qt") = loo.sums.Qt, Rcpp::Named("target_sums") = loo.sums.target_sums,
      Rcpp::Named("n") = loo.sums.n, Rcpp::Named("traces") = loo.traces, Rcpp::Named("classes") = loo.classes);
}

// The leave-one-out squared residuals of the rows of a block with landmark
// kernel C and class codes `labels` (1..classes), rows x ridges
// (krein::ikfd::nystrom_loo_losses())
// [[Rcpp::export]]
Eigen::MatrixXd cpp_ikfd_nystrom_loo_losses(const Eigen::Map<Eigen::MatrixXd> C, const Rcpp::List& loo,
                                            const Rcpp::IntegerVector& labels,
                                            const Eigen::Map<Eigen::VectorXd> grid, int threads) {
  krein::ikfd::NystromLoo core;
  core.map = Rcpp::as<Eigen::MatrixXd>(loo["map"]);
  core.values = Rcpp::as<Eigen::VectorXd>(loo["values"]);
  core.sums.Q1 = Rcpp::as<Eigen::VectorXd>(loo["Q1"]);
  core.sums.Qt = Rcpp::as<Eigen::MatrixXd>(loo["Qt"]);
  core.sums.target_sums = Rcpp::as<Eigen::VectorXd>(loo["target_sums"]);
  core.sums.n = Rcpp::as<double>(loo["n"]);
  core.sums.complete = false;
  core.traces = Rcpp::as<Eigen::VectorXd>(loo["traces"]);
  core.classes = Rcpp::as<int>(loo["classes"]);
  return krein::ikfd::nystrom_loo_losses(C, core, glue::zero_based_labels(labels), grid, threads);
}
