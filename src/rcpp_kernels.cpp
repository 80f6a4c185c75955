// Glue between R/kernel_engine.R and the kernel engine in
// inst/include/krein/kernels.hpp:
// convert the kernel specification list, call, return. Validation is done in R.
#include "glue.h"
#include "krein/memory.hpp"

// [[Rcpp::export]]
Rcpp::NumericMatrix cpp_kernel_matrix(const Rcpp::List& base, bool invariant,
                                      const Eigen::Map<Eigen::MatrixXd> x,
                                      const Eigen::Map<Eigen::MatrixXd> y,
                                      const Eigen::Map<Eigen::MatrixXd> y_tau, bool symmetric,
                                      int threads) {
  const krein::KernelSpec spec = glue::kernel_spec(base, invariant);
  // Written in place into R's memory: a 5000 x 5000 kernel is 200 MB, not to be copied.
  Rcpp::NumericMatrix out(Rcpp::no_init(x.rows(), y.rows()));
  // before the first write: fewer page faults (see memory.hpp)
  krein::memory::advise_huge_pages(out.begin(), sizeof(double) * static_cast<std::size_t>(out.size()));
  krein::memory::populate(out.begin(), sizeof(double) * static_cast<std::size_t>(out.size()), threads);
  Eigen::Map<Eigen::MatrixXd> out_map(out.begin(), x.rows(), y.rows());
  const krein::MatrixRef xr(x), yr(y), tr(y_tau);
  const bool finite = krein::kernel_matrix(spec, xr, yr, invariant ? &tr : nullptr, out_map,
                                          symmetric, threads, glue::check_interrupt);
  // The engine tested each value as it wrote it; R reads this mark instead of
  // passing over the matrix again, and describes the values only if it is set.
  if (!finite) out.attr("krein_nonfinite") = true;
  return out;
}

// [[Rcpp::export]]
Eigen::VectorXd cpp_kernel_diagonal(const Rcpp::List& base, bool invariant,
                                    const Eigen::Map<Eigen::MatrixXd> x,
                                    const Eigen::Map<Eigen::MatrixXd> x_tau) {
  const krein::KernelSpec spec = glue::kernel_spec(base, invariant);
  const krein::MatrixRef xr(x), tr(x_tau);
  return krein::kernel_diagonal(spec, xr, invariant ? &tr : nullptr);
}
