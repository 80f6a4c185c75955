// krein: the numerical tolerances shared by the core's models, each defined
// once and named for what it decides, with the positive semidefinite test
// that applies two of them, and the double centring of a kernel matrix
// (paper 000, Sec. IV: H K H, H = I - 11'/n) that KQD needs for every class.
#ifndef KREIN_NUMERICS_HPP
#define KREIN_NUMERICS_HPP

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>

namespace krein {
namespace numerics {

// An eigenvalue of a symmetric n x n matrix computed in floating point is
// known only to within a small multiple of n eps max|lambda|; one below
// 100 n eps max|lambda| in magnitude counts as zero (its sign is then
// meaningless: paper 000, Table II takes J = +1 there).
inline double zero_eigenvalue_tolerance(Eigen::Index n, double largest) {
  return 100.0 * static_cast<double>(std::max<Eigen::Index>(n, 1)) *
         std::numeric_limits<double>::epsilon() * largest;
}

// A pseudo-inverse keeps the eigenvalues above sqrt(eps) max|lambda| (the
// tolerance of MASS::ginv): it divides by them, and a kept eigenvalue near
// rounding level would turn rounding errors into O(1) errors, while dropping
// it changes the approximated matrix by at most that eigenvalue.
inline double pseudo_inverse_cutoff(double largest) {
  return std::sqrt(std::numeric_limits<double>::epsilon()) * largest;
}

// Two relative tolerances decide positive semidefiniteness, both documented
// to users, and they differ on purpose:
// - KQD (?kqd): a class kernel is indefinite when an eigenvalue lies below
//   -1e-8 max|lambda|. The decision switches to the IKQD formulas of paper
//   000, Table II, which change the classifier, so only clear negative
//   eigenvalues count; the Cholesky test of the same decision uses the same
//   number as its jitter.
// - MEB landmarks (?select_landmarks): a class block is treated as a Gram
//   matrix when its Cholesky factorisation with a jitter of 1e-10 max|K_ii|
//   succeeds. A block that fails still has a ball, that of K_j K_j' (paper
//   002, Algorithm 1, step 4), so the test may be strict: it only has to
//   keep rounding-level negative eigenvalues of a positive definite kernel
//   from making squared distances negative.
constexpr double indefinite_tolerance = 1e-8;
constexpr double psd_block_jitter = 1e-10;

// Positive semidefinite up to `jitter`: the Cholesky factorisation of
// A + jitter max|A_ii| I succeeds. Only the lower triangle of A is read.
inline bool is_psd(const Eigen::Ref<const Eigen::MatrixXd>& A, double jitter) {
  const double scale =
      std::max(A.diagonal().cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());
  Eigen::MatrixXd shifted = A;
  shifted.diagonal().array() += jitter * scale;
  const Eigen::LLT<Eigen::MatrixXd> llt(shifted);
  return llt.info() == Eigen::Success;
}

// H A H with H = I - 11'/n, for symmetric A, without forming H; optionally
// the row means of A and their mean (what centring a new kernel row needs).
inline Eigen::MatrixXd double_centre(const Eigen::Ref<const Eigen::MatrixXd>& A,
                                     Eigen::VectorXd* row_means = nullptr,
                                     double* grand_mean = nullptr) {
  const Eigen::VectorXd means = A.rowwise().mean();
  const double grand = means.mean();
  Eigen::MatrixXd out = A;
  out.colwise() -= means;
  out.rowwise() -= means.transpose();
  out.array() += grand;
  if (row_means != nullptr) *row_means = means;
  if (grand_mean != nullptr) *grand_mean = grand;
  return out;
}

}  // namespace numerics
}  // namespace krein

#endif  // KREIN_NUMERICS_HPP
