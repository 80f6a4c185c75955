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

test_that("every registered model's parameters and default grid come from the registry", {
  for (name in krein:::registered_models()) {
    info <- krein:::model_info(name)
    method <- caret_model(name)
    expected <- c(info$parameters$parameter, if (info$uses_kernel) "gamma")
    if (length(expected) == 0L) expected <- "parameter"
    expect_identical(method$parameters$parameter, expected, label = name)
    grid <- method$grid()
    expect_identical(names(grid), expected, label = name)
    expect_gte(nrow(grid), 1L)
    # the default grids name only registered parameters
    defaults <- krein:::caret_default_values[[name]]
    expect_true(all(names(defaults) %in% info$parameters$parameter), label = name)
  }
  expect_true(all(names(krein:::caret_default_values) %in% krein:::registered_models()))
})

test_that("the default grids keep their values under the new argument names", {
  expect_identical(caret_model("kqd")$grid(),
                   data.frame(variant = "RC+", reg = c(0.01, 0.1, 1), gamma = NA_real_))
  expect_identical(caret_model("ikfd")$grid(), data.frame(ridge_relative = 10^c(-5, -4, -3), gamma = NA_real_))
  expect_identical(caret_model("ikpca_qd")$grid(),
                   data.frame(pvar = 0.8, shrinkage = c(0.01, 0.1), gamma = NA_real_))
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
