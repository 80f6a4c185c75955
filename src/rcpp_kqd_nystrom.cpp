// Glue between R/kqd_nystrom.R and the Ny-KQD prediction kernel of
// inst/include/krein/kqd_nystrom.hpp: convert, call, return. Validation is done in R.
#include "glue.h"
#include "krein/kqd_nystrom.hpp"

// Squared distances of the rows of `c` (their kernel against the landmarks)
// to every class: a list with one n x classes matrix per path value.
// [[Rcpp::export]]
Rcpp::List cpp_kqd_nystrom_distances(const Eigen::Map<Eigen::MatrixXd> c, const Eigen::Map<Eigen::MatrixXd> expansion,
                               const Eigen::Map<Eigen::VectorXd> offsets, const Rcpp::IntegerVector& sizes,
                               const Eigen::Map<Eigen::MatrixXd> weights, const Eigen::Map<Eigen::MatrixXd> scale,
                               const Eigen::Map<Eigen::MatrixXd> self_scale,
                               const Eigen::Map<Eigen::VectorXd> self_offsets,
                               const Eigen::Map<Eigen::VectorXd> self, int threads) {
  krein::kqd_nystrom::Expansion e;
  e.expansion = expansion;
  e.offsets = offsets;
  e.sizes.assign(sizes.begin(), sizes.end());
  e.weights = weights;
  e.scale = scale;
  e.self_scale = self_scale;
  e.self_offsets = self_offsets;
  const std::vector<Eigen::MatrixXd> d = krein::kqd_nystrom::distances(e, c, self, threads);
  Rcpp::List out(d.size());
  for (size_t k = 0; k < d.size(); ++k) out[k] = d[k];
  return out;
}
