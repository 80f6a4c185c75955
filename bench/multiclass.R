# Benchmark: predict(type = "prob") of ten-class Nystroem models on 1e6
# points. Ny-PCVM's class probabilities couple its 45 pairwise probabilities
# per point (Wu, Lin and Weng 2004, method 2); the coupling was a loop over
# the rows in R, one 11 x 11 linear system each, and is now the core's
# (multiclass.hpp). The baseline, in the same process: the latent values by
# predict(type = "latent") plus that R loop (transcribed below) on the same
# values; its probabilities must equal predict()'s to 1e-10. Ny-iKFD's
# predict(type = "prob") is timed beside it (no coupling: its posteriors
# come from one Gaussian model of the discriminant scores).
# Run from the checkout's root after installing krein:
#   Rscript bench/multiclass.R [points]
# (default 1e6 points to predict; the models are fitted on 4000 points, 100
# landmarks per model, 2 threads).
suppressPackageStartupMessages(library(krein))
options(krein.threads = 2)
arguments <- commandArgs(trailingOnly = TRUE)
n_new <- if (length(arguments)) as.numeric(arguments[1]) else 1e6

# ten Gaussian classes on a circle
ten_classes <- function(n) {
  y <- sample.int(10, n, replace = TRUE)
  angle <- 2 * pi * y / 10
  x <- cbind(cos(angle), sin(angle)) * 2 + matrix(stats::rnorm(2 * n, sd = 0.6), n)
  list(x = x, y = factor(y, levels = 1:10, labels = paste0("c", 1:10)))
}

# the former coupling: R's solve() of the bordered system, row by row
coupling_in_r <- function(r, pairs, classes) {
  r <- pmin(pmax(r, 1e-7), 1 - 1e-7)
  p <- matrix(0, nrow(r), classes)
  for (i in seq_len(nrow(r))) {
    Q <- matrix(0, classes, classes)
    for (k in seq_len(ncol(pairs))) {
      a <- pairs[1, k]
      b <- pairs[2, k]
      r_ab <- r[i, k]
      r_ba <- 1 - r_ab
      Q[a, a] <- Q[a, a] + r_ba^2
      Q[b, b] <- Q[b, b] + r_ab^2
      Q[a, b] <- Q[a, b] - r_ba * r_ab
      Q[b, a] <- Q[b, a] - r_ba * r_ab
    }
    system <- rbind(cbind(Q, 1), c(rep(1, classes), 0))
    p[i, ] <- solve(system, c(rep(0, classes), 1))[seq_len(classes)]
  }
  p <- pmax(p, 0)
  p / rowSums(p)
}

set.seed(1)
train <- ten_classes(4000)
new <- ten_classes(n_new)$x
set.seed(2)
pcvm_fit <- pcvm(train$x, train$y, kernel = kernel_rbf(1), landmarks = "random", m = 100)
set.seed(2)
ikfd_fit <- ikfd(train$x, train$y, kernel = kernel_rbf(1), landmarks = "random", m = 100)

seconds <- function(expr) system.time(expr)[["elapsed"]]
t_prob <- seconds(p <- predict(pcvm_fit, new, type = "prob"))
t_latent <- seconds(f <- predict(pcvm_fit, new, type = "latent"))
t_r <- seconds(p_r <- coupling_in_r(stats::pnorm(f), utils::combn(10, 2), 10L))
t_ikfd <- seconds(q <- predict(ikfd_fit, new, type = "prob"))
stopifnot(max(abs(p - p_r)) < 1e-10, max(abs(rowSums(q) - 1)) < 1e-10)

cat(sprintf("%g points, 10 classes (45 pairs), krein.threads = 2\n", n_new))
cat("| predict(type = \"prob\") | seconds | baseline (s) | baseline / new |\n|---|---|---|---|\n")
cat(sprintf("| Ny-PCVM | %.2f | %.2f (latent %.2f + coupling in R %.2f) | %.1f |\n",
            t_prob, t_latent + t_r, t_latent, t_r, (t_latent + t_r) / t_prob))
cat(sprintf("| Ny-iKFD | %.2f | - | - |\n", t_ikfd))
cat(sprintf("largest difference from the R coupling: %.2g\n", max(abs(p - p_r))))
