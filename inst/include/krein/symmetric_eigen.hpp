// krein: dense symmetric eigenproblems through LAPACK's dsyevr.
//
// The core only declares the LAPACK entry point it needs (krein::lapack::dsyevr
// below); the definition is an adapter supplied by whoever links the core: the
// R package forwards it to the LAPACK R is linked against (src/lapack.cpp), so
// users with an optimised LAPACK get its speed; a standalone build links any
// LAPACK. Nothing here includes an R header.
#ifndef KREIN_SYMMETRIC_EIGEN_HPP
#define KREIN_SYMMETRIC_EIGEN_HPP

#include <Eigen/Dense>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace krein {
namespace lapack {

// Thin declarations of the LAPACK routines used, with their usual arguments;
// each returns INFO.
int dsyevr(char jobz, char range, char uplo, int n, double* a, int lda, double vl, double vu,
           int il, int iu, double abstol, int* m, double* w, double* z, int ldz, int* isuppz,
           double* work, int lwork, int* iwork, int liwork);
int dsytrd(char uplo, int n, double* a, int lda, double* d, double* e, double* tau, double* work,
           int lwork);
int dstemr(char jobz, char range, int n, double* d, double* e, double vl, double vu, int il, int iu,
           int* m, double* w, double* z, int ldz, int nzc, int* isuppz, int* tryrac, double* work,
           int lwork, int* iwork, int liwork);

}  // namespace lapack

struct SymmetricEigen {
  Eigen::VectorXd values;   // ascending, as LAPACK returns them
  Eigen::MatrixXd vectors;  // column j belongs to values[j]; empty if not asked for
};

// All eigenvalues (and, if `vectors`, eigenvectors) of the symmetric matrix A.
// Only the lower triangle of A is read.
//
// Eigenvalues alone: dsyevr. With eigenvectors: the steps of dsyevr called one
// by one -- Householder tridiagonalisation (dsytrd), eigenpairs of the
// tridiagonal matrix by MRRR (dstemr) -- with the back-transformation, two
// thirds of the work, done as blocked Eigen products: the same algorithm, but
// 2-3 times faster when R's BLAS is the unoptimised reference one.
inline SymmetricEigen symmetric_eigen(const Eigen::Ref<const Eigen::MatrixXd>& A, bool vectors) {
  if (A.rows() != A.cols()) throw std::invalid_argument("symmetric_eigen needs a square matrix");
  const int n = static_cast<int>(A.rows());
  SymmetricEigen result;
  result.values.resize(n);
  if (n == 0) return result;
  Eigen::MatrixXd a = A;  // LAPACK overwrites its input
  if (!vectors || n == 1) {
    int found = 0;
    std::vector<int> isuppz(2 * static_cast<size_t>(n));
    double dummy_z = 0.0, work_query = 0.0;
    int iwork_query = 0;
    int info = lapack::dsyevr('N', 'A', 'L', n, a.data(), n, 0.0, 0.0, 0, 0, 0.0, &found,
                              result.values.data(), &dummy_z, 1, isuppz.data(), &work_query, -1,
                              &iwork_query, -1);
    if (info != 0) throw std::runtime_error("dsyevr workspace query failed, info = " + std::to_string(info));
    std::vector<double> work(static_cast<size_t>(std::max(1, static_cast<int>(work_query))));
    std::vector<int> iwork(static_cast<size_t>(std::max(1, iwork_query)));
    info = lapack::dsyevr('N', 'A', 'L', n, a.data(), n, 0.0, 0.0, 0, 0, 0.0, &found,
                          result.values.data(), &dummy_z, 1, isuppz.data(), work.data(),
                          static_cast<int>(work.size()), iwork.data(), static_cast<int>(iwork.size()));
    if (info != 0) throw std::runtime_error("dsyevr failed to converge, info = " + std::to_string(info));
    if (vectors) result.vectors = Eigen::MatrixXd::Ones(1, 1);
    return result;
  }
  // 1. A = Q T Q' (lower storage: the reflectors stay below the subdiagonal of a)
  Eigen::VectorXd diag(n), off(n), tau(n);
  double query = 0.0;
  int info = lapack::dsytrd('L', n, a.data(), n, diag.data(), off.data(), tau.data(), &query, -1);
  if (info != 0) throw std::runtime_error("dsytrd workspace query failed, info = " + std::to_string(info));
  {
    std::vector<double> work(static_cast<size_t>(std::max(1, static_cast<int>(query))));
    info = lapack::dsytrd('L', n, a.data(), n, diag.data(), off.data(), tau.data(), work.data(),
                          static_cast<int>(work.size()));
    if (info != 0) throw std::runtime_error("dsytrd failed, info = " + std::to_string(info));
  }
  // 2. T = Z diag(values) Z'
  Eigen::MatrixXd Z(n, n);
  std::vector<int> isuppz(2 * static_cast<size_t>(n));
  int found = 0, tryrac = 1, iwork_query = 0;
  info = lapack::dstemr('V', 'A', n, diag.data(), off.data(), 0.0, 0.0, 0, 0, &found,
                        result.values.data(), Z.data(), n, n, isuppz.data(), &tryrac, &query, -1,
                        &iwork_query, -1);
  if (info != 0) throw std::runtime_error("dstemr workspace query failed, info = " + std::to_string(info));
  {
    std::vector<double> work(static_cast<size_t>(std::max(1, static_cast<int>(query))));
    std::vector<int> iwork(static_cast<size_t>(std::max(1, iwork_query)));
    info = lapack::dstemr('V', 'A', n, diag.data(), off.data(), 0.0, 0.0, 0, 0, &found,
                          result.values.data(), Z.data(), n, n, isuppz.data(), &tryrac,
                          work.data(), static_cast<int>(work.size()), iwork.data(),
                          static_cast<int>(iwork.size()));
    if (info != 0) throw std::runtime_error("dstemr failed, info = " + std::to_string(info));
  }
  // 3. eigenvectors of A = Q Z, Q = H(1) ... H(n-1) applied blockwise
  const Eigen::VectorXd coefficients = tau.head(n - 1);  // named: the sequence keeps a reference
  Eigen::HouseholderSequence<Eigen::MatrixXd, Eigen::VectorXd> Q(a, coefficients);
  Q.setLength(n - 1).setShift(1);
  result.vectors.noalias() = Q * Z;
  return result;
}

}  // namespace krein

#endif  // KREIN_SYMMETRIC_EIGEN_HPP
