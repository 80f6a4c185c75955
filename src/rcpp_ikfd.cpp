// Glue for the iKFD and minimum-enclosing-ball cores
// (inst/include/krein/ikfd.hpp, inst/include/krein/meb.hpp). Validation is in R.
#include <RcppEigen.h>

#include "krein/ikfd.hpp"
#include "krein/meb.hpp"

namespace {

std::vector<int> zero_based(const Rcpp::IntegerVector& labels) {
  std::vector<int> out(labels.size());
  for (R_xlen_t i = 0; i < labels.size(); ++i) out[i] = labels[i] - 1;
  return out;
}

krein::ikfd::Weights parse_weights(const std::string& weights) {
  if (weights == "equal") return krein::ikfd::Weights::equal;
  if (weights == "prior") return krein::ikfd::Weights::prior;
  throw std::invalid_argument("unknown weights '" + weights + "'");
}

Rcpp::List discriminants_list(const krein::ikfd::Discriminants& d) {
  return Rcpp::List::create(
      Rcpp::Named("coefficients") = d.coefficients, Rcpp::Named("bias") = d.bias,
      Rcpp::Named("ridge") = d.ridge, Rcpp::Named("ridge_increased") = d.ridge_needed_more,
      Rcpp::Named("values") = d.values, Rcpp::Named("landmark_rank") = d.landmark_rank);
}

}  // namespace

// [[Rcpp::export]]
Rcpp::List cpp_ikfd_full(const Eigen::Map<Eigen::MatrixXd> K, const Rcpp::IntegerVector& labels,
                         int classes, const std::string& weights, double reg, int threads) {
  return discriminants_list(
      krein::ikfd::fit_full(K, zero_based(labels), classes, parse_weights(weights), reg, threads));
}

// [[Rcpp::export]]
Rcpp::List cpp_class_factors(const Eigen::Map<Eigen::MatrixXd> C, const Rcpp::IntegerVector& labels,
                             int classes, int threads) {
  return Rcpp::wrap(krein::ikfd::class_factors(C, zero_based(labels), classes, threads));
}

// [[Rcpp::export]]
Rcpp::List cpp_merge_factors(const Rcpp::List& a, const Rcpp::List& b) {
  Rcpp::List out(a.size());
  for (R_xlen_t c = 0; c < a.size(); ++c) {
    out[c] = krein::tsqr::merge_factor(Rcpp::as<Eigen::MatrixXd>(a[c]), Rcpp::as<Eigen::MatrixXd>(b[c]));
  }
  return out;
}

// [[Rcpp::export]]
Rcpp::List cpp_ikfd_nystrom(const Rcpp::List& factors, const Rcpp::NumericVector& counts,
                            const Eigen::Map<Eigen::MatrixXd> W, const std::string& weights,
                            double reg) {
  std::vector<Eigen::MatrixXd> f;
  for (R_xlen_t c = 0; c < factors.size(); ++c) f.push_back(Rcpp::as<Eigen::MatrixXd>(factors[c]));
  const std::vector<double> n(counts.begin(), counts.end());
  return discriminants_list(krein::ikfd::fit_nystrom(f, n, W, parse_weights(weights), reg));
}

// `column` is an R function of one 1-based index returning K[., s] over the class.
// [[Rcpp::export]]
Rcpp::List cpp_meb_core_set(const Eigen::Map<Eigen::VectorXd> diag, const Rcpp::Function& column,
                            int start, double eps, int max_core) {
  const krein::meb::ColumnFunction fetch = [&column, &diag](Eigen::Index s) {
    Eigen::VectorXd out = Rcpp::as<Eigen::VectorXd>(column(static_cast<int>(s) + 1));
    if (out.size() != diag.size()) throw std::invalid_argument("a kernel column has the wrong length");
    return out;
  };
  const krein::meb::Result r = krein::meb::core_set(
      diag, fetch, start - 1, eps, max_core, [] { Rcpp::checkUserInterrupt(); });
  Rcpp::IntegerVector core(r.core.size());
  for (size_t i = 0; i < r.core.size(); ++i) core[i] = static_cast<int>(r.core[i]) + 1;
  return Rcpp::List::create(Rcpp::Named("core") = core, Rcpp::Named("weights") = r.weights,
                            Rcpp::Named("radius2") = r.radius2, Rcpp::Named("farthest2") = r.farthest2,
                            Rcpp::Named("iterations") = r.iterations,
                            Rcpp::Named("smo_iterations") = r.smo_iterations,
                            Rcpp::Named("converged") = r.converged);
}
