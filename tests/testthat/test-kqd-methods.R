# print / summary / plot, the bias options and the class-size rules of kqd();
# the numerical checks against paper 000 Table II are in test-kqd.R.

set.seed(11)
board <- checkerboard(60, size = 2)

test_that("print and summary describe the fit and return invisibly", {
  fit <- kqd(y ~ x1 + x2, data = board, kernel = kernel_rbf(1), variant = "IC-",
             reg = c(1e-3, 1e-2))
  expect_snapshot(print(fit))
  s <- summary(fit)
  expect_s3_class(s, "summary.krein_model")
  path <- s$model[[2]]
  expect_equal(nrow(path), 2L)
  expect_equal(path$training_error, fit$path_error)
  expect_output(expect_invisible(print(s)), "Regularisation path")
  expect_output(expect_invisible(print(fit)), "alpha path of 2 values")
})

test_that("plot draws decision regions for 2-D data and distances otherwise", {
  path <- tempfile(fileext = ".pdf")
  grDevices::pdf(path)
  on.exit(grDevices::dev.off())
  fit <- kqd(y ~ x1 + x2, data = board, kernel = kernel_rbf(1))
  expect_invisible(plot(fit, resolution = 30))
  three_d <- data.frame(board, x3 = rnorm(60))
  fit3 <- kqd(y ~ x1 + x2 + x3, data = three_d, kernel = kernel_rbf(1))
  expect_invisible(plot(fit3))
  K <- kernel_matrix(kernel_rbf(1), board[, 1:2])
  expect_invisible(plot(kqd(K, board$y, kernel = "precomputed", variant = "IC+")))
})

test_that("predictions without newdata (stored at fit) equal those recomputed from the data", {
  # the fit keeps the training distances it computed for the bias search; a
  # second path recomputes them from the kernel of the training data
  for (variant in c("FK+", "RC+", "IC-")) {
    fit <- kqd(y ~ x1 + x2, data = board, kernel = kernel_rbf(1), variant = variant)
    expect_equal(predict(fit, type = "decision"), predict(fit, board, type = "decision"),
                 tolerance = 1e-10)
  }
})

test_that("for two classes the KQD boundary is a line parallel to the diagonal in distance space", {
  # paper 001 Sec. 3.3: class 1 iff -d1/2 + b1 >= -d2/2 + b2, i.e. d2 - d1 >= 2 (b2 - b1)
  fit <- kqd(y ~ x1 + x2, data = board, kernel = kernel_rbf(1), variant = "RC+")
  d <- predict(fit, board, type = "distance")
  cls <- predict(fit, board)
  gap <- d[, 2] - d[, 1]
  threshold <- 2 * (fit$bias[fit$best, 2] - fit$bias[fit$best, 1])
  expect_true(all((gap >= threshold) == (cls == levels(board$y)[1])))
})

test_that("bias = 'none' uses the log priors and 'map' the log-determinants", {
  fit <- kqd(y ~ x1 + x2, data = board, kernel = kernel_rbf(1), bias = "none",
             prior = c(0.3, 0.7), scale = FALSE)
  expect_equal(unname(fit$bias[1, ]), log(c(0.3, 0.7)))
  # MAP for RC+: -1/2 the log-determinant of C_j + sigma^2 I over the span of
  # the n training points, sum log(1 + |lambda| / (n_j sigma^2)) + n log sigma^2
  fit_map <- expect_no_warning(kqd(y ~ x1 + x2, data = board, kernel = kernel_rbf(1),
                                   variant = "RC+", reg = 0.1, bias = "map", scale = FALSE))
  K <- kernel_matrix(kernel_rbf(1), board[, 1:2])
  expected <- vapply(levels(board$y), function(level) {
    idx <- which(board$y == level)
    n_j <- length(idx)
    H <- diag(n_j) - 1 / n_j
    lambda <- eigen(H %*% K[idx, idx] %*% H, symmetric = TRUE)$values
    lambda <- lambda[abs(lambda) > 100 * n_j * .Machine$double.eps * max(abs(lambda))]
    -0.5 * sum(log(1 + abs(lambda) / (n_j * 0.1))) - 0.5 * nrow(board) * log(0.1) + log(n_j / nrow(board))
  }, numeric(1))
  expect_equal(unname(fit_map$bias[1, ]), unname(expected), tolerance = 1e-8)
  expect_warning(kqd(y ~ x1 + x2, data = board, kernel = kernel_rbf(1), variant = "IC+",
                     reg = 1e-6, bias = "map", scale = FALSE), class = "krein_warning")
})

test_that("RC+ with the MAP bias is the Gaussian model's MAP rule (linear kernel oracle)", {
  # with a linear kernel the feature space is R^p, and RC+ with
  # bias = "map" is the Gaussian classifier with class covariance S_j +
  # sigma^2 I (S_j the class's maximum-likelihood covariance) and the class
  # proportions as priors: its decision values differ between classes as the
  # log posteriors do. The oracle is that density written out in plain R. One
  # class has fewer points than dimensions (rank 3 in R^5), where the
  # paper's sum over the class's own eigenvalues left out 2 log sigma^2.
  set.seed(3)
  p <- 5
  x <- rbind(matrix(rnorm(4 * p), 4, p), matrix(rnorm(30 * p, mean = 0.7), 30, p))
  y <- factor(rep(c("small", "large"), c(4, 30)))
  new <- matrix(rnorm(8 * p, mean = 0.3), 8, p)
  sigma2 <- 0.5
  fit <- kqd(x, y, kernel = kernel_linear(), variant = "RC+", reg = sigma2, bias = "map", scale = FALSE)
  log_posterior <- sapply(levels(y), function(level) {
    xj <- x[y == level, , drop = FALSE]
    m <- colMeans(xj)
    S <- crossprod(sweep(xj, 2, m)) / nrow(xj) + sigma2 * diag(p)
    centred <- sweep(new, 2, m)
    -0.5 * rowSums((centred %*% solve(S)) * centred) - 0.5 * determinant(S)$modulus +
      log(nrow(xj) / nrow(x))
  })
  decision <- predict(fit, new, type = "decision")[, levels(y)]
  expect_equal(unname(decision[, 1] - decision[, 2]), unname(log_posterior[, 1] - log_posterior[, 2]),
               tolerance = 1e-8)
  expect_identical(as.character(predict(fit, new)), levels(y)[max.col(log_posterior)])
})

test_that("a class of one point: RC and FK+ work, IC and FK- refuse", {
  one <- rbind(board, data.frame(x1 = 0.1, x2 = 0.1, y = "3"))
  one$y <- factor(one$y)
  for (variant in c("RC+", "RC-", "FK+")) {
    expect_warning(fit <- kqd(y ~ x1 + x2, data = one, kernel = kernel_rbf(1), variant = variant),
                   class = "krein_one_row_class_warning", regexp = "Class \"3\" of `y` has one training row")
    expect_equal(nlevels(predict(fit, one)), 3L)
  }
  for (variant in c("IC+", "IC-", "FK-")) {
    expect_error(kqd(y ~ x1 + x2, data = one, kernel = kernel_rbf(1), variant = variant),
                 class = "krein_error", regexp = "`y`.*single point")
  }
})

test_that("forcing the pd formulas on an indefinite kernel warns", {
  set.seed(12)
  b4 <- checkerboard(40)
  # every warning, as the fit may warn twice (with OpenBLAS also that the
  # regularised kernel is singular)
  caught <- list()
  withCallingHandlers(kqd(y ~ x1 + x2, data = b4, kernel = kernel_invariant(kernel_dist(1, 4)),
                          variant = "RC+", indefinite = "no"),
                      warning = function(w) {
                        caught[[length(caught) + 1L]] <<- w
                        invokeRestart("muffleWarning")
                      })
  expect_true(any(vapply(caught, function(w) inherits(w, "krein_warning") &&
                           grepl("forces the positive definite formulas", conditionMessage(w)), logical(1))))
})

test_that("bad arguments are krein_errors naming them", {
  expect_snapshot(show_error(kqd(y ~ x1 + x2, data = board, variant = "QD")))
  expect_snapshot(show_error(kqd(y ~ x1 + x2, data = board, reg = -1)))
  expect_snapshot(show_error(kqd(y ~ x1 + x2, data = board, reg = matrix(0.1, 1, 3))))
  expect_error(kqd(y ~ x1 + x2, data = board, indefinite = "maybe"), class = "krein_error",
               regexp = "`indefinite`")
  expect_error(kqd(y ~ x1 + x2, data = board, bias = "mean"), class = "krein_error",
               regexp = "`bias`")
  expect_error(kqd(y ~ x1 + x2, data = board, prior = c(0.5, 0.6)), class = "krein_error",
               regexp = "`prior`")
  expect_error(kqd(y ~ x1 + x2, data = board, prior = 1), class = "krein_error",
               regexp = "`prior`")
  fit <- kqd(y ~ x1 + x2, data = board, kernel = kernel_rbf(1), reg = c(0.1, 1))
  expect_error(predict(fit, board, reg = 0.5), class = "krein_error", regexp = "`reg`")
  expect_error(predict(fit, board, type = "votes"), class = "krein_error", regexp = "`type`")
  expect_error(predict(fit, board[, "x1", drop = FALSE]), class = "krein_error",
               regexp = "`newdata`")
  K <- kernel_matrix(kernel_rbf(1), board[, 1:2])
  rc <- kqd(K, board$y, kernel = "precomputed", variant = "RC+")
  expect_error(predict(rc, K[1:3, ]), class = "krein_error", regexp = "self-similarities")
  expect_equal(dim(predict(rc, precomputed_kernel(K[1:3, ], self = rep(1, 3)), type = "prob")),
               c(3L, 2L))
})

test_that("kqd() fits dissimilarity data and predicts from new dissimilarities", {
  # paper 000 Sec. V-C: k = -d^2 (scaled) or classical scaling, any variant
  set.seed(13)
  balls <- ball_dissimilarities(n_per_class = 25)
  train <- c(1:20, 26:45)
  test <- c(21:25, 46:50)
  for (method in c("negsq", "classical")) {
    kd <- kernel_from_dissimilarity(balls$D[train, train], method = method)
    fit <- kqd(kd, balls$y[train], variant = "RC+", reg = 0.1)
    p <- predict(fit, balls$D[test, train], type = "prob")
    expect_equal(dim(p), c(10L, 2L))
    expect_equal(unname(rowSums(p)), rep(1, 10))
    # the same as fitting the converted kernels by hand
    by_hand <- kqd(precomputed_kernel(kd$K), balls$y[train], variant = "RC+", reg = 0.1)
    converted <- predict(kd, balls$D[test, train])
    expect_equal(predict(fit, balls$D[test, train], type = "distance"),
                 predict(by_hand, converted, type = "distance"))
  }
})

test_that("summary() says why a kqd fit's signature is missing", {
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  header <- function(fit) names(krein:::model_summary(fit))[1]
  # RC+ with one reg value on a positive definite kernel: the Cholesky path
  fit <- kqd(d[, 1:2], d$y, kernel = kernel_rbf(1), reg = 0.1)
  expect_true(all(is.na(fit$signature)))
  expect_match(header(fit), "Cholesky factorisation", fixed = TRUE)
  expect_match(header(kqd(d[, 1:2], d$y, kernel = kernel_rbf(1), variant = "FK+", reg = 0.1)),
               "not computed for FK", fixed = TRUE)
  computed <- kqd(d[, 1:2], d$y, kernel = kernel_rbf(1), reg = 0.1, indefinite = "yes")
  expect_false(anyNA(computed$signature))
  expect_identical(header(computed), "Classes (signature p, q, z of the centred class kernel)")
})
