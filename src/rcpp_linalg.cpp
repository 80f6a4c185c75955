// Glue for the dense linear algebra of inst/include/krein/symmetric_eigen.hpp.
#include <RcppEigen.h>

#include "krein/symmetric_eigen.hpp"

// Eigenvalues in decreasing order (R's convention, as eigen()), with vectors to match.
// [[Rcpp::export]]
Rcpp::List cpp_symmetric_eigen(const Eigen::Map<Eigen::MatrixXd> a, bool vectors) {
  const krein::SymmetricEigen eig = krein::symmetric_eigen(a, vectors);
  const Eigen::VectorXd values = eig.values.reverse();
  if (!vectors) return Rcpp::List::create(Rcpp::Named("values") = values);
  const Eigen::MatrixXd vecs = eig.vectors.rowwise().reverse();
  return Rcpp::List::create(Rcpp::Named("values") = values, Rcpp::Named("vectors") = vecs);
}
