// Glue for the kernel-data Fisher discriminant core (inst/include/krein/kfda.hpp).
// Validation is in R.
#include "glue.h"
#include "krein/kfda.hpp"
#include "krein/shrunk_gaussian.hpp"

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

// The classes of new points Z_new under (shrunk, pooled) Gaussian class models in the
// leading dims[c] coordinates of Z, one column per candidate, 0 for a
// candidate left to R (krein::shrunk_gaussian::leading_classes(); `labels`
// 1-based, as R's factor codes).
// [[Rcpp::export]]
Eigen::MatrixXi cpp_shrunk_gaussian_classes(const Eigen::Map<Eigen::MatrixXd> Z, const Rcpp::IntegerVector& labels,
                                            int classes, const Eigen::Map<Eigen::MatrixXd> Z_new,
                                            const Rcpp::IntegerVector& dims, const Eigen::Map<Eigen::VectorXd> pooling,
                                            double shrinkage, bool unbiased, const Eigen::Map<Eigen::VectorXd> log_prior,
                                            int threads) {
  const std::vector<int> codes = glue::zero_based_labels(labels);
  const Eigen::VectorXi codes_vector = Eigen::Map<const Eigen::VectorXi>(codes.data(), static_cast<Eigen::Index>(codes.size()));
  const Eigen::VectorXi dims_vector = Eigen::Map<const Eigen::VectorXi>(dims.begin(), dims.size());
  return krein::shrunk_gaussian::leading_classes(Z, codes_vector, classes, Z_new, dims_vector, pooling, shrinkage,
                                                 unbiased, log_prior, threads);
}
