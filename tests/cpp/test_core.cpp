// Tests of the numerical core without R (the core builds and is tested on its
// own). Each kernel against a naive pair-by-pair transcription of its formula;
// the symmetric eigensolver against A V = V diag(values); the tiled dense
// kernels against Eigen's; the tolerances, parallel_for, MEB, iKFD, KQD and
// PCVM against facts that can be checked by hand or by a direct formula.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "krein/ikfd.hpp"
#include "krein/kernels.hpp"
#include "krein/kfda.hpp"
#include "krein/kqd.hpp"
#include "krein/meb.hpp"
#include "krein/numerics.hpp"
#include "krein/kqd_nystrom.hpp"
#include "krein/parallel.hpp"
#include "krein/parallel_dense.hpp"
#include "krein/pcvm.hpp"
#include "krein/symmetric_eigen.hpp"
#include "krein/tsqr.hpp"

namespace {

int passed = 0;
int failed = 0;

void expect(bool ok, const char* what) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    std::printf("FAILED: %s\n", what);
  }
}

Eigen::MatrixXd random_matrix(int rows, int cols, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd m(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = normal(gen);
  return m;
}

using PairKernel = std::function<double(const Eigen::VectorXd&, const Eigen::VectorXd&)>;

double max_relative_error(const Eigen::MatrixXd& got, const Eigen::MatrixXd& x,
                          const Eigen::MatrixXd& y, const PairKernel& k) {
  double err = 0, scale = 0;
  for (int i = 0; i < x.rows(); ++i) {
    for (int j = 0; j < y.rows(); ++j) {
      const double ref = k(x.row(i).transpose(), y.row(j).transpose());
      err = std::max(err, std::abs(got(i, j) - ref));
      scale = std::max(scale, std::abs(ref));
    }
  }
  return err / scale;
}

void check_kernel(const char* name, const krein::KernelSpec& spec, const PairKernel& k,
                  const PairKernel* tau_k = nullptr) {
  const Eigen::MatrixXd x = random_matrix(37, 3, 1), y = random_matrix(29, 3, 2);
  const Eigen::MatrixXd x_tau = -x, y_tau = -y;
  Eigen::MatrixXd kxx(37, 37), kxy(37, 29);
  const krein::MatrixRef xr(x), yr(y), xtr(x_tau), ytr(y_tau);
  for (int threads : {1, 2}) {
    krein::kernel_matrix(spec, xr, xr, spec.invariant ? &xtr : nullptr, kxx, true, threads);
    krein::kernel_matrix(spec, xr, yr, spec.invariant ? &ytr : nullptr, kxy, false, threads);
    const PairKernel& ref = tau_k ? *tau_k : k;
    char what[200];
    std::snprintf(what, sizeof what, "%s: K(x, x) equals the formula (threads %d)", name, threads);
    expect(max_relative_error(kxx, x, x, ref) < 1e-12, what);
    std::snprintf(what, sizeof what, "%s: K(x, y) equals the formula (threads %d)", name, threads);
    expect(max_relative_error(kxy, x, y, ref) < 1e-12, what);
    std::snprintf(what, sizeof what, "%s: K(x, x) is exactly symmetric", name);
    expect((kxx - kxx.transpose()).cwiseAbs().maxCoeff() == 0.0, what);
  }
}


// A test kernel matrix of a built-in kernel on the rows of x.
Eigen::MatrixXd kernel_of(const krein::KernelSpec& spec, const Eigen::MatrixXd& x) {
  Eigen::MatrixXd K(x.rows(), x.rows());
  const krein::MatrixRef xr(x);
  krein::kernel_matrix(spec, xr, xr, nullptr, K, true, 1);
  return K;
}

krein::KernelSpec rbf_spec(double gamma) {
  krein::KernelSpec spec;
  spec.type = krein::KernelType::rbf;
  spec.gamma = gamma;
  return spec;
}

void test_kernels() {
  using krein::KernelType;
  krein::KernelSpec spec;

  spec.type = KernelType::rbf;
  spec.gamma = 0.7;
  PairKernel rbf = [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return std::exp(-0.7 * (a - b).squaredNorm());
  };
  check_kernel("rbf", spec, rbf);

  spec.invariant = true;
  PairKernel invariant_rbf = [&](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return std::max(rbf(a, b), rbf(a, -b));
  };
  check_kernel("invariant rbf", spec, rbf, &invariant_rbf);
  spec.invariant = false;

  spec.type = KernelType::poly;
  spec.degree = 3;
  spec.scale = 0.5;
  spec.offset = 1;
  check_kernel("poly", spec, [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return std::pow(0.5 * a.dot(b) + 1, 3);
  });

  spec.type = KernelType::dist;
  spec.s = 3;
  spec.power = 4;
  check_kernel("dist", spec, [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return std::exp(-std::pow((a - b).squaredNorm(), 4) / 9);
  });

  spec.type = KernelType::epanechnikov;
  spec.width = 2;
  check_kernel("epanechnikov", spec, [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    double p = 1;
    for (int k = 0; k < a.size(); ++k) {
      const double t = (a[k] - b[k]) / 2;
      p *= std::abs(t) < 1 ? 1 - t * t : 0;
    }
    return p;
  });

  spec.type = KernelType::tanh;
  spec.scale = 0.3;
  spec.offset = -0.5;
  check_kernel("tanh", spec, [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    return std::tanh(0.3 * a.dot(b) - 0.5);
  });
}

// A checkpoint that throws stops the computation and the exception reaches the caller.
void test_checkpoint() {
  const Eigen::MatrixXd x = random_matrix(100, 2, 3);
  Eigen::MatrixXd out(100, 100);
  bool stopped = false;
  try {
    krein::kernel_matrix(rbf_spec(1.0), x, x, nullptr, out, true, 1,
                         [] { throw std::runtime_error("interrupted"); });
  } catch (const std::runtime_error&) {
    stopped = true;
  }
  expect(stopped, "a throwing checkpoint abandons the computation");
}

// Symmetric eigendecomposition through LAPACK dsyevr.
void test_symmetric_eigen() {
  Eigen::MatrixXd a = random_matrix(40, 40, 4);
  a = (a + a.transpose()).eval();
  const krein::SymmetricEigen eig = krein::symmetric_eigen(a, true);
  const double residual =
      (a * eig.vectors - eig.vectors * eig.values.asDiagonal()).cwiseAbs().maxCoeff();
  expect(residual < 1e-10 * a.cwiseAbs().maxCoeff(), "eigenpairs satisfy A V = V diag(values)");
  const double orthogonality =
      (eig.vectors.transpose() * eig.vectors - Eigen::MatrixXd::Identity(40, 40)).cwiseAbs().maxCoeff();
  expect(orthogonality < 1e-12, "eigenvectors are orthonormal");
  bool ascending = true;
  for (int i = 1; i < 40; ++i) ascending = ascending && eig.values[i - 1] <= eig.values[i];
  expect(ascending, "eigenvalues come in ascending order");
  const krein::SymmetricEigen values_only = krein::symmetric_eigen(a, false);
  expect((values_only.values - eig.values).cwiseAbs().maxCoeff() < 1e-10,
         "values alone equal the values with vectors");
}

// Eigenpairs check: A V = V diag(values), V orthonormal, values ascending.
bool is_eigendecomposition(const Eigen::MatrixXd& a, const krein::SymmetricEigen& eig) {
  const Eigen::Index n = a.rows();
  const double scale = a.cwiseAbs().maxCoeff();
  const double residual = (a * eig.vectors - eig.vectors * eig.values.asDiagonal()).cwiseAbs().maxCoeff();
  const double orthogonality =
      (eig.vectors.transpose() * eig.vectors - Eigen::MatrixXd::Identity(n, n)).cwiseAbs().maxCoeff();
  bool ascending = true;
  for (Eigen::Index i = 1; i < n; ++i) ascending = ascending && eig.values[i - 1] <= eig.values[i];
  return residual < 1e-10 * scale && orthogonality < 1e-10 && ascending;
}

// A symmetric tridiagonal matrix on which LAPACK's MRRR (dstemr) fails with
// INFO = 22: the tridiagonal form (dsytrd) of a 200 x 200 Gaussian kernel
// matrix on 200 k-means landmarks of kernlab's spam data (the reproducer of
// issue 16, item 3), kept as its diagonal and subdiagonal. Shared with the R
// tests (tests/testthat/fixtures).
bool read_failing_tridiagonal(Eigen::MatrixXd& T) {
  std::ifstream in("../testthat/fixtures/dstemr-failing-tridiagonal.txt");
  std::string header_a, header_b;
  if (!(in >> header_a >> header_b)) return false;
  std::vector<double> d, e;
  double a, b;
  while (in >> a >> b) {
    d.push_back(a);
    e.push_back(b);
  }
  const Eigen::Index n = static_cast<Eigen::Index>(d.size());
  if (n < 2) return false;
  T = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    T(i, i) = d[i];
    if (i + 1 < n) T(i + 1, i) = T(i, i + 1) = e[i];
  }
  return true;
}

// Where dstemr fails, symmetric_eigen() falls back (as dsyevr does) to
// bisection and inverse iteration; the fallback agrees with MRRR where both work.
void test_symmetric_eigen_fallback() {
  Eigen::MatrixXd T;
  expect(read_failing_tridiagonal(T), "the dstemr-failing tridiagonal fixture is readable");
  if (T.rows() > 0) {
    const int n = static_cast<int>(T.rows());
    Eigen::VectorXd d = T.diagonal(), e(n), w(n);
    e.head(n - 1) = T.diagonal(-1);
    e[n - 1] = 0;
    Eigen::MatrixXd Z(n, n);
    std::vector<int> isuppz(2 * n);
    int found = 0, tryrac = 1, iwork_query = 0;
    double query = 0;
    krein::lapack::dstemr('V', 'A', n, d.data(), e.data(), 0, 0, 0, 0, &found, w.data(), Z.data(), n, n,
                          isuppz.data(), &tryrac, &query, -1, &iwork_query, -1);
    std::vector<double> work(static_cast<size_t>(query));
    std::vector<int> iwork(iwork_query);
    const int info = krein::lapack::dstemr('V', 'A', n, d.data(), e.data(), 0, 0, 0, 0, &found, w.data(),
                                           Z.data(), n, n, isuppz.data(), &tryrac, work.data(),
                                           static_cast<int>(work.size()), iwork.data(), iwork_query);
    if (info == 0) std::printf("note: dstemr of this LAPACK does not fail on the fixture; the fallback is tested by the switch only\n");
    bool threw = false;
    krein::SymmetricEigen eig;
    try {
      eig = krein::symmetric_eigen(T, true);
    } catch (const std::exception&) {
      threw = true;
    }
    expect(!threw && is_eigendecomposition(T, eig),
           "a matrix on which dstemr fails still gets exact eigenpairs (fallback)");
    if (!threw) {
      const krein::SymmetricEigen values_only = krein::symmetric_eigen(T, false);  // dsyevr
      expect((values_only.values - eig.values).cwiseAbs().maxCoeff() < 1e-10 * T.cwiseAbs().maxCoeff(),
             "fallback eigenvalues equal dsyevr's");
    }
  }
  // the forced fallback agrees with MRRR on a matrix where both work
  Eigen::MatrixXd a = random_matrix(30, 30, 31);
  a = (a + a.transpose()).eval();
  const krein::SymmetricEigen mrrr = krein::symmetric_eigen(a, true);
  krein::detail::force_tridiagonal_fallback() = true;
  const krein::SymmetricEigen fallback = krein::symmetric_eigen(a, true);
  krein::detail::force_tridiagonal_fallback() = false;
  expect(is_eigendecomposition(a, fallback), "the forced fallback gives exact eigenpairs");
  expect((fallback.values - mrrr.values).cwiseAbs().maxCoeff() < 1e-10 * a.cwiseAbs().maxCoeff(),
         "the forced fallback's eigenvalues equal MRRR's");
  // eigenvectors agree up to sign (the eigenvalues of a random matrix are distinct)
  const Eigen::MatrixXd overlap = (fallback.vectors.transpose() * mrrr.vectors).cwiseAbs();
  expect((overlap.diagonal().array() - 1.0).abs().maxCoeff() < 1e-8,
         "the forced fallback's eigenvectors equal MRRR's up to sign");
  // NaN input: an exception, not an obscure LAPACK INFO
  Eigen::MatrixXd bad = a;
  bad(3, 2) = std::numeric_limits<double>::quiet_NaN();
  bool threw = false;
  try {
    krein::symmetric_eigen(bad, true);
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  expect(threw, "symmetric_eigen rejects NaN entries");
}

// The KQD error bias: a NaN decision value throws instead of looping forever
// (its tie loop never advanced on NaN and grew memory until bad_alloc).
void test_kqd_bias_non_finite() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double bad : {nan, std::numeric_limits<double>::infinity()}) {
    bool threw = false;
    try {
      krein::kqd::best_pair_bias({1.0, bad, 2.0}, {-1.0, nan});
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    expect(threw, "best_pair_bias rejects non-finite decision values");
  }
  const krein::kqd::PairBias pb = krein::kqd::best_pair_bias({1.0, 2.0, 2.0}, {-1.0, -1.0});
  expect(pb.error == 0.0 && pb.delta == 0.0, "best_pair_bias: separable scores with ties give 0 errors at the middle threshold");
  // first {1}, second {2}: a threshold below 1 errs on the second point, one
  // above 2 on the first; the weights decide (closed with 2 mean gaps = 2)
  const krein::kqd::PairBias heavy_second = krein::kqd::best_pair_bias({1.0}, {2.0}, 1.0, 3.0);
  expect(heavy_second.error == 1.0 && heavy_second.delta == -3.0, "best_pair_bias: a heavier second class moves the threshold above its point");
  const krein::kqd::PairBias heavy_first = krein::kqd::best_pair_bias({1.0}, {2.0}, 3.0, 1.0);
  expect(heavy_first.error == 1.0 && heavy_first.delta == 0.0, "best_pair_bias: a heavier first class moves the threshold below its point");
}

// One thread-count rule; every index visited exactly once under either schedule.
void test_parallel_for() {
  expect(krein::parallel::thread_count(3) == 3 || krein::parallel::thread_count(3) == 1,
         "a positive thread count is taken as given (1 without OpenMP)");
  expect(krein::parallel::thread_count(0) >= 1, "thread count 0 resolves to at least one thread");
  expect(krein::parallel::processor_count() >= 1, "at least one processor is counted");
  for (int threads : {0, 1, 2}) {
    for (const krein::parallel::Schedule plan :
         {krein::parallel::Schedule::blocks(), krein::parallel::Schedule::dynamic(3)}) {
      std::vector<int> visits(1001, 0);
      krein::parallel::parallel_for(1, 1001, threads, plan, [&](Eigen::Index i) { visits[i] += 1; });
      bool once = visits[0] == 0;
      for (int i = 1; i < 1001; ++i) once = once && visits[i] == 1;
      expect(once, "parallel_for visits each index of [begin, end) exactly once");
    }
  }
}

// Tiled parallel rank-k update and Cholesky against Eigen's (sizes not
// multiples of the tile).
void test_parallel_dense() {
  const Eigen::MatrixXd x = random_matrix(421, 300, 5);
  Eigen::MatrixXd tiled = Eigen::MatrixXd::Zero(421, 421);
  krein::dense::rank_update(tiled, x, 0.5, 2);
  const Eigen::MatrixXd plain = 0.5 * x * x.transpose();
  expect((tiled.triangularView<Eigen::Lower>().toDenseMatrix() -
          plain.triangularView<Eigen::Lower>().toDenseMatrix()).cwiseAbs().maxCoeff() < 1e-10,
         "tiled rank-k update equals X X'");
  Eigen::MatrixXd spd = plain + Eigen::MatrixXd::Identity(421, 421);
  Eigen::MatrixXd factor = spd;
  expect(krein::dense::cholesky(factor, 2), "tiled Cholesky succeeds on an spd matrix");
  const Eigen::MatrixXd L = factor.triangularView<Eigen::Lower>();
  expect((L * L.transpose() - spd).cwiseAbs().maxCoeff() < 1e-9, "tiled Cholesky reproduces A = L L'");
  Eigen::MatrixXd indefinite = -Eigen::MatrixXd::Identity(300, 300);
  expect(!krein::dense::cholesky(indefinite, 2), "tiled Cholesky refuses an indefinite matrix");
}

// The shared tolerances and building blocks of numerics.hpp.
void test_numerics() {
  using namespace krein::numerics;
  expect(zero_eigenvalue_tolerance(10, 2.0) == 100.0 * 10 * std::numeric_limits<double>::epsilon() * 2.0,
         "an eigenvalue is zero below 100 n eps max|lambda|");
  // an eigenvalue of -1e-9 (relative to a unit diagonal): within the KQD
  // tolerance, beyond the MEB jitter
  Eigen::MatrixXd A = Eigen::MatrixXd::Identity(2, 2);
  A(1, 1) = -1e-9;
  expect(is_psd(A, indefinite_tolerance), "the KQD test accepts an eigenvalue of -1e-9 max|A_ii|");
  expect(!is_psd(A, psd_block_jitter), "the MEB test refuses an eigenvalue of -1e-9 max|A_ii|");
  const Eigen::MatrixXd B = random_matrix(7, 7, 12);
  const Eigen::MatrixXd S = B + B.transpose();
  const Eigen::MatrixXd H = Eigen::MatrixXd::Identity(7, 7) - Eigen::MatrixXd::Constant(7, 7, 1.0 / 7);
  Eigen::VectorXd means;
  double grand = 0;
  const Eigen::MatrixXd centred = double_centre(S, &means, &grand);
  expect((centred - H * S * H).cwiseAbs().maxCoeff() < 1e-13, "double_centre(A) = H A H");
  expect(std::abs(grand - S.mean()) < 1e-14 && (means - S.rowwise().mean()).cwiseAbs().maxCoeff() < 1e-14,
         "double_centre reports the row means and their mean");
}

// MEB of the vertices of a regular simplex (identity Gram matrix): the centre
// is their mean, R^2 = 1 - 1/k, and every vertex is a core point. The kernel
// and block sources give the core set of explicit columns.
void test_meb() {
  const int k = 7;
  const Eigen::MatrixXd gram = Eigen::MatrixXd::Identity(k, k);
  const krein::meb::Result r = krein::meb::core_set(
      gram.diagonal(), [&gram](Eigen::Index s) { return Eigen::VectorXd(gram.col(s)); }, 2, 1e-6, 100);
  expect(r.converged, "MEB converges on a simplex");
  expect(static_cast<int>(r.core.size()) == k, "every simplex vertex is a core point");
  expect(std::abs(r.radius2 - (1.0 - 1.0 / k)) < 1e-8, "MEB radius of a simplex is sqrt(1 - 1/k)");

  const Eigen::MatrixXd x = random_matrix(80, 2, 13);
  const krein::KernelSpec spec = rbf_spec(2.0);
  const Eigen::MatrixXd K = kernel_of(spec, x);
  const krein::meb::Result explicit_columns = krein::meb::core_set(
      K.diagonal(), [&K](Eigen::Index s) { return Eigen::VectorXd(K.col(s)); }, 5, 0.01, 80);
  const krein::MatrixRef xr(x);
  const krein::meb::Result on_demand = krein::meb::kernel_core_set(spec, xr, nullptr, 5, 0.01, 80, 2);
  expect(on_demand.core == explicit_columns.core &&
             (on_demand.weights - explicit_columns.weights).cwiseAbs().maxCoeff() < 1e-12,
         "MEB with kernel columns on demand equals MEB on the kernel matrix");
  const krein::meb::BlockResult block = krein::meb::block_core_set(K, krein::meb::Definiteness::unknown, 5, 0.01, 80);
  expect(!block.squared && block.ball.core == explicit_columns.core,
         "MEB on a positive definite block uses the block itself");
  // an indefinite block: the ball of K K'
  krein::KernelSpec tanh = spec;
  tanh.type = krein::KernelType::tanh;
  tanh.scale = 1.0;
  tanh.offset = -1.0;
  const Eigen::MatrixXd T = kernel_of(tanh, x);
  const Eigen::MatrixXd TT = T * T.transpose();
  const krein::meb::Result squared_columns = krein::meb::core_set(
      TT.diagonal(), [&TT](Eigen::Index s) { return Eigen::VectorXd(TT.col(s)); }, 5, 0.01, 80);
  const krein::meb::BlockResult squared = krein::meb::block_core_set(T, krein::meb::Definiteness::unknown, 5, 0.01, 80);
  expect(squared.squared && squared.ball.core == squared_columns.core &&
             std::abs(squared.ball.radius2 - squared_columns.radius2) < 1e-10 * squared_columns.radius2,
         "MEB on an indefinite block is MEB on K K'");
}

// iKFD: the discriminant separates two well-separated classes with the
// documented sign (positive for the first class), for the full and the
// Nystroem fit with every point a landmark.
void test_ikfd() {
  Eigen::MatrixXd x = random_matrix(40, 2, 6);
  std::vector<int> labels(40);
  for (int i = 0; i < 40; ++i) {
    labels[i] = i < 20 ? 0 : 1;
    x(i, 0) += i < 20 ? 4.0 : -4.0;
  }
  const Eigen::MatrixXd K = kernel_of(rbf_spec(0.5), x);
  const krein::ikfd::Discriminants full = krein::ikfd::fit_full(K, labels, 2, krein::ikfd::Weights::equal, 1e-4, 2);
  const Eigen::VectorXd f = K * full.coefficients.col(0);
  bool separated = true;
  for (int i = 0; i < 40; ++i) separated = separated && ((f[i] + full.bias[0] > 0) == (labels[i] == 0));
  expect(separated, "full iKFD separates the classes, positive for the first");
  const std::vector<Eigen::MatrixXd> factors = krein::ikfd::class_factors(K, labels, 2, 1);
  const krein::ikfd::Discriminants ny =
      krein::ikfd::fit_nystrom(factors, {20.0, 20.0}, K, krein::ikfd::Weights::equal, 1e-4);
  const Eigen::VectorXd g = K * ny.coefficients.col(0);
  expect(((g.array() + ny.bias[0]) - (f.array() + full.bias[0])).abs().maxCoeff() <
             1e-6 * (f.array() + full.bias[0]).abs().maxCoeff(),
         "Ny-iKFD with every point a landmark equals the full iKFD");
}

// KQD on a tiny problem against the formulas written out (paper 000, Table II):
// IC+ with the pd formulas is n_j ||(K~ + alpha I)^{-1} k~_x||^2, by the
// Cholesky factor and by the eigenbasis; RC- is (k~_xx - v'Av / (n_j sigma^2)) /
// sigma^2 with A = I (KQD) or A = U J U' (IKQD).
void test_kqd() {
  using krein::kqd::IndefiniteMode;
  using krein::kqd::Variant;
  const Eigen::MatrixXd x = random_matrix(14, 2, 14);
  const Eigen::MatrixXd x_new = random_matrix(5, 2, 15);
  const std::vector<std::vector<Eigen::Index>> members = {{0, 1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12, 13}};
  const double nj = 7.0;
  // the class block, its centring, and centred vectors of the new points
  auto class_terms = [&](const krein::KernelSpec& spec, Eigen::MatrixXd& Kc, Eigen::MatrixXd& V,
                         Eigen::VectorXd& kxx, Eigen::MatrixXd& Kx) {
    const Eigen::MatrixXd K = kernel_of(spec, x);
    Kx.resize(5, 14);
    const krein::MatrixRef nr(x_new), xr(x);
    krein::kernel_matrix(spec, nr, xr, nullptr, Kx, false, 1);
    const Eigen::MatrixXd Kj = K.topLeftCorner(7, 7);
    const Eigen::MatrixXd H = Eigen::MatrixXd::Identity(7, 7) - Eigen::MatrixXd::Constant(7, 7, 1.0 / nj);
    Kc = H * Kj * H;
    const Eigen::VectorXd mean = Kj.rowwise().mean();
    V = H * (Kx.leftCols(7).transpose().colwise() - mean);
    kxx = Eigen::VectorXd::Zero(5);
    for (int i = 0; i < 5; ++i) {
      kxx[i] = krein::kernel_diagonal(spec, nr, nullptr)[i] - 2.0 * Kx.row(i).head(7).mean() + Kj.mean();
    }
  };
  Eigen::MatrixXd Kc, V, Kx;
  Eigen::VectorXd kxx;
  class_terms(rbf_spec(0.8), Kc, V, kxx, Kx);
  const double alpha = 0.05;
  const Eigen::MatrixXd shifted = Kc + alpha * Eigen::MatrixXd::Identity(7, 7);
  const Eigen::MatrixXd solved = shifted.llt().solve(V);
  const Eigen::VectorXd ic_direct = nj * solved.colwise().squaredNorm().transpose();
  for (bool cholesky : {true, false}) {
    const krein::kqd::Model model = krein::kqd::fit(kernel_of(rbf_spec(0.8), x), members, Variant::ic_plus,
                                                    Eigen::MatrixXd::Constant(1, 2, alpha), IndefiniteMode::no, cholesky);
    const Eigen::MatrixXd d = krein::kqd::distances(model, Kx, nullptr)[0];
    expect(model.classes[0].cholesky == cholesky, "IC+ takes the Cholesky path only when allowed");
    expect((d.col(0) - ic_direct).cwiseAbs().maxCoeff() < 1e-9 * ic_direct.cwiseAbs().maxCoeff(),
           cholesky ? "IC+ distances (Cholesky) equal n_j ||(K~ + alpha I)^-1 k~_x||^2"
                    : "IC+ distances (eigenbasis) equal n_j ||(K~ + alpha I)^-1 k~_x||^2");
  }
  // RC- with an indefinite (tanh) kernel, both formulas and a path of two values
  krein::KernelSpec tanh;
  tanh.type = krein::KernelType::tanh;
  tanh.scale = 1.0;
  tanh.offset = -0.5;
  class_terms(tanh, Kc, V, kxx, Kx);
  const krein::SymmetricEigen eig = krein::symmetric_eigen(Kc, true);
  Eigen::MatrixXd J = Eigen::MatrixXd::Identity(7, 7);  // U J U' with J = +1 on zero eigenvalues
  const double zero = krein::numerics::zero_eigenvalue_tolerance(7, eig.values.cwiseAbs().maxCoeff());
  for (int i = 0; i < 7; ++i) {
    if (eig.values[i] < -zero) J -= 2.0 * eig.vectors.col(i) * eig.vectors.col(i).transpose();
  }
  expect(eig.values.minCoeff() < -zero, "the tanh class kernel is indefinite");
  const Eigen::MatrixXd K = kernel_of(tanh, x);
  const Eigen::VectorXd self = krein::kernel_diagonal(tanh, x_new, nullptr);
  Eigen::MatrixXd path(2, 2);
  path << 0.5, 0.5, 2.0, 2.0;
  for (IndefiniteMode mode : {IndefiniteMode::no, IndefiniteMode::yes}) {
    const krein::kqd::Model model = krein::kqd::fit(K, members, Variant::rc_minus, path, mode, true);
    const std::vector<Eigen::MatrixXd> d = krein::kqd::distances(model, Kx, &self);
    const Eigen::MatrixXd A = mode == IndefiniteMode::no ? Eigen::MatrixXd::Identity(7, 7) : J;
    for (int k = 0; k < 2; ++k) {
      const double s2 = path(k, 0);
      const Eigen::VectorXd direct =
          (kxx - (V.transpose() * A * V).diagonal() / (nj * s2)) / s2;
      expect((d[k].col(0) - direct).cwiseAbs().maxCoeff() < 1e-9 * direct.cwiseAbs().maxCoeff(),
             mode == IndefiniteMode::no ? "RC- (KQD, A = I) equals (k~xx - v'v / (n_j s2)) / s2 at each path value"
                                        : "RC- (IKQD, A = U J U') equals (k~xx - v'Av / (n_j s2)) / s2 at each path value");
    }
  }
}

// PCVM E-step: phi(t) / Psi(t) against R's exp(dnorm(t, log = TRUE) -
// pnorm(t, log.p = TRUE)) (R 4.2.2, printed to 17 digits), including the tail
// t << 0 where the continued fraction takes over; continuous at the switch.
void test_pcvm_estep() {
  const double reference[][2] = {{-40, 40.024968847206338},
                                 {-37.600000000000001, 37.626558252922429},
                                 {-20, 20.049753068527725},
                                 {-8, 8.121368112236123},
                                 {-5.0000999999999998, 5.1866006975365053},
                                 {-5, 5.1865039671258426},
                                 {-1, 1.5251352761609813},
                                 {0, 0.79788456080286529},
                                 {3, 0.0044378390421256622},
                                 {30, 1.4736461348785771e-196}};
  double worst = 0.0;
  for (const auto& row : reference) {
    worst = std::max(worst, std::abs(krein::pcvm::inverse_mills(row[0]) / row[1] - 1.0));
  }
  expect(worst < 1e-13, "inverse Mills ratio equals R's dnorm / pnorm in log space, tail included");
  const double below = krein::pcvm::inverse_mills(-5.0 - 1e-9), above = krein::pcvm::inverse_mills(-5.0);
  expect(std::abs(below - above) < 1e-8, "inverse Mills ratio is continuous at the switch");
  const double far = krein::pcvm::inverse_mills(-1e4);
  expect(std::abs(far - 1e4) < 1e-3 && std::isfinite(far), "inverse Mills ratio tends to -t");
}

// PCVM EM: one iteration is one step; the Gram-matrix path (G = K'K formed
// once) follows the per-iteration Phi_A'Phi_A; the factored basis with every
// point a landmark follows the full one; convergence and pruning end the loop
// as documented.
void test_pcvm_em() {
  const int n = 50;
  const Eigen::MatrixXd x = random_matrix(n, 2, 16);
  Eigen::VectorXd y(n), w(n), latent(n);
  std::mt19937 gen(17);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  for (int i = 0; i < n; ++i) {
    y[i] = x(i, 0) * x(i, 1) > 0 ? 1.0 : -1.0;
    w[i] = unif(gen) + 0.2;
    latent[i] = 10 * unif(gen) * y[i] + unif(gen);
  }
  const Eigen::MatrixXd K = kernel_of(rbf_spec(1.0), x);
  const krein::pcvm::FullBasis full(K, y, 1);
  const krein::pcvm::FullBasis per_step(K, y, 1, false);  // Phi_A'Phi_A formed in every step
  krein::pcvm::Control one;
  one.max_iter = 1;
  one.prune = -std::numeric_limits<double>::infinity();
  std::vector<Eigen::Index> all(n);
  for (int i = 0; i < n; ++i) all[i] = i;
  const Eigen::VectorXd Z = krein::pcvm::expected_latent(latent, y, krein::pcvm::EStep::exact);
  const krein::pcvm::Step step = krein::pcvm::step_full(K, y, all, w, -0.3, Z, 1);
  const krein::pcvm::Fit first = krein::pcvm::fit(per_step, w, -0.3, &latent, one);
  expect((first.weights - step.weights).cwiseAbs().maxCoeff() == 0.0 && first.bias == step.bias &&
             first.iterations == 1 && !first.converged && first.training_errors.size() == 1 &&
             first.training_errors[0] == (y.array() * latent.array() <= 0.0).cast<double>().mean() &&
             first.hessian_fallbacks == 0,
         "PCVM EM with max_iter = 1 is one step");
  const krein::pcvm::Fit first_gram = krein::pcvm::fit(full, w, -0.3, &latent, one);
  expect((first_gram.weights - step.weights).cwiseAbs().maxCoeff() < 1e-12 * step.weights.cwiseAbs().maxCoeff() &&
             std::abs(first_gram.bias - step.bias) < 1e-12 * std::abs(step.bias),
         "PCVM's step from G = K'K is the step from Phi'Phi");
  krein::pcvm::Control control;
  control.max_iter = 40;
  const krein::pcvm::Fit f = krein::pcvm::fit(full, w, -0.3, &latent, control);
  const krein::pcvm::Fit f_per_step = krein::pcvm::fit(per_step, w, -0.3, &latent, control);
  bool same_path = f.iterations == f_per_step.iterations;
  for (int i = 0; i < n; ++i) same_path = same_path && ((f.weights[i] > 0) == (f_per_step.weights[i] > 0));
  expect(same_path && (f.weights - f_per_step.weights).cwiseAbs().maxCoeff() < 1e-10,
         "PCVM EM from G = K'K follows EM with Phi_A'Phi_A formed in every step");
  // the M-step by preconditioned CG (every step) follows the direct one; a
  // CG that cannot converge in its one allowed step falls back to G_A
  krein::pcvm::SolverControl cg_only;
  cg_only.solver = krein::pcvm::Solver::cg;
  const krein::pcvm::FullBasis iterative(K, y, 1, true, cg_only);
  const krein::pcvm::Fit f_cg = krein::pcvm::fit(iterative, w, -0.3, &latent, control);
  bool same_cg = f_cg.iterations == f.iterations;
  for (int i = 0; i < n; ++i) same_cg = same_cg && ((f.weights[i] > 0) == (f_cg.weights[i] > 0));
  expect(same_cg && (f.weights - f_cg.weights).cwiseAbs().maxCoeff() < 1e-10 * f.weights.cwiseAbs().maxCoeff() &&
             std::abs(f.bias - f_cg.bias) <= 1e-10 * std::max(1.0, std::abs(f.bias)) &&
             iterative.statistics().cg_iterations == f.iterations && iterative.statistics().fallbacks == 0 &&
             iterative.statistics().sketch_rank == n / 8 && iterative.statistics().gram_size == 0,
         "PCVM EM with CG M-steps follows EM with Cholesky M-steps");
  cg_only.cg_max_steps = 1;
  const krein::pcvm::FullBasis capped(K, y, 1, true, cg_only);
  const krein::pcvm::Fit f_capped = krein::pcvm::fit(capped, w, -0.3, &latent, control);
  expect(f_capped.iterations == f.iterations && (f.weights - f_capped.weights).cwiseAbs().maxCoeff() < 1e-12 &&
             capped.statistics().fallbacks == 1 && capped.statistics().cg_iterations == 0 &&
             capped.statistics().gram_size == n,
         "a CG M-step that does not converge falls back to the direct solve");
  const krein::pcvm::FactoredBasis factored(K, y, y);
  const krein::pcvm::Fit g = krein::pcvm::fit(factored, w, -0.3, &latent, control);
  bool same_support = true;
  for (int i = 0; i < n; ++i) same_support = same_support && ((f.weights[i] > 0) == (g.weights[i] > 0));
  expect(same_support && (f.weights - g.weights).cwiseAbs().maxCoeff() < 1e-6 && f.iterations == g.iterations,
         "Ny-PCVM with every point a landmark follows PCVM");
  bool pruned = true;
  for (int i = 0; i < n; ++i) pruned = pruned && (f.weights[i] == 0.0 || f.weights[i] >= control.prune);
  expect(pruned, "PCVM keeps no weight below `prune`");
  krein::pcvm::Control loose = control;
  loose.tol = std::numeric_limits<double>::infinity();
  const krein::pcvm::Fit early = krein::pcvm::fit(full, w, -0.3, &latent, loose);
  expect(early.converged && early.iterations == 2, "PCVM converges at the earliest in its second iteration");
  krein::pcvm::Control harsh = control;
  harsh.prune = 1e300;
  const krein::pcvm::Fit gone = krein::pcvm::fit(full, w, -0.3, &latent, harsh);
  expect(gone.all_pruned && gone.iterations == 1 && gone.weights.isZero(), "PCVM reports when pruning removed every basis function");
  int calls = 0;
  krein::pcvm::FullBasis replaceable(K, y, 1);
  const krein::pcvm::Fit hooked = krein::pcvm::fit(
      replaceable, w, -0.3, &latent, control,
      [&](const std::vector<Eigen::Index>& active, const krein::pcvm::Step& s) {
        ++calls;
        if (active.empty() || s.latent.size() != n) calls = -1000;
        replaceable.replace_kernel(K);  // the same kernel: the same iterates
      });
  // (the replaced kernel's steps form Phi_A'Phi_A: as f_per_step from the second on)
  expect(calls == hooked.iterations && (hooked.weights - f.weights).cwiseAbs().maxCoeff() < 1e-10,
         "the after-step hook runs once per iteration and may replace the kernel");
  expect(static_cast<int>(f.training_errors.size()) == f.iterations, "PCVM records one training error per iteration");
}

// The E-steps: the exact one's inverse Mills ratio and the reference code's
// phi(f) / (Psi(y f) + eps), which agree where y f is moderate and part where
// it is very negative (the reference form goes to f there), and the bounded
// one between them.
void test_pcvm_e_steps() {
  Eigen::VectorXd f(5), y(5);
  f << 0.5, -2.0, -9.0, -40.0, 3.0;
  y << 1.0, 1.0, 1.0, 1.0, -1.0;
  const Eigen::VectorXd exact = krein::pcvm::expected_latent(f, y, krein::pcvm::EStep::exact);
  const Eigen::VectorXd reference = krein::pcvm::expected_latent(f, y, krein::pcvm::EStep::reference);
  const double eps = std::numeric_limits<double>::epsilon();
  double worst = 0.0;
  for (int i = 0; i < 5; ++i) {
    const double t = y[i] * f[i];
    const double pdf = std::exp(-0.5 * f[i] * f[i]) / std::sqrt(2.0 * M_PI);
    const double cdf = 0.5 * std::erfc(-t / std::sqrt(2.0));
    worst = std::max(worst, std::abs(reference[i] - (f[i] + y[i] * pdf / (cdf + eps))));
  }
  expect(worst == 0.0, "the reference E-step is f + y phi(f) / (Psi(y f) + eps)");
  expect(std::abs(exact[0] - reference[0]) < 1e-12 && std::abs(exact[1] - reference[1]) < 1e-9 &&
             std::abs(exact[4] - reference[4]) < 1e-12,
         "the two E-steps agree for moderate y f");
  expect(std::abs(reference[3] - f[3]) < 1e-300 && std::abs(exact[3]) < 0.03 && std::abs(reference[2] - f[2]) < 0.01,
         "for y f far below zero the reference E-step stays at f, the exact one goes to about 0");
  // the bounded E-step: the exact one down to y f = -8, below it the pull
  // of y f = -8, r(-8) = phi(8) / Psi(-8) = 8.12137 (R: dnorm(8) / pnorm(-8))
  const Eigen::VectorXd bounded = krein::pcvm::expected_latent(f, y, krein::pcvm::EStep::bounded);
  expect((bounded - exact).head(2).cwiseAbs().maxCoeff() == 0.0 && bounded[4] == exact[4],
         "the bounded E-step is the exact one where y f >= -8");
  const double pull_at_limit = 8.1213681122;
  expect(std::abs(bounded[2] - (f[2] + pull_at_limit)) < 1e-8 && std::abs(bounded[3] - (f[3] + pull_at_limit)) < 1e-8,
         "below y f = -8 the bounded E-step pulls by r(-8)");
}

// The M-step's solve: Cholesky, and where rounding breaks it, the
// eigendecomposition with the eigenvalues raised to 1.
void test_pcvm_hessian_fallback() {
  const Eigen::MatrixXd x = random_matrix(6, 3, 21);
  Eigen::MatrixXd spd = x.transpose() * x + Eigen::MatrixXd::Identity(3, 3);
  const Eigen::VectorXd rhs = Eigen::VectorXd::LinSpaced(3, 1.0, 3.0);
  bool fallback = true;
  const Eigen::VectorXd direct = krein::pcvm::solve_hessian([&]() { return spd; }, rhs, 1, fallback);
  expect(!fallback && (spd * direct - rhs).norm() < 1e-12 * rhs.norm(), "the Hessian solve by Cholesky");
  // I + u u' with |u|^2 = 1e34: the identity is lost to rounding; the
  // matrix as stored is rank one and Cholesky fails
  Eigen::VectorXd u(3);
  u << 1e17, 1e17, 1e-3;
  Eigen::MatrixXd lost = u * u.transpose();
  lost.diagonal().array() += 1.0;
  int formed = 0;
  const Eigen::VectorXd solved = krein::pcvm::solve_hessian(
      [&]() {
        ++formed;
        return lost;
      },
      rhs, 1, fallback);
  // rounding of 1e34-sized entries leaves no more than a backward-stable
  // answer to ask for: a small residual relative to |A| |x|, finite, and the
  // component along u (eigenvalue 2e34) about zero
  expect(formed == 2, "the Hessian is formed again for the fallback (the factorisation overwrote it)");
  expect(fallback && solved.allFinite() &&
             (lost * solved - rhs).norm() <= 1e-12 * lost.norm() * std::max(1.0, solved.norm()) &&
             std::abs(u.normalized().dot(solved)) < 1e-10 * solved.norm(),
         "where Cholesky fails, the Hessian is solved with its eigenvalues raised to 1");
}

// KFDA on the kernel data: the centred class factors carry the class scatter
// matrices (R'R = S_c), merged chunks equal one QR, the scatter of the
// principal components is the plain centred cross-product.
void test_kfda() {
  const int n = 300, p = 7;
  Eigen::MatrixXd Z(n, p);
  std::vector<int> labels(n);
  for (int i = 0; i < n; ++i) {
    labels[i] = i % 3;
    for (int j = 0; j < p; ++j) Z(i, j) = 1e3 + std::sin(0.7 * i + 1.3 * j) + 0.1 * labels[i] * j;
  }
  const krein::kfda::ClassFactors f = krein::kfda::class_factors(Z, labels, 3, 2);
  double worst = 0.0;
  for (int c = 0; c < 3; ++c) {
    Eigen::MatrixXd Zc(100, p);
    for (int i = 0, k = 0; i < n; ++i) if (labels[i] == c) Zc.row(k++) = Z.row(i);
    const Eigen::RowVectorXd mean = Zc.colwise().mean();
    worst = std::max(worst, (f.means.col(c).transpose() - mean).cwiseAbs().maxCoeff());
    const Eigen::MatrixXd centred = Zc.rowwise() - mean;
    const Eigen::MatrixXd S = centred.transpose() * centred;
    worst = std::max(worst, (f.factors[c].transpose() * f.factors[c] - S).cwiseAbs().maxCoeff() / S.cwiseAbs().maxCoeff());
  }
  expect(worst < 1e-10, "KFDA class factors: R'R is the centred class scatter despite an offset of 1e3");
  const krein::kfda::CentredSvd cs = krein::kfda::centred_svd(Z, 2);
  const Eigen::MatrixXd centred = Z.rowwise() - Z.colwise().mean();
  const Eigen::MatrixXd S = centred.transpose() * centred;
  const Eigen::MatrixXd VD2V = cs.vectors * cs.singular.array().square().matrix().asDiagonal() *
                               cs.vectors.transpose();
  expect((cs.means.transpose() - Z.colwise().mean()).cwiseAbs().maxCoeff() < 1e-10 &&
             (VD2V - S).cwiseAbs().maxCoeff() < 1e-10 * S.cwiseAbs().maxCoeff(),
         "KFDA centred SVD: V D^2 V' is the centred cross-product despite an offset of 1e3");
  const Eigen::MatrixXd top = krein::tsqr::triangular_factor(Z.topRows(150), p);
  const Eigen::MatrixXd bottom = krein::tsqr::triangular_factor(Z.bottomRows(150), p);
  const Eigen::MatrixXd merged = krein::tsqr::merge_factor(top, bottom);
  const Eigen::MatrixXd G = Z.transpose() * Z;
  expect((merged.transpose() * merged - G).cwiseAbs().maxCoeff() < 1e-12 * G.cwiseAbs().maxCoeff(),
         "merged tall-skinny QR factors give the Gram matrix");
}

// Ny-KQD's prediction kernel (kqd_nystrom.hpp) against its formula evaluated row by
// row: rows in several parallel chunks (n > 1024), two classes of different
// sizes, two path values, one class with the self-similarity term.
void test_kqd_nystrom() {
  const int n = 2500, m = 7;
  krein::kqd_nystrom::Expansion e;
  e.sizes = {3, 5};
  const int total = 8, c = 2, paths = 2;
  e.expansion = random_matrix(m, total + c, 41);
  e.offsets = random_matrix(total, 1, 42).col(0);
  e.weights = random_matrix(total, paths, 43);
  e.scale = random_matrix(paths, c, 44);
  e.self_scale = Eigen::MatrixXd::Zero(paths, c);
  e.self_scale.col(1) = random_matrix(paths, 1, 45).col(0);
  e.self_offsets = random_matrix(c, 1, 46).col(0);
  const Eigen::MatrixXd C = random_matrix(n, m, 47);
  const Eigen::VectorXd self = random_matrix(n, 1, 48).col(0);
  const std::vector<Eigen::MatrixXd> d = krein::kqd_nystrom::distances(e, C, self, 2);
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    const Eigen::RowVectorXd p = C.row(i) * e.expansion;
    int first = 0;
    for (int j = 0; j < c; ++j) {
      for (int k = 0; k < paths; ++k) {
        double q = 0;
        for (int a = first; a < first + e.sizes[j]; ++a) q += e.weights(a, k) * std::pow(p[a] - e.offsets[a], 2);
        const double want = e.scale(k, j) * q +
                            e.self_scale(k, j) * (self[i] - 2 * p[total + j] + e.self_offsets[j]);
        worst = std::max(worst, std::abs(d[k](i, j) - want) / (1 + std::abs(want)));
      }
      first += e.sizes[j];
    }
  }
  expect(worst < 1e-12, "kqd_nystrom::distances equals its formula row by row");
  bool threw = false;
  try {
    krein::kqd_nystrom::distances(e, C.leftCols(m - 1), self, 1);
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  expect(threw, "kqd_nystrom::distances refuses a kernel with the wrong number of landmarks");
}

}  // namespace

// The kernels' block exponential: Eigen's packet exp() where results are
// normal numbers, std::exp outside, so that it agrees with std::exp to a few
// units in the last place everywhere and exactly where results underflow,
// overflow or are NaN; and it reports non-finite results.
void test_exp_block() {
  std::vector<double> x;
  for (int i = 0; i <= 2000; ++i) x.push_back(-760.0 + 0.7531 * i);  // -760 .. 746
  x.push_back(-std::numeric_limits<double>::infinity());
  x.push_back(0.0);
  x.push_back(-1e-300);
  const int len = static_cast<int>(x.size());
  bool in_range = true, outside_exact = true;
  for (int i0 = 0; i0 < len; i0 += krein::detail::kRowBlock) {
    const int block = std::min(krein::detail::kRowBlock, len - i0);
    std::vector<double> out(block);
    const bool finite = krein::detail::exp_block(x.data() + i0, out.data(), block);
    bool expected_finite = true;
    for (int i = 0; i < block; ++i) {
      const double arg = x[i0 + i], exact = std::exp(arg);
      expected_finite &= std::isfinite(exact);
      if (arg >= -708.0 && arg <= 708.0) {
        in_range &= std::abs(out[i] - exact) <= 4 * std::numeric_limits<double>::epsilon() * exact;
      } else {
        outside_exact &= out[i] == exact;
      }
    }
    expect(finite == expected_finite, "exp_block reports whether its results are finite");
  }
  expect(in_range, "exp_block agrees with std::exp to a few ulp in [-708, 708]");
  expect(outside_exact, "exp_block equals std::exp where results underflow or overflow");
  const double nan_arg[3] = {-1.0, std::numeric_limits<double>::quiet_NaN(), -2.0};
  double nan_out[3];
  expect(!krein::detail::exp_block(nan_arg, nan_out, 3) && std::isnan(nan_out[1]) && nan_out[0] == nan_out[0],
         "exp_block propagates NaN and reports it");
  // one pair of points, one value: the symmetric matrix (columns of every
  // length) and the cross-kernel at a few of its columns agree bitwise, for
  // each kernel whose values go through exp_block
  const Eigen::MatrixXd X = random_matrix(301, 3, 5);
  const std::vector<Eigen::Index> rows = {0, 1, 2, 7, 128, 255, 256, 257, 300};
  Eigen::MatrixXd L(rows.size(), 3);
  for (size_t r = 0; r < rows.size(); ++r) L.row(r) = X.row(rows[r]);
  for (krein::KernelType type : {krein::KernelType::rbf, krein::KernelType::dist}) {
    krein::KernelSpec spec;
    spec.type = type;
    spec.gamma = 0.7;
    spec.s = 1.3;
    spec.power = 1.5;
    Eigen::MatrixXd full(301, 301), cross(301, rows.size());
    krein::kernel_matrix(spec, X, X, nullptr, full, true, 2);
    krein::kernel_matrix(spec, X, L, nullptr, cross, false, 2);
    bool same = true;
    for (size_t r = 0; r < rows.size(); ++r) same &= (full.col(rows[r]).array() == cross.col(r).array()).all();
    expect(same, "a kernel value is the same bitwise in a symmetric matrix and in a cross-kernel");
  }
}

int main() {
  test_kernels();
  test_checkpoint();
  test_symmetric_eigen();
  test_symmetric_eigen_fallback();
  test_parallel_for();
  test_parallel_dense();
  test_numerics();
  test_meb();
  test_ikfd();
  test_kqd();
  test_kqd_bias_non_finite();
  test_kqd_nystrom();
  test_pcvm_estep();
  test_pcvm_em();
  test_pcvm_e_steps();
  test_pcvm_hessian_fallback();
  test_exp_block();
  test_kfda();
  std::printf("core: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
