// Tests of the core's discriminants without R: iKFD, KQD (full and
// Nystroem) and the shrunk Gaussian classes, against facts that can be checked by hand or by a direct
// formula. main() is in test_core.cpp.
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
#include "krein/kqd.hpp"
#include "krein/kqd_nystrom.hpp"
#include "krein/numerics.hpp"
#include "krein/shrunk_gaussian.hpp"

#include "test_harness.hpp"

namespace krein_test {

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
  // a kernel of zeros: no eigenvalue of the landmark block survives, and the
  // fit says so instead of reading past empty matrices
  bool threw = false;
  try {
    krein::ikfd::fit_nystrom(factors, {20.0, 20.0}, Eigen::MatrixXd::Zero(40, 40), krein::ikfd::Weights::equal,
                             1e-4);
  } catch (const std::invalid_argument& e) {
    threw = std::string(e.what()).find("approximation of the kernel is zero") != std::string::npos;
  }
  expect(threw, "Ny-iKFD refuses a landmark block without an eigenvalue above rounding");
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

// The shrunk Gaussian classes of several leading dimensions at once
// (shrunk_gaussian.hpp) against each candidate's model formed directly:
// means and covariances of the leading p coordinates, pooled with weight w,
// shrunk towards tr / p I, the class of the largest log q_k - log det C_k / 2
// - (x - m_k)' C_k^-1 (x - m_k) / 2, by a full-pivot LU; for ML and unbiased
// moments. A singular covariance (a constant coordinate, no shrinkage) is
// left to the caller (0).
void test_shrunk_gaussian() {
  const int n = 45, m = 12, p_max = 4, classes = 3;
  Eigen::MatrixXd Z = random_matrix(n, p_max, 81), Z_new = random_matrix(m, p_max, 82);
  Eigen::VectorXi codes(n);
  for (int i = 0; i < n; ++i) {
    codes[i] = i % classes;
    Z(i, 0) += 1.5 * codes[i];
    Z.row(i) *= 1.0 + 0.5 * codes[i];
  }
  Eigen::VectorXi dims(4);
  dims << 1, 2, 4, 4;
  Eigen::VectorXd pooling(4), log_prior(classes);
  pooling << 0.0, 0.4, 1.0, 0.0;
  log_prior << std::log(0.2), std::log(0.3), std::log(0.5);
  for (bool unbiased : {false, true}) {
    for (double s : {0.0, 0.1}) {
      const Eigen::MatrixXi got =
          krein::shrunk_gaussian::leading_classes(Z, codes, classes, Z_new, dims, pooling, s, unbiased, log_prior, 2);
      bool same = true;
      for (int c = 0; c < dims.size(); ++c) {
        const int p = dims[c];
        std::vector<Eigen::VectorXd> means(classes, Eigen::VectorXd::Zero(p));
        std::vector<Eigen::MatrixXd> scatter(classes, Eigen::MatrixXd::Zero(p, p));
        std::vector<int> counts(classes, 0);
        for (int i = 0; i < n; ++i) {
          means[codes[i]] += Z.row(i).head(p).transpose();
          ++counts[codes[i]];
        }
        for (int k = 0; k < classes; ++k) means[k] /= counts[k];
        for (int i = 0; i < n; ++i) {
          const Eigen::VectorXd d = Z.row(i).head(p).transpose() - means[codes[i]];
          scatter[codes[i]] += d * d.transpose();
        }
        Eigen::MatrixXd pooled = Eigen::MatrixXd::Zero(p, p);
        for (int k = 0; k < classes; ++k) pooled += scatter[k];
        pooled /= n - (unbiased ? classes : 0);
        for (int i = 0; i < m; ++i) {
          int best = -1;
          double best_value = -1e300;
          for (int k = 0; k < classes; ++k) {
            Eigen::MatrixXd C = (1 - pooling[c]) * scatter[k] / (counts[k] - (unbiased ? 1 : 0)) + pooling[c] * pooled;
            C = (1 - s) * C + s * C.trace() / p * Eigen::MatrixXd::Identity(p, p);
            const Eigen::FullPivLU<Eigen::MatrixXd> lu(C);
            const Eigen::VectorXd d = Z_new.row(i).head(p).transpose() - means[k];
            const double value = log_prior[k] - 0.5 * std::log(lu.determinant()) - 0.5 * d.dot(lu.solve(d));
            if (value > best_value) {
              best_value = value;
              best = k;
            }
          }
          same = same && got(i, c) == best + 1;
        }
      }
      expect(same, "the shrunk Gaussian classes of each leading dimension equal the directly formed models'");
    }
  }
  Eigen::MatrixXd flat = Z;
  flat.col(3).setZero();
  const Eigen::MatrixXi left =
      krein::shrunk_gaussian::leading_classes(flat, codes, classes, Z_new, dims, pooling, 0.0, false, log_prior, 1);
  expect((left.col(2).array() == 0).all() && (left.col(0).array() > 0).all(),
         "a singular covariance is left to the caller; the others are classified");
}

}  // namespace krein_test
