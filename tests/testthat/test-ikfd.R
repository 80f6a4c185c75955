# ikfd(): full iKFD against the plain-R transcription in helper-ikfd.R
# (paper 000, eqs. 7-8), Ny-iKFD against the full iKFD where the Nystroem
# approximation is exact (paper 002, Sec. 5.2).

three_class_data <- function(n = 60, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(2 * n), n, 2)
  y <- factor(rep(c("a", "b", "c"), length.out = n))
  x[y == "b", 1] <- x[y == "b", 1] + 1.5
  x[y == "c", 2] <- x[y == "c", 2] + 1.5
  list(x = x, y = y)
}

test_that("full iKFD equals the transcription for pd and indefinite kernels, 2 and 3 classes", {
  d <- three_class_data()
  x_new <- matrix(rnorm(40), 20, 2)
  kernels <- list(kernel_rbf(0.5), kernel_tanh(scale = 0.5, offset = -1))
  for (kernel in kernels) {
    for (y in list(d$y, droplevels(factor(ifelse(d$y == "a", "a", "b"))))) {
      for (weights in c("equal", "prior")) {
        fit <- ikfd(d$x, y, kernel = kernel, ridge_relative = 1e-3, weights = weights, scale = FALSE)
        ref <- ref_ikfd(kernel_matrix(d$x, kernel = kernel), y, 1e-3, weights)
        expected <- ref_ikfd_decisions(ref, kernel_matrix(x_new, d$x, kernel = kernel))
        got <- predict(fit, x_new, type = "decision")
        expect_equal(unname(got), unname(expected), tolerance = 1e-8)
        expect_equal(unname(fit$coefficients), ref$alpha, tolerance = 1e-8)
      }
    }
  }
})

test_that("the tanh kernel used above is indefinite, so the test covers IKFD proper", {
  d <- three_class_data()
  K <- kernel_matrix(d$x, kernel = kernel_tanh(scale = 0.5, offset = -1))
  expect_lt(min(eigen(K, symmetric = TRUE, only.values = TRUE)$values), -1e-3)
})

test_that("Ny-iKFD with every training point a landmark equals the full iKFD", {
  d <- three_class_data()
  x_new <- matrix(rnorm(40), 20, 2)
  for (kernel in list(kernel_rbf(1), kernel_tanh(scale = 0.5, offset = -1))) {
    for (weights in c("equal", "prior")) {
      # (the same ridge: the full fit's default chooses its own)
      full <- ikfd(d$x, d$y, kernel = kernel, weights = weights, ridge_relative = 1e-4)
      ny <- ikfd(d$x, d$y, kernel = kernel, weights = weights, landmarks = seq_len(nrow(d$x)),
                 ridge_relative = 1e-4)
      expect_equal(predict(ny, x_new, type = "decision"), predict(full, x_new, type = "decision"),
                   tolerance = 1e-7)
    }
  }
})

test_that("with a rank-6 kernel and 6 landmarks in general position Ny-iKFD is the full iKFD", {
  # (1 + <x, x'>)^2 in 2-D spans {1, x1, x2, x1^2, x1 x2, x2^2}: rank 6
  d <- three_class_data(n = 90)
  kernel <- kernel_poly(degree = 2, scale = 1, offset = 1)
  x_new <- matrix(rnorm(40), 20, 2)
  full <- ikfd(d$x, d$y, kernel = kernel, scale = FALSE, ridge_relative = 1e-4)
  ny <- ikfd(d$x, d$y, kernel = kernel, landmarks = c(1, 2, 3, 10, 20, 30), scale = FALSE, ridge_relative = 1e-4)
  expect_identical(length(ny$values), 6L)
  expect_equal(predict(ny, x_new, type = "decision"), predict(full, x_new, type = "decision"),
               tolerance = 1e-7)
  # and 5 landmarks cannot be exact
  five <- ikfd(d$x, d$y, kernel = kernel, landmarks = c(1, 2, 3, 10, 20), scale = FALSE, ridge_relative = 1e-4)
  expect_gt(max(abs(predict(five, x_new, type = "decision") - predict(full, x_new, type = "decision"))), 1e-5)
})

test_that("Ny-iKFD streams the landmark kernel in blocks without changing the result", {
  d <- three_class_data(n = 300)
  one <- ikfd(d$x, d$y, kernel = kernel_rbf(1), landmarks = seq(1, 300, by = 7))
  old <- options(krein.block_rows = 37L)
  on.exit(options(old))
  blocks <- ikfd(d$x, d$y, kernel = kernel_rbf(1), landmarks = seq(1, 300, by = 7))
  expect_equal(blocks$coefficients, one$coefficients, tolerance = 1e-9)
  # the leave-one-out pass of the default ridge too
  expect_equal(blocks$ridge_selection$press, one$ridge_selection$press, tolerance = 1e-10)
  expect_identical(blocks$ridge_relative, one$ridge_relative)
  expect_equal(blocks$training_error, one$training_error)
})

test_that("Ny-iKFD equals the transcription run on the dense Nystroem kernel", {
  # The low-rank algebra (?ikfd, Ny-iKFD) against iKFD on K_hat = C W^+ C'.
  d <- three_class_data(n = 120)
  kernel <- kernel_tanh(scale = 0.5, offset = -1)
  landmarks <- seq(2, 120, by = 5)
  C <- kernel_matrix(d$x, d$x[landmarks, ], kernel = kernel)
  W <- C[landmarks, ]
  K_hat <- C %*% MASS::ginv(W) %*% t(C)
  ref <- ref_ikfd(K_hat, d$y, 1e-4)
  ny <- ikfd(d$x, d$y, kernel = kernel, landmarks = landmarks, scale = FALSE, ridge_relative = 1e-4)
  x_new <- matrix(rnorm(40), 20, 2)
  # f(x) = k_hat(x, X) alpha + b, k_hat(x, X) = k(x, L) W^+ C'
  k_hat_new <- kernel_matrix(x_new, d$x[landmarks, ], kernel = kernel) %*% MASS::ginv(W) %*% t(C)
  expect_equal(unname(predict(ny, x_new, type = "decision")),
               unname(ref_ikfd_decisions(ref, k_hat_new)), tolerance = 1e-6)
  expect_identical(unname(ny$signature), c(sum(ny$values > 0), sum(ny$values < 0)))
  expect_gt(ny$signature[["q"]], 0)
})

test_that("the relative ridge makes iKFD invariant to scaling the kernel", {
  d <- three_class_data()
  K <- kernel_matrix(d$x, kernel = kernel_rbf(0.5))
  K_new <- kernel_matrix(d$x[1:10, ] + 0.1, d$x, kernel = kernel_rbf(0.5))
  a <- ikfd(K, d$y, kernel = "precomputed")
  b <- ikfd(1000 * K, d$y, kernel = "precomputed")
  expect_equal(predict(b, 1000 * K_new, type = "decision"), predict(a, K_new, type = "decision"),
               tolerance = 1e-8)
  expect_equal(b$ridge, 1e6 * a$ridge, tolerance = 1e-10)
})

test_that("probabilities are rows of a distribution, classes their argmax or DisTools' rule", {
  d <- three_class_data()
  for (landmarks in list(NULL, "meb")) {
    set.seed(2)
    fit <- ikfd(d$x, d$y, kernel = kernel_rbf(1), landmarks = landmarks)
    x_new <- matrix(rnorm(100), 50, 2)
    p <- predict(fit, x_new, type = "prob")
    expect_identical(dim(p), c(50L, 3L))
    expect_identical(colnames(p), levels(d$y))
    expect_equal(rowSums(p), rep(1, 50), tolerance = 1e-12)
    expect_true(all(p >= 0 & p <= 1))
    f <- predict(fit, x_new, type = "decision")
    cls <- predict(fit, x_new)
    expect_identical(levels(cls), levels(d$y))
    expect_identical(as.integer(cls), max.col(p, ties.method = "first"))
    expect_identical(predict(fit, x_new, rule = "posterior"), cls)
    # DisTools' rule: the argmax of the one-vs-rest decision values
    distools <- predict(fit, x_new, rule = "decision")
    expect_identical(levels(distools), levels(d$y))
    expect_identical(as.integer(distools), max.col(f, ties.method = "first"))
    # the rule changes the class only
    expect_identical(predict(fit, x_new, type = "prob", rule = "decision"), p)
  }
})

test_that("the two class rules can disagree, and rule = \"decision\" follows the decision values", {
  # Three overlapping classes: one-vs-rest scores whose spreads differ, so the
  # pooled-Gaussian posterior and the largest score part ways near boundaries.
  d <- three_class_data(n = 150, seed = 12)
  fit <- ikfd(d$x, d$y, kernel = kernel_rbf(1))
  set.seed(13)
  x_new <- matrix(rnorm(2000, sd = 1.5), 1000, 2)
  posterior <- predict(fit, x_new)
  distools <- predict(fit, x_new, rule = "decision")
  expect_gt(mean(posterior != distools), 0)
  f <- predict(fit, x_new, type = "decision")
  expect_identical(as.character(distools), colnames(f)[max.col(f, ties.method = "first")])
  # for the training points too (the stored training scores), with NA padding
  expect_identical(as.integer(predict(fit, rule = "decision")),
                   max.col(predict(fit, type = "decision"), ties.method = "first"))
  expect_identical(unname(predict(fit, d$x, rule = "decision")), unname(predict(fit, rule = "decision")))
})

test_that("two-class probabilities follow the pooled Gaussian model of the scores", {
  # Transcription of the calibration in ?ikfd: 1-D Gaussians with pooled
  # variance on the training scores f, class proportions as priors.
  d <- three_class_data()
  y <- droplevels(factor(ifelse(d$y == "a", "a", "b")))
  fit <- ikfd(d$x, y, kernel = kernel_rbf(1))
  f <- predict(fit, d$x, type = "decision")[, 1]
  mu <- tapply(f, y, mean)
  s2 <- sum((f - mu[as.integer(y)])^2) / (length(f) - 2)
  prior <- as.vector(table(y)) / length(y)
  x_new <- matrix(rnorm(20), 10, 2)
  g <- predict(fit, x_new, type = "decision")[, 1]
  dens <- sapply(1:2, function(j) prior[j] * dnorm(g, mu[j], sqrt(s2)))
  expect_equal(unname(predict(fit, x_new, type = "prob")), dens / rowSums(dens), tolerance = 1e-6)
})

test_that("three-class probabilities follow the pooled Gaussian model of the one-vs-rest scores", {
  # Transcription of the calibration in ?ikfd for c = 3: Gaussian densities of
  # the three one-vs-rest training scores with one pooled covariance
  # (denominator n - c, plus 1e-10 of its mean diagonal: calibrate_scores()),
  # the class proportions as priors; written with dense solve() and
  # determinant(), sharing no code with the package. (MASS::lda, the same
  # model without the ridge, differs by ~1e-5 here: the three one-vs-rest
  # scores are nearly collinear, the covariance's condition number ~1e5.)
  d <- three_class_data()
  fit <- ikfd(d$x, d$y, kernel = kernel_rbf(1))
  f <- predict(fit, type = "decision")
  n <- nrow(f)
  means <- rowsum(f, d$y) / as.vector(table(d$y))
  centred <- f - means[as.integer(d$y), ]
  S <- crossprod(centred) / (n - 3)
  S <- S + diag(1e-10 * mean(diag(S)), 3)
  prior <- as.vector(table(d$y)) / n
  set.seed(11)
  x_new <- matrix(rnorm(30, sd = 1.5), 15, 2)
  g <- predict(fit, x_new, type = "decision")
  log_density <- sapply(1:3, function(j) {
    z <- t(g) - means[j, ]
    log(prior[j]) - 0.5 * colSums(z * solve(S, z)) - 0.5 * determinant(S)$modulus
  })
  expected <- exp(log_density - apply(log_density, 1, max))
  expected <- expected / rowSums(expected)
  p <- predict(fit, x_new, type = "prob")
  expect_equal(unname(p), expected, tolerance = 1e-8)
  expect_equal(unname(predict(fit, type = "prob")[1:5, ]),
               unname(predict(fit, d$x[1:5, ], type = "prob")), tolerance = 1e-8)
})

test_that("a Nystroem fit keeps the landmarks and m-vectors, not the training set", {
  set.seed(3)
  train <- checkerboard(2000, size = 3)
  fit <- ikfd(y ~ x1 + x2, data = train, kernel = kernel_rbf(5), landmarks = "meb")
  m <- length(fit$landmarks$class)
  expect_null(fit$x)
  expect_identical(dim(fit$coefficients), c(m, 1L))
  expect_identical(dim(fit$landmarks$points), c(m, 2L))
  expect_lt(as.numeric(object.size(fit)), 200e3)
  # the training predictions come from the training scores kept by the fit
  expect_equal(predict(fit, type = "decision"), predict(fit, train, type = "decision"),
               ignore_attr = TRUE, tolerance = 1e-8)
  expect_identical(unname(predict(fit)), unname(predict(fit, train)))
  expect_identical(fitted(fit), unname(predict(fit)))
  test <- checkerboard(2000, size = 3)
  expect_lt(mean(predict(fit, test) != test$y), 0.1)
})

test_that("formula, data frame and precomputed inputs give the same fit", {
  set.seed(4)
  train <- checkerboard(150, size = 2)
  test <- checkerboard(30, size = 2)
  kernel <- kernel_rbf(2)
  a <- ikfd(y ~ x1 + x2, data = train, kernel = kernel, scale = FALSE)
  b <- ikfd(train[, 1:2], train$y, kernel = kernel, scale = FALSE)
  K <- kernel_matrix(as.matrix(train[, 1:2]), kernel = kernel)
  c <- ikfd(K, train$y, kernel = "precomputed")
  K_new <- kernel_matrix(as.matrix(test[, 1:2]), as.matrix(train[, 1:2]), kernel = kernel)
  expect_equal(unname(predict(a, test, type = "prob")), unname(predict(b, test[, 1:2], type = "prob")))
  expect_equal(unname(predict(c, K_new, type = "decision")), unname(predict(a, test, type = "decision")),
               tolerance = 1e-10)
  # Nystroem on a precomputed kernel uses the landmark columns of the test kernel
  ny_c <- ikfd(K, train$y, kernel = "precomputed", landmarks = 1:40)
  ny_a <- ikfd(y ~ x1 + x2, data = train, kernel = kernel, landmarks = 1:40, scale = FALSE)
  expect_equal(unname(predict(ny_c, K_new, type = "decision")), unname(predict(ny_a, test, type = "decision")),
               tolerance = 1e-8)
  expect_equal(unname(predict(a)), unname(predict(a, train)))
})

test_that("ikfd() fits dissimilarity data", {
  set.seed(5)
  balls <- ball_dissimilarities(40)
  fit <- ikfd(kernel_from_dissimilarity(balls$D), balls$y)
  expect_lt(fit$training_error, 0.3)
  ny <- ikfd(kernel_from_dissimilarity(balls$D), balls$y, landmarks = "meb")
  expect_s3_class(ny, "ikfd")
  expect_true(all(ny$landmarks$balls[[1]]$squared))
})

test_that("print, summary and plot work for full and Nystroem fits", {
  set.seed(6)
  train <- checkerboard(200, size = 2)
  full <- ikfd(y ~ x1 + x2, data = train, kernel = kernel_rbf(2), ridge_relative = 1e-4)
  ny <- ikfd(y ~ x1 + x2, data = train, kernel = kernel_rbf(2), landmarks = "kmeans", m = 20)
  expect_output(expect_identical(print(full), full), "Indefinite kernel Fisher discriminant\n")
  expect_output(print(full), "ridge_relative = 1e-04; absolute ridge mu = ")
  expect_output(print(ny), "Fisher discriminant \\(Nystroem, 20 k-means landmarks\\)")
  expect_output(print(ny), "approximated kernel of rank")
  s <- summary(ny)
  expect_output(print(s), "signature")
  expect_identical(sum(s$model$Classes$landmarks), 20L)
  expect_equal(s$model$Discriminants$ridge, ny$ridge)
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(full), full)
  expect_identical(plot(ny, data = train), ny)
  g <- gaussian_mixture_2d(90)
  three <- ikfd(g[, 1:2], factor(rep(1:3, 30)), kernel = kernel_rbf(1))
  expect_identical(plot(three), three)
  K <- kernel_matrix(as.matrix(train[, 1:2]), kernel = kernel_rbf(2))
  pre <- ikfd(K, train$y, kernel = "precomputed")
  expect_identical(plot(pre), pre)
})

test_that("bad input is a krein_error naming the argument", {
  d <- three_class_data()
  expect_snapshot(show_error(ikfd(d$x, d$y, landmarks = c(1, 2, 200))))
  expect_snapshot(show_error(ikfd(d$x, d$y, landmarks = c(1, 2, 2))))
  expect_snapshot(show_error(ikfd(d$x, d$y, landmarks = "meb", eps = 1)))
  expect_snapshot(show_error(ikfd(d$x, d$y, landmarks = "random", m = 61)))
  expect_snapshot(show_error(ikfd(d$x, d$y, ridge_relative = 0)))
  expect_snapshot(show_error(ikfd(d$x, d$y, weights = "flat")))
  expect_snapshot(show_error(ikfd(d$x, d$y, landmarks = "grid")))
})

test_that("the absolute ridge is resolved at the fit, stored and printed", {
  # mu = ridge_relative * tr(N) / n (?ikfd, Regularisation), per discriminant
  d <- three_class_data()
  K <- kernel_matrix(d$x, kernel = kernel_rbf(0.5))
  fit <- ikfd(K, d$y, kernel = "precomputed", ridge_relative = 1e-3)
  expect_identical(fit$ridge_relative, 1e-3)
  trace_N <- vapply(levels(d$y), function(l) {
    sum(vapply(list(d$y == l, d$y != l), function(g) {
      K_G <- K[, g, drop = FALSE]
      sum(K_G^2) - sum(rowSums(K_G)^2) / sum(g)
    }, numeric(1)))
  }, numeric(1))
  expect_equal(fit$ridge, unname(1e-3 * trace_N / nrow(K)), tolerance = 1e-10)
  expect_output(print(fit), "ridge_relative = 0.001; absolute ridge mu = \\(")
  # DisTools' absolute ridge mu = 1e-4 through the relative one (?ikfd)
  absolute <- ikfd(K, d$y, kernel = "precomputed", ridge_relative = 1e-3 * 1e-4 / fit$ridge[1])
  expect_equal(absolute$ridge[1], 1e-4, tolerance = 1e-10)
})

test_that("resolved widths are reused: a point predicts the same alone or among others", {
  # kernel_rbf() takes its width from the training data (median heuristic):
  # prediction must not recompute it from newdata.
  d <- three_class_data()
  x_new <- matrix(rnorm(40, sd = 2), 20, 2)
  for (landmarks in list(NULL, 1:30)) {
    fit <- ikfd(d$x, d$y, landmarks = landmarks)
    many <- predict(fit, x_new, type = "decision")
    one <- predict(fit, x_new[7, , drop = FALSE], type = "decision")
    expect_equal(one, many[7, , drop = FALSE], tolerance = 1e-12)
    # the posteriors exponentiate log-densities of size ~100 for these far
    # points, which turns a last-bit difference of the decision values (a
    # one-row product may take another BLAS kernel than a 20-row one) into
    # about 1e-12 relative, beyond which OpenBLAS failed; 1e-10 holds under
    # any correct BLAS
    expect_equal(predict(fit, x_new[7, , drop = FALSE], type = "prob"),
                 predict(fit, x_new, type = "prob")[7, , drop = FALSE], tolerance = 1e-10)
  }
})

test_that("the registry entry: ridge_relative is tunable, k-means landmarks need the inputs", {
  info <- krein:::model_info("ikfd")
  # `spectrum`: every kernel model's (R/spectrum.R)
  expect_identical(info$parameters$parameter, c("ridge_relative", "spectrum"))
  expect_identical(info$predict_args, "rule")
  expect_false(info$needs_self(list()))
  expect_false(info$needs_inputs(list()))
  expect_false(info$needs_inputs(list(landmarks = "meb")))
  expect_false(info$needs_inputs(list(landmarks = 1:10)))
  expect_true(info$needs_inputs(list(landmarks = "kmeans")))
})

test_that("renamed and unknown arguments, and bad rules, are errors", {
  d <- three_class_data()
  train <- data.frame(d$x, y = d$y)
  # `reg` is a renamed argument: `ridge_relative`
  expect_snapshot(show_error(ikfd(y ~ ., data = train, reg = 1e-3)))
  expect_error(ikfd(d$x, d$y, reg = 1e-3), class = "krein_argument_error")
  fit <- ikfd(d$x, d$y, kernel = kernel_rbf(1))
  expect_snapshot(show_error(predict(fit, d$x[1:3, ], rule = "argmax")))
  expect_error(predict(fit, d$x[1:3, ], rule = "argmax"), class = "krein_error")
})

test_that("scores without spread: the calibration floors the variance, warns and records it", {
  # Constant inputs give one constant kernel: every training score is the
  # same, and a calibration dividing by that zero variance would end in a
  # base error ("system is computationally singular").
  x <- matrix(1, 100, 2)
  y <- factor(rep(1:2, 50))
  warnings <- character()
  fit <- withCallingHandlers(ikfd(x, y, kernel = kernel_rbf(1)), warning = function(w) {
    warnings <<- c(warnings, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  expect_true(any(grepl("no spread within the classes", warnings)))
  expect_true(fit$calibration$floored)
  p <- predict(fit, matrix(1, 3, 2), type = "prob")
  expect_true(all(is.finite(p)))
  # the class means of the scores coincide: the posteriors are the priors
  expect_equal(unname(p), matrix(0.5, 3, 2))
  expect_equal(unname(predict(fit, type = "prob")), matrix(0.5, 100, 2))
  expect_output(print(fit), "standard deviation floored at")
  expect_s3_class(predict(fit, matrix(1, 3, 2)), "factor")
  # an ordinary fit is not floored
  d <- three_class_data()
  expect_false(ikfd(d$x, d$y, kernel = kernel_rbf(1))$calibration$floored)
})

test_that("scores that separate the classes without spread give certain probabilities", {
  # a precomputed block kernel: within a class every score is the same, the
  # classes' scores differ, so the floored calibration is certain
  y <- factor(rep(c("a", "b"), each = 4))
  K <- outer(as.integer(y), as.integer(y), function(i, j) ifelse(i == j, 1, 0))
  fit <- suppressWarnings(ikfd(K, y, kernel = "precomputed"))
  expect_true(fit$calibration$floored)
  p <- predict(fit, type = "prob")
  expect_true(all(is.finite(p)))
  expect_equal(unname(p), unname(1 * cbind(y == "a", y == "b")))
})

test_that("a relative ridge far below rounding is raised and doubled, with a warning giving it", {
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  # doubling 1e-200 alone (60 times) would never reach the rounding level of
  # the scatter: the ridge is raised to that level, then doubled
  expect_warning(fit <- ikfd(X, d$y, ridge_relative = 1e-200, scale = FALSE), class = "krein_warning",
                 regexp = "raised and doubled until it had one, to mu = [0-9.e-]+")
  expect_true(fit$ridge_increased)
  expect_gt(fit$ridge, 1e-200 * 1e10)
  expect_output(print(fit), "raised until the scatter had a Cholesky factor")
  expect_true(all(is.finite(predict(fit, X, type = "prob"))))
  # the Nystroem path: with every point a landmark and a kernel of rank 59 the
  # small system is as rank-deficient as the full one
  expect_warning(ny <- ikfd(X, d$y, kernel = kernel_rbf(1), ridge_relative = 1e-200,
                            landmarks = seq_len(60), scale = FALSE),
                 class = "krein_warning", regexp = "raised and doubled")
  expect_true(ny$ridge_increased)
  expect_false(ikfd(X, d$y, scale = FALSE)$ridge_increased)
})

# Plain-R transcription of the default ridge: for each relative
# ridge of the grid, the leave-one-out squared errors of the ridge regressions
# of each discriminant's first-group indicator on the kernel rows (intercept
# unpenalised, penalty mu ||a||^2, mu = ridge_relative tr(N_d) / n), by
# refitting without each point in turn; one row per point, one column per
# ridge. The choice: the largest ridge whose sum (PRESS) is within one
# standard error (sqrt(n) sd of the points' losses) of the smallest.
ref_ikfd_loo_losses <- function(K, y, grid) {
  n <- nrow(K)
  y <- as.integer(factor(y))
  d <- if (max(y) == 2) 1 else max(y)
  vapply(grid, function(r) {
    total <- double(n)
    for (j in seq_len(d)) {
      t <- as.double(y == j)
      mu <- r * sum(diag(ref_ikfd_scatter(K, y == j))) / n
      for (i in seq_len(n)) {
        X <- K[-i, , drop = FALSE]
        centre <- colMeans(X)
        Xc <- X - rep(centre, each = n - 1)
        a <- solve(crossprod(Xc) + mu * diag(n), crossprod(Xc, t[-i] - mean(t[-i])))
        total[i] <- total[i] + (t[i] - mean(t[-i]) - sum((K[i, ] - centre) * a))^2
      }
    }
    total
  }, double(n))
}

ref_ikfd_ridge_choice <- function(losses, grid) {
  press <- colSums(losses)
  best <- which.min(press)
  se <- sqrt(nrow(losses)) * sd(losses[, best])
  list(press = press, se = se, chosen = grid[max(which(press <= press[best] + se))])
}

# N of one discriminant with equal weights: the within-group scatter of the
# kernel rows about the means of the group and of the others
ref_ikfd_scatter <- function(K, in_A) {
  N <- 0
  for (group in list(in_A, !in_A)) {
    R <- K[group, , drop = FALSE]
    R <- R - rep(colMeans(R), each = nrow(R))
    N <- N + crossprod(R)
  }
  N
}

test_that("the default ridge_relative follows the leave-one-out PRESS by the one-standard-error rule, as refits without each point give it", {
  grid <- 10^seq(-6, 1, by = 0.5)
  d <- three_class_data(n = 30)
  K <- kernel_matrix(kernel_rbf(1), d$x)
  fit <- ikfd(K, d$y, kernel = "precomputed")
  ref <- ref_ikfd_ridge_choice(ref_ikfd_loo_losses(K, d$y, grid), grid)
  expect_equal(fit$ridge_selection$grid, grid)
  expect_equal(fit$ridge_selection$press, ref$press, tolerance = 1e-6)
  expect_equal(fit$ridge_selection$se, ref$se, tolerance = 1e-6)
  expect_equal(fit$ridge_relative, ref$chosen)
  # (here the rule takes a larger ridge than the smallest PRESS's)
  expect_gt(fit$ridge_relative, grid[which.min(ref$press)])
  # the fit is the one with that ridge given
  fixed <- ikfd(K, d$y, kernel = "precomputed", ridge_relative = ref$chosen)
  expect_equal(fit$coefficients, fixed$coefficients, tolerance = 1e-10)
  expect_null(fixed$ridge_selection)
  expect_output(print(fit), "chosen by leave-one-out PRESS, one-standard-error rule")
  # two classes: one discriminant, an indefinite kernel
  set.seed(2)
  two <- gaussian_mixture_2d(24)
  x2 <- as.matrix(two[, 1:2])
  K2 <- kernel_matrix(kernel_tanh(1, -1), x2)
  K2 <- (K2 + t(K2)) / 2
  fit2 <- ikfd(K2, two$y, kernel = "precomputed")
  ref2 <- ref_ikfd_ridge_choice(ref_ikfd_loo_losses(K2, two$y, grid), grid)
  expect_equal(fit2$ridge_selection$press, ref2$press, tolerance = 1e-6)
  expect_equal(fit2$ridge_relative, ref2$chosen)
})

test_that("Ny-iKFD with every training row a landmark chooses its ridge as the full iKFD does", {
  # K_hat = K when K is nonsingular (here its smallest eigenvalue is far above
  # the pseudo-inverse's cutoff, sqrt(eps) times the largest): the low-rank
  # leave-one-out sums (I - H0 = I - Q diag(v) Q', rows of Q from the
  # landmark kernel) must give the full form's (I - H0 = Q diag(w) Q').
  d <- three_class_data(n = 40)
  x_new <- matrix(rnorm(40), 20, 2)
  kernels <- list(kernel_rbf(2), kernel_tanh(scale = 1, offset = -1))
  for (kernel in kernels) {
    values <- eigen(kernel_matrix(kernel, d$x), symmetric = TRUE, only.values = TRUE)$values
    expect_gt(min(abs(values)), 1e-6 * max(abs(values)))
    for (y in list(d$y, droplevels(factor(ifelse(d$y == "a", "a", "b"))))) {
      full <- ikfd(d$x, y, kernel = kernel, scale = FALSE)
      ny <- ikfd(d$x, y, kernel = kernel, scale = FALSE, landmarks = seq_len(nrow(d$x)))
      expect_equal(ny$ridge_selection$grid, full$ridge_selection$grid)
      expect_equal(ny$ridge_selection$press, full$ridge_selection$press, tolerance = 1e-6)
      expect_equal(ny$ridge_selection$se, full$ridge_selection$se, tolerance = 1e-6)
      expect_identical(ny$ridge_relative, full$ridge_relative)
      expect_equal(predict(ny, x_new, type = "decision"), predict(full, x_new, type = "decision"),
                   tolerance = 1e-6)
    }
  }
})

test_that("Ny-iKFD's default ridge follows the leave-one-out PRESS on its own kernel, as refits without each point give it", {
  # The reference refits the ridge regression on the rows of the dense
  # Nystroem kernel K_hat = C W^+ C' without each point in turn
  # (ref_ikfd_loo_losses() above), with mu = ridge_relative tr(N_d) / n of
  # K_hat; Ny-iKFD never forms K_hat.
  grid <- 10^seq(-6, 1, by = 0.5)
  d <- three_class_data(n = 36)
  landmarks <- seq(1, 36, by = 3)
  cases <- list(list(kernel = kernel_rbf(1), y = d$y),
                list(kernel = kernel_tanh(scale = 0.5, offset = -1), y = droplevels(factor(ifelse(d$y == "a", "a", "b")))))
  for (case in cases) {
    C <- kernel_matrix(case$kernel, d$x, d$x[landmarks, ])
    W <- C[landmarks, ]
    K_hat <- C %*% MASS::ginv(W) %*% t(C)
    K_hat <- (K_hat + t(K_hat)) / 2
    ref <- ref_ikfd_ridge_choice(ref_ikfd_loo_losses(K_hat, case$y, grid), grid)
    fit <- ikfd(d$x, case$y, kernel = case$kernel, landmarks = landmarks, scale = FALSE)
    expect_equal(fit$ridge_selection$grid, grid)
    expect_equal(fit$ridge_selection$press, ref$press, tolerance = 1e-6)
    expect_equal(fit$ridge_selection$se, ref$se, tolerance = 1e-6)
    expect_identical(fit$ridge_relative, ref$chosen)
    # the fit is the one with that ridge given, which records no selection
    fixed <- ikfd(d$x, case$y, kernel = case$kernel, landmarks = landmarks, scale = FALSE,
                  ridge_relative = ref$chosen)
    expect_equal(fit$coefficients, fixed$coefficients, tolerance = 1e-10)
    expect_null(fixed$ridge_selection)
    expect_identical(fixed$ridge_relative, ref$chosen)
  }
  expect_output(print(fit), "chosen by leave-one-out PRESS, one-standard-error rule")
})

test_that("the default ridge holds up on an edit-distance kernel where a fixed ridge_relative = 1e-4 overfits", {
  skip_if_not_installed("kernlab")
  e <- new.env()
  utils::data("promotergene", package = "kernlab", envir = e)
  dna <- apply(as.matrix(e$promotergene[, -1]), 1, paste, collapse = "")
  D <- utils::adist(dna)
  y <- e$promotergene$Class
  set.seed(1)
  train <- sort(sample.int(length(y), 74))
  test <- setdiff(seq_along(y), train)
  kd <- kernel_from_dissimilarity(D[train, train])
  accuracy <- function(fit) mean(predict(fit, D[test, train]) == y[test])
  # the fixed ridge_relative = 1e-4 separates the training classes perfectly
  # and predicts the test points barely above the majority class (0.44): 0.56
  old <- ikfd(kd, y[train], ridge_relative = 1e-4)
  expect_equal(old$training_error, 0)
  expect_lt(accuracy(old), 0.6)
  fit <- ikfd(kd, y[train])
  expect_gte(fit$ridge_relative, 1e-2)
  expect_gt(accuracy(fit), 0.75)
})

test_that("the landmark pass gives the QR factors of [C_c, 1] per class, a small class included", {
  # cpp_landmark_class_factors() (landmark_pass.hpp) computes C = K(X, L) in
  # blocks on the threads and reduces each class's rows as it goes; the
  # reference is R's unpivoted QR of the whole [C_c, 1]. Only R'R is fixed
  # (rows may differ in sign): compared, with the triangle.
  d <- three_class_data(n = 200)
  codes <- as.integer(d$y)
  codes[codes == 3L][-(1:4)] <- 2L  # class 3: 4 rows, fewer than the m + 1 = 24 columns
  L <- d$x[seq(1, 200, by = 9), ]
  kernel <- kernel_rbf(1)
  C <- kernel_matrix(kernel, d$x, L)
  for (blocks in c(13L, 200L)) {
    f <- krein:::cpp_landmark_class_factors(kernel, d$x, L, codes, 3L, blocks, 2L)
    for (c in 1:3) {
      A <- cbind(C[codes == c, , drop = FALSE], 1)
      expect_equal(crossprod(f[[c]]), crossprod(A), tolerance = 1e-12)
      expect_true(all(f[[c]][lower.tri(f[[c]])] == 0))
    }
    expect_true(all(f[[3]][5:24, ] == 0))
  }
  # 3 landmarks: a thread's buffer holds 16 (m + 1) = 64 rows of a class, so
  # 2000 rows take several reductions, each carrying the factor so far
  x <- matrix(rnorm(4000), 2000, 2)
  codes <- rep(1:2, length.out = 2000)
  L <- x[c(5, 50, 500), ]
  C <- kernel_matrix(kernel, x, L)
  f <- krein:::cpp_landmark_class_factors(kernel, x, L, codes, 2L, 100L, 2L)
  for (c in 1:2) {
    A <- cbind(C[codes == c, , drop = FALSE], 1)
    expect_equal(crossprod(f[[c]]), crossprod(A), tolerance = 1e-12)
  }
})

test_that("Ny-iKFD through the landmark pass equals the R path to 1e-10 and the transcription", {
  # The coordinate kernels take the core's landmark pass (kernel blocks and
  # class factors on the threads, a second pass for the training scores);
  # without_landmark_pass() takes the R path (kernel blocks in
  # R, cpp_class_factors()). Different blockings of the same tall-skinny QR
  # agree to rounding. Reference: iKFD on the dense Nystroem kernel.
  d <- three_class_data(n = 150)
  landmarks <- seq(2, 150, by = 4)
  x_new <- matrix(rnorm(40), 20, 2)
  kernels <- list(kernel_rbf(1), kernel_dist(s = 1.5, power = 1.5), kernel_rbf_diag(scales = c(0.5, 2)),
                  kernel_epanechnikov(width = 3))
  for (kernel in kernels) {
    expect_true(krein:::landmark_pass_applies(d$x, kernel, d$x[landmarks, ]))
    old <- options(krein.block_rows = 11L)
    pass <- ikfd(d$x, d$y, kernel = kernel, landmarks = landmarks, scale = FALSE, threads = 2,
                 ridge_relative = 1e-4)
    r_path <- without_landmark_pass(ikfd(d$x, d$y, kernel = kernel, landmarks = landmarks, scale = FALSE,
                                         threads = 2, ridge_relative = 1e-4))
    options(old)
    for (new in list(x_new, NULL)) {
      # new points: the prediction pass against the R path's kernel rows
      want <- without_landmark_pass(predict(r_path, new, type = "decision"))
      expect_lt(max(abs(predict(pass, new, type = "decision") - want)) / max(abs(want)), 1e-10)
    }
    # the prediction pass of the training points gives the training scores
    expect_lt(ref_rel_diff(predict(pass, d$x, type = "decision"), predict(pass, type = "decision")), 1e-12)
    C <- kernel_matrix(kernel, d$x, d$x[landmarks, ])
    W <- C[landmarks, ]
    ref <- ref_ikfd(C %*% MASS::ginv(W) %*% t(C), d$y, 1e-4)
    k_hat_new <- kernel_matrix(kernel, x_new, d$x[landmarks, ]) %*% MASS::ginv(W) %*% t(C)
    expect_equal(unname(predict(pass, x_new, type = "decision")), unname(ref_ikfd_decisions(ref, k_hat_new)),
                 tolerance = 1e-6)
  }
})
