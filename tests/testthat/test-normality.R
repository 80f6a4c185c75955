# kernel_normality(): paper 003 (Huang, Hwang and Lin 2005), Example 1.

test_that("kernel data of exponential data are closer to Gaussian than the data (Example 1)", {
  set.seed(1)
  x <- matrix(stats::rexp(200 * 50), 200, 50)
  result <- kernel_normality(x, kernel_rbf(gamma = 0.5 / 10^2), scale = FALSE)  # the paper's raw data
  expect_length(result$original, 50)
  expect_length(result$kernel, 200)
  expect_gt(mean(result$kernel), 100 * mean(result$original))
  expect_gt(stats::median(result$kernel), stats::median(result$original))
  # the Epanechnikov kernel of the paper as well
  epan <- kernel_normality(x, kernel_epanechnikov(10), scale = FALSE)
  expect_gt(mean(epan$kernel), 100 * mean(epan$original))
})

test_that("the p-values are those of ks.test on standardised columns", {
  set.seed(2)
  x <- matrix(stats::rnorm(60), 20, 3)
  x[, 3] <- stats::rexp(20)
  result <- kernel_normality(x, kernel_rbf(0.5), scale = FALSE)
  expected <- apply(x, 2, function(v) stats::ks.test((v - mean(v)) / stats::sd(v), "pnorm")$p.value)
  expect_equal(unname(result$original), unname(expected))
  K <- kernel_matrix(x, kernel = kernel_rbf(0.5))
  expect_equal(unname(result$kernel[5]), stats::ks.test(as.vector(scale(K[, 5])), "pnorm")$p.value)
  # precomputed kernels: kernel data only
  pre <- kernel_normality(precomputed_kernel(K))
  expect_null(pre$original)
  expect_equal(pre$kernel, result$kernel)
})

test_that("print and plot show the best, median and worst columns", {
  set.seed(3)
  x <- matrix(stats::rexp(40 * 6), 40, 6)
  result <- kernel_normality(x, kernel_rbf(0.1))
  expect_output(print(result), "median 4")
  pdf(NULL)
  on.exit(dev.off())
  expect_invisible(plot(result))
  expect_snapshot(show_error(kernel_normality(x[1:2, ], kernel_rbf(0.1))))
  expect_snapshot(show_error(kernel_normality("a")))
})

# Every function that takes data takes the models' `scale`
test_that("kernel_normality() scales as the models do", {
  set.seed(4)
  x <- cbind(stats::rexp(30) * 100, stats::rnorm(30))
  expect_equal(kernel_normality(x, kernel_rbf(0.5))$kernel,
               kernel_normality(scale(x), kernel_rbf(0.5), scale = FALSE)$kernel, tolerance = 1e-10)
  expect_equal(kernel_normality(x)$kernel, kernel_normality(scale(x), scale = FALSE)$kernel, tolerance = 1e-10)
})
