# The Nystroem decomposition (paper 002 Sec. 3, eq. 10; signed algebra of
# ../shared/notes/algorithms.md section 2) against the dense computation.

dense_nystrom <- function(K, landmarks) {
  C <- K[, landmarks, drop = FALSE]
  W <- K[landmarks, landmarks, drop = FALSE]
  e <- eigen(W, symmetric = TRUE)
  keep <- abs(e$values) > 1e-12 * max(abs(e$values))
  W_pinv <- e$vectors[, keep] %*% (t(e$vectors[, keep]) / e$values[keep])
  C %*% W_pinv %*% t(C)
}

set.seed(21)
x <- matrix(rnorm(120 * 2), ncol = 2)
# the kernels of the data as given (scale = FALSE) are compared with dense ones
tanh_kernel <- kernel_tanh(scale = 0.5, offset = -1)

test_that("the signed eigendecomposition equals eigen() of the dense K_hat", {
  landmarks <- c(3, 17, 25, 40, 58, 77, 90, 101, 110, 119)
  ny <- nystrom(x, tanh_kernel, landmarks, scale = FALSE)
  K_hat <- dense_nystrom(kernel_matrix(tanh_kernel, x), landmarks)
  e <- eigen(K_hat, symmetric = TRUE)
  keep <- abs(e$values) > 1e-10 * max(abs(e$values))
  expect_equal(sort(ny$values), sort(e$values[keep]), tolerance = 1e-8)
  expect_gt(ny$signature[["q"]], 0L)  # the kernel is indefinite and the signs survive
  # the same subspace: projectors agree
  P_krein <- ny$vectors %*% t(ny$vectors)
  P_dense <- e$vectors[, keep] %*% t(e$vectors[, keep])
  expect_lt(max(abs(P_krein - P_dense)), 1e-8)
  expect_equal(as.matrix(ny), K_hat, tolerance = 1e-8)
  expect_equal(crossprod(ny$vectors), diag(length(ny$values)), tolerance = 1e-10)
})

test_that("every point a landmark reproduces the kernel; a rank-6 kernel needs 6", {
  K <- kernel_matrix(tanh_kernel, x[1:30, ])
  ny_all <- nystrom(x[1:30, ], tanh_kernel, 1:30, scale = FALSE)
  expect_equal(as.matrix(ny_all), K, tolerance = 1e-8, ignore_attr = TRUE)
  # (1 + <x, x'>)^2 in 2-D has rank 6: 8 landmarks in general position are exact
  poly <- kernel_poly(degree = 2)
  ny <- nystrom(x, poly, landmarks = 1:8, scale = FALSE)
  expect_equal(length(ny$values), 6L)
  expect_equal(as.matrix(ny), kernel_matrix(poly, x), tolerance = 1e-8, ignore_attr = TRUE)
  expect_lt(nystrom_error(ny, x), 1e-10)
  # and new points are mapped exactly from the landmarks alone
  x_new <- matrix(rnorm(10), ncol = 2)
  expect_equal(predict(ny, x_new), kernel_matrix(poly, x_new, x), tolerance = 1e-8,
               ignore_attr = TRUE)
})

test_that("the extension of training points gives their rows of K_hat", {
  landmarks <- seq(1, 120, by = 7)
  ny <- nystrom(x, tanh_kernel, landmarks, scale = FALSE)
  expect_equal(predict(ny, x[1:5, ]), as.matrix(ny)[1:5, ], tolerance = 1e-8, ignore_attr = TRUE)
  expect_equal(predict(ny, x[1:5, ], type = "coordinates"), ny$vectors[1:5, ] %*% diag(ny$values),
               tolerance = 1e-8)
})

test_that("precomputed kernels work and agree with the data path", {
  K <- kernel_matrix(tanh_kernel, x)
  landmarks <- c(5, 50, 95, 12, 33)
  ny_k <- nystrom(K, "precomputed", landmarks)
  ny_x <- nystrom(x, tanh_kernel, landmarks, scale = FALSE)
  expect_equal(as.matrix(ny_k), as.matrix(ny_x), tolerance = 1e-10)
  expect_equal(predict(ny_k, K[1:3, landmarks]), predict(ny_x, x[1:3, ]), tolerance = 1e-10)
  expect_lt(abs(nystrom_error(ny_k, K, size = 1000) - nystrom_error(ny_x, x, size = 1000)), 1e-10)
})

test_that("print works and bad input is a krein_error", {
  ny <- nystrom(x, tanh_kernel, 1:5)
  expect_output(print(ny), "5 landmarks")
  expect_error(nystrom(x, tanh_kernel), class = "krein_error", regexp = "`landmarks`")
  expect_error(nystrom(x, tanh_kernel, c(1, 500)), class = "krein_error", regexp = "`landmarks`")
  expect_error(nystrom(x, tanh_kernel, c(1, 2, 2)), class = "krein_error", regexp = "`landmarks`.*distinct")
  expect_error(nystrom(x, tanh_kernel, 1.5), class = "krein_error", regexp = "`landmarks`")
  expect_error(nystrom(x, tanh_kernel, 0), class = "krein_error", regexp = "`landmarks`")
  expect_error(predict(ny, matrix(1, 2, 3)), class = "krein_error", regexp = "`newdata`")
  expect_error(nystrom_error(ny, x[1:10, ]), class = "krein_error", regexp = "`x`")
  expect_error(nystrom_error(ny, x, size = 0), class = "krein_error", regexp = "`size`")
})

# nystrom() takes the models' `scale`, so that landmarks
# from select_landmarks() (which selects as the models do) approximate the
# kernel the models compute
test_that("nystrom() scales as the models do and takes new data in the original units", {
  set.seed(1)
  d <- gaussian_mixture_2d(80)
  x <- cbind(d$x1 * 1000, d$x2)
  kernel <- kernel_rbf(0.5)
  scaled <- nystrom(x, kernel, landmarks = 1:15)
  by_hand <- nystrom(scale(x)[, ], kernel, landmarks = 1:15, scale = FALSE)
  expect_equal(as.matrix(scaled), as.matrix(by_hand), tolerance = 1e-10)
  new <- x[1:5, ] + 1
  new_scaled <- scale(new, attr(scale(x), "scaled:center"), attr(scale(x), "scaled:scale"))[, ]
  expect_equal(predict(scaled, new), predict(by_hand, new_scaled), tolerance = 1e-10)
  expect_equal(nystrom_error(scaled, x), nystrom_error(by_hand, scale(x)[, ]), tolerance = 1e-10)
  # landmarks selected by select_landmarks() with the same (default) scale
  set.seed(2)
  lm <- select_landmarks(x, d$y, kernel, method = "kmeans", m = 10)
  with_lm <- nystrom(x, kernel, landmarks = lm)
  expect_identical(with_lm$points, lm$scaled_points)
  expect_lt(nystrom_error(with_lm, x), 0.2)
})
