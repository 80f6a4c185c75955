test_that("precomputed_kernel() wraps training and test kernels", {
  set.seed(1)
  x <- matrix(rnorm(20), 10)
  K <- kernel_matrix(kernel_rbf(1), x)
  pk <- precomputed_kernel(K)
  expect_s3_class(pk, "krein_precomputed")
  expect_equal(pk$self, rep(1, 10))
  expect_identical(as.matrix(pk), K)
  test <- precomputed_kernel(kernel_matrix(kernel_rbf(1), x[1:3, ], x), self = rep(1, 3))
  expect_null(precomputed_kernel(kernel_matrix(kernel_rbf(1), x[1:3, ], x))$self)
  expect_equal(test$self, rep(1, 3))
  expect_snapshot({
    pk
    test
  })
})

test_that("bad precomputed kernels are krein_errors", {
  expect_error(precomputed_kernel("K"), class = "krein_error", regexp = "`K`")
  expect_error(precomputed_kernel(matrix(c(1, NA), 1)), class = "krein_error", regexp = "`K`")
  expect_error(precomputed_kernel(diag(3), self = 1:2), class = "krein_error", regexp = "`self`")
  expect_error(precomputed_kernel(diag(3), self = c(1, NA, 1)), class = "krein_error",
               regexp = "`self`")
})

test_that("classical scaling of Euclidean distances is positive semidefinite", {
  set.seed(2)
  x <- matrix(rnorm(30 * 4), 30)
  kd <- kernel_from_dissimilarity(as.matrix(dist(x)), method = "classical")
  ind <- indefiniteness(kd)
  expect_gte(min(ind$values), -1e-10 * max(ind$values))
  # it is the Gram matrix of the centred points
  xc <- scale(x, scale = FALSE)
  expect_equal(unname(kd$K), unname(tcrossprod(xc)), tolerance = 1e-10)
})

test_that("classical scaling of the ball data is indefinite", {
  set.seed(3)
  balls <- ball_dissimilarities(n_per_class = 30)
  ind <- indefiniteness(kernel_from_dissimilarity(balls$D, method = "classical"))
  expect_gt(ind$signature[["q"]], 0L)
  expect_gt(ind$r_neg, 0.01)
})

test_that("negsq divides by the mean training dissimilarity (paper 000 Sec. V-C)", {
  D <- matrix(c(0, 1, 2, 1, 0, 3, 2, 3, 0), 3)
  kd <- kernel_from_dissimilarity(D)
  # mean over the six off-diagonal entries: (1 + 2 + 3) * 2 / 6 = 2
  expect_equal(kd$K, -(D / 2)^2)
  expect_equal(kd$self, rep(0, 3))
})

test_that("new dissimilarities convert consistently with the training kernel", {
  set.seed(4)
  x <- matrix(rnorm(25 * 3), 25)
  x_new <- matrix(rnorm(5 * 3), 5)
  D <- as.matrix(dist(x))
  D_new <- as.matrix(dist(rbind(x_new, x)))[1:5, 6:30]
  for (method in c("negsq", "classical")) {
    kd <- kernel_from_dissimilarity(D, method = method)
    again <- predict(kd, D)
    expect_equal(again$K, kd$K, tolerance = 1e-10, ignore_attr = TRUE)
    expect_equal(again$self, unname(diag(kd$K)), tolerance = 1e-10)
  }
  # classical: Gower's formula is exact for Euclidean data -> centred inner products
  kd <- kernel_from_dissimilarity(D, method = "classical")
  centre <- colMeans(x)
  expected <- sweep(x_new, 2, centre) %*% t(sweep(x, 2, centre))
  converted <- predict(kd, D_new)
  expect_equal(unname(converted$K), expected, tolerance = 1e-10)
  expect_equal(converted$self, rowSums(sweep(x_new, 2, centre)^2), tolerance = 1e-10)
  # one new object as a vector
  expect_equal(predict(kd, D_new[1, ])$K, converted$K[1, , drop = FALSE], ignore_attr = TRUE)
})

test_that("an asymmetric D is symmetrised with a message", {
  D <- matrix(c(0, 1, 2, 1.2, 0, 3, 2, 3, 0), 3)
  expect_message(kd <- kernel_from_dissimilarity(D), "not symmetric")
  expect_true(kd$symmetrised)
  expect_equal(kd$K, kernel_from_dissimilarity((D + t(D)) / 2)$K)
  expect_snapshot(kd)
})

test_that("bad dissimilarities are krein_errors naming the argument", {
  expect_snapshot(show_error(kernel_from_dissimilarity(matrix(1:6, 2))))
  expect_snapshot(show_error(kernel_from_dissimilarity(matrix(c(1, 1, 1, 0), 2))))
  expect_error(kernel_from_dissimilarity(), class = "krein_error", regexp = "`D`")
  expect_error(kernel_from_dissimilarity(matrix(c(0, -1, -1, 0), 2)), class = "krein_error",
               regexp = "`D`")
  expect_error(kernel_from_dissimilarity(matrix(c(0, NA, 1, 0), 2)), class = "krein_error",
               regexp = "`D`")
  expect_error(kernel_from_dissimilarity(matrix(0, 1, 1)), class = "krein_error", regexp = "`D`")
  expect_error(kernel_from_dissimilarity(matrix(0, 3, 3)), class = "krein_error", regexp = "`D`")
  expect_error(kernel_from_dissimilarity(diag(0, 2), method = "mds"), class = "krein_error",
               regexp = "`method`")
  kd <- kernel_from_dissimilarity(matrix(c(0, 1, 1, 0), 2))
  expect_error(predict(kd, matrix(1, 1, 3)), class = "krein_error", regexp = "`newdata`")
  expect_error(predict(kd, matrix(-1, 1, 2)), class = "krein_error", regexp = "`newdata`")
  expect_error(predict(kd), class = "krein_error", regexp = "`newdata`")
  # new dissimilarities whose squares overflow: refused as the fit refuses
  # training ones, not returned as infinite kernel values
  set.seed(1)
  balls <- ball_dissimilarities(n_per_class = 6)
  for (method in c("classical", "negsq")) {
    converted <- kernel_from_dissimilarity(balls$D, method = method)
    expect_error(predict(converted, balls$D[1:3, ] * 1e300), class = "krein_error",
                 regexp = "beyond double precision; divide the training and the new dissimilarities")
    expect_true(all(is.finite(predict(converted, balls$D[1:3, ] * 1e100)$K)))
  }
  # the Gaussian conversion of huge dissimilarities is a kernel value of 0 (of
  # 1 for the zero dissimilarity of an object to itself)
  gaussian <- kernel_from_dissimilarity(balls$D, method = "gaussian")
  expect_equal(predict(gaussian, balls$D[1:3, ] * 1e300)$K, (balls$D[1:3, ] == 0) * 1, ignore_attr = TRUE)
})

test_that("a model fitted on dissimilarities predicts from new dissimilarities or converted kernels alike", {
  set.seed(3)
  balls <- ball_dissimilarities(n_per_class = 15)
  kd <- kernel_from_dissimilarity(balls$D, method = "classical")
  fit <- ikfd(kd, balls$y, ridge_relative = 1e-3)
  from_dissimilarities <- predict(fit, balls$D[1:4, ], type = "decision")
  from_kernel <- predict(fit, predict(kd, balls$D[1:4, ]), type = "decision")
  expect_equal(unname(from_kernel), unname(from_dissimilarities))
})

test_that("the Gaussian conversion checks its width and converts new dissimilarities with it", {
  D <- matrix(c(0, 1, 2, 1, 0, 3, 2, 3, 0), 3)
  # median of d^2 over i < j: median(1, 4, 9) = 4
  kd <- kernel_from_dissimilarity(D, method = "gaussian")
  expect_equal(kd$gamma, 1 / 4)
  expect_equal(kd$K, exp(-D^2 / 4))
  expect_equal(predict(kd, c(1, 2, 0))$K, matrix(exp(-c(1, 4, 0) / 4), 1), ignore_attr = TRUE)
  expect_equal(predict(kd, c(1, 2, 0))$self, 1)
  expect_error(kernel_from_dissimilarity(D, method = "gaussian", gamma = -1), class = "krein_error", regexp = "`gamma`")
  expect_error(kernel_from_dissimilarity(D, method = "negsq", gamma = 1), class = "krein_error", regexp = "`gamma`")
  expect_error(kernel_from_dissimilarity(matrix(0, 3, 3), method = "gaussian"), class = "krein_error",
               regexp = "give `gamma`")
  expect_equal(kernel_from_dissimilarity(matrix(0, 3, 3), method = "gaussian", gamma = 2)$K, matrix(1, 3, 3))
  # tiny and huge dissimilarities get the width of their scale
  expect_equal(kernel_from_dissimilarity(D * 1e-100, method = "gaussian")$K, kd$K)
  expect_equal(kernel_from_dissimilarity(D * 1e100, method = "gaussian")$K, kd$K)
  # beyond double precision: the width itself cannot be represented
  expect_error(kernel_from_dissimilarity(D * 1e-200, method = "gaussian"), class = "krein_error",
               regexp = "give `gamma`")
})
