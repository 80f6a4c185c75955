test_that("a matrix with known spectrum gives its signature and r_neg", {
  values <- c(4, 2, 1, 0, 0, -0.5, -3)
  ind <- indefiniteness(matrix_with_spectrum(values))
  expect_s3_class(ind, "krein_indefiniteness")
  expect_equal(ind$signature, c(p = 3L, q = 2L, z = 2L))
  # paper 000 Sec. V-B: r_neg = sum |negative| / sum |all|
  expect_equal(ind$r_neg, 3.5 / 10.5, tolerance = 1e-12)
  expect_equal(ind$values, sort(values, decreasing = TRUE), tolerance = 1e-12)
})

test_that("the eigenvalues agree with base eigen() and the tolerance is honoured", {
  set.seed(3)
  K <- kernel_matrix(kernel_tanh(scale = 1, offset = -1), matrix(rnorm(60), 30))
  ind <- indefiniteness(K)
  expect_equal(ind$values, eigen(K, symmetric = TRUE, only.values = TRUE)$values, tolerance = 1e-10)
  expect_equal(sum(ind$signature), 30L)
  loose <- indefiniteness(K, tol = 0.5)
  expect_equal(loose$signature[["z"]], sum(abs(ind$values) <= 0.5 * max(abs(ind$values))))
})

test_that("a positive definite kernel has q = 0 and r_neg near 0", {
  set.seed(4)
  ind <- indefiniteness(kernel_matrix(kernel_rbf(0.5), matrix(rnorm(80), 40)))
  expect_equal(ind$signature[["q"]], 0L)
  expect_lt(ind$r_neg, 1e-12)
})

test_that("center = TRUE analyses H K H", {
  set.seed(5)
  K <- kernel_matrix(kernel_tanh(), matrix(rnorm(40), 20))
  H <- diag(20) - 1 / 20
  expect_equal(indefiniteness(K, center = TRUE)$values,
               eigen(H %*% K %*% H, symmetric = TRUE, only.values = TRUE)$values, tolerance = 1e-10)
  # centring removes the constant direction: at least one zero eigenvalue
  expect_gte(indefiniteness(K, center = TRUE)$signature[["z"]], 1L)
})

test_that("print and plot work and return their input invisibly", {
  ind <- indefiniteness(matrix_with_spectrum(c(3, 1, -1)))
  expect_snapshot(print(ind))
  path <- tempfile(fileext = ".pdf")
  grDevices::pdf(path)
  on.exit(grDevices::dev.off())
  expect_identical(withVisible(plot(ind))$visible, FALSE)
  expect_invisible(plot(ind, log = TRUE))
  expect_error(plot(ind, log = NA), class = "krein_error", regexp = "`log`")
  expect_error(plot(ind, col = "red"), class = "krein_error", regexp = "`col`")
})

test_that("bad input to indefiniteness() is a krein_error naming the argument", {
  expect_snapshot(show_error(indefiniteness(matrix(1:6, 2))))
  expect_snapshot(show_error(indefiniteness(matrix(c(1, 2, 3, 4), 2))))
  expect_error(indefiniteness(matrix(c(1, NA, NA, 1), 2)), class = "krein_error", regexp = "`K`")
  expect_error(indefiniteness(matrix(c(1, Inf, Inf, 1), 2)), class = "krein_error", regexp = "`K`")
  expect_error(indefiniteness("K"), class = "krein_error", regexp = "`K`")
  expect_error(indefiniteness(diag(2), center = NA), class = "krein_error", regexp = "`center`")
  expect_error(indefiniteness(diag(2), tol = -1), class = "krein_error", regexp = "`tol`")
})
