# Paper 003 (Huang, Hwang & Lin, "Kernel Fisher's discriminant analysis in
# Gaussian RKHS", 2005), Sec. 5, Example 3, Tables 3 and
# 4: leave-one-out accuracy of KFLDA and KFQDA (PCA reduction of the kernel
# data) on the four sine populations, with the Gaussian kernel (Table 3) and
# the Epanechnikov product kernel (Table 4), for several kernel widths and
# numbers of principal components, ten replicate runs.
#
# Run:   Rscript paper003_table3.R
#        (file: system.file("reproduce", "paper003_table3.R", package = "krein"))
# Environment variables:
#   KREIN_REPS     number of replicate runs (new training sample each; default
#                  10, the paper's); e.g. 1 for a quick smoke run
#   KREIN_FOLDS    "loo" (default, the paper's leave-one-out) or a number of
#                  stratified cross-validation folds, e.g. 10
#   KREIN_TABLES   which tables: "3,4" (default), "3" or "4"
#   KREIN_WORKERS  > 1: run the folds on that many local processes
#                  (future::plan(multisession)); default sequential
#   KREIN_RESULTS  file to write the markdown results to (default: stdout only)
# Time here (2-core machine shared with other jobs, KREIN_WORKERS = 2):
#   KREIN_FOLDS=10, 10 runs, both tables: 34 minutes (10,600 kfda() fits;
#   under contention from other jobs, load average 6-10).
#   The default leave-one-out protocol needs 106 fits x 400 folds x 10 runs =
#   424,000 kfda() fits, each with an eigendecomposition of a 399 x 399
#   matrix (about 0.12 s of CPU here): about 14 CPU-hours, 7 hours on two
#   cores. It was not run here; the published numbers use KREIN_FOLDS=10.
#
# Protocol (paper 003, Example 3), as implemented:
# * Data: sine_populations(100): x1 uniform on (0, 3 pi) (classes 1, 2) or
#   (3 pi, 6 pi) (classes 3, 4), x2 = +-sin(x1) + 0.1 N(0, 1); 100 points per
#   class, 400 training points; a new sample for every run, the same sample
#   for both tables within a run.
# * Accuracy: leave-one-out cross-validation on the training data (the paper
#   reports no test set), by tune_krein(kfda, ..., folds = 400); mean and
#   standard deviation over the runs of each run's accuracy (the paper's
#   "standard error" in parentheses read as that standard deviation).
# * KFLDA = kfda(discriminant = "linear"), KFQDA = kfda(discriminant =
#   "quadratic"), both reduce = "pca" with the paper's numbers of components,
#   equal priors (balanced classes), the log-determinant term kept (eq. 12).
# * Table 3: the Gaussian kernel exp(-0.5 |x - x'|^2 / sigma^2), i.e.
#   kernel_rbf(gamma = 1 / (2 sigma^2)), sigma^2 in {0.25, 5, 10, 50}.
# * Table 4: the Epanechnikov product kernel of Example 1,
#   prod_k (1 - (x_k - x'_k)^2 / w^2) 1{|x_k - x'_k| < w} =
#   kernel_epanechnikov(width = w).
#
# Choices where the paper is silent or ambiguous (say so when comparing):
# * TABLE 4's WIDTH. Its column is headed sigma^2 (values 1.5, 2, 2.5, 3),
#   but the paper's "percentage" column is reproduced (to within 0.6 points)
#   only when the value is used as the width w itself; with w = sqrt(value)
#   the percentages are 5-20 points lower. So w = the table's value.
# * THE PERCENTAGE COLUMN. The paper's percentages are reproduced by the
#   cumulative share of the absolute eigenvalues of the (uncentred) kernel
#   matrix K of the 400 points -- what Matlab's pcacov(K) reports. krein's
#   kfda() reports another quantity: the share of the variance of the
#   (column-centred) kernel data, which weights each component by its
#   squared eigenvalue and is larger. Both are printed.
# * THE PCA AND LOO. Whether the paper recomputed the principal components
#   without the left-out point is not said; with kfda() the whole fit,
#   principal components included, is redone in every fold (the stricter
#   reading). krein's components are those of the column-centred kernel
#   data, the paper's (pcacov) of the uncentred kernel matrix.
# * SINGULAR CELLS. The paper marks with "-" the cells where a class
#   covariance is singular and with "***" those where all are (for KFLDA, the
#   pooled covariance). kfda() refuses such fits with a condition of class
#   krein_singular_covariance (reciprocal condition number of the covariance
#   factor below tol = 1e-9, see ?kfda); here a cell is "-" in a run when any
#   fold was refused. kfda() also refuses more components than the numerical
#   rank of the kernel data ("x" here): singular values of the centred
#   kernel data below n * eps times the largest (an SVD, like the paper's
#   pcacov; 131 components at sigma^2 = 5 with all 400 points, where the
#   paper fits 100 -- the former eigenvalue route allowed only 54).
# * Random numbers: set.seed(2005) at the start; data and folds from R's RNG.

# the shared helpers: common.R next to this script (run by Rscript or source())
source(file.path(dirname(normalizePath(c(rev(unlist(lapply(sys.frames(), function(e) e$ofile))), sub("^--file=", "",
  grep("^--file=", commandArgs(FALSE), value = TRUE)))[1])), "common.R"), local = environment())

reps <- env_int("KREIN_REPS", 10L)
folds_env <- tolower(Sys.getenv("KREIN_FOLDS", "loo"))
workers <- env_int("KREIN_WORKERS", 1L)
results_file <- Sys.getenv("KREIN_RESULTS", "")
tables <- trimws(strsplit(Sys.getenv("KREIN_TABLES", "3,4"), ",")[[1]])
n_per_class <- 100L
n <- 4L * n_per_class
folds <- if (folds_env == "loo") n else as.integer(folds_env)
if (is.na(folds) || folds < 2 || folds > n) stop("KREIN_FOLDS must be \"loo\" or a number of folds between 2 and 400.")
use_workers(workers, threads = if (workers > 1) 1L else 2L)

# The paper's Tables 3 and 4: rows of (kernel width, components, percentage,
# KFLDA mean, sd, KFQDA mean, sd); NA with code "-" or "***" for the cells the
# paper reports as singular.
paper_row <- function(width, ncomp, pct, lin, lin_sd, quad = NA, quad_sd = NA,
                      lin_code = "", quad_code = if (is.na(quad)) "-" else "") {
  data.frame(width = width, ncomp = ncomp, pct = pct, lin = lin, lin_sd = lin_sd,
             lin_code = lin_code, quad = quad, quad_sd = quad_sd, quad_code = quad_code)
}
table3 <- rbind(
  paper_row(0.25, 8, 30.45, 0.6247, 0.0828, 0.8303, 0.0268),
  paper_row(0.25, 10, 36.48, 0.6872, 0.0618, 0.8950, 0.0354),
  paper_row(0.25, 15, 49.76, 0.8245, 0.0378, 0.9590, 0.0099),
  paper_row(0.25, 25, 69.63, 0.9112, 0.0170),
  paper_row(0.25, 35, 82.47, 0.9218, 0.0167),
  paper_row(0.25, 120, 99.72, 0.9522, 0.0099),
  paper_row(0.25, 150, 99.93, 0.9497, 0.0106),
  paper_row(0.25, 200, 99.99, 0.9320, 0.0110),
  paper_row(5, 8, 91.98, 0.5893, 0.0418, 0.9590, 0.0130),
  paper_row(5, 10, 95.63, 0.5653, 0.0461, 0.9665, 0.0102),
  paper_row(5, 15, 99.30, 0.9145, 0.0133, 0.9652, 0.0102),
  paper_row(5, 25, 99.96, 0.9192, 0.0067, 0.9678, 0.0083),
  paper_row(5, 35, 100, 0.9110, 0.0144, 0.9655, 0.0093),
  paper_row(5, 100, 100, 0.9435, 0.0104),
  paper_row(5, 120, 100, NA, NA, lin_code = "***"),
  paper_row(10, 8, 97.76, 0.5925, 0.0305, 0.9557, 0.0136),
  paper_row(10, 10, 99.07, 0.5760, 0.0380, 0.9635, 0.0117),
  paper_row(10, 15, 99.91, 0.8895, 0.0122, 0.9655, 0.0074),
  paper_row(10, 25, 100, 0.9083, 0.0085, 0.9685, 0.0074),
  paper_row(10, 35, 100, 0.9098, 0.0137),
  paper_row(10, 75, 100, 0.9457, 0.0086),
  paper_row(10, 80, 100, NA, NA, lin_code = "***"),
  paper_row(50, 8, 99.98, 0.6050, 0.0278, 0.9648, 0.0090),
  paper_row(50, 10, 100, 0.5662, 0.0508, 0.9655, 0.0081),
  paper_row(50, 15, 100, 0.8678, 0.0125, 0.9648, 0.0079),
  paper_row(50, 25, 100, 0.9045, 0.0093, 0.9685, 0.0060),
  paper_row(50, 35, 100, 0.9140, 0.0072),
  paper_row(50, 40, 100, 0.9133, 0.0080),
  paper_row(50, 45, 100, NA, NA, lin_code = "***")
)
table4 <- rbind(
  paper_row(1.5, 10, 51.20, 0.7007, 0.0751, 0.9145, 0.0300),
  paper_row(1.5, 15, 66.97, 0.8900, 0.0318, 0.9537, 0.0080),
  paper_row(1.5, 20, 77.52, 0.9285, 0.0114, 0.9579, 0.0113),
  paper_row(1.5, 100, 97.27, 0.9343, 0.0115),
  paper_row(1.5, 150, 98.77, 0.9395, 0.0120),
  paper_row(1.5, 200, 99.47, 0.9375, 0.0099),
  paper_row(2, 10, 64.46, 0.6113, 0.0592, 0.9355, 0.0130),
  paper_row(2, 15, 78.76, 0.8875, 0.0297, 0.9567, 0.0066),
  paper_row(2, 25, 89.11, 0.9193, 0.0118, 0.9558, 0.0085),
  paper_row(2, 100, 98.44, 0.9383, 0.0091),
  paper_row(2, 150, 99.35, 0.9350, 0.0117),
  paper_row(2, 200, 99.74, 0.9283, 0.0134),
  paper_row(2.5, 10, 75.13, 0.5797, 0.0386, 0.9490, 0.0118),
  paper_row(2.5, 15, 84.99, 0.9053, 0.0235, 0.9595, 0.0093),
  paper_row(2.5, 25, 92.58, 0.9098, 0.0166, 0.9565, 0.0091),
  paper_row(2.5, 100, 99.09, 0.9182, 0.0080),
  paper_row(2.5, 150, 99.65, 0.9258, 0.0167),
  paper_row(2.5, 200, 99.87, 0.9138, 0.0126),
  paper_row(3, 10, 81.20, 0.5620, 0.0354, 0.9537, 0.0082),
  paper_row(3, 15, 87.95, 0.8495, 0.0670, 0.9613, 0.0097),
  paper_row(3, 25, 94.19, 0.9000, 0.0150, 0.9572, 0.0083),
  paper_row(3, 100, 99.30, 0.9175, 0.0163),
  paper_row(3, 150, 99.73, 0.9178, 0.0207),
  paper_row(3, 200, 99.90, 0.9070, 0.0214)
)

specs <- list(
  "3" = list(paper = table3, kernel = kernel_rbf(gamma = 1), parameter = "gamma",
             to_parameter = function(sigma2) 1 / (2 * sigma2), width_label = "sigma^2",
             make_kernel = function(sigma2) kernel_rbf(gamma = 1 / (2 * sigma2)),
             title = "Table 3 (Gaussian kernel exp(-0.5 |x - x'|^2 / sigma^2))"),
  "4" = list(paper = table4, kernel = kernel_epanechnikov(width = 1), parameter = "width",
             to_parameter = function(w) w, width_label = "width",
             make_kernel = function(w) kernel_epanechnikov(width = w),
             title = "Table 4 (Epanechnikov product kernel, width = the paper's 'sigma^2' value)")
)
specs <- specs[intersect(names(specs), tables)]
if (!length(specs)) stop("KREIN_TABLES must name table 3 and/or 4.")

# One run of one table: every (width, ncomp, discriminant) cell
# cross-validated with tune_krein() on one training sample. Returns per cell
# the accuracy, the status ("ok", "-" singular covariance, "x" more
# components than the rank, or "?" another error) and the two variance
# shares.
run_table <- function(spec, data) {
  paper <- spec$paper
  grid <- data.frame(param = rep(spec$to_parameter(paper$width), 2),
                     ncomp = rep(paper$ncomp, 2),
                     discriminant = rep(c("linear", "quadratic"), each = nrow(paper)),
                     stringsAsFactors = FALSE)
  names(grid)[1] <- spec$parameter
  x <- as.matrix(data[, c("x1", "x2")])
  tuned <- withCallingHandlers(
    # the paper fits the data as given (krein's default would scale the columns)
    tune_krein(kfda, x, data$y, grid = grid, folds = folds, refit = FALSE, kernel = spec$kernel, scale = FALSE),
    warning = function(w) if (grepl("fits failed", conditionMessage(w))) invokeRestart("muffleWarning")
  )
  per_fold <- tuned$folds
  cell <- lapply(split(per_fold, per_fold$grid_row), function(f) {
    failed <- !is.na(f$message)
    status <- if (!any(failed)) "ok" else if (any(grepl("singular", f$message[failed]))) "-"
              else if (any(grepl("rank", f$message[failed]))) "x" else "?"
    data.frame(grid_row = f$grid_row[1], status = status,
               accuracy = if (any(failed)) NA_real_ else 1 - sum(f$value * f$n_test) / sum(f$n_test),
               message = if (any(failed)) f$message[failed][1] else NA_character_)
  })
  cell <- do.call(rbind, cell)
  cell <- cell[order(cell$grid_row), ]
  # variance shares on the whole training sample, one kernel matrix per width
  shares <- lapply(unique(paper$width), function(w) {
    kernel <- spec$make_kernel(w)
    K <- kernel_matrix(kernel, x)
    ev <- abs(eigen(K, symmetric = TRUE, only.values = TRUE)$values)
    ev <- sort(ev, decreasing = TRUE)
    fit <- kfda(x, data$y, kernel = kernel, ncomp = 1, scale = FALSE)   # krein's share: fit$eigenvalues
    kv <- fit$eigenvalues
    rows <- which(paper$width == w)
    data.frame(row = rows,
               pct_paper_measure = 100 * cumsum(ev)[paper$ncomp[rows]] / sum(ev),
               pct_krein = 100 * ifelse(paper$ncomp[rows] <= length(kv),
                                        cumsum(kv)[pmin(paper$ncomp[rows], length(kv))] / sum(kv), NA),
               rank_krein = length(kv))
  })
  shares <- do.call(rbind, shares)
  shares <- shares[order(shares$row), ]
  k <- nrow(paper)
  list(lin = cell[seq_len(k), ], quad = cell[k + seq_len(k), ], shares = shares)
}

fmt <- function(x, digits = 4) ifelse(is.na(x), "", formatC(x, format = "f", digits = digits))

# Summary over runs of one cell: mean (sd) over the runs where it was fitted,
# and how many runs refused it (and why).
cell_summary <- function(acc, status) {
  ok <- status == "ok"
  refused <- status[!ok]
  why <- if (length(refused)) names(sort(table(refused), decreasing = TRUE))[1] else ""
  if (!any(ok)) return(list(text = if (why == "x") "x" else if (why == "-") "\u2014" else why,
                            mean = NA, sd = NA))
  m <- mean(acc[ok])
  s <- if (sum(ok) > 1) stats::sd(acc[ok]) else NA
  text <- sprintf("%.4f (%s)", m, if (is.na(s)) "-" else sprintf("%.4f", s))
  if (length(refused)) text <- sprintf("%s [%s in %d/%d runs]", text,
                                       if (why == "-") "\u2014" else why, length(refused), length(status))
  list(text = text, mean = m, sd = s)
}

paper_text <- function(m, s, code) {
  if (nzchar(code)) return(if (code == "-") "\u2014" else code)
  sprintf("%.4f (%.4f)", m, s)
}

# Differs by more than two of the paper's (per-run) standard deviations?
flag <- function(krein, paper_mean, paper_sd) {
  if (is.na(krein) || is.na(paper_mean)) return("")
  if (abs(krein - paper_mean) > 2 * paper_sd) "\u2020" else ""
}

started <- proc.time()[["elapsed"]]
set.seed(2005)
runs <- setNames(vector("list", length(specs)), names(specs))
for (r in seq_len(reps)) {
  data <- sine_populations(n_per_class)
  for (t in names(specs)) {
    t0 <- proc.time()[["elapsed"]]
    runs[[t]][[r]] <- run_table(specs[[t]], data)
    cat(sprintf("run %d/%d, table %s: %.0f s\n", r, reps, t, proc.time()[["elapsed"]] - t0))
  }
  done <- proc.time()[["elapsed"]] - started
  cat(sprintf("  elapsed %.0f s, projected total %.0f s\n", done, done / r * reps))
}
elapsed <- proc.time()[["elapsed"]] - started

lines <- c(
  "## Paper 003 (Huang, Hwang & Lin), Example 3, Tables 3-4: KFLDA vs KFQDA on the four sine populations",
  "",
  sprintf("Script: `inst/reproduce/paper003_table3.R`. %d run%s of 400 training points (100 per class); accuracy by %s on the training data (the paper: leave-one-out, 10 runs); mean (sd over runs).",
          reps, if (reps > 1) "s" else "",
          if (folds == n) "leave-one-out" else sprintf("stratified %d-fold cross-validation", folds)),
  "Percentages: *paper* as printed; *K-eig* the same measure on krein's data (share of the absolute eigenvalues of the kernel matrix); *krein* the share of kernel-data variance that `kfda()` reports. \u2014: refused as a singular covariance (`krein_singular_covariance`; the paper's \u2014 and ***); x: more components than the numerical rank `kfda()` finds; [\u2014 in k/R runs]: refused in k of R runs, mean over the others; \u2020: krein differs from the paper by more than two of the paper's standard deviations.",
  ""
)
for (t in names(specs)) {
  spec <- specs[[t]]
  paper <- spec$paper
  res <- runs[[t]]
  lines <- c(lines, sprintf("### %s", spec$title), "",
             sprintf("| PCs | %s | %% paper | %% K-eig | %% krein | KFLDA paper | KFLDA krein | | KFQDA paper | KFQDA krein | |",
                     spec$width_label),
             "|---:|---:|---:|---:|---:|---|---|---|---|---|---|")
  for (i in seq_len(nrow(paper))) {
    lin <- cell_summary(vapply(res, function(z) z$lin$accuracy[i], 0), vapply(res, function(z) z$lin$status[i], ""))
    quad <- cell_summary(vapply(res, function(z) z$quad$accuracy[i], 0), vapply(res, function(z) z$quad$status[i], ""))
    pct_measure <- mean(vapply(res, function(z) z$shares$pct_paper_measure[i], 0))
    pct_krein <- mean(vapply(res, function(z) z$shares$pct_krein[i], 0))
    lines <- c(lines, sprintf("| %d | %s | %.2f | %.2f | %s | %s | %s | %s | %s | %s | %s |",
      paper$ncomp[i], format(paper$width[i]), paper$pct[i], pct_measure,
      if (is.na(pct_krein)) "x" else sprintf("%.2f", pct_krein),
      paper_text(paper$lin[i], paper$lin_sd[i], paper$lin_code[i]), lin$text,
      flag(lin$mean, paper$lin[i], paper$lin_sd[i]),
      paper_text(paper$quad[i], paper$quad_sd[i], paper$quad_code[i]), quad$text,
      flag(quad$mean, paper$quad[i], paper$quad_sd[i])))
  }
  ranks <- vapply(split(res[[1]]$shares$rank_krein, paper$width), `[`, 0, 1)
  lines <- c(lines, "",
             sprintf("Numerical rank of the kernel data found by `kfda()` (run 1), by %s: %s.", spec$width_label,
                     paste(sprintf("%s: %d", names(ranks), ranks), collapse = ", ")), "")
}
lines <- c(lines, sprintf("Total wall time: %.1f min (%s, %d worker%s).", elapsed / 60,
                          if (folds == n) "leave-one-out" else sprintf("%d-fold CV", folds),
                          workers, if (workers > 1) "s" else ""))
emit_results(lines, results_file, blank_first = TRUE)
