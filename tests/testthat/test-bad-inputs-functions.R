# The exported functions that are not models (kernels,
# kernel_matrix(), landmarks, Nystroem, kernel_mahalanobis(),
# kernel_discriminant(), tune_krein(), precomputed kernels and
# dissimilarities, indefiniteness and normality diagnostics, generators,
# plots) against the cases of helper-bad-inputs.R that apply to them. Each
# case must end in a krein_error or a finite, valid result; a failure names
# the case and what happened.

test_that("functions that are not models: bad arguments end in a krein_error or a valid result", {
  expect_bad_cases(bad_input_cases_nonmodels())
})

test_that("kernels on bad data, and predictions of Nystroem and dissimilarity objects", {
  expect_bad_cases(bad_input_cases_kernel_data())
})

test_that("reproducers of bad and extreme input end in a krein_error or a valid result", {
  expect_bad_cases(bad_input_cases_reproducers())
})

test_that("objects as x: bad strings, kernels that cannot compare them, bad new objects", {
  expect_bad_cases(bad_input_cases_objects())
})

test_that("a refused value is described by what is wrong with it: a factor is not its labels, NA and Inf are named", {
  expect_identical(krein:::describe_value(factor(c("ab", "cd"))), "a factor of length 2")
  expect_identical(krein:::describe_value(factor("ab")), "the factor \"ab\"")
  expect_identical(krein:::describe_value(c(1, NA)), "a double vector of length 2 with missing values (NA)")
  expect_identical(krein:::describe_value(c(1, -Inf)), "a double vector of length 2 with infinite values")
  expect_identical(krein:::describe_value(c(1, 2)), "a double vector of length 2")
  # as the messages say it: a point with an NA is not called "not a double
  # vector of length 2" (which it is), nor strings as a factor "not a
  # character vector"
  set.seed(1)
  d <- xor4()
  expect_error(plot_kernel_map(kernel_rbf(1), point = c(0.5, NA), x = d[, 1:2], y = d$y), class = "krein_error",
               regexp = "not a double vector of length 2 with missing values (NA)", fixed = TRUE)
  expect_error(kernel_matrix(kernel_dissimilarity(utils::adist), c("ab", "cd"), factor(c("ab", "cd"))),
               class = "krein_error", regexp = "not a factor of length 2", fixed = TRUE)
})
