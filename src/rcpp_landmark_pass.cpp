// Glue for the landmark-kernel pass of inst/include/krein/landmark_pass.hpp:
// the Nystroem fits' two passes over the rows (R/landmark_pass.R, R/kqd_nystrom.R)
// for the coordinate kernels, the landmark kernel never held whole.
// Validation is done in R; a result with a non-finite kernel value carries
// the attribute krein_nonfinite, the row of x and the landmark (1-based) of
// the first such value, which R reports.
#include "glue.h"
#include "krein/landmark_pass.hpp"

// [[Rcpp::export]]
bool cpp_landmark_pass_supported(const Rcpp::List& base) {
  return krein::landmark_pass::supported(glue::kernel_spec(base, false));
}

// The triangular factor of [C_c | 1] per class c of the codes `labels`
// (1..classes), C = K(x, points).
// [[Rcpp::export]]
Rcpp::List cpp_landmark_class_factors(const Rcpp::List& base, const Eigen::Map<Eigen::MatrixXd> x,
                                      const Eigen::Map<Eigen::MatrixXd> points,
                                      const Rcpp::IntegerVector& labels, int classes, int block_rows,
                                      int threads) {
  const krein::KernelSpec spec = glue::kernel_spec(base, false);
  const krein::MatrixRef xr(x), pr(points);
  const krein::landmark_pass::ClassFactors f = krein::landmark_pass::class_factors(
      spec, xr, pr, glue::zero_based_labels(labels), classes, block_rows, threads, glue::check_interrupt);
  Rcpp::List out = Rcpp::wrap(f.factors);
  glue::mark_nonfinite(out, f.nonfinite);
  return out;
}

// K(x, points) %*% coefficients
// [[Rcpp::export]]
Rcpp::NumericMatrix cpp_landmark_scores(const Rcpp::List& base, const Eigen::Map<Eigen::MatrixXd> x,
                                        const Eigen::Map<Eigen::MatrixXd> points,
                                        const Eigen::Map<Eigen::MatrixXd> coefficients, int block_rows,
                                        int threads) {
  const krein::KernelSpec spec = glue::kernel_spec(base, false);
  const krein::MatrixRef xr(x), pr(points), cr(coefficients);
  krein::landmark_pass::NonFinite nonfinite;
  Rcpp::NumericMatrix out = Rcpp::wrap(
      krein::landmark_pass::scores(spec, xr, pr, cr, block_rows, threads, glue::check_interrupt, nonfinite));
  glue::mark_nonfinite(out, nonfinite);
  return out;
}
