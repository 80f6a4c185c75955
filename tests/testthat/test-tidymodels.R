# The "krein" engines of parsnip's discrim_quad() and discrim_linear()
# (R/tidymodels.R) and their dials parameters.

sonar_split <- function() {
  utils::data("Sonar", package = "mlbench", envir = environment())
  test_rows <- seq(1, nrow(Sonar), by = 7)
  list(train = Sonar[-test_rows, ], test = Sonar[test_rows, ])
}

test_that("krein_parsnip_fit() names a missing model, and one without an engine, in krein's words", {
  # parsnip's fit() always passes `krein_model`; called by hand without it,
  # the error is krein's, not R's "attempt to set an attribute on NULL"
  x <- iris[, 1:4]
  expect_error(krein_parsnip_fit(x, iris$Species), class = "krein_error", regexp = "`krein_model` is missing")
  expect_error(krein_parsnip_fit(x, iris$Species, "kmdc"), class = "krein_error",
               regexp = "\"kmdc\" has no parsnip engine; the engines fit \"ikfd\"")
  expect_error(krein_parsnip_fit(x, iris$Species, 3), class = "krein_error", regexp = "`krein_model` must be")
  expect_error(krein_parsnip_fit(x, iris$Species, "nonsense"), class = "krein_error",
               regexp = "not a registered krein model")
})

test_that("the engines are registered with parsnip", {
  skip_if_not_installed("parsnip")
  loadNamespace("parsnip")
  expect_true("krein" %in% parsnip::show_engines("discrim_quad")$engine)
  expect_true("krein" %in% parsnip::show_engines("discrim_linear")$engine)
  # registering again (krein loaded after parsnip, or reloaded) changes nothing
  before <- parsnip::get_model_env()$discrim_quad_args
  krein:::register_parsnip_engines()
  expect_identical(parsnip::get_model_env()$discrim_quad_args, before)
})

test_that("discrim_quad() with the krein engine is kqd(), in parsnip's formats", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("mlbench")
  d <- sonar_split()
  spec <- parsnip::set_engine(parsnip::discrim_quad(), "krein", penalty = 0.05, gamma = 0.02)
  fitted <- parsnip::fit(spec, Class ~ ., data = d$train)
  expect_s3_class(fitted$fit, "kqd")
  direct <- kqd(as.matrix(d$train[, 1:60]), d$train$Class, kernel = kernel_rbf(0.02), reg = 0.05)
  classes <- predict(fitted, d$test)
  expect_identical(names(classes), ".pred_class")
  expect_identical(classes$.pred_class, unname(predict(direct, as.matrix(d$test[, 1:60]))))
  probs <- predict(fitted, d$test, type = "prob")
  expect_identical(names(probs), c(".pred_M", ".pred_R"))
  expect_equal(as.matrix(probs), unname(predict(direct, as.matrix(d$test[, 1:60]), type = "prob")),
               ignore_attr = TRUE, tolerance = 1e-12)
  # other kqd arguments pass through the engine; gamma NULL is the median heuristic
  fk <- parsnip::fit(parsnip::set_engine(parsnip::discrim_quad(), "krein", variant = "FK+"), Class ~ ., data = d$train)
  expect_identical(fk$fit$variant, "FK+")
  expect_equal(fk$fit$spec$kernel$params$gamma, median_gamma(scale(as.matrix(d$train[, 1:60]))))
  # a kernel of the user's replaces the Gaussian one, but not together with gamma
  poly <- parsnip::fit(parsnip::set_engine(parsnip::discrim_quad(), "krein", kernel = kernel_poly(2)),
                       Class ~ ., data = d$train)
  expect_identical(poly$fit$spec$kernel$name, "poly")
  expect_error(parsnip::fit(parsnip::set_engine(parsnip::discrim_quad(), "krein", kernel = kernel_poly(2), gamma = 1),
                            Class ~ ., data = d$train), class = "krein_error")
})

test_that("discrim_linear() with the krein engine is ikfd(), penalty its ridge_relative", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("mlbench")
  d <- sonar_split()
  spec <- parsnip::set_engine(parsnip::discrim_linear(penalty = 1e-3), "krein", gamma = 0.01)
  fitted <- parsnip::fit(spec, Class ~ ., data = d$train)
  expect_s3_class(fitted$fit, "ikfd")
  direct <- ikfd(as.matrix(d$train[, 1:60]), d$train$Class, kernel = kernel_rbf(0.01), ridge_relative = 1e-3)
  expect_identical(predict(fitted, d$test)$.pred_class, unname(predict(direct, as.matrix(d$test[, 1:60]))))
  expect_equal(as.matrix(predict(fitted, d$test, type = "prob")),
               unname(predict(direct, as.matrix(d$test[, 1:60]), type = "prob")), ignore_attr = TRUE,
               tolerance = 1e-12)
})

test_that("the tunable arguments have dials parameters; the width is finalised by the median heuristic", {
  skip_if_not_installed("parsnip")
  skip_if_not_installed("dials")
  skip_if_not_installed("tune")
  spec <- parsnip::set_engine(parsnip::discrim_quad(), "krein", penalty = tune::tune(), gamma = tune::tune())
  params <- tune::extract_parameter_set_dials(spec)
  expect_setequal(params$id, c("penalty", "gamma"))
  expect_identical(params$object[[which(params$id == "penalty")]]$range, kqd_penalty()$range)
  linear <- parsnip::set_engine(parsnip::discrim_linear(penalty = tune::tune()), "krein", gamma = tune::tune())
  expect_setequal(tune::extract_parameter_set_dials(linear)$id, c("penalty", "gamma"))
  expect_identical(tune::extract_parameter_set_dials(linear)$object[[1]]$range, ikfd_penalty()$range)

  expect_true(dials::has_unknowns(rbf_gamma()))
  x <- iris[, 1:4]
  finalized <- dials::finalize(rbf_gamma(), x)
  center <- log10(median_gamma(scale(as.matrix(x))))
  expect_equal(unname(unlist(finalized$range)), center + c(-5, 5) * log10(2))
  expect_equal(unname(unlist(rbf_gamma(c(-2, 0))$range)), c(-2, 0))
  # factor predictors count as their indicator columns
  with_factor <- data.frame(x, group = factor(rep(c("a", "b"), 75)))
  expect_false(dials::has_unknowns(dials::finalize(rbf_gamma(), with_factor)))
})

test_that("a tuned workflow on Sonar: tune_grid, select_best, finalize_workflow, fit, predict", {
  for (package in c("parsnip", "workflows", "tune", "rsample", "yardstick", "dials", "mlbench")) {
    skip_if_not_installed(package)
  }
  utils::data("Sonar", package = "mlbench", envir = environment())
  spec <- parsnip::set_args(parsnip::set_engine(parsnip::discrim_quad(), "krein"),
                            penalty = tune::tune(), gamma = tune::tune())
  wf <- workflows::add_formula(workflows::add_model(workflows::workflow(), spec), Class ~ .)
  set.seed(1)
  folds <- rsample::vfold_cv(Sonar, v = 3, strata = Class)
  tuned <- tune::tune_grid(wf, resamples = folds, grid = 4,
                           metrics = yardstick::metric_set(yardstick::accuracy, yardstick::roc_auc))
  metrics <- tune::collect_metrics(tuned)
  expect_identical(nrow(metrics), 8L)
  expect_false(anyNA(metrics$mean))
  # the widths came from the median heuristic of the predictors: 1/32 to 32
  # times it, the registry's one range
  center <- median_gamma(scale(as.matrix(Sonar[, 1:60])))
  expect_true(all(metrics$gamma >= center / 32 * (1 - 1e-8) & metrics$gamma <= center * 32 * (1 + 1e-8)))
  expect_gt(max(metrics$mean[metrics$.metric == "accuracy"]), 0.7)
  best <- tune::select_best(tuned, metric = "accuracy")
  final <- parsnip::fit(tune::finalize_workflow(wf, best), data = Sonar)
  model <- workflows::extract_fit_engine(final)
  expect_equal(model$spec$kernel$params$gamma, best$gamma)
  expect_equal(unique(as.vector(model$reg)), best$penalty)
  predicted <- predict(final, Sonar[1:10, ])
  expect_s3_class(predicted$.pred_class, "factor")
  expect_identical(levels(predicted$.pred_class), levels(Sonar$Class))
})

test_that("the registry drives the engines: every model it maps to a parsnip model has one", {
  # the engines come from the registry, not from a hard-coded list of models
  skip_if_not_installed("parsnip")
  loadNamespace("parsnip")
  expect_setequal(krein:::parsnip_models(), c("kqd", "ikfd", "iknn", "isvm"))
  for (name in krein:::parsnip_models()) {
    expect_true("krein" %in% parsnip::show_engines(krein:::model_info(name)$parsnip$model)$engine, info = name)
  }
  x <- as.matrix(iris[, 1:4])
  # nearest_neighbor(): `neighbors` is iknn's k
  spec <- parsnip::set_engine(parsnip::nearest_neighbor(neighbors = 3, mode = "classification"), "krein",
                              gamma = 0.5)
  fitted <- parsnip::fit(spec, Species ~ ., data = iris)
  direct <- iknn(x, iris$Species, kernel = kernel_rbf(0.5), k = 3)
  expect_equal(fitted$fit$k, 3)
  expect_equal(as.matrix(predict(fitted, iris[1:20, ], type = "prob")), predict(direct, x[1:20, ], type = "prob"),
               ignore_attr = TRUE)
  # svm_rbf(): `cost` is isvm's C, `rbf_sigma` the Gaussian width
  skip_if_not_installed("kernlab")
  spec <- parsnip::set_engine(parsnip::svm_rbf(cost = 2, rbf_sigma = 0.5, mode = "classification"), "krein")
  set.seed(3)
  fitted <- parsnip::fit(spec, Species ~ ., data = iris)
  set.seed(3)
  direct <- isvm(x, iris$Species, kernel = kernel_rbf(0.5), C = 2)
  expect_equal(fitted$fit$C, 2)
  expect_identical(predict(fitted, iris[1:20, ])$.pred_class, unname(predict(direct, x[1:20, ])))
})
