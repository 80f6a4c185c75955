# Benchmark: the Nystroem fits at the flop limit. Checkerboard (size = 4),
# N = 1e6 training points, m = 300 landmarks given as row indices, RBF kernel
# (gamma = 2), scale = FALSE, 2 threads:
#   kernel_matrix()  the N x m cross-kernel K(X, L)
#   ikfd             the Ny-iKFD fit (ikfd(landmarks = <indices>))
#   kqd <variant>    the Ny-KQD fit of each variant (kqd(variant =, landmarks =))
#   predict          decision values of 1e5 new points (Ny-iKFD and Ny-KQD RC+)
# Each workload runs in a fresh R process (for its peak memory), best of
# KREIN_BENCH_REPS runs (default 2; kernel_matrix and predict 3). The fits get
# per-stage timers, put around krein's internal functions for the run:
#   kernel     the landmark kernel of the row blocks in R (and W = K(L, L))
#   factors    the per-class QR factors of the blocks; in the core's landmark
#              pass this includes the kernel of the first pass
#   solve      the m x m algebra (Nystroem decomposition, systems, spectra)
#   self       k(x, x) of the training rows (RC variants, R path)
#   second     the second pass: Ny-KQD training distances (R path: from the
#              kernel blocks of the "kernel" stage), or in the landmark pass
#              the kernel and the training scores or distances
#   other      the rest: the R path's training scores C a, copies, assembly
# and every time is also given as a ratio to the time of a same-run Eigen GEMM
# of the same shape: an N x m by m x m product (2 N m^2 flops, the flops of
# C'C done as a general product), in row blocks of 10,000 (the full product
# would need two 2.4 GB matrices), on the same 2 threads.
#
# Run from the checkout's root after installing krein:
#   Rscript bench/nystrom.R
# Environment: KREIN_BENCH_N (default 1e6; e.g. 1e5 for a quick run),
#   KREIN_BENCH_REPS, KREIN_BENCH_ONLY (comma-separated workload names),
#   KREIN_BENCH_SAVE=<dir> writes each workload's decision values there,
#   KREIN_BENCH_COMPARE=<dir> compares them with ones saved by another build
#   (largest relative difference, target <= 1e-10).
threads <- 2L
m <- 300L
N <- as.numeric(Sys.getenv("KREIN_BENCH_N", "1e6"))
reps <- as.integer(Sys.getenv("KREIN_BENCH_REPS", "2"))
variants <- c("IC+", "IC-", "RC+", "RC-", "FK+", "FK-")
workloads <- c("kernel_matrix", "ikfd", paste0("kqd ", variants), "predict ikfd", "predict kqd RC+")
# the other users of the landmark kernel (KREIN_BENCH_EXTRA=1 or by name):
# kfda's random subset of 300 bases, Ny-iKFD over the data in 10 chunks
# (krein_chunks(), sequential), Ny-PCVM at N = min(N, 1e5)
extras <- c("kfda subset", "chunks ikfd", "pcvm")
if (nzchar(Sys.getenv("KREIN_BENCH_EXTRA", ""))) workloads <- c(workloads, extras)
only <- Sys.getenv("KREIN_BENCH_ONLY", "")
if (nzchar(only)) workloads <- intersect(c(workloads, extras), trimws(strsplit(only, ",")[[1]]))

peak_memory_mb <- function() {
  status <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep("^VmHWM", status, value = TRUE))) / 1024
}

bench_data <- function() {
  set.seed(1)
  train <- krein::checkerboard(N, size = 4)
  test <- krein::checkerboard(1e5, size = 4)
  list(x = as.matrix(train[, c("x1", "x2")]), y = train$y, landmarks = sample(N, m),
       test = as.matrix(test[, c("x1", "x2")]), train = train)
}

# Per-stage timers: each internal function named here (those that exist in the
# installed build) is replaced in krein's namespace by a wrapper that adds its
# elapsed time to its stage. Only functions that do not call each other are
# wrapped, so the stages do not overlap.
stage_functions <- list(
  kernel = c("landmark_columns", "landmark_kernel"),
  factors = c("cpp_class_factors", "cpp_merge_factors", "cpp_landmark_class_factors"),
  solve = c("cpp_ikfd_nystrom", "kqd_nystrom_core", "kqd_nystrom_feature_map", "kqd_nystrom_class_moments"),
  self = c("training_self_similarity"),
  second = c("kqd_nystrom_distances", "cpp_landmark_scores", "cpp_kqd_nystrom_pass_distances")
)
stage_time <- new.env()
install_timers <- function() {
  ns <- asNamespace("krein")
  for (stage in names(stage_functions)) {
    assign(stage, 0, envir = stage_time)
    for (name in stage_functions[[stage]]) {
      if (!exists(name, envir = ns, inherits = FALSE)) next
      original <- get(name, envir = ns)
      wrapper <- local({
        f <- original
        s <- stage
        function(...) {
          start <- proc.time()[["elapsed"]]
          on.exit(assign(s, get(s, envir = stage_time) + proc.time()[["elapsed"]] - start,
                         envir = stage_time))
          f(...)
        }
      })
      unlockBinding(name, ns)
      assign(name, wrapper, envir = ns)
      lockBinding(name, ns)
    }
  }
}
reset_timers <- function() for (stage in names(stage_functions)) assign(stage, 0, envir = stage_time)
read_timers <- function() vapply(names(stage_functions), function(s) get(s, envir = stage_time), 0)

# One workload in this process (the parent runs each in a fresh child):
# prints "time peak stage=value ..." on its last line.
args <- commandArgs(trailingOnly = TRUE)
if (length(args) >= 1L && args[1] == "--one") {
  library(krein)
  options(krein.threads = threads)
  workload <- args[2]
  d <- bench_data()
  kernel <- kernel_rbf(2)
  install_timers()
  fit_once <- function() {
    if (workload == "kfda subset") {
      set.seed(2)
      return(kfda(d$x, d$y, kernel = kernel, scale = FALSE, reduce = "subset", bases = m, ridge = 1e-6))
    }
    if (workload == "chunks ikfd") {
      parts <- split(d$train, rep(1:10, each = ceiling(N / 10))[seq_len(N)])
      return(ikfd(krein_chunks(unname(parts), y = "y"), kernel = kernel, scale = FALSE,
                  landmarks = d$x[d$landmarks, ]))
    }
    if (workload == "pcvm") {
      n_pcvm <- min(N, 1e5)
      set.seed(2)
      return(suppressWarnings(pcvm(d$x[seq_len(n_pcvm), ], d$y[seq_len(n_pcvm)], kernel = kernel, scale = FALSE,
                                   landmarks = sample(n_pcvm, m))))
    }
    if (workload == "ikfd" || workload == "predict ikfd") {
      ikfd(d$x, d$y, kernel = kernel, scale = FALSE, landmarks = d$landmarks)
    } else {
      kqd(d$x, d$y, kernel = kernel, scale = FALSE, variant = sub("^(predict )?kqd ", "", workload),
          landmarks = d$landmarks)
    }
  }
  best <- Inf
  best_stages <- read_timers()
  decision <- NULL
  if (workload == "kernel_matrix") {
    L <- d$x[d$landmarks, , drop = FALSE]
    for (r in seq_len(max(reps, 3L))) {
      t <- system.time(K <- kernel_matrix(kernel, d$x, L, threads = threads))[["elapsed"]]
      if (t < best) best <- t
      if (r == 1L) decision <- K[seq(1, nrow(K), length.out = 1e5), ]
      rm(K)
      invisible(gc())
    }
  } else if (startsWith(workload, "predict")) {
    fit <- fit_once()
    for (r in seq_len(max(reps, 3L))) {
      t <- system.time(decision <- predict(fit, d$test, type = "decision"))[["elapsed"]]
      best <- min(best, t)
    }
  } else {
    for (r in seq_len(reps)) {
      reset_timers()
      t <- system.time(fit <- fit_once())[["elapsed"]]
      if (t < best) {
        best <- t
        best_stages <- read_timers()
      }
      if (r == 1L) decision <- predict(fit, d$test, type = "decision")
      rm(fit)
      invisible(gc())
    }
  }
  save_dir <- Sys.getenv("KREIN_BENCH_SAVE", "")
  if (nzchar(save_dir)) saveRDS(decision, file.path(save_dir, paste0(gsub("[^A-Za-z0-9]", "_", chartr("+-", "pm", workload)), ".rds")))
  compare_dir <- Sys.getenv("KREIN_BENCH_COMPARE", "")
  difference <- NA_real_
  if (nzchar(compare_dir)) {
    old <- readRDS(file.path(compare_dir, paste0(gsub("[^A-Za-z0-9]", "_", chartr("+-", "pm", workload)), ".rds")))
    difference <- max(abs(decision - old)) / max(abs(old))
  }
  cat(sprintf("%.4f %.1f %.3g %s\n", best, peak_memory_mb(), difference,
              paste(sprintf("%s=%.4f", names(best_stages), best_stages), collapse = " ")))
  quit(save = "no")
}

# ---- the parent: the same-run GEMM, then every workload in a child ----------
Rcpp::sourceCpp(code = "
// [[Rcpp::depends(RcppEigen)]]
// [[Rcpp::plugins(openmp)]]
#include <RcppEigen.h>
#include <chrono>
#include <cmath>
// seconds of an n x m by m x m Eigen product, in row blocks of `block` rows
// (one output block reused), on `threads` threads
// [[Rcpp::export]]
double block_gemm_seconds(double n, int m, int block, int threads) {
  Eigen::setNbThreads(threads);
  const Eigen::MatrixXd a = Eigen::MatrixXd::NullaryExpr(block, m,
      [](Eigen::Index i, Eigen::Index j) { return std::sin(1.0 + i + 3.0 * j); });
  const Eigen::MatrixXd b = Eigen::MatrixXd::NullaryExpr(m, m,
      [](Eigen::Index i, Eigen::Index j) { return std::cos(2.0 + i + 5.0 * j); });
  Eigen::MatrixXd c(block, m);
  double check = 0;
  const auto start = std::chrono::steady_clock::now();
  for (double done = 0; done < n; done += block) {
    c.noalias() = a * b;
    check += c(0, 0);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return seconds + 0.0 * check;
}")
gemm_best <- function(runs = 1) min(vapply(seq_len(runs), function(i) block_gemm_seconds(N, m, 10000L, threads), 0))

cat(sprintf("== Nystroem fits: checkerboard N = %g, m = %d landmarks (row indices), RBF gamma = 2, ",
            N, m))
cat(sprintf("scale = FALSE, %d threads; best of %d (kernel_matrix, predict: 3); %s\n", threads, reps,
            format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC")))
cat(sprintf("load average at start: %s\n", paste(scan("/proc/loadavg", what = "", n = 3, quiet = TRUE),
                                                collapse = " ")))
gemm_start <- gemm_best()
cat(sprintf("GEMM at start: %.3f s\n", gemm_start))
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
rscript <- file.path(R.home("bin"), "Rscript")
results <- lapply(workloads, function(w) {
  out <- suppressWarnings(system2(rscript, c(shQuote(script), "--one", shQuote(w)), stdout = TRUE))
  if (length(out) == 0L) out <- "NA NA NA"  # the child failed (its error is on stderr)
  fields <- strsplit(trimws(out[length(out)]), " +")[[1]]
  stages <- sub("^.*=", "", fields[-(1:3)])
  names(stages) <- sub("=.*$", "", fields[-(1:3)])
  cat(sprintf("%s: %s\n", w, trimws(out[length(out)])))  # progress, in case the run is cut short
  number <- function(text) ifelse(text == "NA", NA_real_, suppressWarnings(as.numeric(text)))  # "NA": no value
  list(workload = w, time = number(fields[1]), peak = number(fields[2]),
       difference = number(fields[3]), stages = number(stages))
})
gemm <- min(gemm_start, gemm_best())
cat(sprintf("Eigen GEMM %g x %d by %d x %d (2 N m^2 = %.2g flops), blocks of 10,000 rows: %.3f s (%.1f GFLOP/s)\n",
            N, m, m, m, 2 * N * m^2, gemm, 2 * N * m^2 / gemm / 1e9))
cat(sprintf("load average at end: %s\n\n", paste(scan("/proc/loadavg", what = "", n = 3, quiet = TRUE),
                                               collapse = " ")))
compare <- nzchar(Sys.getenv("KREIN_BENCH_COMPARE", ""))
cat("| workload | time (s) | / GEMM | peak RSS (MB) | kernel | factors | solve | self | second | other |",
    if (compare) " rel. diff |", "\n", sep = "")
cat("|---|---|---|---|---|---|---|---|---|---|", if (compare) "---|", "\n", sep = "")
for (r in results) {
  stage_cells <- rep("", 6)
  if (!startsWith(r$workload, "predict") && r$workload != "kernel_matrix") {
    s <- r$stages
    stage_cells <- sprintf("%.2f", c(s, r$time - sum(s)))
  }
  cat(sprintf("| %s | %.3f | %.2f | %.0f | %s |%s\n", r$workload, r$time, r$time / gemm, r$peak,
              paste(stage_cells, collapse = " | "),
              if (compare) sprintf(" %.2g |", r$difference) else ""))
}
