// Glue between R/kernels.R and the kernel engine in inst/include/krein/kernels.hpp:
// convert the kernel specification list, call, return. Validation is done in R.
#include <RcppEigen.h>

#include "krein/kernels.hpp"

namespace {

double spec_number(const Rcpp::List& spec, const char* name, double fallback) {
  if (!spec.containsElementNamed(name)) return fallback;
  SEXP value = spec[name];
  if (Rf_isNull(value)) return fallback;
  return Rcpp::as<double>(value);
}

krein::KernelType kernel_type(const std::string& name) {
  using krein::KernelType;
  if (name == "linear") return KernelType::linear;
  if (name == "poly") return KernelType::poly;
  if (name == "tanh") return KernelType::tanh;
  if (name == "elm") return KernelType::elm;
  if (name == "rbf") return KernelType::rbf;
  if (name == "rbf_diag") return KernelType::rbf_diag;
  if (name == "dist") return KernelType::dist;
  if (name == "epanechnikov") return KernelType::epanechnikov;
  throw std::invalid_argument("unknown built-in kernel '" + name + "'");
}

// `base` is the built-in kernel's list (for an invariant kernel, its base kernel).
krein::KernelSpec to_spec(const Rcpp::List& base, bool invariant) {
  krein::KernelSpec spec;
  spec.type = kernel_type(Rcpp::as<std::string>(base["name"]));
  const Rcpp::List params = base["params"];
  spec.gamma = spec_number(params, "gamma", spec.gamma);
  spec.degree = spec_number(params, "degree", spec.degree);
  spec.scale = spec_number(params, "scale", spec.scale);
  spec.offset = spec_number(params, "offset", spec.offset);
  spec.sigma2 = spec_number(params, "sigma2", spec.sigma2);
  spec.s = spec_number(params, "s", spec.s);
  spec.power = spec_number(params, "power", spec.power);
  spec.width = spec_number(params, "width", spec.width);
  if (params.containsElementNamed("scales") && !Rf_isNull(params["scales"])) {
    spec.scales = Rcpp::as<Eigen::VectorXd>(params["scales"]);
  }
  spec.invariant = invariant;
  return spec;
}

}  // namespace

// [[Rcpp::export]]
Rcpp::NumericMatrix cpp_kernel_matrix(const Rcpp::List& base, bool invariant,
                                      const Eigen::Map<Eigen::MatrixXd> x,
                                      const Eigen::Map<Eigen::MatrixXd> y,
                                      const Eigen::Map<Eigen::MatrixXd> y_tau, bool symmetric,
                                      int threads) {
  const krein::KernelSpec spec = to_spec(base, invariant);
  // Written in place into R's memory: a 5000 x 5000 kernel is 200 MB, not to be copied.
  Rcpp::NumericMatrix out(Rcpp::no_init(x.rows(), y.rows()));
  Eigen::Map<Eigen::MatrixXd> out_map(out.begin(), x.rows(), y.rows());
  const krein::MatrixRef xr(x), yr(y), tr(y_tau);
  // Between chunks of columns: a pending Ctrl-C throws Rcpp's interrupt exception,
  // which unwinds the core and reaches R as an ordinary interrupt.
  const krein::Checkpoint check_interrupt = [] { Rcpp::checkUserInterrupt(); };
  krein::kernel_matrix(spec, xr, yr, invariant ? &tr : nullptr, out_map, symmetric, threads,
                       check_interrupt);
  return out;
}

// [[Rcpp::export]]
Eigen::VectorXd cpp_kernel_diagonal(const Rcpp::List& base, bool invariant,
                                    const Eigen::Map<Eigen::MatrixXd> x,
                                    const Eigen::Map<Eigen::MatrixXd> x_tau) {
  const krein::KernelSpec spec = to_spec(base, invariant);
  const krein::MatrixRef xr(x), tr(x_tau);
  return krein::kernel_diagonal(spec, xr, invariant ? &tr : nullptr);
}
