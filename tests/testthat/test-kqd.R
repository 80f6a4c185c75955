# Tests of kqd() against the plain-R transcription of paper 000 (Pekalska &
# Haasdonk, 000_7435e1e84b20a6bd.txt) Table II in helper-kqd.R;
# kernel_mahalanobis() and kmdc() are tested in test-kmdc.R.

fx_variants <- c("IC+", "IC-", "RC+", "RC-", "FK+", "FK-")

# alpha = 1e-2 for IC/FK, sigma^2 = 0.1 for RC: on the fixtures below every
# matrix Table II inverts is well conditioned and no eigenvalue sits near a
# pinv threshold (asserted with ref_kqd_conditioning() in the tests).
fx_reg <- function(variant) if (substr(variant, 1, 2) == "RC") 0.1 else 1e-2

# fx_three_classes(), fx_checkerboard(), fx_kernels() and fx_two_classes()
# are in helper-kqd.R (test-kmdc.R uses them too).

fx_check_table_ii <- function(d) {
  k <- fx_kernels(d)
  for (variant in fx_variants) {
    for (indefinite in c("no", "yes")) {
      reg <- fx_reg(variant)
      info <- sprintf("%s, indefinite = \"%s\"", variant, indefinite)
      # precondition: the comparison is well posed at this regularisation
      expect_gt(min(ref_kqd_conditioning(k$K, d$y, variant, reg, indefinite == "yes")), 1e-5)
      # forcing the pd formulas on an indefinite kernel may warn (krein_warning):
      # that is the point here, so those warnings are muffled
      fit <- withCallingHandlers(
        kqd(d$x, d$y, kernel = d$kernel, variant = variant, reg = reg, indefinite = indefinite, scale = FALSE),
        krein_warning = function(w) invokeRestart("muffleWarning"))
      got <- predict(fit, d$x_new, type = "distance")
      want <- ref_kqd_distance(k$K, d$y, k$K_new, k$self_new, variant, reg, indefinite == "yes")
      expect_identical(dim(got), dim(want), info = info)
      expect_identical(colnames(got), levels(d$y), info = info)
      expect_lt(ref_rel_diff(got, want), 1e-8)
      if (substr(variant, 1, 2) != "FK") {  # FK: pd and indefinite formulas coincide
        expect_identical(unname(fit$indefinite), rep(indefinite == "yes", nlevels(d$y)),
                         info = info)
      }
    }
  }
}

test_that("all twelve KQD/IKQD variants match Table II on three RBF classes", {
  # paper 000 Table II, eqs. (14)-(23): six variants x pd / indefinite formulas
  fx_check_table_ii(fx_three_classes())
})

test_that("all twelve KQD/IKQD variants match Table II on the invariant-kernel checkerboard", {
  # paper 000 Table II with the indefinite invariant kernel of Sec. V-B
  fx_check_table_ii(fx_checkerboard())
})

test_that("the signature and the automatic choice of formulas follow the spectrum", {
  # paper 000 Table II caption: p_j positive, q_j negative eigenvalues of the
  # centred class kernel K~^[j]; the IKQD formulas are needed exactly when
  # q_j > 0 (zero eigenvalues: |lambda| <= 100 n_j eps max|lambda|)
  board <- fx_checkerboard()
  K <- fx_kernels(board)$K
  for (variant in c("IC+", "IC-", "RC+", "RC-")) {
    fit <- kqd(board$x, board$y, kernel = board$kernel, variant = variant, reg = fx_reg(variant),
               indefinite = "yes")
    want <- ref_kqd_signature(K, board$y, variant)
    expect_equal(unname(fit$signature[, c("p", "q", "z")]), unname(want), info = variant)
  }
  fit <- kqd(board$x, board$y, kernel = board$kernel, variant = "RC+", reg = 0.1,
             indefinite = "auto")
  expect_identical(fit$indefinite, c("1" = TRUE, "2" = TRUE))
  three <- fx_three_classes()
  fit <- kqd(three$x, three$y, kernel = three$kernel, variant = "RC+", reg = 0.1,
             indefinite = "auto")
  expect_identical(fit$indefinite, c(zeta = FALSE, alpha = FALSE, mid = FALSE))
})

test_that("FK fits record no signature; indefiniteness() gives the full one", {
  # paper 000 Sec. IV-C: FK works in the (I)KPCA space of K~ = H K H. Its
  # matrix K~_j H_j K~_j' is positive semidefinite for every kernel, so the fit
  # computes no spectrum of its own (an n x n eigendecomposition only for the
  # record would dominate the fit); the signature is indefiniteness(K, center = TRUE).
  board <- fx_checkerboard()
  K <- fx_kernels(board)$K
  fit <- kqd(board$x, board$y, kernel = board$kernel, variant = "FK+", reg = 1e-2,
             indefinite = "yes")
  expect_true(all(is.na(fit$signature)))
  want <- ref_kqd_signature(K, board$y, "FK+")
  full <- indefiniteness(K, center = TRUE, tol = 100 * nrow(K) * .Machine$double.eps)$signature
  expect_equal(unname(full[c("p", "q")]), unname(want[1, 1:2]))
})

test_that("with a positive definite kernel the IKQD formulas give the KQD decisions", {
  # paper 000 after eq. (17): "This is equivalent to (15) if K~^[j] is a pd
  # kernel matrix"; likewise (20)/(18) and (21)/(19) since then J = I
  d <- fx_three_classes()
  for (variant in fx_variants) {
    reg <- fx_reg(variant)
    pd <- kqd(d$x, d$y, kernel = d$kernel, variant = variant, reg = reg, indefinite = "no")
    ind <- kqd(d$x, d$y, kernel = d$kernel, variant = variant, reg = reg, indefinite = "yes")
    expect_lt(ref_rel_diff(predict(ind, d$x_new, type = "decision"),
                           predict(pd, d$x_new, type = "decision")), 1e-8)
    expect_identical(predict(ind, d$x_new), predict(pd, d$x_new), info = variant)
  }
})

test_that("IKQD-IC- is the Mahalanobis distance of explicit pseudo-Euclidean coordinates", {
  # paper 000 Appendix I-A: with C = (1/n) Psi~ Psi~' J invertible, D^2 =
  # psi~' J C^-1 psi~ = n psi~' (Psi~ Psi~')^-1 psi~, the ordinary Mahalanobis
  # distance (ML covariance) of the coordinates; the kernel is K = Z S Z',
  # S = diag(1, 1, 1, -1, -1), indefinite.
  set.seed(9)
  S <- diag(c(1, 1, 1, -1, -1))
  y <- factor(rep(c("b", "a"), c(15, 12)), levels = c("b", "a"))
  Z <- rbind(matrix(rnorm(75), 15), matrix(rnorm(60, 0.7), 12) %*% diag(c(1, 2, 1, 0.5, 1.5)))
  Z_new <- matrix(rnorm(20), 4)
  K <- Z %*% S %*% t(Z)
  K_new <- precomputed_kernel(Z_new %*% S %*% t(Z), self = rowSums((Z_new %*% S) * Z_new))
  want <- sapply(levels(y), function(l) {
    z <- Z[y == l, ]
    stats::mahalanobis(Z_new, colMeans(z), stats::cov(z) * (nrow(z) - 1) / nrow(z))
  })
  fit <- kqd(precomputed_kernel(K), y, variant = "IC-", reg = 1e-8)
  expect_true(all(fit$signature[, "q"] == 2))
  expect_lt(ref_rel_diff(predict(fit, K_new, type = "distance"), want), 1e-8)
})

test_that("IKQD-RC+ in canonical pseudo-Euclidean coordinates has its closed form", {
  # paper 000 eq. (20), K~reg = U (Lambda + n sigma^2 J) U'. For centred
  # coordinates Z~ = U |Lambda|^(1/2) (axis-aligned, signs s_i), eq. (20)
  # reduces to sum_i s_i psi_i^2 / (|lambda_i| / n + sigma^2). (Appendix I-C
  # writes C_reg psi~ = (1/n) Psi~ k~ + sigma^2 psi~ where C_reg = C + sigma^2 J
  # gives sigma^2 J psi~, hence the signs s_i; we test the table's formula.)
  set.seed(3)
  n <- 14
  lam <- c(9, 4, 1.5, 3, 0.45)
  s <- c(1, 1, 1, -1, -1)
  U <- qr.Q(qr(ref_centering(n) %*% matrix(rnorm(n * 5), n)))
  Z <- sweep(U %*% diag(sqrt(lam)), 2, rnorm(5), "+")
  Z_new <- matrix(rnorm(15), 3)
  K <- Z %*% diag(s) %*% t(Z)
  K_new <- precomputed_kernel(Z_new %*% diag(s) %*% t(Z),
                              self = rowSums((Z_new %*% diag(s)) * Z_new))
  psi <- sweep(Z_new, 2, colMeans(Z))
  y <- factor(rep(c("only", "other"), c(n, 6)))
  other <- matrix(rnorm(30), 6)  # a second class, so that kqd() accepts the data
  K_all <- rbind(cbind(K, Z %*% diag(s) %*% t(other)),
                 cbind(other %*% diag(s) %*% t(Z), other %*% diag(s) %*% t(other)))
  K_new_all <- precomputed_kernel(cbind(K_new$K, Z_new %*% diag(s) %*% t(other)), self = K_new$self)
  for (s2 in c(0.05, 0.3)) {
    fit <- kqd(precomputed_kernel(K_all), y, variant = "RC+", reg = s2, indefinite = "yes")
    want <- colSums(t(psi^2) * s / (lam / n + s2))
    expect_lt(ref_rel_diff(predict(fit, K_new_all, type = "distance")[, "only"], want), 1e-8)
  }
})

test_that("the two-class bias search reaches the best training error of any threshold", {
  # paper 000 Sec. IV-D: b_1 - b_2 minimises the training error; brute force
  # over every threshold t of g = f_1 - f_2 (bias-free) must not do better
  variants <- c("RC+", "IC-", "RC-", "FK+", "IC+")
  for (seed in 1:5) {
    d <- fx_two_classes(seed)
    variant <- variants[seed]
    fit <- kqd(d$x, d$y, kernel = kernel_rbf(gamma = 0.5), variant = variant,
               reg = fx_reg(variant), bias = "error")
    d2 <- predict(fit, d$x, type = "distance")
    g <- (d2[, 2] - d2[, 1]) / 2
    best <- ref_best_pairwise_error(g, d$y == levels(d$y)[1])
    info <- sprintf("seed %d, %s", seed, variant)
    expect_equal(unname(fit$training_error), best / length(d$y), info = info)
    expect_equal(sum(predict(fit, d$x) != d$y), best, info = info)
    # bias = "none" with equal priors: the decision difference is g
    none <- kqd(d$x, d$y, kernel = kernel_rbf(gamma = 0.5), variant = variant,
                reg = fx_reg(variant), bias = "none", prior = c(0.5, 0.5))
    dec <- predict(none, d$x, type = "decision")
    expect_lt(ref_rel_diff(dec[, 1] - dec[, 2], g), 1e-8)
  }
})

test_that("four classes: biases sum to zero, training error is the fitted rule's", {
  # paper 000 Sec. IV-D: least-squares biases from the pairwise differences,
  # fixed up to a constant (here: sum zero); sine populations of paper 003
  set.seed(11)
  d <- sine_populations(20)
  fit <- kqd(y ~ ., data = d, kernel = kernel_rbf(gamma = 1), variant = "RC+", reg = 0.1)
  expect_s3_class(fit, c("kqd", "krein_model"))
  expect_equal(dim(fit$bias), c(1L, 4L))
  expect_lt(max(abs(rowSums(fit$bias))), 1e-10)
  pred <- predict(fit, d)
  expect_identical(levels(pred), c("1", "2", "3", "4"))
  expect_equal(unname(fit$training_error), mean(pred != d$y))
  prob <- predict(fit, d, type = "prob")
  expect_equal(unname(rowSums(prob)), rep(1, nrow(d)), tolerance = 1e-12)
})

test_that("predict: decision, prob and class are consistent with the distances and biases", {
  # paper 000 eqs. (9)-(10): f_j = -d2_j / 2 + b_j, class = argmax_j f_j
  # (ties to the first class); prob = softmax of the decisions
  d <- fx_three_classes()
  fit <- kqd(d$x, d$y, kernel = d$kernel, variant = "RC+", reg = 0.1)
  d2 <- predict(fit, d$x_new, type = "distance")
  dec <- predict(fit, d$x_new, type = "decision")
  prob <- predict(fit, d$x_new, type = "prob")
  cls <- predict(fit, d$x_new, type = "class")
  expect_equal(unname(dec), unname(-d2 / 2 + matrix(fit$bias[1, ], nrow(d2), 3, byrow = TRUE)),
               tolerance = 1e-12)
  soft <- exp(dec - apply(dec, 1, max))
  expect_equal(unname(prob), unname(soft / rowSums(soft)), tolerance = 1e-10)
  expect_equal(unname(rowSums(prob)), rep(1, nrow(d$x_new)), tolerance = 1e-12)
  expect_identical(colnames(prob), levels(d$y))
  expect_identical(colnames(dec), levels(d$y))
  expect_identical(as.character(cls), levels(d$y)[max.col(dec, ties.method = "first")])
})

test_that("one-row newdata works and a row's prediction ignores the other rows", {
  # package convention (shared/notes/style.md, habit 8)
  d <- fx_three_classes()
  for (variant in c("RC+", "FK-")) {
    fit <- kqd(d$x, d$y, kernel = d$kernel, variant = variant, reg = fx_reg(variant))
    all_rows <- predict(fit, d$x_new[1:5, ], type = "decision")
    one <- predict(fit, d$x_new[3, , drop = FALSE], type = "decision")
    expect_equal(dim(one), c(1L, 3L))
    expect_equal(unname(one[1, ]), unname(all_rows[3, ]), tolerance = 1e-12)
    expect_length(predict(fit, d$x_new[1, , drop = FALSE]), 1L)
    expect_equal(unname(rowSums(predict(fit, d$x_new[1, , drop = FALSE], type = "prob"))), 1,
                 tolerance = 1e-12)
  }
})

test_that("factor levels are preserved, in their order", {
  # package convention: class predictions are factors with the training levels
  d <- fx_three_classes()
  fit <- kqd(d$x, d$y, kernel = d$kernel, variant = "IC+", reg = 1e-2)
  expect_identical(fit$levels, c("zeta", "alpha", "mid"))
  pred <- predict(fit, d$x_new)
  expect_s3_class(pred, "factor")
  expect_identical(levels(pred), c("zeta", "alpha", "mid"))
  expect_identical(colnames(fit$reg), c("zeta", "alpha", "mid"))
  expect_identical(names(fit$indefinite), c("zeta", "alpha", "mid"))
  expect_identical(colnames(predict(fit, d$x_new, type = "distance")), c("zeta", "alpha", "mid"))
})

test_that("the precomputed-kernel and formula paths give the data path's distances", {
  # the same Table II quantities, from kernel values instead of data
  d <- fx_checkerboard()
  k <- fx_kernels(d)
  new_pk <- precomputed_kernel(k$K_new, self = k$self_new)
  df <- data.frame(d$x, class = d$y)
  for (variant in fx_variants) {
    reg <- fx_reg(variant)
    data_fit <- kqd(d$x, d$y, kernel = d$kernel, variant = variant, reg = reg, scale = FALSE)
    want <- predict(data_fit, d$x_new, type = "distance")
    wrapped <- kqd(precomputed_kernel(k$K), d$y, variant = variant, reg = reg)
    named <- kqd(k$K, d$y, kernel = "precomputed", variant = variant, reg = reg)
    formula_fit <- kqd(class ~ x1 + x2, data = df, kernel = d$kernel, variant = variant, reg = reg, scale = FALSE)
    expect_lt(ref_rel_diff(predict(wrapped, new_pk, type = "distance"), want), 1e-10)
    expect_lt(ref_rel_diff(predict(named, new_pk, type = "distance"), want), 1e-10)
    expect_lt(ref_rel_diff(predict(formula_fit, d$x_new, type = "distance"), want), 1e-10)
    expect_equal(wrapped$bias, data_fit$bias, tolerance = 1e-8)
  }
  # IC and FK need no self-similarities: a plain n_new x n matrix will do
  fit <- kqd(precomputed_kernel(k$K), d$y, variant = "IC-", reg = 1e-2)
  expect_equal(predict(fit, k$K_new, type = "distance"), predict(fit, new_pk, type = "distance"))
})

test_that("a regularisation path equals separate fits at each value", {
  # glmnet-style path (shared/notes/style.md): each path value is an
  # independent Table II fit; the two-class training errors are checked
  # against the brute-force bias search as well
  d <- fx_two_classes(21, n = 30)
  kernel <- kernel_rbf(gamma = 0.5)
  K <- kernel_matrix(kernel, d$x)
  x_new <- matrix(rnorm(10), 5)
  for (variant in c("RC+", "IC-")) {
    # decreasing, as glmnet's; the training error is lowest at the last value
    path <- if (variant == "RC+") c(0.5, 0.1, 0.02) else c(1e-1, 1e-2, 1e-3)
    fit <- kqd(d$x, d$y, kernel = kernel, variant = variant, reg = path, scale = FALSE)
    expect_equal(dim(fit$reg), c(3L, 2L))
    expect_equal(unname(fit$reg), cbind(path, path), ignore_attr = TRUE)
    expect_identical(colnames(fit$reg), levels(d$y))
    expect_equal(dim(fit$bias), c(3L, 2L))
    expect_length(fit$path_error, 3L)
    for (i in seq_along(path)) {
      single <- kqd(d$x, d$y, kernel = kernel, variant = variant, reg = path[i], scale = FALSE)
      info <- sprintf("%s, reg = %g", variant, path[i])
      expect_lt(ref_rel_diff(predict(fit, x_new, type = "distance", reg = path[i]),
                             predict(single, x_new, type = "distance")), 1e-10)
      expect_equal(fit$bias[i, ], single$bias[1, ], tolerance = 1e-8, info = info)
      expect_equal(unname(fit$path_error[i]), unname(single$training_error), info = info)
      d2 <- ref_kqd_distance(K, d$y, K, rep(1, nrow(K)), variant, path[i], FALSE)
      best <- ref_best_pairwise_error((d2[, 2] - d2[, 1]) / 2, d$y == "pos")
      expect_equal(unname(fit$path_error[i]), best / nrow(K), info = info)
    }
    # select = "training": the path value with the lowest training error
    # (here the last); the default: the cross-validated choice
    old <- kqd(d$x, d$y, kernel = kernel, variant = variant, reg = path, scale = FALSE, select = "training")
    expect_equal(old$best, 3L)
    expect_equal(predict(old, x_new, type = "distance"),
                 predict(old, x_new, type = "distance", reg = path[3]))
    expect_identical(fit$select, "cv")
    expect_equal(predict(fit, x_new, type = "distance"),
                 predict(fit, x_new, type = "distance", reg = path[fit$best]))
  }
})

test_that("per-class regularisation uses one value per class", {
  # paper 000 Table II: alpha_j and sigma_j^2 are class-wise
  d <- fx_three_classes()
  k <- fx_kernels(d)
  reg <- matrix(c(0.05, 0.2, 0.1), nrow = 1)
  fit <- kqd(d$x, d$y, kernel = d$kernel, variant = "RC+", reg = reg, scale = FALSE)
  expect_equal(unname(fit$reg), reg)
  want <- ref_kqd_distance(k$K, d$y, k$K_new, k$self_new, "RC+", c(0.05, 0.2, 0.1), FALSE)
  expect_lt(ref_rel_diff(predict(fit, d$x_new, type = "distance"), want), 1e-8)
})

test_that("bad input gives krein_errors that name the argument", {
  d <- fx_three_classes()
  x <- d$x
  y <- d$y
  k <- d$kernel
  expect_error(kqd(x, factor(rep("a", nrow(x))), kernel = k), class = "krein_error", regexp = "`y`")
  for (bad in list(-1, 0, Inf, NA_real_, NaN)) {
    expect_error(kqd(x, y, kernel = k, reg = bad), class = "krein_error", regexp = "`reg`")
  }
  expect_error(kqd(x, y, kernel = k, reg = c(0.1, -0.1)), class = "krein_error", regexp = "`reg`")
  expect_error(kqd(x, y, kernel = k, reg = matrix(0.1, 1, 2)), class = "krein_error",
               regexp = "`reg`")
  expect_error(kqd(x, y, kernel = k, variant = "XX+"), class = "krein_error", regexp = "`variant`")
  fit <- kqd(x, y, kernel = k, variant = "RC+", reg = 0.1)
  expect_error(predict(fit, data.frame(a = 1, b = 2)), class = "krein_error", regexp = "`newdata`")
})

test_that("the prior weights the error bias search", {
  # ?kqd, Bias: with bias = "error" the search minimises the prior-weighted
  # training error (an error on class j counts prior_j / n_j). The prior is
  # not ignored: a prior leaning to one class moves the predictions away from
  # the default's.
  d <- fx_two_classes(3, n = 40)
  set.seed(30)
  new <- matrix(rnorm(400, 0.4, 1.2), ncol = 2)
  k <- kernel_rbf(gamma = 0.5)
  default <- kqd(d$x, d$y, kernel = k, variant = "RC+", reg = 0.1)
  leaning <- kqd(d$x, d$y, kernel = k, variant = "RC+", reg = 0.1, prior = c(pos = 0.95, neg = 0.05))
  expect_gt(sum(predict(leaning, new) == "pos"), sum(predict(default, new) == "pos"))
  # the biases are the plain-R transcription of the weighted search
  d2 <- leaning$training_distances[[1]]
  g <- (d2[, 2] - d2[, 1]) / 2
  for (case in list(list(fit = default, prior = as.vector(table(d$y)) / length(d$y)),
                    list(fit = leaning, prior = c(0.95, 0.05)))) {
    w <- case$prior / as.vector(table(d$y))
    w <- w / max(w)
    delta <- ref_weighted_pair_bias(g[d$y == "pos"], g[d$y == "neg"], w[1], w[2])
    expect_equal(unname(case$fit$bias[1, ]), c(delta, -delta) / 2, tolerance = 1e-10)
    decisions <- -d2 / 2 + rep(c(delta, -delta) / 2, each = nrow(d2))
    expect_identical(as.integer(fitted(case$fit)), max.col(decisions, ties.method = "first"))
  }
  # the search's weighted error is no larger than at the default's biases
  weighted_error <- function(fit) {
    wrong <- fitted(fit) != d$y
    sum(tapply(wrong, d$y, mean) * c(0.95, 0.05))
  }
  expect_lte(weighted_error(leaning), weighted_error(default))
})

test_that("a regularisation path defaults to its cross-validated best", {
  # IC-: the training points' distances are degenerate (n_j - 1 to their own
  # class), so the training error is 0 along the path and select =
  # "training" (lowest training error, ties to the first value) takes the
  # smallest value; the default is the lowest 5-fold CV error, ties to the
  # more regularised value, and the fit records its cv_error.
  # The folds are dealt in turn (interleaved_folds()), not drawn: the
  # default fit does not depend on the seed. On these data the first three
  # values tie in CV error: the third is the default.
  set.seed(6)
  d <- gaussian_mixture_2d(60)
  x <- as.matrix(d[, 1:2])
  k <- kernel_rbf(gamma = 1)
  path <- c(1e-6, 1e-4, 1e-2, 1)
  fit <- kqd(x, d$y, kernel = k, variant = "IC-", reg = path)
  expect_identical(fit$select, "cv")
  expect_equal(fit$path_error[1:2], c(0, 0))
  # plain R: refit on each fold's other folds, count held-out errors; the
  # folds: the points of each class in turn, classes one after another
  folds <- integer(length(d$y))
  folds[order(d$y)] <- rep_len(1:5, length(d$y))
  expect_identical(fit$cv_folds, folds)
  xs <- scale(x)
  wrong <- held_out_errors(folds, function(train, test) {
    part <- kqd(xs[train, ], d$y[train], kernel = k, variant = "IC-", reg = path, scale = FALSE,
                select = "training")
    vapply(path, function(reg) sum(predict(part, xs[test, , drop = FALSE], reg = reg) != d$y[test]), numeric(1))
  })
  expect_equal(fit$cv_error, wrong / nrow(x), tolerance = 1e-12)
  lowest <- which(wrong == min(wrong))
  expect_identical(fit$best, max(lowest))
  expect_identical(predict(fit, x), predict(fit, x, reg = path[max(lowest)]))
  expect_gt(fit$best, 1L)
  # another seed, the same folds and choice; the generator is not used
  set.seed(99)
  expect_identical(kqd(x, d$y, kernel = k, variant = "IC-", reg = path)$cv_error, fit$cv_error)
  expect_identical(runif(1), {set.seed(99); runif(1)})
  old <- kqd(x, d$y, kernel = k, variant = "IC-", reg = path, select = "training")
  expect_identical(old$best, 1L)
  expect_null(old$cv_error)
  # print() and summary() show the CV errors
  expect_match(paste(capture.output(print(fit)), collapse = "\n"), "lowest 5-fold CV error")
  expect_true("cv_error" %in% names(summary(fit)$model[[2]]))
  expect_match(paste(capture.output(print(summary(fit))), collapse = "\n"), "cv_error")
  # a single value needs no choice and draws nothing
  set.seed(6)
  before <- .Random.seed
  one <- kqd(x, d$y, kernel = k, variant = "IC-", reg = 1e-2)
  expect_identical(.Random.seed, before)
  expect_identical(one$select, "none")
  # a class too small for the folds: the training error, with a warning
  small <- c(which(d$y == levels(d$y)[1])[1:2], which(d$y == levels(d$y)[2]))
  expect_warning(tiny <- kqd(x[small, ], droplevels(d$y[small]), kernel = k, variant = "IC-", reg = path),
                 class = "krein_warning")
  expect_identical(tiny$select, "training")
})

test_that("RC's default is a cross-validated path scaled to the kernel's spread", {
  # One fixed value such as sigma^2 = 0.1 does not suit every kernel (Vowel:
  # 55.6% correct, against 97.3% at 1e-4). The default is seven values
  # s 10^(-5:1), s = tr(HKH) / n = mean(diag(K)) - mean(K), chosen by 5-fold
  # CV.
  set.seed(3)
  d <- gaussian_mixture_2d(80)
  x <- as.matrix(d[, 1:2])
  K <- kernel_matrix(kernel_rbf(2), x)
  spread <- sum(diag(K - rowMeans(K) - rep(colMeans(K), each = nrow(K)) + mean(K))) / nrow(K)
  fit <- kqd(x, d$y, kernel = kernel_rbf(2), scale = FALSE)
  expect_equal(unname(fit$reg[, 1]), spread * 10^(-5:1), tolerance = 1e-12)
  expect_identical(fit$select, "cv")
  expect_equal(predict(fit, x, type = "decision"),
               predict(kqd(x, d$y, kernel = kernel_rbf(2), scale = FALSE, reg = fit$reg[fit$best, 1]), x,
                       type = "decision"), tolerance = 1e-10)
  # Haasdonk and Pekalska (2010, Sec. 5): d_RC is invariant to adding a
  # constant to the kernel and to scaling kernel and sigma^2 together; the
  # default path keeps both (s moves with the scale, not with the constant)
  new <- as.matrix(gaussian_mixture_2d(40)[, 1:2])
  K_new <- kernel_matrix(kernel_rbf(2), new, x)
  pre <- kqd(precomputed_kernel(K), d$y)
  moved <- kqd(precomputed_kernel(7 * K + 3, self = rep(7 + 3, nrow(K))), d$y)
  expect_identical(moved$best, pre$best)
  expect_equal(unname(moved$reg[, 1]), 7 * unname(pre$reg[, 1]), tolerance = 1e-12)
  expect_identical(predict(moved, precomputed_kernel(7 * K_new + 3, self = rep(10, nrow(new)))),
                   predict(pre, precomputed_kernel(K_new, self = rep(1, nrow(new)))))
  # a class of one point trains in every fold of the path's cross-validation
  # (its fold is 0); Ny-KQD, whose folds go through the landmark pass, takes
  # the single value then. One value for IC and FK. Ny-KQD takes the path
  # too (test-kqd_nystrom.R)
  expect_identical(nrow(kqd(x, d$y, kernel = kernel_rbf(2), landmarks = 1:20)$reg), 7L)
  one <- factor(c("a", rep("b", 79)))
  one_fit <- suppressWarnings(kqd(x, one, kernel = kernel_rbf(2)))
  expect_identical(nrow(one_fit$reg), 7L)
  expect_identical(one_fit$select, "cv")
  expect_identical(one_fit$cv_folds[1], 0L)
  expect_true(all(one_fit$cv_folds[-1] %in% 1:5))
  expect_identical(unname(suppressWarnings(kqd(x, one, kernel = kernel_rbf(2), landmarks = 1:20))$reg[1, ]),
                   c(0.1, 0.1))
  expect_identical(unname(kqd(x, d$y, kernel = kernel_rbf(2), variant = "FK+")$reg[1, 1]), 1e-3)
})

test_that("kqd's and kmdc's default path holds up on real data where sigma^2 = 0.1 does not", {
  skip_if_not_installed("mlbench")
  vowel <- vowel_sample()
  v <- vowel$data
  train <- vowel$train
  accuracy <- vowel$accuracy
  # one fixed value, sigma^2 = 0.1: far too large here
  old_kqd <- accuracy(kqd(Class ~ ., data = v[train, ], reg = 0.1))
  old_kmdc <- accuracy(kmdc(Class ~ ., data = v[train, ], reg = 0.1))
  fit_kqd <- kqd(Class ~ ., data = v[train, ])
  fit_kmdc <- kmdc(Class ~ ., data = v[train, ])
  expect_lt(old_kqd, 0.6)
  expect_lt(old_kmdc, 0.7)
  expect_gt(accuracy(fit_kqd), old_kqd + 0.2)
  expect_gt(accuracy(fit_kmdc), old_kmdc + 0.15)
  # the chosen values lie inside the path, not at its ends
  expect_lt(fit_kqd$best, nrow(fit_kqd$reg))
})
