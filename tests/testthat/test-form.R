# The form of a fit (R/form.R): a model left to choose (`landmarks =
# "auto"`, kfda's `reduce = "auto"`) fits its full form up to its
# full-form limit of rows and its Nystroem form beyond; the user's own
# argument decides otherwise. The limit is lowered through the documented
# option so that the data stay small.

form_data <- function(n, seed = 5) {
  set.seed(seed)
  d <- gaussian_mixture_2d(n)
  list(x = as.matrix(d[, 1:2]), y = d$y)
}

form_needs <- list(isvm = c("kernlab", "LiblineaR"), krein_svm = c("kernlab", "LiblineaR"))

# the models that have both forms, from the registry
models_with_forms <- function() {
  Filter(function(name) !is.null(krein:::model_info(name)$forms), krein:::registered_models())
}

test_that("left to choose, every model fits its full form up to the limit and its Nystroem form above it", {
  small <- form_data(30)
  large <- form_data(80)
  new <- form_data(20, seed = 6)$x
  withr::local_options(krein.full_max_rows = 40)
  names <- models_with_forms()
  expect_true(all(c("ikfd", "kqd", "pcvm", "krein_svm", "kfda") %in% names))
  for (name in names) {
    for (pkg in form_needs[[name]]) skip_if_not_installed(pkg)
    fun <- get(name, envir = asNamespace("krein"))
    full <- suppressWarnings(fun(small$x, small$y))
    expect_identical(full$form$kind, "full", info = name)
    expect_identical(full$form$chosen, "size", info = name)
    nystrom <- suppressWarnings(fun(large$x, large$y))
    expect_identical(nystrom$form$kind, "nystrom", info = name)
    expect_identical(nystrom$form$chosen, "size", info = name)
    if (name == "kfda") {
      expect_identical(nystrom$reduce, "subset")
    } else {
      # the automatic landmarks: stratified random rows, min(300, n / 2);
      # iknn()'s prototypes min(n, 5e9 / n)
      expect_identical(nystrom$landmarks$method, "random", info = name)
      expect_length(nystrom$landmarks$class, if (name == "iknn") 80 else 40)
    }
    probabilities <- predict(nystrom, new, type = "prob")
    expect_equal(unname(rowSums(probabilities)), rep(1, nrow(new)), tolerance = 1e-12, info = name)
    expect_identical(levels(predict(nystrom, new)), levels(large$y), info = name)
  }
})

test_that("iknn()'s prototypes keep the pairs it evaluates within its budget", {
  # min(n, 5e9 / n): every row up to the full-form limit, 5,000 at 1e6
  rows <- function(n) list(y = factor(rep(c("a", "b"), length.out = n)))
  expect_identical(krein:::iknn_prototype_count(rows(80)), 80L)
  expect_identical(krein:::iknn_prototype_count(rows(1e5)), 50000L)
  expect_identical(krein:::iknn_prototype_count(rows(1e6)), 5000L)
  expect_lte(krein:::model_info("iknn")$full_max_rows^2, 5e9)
})

test_that("the user's form argument decides: NULL forces the full form, a method the Nystroem form", {
  small <- form_data(30)
  large <- form_data(80)
  withr::local_options(krein.full_max_rows = 40)
  full <- kqd(large$x, large$y, landmarks = NULL)
  expect_identical(full$form$kind, "full")
  expect_identical(full$form$chosen, "given")
  expect_null(full$landmarks)
  expect_identical(kfda(large$x, large$y, reduce = "pca")$form$kind, "full")
  expect_identical(ikfd(large$x, large$y, landmarks = NULL)$form$kind, "full")
  nystrom <- ikfd(small$x, small$y, landmarks = "random", m = 10)
  expect_identical(nystrom$form$kind, "nystrom")
  expect_identical(nystrom$form$chosen, "given")
  # kfda: `ncomp` belongs to the kernel PCA, `bases` to the subset
  by_ncomp <- kfda(large$x, large$y, ncomp = 3)
  expect_identical(by_ncomp$reduce, "pca")
  expect_identical(by_ncomp$form$chosen, "argument")
  expect_identical(kfda(small$x, small$y, bases = 10)$reduce, "subset")
  # `m` with the default sets the count of the automatic landmarks
  expect_length(ikfd(large$x, large$y, m = 12)$landmarks$class, 12)
})

test_that("print() and summary() say which form was fitted and why", {
  large <- form_data(80)
  withr::local_options(krein.full_max_rows = 40)
  set.seed(2)
  nystrom <- kqd(large$x, large$y)
  printed <- capture.output(print(nystrom))
  form_line <- grep("^Form: ", printed, value = TRUE)
  expect_length(form_line, 1L)
  expect_match(form_line, "Nystroem, 40 random landmarks -- chosen by size: 80 rows, above kqd()'s full-form limit of 40 (landmarks = NULL forces the full form)",
               fixed = TRUE)
  expect_length(grep("^Form: ", capture.output(print(summary(nystrom)))), 1L)
  full <- kqd(large$x, large$y, landmarks = NULL)
  expect_match(grep("^Form: ", capture.output(print(full)), value = TRUE), "full -- as asked (`landmarks = NULL`)",
               fixed = TRUE)
  subset <- kfda(large$x, large$y)
  expect_match(grep("^Form: ", capture.output(print(subset)), value = TRUE), "^Form: subset of 8 bases -- chosen by size")
  withr::local_options(krein.full_max_rows = NULL)
  expect_snapshot(print(kqd(large$x, large$y)))
  # onda() has one form and no form line
  expect_length(grep("^Form: ", capture.output(print(onda(large$x, large$y)))), 0L)
})

test_that("a fixed seed reproduces the automatic Nystroem form", {
  large <- form_data(80)
  new <- form_data(20, seed = 6)$x
  withr::local_options(krein.full_max_rows = 40)
  for (name in models_with_forms()) {
    for (pkg in form_needs[[name]]) skip_if_not_installed(pkg)
    fun <- get(name, envir = asNamespace("krein"))
    set.seed(11)
    a <- suppressWarnings(fun(large$x, large$y))
    set.seed(11)
    b <- suppressWarnings(fun(large$x, large$y))
    expect_identical(predict(a, new, type = "prob"), predict(b, new, type = "prob"), info = name)
  }
})

test_that("the full-form limit option is validated", {
  d <- form_data(30)
  withr::local_options(krein.full_max_rows = "many")
  expect_snapshot(show_error(kqd(d$x, d$y)))
  withr::local_options(krein.full_max_rows = -1)
  expect_error(kqd(d$x, d$y), class = "krein_error", regexp = "krein.full_max_rows")
  # a limit of 0 takes the Nystroem form for every size
  withr::local_options(krein.full_max_rows = 0)
  expect_identical(kqd(d$x, d$y)$form$kind, "nystrom")
  expect_snapshot(show_error(kqd(d$x, d$y, landmarks = "everything")))
})

test_that("?krein_forms gives every model's full-form limit as the registry holds it", {
  rd <- paste(as.character(tools::Rd_db("krein")[["krein_forms.Rd"]]), collapse = "")
  for (name in models_with_forms()) {
    limit <- format(krein:::model_info(name)$full_max_rows, big.mark = ",")
    expect_match(rd, sprintf("{%s()}} \\tab %s rows", name, limit), fixed = TRUE, info = name)
  }
})

test_that("tune_krein() and the parsnip engine pass the form on: each fit chooses by its own rows", {
  large <- form_data(80)
  withr::local_options(krein.full_max_rows = 40)
  # above the limit the folds (64 rows) and the refit (80) take the Nystroem
  # form, fitted on the rows themselves rather than on slices of a kernel
  # matrix the Nystroem form never needs
  set.seed(3)
  tuned <- tune_krein(kqd, large$x, large$y, grid = list(reg = c(1e-3, 1e-1)), folds = 5)
  expect_identical(tuned$model$form$kind, "nystrom")
  # `landmarks = NULL` passed on forces the full form in the refit too
  set.seed(3)
  full <- tune_krein(kqd, large$x, large$y, grid = list(reg = c(1e-3, 1e-1)), folds = 5, landmarks = NULL)
  expect_identical(full$model$form$kind, "full")
  expect_identical(full$model$form$chosen, "given")
  skip_if_not_installed("parsnip")
  data <- data.frame(large$x, y = large$y)
  auto <- parsnip::fit(parsnip::set_engine(parsnip::discrim_quad(), "krein"), y ~ ., data = data)
  expect_identical(auto$fit$form$kind, "nystrom")
  # a method given to the engine is passed on
  given <- parsnip::fit(parsnip::set_engine(parsnip::discrim_quad(), "krein", landmarks = "random", m = 10),
                        y ~ ., data = data)
  expect_length(given$fit$landmarks$class, 10)
})
