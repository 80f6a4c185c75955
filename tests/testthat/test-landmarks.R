# select_landmarks(): minimum enclosing ball core sets (paper 002, Sec. 4.1,
# Algorithm 1; notes section 4), k-means and random landmarks.

# Squared feature-space distances of all class points to the MEB centre
# sum_s a_s phi(x_s), computed here from the returned weights and the dense
# class kernel: d2_j = K_jj - 2 K_jS a + a' K_SS a.
ball_distances <- function(K_class, core, weights) {
  diag(K_class) - 2 * drop(K_class[, core, drop = FALSE] %*% weights) +
    drop(t(weights) %*% K_class[core, core, drop = FALSE] %*% weights)
}

test_that("every point of a class lies within (1 + eps) R of its MEB centre", {
  set.seed(1)
  d <- checkerboard(600, size = 3)
  x <- as.matrix(d[, 1:2])
  for (eps in c(0.1, 0.01)) {
    lm <- select_landmarks(x, d$y, kernel_rbf(5), method = "meb", eps = eps, scale = FALSE)
    for (ball in lm$balls) {
      rows <- which(d$y == ball$class)
      K_class <- kernel_matrix(x[rows, ], kernel = kernel_rbf(5))
      core <- match(ball$indices, rows)
      expect_equal(sum(ball$weights), 1, tolerance = 1e-12)
      expect_true(all(ball$weights > 0))
      d2 <- ball_distances(K_class, core, ball$weights)
      expect_lte(sqrt(max(d2)), (1 + eps) * ball$radius * (1 + 1e-9))
      # the radius is that of the ball over the core set: attained there
      expect_equal(max(d2[core]), ball$radius^2, tolerance = 1e-6)
      expect_gte(length(ball$indices), 2L)
    }
    expect_identical(lm$indices, unlist(lapply(lm$balls, `[[`, "indices"), use.names = FALSE))
  }
})

test_that("an indefinite kernel runs MEB on the psd K_j K_j' (paper 002, Algorithm 1)", {
  set.seed(2)
  d <- checkerboard(200, size = 2)
  x <- as.matrix(d[, 1:2])
  kernel <- kernel_tanh(scale = 2, offset = -1)
  lm <- select_landmarks(x, d$y, kernel, method = "meb", eps = 0.05)
  for (ball in lm$balls) {
    expect_true(ball$squared)
    rows <- which(d$y == ball$class)
    K_class <- kernel_matrix(x[rows, ], kernel = kernel)
    squared <- K_class %*% t(K_class)
    d2 <- ball_distances(squared, match(ball$indices, rows), ball$weights)
    expect_lte(sqrt(max(d2)), 1.05 * ball$radius * (1 + 1e-9))
  }
  # a precomputed kernel is tested for definiteness class by class
  K <- kernel_matrix(x, kernel = kernel_rbf(2))
  pre <- select_landmarks(K, d$y, "precomputed", method = "meb")
  expect_false(any(vapply(pre$balls, `[[`, logical(1), "squared")))
  expect_null(pre$points)
})

test_that("the core-set size does not grow with the class size", {
  set.seed(3)
  sizes <- vapply(c(1000, 20000), function(n) {
    d <- checkerboard(n, size = 4)
    length(select_landmarks(d[, 1:2], d$y, kernel_rbf(5), method = "meb")$indices)
  }, numeric(1))
  expect_lte(max(sizes) / min(sizes), 2)
})

test_that("selections are reproducible under set.seed() and kmeans/random default to the MEB count", {
  set.seed(4)
  d <- checkerboard(500, size = 3)
  for (method in c("meb", "kmeans", "random")) {
    set.seed(10)
    a <- select_landmarks(d[, 1:2], d$y, kernel_rbf(5), method = method)
    set.seed(10)
    b <- select_landmarks(d[, 1:2], d$y, kernel_rbf(5), method = method)
    expect_identical(a, b)
  }
  set.seed(10)
  meb <- select_landmarks(d[, 1:2], d$y, kernel_rbf(5), method = "meb", scale = FALSE)
  set.seed(11)
  km <- select_landmarks(d[, 1:2], d$y, kernel_rbf(5), method = "kmeans", scale = FALSE)
  expect_identical(nrow(km$points), length(meb$indices))
  expect_null(km$indices)
})

test_that("k-means landmarks are the centres; on a precomputed kernel the nearest points", {
  set.seed(5)
  d <- checkerboard(300, size = 2)
  x <- as.matrix(d[, 1:2])
  set.seed(1)
  km <- select_landmarks(x, d$y, kernel_rbf(2), method = "kmeans", m = 12, scale = FALSE)
  set.seed(1)
  reference <- stats::kmeans(x, centers = 12, iter.max = 100L, nstart = 1L)
  expect_equal(unname(km$points), unname(reference$centers))
  K <- kernel_matrix(x, kernel = kernel_rbf(2))
  set.seed(1)
  pre <- select_landmarks(K, d$y, "precomputed", method = "kmeans", m = 12)
  expect_true(all(pre$indices %in% seq_len(300)))
  expect_identical(length(pre$class), length(pre$indices))
})

test_that("stratified random landmarks allocate proportionally, at least two per class", {
  set.seed(6)
  y <- factor(rep(c("big", "small"), c(190, 10)))
  x <- matrix(rnorm(400), 200, 2)
  lm <- select_landmarks(x, y, kernel_rbf(1), method = "random", m = 20)
  expect_identical(as.vector(table(lm$class)), c(18L, 2L))
  expect_false(anyDuplicated(lm$indices) > 0)
  plain <- select_landmarks(x, y, kernel_rbf(1), method = "random", m = 20, stratified = FALSE)
  expect_identical(length(plain$indices), 20L)
})

test_that("nystrom() takes landmark objects and landmark points", {
  set.seed(7)
  d <- checkerboard(300, size = 2)
  x <- as.matrix(d[, 1:2])
  lm <- select_landmarks(x, d$y, kernel_rbf(2), method = "meb", scale = FALSE)
  a <- nystrom(x, kernel_rbf(2), landmarks = lm, scale = FALSE)
  b <- nystrom(x, kernel_rbf(2), landmarks = lm$indices, scale = FALSE)
  expect_equal(a$values, b$values)
  km <- select_landmarks(x, d$y, kernel_rbf(2), method = "kmeans", m = 15, scale = FALSE)
  c <- nystrom(x, kernel_rbf(2), landmarks = km, scale = FALSE)
  C <- kernel_matrix(x, km$points, kernel = kernel_rbf(2))
  W <- kernel_matrix(km$points, kernel = kernel_rbf(2))
  expect_equal(as.matrix(c), C %*% MASS::ginv(W) %*% t(C), tolerance = 1e-8)
  expect_output(print(lm), "minimum enclosing balls")
})

test_that("bad input is a krein_error naming the argument", {
  set.seed(8)
  x <- matrix(rnorm(40), 20, 2)
  y <- rep(1:2, 10)
  expect_snapshot(show_error(select_landmarks(x, y, kernel_rbf(1), eps = 0)))
  expect_snapshot(show_error(select_landmarks(x, y, kernel_rbf(1), eps = 1.5)))
  expect_snapshot(show_error(select_landmarks(x, y, kernel_rbf(1), method = "random", m = 21)))
  # a class of one point is its own landmark
  expect_identical(sum(select_landmarks(x, c(1, rep(2, 19)), kernel_rbf(1))$class == 1), 1L)
  expect_snapshot(show_error(select_landmarks(x, y, kernel_rbf(1), method = "tree")))
  expect_snapshot(show_error(nystrom(x, kernel_rbf(1), landmarks = matrix(0, 2, 3))))
})

test_that("k-means with m = the number of points makes every point a landmark", {
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  # stats::kmeans()'s Hartigan-Wong refuses it with a base error
  lm <- select_landmarks(X, d$y, kernel_rbf(1), method = "kmeans", m = 60, scale = FALSE)
  expect_equal(nrow(lm$points), 60L)
  expect_equal(lm$points[order(lm$points[, 1]), ], X[order(X[, 1]), ], ignore_attr = TRUE)
  # each landmark keeps the class of its point
  matched <- match(lm$points[, 1], X[, 1])
  expect_equal(lm$class, d$y[matched])
  # on a precomputed kernel every training point is chosen
  K <- kernel_matrix(X, kernel = kernel_rbf(1))
  lm_K <- select_landmarks(K, d$y, "precomputed", method = "kmeans", m = 60)
  expect_equal(sort(lm_K$indices), 1:60)
  # duplicated rows: at most the distinct points, else a krein_error
  X_dup <- rbind(X, X[1:2, ])
  y_dup <- factor(c(as.character(d$y), as.character(d$y[1:2])))
  expect_equal(nrow(select_landmarks(X_dup, y_dup, kernel_rbf(1), method = "kmeans", m = 60)$points), 60L)
  expect_error(select_landmarks(X_dup, y_dup, kernel_rbf(1), method = "kmeans", m = 62),
               class = "krein_error", regexp = "distinct")
})

test_that("a tiny eps caps the core set at the class size instead of overflowing", {
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  # 10 / eps overflows an integer: it must not give an NA core size and a
  # warning saying "reached NA points"
  warnings <- character()
  lm <- withCallingHandlers(select_landmarks(X, d$y, kernel_rbf(1), eps = 1e-9),
                            warning = function(w) {
                              warnings <<- c(warnings, conditionMessage(w))
                              invokeRestart("muffleWarning")
                            })
  expect_false(any(grepl("NA", warnings)))
  expect_true(all(lm$indices %in% 1:60))
  expect_true(all(vapply(lm$balls, function(b) length(b$indices) <= 30, logical(1))))
  expect_s3_class(select_landmarks(X, d$y, kernel_rbf(1), eps = 1e-300), "krein_landmarks")
})

test_that("select_landmarks() takes the na.action its missing-value error suggests", {
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  X[c(3, 40), 1] <- NA
  expect_error(select_landmarks(X, d$y, kernel_rbf(1), na.action = na.fail), class = "krein_error",
               regexp = "na.action = na.omit")
  set.seed(2)
  lm <- select_landmarks(X, d$y, kernel_rbf(1), method = "random", m = 10, na.action = na.omit)
  expect_equal(lm$n, 58L)
  # the indices count the complete rows, as a model fitted with na.omit does
  fit <- ikfd(X, d$y, kernel = kernel_rbf(1), landmarks = lm, na.action = na.omit, scale = FALSE)
  expect_equal(fit$landmarks$points, X[stats::complete.cases(X), ][lm$indices, ], ignore_attr = TRUE)
})

# select_landmarks() selects on the data as the models see them: the same
# input path, the same `scale` (selecting on the data as given while the
# models scale, MEB landmarks chosen beforehand share 2 of 16 points with
# ikfd(landmarks = "meb")).
test_that("landmarks selected beforehand equal a model's own selection, with the same `scale`", {
  set.seed(1)
  d <- gaussian_mixture_2d(200)
  X <- cbind(d$x1 * 1000, d$x2)
  # the defaults agree
  set.seed(2)
  selected <- select_landmarks(X, d$y, kernel_rbf(1), method = "meb")
  set.seed(2)
  own <- ikfd(X, d$y, kernel = kernel_rbf(1), landmarks = "meb")
  expect_identical(ikfd(X, d$y, kernel = kernel_rbf(1), landmarks = selected)$landmarks$indices,
                   own$landmarks$indices)
  for (method in c("meb", "kmeans", "random")) {
    for (scale in c(TRUE, FALSE)) {
      set.seed(2)
      selected <- select_landmarks(X, d$y, kernel_rbf(1), method = method, m = 12, scale = scale)
      set.seed(2)
      own <- ikfd(X, d$y, kernel = kernel_rbf(1), landmarks = method, m = 12, scale = scale)
      given <- ikfd(X, d$y, kernel = kernel_rbf(1), landmarks = selected, scale = scale)
      info <- paste(method, scale)
      expect_identical(given$landmarks$indices, own$landmarks$indices, info = info)
      expect_identical(given$landmarks$points, own$landmarks$points, info = info)
      expect_equal(predict(given, X, type = "decision"), predict(own, X, type = "decision"),
                   tolerance = 1e-10, info = info)
      # the points are in the original units
      if (method != "kmeans") expect_identical(selected$points, X[selected$indices, ], info = info)
    }
  }
})
