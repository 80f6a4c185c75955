# Property over the registry: a model's default class is a
# deterministic function of the data and the arguments. Randomness inside a
# fit (isvm's Platt folds, kmdc's out-of-fold distances, a path's CV folds)
# may move probabilities, but the classes predicted with the default
# arguments must not change with the seed (e.g. isvm()'s class must not be
# the most probable one under its Platt probabilities, whose inner folds are
# random).

seed_fixtures <- function() {
  set.seed(21)
  two <- gaussian_mixture_2d(80)
  two_test <- gaussian_mixture_2d(400)
  three_rows <- c(1:25, 51:75, 101:125)
  list(
    two = list(x = as.matrix(two[, 1:2]), y = two$y, new = as.matrix(two_test[, 1:2])),
    three = list(x = as.matrix(iris[three_rows, 1:4]), y = iris$Species[three_rows],
                 new = as.matrix(iris[-three_rows, 1:4]))
  )
}

fit_with_seed <- function(name, data, seed) {
  set.seed(seed)
  fit <- suppressWarnings(get(name, envir = asNamespace("krein"))(data$x, data$y))
  list(fitted = fitted(fit), predicted = predict(fit, data$new))
}

test_that("every registered model predicts the same classes whatever the seed", {
  fixtures <- seed_fixtures()
  models <- registered_models()
  expect_true(all(c("isvm", "kqd", "kmdc", "ikfd", "pcvm", "onda") %in% models))
  for (name in models) {
    if (name %in% c("isvm", "krein_svm") && !requireNamespace("kernlab", quietly = TRUE)) next
    for (set in names(fixtures)) {
      a <- fit_with_seed(name, fixtures[[set]], 1)
      b <- fit_with_seed(name, fixtures[[set]], 2)
      info <- sprintf("%s on %s classes", name, set)
      expect_identical(a$predicted, b$predicted, info = info)
      expect_identical(a$fitted, b$fitted, info = info)
    }
  }
})

test_that("isvm's default class is kernlab's vote; the Platt posterior is one argument away", {
  skip_if_not_installed("kernlab")
  d <- seed_fixtures()$two
  set.seed(1)
  fit <- isvm(d$x, d$y)
  expect_identical(predict(fit, d$new), predict(fit, d$new, rule = "vote"))
  p <- predict(fit, d$new, type = "prob")
  expect_identical(predict(fit, d$new, rule = "posterior"),
                   factor(levels(d$y)[max.col(p, ties.method = "first")], levels = levels(d$y)),
                   ignore_attr = "names")
})
