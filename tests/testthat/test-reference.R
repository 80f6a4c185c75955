# iknn(), ikpca_qd(), isvm(): the reference classifiers of paper 000
# (000_7435e1e84b20a6bd.txt, Secs. IV-E, V; Appendix I-E).

test_that("iknn with a Gaussian kernel is ordinary k-NN in the input space (paper 000, Sec. IV-E)", {
  set.seed(4)
  train <- checkerboard(120, size = 3)
  test <- checkerboard(60, size = 3)
  x <- as.matrix(train[, 1:2])
  x_new <- as.matrix(test[, 1:2])
  for (k in c(1, 4, 7)) {
    fit <- iknn(x, train$y, kernel = kernel_rbf(2), k = k)
    # plain k-NN with Euclidean distances, majority vote, ties to the nearest
    expected <- vapply(seq_len(nrow(x_new)), function(i) {
      d <- sqrt(colSums((t(x) - x_new[i, ])^2))
      nearest <- order(d)[seq_len(k)]
      votes <- table(factor(train$y[nearest], levels = levels(train$y)))
      tied <- names(votes)[votes == max(votes)]
      as.character(train$y[nearest][train$y[nearest] %in% tied][1])
    }, character(1))
    expect_equal(as.character(predict(fit, x_new)), expected)
    p <- predict(fit, x_new, type = "prob")
    expect_equal(unname(rowSums(p)), rep(1, nrow(x_new)))
  }
})

test_that("iknn works with an indefinite kernel and precomputed input", {
  set.seed(5)
  train <- checkerboard(80, size = 3)
  test <- checkerboard(30, size = 3)
  kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
  fit <- iknn(y ~ ., data = train, kernel = kernel, k = 3)
  K <- kernel_matrix(kernel, train[, 1:2])
  K_new <- kernel_matrix(kernel, test[, 1:2], train[, 1:2])
  pre <- iknn(precomputed_kernel(K), train$y, k = 3)
  expect_equal(predict(pre, precomputed_kernel(K_new, self = diag(kernel_matrix(kernel, test[, 1:2])))),
               predict(fit, test), ignore_attr = TRUE)
  expect_snapshot(show_error(predict(pre, K_new)))
  expect_snapshot(show_error(iknn(y ~ ., data = train, kernel = kernel, k = 81)))
})

test_that("ikpca_qd keeps the requested share of the absolute eigenvalue mass", {
  set.seed(6)
  train <- checkerboard(90, size = 3)
  kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
  K <- kernel_matrix(kernel, train[, 1:2])
  H <- diag(90) - 1 / 90
  values <- eigen(H %*% K %*% H, symmetric = TRUE, only.values = TRUE)$values
  magnitude <- sort(abs(values), decreasing = TRUE)
  magnitude <- magnitude[magnitude > max(magnitude) * 90 * .Machine$double.eps]
  share <- cumsum(magnitude) / sum(magnitude)
  for (pvar in c(0.5, 0.8, 0.95)) {
    fit <- ikpca_qd(y ~ ., data = train, kernel = kernel, pvar = pvar, reg = 0.1)
    expect_equal(fit$ncomp, which(share >= pvar)[1])
    expect_gte(fit$share, pvar)
    if (fit$ncomp > 1) expect_lt(share[fit$ncomp - 1], pvar)
    expect_equal(sort(abs(fit$values), decreasing = TRUE), magnitude[seq_len(fit$ncomp)], tolerance = 1e-8)
  }
  expect_gt(fit$signature[["q"]], 0)  # the invariant kernel is indefinite
})

test_that("ikpca_qd equals QDA on the transcribed IKPCA map (Appendix I-E)", {
  set.seed(7)
  train <- checkerboard(60, size = 2)
  test <- checkerboard(20, size = 2)
  kernel <- kernel_rbf(1)
  fit <- ikpca_qd(train[, 1:2], train$y, kernel = kernel, pvar = 0.9, reg = 0.2)
  K <- kernel_matrix(kernel, train[, 1:2])
  Kx <- kernel_matrix(kernel, test[, 1:2], train[, 1:2])
  n <- 60
  H <- diag(n) - 1 / n
  e <- eigen(H %*% K %*% H, symmetric = TRUE)
  keep <- order(abs(e$values), decreasing = TRUE)[seq_len(fit$ncomp)]
  Qs <- e$vectors[, keep] %*% diag(1 / sqrt(abs(e$values[keep])))
  centre_rows <- function(Kr) (Kr - matrix(colMeans(K), nrow(Kr), n, byrow = TRUE)) %*% H
  Z <- centre_rows(K) %*% Qs
  Zx <- centre_rows(Kx) %*% Qs
  p <- fit$ncomp
  g <- sapply(levels(train$y), function(l) {
    Zl <- Z[train$y == l, , drop = FALSE]
    m <- colMeans(Zl)
    C <- crossprod(sweep(Zl, 2, m)) / nrow(Zl)
    C <- 0.8 * C + 0.2 * sum(diag(C)) / p * diag(p)
    apply(Zx, 1, function(z) -0.5 * sum((z - m) * solve(C, z - m)) - 0.5 * determinant(C)$modulus) +
      log(mean(train$y == l))
  })
  expected <- exp(g - apply(g, 1, max))
  expected <- expected / rowSums(expected)
  expect_equal(unname(predict(fit, test[, 1:2], type = "prob")), unname(expected), tolerance = 1e-8)
})

test_that("isvm fits kernlab's SVM on the kernel matrix and predicts from the support vectors", {
  skip_if_not_installed("kernlab")
  set.seed(8)
  train <- checkerboard(100, size = 2)
  test <- checkerboard(40, size = 2)
  kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
  fit <- isvm(y ~ ., data = train, kernel = kernel, C = 10)
  expect_output(print(fit), "support vectors")
  p <- predict(fit, test, type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, 40), tolerance = 1e-8)
  cls <- predict(fit, test)
  expect_identical(levels(cls), levels(train$y))
  K <- kernel_matrix(kernel, train[, 1:2])
  set.seed(8)
  direct <- kernlab::ksvm(kernlab::as.kernelMatrix(K), train$y, kernel = "matrix", C = 10, prob.model = TRUE,
                          shrinking = FALSE)
  sv <- kernlab::SVindex(direct)
  expected <- kernlab::predict(direct, kernlab::as.kernelMatrix(kernel_matrix(kernel, test[, 1:2], train[sv, 1:2])))
  expect_equal(as.character(cls), as.character(expected), ignore_attr = TRUE)
})

test_that("isvm reaches kernlab's own RBF optimum at a large C, with or without probabilities", {
  skip_if_not_installed("kernlab")
  # the dual objective of the same C-SVM from kernlab's built-in rbfdot kernel
  # on the inputs is the reference; on a precomputed kernel with shrinking,
  # kernlab stopped near -9.8e6 instead of about -2e4 on these data
  set.seed(1)
  train <- banana(100)
  x <- 5 * as.matrix(train[, 1:2])
  fit <- isvm(x, train$y, kernel_rbf(gamma = 1 / 25), C = 1e4, probability = FALSE)
  reference <- kernlab::ksvm(x, train$y, kernel = "rbfdot", kpar = list(sigma = 1 / 25), C = 1e4,
                             scaled = FALSE)
  expect_equal(fit$model@obj, reference@obj, tolerance = 1e-3)
  expect_identical(predict(fit, x), stats::setNames(kernlab::predict(reference, x), NULL))
  expect_error(predict(fit, x, type = "prob"), class = "krein_error", regexp = "probability = TRUE")
  expect_error(isvm(x, train$y, probability = NA), class = "krein_error", regexp = "`probability`")
})

test_that("the reference classifiers and kmdc() plot decision regions or class probabilities", {
  skip_if_not_installed("kernlab")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  set.seed(5)
  board <- checkerboard(60)
  fits <- list(
    iknn(y ~ ., data = board, kernel = kernel_rbf(2), k = 3),
    ikpca_qd(board[, 1:2], board$y, kernel_rbf(2)),
    isvm(board[, 1:2], board$y, kernel_rbf(2)),
    kmdc(board[, 1:2], board$y, kernel_rbf(2))
  )
  for (fit in fits) expect_identical(withVisible(plot(fit, resolution = 20))$visible, FALSE)
  # more than two inputs: class probabilities (two and three classes)
  expect_invisible(plot(iknn(iris[1:100, 1:4], droplevels(iris$Species[1:100]), kernel_rbf(0.5), k = 3)))
  expect_invisible(plot(ikpca_qd(iris[, 1:4], iris$Species, kernel_rbf(0.5))))
  expect_invisible(plot(kmdc(iris[, 1:4], iris$Species, kernel_rbf(0.5))))
  expect_error(plot(fits[[1]], resolution = 1), class = "krein_error", regexp = "`resolution`")
  # a title given by the caller replaces the default, for every model's plot()
  titled <- c(fits, list(kqd(board[, 1:2], board$y, kernel_rbf(2)), ikfd(board[, 1:2], board$y, kernel_rbf(2))))
  for (fit in titled) {
    expect_invisible(plot(fit, resolution = 10, main = "my title"))
  }
  expect_invisible(plot(onda(Species ~ ., data = iris), main = "my title"))
  expect_invisible(plot(kfda(iris[, 1:4], iris$Species, kernel_rbf(0.5), ncomp = 4), main = "my title"))

})
