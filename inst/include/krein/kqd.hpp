// krein: kernel quadratic discriminants for positive definite and indefinite
// kernels, paper 000 (Pekalska & Haasdonk), Sec. IV
// and Table II, and the kernel Mahalanobis distances of paper 001 (Haasdonk &
// Pekalska), eqs. (4) and (7).
//
// Every variant's squared distance is a quadratic form in a centred kernel
// vector v (k~_x^[j] for the class-wise IC and RC variants, k~~_x^[j] for FK)
// with a spectral function of one symmetric matrix:
//
//     q(v) = v' U diag(w(lambda)) U' v   (U, lambda: eigenpairs of K~^[j] or K~~^[j])
//          = w(0) ||v||^2 + sum_i (w(lambda_i) - w(0)) (u_i' v)^2,
//
// the second form needing only the eigenpairs with nonzero eigenvalue. One
// eigendecomposition per class therefore serves every regularisation value: a
// path costs one O(n_j^3) decomposition and O(n_j r) per point and value.
// Where a single value of a "+" variant is fitted with the positive definite
// formulas, a Cholesky factorisation replaces the eigendecomposition.
#ifndef KREIN_KQD_HPP
#define KREIN_KQD_HPP

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <initializer_list>
#include <vector>

#include "krein/numerics.hpp"
#include "krein/symmetric_eigen.hpp"

namespace krein {
namespace kqd {

enum class Variant { ic_plus, ic_minus, rc_plus, rc_minus, fk_plus, fk_minus };

inline Variant parse_variant(const std::string& name) {
  if (name == "IC+") return Variant::ic_plus;
  if (name == "IC-") return Variant::ic_minus;
  if (name == "RC+") return Variant::rc_plus;
  if (name == "RC-") return Variant::rc_minus;
  if (name == "FK+") return Variant::fk_plus;
  if (name == "FK-") return Variant::fk_minus;
  throw std::invalid_argument("unknown KQD variant '" + name + "'");
}

inline bool is_rc(Variant v) { return v == Variant::rc_plus || v == Variant::rc_minus; }
inline bool is_fk(Variant v) { return v == Variant::fk_plus || v == Variant::fk_minus; }
inline bool is_plus(Variant v) {
  return v == Variant::ic_plus || v == Variant::rc_plus || v == Variant::fk_plus;
}

// The weight w(lambda) of Table II's inverse operators for one class and one
// value `reg` (alpha_j for IC and FK, sigma_j^2 for RC); `n_j` the class size,
// `indefinite` selects the IKQD formulas, `zero` the zero tolerance.
inline double spectral_weight(Variant variant, bool indefinite, double lambda, double reg,
                              double n_j, double zero) {
  const bool is_zero = std::abs(lambda) <= zero;
  const double sign = (indefinite && !is_zero && lambda < 0) ? -1.0 : 1.0;  // J
  const double magnitude = indefinite ? std::abs(lambda) : lambda;
  switch (variant) {
    case Variant::ic_plus: {
      // (K~ + alpha I)^-2, IKQD: (U (Lambda + alpha J) U')^-2 = U (|Lambda| + alpha)^-2 U'
      const double d = (is_zero ? 0.0 : magnitude) + reg;
      return 1.0 / (d * d);
    }
    case Variant::ic_minus:
      // pinv(K~, alpha)^2: singular values |lambda| below alpha count as zero
      return (!is_zero && std::abs(lambda) >= reg) ? 1.0 / (lambda * lambda) : 0.0;
    case Variant::rc_plus: {
      // (K~ + n_j sigma^2 I)^-1, IKQD: (U (Lambda + n_j sigma^2 J) U')^-1 = U J (|Lambda| + n_j sigma^2)^-1 U'
      const double a = n_j * reg;
      return sign / ((is_zero ? 0.0 : magnitude) + a);
    }
    case Variant::rc_minus:
      // A / (n_j sigma^2) with A = I, IKQD: A = U J U'
      return sign / (n_j * reg);
    case Variant::fk_plus:
      // (K~~ + alpha I)^-1; K~~ is positive semidefinite for every kernel
      return 1.0 / ((is_zero ? 0.0 : lambda) + reg);
    case Variant::fk_minus:
      return (!is_zero && lambda >= reg) ? 1.0 / lambda : 0.0;
  }
  throw std::invalid_argument("unknown KQD variant");
}

// What prediction needs of one class.
struct ClassModel {
  std::vector<Eigen::Index> members;  // training indices of the class (0-based)
  double n_j = 0;
  // IC, RC: the class block's row means K^[j] 1 / n_j (n_j) and grand mean;
  // FK: the class-mean shift K~_j 1 / n_j (n).
  Eigen::VectorXd centre;
  double grand_mean = 0;
  // Eigen path: eigenpairs with nonzero eigenvalue of K~^[j] (IC, RC) or K~~^[j] (FK).
  Eigen::MatrixXd basis;
  Eigen::VectorXd values;
  double zero = 0;  // zero tolerance used for the signs
  // Cholesky path: lower factor of K~^[j] + a I (IC+, RC+).
  bool cholesky = false;
  Eigen::MatrixXd factor;
  // Diagnostics
  bool indefinite = false;     // the IKQD formulas are used
  bool negative_found = false; // negative eigenvalues beyond tolerance were seen
  int p = -1, q = -1, z = -1;  // signature (-1: not computed on the Cholesky path)
  bool regularised_singular = false;  // a pd "+" formula met lambda + reg <= 0
};

struct Model {
  Variant variant = Variant::rc_plus;
  Eigen::Index n = 0;
  std::vector<ClassModel> classes;
  // FK: the centring of the full kernel, k~_x = H (k_x - K 1 / n).
  Eigen::VectorXd column_means;
  Eigen::MatrixXd reg;  // path points x classes
};

enum class IndefiniteMode { automatic, yes, no };

namespace detail {

inline Eigen::MatrixXd block(const Eigen::Ref<const Eigen::MatrixXd>& K,
                             const std::vector<Eigen::Index>& rows,
                             const std::vector<Eigen::Index>& cols) {
  Eigen::MatrixXd out(rows.size(), cols.size());
  for (size_t j = 0; j < cols.size(); ++j)
    for (size_t i = 0; i < rows.size(); ++i) out(i, j) = K(rows[i], cols[j]);
  return out;
}

// Keep the eigenpairs of a symmetric matrix whose eigenvalue is not zero.
inline void keep_nonzero(const SymmetricEigen& eig, Eigen::Index n, ClassModel& cls,
                         const Eigen::MatrixXd* map_vectors) {
  const double largest = eig.values.cwiseAbs().maxCoeff();
  cls.zero = numerics::zero_eigenvalue_tolerance(n, largest);
  std::vector<Eigen::Index> kept;
  int p = 0, q = 0;
  for (Eigen::Index i = 0; i < eig.values.size(); ++i) {
    const double l = eig.values[i];
    if (std::abs(l) > cls.zero) {
      kept.push_back(i);
      if (l > 0) ++p; else ++q;
    }
    if (l < -numerics::indefinite_tolerance * largest) cls.negative_found = true;
  }
  cls.p = p;
  cls.q = q;
  cls.z = static_cast<int>(eig.values.size()) - p - q;
  cls.values.resize(kept.size());
  const Eigen::Index rows = map_vectors ? map_vectors->rows() : eig.vectors.rows();
  cls.basis.resize(rows, kept.size());
  for (size_t k = 0; k < kept.size(); ++k) {
    cls.values[k] = eig.values[kept[k]];
    if (map_vectors) {
      cls.basis.col(k) = map_vectors->col(kept[k]);
    } else {
      cls.basis.col(k) = eig.vectors.col(kept[k]);
    }
  }
}

// The class kernel's definiteness test (numerics.hpp: the tolerance of ?kqd).
inline bool looks_psd(const Eigen::MatrixXd& A) {
  return numerics::is_psd(A, numerics::indefinite_tolerance);
}

// a of Table II's shift for one regularisation value: alpha_j for IC,
// n_j sigma_j^2 for RC.
inline double shift(Variant variant, double n_j, double reg) {
  return variant == Variant::rc_plus ? n_j * reg : reg;
}

// IC+ and RC+ with one value by the pd formulas: the Cholesky factor of
// K~^[j] + a I. Returns false (the eigendecomposition must serve) when the
// class kernel looks indefinite and the formulas may switch, or when the
// factorisation fails.
inline bool fit_class_cholesky(const Eigen::MatrixXd& Kc, Variant variant, double reg,
                               IndefiniteMode mode, ClassModel& cls) {
  const bool psd = looks_psd(Kc);
  if (!psd && mode != IndefiniteMode::no) return false;
  Eigen::MatrixXd shifted = Kc;
  shifted.diagonal().array() += shift(variant, cls.n_j, reg);
  Eigen::LLT<Eigen::MatrixXd> llt(shifted);
  if (llt.info() != Eigen::Success) {
    cls.regularised_singular = true;  // fall through to the eigendecomposition
    return false;
  }
  cls.cholesky = true;
  cls.factor = llt.matrixL();
  cls.negative_found = !psd;
  return true;
}

// IC and RC: the doubly centred class block K~^[j] and its nonzero eigenpairs
// (or its Cholesky factor, see fit_class_cholesky); `reg` the class's column
// of the path.
inline void fit_class_block(const Eigen::Ref<const Eigen::MatrixXd>& K, Variant variant,
                            const Eigen::VectorXd& reg, IndefiniteMode mode, bool cholesky_allowed,
                            ClassModel& cls) {
  const Eigen::Index nj = static_cast<Eigen::Index>(cls.members.size());
  const Eigen::MatrixXd Kc = numerics::double_centre(block(K, cls.members, cls.members), &cls.centre,
                                                     &cls.grand_mean);
  if (variant == Variant::rc_minus && mode == IndefiniteMode::no) return;  // A = I: nothing to decompose
  // IC+ and RC+ (FK has no Cholesky path, see fit_class_fk)
  if (cholesky_allowed && is_plus(variant) && mode != IndefiniteMode::yes &&
      fit_class_cholesky(Kc, variant, reg[0], mode, cls)) {
    return;
  }
  const SymmetricEigen eig = symmetric_eigen(Kc, true);
  keep_nonzero(eig, nj, cls, nullptr);
  cls.indefinite = mode == IndefiniteMode::yes ||
                   (mode == IndefiniteMode::automatic && cls.negative_found);
  if (!cls.indefinite && is_plus(variant)) {
    for (Eigen::Index k = 0; k < reg.size(); ++k) {
      if (eig.values.minCoeff() + shift(variant, cls.n_j, reg[k]) <= cls.zero) cls.regularised_singular = true;
    }
  }
}

// FK: K~_j = columns of H K H of class j; B = K~_j H^[j]; K~~^[j] = B B' (n x n,
// psd), kept as its nonzero eigenpairs.
inline void fit_class_fk(const Eigen::Ref<const Eigen::MatrixXd>& K, const Eigen::MatrixXd& K_centred,
                         IndefiniteMode mode, ClassModel& cls) {
  const Eigen::Index nj = static_cast<Eigen::Index>(cls.members.size());
  Eigen::MatrixXd B(K.rows(), nj);
  for (Eigen::Index k = 0; k < nj; ++k) B.col(k) = K_centred.col(cls.members[k]);
  cls.centre = B.rowwise().mean();  // K~_j 1 / n_j
  B.colwise() -= cls.centre;
  // Indefiniteness of the class kernel, for the record: IKQD-FK = KQD-FK (Sec. IV-C).
  cls.negative_found = !looks_psd(numerics::double_centre(block(K, cls.members, cls.members)));
  cls.indefinite = mode == IndefiniteMode::yes ||
                   (mode == IndefiniteMode::automatic && cls.negative_found);
  const Eigen::MatrixXd gram = B.transpose() * B;  // n_j x n_j, psd
  // No Cholesky path for FK: K~~^[j] has rank < n_j, and its eigenbasis makes
  // every prediction O(n r) instead of the O(n n_j) of a Woodbury solve.
  // Eigenpairs of B B' from those of B'B: B'B = V S^2 V', B B' = (B V S^-1) S^2 (B V S^-1)'.
  const SymmetricEigen eig = symmetric_eigen(gram, true);
  Eigen::MatrixXd mapped = B * eig.vectors;
  for (Eigen::Index k = 0; k < mapped.cols(); ++k) {
    const double s2 = eig.values[k];
    if (s2 > 0) mapped.col(k) /= std::sqrt(s2);
  }
  keep_nonzero(eig, nj, cls, &mapped);
  cls.p = cls.q = cls.z = -1;  // the FK matrix is psd by construction: no signature of its own
}

}  // namespace detail

// Fit: K the n x n training kernel, `members[j]` the training indices of class
// j, `reg` a (path points x classes) matrix. `allow_cholesky` allows the
// Cholesky path when the path has one point (not when eigenvalues are wanted).
inline Model fit(const Eigen::Ref<const Eigen::MatrixXd>& K,
                 const std::vector<std::vector<Eigen::Index>>& members, Variant variant,
                 const Eigen::MatrixXd& reg, IndefiniteMode mode, bool allow_cholesky) {
  Model model;
  model.variant = variant;
  model.n = K.rows();
  model.reg = reg;
  const Eigen::Index c = static_cast<Eigen::Index>(members.size());
  if (reg.cols() != c) throw std::invalid_argument("reg must have one column per class");
  const bool cholesky_allowed = reg.rows() == 1 && allow_cholesky;
  Eigen::MatrixXd K_centred;  // FK: H K H
  if (is_fk(variant)) K_centred = numerics::double_centre(K, &model.column_means);
  model.classes.resize(c);
  for (Eigen::Index j = 0; j < c; ++j) {
    ClassModel& cls = model.classes[j];
    cls.members = members[j];
    cls.n_j = static_cast<double>(cls.members.size());
    if (is_fk(variant)) {
      detail::fit_class_fk(K, K_centred, mode, cls);
    } else {
      detail::fit_class_block(K, variant, reg.col(j), mode, cholesky_allowed, cls);
    }
  }
  return model;
}

// Centred kernel vectors of new points for class j: columns of the returned
// matrix (length n_j for IC/RC, n for FK), one per row of `Kx` (m x n: the new
// points against all training points, in training order).
inline Eigen::MatrixXd centred_vectors(const Model& model, const ClassModel& cls,
                                       const Eigen::Ref<const Eigen::MatrixXd>& Kx) {
  const Eigen::Index m = Kx.rows();
  if (!is_fk(model.variant)) {
    // k~^[j]_x = H^[j] (k^[j]_x - K^[j] 1 / n_j)
    const Eigen::Index nj = static_cast<Eigen::Index>(cls.members.size());
    Eigen::MatrixXd V(nj, m);
    for (Eigen::Index k = 0; k < nj; ++k) V.row(k) = Kx.col(cls.members[k]).transpose();
    V.colwise() -= cls.centre;
    V.rowwise() -= V.colwise().mean();
    return V;
  }
  // k~_x = H (k_x - K 1 / n); k~~^[j]_x = k~_x - K~_j 1 / n_j
  Eigen::MatrixXd V = Kx.transpose();
  V.colwise() -= model.column_means;
  V.rowwise() -= V.colwise().mean();
  V.colwise() -= cls.centre;
  return V;
}

// Centred self-similarities k~_xx^[j] = k_xx - 2/n_j 1'k^[j]_x + 1'K^[j]1/n_j^2 (RC only).
inline Eigen::VectorXd centred_self(const ClassModel& cls,
                                    const Eigen::Ref<const Eigen::MatrixXd>& Kx,
                                    const Eigen::Ref<const Eigen::VectorXd>& self) {
  Eigen::VectorXd out = self;
  const double nj = cls.n_j;
  for (Eigen::Index i = 0; i < Kx.rows(); ++i) {
    double sum = 0;
    for (Eigen::Index k : cls.members) sum += Kx(i, k);
    out[i] += -2.0 * sum / nj + cls.grand_mean;
  }
  return out;
}

// Squared kernel Mahalanobis distances of the new points to every class, for
// every path point: result[k] is m x c for path point k.
inline std::vector<Eigen::MatrixXd> distances(const Model& model,
                                              const Eigen::Ref<const Eigen::MatrixXd>& Kx,
                                              const Eigen::VectorXd* self) {
  const Eigen::Index m = Kx.rows();
  const Eigen::Index c = static_cast<Eigen::Index>(model.classes.size());
  const Eigen::Index paths = model.reg.rows();
  if (Kx.cols() != model.n) throw std::invalid_argument("the kernel of new points needs one column per training point");
  if (is_rc(model.variant) && self == nullptr) throw std::invalid_argument("RC variants need the self-similarities of new points");
  std::vector<Eigen::MatrixXd> out(paths, Eigen::MatrixXd(m, c));
  for (Eigen::Index j = 0; j < c; ++j) {
    const ClassModel& cls = model.classes[j];
    const Eigen::MatrixXd V = centred_vectors(model, cls, Kx);
    const Eigen::VectorXd norms = V.colwise().squaredNorm().transpose();
    Eigen::MatrixXd q(m, paths);
    if (cls.cholesky) {
      Eigen::MatrixXd t = V;
      cls.factor.triangularView<Eigen::Lower>().solveInPlace(t);  // L^-1 v
      if (model.variant == Variant::ic_plus) {
        // ||(K~ + alpha I)^-1 v||^2 = ||L'^-1 L^-1 v||^2
        cls.factor.transpose().triangularView<Eigen::Upper>().solveInPlace(t);
      }
      q.col(0) = t.colwise().squaredNorm().transpose();
    } else {
      // also RC- with A = I, where no eigenpairs were computed: q = ||v||^2 / (n_j sigma^2)
      // RC- keeps no eigenpairs (its basis is empty): no projections then
      const Eigen::MatrixXd P = cls.values.size() > 0 ? Eigen::MatrixXd(cls.basis.transpose() * V)
                                                      : Eigen::MatrixXd(0, m);  // r x m projections
      const Eigen::MatrixXd P2 = P.array().square().matrix();
      for (Eigen::Index k = 0; k < paths; ++k) {
        const double r = model.reg(k, j);
        const double w0 = spectral_weight(model.variant, cls.indefinite, 0.0, r, cls.n_j, cls.zero);
        Eigen::VectorXd dw(cls.values.size());
        for (Eigen::Index i = 0; i < cls.values.size(); ++i) {
          dw[i] = spectral_weight(model.variant, cls.indefinite, cls.values[i], r, cls.n_j, cls.zero) - w0;
        }
        q.col(k) = w0 * norms + (P2.transpose() * dw);
      }
    }
    if (is_rc(model.variant)) {
      const Eigen::VectorXd kxx = centred_self(cls, Kx, *self);
      for (Eigen::Index k = 0; k < paths; ++k) {
        out[k].col(j) = (kxx - q.col(k)) / model.reg(k, j);  // eq. (18)-(21): (k~xx - q) / sigma^2
      }
    } else {
      for (Eigen::Index k = 0; k < paths; ++k) out[k].col(j) = cls.n_j * q.col(k);  // eq. (14)-(17), (22)-(23)
    }
  }
  return out;
}

// Sec. IV-D: for two classes, the bias difference Delta = b_i - b_j minimising
// the training errors of "class i iff g + Delta >= 0", g = f_i - f_j without
// biases, over the points of the two classes, each error of a point of the
// first (second) class counting w_first (w_second): with the weights
// prior / class size, the prior-weighted error (equal weights: the error
// count of the paper). Returns Delta at the middle of the widest interval of
// optimal thresholds; an optimum unbounded on one side is closed at the
// outermost score plus or minus the mean gap between scores.
struct PairBias {
  double delta = 0;
  double error = 0;
};

inline PairBias best_pair_bias(const std::vector<double>& g_first, const std::vector<double>& g_second,
                               double w_first = 1.0, double w_second = 1.0) {
  // Candidate thresholds t between consecutive distinct scores: errors(t) =
  // w_first #{first : g < t} + w_second #{second : g >= t}.
  // A NaN score has no place in the order: sorting it is undefined behaviour
  // and the tie loop below would never get past it. The R side checks the
  // distances first and names the cause; this is the core's own guard.
  for (const std::vector<double>* side : {&g_first, &g_second}) {
    for (double g : *side) {
      if (!std::isfinite(g)) throw std::invalid_argument("best_pair_bias: the decision values must be finite (a distance is NaN or infinite)");
    }
  }
  if (!(w_first > 0) || !(w_second > 0) || !std::isfinite(w_first) || !std::isfinite(w_second)) {
    throw std::invalid_argument("best_pair_bias: the class weights must be positive and finite");
  }
  std::vector<std::pair<double, int>> scores;  // (score, +1 first / -1 second)
  scores.reserve(g_first.size() + g_second.size());
  for (double g : g_first) scores.emplace_back(g, 1);
  for (double g : g_second) scores.emplace_back(g, -1);
  std::sort(scores.begin(), scores.end());
  const size_t total = scores.size();
  if (total == 0) return {};
  // The counts stay integers and each gap's weighted error is computed from
  // them afresh, so equal weights give exactly the unweighted optimum.
  struct Gap { double lo, hi, error; };
  auto weighted = [&](Eigen::Index first_wrong, Eigen::Index second_wrong) {
    return w_first * static_cast<double>(first_wrong) + w_second * static_cast<double>(second_wrong);
  };
  // t below every score: all points predicted "first": every second is wrong
  Eigen::Index first_wrong = 0;
  Eigen::Index second_wrong = static_cast<Eigen::Index>(g_second.size());
  std::vector<Gap> gaps;
  const double inf = std::numeric_limits<double>::infinity();
  gaps.push_back({-inf, scores[0].first, weighted(first_wrong, second_wrong)});
  size_t i = 0;
  while (i < total) {
    const double value = scores[i].first;
    // move t past all points with this score (at least one: progress even
    // if a score were not equal to itself)
    do {
      if (scores[i].second == 1) ++first_wrong; else --second_wrong;
      ++i;
    } while (i < total && scores[i].first == value);
    const double next = i < total ? scores[i].first : inf;
    gaps.push_back({value, next, weighted(first_wrong, second_wrong)});
  }
  double best = inf;
  for (const Gap& gap : gaps) best = std::min(best, gap.error);
  // optimal within rounding: distinct error counts differ by at least the
  // smaller weight
  const double tolerance = 1e-9 * std::min(w_first, w_second);
  auto optimal = [&](const Gap& gap) { return gap.error <= best + tolerance; };
  const double span = scores.back().first - scores.front().first;
  const double mean_gap = total > 1 && span > 0 ? span / static_cast<double>(total - 1) : 1.0;
  // merge consecutive optimal gaps into intervals; pick the widest
  double best_lo = 0, best_hi = 0, best_width = -1;
  size_t k = 0;
  while (k < gaps.size()) {
    if (!optimal(gaps[k])) { ++k; continue; }
    double lo = gaps[k].lo, hi = gaps[k].hi;
    while (k + 1 < gaps.size() && optimal(gaps[k + 1])) { ++k; hi = gaps[k].hi; }
    ++k;
    const double lo_closed = std::isinf(lo) ? hi - 2 * mean_gap : lo;
    const double hi_closed = std::isinf(hi) ? lo + 2 * mean_gap : hi;
    const double width = hi_closed - lo_closed;
    if (width > best_width) { best_width = width; best_lo = lo_closed; best_hi = hi_closed; }
  }
  const double t = 0.5 * (best_lo + best_hi);
  return {-t, best};
}

// All pairwise bias differences, then b minimising sum_{i<j} (b_i - b_j - Delta_ij)^2
// with sum(b) = 0: for the complete set of pairs, b_i = (1/c) sum_{j != i} Delta_ij.
// `weights`: the weight of an error on a point of each class (empty: all 1).
inline Eigen::VectorXd error_biases(const Eigen::Ref<const Eigen::MatrixXd>& decisions,
                                    const std::vector<std::vector<Eigen::Index>>& members,
                                    const std::vector<double>& weights = {}) {
  const Eigen::Index c = decisions.cols();
  if (!weights.empty() && static_cast<Eigen::Index>(weights.size()) != c) {
    throw std::invalid_argument("error_biases: one weight per class");
  }
  auto weight = [&](Eigen::Index j) { return weights.empty() ? 1.0 : weights[static_cast<size_t>(j)]; };
  Eigen::MatrixXd delta = Eigen::MatrixXd::Zero(c, c);
  for (Eigen::Index i = 0; i < c; ++i) {
    for (Eigen::Index j = i + 1; j < c; ++j) {
      std::vector<double> gi, gj;
      for (Eigen::Index r : members[i]) gi.push_back(decisions(r, i) - decisions(r, j));
      for (Eigen::Index r : members[j]) gj.push_back(decisions(r, i) - decisions(r, j));
      const PairBias pb = best_pair_bias(gi, gj, weight(i), weight(j));
      delta(i, j) = pb.delta;
      delta(j, i) = -pb.delta;
    }
  }
  return delta.rowwise().sum() / static_cast<double>(c);
}

}  // namespace kqd
}  // namespace krein

#endif  // KREIN_KQD_HPP
