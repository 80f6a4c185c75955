# Benchmark: PCVM and Ny-PCVM (MEB landmarks) on checkerboard() (4 x 4
# board, Gaussian kernel gamma = 5), with e1071::svm(probability = TRUE) on
# the same data in the same process. Ny-PCVM at N = 2000, 5000, 20000; the
# full PCVM at N = 2000, 5000, 10000, on its Gram-matrix path (G = K'K formed
# once, the default) and on the path before it (Phi_A'Phi_A formed in every
# EM iteration; internal option krein.pcvm_gram = FALSE), the two alternating
# from the same seed.
# Run from the checkout's root after installing krein:  Rscript bench/pcvm.R
# Prints per N and model: fit time, relevance (support) vectors, test error
# and Brier score on 10,000 test points; then the time ratios. Targets:
# Ny-PCVM >= 10x faster than PCVM at N = 5000 with a test error within 2
# points; PCVM >= 4x faster than before at N = 5000 and within 60 s at
# N = 10000.
library(krein)
options(krein.threads = 2)

brier <- function(p, y) mean(rowSums((p - outer(as.integer(y), seq_len(ncol(p)), "=="))^2))
quiet <- function(expr) suppressWarnings(expr)  # PCVM may stop at max_iter

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
fit_pcvm <- function(x, y, gram) {
  old <- options(krein.pcvm_gram = gram)
  on.exit(options(old))
  set.seed(3)
  time <- system.time(fit <- quiet(pcvm(x, y, kernel = kernel)))[["elapsed"]]
  list(fit = fit, time = time)
}
agreement <- character()
cat(sprintf("%6s  %-28s %10s %8s %9s %8s\n", "N", "model", "fit", "vectors", "test err", "Brier"))
for (N in c(2000, 5000, 10000, 20000)) {
  set.seed(2)
  train <- checkerboard(N)
  x <- as.matrix(train[, c("x1", "x2")])
  if (N != 10000) {
    set.seed(3)
    time <- system.time(ny <- quiet(pcvm(x, train$y, kernel = kernel, landmarks = "meb", eps = 0.001)))[["elapsed"]]
    rows[[length(rows) + 1]] <- report(N, sprintf("Ny-PCVM (MEB, %d landmarks)", length(ny$landmarks$class)),
                                       time, length(ny$models[[1]]$relevant), predict(ny, x_test, type = "prob"))
  }
  if (N <= 10000) {
    gram <- fit_pcvm(x, train$y, TRUE)
    p_gram <- predict(gram$fit, x_test, type = "prob")
    rows[[length(rows) + 1]] <- report(N, "PCVM", gram$time, length(gram$fit$models[[1]]$relevant), p_gram)
    before <- fit_pcvm(x, train$y, FALSE)
    p_before <- predict(before$fit, x_test, type = "prob")
    rows[[length(rows) + 1]] <- report(N, "PCVM before G (per-step)", before$time,
                                       length(before$fit$models[[1]]$relevant), p_before)
    agreement[as.character(N)] <- sprintf(
      "N = %d: same relevance vectors %s, EM iterations %d / %d, max |p difference| %.1e",
      N, identical(gram$fit$models[[1]]$relevant, before$fit$models[[1]]$relevant),
      gram$fit$models[[1]]$iterations, before$fit$models[[1]]$iterations, max(abs(p_gram - p_before)))
    rm(gram, before)
  } else {
    cat(sprintf("%6d  %-28s not run: the kernel alone is %.1f GB\n", N, "PCVM", 8 * N^2 / 1e9))
  }
  if (requireNamespace("e1071", quietly = TRUE)) {
    time <- system.time(svm <- e1071::svm(x, train$y, kernel = "radial", gamma = 5, cost = 1,
                                          scale = FALSE, probability = TRUE))[["elapsed"]]
    p <- attr(predict(svm, x_test, probability = TRUE), "probabilities")[, levels(test$y)]
    rows[[length(rows) + 1]] <- report(N, "e1071::svm(probability = TRUE)", time, svm$tot.nSV, p)
  }
}
results <- do.call(rbind, rows)
time_of <- function(N, model_start) {
  hit <- results[results$N == N & startsWith(results$model, model_start), "time"]
  if (length(hit)) hit[1] else NA_real_
}
cat("\nPCVM (Gram path) against the path before G and against e1071::svm(probability = TRUE):\n")
for (N in c(2000, 5000, 10000)) {
  cat(sprintf("N = %5d: PCVM %.2f s; before / now %.2f; now / svm %.1f\n", N, time_of(N, "PCVM"),
              time_of(N, "PCVM before") / time_of(N, "PCVM"), time_of(N, "PCVM") / time_of(N, "e1071")))
}
cat(paste0(agreement, "\n"), sep = "")
cat(sprintf("Targets: before / now >= 4 at N = 5000 (%.2f); PCVM at N = 10000 within 60 s (%.1f s)\n",
            time_of(5000, "PCVM before") / time_of(5000, "PCVM"), time_of(10000, "PCVM")))
error_of <- function(model_start) results[results$N == 5000 & startsWith(results$model, model_start), "error"][1]
cat(sprintf("\nN = 5000: PCVM / Ny-PCVM time ratio %.1f (target >= 10); test errors %.4f vs %.4f (difference %.1f points, target <= 2)\n",
            time_of(5000, "PCVM") / time_of(5000, "Ny-PCVM"), error_of("PCVM"), error_of("Ny-PCVM"),
            100 * abs(error_of("PCVM") - error_of("Ny-PCVM"))))
