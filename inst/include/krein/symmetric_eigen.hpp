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

// Thin declaration of LAPACK dsyevr with its usual arguments; returns INFO.
int dsyevr(char jobz, char range, char uplo, int n, double* a, int lda, double vl, double vu,
           int il, int iu, double abstol, int* m, double* w, double* z, int ldz, int* isuppz,
           double* work, int lwork, int* iwork, int liwork);

}  // namespace lapack

struct SymmetricEigen {
  Eigen::VectorXd values;   // ascending, as LAPACK returns them
  Eigen::MatrixXd vectors;  // column j belongs to values[j]; empty if not asked for
};

// All eigenvalues (and, if `vectors`, eigenvectors) of the symmetric matrix A.
// Only the lower triangle of A is read.
inline SymmetricEigen symmetric_eigen(const Eigen::Ref<const Eigen::MatrixXd>& A, bool vectors) {
  if (A.rows() != A.cols()) throw std::invalid_argument("symmetric_eigen needs a square matrix");
  const int n = static_cast<int>(A.rows());
  SymmetricEigen result;
  result.values.resize(n);
  if (n == 0) return result;
  Eigen::MatrixXd a = A;  // dsyevr overwrites its input
  if (vectors) result.vectors.resize(n, n);
  const char jobz = vectors ? 'V' : 'N';
  int found = 0;
  std::vector<int> isuppz(2 * static_cast<size_t>(n));
  double* z = vectors ? result.vectors.data() : nullptr;
  double dummy_z = 0.0;
  if (!vectors) z = &dummy_z;
  // Workspace query, then the computation.
  double work_query = 0.0;
  int iwork_query = 0;
  int info = lapack::dsyevr(jobz, 'A', 'L', n, a.data(), n, 0.0, 0.0, 0, 0, 0.0, &found,
                            result.values.data(), z, vectors ? n : 1, isuppz.data(), &work_query,
                            -1, &iwork_query, -1);
  if (info != 0) throw std::runtime_error("dsyevr workspace query failed, info = " + std::to_string(info));
  const int lwork = std::max(1, static_cast<int>(work_query));
  const int liwork = std::max(1, iwork_query);
  std::vector<double> work(static_cast<size_t>(lwork));
  std::vector<int> iwork(static_cast<size_t>(liwork));
  info = lapack::dsyevr(jobz, 'A', 'L', n, a.data(), n, 0.0, 0.0, 0, 0, 0.0, &found,
                        result.values.data(), z, vectors ? n : 1, isuppz.data(), work.data(),
                        lwork, iwork.data(), liwork);
  if (info != 0) throw std::runtime_error("dsyevr failed to converge, info = " + std::to_string(info));
  return result;
}

}  // namespace krein

#endif  // KREIN_SYMMETRIC_EIGEN_HPP
