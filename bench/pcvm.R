# Benchmark: PCVM and Ny-PCVM (MEB landmarks) on checkerboard() (4 x 4
# board, Gaussian kernel gamma = 5) at N = 2000, 5000, 20000, with
# e1071::svm(probability = TRUE) on the same data in the same process.
# Run from the checkout's root after installing krein:  Rscript bench/pcvm.R
# Prints per N and model: fit time, relevance (support) vectors, test error
# and Brier score on 10,000 test points. Targets: Ny-PCVM >= 10x faster than
# PCVM at N = 5000 with a test error within 2 points.
library(krein)
options(krein.threads = 2)

brier <- function(p, y) mean(rowSums((p - outer(as.integer(y), seq_len(ncol(p)), "=="))^2))
quiet <- function(expr) suppressWarnings(expr)  # PCVM often stops at max_iter = 500

set.seed(1)
test <- checkerboard(10000)
x_test <- as.matrix(test[, c("x1", "x2")])
kernel <- kernel_rbf(5)
rows <- list()
report <- function(N, model, time, vectors, p) {
  error <- mean(factor(levels(test$y)[max.col(p, ties.method = "first")], levels(test$y)) != test$y)
  cat(sprintf("%6d  %-28s %8.2f s %8d %9.4f %8.4f\n", N, model, time, vectors, error, brier(p, test$y)))
  data.frame(N = N, model = model, time = time, error = error)
}
cat(sprintf("%6s  %-28s %10s %8s %9s %8s\n", "N", "model", "fit", "vectors", "test err", "Brier"))
for (N in c(2000, 5000, 20000)) {
  set.seed(2)
  train <- checkerboard(N)
  x <- as.matrix(train[, c("x1", "x2")])
  set.seed(3)
  time <- system.time(ny <- quiet(pcvm(x, train$y, kernel = kernel, landmarks = "meb", eps = 0.001)))[["elapsed"]]
  rows[[length(rows) + 1]] <- report(N, sprintf("Ny-PCVM (MEB, %d landmarks)", length(ny$landmarks$class)),
                                     time, length(ny$models[[1]]$relevant), predict(ny, x_test, type = "prob"))
  if (N <= 5000) {
    set.seed(3)
    time <- system.time(full <- quiet(pcvm(x, train$y, kernel = kernel)))[["elapsed"]]
    rows[[length(rows) + 1]] <- report(N, "PCVM", time, length(full$models[[1]]$relevant),
                                       predict(full, x_test, type = "prob"))
  } else {
    cat(sprintf("%6d  %-28s not run: the kernel alone is %.1f GB and the first EM steps are O(N^3)\n",
                N, "PCVM", 8 * N^2 / 1e9))
  }
  if (requireNamespace("e1071", quietly = TRUE)) {
    time <- system.time(svm <- e1071::svm(x, train$y, kernel = "radial", gamma = 5, cost = 1,
                                          scale = FALSE, probability = TRUE))[["elapsed"]]
    p <- attr(predict(svm, x_test, probability = TRUE), "probabilities")[, levels(test$y)]
    rows[[length(rows) + 1]] <- report(N, "e1071::svm(probability = TRUE)", time, svm$tot.nSV, p)
  }
}
results <- do.call(rbind, rows)
at <- function(model_start) results[results$N == 5000 & startsWith(results$model, model_start), ]
cat(sprintf("\nN = 5000: PCVM / Ny-PCVM time ratio %.1f (target >= 10); test errors %.4f vs %.4f (difference %.1f points, target <= 2)\n",
            at("PCVM")$time / at("Ny-PCVM")$time, at("PCVM")$error, at("Ny-PCVM")$error,
            100 * abs(at("PCVM")$error - at("Ny-PCVM")$error)))
