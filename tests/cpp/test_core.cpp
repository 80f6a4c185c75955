// Tests of the numerical core without R (the core builds and is tested on its
// own). Each kernel against a naive pair-by-pair transcription of its formula;
// the symmetric eigensolver against A V = V diag(values); the tiled dense
// kernels against Eigen's; the tolerances, parallel_for, MEB and the block
// exponential against facts that can be checked by hand or by a direct
// formula. The models' tests are in test_discriminants.cpp and
// test_pcvm_kfda.cpp; main() runs them all.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "krein/svm.hpp"
#ifdef _OPENMP
#include <omp.h>
#endif
#include "krein/kernels.hpp"
#include "krein/kqd.hpp"
#include "krein/landmark_pass.hpp"
#include "krein/meb.hpp"
#include "krein/nearest.hpp"
#include "krein/numerics.hpp"
#include "krein/parallel.hpp"
#include "krein/parallel_dense.hpp"
#include "krein/symmetric_eigen.hpp"
#include "krein/tsqr.hpp"

#include "test_harness.hpp"

using namespace krein_test;

namespace {

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
  // a selection of the eigenvectors (kernel PCA's leading components by
  // magnitude): the same columns as the full decomposition's, all values;
  // the leading ones hold the share asked for, one fewer do not
  const krein::SymmetricEigen some = krein::symmetric_eigen(a, true, [](const Eigen::VectorXd& values) {
    return krein::leading_by_magnitude(values, 0.6, 2);
  });
  bool same_columns = some.values == eig.values && some.vectors.cols() == static_cast<Eigen::Index>(some.selected.size());
  for (size_t j = 0; j < some.selected.size() && same_columns; ++j) {
    same_columns = (some.vectors.col(static_cast<Eigen::Index>(j)) - eig.vectors.col(some.selected[j])).cwiseAbs().maxCoeff() < 1e-12;
  }
  expect(same_columns, "a selection of eigenvectors equals those columns of the full decomposition");
  double total = 0.0, held = 0.0, before = 0.0;
  for (int i = 0; i < 40; ++i) total += std::abs(eig.values[i]);
  const size_t count = some.selected.size() - 2;
  bool decreasing = true;
  for (size_t j = 0; j < some.selected.size(); ++j) {
    if (j > 0) decreasing = decreasing && std::abs(eig.values[some.selected[j - 1]]) >= std::abs(eig.values[some.selected[j]]);
    if (j < count) held += std::abs(eig.values[some.selected[j]]);
    if (j + 1 < count) before += std::abs(eig.values[some.selected[j]]);
  }
  expect(decreasing, "the selection runs by decreasing magnitude");
  expect(held >= 0.6 * total * (1 - 1e-12) && before < 0.6 * total,
         "the selection is the fewest leading by magnitude holding the share, and the margin");
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
// matrix on 200 k-means landmarks of kernlab's spam data, kept as its
// diagonal and subdiagonal. Shared with the R tests
// (tests/testthat/fixtures).
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
// (a tie loop that does not advance on NaN grows memory until bad_alloc).
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

// on_calling_thread(): true outside a region and on thread 0 of every level,
// false on the other threads (the PCVM starts ask R for interrupts only
// where it is true)
void test_on_calling_thread() {
  expect(krein::parallel::on_calling_thread(), "outside a parallel region the caller is the calling thread");
  std::vector<int> calling(2, -1);
#ifdef _OPENMP
#pragma omp parallel num_threads(2)
  {
    const int t = omp_get_thread_num();
    if (t < 2) calling[t] = krein::parallel::on_calling_thread() ? 1 : 0;
  }
  expect(calling[0] == 1, "thread 0 of a region is the calling thread");
  expect(calling[1] == 0 || calling[1] == -1, "another thread of a region is not");
#endif
}

// The two-class C-SVM dual (svm.hpp) against its own optimality conditions:
// 0 <= a <= C, y'a = 0 and a maximal KKT violation below eps (Keerthi et al.
// 2001's m(a) - M(a)), on a Gaussian kernel and on an indefinite one; and
// the separable toy problem two points give by hand: a = 2 / |x1 - x2|^2 for
// the linear kernel, rho = 0 when they are symmetric about the origin.
void test_svm_binary() {
  const Eigen::MatrixXd x = random_matrix(60, 2, 71);
  Eigen::VectorXd y(60);
  for (int i = 0; i < 60; ++i) y[i] = x(i, 0) * x(i, 1) > 0 ? 1.0 : -1.0;
  Eigen::MatrixXd K_indefinite = kernel_of(rbf_spec(1.0), x);
  for (int i = 0; i < 60; ++i)
    for (int j = 0; j < 60; ++j) K_indefinite(i, j) -= 0.5 * std::exp(-0.1 * (x.row(i) - x.row(j)).squaredNorm());
  for (const Eigen::MatrixXd& K : {kernel_of(rbf_spec(1.0), x), K_indefinite}) {
    for (double C : {0.1, 1.0, 100.0}) {
      const krein::svm::BinaryFit fit = krein::svm::solve_binary(K, y, C, 1e-3);
      const Eigen::VectorXd& a = fit.alpha;
      Eigen::VectorXd G(60);
      for (int i = 0; i < 60; ++i) {
        double q = 0.0;
        for (int j = 0; j < 60; ++j) q += y[i] * y[j] * K(i, j) * a[j];
        G[i] = q - 1.0;
      }
      double up = -1e300, low = 1e300, balance = 0.0;
      bool bounded = true;
      for (int i = 0; i < 60; ++i) {
        bounded = bounded && a[i] >= 0.0 && a[i] <= C;
        balance += y[i] * a[i];
        const double v = -y[i] * G[i];
        if ((y[i] > 0 && a[i] < C) || (y[i] < 0 && a[i] > 0)) up = std::max(up, v);
        if ((y[i] > 0 && a[i] > 0) || (y[i] < 0 && a[i] < C)) low = std::min(low, v);
      }
      expect(fit.converged, "the SVM dual converges");
      expect(bounded, "the SVM dual variables stay within [0, C]");
      expect(std::abs(balance) < 1e-9 * C * 60, "the SVM dual keeps y'a = 0");
      expect(up - low < 1e-3 + 1e-12, "the SVM dual stops with a KKT violation below eps");
    }
  }
  Eigen::MatrixXd two(2, 2);
  two << 1.0, -1.0, -1.0, 1.0;  // x = 1 and x = -1, linear kernel
  Eigen::VectorXd signs(2);
  signs << 1.0, -1.0;
  const krein::svm::BinaryFit toy = krein::svm::solve_binary(two, signs, 10.0, 1e-6);
  expect(std::abs(toy.alpha[0] - 0.5) < 1e-12 && std::abs(toy.alpha[1] - 0.5) < 1e-12,
         "two points at +-1: a = 2 / |x1 - x2|^2 = 0.5");
  expect(std::abs(toy.rho) < 1e-12, "two points symmetric about 0: rho = 0");
  bool refused = false;
  try {
    krein::svm::solve_binary(two, signs, 0.0);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  expect(refused, "the SVM dual refuses C <= 0");
}

// The one-vs-one decisions of every pair and cost at once
// (one_vs_one_decisions(), one call per fold of a cost cross-validation)
// against the two-class solver on each pair's points, gathered by hand:
// column c * pairs + p is pair p's f = K_new[, members] (a y) - rho at cost
// c, the pairs (0, 1), (0, 2), (1, 2), the second class +1.
void test_svm_one_vs_one() {
  const Eigen::MatrixXd x = random_matrix(36, 2, 73), x_new = random_matrix(7, 2, 74);
  Eigen::VectorXi codes(36);
  for (int i = 0; i < 36; ++i) codes[i] = (x(i, 0) > 0.4) + (x(i, 1) > 0.0);
  Eigen::MatrixXd K = kernel_of(rbf_spec(0.7), x), K_new(7, 36);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 36; ++j) K_new(i, j) = std::exp(-0.7 * (x_new.row(i) - x.row(j)).squaredNorm());
  Eigen::VectorXd costs(2);
  costs << 0.5, 20.0;
  const Eigen::MatrixXd all = krein::svm::one_vs_one_decisions(K, codes, 3, costs, K_new, 1e-3);
  bool same = all.rows() == 7 && all.cols() == 6;
  const int firsts[3] = {0, 0, 1}, seconds[3] = {1, 2, 2};
  for (int c = 0; c < 2 && same; ++c) {
    for (int pair = 0; pair < 3; ++pair) {
      std::vector<int> members;
      for (int i = 0; i < 36; ++i)
        if (codes[i] == firsts[pair] || codes[i] == seconds[pair]) members.push_back(i);
      const int size = static_cast<int>(members.size());
      Eigen::MatrixXd K_pair(size, size);
      Eigen::VectorXd y(size);
      for (int a = 0; a < size; ++a) {
        y[a] = codes[members[a]] == seconds[pair] ? 1.0 : -1.0;
        for (int b = 0; b < size; ++b) K_pair(a, b) = K(members[a], members[b]);
      }
      const krein::svm::BinaryFit fit = krein::svm::solve_binary(K_pair, y, costs[c], 1e-3);
      for (int i = 0; i < 7; ++i) {
        double f = -fit.rho;
        for (int a = 0; a < size; ++a) f += K_new(i, members[a]) * fit.alpha[a] * y[a];
        same = same && std::abs(all(i, c * 3 + pair) - f) <= 1e-12 * (1.0 + std::abs(f));
      }
    }
  }
  expect(same, "the one-vs-one decisions of all pairs and costs equal the pairs' own two-class fits");
}

// An exception in a parallel_for body (an allocation that fails on a worker
// thread, a kernel that throws) must not end the process: it is caught on
// its thread and rethrown, with its type, on the calling thread, and the
// region's remaining iterations are skipped.
void test_parallel_for_exceptions() {
  for (int threads : {1, 4}) {
    for (const krein::parallel::Schedule plan :
         {krein::parallel::Schedule::blocks(), krein::parallel::Schedule::dynamic(1)}) {
      bool caught = false;
      try {
        krein::parallel::parallel_for(0, 1000, threads, plan, [&](Eigen::Index i) {
          if (i == 437) throw std::bad_alloc();
        });
      } catch (const std::bad_alloc&) {
        caught = true;
      }
      expect(caught, "a std::bad_alloc on a worker thread reaches the caller of parallel_for");
      std::string message;
      try {
        krein::parallel::parallel_for(0, 64, threads, plan, [&](Eigen::Index i) {
          if (i % 2 == 1) throw std::invalid_argument("odd " + std::to_string(i));
        });
      } catch (const std::invalid_argument& e) {
        message = e.what();
      }
      expect(message.rfind("odd ", 0) == 0, "the first exception of several is rethrown with its type and message");
    }
  }
  // the landmark pass: a consumer (or a kernel evaluation) that throws on a
  // worker thread ends the pass with that exception, not std::terminate
  const Eigen::MatrixXd x = random_matrix(5000, 2, 31), landmarks = random_matrix(20, 2, 32);
  const krein::MatrixRef xr(x), lr(landmarks);
  bool caught = false;
  try {
    krein::landmark_pass::for_each_block(rbf_spec(1.0), xr, lr, 256, 4, {},
                                         [&](int, Eigen::Index begin, const Eigen::Ref<const Eigen::MatrixXd>&) {
      if (begin >= 2500) throw std::runtime_error("a kernel that throws");
    });
  } catch (const std::runtime_error& e) {
    caught = std::string(e.what()) == "a kernel that throws";
  }
  expect(caught, "an exception in the landmark pass reaches its caller");
  // the first non-finite kernel value, in row order whatever the threads
  Eigen::MatrixXd bad = x;
  bad(3001, 1) = std::numeric_limits<double>::quiet_NaN();
  bad(4321, 0) = std::numeric_limits<double>::infinity();
  const krein::MatrixRef br(bad);
  for (int threads : {1, 4}) {
    const krein::landmark_pass::NonFinite first =
        krein::landmark_pass::for_each_block(rbf_spec(1.0), br, lr, 256, threads, {},
                                             [](int, Eigen::Index, const Eigen::Ref<const Eigen::MatrixXd>&) {});
    expect(first.found() && first.row == 3001 && first.column == 0,
           "the landmark pass reports the row and landmark of the first non-finite kernel value");
  }
  const krein::landmark_pass::NonFinite none =
      krein::landmark_pass::for_each_block(rbf_spec(1.0), xr, lr, 256, 4, {},
                                           [](int, Eigen::Index, const Eigen::Ref<const Eigen::MatrixXd>&) {});
  expect(!none.found(), "a pass with finite kernel values reports none");
}

// The landmark pass's class factors stay within their memory budget: with
// many classes, landmarks and threads the pass runs on fewer threads (at
// least one), and the factors are those of one thread to rounding.
void test_landmark_pass_budget() {
  using krein::landmark_pass::factor_buffer_bytes;
  using krein::landmark_pass::factor_capacity;
  using krein::landmark_pass::factor_threads;
  const double budget = krein::landmark_pass::factor_budget_bytes;
  bool within = true;
  for (const Eigen::Index m : {10, 100, 400, 1000, 3000}) {
    for (const int classes : {2, 11, 40}) {
      for (const int threads : {1, 2, 16, 64}) {
        const int used = factor_threads(m, classes, threads);
        const Eigen::Index capacity = factor_capacity(m, classes, used);
        const double bytes = factor_buffer_bytes(m, classes, used, capacity);
        const double least = factor_buffer_bytes(m, classes, 1, 2 * (m + 1));
        within = within && used >= 1 && used <= threads && capacity >= 2 * (m + 1) && capacity <= 16 * (m + 1) &&
                 (bytes <= budget || (used == 1 && bytes <= least));
      }
    }
  }
  expect(within, "the class pass's buffers fit the budget, or one thread at the least capacity");
  expect(factor_threads(1000, 11, 16) == 1 && factor_threads(100, 2, 16) == 16,
         "16 threads, 11 classes and 1000 landmarks run on one thread (the buffers were 4 GB); small passes keep every thread");
  // 11 classes, 400 landmarks, 16 threads asked: fewer run, same factors
  const int n = 3000, m = 400, classes = 11;
  const Eigen::MatrixXd x = random_matrix(n, 3, 33), landmarks = random_matrix(m, 3, 34);
  std::vector<int> labels(n);
  for (int i = 0; i < n; ++i) labels[i] = (i * 7) % classes;
  const krein::MatrixRef xr(x), lr(landmarks);
  const auto many = krein::landmark_pass::class_factors(rbf_spec(0.5), xr, lr, labels, classes, 128, 16, {});
  const auto one = krein::landmark_pass::class_factors(rbf_spec(0.5), xr, lr, labels, classes, 128, 1, {});
  double worst = 0.0;
  for (int c = 0; c < classes; ++c) {
    // R'R is what the factor carries (rows may differ in sign)
    const Eigen::MatrixXd a = many.factors[c].transpose() * many.factors[c];
    const Eigen::MatrixXd b = one.factors[c].transpose() * one.factors[c];
    worst = std::max(worst, (a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff());
  }
  expect(many.threads > 1 && many.threads < 16 && one.threads == 1 && worst < 1e-10,
         "with 11 classes and 400 landmarks the class pass takes fewer than the 16 threads asked, and the same factors");
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

// IKNN's nearest columns (nearest.hpp): R's order() on each row -- distances
// ascending, ties to the smaller column, NaN last -- by a bounded heap, on
// any number of threads; the kernel form evaluates d2 as R does and counts
// the negative distances but a row's own column.
void test_nearest() {
  const Eigen::Index rows = 150, columns = 37;
  Eigen::MatrixXd D = random_matrix(rows, columns, 21);
  // ties (rounded values), NaN and infinities
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (Eigen::Index j = 0; j < columns; ++j) {
      if ((i + j) % 3 == 0) D(i, j) = std::round(D(i, j));
      if ((i * 7 + j) % 23 == 0) D(i, j) = std::numeric_limits<double>::quiet_NaN();
      if ((i * 5 + j) % 41 == 0) D(i, j) = -std::numeric_limits<double>::infinity();
    }
  }
  const auto ordered = [&](Eigen::Index i) {
    std::vector<Eigen::Index> order(columns);
    for (Eigen::Index j = 0; j < columns; ++j) order[j] = j;
    std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
      const bool a_nan = std::isnan(D(i, a)), b_nan = std::isnan(D(i, b));
      if (a_nan || b_nan) return !a_nan && b_nan;
      return D(i, a) < D(i, b);
    });
    return order;
  };
  for (Eigen::Index count : {Eigen::Index(1), Eigen::Index(5), Eigen::Index(26), columns}) {
    Eigen::MatrixXi one(rows, count), two(rows, count);
    krein::nearest::nearest_of_distances(D, count, one, 1);
    krein::nearest::nearest_of_distances(D, count, two, 2);
    bool same_order = true;
    for (Eigen::Index i = 0; i < rows; ++i) {
      const std::vector<Eigen::Index> order = ordered(i);
      for (Eigen::Index t = 0; t < count; ++t) same_order &= one(i, t) == order[t];
    }
    expect(same_order, "the nearest columns follow order(): ties to the smaller column, NaN last");
    expect(one == two, "the nearest columns do not depend on the threads");
  }
  // the kernel form: d2 = (s_i - 2 K_ij) + t_j, negatives counted but a row's own column
  const Eigen::MatrixXd K = random_matrix(rows, columns, 22);
  const Eigen::VectorXd row_self = random_matrix(rows, 1, 23).col(0);
  const Eigen::VectorXd column_self = random_matrix(columns, 1, 24).col(0);
  std::vector<Eigen::Index> own(rows, -1);
  for (Eigen::Index j = 0; j < columns; ++j) own[3 * j] = j;
  Eigen::MatrixXd d2(rows, columns);
  double negative = 0;
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (Eigen::Index j = 0; j < columns; ++j) {
      d2(i, j) = (row_self[i] - 2.0 * K(i, j)) + column_self[j];
      if (d2(i, j) < 0 && own[i] != j) negative += 1;
    }
  }
  Eigen::MatrixXi from_kernel(rows, 6), from_distances(rows, 6);
  const double counted = krein::nearest::nearest_of_kernel(K, row_self, column_self, own, 6, from_kernel, 2);
  krein::nearest::nearest_of_distances(d2, 6, from_distances, 1);
  expect(from_kernel == from_distances, "the kernel form finds the neighbours of its squared distances");
  expect(counted == negative && negative > 0, "the kernel form counts the negative distances but a row's own");
  bool refused = false;
  try {
    krein::nearest::nearest_of_distances(D, columns + 1, from_kernel, 1);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  expect(refused, "more nearest columns than columns are refused");
}

int main() {
  test_kernels();
  test_checkpoint();
  test_symmetric_eigen();
  test_symmetric_eigen_fallback();
  test_parallel_for();
  test_parallel_for_exceptions();
  test_on_calling_thread();
  test_svm_binary();
  test_svm_one_vs_one();
  test_landmark_pass_budget();
  test_parallel_dense();
  test_numerics();
  test_meb();
  test_ikfd();
  test_kqd();
  test_kqd_bias_non_finite();
  test_kqd_nystrom();
  test_shrunk_gaussian();
  test_pcvm_estep();
  test_pcvm_em();
  test_pcvm_e_steps();
  test_pcvm_hessian_fallback();
  test_pcvm_moments();
  test_exp_block();
  test_nearest();
  test_kfda();
  std::printf("core: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
