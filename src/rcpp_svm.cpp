// Glue for the two-class C-SVM dual of inst/include/krein/svm.hpp.
#include "glue.h"
#include "krein/svm.hpp"

// The dual for the kernel K, labels y (+1 / -1) and cost C: `coefficients`
// a_i y_i and `rho`, so that f(x) = sum_i coefficients_i k(x_i, x) - rho,
// with the iterations and whether the KKT tolerance `eps` was reached.
// [[Rcpp::export]]
Rcpp::List cpp_svm_binary(const Eigen::Map<Eigen::MatrixXd> K, const Eigen::Map<Eigen::VectorXd> y, double C,
                          double eps) {
  const krein::svm::BinaryFit fit = krein::svm::solve_binary(K, y, C, eps);
  return Rcpp::List::create(Rcpp::Named("coefficients") = Eigen::VectorXd(fit.alpha.cwiseProduct(y)),
                            Rcpp::Named("rho") = fit.rho,
                            Rcpp::Named("iterations") = static_cast<double>(fit.iterations),
                            Rcpp::Named("converged") = fit.converged);
}

// The held-out decision values of the one-vs-one SVMs at each cost of
// `costs` (krein::svm::one_vs_one_decisions(); `codes` 1-based, as R's
// factor codes): n_new x (pairs x costs), the pairs of a cost together.
// [[Rcpp::export]]
Eigen::MatrixXd cpp_svm_one_vs_one(const Eigen::Map<Eigen::MatrixXd> K, const Eigen::Map<Eigen::VectorXi> codes,
                                   int n_classes, const Eigen::Map<Eigen::VectorXd> costs,
                                   const Eigen::Map<Eigen::MatrixXd> K_new, double eps) {
  const Eigen::VectorXi zero_based = codes.array() - 1;
  return krein::svm::one_vs_one_decisions(K, zero_based, n_classes, costs, K_new, eps);
}
