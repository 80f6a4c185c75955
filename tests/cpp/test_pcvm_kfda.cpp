// Tests of the core's PCVM (E-step, EM, Hessian fallback) and kfda without R,
// against facts that can be checked by hand or by a direct formula. main() is
// in test_core.cpp.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "krein/kernels.hpp"
#include "krein/kfda.hpp"
#include "krein/numerics.hpp"
#include "krein/pcvm.hpp"

#include "test_harness.hpp"

namespace krein_test {

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
  // the long forms' shortcuts give the bits of the longer forms: the
  // continued fraction from its 200th term, and pdf / cdf with erfc() beyond
  // mills_unit_cdf
  bool same = true;
  for (int i = 0; i <= 200000; ++i) {
    const double x = 5.0 + (i + 1) * (95.0 / 200000);  // t < -5: the fraction
    double tail = x;
    for (int k = 200; k >= 1; --k) tail = x + k / tail;
    same = same && krein::pcvm::inverse_mills_long(-x) == tail;
    const double t = krein::pcvm::mills_unit_cdf + i * 1e-4;
    const double pdf = std::exp(-0.5 * t * t) / std::sqrt(2.0 * M_PI);
    same = same && krein::pcvm::inverse_mills_long(t) == pdf / (0.5 * std::erfc(-t / std::sqrt(2.0)));
  }
  // the table (detail::MillsTable) agrees with the long forms to the long
  // forms' own accuracy (their relative error against long double is up to
  // 4e-15 on [-5, 8.3), from the rounding of t^2 / 2 and -t / sqrt(2)), on
  // a grid finer than its intervals and at their edges; outside [-8, 8.3)
  // inverse_mills() is the long forms
  double table_worst = 0.0;
  for (int i = 0; i <= 1630000; ++i) {
    const double t = krein::pcvm::detail::mills_table_low + i * 1e-5;
    if (t >= krein::pcvm::mills_unit_cdf) break;
    table_worst = std::max(table_worst, std::abs(krein::pcvm::inverse_mills(t) / krein::pcvm::inverse_mills_long(t) - 1.0));
  }
  const int per_unit = krein::pcvm::detail::mills_table_per_unit;
  const int edges = static_cast<int>((krein::pcvm::mills_unit_cdf - krein::pcvm::detail::mills_table_low) * per_unit);
  for (int k = 0; k <= edges + 1; ++k) {
    const double edge = krein::pcvm::detail::mills_table_low + static_cast<double>(k) / per_unit;
    for (double t : {std::nextafter(edge, -100.0), edge}) {
      if (t < krein::pcvm::mills_unit_cdf) {
        table_worst = std::max(table_worst, std::abs(krein::pcvm::inverse_mills(t) / krein::pcvm::inverse_mills_long(t) - 1.0));
      }
    }
  }
  expect(table_worst < 1e-14, "the inverse Mills ratio's table agrees with its long forms to 1e-14");
  const double outside[] = {-8.5, -8.0000001, 8.3, 9.0, 40.0};
  for (double t : outside) same = same && krein::pcvm::inverse_mills(t) == krein::pcvm::inverse_mills_long(t);
  expect(same, "the inverse Mills ratio's shortcuts give the bits of its long forms");
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
  // the run-away stop: EM stops, unconverged, after the first iteration
  // whose latent values pass the bound; a bound above every iterate's
  // changes nothing
  double largest_first = 0.0;
  {
    krein::pcvm::Control once = control;
    once.max_iter = 1;
    const krein::pcvm::Fit one_step = krein::pcvm::fit(full, w, -0.3, &latent, once);
    std::vector<Eigen::Index> support;
    Eigen::VectorXd values;
    for (Eigen::Index j = 0; j < n; ++j) {
      if (one_step.weights[j] > 0) support.push_back(j);
    }
    values.resize(support.size());
    for (size_t k = 0; k < support.size(); ++k) values[k] = one_step.weights[support[k]];
    largest_first = full.latent(support, values, one_step.bias).cwiseAbs().maxCoeff();
  }
  krein::pcvm::Control stopping = control;
  stopping.stop_latent_beyond = 0.5 * largest_first;
  const krein::pcvm::Fit stopped = krein::pcvm::fit(full, w, -0.3, &latent, stopping);
  expect(stopped.ran_away && !stopped.converged && stopped.iterations == 1,
         "PCVM EM stops as a run-away once its latent values pass the bound");
  stopping.stop_latent_beyond = 1e300;
  const krein::pcvm::Fit unstopped = krein::pcvm::fit(full, w, -0.3, &latent, stopping);
  expect(!unstopped.ran_away && unstopped.iterations == f.iterations &&
             (unstopped.weights - f.weights).cwiseAbs().maxCoeff() == 0.0,
         "a run-away bound no iterate reaches changes nothing");
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
  // a symmetric matrix with eigenvalues 6, 2, 0.5 and -0.25 (rounding can
  // make a Hessian so, never exact arithmetic): the solve raises 0.5 and
  // -0.25 to 1, their least value in exact arithmetic
  const Eigen::HouseholderQR<Eigen::MatrixXd> basis_qr(random_matrix(4, 4, 22));
  const Eigen::MatrixXd V = basis_qr.householderQ();
  const Eigen::Vector4d values(6.0, 2.0, 0.5, -0.25), raised(6.0, 2.0, 1.0, 1.0);
  const Eigen::MatrixXd indefinite = V * values.asDiagonal() * V.transpose();
  const Eigen::Vector4d rhs4(1.0, -2.0, 0.5, 3.0);
  const Eigen::VectorXd clamped = krein::pcvm::solve_hessian([&]() { return indefinite; }, rhs4, 1, fallback);
  const Eigen::VectorXd expected = V * (V.transpose() * rhs4).cwiseQuotient(raised);
  expect(fallback && (clamped - expected).norm() < 1e-12 * expected.norm(),
         "an indefinite Hessian is solved with its eigenvalues below 1 raised to 1");
}

// Ny-PCVM in moment form (the EM over chunks): the moments of a pass summed
// over blocks of rows equal those of all rows at once, and the M-step from
// them (step_moments) with R from another factorisation of C'C equals the
// QR path's step (step_factored).
void test_pcvm_moments() {
  const int n = 60, m = 9;
  const Eigen::MatrixXd x = random_matrix(n, 2, 23), landmarks = random_matrix(m, 2, 24);
  Eigen::MatrixXd C(n, m);
  const krein::MatrixRef xr(x), lr(landmarks);
  krein::kernel_matrix(rbf_spec(0.7), xr, lr, nullptr, C, false, 1);
  // three classes; the pair (0, 2): rows of class 0 are +1
  std::vector<int> codes(n);
  for (int i = 0; i < n; ++i) codes[i] = i % 3;
  krein::pcvm::PassTask task;
  task.first_class = 0;
  task.second_class = 2;
  task.columns = {0, 2, 3, 5, 6, 8};
  const Eigen::Index c = static_cast<Eigen::Index>(task.columns.size());
  task.coefficients = Eigen::VectorXd::LinSpaced(c, -0.5, 0.7);
  task.bias = 0.2;
  task.has_previous = true;
  task.previous_coefficients = Eigen::VectorXd::LinSpaced(c, 0.3, -0.2);
  task.previous_bias = -0.1;
  const Eigen::MatrixXd no_start(n, 1);
  const auto kind = krein::pcvm::EStep::bounded;
  const krein::pcvm::PassMoments whole = krein::pcvm::pass_moments(C, codes, no_start, task, kind);
  krein::pcvm::PassMoments summed;
  summed.g = Eigen::VectorXd::Zero(c);
  for (int start = 0; start < n; start += 17) {
    const int rows = std::min(17, n - start);
    const std::vector<int> block_codes(codes.begin() + start, codes.begin() + start + rows);
    const krein::pcvm::PassMoments part =
        krein::pcvm::pass_moments(C.middleRows(start, rows), block_codes, no_start.middleRows(start, rows), task, kind);
    summed.g += part.g;
    summed.latent_sum += part.latent_sum;
    summed.errors += part.errors;
    summed.change += part.change;
    summed.size += part.size;
  }
  // the same by the formulas, on the pair's rows
  std::vector<Eigen::Index> rows;
  for (int i = 0; i < n; ++i) if (codes[i] != 1) rows.push_back(i);
  const Eigen::Index r = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd Cp(r, c);
  Eigen::VectorXd y(r);
  for (Eigen::Index i = 0; i < r; ++i) {
    for (Eigen::Index j = 0; j < c; ++j) Cp(i, j) = C(rows[i], task.columns[j]);
    y[i] = codes[rows[i]] == 0 ? 1.0 : -1.0;
  }
  const Eigen::VectorXd f = (Cp * task.coefficients).array() + task.bias;
  const Eigen::VectorXd f_previous = (Cp * task.previous_coefficients).array() + task.previous_bias;
  const Eigen::VectorXd Z = krein::pcvm::expected_latent(f, y, kind);
  const Eigen::VectorXd g = Cp.transpose() * (Z.array() - task.bias).matrix();
  const double errors = (y.array() * f.array() <= 0.0).cast<double>().sum();
  expect((whole.g - g).norm() < 1e-12 * g.norm() && (summed.g - g).norm() < 1e-12 * g.norm() &&
             std::abs(whole.latent_sum - Z.sum()) < 1e-12 * Z.cwiseAbs().sum() &&
             std::abs(summed.latent_sum - Z.sum()) < 1e-12 * Z.cwiseAbs().sum() && whole.errors == errors &&
             summed.errors == errors &&
             std::abs(summed.change - (f - f_previous).squaredNorm()) < 1e-12 * (f - f_previous).squaredNorm() &&
             std::abs(summed.size - f_previous.squaredNorm()) < 1e-12 * f_previous.squaredNorm(),
         "PCVM pass moments: blocks of rows add up to the moments of all rows, as the formulas give them");
  // the first pass: f from the start latent values of each class's column
  Eigen::MatrixXd start(n, 3);
  for (int i = 0; i < n; ++i) start.row(i) << codes[i], 0.1 * i - 2.0, 1.5 - 0.05 * i;
  krein::pcvm::PassTask first = task;
  first.start_first = 1;
  first.start_second = 2;
  first.has_previous = false;
  const krein::pcvm::PassMoments started = krein::pcvm::pass_moments(C, codes, start, first, kind);
  Eigen::VectorXd f_start(r);
  for (Eigen::Index i = 0; i < r; ++i) f_start[i] = start(rows[i], y[i] > 0 ? 1 : 2);
  const Eigen::VectorXd Z_start = krein::pcvm::expected_latent(f_start, y, kind);
  expect((started.g - Cp.transpose() * (Z_start.array() - task.bias).matrix()).norm() < 1e-12 * started.g.norm() &&
             started.errors == (y.array() * f_start.array() <= 0.0).cast<double>().sum() && started.change == 0.0,
         "PCVM's first pass takes f from the start latent values of the row's class");
  // the M-step from moments, R from a Cholesky factor of C'C (not the QR's
  // R), equals the in-memory step on the QR of C
  Eigen::VectorXd signs(c), w(c);
  for (Eigen::Index j = 0; j < c; ++j) {
    signs[j] = j % 2 ? -1.0 : 1.0;
    w[j] = 0.3 + 0.1 * j;
  }
  std::vector<Eigen::Index> active = {0, 1, 3, 4, 5};
  Eigen::VectorXd w_active(static_cast<Eigen::Index>(active.size()));
  for (size_t k = 0; k < active.size(); ++k) w_active[k] = w[active[k]];
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(Cp);
  const Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(r, c);
  const Eigen::MatrixXd R_qr = qr.matrixQR().topRows(c).triangularView<Eigen::Upper>();
  const Eigen::VectorXd sums = Cp.colwise().sum().transpose();
  const krein::pcvm::Step factored = krein::pcvm::step_factored(Q, R_qr, signs, active, w_active, task.bias, Z);
  const Eigen::MatrixXd R_chol = Eigen::LLT<Eigen::MatrixXd>(Cp.transpose() * Cp).matrixU();
  const krein::pcvm::Step moments =
      krein::pcvm::step_moments(R_chol, signs, sums, active, w_active, task.bias, g, Z.sum(), r);
  expect((moments.weights - factored.weights).norm() < 1e-9 * factored.weights.norm() &&
             std::abs(moments.bias - factored.bias) < 1e-9 * std::max(1.0, std::abs(factored.bias)) &&
             !moments.hessian_fallback,
         "PCVM's M-step from moments equals the step on the QR of the landmark columns");
  // pruning: weights below `prune` drop, the change is the largest move
  const krein::pcvm::Pruned pruned = krein::pcvm::prune_weights(w, active, moments.weights, 0.05);
  bool prune_ok = pruned.weights[2] == 0.0;
  double change = 0.0;
  for (size_t k = 0; k < active.size(); ++k) {
    const double value = moments.weights[k] < 0.05 ? 0.0 : moments.weights[k];
    prune_ok = prune_ok && pruned.weights[active[k]] == value;
  }
  for (Eigen::Index j = 0; j < c; ++j) change = std::max(change, std::abs(pruned.weights[j] - w[j]));
  expect(prune_ok && pruned.change == change, "PCVM prunes the weights below `prune` and reports the largest move");
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

}  // namespace krein_test
