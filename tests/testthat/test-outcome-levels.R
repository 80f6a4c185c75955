# An outcome level without training rows (a rare class left out of a split, a
# level no row of this data set has) is left out of the fit, with a message,
# and kept in the predictions: the class factor has the outcome's levels in
# their order, the probabilities a column for each (zero where the model never
# saw the class), as MASS::lda() and e1071::svm() keep it (nnet::multinom()
# drops it, with a warning). Then `predict(fit, test) == test$y` and
# yardstick's metrics work. Every registered model, every interface.

outcome_levels <- c("a", "none", "b", "c")

empty_level_data <- function(n = 60) {
  set.seed(21)
  y <- rep(c("a", "b", "c"), length.out = n)
  x <- matrix(rnorm(n * 2), n, 2, dimnames = list(NULL, c("x1", "x2"))) + 1.5 * match(y, c("a", "b", "c"))
  data.frame(x, y = factor(y, levels = outcome_levels))
}

empty_level_needs <- list(isvm = "kernlab")

# the fit's message names the empty level and says what krein does with it
fit_with_empty_level <- function(name, ...) {
  for (pkg in empty_level_needs[[name]]) skip_if_not_installed(pkg)
  fun <- get(name, envir = asNamespace("krein"))
  fit <- NULL
  expect_message(fit <- suppressWarnings(fun(...)),
                 "Level \"none\" of `y` has no training rows: the model is fitted on the other classes",
                 fixed = TRUE)
  fit
}

expect_outcome_predictions <- function(fit, test, label) {
  cls <- predict(fit, test)
  expect_identical(levels(cls), outcome_levels, label = paste(label, "class levels"))
  expect_length(cls, nrow(test))
  # compares with the outcome as a factor of the same levels
  expect_identical(cls == test$y, as.character(cls) == as.character(test$y), label = paste(label, "=="))
  p <- predict(fit, test, type = "prob")
  expect_identical(colnames(p), outcome_levels, label = paste(label, "prob columns"))
  expect_identical(unname(p[, "none"]), rep(0, nrow(test)), label = paste(label, "prob of the empty level"))
  expect_equal(unname(rowSums(p)), rep(1, nrow(test)), tolerance = 1e-10)
  # the class is still the most probable one where the model's rule is the posterior
  if (identical(krein:::default_class_rule(fit), "posterior")) {
    expect_identical(as.character(cls), outcome_levels[max.col(p, ties.method = "first")],
                     label = paste(label, "class against prob"))
  }
  # decision values stay one column per fitted class
  expect_identical(ncol(predict(fit, test, type = "decision")), 3L, label = paste(label, "decision columns"))
  expect_identical(levels(fitted(fit)), outcome_levels, label = paste(label, "fitted levels"))
  expect_identical(colnames(predict(fit, type = "prob")), outcome_levels, label = paste(label, "training prob"))
  invisible(list(class = cls, prob = p))
}

for (name in krein:::registered_models()) {
  test_that(sprintf("%s: an empty outcome level is kept in predictions, formula and x/y alike", name), {
    d <- empty_level_data()
    test <- empty_level_data(21)
    fit <- fit_with_empty_level(name, y ~ ., data = d)
    expect_identical(fit$levels, c("a", "b", "c"))
    expect_identical(fit$outcome_levels, outcome_levels)
    formula_predictions <- expect_outcome_predictions(fit, test, paste(name, "formula"))
    # rows with missing values stay NA rows of the full width
    holes <- test
    holes$x1[2] <- NA
    p <- predict(fit, holes, type = "prob")
    expect_identical(dim(p), c(21L, 4L))
    expect_true(all(is.na(p[2, ])))
    expect_identical(unname(p[-2, "none"]), rep(0, 20))
    # 0 rows: the same columns
    expect_identical(colnames(predict(fit, test[0, ], type = "prob")), outcome_levels)
    expect_identical(levels(predict(fit, test[0, ])), outcome_levels)
    # newdata in chunks: the same levels, chunk by chunk and together
    chunks <- krein_chunks(list(test[1:10, 1:2], test[11:21, 1:2]))
    expect_identical(predict(fit, chunks), unname(formula_predictions$class))
    expect_equal(predict(fit, chunks, type = "prob"), unname(formula_predictions$prob), ignore_attr = "dimnames")
    expect_identical(colnames(predict(fit, chunks, type = "prob")), outcome_levels)

    matrix_fit <- fit_with_empty_level(name, as.matrix(d[, 1:2]), d$y)
    expect_outcome_predictions(matrix_fit, test[, 1:2], paste(name, "x/y"))
  })
}

test_that("a fit over chunks keeps an empty outcome level too", {
  d <- empty_level_data(90)
  chunks <- krein_chunks(split(d, rep(1:3, each = 30)), y = "y")
  points <- as.matrix(d[c(1, 20, 40, 60, 80), 1:2])
  fit <- fit_with_empty_level("kqd", chunks, kernel = kernel_rbf(0.5), landmarks = points)
  expect_outcome_predictions(fit, empty_level_data(21), "kqd over chunks")
})

test_that("yardstick's metrics take the predictions of every model fitted with an empty outcome level", {
  skip_if_not_installed("yardstick")
  d <- empty_level_data()
  test <- empty_level_data(21)
  for (name in krein:::registered_models()) {
    if (name %in% names(empty_level_needs) && !requireNamespace(empty_level_needs[[name]], quietly = TRUE)) next
    fit <- fit_with_empty_level(name, y ~ ., data = d)
    p <- predict(fit, test, type = "prob")
    results <- data.frame(truth = test$y, estimate = predict(fit, test), p)
    accuracy <- yardstick::accuracy(results, truth, estimate)$.estimate
    expect_equal(accuracy, mean(as.character(results$estimate) == as.character(test$y)), label = name)
    # one probability column per level of the truth, as yardstick requires;
    # it clips probabilities away from 0: the log loss of the columns as
    # they are, clipped as yardstick clips them (at machine epsilon)
    log_loss <- yardstick::mn_log_loss(results, truth, a, none, b, c)$.estimate
    truth_column <- cbind(seq_len(nrow(test)), match(as.character(test$y), outcome_levels))
    clipped <- pmin(pmax(p[truth_column], .Machine$double.eps), 1 - .Machine$double.eps)
    expect_equal(log_loss, -mean(log(clipped)), tolerance = 1e-8, label = paste(name, "log loss"))
  }
})

test_that("caret's model functions and parsnip's engines keep an empty outcome level", {
  d <- empty_level_data()
  test <- empty_level_data(21)
  x <- as.matrix(d[, 1:2])
  if (requireNamespace("caret", quietly = TRUE)) {
    for (name in krein:::registered_models()) {
      if (name %in% names(empty_level_needs) && !requireNamespace(empty_level_needs[[name]], quietly = TRUE)) next
      method <- caret_model(name)
      param <- method$grid(x, d$y, len = 1)[1, , drop = FALSE]
      fit <- suppressMessages(suppressWarnings(
        method$fit(x, d$y, NULL, param, levels(d$y), TRUE, NULL, TRUE)))
      expect_identical(method$levels(fit), outcome_levels, label = paste(name, "caret levels"))
      expect_identical(names(method$prob(fit, test[, 1:2])), outcome_levels, label = paste(name, "caret prob"))
    }
  }
  skip_if_not_installed("parsnip")
  for (name in krein:::registered_models()) {
    engine <- krein:::model_info(name)$parsnip
    if (is.null(engine)) next
    if (name %in% names(empty_level_needs) && !requireNamespace(empty_level_needs[[name]], quietly = TRUE)) next
    spec <- parsnip::set_mode(parsnip::set_engine(getExportedValue("parsnip", engine$model)(), "krein"),
                              "classification")
    fitted <- suppressMessages(suppressWarnings(parsnip::fit(spec, y ~ ., data = d)))
    classes <- predict(fitted, test)$.pred_class
    expect_identical(levels(classes), outcome_levels, label = paste(name, "parsnip levels"))
    expect_identical(names(predict(fitted, test, type = "prob")), paste0(".pred_", outcome_levels),
                     label = paste(name, "parsnip prob"))
  }
})

test_that("onda() takes a posterior model that keeps an empty outcome level", {
  d <- empty_level_data()
  posterior <- fit_with_empty_level("kqd", y ~ ., data = d)
  fit <- fit_with_empty_level("onda", y ~ ., data = d, posterior = posterior)
  expect_outcome_predictions(fit, empty_level_data(21), "onda with a kqd posterior")
})
