// krein: Ny-KQD, the kernel quadratic discriminants of paper 000 (Table II)
// in the feature space of a Nystroem approximation (derived: the section
// "Nystroem KQD" of ?kqd): the model from per-class moments of the landmark
// kernel (fit(), below), and its prediction kernel.
//
// The fit. W = k(L, L) = V diag(l) V', r nonzero eigenpairs kept (the
// pseudo-inverse cutoff of nystrom.hpp); phi(x) = |l|^-1/2 V' k(L, x), J =
// sign(l), so that k_hat(x, x') = phi(x)' J phi(x') is the Nystroem kernel
// k(x, L) W^+ k(L, x'). Per class j the training rows give n_j, the mean mu_j
// and the centred Gram G_j = Phit_j' Phit_j (r x r); only the triangular QR
// factor of the class's rows [C_j, 1] enters (tall-skinny QR, from the
// landmark pass or merged over chunks). With G_j = F_j' F_j, the nonzero
// spectrum of the centred class kernel K~^[j] = Phit_j J Phit_j' is that of
// M_j = F_j J F_j' = Q Lambda Q', and a point's centred kernel vector k~_x =
// Phit_j J phit(x) has the coordinates c(x) = Q' F_j J phit(x) in that
// eigenbasis and nothing outside it. Every Table II formula is a spectral
// function of K~^[j] applied to k~_x, so it becomes sum_i w(Lambda_i) c_i(x)^2
// with kqd.hpp's spectral_weight(). FK does the same with the fully centred
// Gram of all rows and the class matrix J G_j J. The model keeps the map and
// per class mu_j, the projection Q' F_j J and the eigenvalues, folded into
// one m x (sum_j s_j + c) matrix for prediction: O(m r + c r^2) numbers,
// never the training set.
//
// The prediction.
// Every variant's squared distance of a point x to class j is, with C_x the
// kernel row of x against the m landmarks,
//
//     P = C_x E                       (E: m x (S + c), the model's expansion)
//     c_j = P[class j's s_j columns] - o_j     (coordinates in the eigenbasis)
//     q_jk = sum_i w_jk[i] c_j[i]^2            (w: spectral weights, path value k)
//     d_jk = a_jk q_jk + b_jk (k(x, x) - 2 P[S + j] + e_j)
//
// (IC, FK: a = n_j, b = 0; RC: a = -1 / sigma^2, b = 1 / sigma^2, the last
// term the centred self-similarity). One product of O(m (S + c)) per point;
// the rows are split into chunks run in parallel.
#ifndef KREIN_KQD_NYSTROM_HPP
#define KREIN_KQD_NYSTROM_HPP

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "krein/kernels.hpp"
#include "krein/kqd.hpp"
#include "krein/landmark_pass.hpp"
#include "krein/nystrom.hpp"
#include "krein/parallel.hpp"
#include "krein/symmetric_eigen.hpp"

namespace krein {
namespace kqd_nystrom {

struct Expansion {
  Eigen::MatrixXd expansion;     // m x (S + c)
  Eigen::VectorXd offsets;       // S
  std::vector<Eigen::Index> sizes;  // s_j, summing to S
  Eigen::MatrixXd weights;       // S x paths
  Eigen::MatrixXd scale;         // paths x c: a_jk
  Eigen::MatrixXd self_scale;    // paths x c: b_jk (zero when the self-similarity is not used)
  Eigen::VectorXd self_offsets;  // c: e_j = mu_j' J mu_j
};

inline void check_model(const Expansion& e, Eigen::Index m) {
  const Eigen::Index c = static_cast<Eigen::Index>(e.sizes.size());
  const Eigen::Index paths = e.weights.cols();
  Eigen::Index total = 0;
  for (Eigen::Index s : e.sizes) total += s;
  if (m != e.expansion.rows()) throw std::invalid_argument("the landmark kernel needs one column per landmark");
  if (e.expansion.cols() != total + c || e.offsets.size() != total || e.weights.rows() != total ||
      e.scale.rows() != paths || e.scale.cols() != c || e.self_scale.rows() != paths ||
      e.self_scale.cols() != c || e.self_offsets.size() != c) {
    throw std::invalid_argument("inconsistent Ny-KQD model");
  }
}

inline bool uses_self(const Expansion& e) { return (e.self_scale.array() != 0).any(); }

// One thread's products of a block: P = C E and the squared coordinates,
// for blocks of up to `rows` rows. Allocated by the calling thread before
// the threads start (see landmark_pass::for_each_block()).
struct BlockWorkspace {
  Eigen::MatrixXd products, squares;
  BlockWorkspace(const Expansion& e, Eigen::Index rows)
      : products(rows, e.expansion.cols()), squares(rows, e.offsets.size()) {}
};

// The distances of one block of rows (C: their landmark kernel, self: their
// k(x, x) when used) into rows [begin, begin + C.rows()) of out[k].
inline void distances_block(const Expansion& e, const Eigen::Ref<const Eigen::MatrixXd>& C,
                            const Eigen::Ref<const Eigen::VectorXd>& self, Eigen::Index begin,
                            BlockWorkspace& work, std::vector<Eigen::MatrixXd>& out) {
  const Eigen::Index rows = C.rows();
  const Eigen::Index c = static_cast<Eigen::Index>(e.sizes.size());
  const Eigen::Index paths = e.weights.cols();
  const Eigen::Index total = e.offsets.size();
  auto P = work.products.topRows(rows);
  P.noalias() = C * e.expansion;
  P.leftCols(total).rowwise() -= e.offsets.transpose();
  auto squares = work.squares.topRows(rows);
  squares = P.leftCols(total).array().square().matrix();
  Eigen::Index first = 0;
  for (Eigen::Index j = 0; j < c; ++j) {
    const Eigen::Index s = e.sizes[j];
    const Eigen::MatrixXd q = squares.middleCols(first, s) * e.weights.middleRows(first, s);  // rows x paths
    for (Eigen::Index k = 0; k < paths; ++k) {
      auto d = out[k].col(j).segment(begin, rows);
      d = e.scale(k, j) * q.col(k);
      if (e.self_scale(k, j) != 0) {
        d.array() += e.self_scale(k, j) * (self.array() - 2.0 * P.col(total + j).array() + e.self_offsets[j]);
      }
    }
    first += s;
  }
}

// Distances of the rows of C (n x m) for every path value: result[k] is n x c.
// `self` holds k(x, x) per row, or is empty when every b_jk is zero.
inline std::vector<Eigen::MatrixXd> distances(const Expansion& e, const Eigen::Ref<const Eigen::MatrixXd>& C,
                                              const Eigen::Ref<const Eigen::VectorXd>& self, int threads) {
  const Eigen::Index n = C.rows();
  check_model(e, C.cols());
  const bool use_self = uses_self(e);
  if (use_self && self.size() != n) throw std::invalid_argument("the self-similarities must have one value per row");
  std::vector<Eigen::MatrixXd> out(e.weights.cols(), Eigen::MatrixXd(n, static_cast<Eigen::Index>(e.sizes.size())));
  const Eigen::Index chunk_rows = 1024;
  const Eigen::Index chunks = (n + chunk_rows - 1) / chunk_rows;
  // worker w takes chunks w, w + workers, ...: each with its own workspace
  const int workers = static_cast<int>(std::max<Eigen::Index>(
      1, std::min<Eigen::Index>(parallel::thread_count(threads), chunks)));
  std::vector<BlockWorkspace> work(workers, BlockWorkspace(e, std::min(chunk_rows, n)));
  parallel::parallel_for(0, workers, workers, parallel::Schedule::blocks(), [&](Eigen::Index w) {
    for (Eigen::Index t = w; t < chunks; t += workers) {
      const Eigen::Index begin = t * chunk_rows;
      const Eigen::Index rows = std::min(chunk_rows, n - begin);
      const Eigen::Ref<const Eigen::VectorXd> block_self =
          use_self ? Eigen::Ref<const Eigen::VectorXd>(self.segment(begin, rows)) : Eigen::Ref<const Eigen::VectorXd>(self);
      distances_block(e, C.middleRows(begin, rows), block_self, begin, work[w], out);
    }
  });
  return out;
}

// distances() of the rows of X, their landmark kernel computed block by block
// (landmark_pass.hpp) and never held whole; `nonfinite` is the first kernel
// value that was not finite, if any.
inline std::vector<Eigen::MatrixXd> pass_distances(const Expansion& e, const KernelSpec& spec, const MatrixRef& X,
                                                   const MatrixRef& L, Eigen::Index block_rows, int threads,
                                                   const Checkpoint& checkpoint,
                                                   landmark_pass::NonFinite& nonfinite) {
  const Eigen::Index n = X.rows();
  check_model(e, L.rows());
  const bool use_self = uses_self(e);
  std::vector<Eigen::MatrixXd> out(e.weights.cols(), Eigen::MatrixXd(n, static_cast<Eigen::Index>(e.sizes.size())));
  std::vector<BlockWorkspace> work(landmark_pass::pass_threads(n, block_rows, threads),
                                   BlockWorkspace(e, std::min(block_rows, n)));
  nonfinite = landmark_pass::for_each_block(spec, X, L, block_rows, threads, checkpoint,
                                         [&](int t, Eigen::Index begin, const Eigen::Ref<const Eigen::MatrixXd>& C) {
    const Eigen::VectorXd self = use_self ? kernel_diagonal(spec, X.middleRows(begin, C.rows()), nullptr)
                                          : Eigen::VectorXd();
    distances_block(e, C, self, begin, work[t], out);
  });
  return out;
}

// ---- The fit ----

// A class's count, sum and centred factor in landmark-kernel space from the
// triangular factor R ((m + 1) x (m + 1)) of its rows [C_j, 1]: with R =
// [R11 u; 0 rho], C_j'1 = R11'u, n_j = |u|^2 + rho^2 and the centred Gram
// C_j'C_j - C_j'1 1'C_j / n_j = R11'(I - uu'/n_j) R11 = F'F with F =
// (I - a uu'/|u|^2) R11, a = 1 - |rho| / sqrt(n_j): the centring is exact,
// with no cancellation of the mean.
struct ClassMoments {
  double n = 0.0;
  Eigen::VectorXd sum;      // C_j'1
  Eigen::MatrixXd centred;  // F, m x m
};

inline ClassMoments class_moments(const Eigen::Ref<const Eigen::MatrixXd>& R, double n) {
  const Eigen::Index m = R.cols() - 1;
  if (m < 1 || R.rows() != R.cols()) throw std::invalid_argument("a class factor must be (m + 1) x (m + 1)");
  const Eigen::MatrixXd R11 = R.topLeftCorner(m, m);
  const Eigen::VectorXd u = R.col(m).head(m);
  const double uu = u.squaredNorm();
  const double rho = std::abs(R(m, m));  // rho^2 = n - |u|^2, from the factor itself
  ClassMoments out;
  out.n = n;
  out.sum = R11.transpose() * u;
  out.centred = R11;
  if (uu > 0) out.centred -= ((1.0 - rho / std::sqrt(uu + rho * rho)) / uu) * u * (R11.transpose() * u).transpose();
  return out;
}

namespace detail {

// A factor F with F'F = A'A and at most min(rows, cols) rows (thin QR)
inline Eigen::MatrixXd row_factor(const Eigen::MatrixXd& A) {
  if (A.rows() == 0) return A;
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(A);
  const Eigen::Index k = std::min(A.rows(), A.cols());
  return qr.matrixQR().topRows(k).triangularView<Eigen::Upper>();
}

// The spectrum of F A F' (the nonzero spectrum of a class's n_j x n_j or
// n x n matrix), largest first, and the projection Q' F J of centred
// features onto its eigenvectors.
struct Spectrum {
  Eigen::VectorXd values;
  Eigen::MatrixXd projection;
};

inline Spectrum spectrum(const Eigen::MatrixXd& F, const Eigen::MatrixXd& middle, const Eigen::VectorXd& signs) {
  Spectrum out;
  if (F.rows() == 0) {
    out.projection.resize(0, signs.size());
    return out;
  }
  const Eigen::MatrixXd M = F * middle * F.transpose();
  const SymmetricEigen eig = symmetric_eigen((M + M.transpose()) / 2.0, true);
  out.values = eig.values.reverse();
  out.projection = eig.vectors.rowwise().reverse().transpose() * (F * signs.asDiagonal());
  return out;
}

}  // namespace detail

// What prediction and the fit's diagnostics need of one class.
struct ClassModel {
  double n_j = 0.0;
  Eigen::VectorXd mean;         // mu_j in the feature space (r)
  Eigen::VectorXd values;       // the spectrum the weights apply to
  Eigen::MatrixXd projection;   // s_j x r
  double zero = 0.0;            // zero tolerance of the spectrum
  bool indefinite = false;      // the IKQD formulas are used
  bool negative_found = false;  // negative eigenvalues beyond tolerance were seen
  int p = -1, q = -1, z = -1;   // signature of K~^[j] (-1: not computed)
  bool regularised_singular = false;  // a pd "+" formula met lambda + reg <= 0
};

struct Model {
  kqd::Variant variant = kqd::Variant::rc_plus;
  Eigen::MatrixXd reg;          // path values x classes
  nystrom::FeatureMap feature;
  std::vector<ClassModel> classes;
  Expansion expansion;          // what prediction applies to the landmark kernel
};

// The model from the landmark kernel W, each class's factor of [C_j, 1] and
// count, the variant, the path of `reg` values (rows) per class (columns)
// and the indefinite mode. A model with an empty feature map (W zero or not
// finite) has no classes: the caller reports it.
inline Model fit(const Eigen::Ref<const Eigen::MatrixXd>& W, const std::vector<Eigen::MatrixXd>& class_factors,
                 const std::vector<double>& counts, kqd::Variant variant, const Eigen::MatrixXd& reg,
                 kqd::IndefiniteMode mode) {
  using kqd::Variant;
  const Eigen::Index c = static_cast<Eigen::Index>(class_factors.size());
  if (static_cast<Eigen::Index>(counts.size()) != c || reg.cols() != c) {
    throw std::invalid_argument("one factor, count and column of `reg` per class");
  }
  Model model;
  model.variant = variant;
  model.reg = reg;
  model.feature = nystrom::feature_map(W);
  const Eigen::MatrixXd& map = model.feature.map;
  const Eigen::VectorXd& signs = model.feature.signs;
  const Eigen::Index r = signs.size(), m = W.rows();
  if (r == 0) return model;
  const bool fk = kqd::is_fk(variant);
  const double eps = std::numeric_limits<double>::epsilon();
  // in the feature space: mu_j and an r-column factor of the centred Gram G_j
  std::vector<Eigen::VectorXd> means(c);
  std::vector<Eigen::MatrixXd> factors(c);
  double n = 0.0;
  for (Eigen::Index j = 0; j < c; ++j) {
    const ClassMoments moments = class_moments(class_factors[j], counts[j]);
    means[j] = map * moments.sum / moments.n;
    factors[j] = detail::row_factor(moments.centred * map.transpose());
    n += moments.n;
  }
  Eigen::MatrixXd total_factor;
  if (fk) {
    // the fully centred Gram of all rows: within-class plus between-class parts
    Eigen::VectorXd grand = Eigen::VectorXd::Zero(r);
    for (Eigen::Index j = 0; j < c; ++j) grand += counts[j] * means[j];
    grand /= n;
    Eigen::Index rows = 0;
    for (Eigen::Index j = 0; j < c; ++j) rows += factors[j].rows() + 1;
    Eigen::MatrixXd stacked(rows, r);
    Eigen::Index at = 0;
    for (Eigen::Index j = 0; j < c; ++j) {
      stacked.middleRows(at, factors[j].rows()) = factors[j];
      at += factors[j].rows();
      stacked.row(at++) = std::sqrt(counts[j]) * (means[j] - grand).transpose();
    }
    total_factor = detail::row_factor(stacked);
  }
  const Eigen::MatrixXd J = signs.asDiagonal();
  model.classes.resize(c);
  for (Eigen::Index j = 0; j < c; ++j) {
    ClassModel& cls = model.classes[j];
    const Eigen::MatrixXd& F = factors[j];
    cls.n_j = counts[j];
    cls.mean = means[j];
    // the centred class kernel K~^[j]: its nonzero spectrum, for the record
    // (and the model of IC and RC); RC- with A = I decomposes nothing, as kqd.hpp
    const bool decompose = !(variant == Variant::rc_minus && mode == kqd::IndefiniteMode::no);
    detail::Spectrum class_spectrum;
    double zero = 0.0;
    int p = 0, q = 0;
    if (decompose) {
      class_spectrum = detail::spectrum(F, J, signs);
      const Eigen::VectorXd& lambda = class_spectrum.values;
      const double largest = lambda.size() ? lambda.cwiseAbs().maxCoeff() : 0.0;
      zero = 100.0 * cls.n_j * eps * largest;
      for (Eigen::Index i = 0; i < lambda.size(); ++i) {
        cls.negative_found = cls.negative_found || lambda[i] < -1e-8 * largest;
        p += lambda[i] > zero;
        q += lambda[i] < -zero;
      }
      cls.p = p;
      cls.q = q;
      cls.z = static_cast<int>(cls.n_j) - p - q;
    }
    cls.indefinite = mode == kqd::IndefiniteMode::yes || (mode == kqd::IndefiniteMode::automatic && cls.negative_found);
    if (fk) {
      // K~~^[j] = Phibar J G_j J Phibar' (psd): the spectrum of F J G_j J F'
      const detail::Spectrum spectrum = detail::spectrum(total_factor, J * (F.transpose() * F) * J, signs);
      cls.values = spectrum.values;
      cls.projection = spectrum.projection;
      cls.p = cls.q = cls.z = -1;
      cls.zero = 100.0 * cls.n_j * eps * (cls.values.size() ? cls.values.cwiseAbs().maxCoeff() : 0.0);
    } else if (!decompose) {
      // RC- with A = I: q = |k~_x|^2, any orthonormal coordinates of range(Phit_j J) do
      cls.values = Eigen::VectorXd::Zero(F.rows());
      cls.projection = F * signs.asDiagonal();
      cls.zero = 0.0;
    } else {
      cls.values = class_spectrum.values;
      cls.projection = class_spectrum.projection;
      cls.zero = zero;
      if (!cls.indefinite && (variant == Variant::ic_plus || variant == Variant::rc_plus)) {
        double smallest = cls.values.size() ? cls.values.minCoeff() : 0.0;
        if (cls.n_j > p + q) smallest = std::min(smallest, 0.0);
        for (Eigen::Index k = 0; k < reg.rows(); ++k) {
          const double shift = variant == Variant::rc_plus ? cls.n_j * reg(k, j) : reg(k, j);
          cls.regularised_singular = cls.regularised_singular || smallest + shift <= zero;
        }
      }
    }
  }
  // c(x) = T_j (phi(x) - mu_j) = (T_j map) k(L, x) - T_j mu_j, and for RC
  // phi(x)' J mu_j = k(x, L) map' J mu_j: one m x (sum_j s_j + c) expansion,
  // with the spectral weights of every class at every path value
  Expansion& e = model.expansion;
  Eigen::Index total = 0;
  for (const ClassModel& cls : model.classes) total += cls.values.size();
  const Eigen::Index paths = reg.rows();
  e.expansion.resize(m, total + c);
  e.offsets.resize(total);
  e.weights.resize(total, paths);
  e.sizes.clear();
  Eigen::Index first = 0;
  for (Eigen::Index j = 0; j < c; ++j) {
    const ClassModel& cls = model.classes[j];
    const Eigen::Index s = cls.values.size();
    e.sizes.push_back(s);
    e.expansion.middleCols(first, s) = map.transpose() * cls.projection.transpose();
    e.offsets.segment(first, s) = cls.projection * cls.mean;
    for (Eigen::Index k = 0; k < paths; ++k) {
      for (Eigen::Index i = 0; i < s; ++i) {
        e.weights(first + i, k) = kqd::spectral_weight(variant, cls.indefinite, cls.values[i], reg(k, j), cls.n_j,
                                                       cls.zero);
      }
    }
    e.expansion.col(total + j) = map.transpose() * signs.cwiseProduct(cls.mean);
    first += s;
  }
  // d = a q + b (k(x, x) - 2 phi(x)' J mu_j + mu_j' J mu_j): IC and FK a =
  // n_j, b = 0; RC a = -1 / sigma^2, b = 1 / sigma^2, with the exact
  // self-similarity and the approximated kernel elsewhere (?kqd, Nystroem KQD)
  const bool rc = kqd::is_rc(variant);
  e.scale.resize(paths, c);
  e.self_scale.resize(paths, c);
  e.self_offsets.resize(c);
  for (Eigen::Index j = 0; j < c; ++j) {
    const ClassModel& cls = model.classes[j];
    e.self_offsets[j] = signs.dot(cls.mean.cwiseProduct(cls.mean));
    for (Eigen::Index k = 0; k < paths; ++k) {
      e.scale(k, j) = rc ? -1.0 / reg(k, j) : cls.n_j;
      e.self_scale(k, j) = rc ? 1.0 / reg(k, j) : 0.0;
    }
  }
  return model;
}


}  // namespace kqd_nystrom
}  // namespace krein

#endif  // KREIN_KQD_NYSTROM_HPP
