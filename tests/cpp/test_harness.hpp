// The core tests' shared harness: the tally, random test matrices and the
// kernel matrix of a built-in kernel. The tests are split over three
// translation units (test_core.cpp, test_discriminants.cpp,
// test_pcvm_kfda.cpp) so that `make -j2` compiles them side by side; the tally
// is one pair of C++17 inline variables shared by all.
#ifndef KREIN_TEST_HARNESS_HPP
#define KREIN_TEST_HARNESS_HPP

#include <cstdio>
#include <random>

#include "krein/kernels.hpp"

namespace krein_test {

inline int passed = 0;
inline int failed = 0;

inline void expect(bool ok, const char* what) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    std::printf("FAILED: %s\n", what);
  }
}

inline Eigen::MatrixXd random_matrix(int rows, int cols, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd m(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = normal(gen);
  return m;
}

// A test kernel matrix of a built-in kernel on the rows of x.
inline Eigen::MatrixXd kernel_of(const krein::KernelSpec& spec, const Eigen::MatrixXd& x) {
  Eigen::MatrixXd K(x.rows(), x.rows());
  const krein::MatrixRef xr(x);
  krein::kernel_matrix(spec, xr, xr, nullptr, K, true, 1);
  return K;
}

inline krein::KernelSpec rbf_spec(double gamma) {
  krein::KernelSpec spec;
  spec.type = krein::KernelType::rbf;
  spec.gamma = gamma;
  return spec;
}

// The model tests (test_discriminants.cpp, test_pcvm_kfda.cpp)
void test_ikfd();
void test_kqd();
void test_pcvm_estep();
void test_pcvm_em();
void test_pcvm_e_steps();
void test_pcvm_hessian_fallback();
void test_pcvm_moments();
void test_kfda();
void test_kqd_nystrom();
void test_shrunk_gaussian();

}  // namespace krein_test

#endif
