# Data generators (R/generators.R). Reference values are recomputed here in
# plain R from the papers' definitions: checkerboard cells (paper 000 Sec. V-B),
# the sine populations (paper 003 Example 3), the XOR points (paper 001 Sec. 5)
# and the ball surface distances (paper 002 Sec. 4.3; Duin & Pekalska 2010).

expect_xy_frame <- function(d, n, levels) {
  expect_s3_class(d, "data.frame")
  expect_named(d, c("x1", "x2", "y"))
  expect_equal(nrow(d), n)
  expect_type(d$x1, "double")
  expect_type(d$x2, "double")
  expect_s3_class(d$y, "factor")
  expect_identical(levels(d$y), levels)
  expect_false(anyNA(d))
}

test_that("checkerboard has the right shape, range and levels", {
  set.seed(1)
  d <- checkerboard(300)
  expect_xy_frame(d, 300, c("1", "2"))
  expect_true(all(d$x1 >= -2 & d$x1 <= 2 & d$x2 >= -2 & d$x2 <= 2))
  expect_setequal(as.character(unique(d$y)), c("1", "2"))

  d3 <- checkerboard(50, size = 3, range = c(0, 3))
  expect_xy_frame(d3, 50, c("1", "2"))
  expect_true(all(d3$x1 >= 0 & d3$x1 <= 3 & d3$x2 >= 0 & d3$x2 <= 3))
  expect_xy_frame(checkerboard(1), 1, c("1", "2"))
})

test_that("checkerboard labels follow the cells", {
  # independent recomputation: cell (i, j) from 0 is class 1 iff i + j is even
  recompute <- function(d, size, range) {
    breaks <- seq(range[1], range[2], length.out = size + 1)
    i <- findInterval(d$x1, breaks, rightmost.closed = TRUE) - 1
    j <- findInterval(d$x2, breaks, rightmost.closed = TRUE) - 1
    factor(ifelse((i + j) %% 2 == 0, "1", "2"), levels = c("1", "2"))
  }
  set.seed(2)
  d <- checkerboard(500)
  expect_identical(d$y, recompute(d, 4, c(-2, 2)))
  d <- checkerboard(500, size = 3, range = c(-1.5, 4.5))
  expect_identical(d$y, recompute(d, 3, c(-1.5, 4.5)))
  # every cell of the 4 x 4 board is hit and the lower-left cell is class 1
  d <- checkerboard(2000)
  expect_true(all(d$y[d$x1 < -1 & d$x2 < -1] == "1"))
  expect_true(all(d$y[d$x1 > 1 & d$x2 < -1] == "2"))
})

test_that("checkerboard puts points on the edges into the right cells", {
  # runif() never returns the end points, so test the cell rule directly
  y <- krein:::checkerboard_labels(x1 = c(2, 2, -2, -2, 0, 1), x2 = c(-2, 2, 1.5, -2, 0, -1e-12),
                           size = 4, range = c(-2, 2))
  # cells (3, 0), (3, 3), (0, 3), (0, 0), (2, 2), (3, 1)
  expect_identical(as.character(y), c("2", "1", "2", "1", "1", "1"))
})

test_that("sine_populations follows paper 003 Example 3", {
  set.seed(3)
  d <- sine_populations(200, noise = 0.1)
  expect_xy_frame(d, 800, c("1", "2", "3", "4"))
  expect_identical(as.vector(table(d$y)), rep(200L, 4))
  y <- as.integer(d$y)
  expect_true(all(d$x1[y <= 2] >= 0 & d$x1[y <= 2] <= 3 * pi))
  expect_true(all(d$x1[y >= 3] >= 3 * pi & d$x1[y >= 3] <= 6 * pi))
  sign <- c(1, -1, 1, -1)[y]
  residual <- d$x2 - sign * sin(d$x1)
  expect_lt(abs(mean(residual)), 0.02)
  for (k in 1:4) expect_equal(sd(residual[y == k]), 0.1, tolerance = 0.15)

  exact <- sine_populations(10, noise = 0)
  y <- as.integer(exact$y)
  expect_equal(exact$x2, c(1, -1, 1, -1)[y] * sin(exact$x1))

  d <- sine_populations(300, noise = 0.5)
  expect_equal(sd(d$x2 - c(1, -1, 1, -1)[as.integer(d$y)] * sin(d$x1)), 0.5, tolerance = 0.1)
})

test_that("xor4 is the XOR of paper 001 Sec. 5", {
  d <- xor4()
  expect_xy_frame(d, 4, c("1", "2"))
  expect_identical(d$x1, c(-1, -1, 1, 1))
  expect_identical(d$x2, c(-1, 1, -1, 1))
  expect_identical(d$y, factor(c("1", "2", "2", "1"), levels = c("1", "2")))
  # the class is the sign of x1 * x2
  expect_identical(as.character(d$y), ifelse(d$x1 * d$x2 > 0, "1", "2"))
})

test_that("gaussian_mixture_2d splits the classes and is bimodal", {
  set.seed(4)
  d <- gaussian_mixture_2d(101)
  expect_xy_frame(d, 101, c("1", "2"))
  expect_identical(as.vector(table(d$y)), c(51L, 50L))
  expect_identical(as.vector(table(gaussian_mixture_2d(2)$y)), c(1L, 1L))

  d <- gaussian_mixture_2d(4000, sd = 0.3)
  # with small sd nearly every point lies in a quadrant of its class
  agree <- mean(ifelse(d$x1 * d$x2 > 0, "1", "2") == d$y)
  expect_gt(agree, 0.98)
  # both components of each class are used, roughly equally
  one <- d[d$y == "1", ]
  expect_equal(mean(one$x1 > 0), 0.5, tolerance = 0.1)
  two <- d[d$y == "2", ]
  expect_equal(mean(two$x1 > 0), 0.5, tolerance = 0.1)
  # default sd 0.5: the Bayes rule sign(x1 x2) errs about 2 p (1 - p) of the time
  d <- gaussian_mixture_2d(4000)
  p <- pnorm(-2)
  expect_equal(mean(ifelse(d$x1 * d$x2 > 0, "1", "2") != d$y), 2 * p * (1 - p),
               tolerance = 0.3)
})

test_that("banana has two moons whose overlap grows with `overlap`", {
  set.seed(5)
  d <- banana(301)
  expect_xy_frame(d, 301, c("1", "2"))
  expect_identical(as.vector(table(d$y)), c(151L, 150L))

  # the noise sd is 0.05 + 0.45 * overlap around the two unit half circles
  radial_sd <- function(d) {
    one <- d$y == "1"
    r <- ifelse(one, sqrt(d$x1^2 + d$x2^2), sqrt((d$x1 - 1)^2 + (d$x2 - 0.5)^2))
    sd(r - 1)
  }
  expect_equal(radial_sd(banana(2000, overlap = 0)), 0.05, tolerance = 0.15)
  expect_equal(radial_sd(banana(2000, overlap = 0.5)), 0.275, tolerance = 0.15)

  # overlap = 0 is separable by the distance to the centres
  d <- banana(1000, overlap = 0)
  expect_true(all(d$x2[d$y == "1"] > -0.3))
  expect_true(all(d$x2[d$y == "2"] < 0.8))
  # nearest-arc rule: its error grows with the overlap
  arc_distance <- function(px, py) {
    # distance from (px, py) to the upper half of the unit circle around 0
    ifelse(py >= 0, abs(sqrt(px^2 + py^2) - 1),
           pmin(sqrt((px - 1)^2 + py^2), sqrt((px + 1)^2 + py^2)))
  }
  arc_error <- function(d) {
    d1 <- arc_distance(d$x1, d$x2)
    d2 <- arc_distance(1 - d$x1, 0.5 - d$x2)  # class 2 arc, reflected
    mean(ifelse(d1 < d2, "1", "2") != d$y)
  }
  expect_equal(arc_error(d), 0)
  expect_lt(arc_error(banana(1000, overlap = 0)), arc_error(banana(1000, overlap = 1)))
})

test_that("ball_dissimilarities returns the surface distances of non-overlapping balls", {
  set.seed(6)
  b <- ball_dissimilarities(n_per_class = 40)
  expect_s3_class(b, "krein_ball_data")
  expect_named(b, c("D", "y", "centers", "radius"))
  n <- 80L
  expect_identical(dim(b$D), c(n, n))
  expect_identical(dim(b$centers), c(n, 3L))
  expect_identical(levels(b$y), c("1", "2"))
  expect_identical(as.vector(table(b$y)), c(40L, 40L))
  expect_identical(b$radius, c(5, 6)[as.integer(b$y)])
  expect_true(all(b$centers >= 0 & b$centers <= 100))

  expect_identical(b$D, t(b$D))
  expect_true(all(diag(b$D) == 0))
  expect_true(all(b$D[upper.tri(b$D)] >= 0))

  # D_ij = ||x_i - x_j|| - r_i - r_j recomputed pair by pair from the centres
  ref <- matrix(0, n, n)
  for (i in seq_len(n)) for (j in seq_len(n)) {
    if (i != j) {
      ref[i, j] <- sqrt(sum((b$centers[i, ] - b$centers[j, ])^2)) - b$radius[i] - b$radius[j]
    }
  }
  expect_equal(b$D, ref)
})

test_that("the ball data are non-Euclidean (classical scaling has negative eigenvalues)", {
  set.seed(7)
  b <- ball_dissimilarities()
  n <- nrow(b$D)
  expect_identical(n, 200L)
  J <- diag(n) - matrix(1 / n, n, n)
  S <- -0.5 * J %*% (b$D^2) %*% J
  ev <- eigen((S + t(S)) / 2, symmetric = TRUE, only.values = TRUE)$values
  neg_share <- sum(abs(ev[ev < 0])) / sum(abs(ev))
  expect_gt(neg_share, 0.05)
  expect_lt(min(ev), -0.01 * max(ev))
})

test_that("ball_dissimilarities takes several classes, dimensions and radii", {
  set.seed(8)
  b <- ball_dissimilarities(n_per_class = 5, dim = 2, radii = c(1, 2, 3))
  expect_identical(dim(b$D), c(15L, 15L))
  expect_identical(dim(b$centers), c(15L, 2L))
  expect_identical(levels(b$y), c("1", "2", "3"))
  expect_identical(b$radius, rep(c(1, 2, 3), each = 5))
  expect_true(all(b$D[upper.tri(b$D)] >= 0))
  one <- ball_dissimilarities(n_per_class = 3, dim = 1, radii = 2)
  expect_identical(levels(one$y), "1")
  expect_identical(dim(one$centers), c(3L, 1L))
})

test_that("ball_dissimilarities fails cleanly when the balls do not fit", {
  set.seed(9)
  expect_error(ball_dissimilarities(n_per_class = 2, dim = 1, radii = c(40, 40), max_tries = 50),
               class = "krein_error", regexp = "`radii` are too large")
})

test_that("ball data print briefly", {
  set.seed(10)
  b <- ball_dissimilarities(n_per_class = 3, radii = c(2, 3))
  out <- capture.output(res <- print(b))
  expect_identical(res, b)
  expect_match(out[1], "6 balls in 3 dimensions, 2 classes")
  expect_match(out, "class 2: 3 balls of radius 3", all = FALSE)
})

test_that("the generators are reproducible under set.seed()", {
  draw <- function(seed, f) {
    set.seed(seed)
    f()
  }
  gens <- list(
    function() checkerboard(50),
    function() sine_populations(10),
    function() gaussian_mixture_2d(31),
    function() banana(31, overlap = 0.3),
    function() ball_dissimilarities(n_per_class = 10)
  )
  for (f in gens) {
    expect_identical(draw(11, f), draw(11, f))
    expect_false(identical(draw(11, f), draw(12, f)))
  }
  expect_identical(xor4(), xor4())
})

test_that("bad inputs give krein errors naming the argument", {
  bad <- function(expr, arg) {
    expect_error(expr, class = "krein_error", regexp = paste0("`", arg, "`"))
  }
  bad(checkerboard(0), "n")
  bad(checkerboard(2.5), "n")
  bad(checkerboard("a"), "n")
  bad(checkerboard(c(10, 20)), "n")
  bad(checkerboard(NA), "n")
  bad(checkerboard(10, size = 1), "size")
  bad(checkerboard(10, size = 3.5), "size")
  bad(checkerboard(10, range = c(2, -2)), "range")
  bad(checkerboard(10, range = c(1, 1)), "range")
  bad(checkerboard(10, range = 1), "range")
  bad(checkerboard(10, range = c(-Inf, 2)), "range")
  bad(checkerboard(10, range = c(NA, 2)), "range")
  bad(checkerboard(10, range = "a"), "range")

  bad(sine_populations(0), "n_per_class")
  bad(sine_populations(1.5), "n_per_class")
  bad(sine_populations(10, noise = -0.1), "noise")
  bad(sine_populations(10, noise = Inf), "noise")
  bad(sine_populations(10, noise = "big"), "noise")

  bad(gaussian_mixture_2d(1), "n")
  bad(gaussian_mixture_2d(10.5), "n")
  bad(gaussian_mixture_2d(10, sd = 0), "sd")
  bad(gaussian_mixture_2d(10, sd = c(1, 2)), "sd")

  bad(banana(1), "n")
  bad(banana(-5), "n")
  bad(banana(10, overlap = -0.1), "overlap")
  bad(banana(10, overlap = 1.5), "overlap")
  bad(banana(10, overlap = NA), "overlap")

  bad(ball_dissimilarities(0), "n_per_class")
  bad(ball_dissimilarities(2.5), "n_per_class")
  bad(ball_dissimilarities(10, dim = 0), "dim")
  bad(ball_dissimilarities(10, dim = 1.5), "dim")
  bad(ball_dissimilarities(10, radii = c(5, -1)), "radii")
  bad(ball_dissimilarities(10, radii = numeric(0)), "radii")
  bad(ball_dissimilarities(10, radii = c(5, NA)), "radii")
  bad(ball_dissimilarities(10, radii = "5"), "radii")
  bad(ball_dissimilarities(10, max_tries = 0), "max_tries")
})
