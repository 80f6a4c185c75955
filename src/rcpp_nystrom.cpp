// Glue for the Nystroem decomposition of inst/include/krein/nystrom.hpp.
#include "glue.h"
#include "krein/nystrom.hpp"

// [[Rcpp::export]]
Rcpp::List cpp_nystrom(const Eigen::Map<Eigen::MatrixXd> c, const Eigen::Map<Eigen::MatrixXd> w) {
  const krein::nystrom::Decomposition d = krein::nystrom::decompose(c, w);
  return Rcpp::List::create(Rcpp::Named("vectors") = d.vectors, Rcpp::Named("values") = d.values,
                            Rcpp::Named("extension") = d.extension,
                            Rcpp::Named("landmark_rank") = d.landmark_rank);
}
