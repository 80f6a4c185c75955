# tune_krein(): folds, reuse, reproducibility across future plans, caret.

test_that("folds are stratified and balanced", {
  set.seed(1)
  y <- factor(rep(c("a", "b", "c"), c(50, 30, 13)))
  ids <- krein:::draw_folds(y, 5, TRUE)
  counts <- table(ids, y)
  expect_true(all(apply(counts, 2, function(v) max(v) - min(v)) <= 1))
  expect_lte(max(table(ids)) - min(table(ids)), 1)
  set.seed(2)
  d <- checkerboard(60, size = 2)
  tuned <- tune_krein(iknn, d[, 1:2], d$y, grid = list(k = 1), folds = 4, repeats = 2, refit = FALSE)
  expect_equal(dim(tuned$fold_ids), c(60L, 2L))
  for (r in 1:2) {
    expect_true(all(apply(table(tuned$fold_ids[, r], d$y), 2, function(v) max(v) - min(v)) <= 1))
  }
})

test_that("the best grid point of a problem with a known optimum is found", {
  set.seed(3)
  d <- checkerboard(150, size = 3)
  # k = 1 follows the board; k = 100 of 120 points predicts the local majority of most of the board
  tuned <- tune_krein(iknn, d[, 1:2], d$y, grid = list(k = c(1, 100)), folds = 5, kernel = kernel_rbf(4))
  expect_equal(tuned$best$k, 1)
  # a Gaussian width matched to the squares, against widths that see nothing
  tuned <- tune_krein(kqd, d[, 1:2], d$y, grid = list(gamma = c(1e-4, 5, 1e5)), variant = "RC+", reg = 0.1,
                      folds = 5)
  expect_equal(tuned$best$gamma, 5)
  expect_s3_class(tuned$model, "kqd")
  expect_lt(tuned$best_value, 0.3)
})

test_that("the kqd regularisation path in the grid equals separate fits", {
  set.seed(4)
  d <- checkerboard(100, size = 2)
  regs <- c(1e-3, 1e-2, 0.1, 1)
  tuned <- tune_krein(kqd, d[, 1:2], d$y, grid = list(reg = regs), variant = "FK+", kernel = kernel_rbf(2),
                      folds = 4, refit = FALSE)
  ids <- tuned$fold_ids[, 1]
  for (i in seq_along(regs)) {
    errors <- vapply(1:4, function(f) {
      fit <- kqd(d[ids != f, 1:2], d$y[ids != f], kernel = kernel_rbf(2), variant = "FK+", reg = regs[i])
      mean(predict(fit, d[ids == f, 1:2]) != d$y[ids == f])
    }, numeric(1))
    got <- tuned$folds$value[tuned$folds$grid_row == i][order(tuned$folds$fold[tuned$folds$grid_row == i])]
    expect_equal(got, errors)
    expect_equal(tuned$results$mean[i], mean(errors))
  }
})

test_that("the same seed gives the same result, and the caller's random stream moves only by the draws", {
  set.seed(5)
  d <- checkerboard(80, size = 2)
  run <- function() {
    set.seed(11)
    tune_krein(kfda, d[, 1:2], d$y, grid = list(bases = c(10, 20)), reduce = "subset",
               kernel = kernel_rbf(2), folds = 4, metric = "brier", refit = FALSE)
  }
  a <- run()
  b <- run()
  expect_identical(a$results, b$results)
  expect_identical(a$fold_ids, b$fold_ids)
})

test_that("sequential and multisession plans give identical results", {
  skip_on_cran()
  skip_if_not_installed("future.apply")
  skip_if_not_installed("future")
  set.seed(6)
  d <- checkerboard(80, size = 2)
  run <- function() {
    set.seed(12)
    tune_krein(kfda, d[, 1:2], d$y, grid = list(bases = c(8, 16), gamma = c(1, 4)), reduce = "subset",
               folds = 4, metric = "logloss", refit = FALSE)
  }
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  sequential <- run()
  future::plan(future::multisession, workers = 2)
  parallel <- run()
  expect_identical(parallel$results, sequential$results)
  expect_identical(parallel$folds, sequential$folds)
})

test_that("failing fits count as missing, with a warning", {
  set.seed(7)
  d <- sine_populations(20)
  expect_warning(
    tuned <- tune_krein(kfda, d[, 1:2], d$y, grid = list(ncomp = c(3, 40)), type = "quadratic",
                        kernel = kernel_rbf(1), folds = 3, refit = FALSE),
    "fits failed")
  expect_equal(tuned$results$failed, c(0, 3))
  expect_equal(tuned$best$ncomp, 3)
})

test_that("print, summary and plot", {
  set.seed(8)
  d <- checkerboard(60, size = 2)
  tuned <- tune_krein(kqd, d[, 1:2], d$y, grid = list(gamma = c(0.5, 2, 8), reg = 10^(-2:0)), folds = 3)
  expect_output(expect_invisible(print(tuned)), "best: gamma")
  expect_output(print(summary(tuned)), "grid points by mean")
  pdf(NULL)
  on.exit(dev.off())
  expect_invisible(plot(tuned))
})

test_that("bad input gives a krein_error", {
  d <- checkerboard(30, size = 2)
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y, grid = list())))
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y, grid = data.frame(reg = numeric()))))
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y, grid = list(lambda = 1))))
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y, grid = list(reg = 1), folds = 1)))
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y, grid = list(reg = 1), folds = 31)))
  expect_snapshot(show_error(tune_krein(lm, d[, 1:2], d$y, grid = list(reg = 1))))
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y[-1], grid = list(reg = 1))))
  K <- kernel_matrix(kernel_rbf(1), d[, 1:2])
  expect_snapshot(show_error(tune_krein(kqd, precomputed_kernel(K), d$y, grid = list(gamma = 1))))
})

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
  # a grid data frame with factor columns, as expand.grid() makes them
  factor_grid <- tune_krein(kqd, d[, 1:2], d$y, grid = expand.grid(variant = c("RC+", "FK+"), reg = 0.1),
                            folds = 3, refit = FALSE)
  expect_identical(factor_grid$best$variant %in% c("RC+", "FK+"), TRUE)
})
