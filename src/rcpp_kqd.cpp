// Glue between R/kqd.R and the kernel quadratic discriminants of
// inst/include/krein/kqd.hpp: convert, call, return. Validation is done in R.
#include "glue.h"
#include "krein/kqd.hpp"

namespace {

using krein::kqd::ClassModel;
using krein::kqd::Model;

Rcpp::List class_to_list(const ClassModel& cls) {
  return Rcpp::List::create(
      Rcpp::Named("members") = glue::one_based_indices(cls.members), Rcpp::Named("centre") = cls.centre,
      Rcpp::Named("grand_mean") = cls.grand_mean, Rcpp::Named("basis") = cls.basis,
      Rcpp::Named("values") = cls.values, Rcpp::Named("zero") = cls.zero,
      Rcpp::Named("cholesky") = cls.cholesky, Rcpp::Named("factor") = cls.factor,
      Rcpp::Named("indefinite") = cls.indefinite, Rcpp::Named("negative_found") = cls.negative_found,
      Rcpp::Named("signature") = Rcpp::IntegerVector::create(cls.p, cls.q, cls.z),
      Rcpp::Named("regularised_singular") = cls.regularised_singular);
}

Model model_from_list(const Rcpp::List& fit) {
  Model model;
  model.variant = krein::kqd::parse_variant(Rcpp::as<std::string>(fit["variant"]));
  model.n = Rcpp::as<int>(fit["n"]);
  model.reg = Rcpp::as<Eigen::MatrixXd>(fit["reg"]);
  model.column_means = Rcpp::as<Eigen::VectorXd>(fit["column_means"]);
  const Rcpp::List classes = fit["classes"];
  model.classes.resize(classes.size());
  for (R_xlen_t j = 0; j < classes.size(); ++j) {
    const Rcpp::List c = classes[j];
    ClassModel& cls = model.classes[j];
    cls.members = glue::zero_based_indices(c["members"]);
    cls.n_j = static_cast<double>(cls.members.size());
    cls.centre = Rcpp::as<Eigen::VectorXd>(c["centre"]);
    cls.grand_mean = Rcpp::as<double>(c["grand_mean"]);
    cls.basis = Rcpp::as<Eigen::MatrixXd>(c["basis"]);
    cls.values = Rcpp::as<Eigen::VectorXd>(c["values"]);
    cls.zero = Rcpp::as<double>(c["zero"]);
    cls.cholesky = Rcpp::as<bool>(c["cholesky"]);
    cls.factor = Rcpp::as<Eigen::MatrixXd>(c["factor"]);
    cls.indefinite = Rcpp::as<bool>(c["indefinite"]);
  }
  return model;
}

}  // namespace

// [[Rcpp::export]]
Rcpp::List cpp_kqd_fit(const Eigen::Map<Eigen::MatrixXd> K, const Rcpp::IntegerVector& labels,
                       int classes, const std::string& variant, const Eigen::Map<Eigen::MatrixXd> reg,
                       const std::string& indefinite, bool allow_cholesky) {
  krein::kqd::IndefiniteMode mode = krein::kqd::IndefiniteMode::automatic;
  if (indefinite == "yes") mode = krein::kqd::IndefiniteMode::yes;
  if (indefinite == "no") mode = krein::kqd::IndefiniteMode::no;
  const Model model = krein::kqd::fit(K, glue::class_members(labels, classes),
                                      krein::kqd::parse_variant(variant), reg, mode, allow_cholesky);
  Rcpp::List class_list(model.classes.size());
  for (size_t j = 0; j < model.classes.size(); ++j) class_list[j] = class_to_list(model.classes[j]);
  return Rcpp::List::create(Rcpp::Named("variant") = variant, Rcpp::Named("n") = static_cast<int>(model.n),
                            Rcpp::Named("reg") = model.reg,
                            Rcpp::Named("column_means") = model.column_means,
                            Rcpp::Named("classes") = class_list);
}

// Squared distances of new points (rows of kx, against all training points) to
// every class: a list with one m x c matrix per path point.
// [[Rcpp::export]]
Rcpp::List cpp_kqd_distances(const Rcpp::List& fit, const Eigen::Map<Eigen::MatrixXd> kx,
                             Rcpp::Nullable<Rcpp::NumericVector> self) {
  const Model model = model_from_list(fit);
  Eigen::VectorXd self_values;
  const Eigen::VectorXd* self_ptr = nullptr;
  if (self.isNotNull()) {
    self_values = Rcpp::as<Eigen::VectorXd>(self.get());
    self_ptr = &self_values;
  }
  const std::vector<Eigen::MatrixXd> d = krein::kqd::distances(model, kx, self_ptr);
  Rcpp::List out(d.size());
  for (size_t k = 0; k < d.size(); ++k) out[k] = d[k];
  return out;
}

// Sec. IV-D biases from the training decisions (n x c, without biases);
// `weights`: the weight of an error on a point of each class.
// [[Rcpp::export]]
Eigen::VectorXd cpp_kqd_error_biases(const Eigen::Map<Eigen::MatrixXd> decisions,
                                     const Rcpp::IntegerVector& labels, int classes,
                                     const std::vector<double>& weights) {
  return krein::kqd::error_biases(decisions, glue::class_members(labels, classes), weights);
}
