// Conversions shared by the rcpp_*.cpp glue files: R's 1-based factor codes and
// indices to the core's 0-based ones and back, options read from named lists,
// the kernel specification list, and R's interrupt check as a core checkpoint.
#ifndef KREIN_GLUE_H
#define KREIN_GLUE_H

#include <RcppEigen.h>

#include <string>
#include <utility>
#include <vector>

#include "krein/kernels.hpp"

namespace glue {

// Factor codes 1..K (as.integer() of an R factor) to labels 0..K-1.
inline std::vector<int> zero_based_labels(const Rcpp::IntegerVector& codes) {
  std::vector<int> out(codes.size());
  for (R_xlen_t i = 0; i < codes.size(); ++i) out[i] = codes[i] - 1;
  return out;
}

// The 0-based members of each class, in order, from factor codes 1..K.
inline std::vector<std::vector<Eigen::Index>> class_members(const Rcpp::IntegerVector& codes, int classes) {
  std::vector<std::vector<Eigen::Index>> members(classes);
  const std::vector<int> labels = zero_based_labels(codes);
  for (size_t i = 0; i < labels.size(); ++i) members[labels[i]].push_back(static_cast<Eigen::Index>(i));
  return members;
}

// R's 1-based indices to 0-based ones, and back.
inline std::vector<Eigen::Index> zero_based_indices(const Rcpp::IntegerVector& indices) {
  std::vector<Eigen::Index> out(indices.size());
  for (R_xlen_t i = 0; i < indices.size(); ++i) out[i] = indices[i] - 1;
  return out;
}

inline Rcpp::IntegerVector one_based_indices(const std::vector<Eigen::Index>& indices) {
  Rcpp::IntegerVector out(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) out[i] = static_cast<int>(indices[i]) + 1;
  return out;
}

// Marks a result of a landmark pass with the first kernel value that was not
// finite (krein::landmark_pass::NonFinite), if there was one: the attribute
// krein_nonfinite holds its row and its landmark, 1-based.
template <class Result, class NonFinite>
inline void mark_nonfinite(Result& out, const NonFinite& nonfinite) {
  if (nonfinite.found()) {
    out.attr("krein_nonfinite") =
        Rcpp::NumericVector::create(static_cast<double>(nonfinite.row) + 1.0, static_cast<double>(nonfinite.column) + 1.0);
  }
}

// An R list of numeric matrices.
inline std::vector<Eigen::MatrixXd> matrix_list(const Rcpp::List& list) {
  std::vector<Eigen::MatrixXd> out;
  out.reserve(list.size());
  for (R_xlen_t i = 0; i < list.size(); ++i) out.push_back(Rcpp::as<Eigen::MatrixXd>(list[i]));
  return out;
}

// A number from a named list, or `fallback` when it is absent or NULL.
inline double list_number(const Rcpp::List& list, const char* name, double fallback) {
  if (!list.containsElementNamed(name)) return fallback;
  SEXP value = list[name];
  if (Rf_isNull(value)) return fallback;
  return Rcpp::as<double>(value);
}

// A choice from a named list, given as a string and mapped to an enum value by
// `choices` (name, value pairs), or `fallback` when it is absent or NULL. An
// unknown name is an error naming `what` (R validates the user's options, so
// this guards the glue only).
template <typename Enum>
Enum list_choice(const Rcpp::List& list, const char* name, const std::vector<std::pair<std::string, Enum>>& choices,
                 Enum fallback, const char* what) {
  if (!list.containsElementNamed(name)) return fallback;
  SEXP value = list[name];
  if (Rf_isNull(value)) return fallback;
  const std::string given = Rcpp::as<std::string>(value);
  for (const auto& choice : choices) {
    if (choice.first == given) return choice.second;
  }
  throw std::invalid_argument(std::string("unknown ") + what + " '" + given + "'");
}

inline krein::KernelType kernel_type(const std::string& name) {
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

// A built-in kernel's R list (for an invariant kernel, its base kernel's) as
// the core's specification.
inline krein::KernelSpec kernel_spec(const Rcpp::List& base, bool invariant) {
  krein::KernelSpec spec;
  spec.type = kernel_type(Rcpp::as<std::string>(base["name"]));
  const Rcpp::List params = base["params"];
  spec.gamma = list_number(params, "gamma", spec.gamma);
  spec.degree = list_number(params, "degree", spec.degree);
  spec.scale = list_number(params, "scale", spec.scale);
  spec.offset = list_number(params, "offset", spec.offset);
  spec.sigma2 = list_number(params, "sigma2", spec.sigma2);
  spec.s = list_number(params, "s", spec.s);
  spec.power = list_number(params, "power", spec.power);
  spec.width = list_number(params, "width", spec.width);
  if (params.containsElementNamed("scales") && !Rf_isNull(params["scales"])) {
    spec.scales = Rcpp::as<Eigen::VectorXd>(params["scales"]);
  }
  spec.invariant = invariant;
  return spec;
}

// Between chunks of a long computation: a pending Ctrl-C throws Rcpp's
// interrupt exception, which unwinds the core and reaches R as an interrupt.
inline void check_interrupt() { Rcpp::checkUserInterrupt(); }

}  // namespace glue

#endif  // KREIN_GLUE_H
