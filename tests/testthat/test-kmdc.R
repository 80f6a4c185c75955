# kernel_mahalanobis() and kmdc() (R/kmdc.R): the distances against the
# plain-R transcription of Pekalska and Haasdonk (2009) Table II in
# helper-kqd.R (Haasdonk and Pekalska 2010, eqs. 4 and 7, are its IC- and RC+
# distances), against the properties Haasdonk and Pekalska (2010) state, and
# kmdc() against MASS::lda / MASS::qda on those distances.

# The fixtures fx_three_classes(), fx_kernels() and fx_two_classes() are in
# helper-kqd.R, shared with test-kqd.R.

test_that("kernel_mahalanobis() gives paper 001's d2_IC (eq. 4) and d2_RC (eq. 7)", {
  # paper 001 eqs. (4) and (7) = Table II's IC- and RC+ distances, class-wise
  d <- fx_three_classes()
  k <- fx_kernels(d)
  ic <- kernel_mahalanobis(d$x, d$y, scale = FALSE, kernel = d$kernel, distance = "IC", reg = 1e-2, newdata = d$x_new)
  rc <- kernel_mahalanobis(d$x, d$y, scale = FALSE, kernel = d$kernel, distance = "RC", reg = 0.1, newdata = d$x_new)
  expect_identical(colnames(ic), levels(d$y))
  ref_ic <- ref_kqd_distance(k$K, d$y, k$K_new, k$self_new, "IC-", 1e-2, FALSE)
  ref_rc <- ref_kqd_distance(k$K, d$y, k$K_new, k$self_new, "RC+", 0.1, FALSE)
  expect_lt(ref_rel_diff(ic, ref_ic), 1e-8)
  expect_lt(ref_rel_diff(rc, ref_rc), 1e-8)
  # one-class use (paper 001 Sec. 6: "one-class models"): a class's distances
  # use only its own points
  own <- d$y == "alpha"
  one <- kernel_mahalanobis(d$x[own, ], factor(rep("alpha", sum(own))), scale = FALSE, kernel = d$kernel,
                            distance = "RC", reg = 0.1, newdata = d$x_new)
  expect_equal(dim(one), c(nrow(d$x_new), 1L))
  expect_lt(ref_rel_diff(one[, 1], rc[, "alpha"]), 1e-10)
})


test_that("d2_IC and d2_RC are invariant to scaling the kernel and the regularisation by theta", {
  # paper 001 Sec. 5 (Invariance): with k -> theta k, alpha -> theta alpha and
  # sigma^2 -> theta sigma^2 the distances do not change. From eq. (4):
  # K~ -> theta K~ and k~ -> theta k~; alpha is a threshold on the eigenvalues
  # of K~, so pinv(theta K~, theta alpha) = pinv(K~, alpha) / theta and
  # n k~' (K~^-)^2 k~ is unchanged. From eq. (7): n sigma^2 is added to K~, so
  # theta K~ + n theta sigma^2 I = theta K~reg, and (1 / (theta sigma^2))
  # (theta k~xx - theta^2 k~' K~reg^-1 k~ / theta) is unchanged.
  d <- fx_three_classes()
  k <- fx_kernels(d)
  for (distance in c("IC", "RC")) {
    reg <- if (distance == "IC") 1e-2 else 0.1
    base <- kernel_mahalanobis(precomputed_kernel(k$K), d$y, distance = distance, reg = reg,
                               newdata = precomputed_kernel(k$K_new, self = k$self_new))
    for (theta in c(0.01, 7)) {
      scaled <- kernel_mahalanobis(precomputed_kernel(theta * k$K), d$y, distance = distance,
                                   reg = theta * reg,
                                   newdata = precomputed_kernel(theta * k$K_new,
                                                                self = theta * k$self_new))
      expect_lt(ref_rel_diff(scaled, base), 1e-8)
    }
  }
})


test_that("d2_IC and d2_RC are invariant to translations in feature space", {
  # paper 001 Sec. 5: phi -> phi + phi(x0) gives the kernel
  # k(x, x') + k(x, x0) + k(x', x0) + k(x0, x0) and the same distances; in
  # particular adding a constant to the kernel changes nothing.
  d <- fx_three_classes()
  k <- fx_kernels(d)
  x0 <- matrix(c(0.3, -0.5), 1)
  k0 <- drop(kernel_matrix(d$kernel, d$x, x0))          # k(x_i, x0)
  k0_new <- drop(kernel_matrix(d$kernel, d$x_new, x0))  # k(x, x0)
  k00 <- 1
  n <- nrow(d$x)
  m <- nrow(d$x_new)
  shifted <- list(
    constant = list(K = k$K + 2.5, K_new = k$K_new + 2.5, self = k$self_new + 2.5),
    translation = list(K = k$K + outer(k0, rep(1, n)) + outer(rep(1, n), k0) + k00,
                       K_new = k$K_new + outer(k0_new, rep(1, n)) + outer(rep(1, m), k0) + k00,
                       self = k$self_new + 2 * k0_new + k00))
  for (distance in c("IC", "RC")) {
    reg <- if (distance == "IC") 1e-2 else 0.1
    base <- kernel_mahalanobis(precomputed_kernel(k$K), d$y, distance = distance, reg = reg,
                               newdata = precomputed_kernel(k$K_new, self = k$self_new))
    for (s in shifted) {
      moved <- kernel_mahalanobis(precomputed_kernel(s$K), d$y, distance = distance, reg = reg,
                                  newdata = precomputed_kernel(s$K_new, self = s$self))
      expect_lt(ref_rel_diff(moved, base), 1e-8)
    }
  }
})


test_that("on XOR, d2_IC puts class 1 farther from its own points, d2_RC does not", {
  # paper 001 Sec. 5, Fig. 2: k_rbf with gamma = 1, alpha = 1e-4, sigma^2 = 1.
  # By hand: d2_IC is 1 on class 1's points and 0 on class 2's (their k~ is 0).
  d <- xor4()
  x <- d[, c("x1", "x2")]
  own <- d$y == "1"
  ic <- kernel_mahalanobis(x, d$y, kernel = kernel_rbf(gamma = 1), distance = "IC", reg = 1e-4,
                           newdata = x)
  rc <- kernel_mahalanobis(x, d$y, kernel = kernel_rbf(gamma = 1), distance = "RC", reg = 1,
                           newdata = x)
  expect_gt(min(ic[own, "1"]), max(ic[!own, "1"]))
  expect_lt(max(rc[own, "1"]), min(rc[!own, "1"]))
  expect_equal(unname(ic[, "1"]), c(1, 0, 0, 1), tolerance = 1e-8)
})


test_that("kmdc() is MASS::lda / MASS::qda on the class-wise squared distances", {
  # paper 001 Sec. 3.3: FD-IC/FD-RC and QD-IC/QD-RC in the dissimilarity space
  # psi(x) = (d2_1(x), ..., d2_c(x))
  d <- fx_two_classes(5, n = 30)
  kernel <- kernel_rbf(gamma = 0.5)
  x_new <- matrix(rnorm(12), 6)
  D <- kernel_mahalanobis(d$x, d$y, scale = FALSE, kernel = kernel, distance = "RC", reg = 0.1, newdata = d$x)
  D_new <- kernel_mahalanobis(d$x, d$y, scale = FALSE, kernel = kernel, distance = "RC", reg = 0.1, newdata = x_new)
  for (classifier in c("lda", "qda")) {
    fit <- kmdc(d$x, d$y, kernel = kernel, distance = "RC", classifier = classifier, reg = 0.1, scale = FALSE)
    oracle_fit <- if (classifier == "lda") MASS::lda(unname(D), d$y) else MASS::qda(unname(D), d$y)
    oracle <- predict(oracle_fit, unname(D_new))
    cls <- predict(fit, x_new)
    prob <- predict(fit, x_new, type = "prob")
    expect_s3_class(cls, "factor")
    expect_identical(levels(cls), c("pos", "neg"))
    expect_identical(as.character(cls), as.character(oracle$class), info = classifier)
    expect_equal(unname(prob), unname(oracle$posterior), tolerance = 1e-6, info = classifier)
    expect_equal(unname(rowSums(prob)), rep(1, 6), tolerance = 1e-12)
  }
})


test_that("kernel_mahalanobis() and kmdc() take one reg or one per class", {
  set.seed(11)
  board <- checkerboard(60, size = 2)
  per_class <- kernel_mahalanobis(board[, 1:2], board$y, kernel = kernel_rbf(1), distance = "RC",
                                  reg = c(0.1, 0.5))
  first <- kernel_mahalanobis(board[, 1:2], board$y, kernel = kernel_rbf(1), distance = "RC", reg = 0.1)
  second <- kernel_mahalanobis(board[, 1:2], board$y, kernel = kernel_rbf(1), distance = "RC", reg = 0.5)
  expect_equal(per_class, cbind(first[, 1], second[, 2]), ignore_attr = TRUE)
  expect_error(kernel_mahalanobis(board[, 1:2], board$y, kernel = kernel_rbf(1), reg = c(1, 2, 3)),
               class = "krein_error", regexp = "`reg`.*one per class \\(2\\)")
  expect_error(kmdc(board[, 1:2], board$y, kernel = kernel_rbf(1), reg = c(1, 2, 3)),
               class = "krein_error", regexp = "`reg`.*one per class \\(2\\)")
  expect_s3_class(kmdc(board[, 1:2], board$y, kernel = kernel_rbf(1), reg = c(0.1, 0.5)), "kmdc")
})

test_that("kmdc's decision values are MASS's discriminant functions, prob their softmax", {
  # MASS::predict.lda / predict.qda (plug-in) compute the posterior from these
  # functions; "decision" gives them (the log posterior up to a constant per row)
  fit_x <- iris[seq(1, 150, by = 2), 1:4]
  new_x <- iris[seq(2, 150, by = 10), 1:4]
  y <- iris$Species[seq(1, 150, by = 2)]
  kernel <- kernel_rbf(0.5)
  D_new <- kernel_mahalanobis(fit_x, y, scale = FALSE, kernel = kernel, distance = "IC", reg = 1e-3, newdata = new_x)
  for (classifier in c("lda", "qda")) {
    set.seed(7)
    fit <- kmdc(fit_x, y, kernel = kernel, distance = "IC", classifier = classifier, reg = 1e-3,
                scale = FALSE)
    # IC: the discriminant is trained on out-of-fold distances, each fold's
    # from a distance model fitted on the other folds
    D <- matrix(NA_real_, nrow(fit_x), 3)
    for (k in unique(fit$folds)) {
      out <- fit$folds == k
      D[out, ] <- kernel_mahalanobis(fit_x[!out, ], y[!out], scale = FALSE, kernel = kernel, distance = "IC", reg = 1e-3,
                                     newdata = fit_x[out, ])
    }
    colnames(D) <- colnames(D_new)
    oracle <- predict(if (classifier == "lda") MASS::lda(D, y) else MASS::qda(D, y), D_new)
    f <- predict(fit, new_x, type = "decision")
    expect_identical(colnames(f), levels(y))
    p <- predict(fit, new_x, type = "prob")
    expect_equal(p, exp(f - apply(f, 1, max)) / rowSums(exp(f - apply(f, 1, max))), tolerance = 1e-12)
    expect_equal(unname(p), unname(oracle$posterior), tolerance = 1e-6, info = classifier)
    expect_identical(as.character(predict(fit, new_x)), as.character(oracle$class), info = classifier)
    expect_equal(predict(fit, new_x, type = "distance"), D_new, tolerance = 1e-10)
  }
})

test_that("kmdc(distance = \"IC\") trains its discriminant on out-of-fold distances, not the degenerate in-sample ones", {
  # in-sample, a training point's d2_IC to its own class is n_j - 1
  # (alpha below the spectrum), whatever the point; a discriminant trained on
  # that constant fails (MASS::lda: "constant within groups") or learns
  # nothing that carries over to new points
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  Y <- d$y
  set.seed(2)
  test <- gaussian_mixture_2d(500)
  in_sample <- kernel_mahalanobis(X, Y, kernel = kernel_rbf(1), distance = "IC", reg = 1e-10)
  own <- in_sample[cbind(seq_along(Y), as.integer(Y))]
  expect_equal(own, rep(29, 60), tolerance = 1e-6)
  set.seed(3)
  fit <- kmdc(X, Y, kernel = kernel_rbf(1), distance = "IC", reg = 1e-10)
  expect_gt(min(abs(diag(fit$discriminant$means) - 29)), 1)
  majority <- max(table(test$y)) / nrow(test)
  for (distance in c("IC", "RC")) {
    for (classifier in c("lda", "qda")) {
      set.seed(3)
      reg <- if (distance == "IC") 1e-10 else NULL
      fit <- kmdc(X, Y, distance = distance, classifier = classifier, reg = reg)
      accuracy <- mean(predict(fit, test[, 1:2]) == test$y)
      expect_gt(accuracy, majority + 0.2)
      if (distance == "IC") {
        expect_identical(sort(unique(fit$folds)), 1:10)
      } else {
        expect_null(fit$folds)
      }
    }
  }
  # iris: a held-out half, above the majority class, for both distances and discriminants
  train <- seq(1, 150, by = 2)
  for (distance in c("IC", "RC")) {
    for (classifier in c("lda", "qda")) {
      set.seed(4)
      fit <- kmdc(iris[train, 1:4], iris$Species[train], distance = distance, classifier = classifier)
      # the majority class is a third; IC at the default alpha is the weaker
      # distance (Haasdonk and Pekalska 2010, Table 1: RC ahead of IC), 69%
      # for FD-IC on the scaled inputs, 84-95% for the others
      expect_gt(mean(predict(fit, iris[-train, 1:4]) == iris$Species[-train]), if (distance == "IC") 0.6 else 0.85)
    }
  }
  # the folds come from R's RNG
  set.seed(5)
  a <- kmdc(X, Y, distance = "IC")
  set.seed(5)
  b <- kmdc(X, Y, distance = "IC")
  expect_identical(a$folds, b$folds)
  expect_equal(predict(a, test[, 1:2], type = "prob"), predict(b, test[, 1:2], type = "prob"))
  expect_snapshot(show_error(kmdc(X[c(1:2, 31:40), ], Y[c(1:2, 31:40)], distance = "IC")))
  expect_s3_class(kmdc(X[c(1:3, 31:40), ], Y[c(1:3, 31:40)], distance = "IC"), "kmdc")
})

test_that("kernel_mahalanobis() takes na.action, as the models do", {
  # its message suggests `na.action = na.omit`, which it must take
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  X[4, 1] <- NA
  expect_error(kernel_mahalanobis(X, d$y, kernel_rbf(1), na.action = na.fail), class = "krein_error", regexp = "na.action")
  omitted <- kernel_mahalanobis(X, d$y, kernel_rbf(1), na.action = na.omit)
  expect_identical(dim(omitted), c(59L, 2L))
  expect_equal(omitted, kernel_mahalanobis(X[-4, ], d$y[-4], kernel_rbf(1)), ignore_attr = TRUE)
  excluded <- kernel_mahalanobis(X, d$y, kernel_rbf(1), na.action = na.exclude)
  expect_identical(dim(excluded), c(60L, 2L))
  expect_true(all(is.na(excluded[4, ])))
  expect_equal(excluded[-4, ], omitted, ignore_attr = TRUE)
})

test_that("kmdc's prior is the discriminant's prior", {
  d <- fx_two_classes(5, n = 30)
  x_new <- matrix(rnorm(12), 6)
  D <- kernel_mahalanobis(d$x, d$y, scale = FALSE, kernel = kernel_rbf(0.5), distance = "RC", reg = 0.1)
  D_new <- kernel_mahalanobis(d$x, d$y, scale = FALSE, kernel = kernel_rbf(0.5), distance = "RC", reg = 0.1, newdata = x_new)
  fit <- kmdc(d$x, d$y, kernel = kernel_rbf(0.5), classifier = "lda", reg = 0.1, prior = c(0.8, 0.2), scale = FALSE)
  oracle <- predict(MASS::lda(unname(D), d$y, prior = c(0.8, 0.2)), unname(D_new))
  expect_equal(unname(predict(fit, x_new, type = "prob")), unname(oracle$posterior), tolerance = 1e-6)
  expect_equal(unname(fit$prior), c(0.8, 0.2))
  expect_error(kmdc(d$x, d$y, kernel = kernel_rbf(0.5), prior = c(0.5, 0.6)), class = "krein_error",
               regexp = "`prior`")
})

test_that("kmdc is a generic: formula, matrix and precomputed fits agree", {
  set.seed(21)
  train <- gaussian_mixture_2d(80)
  test <- gaussian_mixture_2d(10)
  kernel <- kernel_rbf(1)
  by_formula <- kmdc(y ~ ., data = train, kernel = kernel, classifier = "qda", scale = FALSE)
  by_matrix <- kmdc(as.matrix(train[, 1:2]), train$y, kernel = kernel, classifier = "qda", scale = FALSE)
  expect_identical(deparse(by_formula$call, width.cutoff = 500L),
                   'kmdc(formula = y ~ ., data = train, classifier = "qda", kernel = kernel, scale = FALSE)')
  expect_equal(predict(by_formula, test, type = "prob"), predict(by_matrix, test[, 1:2], type = "prob"),
               ignore_attr = TRUE)
  K <- kernel_matrix(kernel, train[, 1:2])
  K_new <- kernel_matrix(kernel, test[, 1:2], train[, 1:2])
  pre <- kmdc(precomputed_kernel(K), train$y, classifier = "qda")
  new <- precomputed_kernel(K_new, self = rep(1, 10))
  expect_equal(predict(pre, new, type = "prob"), predict(by_matrix, test[, 1:2], type = "prob"),
               ignore_attr = TRUE, tolerance = 1e-10)
  # d2_RC needs the self-similarities of new points, d2_IC does not
  expect_snapshot(show_error(predict(pre, K_new)))
  pre_ic <- kmdc(precomputed_kernel(K), train$y, distance = "IC", reg = 1e-3)
  expect_length(predict(pre_ic, K_new), 10)
  expect_true(krein:::model_info("kmdc")$needs_self(list(distance = "RC")))
  expect_false(krein:::model_info("kmdc")$needs_self(list(distance = "IC")))
  expect_true(krein:::model_info("kmdc")$needs_self(list()))
})

test_that("kmdc drops or pads rows with missing values as na.action says", {
  set.seed(22)
  train <- gaussian_mixture_2d(60)
  train$x1[c(2, 9)] <- NA
  expect_snapshot(show_error(kmdc(y ~ ., data = train, kernel = kernel_rbf(1), na.action = na.fail)))
  fit <- kmdc(y ~ ., data = train, kernel = kernel_rbf(1), na.action = na.exclude, scale = FALSE)
  expect_identical(nobs(fit), 58L)
  expect_true(all(is.na(predict(fit, type = "distance")[c(2, 9), ])))
  expect_identical(sum(is.na(fitted(fit))), 2L)
  # kmdc's default is a cross-validated path; its distances are
  # kernel_mahalanobis()'s at the chosen value
  distances <- kernel_mahalanobis(train[-c(2, 9), 1:2], train$y[-c(2, 9)], scale = FALSE, kernel = kernel_rbf(1),
                                  reg = fit$distances$reg[fit$best, ], newdata = train[, 1:2])
  expect_true(all(is.na(distances[c(2, 9), ])))
  expect_equal(distances[-c(2, 9), ], predict(fit, train[-c(2, 9), ], type = "distance"), ignore_attr = TRUE)
})

test_that("kmdc stores its resolved kernel: a row predicts the same alone as among others", {
  # kernel_rbf() takes its width from the training data (median heuristic)
  set.seed(23)
  train <- gaussian_mixture_2d(60)
  test <- gaussian_mixture_2d(12)
  fit <- kmdc(y ~ ., data = train, classifier = "qda")
  for (type in c("prob", "decision", "distance")) {
    all_rows <- predict(fit, test, type = type)
    for (i in c(1, 7)) expect_equal(predict(fit, test[i, ], type = type), all_rows[i, , drop = FALSE])
  }
})

test_that("kmdc prints its kernel and variant, summarises the distance space, plots it", {
  set.seed(24)
  train <- gaussian_mixture_2d(60)
  fit <- kmdc(y ~ ., data = train, kernel = kernel_rbf(1), distance = "IC", classifier = "lda", reg = 1e-3)
  expect_snapshot(print(fit))
  s <- summary(fit)
  means <- s$model[[2]]
  expect_equal(unname(means), unname(fit$discriminant$means))
  expect_identical(rownames(means), levels(train$y))
  expect_output(print(s), "Class means of the training points' squared distances")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(fit, resolution = 20))
  expect_invisible(plot(kmdc(iris[, 1:4], iris$Species, kernel = kernel_rbf(0.5)), main = "my title"))
  expect_snapshot(show_error(kmdc(y ~ ., data = train, distance = "XC")))
})

test_that("a reg path: one fit gives every value's predictions, equal to separate fits", {
  set.seed(31)
  d <- checkerboard(80, size = 2)
  X <- as.matrix(d[, 1:2])
  new <- as.matrix(checkerboard(15, size = 2)[, 1:2])
  for (distance in c("RC", "IC")) {
    regs <- if (distance == "RC") c(0.01, 0.1, 1) else c(1e-4, 1e-3, 1e-2)
    for (classifier in c("lda", "qda")) {
      set.seed(5)   # IC draws its folds: the same ones for the path and the single fits
      path <- kmdc(X, d$y, kernel = kernel_rbf(2), distance = distance, classifier = classifier,
                   reg = matrix(regs, ncol = 1))
      expect_identical(nrow(path$distances$reg), 3L)
      for (r in regs) {
        set.seed(5)
        single <- kmdc(X, d$y, kernel = kernel_rbf(2), distance = distance, classifier = classifier, reg = r)
        for (type in c("prob", "decision", "distance")) {
          expect_equal(predict(path, new, type = type, reg = r), predict(single, new, type = type),
                       tolerance = 1e-10)
        }
        expect_equal(predict(path, type = "prob", reg = r), predict(single, type = "prob"), tolerance = 1e-10)
      }
      # without `reg`, the value with the lowest cross-validated error, ties
      # to the more regularised (larger) value
      expect_identical(path$select, "cv")
      lowest <- which(path$cv_error == min(path$cv_error))
      expect_identical(path$best, max(lowest))
      expect_equal(predict(path, new, type = "prob"), predict(path, new, type = "prob", reg = regs[path$best]))
    }
  }
  # per-class values along the path: a matrix with one column per class
  per_class <- kmdc(X, d$y, kernel = kernel_rbf(2), reg = rbind(c(0.1, 0.5), c(1, 2)))
  single <- kmdc(X, d$y, kernel = kernel_rbf(2), reg = c(1, 2))
  expect_equal(predict(per_class, new, type = "prob", reg = c(1, 2)), predict(single, new, type = "prob"),
               tolerance = 1e-10)
  expect_output(print(per_class), "path of 2 values")
  expect_error(predict(per_class, new, reg = 0.3), class = "krein_error", regexp = "fitted regularisation values")
  expect_snapshot(show_error(kmdc(X, d$y, kernel = kernel_rbf(2), reg = matrix(0.1, 2, 3))))
})

test_that("kmdc(distance = \"IC\") reports the out-of-fold training error it trains on", {
  # The discriminant is trained on out-of-fold distances; fitted(), the
  # training error and print() use them too, not the in-sample ones,
  # degenerate for IC (which would print 0.01 against out-of-fold and test
  # errors of 0.07). Plain R: the
  # out-of-fold distances from kernel_mahalanobis() on each fold's other
  # folds, MASS::lda on them, its own predictions.
  set.seed(1)
  d <- gaussian_mixture_2d(100)
  X <- as.matrix(d[, 1:2])
  Y <- d$y
  k <- kernel_rbf(1)
  set.seed(2)
  fit <- kmdc(X, Y, kernel = k, distance = "IC", reg = 1e-3)
  Xs <- scale(X)
  oof <- matrix(NA_real_, nrow(X), 2)
  for (f in unique(fit$folds)) {
    out <- fit$folds == f
    oof[out, ] <- kernel_mahalanobis(Xs[!out, ], Y[!out], kernel = k, distance = "IC", reg = 1e-3,
                                     newdata = Xs[out, , drop = FALSE], scale = FALSE)
  }
  colnames(oof) <- paste0("d2_", levels(Y))
  lda <- MASS::lda(oof, Y)
  by_hand <- predict(lda, oof)
  expect_equal(unname(predict(fit, type = "distance")), unname(oof), tolerance = 1e-8)
  expect_identical(unname(fitted(fit)), unname(by_hand$class))
  expect_equal(fit$training_error, mean(by_hand$class != Y))
  expect_equal(unname(predict(fit, type = "prob")), unname(by_hand$posterior), tolerance = 1e-8)
  expect_output(print(fit), sprintf("training error %s", format(fit$training_error, digits = 3)), fixed = TRUE)
  # in-sample distances would give a far smaller error than this one
  in_sample <- kernel_mahalanobis(X, Y, kernel = k, distance = "IC", reg = 1e-3)
  expect_false(isTRUE(all.equal(unname(predict(fit, type = "distance")), unname(in_sample))))
})

test_that("a kmdc path defaults to its cross-validated best", {
  # plain R: the whole classifier refitted on each fold's other folds
  # (select = "training", one value per fit), its held-out errors
  set.seed(7)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  regs <- c(1e-3, 1e-2, 0.1, 1)
  k <- kernel_rbf(1)
  set.seed(8)
  path <- kmdc(X, d$y, kernel = k, distance = "RC", reg = matrix(regs, ncol = 1))
  expect_identical(path$select, "cv")
  folds <- integer(length(d$y))
  folds[order(d$y)] <- rep_len(1:5, length(d$y))
  expect_identical(path$cv_folds, folds)
  Xs <- scale(X)
  wrong <- held_out_errors(folds, function(train, test) {
    vapply(regs, function(reg) {
      part <- kmdc(Xs[train, ], d$y[train], kernel = k, distance = "RC", reg = reg, scale = FALSE)
      sum(predict(part, Xs[test, , drop = FALSE]) != d$y[test])
    }, numeric(1))
  })
  expect_equal(path$cv_error, wrong / nrow(X), tolerance = 1e-12)
  expect_identical(path$best, max(which(wrong == min(wrong))))
  expect_output(print(path), "lowest 5-fold CV error")
  expect_identical(kmdc(X, d$y, kernel = k, distance = "RC", reg = matrix(regs, ncol = 1),
                        select = "training")$best, which.min(path$path_error))
})

test_that("kmdc's default classifier is qda where the path's cross-validation finds it clearly better, else lda", {
  # transcription: the two explicit fits' cross-validated paths (same
  # deterministic folds); qda where its lowest number of held-out errors is
  # below lda's by more than sqrt(e_lda + e_qda)
  set.seed(7)
  mixture <- gaussian_mixture_2d(60)
  crabs <- MASS::crabs
  cases <- list(
    list(x = mixture[, 1:2], y = mixture$y, expected = "lda"),  # a tie
    list(x = iris[, 1:4], y = iris$Species, expected = "lda"),  # qda one error fewer: not clearly
    list(x = crabs[c("FL", "RW", "CL", "CW", "BD")], y = interaction(crabs$sp, crabs$sex), expected = "qda")
  )
  for (case in cases) {
    fit <- kmdc(case$x, case$y)
    lda <- kmdc(case$x, case$y, classifier = "lda")
    qda <- kmdc(case$x, case$y, classifier = "qda")
    errors <- c(lda = min(lda$cv_error), qda = min(qda$cv_error))
    expect_equal(fit$classifier_cv_error, errors)
    wrong <- errors * length(case$y)
    expected <- if (wrong[["lda"]] - wrong[["qda"]] > sqrt(sum(wrong))) "qda" else "lda"
    # every branch is taken: a tie, a narrow qda win, a clear one
    expect_identical(expected, case$expected)
    expect_identical(fit$classifier, expected)
    chosen <- if (expected == "lda") lda else qda
    expect_identical(fit$best, chosen$best)
    expect_equal(fit$cv_error, chosen$cv_error)
    expect_equal(predict(fit, case$x, type = "prob"), predict(chosen, case$x, type = "prob"))
    # the chosen one's error first, the other's beside it (where lda is
    # kept, qda's may be the lower)
    other <- setdiff(c("lda", "qda"), expected)
    expect_output(print(fit), sprintf("MASS::%s; cross-validated error %s, %s %s", expected,
                                      format(errors[[expected]], digits = 3), other,
                                      format(errors[[other]], digits = 3)), fixed = TRUE)
  }
  expect_lt(min(kmdc(iris[, 1:4], iris$Species, classifier = "qda")$cv_error),
            min(kmdc(iris[, 1:4], iris$Species, classifier = "lda")$cv_error))
  # no cross-validation, or classes too small for qda: lda, without a word
  expect_identical(kmdc(iris[, 1:4], iris$Species, reg = 0.1)$classifier, "lda")
  expect_null(kmdc(iris[, 1:4], iris$Species, reg = 0.1)$classifier_cv_error)
  expect_identical(kmdc(iris[, 1:4], iris$Species, select = "training")$classifier, "lda")
  expect_identical(kmdc(iris[, 1:4], iris$Species, distance = "IC")$classifier, "lda")
  small <- c(1:3, 51:53, 101:150)
  expect_no_warning(few <- kmdc(iris[small, 1:4], droplevels(iris$Species[small])))
  expect_identical(few$classifier, "lda")
})

# kernel_mahalanobis() scales as kqd() does: the docs say its distances are
# kqd's RC+/IC- distances (unscaled, on columns of unequal scale, they
# would differ by up to 4.9). Same input path, same `scale`.
test_that("kernel_mahalanobis() gives kqd()'s RC+ and IC- distances, with the same `scale`", {
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- cbind(d$x1 * 100, d$x2)
  new <- X[c(3, 30, 50), ] + 0.5
  # the defaults agree
  expect_equal(kernel_mahalanobis(X, d$y, kernel_rbf(1), distance = "RC", reg = 0.1),
               predict(kqd(X, d$y, kernel = kernel_rbf(1), variant = "RC+", reg = 0.1), X, type = "distance"),
               tolerance = 1e-10, ignore_attr = TRUE)
  for (scale in c(TRUE, FALSE)) {
    rc <- kqd(X, d$y, kernel = kernel_rbf(1), variant = "RC+", reg = 0.1, scale = scale)
    expect_equal(kernel_mahalanobis(X, d$y, kernel_rbf(1), distance = "RC", reg = 0.1, scale = scale),
                 predict(rc, X, type = "distance"), tolerance = 1e-10, ignore_attr = TRUE)
    expect_equal(kernel_mahalanobis(X, d$y, kernel_rbf(1), distance = "RC", reg = 0.1, scale = scale,
                                    newdata = new),
                 predict(rc, new, type = "distance"), tolerance = 1e-10, ignore_attr = TRUE)
    ic <- kqd(X, d$y, kernel = kernel_rbf(1), variant = "IC-", reg = 1e-3, scale = scale)
    expect_equal(kernel_mahalanobis(X, d$y, kernel_rbf(1), distance = "IC", reg = 1e-3, scale = scale,
                                    newdata = new),
                 predict(ic, new, type = "distance"), tolerance = 1e-10, ignore_attr = TRUE)
  }
  # the models' checks: a bad `scale` or `indefinite` is kqd's error
  expect_error(kernel_mahalanobis(X, d$y, scale = NA), class = "krein_error", regexp = "`scale`")
  expect_error(kernel_mahalanobis(X, d$y, indefinite = "maybe"), class = "krein_error", regexp = "`indefinite`")
})

test_that("the cross-validation's Gaussian discriminants make MASS's choices", {
  # kmdc_select_path() classifies each fold's held-out points by Gaussian
  # classes (the core's shrunk_gaussian.hpp without shrinkage, through
  # kmdc_fold_classes(): moment estimates, as MASS::lda and
  # MASS::qda(method = "moment")), not by MASS; their held-out classes, and
  # so the cross-validated errors and the choices, must be MASS's.
  # kmdc_gaussian_folds() is replaced to run the MASS folds for comparison.
  set.seed(8)
  mixture <- gaussian_mixture_2d(90)
  three <- data.frame(x1 = c(rnorm(30), rnorm(30, 1.5), rnorm(30, 0, 2)), x2 = c(rnorm(30), rnorm(30, 1), rnorm(30, 2)),
                      y = factor(rep(c("a", "b", "c"), each = 30)))
  cases <- list(
    list(formula = y ~ ., data = mixture, args = list()),
    list(formula = y ~ ., data = three, args = list()),
    list(formula = y ~ ., data = three, args = list(classifier = "qda", reg = cbind(c(1e-3, 1e-2, 1e-1, 1)))),
    list(formula = y ~ ., data = three, args = list(distance = "IC", reg = cbind(c(1e-3, 1e-2, 1e-1)))),
    list(formula = Species ~ ., data = iris[seq(1, 150, by = 2), ], args = list()),
    # the Nystroem form's folds (kmdc_nystrom_folds())
    list(formula = y ~ ., data = three, args = list(landmarks = "random", m = 30)),
    list(formula = y ~ ., data = three, args = list(distance = "IC", reg = cbind(c(1e-3, 1e-2, 1e-1)),
                                                    landmarks = "random", m = 30)))
  for (case in cases) {
    fit <- function() {
      set.seed(1)
      do.call(kmdc, c(list(case$formula, data = case$data, kernel = kernel_rbf(0.5)), case$args))
    }
    # the folds do take the core's route (not the fallback for near-singular
    # values), so that the comparison compares two routes
    core_answers <- logical()
    core_classes <- krein:::cpp_shrunk_gaussian_classes
    gaussian <- with_krein_functions(list(cpp_shrunk_gaussian_classes = function(...) {
      classes <- core_classes(...)
      core_answers <<- c(core_answers, classes[1L, ] != 0L)
      classes
    }), fit())
    expect_gt(mean(core_answers), 0.5)
    mass <- with_krein_functions(list(kmdc_gaussian_folds = function() FALSE), fit())
    expect_identical(gaussian$select, "cv")
    expect_equal(gaussian$cv_error, mass$cv_error, tolerance = 1e-12)
    expect_identical(gaussian$classifier, mass$classifier)
    expect_identical(gaussian$best, mass$best)
    expect_identical(predict(gaussian, case$data), predict(mass, case$data))
  }
})

# The Nystroem form (`landmarks`): its distances are Ny-KQD's (kqd() with
# `landmarks`), which with every training point a landmark is the full KQD
# to rounding (test-kqd_nystrom.R, relative 1e-8); so then the whole
# classifier -- out-of-fold IC distances, the path's cross-validation, the
# lda/qda choice -- is the full kmdc.
test_that("with every training point a landmark, the Nystroem kmdc is the full kmdc", {
  # a width at which the landmark kernel of the 60 rows keeps every
  # eigenvalue (smallest / largest 1e-6): at kernel_rbf(1) one falls below
  # the Nystroem cutoff (sqrt(eps) of the largest) and the landmarks no
  # longer span the kernel exactly
  set.seed(41)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  new <- as.matrix(gaussian_mixture_2d(15)[, 1:2])
  all_rows <- seq_len(nrow(X))
  cases <- list(
    list(),                                               # RC, the cross-validated path, lda or qda
    list(classifier = "qda", reg = 0.1),
    list(distance = "IC", reg = 1e-3),                    # out-of-fold distances
    list(distance = "IC", reg = cbind(c(1e-4, 1e-3, 1e-2))))  # and the path's cross-validation
  for (case in cases) {
    info <- paste(names(case), vapply(case, function(v) paste(format(v), collapse = " "), ""), collapse = ", ")
    fit <- function(...) {
      set.seed(5)  # IC draws its folds: the same ones for both forms
      do.call(kmdc, c(list(X, d$y, kernel = kernel_rbf(3)), case, list(...)))
    }
    full <- fit()
    ny <- fit(landmarks = all_rows)
    expect_null(ny$x)
    expect_identical(ny$landmarks$indices, all_rows)
    expect_identical(ny$classifier, full$classifier, info = info)
    expect_identical(ny$best, full$best, info = info)
    expect_identical(ny$folds, full$folds, info = info)
    expect_equal(ny$cv_error, full$cv_error, info = info)
    expect_identical(ny$fitted_class, full$fitted_class, info = info)
    expect_lt(ref_rel_diff(predict(ny, new, type = "distance"), predict(full, new, type = "distance")), 1e-8)
    expect_lt(ref_rel_diff(predict(ny, type = "distance"), predict(full, type = "distance")), 1e-8)
    expect_lt(max(abs(predict(ny, new, type = "prob") - predict(full, new, type = "prob"))), 1e-8)
    expect_identical(predict(ny, new), predict(full, new))
  }
  # a class of one point trains in every fold of the path's cross-validation
  lone <- factor(c(as.character(d$y), "lone"))
  X1 <- rbind(X, c(3, 3))
  path <- cbind(c(0.01, 0.1, 1))
  expect_warning(full <- kmdc(X1, lone, kernel = kernel_rbf(3), reg = path), class = "krein_one_row_class_warning")
  expect_warning(ny <- kmdc(X1, lone, kernel = kernel_rbf(3), reg = path, landmarks = seq_len(nrow(X1))),
                 class = "krein_one_row_class_warning")
  expect_identical(ny$select, "cv")
  expect_equal(ny$cv_error, full$cv_error)
  expect_identical(ny$best, full$best)
  new1 <- rbind(new, c(3, 3.1))
  expect_lt(max(abs(predict(ny, new1, type = "prob") - predict(full, new1, type = "prob"))), 1e-8)
})

test_that("the Nystroem kmdc is MASS's discriminant on Ny-KQD's distances", {
  # Haasdonk and Pekalska (2010), Sec. 3.3, in the feature space of the
  # Nystroem approximation: MASS::lda / qda on the training points'
  # squared RC distances of kqd(variant = "RC+", landmarks = ) (Ny-KQD)
  set.seed(42)
  d <- gaussian_mixture_2d(120)
  X <- as.matrix(d[, 1:2])
  new <- as.matrix(gaussian_mixture_2d(20)[, 1:2])
  landmarks <- c(3, 10, 25, 40, 47, 61, 80, 95, 101, 118)
  ny_kqd <- kqd(X, d$y, kernel = kernel_rbf(1), variant = "RC+", reg = 0.1, landmarks = landmarks)
  D <- predict(ny_kqd, type = "distance")
  D_new <- predict(ny_kqd, new, type = "distance")
  for (classifier in c("lda", "qda")) {
    fit <- kmdc(X, d$y, kernel = kernel_rbf(1), classifier = classifier, reg = 0.1, landmarks = landmarks)
    oracle <- predict(if (classifier == "lda") MASS::lda(unname(D), d$y) else MASS::qda(unname(D), d$y),
                      unname(D_new))
    expect_equal(predict(fit, new, type = "distance"), D_new, tolerance = 1e-10)
    expect_equal(unname(predict(fit, new, type = "prob")), unname(oracle$posterior), tolerance = 1e-6)
    expect_identical(as.character(predict(fit, new)), as.character(oracle$class))
  }
})

test_that("a Nystroem kmdc on fewer landmarks fits and predicts, by formula and by x and y", {
  set.seed(43)
  train <- gaussian_mixture_2d(150)
  test <- gaussian_mixture_2d(200)
  majority <- max(table(test$y)) / nrow(test)
  for (distance in c("RC", "IC")) {
    set.seed(1)
    by_formula <- kmdc(y ~ ., data = train, distance = distance, landmarks = "random", m = 20)
    set.seed(1)
    by_matrix <- kmdc(train[, 1:2], train$y, distance = distance, landmarks = "random", m = 20)
    expect_s3_class(by_formula, "kmdc")
    expect_null(by_formula$x)
    expect_length(by_formula$landmarks$class, 20L)
    expect_identical(by_formula$landmarks$indices, by_matrix$landmarks$indices)
    for (type in c("prob", "decision", "distance")) {
      expect_equal(predict(by_formula, test, type = type), predict(by_matrix, test[, 1:2], type = type),
                   ignore_attr = TRUE)
    }
    prob <- predict(by_formula, test, type = "prob")
    expect_identical(dim(prob), c(200L, 2L))
    expect_equal(unname(rowSums(prob)), rep(1, 200), tolerance = 1e-12)
    expect_identical(levels(predict(by_formula, test)), levels(train$y))
    expect_length(fitted(by_formula), nrow(train))
    expect_gt(mean(predict(by_formula, test) == test$y), majority + 0.2)
    # a row predicts the same alone as among others
    expect_equal(predict(by_formula, test[7, ], type = "prob"), prob[7, , drop = FALSE])
  }
  expect_output(print(by_formula), "Nystroem, 20 random landmarks")
  expect_output(print(by_formula), "distances of Ny-KQD")
  expect_identical(summary(by_formula)$model[[1]]$landmarks, as.vector(table(by_formula$landmarks$class)))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(by_formula, resolution = 20))
  expect_invisible(plot(kmdc(iris[, 1:4], iris$Species, landmarks = "random", m = 15)))
})

test_that("a Nystroem kmdc refuses bad landmarks", {
  set.seed(44)
  train <- gaussian_mixture_2d(40)
  X <- train[, 1:2]
  expect_error(kmdc(X, train$y, landmarks = "grid"), class = "krein_error", regexp = "`landmarks`")
  expect_error(kmdc(X, train$y, landmarks = c(1, 41)), class = "krein_error", regexp = "`landmarks`")
  expect_error(kmdc(X, train$y, landmarks = "random", m = 41), class = "krein_error", regexp = "`m`")
  expect_error(kmdc(X, train$y, landmarks = "meb", eps = 2), class = "krein_error", regexp = "`eps`")
  other <- select_landmarks(X[1:30, ], train$y[1:30], method = "random", m = 6)
  expect_error(kmdc(X, train$y, landmarks = other), class = "krein_error", regexp = "selected on other data")
})
