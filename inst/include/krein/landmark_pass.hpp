// krein: one pass over the rows of the landmark kernel C = K(X, L) (n x m)
// without holding it: each thread evaluates its rows in blocks that stay in
// cache (the engine of kernels.hpp, one thread per block) and hands each
// block to a consumer before the next. The Nystroem fits need two such
// passes: the per-class triangular QR factors of [C_c | 1] (Ny-iKFD, Ny-KQD;
// ikfd.hpp explains why factors and not Gram matrices C_c'C_c), then the
// training scores or distances from the fitted model.
//
// Rows go to threads in contiguous ranges, one per thread, each range in
// order, so the result depends on the thread count but never on timing. A
// checkpoint runs on the calling thread after every round of about four
// million kernel values per thread.
#ifndef KREIN_LANDMARK_PASS_HPP
#define KREIN_LANDMARK_PASS_HPP

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <stdexcept>
#include <vector>

#include "krein/kernels.hpp"
#include "krein/parallel.hpp"
#include "krein/tsqr.hpp"

namespace krein {
namespace landmark_pass {

// The kernels the pass evaluates itself: the coordinate kernels, not
// invariant (their block evaluation uses no Eigen product, whose threads are
// a process-wide setting that a worker thread must not change).
inline bool supported(const KernelSpec& spec) {
  return !spec.invariant && !is_dot_product_kernel(spec.type);
}

inline int pass_threads(Eigen::Index n, Eigen::Index block_rows, int threads) {
  const Eigen::Index blocks = (n + block_rows - 1) / block_rows;
  return static_cast<int>(std::max<Eigen::Index>(1, std::min<Eigen::Index>(parallel::thread_count(threads), blocks)));
}

// The first kernel value of a pass that was not finite (NaN or infinite):
// its row of X and its landmark, 0-based; row -1 when every value was finite.
// "First" is in row order, then landmark order, whatever the threads did.
struct NonFinite {
  Eigen::Index row = -1;
  Eigen::Index column = -1;
  bool found() const { return row >= 0; }
  void keep_first(const NonFinite& other) {
    if (other.found() && (!found() || other.row < row || (other.row == row && other.column < column))) *this = other;
  }
};

// The first non-finite value of a block whose rows begin at row `begin`
inline NonFinite first_nonfinite(const Eigen::Ref<const Matrix>& C, Eigen::Index begin) {
  NonFinite out;
  for (Eigen::Index i = 0; i < C.rows() && !out.found(); ++i) {
    for (Eigen::Index j = 0; j < C.cols(); ++j) {
      if (!std::isfinite(C(i, j))) {
        out.row = begin + i;
        out.column = j;
        break;
      }
    }
  }
  return out;
}

// consume(t, begin, C) for the blocks of rows [begin, begin + C.rows()) of
// K(X, L), on thread t of pass_threads(); returns the first kernel value that
// was not finite, if any (the pass goes on: the caller decides). An
// exception in consume ends the pass and reaches the caller (parallel_for()).
template <class Consume>
inline NonFinite for_each_block(const KernelSpec& spec, const MatrixRef& X, const MatrixRef& L,
                           Eigen::Index block_rows, int threads, const Checkpoint& checkpoint,
                           Consume consume) {
  if (!supported(spec)) throw std::invalid_argument("the landmark pass takes the coordinate kernels only");
  if (X.cols() != L.cols()) throw std::invalid_argument("x and the landmarks have different numbers of columns");
  if (block_rows < 1) throw std::invalid_argument("block_rows must be positive");
  const Eigen::Index n = X.rows(), m = L.rows();
  const int workers = pass_threads(n, block_rows, threads);
  std::vector<Eigen::Index> next(workers), stop(workers);
  for (int t = 0; t < workers; ++t) {
    next[t] = n * t / workers;
    stop[t] = n * (t + 1) / workers;
  }
  // Every thread's block is allocated here, on the calling thread: memory a
  // worker thread allocates stays with that thread's malloc arena after it is
  // freed (glibc), where R cannot reuse it, and raised a Ny-KQD fit's peak
  // memory by about 30 MB at N = 1e6 (bench/README.md, nystrom.R).
  std::vector<Matrix> blocks(workers, Matrix(block_rows, m));
  // blocks per thread between checkpoints: about four million kernel values
  // (a round ends when its slowest thread does, so rounds are not too short)
  const Eigen::Index per_round = std::max<Eigen::Index>(1, 4000000 / std::max<Eigen::Index>(1, block_rows * m));
  std::vector<NonFinite> nonfinite(workers);  // each thread's first, in its own row order
  for (;;) {
    bool pending = false;
    for (int t = 0; t < workers; ++t) pending |= next[t] < stop[t];
    if (!pending) break;
    parallel::parallel_for(0, workers, workers, parallel::Schedule::blocks(), [&](Eigen::Index t) {
      for (Eigen::Index b = 0; b < per_round && next[t] < stop[t]; ++b) {
        const Eigen::Index begin = next[t], rows = std::min(block_rows, stop[t] - begin);
        Eigen::Ref<Matrix> C = blocks[t].topRows(rows);
        if (!kernel_matrix(spec, X.middleRows(begin, rows), L, nullptr, C, false, 1) && !nonfinite[t].found()) {
          nonfinite[t] = first_nonfinite(C, begin);
        }
        consume(static_cast<int>(t), begin, C);
        next[t] = begin + rows;
      }
    });
    if (checkpoint) checkpoint();
  }
  NonFinite first;
  for (const NonFinite& found : nonfinite) first.keep_first(found);
  return first;
}

// The running triangular factor of one class's rows [C_c | 1] on one thread:
// rows are gathered into a buffer below the current factor, and the buffer
// is reduced by a Householder QR (in place) when it is full, so each QR
// carries the m + 1 rows of the factor along with `capacity` new rows.
class RunningFactor {
 public:
  RunningFactor(Eigen::Index m, Eigen::Index capacity) : m_(m), capacity_(capacity) {}

  // Allocate the buffer now (on the calling thread; see for_each_block()).
  void allocate() {
    if (buffer_.rows() == 0) buffer_.resize(m_ + 1 + capacity_, m_ + 1);
  }

  // Append rows `rows` of C (and a 1 for each).
  void append(const Eigen::Ref<const Matrix>& C, const std::vector<Eigen::Index>& rows) {
    std::size_t done = 0;
    while (done < rows.size()) {
      allocate();
      const Eigen::Index top = factored_ ? m_ + 1 : 0;
      const Eigen::Index take = std::min<Eigen::Index>(capacity_ - filled_, static_cast<Eigen::Index>(rows.size() - done));
      const Eigen::Index first = top + filled_;
      for (Eigen::Index j = 0; j < m_; ++j) {  // column by column: contiguous writes
        const double* source = C.col(j).data();
        double* target = buffer_.col(j).data() + first;
        for (Eigen::Index r = 0; r < take; ++r) target[r] = source[rows[done + r]];
      }
      buffer_.col(m_).segment(first, take).setOnes();
      filled_ += take;
      done += static_cast<std::size_t>(take);
      if (filled_ == capacity_) reduce();
    }
  }

  bool empty() const { return !factored_ && filled_ == 0; }

  // The (m + 1) x (m + 1) factor of all rows appended (zero rows below when
  // there were fewer rows than columns).
  Matrix factor() {
    if (filled_ > 0) reduce();
    if (!factored_) return Matrix::Zero(m_ + 1, m_ + 1);
    return buffer_.topRows(m_ + 1).triangularView<Eigen::Upper>();
  }

 private:
  void reduce() {
    const Eigen::Index k = (factored_ ? m_ + 1 : 0) + filled_;
    Eigen::Ref<Matrix> rows = buffer_.topRows(k);
    Eigen::HouseholderQR<Eigen::Ref<Matrix>> qr(rows);  // in place: R in the upper triangle
    const Eigen::Index kept = std::min(k, m_ + 1);
    // the Householder vectors below the diagonal are not part of R: the
    // next reduction takes these m + 1 rows as rows of the data
    buffer_.topRows(kept).triangularView<Eigen::StrictlyLower>().setZero();
    if (kept < m_ + 1) buffer_.middleRows(kept, m_ + 1 - kept).setZero();
    factored_ = true;
    filled_ = 0;
  }

  Eigen::Index m_, capacity_;
  Matrix buffer_;
  Eigen::Index filled_ = 0;
  bool factored_ = false;
};

// The memory the running factors of the class pass may take. Every (thread,
// class) pair keeps a buffer of (m + 1 + capacity) x (m + 1) doubles, so
// the buffers grow with threads x classes x m^2: 16 threads, 11 classes and
// m = 1000 would take 4 GB whatever n is. Within this budget the pass takes
// as many threads as fit with the least capacity, 2 (m + 1) rows (at least
// one thread, whose buffers are then three times the size of the result
// itself, classes (m + 1)^2 doubles), and then the largest capacity up to
// 16 (m + 1) rows that the budget allows those threads.
constexpr double factor_budget_bytes = 256e6;

inline double factor_buffer_bytes(Eigen::Index m, int classes, int threads, Eigen::Index capacity) {
  return 8.0 * static_cast<double>(m + 1) * static_cast<double>(m + 1 + capacity) * classes * threads;
}

// The threads of the class pass: at most `threads`, as many as the budget
// holds at the least capacity, at least one.
inline int factor_threads(Eigen::Index m, int classes, int threads) {
  const double one = factor_buffer_bytes(m, classes, 1, 2 * (m + 1));
  const double fit = std::floor(factor_budget_bytes / one);
  return static_cast<int>(std::max(1.0, std::min(static_cast<double>(std::max(1, threads)), fit)));
}

// Rows gathered per QR: 16 (m + 1), or fewer so that the buffers of all
// classes and threads take at most the budget, but at least 2 (m + 1).
inline Eigen::Index factor_capacity(Eigen::Index m, int classes, int threads) {
  const double per_row = 8.0 * static_cast<double>(m + 1) * classes * threads;
  const double budget = std::floor(factor_budget_bytes / per_row) - static_cast<double>(m + 1);
  const double most = static_cast<double>(16 * (m + 1)), least = static_cast<double>(2 * (m + 1));
  return static_cast<Eigen::Index>(std::max(least, std::min(most, budget)));
}

struct ClassFactors {
  std::vector<Matrix> factors;  // per class, (m + 1) x (m + 1) upper triangular
  NonFinite nonfinite;          // the first kernel value that was not finite, if any
  int threads = 1;              // the threads the pass ran on (factor_threads())
};

// The triangular factor of [C_c | 1] per class c (labels 0..classes-1), as
// ikfd::class_factors() gives for C held whole, up to rounding.
inline ClassFactors class_factors(const KernelSpec& spec, const MatrixRef& X, const MatrixRef& L,
                                  const std::vector<int>& labels, int classes, Eigen::Index block_rows,
                                  int threads, const Checkpoint& checkpoint) {
  const Eigen::Index n = X.rows(), m = L.rows();
  if (static_cast<Eigen::Index>(labels.size()) != n) throw std::invalid_argument("one label per row");
  for (int l : labels) {
    if (l < 0 || l >= classes) throw std::invalid_argument("label out of range");
  }
  const int workers = factor_threads(m, classes, pass_threads(n, block_rows, threads));
  const Eigen::Index capacity = factor_capacity(m, classes, workers);
  std::vector<std::vector<RunningFactor>> running(workers, std::vector<RunningFactor>(classes, RunningFactor(m, capacity)));
  for (auto& thread_factors : running) {
    for (auto& factor : thread_factors) factor.allocate();
  }
  std::vector<std::vector<std::vector<Eigen::Index>>> members(workers, std::vector<std::vector<Eigen::Index>>(classes));
  ClassFactors out;
  out.threads = workers;
  out.nonfinite = for_each_block(spec, X, L, block_rows, workers, checkpoint,
                              [&](int t, Eigen::Index begin, const Eigen::Ref<const Matrix>& C) {
    auto& rows = members[t];
    for (auto& r : rows) r.clear();
    for (Eigen::Index i = 0; i < C.rows(); ++i) rows[labels[begin + i]].push_back(i);
    for (int c = 0; c < classes; ++c) {
      if (!rows[c].empty()) running[t][c].append(C, rows[c]);
    }
  });
  // each thread's last reductions, then the threads' factors merged in row order
  std::vector<std::vector<Matrix>> partial(workers, std::vector<Matrix>(classes));
  parallel::parallel_for(0, workers, workers, parallel::Schedule::blocks(), [&](Eigen::Index t) {
    for (int c = 0; c < classes; ++c) {
      if (!running[t][c].empty()) partial[t][c] = running[t][c].factor();
    }
  });
  out.factors.resize(classes);
  for (int c = 0; c < classes; ++c) {
    Matrix factor;
    for (int t = 0; t < workers; ++t) {
      if (partial[t][c].size() == 0) continue;
      factor = factor.size() == 0 ? partial[t][c] : tsqr::merge_factor(factor, partial[t][c]);
    }
    out.factors[c] = factor.size() == 0 ? Matrix::Zero(m + 1, m + 1) : factor;
  }
  return out;
}

// C * coefficients (n x k) of the rows of X; `nonfinite` as for_each_block
// returns it.
inline Matrix scores(const KernelSpec& spec, const MatrixRef& X, const MatrixRef& L,
                     const MatrixRef& coefficients, Eigen::Index block_rows, int threads,
                     const Checkpoint& checkpoint, NonFinite& nonfinite) {
  if (coefficients.rows() != L.rows()) throw std::invalid_argument("one coefficient row per landmark");
  Matrix out(X.rows(), coefficients.cols());
  nonfinite = for_each_block(spec, X, L, block_rows, threads, checkpoint,
                             [&](int, Eigen::Index begin, const Eigen::Ref<const Matrix>& C) {
    out.middleRows(begin, C.rows()).noalias() = C * coefficients;
  });
  return out;
}

}  // namespace landmark_pass
}  // namespace krein

#endif  // KREIN_LANDMARK_PASS_HPP
