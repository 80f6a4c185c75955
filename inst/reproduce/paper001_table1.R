#!/usr/bin/env Rscript
# Reproduction of paper 001 (Haasdonk & Pekalska, "Classification with kernel
# Mahalanobis distance classifiers", 2010), Sec. 4.1,
# Table 1: test errors [%] of the kernel Mahalanobis distance classifiers
# KQD-IC, FD-IC, QD-IC, KQD-RC, FD-RC, QD-RC and the reference classifiers
# KFD, SVM and KNN on a two-class 2-D mixture, for training sizes n = 50,
# 100, 200 and a Gaussian and a polynomial kernel.
#
# Protocol (the paper's, Sec. 4.1): for each n, ten repetitions of: draw a
# training set of n points and an independent test set of 1000; choose the
# kernel parameter and the classifier's regularisation by 10-fold
# cross-validation (tune_krein(), stratified folds, lowest mean error, ties to
# the first grid point); refit on the whole training set; report the test
# error. Mean and standard deviation over the ten repetitions.
#   k_rbf(x, x') = exp(-gamma |x - x'|^2), gamma in [0.01, 50], 8 values
#   k_pol(x, x') = (1 + <x, x'>)^p, p = 1, 2, 3, 4
#   KQD-IC, FD-IC, QD-IC: alpha in [1e-6, 1e-1], 8 values (eigenvalue
#     threshold of the pseudo-inverse, krein's kqd variant "IC-")
#   KQD-RC, FD-RC, QD-RC: alpha = n sigma^2 in [1e-5, 1], 8 values (krein's
#     variant "RC+", whose `reg` is sigma^2: reg = alpha / n_j, n_j = n / 2)
#   KFD: beta in [1e-6, 10], 8 values; SVM: C (see below); KNN: k = 1..8
#   The paper says "discretized by 8 values" without the spacing: we use a
#   logarithmic spacing, as in paper 000.
#
# What the paper leaves unspecified, and what we chose:
# * The data. "Each class is a mixture of two normal distributions" (Fig. 1),
#   without parameters. We use krein's gaussian_mixture_2d() (a noisy XOR:
#   components at (-1,-1), (1,1) for class 1 and (-1,1), (1,-1) for class 2)
#   with sd = 0.7, chosen so that the Bayes error, 2 p (1 - p) with
#   p = pnorm(-1 / 0.7), is 14.1%: just below the lowest errors of Table 1
#   (14.5-15%). The shape of the paper's classes is not known, so the cells
#   can only agree in level, not in detail.
# * KFD's beta: krein's ikfd() ridge is relative to the within-class
#   scatter (see ?ikfd); we search ridge_relative over the paper's beta
#   range. Its class is DisTools' rule, the argmax of the decision values
#   (rule = "decision", also in the CV).
# * SVM. krein's isvm() goes through kernlab::ksvm() and always fits a Platt
#   probability model (four more SVMs per fit); on these overlapping classes
#   one isvm() fit takes 1-100 s for C >= 30 (kernlab converges slowly, and
#   the Platt line search stalls), so tune_krein(isvm) over the paper's grid
#   would take days here. As an openly declared workaround the SVM row is
#   cross-validated by this script with e1071::svm() (libsvm, about 0.01 s a
#   fit) on the same kernels (radial: exp(-gamma |x - x'|^2); polynomial:
#   (<x, x'> + 1)^p), with stratified 10-fold CV drawn like tune_krein()'s.
#   For k_rbf C is searched over the paper's [0.1, 1e6], 8 values. For k_pol
#   libsvm reaches its iteration limit (minutes per fit) once C > 100 with the
#   unscaled degree-3 and -4 kernels, whose values reach 1e4 here, so C is
#   searched in [0.1, 100], 8 values. Without e1071 the row is left out.
# * Test error of the refitted model at the cross-validated parameters.
# * Table 1's printed layout is garbled in the text copy of the paper (its
#   header lists the sizes out of order); we read each row's six cells in
#   order as k_rbf n = 50, 100, 200 and k_pol n = 50, 100, 200, the order of
#   the header's two kernels. This is our reading, not certain.
#
# Run:   Rscript inst/reproduce/paper001_table1.R
#   or   Rscript -e 'source(system.file("reproduce", "paper001_table1.R", package = "krein"))'
# Environment variables:
#   KREIN_REPS     repetitions (default 10, the paper's); fewer for a smoke run
#   KREIN_SIZES    training sizes, comma separated (default "50,100,200")
#   KREIN_KERNELS  "rbf,pol" (default) or one of them
#   KREIN_WORKERS  > 1: run the cross-validation folds on that many local
#                  workers (future::plan(multisession)); default sequential
#   KREIN_RESULTS  file to write the markdown results to (default: stdout only)
# Time here (2 cores shared with other jobs, load average about 7): with
# KREIN_REPS=2 KREIN_WORKERS=2 the run took 24.3 min (SVM 57% of it, the
# n = 200 k_rbf SVM cells about 6 min each), so the full protocol (10
# repetitions) is projected at about 2 hours and was not run here.

# the shared helpers: common.R next to this script (run by Rscript or source())
source(file.path(dirname(normalizePath(c(rev(unlist(lapply(sys.frames(), function(e) e$ofile))), sub("^--file=", "",
  grep("^--file=", commandArgs(FALSE), value = TRUE)))[1])), "common.R"), local = environment())

reps <- env_int("KREIN_REPS", 10L)
workers <- env_int("KREIN_WORKERS", 1L)
sizes <- as.integer(strsplit(Sys.getenv("KREIN_SIZES", "50,100,200"), ",")[[1]])
kernels <- trimws(strsplit(Sys.getenv("KREIN_KERNELS", "rbf,pol"), ",")[[1]])
results_file <- Sys.getenv("KREIN_RESULTS", "")
stopifnot(reps >= 1, all(sizes %in% c(50L, 100L, 200L)), all(kernels %in% c("rbf", "pol")))
# small kernel matrices: parallelism through the workers, not threads
use_workers(workers, threads = 1L)

noise_sd <- 0.7
n_test <- 1000L
bayes_error <- 2 * stats::pnorm(-1 / noise_sd) * (1 - stats::pnorm(-1 / noise_sd))

kernel_setups <- list(
  rbf = list(kernel = kernel_rbf(gamma = 1), grid = list(gamma = log_grid(0.01, 50)),
             label = "k_rbf"),
  pol = list(kernel = kernel_poly(degree = 1, scale = 1, offset = 1), grid = list(degree = 1:4),
             label = "k_pol")
)

# name -> fitting function, fixed arguments, model grid (a function of the
# class size n / 2; see mahalanobis_classifiers() in common.R)
classifiers <- mahalanobis_classifiers(alpha_ic = log_grid(1e-6, 1e-1), alpha_rc = log_grid(1e-5, 1),
                                       kfd_ridge = log_grid(1e-6, 10), svm_cost = log_grid(0.1, 1e6),
                                       knn_k = 1:8)

# Table 1 of paper 001 (mean, sd), columns rbf 50/100/200, pol 50/100/200
# (our reading of the garbled layout, see above)
paper <- rbind(
  "KQD-IC" = c(20.8, 4.2, 17.4, 1.1, 15.5, 1.4, 18.8, 1.8, 17.2, 1.6, 16.0, 1.5),
  "FD-IC" = c(20.9, 3.8, 17.9, 2.3, 20.8, 5.0, 15.7, 2.0, 19.3, 2.6, 16.0, 1.2),
  "QD-IC" = c(16.0, 1.7, 21.7, 4.8, 16.7, 0.9, 19.7, 3.5, 18.4, 2.3, 17.3, 1.8),
  "KQD-RC" = c(18.8, 2.1, 16.2, 1.0, 15.3, 1.6, 16.2, 1.8, 16.5, 1.8, 14.9, 1.2),
  "FD-RC" = c(18.4, 2.1, 17.5, 1.8, 15.3, 1.7, 17.5, 2.9, 17.9, 2.7, 15.5, 1.0),
  "QD-RC" = c(17.2, 1.9, 18.5, 2.2, 15.8, 1.2, 14.9, 1.8, 19.5, 4.2, 18.5, 3.1),
  "KFD" = c(14.5, 1.2, 19.5, 3.1, 16.5, 2.2, 14.7, 1.4, 16.7, 2.3, 16.4, 2.4),
  "SVM" = c(19.0, 2.0, 17.0, 1.8, 16.1, 2.7, 17.4, 2.4, 19.6, 6.3, 17.9, 2.2),
  "KNN" = c(18.6, 3.0, 16.3, 1.6, 15.4, 1.6, 17.7, 2.8, 17.0, 2.5, 16.7, 1.4)
)
paper_cell <- function(name, kernel, n) {
  col <- 2L * ((match(kernel, c("rbf", "pol")) - 1L) * 3L + match(n, c(50L, 100L, 200L))) - 1L
  paper[name, col + 0:1]
}

# SVM row (see the header): e1071::svm() with stratified 10-fold CV dealt
# like tune_krein()'s (svm_cv() in common.R).
svm_e1071 <- function(x, y, x_test, kname, kgrid, C_values) {
  if (kname == "pol") C_values <- log_grid(0.1, 100)  # see the header
  fit_one <- function(xtr, ytr, row) {
    if (kname == "rbf") {
      e1071::svm(xtr, ytr, kernel = "radial", gamma = row$k, cost = row$C, scale = FALSE)
    } else {
      e1071::svm(xtr, ytr, kernel = "polynomial", degree = row$k, gamma = 1, coef0 = 1, cost = row$C,
                 scale = FALSE)
    }
  }
  cv <- svm_cv(x, y, x_test, expand.grid(k = kgrid, C = C_values), fit_one)
  list(predicted = cv$predicted, k = cv$best$k, C = cv$best$C)
}

# --- the experiment ---------------------------------------------------------
started <- Sys.time()
records <- list()
for (n in sizes) {
  for (r in seq_len(reps)) {
    set.seed(1000L * n + r)
    train <- gaussian_mixture_2d(n, sd = noise_sd)
    test <- gaussian_mixture_2d(n_test, sd = noise_sd)
    x <- as.matrix(train[, c("x1", "x2")])
    x_test <- as.matrix(test[, c("x1", "x2")])
    for (kname in kernels) {
      setup <- kernel_setups[[kname]]
      for (cname in names(classifiers)) {
        spec <- classifiers[[cname]]
        failed <- 0L
        t0 <- proc.time()
        model_grid <- spec[[3]](n / 2)
        if (is.null(spec[[1]])) {
          svm <- svm_e1071(x, train$y, x_test, kname, setup$grid[[1]], model_grid$C)
          error <- mean(svm$predicted != test$y)
          best <- stats::setNames(list(svm$k, svm$C), c(names(setup$grid), "C"))
          n_failed <- 0L
        } else {
          # failing fits (e.g. a singular covariance in the distance space)
          # count as missing in tune_krein(); their warnings are counted here
          out <- tune_predict(spec[[1]], x, train$y, x_test, grid = c(setup$grid, model_grid),
                              fixed = c(list(kernel = setup$kernel), spec[[2]]), folds = 10,
                              on_warning = function(w) failed <<- failed + 1L)
          error <- mean(out$predicted != test$y)
          best <- out$tuned$best
          n_failed <- sum(out$tuned$results$failed)
        }
        secs <- (proc.time() - t0)[["elapsed"]]
        records[[length(records) + 1L]] <- data.frame(
          n = n, rep = r, kernel = kname, classifier = cname, error = 100 * error,
          kernel_param = best[[names(setup$grid)]], model_param = best[[names(model_grid)]],
          failed_fits = n_failed, warned = failed, seconds = secs)
        cat(sprintf("n = %3d rep %2d %s %-7s error %5.1f%%  (%s = %.3g, %s = %.3g; %.1f s)\n",
                    n, r, kname, cname, 100 * error, names(setup$grid), best[[names(setup$grid)]],
                    names(model_grid), best[[names(model_grid)]], secs))
      }
    }
  }
}
wall <- as.numeric(difftime(Sys.time(), started, units = "mins"))
res <- do.call(rbind, records)

# --- the markdown table -----------------------------------------------------
lines <- c(
  "### Paper 001 (Haasdonk & Pekalska), Table 1: 2-D mixture, test error [%]",
  "",
  repetitions_line(reps),
  sprintf("Data: gaussian_mixture_2d(n, sd = %.1f), Bayes error %.1f%%; test sets of %d points.",
          noise_sd, 100 * bayes_error, n_test),
  "10-fold CV of kernel and regularisation parameters with tune_krein(), except SVM: e1071::svm() with this script's own 10-fold CV, C in [0.1, 1e6] for k_rbf and [0.1, 100] for k_pol (see the script's header).",
  "`*`: krein's mean differs from the paper's by more than two of the paper's standard deviations.",
  ""
)
for (kname in kernels) {
  header <- paste0("| ", kernel_setups[[kname]]$label, " | ",
                   paste(sprintf("n = %d krein | n = %d paper", sizes, sizes), collapse = " | "), " |")
  lines <- c(lines, header, paste0("|", paste(rep("---", 1L + 2L * length(sizes)), collapse = "|"), "|"))
  for (cname in names(classifiers)) {
    cells <- character()
    for (n in sizes) {
      e <- res$error[res$kernel == kname & res$classifier == cname & res$n == n]
      p <- paper_cell(cname, kname, n)
      m <- mean(e)
      s <- if (length(e) > 1) stats::sd(e) else NA_real_
      flag <- if (abs(m - p[1]) > 2 * p[2]) " *" else ""
      cells <- c(cells, paste0(mean_sd_text(m, s), flag), mean_sd_text(p[1], p[2]))
    }
    lines <- c(lines, paste0("| ", cname, " | ", paste(cells, collapse = " | "), " |"))
  }
  lines <- c(lines, "")
}
# chosen parameters: median over repetitions
lines <- c(lines, "Cross-validated parameters, median over repetitions (kernel parameter / regularisation):", "")
for (kname in kernels) {
  lines <- c(lines, paste0("| ", kernel_setups[[kname]]$label, " | ",
                           paste(sprintf("n = %d", sizes), collapse = " | "), " |"),
             paste0("|", paste(rep("---", 1L + length(sizes)), collapse = "|"), "|"))
  for (cname in names(classifiers)) {
    cells <- vapply(sizes, function(n) {
      sel <- res$kernel == kname & res$classifier == cname & res$n == n
      sprintf("%.3g / %.3g", stats::median(res$kernel_param[sel]), stats::median(res$model_param[sel]))
    }, character(1))
    lines <- c(lines, paste0("| ", cname, " | ", paste(cells, collapse = " | "), " |"))
  }
  lines <- c(lines, "")
}
fails <- aggregate(failed_fits ~ kernel + classifier, data = res, FUN = sum)
fails <- fails[fails$failed_fits > 0, , drop = FALSE]
if (nrow(fails)) {
  lines <- c(lines, paste0("Fits that failed inside the cross-validation (counted as missing by tune_krein()): ",
                           paste(sprintf("%s %s: %d", fails$kernel, fails$classifier, fails$failed_fits),
                                 collapse = "; "), "."), "")
}
lines <- c(lines, timing_lines(res, wall, workers, label = "Time per classifier (all cells, s): "))
emit_results(lines, results_file, blank_first = TRUE)
