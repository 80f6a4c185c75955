# krein_svm(): the Krein-space SVM of Loosli, Canu and Ong (2016, TPAMI 38(6),
# Algorithm 1 and Sec. 4): the C-SVM dual on the flipped kernel |K| = U |L| U',
# coefficients mapped back by beta = U sign(L) U' (alpha y), prediction
# f(x) = sum_i beta_i k(x, x_i) + b with the raw kernel. The oracle: kernlab's
# ksvm() on |K| formed here with base::eigen(), and the mapping transcribed.

skip_if_not_installed("kernlab")

ksvm_data <- withr::with_seed(7, local({
  train <- checkerboard(80, size = 2)
  test <- checkerboard(20, size = 2)
  x <- as.matrix(train[, c("x1", "x2")])
  x_new <- as.matrix(test[, c("x1", "x2")])
  kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
  list(x = x, y = train$y, x_new = x_new, kernel = kernel, K = kernel_matrix(kernel, x),
       K_new = kernel_matrix(kernel, x_new, x))
}))

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

test_that("krein_svm() with a positive definite kernel is the C-SVM on K, with no eigendecomposition", {
  # Loosli et al. (2016, Sec. 4): for a positive semidefinite K, |K| = K and
  # beta = alpha y. The oracle: the same kernel precomputed, which krein does
  # not know to be positive definite and flips by its eigendecomposition
  # (its rounding-level negative eigenvalues move K by ~1e-13), and kernlab's
  # ksvm() on K itself
  x <- scale(as.matrix(iris[, 1:4]))
  kernel <- kernel_rbf(gamma = 0.25)
  K <- kernel_matrix(kernel, x)
  new <- x[c(1, 60, 120, 75), ]
  K_new <- kernel_matrix(kernel, new, x)
  fit <- krein_svm(x, iris$Species, kernel = kernel, scale = FALSE, C = 10, probability = FALSE)
  flipped <- krein_svm(precomputed_kernel(K), iris$Species, C = 10, probability = FALSE)
  expect_true(fit$definite)
  expect_false(flipped$definite)
  expect_null(fit$pairs[[1]]$values)
  expect_length(flipped$pairs[[1]]$values, 100L)
  # (to kernlab's stopping tolerance 1e-3: SMO's path of working sets
  # follows the rounding of |K|; kernlab on K itself agrees to 1e-8 below)
  expect_equal(predict(fit, new, type = "decision"), predict(flipped, K_new, type = "decision"), tolerance = 1e-3)
  members <- which(iris$Species != "setosa")
  model <- kernlab::ksvm(kernlab::as.kernelMatrix(K[members, members]), droplevels(iris$Species[members]),
                         kernel = "matrix", C = 10, shrinking = FALSE)
  a <- numeric(length(members))
  a[kernlab::SVindex(model)] <- kernlab::coef(model)[[1]]
  expect_equal(fit$pairs[[3]]$beta, a, tolerance = 1e-8)
  expect_identical(fit$pairs[[3]]$support, flipped$pairs[[3]]$support)
  # the default: the same cross-validation table, cost and Platt model
  set.seed(5)
  chosen <- krein_svm(x, iris$Species, kernel = kernel, scale = FALSE)
  set.seed(5)
  chosen_flipped <- krein_svm(precomputed_kernel(K), iris$Species)
  expect_equal(chosen$cost_cv, chosen_flipped$cost_cv)
  expect_identical(chosen$C, chosen_flipped$C)
  expect_equal(predict(chosen, new, type = "prob"), predict(chosen_flipped, K_new, type = "prob"), tolerance = 1e-3)
  expect_output(print(chosen), "the kernel is positive definite, so |K| = K", fixed = TRUE)
  expect_false("negative_eigenvalues" %in% names(summary(chosen)$model[[1]]))
  expect_true("negative_eigenvalues" %in% names(summary(chosen_flipped)$model[[1]]))
  # an indefinite kernel is flipped
  tanh_fit <- krein_svm(x, iris$Species, kernel = kernel_tanh(scale = 0.5, offset = -1), scale = FALSE, C = 10,
                        probability = FALSE)
  expect_false(tanh_fit$definite)
  expect_gt(sum(tanh_fit$pairs[[1]]$values < 0), 0)
})

test_that("krein_svm() refuses one class, fits a one-point class, and takes the contract's tuning", {
  d <- ksvm_data
  x5 <- d$x[1:5, ]
  kernel <- d$kernel
  expect_snapshot({
    show_error(krein_svm(x5, factor(rep("a", 5)), kernel = kernel, C = 1))
    show_error(krein_svm(d$x, d$y, kernel = kernel, C = -1))
  })
  # a class of one point is fitted, as libsvm fits it (test-one-row-class.R)
  expect_warning(krein_svm(x5, factor(c("a", "b", "b", "b", "b")), kernel = kernel, C = 1),
                 class = "krein_one_row_class_warning", regexp = "Class \"a\" of `y` has one training row")
  tuned <- tune_krein(krein_svm, d$x, d$y, grid = list(C = c(1, 10)), kernel = d$kernel, probability = FALSE,
                      folds = 3)
  expect_s3_class(tuned$model, "krein_svm")
  fit <- krein_svm(d$x, d$y, kernel = d$kernel, probability = FALSE)
  expect_true(fit$C %in% c(0.1, 1, 10, 100))
  expect_identical(nrow(fit$cost_cv), 4L)
})

# The Nystroem KSVM (landmarks): Loosli et al.'s KSVM on the Nystroem kernel
# K^ = K_nm K_mm^+ K_nm' of Schleif, Gisbrecht and Tino (2018, eq. 10),
# transcribed: K^ formed here (pseudo-inverse with the cutoff of nystrom()),
# flipped by base::eigen(), the linear L2-loss SVM on the flipped kernel's
# features U |L|^1/2 by LiblineaR itself (its primal Newton solver sees the
# features only through products that an orthogonal change of the features
# leaves unchanged, so any features of the same flipped kernel give the same
# decision values), beta = U sign(L) U' a with a = U |L|^-1/2 w, and
# prediction k^(x, X) beta + b with the raw Nystroem kernel. `C_train`,
# `C_new`: the kernel of the training and new points against the landmarks,
# `W` the landmarks' kernel.
nystrom_ksvm_reference <- function(C_train, W, C_new, y, cost) {
  ew <- eigen(W, symmetric = TRUE)
  keep <- abs(ew$values) > sqrt(.Machine$double.eps) * max(abs(ew$values))
  W_plus <- ew$vectors[, keep] %*% diag(1 / ew$values[keep]) %*% t(ew$vectors[, keep])
  K_hat <- C_train %*% W_plus %*% t(C_train)
  K_hat <- (K_hat + t(K_hat)) / 2
  e <- eigen(K_hat, symmetric = TRUE)
  nonzero <- abs(e$values) > 1e-9 * max(abs(e$values))
  U <- e$vectors[, nonzero]
  L <- e$values[nonzero]
  psi <- U %*% diag(sqrt(abs(L)))
  model <- LiblineaR::LiblineaR(psi, y, type = 2, cost = cost, epsilon = 0.01, bias = 1)
  direction <- if (as.character(model$ClassNames[1]) == levels(y)[2]) 1 else -1
  w <- direction * model$W[seq_len(ncol(psi))]
  b <- direction * model$W[ncol(psi) + 1]
  a <- drop(U %*% (w / sqrt(abs(L))))
  beta <- drop(U %*% (sign(L) * crossprod(U, a)))
  # the flip of K_mm alone, C |K_mm|^+ C' = Phi Phi' (not |K^|: the columns of
  # Phi are not orthogonal)
  W_abs_plus <- ew$vectors[, keep] %*% diag(1 / abs(ew$values[keep])) %*% t(ew$vectors[, keep])
  list(decision = drop(psi %*% w) + b, flipped = drop(e$vectors %*% (abs(e$values) * t(e$vectors)) %*% a) + b,
       new = drop(C_new %*% W_plus %*% t(C_train) %*% beta) + b, negative = sum(L < 0),
       K_hat_abs = e$vectors %*% (abs(e$values) * t(e$vectors)), phi_phi = C_train %*% W_abs_plus %*% t(C_train))
}

test_that("krein_svm(landmarks = ) is the KSVM on the Nystroem kernel, predicting with the raw Nystroem kernel", {
  skip_if_not_installed("LiblineaR")
  d <- ksvm_data
  landmarks <- 1:30
  fit <- krein_svm(d$x, d$y, kernel = d$kernel, scale = FALSE, C = 10, probability = FALSE, landmarks = landmarks)
  reference <- nystrom_ksvm_reference(d$K[, landmarks], d$K[landmarks, landmarks], d$K_new[, landmarks], d$y, 10)
  expect_gt(reference$negative, 5)
  # training: the linear SVM's decision values = the kernel SVM's on |K^| (|K^| a + b)
  expect_equal(reference$flipped, reference$decision, tolerance = 1e-10)
  scale <- max(abs(reference$decision))
  expect_equal(unname(predict(fit, type = "decision")[, 2]) / scale, reference$decision / scale, tolerance = 1e-8)
  # new points: f(x) = k^(x, X) beta + b, from the landmarks alone
  f <- unname(predict(fit, d$x_new, type = "decision")[, 2])
  expect_equal(f / scale, reference$new / scale, tolerance = 1e-8)
  expect_equal(f, drop(kernel_matrix(d$kernel, d$x_new, d$x[landmarks, ]) %*% fit$pairs[[1]]$coefficients) +
                 fit$pairs[[1]]$b, tolerance = 1e-10)
  # the columns of Phi are not orthogonal: the flip of K_mm alone is not |K^|
  expect_gt(max(abs(reference$phi_phi - reference$K_hat_abs)), 0.01 * max(abs(reference$K_hat_abs)))
  expect_output(print(fit), "Nystroem kernel on 30 landmarks")
  # a precomputed kernel gives the same fit
  pre <- krein_svm(d$K, d$y, kernel = "precomputed", C = 10, probability = FALSE, landmarks = landmarks)
  expect_equal(predict(pre, d$K_new, type = "decision"), predict(fit, d$x_new, type = "decision"),
               tolerance = 1e-8)
})

test_that("krein_svm(landmarks = ) on several classes: each pair the transcription, probabilities that sum to 1", {
  skip_if_not_installed("LiblineaR")
  x <- scale(as.matrix(iris[, 1:4]))
  kernel <- kernel_tanh(scale = 0.5, offset = -1)
  landmarks <- seq(1, 150, by = 5)
  set.seed(4)
  fit <- krein_svm(x, iris$Species, kernel = kernel, scale = FALSE, C = 10, landmarks = landmarks)
  expect_length(fit$pairs, 3L)
  p <- predict(fit, x[1:20, ], type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, 20), tolerance = 1e-12)
  expect_lt(mean(predict(fit) != iris$Species), 0.15)
  # each pair (i, j), in kernlab's order: the transcription on the pair's rows
  # with every landmark
  K <- kernel_matrix(kernel, x)
  K_new <- kernel_matrix(kernel, x[c(3, 60, 120), ], x)
  for (pair in fit$pairs) {
    members <- which(iris$Species %in% pair$classes)
    reference <- nystrom_ksvm_reference(K[members, landmarks], K[landmarks, landmarks], K_new[, landmarks],
                                        factor(as.character(iris$Species[members]), levels = pair$classes), 10)
    expect_equal(drop(K_new[, landmarks] %*% pair$coefficients) + pair$b, reference$new, tolerance = 1e-8)
  }
})

test_that("krein_svm(landmarks = ) refuses what the full model refuses, and says when LiblineaR is missing", {
  skip_if_not_installed("LiblineaR")
  d <- ksvm_data
  x5 <- d$x[1:5, ]
  kernel <- d$kernel
  expect_snapshot({
    show_error(krein_svm(x5, factor(rep("a", 5)), kernel = kernel, C = 1, landmarks = 1:3))
    show_error(krein:::check_liblinear(available = FALSE))
  })
  expect_warning(krein_svm(x5, factor(c("a", "b", "b", "b", "b")), kernel = kernel, C = 1, landmarks = 1:3),
                 class = "krein_one_row_class_warning", regexp = "Class \"a\" of `y` has one training row")
  # the cross-validated cost and the Platt model refit the flip in each fold
  set.seed(6)
  fit <- krein_svm(d$x, d$y, kernel = d$kernel, landmarks = "random", m = 20)
  expect_true(fit$C %in% c(0.1, 1, 10, 100))
  expect_identical(nrow(fit$cost_cv), 4L)
  expect_equal(unname(rowSums(predict(fit, d$x_new, type = "prob"))), rep(1, 20), tolerance = 1e-12)
  # a cost LIBLINEAR's solver never finishes with (C = 1e300 hung R, where the
  # full model copes) is refused; at the largest accepted cost the fit is the
  # hard-margin limit it reaches at 1e10 already
  for (C in c(1e16, 1e120, 1e300)) {
    expect_error(krein_svm(d$x, d$y, kernel = d$kernel, landmarks = 1:20, C = C, probability = FALSE),
                 class = "krein_error", regexp = "`C` must be at most 1e\\+15 with landmarks")
  }
  # so is a cost it never finishes with at the other end (C = 1e-200 hung R),
  # and one printed as the bound is not taken for it
  for (C in c(1e-16, 1e-200, 5e-324)) {
    expect_error(krein_svm(d$x, d$y, kernel = d$kernel, landmarks = 1:20, C = C, probability = FALSE),
                 class = "krein_error", regexp = "`C` must be at least 1e-15 with landmarks")
  }
  expect_error(krein_svm(d$x, d$y, kernel = d$kernel, landmarks = 1:20, C = 1.0000001e15, probability = FALSE),
               class = "krein_error", regexp = "not 1.0000001e+15:", fixed = TRUE)
  expect_s3_class(krein_svm(d$x, d$y, kernel = d$kernel, landmarks = 1:20, C = 1e-15, probability = FALSE),
                  "krein_svm")
  hard <- krein_svm(d$x, d$y, kernel = d$kernel, landmarks = 1:20, C = 1e15, probability = FALSE)
  near <- krein_svm(d$x, d$y, kernel = d$kernel, landmarks = 1:20, C = 1e10, probability = FALSE)
  expect_identical(predict(hard, d$x_new), predict(near, d$x_new))
  expect_s3_class(krein_svm(d$x, d$y, kernel = d$kernel, C = 1e300, probability = FALSE), "krein_svm")
})

test_that("krein_svm's default Platt model is fitted to the cost cross-validation's held-out decision values", {
  skip_if_not_installed("kernlab")
  # plain R: each fold's KSVM at the chosen cost, fitted on the other folds
  # (interleaved by class) -- the flip by base::eigen(), the dual by the
  # core's two-class solver as the cross-validation solves it (smo_binary(),
  # checked against the dual's KKT conditions and kernlab in
  # test-svm_solver.R), the map back transcribed -- gives its held-out
  # points their decision value f (f > 0 favouring the second class);
  # Platt's sigmoid is fitted to those values. No second cross-validation:
  # R's RNG is untouched. The fold fits by the public interface (kernlab's
  # dual) agree to kernlab's tolerance.
  d <- ksvm_data
  seed <- .Random.seed
  fit <- krein_svm(precomputed_kernel(d$K), d$y)
  expect_identical(.Random.seed, seed)
  fold <- integer(length(d$y))
  fold[order(d$y)] <- rep_len(1:5, length(d$y))
  held_out <- kernlab_held_out <- numeric(length(d$y))
  for (k in 1:5) {
    tr <- which(fold != k)
    te <- which(fold == k)
    e <- eigen(d$K[tr, tr], symmetric = TRUE)
    flipped <- e$vectors %*% diag(abs(e$values)) %*% t(e$vectors)
    solved <- krein:::smo_binary(flipped, d$y[tr], fit$C)
    beta <- e$vectors %*% diag(sign(e$values)) %*% t(e$vectors) %*% solved$coefficients
    held_out[te] <- drop(d$K[te, tr, drop = FALSE] %*% beta) + solved$b
    part <- krein_svm(precomputed_kernel(d$K[tr, tr]), d$y[tr], C = fit$C, probability = FALSE)
    kernlab_held_out[te] <- predict(part, d$K[te, tr, drop = FALSE], type = "decision")[, 2]
  }
  expect_lt(max(abs(held_out - kernlab_held_out)), 0.05 * max(1, max(abs(kernlab_held_out))))
  # (to 1e-3: the flip here rounds otherwise than the fit's LAPACK one, and
  # SMO's path of working sets follows rounding, ending elsewhere within its
  # tolerance; a wrong fold, sign or pair would miss by far more)
  sigmoid <- krein:::platt_sigmoid(held_out, d$y == levels(d$y)[2])
  expect_equal(fit$platt$A, sigmoid$A, tolerance = 1e-3)
  expect_equal(fit$platt$B, sigmoid$B, tolerance = 1e-3)
})

test_that("with landmarks and many points, krein_svm chooses C and fits Platt on a stratified subsample, and fits on all", {
  skip_if_not_installed("kernlab")
  skip_if_not_installed("LiblineaR")
  # the subsample: each class's share, spread evenly over its rows in data
  # order, all rows when there are few
  y <- factor(rep(c("a", "b", "c"), c(50, 30, 20)))
  rows <- krein:::selection_rows(y, 40)
  expect_identical(as.vector(table(y[rows])), c(20L, 12L, 8L))
  expect_identical(rows, sort(rows))
  expect_identical(krein:::selection_rows(y, 100), seq_len(100))
  expect_identical(krein:::selection_rows(y, 40), rows)
  # the fit, with the threshold lowered from 10,000 to 40 points: C and the
  # Platt sigmoid are those of a default fit on the subsample alone (the
  # same landmark points, so the same Nystroem features); its KSVMs use
  # every point
  d <- ksvm_data
  landmarks <- c(1, 2, 3, 5, 8, 13, 21, 34)
  sub <- krein:::selection_rows(d$y, 40)
  landmarks <- landmarks[landmarks %in% sub]
  local_krein_functions(list(svm_selection_points = function() 40L))
  fit <- krein_svm(d$x, d$y, kernel = d$kernel, landmarks = landmarks)
  alone <- krein_svm(d$x[sub, ], d$y[sub], kernel = d$kernel, landmarks = match(landmarks, sub))
  expect_equal(fit$cost_cv, alone$cost_cv)
  expect_identical(fit$C, alone$C)
  expect_equal(fit$platt[c("A", "B")], alone$platt[c("A", "B")], tolerance = 1e-8)
  on_all <- krein_svm(d$x, d$y, kernel = d$kernel, landmarks = landmarks, C = fit$C, probability = FALSE)
  expect_identical(predict(fit, d$x_new), predict(on_all, d$x_new))
  expect_false(isTRUE(all.equal(predict(alone, d$x_new, type = "decision"), predict(fit, d$x_new, type = "decision"))))
})

test_that("a kernel positive semidefinite to rounding is its own flip, solved as given", {
  # Loosli et al. (2016, Sec. 4): |K| = K for a positive semidefinite K.
  # Rebuilt as U |Lambda| U', K would change in its last digits, which under
  # OpenBLAS moved a precomputed copy of a positive definite kernel's Platt
  # probabilities by 1e-5 from the kernel's own fit (test-combinations.R)
  set.seed(3)
  X <- matrix(rnorm(40), 20)
  K <- tcrossprod(X)  # rank 2: eighteen eigenvalues at rounding level, some negative
  flip <- krein:::krein_svm_flip(K)
  expect_true(flip$identity)
  expect_identical(flip$flipped, (K + t(K)) / 2)
  indefinite <- krein:::krein_svm_flip(K - 0.5 * diag(20))
  expect_false(indefinite$identity)
  expect_equal(indefinite$flipped, with(eigen(K - 0.5 * diag(20), symmetric = TRUE),
                                        vectors %*% (abs(values) * t(vectors))), tolerance = 1e-10)
})
