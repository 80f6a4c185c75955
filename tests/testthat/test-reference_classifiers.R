# iknn(), ikpca_qd(), isvm(): the reference classifiers of Pekalska and
# Haasdonk (2009) (paper 000, Secs. IV-E, V; Appendix I-E), checked against
# plain-R transcriptions and against kernlab itself.

test_that("iknn with a Gaussian kernel is ordinary k-NN in the input space (paper 000, Sec. IV-E)", {
  set.seed(4)
  train <- checkerboard(120, size = 3)
  test <- checkerboard(60, size = 3)
  x <- as.matrix(train[, 1:2])
  x_new <- as.matrix(test[, 1:2])
  for (k in c(1, 4, 7)) {
    fit <- iknn(x, train$y, kernel = kernel_rbf(2), k = k, scale = FALSE)
    # plain k-NN with Euclidean distances, majority vote, ties to the nearest
    votes <- t(vapply(seq_len(nrow(x_new)), function(i) {
      d <- sqrt(colSums((t(x) - x_new[i, ])^2))
      nearest <- order(d)[seq_len(k)]
      as.vector(table(factor(train$y[nearest], levels = levels(train$y))))
    }, numeric(nlevels(train$y))))
    expected <- vapply(seq_len(nrow(x_new)), function(i) {
      d <- sqrt(colSums((t(x) - x_new[i, ])^2))
      nearest <- order(d)[seq_len(k)]
      tied <- levels(train$y)[votes[i, ] == max(votes[i, ])]
      as.character(train$y[nearest][train$y[nearest] %in% tied][1])
    }, character(1))
    expect_equal(as.character(predict(fit, x_new)), expected)
    p <- predict(fit, x_new, type = "prob")
    expect_equal(unname(rowSums(p)), rep(1, nrow(x_new)))
    # "decision" is the vote count; "prob" the vote share, ties broken by
    # less than 1e-9 per class towards the nearest neighbour's class
    expect_equal(unname(predict(fit, x_new, type = "decision")), votes)
    expect_lt(max(abs(p - votes / k)), 1e-9 * nlevels(train$y))
    expect_identical(colnames(p)[max.col(p, ties.method = "first")], expected)
  }
})

test_that("iknn breaks ties for the most votes towards the class of the nearest neighbour", {
  # one point of each class on a line; the new point at 0.4 has both as its
  # two nearest neighbours, "b" (at 1) nearer than "a" (at -0.5)
  x <- matrix(c(-0.5, 1, 5, 6), ncol = 1)
  y <- factor(c("a", "b", "a", "b"))
  fit <- iknn(x, y, kernel = kernel_linear(), k = 2)
  new <- matrix(c(0.4, 0.2), ncol = 1)
  expect_equal(unname(predict(fit, new, type = "decision")), matrix(1, 2, 2))
  expect_identical(as.character(predict(fit, new)), c("b", "a"))
  p <- predict(fit, new, type = "prob")
  expect_equal(unname(p), rbind(c(0.5 - 1e-9, 0.5 + 1e-9), c(0.5 + 1e-9, 0.5 - 1e-9)), tolerance = 1e-14)
  expect_identical(unname(rowSums(p)), c(1, 1))
})

test_that("iknn's leave-one-out error is that of k-NN without the point itself", {
  set.seed(9)
  train <- checkerboard(50, size = 2)
  x <- as.matrix(train[, 1:2])
  fit <- iknn(x, train$y, kernel = kernel_rbf(2), k = 3, scale = FALSE)
  D <- as.matrix(dist(x))
  loo <- vapply(seq_len(nrow(x)), function(i) {
    others <- setdiff(order(D[i, ]), i)[1:3]
    votes <- table(train$y[others])
    tied <- names(votes)[votes == max(votes)]
    as.character(train$y[others][train$y[others] %in% tied][1])
  }, character(1))
  expect_equal(fit$loo_error, mean(loo != train$y))
  expect_identical(fit$negative_d2, 0)  # a positive definite kernel
  expect_true(is.na(iknn(x, train$y, kernel = kernel_rbf(2), k = 50, scale = FALSE)$loo_error))
})

test_that("iknn's default k is the one of 1..25 with the least leave-one-out error, ties to the smaller", {
  # against the exhaustive choice: one fit per k with its own leave-one-out
  # error (the transcription of the test above), the first minimum
  set.seed(3)
  train <- banana(120)
  x <- as.matrix(train[, 1:2])
  fit <- iknn(x, train$y, kernel = kernel_rbf(1))
  errors <- vapply(1:25, function(k) iknn(x, train$y, kernel = kernel_rbf(1), k = k)$loo_error, numeric(1))
  expect_identical(fit$k_selection$k, 1:25)
  expect_equal(fit$k_selection$loo_error, errors)
  expect_identical(fit$k, which.min(errors))
  expect_equal(fit$loo_error, min(errors))
  # the chosen k predicts as the fit with that k given
  given <- iknn(x, train$y, kernel = kernel_rbf(1), k = fit$k)
  test <- banana(50)
  expect_identical(predict(fit, test[, 1:2]), predict(given, test[, 1:2]))
  expect_null(given$k_selection)
  expect_output(print(fit), sprintf("%d nearest neighbours? in the kernel-induced distance \\(k chosen among 1..25", fit$k))
  # few points: at most n - 1 candidates; a tie of every k goes to k = 1
  small <- iknn(x[c(1:3, 61:63), ], train$y[c(1:3, 61:63)], kernel = kernel_rbf(1))
  expect_identical(small$k_selection$k, 1:5)
  expect_identical(small$k, which.min(small$k_selection$loo_error))
})

test_that("iknn reports the share of training pairs with a negative squared distance", {
  # d2 = k(x, x) + k(x', x') - 2 k(x, x') < 0 for the pair (1, 2) only
  K <- matrix(c(1, 1.5, 0, 0,
                1.5, 1, 0, 0,
                0, 0, 1, 0.2,
                0, 0, 0.2, 1), 4)
  fit <- iknn(precomputed_kernel(K), c("a", "a", "b", "b"), k = 1)
  expect_equal(fit$negative_d2, 1 / 6)
  expect_output(print(fit), "16.7% of the training pairs have d2 < 0")
  expect_identical(as.character(predict(fit)), c("a", "a", "b", "b"))
})

test_that("iknn works with an indefinite kernel and precomputed input", {
  set.seed(5)
  train <- checkerboard(80, size = 3)
  test <- checkerboard(30, size = 3)
  kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
  fit <- iknn(y ~ ., data = train, kernel = kernel, k = 3, scale = FALSE)
  K <- kernel_matrix(kernel, train[, 1:2])
  K_new <- kernel_matrix(kernel, test[, 1:2], train[, 1:2])
  pre <- iknn(precomputed_kernel(K), train$y, k = 3)
  new <- precomputed_kernel(K_new, self = diag(kernel_matrix(kernel, test[, 1:2])))
  expect_equal(predict(pre, new), predict(fit, test), ignore_attr = TRUE)
  expect_equal(predict(pre, new, type = "prob"), predict(fit, test, type = "prob"), ignore_attr = TRUE)
  expect_snapshot(show_error(predict(pre, K_new)))
  expect_snapshot(show_error(iknn(y ~ ., data = train, kernel = kernel, k = 81)))
})

test_that("iknn predicts new rows in blocks as it predicts them at once", {
  # new rows go against the references in blocks of options(krein.block_rows)
  # rows (by default 32 MB of kernel values): data, a precomputed kernel with
  # its self-similarities, and prototypes; names and the rows' order kept
  set.seed(6)
  train <- checkerboard(80, size = 3)
  test <- checkerboard(23, size = 3)
  rownames(test) <- paste0("r", seq_len(nrow(test)))
  kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
  fit <- iknn(y ~ ., data = train, kernel = kernel, scale = FALSE)
  set.seed(7)
  prototypes <- iknn(y ~ ., data = train, kernel = kernel, scale = FALSE, landmarks = "random", m = 30)
  pre <- iknn(precomputed_kernel(kernel_matrix(kernel, train[, 1:2])), train$y)
  new <- precomputed_kernel(kernel_matrix(kernel, test[, 1:2], train[, 1:2]),
                            self = diag(kernel_matrix(kernel, test[, 1:2])))
  at_once <- list(predict(fit, test, type = "prob"), predict(prototypes, test, type = "prob"),
                  predict(pre, new, type = "prob"), predict(fit, test), predict(fit, test, type = "decision"))
  withr::local_options(krein.block_rows = 5)
  in_blocks <- list(predict(fit, test, type = "prob"), predict(prototypes, test, type = "prob"),
                    predict(pre, new, type = "prob"), predict(fit, test), predict(fit, test, type = "decision"))
  expect_identical(in_blocks, at_once)
  expect_identical(rownames(in_blocks[[1]]), rownames(test))
})

test_that("iknn's k is not taken for the kernel, and misspelled arguments are errors", {
  # `k` must not match `kernel` partially and fail
  fit <- iknn(Species ~ ., data = iris, k = 5)
  expect_identical(fit$k, 5L)
  expect_identical(class(model_kernel(fit)), class(kernel_rbf()))
  expect_snapshot(show_error(iknn(Species ~ ., data = iris, kk = 5)))
  expect_snapshot(show_error(ikpca_qd(Species ~ ., data = iris, reg = 0.1)))
})

# ---- iknn among landmark prototypes ----

test_that("iknn with every training row as a landmark is the full iknn", {
  set.seed(11)
  train <- banana(120)
  test <- banana(40)
  x <- as.matrix(train[, 1:2])
  x_new <- as.matrix(test[, 1:2])
  for (k in list(NULL, 4)) {
    full <- iknn(x, train$y, kernel = kernel_rbf(1), k = k)
    all_rows <- iknn(x, train$y, kernel = kernel_rbf(1), k = k, landmarks = seq_len(nrow(x)))
    expect_identical(all_rows$k, full$k)
    expect_identical(all_rows$k_selection, full$k_selection)
    expect_identical(all_rows$loo_error, full$loo_error)
    expect_identical(all_rows$negative_d2, full$negative_d2)
    expect_equal(all_rows$self, full$self)
    expect_null(all_rows$x)
    for (type in c("class", "prob", "decision")) {
      expect_identical(predict(all_rows, x_new, type = type), predict(full, x_new, type = type))
      expect_identical(predict(all_rows, type = type), predict(full, type = type))
    }
  }
  # an indefinite kernel (6% of the pairs with d2 < 0), precomputed: the
  # same kernel values in both forms
  kernel <- kernel_tanh(1, -1)
  K <- kernel_matrix(kernel, x)
  new <- precomputed_kernel(kernel_matrix(kernel, x_new, x), self = diag(kernel_matrix(kernel, x_new)))
  full <- iknn(precomputed_kernel(K), train$y)
  all_rows <- iknn(precomputed_kernel(K), train$y, landmarks = seq_len(nrow(x)))
  expect_gt(full$negative_d2, 0)
  expect_equal(all_rows$negative_d2, full$negative_d2)
  expect_identical(all_rows$k_selection, full$k_selection)
  for (type in c("class", "prob", "decision")) {
    expect_identical(predict(all_rows, new, type = type), predict(full, new, type = type))
    expect_identical(predict(all_rows, type = type), predict(full, type = type))
  }
})

test_that("iknn among prototype rows is k-NN with those rows as the reference set, transcribed", {
  # plain R: squared kernel distances to the prototype rows P from the
  # transcribed Gaussian kernel (d2 = 2 - 2 k), order() per row, the
  # majority vote with ties to the tied class nearest first. A training
  # point that is itself a prototype counts itself for its prediction and
  # leaves itself out for its leave-one-out vote.
  set.seed(12)
  train <- checkerboard(150, size = 3)
  test <- checkerboard(50, size = 3)
  x <- as.matrix(train[, 1:2])
  x_new <- as.matrix(test[, 1:2])
  P <- sort(sample(nrow(x), 40))
  prototype_y <- train$y[P]
  d2_train <- 2 - 2 * reference_kernel_matrix(ref_rbf(2), x, x[P, ])
  d2_new <- 2 - 2 * reference_kernel_matrix(ref_rbf(2), x_new, x[P, ])
  vote <- function(d2, k, exclude = NA) {
    nearest <- setdiff(order(d2), exclude)[seq_len(k)]
    votes <- table(prototype_y[nearest])
    tied <- names(votes)[votes == max(votes)]
    list(class = as.character(prototype_y[nearest][prototype_y[nearest] %in% tied][1]), votes = as.vector(votes))
  }
  loo_error <- function(k) {
    mean(vapply(seq_len(nrow(x)), function(i) vote(d2_train[i, ], k, match(i, P))$class, "") != train$y)
  }
  for (k in c(1, 5)) {
    fit <- iknn(x, train$y, kernel = kernel_rbf(2), k = k, landmarks = P, scale = FALSE)
    expect_identical(as.character(predict(fit, x_new)),
                     vapply(seq_len(nrow(x_new)), function(i) vote(d2_new[i, ], k)$class, ""))
    expect_equal(unname(predict(fit, x_new, type = "decision")),
                 t(vapply(seq_len(nrow(x_new)), function(i) vote(d2_new[i, ], k)$votes, numeric(2))))
    expect_identical(as.character(predict(fit)),
                     vapply(seq_len(nrow(x)), function(i) vote(d2_train[i, ], k)$class, ""))
    expect_equal(fit$loo_error, loo_error(k))
    # the training predictions are those of the training points as new points
    expect_identical(predict(fit, x, type = "prob"), predict(fit, type = "prob"))
  }
  # the default k: the least leave-one-out error over 1..25, the first minimum
  errors <- vapply(1:25, loo_error, numeric(1))
  fit <- iknn(x, train$y, kernel = kernel_rbf(2), landmarks = P, scale = FALSE)
  expect_equal(fit$k_selection$loo_error, errors)
  expect_identical(fit$k, which.min(errors))
  expect_identical(fit$negative_d2, 0)
  expect_output(print(fit), sprintf("%d nearest neighbours? in the kernel-induced distance among 40 prototypes", fit$k))
  expect_output(print(summary(fit)), "Prototypes")
})

test_that("iknn's prototypes count negative squared distances between distinct points only", {
  # d2 = k(x, x) + k(x', x') - 2 k(x, x') < 0 for the pair (1, 2) only;
  # prototypes 1 and 3: six pairs of a point and another prototype
  K <- matrix(c(1, 1.5, 0, 0,
                1.5, 1, 0, 0,
                0, 0, 1, 0.2,
                0, 0, 0.2, 1), 4)
  fit <- iknn(precomputed_kernel(K), c("a", "a", "b", "b"), k = 1, landmarks = c(1, 3))
  expect_equal(fit$negative_d2, 1 / 6)
  expect_output(print(fit), "16.7% of the pairs of a training point and a prototype have d2 < 0")
  expect_identical(as.character(predict(fit)), c("a", "a", "b", "b"))
  # leave-one-out: points 1 and 3 have only the other class's prototype left
  expect_identical(fit$loo_error, 0.5)
})

test_that("iknn's prototypes: formula = x/y, drawn at random = selected beforehand, precomputed = data", {
  set.seed(13)
  train <- checkerboard(200, size = 3)
  test <- checkerboard(30, size = 3)
  set.seed(1)
  by_formula <- iknn(y ~ x1 + x2, data = train, kernel = kernel_rbf(2), landmarks = "random", m = 40)
  set.seed(1)
  by_matrix <- iknn(train[, 1:2], train$y, kernel = kernel_rbf(2), landmarks = "random", m = 40)
  set.seed(1)
  chosen <- select_landmarks(train[, 1:2], train$y, kernel_rbf(2), method = "random", m = 40)
  given <- iknn(train[, 1:2], train$y, kernel = kernel_rbf(2), landmarks = chosen)
  expect_identical(by_formula$landmarks$indices, chosen$indices)
  expect_identical(by_matrix$landmarks$indices, chosen$indices)
  # stratified: the classes in proportion
  expect_equal(as.vector(table(by_matrix$landmarks$class)) / 40, as.vector(table(train$y)) / 200, tolerance = 0.05)
  expect_null(by_matrix$x)
  for (type in c("class", "prob")) {
    reference <- predict(by_matrix, test[, 1:2], type = type)
    expect_identical(unname(predict(by_formula, test, type = type)), unname(reference))
    expect_identical(predict(given, test[, 1:2], type = type), reference)
  }
  expect_identical(by_formula$k_selection, by_matrix$k_selection)
  # a precomputed kernel: the landmarks are its columns
  x <- as.matrix(train[, 1:2])
  x_new <- as.matrix(test[, 1:2])
  rows <- chosen$indices
  data_fit <- iknn(x, train$y, kernel = kernel_rbf(2), landmarks = rows, scale = FALSE)
  precomputed <- iknn(kernel_matrix(kernel_rbf(2), x), train$y, kernel = "precomputed", landmarks = rows)
  new <- precomputed_kernel(kernel_matrix(kernel_rbf(2), x_new, x), self = rep(1, nrow(x_new)))
  expect_identical(precomputed$k, data_fit$k)
  expect_identical(predict(precomputed, new, type = "prob"), predict(data_fit, x_new, type = "prob"))
  expect_identical(predict(precomputed, type = "prob"), predict(data_fit, type = "prob"))
  # plot() draws the prototypes as its points and circles none
  drawn <- krein:::decision_region_layers(given)
  expect_null(drawn$landmarks)
  expect_equal(drawn$x, as.matrix(train[rows, 1:2]), ignore_attr = TRUE)
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(plot(given, resolution = 10), given)
})

test_that("iknn's prototypes: bad landmarks and k are clear errors", {
  set.seed(14)
  train <- checkerboard(60, size = 3)
  x <- as.matrix(train[, 1:2])
  expect_snapshot(show_error(iknn(x, train$y, landmarks = 5)))
  expect_snapshot(show_error(iknn(x, train$y, landmarks = 1:10, k = 11)))
  expect_error(iknn(x, train$y, landmarks = c(0, 5)), class = "krein_error", regexp = "must lie in 1..60")
  expect_error(iknn(x, train$y, landmarks = "nearest"), class = "krein_error", regexp = "landmarks")
  expect_error(iknn(x, train$y, landmarks = "random", m = 61), class = "krein_error", regexp = "at most the number")
  # k = m: no leave-one-out error, as k = n in the full form
  expect_true(is.na(iknn(x, train$y, landmarks = 1:10, k = 10)$loo_error))
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
    fit <- ikpca_qd(y ~ ., data = train, kernel = kernel, pvar = pvar, shrinkage = 0.1, scale = FALSE)
    expect_equal(fit$ncomp, which(share >= pvar)[1])
    expect_gte(fit$share, pvar)
    if (fit$ncomp > 1) expect_lt(share[fit$ncomp - 1], pvar)
    expect_equal(sort(abs(fit$values), decreasing = TRUE), magnitude[seq_len(fit$ncomp)], tolerance = 1e-8)
  }
  expect_gt(fit$signature[["q"]], 0)  # the invariant kernel is indefinite
  s <- summary(fit)
  expect_equal(s$model[[1]]$share[fit$ncomp], fit$share)
})

test_that("ikpca_qd equals QDA on the transcribed IKPCA map (Appendix I-E)", {
  set.seed(7)
  train <- checkerboard(60, size = 2)
  test <- checkerboard(20, size = 2)
  kernel <- kernel_rbf(1)
  # the paper's QDA: each class its own covariance (pooling = 0)
  fit <- ikpca_qd(train[, 1:2], train$y, kernel = kernel, pvar = 0.9, shrinkage = 0.2, pooling = 0, scale = FALSE)
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
  # "decision" is the discriminant g itself, "projection" the map (up to the
  # sign of each eigenvector)
  expect_equal(unname(predict(fit, test[, 1:2], type = "decision")), unname(g), tolerance = 1e-8)
  projection <- predict(fit, test[, 1:2], type = "projection")
  expect_identical(colnames(projection), paste0("PC", seq_len(p)))
  signs <- sign(colSums(projection * Zx))
  expect_equal(unname(projection), Zx * rep(signs, each = nrow(Zx)), tolerance = 1e-8)
  expect_equal(unname(predict(fit, type = "projection")), unname(fit$training_scores))
})

test_that("ikpca_qd's pvar cross-validation by the core's Cholesky route equals the QR route", {
  # shrunk_gaussian.hpp forms each candidate's shrunk covariance from one
  # scatter matrix per class and takes its Cholesky factor; gaussian_classes()
  # takes QR factors of stacked factors. The same models: the same held-out
  # classes, so the same table and choice -- on two and six classes, an
  # indefinite kernel, more components than points in a class (spam-like),
  # a given pooling and a larger shrinkage.
  set.seed(23)
  board <- checkerboard(90, size = 2)
  x_iris <- scale(as.matrix(iris[, 1:4]))
  wide <- matrix(rnorm(60 * 30), 60)
  wide_y <- factor(rep(c("a", "b"), c(24, 36)))
  wide[wide_y == "b", 1:3] <- wide[wide_y == "b", 1:3] + 1
  cases <- list(
    list(x = board[, 1:2], y = board$y, kernel = kernel_rbf(2), args = list()),
    list(x = x_iris, y = iris$Species, kernel = kernel_tanh(scale = 0.5, offset = -1), args = list()),
    list(x = x_iris, y = iris$Species, kernel = kernel_rbf(0.5), args = list(pooling = 0.3, shrinkage = 0.2)),
    list(x = wide, y = wide_y, kernel = kernel_rbf(0.02), args = list())
  )
  core_classes <- krein:::cpp_shrunk_gaussian_classes
  for (case in cases) {
    fit <- function() do.call(ikpca_qd, c(list(case$x, case$y, kernel = case$kernel, scale = FALSE), case$args))
    # each route is the one asked for: the core answers the candidates of
    # the fast one, and is not called by the QR one
    answered <- logical()
    local_krein_functions(list(cpp_shrunk_gaussian_classes = function(...) {
      classes <- core_classes(...)
      answered <<- c(answered, classes[1L, ] != 0L)
      classes
    }))
    fast <- fit()
    expect_gt(mean(answered), 0.5)
    answered <- logical()
    local_krein_functions(list(ikpca_qd_fast_candidates = function() FALSE))
    exact <- fit()
    expect_length(answered, 0L)
    local_krein_functions(list(ikpca_qd_fast_candidates = function() TRUE, cpp_shrunk_gaussian_classes = core_classes))
    expect_equal(fast$pvar_selection, exact$pvar_selection)
    expect_identical(fast$pvar, exact$pvar)
  }
  # the wide case has classes of fewer points than components
  expect_gt(max(fast$pvar_selection$ncomp), 24)
  # the core's route by itself: a candidate whose factor is not well
  # conditioned is left to R (0), never guessed
  z <- matrix(rnorm(40 * 3), 40)
  z_new <- matrix(rnorm(5 * 3), 5)
  out <- krein:::cpp_shrunk_gaussian_classes(z, rep(1:2, 20), 2L, z_new, c(1L, 3L), c(0, 0), 1e-14, FALSE, log(c(0.5, 0.5)), 1L)
  expect_identical(dim(out), c(5L, 2L))
  expect_true(all(out %in% 1:2))
  z[, 3] <- 0
  out <- krein:::cpp_shrunk_gaussian_classes(z, rep(1:2, 20), 2L, z_new, c(2L, 3L), c(0, 0), 1e-14, FALSE, log(c(0.5, 0.5)), 1L)
  expect_true(all(out[, 1] %in% 1:2))
  expect_true(all(out[, 2] == 0L))
})

test_that("ikpca_qd's folds decomposed on threads, a batch at a time, give the fit of one thread", {
  # the core decomposes a list of matrices on threads, one each: the same
  # bits as one by one
  set.seed(32)
  matrices <- lapply(c(30, 45, 20), function(n) crossprod(matrix(rnorm(n * n), n)) - diag(n))
  each <- krein:::cpp_symmetric_eigen_leading_each(matrices, 0.9, 8L, 2L)
  alone <- lapply(matrices, function(a) krein:::cpp_symmetric_eigen_leading_each(list(a), 0.9, 8L, 1L)[[1L]])
  expect_identical(each, alone)
  # the leading eigenvectors hold 0.9 of the magnitudes, and 8 more
  expect_equal(crossprod(each[[2]]$vectors), diag(ncol(each[[2]]$vectors)), tolerance = 1e-10)
  expect_lt(length(each[[2]]$selected), 45L)
  # the pvar selection's folds: the same cross-validation table, choice and
  # model on one, two and three threads (five folds: batches of 2 + 2 + 1
  # and 3 + 2), the PCA of each fold computed once
  board <- checkerboard(150, size = 2)
  calls <- 0L
  each_fun <- krein:::cpp_symmetric_eigen_leading_each
  local_krein_functions(list(cpp_symmetric_eigen_leading_each = function(matrices, share, extra, threads) {
    calls <<- calls + length(matrices)
    each_fun(matrices, share, extra, threads)
  }))
  fits <- lapply(1:3, function(threads) ikpca_qd(board[, 1:2], board$y, kernel = kernel_rbf(2), threads = threads))
  expect_identical(calls, 3L * 6L)  # five folds and the fit, each time
  for (fit in fits[-1]) {
    expect_identical(fit$pvar_selection, fits[[1]]$pvar_selection)
    expect_identical(fit$pvar, fits[[1]]$pvar)
    expect_identical(predict(fit, board[, 1:2], type = "prob"), predict(fits[[1]], board[, 1:2], type = "prob"))
  }
})

test_that("ikpca_qd's kernel PCA from the selected eigenvectors equals the full decomposition's, and falls back to it", {
  # ikpca_map() back-transforms the eigenvectors of the kept components only
  # (and a margin); where the selection misses one of the components it
  # counts, it takes the full decomposition. Both give the fit of the full
  # eigendecomposition: forced here by a selection with its last column
  # removed, and compared with a fit whose selection is every eigenvector.
  set.seed(31)
  board <- checkerboard(70, size = 2)
  fit <- function() ikpca_qd(board[, 1:2], board$y, kernel = kernel_rbf(2), scale = FALSE, pvar = 0.9)
  each <- krein:::cpp_symmetric_eigen_leading_each  # the core's, before the replacements below
  leading <- function(a, share, extra) each(list(a), share, extra, 1L)[[1L]]
  selected <- fit()
  local_krein_functions(list(cpp_symmetric_eigen_leading_each = function(matrices, share, extra, threads) {
    lapply(matrices, leading, share = 1, extra = 0L)
  }))
  every <- fit()
  full_calls <- 0L
  full <- krein:::cpp_symmetric_eigen
  local_krein_functions(list(
    cpp_symmetric_eigen_leading_each = function(matrices, share, extra, threads) {
      lapply(matrices, function(a) {
        e <- leading(a, share, 0L)
        keep <- seq_len(length(e$selected) - 1L)
        list(values = e$values, vectors = e$vectors[, keep, drop = FALSE], selected = e$selected[keep])
      })
    },
    cpp_symmetric_eigen = function(...) {
      full_calls <<- full_calls + 1L
      full(...)
    }))
  fallback <- fit()
  expect_identical(full_calls, 1L)
  expect_lt(ncol(selected$projection), nrow(board) - 10L)
  for (other in list(every, fallback)) {
    expect_identical(other$ncomp, selected$ncomp)
    expect_equal(abs(other$projection), abs(selected$projection), tolerance = 1e-8)
    expect_equal(predict(other, board[1:20, 1:2], type = "prob"), predict(selected, board[1:20, 1:2], type = "prob"),
                 tolerance = 1e-8)
  }
})

test_that("ikpca_qd's default pvar is the least 5-fold cross-validated error, transcribed in plain R", {
  # Transcription of the documented rule, independently of krein's code:
  # folds dealt in turn within each class; in each, the IKPCA map (Appendix
  # I-E) of the fold's training part alone, its leading components for each
  # candidate share, and the held-out points mapped as new points (their
  # kernel rows centred by the training part's means); ML class covariances
  # pooled by the class sizes (lambda = min(1, max(0, 2 - n_min / p))) and
  # shrunk, S = 0.99 C' + 0.01 tr(C') / p I (the default shrinkage); the
  # class of the largest discriminant with the whole training set's
  # proportions as priors.
  set.seed(11)
  train <- checkerboard(80, size = 2)
  kernel <- kernel_rbf(2)
  fit <- ikpca_qd(train[, 1:2], train$y, kernel = kernel, scale = FALSE)
  y <- train$y
  n <- 80
  K <- kernel_matrix(kernel, train[, 1:2])
  folds <- integer(n)
  folds[unlist(split(seq_along(y), y))] <- rep_len(1:5, n)
  prior <- as.vector(table(y)) / n
  cv_error <- function(pvar) {
    wrong <- 0
    for (f in 1:5) {
      tr <- folds != f
      # the map of the training part; held-out rows centred as new points
      Kt <- K[tr, tr]
      m <- sum(tr)
      H <- diag(m) - 1 / m
      e <- eigen(H %*% Kt %*% H, symmetric = TRUE)
      magnitude <- abs(e$values)
      ordered <- order(magnitude, decreasing = TRUE)
      ordered <- ordered[magnitude[ordered] > max(magnitude) * m * .Machine$double.eps]
      share <- cumsum(magnitude[ordered]) / sum(magnitude[ordered])
      p <- which(share >= pvar - 1e-12)[1]
      keep <- ordered[seq_len(p)]
      map <- e$vectors[, keep, drop = FALSE] %*% diag(1 / sqrt(magnitude[keep]), p)
      Kn <- K[!tr, tr, drop = FALSE]
      centred_new <- Kn - matrix(colMeans(Kt), nrow(Kn), m, byrow = TRUE) - rowMeans(Kn) + mean(Kt)
      Z <- matrix(0, n, p)
      Z[tr, ] <- H %*% Kt %*% H %*% map
      Z[!tr, ] <- centred_new %*% map
      n_k <- as.vector(table(y[tr]))
      lambda <- min(1, max(0, 2 - min(n_k) / p))
      means <- lapply(levels(y), function(l) colMeans(Z[tr & y == l, , drop = FALSE]))
      own <- lapply(seq_along(means), function(k) {
        Zl <- Z[tr & y == levels(y)[k], , drop = FALSE]
        crossprod(sweep(Zl, 2, means[[k]])) / nrow(Zl)
      })
      pooled <- Reduce(`+`, Map(`*`, own, n_k)) / sum(n_k)
      covs <- lapply(own, function(C) {
        C <- (1 - lambda) * C + lambda * pooled
        0.99 * C + 0.01 * sum(diag(C)) / p * diag(p)
      })
      for (i in which(!tr)) {
        g <- vapply(seq_along(means), function(k) {
          d <- Z[i, ] - means[[k]]
          log(prior[k]) - 0.5 * (determinant(covs[[k]])$modulus + sum(d * solve(covs[[k]], d)))
        }, 1)
        wrong <- wrong + (which.max(g) != as.integer(y[i]))
      }
    }
    wrong / n
  }
  candidates <- c(0.8, 0.9, 0.95, 0.99, 0.999)
  expect_equal(fit$pvar_selection$pvar, candidates)
  expect_equal(fit$pvar_selection$cv_error, vapply(candidates, cv_error, 1))
  expect_equal(fit$pvar, candidates[which.min(fit$pvar_selection$cv_error)])
  # the fit is the fit with that share given
  expect_equal(predict(fit, train[1:9, 1:2], type = "prob"),
               predict(ikpca_qd(train[, 1:2], y, kernel = kernel, scale = FALSE, pvar = fit$pvar),
                       train[1:9, 1:2], type = "prob"))
  expect_null(ikpca_qd(train[, 1:2], y, kernel = kernel, scale = FALSE, pvar = 0.8)$pvar_selection)
  # few points per class (MASS::crabs): the paper's 0.8 leaves out the
  # directions that separate the four classes; the choice keeps them
  crabs <- MASS::crabs
  four <- interaction(crabs$sp, crabs$sex)
  inputs <- as.matrix(crabs[c("FL", "RW", "CL", "CW", "BD")])
  half <- seq(1, 200, by = 2)
  chosen <- ikpca_qd(inputs[half, ], four[half])
  paper <- ikpca_qd(inputs[half, ], four[half], pvar = 0.8)
  expect_gt(chosen$pvar, 0.8)
  expect_gt(mean(predict(chosen, inputs[-half, ]) == four[-half]),
            mean(predict(paper, inputs[-half, ]) == four[-half]) + 0.2)
  # the held-out points are new to each fold's map: with the map of all
  # training points their scores in the small components were their own,
  # and on kernlab's promotergene (edit distances of its 106 sequences, 74
  # training) the choice took 0.999, 0.63 test accuracy against 0.88 at 0.8
  skip_if_not_installed("kernlab")
  data("promotergene", package = "kernlab", envir = environment())
  D <- utils::adist(apply(as.matrix(promotergene[, -1]), 1, paste, collapse = ""))
  set.seed(1)
  tr <- sort(sample.int(106, 74))
  fit <- ikpca_qd(kernel_from_dissimilarity(D[tr, tr]), promotergene$Class[tr])
  expect_lt(fit$pvar, 0.999)
  expect_gte(mean(predict(fit, D[-tr, tr]) == promotergene$Class[-tr]), 0.8)
})

test_that("ikpca_qd without shrinkage is MASS::qda (ML covariances) on its kernel PCA coordinates", {
  # The oracle: MASS::qda(method = "mle") with the class proportions as priors,
  # fitted on the training coordinates psi(x_i) that ikpca_qd reports
  # (type = "projection"; the map itself is checked against its transcription
  # above), evaluated on the coordinates of new points.
  set.seed(12)
  train <- checkerboard(80, size = 2)
  test <- checkerboard(25, size = 2)
  fit <- ikpca_qd(train[, 1:2], train$y, kernel = kernel_rbf(1), pvar = 0.7, shrinkage = 0, pooling = 0)
  expect_gt(fit$ncomp, 1)
  Z <- predict(fit, type = "projection")
  Zx <- predict(fit, test[, 1:2], type = "projection")
  oracle <- MASS::qda(Z, train$y, method = "mle")
  expect_equal(unname(predict(fit, test[, 1:2], type = "prob")), unname(predict(oracle, Zx)$posterior),
               tolerance = 1e-8)
  expect_equal(unname(predict(fit, type = "prob")), unname(predict(oracle, Z)$posterior), tolerance = 1e-8)
  expect_identical(unname(as.character(predict(fit, test[, 1:2]))), as.character(predict(oracle, Zx)$class))
  # the summary's log-determinants are those of the ML class covariances
  logdet <- vapply(levels(train$y), function(l) {
    Zl <- Z[train$y == l, , drop = FALSE]
    determinant(crossprod(sweep(Zl, 2, colMeans(Zl))) / nrow(Zl))$modulus
  }, numeric(1))
  expect_equal(summary(fit)$model[[2]]$logdet, unname(logdet), tolerance = 1e-8)
})

test_that("a singular class covariance in the kernel PCA space is a clear error", {
  # without shrinkage or pooling, a class with fewer points than components
  # has a singular ML covariance; any shrinkage makes it regular again, and
  # so does the default pooling, which gives such a class the pooled
  # covariance
  set.seed(13)
  train <- checkerboard(60, size = 2)
  few <- which(train$y == levels(train$y)[1])[-(1:3)]
  train <- train[-few, ]
  fit <- ikpca_qd(train[, 1:2], train$y, kernel = kernel_rbf(1), pvar = 0.95, shrinkage = 0.1)
  expect_gt(fit$ncomp, 3)
  expect_error(ikpca_qd(train[, 1:2], train$y, kernel = kernel_rbf(1), pvar = 0.95, shrinkage = 0, pooling = 0),
               class = "krein_singular_covariance", regexp = "kernel PCA space is singular")
  pooled <- ikpca_qd(train[, 1:2], train$y, kernel = kernel_rbf(1), pvar = 0.95, shrinkage = 0)
  expect_identical(pooled$pooling, 1)
  expect_true(all(pooled$gaussian$rcond > sqrt(.Machine$double.eps)))
})

test_that("ikpca_qd's default pools the class covariances by the class sizes (Friedman's RDA)", {
  # the rule: l = min(1, max(0, 2 - n_min / p)) for the smallest class size
  # n_min and p components, and the class covariances (1 - l) C_j + l C_pooled
  # (ML, C_pooled = sum_j n_j C_j / n) before the shrinkage towards the
  # identity; transcribed on the kernel PCA coordinates the fit reports
  set.seed(21)
  train <- checkerboard(70, size = 2)
  test <- checkerboard(20, size = 2)
  # a small first class: 8 points
  train <- train[-which(train$y == levels(train$y)[1])[-(1:8)], ]
  fit <- ikpca_qd(train[, 1:2], train$y, kernel = kernel_rbf(1), pvar = 0.8, shrinkage = 0.05)
  counts <- as.vector(table(train$y))
  p <- fit$ncomp
  expect_gt(p, 4)   # 2 - 8 / p in (0, 1): a partial pooling
  expected_pooling <- min(1, max(0, 2 - min(counts) / p))
  expect_gt(expected_pooling, 0)
  expect_lt(expected_pooling, 1)
  expect_equal(fit$pooling, expected_pooling)
  Z <- predict(fit, type = "projection")
  Zx <- predict(fit, test[, 1:2], type = "projection")
  moments <- lapply(levels(train$y), function(l) {
    Zl <- Z[train$y == l, , drop = FALSE]
    list(m = colMeans(Zl), C = crossprod(sweep(Zl, 2, colMeans(Zl))) / nrow(Zl), n = nrow(Zl))
  })
  pooled <- Reduce(`+`, lapply(moments, function(c) c$n * c$C)) / nrow(Z)
  g <- sapply(moments, function(c) {
    C <- (1 - expected_pooling) * c$C + expected_pooling * pooled
    C <- 0.95 * C + 0.05 * sum(diag(C)) / p * diag(p)
    apply(Zx, 1, function(z) -0.5 * sum((z - c$m) * solve(C, z - c$m)) - 0.5 * determinant(C)$modulus) +
      log(c$n / nrow(Z))
  })
  expect_equal(unname(predict(fit, test[, 1:2], type = "decision")), unname(g), tolerance = 1e-8)
  # classes with at least twice as many points as components keep their own
  # covariances: the paper's QDA
  big <- ikpca_qd(train[, 1:2], train$y, kernel = kernel_rbf(1), pvar = 0.3, shrinkage = 0.05)
  expect_lte(big$ncomp, 4)
  expect_identical(big$pooling, 0)
  expect_equal(predict(big, test[, 1:2], type = "prob"),
               predict(ikpca_qd(train[, 1:2], train$y, kernel = kernel_rbf(1), pvar = 0.3, shrinkage = 0.05,
                                pooling = 0), test[, 1:2], type = "prob"))
  expect_error(ikpca_qd(train[, 1:2], train$y, kernel = kernel_rbf(1), pooling = 2), class = "krein_error",
               regexp = "pooling")
})

test_that("ikpca_qd on a constant kernel is a krein_error", {
  # a zero centred kernel leaves no component: a krein_error, not a base
  # error
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  expect_snapshot(show_error(ikpca_qd(precomputed_kernel(matrix(1, 60, 60)), d$y)))
  expect_error(ikpca_qd(as.matrix(d[, 1:2]), d$y, kernel = kernel_rbf(1e-300)), class = "krein_error",
               regexp = "constant")
})

# ikpca_qd()'s Nystroem form: with every training row a landmark and K
# nonsingular (no eigenvalue of the landmark kernel below the Nystroem
# cutoff, sqrt(eps) of the largest), K^ = K, and the fit must be the full
# form's: the same eigenvalues and shares, cross-validation table and pvar,
# classes, probabilities and decision values (to rounding), and kernel PCA
# coordinates up to the sign of each component.
expect_same_ikpca_qd <- function(ny, full, new, tolerance = 1e-8) {
  expect_equal(ny$values, full$values, tolerance = tolerance)
  expect_equal(ny$share, full$share, tolerance = tolerance)
  expect_identical(ny$ncomp, full$ncomp)
  expect_identical(ny$pvar, full$pvar)
  expect_equal(ny$pvar_selection, full$pvar_selection)
  expect_identical(ny$signature, full$signature)
  expect_identical(predict(ny, new), predict(full, new))
  # (the training predictions of a Nystroem fit, which keeps no training
  # data, have no row names)
  expect_identical(unname(fitted(ny)), unname(fitted(full)))
  for (type in c("prob", "decision")) {
    expect_equal(predict(ny, new, type = type), predict(full, new, type = type), tolerance = tolerance)
    expect_equal(predict(ny, type = type), predict(full, type = type), tolerance = tolerance, ignore_attr = TRUE)
  }
  expect_equal(abs(predict(ny, new, type = "projection")), abs(predict(full, new, type = "projection")),
               tolerance = tolerance)
  expect_equal(abs(ny$training_scores), abs(full$training_scores), tolerance = tolerance)
}

test_that("ikpca_qd's Nystroem form with every training row a landmark is the full form", {
  set.seed(41)
  train <- checkerboard(60, size = 2)
  test <- checkerboard(30, size = 2)
  expect_identical(nrow(unique(train[, 1:2])), 60L)
  kernel <- kernel_rbf(4)
  e <- eigen(kernel_matrix(kernel, scale(train[, 1:2])), symmetric = TRUE, only.values = TRUE)$values
  expect_gt(min(e) / max(e), 1e-6)  # far above the Nystroem cutoff, 1.5e-8
  full <- ikpca_qd(y ~ ., data = train, kernel = kernel)
  ny <- ikpca_qd(y ~ ., data = train, kernel = kernel, landmarks = seq_len(60))
  expect_same_ikpca_qd(ny, full, test)
  expect_null(ny$x)  # a Nystroem fit keeps its landmarks, not the training set
  expect_identical(dim(ny$projection), c(60L, ny$ncomp))
  # x/y, a given pvar, and all rows drawn as "random" landmarks with a seed
  full <- ikpca_qd(train[, 1:2], train$y, kernel = kernel, pvar = 0.99)
  ny <- ikpca_qd(train[, 1:2], train$y, kernel = kernel, pvar = 0.99, landmarks = "random", m = 60)
  expect_identical(ny$landmarks$method, "random")
  expect_same_ikpca_qd(ny, full, test[, 1:2])
  expect_null(ny$pvar_selection)
  expect_output(print(ny), "Nystroem, 60 random landmarks")
  expect_identical(summary(ny)$model[["Nystroem approximation"]],
                   "60 landmarks (random); landmark features of rank 60")
})

test_that("ikpca_qd's Nystroem form with every row a landmark is the full form for indefinite kernels", {
  set.seed(42)
  train <- checkerboard(60, size = 2)
  test <- checkerboard(30, size = 2)
  x <- scale(as.matrix(train[, 1:2]))
  x_new <- scale(as.matrix(test[, 1:2]), attr(x, "scaled:center"), attr(x, "scaled:scale"))
  for (kernel in list(kernel_tanh(scale = 2, offset = -1), kernel_dist(s = 1, power = 2))) {
    K <- kernel_matrix(kernel, x)
    e <- eigen(K, symmetric = TRUE, only.values = TRUE)$values
    expect_lt(min(e), 0)
    expect_gt(min(abs(e)) / max(abs(e)), 1e-7)
    full <- ikpca_qd(x, train$y, kernel = kernel, scale = FALSE)
    ny <- ikpca_qd(x, train$y, kernel = kernel, scale = FALSE, landmarks = seq_len(60))
    expect_same_ikpca_qd(ny, full, x_new)
    # the components of negative eigenvalues too
    full <- ikpca_qd(x, train$y, kernel = kernel, scale = FALSE, pvar = 0.999)
    ny <- ikpca_qd(x, train$y, kernel = kernel, scale = FALSE, pvar = 0.999, landmarks = seq_len(60))
    expect_gt(ny$signature[["q"]], 0)
    expect_same_ikpca_qd(ny, full, x_new)
    # a precomputed indefinite kernel, the landmarks as indices (new rows:
    # their kernel against every training point, of which the fit takes the
    # landmark columns)
    K_new <- kernel_matrix(kernel, x_new, x)
    full <- ikpca_qd(K, train$y, kernel = "precomputed")
    ny <- ikpca_qd(K, train$y, kernel = "precomputed", landmarks = seq_len(60))
    expect_same_ikpca_qd(ny, full, K_new)
  }
})

test_that("ikpca_qd's Nystroem form is the kernel PCA of the Nystroem kernel, transcribed in plain R", {
  # The model written from its definition, independently of krein's code:
  # K^ = C W^+ C' (W's eigenvalues below sqrt(eps) of the largest left out,
  # as nystrom()), the IKPCA map of Appendix I-E applied to K^ (components
  # by decreasing |eigenvalue|), psi(x) = |Lambda|^-1/2 U' H (k^_x - K^ 1 / n)
  # with k^_x = C W^+ k(L, x), and QDA there with ML class covariances shrunk
  # towards tr(C_j) / p I.
  set.seed(43)
  train <- checkerboard(80, size = 2)
  test <- checkerboard(20, size = 2)
  x <- as.matrix(train[, 1:2])
  x_new <- as.matrix(test[, 1:2])
  landmarks <- c(3, 7, 12, 18, 25, 31, 36, 44, 50, 57, 63, 71, 78)
  for (kernel in list(kernel_rbf(1), kernel_dist(s = 1, power = 2))) {
    fit <- ikpca_qd(x, train$y, kernel = kernel, pvar = 0.95, shrinkage = 0.2, pooling = 0, scale = FALSE,
                    landmarks = landmarks)
    C <- kernel_matrix(kernel, x, x[landmarks, ])
    C_new <- kernel_matrix(kernel, x_new, x[landmarks, ])
    eW <- eigen(C[landmarks, ], symmetric = TRUE)
    kept <- abs(eW$values) > sqrt(.Machine$double.eps) * max(abs(eW$values))
    W_plus <- eW$vectors[, kept] %*% diag(1 / eW$values[kept]) %*% t(eW$vectors[, kept])
    K_hat <- C %*% W_plus %*% t(C)
    K_hat_new <- C_new %*% W_plus %*% t(C)
    n <- 80
    H <- diag(n) - 1 / n
    e <- eigen(H %*% K_hat %*% H, symmetric = TRUE)
    ordered <- order(abs(e$values), decreasing = TRUE)
    ordered <- ordered[abs(e$values[ordered]) > 1e-9 * max(abs(e$values))]
    share <- cumsum(abs(e$values[ordered])) / sum(abs(e$values[ordered]))
    p <- which(share >= 0.95)[1]
    expect_identical(fit$ncomp, p)
    expect_equal(fit$values, e$values[ordered[seq_len(p)]], tolerance = 1e-8)
    keep <- ordered[seq_len(p)]
    map <- e$vectors[, keep] %*% diag(1 / sqrt(abs(e$values[keep])), p)
    centre_rows <- function(Kr) (Kr - matrix(colMeans(K_hat), nrow(Kr), n, byrow = TRUE)) %*% H
    Z <- centre_rows(K_hat) %*% map
    Zx <- centre_rows(K_hat_new) %*% map
    projection <- predict(fit, x_new, type = "projection")
    signs <- sign(colSums(projection * Zx))
    expect_equal(unname(projection), Zx * rep(signs, each = nrow(Zx)), tolerance = 1e-8)
    expect_equal(unname(fit$training_scores), Z * rep(signs, each = n), tolerance = 1e-8)
    g <- sapply(levels(train$y), function(l) {
      Zl <- Z[train$y == l, , drop = FALSE]
      m <- colMeans(Zl)
      S <- crossprod(sweep(Zl, 2, m)) / nrow(Zl)
      S <- 0.8 * S + 0.2 * sum(diag(S)) / p * diag(p)
      apply(Zx, 1, function(z) -0.5 * sum((z - m) * solve(S, z - m)) - 0.5 * determinant(S)$modulus) +
        log(mean(train$y == l))
    })
    expect_equal(unname(predict(fit, x_new, type = "decision")), unname(g), tolerance = 1e-8)
    # the landmark points alone predict: the fit keeps an m x p projection
    expect_identical(dim(fit$projection), c(length(landmarks), p))
  }
  expect_gt(fit$signature[["q"]], 0)  # kernel_dist(power = 2) is indefinite
})

test_that("ikpca_qd's Nystroem form refuses bad landmarks and a constant kernel", {
  set.seed(44)
  d <- gaussian_mixture_2d(60)
  x <- as.matrix(d[, 1:2])
  expect_error(ikpca_qd(x, d$y, landmarks = c(1, 2, 200)), class = "krein_error", regexp = "landmarks")
  expect_error(ikpca_qd(x, d$y, landmarks = c(1, 2, 2)), class = "krein_error", regexp = "landmarks")
  expect_error(ikpca_qd(x, d$y, landmarks = "grid"), class = "krein_error", regexp = "landmarks")
  expect_error(ikpca_qd(x, d$y, landmarks = "random", m = 61), class = "krein_error", regexp = "`m`")
  expect_error(ikpca_qd(x, d$y, landmarks = "meb", eps = 1), class = "krein_error", regexp = "`eps`")
  expect_error(ikpca_qd(x, d$y, landmarks = select_landmarks(x[-1, ], d$y[-1], method = "random", m = 10)),
               class = "krein_error", regexp = "other data")
  expect_error(ikpca_qd(x, d$y, kernel = kernel_rbf(1e-300), landmarks = "random", m = 10), class = "krein_error",
               regexp = "constant")
  expect_error(ikpca_qd(precomputed_kernel(matrix(1, 60, 60)), d$y, landmarks = 1:10), class = "krein_error",
               regexp = "Nystroem approximation of the kernel matrix is zero")
})

test_that("ikpca_qd's Nystroem form is not a full form: it fits under a memory limit that refuses the full form", {
  set.seed(45)
  d <- gaussian_mixture_2d(60)
  x <- as.matrix(d[, 1:2])
  withr::local_options(krein.memory_limit = 1e4)
  expect_error(ikpca_qd(x, d$y, landmarks = NULL), class = "krein_memory_error")
  expect_s3_class(ikpca_qd(x, d$y, landmarks = c(1:5, 31:35)), "ikpca_qd")
})

test_that("isvm fits kernlab's SVM on the kernel matrix and predicts from the support vectors", {
  skip_if_not_installed("kernlab")
  set.seed(8)
  train <- checkerboard(100, size = 2)
  test <- checkerboard(40, size = 2)
  kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
  fit <- isvm(y ~ ., data = train, kernel = kernel, C = 10, scale = FALSE)
  expect_output(print(fit), "support vectors")
  p <- predict(fit, test, type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, 40), tolerance = 1e-8)
  cls <- predict(fit, test, rule = "vote")
  expect_identical(levels(cls), levels(train$y))
  K <- kernel_matrix(kernel, train[, 1:2])
  set.seed(8)
  direct <- kernlab::ksvm(kernlab::as.kernelMatrix(K), train$y, kernel = "matrix", C = 10, prob.model = TRUE,
                          shrinking = FALSE)
  sv <- kernlab::SVindex(direct)
  K_sv <- kernlab::as.kernelMatrix(kernel_matrix(kernel, test[, 1:2], train[sv, 1:2]))
  expected <- kernlab::predict(direct, K_sv)
  expect_equal(as.character(cls), as.character(expected), ignore_attr = TRUE)
  # two classes: "decision" is (-f, f) for kernlab's decision value f (f > 0
  # favours the second level); the default class is kernlab's vote (the
  # sign of f: deterministic), rule = "posterior" the most
  # probable class under the Platt probabilities
  f <- drop(kernlab::predict(direct, K_sv, type = "decision"))
  expect_equal(unname(predict(fit, test, type = "decision")), unname(cbind(-f, f)), tolerance = 1e-8)
  expect_identical(as.character(predict(fit, test)), levels(train$y)[ifelse(f > 0, 2L, 1L)])
  expect_identical(as.character(predict(fit, test, rule = "posterior")),
                   colnames(p)[max.col(p, ties.method = "first")])
  expect_snapshot(show_error(predict(fit, test, rule = "majority")))
})

test_that("isvm's defaults: the width 1/p and the cost of the lowest stratified 5-fold CV error", {
  skip_if_not_installed("kernlab")
  # the median-heuristic width with a fixed C = 1 makes 685 of 693 Vowel
  # points support vectors (test accuracy 0.626, e1071::svm's 0.751)
  set.seed(4)
  train <- checkerboard(120, size = 3)
  seed <- .Random.seed
  fit <- isvm(y ~ ., data = train, probability = FALSE)
  # the folds are deterministic: the RNG is untouched
  expect_identical(.Random.seed, seed)
  expect_equal(fit$spec$kernel$params$gamma, 1 / 2)
  # the rule in plain R: the points of each class in data order, the
  # classes one after another, go to folds 1, 2, ..., 5, 1, 2, ...; the
  # error of kernlab's vote at each cost
  K <- exp(-as.matrix(stats::dist(scale(as.matrix(train[, 1:2]))))^2 / 2)
  y <- train$y
  fold <- integer(length(y))
  fold[order(y)] <- rep_len(1:5, length(y))
  costs <- c(0.1, 1, 10, 100)
  error <- vapply(costs, function(C) {
    wrong <- vapply(1:5, function(k) {
      tr <- which(fold != k)
      te <- which(fold == k)
      m <- kernlab::ksvm(kernlab::as.kernelMatrix(K[tr, tr]), y[tr], kernel = "matrix", C = C, shrinking = FALSE)
      sum(kernlab::predict(m, kernlab::as.kernelMatrix(K[te, tr[kernlab::SVindex(m)], drop = FALSE])) != y[te])
    }, numeric(1))
    sum(wrong) / length(y)
  }, numeric(1))
  expect_equal(fit$cost_cv, data.frame(C = costs, error = error))
  expect_identical(fit$C, costs[which.min(error)])
  expect_gt(fit$C, 1)  # this board needs more than C = 1
  same <- isvm(y ~ ., data = train, kernel = kernel_rbf(1 / 2), C = fit$C, probability = FALSE)
  expect_null(same$cost_cv)
  expect_identical(predict(fit, train), predict(same, train))
  expect_output(print(fit), "cross-validated error")
  expect_output(print(summary(fit)), "C by cross-validation")
})

test_that("isvm's default Platt model is fitted to the cost cross-validation's held-out decision values", {
  skip_if_not_installed("kernlab")
  # plain R: the interleaved folds of the cost's cross-validation; at the
  # chosen cost, each fold's two-class SVM of each pair (the core's solver,
  # smo_binary(), which test-svm_solver.R checks against the dual's KKT
  # conditions and kernlab), fitted on the pair's points of the other folds,
  # gives the held-out points their pairwise decision values; pair (i, j)
  # fits Platt's sigmoid to the values of its own points (f > 0 favouring
  # j). The default fit makes no second cross-validation, so R's RNG is
  # untouched.
  rows <- c(1:30, 51:80, 101:130)
  x <- as.matrix(iris[rows, 1:4])
  y <- iris$Species[rows]
  seed <- .Random.seed
  fit <- isvm(x, y)
  expect_identical(.Random.seed, seed)
  K <- kernel_matrix(fit$spec$kernel, x)  # the fit's kernel takes the data as given and scales it
  fold <- integer(length(y))
  fold[order(y)] <- rep_len(1:5, length(y))
  pairs <- list(c(1, 2), c(1, 3), c(2, 3))
  held_out <- kernlab_held_out <- matrix(NA_real_, length(y), 3)
  for (k in 1:5) {
    tr <- which(fold != k)
    te <- which(fold == k)
    for (p in seq_along(pairs)) {
      pair_rows <- tr[as.integer(y[tr]) %in% pairs[[p]]]
      pair_y <- factor(y[pair_rows], levels = levels(y)[pairs[[p]]])
      solved <- krein:::smo_binary(K[pair_rows, pair_rows], pair_y, fit$C)
      held_out[te, p] <- drop(K[te, pair_rows] %*% solved$coefficients) + solved$b
    }
    m <- kernlab::ksvm(kernlab::as.kernelMatrix(K[tr, tr]), y[tr], kernel = "matrix", C = fit$C, shrinking = FALSE)
    kernlab_held_out[te, ] <- kernlab::predict(m, kernlab::as.kernelMatrix(K[te, tr[kernlab::SVindex(m)], drop = FALSE]),
                                               type = "decision")
  }
  # the same problems as kernlab's, to its tolerance of 1e-3
  expect_lt(max(abs(held_out - kernlab_held_out)), 0.05)
  for (p in seq_along(pairs)) {
    members <- which(as.integer(y) %in% pairs[[p]])
    sigmoid <- krein:::platt_sigmoid(held_out[members, p], as.integer(y[members]) == pairs[[p]][2])
    expect_equal(fit$platt$A[p], sigmoid$A, tolerance = 1e-8)
    expect_equal(fit$platt$B[p], sigmoid$B, tolerance = 1e-8)
  }
  # a cost given: Platt's own cross-validation within each pair, from R's RNG
  set.seed(3)
  given <- isvm(x, y, C = fit$C)
  expect_false(isTRUE(all.equal(given$platt$A, fit$platt$A)))
  set.seed(3)
  expect_identical(isvm(x, y, C = fit$C)$platt, given$platt)
})

test_that("isvm with C = 1 and its default kernel is e1071::svm with its defaults", {
  skip_if_not_installed("kernlab")
  skip_if_not_installed("e1071")
  # e1071 (libsvm) scales the inputs and takes gamma = 1/p, as isvm()
  # does; its decision values, columns "a/b", favour a
  set.seed(2)
  rows <- sample(150, 100)
  fit <- isvm(Species ~ ., data = iris[rows, ], C = 1, probability = FALSE)
  reference <- e1071::svm(Species ~ ., data = iris[rows, ])
  new <- iris[-rows, ]
  expect_identical(as.character(predict(fit, new)), as.character(predict(reference, new)))
  e <- attr(predict(reference, new, decision.values = TRUE), "decision.values")
  expected <- matrix(0, nrow(new), 3, dimnames = list(NULL, levels(iris$Species)))
  for (pair in colnames(e)) {
    classes <- strsplit(pair, "/", fixed = TRUE)[[1]]
    expected[, classes[1]] <- expected[, classes[1]] + e[, pair]
    expected[, classes[2]] <- expected[, classes[2]] - e[, pair]
  }
  # two solvers stopping at their tolerances (1e-3)
  expect_equal(unname(predict(fit, new, type = "decision")), unname(expected), tolerance = 1e-2)
})

test_that("isvm's class-wise decision values sum kernlab's one-vs-one values", {
  skip_if_not_installed("kernlab")
  fit <- isvm(iris[, 1:4], iris$Species, kernel = kernel_rbf(0.5), C = 1, probability = FALSE, scale = FALSE)
  new <- iris[c(1, 60, 110, 135), 1:4]
  K_sv <- kernel_matrix(kernel_rbf(0.5), new, iris[kernlab::SVindex(fit$model), 1:4])
  f <- kernlab::predict(fit$model, kernlab::as.kernelMatrix(K_sv), type = "decision")
  # pairs (1, 2), (1, 3), (2, 3); f > 0 favours the second class of a pair
  expected <- cbind(-f[, 1] - f[, 2], f[, 1] - f[, 3], f[, 2] + f[, 3])
  expect_equal(unname(predict(fit, new, type = "decision")), expected, tolerance = 1e-8)
  # without a Platt model, "prob" is the share of contests won, and both
  # rules give kernlab's class
  votes <- cbind((f[, 1] < 0) + (f[, 2] < 0), (f[, 1] > 0) + (f[, 3] < 0), (f[, 2] > 0) + (f[, 3] > 0))
  expect_equal(unname(predict(fit, new, type = "prob")), votes / 3)
  expect_identical(predict(fit, new), predict(fit, new, rule = "vote"))
  expect_identical(as.character(predict(fit, new)),
                   as.character(kernlab::predict(fit$model, kernlab::as.kernelMatrix(K_sv))))
})

test_that("isvm reaches kernlab's own RBF optimum at a large C, with or without probabilities", {
  skip_if_not_installed("kernlab")
  # the dual objective of the same C-SVM from kernlab's built-in rbfdot kernel
  # on the inputs is the reference; on a precomputed kernel with shrinking,
  # kernlab stopped near -9.8e6 instead of about -2e4 on these data
  set.seed(1)
  train <- banana(100)
  x <- 5 * as.matrix(train[, 1:2])
  fit <- isvm(x, train$y, kernel = kernel_rbf(gamma = 1 / 25), C = 1e4, probability = FALSE, scale = FALSE)
  reference <- kernlab::ksvm(x, train$y, kernel = "rbfdot", kpar = list(sigma = 1 / 25), C = 1e4,
                             scaled = FALSE)
  expect_equal(fit$model@obj, reference@obj, tolerance = 1e-3)
  expect_identical(predict(fit, x), stats::setNames(kernlab::predict(reference, x), NULL))
  # no Platt model: the probabilities are the one-vs-one vote, 0 or 1 here
  expect_true(all(predict(fit, x, type = "prob") %in% c(0, 1)))
  expect_output(print(fit), "no Platt model")
  expect_error(isvm(x, train$y, probability = NA), class = "krein_error", regexp = "`probability`")
})

test_that("platt_sigmoid's Newton solution minimises Platt's log-likelihood (optim on the same)", {
  # Platt (1999): P(positive | f) = 1 / (1 + exp(A f + B)), targets with his
  # prior correction (N+ + 1) / (N+ + 2) and 1 / (N- + 2); Lin, Lin and Weng
  # (2007) minimise the same negative log-likelihood by a Newton method. The
  # plain-R transcription here: the log-likelihood written directly, minimised
  # by optim's BFGS.
  set.seed(3)
  f <- c(rnorm(15, -1), rnorm(10, 1.2))
  positive <- rep(c(FALSE, TRUE), c(15, 10))
  target <- ifelse(positive, (10 + 1) / (10 + 2), 1 / (15 + 2))
  nll <- function(ab) {
    p <- 1 / (1 + exp(ab[1] * f + ab[2]))
    -sum(target * log(p) + (1 - target) * log(1 - p))
  }
  reference <- stats::optim(c(0, 0), nll, method = "BFGS", control = list(reltol = 1e-14))$par
  newton <- platt_sigmoid(f, positive)
  expect_true(newton$converged)
  expect_equal(c(newton$A, newton$B), reference, tolerance = 1e-5)
  expect_equal(newton$objective, nll(reference), tolerance = 1e-10)
  # separable decision values: the prior-corrected targets keep A and B finite
  separable <- platt_sigmoid(c(-3, -2, -1, 1, 2, 3) * 100, rep(c(FALSE, TRUE), each = 3))
  expect_true(separable$converged)
  expect_true(is.finite(separable$A) && is.finite(separable$B) && separable$A < 0)
})

test_that("couple_pairwise is Wu, Lin and Weng's second method (libsvm's iteration)", {
  # plain-R transcription of libsvm's multiclass_probability (Wu, Lin and Weng
  # 2004, method 2: the fixed-point iteration for min p'Qp subject to sum p = 1)
  libsvm_coupling <- function(r) {
    k <- nrow(r)
    Q <- matrix(0, k, k)
    for (t in 1:k) for (j in 1:k) if (j != t) {
      Q[t, t] <- Q[t, t] + r[j, t]^2
      Q[t, j] <- -r[j, t] * r[t, j]
    }
    p <- rep(1 / k, k)
    for (iter in 1:1000) {
      Qp <- drop(Q %*% p)
      pQp <- sum(p * Qp)
      if (max(abs(Qp - pQp)) < 1e-12) break
      for (t in 1:k) {
        diff <- (-Qp[t] + pQp) / Q[t, t]
        p[t] <- p[t] + diff
        pQp <- (pQp + diff * (diff * Q[t, t] + 2 * Qp[t])) / (1 + diff)^2
        Qp <- (Qp + diff * Q[, t]) / (1 + diff)
        p <- p / (1 + diff)
      }
    }
    p
  }
  set.seed(4)
  for (k in 3:5) {
    pairs <- which(upper.tri(diag(k)), arr.ind = TRUE)
    pairs <- pairs[order(pairs[, 1], pairs[, 2]), ]
    r_first <- matrix(stats::runif(2 * nrow(pairs), 0.05, 0.95), 2, byrow = TRUE)
    coupled <- couple_pairwise(r_first, k)
    for (row in 1:2) {
      r <- matrix(0, k, k)
      r[pairs] <- r_first[row, ]
      r[pairs[, 2:1]] <- 1 - r_first[row, ]
      expect_equal(coupled[row, ], libsvm_coupling(r), tolerance = 1e-8, info = paste(k, "classes"))
    }
  }
})

test_that("couple_pairwise solves every row's bordered system, on any number of threads", {
  # plain-R transcription of Wu, Lin and Weng (2004), eq. 21, solved directly:
  # (Q, 1; 1', 0) (p, b) = (0, 1), Q_ii = sum_{s != i} r_si^2, Q_ij = -r_ji r_ij,
  # with libsvm's bounds 1e-7 on the pairwise probabilities
  direct <- function(r_row, k) {
    pairs <- t(utils::combn(k, 2))
    r <- matrix(0, k, k)
    r_row <- pmin(pmax(r_row, 1e-7), 1 - 1e-7)
    r[pairs] <- r_row
    r[pairs[, 2:1]] <- 1 - r_row
    Q <- -t(r) * r
    diag(Q) <- colSums(r^2)
    p <- solve(rbind(cbind(Q, 1), c(rep(1, k), 0)), c(rep(0, k), 1))[1:k]
    pmax(p, 0) / sum(pmax(p, 0))
  }
  set.seed(9)
  k <- 6
  r_first <- matrix(stats::runif(700 * 15), 700)
  r_first[1, 1:3] <- c(0, 1, 1e-12)  # at and beyond the bounds
  one <- couple_pairwise(r_first, k, threads = 1L)
  expect_identical(couple_pairwise(r_first, k, threads = 2L), one)
  expect_equal(one[c(1, 2, 700), ], t(apply(r_first[c(1, 2, 700), ], 1, direct, k = k)), tolerance = 1e-12)
  expect_equal(rowSums(one), rep(1, 700), tolerance = 1e-14)
  # two classes: the pair's own probabilities
  expect_identical(couple_pairwise(cbind(c(0.2, 1)), 2L), cbind(c(0.2, 1), c(0.8, 0)))
})

test_that("isvm's Platt probabilities at a large C are finite, sum to 1 and are calibrated like ksvm's", {
  skip_if_not_installed("kernlab")
  # kernlab's own Platt model refits its inner folds with shrinking, and at
  # C = 100 errors (this seed) or gives a flat sigmoid
  set.seed(1)
  train <- banana(400)
  test <- banana(500)
  set.seed(2)
  fit <- isvm(as.matrix(train[, 1:2]), train$y, kernel = kernel_rbf(2), C = 100)
  p <- predict(fit, as.matrix(test[, 1:2]), type = "prob")
  expect_true(all(is.finite(p)))
  expect_equal(unname(rowSums(p)), rep(1, nrow(p)), tolerance = 1e-12)
  log_loss <- function(p, y) -mean(log(pmax(p[cbind(seq_along(y), as.integer(y))], 1e-15)))
  set.seed(2)
  reference <- kernlab::ksvm(as.matrix(train[, 1:2]), train$y, kernel = "rbfdot", kpar = list(sigma = 2),
                             C = 100, prob.model = TRUE)
  p_reference <- kernlab::predict(reference, as.matrix(test[, 1:2]), type = "probabilities")
  expect_lt(log_loss(p, test$y), log_loss(p_reference, test$y) + 0.1)
  expect_true(all(fit$platt$converged))
  expect_lt(fit$platt$A, 0)
  # the folds come from R's RNG
  set.seed(2)
  again <- isvm(as.matrix(train[, 1:2]), train$y, kernel = kernel_rbf(2), C = 100)
  expect_identical(again$platt, fit$platt)
})

test_that("isvm's multi-class probabilities couple the pairs' Platt sigmoids", {
  skip_if_not_installed("kernlab")
  set.seed(5)
  fit <- isvm(iris[, 1:4], iris$Species, kernel = kernel_rbf(0.5), C = 10, scale = FALSE)
  new <- iris[c(1, 60, 110, 135), 1:4]
  f <- predict(fit, new, type = "decision")
  K_sv <- kernel_matrix(kernel_rbf(0.5), new, iris[kernlab::SVindex(fit$model), 1:4])
  pairwise <- kernlab::predict(fit$model, kernlab::as.kernelMatrix(K_sv), type = "decision")
  r_first <- 1 / (1 + exp(-(pairwise * rep(fit$platt$A, each = 4) + rep(fit$platt$B, each = 4))))
  expect_equal(unname(predict(fit, new, type = "prob")), couple_pairwise(r_first, 3), tolerance = 1e-10)
  expect_equal(fit$platt$pair, c("setosa vs versicolor", "setosa vs virginica", "versicolor vs virginica"))
  expect_gt(mean(predict(fit, iris[, 1:4]) == iris$Species), 0.9)
})

test_that("isvm fits a one-point class, as libsvm does, with a warning naming it", {
  skip_if_not_installed("kernlab")
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  # two points in all: each fold of the cost's cross-validation lacks a class
  expect_warning(two <- isvm(X[1:2, ], factor(c("a", "b"))), class = "krein_one_row_class_warning",
                 regexp = "Classes \"a\", \"b\" of `y` have one training row")
  expect_true(all(is.finite(predict(two, X[1:5, ], type = "prob"))))
  for (probability in c(TRUE, FALSE)) {
    expect_warning(fit <- isvm(X, factor(c("a", rep("b", 59))), probability = probability),
                   class = "krein_one_row_class_warning", regexp = "Class \"a\" of `y`")
    p <- predict(fit, X, type = "prob")
    expect_identical(colnames(p), c("a", "b"))
    expect_true(all(is.finite(p)))
    # the Platt model gives the class a probability at its own point
    if (probability) expect_gt(p[1, "a"], 0)
  }
  # two points per class is enough
  fit <- isvm(X[c(1:2, 31:32), ], d$y[c(1:2, 31:32)])
  expect_true(all(is.finite(predict(fit, X[1:5, ], type = "prob"))))
})

test_that("isvm names the package to install when kernlab is missing", {
  expect_snapshot(show_error(check_kernlab(available = FALSE)))
})

test_that("resolved hyperparameters are stored: a row predicts the same alone as among others", {
  skip_if_not_installed("kernlab")
  # kernel_rbf() takes its width from the training data (median heuristic);
  # predictions must not recompute it (or the centring, or anything else)
  # from the new points
  set.seed(12)
  train <- checkerboard(60, size = 2)
  test <- checkerboard(25, size = 2)
  fits <- list(iknn = iknn(y ~ ., data = train, k = 3),
               ikpca_qd = ikpca_qd(y ~ ., data = train, shrinkage = 0.1),
               isvm = isvm(y ~ ., data = train, C = 10))
  for (name in names(fits)) {
    fit <- fits[[name]]
    types <- c("prob", "decision", krein:::model_info(name)$types)
    for (type in types) {
      all_rows <- predict(fit, test, type = type)
      for (i in c(1, 17)) {
        expect_equal(predict(fit, test[i, ], type = type), all_rows[i, , drop = FALSE], info = paste(name, type))
      }
    }
  }
})

test_that("print and summary show each model's own lines and tables", {
  skip_if_not_installed("kernlab")
  set.seed(3)
  board <- checkerboard(40, size = 2)
  kernel <- kernel_rbf(2)
  expect_snapshot(print(iknn(y ~ ., data = board, kernel = kernel, k = 3)))
  expect_snapshot(print(ikpca_qd(y ~ ., data = board, kernel = kernel, shrinkage = 0.1)))
  expect_snapshot(print(isvm(y ~ ., data = board, kernel = kernel, C = 10, probability = FALSE)))
  s <- summary(iknn(y ~ ., data = board, kernel = kernel, k = 3))
  expect_identical(rownames(s$model[[1]]), levels(board$y))
  expect_output(print(summary(ikpca_qd(y ~ ., data = board, kernel = kernel))), "Kernel PCA components")
  expect_output(print(summary(isvm(y ~ ., data = board, kernel = kernel, probability = FALSE))),
                "Support vectors per class")
})

test_that("the reference classifiers plot decision regions or class probabilities", {
  skip_if_not_installed("kernlab")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  set.seed(5)
  board <- checkerboard(60)
  fits <- list(
    iknn(y ~ ., data = board, kernel = kernel_rbf(2), k = 3),
    ikpca_qd(board[, 1:2], board$y, kernel = kernel_rbf(2)),
    isvm(board[, 1:2], board$y, kernel = kernel_rbf(2))
  )
  for (fit in fits) {
    expect_identical(withVisible(plot(fit, resolution = 20))$visible, FALSE)
    expect_invisible(plot(fit, resolution = 10, main = "my title"))
  }
  expect_invisible(plot(fits[[3]], resolution = 10, rule = "vote"))
  # more than two inputs: class probabilities (two and three classes)
  expect_invisible(plot(iknn(iris[1:100, 1:4], droplevels(iris$Species[1:100]), kernel = kernel_rbf(0.5), k = 3)))
  expect_invisible(plot(ikpca_qd(iris[, 1:4], iris$Species, kernel = kernel_rbf(0.5))))
  expect_error(plot(fits[[1]], resolution = 1), class = "krein_error", regexp = "`resolution`")
})

test_that("ikpca_qd probabilities stay finite and sum to 1 for points far from the data", {
  # as for kfda: quadratic forms of about 1e600 must not give NaN probabilities
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  fit <- ikpca_qd(X, d$y, kernel = kernel_linear(), scale = FALSE)
  p <- predict(fit, X[1:5, ] * 1e150, type = "prob")
  expect_true(all(is.finite(p)))
  expect_equal(rowSums(p), rep(1, 5), ignore_attr = TRUE)
})
