# Issue 16: the exported functions that are not models (kernels,
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

test_that("the reproducers of issue 16 end in a krein_error or a valid result", {
  expect_bad_cases(bad_input_cases_issue())
})

test_that("objects as x (issue 18): bad strings, kernels that cannot compare them, bad new objects", {
  expect_bad_cases(bad_input_cases_objects())
})
