// krein: uniform numbers in (-1, 1) from splitmix64 (Steele, Lea & Flood
// 2014), for the start blocks of kfda's block Lanczos and the test vectors of
// the PCVM's sketch. They must not come from R's RNG, so that set.seed()
// reproduces a fit and the user's random stream is left untouched; and they
// must be the same on every platform, which std::*_distribution is not.
#ifndef KREIN_DETERMINISTIC_UNIFORM_HPP
#define KREIN_DETERMINISTIC_UNIFORM_HPP

#include <Eigen/Dense>

#include <cstdint>

namespace krein {

// A rows x cols block, column by column, of splitmix64's stream after
// `state` (its state is a counter: a caller can start a block anywhere).
inline Eigen::MatrixXd deterministic_uniform_block(Eigen::Index rows, Eigen::Index cols, std::uint64_t state) {
  Eigen::MatrixXd out(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j) {
    for (Eigen::Index i = 0; i < rows; ++i) {
      state += 0x9E3779B97F4A7C15ULL;
      std::uint64_t z = state;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      z ^= z >> 31;
      out(i, j) = static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
    }
  }
  return out;
}

}  // namespace krein

#endif  // KREIN_DETERMINISTIC_UNIFORM_HPP
