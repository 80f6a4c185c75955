# caret_model(): krein models as caret custom models, their parameters read
# from the registry (R/contract.R).

test_that("caret trains krein models through caret_model()", {
  skip_if_not_installed("caret")
  set.seed(9)
  d <- checkerboard(90, size = 2)
  d$y <- factor(paste0("class", d$y))  # caret wants levels that are R names
  tuned <- caret::train(d[, 1:2], d$y, method = caret_model("kqd"),
                        tuneGrid = expand.grid(variant = "RC+", reg = c(0.01, 0.1), gamma = c(1, 4)),
                        trControl = caret::trainControl(method = "cv", number = 3, classProbs = TRUE))
  expect_s3_class(tuned, "train")
  expect_true(all(c("variant", "reg", "gamma") %in% names(tuned$bestTune)))
  expect_s3_class(predict(tuned, d[1:5, 1:2]), "factor")
  p <- predict(tuned, d[1:5, 1:2], type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, 5), tolerance = 1e-8)
  expect_snapshot(show_error(caret_model("svm")))
})

test_that("every registered model's parameters come from the registry; `tune` picks them", {
  for (name in krein:::registered_models()) {
    info <- krein:::model_info(name)
    method <- caret_model(name)
    tuned <- names(krein:::caret_tuning_specs[[name]])
    expect_true(all(tuned %in% info$parameters$parameter), label = name)
    expected <- c(tuned, if (info$uses_kernel) "gamma")
    if (length(expected) == 0L) expected <- "parameter"
    expect_identical(method$parameters$parameter, expected, label = name)
    # every tunable argument can be asked for
    all_of_them <- caret_model(name, tune = info$parameters$parameter)
    expect_identical(all_of_them$parameters$parameter[seq_len(nrow(info$parameters))], info$parameters$parameter)
  }
  expect_setequal(names(krein:::caret_tuning_specs), krein:::registered_models())
  expect_snapshot(show_error(caret_model("kqd", tune = c("reg", "lambda"))))
  expect_identical(caret_model("kqd", tune = c("reg", "gamma"))$parameters$parameter, c("reg", "gamma"))
  expect_error(caret_model("kqd", tune = 1), class = "krein_error")
})

test_that("the default grids tune the width around the median heuristic and follow tuneLength", {
  # the width is never NA (caret would warn "missing values in resampled
  # performance measures"), and pcvm's grid follows tuneLength too
  x <- as.matrix(iris[, 1:4])
  gamma0 <- median_gamma(scale(x))  # scaled as the models' default scale = TRUE scales
  for (name in krein:::registered_models()) {
    info <- krein:::model_info(name)
    method <- caret_model(name)
    # a NULL spec: a numeric range from the registry's table
    tuned <- vapply(krein:::caret_tuning_specs[[name]], function(spec) is.null(spec) || length(spec$values(2L)) > 1L,
                    logical(1))
    for (len in 1:4) {
      grid <- method$grid(iris[, 1:4], iris$Species, len = len)
      expect_identical(names(grid), method$parameters$parameter, label = name)
      expect_false(anyNA(grid), label = paste(name, len))
      expect_identical(anyDuplicated(grid), 0L, label = paste(name, len))
      rows <- if (name == "onda") 1 + len else len^(sum(tuned) + info$uses_kernel)
      expect_identical(nrow(grid), as.integer(rows), label = paste(name, len))
      if (info$uses_kernel) {
        widths <- sort(unique(grid$gamma))
        # isvm's, krein_svm's and pcvm's default kernels take the width 1/p
        centre <- if (name %in% c("isvm", "krein_svm", "pcvm")) 1 / 4 else gamma0
        expect_equal(widths, if (len == 1) centre else centre * 2^seq(-5, 5, length.out = len), label = name)
      }
    }
  }
  expect_equal(caret_model("kqd")$grid(x, iris$Species, len = 3)$reg, rep(c(1e-5, 0.01, 10), 3))
  expect_equal(caret_model("pcvm")$grid(x, iris$Species, len = 3)$gamma, c(1 / 32, 1, 32) / 4)
  # at tuneLength 1, the models' defaults
  expect_identical(caret_model("ikfd")$grid(x, iris$Species, len = 1)$ridge_relative, 1e-4)
  # isvm's C = NULL (a cross-validation) has no single value: the middle of
  # its range
  expect_identical(caret_model("isvm")$grid(x, iris$Species, len = 1)$C, 10)
  expect_identical(caret_model("iknn")$grid(x, iris$Species, len = 1)$k, 1)
  # random search: tuneLength points drawn from the same ranges
  set.seed(3)
  random <- caret_model("kqd")$grid(x, iris$Species, len = 5, search = "random")
  expect_identical(nrow(random), 5L)
  expect_true(all(random$gamma >= gamma0 / 32 & random$gamma <= gamma0 * 32))
  expect_true(all(random$reg >= 1e-5 & random$reg <= 10))
  # (onda's linear posteriors take no ridge: their draws collapse to one row)
  onda_random <- caret_model("onda")$grid(x, iris$Species, len = 4, search = "random")
  expect_lte(nrow(onda_random), 4L)
  expect_false(anyNA(onda_random))
  expect_true(all(onda_random$ridge[onda_random$posterior == "linear"] == 0))
})

test_that("caret::train() with the default grid gives no warning for any model", {
  skip_if_not_installed("caret")
  skip_if_not_installed("kernlab")
  # without a time zone, caret's dependencies ask timedatectl, which warns in containers
  if (!nzchar(Sys.getenv("TZ"))) {
    Sys.setenv(TZ = "UTC")
    on.exit(Sys.unsetenv("TZ"), add = TRUE)
  }
  for (name in krein:::registered_models()) {
    # pcvm on the two-class Sonar data, where it converges; the others on iris
    d <- if (name == "pcvm") {
      skip_if_not_installed("mlbench")
      utils::data("Sonar", package = "mlbench", envir = environment())
      rows <- seq(1, nrow(Sonar), by = 2)
      list(x = Sonar[rows, 1:60], y = Sonar$Class[rows])
    } else {
      list(x = iris[, 1:4], y = iris$Species)
    }
    set.seed(4)
    # the one table of ranges puts pcvm's two widths at 1/32 and
    # 32 times the median heuristic, where it prunes every basis function and
    # says so: that warning is krein's own, about the fit, and expected
    train <- function() caret::train(d$x, d$y, method = caret_model(name), tuneLength = 2,
                                     trControl = caret::trainControl(method = "cv", number = 3))
    if (name == "pcvm") {
      expect_no_warning(tuned <- withCallingHandlers(train(), krein_warning = function(w) {
        if (grepl("pruned every basis function", conditionMessage(w))) invokeRestart("muffleWarning")
      }))
    } else {
      expect_no_warning(tuned <- train())
    }
    expect_false(anyNA(tuned$results$Accuracy), label = name)
    expect_gt(max(tuned$results$Accuracy), 0.6)
  }
})

test_that("a grid value of NA takes the model's default", {
  set.seed(10)
  d <- checkerboard(60, size = 2)
  method <- caret_model("kqd")
  fit <- method$fit(d[, 1:2], d$y, param = data.frame(variant = NA, reg = NA, gamma = NA))
  direct <- kqd(as.matrix(d[, 1:2]), d$y)
  expect_equal(predict(fit, d[1:5, 1:2], type = "prob"), predict(direct, d[1:5, 1:2], type = "prob"))
  # a kernel passed to train() is used; gamma is then ignored
  fit <- method$fit(d[, 1:2], d$y, param = data.frame(variant = "FK+", reg = 0.01, gamma = 3),
                    kernel = kernel_dist(s = 1))
  expect_identical(fit$spec$kernel$name, "dist")
  expect_identical(fit$variant, "FK+")
})

test_that("a tuneGrid value krein refuses is said in krein's words before any fit, not as caret's \"Stopping\"", {
  skip_if_not_installed("caret")
  set.seed(9)
  d <- checkerboard(60, size = 2)
  d$y <- factor(paste0("class", d$y))
  control <- caret::trainControl(method = "cv", number = 3)
  expect_error(caret::train(d[, 1:2], d$y, method = caret_model("kqd"),
                            tuneGrid = expand.grid(variant = "RC+", reg = c(-1, 0.1), gamma = 1), trControl = control),
               class = "krein_error", regexp = "`tuneGrid` column `reg` has an invalid value -1: `reg`")
  expect_error(caret::train(d[, 1:2], d$y, method = caret_model("kqd"),
                            tuneGrid = expand.grid(variant = c("RC+", "XY"), reg = 0.1, gamma = 1), trControl = control),
               class = "krein_error", regexp = "`tuneGrid` column `variant` has an invalid value \"XY\"")
  expect_error(caret::train(d[, 1:2], d$y, method = caret_model("ikfd"),
                            tuneGrid = expand.grid(ridge_relative = 1e-3, gamma = c(-2, 1)), trControl = control),
               class = "krein_error", regexp = "`tuneGrid` column `gamma` has an invalid value -2")
  # a one-row grid never reaches caret's loop hook: the fits fail inside
  # caret's try() and caret ends in "Stopping"; krein says why first, once
  expect_message(
    expect_error(suppressWarnings(caret::train(d[, 1:2], d$y, method = caret_model("kqd"),
                                               tuneGrid = data.frame(variant = "RC+", reg = -1, gamma = 1),
                                               trControl = control)), "Stopping"),
    "caret's resamples will fail: `tuneGrid` column `reg` has an invalid value -1", fixed = TRUE)
  # a valid grid trains normally
  tuned <- caret::train(d[, 1:2], d$y, method = caret_model("kqd"),
                        tuneGrid = expand.grid(variant = "RC+", reg = c(0.01, 0.1), gamma = 1), trControl = control)
  expect_s3_class(tuned, "train")
})
