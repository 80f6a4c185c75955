# Do two builds of krein predict the same? Runs krein's test files against the
# installed krein and records what every predict() of a fitted model returns
# (keyed by test file, test name and call order), then compares two records.
# A refactor that must not change the numbers is checked by recording before
# and after it:
#   R_LIBS=<library with the old build> Rscript tools/record_predictions.R record old.rds
#   R_LIBS=<library with the new build> Rscript tools/record_predictions.R record new.rds
#   Rscript tools/record_predictions.R compare old.rds new.rds [tolerance]
# `record` takes test file names after the output file (default: every
# tests/testthat/test-*.R but the browser tests); `compare` prints the
# predictions that differ by more than `tolerance` (default 1e-10, relative to
# max(1, |value|)) and those present in only one record, and exits with
# status 1 if there are any. Run from the checkout's root; needs testthat.
arguments <- commandArgs(trailingOnly = TRUE)
usage <- "usage: record_predictions.R record <out.rds> [test files] | compare <a.rds> <b.rds> [tolerance]"
if (length(arguments) < 2) stop(usage, call. = FALSE)

record <- function(out, files) {
  suppressPackageStartupMessages({
    library(testthat)
    library(krein)
  })
  if (!length(files)) {
    files <- Sys.glob(file.path("tests", "testthat", "test-*.R"))
    files <- files[!grepl("browser", files)]
  }
  recorded <- new.env()
  state <- new.env()
  state$file <- ""
  state$count <- list()
  keep <- function(value) {
    # predictions, not the file name predict(output = ) returns
    if (is.character(value) && !is.matrix(value)) return(invisible())
    test <- tryCatch(testthat:::test_description(), error = function(e) "")
    prefix <- paste(state$file, if (is.null(test)) "" else test, sep = " :: ")
    index <- (state$count[[prefix]] %||% 0L) + 1L
    state$count[[prefix]] <- index
    assign(paste(prefix, index, sep = " :: "), value, envir = recorded)
  }
  `%||%` <- function(a, b) if (is.null(a)) b else a
  suppressMessages(trace("predict.krein_model", where = asNamespace("krein"), print = FALSE,
                         exit = bquote(.(keep)(returnValue()))))
  Sys.setenv(NOT_CRAN = "true")
  failed <- 0L
  for (file in files) {
    state$file <- basename(file)
    results <- as.data.frame(testthat::test_file(file, package = "krein", load_package = "installed",
                                                 reporter = "silent", stop_on_failure = FALSE))
    bad <- sum(results$failed > 0 | results$error)
    failed <- failed + bad
    cat(sprintf("%s: %d tests, %d failed\n", state$file, nrow(results), bad))
  }
  values <- as.list(recorded)
  saveRDS(values[order(names(values))], out)
  cat(length(values), "predictions recorded in", out, "\n")
  if (failed > 0L) cat(failed, "tests failed: their predictions may be missing from the record\n")
}

relative_difference <- function(a, b) {
  if (is.factor(a) || is.character(a) || is.logical(a)) {
    return(if (identical(as.character(a), as.character(b))) 0 else Inf)
  }
  if (is.data.frame(a)) a <- as.matrix(a)
  if (is.data.frame(b)) b <- as.matrix(b)
  if (!identical(dim(a), dim(b)) || length(a) != length(b)) return(Inf)
  if (is.list(a)) return(max(0, unlist(Map(relative_difference, a, b))))
  same_missing <- identical(is.na(a), is.na(b))
  if (!same_missing) return(Inf)
  a <- as.numeric(a)[!is.na(a)]
  b <- as.numeric(b)[!is.na(b)]
  if (!length(a)) return(0)
  max(abs(a - b) / pmax(1, abs(a)))
}

compare <- function(a_file, b_file, tolerance) {
  a <- readRDS(a_file)
  b <- readRDS(b_file)
  only_a <- setdiff(names(a), names(b))
  only_b <- setdiff(names(b), names(a))
  common <- intersect(names(a), names(b))
  differences <- vapply(common, function(k) relative_difference(a[[k]], b[[k]]), numeric(1))
  differing <- common[differences > tolerance]
  cat(sprintf("%d predictions in both, %d only in %s, %d only in %s; largest relative difference %.3g\n",
              length(common), length(only_a), a_file, length(only_b), b_file,
              if (length(differences)) max(differences) else 0))
  for (k in differing) cat(sprintf("differs (%.3g): %s\n", differences[[k]], k))
  for (k in only_a) cat("only in the first:", k, "\n")
  for (k in only_b) cat("only in the second:", k, "\n")
  if (length(differing) || length(only_a) || length(only_b)) quit(status = 1)
}

switch(arguments[1],
       record = record(arguments[2], arguments[-(1:2)]),
       compare = {
         if (length(arguments) < 3) stop(usage, call. = FALSE)
         compare(arguments[2], arguments[3], if (length(arguments) > 3) as.numeric(arguments[4]) else 1e-10)
       },
       stop(usage, call. = FALSE))
