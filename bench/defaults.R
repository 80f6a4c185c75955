# The cost of the defaults (issue 45): every model of the registry with its
# default arguments on the twelve real data sets of bench/real_data.R (one
# 70/30 split, KREIN_BENCH_SPLIT, default 1), for two builds of krein --
# "before", the defaults reference commit recorded in bench/README.md
# (installed once into a cache, as bench/compare_versions.R installs its
# reference), and "now", the checkout as it is -- each model beside
# e1071::svm(probability = TRUE), fitted and predicted on the same split in
# the same child process. Prints per model and set the test accuracy, the
# time of fit + predict and its ratio to the SVM's, then per model the median
# ratio over the sets, the worst set and the largest accuracy loss, against
# the issue's targets: median ratio <= 3, every set <= 8, accuracy within 1
# point of "before" or better.
#
# With --scale it also runs the workloads at scale, for "now" only (with
# --scale-before for both; KREIN_BENCH_SCALE="ny_ksvm_1e5,..." picks some),
# on all cores: the full PCVM at N = 5000 (checkerboard, kernel_rbf(5),
# scale = FALSE) against e1071::svm(probability = TRUE), and on 1e5 points
# Ny-KSVM (the issue's call: sine populations, scaled, tanh kernel, 200
# k-means landmarks), Ny-PCVM, Ny-iKFD and Ny-KQD (checkerboard,
# kernel_rbf(5), scale = FALSE, 300 k-means landmarks), each with its test
# error on fresh points (targets: PCVM within 3x the SVM, the Nystroem fits
# within 60 s).
#
# Run from the checkout's root (needs e1071, kernlab, mlbench, LiblineaR):
#   Rscript bench/defaults.R [--scale] [--scale-before] [--models isvm,kqd]
# KREIN_LIB_OLD / KREIN_LIB_NEW: libraries holding the two builds (instead of
# installing the reference commit and the checkout); KREIN_BENCH_THREADS:
# krein's threads (default 1 on the sets, as e1071 uses one; all cores at
# scale). Each timing is of one fit
# + predict; a cell under 2 s is run once untimed first (loading packages and
# R's JIT compilation happen once per session) and then repeated up to 1 s in
# all, the median taken; the SVM's likewise.
args <- commandArgs(trailingOnly = TRUE)
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
if (!length(script)) script <- file.path("bench", "defaults.R")
bench_dir <- dirname(script)

# ---- a child: one build (R_LIBS), one part, results saved to a file ----
# The time of `run()`: a first run of under 2 s only warms up (packages
# loaded, R's JIT compiling the code on its first call: once per session, not
# the model's cost), then runs are timed until 1 s in all (at most 20) and the
# median taken; a first run of 2 s or more is the time
median_time <- function(run) {
  started <- proc.time()[["elapsed"]]
  value <- run()
  first <- proc.time()[["elapsed"]] - started
  if (first >= 2) return(list(value = value, time = first))
  times <- numeric()
  repeat {
    started <- proc.time()[["elapsed"]]
    value <- run()
    times <- c(times, proc.time()[["elapsed"]] - started)
    if (sum(times) >= 1 || length(times) >= 20) break
  }
  list(value = value, time = stats::median(times))
}

svm_probability <- function(x, y, x_test) {
  fit <- e1071::svm(x, y, probability = TRUE)
  stats::predict(fit, x_test, probability = TRUE)
}

child_sets <- function(models) {
  source(file.path(bench_dir, "real_data_sets.R"), local = TRUE)
  twelve <- c(sets, held_out)
  seed <- as.integer(Sys.getenv("KREIN_BENCH_SPLIT", "1"))
  rows <- list()
  for (set_name in names(twelve)) {
    set <- twelve[[set_name]]
    s <- split_rows(nrow(set$data), seed)
    response <- all.vars(set$formula)[1]
    truth <- as.character(set$data[[response]][s$test])
    x <- design(set$formula, set$data)
    svm <- median_time(function() svm_probability(x[s$train, , drop = FALSE], set$data[[response]][s$train],
                                                  x[s$test, , drop = FALSE]))
    for (model in models) {
      fit_predict <- function() {
        if (!is.null(set$D) && model != "onda") {
          fit <- get(model, asNamespace("krein"))(krein::kernel_from_dissimilarity(set$D[s$train, s$train]),
                                                 set$data[[response]][s$train])
          stats::predict(fit, set$D[s$test, s$train])
        } else {
          fit <- get(model, asNamespace("krein"))(set$formula, data = set$data[s$train, ])
          stats::predict(fit, set$data[s$test, ])
        }
      }
      warned <- character()
      timed <- tryCatch(withCallingHandlers(median_time(fit_predict), warning = function(w) {
        warned <<- c(warned, conditionMessage(w))
        invokeRestart("muffleWarning")
      }), error = function(e) list(value = NULL, time = NA_real_, error = conditionMessage(e)))
      rows[[length(rows) + 1L]] <- data.frame(
        set = set_name, model = model,
        accuracy = if (is.null(timed$value)) NA_real_ else mean(as.character(timed$value) == truth),
        time = timed$time, svm_accuracy = mean(as.character(svm$value) == truth), svm_time = svm$time,
        note = paste(unique(c(timed$error, warned)), collapse = " | "), stringsAsFactors = FALSE)
      message(sprintf("%s / %s: %.2f s (svm %.3f s)", set_name, model, timed$time, svm$time))
    }
  }
  do.call(rbind, rows)
}

scale_workloads <- function() {
  board <- function(n, seed) {
    set.seed(seed)
    d <- krein::checkerboard(n)
    list(x = as.matrix(d[, c("x1", "x2")]), y = d$y)
  }
  sine <- function(n_per_class, seed) {
    set.seed(seed)
    d <- krein::sine_populations(n_per_class)
    list(x = as.matrix(d[, setdiff(names(d), "y")]), y = d$y)
  }
  # Nystroem fits on 1e5 points (the checkerboard unless `data` says
  # otherwise), default arguments but the kernel and the landmarks
  nystroem <- function(model, kernel, m, data = function() list(train = board(1e5, 2), test = board(20000, 1)),
                       scale = FALSE) list(
    data = data,
    fit = function(d) {
      set.seed(3)
      get(model, asNamespace("krein"))(d$train$x, d$train$y, kernel = kernel, scale = scale,
                                       landmarks = "kmeans", m = m)
    },
    target = "60 s")
  list(
    pcvm_5000 = list(
      data = function() list(train = board(5000, 2), test = board(10000, 1)),
      fit = function(d) krein::pcvm(d$train$x, d$train$y, kernel = krein::kernel_rbf(5), scale = FALSE),
      svm = function(d) e1071::svm(d$train$x, d$train$y, gamma = 5, scale = FALSE, probability = TRUE),
      target = "3x e1071::svm(probability = TRUE)"),
    # the issue's call: sine_populations(25000) (four classes of 25,000
    # points), inputs scaled (the default)
    ny_ksvm_1e5 = nystroem("krein_svm", krein::kernel_tanh(scale = 1, offset = -1), 200,
                           data = function() list(train = sine(25000, 2), test = sine(5000, 1)), scale = TRUE),
    ny_pcvm_1e5 = nystroem("pcvm", krein::kernel_rbf(5), 300),
    ny_ikfd_1e5 = nystroem("ikfd", krein::kernel_rbf(5), 300),
    ny_kqd_1e5 = nystroem("kqd", krein::kernel_rbf(5), 300)
  )
}

child_scale <- function(name) {
  workload <- scale_workloads()[[name]]
  d <- workload$data()
  warned <- character()
  time <- system.time(fit <- withCallingHandlers(workload$fit(d), warning = function(w) {
    warned <<- c(warned, conditionMessage(w))
    invokeRestart("muffleWarning")
  }))[["elapsed"]]
  row <- data.frame(workload = name, time = time, error = mean(stats::predict(fit, d$test$x) != d$test$y),
                    svm_time = NA_real_, svm_error = NA_real_, target = workload$target,
                    note = paste(unique(warned), collapse = " | "), stringsAsFactors = FALSE)
  # a fit with a regularisation path (kqd): the test error at each of its
  # values, the best of them being the best fixed setting the default's
  # choice is measured against
  row$path_errors <- if (NROW(fit$reg) > 1L) {
    paste(vapply(seq_len(nrow(fit$reg)), function(k) {
      sprintf("%.3g: %.4f", fit$reg[k, 1], mean(stats::predict(fit, d$test$x, reg = fit$reg[k, 1]) != d$test$y))
    }, character(1)), collapse = ", ")
  } else ""
  if (!is.null(workload$svm)) {
    svm_time <- system.time(svm <- workload$svm(d))[["elapsed"]]
    row$svm_time <- svm_time
    row$svm_error <- mean(stats::predict(svm, d$test$x) != d$test$y)
  }
  row
}

if (length(args) && args[1] == "--child") {
  suppressPackageStartupMessages(library(krein))
  part <- args[3]
  # one thread beside e1071's one on the sets; the machine's cores at scale,
  # as the issue's targets there are for a 2-core machine
  threads <- Sys.getenv("KREIN_BENCH_THREADS", if (part == "sets") "1" else "")
  options(krein.threads = if (nzchar(threads)) as.integer(threads) else parallel::detectCores())
  cat("FROM", find.package("krein"), "\n")
  result <- if (part == "sets") child_sets(strsplit(args[4], ",")[[1]]) else child_scale(part)
  saveRDS(result, args[2])
  quit(save = "no")
}

# ---- the driver ----
source(file.path(bench_dir, "build_libraries.R"))
for (p in c("e1071", "kernlab", "mlbench")) {
  if (!requireNamespace(p, quietly = TRUE)) stop("bench/defaults.R needs the ", p, " package")
}
option_value <- function(flag) {
  at <- match(flag, args)
  if (is.na(at)) NULL else args[at + 1L]
}
root <- dirname(normalizePath(bench_dir))
libraries <- c(before = Sys.getenv("KREIN_LIB_OLD"), now = Sys.getenv("KREIN_LIB_NEW"))
if (!nzchar(libraries[["before"]])) {
  libraries[["before"]] <- cached_commit_library(root, readme_commit(bench_dir, "Defaults reference commit"))
}
if (!nzchar(libraries[["now"]])) {
  libraries[["now"]] <- tempfile("krein-lib-now-")
  install_into(export_revision(root, NULL), libraries[["now"]])
}
models <- option_value("--models")
if (is.null(models)) {
  models <- local({
    old <- .libPaths()
    .libPaths(c(libraries[["now"]], old))
    on.exit(.libPaths(old))
    paste(krein::krein_models()$model, collapse = ",")
  })
}
rscript <- file.path(R.home("bin"), "Rscript")
scratch <- tempfile("krein-defaults-")
dir.create(scratch)
run_child <- function(version, part, extra = character()) {
  file <- file.path(scratch, sprintf("%s-%s.rds", part, version))
  out <- system2(rscript, c(shQuote(script), "--child", shQuote(file), part, extra), stdout = TRUE, stderr = TRUE,
                 env = paste0("R_LIBS=", libraries[[version]]))
  from <- sub("^FROM ", "", grep("^FROM ", out, value = TRUE))
  if (!file.exists(file) || length(from) != 1L ||
      !startsWith(normalizePath(trimws(from)), normalizePath(libraries[[version]]))) {
    stop(sprintf("%s (%s) failed or loaded krein from elsewhere:\n%s", part, version, paste(out, collapse = "\n")))
  }
  readRDS(file)
}
same_build <- identical(normalizePath(libraries[["before"]]), normalizePath(libraries[["now"]]))
cat(sprintf("before: %s\nnow: %s\nsplit %s; krein threads on the sets %s\n\n", libraries[["before"]], libraries[["now"]],
            Sys.getenv("KREIN_BENCH_SPLIT", "1"), Sys.getenv("KREIN_BENCH_THREADS", "1")))
results <- list(now = run_child("now", "sets", models))
results$before <- if (same_build) results$now else run_child("before", "sets", models)

both <- merge(results$before, results$now, by = c("set", "model"), suffixes = c("_before", "_now"), sort = FALSE)
both$ratio_before <- both$time_before / both$svm_time_before
both$ratio_now <- both$time_now / both$svm_time_now
cat("| model | set | accuracy before | now | svm | time before (s) | now (s) | svm (s) | ratio before | now |\n")
cat("|---|---|---|---|---|---|---|---|---|---|\n")
for (i in order(match(both$model, strsplit(models, ",")[[1]]))) {
  r <- both[i, ]
  cat(sprintf("| %s | %s | %.3f | %.3f | %.3f | %.2f | %.2f | %.3f | %.1f | %.1f |\n", r$model, r$set,
              r$accuracy_before, r$accuracy_now, r$svm_accuracy_now, r$time_before, r$time_now, r$svm_time_now,
              r$ratio_before, r$ratio_now))
}
cat("\nPer model, now against e1071::svm(probability = TRUE) (targets: median ratio <= 3, every set <= 8,",
    "accuracy at most 1 point below before):\n\n")
cat("| model | median ratio before | median ratio now | worst set now | largest accuracy loss (points) | met |\n")
cat("|---|---|---|---|---|---|\n")
for (model in strsplit(models, ",")[[1]]) {
  r <- both[both$model == model, ]
  worst <- which.max(r$ratio_now)
  loss <- max(100 * (r$accuracy_before - r$accuracy_now), na.rm = TRUE)
  met <- stats::median(r$ratio_now) <= 3 && max(r$ratio_now) <= 8 && loss <= 1 + 1e-9
  cat(sprintf("| %s | %.1f | %.1f | %.1f (%s) | %.1f | %s |\n", model, stats::median(r$ratio_before),
              stats::median(r$ratio_now), r$ratio_now[worst], r$set[worst], loss, if (met) "yes" else "**no**"))
}
notes <- both[nzchar(both$note_now), c("model", "set", "note_now")]
if (nrow(notes)) {
  cat("\nWarnings and errors (now):\n")
  cat(sprintf("  %s / %s: %s", notes$model, notes$set, notes$note_now), sep = "\n")
}

if ("--scale" %in% args || "--scale-before" %in% args) {
  versions <- if ("--scale-before" %in% args && !same_build) c("before", "now") else "now"
  cat("\nAt scale (one run each; test error on fresh points):\n\n")
  cat("| workload | build | time (s) | test error | svm time (s) | svm error | target |\n|---|---|---|---|---|---|---|\n")
  paths <- character()
  chosen <- strsplit(Sys.getenv("KREIN_BENCH_SCALE", paste(names(scale_workloads()), collapse = ",")), ",")[[1]]
  for (name in chosen) for (version in versions) {
    r <- run_child(version, name)
    cat(sprintf("| %s | %s | %.1f | %.4f | %s | %s | %s |\n", name, version, r$time, r$error,
                if (is.na(r$svm_time)) "-" else sprintf("%.1f", r$svm_time),
                if (is.na(r$svm_error)) "-" else sprintf("%.4f", r$svm_error), r$target))
    if (length(r$path_errors) && nzchar(r$path_errors)) paths <- c(paths, sprintf("  %s (%s): test error per path value: %s", name, version, r$path_errors))
  }
  if (length(paths)) cat("", paths, sep = "\n")
}
