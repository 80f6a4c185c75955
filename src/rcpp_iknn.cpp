// Glue for the nearest columns of inst/include/krein/nearest.hpp (iknn()'s
// neighbours, R/iknn.R). The results are written into R's integer matrix,
// 1-based; validation is done in R.
#include "glue.h"
#include "krein/nearest.hpp"

// The core's 0-based columns of `out` to R's 1-based ones, in place
inline void iknn_one_based(Rcpp::IntegerMatrix& out) {
  for (R_xlen_t i = 0; i < out.size(); ++i) out[i] += 1;
}

// The `count` nearest columns of each row of the squared distances `d2`,
// nearest first (ties to the smaller column, as order()).
// [[Rcpp::export]]
Rcpp::IntegerMatrix cpp_iknn_nearest_distances(const Eigen::Map<Eigen::MatrixXd> d2, int count, int threads) {
  Rcpp::IntegerMatrix out(d2.rows(), count);
  Eigen::Map<Eigen::MatrixXi> view(out.begin(), out.nrow(), out.ncol());
  krein::nearest::nearest_of_distances(d2, count, view, threads);
  iknn_one_based(out);
  return out;
}

// The `count` nearest reference points of each row by the squared kernel
// distance from the kernel block `K` (rows x references) and the
// self-similarities; `own`: each row's own column among the references
// (1-based, 0 for none; empty: none), left out of the count of negative
// distances, the attribute `negative` of the result.
// [[Rcpp::export]]
Rcpp::IntegerMatrix cpp_iknn_nearest_kernel(const Eigen::Map<Eigen::MatrixXd> K,
                                            const Eigen::Map<Eigen::VectorXd> row_self,
                                            const Eigen::Map<Eigen::VectorXd> column_self,
                                            const Rcpp::IntegerVector& own, int count, int threads) {
  Rcpp::IntegerMatrix out(K.rows(), count);
  Eigen::Map<Eigen::MatrixXi> view(out.begin(), out.nrow(), out.ncol());
  const std::vector<Eigen::Index> own_columns = glue::zero_based_indices(own);
  const double negative =
      krein::nearest::nearest_of_kernel(K, row_self, column_self, own_columns, count, view, threads);
  iknn_one_based(out);
  out.attr("negative") = negative;
  return out;
}
