# Shared helpers of the reproduction scripts in this folder. Each script
# sources this file from its own folder (so `Rscript paperXXX.R`,
# `Rscript inst/reproduce/paperXXX.R` and
# `source(system.file("reproduce", "paperXXX.R", package = "krein"))` all
# work). Nothing here changes a script's protocol: the helpers are the code
# the scripts used to repeat, with their random number draws in the same order.

suppressPackageStartupMessages(library(krein))

# ---- environment and parallel plan ------------------------------------------

# An environment variable as a positive whole number; `default` when unset.
env_int <- function(name, default) {
  v <- Sys.getenv(name, "")
  if (!nzchar(v)) return(default)
  out <- suppressWarnings(as.integer(v))
  if (is.na(out) || out < 1L) stop(sprintf("%s must be a positive whole number, not '%s'.", name, v))
  out
}

# KREIN_WORKERS > 1: the folds of tune_krein() run on that many local
# processes; `threads` is krein's thread count for the fits.
use_workers <- function(workers, threads = 1L) {
  if (workers > 1 && requireNamespace("future", quietly = TRUE)) {
    future::plan(future::multisession, workers = workers)
  }
  options(krein.threads = threads)
}

# The rows named in KREIN_CLASSIFIERS (comma separated), in the script's order.
select_classifiers <- function(classifiers) {
  only <- Sys.getenv("KREIN_CLASSIFIERS", "")
  if (!nzchar(only)) return(classifiers)
  classifiers[intersect(names(classifiers), strsplit(only, ",")[[1]])]
}

# Print the markdown lines and write them to the KREIN_RESULTS file, if any.
emit_results <- function(lines, results_file, blank_first = FALSE) {
  if (blank_first) cat("\n", paste(lines, collapse = "\n"), "\n", sep = "") else cat(lines, sep = "\n")
  if (nzchar(results_file)) writeLines(lines, results_file)
}

log_grid <- function(from, to, n = 8L) 10^seq(log10(from), log10(to), length.out = n)

# ---- cross-validation ---------------------------------------------------------

# tune_krein() over `grid` with the fixed arguments `fixed`, then the classes
# the refitted model predicts for `newdata`. A fixed class rule (iKFD's
# rule = "decision") is a predict argument: it applies to the test
# predictions as it did in the CV. Warnings go to `on_warning` and are muffled.
# `scale = FALSE`: the papers fit their data as given (paper001 Table 3
# standardises, which its script does itself), while krein's models would
# centre and scale the columns by default.
tune_predict <- function(learner, x, y, newdata, grid, fixed = list(), folds = 10,
                         on_warning = function(w) NULL) {
  if (is.null(fixed$scale)) fixed$scale <- FALSE
  tuned <- withCallingHandlers(
    do.call(tune_krein, c(list(learner, x, y, grid = grid, folds = folds), fixed)),
    warning = function(w) {
      on_warning(w)
      invokeRestart("muffleWarning")
    })
  rule <- fixed[names(fixed) == "rule"]
  list(tuned = tuned, predicted = do.call(predict, c(list(tuned$model, newdata), rule)))
}

# Stratified fold ids dealt like tune_krein()'s: each class's points in random
# order, the fold labels dealt round robin from a random permutation.
stratified_ids <- function(y, folds) {
  ids <- integer(length(y))
  order <- unlist(lapply(split(seq_along(y), y), function(i) i[sample.int(length(i))]), use.names = FALSE)
  ids[order] <- rep_len(sample.int(folds), length(y))
  ids
}

# An SVM outside krein (e1071::svm(), see paper001_table1.R) cross-validated
# like tune_krein(): stratified folds, lowest mean error, ties to the first
# row of `grid` (a data frame); `fit_one(x, y, row)` fits one grid row. The
# best row is refitted on all of `x` and predicts `x_test`.
svm_cv <- function(x, y, x_test, grid, fit_one, folds = 10L) {
  ids <- stratified_ids(y, folds)
  cv <- vapply(seq_len(nrow(grid)), function(g) {
    mean(vapply(seq_len(folds), function(f) {
      tr <- ids != f
      fit <- fit_one(x[tr, , drop = FALSE], y[tr], grid[g, , drop = FALSE])
      mean(predict(fit, x[!tr, , drop = FALSE]) != y[!tr])
    }, numeric(1)))
  }, numeric(1))
  best <- grid[which.min(cv), , drop = FALSE]
  list(predicted = predict(fit_one(x, y, best), x_test), best = best)
}

# ---- paper 001: the kernel Mahalanobis distance classifiers ------------------

# Paper 001's rows (Tables 1 and 3): name -> fitting function (NULL: the SVM,
# by svm_cv()), fixed arguments, and the model grid as a function of the
# class size n_j (RC's alpha = n_j sigma^2, krein's reg = sigma^2 = alpha / n_j).
# IC is krein's kqd variant "IC-", RC the variant "RC+"; KFD's class is
# DisTools' rule (rule = "decision", also in the CV).
mahalanobis_classifiers <- function(alpha_ic, alpha_rc, kfd_ridge, svm_cost, knn_k) {
  ic <- function(nj) list(reg = alpha_ic)
  rc <- function(nj) list(reg = alpha_rc / nj)
  classifiers <- list(
    "KQD-IC" = list(kqd, list(variant = "IC-"), ic),
    "FD-IC" = list(kmdc, list(distance = "IC", classifier = "lda"), ic),
    "QD-IC" = list(kmdc, list(distance = "IC", classifier = "qda"), ic),
    "KQD-RC" = list(kqd, list(variant = "RC+"), rc),
    "FD-RC" = list(kmdc, list(distance = "RC", classifier = "lda"), rc),
    "QD-RC" = list(kmdc, list(distance = "RC", classifier = "qda"), rc),
    "KFD" = list(ikfd, list(rule = "decision"), function(nj) list(ridge_relative = kfd_ridge)),
    "SVM" = list(NULL, list(), function(nj) list(C = svm_cost)),
    "KNN" = list(iknn, list(), function(nj) list(k = knn_k))
  )
  if (!requireNamespace("e1071", quietly = TRUE)) {
    message("e1071 is not installed: the SVM row is left out.")
    classifiers$SVM <- NULL
  }
  classifiers
}

# "12.3 (4.5)", or "12.3" without an sd.
mean_sd_text <- function(m, s) if (is.na(s)) sprintf("%.1f", m) else sprintf("%.1f (%.1f)", m, s)

repetitions_line <- function(reps) {
  sprintf("krein: mean (sd) over %d repetition%s%s; paper: mean (sd) over 10 repetitions.",
          reps, if (reps > 1) "s" else "", if (reps < 10) " (REDUCED: the paper uses 10)" else "")
}

# The closing lines: seconds per classifier (summed over `res$seconds`) and
# the wall time.
timing_lines <- function(res, wall_minutes, workers, label = "Time per classifier (s): ") {
  secs <- aggregate(seconds ~ classifier, data = res, FUN = sum)
  c(paste0(label, paste(sprintf("%s %.0f", secs$classifier, secs$seconds), collapse = ", "), "."),
    sprintf("Total wall time: %.1f min (%d worker%s).", wall_minutes, max(workers, 1L),
            if (workers > 1) "s" else ""))
}

# ---- paper 000: a scan of kernel widths (Tables IV and V) ---------------------

# The paper's table as c(mean, sd, mean, sd, ...) rows -> list(mean, sd), the
# rows of `classifiers` only, columns named `columns`.
paper_mean_sd <- function(paper, columns, classifiers) {
  out <- list(mean = paper[, c(TRUE, FALSE), drop = FALSE], sd = paper[, c(FALSE, TRUE), drop = FALSE])
  lapply(out, function(m) {
    dimnames(m) <- list(rownames(paper), columns)
    m[names(classifiers), , drop = FALSE]
  })
}

# Storage for all drawings: test errors (classifier x width column x drawing),
# the width chosen by CV, failed fits and tune_krein()'s warnings.
new_width_record <- function(classifiers, columns, reps) {
  list(errors = array(NA_real_, c(length(classifiers), length(columns), reps),
                      list(names(classifiers), columns, NULL)),
       chosen = matrix(NA_real_, length(classifiers), reps, dimnames = list(names(classifiers), NULL)),
       failures = character(), warnings = character())
}

# One drawing r: every classifier (function, fixed arguments, regularisation
# grid) tuned by CV on `train` at each width s (`width_grid(s)` gives the
# kernel parameter's grid entry), the refitted model's test error (%) on
# `test`. Classifier i's folds are drawn after set.seed(seeds[i]), so every s
# sees the same folds and the joint CV optimum of s and the regularisation is
# the s whose own best CV error is lowest (ties: the smallest s); that is the
# "CV s" column. Failed tunings are recorded, not raised.
scan_widths <- function(record, r, classifiers, widths, width_grid, kernel, train, test, seeds, folds) {
  x <- train[, 1:2]
  for (i in seq_along(classifiers)) {
    name <- names(classifiers)[i]
    spec <- classifiers[[i]]
    cv_error <- rep(NA_real_, length(widths))
    for (j in seq_along(widths)) {
      out <- tryCatch({
        set.seed(seeds[i])
        tune_predict(spec[[1]], x, train$y, test[, 1:2], grid = c(width_grid(widths[j]), spec[[3]]),
                     fixed = c(list(kernel = kernel), spec[[2]]), folds = folds,
                     on_warning = function(w) record$warnings <<- c(record$warnings, conditionMessage(w)))
      }, error = function(e) e)
      if (inherits(out, "error")) {
        record$failures <- c(record$failures, sprintf("drawing %d, %s, s = %g: %s", r, name, widths[j],
                                                      conditionMessage(out)))
      } else {
        record$errors[name, j, r] <- 100 * mean(out$predicted != test$y)
        cv_error[j] <- out$tuned$best_value
      }
    }
    if (!all(is.na(cv_error))) {
      j <- which.min(cv_error)
      record$errors[name, "CV s", r] <- record$errors[name, j, r]
      record$chosen[name, r] <- widths[j]
    }
  }
  record
}

# "12.3 (4.5)", "12.3" without an sd, "--" without a mean.
cell_text <- function(m, s) ifelse(is.na(m), "--", ifelse(is.na(s), sprintf("%.1f", m), sprintf("%.1f (%.1f)", m, s)))

# The error table: mean (sd) over the drawings, each cell "krein / paper";
# `*` marks a krein mean more than two paper standard deviations (at least
# 0.5) from the paper's.
width_table_lines <- function(record, paper) {
  errors <- record$errors
  columns <- colnames(paper$mean)
  krein_mean <- apply(errors, 1:2, mean, na.rm = TRUE)
  krein_sd <- apply(errors, 1:2, function(v) if (sum(!is.na(v)) > 1) stats::sd(v, na.rm = TRUE) else NA_real_)
  far <- abs(krein_mean - paper$mean) > 2 * pmax(paper$sd, 0.5)
  rows <- vapply(rownames(errors), function(name) {
    cells <- vapply(columns, function(cl) {
      sprintf("%s / %s%s", cell_text(krein_mean[name, cl], krein_sd[name, cl]),
              cell_text(paper$mean[name, cl], paper$sd[name, cl]), if (isTRUE(far[name, cl])) " *" else "")
    }, character(1))
    paste0("| ", name, " | ", paste(cells, collapse = " | "), " |")
  }, character(1))
  c(paste0("| classifier | ", paste(columns, collapse = " | "), " |"),
    paste0("|---|", paste(rep("---", length(columns)), collapse = "|"), "|"),
    unname(rows))
}

# After the table: the widths chosen by CV, tune_krein()'s warnings, failed
# fits and the wall time.
width_footer_lines <- function(record, widths, elapsed, workers) {
  lines <- c("", "s chosen by cross-validation (CV s column), over the drawings:", "")
  for (name in rownames(record$chosen)) {
    tab <- table(factor(record$chosen[name, ], levels = widths))
    lines <- c(lines, sprintf("- %s: %s", name, paste(sprintf("s=%s: %d", names(tab), as.integer(tab))[tab > 0],
                                                      collapse = ", ")))
  }
  if (length(record$warnings)) {
    tab <- sort(table(sub(":.*", "", record$warnings)), decreasing = TRUE)
    lines <- c(lines, "", sprintf("Warnings of tune_krein() (%d): %s", length(record$warnings),
                                  paste(sprintf("%s (%d)", names(tab), as.integer(tab)), collapse = "; ")))
  }
  if (length(record$failures)) {
    lines <- c(lines, "", sprintf("Failed fits (%d):", length(record$failures)), "",
               paste("-", utils::head(record$failures, 20)))
  }
  c(lines, "", wall_time_line(elapsed, workers))
}

wall_time_line <- function(elapsed, workers) {
  sprintf("Wall time: %.1f minutes (%s, %d worker%s, R %s, krein %s).", elapsed, format(Sys.Date()), workers,
          if (workers == 1) "" else "s", getRversion(), utils::packageVersion("krein"))
}
