// Glue between R/kqd_nystrom.R and the Ny-KQD prediction kernel of
// inst/include/krein/kqd_nystrom.hpp: convert, call, return. Validation is done in R.
#include "glue.h"
#include "krein/kqd_nystrom.hpp"

namespace {

// The fitted expansion of Ny-KQD's distances, as both entry points receive it
krein::kqd_nystrom::Expansion make_expansion(const Eigen::Map<Eigen::MatrixXd>& expansion,
                                             const Eigen::Map<Eigen::VectorXd>& offsets,
                                             const Rcpp::IntegerVector& sizes,
                                             const Eigen::Map<Eigen::MatrixXd>& weights,
                                             const Eigen::Map<Eigen::MatrixXd>& scale,
                                             const Eigen::Map<Eigen::MatrixXd>& self_scale,
                                             const Eigen::Map<Eigen::VectorXd>& self_offsets) {
  krein::kqd_nystrom::Expansion e;
  e.expansion = expansion;
  e.offsets = offsets;
  e.sizes.assign(sizes.begin(), sizes.end());
  e.weights = weights;
  e.scale = scale;
  e.self_scale = self_scale;
  e.self_offsets = self_offsets;
  return e;
}

}  // namespace

// Squared distances of the rows of `c` (their kernel against the landmarks)
// to every class: a list with one n x classes matrix per path value.
// [[Rcpp::export]]
Rcpp::List cpp_kqd_nystrom_distances(const Eigen::Map<Eigen::MatrixXd> c, const Eigen::Map<Eigen::MatrixXd> expansion,
                               const Eigen::Map<Eigen::VectorXd> offsets, const Rcpp::IntegerVector& sizes,
                               const Eigen::Map<Eigen::MatrixXd> weights, const Eigen::Map<Eigen::MatrixXd> scale,
                               const Eigen::Map<Eigen::MatrixXd> self_scale,
                               const Eigen::Map<Eigen::VectorXd> self_offsets,
                               const Eigen::Map<Eigen::VectorXd> self, int threads) {
  const krein::kqd_nystrom::Expansion e =
      make_expansion(expansion, offsets, sizes, weights, scale, self_scale, self_offsets);
  const std::vector<Eigen::MatrixXd> d = krein::kqd_nystrom::distances(e, c, self, threads);
  Rcpp::List out(d.size());
  for (size_t k = 0; k < d.size(); ++k) out[k] = d[k];
  return out;
}

// The same distances for the rows of x, their landmark kernel K(x, points)
// computed block by block in the core (landmark_pass.hpp) and never held
// whole, with k(x, x) from the core where the variant uses it.
// [[Rcpp::export]]
Rcpp::List cpp_kqd_nystrom_pass_distances(const Rcpp::List& base, const Eigen::Map<Eigen::MatrixXd> x,
                                          const Eigen::Map<Eigen::MatrixXd> points,
                                          const Eigen::Map<Eigen::MatrixXd> expansion,
                                          const Eigen::Map<Eigen::VectorXd> offsets, const Rcpp::IntegerVector& sizes,
                                          const Eigen::Map<Eigen::MatrixXd> weights, const Eigen::Map<Eigen::MatrixXd> scale,
                                          const Eigen::Map<Eigen::MatrixXd> self_scale,
                                          const Eigen::Map<Eigen::VectorXd> self_offsets, int block_rows, int threads) {
  const krein::kqd_nystrom::Expansion e =
      make_expansion(expansion, offsets, sizes, weights, scale, self_scale, self_offsets);
  const krein::KernelSpec spec = glue::kernel_spec(base, false);
  const krein::MatrixRef xr(x), pr(points);
  bool finite = true;
  const std::vector<Eigen::MatrixXd> d = krein::kqd_nystrom::pass_distances(e, spec, xr, pr, block_rows, threads,
                                                                             glue::check_interrupt, finite);
  Rcpp::List out(d.size());
  for (size_t k = 0; k < d.size(); ++k) out[k] = d[k];
  if (!finite) out.attr("krein_nonfinite") = true;
  return out;
}
