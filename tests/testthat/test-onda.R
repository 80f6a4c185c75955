# onda(): paper 004 (Hidaka and Kurita 2016). The linear approximation is
# FLDA (eqs. 25-29; oracle MASS::lda), Gaussian NDA uses the posteriors of
# eq. (33) (oracle MASS::qda with method = "mle"), the mapping is eq. (19)
# with U from eqs. (14), (35)-(36).

four_class_data <- function(n = 160, seed = 1) {
  set.seed(seed)
  y <- factor(rep(c("a", "b", "c", "d"), length.out = n))
  centres <- rbind(c(0, 0, 0), c(2, 0, 1), c(0, 2, -1), c(2, 2, 2))
  x <- centres[as.integer(y), ] + matrix(rnorm(3 * n), n, 3) * c(1, 0.6, 1.3, 0.8)[as.integer(y)]
  colnames(x) <- c("u", "v", "w")
  list(x = x, y = y)
}

test_that("posterior = \"linear\" spans MASS::lda's discriminant space; rule = \"mahalanobis\" classifies as its nearest means", {
  for (case in list(list(x = as.matrix(iris[, 1:4]), y = iris$Species), four_class_data())) {
    fit <- onda(case$x, case$y, posterior = "linear")
    oracle <- MASS::lda(case$x, case$y)
    lda_x <- predict(oracle, case$x)$x
    ours <- predict(fit, case$x, type = "projection")
    # the two subspaces coincide: every canonical correlation is 1
    expect_equal(stats::cancor(lda_x, ours)$cor, rep(1, ncol(lda_x)), tolerance = 1e-8)
    # nearest class mean in MASS's discriminant space
    centres <- apply(lda_x, 2, function(v) tapply(v, case$y, mean))
    d <- as.matrix(stats::dist(rbind(centres, lda_x)))[-seq_len(nlevels(case$y)), seq_len(nlevels(case$y))]
    nearest <- factor(levels(case$y)[max.col(-d)], levels = levels(case$y))
    expect_equal(unname(predict(fit, case$x, rule = "mahalanobis")), nearest)
  }
})

test_that("posterior = \"gaussian\" gives the posteriors of MASS::qda(method = \"mle\") and eq. (33)", {
  case <- four_class_data()
  new <- matrix(rnorm(30), 10, 3, dimnames = list(NULL, c("u", "v", "w")))
  for (prior in list(NULL, c(0.1, 0.2, 0.3, 0.4))) {
    fit <- onda(case$x, case$y, prior = prior, pooling = 0)
    oracle <- MASS::qda(case$x, case$y, method = "mle", prior = prior %||% (as.vector(table(case$y)) / 160))
    expect_equal(unname(predict(fit, new, type = "prob")), unname(predict(oracle, new)$posterior),
                 tolerance = 1e-8)
    expect_equal(unname(predict(fit, new, type = "prob")),
                 unname(ref_gaussian_posteriors(case$x, case$y, new, prior %||% rep(0.25, 4))), tolerance = 1e-8)
  }
})

test_that("U solves Gamma U = Psi U Lambda with Gamma the sample average of eq. (15)", {
  case <- four_class_data()
  fit <- onda(case$x, case$y)
  B <- predict(fit, type = "prob")
  psi <- rep(0.25, 4)
  Gamma <- Reduce(`+`, lapply(seq_len(nrow(B)), function(i) tcrossprod(B[i, ] - psi))) / nrow(B)
  expect_equal(unname(fit$Gamma), Gamma, tolerance = 1e-12)
  U <- fit$U
  expect_equal(unname(Gamma %*% U), unname(diag(psi) %*% U %*% diag(fit$values[1:3])), tolerance = 1e-10)
  expect_equal(unname(t(U) %*% diag(psi) %*% U), diag(3), tolerance = 1e-10)
  # eq. (19): the projection is U'B(x)
  expect_equal(unname(predict(fit, type = "projection")), unname(B %*% U), tolerance = 1e-12)
})

test_that("with ideal posteriors the training classes map to K distinct points", {
  case <- four_class_data()
  one_hot <- function(x_train, y_train, x_new) {
    rows <- match(apply(x_new, 1, paste, collapse = "|"), apply(x_train, 1, paste, collapse = "|"))
    B <- matrix(0, nrow(x_new), nlevels(y_train))
    B[cbind(seq_len(nrow(x_new)), as.integer(y_train)[rows])] <- 1
    B
  }
  fit <- onda(case$x, case$y, posterior = one_hot)
  y <- predict(fit, case$x, type = "projection")
  distinct <- unique(round(y, 10))
  expect_equal(nrow(distinct), 4L)
  expect_equal(fit$training_error, 0)
  for (rule in c("nearest_mean", "mahalanobis")) expect_identical(predict(fit, rule = rule), case$y)
})

test_that("the mapped training points lie in a (K - 1)-dimensional affine subspace", {
  case <- four_class_data()
  fit <- onda(case$x, case$y)
  B <- predict(fit, type = "prob")
  # all K eigenvectors of eqs. (35)-(36): the K-th direction is constant on the data
  e <- eigen(diag(1 / sqrt(fit$prior)) %*% fit$Gamma %*% diag(1 / sqrt(fit$prior)), symmetric = TRUE)
  full <- B %*% (e$vectors / sqrt(fit$prior))
  expect_lt(diff(range(full[, 4])), 1e-10)
  centred <- sweep(full, 2, colMeans(full))
  expect_equal(sum(svd(centred)$d > 1e-8 * svd(centred)$d[1]), 3L)
  # and the K - 1 kept coordinates lose nothing: B is recovered from y
  y <- predict(fit, type = "projection")
  recovered <- t(solve(rbind(t(fit$U), 1), rbind(t(y), 1)))
  expect_equal(unname(recovered), unname(B), tolerance = 1e-8)
})

test_that("svm, function and fitted-model posteriors", {
  case <- four_class_data()
  skip_if_not_installed("e1071")
  set.seed(5)
  fit <- onda(case$x, case$y, posterior = "svm", svm_args = list(gamma = 0.3), scale = FALSE)
  set.seed(5)
  again <- onda(case$x, case$y, posterior = "svm", svm_args = list(gamma = 0.3), scale = FALSE)
  expect_equal(predict(fit, case$x[1:5, ], type = "prob"), predict(again, case$x[1:5, ], type = "prob"))
  set.seed(5)
  svm <- e1071::svm(case$x, case$y, probability = TRUE, gamma = 0.3)
  p <- attr(predict(svm, case$x[1:5, ], probability = TRUE), "probabilities")[, levels(case$y)]
  expect_equal(unname(predict(fit, case$x[1:5, ], type = "prob")), unname(p))
  # a krein model as the estimator, through the formula interface
  df <- data.frame(case$x, y = case$y)
  model <- kqd(y ~ ., data = df, kernel = kernel_rbf(0.5), variant = "RC+", scale = FALSE)
  via_model <- onda(y ~ ., data = df, posterior = model, scale = FALSE)
  expect_equal(unname(predict(via_model, df[1:7, ], type = "prob")),
               unname(predict(model, df[1:7, ], type = "prob")))
  expect_equal(predict(via_model, type = "prob"), predict(via_model, df, type = "prob"),
               ignore_attr = TRUE)
})

test_that("predictions have the documented shapes", {
  fit <- onda(Species ~ ., data = iris)
  p <- predict(fit, iris[1:9, ], type = "prob")
  expect_equal(dim(p), c(9L, 3L))
  expect_equal(colnames(p), levels(iris$Species))
  expect_equal(unname(rowSums(p)), rep(1, 9))
  expect_equal(dim(predict(fit, iris[1:9, ], type = "projection")), c(9L, 2L))
  cls <- predict(fit, iris[1:9, ])
  expect_identical(levels(cls), levels(iris$Species))
  expect_equal(predict(fit, iris[5, ], type = "prob"), p[5, , drop = FALSE], ignore_attr = TRUE)
  two <- onda(Species ~ ., data = droplevels(iris[1:100, ]), dim = 1)
  expect_equal(ncol(predict(two, iris[1:100, ], type = "projection")), 1L)
})

test_that("print, summary and plot", {
  fit <- onda(Species ~ ., data = iris)
  expect_output(expect_invisible(print(fit)), "gaussian posteriors")
  expect_output(print(fit), "rule = \"nearest_mean\"")
  expect_output(print(summary(fit)), "Gamma")
  expect_output(print(summary(fit)), "Training error by rule")
  pdf(NULL)
  on.exit(dev.off())
  expect_invisible(plot(fit))
  expect_invisible(plot(fit, iris[1:30, ]))
  expect_invisible(plot(fit, iris[1:30, 1:4], rule = "nearest_mean"))
  two <- onda(Species ~ ., data = droplevels(iris[51:150, ]))
  expect_invisible(plot(two))
  # two inputs: decision regions, under either rule
  flat <- onda(Species ~ Petal.Length + Petal.Width, data = iris)
  expect_invisible(plot(flat, resolution = 20))
  expect_invisible(plot(flat, resolution = 20, rule = "nearest_mean"))
})

test_that("bad input gives a krein_error", {
  case <- four_class_data()
  expect_snapshot(show_error(onda(case$x, case$y, dim = 4)))
  expect_snapshot(show_error(onda(case$x, case$y, posterior = "kernel")))
  not_summing <- function(x_train, y_train, x_new) matrix(0.3, nrow(x_new), 4)
  expect_snapshot(show_error(onda(case$x, case$y, posterior = not_summing)))
  wrong_shape <- function(x_train, y_train, x_new) matrix(0.5, nrow(x_new), 2)
  expect_snapshot(show_error(onda(case$x, case$y, posterior = wrong_shape)))
  with_na <- function(x_train, y_train, x_new) {
    p <- matrix(0.25, nrow(x_new), 4)
    p[3, ] <- NA
    p
  }
  expect_snapshot(show_error(onda(case$x, case$y, posterior = with_na)))
  expect_snapshot(show_error(onda(kernel_matrix(case$x, kernel = kernel_rbf(1)), case$y, kernel = "precomputed")))
  expect_snapshot(show_error(onda(precomputed_kernel(kernel_matrix(case$x, kernel = kernel_rbf(1))), case$y)))
  fit <- onda(case$x, case$y)
  expect_error(predict(fit, case$x, rule = "nearest"), class = "krein_error")
  expect_snapshot(show_error(predict(fit, case$x, rule = "nearest")))
  expect_error(onda(case$x, case$y, kernel = kernel_rbf()), class = "krein_argument_error")
  expect_snapshot(show_error(onda(y ~ ., data = data.frame(case$x, y = case$y), kernel = kernel_rbf())))
  expect_error(onda(case$x, case$y, dimm = 2), class = "krein_argument_error")
})

test_that("a singular class covariance gets a ridge with a warning, reported in the fit", {
  case <- four_class_data()
  x <- cbind(case$x, w2 = case$x[, "w"])
  # a pooling given: no ridge is chosen by cross-validation, the singular
  # covariances get the default ridge and a warning
  expect_warning(fit <- onda(x, case$y, pooling = 1), "singular")
  expect_gt(fit$ridge, 0)
  expect_null(fit$ridge_selection)
  fixed <- onda(x, case$y, ridge = 0.01)
  expect_equal(fixed$ridge, 0.01)
})

test_that("the paper's rule is the nearest class mean in the paper's normalisation, the largest decision value", {
  # paper 004, Table 2: Euclidean nearest class mean in the discriminant space,
  # normalised by U' Psi U = I for the NDA (eqs. 35-36) and A' Sigma_T A = I
  # for FLDA (eq. 3). Transcribed here from the projection, independently of
  # predict()'s rule.
  case <- four_class_data()
  new <- four_class_data(40, seed = 2)$x
  for (posterior in c("gaussian", "linear")) {
    fit <- onda(case$x, case$y, posterior = posterior)
    scale <- if (posterior == "linear") 1 / sqrt(fit$values[1:3]) else rep(1, 3)
    P <- predict(fit, new, type = "projection") * rep(scale, each = nrow(new))
    M <- fit$class_means * rep(scale, each = 4)
    d <- sapply(1:4, function(k) rowSums((P - rep(M[k, ], each = nrow(P)))^2))
    expect_equal(unname(predict(fit, new, type = "decision")), -d, tolerance = 1e-10)
    expected <- factor(levels(case$y)[max.col(-d, ties.method = "first")], levels = levels(case$y))
    expect_identical(unname(predict(fit, new, rule = "nearest_mean")), expected)
    # FLDA's normalised coordinates have unit total covariance (eq. 3)
    if (posterior == "linear") {
      Ptrain <- predict(fit, type = "projection") * rep(scale, each = 160)
      expect_equal(crossprod(scale(Ptrain, scale = FALSE)) / 160, diag(3), tolerance = 1e-8, ignore_attr = TRUE)
    }
    # the default class is the most probable one
    p <- predict(fit, new, type = "prob")
    expect_identical(unname(predict(fit, new)), factor(levels(case$y)[max.col(p, ties.method = "first")],
                                                       levels = levels(case$y)))
    expect_identical(predict(fit, new, rule = "posterior"), predict(fit, new))
  }
  # the training error is the default rule's
  fit <- onda(case$x, case$y)
  expect_equal(fit$training_error, mean(predict(fit) != case$y))
})

test_that("resolved hyperparameters are stored: a row predicts the same alone and among others", {
  case <- four_class_data()
  x <- cbind(case$x, w2 = case$x[, "w"])
  # the automatic ridge is resolved once, at the fit
  fits <- list(suppressWarnings(onda(x, case$y)), onda(x[, 1:3], case$y, posterior = "linear"))
  new <- x[c(3, 50, 120), ]
  for (fit in fits) {
    new_fit <- new[, seq_len(ncol(fit$x))]
    for (type in c("prob", "decision", "projection")) {
      many <- predict(fit, new_fit, type = type)
      expect_equal(predict(fit, new_fit[2, , drop = FALSE], type = type), many[2, , drop = FALSE], tolerance = 1e-10)
    }
    for (rule in c("posterior", "nearest_mean", "mahalanobis")) {
      expect_identical(predict(fit, new_fit[3, , drop = FALSE], rule = rule), predict(fit, new_fit, rule = rule)[3])
    }
  }
  expect_gt(fits[[1]]$ridge, 0)
  expect_identical(fits[[1]]$estimator$gaussian$ridge, fits[[1]]$ridge)
})

test_that("onda goes through the shared input path: NA rows, na.exclude and newdata checks", {
  df <- iris
  df$Sepal.Width[c(4, 9)] <- NA
  fit <- onda(Species ~ ., data = df, na.action = na.exclude)
  expect_identical(nobs(fit), 148L)
  expect_length(predict(fit, rule = "nearest_mean"), 150)
  expect_true(all(is.na(predict(fit, type = "decision")[c(4, 9), ])))
  expect_error(predict(fit, iris[, 1:3]), class = "krein_error")
  expect_snapshot(show_error(predict(fit, iris[, 1:3])))
})

test_that("linear posteriors are eq. (23) and sum to 1, for any prior", {
  case <- four_class_data()
  new <- matrix(rnorm(30), 10, 3, dimnames = list(NULL, c("u", "v", "w")))
  for (prior in list(NULL, c(0.1, 0.2, 0.3, 0.4))) {
    fit <- onda(case$x, case$y, posterior = "linear", prior = prior)
    p <- predict(fit, new, type = "prob")
    expect_equal(unname(p), ref_linear_posteriors(case$x, case$y, new, prior %||% rep(0.25, 4)),
                 tolerance = 1e-8)
    # with a prior, the total mean and covariance are prior-weighted (the
    # data's own give rows summing to 0.5 .. 1.4)
    expect_equal(unname(rowSums(p)), rep(1, 10), tolerance = 1e-12)
  }
})

test_that("posterior = \"linear\" refuses a singular total covariance, e.g. two points", {
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  # two points span one direction of the plane; rounding can let a Cholesky
  # factor through for such pairs, with probability rows summing to 4.12,
  # -7078 or 24391. Every pair must be refused.
  for (pair in list(c(25, 34), c(24, 41), c(29, 31), c(1, 31))) {
    expect_error(onda(X[pair, ], d$y[pair], posterior = "linear"), class = "krein_error",
                 regexp = "needs an invertible total covariance")
  }
  expect_snapshot(show_error(onda(X[c(25, 34), ], d$y[c(25, 34)], posterior = "linear")))
  expect_snapshot(show_error(onda(cbind(X, sum = X[, 1] + X[, 2]), d$y, posterior = "linear")))
  # one column, two points: the total covariance is invertible, rows sum to 1
  fit <- onda(X[c(1, 31), 1, drop = FALSE], d$y[c(1, 31)], posterior = "linear")
  expect_equal(unname(rowSums(predict(fit, X[, 1, drop = FALSE], type = "prob"))), rep(1, 60))
})

test_that("Gaussian posteriors stay finite and sum to 1 for inputs of any size", {
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  case <- four_class_data()
  for (fit_case in list(list(fit = onda(X, d$y), x = X), list(fit = onda(case$x, case$y), x = case$x))) {
    for (scale in c(1e300, 1e150, 1e-150, 1e-300, -1e300)) {
      # no NaN rows from exp(-Inf - -Inf)
      p <- predict(fit_case$fit, fit_case$x[1:5, ] * scale, type = "prob")
      expect_true(all(is.finite(p)))
      expect_equal(unname(rowSums(p)), rep(1, 5), tolerance = 1e-12)
      expect_true(all(p >= 0 & p <= 1))
    }
  }
  # far out the class with the widest covariance in that direction wins;
  # compare with the scaled-down quadratic forms in plain R
  fit <- onda(case$x, case$y)
  new <- case$x[1:5, ] * 1e300
  g <- ref_gaussian_quadratic(case$x, case$y, case$x[1:5, ])
  expect_equal(unname(predict(fit, new)), factor(levels(case$y)[max.col(g)], levels = levels(case$y)))
  # tiny inputs: the posteriors of the origin
  expect_equal(predict(fit, case$x[1:2, ] * 1e-300, type = "prob"),
               predict(fit, matrix(0, 2, 3, dimnames = list(NULL, c("u", "v", "w"))), type = "prob"),
               ignore_attr = TRUE, tolerance = 1e-12)
})

test_that("Gaussian posteriors of data fitted at 1e300 and 1e-300 scale are those of the unscaled fit", {
  case <- four_class_data()
  new <- matrix(rnorm(30), 10, 3, dimnames = list(NULL, c("u", "v", "w")))
  plain <- predict(onda(case$x, case$y), new, type = "prob")
  for (scale in c(1e150, 1e-150)) {
    scaled <- predict(onda(case$x * scale, case$y), new * scale, type = "prob")
    expect_equal(scaled, plain, tolerance = 1e-8)
  }
})

test_that("an error inside a posterior function is a krein_error that names it", {
  case <- four_class_data()
  failing <- function(x_train, y_train, x_new) stop("no model for these data")
  expect_error(onda(case$x, case$y, posterior = failing), class = "krein_error",
               regexp = "posterior.*failed: no model for these data")
  expect_snapshot(show_error(onda(case$x, case$y, posterior = failing)))
})

test_that("pooled Gaussian posteriors (ikfd's calibration, KFLDA) are finite at any scale too", {
  case <- four_class_data()
  model <- gaussian_classes(case$x, case$y, pooled = TRUE, denominator = "unbiased")
  for (scale in c(1e300, -1e300, 1e-300)) {
    # the linear form x'W_k + c_k overflowed to +-Inf in different columns
    p <- gaussian_posteriors(model, case$x[1:5, ] * scale)
    expect_true(all(is.finite(p)))
    expect_equal(unname(rowSums(p)), rep(1, 5), tolerance = 1e-12)
  }
  # far out along v the class with the largest v'W_k wins
  v <- case$x[1:5, ]
  expect_equal(max.col(gaussian_posteriors(model, v * 1e300)), max.col(v %*% model$weights))
  # in the ordinary range the relative discriminants differ from the plain
  # ones by a term common to each row
  new <- case$x[1:7, ]
  plain <- gaussian_discriminants(model, new)
  relative <- gaussian_discriminants(model, new, relative = TRUE)
  expect_equal(unname(plain - relative), matrix(plain[, 1] - relative[, 1], 7, 4), tolerance = 1e-10)
  expect_equal(unname(plain), unname(new %*% model$weights + rep(model$constant, each = 7)),
               tolerance = 1e-12)
})

# Paper 004, eqs. (1)-(3), transcribed without onda(): FLDA's map A solves
# Sigma_B A = Sigma_T A Lambda with A' Sigma_T A = I (Sigma_T, Sigma_B the
# total and between-class covariances, denominator n, class proportions as
# priors); Table 2 classifies a point by the Euclidean nearest class mean of
# A'x ("nearest mean classification in each discriminant space", Sec. 5.2).
ref_flda_nearest_mean <- function(x, y, new) {
  n <- nrow(x)
  K <- nlevels(y)
  total_mean <- colMeans(x)
  Sigma_T <- crossprod(sweep(x, 2, total_mean)) / n
  means <- t(vapply(levels(y), function(l) colMeans(x[y == l, , drop = FALSE]), numeric(ncol(x))))
  p <- as.vector(table(y)) / n
  Sigma_B <- crossprod(sqrt(p) * sweep(means, 2, total_mean))
  # the symmetric form with Sigma_T = R'R: (R^-T Sigma_B R^-1) V = V Lambda, A = R^-1 V
  R_inv <- backsolve(chol(Sigma_T), diag(ncol(x)))
  A <- R_inv %*% eigen(t(R_inv) %*% Sigma_B %*% R_inv, symmetric = TRUE)$vectors[, seq_len(K - 1), drop = FALSE]
  z <- new %*% A
  centres <- means %*% A
  d <- vapply(seq_len(K), function(k) rowSums((z - rep(centres[k, ], each = nrow(z)))^2), numeric(nrow(z)))
  factor(levels(y)[max.col(-d, ties.method = "first")], levels = levels(y))
}

test_that("rule = \"nearest_mean\" is paper 004's Table 2 rule and reproduces its FLDA row on Iris", {
  x <- as.matrix(iris[, 1:4])
  y <- iris$Species
  # the splits of inst/reproduce/paper004_table2.R: 20 random 2/3 : 1/3 divisions
  set.seed(2017)
  splits <- lapply(1:20, function(r) sample.int(150, 100))
  rates <- t(vapply(splits, function(train) {
    fit <- onda(x[train, ], y[train], posterior = "linear", scale = FALSE)
    paper_rule <- predict(fit, x[-train, ], rule = "nearest_mean")
    expect_identical(unname(paper_rule), ref_flda_nearest_mean(x[train, ], y[train], x[-train, ]))
    c(nearest_mean = mean(paper_rule == y[-train]),
      mahalanobis = mean(predict(fit, x[-train, ], rule = "mahalanobis") == y[-train]))
  }, numeric(2)))
  percent <- round(100 * colMeans(rates), 1)
  # Table 2: FLDA on Iris 83.2 % (sd 4.61); only the paper's rule comes near it
  expect_equal(percent[["nearest_mean"]], 85.1)
  expect_lt(abs(percent[["nearest_mean"]] - 83.2), 4.61)
  expect_equal(percent[["mahalanobis"]], 97.7)
  expect_gt(percent[["mahalanobis"]] - 83.2, 2 * 4.61)
})

# A fitted posterior model takes the data as given, not onda()'s scaled
# columns (on those its training error is 0.667, every row about (0.16, 0.32,
# 0.52), against 0.047 with scale = FALSE).
test_that("a fitted posterior model receives the data as given, whatever onda()'s `scale`", {
  post <- kqd(Species ~ ., data = iris, variant = "RC+")
  fit <- onda(Species ~ ., data = iris, posterior = post)
  expect_null(fit$spec$scaling)
  expected <- unname(predict(post, iris, type = "prob"))
  expect_equal(unname(fit$training_posteriors), expected, tolerance = 1e-10)
  expect_lt(fit$training_error, 0.1)
  expect_equal(unname(predict(fit, iris[c(1, 51, 101), ], type = "prob")), expected[c(1, 51, 101), ],
               tolerance = 1e-10)
  unscaled <- onda(Species ~ ., data = iris, posterior = post, scale = FALSE)
  expect_equal(unscaled$training_posteriors, fit$training_posteriors, tolerance = 1e-10)
  # the matrix interface, and a function calling predict() on the data as given
  X <- as.matrix(iris[, 1:4])
  post_x <- kqd(X, iris$Species, variant = "RC+")
  fit_x <- onda(X, iris$Species, posterior = post_x)
  by_function <- onda(X, iris$Species, scale = FALSE,
                      posterior = function(x_train, y_train, x_new) predict(post_x, x_new, type = "prob"))
  expect_equal(fit_x$training_posteriors, by_function$training_posteriors, tolerance = 1e-10)
  expect_equal(predict(fit_x, X, type = "projection"), predict(by_function, X, type = "projection"),
               tolerance = 1e-10)
})

# The default Gaussian posteriors pool the class covariances
# towards the pooled within-class one, by a weight from the class sizes.
# Plain-R transcription: Sigma_k' = (1 - l) Sigma_k + l Sigma_W (ML, Sigma_W =
# sum_k n_k Sigma_k / n), Gaussian densities (eq. 30) and Bayes (eq. 33).
ref_pooled_posteriors <- function(x, y, new, prior, l) {
  classes <- lapply(levels(y), function(v) {
    xv <- x[y == v, , drop = FALSE]
    list(m = colMeans(xv), S = crossprod(sweep(xv, 2, colMeans(xv))) / nrow(xv), n = nrow(xv))
  })
  pooled <- Reduce(`+`, lapply(classes, function(c) c$n * c$S)) / nrow(x)
  log_f <- sapply(seq_along(classes), function(k) {
    S <- (1 - l) * classes[[k]]$S + l * pooled
    apply(new, 1, function(v) -0.5 * sum((v - classes[[k]]$m) * solve(S, v - classes[[k]]$m))) -
      0.5 * determinant(S)$modulus + log(prior[k])
  })
  f <- exp(log_f - apply(log_f, 1, max))
  f / rowSums(f)
}

test_that("the default Gaussian posteriors pool the class covariances by the class sizes", {
  set.seed(30)
  # 8 columns, classes of 12, 30 and 40 points: l = 2 - 12 / 8 = 0.5
  y <- factor(rep(c("a", "b", "c"), c(12, 30, 40)))
  x <- matrix(rnorm(82 * 8), 82, 8) + outer(as.integer(y), seq(0.2, 1.6, by = 0.2))
  new <- matrix(rnorm(10 * 8, 1), 10, 8)
  fit <- onda(x, y, scale = FALSE)
  expect_equal(fit$pooling, min(1, max(0, 2 - 12 / 8)))
  expect_equal(fit$pooling, 0.5)
  expect_equal(unname(predict(fit, new, type = "prob")),
               unname(ref_pooled_posteriors(x, y, new, as.vector(table(y)) / 82, 0.5)), tolerance = 1e-8)
  # the paper's estimator is one argument away
  paper <- onda(x, y, scale = FALSE, pooling = 0)
  expect_identical(paper$pooling, 0)
  expect_equal(unname(predict(paper, new, type = "prob")),
               unname(ref_gaussian_posteriors(x, y, new, as.vector(table(y)) / 82)), tolerance = 1e-8)
  # classes of at least twice the number of columns keep their own covariances
  large <- four_class_data()
  expect_identical(onda(large$x, large$y)$pooling, 0)
  # a class with no more points than columns: the pooled covariance for all
  expect_identical(onda(x[-(1:5), ], droplevels(y[-(1:5)]), scale = FALSE)$pooling, 1)
  expect_error(onda(x, y, pooling = -0.1), class = "krein_error", regexp = "pooling")
})

test_that("a class covariance made singular by a column constant within the class: the default pools, without a warning", {
  case <- four_class_data()
  x <- case$x
  x[case$y == "a", "w"] <- 1   # constant within class "a"
  # the default chooses a ridge by cross-validation (here a positive one,
  # which makes the covariances regular whatever the pooling), or pools
  expect_no_warning(fit <- onda(x, case$y))
  expect_true(fit$pooling == 0.75 || fit$ridge > 0)
  # without the cross-validated ridge (a ridge given) the default pooling alone
  expect_no_warning(fit <- onda(x, case$y, ridge = 0))
  expect_identical(fit$pooling, 0.75)
  expect_identical(fit$ridge, 0)
  new <- matrix(rnorm(30), 10, 3, dimnames = list(NULL, c("u", "v", "w")))
  scaled <- scale(x)
  new_scaled <- scale(new, attr(scaled, "scaled:center"), attr(scaled, "scaled:scale"))
  expect_equal(unname(predict(fit, new, type = "prob")),
               unname(ref_pooled_posteriors(scaled, case$y, new_scaled, rep(0.25, 4), 0.75)), tolerance = 1e-8)
  # the paper's estimator still needs the ridge, and says so
  expect_warning(paper <- onda(x, case$y, pooling = 0), class = "krein_singular_covariance_warning")
  expect_gt(paper$ridge, 0)
  # more columns than points: the default pools completely, and its ridge is
  # part of the default (no warning); the paper's estimator warns
  set.seed(3)
  wide <- matrix(rnorm(20 * 30), 20, 30)
  labels <- factor(rep(c("p", "q"), 10))
  expect_no_warning(fit_wide <- onda(wide, labels))
  expect_identical(fit_wide$pooling, 1)
  expect_gt(fit_wide$ridge, 0)
  expect_warning(onda(wide, labels, pooling = 0), class = "krein_singular_covariance_warning")
})

test_that("the default ridge is the least 5-fold cross-validated error among four, transcribed in plain R", {
  # Transcription of the documented rule, independently of krein's code:
  # folds dealt in turn within each class (data order, classes one after
  # another); in each training part ML class covariances pooled by the class
  # sizes, lambda = min(1, max(0, 2 - n_min / p)), plus r I; the class of the
  # largest prior x Gaussian density; priors of the whole training set.
  set.seed(45)
  y <- factor(rep(c("a", "b", "c"), c(14, 16, 20)))
  x <- matrix(rnorm(50 * 9), 50, 9) + outer(as.integer(y), c(0.6, -0.4, rep(0, 7)))
  prior <- as.vector(table(y)) / 50
  folds <- integer(50)
  folds[unlist(split(seq_along(y), y))] <- rep_len(1:5, 50)
  log_density <- function(v, m, S) -0.5 * (determinant(S)$modulus + sum((v - m) * solve(S, v - m)))
  cv_error <- function(r) {
    wrong <- 0
    for (f in 1:5) {
      tr <- folds != f
      xt <- x[tr, ]
      yt <- y[tr]
      n_k <- as.vector(table(yt))
      lambda <- min(1, max(0, 2 - min(n_k) / ncol(x)))
      means <- lapply(levels(y), function(l) colMeans(xt[yt == l, , drop = FALSE]))
      own <- lapply(seq_along(means), function(k) {
        xl <- xt[yt == levels(y)[k], , drop = FALSE]
        crossprod(sweep(xl, 2, means[[k]])) / nrow(xl)
      })
      pooled <- Reduce(`+`, Map(`*`, own, n_k)) / sum(n_k)
      covs <- lapply(own, function(S) (1 - lambda) * S + lambda * pooled + r * diag(ncol(x)))
      for (i in which(!tr)) {
        score <- vapply(seq_along(means), function(k) log(prior[k]) + log_density(x[i, ], means[[k]], covs[[k]]), 1)
        wrong <- wrong + (which.max(score) != as.integer(y[i]))
      }
    }
    wrong / 50
  }
  fit <- onda(x, y, scale = FALSE)
  variance <- mean(apply(x, 2, function(v) mean((v - mean(v))^2)))
  table <- fit$ridge_selection
  expect_equal(table$ridge, c(NA, 0.01, 0.1, 1) * variance)
  # the first candidate (NA) is no ridge at all, on these regular covariances
  expect_equal(table$cv_error, vapply(c(0, 0.01, 0.1, 1) * variance, cv_error, 1))
  best <- which.min(table$cv_error)
  expect_equal(fit$ridge, if (best == 1L) 0 else table$ridge[best])
  # the fit is the fit with that ridge given
  expect_equal(predict(fit, x[1:7, ], type = "prob"),
               predict(onda(x, y, scale = FALSE, ridge = fit$ridge), x[1:7, ], type = "prob"))
  # a pooling or a ridge given: nothing is chosen
  expect_null(onda(x, y, scale = FALSE, pooling = 0.5)$ridge_selection)
  expect_null(onda(x, y, scale = FALSE, ridge = 0.1)$ridge_selection)
  # every class with at least twice as many points as inputs: nothing to choose
  expect_null(onda(Species ~ ., data = iris)$ridge_selection)
  # many inputs per point of a class (mlbench's DNA) is where it matters: a
  # ridge of the inputs' variance beats the pooled covariance alone
  set.seed(2)
  wide_y <- factor(rep(c("p", "q"), each = 30))
  wide <- matrix(rbinom(60 * 40, 1, 0.5), 60, 40)
  wide[, 1:3] <- wide[, 1:3] + (wide_y == "q")
  chosen <- onda(wide, wide_y)
  expect_gt(chosen$ridge, 0)
  expect_lt(min(chosen$ridge_selection$cv_error[-1]), chosen$ridge_selection$cv_error[1])
})
