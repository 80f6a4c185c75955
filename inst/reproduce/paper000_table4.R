# Paper 000 (Pekalska & Haasdonk, "Kernel quadratic discriminant analysis for
# positive definite and indefinite kernels", 2008 preprint of TPAMI 2009),
# Sec. V-A, Table IV (and the "s cross-validated" results in the text of
# Sec. V-A): test errors of the KQD variants and of the reference classifiers
# KFD, SVM, KNN and KPCA-QD with the Gaussian kernel exp(-|x - x'|^2 / s^2)
# on a two-class 2-D toy problem, for seven fixed widths s, ten data drawings.
#
# Run:   Rscript paper000_table4.R
#        (file: system.file("reproduce", "paper000_table4.R", package = "krein"))
# Environment variables:
#   KREIN_REPS     number of data drawings (default 10, the paper's); e.g. 1
#                  for a quick smoke run
#   KREIN_WORKERS  > 1: run the cross-validation folds on that many local
#                  processes (future::plan(multisession)); default sequential
#   KREIN_RESULTS  file to write the markdown results to (default: stdout only)
#   KREIN_DATA_SCALE  factor multiplying the inputs (default 1; see below)
#   KREIN_CLASSIFIERS  comma-separated subset of the rows, e.g. "KQD-IC+,SVM"
#                  (default: all)
# Time here: 17.9 minutes for the full protocol (10 drawings), sequential, on
# a 2-core machine shared with other jobs (load average 6-8, so under heavy
# contention). The SVM row uses isvm(probability = FALSE): tuning by error
# needs no Platt probabilities. (isvm() runs kernlab without its shrinking
# heuristic; with it, a fit at large C took 10-30 s and stopped far from the
# optimum, and the SVM row alone would take hours.)
#
# Protocol (paper 000, Sec. V-A), as implemented:
# * 50 + 50 training points, an independent test set of 500 + 500 points, ten
#   drawings; the Gaussian kernel exp(-|x - x'|^2 / s^2), i.e.
#   kernel_rbf(gamma = 1 / s^2), for s in {0.5, 1, 5, 10, 50, 100, 500}.
# * 10-fold (stratified) cross-validation, with tune_krein(), of: alpha in
#   [1e-10, 1e-3] for KQD-IC and KQD-FK, sigma^2 in [1e-3, 1e4] for KQD-RC,
#   alpha in [1e-6, 1e1] for KFD, C in [1e-1, 1e6] for SVM, alpha in
#   [1e-7, 1] for KPCA-QD: eight log-spaced values each; k in 1..8 for KNN.
#   The same regularisation for all classes. KQD biases by training-error
#   minimisation (Sec. IV-D; kqd(bias = "error"), the default).
# * The paper's own formulas for positive definite kernels:
#   kqd(indefinite = "no").
#
# Choices where the paper is silent (say so when comparing):
# * THE DATA. The paper describes its toy data only as "two normal
#   distributions, slightly transformed in a nonlinear way" (Fig. 1) and
#   gives no generator or parameters. None of krein's generators is that
#   data set: gaussian_mixture_2d() is a noisy XOR (each class a mixture of
#   two normals, bimodal; a linear rule is at chance there, while the paper's
#   KFD at s = 500, nearly linear, still gets 24%), xor4() is four fixed
#   points, banana() gives two bent, unimodal, non-Gaussian classes.
#   banana() is the closest in kind and is used as it is, with its default
#   overlap 0.5: CV-tuned KNN on 50 + 50 points then errs about 8-10%
#   (paper: 10.0%). It is not the paper's data: on banana() a quadratic
#   rule in the inputs is barely better than a linear one (the LDA / QDA
#   lines printed under the table), while the paper's KPCA-QD at large s
#   (about QDA in the inputs) gets 9.5% against KFD's 24%, so the paper's
#   classes are much closer to two Gaussians than bananas are.
# * THE DATA SCALE. The widths s only mean something relative to the spread
#   of the data, which the paper does not give. banana() (unit radius) is
#   not rescaled (KREIN_DATA_SCALE multiplies it, default 1): with 2
#   drawings, scale 1 reproduces where the paper's rows change with s
#   (KQD-IC fails at s = 0.5 and recovers at s = 1, KQD-RC and KFD are best
#   at s <= 1), while scale 2 or 5 moves the failure of KQD-IC to s = 1 or
#   s = 2 (errors above 50%: with a kernel much narrower than the point
#   spacing, a class's own points lie farther from it in d_IC than the other
#   class's points).
# * KFD is krein's ikfd() with the DisTools weighting and class rule (the
#   argmax of the decision values, rule = "decision", also in the CV); its
#   `ridge_relative` is relative to the mean eigenvalue of the within-class
#   scatter (see ?ikfd), not the absolute ridge of PRTools, so the same grid
#   covers a different range.
# * KPCA-QD is ikpca_qd() with pvar = 0.8 (the value the paper states for
#   its Sec. V-C), the paper's QDA (pooling = 0: each class its own
#   covariance) and the grid above for its covariance `shrinkage`.
# * SVM is isvm() (kernlab, C-SVM on the kernel matrix). Without Platt
#   probabilities its class is the one-vs-one vote (predict(rule = "vote")).
# * Ties in the CV error go to the first grid value (the smallest
#   regularisation, or the smallest k).

# the shared helpers: common.R next to this script (run by Rscript or source())
source(file.path(dirname(normalizePath(c(rev(unlist(lapply(sys.frames(), function(e) e$ofile))), sub("^--file=", "",
  grep("^--file=", commandArgs(FALSE), value = TRUE)))[1])), "common.R"), local = environment())

reps <- env_int("KREIN_REPS", 10L)
workers <- env_int("KREIN_WORKERS", 1L)
results_file <- Sys.getenv("KREIN_RESULTS", "")
use_workers(workers)

DATA_SCALE <- as.numeric(Sys.getenv("KREIN_DATA_SCALE", "1"))
OVERLAP <- 0.5
N_TRAIN <- 50   # per class
N_TEST <- 500   # per class
FOLDS <- 10
S_VALUES <- c(0.5, 1, 5, 10, 50, 100, 500)

# classifier label, fitting function, fixed arguments, tuning grid
classifiers <- select_classifiers(list(
  "KQD-IC+" = list(kqd, list(variant = "IC+", indefinite = "no"), list(reg = log_grid(1e-10, 1e-3))),
  "KQD-IC-" = list(kqd, list(variant = "IC-", indefinite = "no"), list(reg = log_grid(1e-10, 1e-3))),
  "KQD-RC+" = list(kqd, list(variant = "RC+", indefinite = "no"), list(reg = log_grid(1e-3, 1e4))),
  "KQD-RC-" = list(kqd, list(variant = "RC-", indefinite = "no"), list(reg = log_grid(1e-3, 1e4))),
  "KQD-FK+" = list(kqd, list(variant = "FK+", indefinite = "no"), list(reg = log_grid(1e-10, 1e-3))),
  "KQD-FK-" = list(kqd, list(variant = "FK-", indefinite = "no"), list(reg = log_grid(1e-10, 1e-3))),
  "KFD"     = list(ikfd, list(rule = "decision"), list(ridge_relative = log_grid(1e-6, 1e1))),
  "SVM"     = list(isvm, list(probability = FALSE), list(C = log_grid(1e-1, 1e6))),
  "KNN"     = list(iknn, list(), list(k = 1:8)),
  "KPCA-QD" = list(ikpca_qd, list(pvar = 0.8, pooling = 0), list(shrinkage = log_grid(1e-7, 1)))
))

# Paper 000, Table IV: mean (sd) test error in %, columns s = 0.5 ... 500,
# then the (s, C, alpha)-cross-validated result from the text of Sec. V-A.
paper <- rbind(
  "KQD-IC+" = c(36.3, 8.4, 12.3, 1.9, 6.6, 0.7, 6.8, 1.0, 6.9, 1.3, 7.4, 1.3, 8.6, 2.3, 6.8, 1.0),
  "KQD-IC-" = c(37.7, 8.4, 11.6, 1.4, 6.6, 0.7, 6.7, 1.0, 7.0, 0.8, 6.9, 1.0, 9.5, 3.0, 6.7, 1.0),
  "KQD-RC+" = c(10.7, 1.4, 10.0, 3.1, 14.3, 1.7, 14.6, 4.5, 16.8, 3.3, 12.8, 1.8, 22.8, 3.6, 10.3, 1.9),
  "KQD-RC-" = c(10.9, 2.0, 11.8, 2.2, 17.3, 5.8, 16.1, 4.3, 15.0, 5.9, 17.6, 4.6, 22.7, 3.7, 11.7, 2.1),
  "KQD-FK+" = c(9.5, 1.1, 7.8, 0.7, 6.4, 1.1, 6.4, 0.5, 8.4, 1.6, 9.1, 2.0, 10.1, 2.2, 6.9, 1.4),
  "KQD-FK-" = c(9.6, 1.2, 7.8, 0.8, 6.7, 1.1, 6.9, 1.3, 9.0, 2.6, 9.6, 2.0, 10.0, 2.1, 7.1, 1.2),
  "KFD"     = c(9.8, 1.8, 10.3, 2.5, 12.7, 2.2, 13.2, 2.5, 16.2, 3.3, 21.9, 3.0, 23.7, 2.6, 10.5, 2.1),
  "SVM"     = c(9.9, 1.7, 9.3, 2.0, 7.8, 1.9, 9.2, 2.6, 13.0, 2.4, 13.1, 2.9, 18.9, 3.4, 8.9, 1.8),
  "KNN"     = c(10.3, 1.3, 10.0, 1.3, 10.0, 1.3, 10.0, 1.3, 10.0, 1.3, 10.0, 1.3, 10.0, 1.3, 10.1, 1.4),
  "KPCA-QD" = c(9.4, 1.9, 10.3, 2.8, 11.6, 2.0, 9.7, 2.6, 9.5, 1.4, 9.5, 1.4, 9.5, 1.4, 9.3, 2.3)
)
columns <- c(paste0("s=", S_VALUES), "CV s")
paper <- paper_mean_sd(paper, columns, classifiers)

draw <- function(n_per_class) {
  d <- banana(2 * n_per_class, overlap = OVERLAP)  # classes of equal size
  d[, 1:2] <- DATA_SCALE * d[, 1:2]
  d
}

# Each classifier is tuned by 10-fold CV at each s with the Gaussian kernel
# (scan_widths() in common.R); the folds of classifier i in drawing r are
# drawn after set.seed(cv_seeds[r, i]), the same for every s.
start <- Sys.time()
set.seed(20090000)
data_seeds <- sample.int(1e8, reps)
cv_seeds <- matrix(sample.int(1e8, reps * length(classifiers)), reps)
baseline <- matrix(NA_real_, reps, 2, dimnames = list(NULL, c("LDA", "QDA")))
record <- new_width_record(classifiers, columns, reps)
for (r in seq_len(reps)) {
  set.seed(data_seeds[r])
  train <- draw(N_TRAIN)
  test <- draw(N_TEST)
  # not in Table IV: MASS::lda / qda on the inputs, to characterise the data
  baseline[r, ] <- c(100 * mean(predict(MASS::lda(y ~ ., train), test)$class != test$y),
                     100 * mean(predict(MASS::qda(y ~ ., train), test)$class != test$y))
  record <- scan_widths(record, r, classifiers, S_VALUES, function(s) list(gamma = 1 / s^2),
                        kernel_rbf(gamma = 1), train, test, cv_seeds[r, ], FOLDS)
  message(sprintf("drawing %d of %d done after %.1f min", r, reps,
                  as.numeric(difftime(Sys.time(), start, units = "mins"))))
}
elapsed <- as.numeric(difftime(Sys.time(), start, units = "mins"))

# ---- markdown output ---------------------------------------------------------
lines <- c(
  "### Paper 000, Table IV: Gaussian kernel on 2-D toy data",
  "",
  sprintf("Test error in %%, mean (sd) over %d drawing%s of 50 + 50 training and 500 + 500 test points; regularisation by 10-fold CV. Each cell: krein / paper. `*` marks a krein mean more than two paper standard deviations (at least 0.5) from the paper's. Data: `banana(overlap = %g)`, inputs times %g (the paper's toy data are not specified; see the script header). \"CV s\": s chosen by CV together with the regularisation (paper: text of Sec. V-A).",
          reps, if (reps == 1) "" else "s", OVERLAP, DATA_SCALE),
  "",
  width_table_lines(record, paper),
  "", sprintf("Not in Table IV, to characterise the data: MASS::lda %s, MASS::qda %s on the inputs (test error %%, mean (sd)).",
              cell_text(mean(baseline[, 1]), if (reps > 1) stats::sd(baseline[, 1]) else NA),
              cell_text(mean(baseline[, 2]), if (reps > 1) stats::sd(baseline[, 2]) else NA)),
  width_footer_lines(record, S_VALUES, elapsed, workers)
)
emit_results(lines, results_file)
