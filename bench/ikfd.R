# Benchmark: the indefinite kernel Fisher discriminant, full and Nystroem.
# Run from the checkout's root after installing krein:  Rscript bench/ikfd.R
# Prints:
#   1. Ny-iKFD with MEB landmarks on checkerboard(size = 4) at N = 1e4, 1e5,
#      1e6 (Gaussian kernel, gamma = 5, eps = 0.01): fit time (landmark
#      selection included), test error on 20,000 points, landmarks, and the
#      peak memory of a fresh R process running that size alone.
#      Targets: time grows at most 12x per 10x N; N = 1e6 in at most 15 s and
#      under 2 GB.
#   2. Ny-iKFD against e1071::svm (same Gaussian kernel, gamma = 10) at
#      N = 1e5 in the same process: times and test errors. Target: Ny-iKFD
#      with a test error of at most 2% trains at least 10x faster.
#   3. Full iKFD at n = 4000 against plain-R transcriptions in the same
#      process. Target >= 20x.
library(krein)
options(krein.threads = 2)

peak_memory_mb <- function() {
  status <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep("^VmHWM", status, value = TRUE))) / 1024
}

test_error <- function(fit, test) mean(predict(fit, test[, c("x1", "x2")]) != test$y)

# A single size in this process (called in a fresh R process by section 1).
args <- commandArgs(trailingOnly = TRUE)
if (length(args) == 2L && args[1] == "--one-size") {
  N <- as.numeric(args[2])
  set.seed(1)
  train <- checkerboard(N, size = 4)
  test <- checkerboard(20000, size = 4)
  x <- as.matrix(train[, c("x1", "x2")])
  time <- system.time(fit <- ikfd(x, train$y, kernel = kernel_rbf(5), landmarks = "meb"))[["elapsed"]]
  cat(sprintf("%g %.3f %.4f %d %.0f\n", N, time, test_error(fit, test), length(fit$landmarks$class),
              peak_memory_mb()))
  quit(save = "no")
}

cat("== 1. Ny-iKFD (MEB landmarks) on checkerboard(size = 4), one fresh process per size\n")
cat(sprintf("%9s %9s %10s %9s %14s\n", "N", "fit (s)", "test err", "landmarks", "peak RSS (MB)"))
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
rscript <- file.path(R.home("bin"), "Rscript")
scaling <- t(vapply(c(1e4, 1e5, 1e6), function(N) {
  out <- system2(rscript, c(shQuote(script), "--one-size", format(N, scientific = FALSE)), stdout = TRUE)
  as.numeric(strsplit(trimws(out[length(out)]), " +")[[1]])
}, numeric(5)))
for (i in seq_len(nrow(scaling))) {
  cat(sprintf("%9g %9.2f %10.4f %9d %14.0f\n", scaling[i, 1], scaling[i, 2], scaling[i, 3],
              as.integer(scaling[i, 4]), scaling[i, 5]))
}
cat(sprintf("time growth per 10x N: %.1f, %.1f (target <= 12)\n",
            scaling[2, 2] / scaling[1, 2], scaling[3, 2] / scaling[2, 2]))

cat("\n== 2. Ny-iKFD vs e1071::svm, N = 1e5, Gaussian kernel gamma = 10\n")
set.seed(2)
train <- checkerboard(1e5, size = 4)
test <- checkerboard(20000, size = 4)
x <- as.matrix(train[, c("x1", "x2")])
ny_times <- numeric(3)
for (r in 1:3) {
  set.seed(3)
  ny_times[r] <- system.time(
    ny <- ikfd(x, train$y, kernel = kernel_rbf(10), landmarks = "meb", eps = 0.001)
  )[["elapsed"]]
}
ny_error <- test_error(ny, test)
if (requireNamespace("e1071", quietly = TRUE)) {
  svm_time <- system.time(
    svm <- e1071::svm(x, train$y, kernel = "radial", gamma = 10, cost = 1, scale = FALSE)
  )[["elapsed"]]
  svm_error <- mean(predict(svm, as.matrix(test[, c("x1", "x2")])) != test$y)
  cat(sprintf("Ny-iKFD (MEB, eps = 0.001, %d landmarks): %.2f s (best of 3), test error %.4f\n",
              length(ny$landmarks$class), min(ny_times), ny_error))
  cat(sprintf("e1071::svm (%d support vectors):           %.2f s, test error %.4f\n",
              svm$tot.nSV, svm_time, svm_error))
  cat(sprintf("ratio svm / Ny-iKFD: %.1f (target >= 10, with Ny-iKFD error <= 0.02)\n",
              svm_time / min(ny_times)))
} else {
  cat("e1071 is not installed: install.packages(\"e1071\") to run this comparison\n")
}

cat("\n== 3. Full iKFD, n = 4000, against plain-R transcriptions\n")
set.seed(4)
train <- checkerboard(4000, size = 4)
x <- as.matrix(train[, c("x1", "x2")])
y <- train$y
x_new <- as.matrix(checkerboard(1000, size = 4)[, c("x1", "x2")])
gamma <- 5
reg <- 1e-4

# Plain-R iKFD (paper 000 eqs. 7-8, notes section 1) with the within-class
# scatter of a group G computed by `scatter(K_G)`.
plain_ikfd <- function(x, y, x_new, scatter) {
  K <- exp(-gamma * as.matrix(dist(x))^2)
  n <- nrow(K)
  A <- y == levels(y)[1]
  N <- scatter(K[, A]) + scatter(K[, !A])
  mu <- reg * sum(diag(N)) / n
  m_A <- rowMeans(K[, A])
  m_B <- rowMeans(K[, !A])
  alpha <- solve(N + diag(mu, n), m_A - m_B)
  K_new <- exp(-gamma * (outer(rowSums(x_new^2), rowSums(x^2), "+") - 2 * tcrossprod(x_new, x)))
  drop(K_new %*% alpha) - sum(alpha * (m_A + m_B)) / 2
}
# (a) the formula as written, K_G H K_G' with the centring matrix H formed
#     explicitly, as in tests/testthat/helper-ikfd.R
literal <- function(x, y, x_new) {
  plain_ikfd(x, y, x_new, function(K_G) {
    n_G <- ncol(K_G)
    K_G %*% (diag(n_G) - matrix(1 / n_G, n_G, n_G)) %*% t(K_G)
  })
}
# (b) the same algebra as a careful R user writes it: K_G K_G' - s s' / n_G
#     with tcrossprod (a symmetric rank-k update in R's BLAS)
careful <- function(x, y, x_new) {
  plain_ikfd(x, y, x_new, function(K_G) tcrossprod(K_G) - tcrossprod(rowSums(K_G)) / ncol(K_G))
}
krein_time <- function() {
  system.time({
    fit <- ikfd(x, y, kernel = kernel_rbf(gamma), ridge_relative = reg)
    f <- predict(fit, x_new, type = "decision")[, 1]
  })[["elapsed"]]
}
k1 <- krein_time()
t_careful <- system.time(f_careful <- careful(x, y, x_new))[["elapsed"]]
k2 <- krein_time()
t_literal <- system.time(f_literal <- literal(x, y, x_new))[["elapsed"]]
k3 <- krein_time()
fit <- ikfd(x, y, kernel = kernel_rbf(gamma), ridge_relative = reg)
f_krein <- predict(fit, x_new, type = "decision")[, 1]
best <- min(k1, k2, k3)
cat(sprintf("krein ikfd() fit + predict 1000:      %.2f s (best of 3)\n", best))
cat(sprintf("(a) literal transcription (explicit H): %.2f s, ratio %.1f (target >= 20)\n", t_literal,
            t_literal / best))
cat(sprintf("(b) careful plain R (tcrossprod):      %.2f s, ratio %.1f\n", t_careful, t_careful / best))
cat(sprintf("max relative difference of decision values: %.1e (a), %.1e (b)\n",
            max(abs(f_krein - f_literal)) / max(abs(f_literal)),
            max(abs(f_krein - f_careful)) / max(abs(f_careful))))
flops <- 4000^3 + 4000^3 / 3
cat(sprintf("krein's O(n^3) work: %.1e flops (K K' and a Cholesky factor) in %.2f s = %.1f GFLOP/s;\n",
            flops, best, flops / best / 1e9))
source(file.path("bench", "gemm_rate.R"))
cat(sprintf("plain Eigen GEMM on this machine, same run: %.1f GFLOP/s\n", gemm_rate(2000L, 2000L)))
