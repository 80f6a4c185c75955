// krein: dense symmetric eigenproblems through LAPACK's dsyevr.
//
// The core only declares the LAPACK entry points it needs (krein::lapack
// below); the definitions are an adapter supplied by whoever links the core: the
// R package forwards it to the LAPACK R is linked against (src/lapack.cpp), so
// users with an optimised LAPACK get its speed; a standalone build links any
// LAPACK. Nothing here includes an R header.
#ifndef KREIN_SYMMETRIC_EIGEN_HPP
#define KREIN_SYMMETRIC_EIGEN_HPP

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
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
int dstebz(char range, char order, int n, double vl, double vu, int il, int iu, double abstol,
           const double* d, const double* e, int* m, int* nsplit, double* w, int* iblock,
           int* isplit, double* work, int* iwork);
int dstein(int n, const double* d, const double* e, int m, const double* w, const int* iblock,
           const int* isplit, double* z, int ldz, double* work, int* iwork, int* ifail);
int dsteqr(char compz, int n, double* d, double* e, double* z, int ldz, double* work);

}  // namespace lapack

struct SymmetricEigen {
  Eigen::VectorXd values;   // ascending, as LAPACK returns them
  Eigen::MatrixXd vectors;  // column j belongs to values[j]; empty if not asked for
  // with a selection (symmetric_eigen()'s `select`): the positions in
  // `values` whose vectors are the columns of `vectors`, in that order
  std::vector<Eigen::Index> selected;
};

// Chooses, from all eigenvalues (ascending), the positions whose eigenvectors
// are computed
using EigenSelection = std::function<std::vector<Eigen::Index>(const Eigen::VectorXd& values)>;

// The positions of the eigenvalues of largest magnitude, largest first (ties
// in their order in `values`), up to the fewest whose magnitudes hold `share`
// of the total of the nonzero ones (magnitude above max * n * eps), then
// `extra` more where there are: the components kernel PCA keeps for a share
// of its absolute eigenvalue mass (ikpca_qd()), with a margin for a caller
// that recounts them with another rounding.
inline std::vector<Eigen::Index> leading_by_magnitude(const Eigen::VectorXd& values, double share,
                                                      Eigen::Index extra) {
  const Eigen::Index n = values.size();
  std::vector<Eigen::Index> order(n);
  std::iota(order.begin(), order.end(), Eigen::Index(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](Eigen::Index a, Eigen::Index b) { return std::abs(values[a]) > std::abs(values[b]); });
  const double largest = n > 0 ? std::abs(values[order[0]]) : 0.0;
  const double cutoff = largest * static_cast<double>(n) * std::numeric_limits<double>::epsilon();
  Eigen::Index nonzero = 0;
  double total = 0.0;
  while (nonzero < n && std::abs(values[order[nonzero]]) > cutoff) total += std::abs(values[order[nonzero++]]);
  Eigen::Index count = 0;
  double held = 0.0;
  while (count < nonzero && !(held >= share * total)) held += std::abs(values[order[count++]]);
  order.resize(std::min(n, count + extra));
  return order;
}

namespace detail {

// The eigenpairs of the symmetric tridiagonal matrix with diagonal `diag` and
// subdiagonal `off` (its first n - 1 entries) when MRRR (dstemr) has failed:
// what dsyevr itself falls back to -- all eigenvalues by bisection (dstebz,
// to the highest accuracy, abstol = 2 * the safe minimum) and their vectors by
// inverse iteration (dstein, which reorthogonalises within clusters) -- and,
// should inverse iteration not converge, the implicit QL/QR iteration of
// dsteqr (the eigensolver of dsyev), slower but the most robust of the three.
// `values` ascending, `Z` n x n. Returns false (with the INFOs in `report`)
// only if every method failed.
inline bool tridiagonal_eigen_fallback(const Eigen::VectorXd& diag, const Eigen::VectorXd& off,
                                       Eigen::VectorXd& values, Eigen::MatrixXd& Z,
                                       std::string& report) {
  const int n = static_cast<int>(diag.size());
  {
    int found = 0, nsplit = 0;
    std::vector<int> iblock(n), isplit(n), iwork(3 * static_cast<size_t>(n));
    std::vector<double> work(4 * static_cast<size_t>(n));
    Eigen::VectorXd w(n);
    const double abstol = 2 * std::numeric_limits<double>::min();
    int info = lapack::dstebz('A', 'B', n, 0.0, 0.0, 0, 0, abstol, diag.data(), off.data(), &found,
                              &nsplit, w.data(), iblock.data(), isplit.data(), work.data(),
                              iwork.data());
    if (info == 0 && found == n) {
      Eigen::MatrixXd vectors(n, n);
      std::vector<double> work5(5 * static_cast<size_t>(n));
      std::vector<int> iwork1(n), ifail(n);
      info = lapack::dstein(n, diag.data(), off.data(), n, w.data(), iblock.data(), isplit.data(),
                            vectors.data(), n, work5.data(), iwork1.data(), ifail.data());
      if (info == 0) {
        // dstebz orders by block; sort the pairs ascending, as dstemr returns them
        std::vector<int> order(n);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return w[a] < w[b]; });
        for (int k = 0; k < n; ++k) {
          values[k] = w[order[k]];
          Z.col(k) = vectors.col(order[k]);
        }
        return true;
      }
      report += ", dstein info = " + std::to_string(info);
    } else {
      report += ", dstebz info = " + std::to_string(info);
    }
  }
  Eigen::VectorXd d = diag, e = off;
  std::vector<double> work(std::max(1, 2 * n - 2));
  const int info = lapack::dsteqr('I', n, d.data(), e.data(), Z.data(), n, work.data());
  if (info != 0) {
    report += ", dsteqr info = " + std::to_string(info);
    return false;
  }
  values = d;  // dsteqr sorts ascending
  return true;
}

// A test switch: true makes symmetric_eigen() skip dstemr and take the
// fallback, so that tests can compare the two paths on any matrix.
inline bool& force_tridiagonal_fallback() {
  static bool force = false;
  return force;
}

}  // namespace detail

// All eigenvalues (and, if `vectors`, eigenvectors) of the symmetric matrix A.
// Only the lower triangle of A is read.
//
// Eigenvalues alone: dsyevr. With eigenvectors: the steps of dsyevr called one
// by one -- Householder tridiagonalisation (dsytrd), eigenpairs of the
// tridiagonal matrix by MRRR (dstemr) -- with the back-transformation, two
// thirds of the work, done as blocked Eigen products: the same algorithm, but
// 2-3 times faster when R's BLAS is the unoptimised reference one. Like
// dsyevr, it falls back to bisection and inverse iteration where dstemr fails
// (MRRR can, on tight clusters of eigenvalues: LAPACK's INFO = 2x).
//
// With `select`, only the eigenvectors of the positions it chooses from the
// eigenvalues are back-transformed (result.selected; the values are all
// there): the back-transformation, two thirds of the work, shrinks with them
// (kernel PCA's leading components).
inline SymmetricEigen symmetric_eigen(const Eigen::Ref<const Eigen::MatrixXd>& A, bool vectors,
                                      const EigenSelection& select = EigenSelection()) {
  if (A.rows() != A.cols()) throw std::invalid_argument("symmetric_eigen needs a square matrix");
  // LAPACK's answer to NaN or Inf is an obscure INFO (dstemr: 11) or garbage
  if (!A.allFinite()) throw std::invalid_argument("symmetric_eigen: the matrix has NaN or infinite entries");
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
    if (vectors && select) {
      result.selected = select(result.values);  // n == 1: the vector is 1
      result.vectors = Eigen::MatrixXd::Ones(1, static_cast<Eigen::Index>(result.selected.size()));
    } else if (vectors) {
      result.vectors = Eigen::MatrixXd::Ones(1, 1);
    }
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
  // 2. T = Z diag(values) Z'; dstemr overwrites the tridiagonal, which the
  // fallback needs intact
  const Eigen::VectorXd diag_kept = diag, off_kept = off;
  Eigen::MatrixXd Z(n, n);
  info = -1;
  if (!detail::force_tridiagonal_fallback()) {
    std::vector<int> isuppz(2 * static_cast<size_t>(n));
    int found = 0, tryrac = 1, iwork_query = 0;
    info = lapack::dstemr('V', 'A', n, diag.data(), off.data(), 0.0, 0.0, 0, 0, &found,
                          result.values.data(), Z.data(), n, n, isuppz.data(), &tryrac, &query, -1,
                          &iwork_query, -1);
    if (info != 0) throw std::runtime_error("dstemr workspace query failed, info = " + std::to_string(info));
    std::vector<double> work(static_cast<size_t>(std::max(1, static_cast<int>(query))));
    std::vector<int> iwork(static_cast<size_t>(std::max(1, iwork_query)));
    info = lapack::dstemr('V', 'A', n, diag.data(), off.data(), 0.0, 0.0, 0, 0, &found,
                          result.values.data(), Z.data(), n, n, isuppz.data(), &tryrac,
                          work.data(), static_cast<int>(work.size()), iwork.data(),
                          static_cast<int>(iwork.size()));
  }
  if (info != 0) {
    std::string report = "dstemr info = " + std::to_string(info);
    if (!detail::tridiagonal_eigen_fallback(diag_kept, off_kept, result.values, Z, report)) {
      throw std::runtime_error("the symmetric eigensolver failed (" + report + ")");
    }
  }
  // 3. eigenvectors of A = Q Z, Q = H(1) ... H(n-1) applied blockwise
  const Eigen::VectorXd coefficients = tau.head(n - 1);  // named: the sequence keeps a reference
  Eigen::HouseholderSequence<Eigen::MatrixXd, Eigen::VectorXd> Q(a, coefficients);
  Q.setLength(n - 1).setShift(1);
  if (select) {
    result.selected = select(result.values);
    Eigen::MatrixXd Z_selected(n, static_cast<Eigen::Index>(result.selected.size()));
    for (size_t j = 0; j < result.selected.size(); ++j) {
      if (result.selected[j] < 0 || result.selected[j] >= n) throw std::invalid_argument("symmetric_eigen: selection out of range");
      Z_selected.col(static_cast<Eigen::Index>(j)) = Z.col(result.selected[j]);
    }
    result.vectors.noalias() = Q * Z_selected;
    return result;
  }
  result.vectors.noalias() = Q * Z;
  return result;
}

// All eigenvalues and eigenvectors of the symmetric matrix A by LAPACK's
// dsyevr, called as R's eigen(symmetric = TRUE) calls it (lower triangle,
// all pairs, absolute tolerance 0): with the LAPACK R uses, the same pairs to
// the last bit. For the small matrices whose eigenvectors must equal R's
// (the landmark kernel of the Nystroem feature map); symmetric_eigen() is
// faster for large ones.
inline SymmetricEigen symmetric_eigen_dsyevr(const Eigen::Ref<const Eigen::MatrixXd>& A) {
  if (A.rows() != A.cols()) throw std::invalid_argument("symmetric_eigen_dsyevr needs a square matrix");
  if (!A.allFinite()) throw std::invalid_argument("symmetric_eigen: the matrix has NaN or infinite entries");
  const int n = static_cast<int>(A.rows());
  SymmetricEigen result;
  result.values.resize(n);
  result.vectors.resize(n, n);
  if (n == 0) return result;
  Eigen::MatrixXd a = A;  // LAPACK overwrites its input
  int found = 0;
  std::vector<int> isuppz(2 * static_cast<size_t>(n));
  double work_query = 0.0;
  int iwork_query = 0;
  int info = lapack::dsyevr('V', 'A', 'L', n, a.data(), n, 0.0, 0.0, 0, 0, 0.0, &found, result.values.data(),
                            result.vectors.data(), n, isuppz.data(), &work_query, -1, &iwork_query, -1);
  if (info != 0) throw std::runtime_error("dsyevr workspace query failed, info = " + std::to_string(info));
  std::vector<double> work(static_cast<size_t>(std::max(1, static_cast<int>(work_query))));
  std::vector<int> iwork(static_cast<size_t>(std::max(1, iwork_query)));
  info = lapack::dsyevr('V', 'A', 'L', n, a.data(), n, 0.0, 0.0, 0, 0, 0.0, &found, result.values.data(),
                        result.vectors.data(), n, isuppz.data(), work.data(), static_cast<int>(work.size()),
                        iwork.data(), static_cast<int>(iwork.size()));
  if (info != 0) throw std::runtime_error("dsyevr failed to converge, info = " + std::to_string(info));
  return result;
}

// U diag(f) U': the matrix of a spectral function f of a symmetric matrix with
// eigenvectors U -- the spectrum corrections (clip, flip) and their maps of new
// points (Chen, Garcia, Gupta, Rahimi & Cazzanti 2009, JMLR 10, Sec. 3), and
// the flipped kernel of the Krein SVM (Loosli, Canu & Ong 2016). Only the lower
// triangle is computed (Eigen's triangular product, half the flops of a general
// one, in Eigen rather than R's BLAS) and mirrored, so the result is exactly
// symmetric.
inline Eigen::MatrixXd spectral_matrix(const Eigen::Ref<const Eigen::MatrixXd>& U,
                                       const Eigen::Ref<const Eigen::VectorXd>& f) {
  if (U.cols() != f.size()) throw std::invalid_argument("spectral_matrix: U and f do not conform");
  const Eigen::MatrixXd scaled = U * f.asDiagonal();
  Eigen::MatrixXd out(U.rows(), U.rows());
  out.triangularView<Eigen::Lower>() = scaled * U.transpose();
  out.triangularView<Eigen::StrictlyUpper>() = out.transpose();
  return out;
}

}  // namespace krein

#endif  // KREIN_SYMMETRIC_EIGEN_HPP
