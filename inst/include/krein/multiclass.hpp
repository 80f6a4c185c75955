// krein: class probabilities from one-vs-one models, the one coupling of
// every pairwise model (isvm, krein_svm, pcvm): the second method of Wu, Lin
// and Weng (2004), "Probability estimates for multi-class classification by
// pairwise coupling", JMLR 5, 975-1005, eq. 21 (libsvm's
// multiclass_probability): for each point
//
//   minimise sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2  subject to sum(p) = 1,
//
// r_ij = P(i | i or j), solved directly as the bordered linear system
// (Q, 1; 1', 0) (p, b) = (0, 1) with Q_ii = sum_{s != i} r_si^2 and
// Q_ij = -r_ji r_ij. The pairs (i, j), i < j, come in the order of R's
// combn(): (1, 2), (1, 3), ..., (1, k), (2, 3), ...
#ifndef KREIN_MULTICLASS_HPP
#define KREIN_MULTICLASS_HPP

#include <Eigen/Dense>

#include <algorithm>
#include <stdexcept>

#include "krein/parallel.hpp"

namespace krein {
namespace multiclass {

// libsvm bounds the pairwise probabilities away from 0 and 1
constexpr double probability_floor = 1e-7;

// `r_first`: one row per point, one column per pair in combn() order, the
// probability of the pair's first class. Returns the class probabilities
// (rows x classes), negative solutions raised to 0 and each row normalised.
// The rows are independent: threads take blocks of them, each with its own
// system (allocated before the loop, so no body allocates).
inline Eigen::MatrixXd couple_pairwise(const Eigen::Ref<const Eigen::MatrixXd>& r_first, int classes, int threads) {
  if (classes < 2) throw std::invalid_argument("pairwise coupling needs at least two classes");
  const Eigen::Index pairs = static_cast<Eigen::Index>(classes) * (classes - 1) / 2;
  if (r_first.cols() != pairs) throw std::invalid_argument("one column per pair of classes");
  const Eigen::Index n = r_first.rows();
  Eigen::MatrixXd out(n, classes);
  if (classes == 2) {
    out.col(0) = r_first.col(0);
    out.col(1) = (1.0 - r_first.col(0).array()).matrix();
    return out;
  }
  const Eigen::Index block = 256;
  const Eigen::Index blocks = (n + block - 1) / block;
  const int workers = static_cast<int>(std::max<Eigen::Index>(1, std::min<Eigen::Index>(parallel::thread_count(threads), blocks)));
  // each worker's system, its right-hand side and solution, allocated here
  std::vector<Eigen::MatrixXd> systems(workers, Eigen::MatrixXd(classes + 1, classes + 1));
  std::vector<Eigen::PartialPivLU<Eigen::MatrixXd>> solvers(workers, Eigen::PartialPivLU<Eigen::MatrixXd>(classes + 1));
  std::vector<Eigen::VectorXd> rhs(workers, Eigen::VectorXd::Zero(classes + 1));
  std::vector<Eigen::VectorXd> solution(workers, Eigen::VectorXd(classes + 1));
  for (int w = 0; w < workers; ++w) rhs[w][classes] = 1.0;
  parallel::parallel_for(0, workers, workers, parallel::Schedule::blocks(), [&](Eigen::Index w) {
    Eigen::MatrixXd& system = systems[w];
    for (Eigen::Index t = w; t < blocks; t += workers) {
      const Eigen::Index end = std::min(n, (t + 1) * block);
      for (Eigen::Index row = t * block; row < end; ++row) {
        system.setZero();
        Eigen::Index k = 0;
        for (int i = 0; i < classes - 1; ++i) {
          for (int j = i + 1; j < classes; ++j, ++k) {
            const double r_ij = std::min(std::max(r_first(row, k), probability_floor), 1.0 - probability_floor);
            const double r_ji = 1.0 - r_ij;
            system(i, i) += r_ji * r_ji;
            system(j, j) += r_ij * r_ij;
            system(i, j) -= r_ji * r_ij;
            system(j, i) -= r_ji * r_ij;
          }
        }
        system.col(classes).head(classes).setOnes();
        system.row(classes).head(classes).setOnes();
        solvers[w].compute(system);
        solution[w].noalias() = solvers[w].solve(rhs[w]);
        auto p = out.row(row);
        p = solution[w].head(classes).transpose().cwiseMax(0.0);
        p /= p.sum();
      }
    }
  });
  return out;
}

}  // namespace multiclass
}  // namespace krein

#endif  // KREIN_MULTICLASS_HPP
