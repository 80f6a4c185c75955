// Glue for kfda's class factors, projections and column moments
// (inst/include/krein/kfda.hpp, krein/tsqr.hpp); the SVDs are in rcpp_kfda.cpp.
// Validation is in R.
#include "glue.h"
#include "krein/kfda.hpp"

// [[Rcpp::export]]
Rcpp::List cpp_kfda_class_factors(const Eigen::Map<Eigen::MatrixXd> Z, const Rcpp::IntegerVector& labels,
                                  int classes, int threads) {
  const krein::kfda::ClassFactors f =
      krein::kfda::class_factors(Z, glue::zero_based_labels(labels), classes, threads);
  Rcpp::List factors(classes);
  for (int c = 0; c < classes; ++c) factors[c] = f.factors[c];
  return Rcpp::List::create(Rcpp::Named("means") = f.means, Rcpp::Named("factors") = factors,
                            Rcpp::Named("counts") = f.counts);
}

// The triangular factor R of QR of the rows (R'R = rows'rows).
// [[Rcpp::export]]
Eigen::MatrixXd cpp_triangular_factor(const Eigen::Map<Eigen::MatrixXd> rows) {
  return krein::tsqr::triangular_factor(rows, rows.cols());
}

// [[Rcpp::export]]
Eigen::MatrixXd cpp_kfda_project(const Eigen::Map<Eigen::MatrixXd> K, const Eigen::Map<Eigen::VectorXd> center,
                                 const Eigen::Map<Eigen::MatrixXd> rotation,
                                 const Eigen::Map<Eigen::VectorXd> scale) {
  return krein::kfda::project(K, center, rotation, scale);
}

// [[Rcpp::export]]
Rcpp::List cpp_column_moments(const Eigen::Map<Eigen::MatrixXd> K, int threads) {
  const auto m = krein::kfda::column_moments(K, threads);
  return Rcpp::List::create(Rcpp::Named("mean") = m.first, Rcpp::Named("sd") = m.second);
}
