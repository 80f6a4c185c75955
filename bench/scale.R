# Defaults that scale (issue 62): every registered model with its default
# arguments -- and, where asked, its full and its Nystroem form -- on n
# training rows of two of the papers' generators, beside
# e1071::svm(probability = TRUE) in the same run: each fit + prediction of
# 1,000 new rows in a child process of its own, timed there, its peak
# resident memory read by /usr/bin/time -v (Linux), its test accuracy on
# the 1,000 rows. Prints one table per size and data set: model, form fitted
# (as print() reports it), seconds, ratio to the SVM's seconds, peak MB
# above R with krein loaded and the data made, accuracy, and accuracy minus
# the SVM's in points.
#
# Run alone on a quiet machine, from the checkout's root, after installing
# krein:
#   Rscript bench/scale.R
# KREIN_SCALE_SIZES   training rows, comma separated (default "6000,20000")
# KREIN_SCALE_DATA    "sine" (sine_populations(), 4 classes), "checkerboard"
#                     (2 classes), comma separated (default both);
#                     "diamonds" (ggplot2's, the cut from the seven
#                     measurements: 5 classes, at most 52,940 rows)
# KREIN_SCALE_FORMS   "default" (the model's defaults: the form it chooses),
#                     "full" (landmarks = NULL; kfda: reduce = "pca"),
#                     "nystrom" (the default's Nystroem form, as above the
#                     model's full-form limit), "random:M" / "kmeans:M" (M landmarks;
#                     kfda: M bases), "meb:EPS", comma separated (default
#                     "default")
# KREIN_SCALE_MODELS  models, comma separated (default every registered one)
# KREIN_SCALE_SVM_MAX the largest n at which the SVM is run (default 1e5;
#                     above it the SVM's time is extrapolated from the two
#                     largest sizes it ran at, as n^2, and marked so)
# KREIN_SCALE_LIMIT   seconds after which a child is stopped (default 3600)
# Needs e1071; /usr/bin/time for the memory column (else NA).
sizes <- as.numeric(strsplit(Sys.getenv("KREIN_SCALE_SIZES", "6000,20000"), ",")[[1]])
data_names <- strsplit(Sys.getenv("KREIN_SCALE_DATA", "sine,checkerboard"), ",")[[1]]
forms <- strsplit(Sys.getenv("KREIN_SCALE_FORMS", "default"), ",")[[1]]
svm_max <- as.numeric(Sys.getenv("KREIN_SCALE_SVM_MAX", "1e5"))
limit <- as.numeric(Sys.getenv("KREIN_SCALE_LIMIT", "3600"))
args <- commandArgs(trailingOnly = TRUE)

# ---- a child: one fit + prediction, its results written to a file ----
make_data <- function(name, n, seed) {
  if (name == "diamonds") return(diamonds_data(n, seed))
  set.seed(seed)
  d <- switch(name,
    sine = krein::sine_populations(ceiling(n / 4)),
    checkerboard = krein::checkerboard(n),
    stop("unknown data set ", name))
  d <- d[seq_len(n), , drop = FALSE]
  list(x = as.matrix(d[, c("x1", "x2")]), y = droplevels(d$y))
}

# ggplot2's diamonds (53,940 rows): the cut (five grades, Fair to Ideal,
# as an unordered factor) from the seven numeric measurements (carat,
# depth, table, price, x, y, z). A public data set of more than 50,000
# rows; its rows are shuffled once (seed 0), the training rows are the
# first n (seed 1) and the test rows the last 1,000 (seed 2), so the two
# never overlap (n at most 52,940).
diamonds_data <- function(n, seed) {
  if (!requireNamespace("ggplot2", quietly = TRUE)) stop("KREIN_SCALE_DATA=diamonds needs ggplot2")
  d <- as.data.frame(ggplot2::diamonds)
  set.seed(0)
  d <- d[sample.int(nrow(d)), , drop = FALSE]
  rows <- if (seed == 2) utils::tail(seq_len(nrow(d)), n) else seq_len(n)
  if (seed != 2 && n > nrow(d) - 1000) stop("diamonds has ", nrow(d) - 1000, " training rows at most")
  list(x = as.matrix(d[rows, c("carat", "depth", "table", "price", "x", "y", "z")]),
       y = factor(as.character(d$cut[rows]), levels = levels(d$cut)))
}

form_arguments <- function(model, form) {
  if (form %in% c("default", "nystrom")) return(list())
  if (form == "full") { full <- krein:::model_info(model)$forms$full; return(if (is.null(full)) list() else full) }
  # "random:300", "kmeans:300" (m landmarks) or "meb:0.001" (eps): a
  # Nystroem form with a given count, to measure accuracy against it
  parts <- strsplit(form, ":", fixed = TRUE)[[1]]
  method <- parts[1]
  value <- if (length(parts) > 1) as.numeric(parts[2])
  if (model == "kfda") return(c(list(reduce = "subset"), if (!is.null(value)) list(bases = value)))
  c(list(landmarks = method), if (!is.null(value)) (if (method == "meb") list(eps = value) else list(m = value)))
}

# the form a fit took, as print() gives it, without the reason
fitted_form <- function(fit) {
  if (is.null(fit$form)) return("on the features")
  sub(" -- .*", "", krein:::form_text(fit))
}

# the models with a Nystroem form (or kfda's subset)
has_nystrom <- function(model) !is.null(krein:::model_info(model)$forms)

if (length(args) && args[1] == "--child") {
  model <- args[2]
  form <- args[3]
  data_name <- args[4]
  n <- as.numeric(args[5])
  out <- args[6]
  suppressMessages(library(krein))
  train <- make_data(data_name, n, 1)
  test <- make_data(data_name, 1000, 2)
  gc()
  warnings <- character()
  started <- proc.time()[["elapsed"]]
  result <- withCallingHandlers(tryCatch({
    if (model == "svm") {
      fit <- e1071::svm(train$x, train$y, probability = TRUE)
      predicted <- stats::predict(fit, test$x, probability = TRUE)
      list(form = "libsvm", predicted = predicted)
    } else {
      # "nystrom": the default's own Nystroem form, as above its limit
      if (form == "nystrom") options(krein.full_max_rows = 0)
      fit <- do.call(model, c(list(train$x, train$y), form_arguments(model, form)))
      predicted <- stats::predict(fit, test$x)
      invisible(stats::predict(fit, test$x, type = "prob"))
      list(form = fitted_form(fit), predicted = predicted)
    }
  }, error = function(e) list(form = paste("ERROR:", conditionMessage(e)), predicted = NULL)),
  warning = function(w) {
    warnings <<- c(warnings, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  seconds <- proc.time()[["elapsed"]] - started
  accuracy <- if (is.null(result$predicted)) NA else mean(as.character(result$predicted) == as.character(test$y))
  saveRDS(list(form = result$form, seconds = seconds, accuracy = accuracy, warnings = unique(warnings)), out)
  quit(save = "no")
}

# ---- the parent: one child per cell ----
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
if (!length(script)) script <- file.path("bench", "scale.R")
timer <- if (file.exists("/usr/bin/time")) "/usr/bin/time" else NULL

run_child <- function(model, form, data_name, n) {
  out <- tempfile(fileext = ".rds")
  log <- tempfile()
  command <- c(file.path(R.home("bin"), "Rscript"), script, "--child", model, form, data_name, format(n, scientific = FALSE), out)
  if (!is.null(timer)) command <- c(timer, "-v", command)
  status <- system2("timeout", c(limit, shQuote(command)), stdout = log, stderr = log)
  text <- readLines(log, warn = FALSE)
  peak <- grep("Maximum resident set size", text, value = TRUE)
  peak_mb <- if (length(peak)) as.numeric(sub(".*: *", "", peak)) / 1024 else NA
  if (!file.exists(out)) {
    return(list(form = if (status == 124) sprintf("stopped after %g s", limit) else
      paste("failed:", paste(utils::tail(text[!grepl("^\t", text)], 2), collapse = " ")),
      seconds = NA, accuracy = NA, peak_mb = peak_mb, warnings = character()))
  }
  c(readRDS(out), list(peak_mb = peak_mb))
}

suppressMessages(library(krein))
models <- strsplit(Sys.getenv("KREIN_SCALE_MODELS", ""), ",")[[1]]
if (!length(models)) models <- krein_models()$model
cat(sprintf("krein %s; R %s; %d cores; BLAS %s\n", utils::packageVersion("krein"), getRversion(),
            parallel::detectCores(), sessionInfo()$BLAS))
# the baseline: R with krein loaded and the data made, fitting nothing
baseline <- run_child("svm", "default", data_names[1], 10)$peak_mb
svm_seconds <- list()
for (data_name in data_names) {
  for (n in sizes) {
    svm <- if (n <= svm_max) run_child("svm", "default", data_name, n) else {
      known <- svm_seconds[[data_name]]
      if (length(known) >= 1) {
        at <- as.numeric(names(known))
        last <- which.max(at)
        list(form = sprintf("libsvm, estimated (n^2 from n = %s)", format(at[last], big.mark = ",")),
             seconds = known[[last]] * (n / at[last])^2, accuracy = NA, peak_mb = NA)
      } else list(form = "not run", seconds = NA, accuracy = NA, peak_mb = NA)
    }
    if (n <= svm_max) svm_seconds[[data_name]][[format(n, scientific = FALSE)]] <- svm$seconds
    rows <- list(data.frame(model = "e1071::svm(probability = TRUE)", form = svm$form, seconds = svm$seconds,
                            ratio = 1, peak_mb = svm$peak_mb - baseline, accuracy = svm$accuracy, points = 0))
    notes <- character()
    for (model in models) {
      for (form in forms) {
        if (!form %in% c("default", "full") && !has_nystrom(model)) next
        r <- run_child(model, form, data_name, n)
        rows[[length(rows) + 1L]] <- data.frame(
          model = if (form == "default") model else sprintf("%s (%s)", model, form), form = r$form,
          seconds = r$seconds, ratio = r$seconds / svm$seconds, peak_mb = r$peak_mb - baseline,
          accuracy = r$accuracy, points = 100 * (r$accuracy - svm$accuracy))
        if (length(r$warnings)) notes <- c(notes, sprintf("%s / %s: %s", model, form, paste(r$warnings, collapse = " | ")))
      }
    }
    table <- do.call(rbind, rows)
    cat(sprintf("\n### %s, n = %s (test: 1,000 new rows)\n\n", data_name, format(n, big.mark = ",")))
    cat("| model | form | seconds | / svm | peak MB | accuracy | points vs svm |\n|---|---|---|---|---|---|---|\n")
    for (i in seq_len(nrow(table))) {
      t <- table[i, ]
      cat(sprintf("| %s | %s | %s | %s | %s | %s | %s |\n", t$model, t$form, format(round(t$seconds, 2)),
                  format(round(t$ratio, 2)), format(round(t$peak_mb)), format(round(t$accuracy, 3)),
                  format(round(t$points, 1))))
    }
    if (length(notes)) cat("\nWarnings:\n", paste0("  ", notes, "\n"), sep = "")
  }
}
