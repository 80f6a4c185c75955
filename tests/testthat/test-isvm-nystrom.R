# isvm(landmarks = ): isvm()'s Nystroem form is the Nystroem Krein SVM's fit
# (krein_svm(landmarks = ), checked against its own transcription in
# test-krein_svm.R); with a positive definite kernel that is the SVM on the
# Nystroem approximation K^ = K_nm K_mm^+ K_nm' (Williams and Seeger 2001),
# checked here against LIBLINEAR on plain Nystroem features without a flip.

skip_if_not_installed("LiblineaR")

isvm_nystrom_data <- withr::with_seed(11, local({
  train <- checkerboard(90, size = 2)
  test <- checkerboard(25, size = 2)
  list(train = train, test = test, x = as.matrix(train[, c("x1", "x2")]), y = train$y,
       x_new = as.matrix(test[, c("x1", "x2")]))
}))

test_that("isvm(landmarks = ) is krein_svm(landmarks = ) with an RBF kernel: same C, probabilities and predictions", {
  d <- isvm_nystrom_data
  x <- scale(as.matrix(iris[, 1:4]))
  x_new <- x[c(5, 55, 105, 140), ]
  # three classes, the default RBF kernel and the cross-validated C; random
  # landmarks from the same seed
  for (args in list(list(landmarks = "random", m = 15), list(landmarks = seq(1, 150, by = 6), C = 3))) {
    set.seed(21)
    ours <- do.call(isvm, c(list(x, iris$Species), args))
    set.seed(21)
    theirs <- do.call(krein_svm, c(list(x, iris$Species), args))
    expect_s3_class(ours, c("isvm", "krein_model"), exact = TRUE)
    expect_identical(ours$landmarks, theirs$landmarks)
    expect_identical(ours$C, theirs$C)
    expect_equal(ours$cost_cv, theirs$cost_cv)
    expect_equal(ours$platt, theirs$platt)
    expect_equal(ours$pairs, theirs$pairs)
    for (type in c("class", "prob", "decision")) {
      expect_equal(predict(ours, x_new, type = type), predict(theirs, x_new, type = type), info = type)
      expect_equal(predict(ours, type = type), predict(theirs, type = type), info = type)
    }
    expect_equal(predict(ours, x_new, rule = "posterior"), predict(theirs, x_new, rule = "posterior"))
    expect_equal(unname(rowSums(predict(ours, x_new, type = "prob"))), rep(1, 4), tolerance = 1e-12)
  }
  expect_null(ours$model)
  # two classes, a given kernel
  set.seed(3)
  ours <- isvm(d$x, d$y, kernel = kernel_rbf(2), landmarks = "random", m = 20, C = 10)
  set.seed(3)
  theirs <- krein_svm(d$x, d$y, kernel = kernel_rbf(2), landmarks = "random", m = 20, C = 10)
  expect_equal(predict(ours, d$x_new, type = "prob"), predict(theirs, d$x_new, type = "prob"))
  expect_equal(predict(ours, d$x_new, type = "decision"), predict(theirs, d$x_new, type = "decision"))
})

test_that("with a positive definite kernel isvm(landmarks = ) is the SVM on the Nystroem kernel, unflipped", {
  # plain R: W = K_mm = V diag(l) V' (eigenvalues above the pseudo-inverse's
  # cutoff), features phi(x) = diag(l)^-1/2 V' k(L, x), so Phi Phi' = K^
  # (positive semidefinite: nothing to flip); LIBLINEAR's L2-loss SVM on
  # them. Its primal Newton solver sees the features only through products an
  # orthogonal change of them leaves unchanged, so the fit's features of the
  # same K^ give the same decision values.
  d <- isvm_nystrom_data
  kernel <- kernel_rbf(1.5)
  landmarks <- c(1:12, 50:61)
  fit <- isvm(d$x, d$y, kernel = kernel, scale = FALSE, C = 10, probability = FALSE, landmarks = landmarks)
  W <- kernel_matrix(kernel, d$x[landmarks, ])
  e <- eigen(W, symmetric = TRUE)
  keep <- abs(e$values) > sqrt(.Machine$double.eps) * max(abs(e$values))
  expect_true(all(e$values[keep] > 0))
  map <- t(e$vectors[, keep]) / sqrt(e$values[keep])
  phi <- kernel_matrix(kernel, d$x, d$x[landmarks, ]) %*% t(map)
  phi_new <- kernel_matrix(kernel, d$x_new, d$x[landmarks, ]) %*% t(map)
  K_hat <- phi %*% t(phi)
  expect_gt(min(eigen(K_hat, symmetric = TRUE, only.values = TRUE)$values), -1e-10)
  model <- LiblineaR::LiblineaR(phi, d$y, type = 2, cost = 10, epsilon = 0.01, bias = 1)
  direction <- if (as.character(model$ClassNames[1]) == levels(d$y)[2]) 1 else -1
  w <- direction * model$W[seq_len(ncol(phi))]
  b <- direction * model$W[ncol(phi) + 1]
  reference <- drop(phi %*% w) + b
  reference_new <- drop(phi_new %*% w) + b
  scale <- max(abs(reference))
  expect_equal(unname(predict(fit, type = "decision")[, 2]) / scale, reference / scale, tolerance = 1e-8)
  expect_equal(unname(predict(fit, d$x_new, type = "decision")[, 2]) / scale, reference_new / scale,
               tolerance = 1e-8)
  expect_identical(fit$signature, c(p = sum(keep), q = 0L))
  expect_true(all(fit$pairs[[1]]$values > 0))
  expect_identical(predict(fit, d$x_new), factor(levels(d$y)[1 + (reference_new > 0)], levels = levels(d$y)))
})

test_that("isvm(landmarks = ) predicts new data through the formula and x/y interfaces and a precomputed kernel", {
  d <- isvm_nystrom_data
  kernel <- kernel_rbf(1)
  set.seed(5)
  formula_fit <- isvm(y ~ x1 + x2, data = d$train, kernel = kernel, landmarks = "kmeans", m = 12, C = 5)
  set.seed(5)
  matrix_fit <- isvm(d$x, d$y, kernel = kernel, landmarks = "kmeans", m = 12, C = 5)
  for (type in c("class", "prob", "decision")) {
    expect_equal(predict(formula_fit, d$test, type = type), predict(matrix_fit, d$x_new, type = type),
                 ignore_attr = TRUE, info = type)
  }
  p <- predict(formula_fit, d$test, type = "prob")
  expect_identical(dim(p), c(nrow(d$test), 2L))
  expect_identical(colnames(p), levels(d$y))
  expect_s3_class(predict(formula_fit, d$test), "factor")
  # one row alone predicts as among the others
  expect_equal(predict(formula_fit, d$test[7, ], type = "prob"), p[7, , drop = FALSE], ignore_attr = TRUE)
  # landmark rows on a precomputed kernel = the kernel function
  landmarks <- seq(1, 90, by = 5)
  fun_fit <- isvm(d$x, d$y, kernel = kernel, scale = FALSE, landmarks = landmarks, C = 5, probability = FALSE)
  pre_fit <- isvm(kernel_matrix(kernel, d$x), d$y, kernel = "precomputed", landmarks = landmarks, C = 5,
                  probability = FALSE)
  expect_equal(predict(pre_fit, kernel_matrix(kernel, d$x_new, d$x), type = "decision"),
               predict(fun_fit, d$x_new, type = "decision"), tolerance = 1e-8, ignore_attr = TRUE)
  # print and summary are the Nystroem Krein SVM's
  expect_output(print(formula_fit), "Nystroem kernel on 12 landmarks \\(kmeans\\)")
  expect_output(print(formula_fit), "points on or inside the margin of the flipped SVMs")
  expect_output(print(summary(formula_fit)), "margin_points")
})

test_that("isvm(landmarks = ) refuses bad landmarks and costs LIBLINEAR does not finish with", {
  d <- isvm_nystrom_data
  bad <- list(0L, 91L, c(1, NA), c(1.5, 3), c(2, 2), "nearest", list(1, 2), -2, character())
  for (landmarks in bad) {
    expect_error(isvm(d$x, d$y, landmarks = landmarks, C = 1), class = "krein_error",
                 label = deparse(landmarks))
  }
  expect_error(isvm(d$x, d$y, landmarks = "random", m = 0, C = 1), class = "krein_error")
  expect_error(isvm(d$x, d$y, landmarks = 1:10, C = 1e16), class = "krein_error",
               regexp = "`C` must be at most 1e\\+15 with landmarks")
  expect_snapshot(show_error(isvm(d$x, d$y, landmarks = 0L, C = 1)))
})
