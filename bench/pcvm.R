# Benchmark: PCVM and Ny-PCVM (MEB landmarks) on checkerboard() (4 x 4
# board, Gaussian kernel gamma = 5), with e1071::svm(probability = TRUE) on
# the same data in the same process. Ny-PCVM at N = 2000, 5000, 20000; the
# full PCVM at N = 2000, 5000, 10000 on three paths from the same seed: the
# default (CG M-steps while many basis functions are active, then G_A of the
# active set), "cholesky" (G = K'K formed once, Cholesky M-steps;
# pcvm_control(solver = "cholesky")) and the path before G (Phi_A'Phi_A
# formed in every EM iteration: the core's EM with gram = FALSE, put in
# place of krein's internal cpp_pcvm_fit() for that run).
# Run from the checkout's root after installing krein:  Rscript bench/pcvm.R
# (KREIN_BENCH_PCVM_N = "2000,5000" runs only those N.)
# Prints per N and model: fit time (elapsed and CPU seconds), relevance
# (support) vectors, test error and Brier score on 10,000 test points; then
# the time ratios. Targets: Ny-PCVM >= 10x faster than PCVM at N = 5000 with
# a test error within 2 points; PCVM >= 4x faster than the path before G at
# N = 5000 and within 60 s at N = 10000.
library(krein)
options(krein.threads = 2)

brier <- function(p, y) mean(rowSums((p - outer(as.integer(y), seq_len(ncol(p)), "=="))^2))
quiet <- function(expr) suppressWarnings(expr)  # PCVM may stop at max_iter

set.seed(1)
test <- checkerboard(10000)
x_test <- as.matrix(test[, c("x1", "x2")])
kernel <- kernel_rbf(5)
rows <- list()
cpu_seconds <- function(timing) sum(timing[c("user.self", "sys.self")], na.rm = TRUE)
report <- function(N, model, timing, vectors, p) {
  error <- mean(factor(levels(test$y)[max.col(p, ties.method = "first")], levels(test$y)) != test$y)
  time <- timing[["elapsed"]]
  cat(sprintf("%6d  %-30s %8.2f s %8.2f s %8d %9.4f %8.4f\n", N, model, time, cpu_seconds(timing), vectors, error,
              brier(p, test$y)))
  data.frame(N = N, model = model, time = time, error = error)
}
pcvm_paths <- list(default = list(solver = "auto"), cholesky = list(solver = "cholesky"),
                   before = list(solver = "auto", gram = FALSE))
em_with_gram <- get("cpp_pcvm_fit", envir = asNamespace("krein"))
fit_pcvm <- function(x, y, settings) {
  if (isFALSE(settings$gram)) {
    utils::assignInNamespace("cpp_pcvm_fit", function(...) em_with_gram(..., gram = FALSE), "krein")
    on.exit(utils::assignInNamespace("cpp_pcvm_fit", em_with_gram, "krein"))
  }
  set.seed(3)
  timing <- system.time(fit <- quiet(pcvm(x, y, kernel = kernel, control = pcvm_control(solver = settings$solver))))
  list(fit = fit, timing = timing)
}
sizes <- as.numeric(strsplit(Sys.getenv("KREIN_BENCH_PCVM_N", "2000,5000,10000,20000"), ",")[[1]])
agreement <- character()
cat(sprintf("%6s  %-30s %10s %10s %8s %9s %8s\n", "N", "model", "elapsed", "CPU", "vectors", "test err", "Brier"))
for (N in sizes) {
  set.seed(2)
  train <- checkerboard(N)
  x <- as.matrix(train[, c("x1", "x2")])
  if (N != 10000) {
    set.seed(3)
    timing <- system.time(ny <- quiet(pcvm(x, train$y, kernel = kernel, landmarks = "meb", eps = 0.001)))
    rows[[length(rows) + 1]] <- report(N, sprintf("Ny-PCVM (MEB, %d landmarks)", length(ny$landmarks$class)),
                                       timing, length(ny$models[[1]]$relevant), predict(ny, x_test, type = "prob"))
  }
  if (N <= 10000) {
    labels <- c(default = "PCVM", cholesky = "PCVM G once (cholesky)", before = "PCVM before G (per-step)")
    fits <- list()
    for (path in names(pcvm_paths)) {
      fitted <- fit_pcvm(x, train$y, pcvm_paths[[path]])
      fits[[path]] <- list(model = fitted$fit$models[[1]], p = predict(fitted$fit, x_test, type = "prob"))
      rows[[length(rows) + 1]] <- report(N, labels[[path]], fitted$timing, length(fits[[path]]$model$relevant),
                                         fits[[path]]$p)
      rm(fitted)
    }
    solver <- fits$default$model$solver
    agreement[as.character(N)] <- sprintf(paste(
      "N = %d: same relevance vectors as G once / before G %s / %s, EM iterations %d / %d / %d,",
      "max |p difference| %.1e / %.1e; CG M-steps %d (%d CG steps, %d fallbacks), sketch rank %d, G_A at |A| = %d"),
      N, identical(fits$default$model$relevant, fits$cholesky$model$relevant),
      identical(fits$default$model$relevant, fits$before$model$relevant),
      fits$default$model$iterations, fits$cholesky$model$iterations, fits$before$model$iterations,
      max(abs(fits$default$p - fits$cholesky$p)), max(abs(fits$default$p - fits$before$p)),
      solver$cg_iterations, solver$cg_steps, solver$fallbacks, as.integer(solver$sketch_rank),
      as.integer(solver$gram_size))
    rm(fits)
  } else {
    cat(sprintf("%6d  %-30s not run: the kernel alone is %.1f GB\n", N, "PCVM", 8 * N^2 / 1e9))
  }
  if (requireNamespace("e1071", quietly = TRUE)) {
    timing <- system.time(svm <- e1071::svm(x, train$y, kernel = "radial", gamma = 5, cost = 1,
                                            scale = FALSE, probability = TRUE))
    p <- attr(predict(svm, x_test, probability = TRUE), "probabilities")[, levels(test$y)]
    rows[[length(rows) + 1]] <- report(N, "e1071::svm(probability = TRUE)", timing, svm$tot.nSV, p)
  }
}
results <- do.call(rbind, rows)
time_of <- function(N, model_start) {
  hit <- results[results$N == N & startsWith(results$model, model_start), "time"]
  if (length(hit)) hit[1] else NA_real_
}
cat("\nPCVM (default) against G once (cholesky), the path before G and e1071::svm(probability = TRUE):\n")
for (N in intersect(c(2000, 5000, 10000), sizes)) {
  cat(sprintf("N = %5d: PCVM %.2f s; G once / now %.2f; before G / now %.2f; now / svm %.1f\n", N,
              time_of(N, "PCVM"), time_of(N, "PCVM G once") / time_of(N, "PCVM"),
              time_of(N, "PCVM before") / time_of(N, "PCVM"), time_of(N, "PCVM") / time_of(N, "e1071")))
}
cat(paste0(agreement, "\n"), sep = "")
cat(sprintf("Targets: before G / now >= 4 at N = 5000 (%.2f); PCVM at N = 10000 within 60 s (%.1f s)\n",
            time_of(5000, "PCVM before") / time_of(5000, "PCVM"), time_of(10000, "PCVM")))
error_of <- function(model_start) results[results$N == 5000 & startsWith(results$model, model_start), "error"][1]
cat(sprintf(paste0("\nN = 5000: Ny-PCVM is %.1fx faster than the path before G (the landmark target, >= 10, ",
                   "was set against that path) and %.1fx faster than the default PCVM; test errors %.4f vs %.4f ",
                   "(difference %.1f points, target <= 2)\n"),
            time_of(5000, "PCVM before") / time_of(5000, "Ny-PCVM"), time_of(5000, "PCVM") / time_of(5000, "Ny-PCVM"),
            error_of("PCVM"), error_of("Ny-PCVM"), 100 * abs(error_of("PCVM") - error_of("Ny-PCVM"))))
