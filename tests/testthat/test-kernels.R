# Every built-in kernel against its plain-R transcription (helper-reference_classifiers.R),
# for x = y (symmetric path: one triangle computed, then mirrored) and x != y.

set.seed(42)
x <- matrix(rnorm(40 * 3), 40, 3)
y <- matrix(rnorm(25 * 3), 25, 3)

kernel_cases <- list(
  linear = list(kernel_linear(), ref_linear),
  poly = list(kernel_poly(degree = 3, scale = 0.5, offset = 1), ref_poly(3, 0.5, 1)),
  poly_fractional = list(kernel_poly(degree = 2.5, scale = 0.1, offset = 2), ref_poly(2.5, 0.1, 2)),
  rbf = list(kernel_rbf(gamma = 0.7), ref_rbf(0.7)),
  rbf_diag = list(kernel_rbf_diag(scales = c(0.5, 2, 10)), ref_rbf_diag(c(0.5, 2, 10))),
  epanechnikov = list(kernel_epanechnikov(width = 2), ref_epanechnikov(2)),
  elm = list(kernel_elm(sigma2 = 0.8), ref_elm(0.8)),
  tanh = list(kernel_tanh(scale = 0.3, offset = -0.5), ref_tanh(0.3, -0.5)),
  dist = list(kernel_dist(s = 2, power = 1), ref_dist(2, 1)),
  dist_power4 = list(kernel_dist(s = 5, power = 4), ref_dist(5, 4)),
  invariant = list(kernel_invariant(kernel_rbf(gamma = 0.4)),
                   ref_invariant(ref_rbf(0.4), function(v) -v)),
  invariant_dist = list(kernel_invariant(kernel_dist(s = 3, power = 4)),
                        ref_invariant(ref_dist(3, 4), function(v) -v)),
  invariant_swap = list(kernel_invariant(kernel_rbf(gamma = 1), function(v) v[c(2, 1, 3)]),
                        ref_invariant(ref_rbf(1), function(v) v[c(2, 1, 3)]))
)

for (case in names(kernel_cases)) {
  test_that(paste("kernel_matrix() equals the formula:", case), {
    kernel <- kernel_cases[[case]][[1]]
    reference <- kernel_cases[[case]][[2]]
    K_xx <- kernel_matrix(kernel, x)
    K_xy <- kernel_matrix(kernel, x, y)
    expect_equal(dim(K_xx), c(40L, 40L))
    expect_equal(dim(K_xy), c(40L, 25L))
    expect_lt(relative_error(K_xx, reference_kernel_matrix(reference, x)), 1e-12)
    expect_lt(relative_error(K_xy, reference_kernel_matrix(reference, x, y)), 1e-12)
    expect_true(isSymmetric(K_xx, tol = 0))
  })
}

test_that("the ELM kernel matches values worked out from its formula", {
  # x = (1, 0), z = (0, 1), sigma2 = 0.5: c = 1/(2 * 0.5) + 1 = 2,
  # k = (2/pi) asin((1 + 0) / sqrt((2 + 1)(2 + 1))) = (2/pi) asin(1/3)
  # k(x, x) = (2/pi) asin(2 / 3)
  pts <- rbind(c(1, 0), c(0, 1))
  K <- kernel_matrix(kernel_elm(sigma2 = 0.5), pts)
  expect_equal(K[1, 2], (2 / pi) * asin(1 / 3), tolerance = 1e-14)
  expect_equal(K[1, 1], (2 / pi) * asin(2 / 3), tolerance = 1e-14)
  # k(0, 0) with the default sigma2 = 1e10: (2/pi) asin(1 / (1 + 1/(2e10)))
  expect_equal(kernel_matrix(kernel_elm(), matrix(0, 1, 2))[1, 1],
               (2 / pi) * asin(1 / (1 + 0.5e-10)), tolerance = 1e-9)
})

test_that("the ELM kernel with paper 002's sigma2 = 1e10 equals the formula", {
  # Off the diagonal the formula is well conditioned: 1e-12 as for every kernel.
  # On the diagonal the ratio inside asin() is 1 - 5e-11, where asin's slope is
  # 1 / sqrt(2 * 5e-11) = 1e5: rounding in the last bit of the ratio (R's
  # long-double sum() against a vectorised dot product) moves the value by
  # about 1e-11 however it is computed, so the diagonal is compared to 1e-9.
  K_xx <- kernel_matrix(kernel_elm(), x)
  reference <- reference_kernel_matrix(ref_elm(1e10), x)
  off <- row(K_xx) != col(K_xx)
  expect_lt(max(abs(K_xx[off] - reference[off])) / max(abs(reference)), 1e-12)
  expect_lt(max(abs(diag(K_xx) - diag(reference))), 1e-9)
  expect_lt(relative_error(kernel_matrix(kernel_elm(), x, y),
                           reference_kernel_matrix(ref_elm(1e10), x, y)), 1e-12)
})

test_that("the invariant kernel is symmetric and invariant to the reflection", {
  kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
  K <- kernel_matrix(kernel, x)
  expect_true(isSymmetric(K, tol = 0))
  # paper 000 Sec. V-B: k_bar(x, -x') = k_bar(x, x')
  expect_equal(kernel_matrix(kernel, x, -y), kernel_matrix(kernel, x, y), tolerance = 1e-14)
})

test_that("a transform that breaks symmetry is refused, not silently mirrored", {
  shift <- kernel_invariant(kernel_rbf(1), function(v) v + 1)
  expect_error(kernel_matrix(shift, x), class = "krein_error", regexp = "`transform`")
})

test_that("distances stay exact far from the origin", {
  far <- x[1:5, ] + 1e8
  K <- kernel_matrix(kernel_rbf(gamma = 0.7), far)
  expect_lt(relative_error(K, reference_kernel_matrix(ref_rbf(0.7), x[1:5, ])), 1e-6)
})

test_that("threads do not change the result", {
  big <- matrix(rnorm(400 * 4), 400)
  for (kernel in list(kernel_rbf(0.5), kernel_poly(2), kernel_invariant(kernel_rbf(0.5)))) {
    expect_identical(kernel_matrix(kernel, big, threads = 1), kernel_matrix(kernel, big, threads = 2))
  }
})

test_that("a kernel matrix of 64 MB or more, whose pages are faulted in first, equals the formula", {
  # memory.hpp's populate() runs for outputs of at least 64 MB (8.4e6
  # values) on each thread's slice, before the engine writes: 3000 x 2800
  # values, 67 MB, on 1 and 2 threads; the symmetric path (one triangle,
  # then mirrored) at 2900 x 2900
  set.seed(3)
  a <- matrix(rnorm(3000 * 2), 3000)
  b <- matrix(rnorm(2800 * 2), 2800)
  reference <- exp(-0.7 * outer(rowSums(a^2), rowSums(b^2), `+`) + 1.4 * tcrossprod(a, b))
  for (threads in 1:2) {
    K <- kernel_matrix(kernel_rbf(0.7), a, b, threads = threads)
    expect_gt(8 * length(K), 2^26)
    expect_lt(relative_error(K, reference), 1e-12)
  }
  square <- kernel_matrix(kernel_rbf(0.7), a[1:2900, ], threads = 2)
  expect_identical(square, kernel_matrix(kernel_rbf(0.7), a[1:2900, ], a[1:2900, ], threads = 2))
  expect_true(isSymmetric(square, tol = 0))
})

test_that("a built-in kernel matrix is checked in the engine, not copied again in R", {
  # A check for NaN and Inf in R on the finished matrix, with range(), would
  # copy it: twice the memory and, at n = 5000, more time than computing the
  # matrix. The peak of R's vector heap while one matrix is computed must
  # stay near one matrix.
  big <- matrix(rnorm(600 * 3), 600)
  for (kernel in list(kernel_rbf(0.5), kernel_poly(2), kernel_invariant(kernel_dist(s = 1, power = 2)))) {
    kernel_matrix(kernel, big)
    before <- gc(reset = TRUE)["Vcells", "used"]
    K <- kernel_matrix(kernel, big)
    peak <- gc()["Vcells", "max used"] - before
    expect_lt(peak, 1.5 * length(K))
    rm(K)
  }
})

test_that("data frames, vectors and names are accepted", {
  df <- data.frame(a = x[1:5, 1], b = x[1:5, 2], c = x[1:5, 3], row.names = letters[1:5])
  K <- kernel_matrix(kernel_rbf(1), df)
  expect_equal(dimnames(K), list(letters[1:5], letters[1:5]))
  expect_equal(unname(K), kernel_matrix(kernel_rbf(1), x[1:5, ]))
  expect_equal(dim(kernel_matrix(kernel_linear(), 1:3)), c(3L, 3L))
})

test_that("R functions and kernlab kernels take the slow path and agree", {
  f <- function(a, b) exp(-0.7 * sum((a - b)^2))
  expect_equal(kernel_matrix(f, x, y), kernel_matrix(kernel_rbf(0.7), x, y), tolerance = 1e-14)
  expect_equal(kernel_matrix(f, x[1:6, ]), kernel_matrix(kernel_rbf(0.7), x[1:6, ]), tolerance = 1e-14)
  expect_equal(kernel_matrix(kernel_invariant(f), x[1:6, ]),
               kernel_matrix(kernel_invariant(kernel_rbf(0.7)), x[1:6, ]), tolerance = 1e-14)
  skip_if_not_installed("kernlab")
  # kernlab's rbfdot(sigma) is exp(-sigma ||x - x'||^2)
  expect_equal(kernel_matrix(kernlab::rbfdot(sigma = 0.7), x, y),
               kernel_matrix(kernel_rbf(0.7), x, y), tolerance = 1e-12)
})

test_that("the median heuristic sets gamma from the training data", {
  d2 <- as.vector(dist(x)^2)
  expect_equal(median_gamma(x), 1 / median(d2))
  expect_equal(kernel_matrix(kernel_rbf(), x, y), kernel_matrix(kernel_rbf(1 / median(d2)), x, y))
  # more than 1000 rows: evenly spaced rows, deterministic, RNG untouched
  big <- matrix(rnorm(3000 * 2), ncol = 2)
  seed_before <- .Random.seed
  g1 <- median_gamma(big)
  expect_identical(.Random.seed, seed_before)
  expect_identical(g1, median_gamma(big))
})

test_that("kernel_rbf_diag(scales = NULL) uses ten times the variances (paper 003)", {
  expect_equal(kernel_matrix(kernel_rbf_diag(), x, y),
               kernel_matrix(kernel_rbf_diag(10 * apply(x, 2, var)), x, y))
})

test_that("kernels print their formula and parameters", {
  expect_snapshot({
    kernel_rbf(gamma = 0.5)
    kernel_rbf()
    kernel_poly()
    kernel_tanh()
    kernel_invariant(kernel_dist(s = 1, power = 4))
  })
})

test_that("bad kernel parameters are krein_errors naming the argument", {
  expect_snapshot(show_error(kernel_rbf(gamma = -1)))
  expect_error(kernel_rbf(gamma = 0), class = "krein_error", regexp = "`gamma`")
  expect_error(kernel_rbf(gamma = NA), class = "krein_error", regexp = "`gamma`")
  expect_error(kernel_rbf(gamma = Inf), class = "krein_error", regexp = "`gamma`")
  expect_error(kernel_rbf(gamma = "a"), class = "krein_error", regexp = "`gamma`")
  expect_error(kernel_rbf(gamma = c(1, 2)), class = "krein_error", regexp = "`gamma`")
  expect_error(kernel_poly(degree = -1), class = "krein_error", regexp = "`degree`")
  expect_error(kernel_poly(scale = NA), class = "krein_error", regexp = "`scale`")
  expect_error(kernel_poly(offset = Inf), class = "krein_error", regexp = "`offset`")
  expect_snapshot(show_error(kernel_rbf_diag(scales = c(1, -2))))
  expect_error(kernel_rbf_diag(scales = c(1, NA)), class = "krein_error", regexp = "`scales`")
  expect_error(kernel_epanechnikov(), class = "krein_error", regexp = "`width`")
  expect_error(kernel_epanechnikov(width = -1), class = "krein_error", regexp = "`width`")
  expect_error(kernel_elm(sigma2 = 0), class = "krein_error", regexp = "`sigma2`")
  expect_error(kernel_tanh(scale = NaN), class = "krein_error", regexp = "`scale`")
  expect_error(kernel_tanh(offset = "1"), class = "krein_error", regexp = "`offset`")
  expect_error(kernel_dist(), class = "krein_error", regexp = "`s`")
  expect_error(kernel_dist(s = -2), class = "krein_error", regexp = "`s`")
  expect_error(kernel_dist(s = 1, power = 0), class = "krein_error", regexp = "`power`")
  expect_error(kernel_invariant(), class = "krein_error", regexp = "`base`")
  expect_error(kernel_invariant("rbf"), class = "krein_error", regexp = "`base`")
  expect_error(kernel_invariant(kernel_rbf(1), transform = 3), class = "krein_error",
               regexp = "`transform`")
  expect_error(kernel_invariant(kernel_invariant(kernel_rbf(1))), class = "krein_error",
               regexp = "`base`")
  expect_error(median_gamma(matrix(1, 3, 2)), class = "krein_error", regexp = "`x`")
  expect_error(median_gamma(matrix(1, 1, 2)), class = "krein_error", regexp = "`x`")
})

test_that("bad inputs to kernel_matrix() are krein_errors naming the argument", {
  expect_snapshot(show_error(kernel_matrix(kernel_rbf(1), data.frame(a = 1:3, b = letters[1:3]))))
  expect_snapshot(show_error(kernel_matrix(kernel_rbf(1), rbind(c(1, 2), c(NA, 1)))))
  expect_snapshot(show_error(kernel_matrix(kernel_rbf(1), x, y[, 1:2])))
  expect_error(kernel_matrix(kernel_rbf(1), rbind(c(1, 2), c(Inf, 1))), class = "krein_error",
               regexp = "`x`.*infinite")
  expect_error(kernel_matrix(kernel_rbf(1), x, rbind(c(1, NA, 2))), class = "krein_error",
               regexp = "`y`")
  expect_error(kernel_matrix(kernel_rbf(1), "a"), class = "krein_error", regexp = "`x`")
  expect_error(kernel_matrix(kernel_rbf(1), matrix(numeric(0), 0, 2)), class = "krein_error",
               regexp = "`x`")
  expect_error(kernel_matrix(kernel_rbf(1), list(1, 2)), class = "krein_error", regexp = "`x`")
  expect_error(kernel_matrix("rbf", x), class = "krein_error", regexp = "`kernel`")
  expect_error(kernel_matrix(kernel = , x = x), class = "krein_error", regexp = "`kernel`")
  expect_error(kernel_matrix(function(a) 1, x), class = "krein_error", regexp = "`kernel`")
  expect_error(kernel_matrix(function(a, b) c(1, 2), x[1:3, ]), class = "krein_error",
               regexp = "`kernel`")
  expect_error(kernel_matrix(function(a, b) NA_real_, x[1:3, ]), class = "krein_error",
               regexp = "`kernel`")
  expect_error(kernel_matrix(kernel_rbf_diag(c(1, 2)), x), class = "krein_error",
               regexp = "`scales`")
  expect_error(kernel_matrix(kernel_rbf(1), x, threads = -1), class = "krein_error",
               regexp = "`threads`")
  expect_error(kernel_matrix(kernel_rbf(1), x, threads = 1.5), class = "krein_error",
               regexp = "`threads`")
  expect_error(kernel_matrix(kernel_invariant(kernel_rbf(1), function(v) v[1]), x),
               class = "krein_error", regexp = "`transform`")
  expect_error(kernel_matrix(kernel_invariant(kernel_rbf(1), function(v) v * NA), x),
               class = "krein_error", regexp = "`transform`")
})

test_that("an error inside a user's kernel function is a krein error saying where it happened", {
  x <- matrix(c(1, 2, 3, 4, 5, 6), 3)
  failing <- function(a, b) if (a[1] == 3) stop("no kernel value for this one") else sum(a * b)
  err <- expect_error(kernel_matrix(failing, x), class = "krein_user_function_error")
  expect_s3_class(err, "krein_error")
  # both triangles are evaluated (an asymmetric function is symmetrised),
  # column by column: (3, 1) is the first pair with row 3
  expect_match(conditionMessage(err), "The kernel function failed on rows 3 and 1: no kernel value for this one",
               fixed = TRUE)
  # its own checks keep their messages
  expect_error(kernel_matrix(function(a, b) NA_real_, x), class = "krein_error",
               regexp = "must return one finite number")
  set.seed(1)
  d <- gaussian_mixture_2d(20)
  expect_error(kqd(as.matrix(d[, 1:2]), d$y, kernel = function(a, b) stop("boom")),
               class = "krein_user_function_error", regexp = "boom")
})

test_that("kernel_dissimilarity() checks its arguments, prints, and refuses numeric data", {
  expect_snapshot({
    kernel_dissimilarity(adist)
    kernel_dissimilarity(adist, method = "negsq")
  })
  expect_error(kernel_dissimilarity(), class = "krein_error", regexp = "`dissimilarity` is missing")
  expect_error(kernel_dissimilarity(adist, method = "cosine"), class = "krein_error", regexp = "`method`")
  expect_error(kernel_dissimilarity(adist, gamma = 0), class = "krein_error", regexp = "`gamma`")
  expect_error(kernel_dissimilarity(adist, pairwise = NA), class = "krein_error", regexp = "`pairwise`")
  expect_error(kernel_matrix(kernel_dissimilarity(adist), matrix(1:4, 2)), class = "krein_error",
               regexp = "compares objects")
  expect_error(kernel_matrix(kernel_rbf(1), c("ab", "cd")), class = "krein_error", regexp = "numeric coordinates")
  expect_error(kernel_matrix(kernel_dissimilarity(adist), c("ab", NA)), class = "krein_error", regexp = "missing")
  # an R function of two objects on a list
  K <- kernel_matrix(function(a, b) length(intersect(a, b)), list(1:3, 2:5, 7))
  expect_equal(K, matrix(c(3, 2, 0, 2, 4, 0, 0, 0, 1), 3))
})

test_that("kernel_rbf(heuristic = \"dimension\") takes gamma = 1/p from the data (isvm()'s and pcvm()'s default)", {
  # libsvm's and e1071's width; kernel_rbf() itself keeps the median
  # heuristic
  x <- matrix(c(0, 1, 3, 0, 2, 1, 1, 1, 0), 3)
  kernel <- kernel_rbf(heuristic = "dimension")
  expect_equal(kernel_matrix(kernel, x), exp(-as.matrix(stats::dist(x))^2 / 3), ignore_attr = TRUE,
               tolerance = 1e-12)
  expect_output(print(kernel), "gamma = <1 / number of input columns>")
  expect_identical(kernel_rbf(heuristic = "median"), kernel_rbf())
  expect_identical(kernel_rbf(2, heuristic = "dimension"), kernel_rbf(2))
  expect_error(kernel_rbf(heuristic = "mean"), class = "krein_error", regexp = "`heuristic`")
  # tune_krein()'s default width grid is centred on the kernel's own rule
  expect_equal(default_kernel_grid(kernel, x, 3)$gamma, c(1 / 32, 1, 32) / 3)
  expect_identical(formals(isvm.default)$kernel, quote(kernel_rbf(heuristic = "dimension")))
})

test_that("a cross-kernel in row blocks equals the symmetric matrix bit for bit; exp within 4 ulp", {
  # kernel_matrix(x, y) runs over blocks of rows (all columns per block),
  # kernel_matrix(x) over columns of the upper triangle: each value is a
  # function of its pair alone, so the two agree exactly. 2100 rows: more
  # than one block of 2048, and a last block not a multiple of 256.
  set.seed(3)
  x <- matrix(rnorm(2100 * 2), 2100, 2)
  for (kernel in list(kernel_rbf(0.7), kernel_dist(s = 2, power = 1.5), kernel_rbf_diag(scales = c(0.5, 3)),
                      kernel_epanechnikov(width = 2))) {
    whole <- kernel_matrix(kernel, x, threads = 2)
    for (threads in 1:2) {
      expect_identical(kernel_matrix(kernel, x, x[1:37, ], threads = threads), whole[, 1:37])
    }
  }
  # Eigen's vectorised exp against R's exp() of the same exponents
  y <- x[1:50, ]
  d2 <- matrix(0, nrow(x), 50)
  for (k in 1:50) d2[, k] <- (x[, 1] - y[k, 1])^2 + (x[, 2] - y[k, 2])^2
  K <- kernel_matrix(kernel_rbf(3), x, y)
  ulp <- abs(K - exp(-3 * d2)) / (.Machine$double.eps * exp(-3 * d2))
  expect_lte(max(ulp), 4)
})
