# Benchmark: kernel quadratic discriminants, n = 4000 training points (two
# classes, 2-D, Gaussian kernel), fit + prediction of 10,000 points, against a
# plain base-R transcription of paper 000 Table II run in the same process.
# Run from the checkout's root after installing krein:  Rscript bench/kqd.R
# Prints:
#   1. krein / base R times and ratios for RC+, FK+ and indefinite RC+ (target >= 10)
#   2. the GFLOP/s of krein's dense prediction kernels beside a plain Eigen
#      matrix product of the same size measured in the same run
#   3. the cost of a regularisation path of 8 values over a single value for
#      every variant (target <= 3 for IC-, RC-, FK- and the indefinite ones)
#   4. Ny-KQD (RC+, 100 random landmarks) on checkerboard(size = 4) at
#      N = 1e4, 1e5, 1e6: fit + prediction of 1e5 points, each size in a fresh
#      R process, with its peak memory. Targets: time per 10x N at most 12x;
#      N = 1e6 in at most 30 s and under 2 GB.
#   5. Ny-KQD beside the full KQD at N = 4000 (same kernel, variant and reg):
#      test errors on 20,000 points and fit times.
library(krein)

# ---- Ny-KQD at one size (section 4 runs this in a fresh R process) ----------
ny_kernel <- kernel_rbf(gamma = 5)
ny_reg <- 0.001
ny_landmarks <- 100
peak_memory_mb <- function() {
  status <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep("^VmHWM", status, value = TRUE))) / 1024
}
args <- commandArgs(trailingOnly = TRUE)
if (length(args) == 2L && args[1] == "--ny-one-size") {
  options(krein.threads = 2)
  N <- as.numeric(args[2])
  set.seed(1)
  train <- checkerboard(N, size = 4)
  test <- checkerboard(1e5, size = 4)
  x <- as.matrix(train[, c("x1", "x2")])
  x_test <- as.matrix(test[, c("x1", "x2")])
  fit_time <- system.time(fit <- kqd(x, train$y, kernel = ny_kernel, variant = "RC+", reg = ny_reg,
                                     landmarks = "random", m = ny_landmarks))[["elapsed"]]
  predict_time <- system.time(p <- predict(fit, x_test))[["elapsed"]]
  cat(sprintf("%g %.3f %.3f %.4f %.0f\n", N, fit_time, predict_time, mean(p != test$y), peak_memory_mb()))
  quit(save = "no")
}

n <- 4000
m <- 10000
set.seed(1)
train <- gaussian_mixture_2d(n)
test <- gaussian_mixture_2d(m)
x <- as.matrix(train[, c("x1", "x2")])
x_test <- as.matrix(test[, c("x1", "x2")])
y <- train$y
kernel <- kernel_rbf(gamma = 1)
options(krein.threads = 2)

# ---- plain base-R transcription of Table II (RC+ and FK+, pd or indefinite) --
base_centre <- function(A) {
  nj <- nrow(A)
  H <- diag(nj) - 1 / nj
  H %*% A %*% H
}

base_rc_plus <- function(K, y, K_new, self_new, sigma2, indefinite) {
  sapply(levels(y), function(level) {
    idx <- which(y == level)
    nj <- length(idx)
    Kj <- K[idx, idx]
    Kc <- base_centre(Kj)
    if (indefinite) {
      e <- eigen(Kc, symmetric = TRUE)
      J <- ifelse(e$values < -1e-8 * max(abs(e$values)), -1, 1)
      K_reg <- Kc + nj * sigma2 * e$vectors %*% (J * t(e$vectors))
    } else {
      K_reg <- Kc + nj * sigma2 * diag(nj)
    }
    K_inv <- solve(K_reg)
    kx <- K_new[, idx, drop = FALSE]
    k_centred <- sweep(kx, 2, rowMeans(Kj))
    k_centred <- k_centred - rowMeans(k_centred)
    kxx <- self_new - 2 * rowMeans(kx) + mean(Kj)
    (kxx - rowSums((k_centred %*% K_inv) * k_centred)) / sigma2
  })
}

base_fk_plus <- function(K, y, K_new, alpha) {
  n <- nrow(K)
  col_means <- rowMeans(K)
  K_centred <- base_centre(K)
  sapply(levels(y), function(level) {
    idx <- which(y == level)
    nj <- length(idx)
    Kj <- K_centred[, idx, drop = FALSE]
    Hj <- diag(nj) - 1 / nj
    K_fk <- Kj %*% Hj %*% t(Kj) + alpha * diag(n)
    K_inv <- solve(K_fk)
    k_centred <- sweep(K_new, 2, col_means)
    k_centred <- k_centred - rowMeans(k_centred)
    k_centred <- sweep(k_centred, 2, rowMeans(Kj))
    nj * rowSums((k_centred %*% K_inv) * k_centred)
  })
}

# biases by the training error search of Sec. IV-D, two classes, in base R
base_bias <- function(d_train, y) {
  g <- (-d_train[, 1] + d_train[, 2]) / 2
  candidates <- sort(unique(g))
  thresholds <- c(candidates[1] - 1, (candidates[-1] + candidates[-length(candidates)]) / 2)
  errors <- vapply(thresholds, function(t) sum((g >= t) != (y == levels(y)[1])), numeric(1))
  -thresholds[which.min(errors)]
}

base_fit_predict <- function(variant, indefinite) {
  K <- kernel_matrix(kernel, x)
  K_new <- kernel_matrix(kernel, x_test, x)
  if (variant == "RC+") {
    d_train <- base_rc_plus(K, y, K, diag(K), 0.1, indefinite)
    d_new <- base_rc_plus(K, y, K_new, rep(1, m), 0.1, indefinite)
  } else {
    d_train <- base_fk_plus(K, y, K, 1e-3)
    d_new <- base_fk_plus(K, y, K_new, 1e-3)
  }
  delta <- base_bias(d_train, y)
  ifelse(-d_new[, 1] / 2 + delta >= -d_new[, 2] / 2, 1L, 2L)
}

krein_fit_predict <- function(variant, indefinite) {
  fit <- kqd(x, y, kernel = kernel, variant = variant,
             reg = if (variant == "RC+") 0.1 else 1e-3,
             indefinite = if (indefinite) "yes" else "no")
  as.integer(predict(fit, x_test))
}

cat(sprintf("kqd: n = %d training points (2 classes, 2-D, RBF), %d test points\n", n, m))
cases <- list(c("RC+", "no"), c("FK+", "no"), c("RC+", "yes"))
for (case in cases) {
  indefinite <- case[2] == "yes"
  t_krein <- system.time(p_krein <- krein_fit_predict(case[1], indefinite))[["elapsed"]]
  t_base <- system.time(p_base <- base_fit_predict(case[1], indefinite))[["elapsed"]]
  cat(sprintf("  %s%s: krein %.1f s, base R %.1f s -> %.1fx (target >= 10); predictions agree on %.1f%%\n",
              if (indefinite) "indefinite " else "", case[1], t_krein, t_base, t_base / t_krein,
              100 * mean(p_krein == p_base)))
}

# ---- GFLOP/s of the dense prediction kernels vs a plain Eigen product --------
fit <- kqd(x, y, kernel = kernel, variant = "RC+", reg = 0.1, indefinite = "no")  # Cholesky path
K_new <- kernel_matrix(kernel, x_test, x)
self_new <- rep(1, m)
n_j <- as.vector(fit$counts)
t_predict <- system.time(krein:::cpp_kqd_distances(fit$core, K_new, self_new))[["elapsed"]]
# triangular solves L^-1 V: n_j^2 m flops per class
flops_predict <- sum(n_j^2 * m)
eig_fit <- kqd(x, y, kernel = kernel, variant = "RC+", reg = c(0.1, 0.2), indefinite = "no")
t_predict_eig <- system.time(krein:::cpp_kqd_distances(eig_fit$core, K_new, self_new))[["elapsed"]]
r <- vapply(eig_fit$core$classes, function(cl) ncol(cl$basis), numeric(1))
flops_eig <- sum(2 * n_j * r * m)  # projections U'V
source(file.path("bench", "gemm_rate.R"))
eigen_rate <- gemm_rate(max(n_j), m)
cat(sprintf("  dense kernels: Cholesky prediction %.1f GFLOP/s, eigenbasis prediction %.1f GFLOP/s; plain Eigen product of the same size %.1f GFLOP/s\n",
            flops_predict / t_predict / 1e9, flops_eig / t_predict_eig / 1e9, eigen_rate))

# ---- regularisation path of 8 values against a single value -------------------
n_path <- 1500
rows <- round(seq(1, n, length.out = n_path))  # both classes (the data are sorted by class)
x_path <- x[rows, ]
y_path <- y[rows]
path_ratio <- function(variant, indefinite) {
  base_reg <- if (startsWith(variant, "RC")) 0.1 else 1e-3
  one <- system.time(kqd(x_path, y_path, kernel = kernel, variant = variant, reg = base_reg,
                         indefinite = indefinite))[["elapsed"]]
  eight <- system.time(kqd(x_path, y_path, kernel = kernel, variant = variant,
                           reg = base_reg * 10^seq(-2, 1.5, length.out = 8),
                           indefinite = indefinite))[["elapsed"]]
  eight / one
}
cat(sprintf("  path of 8 / single value (n = %d):\n", n_path))
for (variant in c("IC+", "IC-", "RC+", "RC-", "FK+", "FK-")) {
  cat(sprintf("    %s: pd formulas %.2f, indefinite formulas %.2f\n", variant,
              path_ratio(variant, "no"), path_ratio(variant, "yes")))
}

# ---- 4. Ny-KQD scaling ----------------------------------------------------------
cat(sprintf("\nNy-KQD (RC+, reg = %g, %d random landmarks, RBF gamma = 5) on checkerboard(size = 4), fresh process per size;\nfit + prediction of 1e5 points\n",
            ny_reg, ny_landmarks))
cat(sprintf("%9s %9s %11s %9s %10s %14s\n", "N", "fit (s)", "predict (s)", "total", "test err", "peak RSS (MB)"))
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
rscript <- file.path(R.home("bin"), "Rscript")
scaling <- t(vapply(c(1e4, 1e5, 1e6), function(N) {
  out <- system2(rscript, c(shQuote(script), "--ny-one-size", format(N, scientific = FALSE)), stdout = TRUE)
  as.numeric(strsplit(trimws(out[length(out)]), " +")[[1]])
}, numeric(5)))
total <- scaling[, 2] + scaling[, 3]
for (i in seq_len(nrow(scaling))) {
  cat(sprintf("%9g %9.2f %11.2f %9.2f %10.4f %14.0f\n", scaling[i, 1], scaling[i, 2], scaling[i, 3], total[i],
              scaling[i, 4], scaling[i, 5]))
}
cat(sprintf("  time growth per 10x N (fit + predict): %.1f, %.1f (target <= 12); N = 1e6: %.1f s (target <= 30), %.0f MB (target < 2048)\n",
            total[2] / total[1], total[3] / total[2], total[3], scaling[3, 5]))

# ---- 5. Ny-KQD beside the full KQD at N = 4000 -----------------------------------
set.seed(3)
train <- checkerboard(4000, size = 4)
test <- checkerboard(20000, size = 4)
x_cb <- as.matrix(train[, c("x1", "x2")])
x_cb_test <- as.matrix(test[, c("x1", "x2")])
cat(sprintf("\nNy-KQD beside the full KQD, N = 4000 (RC+, reg = %g, RBF gamma = 5), test error on 20,000 points\n", ny_reg))
full_time <- system.time(full <- kqd(x_cb, train$y, kernel = ny_kernel, variant = "RC+", reg = ny_reg))[["elapsed"]]
cat(sprintf("  %-30s fit %6.2f s, test error %.4f\n", "full KQD", full_time, mean(predict(full, x_cb_test) != test$y)))
for (m_ny in c(50, 100, 200, 400)) {
  set.seed(4)
  ny_time <- system.time(ny <- kqd(x_cb, train$y, kernel = ny_kernel, variant = "RC+", reg = ny_reg,
                                   landmarks = "random", m = m_ny))[["elapsed"]]
  cat(sprintf("  %-30s fit %6.2f s, test error %.4f\n", sprintf("Ny-KQD, %d random landmarks", m_ny),
              ny_time, mean(predict(ny, x_cb_test) != test$y)))
}
