# Benchmark: tune_krein() -- 10-fold cross-validation of kqd(variant = "RC+")
# over 8 reg x 4 gamma values on n = 1000 points, sequentially and on
# future's multisession backend with 2 workers; and the cost of a grid of 8
# reg values against one value (the regularisation path). Run from the
# checkout's root after installing krein, future and future.apply:
#   Rscript bench/tune.R
# Prints:
#   1. sequential and multisession times (each the best of 2 runs, after a
#      warm-up that starts the workers), their ratio (target >= 1.6), and
#      whether the results are identical.
#   2. for kqd variants that need an eigendecomposition anyway (FK+, RC-,
#      IC-) and for RC+: CV time with 8 reg values / with 1 (target <= 3).
library(krein)
if (!requireNamespace("future.apply", quietly = TRUE)) stop("install future.apply to run this benchmark")

set.seed(1)
d <- checkerboard(1000, size = 4)
x <- d[, c("x1", "x2")]
grid <- list(reg = 10^seq(-4, 1, length.out = 8), gamma = c(1, 3, 9, 27))
timed <- function(expr) system.time(expr)[["elapsed"]]
run <- function() {
  set.seed(42)
  tune_krein(kqd, x, d$y, grid = grid, variant = "RC+", folds = 10, refit = FALSE)
}

cat("== 1. 10-fold CV of kqd RC+, 8 reg x 4 gamma, n = 1000\n")
future::plan(future::sequential)
sequential_times <- c(timed(seq_a <- run()), timed(seq_b <- run()))
future::plan(future::multisession, workers = 2)
invisible(run())  # warm-up: starts the workers and loads krein there
parallel_times <- c(timed(par_a <- run()), timed(par_b <- run()))
future::plan(future::sequential)
cat(sprintf("sequential: %.2f s, multisession (2 workers): %.2f s, speedup %.2f (target >= 1.6)\n",
            min(sequential_times), min(parallel_times), min(sequential_times) / min(parallel_times)))
cat(sprintf("identical results: %s; best: %s\n", identical(seq_a$results, par_a$results),
            paste(names(seq_a$best), unlist(seq_a$best), sep = " = ", collapse = ", ")))

cat("\n== 2. regularisation path: 10-fold CV time with 8 reg values / with 1 (gamma = 9)\n")
for (variant in c("FK+", "RC-", "IC-", "RC+")) {
  one <- min(replicate(2, timed(tune_krein(kqd, x, d$y, grid = list(reg = 0.01, gamma = 9),
                                           variant = variant, folds = 10, refit = FALSE))))
  eight <- min(replicate(2, timed(tune_krein(kqd, x, d$y, grid = list(reg = grid$reg, gamma = 9),
                                             variant = variant, folds = 10, refit = FALSE))))
  cat(sprintf("%-4s 1 value %.2f s, 8 values %.2f s, ratio %.2f (target <= 3)\n", variant, one, eight,
              eight / one))
}
