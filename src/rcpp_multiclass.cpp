// Glue for the pairwise coupling of inst/include/krein/multiclass.hpp.
#include "glue.h"
#include "krein/multiclass.hpp"

// Class probabilities (rows x classes) from the pairwise probabilities of the
// first class of each pair (rows x pairs, pairs in combn() order).
// [[Rcpp::export]]
Eigen::MatrixXd cpp_couple_pairwise(const Eigen::Map<Eigen::MatrixXd> r_first, int classes, int threads) {
  return krein::multiclass::couple_pairwise(r_first, classes, threads);
}
