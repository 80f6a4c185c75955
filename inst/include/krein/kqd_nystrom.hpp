// krein: the prediction kernel of Ny-KQD, the kernel quadratic discriminants
// of paper 000 (Table II) in the feature space of a Nystroem approximation
// (derived: the section "Nystroem KQD" of ?kqd; the fit is R/kqd_nystrom.R).
//
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
#include <stdexcept>
#include <vector>

#include "krein/kernels.hpp"
#include "krein/landmark_pass.hpp"
#include "krein/parallel.hpp"

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
// (landmark_pass.hpp) and never held whole; `finite` says whether every
// kernel value was finite.
inline std::vector<Eigen::MatrixXd> pass_distances(const Expansion& e, const KernelSpec& spec, const MatrixRef& X,
                                                   const MatrixRef& L, Eigen::Index block_rows, int threads,
                                                   const Checkpoint& checkpoint, bool& finite) {
  const Eigen::Index n = X.rows();
  check_model(e, L.rows());
  const bool use_self = uses_self(e);
  std::vector<Eigen::MatrixXd> out(e.weights.cols(), Eigen::MatrixXd(n, static_cast<Eigen::Index>(e.sizes.size())));
  std::vector<BlockWorkspace> work(landmark_pass::pass_threads(n, block_rows, threads),
                                   BlockWorkspace(e, std::min(block_rows, n)));
  finite = landmark_pass::for_each_block(spec, X, L, block_rows, threads, checkpoint,
                                         [&](int t, Eigen::Index begin, const Eigen::Ref<const Eigen::MatrixXd>& C) {
    const Eigen::VectorXd self = use_self ? kernel_diagonal(spec, X.middleRows(begin, C.rows()), nullptr)
                                          : Eigen::VectorXd();
    distances_block(e, C, self, begin, work[t], out);
  });
  return out;
}

}  // namespace kqd_nystrom
}  // namespace krein

#endif  // KREIN_KQD_NYSTROM_HPP
