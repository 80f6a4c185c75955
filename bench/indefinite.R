# "Indefinite kernels: which classifier?" (issue 26, part 3): the table of
# vignette("remedies"). Every remedy krein has for an indefinite kernel, on
# five data sets with genuinely indefinite similarities, by 10-fold
# cross-validation with the parameters tuned INSIDE each fold by
# tune_krein() (3 inner folds on the fold's training part; the held-out fold
# never enters the choice).
#
# Data sets (n <= 300), each with its signature and r_neg (indefiniteness()):
# * promotergene (real): kernlab's 106 DNA sequences, the kernel of their
#   edit distances (utils::adist()) by classical scaling
#   (kernel_from_dissimilarity()); no width.
# * sonar (real): mlbench's Sonar (208 x 60), the sigmoid kernel tanh(a x'y
#   - 1) on the scaled columns, a tuned: 0.5, 1, 2 times 1/60.
# * checkerboard: 300 points of the 4 x 4 board with the invariant distance
#   kernel of paper 000 (Sec. V-B), kernel_invariant(kernel_dist(s, power =
#   4)), s tuned: 0.5, 1, 2.
# * balls: the ball dissimilarities of paper 002 (Sec. 4.3), 2 x 100 balls,
#   classical scaling; no width.
# * sine: sine_populations(), 4 x 50, the distance kernel kernel_dist(s,
#   power = 4) (indefinite for power > 2), s tuned: 0.5, 1, 2.
#
# Grids besides the width (all log-spaced, small so that the table runs in
# well under an hour on two cores): kqd reg 1e-4, 1e-2, 1 (RC) or 1e-5,
# 1e-3, 1e-1 (IC, FK); kmdc reg 1e-4, 1e-2, 1; ikfd ridge_relative 1e-6,
# 1e-4, 1e-2; iknn k = 1, 3, 5, 7; pcvm none (its EM sets the weights);
# isvm and krein_svm C = 0.1, 10, 1000 (probability = FALSE). Nystroem fits:
# 40 random landmarks (stratified) drawn in each fit.
#
# Columns: error (mean over the 10 outer folds) and its sd over the folds,
# fit_seconds (mean time of one fit at the tuned parameters on a fold's
# training part) and tune_seconds (mean time of the inner tuning per fold).
# Writes inst/extdata/remedies.csv and inst/extdata/remedies_sets.csv (after
# every data set, so a partial run leaves the sets it finished; a run on some
# sets or models keeps the other rows).
# Run from the checkout's root after installing krein (with kernlab,
# LiblineaR and mlbench): Rscript bench/indefinite.R [set ...]
# Environment: KREIN_BENCH_MODELS, a comma-separated list of row labels
# (e.g. "pcvm,pcvm (Nystroem)") to rerun those rows alone.
library(krein)
for (pkg in c("kernlab", "LiblineaR", "mlbench")) {
  if (!requireNamespace(pkg, quietly = TRUE)) stop("bench/indefinite.R needs the ", pkg, " package")
}
options(krein.threads = 2)
only <- commandArgs(trailingOnly = TRUE)

widths <- c(0.5, 1, 2)
sets <- list(
  promotergene = function() {
    e <- new.env()
    utils::data("promotergene", package = "kernlab", envir = e)
    dna <- apply(as.matrix(e$promotergene[, -1]), 1, paste, collapse = "")
    list(K = kernel_from_dissimilarity(utils::adist(dna), method = "classical"), y = e$promotergene$Class,
         description = "kernlab promotergene, edit distance, classical scaling")
  },
  sonar = function() {
    e <- new.env()
    utils::data("Sonar", package = "mlbench", envir = e)
    x <- as.matrix(e$Sonar[, 1:60])
    list(x = x, y = e$Sonar$Class, kernel = kernel_tanh(scale = 1 / 60, offset = -1),
         width = list(scale = widths / 60), description = "mlbench Sonar, sigmoid kernel tanh(a x'y - 1)")
  },
  checkerboard = function() {
    set.seed(1)
    board <- checkerboard(300)
    list(x = as.matrix(board[, c("x1", "x2")]), y = board$y,
         kernel = kernel_invariant(kernel_dist(s = 1, power = 4)), width = list(s = widths),
         description = "4 x 4 checkerboard, invariant distance kernel (power 4)")
  },
  balls = function() {
    set.seed(2018)
    balls <- ball_dissimilarities(n_per_class = 100)
    list(K = kernel_from_dissimilarity(balls$D, method = "classical"), y = balls$y,
         description = "ball dissimilarities, classical scaling")
  },
  sine = function() {
    set.seed(3)
    sine <- sine_populations(n_per_class = 50)
    list(x = as.matrix(sine[, setdiff(names(sine), "y")]), y = sine$y, kernel = kernel_dist(s = 1, power = 4),
         width = list(s = widths), description = "sine populations, distance kernel (power 4)")
  }
)
# the quickest first: a partial run keeps the sets it finished
sets <- sets[intersect(c("promotergene", "balls", "sonar", "sine", "checkerboard"), names(sets))]
if (length(only)) sets <- sets[only]

costs <- 10^c(-1, 1, 3)
rc <- 10^c(-4, -2, 0)
ic <- 10^c(-5, -3, -1)
ny <- list(landmarks = "random", m = 40)
rows <- c(
  lapply(c("IC+", "IC-", "RC+", "RC-", "FK+", "FK-"), function(v) {
    list(label = sprintf("kqd %s", v), model = kqd, grid = list(reg = if (startsWith(v, "RC")) rc else ic),
         fixed = list(variant = v))
  }),
  list(
    list(label = "kqd RC+ (Nystroem)", model = kqd, grid = list(reg = rc), fixed = c(list(variant = "RC+"), ny)),
    list(label = "ikfd", model = ikfd, grid = list(ridge_relative = 10^c(-6, -4, -2))),
    list(label = "ikfd (Nystroem)", model = ikfd, grid = list(ridge_relative = 10^c(-6, -4, -2)), fixed = ny),
    list(label = "pcvm", model = pcvm, grid = list()),
    list(label = "pcvm (Nystroem)", model = pcvm, grid = list(), fixed = ny),
    list(label = "kmdc", model = kmdc, grid = list(reg = rc)),
    list(label = "iknn", model = iknn, grid = list(k = c(1, 3, 5, 7))),
    list(label = "isvm", model = isvm, grid = list(C = costs), fixed = list(probability = FALSE)),
    list(label = "isvm clip", model = isvm, grid = list(C = costs), fixed = list(probability = FALSE, spectrum = "clip")),
    list(label = "isvm flip", model = isvm, grid = list(C = costs), fixed = list(probability = FALSE, spectrum = "flip")),
    list(label = "isvm shift", model = isvm, grid = list(C = costs),
         fixed = list(probability = FALSE, spectrum = "shift")),
    list(label = "isvm square", model = isvm, grid = list(C = costs),
         fixed = list(probability = FALSE, spectrum = "square")),
    list(label = "krein_svm", model = krein_svm, grid = list(C = costs), fixed = list(probability = FALSE)),
    list(label = "krein_svm (Nystroem)", model = krein_svm, grid = list(C = costs),
         fixed = c(list(probability = FALSE), ny))
  )
)

row_order <- vapply(rows, `[[`, character(1), "label")
only_models <- strsplit(Sys.getenv("KREIN_BENCH_MODELS", ""), ",")[[1]]
if (length(only_models)) {
  unknown <- setdiff(only_models, row_order)
  if (length(unknown)) stop("unknown KREIN_BENCH_MODELS: ", paste(unknown, collapse = ", "))
  rows <- Filter(function(row) row$label %in% only_models, rows)
}

# the data of the rows `rows` of a set: a precomputed kernel (with the
# self-similarities the RC variants and iknn need) or the inputs
subset_data <- function(s, rows, columns = rows) {
  if (!is.null(s$x)) return(s$x[rows, , drop = FALSE])
  K <- if (inherits(s$K, "krein_precomputed")) s$K$K else s$K
  precomputed_kernel(K[rows, columns, drop = FALSE], self = diag(K)[rows])
}

# a run on some sets (or models) replaces their rows in a table written
# before and keeps the other rows, in the order of `sets` and `rows` above
keep_other_sets <- function(table, file) {
  if (!file.exists(file)) return(table)
  before <- utils::read.csv(file, stringsAsFactors = FALSE)
  key <- function(t) if (is.null(t$model)) t$data else paste(t$data, t$model)
  merged <- rbind(before[!key(before) %in% key(table), names(table)], table)
  order <- c("promotergene", "balls", "sonar", "sine", "checkerboard")
  within_set <- if (is.null(merged$model)) integer(nrow(merged)) else match(merged$model, row_order)
  merged[order(match(merged$data, order), within_set), , drop = FALSE]
}

results <- list()
summaries <- list()
for (set in names(sets)) {
  s <- sets[[set]]()
  K <- if (is.null(s$x)) s$K else kernel_matrix(s$kernel, scale(s$x))
  ind <- indefiniteness(if (inherits(K, "krein_precomputed")) K$K else K)
  summaries[[set]] <- data.frame(data = set, description = s$description, n = length(s$y),
                                 classes = nlevels(s$y), p = ind$signature[["p"]], q = ind$signature[["q"]],
                                 z = ind$signature[["z"]], r_neg = ind$r_neg)
  cat(sprintf("%s: n = %d, signature (p, q, z) = (%d, %d, %d), r_neg = %.3f\n", set, length(s$y),
              ind$signature[["p"]], ind$signature[["q"]], ind$signature[["z"]], ind$r_neg))
  # the outer folds: stratified, the same for every row
  set.seed(26)
  fold <- integer(length(s$y))
  for (level in levels(s$y)) {
    members <- which(s$y == level)
    fold[members] <- sample(rep_len(1:10, length(members)))
  }
  for (row in rows) {
    fixed <- c(row$fixed, if (!is.null(s$x)) list(kernel = s$kernel))
    grid <- c(row$grid, s$width)
    errors <- fit_times <- tune_times <- rep(NA_real_, 10)
    failed <- 0L
    for (k in 1:10) {
      train <- which(fold != k)
      test <- which(fold == k)
      set.seed(k)
      best <- list()
      tune_time <- 0
      if (length(grid)) {
        tuned <- NULL
        tune_time <- system.time(tuned <- tryCatch(suppressWarnings(do.call(tune_krein, c(
          list(row$model, subset_data(s, train), s$y[train], grid = grid, folds = 3, refit = FALSE),
          fixed))), error = function(e) NULL))[["elapsed"]]
        if (is.null(tuned)) {
          failed <- failed + 1L
          next
        }
        best <- as.list(tuned$best)
        best <- best[intersect(names(best), names(grid))]
      }
      kernel_args <- intersect(names(best), names(s$width))
      args <- fixed
      if (length(kernel_args)) {
        # the kernel rebuilt with the tuned width
        base <- s$kernel
        args$kernel <- if (inherits(base, "krein_kernel_invariant")) {
          kernel_invariant(do.call(kernel_dist, c(best[kernel_args], list(power = 4))))
        } else if (identical(names(s$width), "scale")) {
          kernel_tanh(scale = best$scale, offset = -1)
        } else {
          kernel_dist(s = best$s, power = 4)
        }
      }
      args <- c(args, best[setdiff(names(best), kernel_args)])
      set.seed(k)
      fit <- NULL
      fit_time <- system.time(fit <- tryCatch(suppressWarnings(do.call(
        row$model, c(list(subset_data(s, train), s$y[train]), args))), error = function(e) NULL))[["elapsed"]]
      if (is.null(fit)) {
        failed <- failed + 1L
        next
      }
      predicted <- predict(fit, subset_data(s, test, train))
      errors[k] <- mean(predicted != s$y[test])
      fit_times[k] <- fit_time
      tune_times[k] <- tune_time
    }
    results[[length(results) + 1L]] <- data.frame(
      data = set, model = row$label, error = mean(errors, na.rm = TRUE), sd = stats::sd(errors, na.rm = TRUE),
      fit_seconds = mean(fit_times, na.rm = TRUE), tune_seconds = mean(tune_times, na.rm = TRUE),
      failed_folds = failed)
    cat(sprintf("  %-22s error %.3f (sd %.3f)  fit %.3f s  tune %.1f s%s\n", row$label,
                mean(errors, na.rm = TRUE), stats::sd(errors, na.rm = TRUE), mean(fit_times, na.rm = TRUE),
                mean(tune_times, na.rm = TRUE), if (failed) sprintf("  (%d folds failed)", failed) else ""))
  }
  # the tables so far, after every data set
  table <- do.call(rbind, results)
  table[c("error", "sd")] <- lapply(table[c("error", "sd")], round, 4)
  table[c("fit_seconds", "tune_seconds")] <- lapply(table[c("fit_seconds", "tune_seconds")], signif, 3)
  data_sets <- do.call(rbind, summaries)
  data_sets$r_neg <- round(data_sets$r_neg, 4)
  dir.create("inst/extdata", showWarnings = FALSE, recursive = TRUE)
  utils::write.csv(keep_other_sets(table, "inst/extdata/remedies.csv"), "inst/extdata/remedies.csv",
                   row.names = FALSE)
  utils::write.csv(keep_other_sets(data_sets, "inst/extdata/remedies_sets.csv"), "inst/extdata/remedies_sets.csv",
                   row.names = FALSE)
}
print(data_sets, row.names = FALSE)
