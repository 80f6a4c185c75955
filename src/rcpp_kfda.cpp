// Glue for the principal components of kfda's kernel data (the full and the
// partial SVD of inst/include/krein/kfda.hpp); the rest of kfda's glue is in
// rcpp_kfda_factors.cpp. Validation is in R.
#include "glue.h"
#include "krein/kfda.hpp"

// Column means m of K and the thin SVD (singular values d, right vectors v)
// of K - 1 m'.
// [[Rcpp::export]]
Rcpp::List cpp_centred_svd(const Eigen::Map<Eigen::MatrixXd> K, int threads) {
  const krein::kfda::CentredSvd s = krein::kfda::centred_svd(K, threads);
  return Rcpp::List::create(Rcpp::Named("means") = s.means, Rcpp::Named("d") = s.singular,
                            Rcpp::Named("v") = s.vectors);
}

// The leading k principal components of the kernel data by block
// Golub-Kahan-Lanczos bidiagonalisation of K - 1 m' (centred_partial_svd in
// inst/include/krein/kfda.hpp): singular values d, right vectors v, their
// relative residuals, the squared Frobenius norm `total`, whether every
// residual met `tolerance` within `max_dimension` basis vectors, and the
// basis size used.
// [[Rcpp::export]]
Rcpp::List cpp_centred_partial_svd(const Eigen::Map<Eigen::MatrixXd> K, int k, double tolerance,
                                   int max_dimension, int threads) {
  const krein::kfda::PartialSvd s = krein::kfda::centred_partial_svd(K, k, tolerance, max_dimension, threads);
  return Rcpp::List::create(Rcpp::Named("means") = s.means, Rcpp::Named("d") = s.singular,
                            Rcpp::Named("v") = s.vectors, Rcpp::Named("residuals") = s.residuals,
                            Rcpp::Named("total") = s.total, Rcpp::Named("converged") = s.converged,
                            Rcpp::Named("dimension") = static_cast<double>(s.dimension));
}
