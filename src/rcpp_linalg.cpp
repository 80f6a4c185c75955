// Glue for the dense linear algebra of inst/include/krein/symmetric_eigen.hpp and
// the thread default of inst/include/krein/parallel.hpp.
#include "glue.h"
#include "krein/parallel.hpp"
#include "krein/symmetric_eigen.hpp"

// Eigenvalues in decreasing order (R's convention, as eigen()), with vectors to match.
// [[Rcpp::export]]
Rcpp::List cpp_symmetric_eigen(const Eigen::Map<Eigen::MatrixXd> a, bool vectors) {
  const krein::SymmetricEigen eig = krein::symmetric_eigen(a, vectors);
  const Eigen::VectorXd values = eig.values.reverse();
  if (!vectors) return Rcpp::List::create(Rcpp::Named("values") = values);
  const Eigen::MatrixXd vecs = eig.vectors.rowwise().reverse();
  return Rcpp::List::create(Rcpp::Named("values") = values, Rcpp::Named("vectors") = vecs);
}

// All eigenvalues in decreasing order, and the eigenvectors of the leading
// ones by magnitude only (krein::leading_by_magnitude(): those holding
// `share` of the nonzero magnitudes, and `extra` more), as `vectors` with
// `selected`, their 1-based positions among the values.
// [[Rcpp::export]]
Rcpp::List cpp_symmetric_eigen_leading(const Eigen::Map<Eigen::MatrixXd> a, double share, int extra) {
  const krein::SymmetricEigen eig = krein::symmetric_eigen(a, true, [&](const Eigen::VectorXd& values) {
    return krein::leading_by_magnitude(values, share, extra);
  });
  const Eigen::Index n = eig.values.size();
  Rcpp::IntegerVector selected(eig.selected.size());
  for (size_t j = 0; j < eig.selected.size(); ++j) selected[j] = static_cast<int>(n - eig.selected[j]);
  return Rcpp::List::create(Rcpp::Named("values") = Eigen::VectorXd(eig.values.reverse()),
                            Rcpp::Named("vectors") = eig.vectors, Rcpp::Named("selected") = selected);
}

// U diag(f) U', exactly symmetric (spectrum corrections, the Krein SVM's flip).
// [[Rcpp::export]]
Eigen::MatrixXd cpp_spectral_matrix(const Eigen::Map<Eigen::MatrixXd> U, const Eigen::Map<Eigen::VectorXd> f) {
  return krein::spectral_matrix(U, f);
}

// Set the number of OpenMP threads of this process (Eigen's products follow
// it); returns the previous number. tune_krein() runs each parallel worker's
// fits on one thread, so that workers do not oversubscribe the cores.
// [[Rcpp::export]]
int cpp_set_omp_threads(int threads) {
  return krein::parallel::set_default_threads(threads);
}

// The processors available to this process: the cap of every `threads` argument.
// [[Rcpp::export]]
int cpp_processor_count() {
  return krein::parallel::processor_count();
}
