// Glue for the minimum-enclosing-ball core sets of R/landmarks.R
// (inst/include/krein/meb.hpp). Validation is in R; `start` is drawn there.
#include "glue.h"
#include "krein/meb.hpp"

namespace {

Rcpp::List ball_list(const krein::meb::Result& r, bool squared) {
  return Rcpp::List::create(Rcpp::Named("core") = glue::one_based_indices(r.core),
                            Rcpp::Named("weights") = r.weights, Rcpp::Named("radius2") = r.radius2,
                            Rcpp::Named("farthest2") = r.farthest2, Rcpp::Named("iterations") = r.iterations,
                            Rcpp::Named("smo_iterations") = r.smo_iterations,
                            Rcpp::Named("converged") = r.converged, Rcpp::Named("squared") = squared);
}

}  // namespace

// A built-in kernel (`base`: its list, or the base kernel's for an invariant
// one) on the class's points `x` (and their images `x_tau`).
// [[Rcpp::export]]
Rcpp::List cpp_meb_kernel(const Rcpp::List& base, bool invariant, const Eigen::Map<Eigen::MatrixXd> x,
                          const Eigen::Map<Eigen::MatrixXd> x_tau, int start, double eps, int max_core,
                          int threads) {
  const krein::KernelSpec spec = glue::kernel_spec(base, invariant);
  const krein::MatrixRef xr(x), tr(x_tau);
  return ball_list(krein::meb::kernel_core_set(spec, xr, invariant ? &tr : nullptr, start - 1, eps, max_core,
                                               threads, glue::check_interrupt),
                   false);
}

// The class's kernel block; `psd` NA: decided by the test of numerics.hpp.
// [[Rcpp::export]]
Rcpp::List cpp_meb_block(const Eigen::Map<Eigen::MatrixXd> block, const Rcpp::LogicalVector& psd, int start,
                         double eps, int max_core) {
  using krein::meb::Definiteness;
  const Definiteness known = psd[0] == NA_LOGICAL ? Definiteness::unknown
                                                  : (psd[0] ? Definiteness::psd : Definiteness::indefinite);
  const krein::meb::BlockResult r =
      krein::meb::block_core_set(block, known, start - 1, eps, max_core, glue::check_interrupt);
  return ball_list(r.ball, r.squared);
}

// A kernel evaluated in R (an R function or a kernlab kernel known to be
// positive semidefinite): `column` is an R function of one 1-based index
// returning K[., s] over the class.
// [[Rcpp::export]]
Rcpp::List cpp_meb_callback(const Eigen::Map<Eigen::VectorXd> diag, const Rcpp::Function& column, int start,
                            double eps, int max_core) {
  const krein::meb::ColumnFunction fetch = [&column, &diag](Eigen::Index s) {
    Eigen::VectorXd out = Rcpp::as<Eigen::VectorXd>(column(static_cast<int>(s) + 1));
    if (out.size() != diag.size()) throw std::invalid_argument("a kernel column has the wrong length");
    return out;
  };
  return ball_list(krein::meb::core_set(diag, fetch, start - 1, eps, max_core, glue::check_interrupt), false);
}
