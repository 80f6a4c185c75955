# krein_svm(): the Krein-space SVM of Loosli, Canu and Ong (2016, TPAMI 38(6),
# Algorithm 1 and Sec. 4): the C-SVM dual on the flipped kernel |K| = U |L| U',
# coefficients mapped back by beta = U sign(L) U' (alpha y), prediction
# f(x) = sum_i beta_i k(x, x_i) + b with the raw kernel. The oracle: kernlab's
# ksvm() on |K| formed here with base::eigen(), and the mapping transcribed.

skip_if_not_installed("kernlab")

ksvm_data <- local({
  seed <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv())
  set.seed(7)
  train <- checkerboard(80, size = 2)
  test <- checkerboard(20, size = 2)
  if (!is.null(seed)) assign(".Random.seed", seed, globalenv()) else rm(".Random.seed", envir = globalenv())
  x <- as.matrix(train[, c("x1", "x2")])
  x_new <- as.matrix(test[, c("x1", "x2")])
  kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
  list(x = x, y = train$y, x_new = x_new, kernel = kernel, K = kernel_matrix(kernel, x),
       K_new = kernel_matrix(kernel, x_new, x))
})

# The flipped SVM by kernlab and the KSVM's coefficients, transcribed
ksvm_reference <- function(K, y, C) {
  e <- eigen(K, symmetric = TRUE)
  flipped <- e$vectors %*% diag(abs(e$values)) %*% t(e$vectors)
  model <- kernlab::ksvm(kernlab::as.kernelMatrix(flipped), y, kernel = "matrix", C = C, shrinking = FALSE)
  a <- numeric(length(y))
  a[kernlab::SVindex(model)] <- kernlab::coef(model)[[1]]
  beta <- e$vectors %*% diag(sign(e$values)) %*% t(e$vectors) %*% a
  decision <- kernlab::predict(model, kernlab::as.kernelMatrix(flipped[, kernlab::SVindex(model), drop = FALSE]),
                               type = "decision")
  list(flipped_decision = drop(decision), beta = drop(beta), b = -kernlab::b(model))
}

# alpha y back from beta: a = U sign(L) U' beta (the map is its own inverse
# on the nonzero eigenvalues)
solve_flipped_coefficients <- function(K, beta) {
  e <- eigen(K, symmetric = TRUE)
  drop(e$vectors %*% diag(sign(e$values)) %*% t(e$vectors) %*% beta)
}

test_that("krein_svm()'s training decision values equal the SVM's on the flipped kernel (the paper's equivalence)", {
  d <- ksvm_data
  expect_gt(indefiniteness(d$K)$signature[["q"]], 10)
  fit <- krein_svm(d$x, d$y, kernel = d$kernel, scale = FALSE, C = 10, probability = FALSE)
  reference <- ksvm_reference(d$K, d$y, 10)
  # two classes: "decision" is (-f, f), f > 0 favouring the second class
  f <- predict(fit, type = "decision")[, 2]
  expect_equal(unname(f), reference$flipped_decision, tolerance = 1e-8)
  expect_equal(fit$pairs[[1]]$beta, reference$beta, tolerance = 1e-8)
  # and K beta + b is that decision too: the raw kernel reproduces it
  expect_equal(drop(d$K %*% reference$beta) + reference$b, reference$flipped_decision, tolerance = 1e-8)
  # beta is dense where alpha was sparse
  expect_lt(length(fit$pairs[[1]]$support), length(d$y))
  expect_true(all(abs(fit$pairs[[1]]$beta) > 0))
})

test_that("krein_svm() predicts new points with the raw kernel: f(x) = sum beta_i k(x, x_i) + b", {
  d <- ksvm_data
  fit <- krein_svm(d$x, d$y, kernel = d$kernel, scale = FALSE, C = 10, probability = FALSE)
  reference <- ksvm_reference(d$K, d$y, 10)
  f <- drop(d$K_new %*% reference$beta) + reference$b
  expect_equal(unname(predict(fit, d$x_new, type = "decision")), unname(cbind(-f, f)), tolerance = 1e-8)
  expect_identical(as.integer(predict(fit, d$x_new)), ifelse(f > 0, 2L, 1L))
  # = the SVM on |K| with Chen et al.'s flip map of new points, s -> U sign(L) U' s
  # (s' P a = s' beta); not the SVM on |K| predicted with the raw rows (s' a)
  flip_svm <- isvm(d$x, d$y, kernel = d$kernel, scale = FALSE, C = 10, probability = FALSE, spectrum = "flip")
  expect_equal(predict(flip_svm, d$x_new, type = "decision"), predict(fit, d$x_new, type = "decision"),
               tolerance = 1e-8)
  raw <- drop(d$K_new %*% solve_flipped_coefficients(d$K, reference$beta)) + reference$b
  expect_gt(max(abs(raw - f)), 0.01 * max(abs(f)))
  # a precomputed kernel gives the same fit
  pre <- krein_svm(d$K, d$y, kernel = "precomputed", C = 10, probability = FALSE)
  expect_equal(predict(pre, d$K_new, type = "decision"), predict(fit, d$x_new, type = "decision"), tolerance = 1e-10)
})

test_that("krein_svm() on several classes: one KSVM per pair, probabilities that sum to 1", {
  set.seed(3)
  fit <- krein_svm(Species ~ ., data = iris, kernel = kernel_tanh(scale = 0.5, offset = -1), C = 10)
  expect_length(fit$pairs, 3L)
  # each pair: its own KSVM on its rows, as the transcription gives it
  x <- scale(as.matrix(iris[, 1:4]))
  K <- kernel_matrix(kernel_tanh(scale = 0.5, offset = -1), x)
  members <- which(iris$Species != "setosa")
  reference <- ksvm_reference(K[members, members], droplevels(iris$Species[members]), 10)
  expect_equal(fit$pairs[[3]]$beta, reference$beta, tolerance = 1e-8)
  p <- predict(fit, iris, type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, 150), tolerance = 1e-12)
  expect_lt(mean(predict(fit) != iris$Species), 0.1)
  expect_output(print(fit), "KSVM")
})

test_that("krein_svm() refuses one class, one point per class, and takes the contract's tuning", {
  d <- ksvm_data
  expect_snapshot(error = TRUE, {
    krein_svm(d$x[1:5, ], factor(rep("a", 5)), kernel = d$kernel, C = 1)
    krein_svm(d$x[1:5, ], factor(c("a", "b", "b", "b", "b")), kernel = d$kernel, C = 1)
    krein_svm(d$x, d$y, kernel = d$kernel, C = -1)
  })
  tuned <- tune_krein(krein_svm, d$x, d$y, grid = list(C = c(1, 10)), kernel = d$kernel, probability = FALSE,
                      folds = 3)
  expect_s3_class(tuned$model, "krein_svm")
  fit <- krein_svm(d$x, d$y, kernel = d$kernel, probability = FALSE)
  expect_true(fit$C %in% c(0.1, 1, 10, 100))
  expect_identical(nrow(fit$cost_cv), 4L)
})
