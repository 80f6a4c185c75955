// Tests of the numerical core without R (style.md: the core builds and is tested
// on its own). Each kernel against a naive pair-by-pair transcription of its
// formula; the symmetric eigensolver against A V = V diag(values); the tiled
// dense kernels against Eigen's; MEB, iKFD and the PCVM E-step against facts
// that can be checked by hand.
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <stdexcept>

#include "krein/ikfd.hpp"
#include "krein/kfda.hpp"
#include "krein/tsqr.hpp"
#include "krein/kernels.hpp"
#include "krein/meb.hpp"
#include "krein/parallel_dense.hpp"
#include "krein/pcvm.hpp"
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

  // Tiled parallel rank-k update and Cholesky against Eigen's (sizes not
  // multiples of the tile).
  {
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

  // MEB of the vertices of a regular simplex (identity Gram matrix): the
  // centre is their mean, R^2 = 1 - 1/k, and every vertex is a core point.
  {
    const int k = 7;
    const Eigen::MatrixXd gram = Eigen::MatrixXd::Identity(k, k);
    const krein::meb::Result r = krein::meb::core_set(
        gram.diagonal(), [&gram](Eigen::Index s) { return Eigen::VectorXd(gram.col(s)); }, 2, 1e-6, 100);
    expect(r.converged, "MEB converges on a simplex");
    expect(static_cast<int>(r.core.size()) == k, "every simplex vertex is a core point");
    expect(std::abs(r.radius2 - (1.0 - 1.0 / k)) < 1e-8, "MEB radius of a simplex is sqrt(1 - 1/k)");
  }

  // iKFD: the discriminant separates two well-separated classes with the
  // documented sign (positive for the first class), for the full and the
  // Nystroem fit with every point a landmark.
  {
    Eigen::MatrixXd x = random_matrix(40, 2, 6);
    std::vector<int> labels(40);
    for (int i = 0; i < 40; ++i) {
      labels[i] = i < 20 ? 0 : 1;
      x(i, 0) += i < 20 ? 4.0 : -4.0;
    }
    krein::KernelSpec spec;
    spec.gamma = 0.5;
    Eigen::MatrixXd K(40, 40);
    const krein::MatrixRef xr(x);
    krein::kernel_matrix(spec, xr, xr, nullptr, K, true, 1);
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

  // PCVM E-step: phi(t) / Psi(t) is continuous across the switch at t = -5
  // and approaches -t far in the tail.
  {
    const double below = krein::pcvm::inverse_mills(-5.0 - 1e-9), above = krein::pcvm::inverse_mills(-5.0);
    expect(std::abs(below - above) < 1e-8, "inverse Mills ratio is continuous at the switch");
    const double far = krein::pcvm::inverse_mills(-1e4);
    expect(std::abs(far - 1e4) < 1e-3 && std::isfinite(far), "inverse Mills ratio tends to -t");
    expect(std::abs(krein::pcvm::inverse_mills(0.0) - 2.0 / std::sqrt(2.0 * M_PI)) < 1e-15,
           "inverse Mills ratio at 0 is 2 phi(0)");
  }

  // KFDA on the kernel data: the centred class factors carry the class
  // scatter matrices (R'R = S_c), merged chunks equal one QR, the scatter of
  // the principal components is the plain centred cross-product.
  {
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
    const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(p, p);
    const std::vector<Eigen::MatrixXd> unit(3, identity);
    const Eigen::MatrixXd q = krein::kfda::quadratic_forms(Z, f.means, unit);
    expect(std::abs(q(5, 2) - (Z.row(5).transpose() - f.means.col(2)).squaredNorm()) < 1e-9,
           "KFDA quadratic forms with identity factors are squared distances to the class means");
  }

  std::printf("core: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
