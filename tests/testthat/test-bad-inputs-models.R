# Every model, both methods (and precomputed kernels and
# dissimilarities), against the bad-input table of helper-bad-inputs.R: bad
# training data, out-of-range, missing, vector-valued and mistyped arguments,
# misbehaving kernels, bad landmarks, bad precomputed kernels and bad newdata.
# Each case must end in a krein_error or a finite, valid result; a failure
# names the case and what happened.

for (model in krein_models()$model) {
  test_that(sprintf("%s: bad input ends in a krein_error or a finite, valid fit", model), {
    if (model %in% c("isvm", "krein_svm")) skip_if_not_installed("kernlab")
    expect_bad_cases(bad_input_cases_model(model))
  })
}
