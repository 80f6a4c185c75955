# The real-data check: every registered model, with its default
# arguments, on seven real data sets a new user would try first, through the
# formula interface where the data are a data frame (missing values dropped
# with na.action = na.omit, factor columns dummy-coded) and through
# edit-distance dissimilarities for the DNA sequences of promotergene. Each
# fit must end without an error, without a warning, and with a test accuracy
# above the majority class on a fixed 70/30 split. Fits listed in
# `known_failures` or `unowned_failures` (helper-bad-inputs.R) need only end
# without an error. The larger sets are subsampled so that the file stays
# fast; bench/real_data.R runs the same sets in full beside kernlab, e1071
# and MASS.

# A fixed 70/30 split of a data set: `train` and `test` rows
split_rows <- function(n, seed = 1) {
  set.seed(seed)
  train <- sort(sample.int(n, round(0.7 * n)))
  list(train = train, test = setdiff(seq_len(n), train))
}

# The data sets as lists of `data` (a data frame), `formula`, `na_action`, or
# for promotergene `D` (dissimilarities) and `y`.
real_data_sets <- function(max_rows = 200) {
  e <- new.env()
  utils::data("Sonar", "Ionosphere", "Glass", "BreastCancer", package = "mlbench", envir = e)
  utils::data("promotergene", "spam", package = "kernlab", envir = e)
  subsample <- function(d, seed = 1) {
    if (nrow(d) <= max_rows) return(d)
    set.seed(seed)
    d[sort(sample.int(nrow(d), max_rows)), ]
  }
  ionosphere <- e$Ionosphere
  # V2 is a factor with one level (constant): model.matrix() cannot code it
  ionosphere$V2 <- NULL
  breast <- e$BreastCancer
  breast$Id <- NULL
  set.seed(1)
  spam <- e$spam[sort(sample.int(nrow(e$spam), 500)), ]
  promoter <- e$promotergene
  dna <- apply(as.matrix(promoter[, -1]), 1, paste, collapse = "")
  list(
    Sonar = list(data = subsample(e$Sonar), formula = Class ~ .),
    Ionosphere = list(data = subsample(ionosphere), formula = Class ~ .),
    Glass = list(data = subsample(e$Glass), formula = Type ~ .),
    BreastCancer = list(data = subsample(breast), formula = Class ~ ., na_action = stats::na.omit),
    iris = list(data = datasets::iris, formula = Species ~ .),
    promotergene = list(D = utils::adist(dna), y = promoter$Class, data = promoter, formula = Class ~ .),
    spam = list(data = subsample(spam), formula = type ~ .)
  )
}

# Fits `model` with its defaults on the training rows and predicts the test
# rows. onda works on data only: on promotergene it gets the factor columns
# through the formula, every other model the edit-distance kernel.
fit_real_data <- function(model, set, args = list()) {
  fun <- getExportedValue("krein", model)
  if (!is.null(set$D) && model != "onda") {
    s <- split_rows(nrow(set$D))
    fit <- do.call(fun, c(list(kernel_from_dissimilarity(set$D[s$train, s$train]), set$y[s$train]), args))
    predicted <- predict(fit, set$D[s$test, s$train])
    return(list(predicted = predicted, truth = set$y[s$test], train = set$y[s$train]))
  }
  data <- set$data
  if (!is.null(set$na_action)) data <- stats::na.omit(data)
  s <- split_rows(nrow(data))
  args <- c(list(set$formula, data = data[s$train, ]), args)
  if (!is.null(set$na_action)) args$na.action <- set$na_action
  fit <- do.call(fun, args)
  response <- all.vars(set$formula)[1]
  list(predicted = predict(fit, data[s$test, ]), truth = data[s$test, response],
       train = data[s$train, response])
}

# Warnings a model documents as the expected answer to real data, by class
documented_real_data_warnings <- c("krein_singular_covariance_warning")

test_that("every model fits the real data sets with its defaults, without warnings, above the majority class", {
  skip_on_cran()
  skip_if_not_installed("mlbench")
  skip_if_not_installed("kernlab")
  sets <- real_data_sets()
  models <- krein_models()$model
  known <- character()
  skipped <- c(known_failures, unowned_failures)
  for (set_name in names(sets)) {
    for (model in models) {
      id <- sprintf("real/%s/%s", set_name, model)
      warnings <- character()
      result <- withCallingHandlers(
        tryCatch(fit_real_data(model, sets[[set_name]]), error = function(e) e),
        warning = function(w) {
          # documented numerical trouble that real data cause by design
          # (e.g. onda's ridge for a singular class covariance, see ?onda)
          # is recorded in the fit and allowed; any other warning is not
          if (!inherits(w, documented_real_data_warnings)) warnings <<- c(warnings, conditionMessage(w))
          invokeRestart("muffleWarning")
        },
        message = function(m) invokeRestart("muffleMessage")
      )
      failed <- inherits(result, "error")
      expect_false(failed, label = sprintf("[%s] error: %s", id, if (failed) conditionMessage(result) else ""))
      if (failed) next
      if (id %in% names(skipped)) {
        known <- c(known, id)
        next
      }
      expect_true(length(warnings) == 0L,
                  label = sprintf("[%s] warned: %s", id, paste(unique(warnings), collapse = " | ")))
      accuracy <- mean(as.character(result$predicted) == as.character(result$truth))
      majority <- names(which.max(table(result$train)))
      baseline <- mean(as.character(result$truth) == majority)
      expect_true(!is.na(accuracy) && accuracy > baseline,
                  label = sprintf("[%s] test accuracy %.3f above the majority class's %.3f", id, accuracy, baseline))
    }
  }
  if (length(known)) {
    skip(sprintf("warnings and accuracy not checked for known failures (known_failures, unowned_failures): %s",
                 paste(sprintf("%s (%s)", known, skipped[known]), collapse = "; ")))
  }
})
