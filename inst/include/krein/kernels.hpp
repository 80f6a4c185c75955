// krein: kernel functions and the kernel-matrix engine.
//
// The numerical core knows nothing of R: it includes only the standard library
// and Eigen. Argument validation happens in R (R/kernels.R); the core throws
// std::invalid_argument for anything that would otherwise be undefined.
#ifndef KREIN_KERNELS_HPP
#define KREIN_KERNELS_HPP

#include <Eigen/Dense>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include "krein/parallel.hpp"

namespace krein {

using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;
using MatrixRef = Eigen::Ref<const Eigen::MatrixXd>;
using VectorRef = Eigen::Ref<const Eigen::VectorXd>;

enum class KernelType {
  linear,        // <x, x'>
  poly,          // (scale <x, x'> + offset)^degree           (paper 001, Sec. 2)
  tanh,          // tanh(scale <x, x'> + offset), indefinite
  elm,           // arcsine ELM kernel (paper 002; Frenay & Verleysen 2011)
  rbf,           // exp(-gamma ||x - x'||^2)
  rbf_diag,      // exp(-0.5 sum_j (x_j - x'_j)^2 / scales_j)  (paper 003, Example 2)
  dist,          // exp(-d^power / s^2), d = ||x - x'||^2      (paper 000, Sec. V-B)
  epanechnikov   // prod_j max(0, 1 - (x_j - x'_j)^2 / width^2) (paper 003, Example 1)
};

// A built-in kernel with its parameters. Fields a kernel does not use are ignored.
struct KernelSpec {
  KernelType type = KernelType::rbf;
  double gamma = 1.0;
  double degree = 2.0;
  double scale = 1.0;
  double offset = 0.0;
  double sigma2 = 1e10;
  double s = 1.0;
  double power = 1.0;
  double width = 1.0;
  Vector scales;  // rbf_diag only: one variance per input column
  // Invariant kernel (paper 000, Sec. V-B): k_bar(x, x') = max{k(x, x'), k(x, tau(x'))}.
  // The engine receives tau applied to the rows of the second argument.
  bool invariant = false;
};

// Called on the calling thread between chunks of a long computation, never from a
// worker thread; it may throw to abandon the computation (the R glue passes one
// that turns a pending user interrupt into an exception). Empty: no checks.
using Checkpoint = std::function<void()>;

inline bool is_dot_product_kernel(KernelType type) {
  return type == KernelType::linear || type == KernelType::poly || type == KernelType::tanh ||
         type == KernelType::elm;
}

namespace detail {

// Integer powers by repeated squaring are exact where std::pow may not be.
inline double int_power(double base, long exponent) {
  double result = 1.0;
  while (exponent > 0) {
    if (exponent & 1L) result *= base;
    base *= base;
    exponent >>= 1;
  }
  return result;
}

inline double real_power(double base, double exponent) {
  const double rounded = std::round(exponent);
  if (rounded == exponent && rounded >= 0 && rounded <= 64) {
    return int_power(base, static_cast<long>(rounded));
  }
  return std::pow(base, exponent);
}

// The part of a kernel that maps an inner product (and, for ELM, the two
// self inner products) to a kernel value.
struct DotMap {
  const KernelSpec& spec;
  double operator()(double dot, double self_x, double self_y) const {
    switch (spec.type) {
      case KernelType::linear:
        return dot;
      case KernelType::poly:
        return real_power(spec.scale * dot + spec.offset, spec.degree);
      case KernelType::tanh:
        return std::tanh(spec.scale * dot + spec.offset);
      case KernelType::elm: {
        // (2/pi) asin((1 + x'z) / sqrt((1/(2 s2) + 1 + x'x)(1/(2 s2) + 1 + z'z)))
        const double c = 0.5 / spec.sigma2 + 1.0;
        double ratio = (1.0 + dot) / std::sqrt((c + self_x) * (c + self_y));
        ratio = std::min(1.0, std::max(-1.0, ratio));  // rounding must not leave asin's domain
        return M_2_PI * std::asin(ratio);
      }
      default:
        throw std::invalid_argument("not a dot-product kernel");
    }
  }
};

// Block kernels: for one column j of the output and the rows [row_begin, row_end),
// accumulate a per-pair statistic over the input columns (contiguous in the row
// index, so the compiler vectorises it) and map a block of statistics at once
// to kernel values written to out[0 .. row_end - row_begin). `finish(acc, out,
// len)` maps len statistics and returns whether every value it wrote is
// finite: the test rides on the loop that writes the values (they are in
// cache), where a separate pass over an n x n result would read 8 n^2 bytes
// again. fill_column_block returns whether all values were finite.
constexpr int kRowBlock = 256;

template <class Accumulate, class Finish>
inline bool fill_column_block(const MatrixRef& X, const MatrixRef& Y, Eigen::Index j,
                              Eigen::Index row_begin, Eigen::Index row_end, double* out,
                              Accumulate accumulate, Finish finish, double init) {
  bool finite = true;
  double acc[kRowBlock];
  const Eigen::Index d = X.cols();
  for (Eigen::Index i0 = row_begin; i0 < row_end; i0 += kRowBlock) {
    const int len = static_cast<int>(std::min<Eigen::Index>(kRowBlock, row_end - i0));
    for (int i = 0; i < len; ++i) acc[i] = init;
    for (Eigen::Index k = 0; k < d; ++k) {
      const double yk = Y(j, k);
      const double* xk = X.col(k).data() + i0;
      for (int i = 0; i < len; ++i) accumulate(acc[i], xk[i], yk);
    }
    finite &= finish(acc, out + (i0 - row_begin), len);
  }
  return finite;
}

// exp() of a block of at most kRowBlock exponents into `out`. Eigen's packet
// exp() runs two values per instruction on the baseline x86-64 instruction
// set (SSE2), where std::exp runs one at a time; the exponential is most of
// the cost of an RBF or distance kernel value. Within [-708, 708] it agrees
// with std::exp to a few units in the last place (Eigen's pexp: a range
// reduction by ln 2 and Cephes' rational approximation on [-ln 2 / 2,
// ln 2 / 2]; against glibc's exp() over 1e7 evenly spaced
// exponents in [-708, 708]: at most 2 ulp, relative error at most 3.2e-16,
// see bench/README.md, "nystrom.R"), and its
// results there are finite; outside (where results are subnormal, 0 or Inf)
// and for NaN, std::exp gives the value, so that underflow, overflow and NaN
// behave exactly as the scalar function's. Returns whether every result is
// finite.
//
// Every value goes through the packet path: Eigen computes the unaligned
// head and the tail of a vector with the scalar function, whose results can
// differ from the packet's in the last place, and then the same pair of
// points would get a different kernel value in a symmetric matrix (columns of
// every length) than in a cross-kernel, enough to move an ill-conditioned
// Nystroem fit in the 9th digit. So the exponents live in an aligned buffer
// padded to a whole number of packets: ExpBuffer, which the finish below
// fills directly (no second copy).
constexpr int kExpPad = 8;  // a multiple of any packet size of doubles
struct ExpBuffer {
  alignas(64) double x[kRowBlock + kExpPad];
};

// exp() of buffer.x[0 .. len) into out[0 .. len); the buffer's padding is
// overwritten.
inline bool exp_block(ExpBuffer& buffer, double* out, int len) {
  alignas(64) double values[kRowBlock + kExpPad];
  const int padded = (len + kExpPad - 1) / kExpPad * kExpPad;
  double* x = buffer.x;
  std::fill(x + len, x + padded, 0.0);
  const Eigen::Map<const Eigen::ArrayXd, Eigen::Aligned16> in(x, padded);
  Eigen::Map<Eigen::ArrayXd, Eigen::Aligned16>(values, padded) = in.exp();
  std::copy(values, values + len, out);
  if (((in >= -708.0) && (in <= 708.0)).all()) return true;  // false for a NaN too
  bool finite = true;
  for (int i = 0; i < len; ++i) {
    if (!(x[i] >= -708.0 && x[i] <= 708.0)) out[i] = std::exp(x[i]);
    finite &= std::isfinite(out[i]);
  }
  return finite;
}

// exp() of `len` exponents (at most kRowBlock) into `out`.
inline bool exp_block(const double* exponents, double* out, int len) {
  ExpBuffer buffer;
  std::copy(exponents, exponents + len, buffer.x);
  return exp_block(buffer, out, len);
}

// The block finish of a kernel whose value is exp(exponent(statistic)).
template <class Exponent>
struct ExpFinish {
  Exponent exponent;
  bool operator()(const double* acc, double* out, int len) const {
    ExpBuffer buffer;
    for (int i = 0; i < len; ++i) buffer.x[i] = exponent(acc[i]);
    return exp_block(buffer, out, len);
  }
};

template <class Exponent>
ExpFinish<Exponent> exp_finish(Exponent exponent) {
  return ExpFinish<Exponent>{exponent};
}

// The block finish of a kernel whose value is the statistic itself.
struct IdentityFinish {
  bool operator()(const double* acc, double* out, int len) const {
    bool finite = true;
    for (int i = 0; i < len; ++i) {
      out[i] = acc[i];
      finite &= std::isfinite(acc[i]);
    }
    return finite;
  }
};

struct SquaredDistance {
  void operator()(double& acc, double x, double y) const {
    const double diff = x - y;
    acc += diff * diff;
  }
};

struct EpanechnikovProduct {
  double inv_width2;
  void operator()(double& acc, double x, double y) const {
    const double diff = x - y;
    acc *= std::max(0.0, 1.0 - diff * diff * inv_width2);
  }
};

// Fill out(rows, j) for j in [0, m); if `upper_only`, only rows 0..j. Columns
// go in chunks of about four million entries, with a checkpoint after each.
// column_fill(j, row_end) returns whether the values it wrote are all finite;
// fill_columns returns whether all of them were.
template <class ColumnFill>
inline bool fill_columns(Eigen::Index n, Eigen::Index m, bool upper_only, int threads,
                         const Checkpoint& checkpoint, ColumnFill column_fill) {
  const Eigen::Index chunk = std::max<Eigen::Index>(1, 4000000 / std::max<Eigen::Index>(1, n));
  // Written only when a column has a non-finite value (rare), so the threads
  // do not contend for it.
  std::atomic<bool> finite{true};
  for (Eigen::Index j0 = 0; j0 < m; j0 += chunk) {
    const Eigen::Index j1 = std::min(m, j0 + chunk);
    parallel::parallel_for(j0, j1, threads, parallel::Schedule::dynamic(8), [&](Eigen::Index j) {
      if (!column_fill(j, upper_only ? j + 1 : n)) finite.store(false, std::memory_order_relaxed);
    });
    if (checkpoint) checkpoint();
  }
  return finite.load();
}

// Copy the upper triangle onto the lower one, tile by tile for cache locality.
inline void mirror_upper_to_lower(Eigen::Ref<Matrix> out, int threads) {
  const Eigen::Index n = out.rows();
  constexpr Eigen::Index tile = 64;
  const Eigen::Index tiles = (n + tile - 1) / tile;
  parallel::parallel_for(0, tiles, threads, parallel::Schedule::dynamic(), [&](Eigen::Index tj) {
    const Eigen::Index j0 = tj * tile, j1 = std::min(n, j0 + tile);
    for (Eigen::Index ti = tj; ti < tiles; ++ti) {
      const Eigen::Index i0 = ti * tile, i1 = std::min(n, i0 + tile);
      // lower-triangle entries (i > j) of this tile come from (j, i)
      for (Eigen::Index j = j0; j < j1; ++j) {
        for (Eigen::Index i = std::max(i0, j + 1); i < i1; ++i) out(i, j) = out(j, i);
      }
    }
  });
}

// The invariant kernel max(k(x, y), k(x, tau(y))) of a kernel that decreases
// in its statistic (the squared distance of the Gaussian and distance
// kernels): the kernel of the closer of y and tau(y), so one finish (exp,
// power) per value instead of two. Rows [row_begin, row_end) of column j
// into `out`; whether all values are finite.
template <class Accumulate, class Finish>
inline bool invariant_closest(const MatrixRef& X, const MatrixRef& Y, const MatrixRef& Y_tau, Eigen::Index j,
                              Eigen::Index row_begin, Eigen::Index row_end, double* out, Accumulate accumulate,
                              Finish finish, double init) {
  bool finite = true;
  double base[kRowBlock], tau[kRowBlock];
  for (Eigen::Index i0 = row_begin; i0 < row_end; i0 += kRowBlock) {
    const Eigen::Index i1 = std::min<Eigen::Index>(row_end, i0 + kRowBlock);
    const int len = static_cast<int>(i1 - i0);
    fill_column_block(X, Y, j, i0, i1, base, accumulate, IdentityFinish{}, init);
    fill_column_block(X, Y_tau, j, i0, i1, tau, accumulate, IdentityFinish{}, init);
    // the smaller statistic; with a NaN, as std::max of the two kernel
    // values: NaN where y's is, y's where tau(y)'s is
    for (int i = 0; i < len; ++i) base[i] = tau[i] < base[i] ? tau[i] : base[i];
    finite &= finish(base, out + (i0 - row_begin), len);
  }
  return finite;
}

// All m columns of rows [r0, r1) of a cross-kernel (out: row r0 of column 0,
// column stride `ld`). The rows' coordinates stay in cache while every
// landmark passes over them; the old order (one column of all n rows at a
// time) read X from memory once per column, m times in all. The values are
// those of fill_column_block() for the same pairs, bit for bit: each is a
// function of its pair alone.
template <class Accumulate, class Finish>
inline bool cross_rows(const MatrixRef& X, const MatrixRef& Y, const MatrixRef* Y_tau, double* out,
                       Eigen::Index ld, Eigen::Index r0, Eigen::Index r1, Accumulate accumulate,
                       Finish finish, double init, bool decreasing) {
  bool finite = true;
  double tau_values[kRowBlock];
  for (Eigen::Index j = 0; j < Y.rows(); ++j) {
    double* col = out + j * ld;
    if (Y_tau != nullptr && decreasing) {
      finite &= invariant_closest(X, Y, *Y_tau, j, r0, r1, col, accumulate, finish, init);
      continue;
    }
    const bool base_finite = fill_column_block(X, Y, j, r0, r1, col, accumulate, finish, init);
    if (Y_tau == nullptr) {
      finite &= base_finite;
      continue;
    }
    // the invariant kernel's value is the max, whose finiteness is what counts
    for (Eigen::Index i0 = r0; i0 < r1; i0 += kRowBlock) {
      const Eigen::Index i1 = std::min<Eigen::Index>(r1, i0 + kRowBlock);
      fill_column_block(X, *Y_tau, j, i0, i1, tau_values, accumulate, finish, init);
      for (Eigen::Index i = i0; i < i1; ++i) {
        const double value = std::max(col[i - r0], tau_values[i - i0]);
        col[i - r0] = value;
        finite &= std::isfinite(value);
      }
    }
  }
  return finite;
}

// Rows per block of a cross-kernel: a block's coordinates (rows x d) in about
// 64 KB, a whole number of kRowBlock, between 256 and 2048 rows.
inline Eigen::Index cross_block_rows(Eigen::Index d) {
  const Eigen::Index rows = 8192 / std::max<Eigen::Index>(1, d) / kRowBlock * kRowBlock;
  return std::min<Eigen::Index>(2048, std::max<Eigen::Index>(kRowBlock, rows));
}

// Distance- and coordinate-based kernels: exact differences, never the
// ||x||^2 + ||y||^2 - 2<x, y> expansion, which cancels badly far from the origin.
template <class Accumulate, class Finish>
inline bool coordinate_kernel(const MatrixRef& X, const MatrixRef& Y, const MatrixRef* Y_tau,
                              Eigen::Ref<Matrix> out, bool symmetric, int threads,
                              const Checkpoint& checkpoint, Accumulate accumulate, Finish finish,
                              double init, bool decreasing = false) {
  const Eigen::Index n = X.rows(), m = Y.rows();
  if (!symmetric) {
    // a cross-kernel: threads over blocks of rows, all columns per block;
    // checkpoints after about four million values
    const Eigen::Index rows = cross_block_rows(X.cols());
    const Eigen::Index blocks = (n + rows - 1) / rows;
    const Eigen::Index per_chunk = std::max<Eigen::Index>(1, 4000000 / std::max<Eigen::Index>(1, rows * m));
    std::atomic<bool> finite{true};
    for (Eigen::Index b0 = 0; b0 < blocks; b0 += per_chunk) {
      const Eigen::Index b1 = std::min(blocks, b0 + per_chunk);
      parallel::parallel_for(b0, b1, threads, parallel::Schedule::dynamic(), [&](Eigen::Index b) {
        const Eigen::Index r0 = b * rows, r1 = std::min(n, r0 + rows);
        if (!cross_rows(X, Y, Y_tau, out.data() + r0, out.outerStride(), r0, r1, accumulate, finish, init,
                        decreasing)) {
          finite.store(false, std::memory_order_relaxed);
        }
      });
      if (checkpoint) checkpoint();
    }
    return finite.load();
  }
  const bool finite = fill_columns(n, m, symmetric, threads, checkpoint, [&](Eigen::Index j, Eigen::Index row_end) {
    double* col = out.col(j).data();
    if (Y_tau != nullptr && decreasing) return invariant_closest(X, Y, *Y_tau, j, 0, row_end, col, accumulate, finish, init);
    const bool base_finite = fill_column_block(X, Y, j, 0, row_end, col, accumulate, finish, init);
    if (Y_tau == nullptr) return base_finite;
    // The invariant kernel's value is the max, whose finiteness is what counts.
    bool max_finite = true;
    double tau_values[kRowBlock];
    for (Eigen::Index i0 = 0; i0 < row_end; i0 += kRowBlock) {
      const Eigen::Index i1 = std::min<Eigen::Index>(row_end, i0 + kRowBlock);
      // evaluate k(x_i, tau(y_j)) for this block into a scratch buffer, keep the max
      fill_column_block(X, *Y_tau, j, i0, i1, tau_values, accumulate, finish, init);
      for (Eigen::Index i = i0; i < i1; ++i) {
        const double value = std::max(col[i], tau_values[i - i0]);
        col[i] = value;
        max_finite &= std::isfinite(value);
      }
    }
    return max_finite;
  });
  if (symmetric) mirror_upper_to_lower(out, threads);
  return finite;
}

inline bool dot_kernel(const KernelSpec& spec, const MatrixRef& X, const MatrixRef& Y,
                       const MatrixRef* Y_tau, Eigen::Ref<Matrix> out, bool symmetric,
                       int threads, const Checkpoint& checkpoint) {
  // Inner products through Eigen's blocked matrix product, then the kernel map.
  const Eigen::Index n = X.rows(), m = Y.rows();
  const DotMap map{spec};
  const bool needs_norms = spec.type == KernelType::elm;
  Vector self_x, self_y, self_tau;
  if (needs_norms) {
    self_x = X.rowwise().squaredNorm();
    self_y = Y.rowwise().squaredNorm();
    if (Y_tau != nullptr) self_tau = Y_tau->rowwise().squaredNorm();
  }
  Matrix tau_dots;
  {
    const parallel::EigenThreads eigen_threads(threads);  // the caller's count for Eigen's product
    out.noalias() = X * Y.transpose();
    if (Y_tau != nullptr) tau_dots.noalias() = X * Y_tau->transpose();
  }
  if (checkpoint) checkpoint();
  // For a symmetric matrix only the upper triangle is mapped: the mirror below
  // overwrites the rest.
  const bool finite = fill_columns(n, m, symmetric, threads, checkpoint, [&](Eigen::Index j, Eigen::Index row_end) {
    bool column_finite = true;
    for (Eigen::Index i = 0; i < row_end; ++i) {
      const double sx = needs_norms ? self_x[i] : 0.0;
      double value = map(out(i, j), sx, needs_norms ? self_y[j] : 0.0);
      if (Y_tau != nullptr) {
        value = std::max(value, map(tau_dots(i, j), sx, needs_norms ? self_tau[j] : 0.0));
      }
      out(i, j) = value;
      column_finite &= std::isfinite(value);
    }
    return column_finite;
  });
  // X X' is symmetric only up to rounding in the blocked product; make it exact.
  if (symmetric) mirror_upper_to_lower(out, threads);
  return finite;
}

}  // namespace detail

// The n x m kernel matrix K[i, j] = k(X_i, Y_j) written into `out`.
//
// `symmetric` says that Y is X: only the upper triangle is computed and then
// mirrored (the invariant kernel must then be symmetric, which R checks).
// `Y_tau` holds tau(Y_j) row by row for the invariant kernel, else nullptr.
// Returns whether every value is finite (NaN or Inf arise from parameters or
// inputs out of a kernel's range, e.g. a non-whole polynomial degree on a
// negative base, or inner products that overflow); the caller decides what
// to do with a matrix that has such values.
inline bool kernel_matrix(const KernelSpec& spec, const MatrixRef& X, const MatrixRef& Y,
                          const MatrixRef* Y_tau, Eigen::Ref<Matrix> out, bool symmetric,
                          int threads, const Checkpoint& checkpoint = Checkpoint()) {
  if (X.cols() != Y.cols()) throw std::invalid_argument("x and y have different numbers of columns");
  if (out.rows() != X.rows() || out.cols() != Y.rows()) throw std::invalid_argument("output has the wrong size");
  if (symmetric && X.rows() != Y.rows()) throw std::invalid_argument("a symmetric kernel matrix must be square");
  if (spec.invariant && (Y_tau == nullptr || Y_tau->rows() != Y.rows() || Y_tau->cols() != Y.cols())) {
    throw std::invalid_argument("the invariant kernel needs the transformed points");
  }
  if (!spec.invariant) Y_tau = nullptr;
  // Starting threads costs more than a small matrix takes to compute.
  threads = (X.rows() * Y.rows() * std::max<Eigen::Index>(1, X.cols()) < 32768) ? 1 : parallel::thread_count(threads);
  using namespace detail;
  switch (spec.type) {
    case KernelType::linear:
    case KernelType::poly:
    case KernelType::tanh:
    case KernelType::elm:
      return dot_kernel(spec, X, Y, Y_tau, out, symmetric, threads, checkpoint);
    case KernelType::rbf: {
      const double gamma = spec.gamma;
      return coordinate_kernel(X, Y, Y_tau, out, symmetric, threads, checkpoint, SquaredDistance{},
                               exp_finish([gamma](double d2) { return -gamma * d2; }), 0.0, gamma > 0.0);
    }
    case KernelType::rbf_diag: {
      if (spec.scales.size() != X.cols()) throw std::invalid_argument("scales must have one entry per column");
      // sum_j (x_j - y_j)^2 / scales_j is the squared distance of the rescaled points
      const Vector inv_sd = spec.scales.cwiseSqrt().cwiseInverse();
      const Matrix Xs = X * inv_sd.asDiagonal();
      const Matrix Ys = Y * inv_sd.asDiagonal();
      Matrix Ts;
      if (Y_tau != nullptr) Ts = (*Y_tau) * inv_sd.asDiagonal();
      const MatrixRef Xr(Xs), Yr(Ys), Tr(Ts);
      return coordinate_kernel(Xr, Yr, Y_tau != nullptr ? &Tr : nullptr, out, symmetric, threads,
                               checkpoint, SquaredDistance{}, exp_finish([](double d2) { return -0.5 * d2; }), 0.0,
                               true);
    }
    case KernelType::dist: {
      const double inv_s2 = 1.0 / (spec.s * spec.s);
      const double power = spec.power;
      return coordinate_kernel(X, Y, Y_tau, out, symmetric, threads, checkpoint, SquaredDistance{},
                               exp_finish([inv_s2, power](double d2) {
                                 return -detail::real_power(d2, power) * inv_s2;
                               }),
                               0.0, power > 0.0 && inv_s2 > 0.0);
    }
    case KernelType::epanechnikov: {
      const double inv_w2 = 1.0 / (spec.width * spec.width);
      return coordinate_kernel(X, Y, Y_tau, out, symmetric, threads, checkpoint, EpanechnikovProduct{inv_w2},
                               IdentityFinish{}, 1.0);
    }
  }
  throw std::invalid_argument("unknown kernel type");
}

// k(x, x) for each row of X: needed by methods that use self-similarities of
// new points (kernel-induced distances, paper 000 Sec. IV-E; RC distances).
// For the coordinate kernels (not invariant) the statistic of a point with
// itself is that of any point with finite coordinates with itself (the
// differences are exact zeros), so one evaluation serves every such row,
// with the value the engine gives; a row with a non-finite coordinate is
// evaluated on its own.
inline Vector kernel_diagonal(const KernelSpec& spec, const MatrixRef& X, const MatrixRef* X_tau) {
  const Eigen::Index n = X.rows();
  Vector diag(n);
  Matrix one(1, 1);
  const auto evaluate = [&](const MatrixRef& xi, const MatrixRef* ti) {
    kernel_matrix(spec, xi, xi, ti, one, false, 1);
    return one(0, 0);
  };
  if (!spec.invariant && !is_dot_product_kernel(spec.type)) {
    const Matrix origin = Matrix::Zero(1, X.cols());
    const double finite_value = evaluate(origin, nullptr);
    // rbf_diag differences rescaled coordinates, which must be finite too
    const bool rescaled = spec.type == KernelType::rbf_diag && spec.scales.size() == X.cols();
    const Vector inv_sd = rescaled ? Vector(spec.scales.cwiseSqrt().cwiseInverse()) : Vector();
    for (Eigen::Index i = 0; i < n; ++i) {
      const bool finite = rescaled ? X.row(i).transpose().cwiseProduct(inv_sd).allFinite() : X.row(i).allFinite();
      diag[i] = finite ? finite_value : evaluate(X.row(i), nullptr);
    }
    return diag;
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    const MatrixRef xi = X.row(i);
    if (spec.invariant) {
      const MatrixRef ti = X_tau->row(i);
      diag[i] = evaluate(xi, &ti);
    } else {
      diag[i] = evaluate(xi, nullptr);
    }
  }
  return diag;
}

}  // namespace krein

#endif  // KREIN_KERNELS_HPP
