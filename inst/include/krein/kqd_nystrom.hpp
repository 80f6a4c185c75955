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

// Distances of the rows of C (n x m) for every path value: result[k] is n x c.
// `self` holds k(x, x) per row, or is empty when every b_jk is zero.
inline std::vector<Eigen::MatrixXd> distances(const Expansion& e, const Eigen::Ref<const Eigen::MatrixXd>& C,
                                              const Eigen::Ref<const Eigen::VectorXd>& self, int threads) {
  const Eigen::Index n = C.rows();
  const Eigen::Index c = static_cast<Eigen::Index>(e.sizes.size());
  const Eigen::Index paths = e.weights.cols();
  Eigen::Index total = 0;
  for (Eigen::Index s : e.sizes) total += s;
  if (C.cols() != e.expansion.rows()) throw std::invalid_argument("the landmark kernel needs one column per landmark");
  if (e.expansion.cols() != total + c || e.offsets.size() != total || e.weights.rows() != total ||
      e.scale.rows() != paths || e.scale.cols() != c || e.self_scale.rows() != paths ||
      e.self_scale.cols() != c || e.self_offsets.size() != c) {
    throw std::invalid_argument("inconsistent Ny-KQD model");
  }
  const bool use_self = (e.self_scale.array() != 0).any();
  if (use_self && self.size() != n) throw std::invalid_argument("the self-similarities must have one value per row");
  std::vector<Eigen::MatrixXd> out(paths, Eigen::MatrixXd(n, c));
  const Eigen::Index chunk_rows = 1024;
  const Eigen::Index chunks = (n + chunk_rows - 1) / chunk_rows;
  parallel::parallel_for(0, chunks, threads, parallel::Schedule::dynamic(), [&](Eigen::Index t) {
    const Eigen::Index begin = t * chunk_rows;
    const Eigen::Index rows = std::min(chunk_rows, n - begin);
    Eigen::MatrixXd P = C.middleRows(begin, rows) * e.expansion;
    P.leftCols(total).rowwise() -= e.offsets.transpose();
    const Eigen::MatrixXd squares = P.leftCols(total).array().square().matrix();
    Eigen::Index first = 0;
    for (Eigen::Index j = 0; j < c; ++j) {
      const Eigen::Index s = e.sizes[j];
      const Eigen::MatrixXd q = squares.middleCols(first, s) * e.weights.middleRows(first, s);  // rows x paths
      for (Eigen::Index k = 0; k < paths; ++k) {
        auto d = out[k].col(j).segment(begin, rows);
        d = e.scale(k, j) * q.col(k);
        if (e.self_scale(k, j) != 0) {
          d.array() += e.self_scale(k, j) *
                       (self.segment(begin, rows).array() - 2.0 * P.col(total + j).array() + e.self_offsets[j]);
        }
      }
      first += s;
    }
  });
  return out;
}

}  // namespace kqd_nystrom
}  // namespace krein

#endif  // KREIN_KQD_NYSTROM_HPP
