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

// The feature map of the Nystroem kernel on the landmarks (krein::nystrom::
// feature_map()): `map` (r x m) with phi(x) = map k(L, x), `signs` (J) and
// `landmark_rank` r (0: W is zero or not finite, and the map has no row).
// [[Rcpp::export]]
Rcpp::List cpp_nystrom_feature_map(const Eigen::Map<Eigen::MatrixXd> w) {
  const krein::nystrom::FeatureMap feature = krein::nystrom::feature_map(w);
  return Rcpp::List::create(Rcpp::Named("map") = feature.map, Rcpp::Named("signs") = feature.signs,
                            Rcpp::Named("landmark_rank") = static_cast<int>(feature.rank()));
}
