// Glue between R/kqd_nystrom.R and Ny-KQD's fit and prediction kernel in
// inst/include/krein/kqd_nystrom.hpp: convert, call, return. Validation is
// done in R.
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
  krein::landmark_pass::NonFinite nonfinite;
  const std::vector<Eigen::MatrixXd> d = krein::kqd_nystrom::pass_distances(e, spec, xr, pr, block_rows, threads,
                                                                             glue::check_interrupt, nonfinite);
  Rcpp::List out(d.size());
  for (size_t k = 0; k < d.size(); ++k) out[k] = d[k];
  glue::mark_nonfinite(out, nonfinite);
  return out;
}

// The Ny-KQD model (krein::kqd_nystrom::fit()) from the landmark kernel `w`,
// each class's triangular factor of [C_j, 1] (`factors`, a list) and count,
// the variant, the path of `reg` (path values x classes) and the indefinite
// mode ("auto", "yes", "no"). Returns the model as R keeps it: the feature
// map and its signs, the classes' spectra, projections and diagnostics, and
// the expansion with its spectral weights (`terms`) that prediction applies;
// `landmark_rank` 0 (and nothing else) when W is zero or not finite.
// [[Rcpp::export]]
Rcpp::List cpp_kqd_nystrom_model(const Eigen::Map<Eigen::MatrixXd> w, const Rcpp::List& factors,
                                 const Rcpp::NumericVector& counts, const std::string& variant,
                                 const Eigen::Map<Eigen::MatrixXd> reg, const std::string& indefinite) {
  krein::kqd::IndefiniteMode mode = krein::kqd::IndefiniteMode::automatic;
  if (indefinite == "yes") mode = krein::kqd::IndefiniteMode::yes;
  if (indefinite == "no") mode = krein::kqd::IndefiniteMode::no;
  std::vector<Eigen::MatrixXd> class_factors;
  for (R_xlen_t j = 0; j < factors.size(); ++j) class_factors.push_back(Rcpp::as<Eigen::MatrixXd>(factors[j]));
  const std::vector<double> class_counts(counts.begin(), counts.end());
  const krein::kqd_nystrom::Model model = krein::kqd_nystrom::fit(
      w, class_factors, class_counts, krein::kqd::parse_variant(variant), reg, mode);
  const Eigen::Index rank = model.feature.signs.size();
  if (rank == 0) return Rcpp::List::create(Rcpp::Named("landmark_rank") = 0);
  Rcpp::List classes(model.classes.size());
  for (size_t j = 0; j < model.classes.size(); ++j) {
    const krein::kqd_nystrom::ClassModel& cls = model.classes[j];
    classes[j] = Rcpp::List::create(
        Rcpp::Named("n_j") = cls.n_j, Rcpp::Named("mean") = cls.mean, Rcpp::Named("indefinite") = cls.indefinite,
        Rcpp::Named("negative_found") = cls.negative_found,
        Rcpp::Named("signature") = Rcpp::IntegerVector::create(cls.p, cls.q, cls.z),
        Rcpp::Named("regularised_singular") = cls.regularised_singular, Rcpp::Named("zero") = cls.zero,
        Rcpp::Named("values") = cls.values, Rcpp::Named("projection") = cls.projection);
  }
  const krein::kqd_nystrom::Expansion& e = model.expansion;
  Rcpp::IntegerVector sizes(e.sizes.begin(), e.sizes.end());
  return Rcpp::List::create(
      Rcpp::Named("variant") = variant, Rcpp::Named("reg") = model.reg, Rcpp::Named("signs") = model.feature.signs,
      Rcpp::Named("map") = model.feature.map, Rcpp::Named("landmark_rank") = static_cast<int>(rank),
      Rcpp::Named("classes") = classes, Rcpp::Named("expansion") = e.expansion, Rcpp::Named("offsets") = e.offsets,
      Rcpp::Named("sizes") = sizes,
      Rcpp::Named("terms") = Rcpp::List::create(Rcpp::Named("weights") = e.weights, Rcpp::Named("scale") = e.scale,
                                                Rcpp::Named("self_scale") = e.self_scale,
                                                Rcpp::Named("self_offsets") = e.self_offsets));
}
