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

// A leading decomposition (symmetric_eigen() with leading_by_magnitude()) as
// R gets it: values in decreasing order, `selected` 1-based among them
inline Rcpp::List leading_eigen_list(const krein::SymmetricEigen& eig) {
  const Eigen::Index n = eig.values.size();
  Rcpp::IntegerVector selected(eig.selected.size());
  for (size_t j = 0; j < eig.selected.size(); ++j) selected[j] = static_cast<int>(n - eig.selected[j]);
  return Rcpp::List::create(Rcpp::Named("values") = Eigen::VectorXd(eig.values.reverse()),
                            Rcpp::Named("vectors") = eig.vectors, Rcpp::Named("selected") = selected);
}

// For each symmetric matrix of a list: all eigenvalues in decreasing order,
// and the eigenvectors of the leading ones by magnitude only
// (krein::leading_by_magnitude(): those holding `share` of the nonzero
// magnitudes, and `extra` more), as `vectors` with `selected`, their
// 1-based positions among the values. The matrices are decomposed on
// `threads` threads, one matrix each (ikpca_qd()'s folds: each
// decomposition is LAPACK's sequential tridiagonalisation, so the folds are
// where threads pay), with the same results as one by one; a single matrix
// gets the threads for its back-transformation instead.
// [[Rcpp::export]]
Rcpp::List cpp_symmetric_eigen_leading_each(const Rcpp::List& matrices, double share, int extra, int threads) {
  std::vector<Eigen::Map<Eigen::MatrixXd>> inputs;
  for (R_xlen_t k = 0; k < matrices.size(); ++k) {
    SEXP m = matrices[k];
    if (!Rf_isReal(m) || !Rf_isMatrix(m)) throw std::invalid_argument("every matrix must be a numeric matrix");
    inputs.emplace_back(REAL(m), Rf_nrows(m), Rf_ncols(m));
  }
  const auto decompose = [&](const Eigen::Map<Eigen::MatrixXd>& a) {
    return krein::symmetric_eigen(a, true, [&](const Eigen::VectorXd& values) {
      return krein::leading_by_magnitude(values, share, extra);
    });
  };
  std::vector<krein::SymmetricEigen> results(inputs.size());
  if (inputs.size() == 1) {
    // one matrix: its back-transformation's blocked products take the threads
    const krein::parallel::EigenThreads eigen_threads(threads);
    results[0] = decompose(inputs[0]);
  } else {
    krein::parallel::parallel_for(0, static_cast<Eigen::Index>(inputs.size()), threads,
                                  krein::parallel::Schedule::dynamic(1), [&](Eigen::Index k) {
      results[static_cast<size_t>(k)] = decompose(inputs[static_cast<size_t>(k)]);
    });
  }
  Rcpp::List out(inputs.size());
  for (size_t k = 0; k < results.size(); ++k) out[k] = leading_eigen_list(results[k]);
  return out;
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
