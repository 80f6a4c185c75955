// Tests of the numerical core without R (style.md: the core builds and is tested
// on its own). Each kernel against a naive pair-by-pair transcription of its
// formula; the symmetric eigensolver against A V = V diag(values).
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <stdexcept>

#include "krein/kernels.hpp"
#include "krein/symmetric_eigen.hpp"

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

}  // namespace

int main() {
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

  // A checkpoint that throws stops the computation and the exception reaches the caller.
  {
    const Eigen::MatrixXd x = random_matrix(100, 2, 3);
    Eigen::MatrixXd out(100, 100);
    spec.type = KernelType::rbf;
    bool stopped = false;
    try {
      krein::kernel_matrix(spec, x, x, nullptr, out, true, 1,
                           [] { throw std::runtime_error("interrupted"); });
    } catch (const std::runtime_error&) {
      stopped = true;
    }
    expect(stopped, "a throwing checkpoint abandons the computation");
  }

  // Symmetric eigendecomposition through LAPACK dsyevr.
  {
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

  std::printf("core: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
