# Bench utility: gemm_rate(k, m), the GFLOP/s of a plain Eigen product of a
# k x k by a k x m matrix (bench/gemm_rate.cpp, compiled here with
# Rcpp::sourceCpp; needs a compiler, as installing krein from source does).
# Source it from a bench script run from the checkout's root.
Rcpp::sourceCpp(file.path("bench", "gemm_rate.cpp"), rebuild = FALSE)
