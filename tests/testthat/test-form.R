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

test_that("an automatic Nystroem form of the discriminants chooses its Gaussian width by held-out error", {
  # sine_populations() needs a narrower kernel than the median heuristic's
  # once there are rows to support it (bench/README.md, "The width of the
  # automatic Nystroem form")
  set.seed(8)
  d <- sine_populations(300)
  x <- as.matrix(d[, c("x1", "x2")])
  y <- d$y
  new <- as.matrix(sine_populations(25)[, c("x1", "x2")])
  withr::local_options(krein.full_max_rows = 40)
  set.seed(3)
  fit <- kqd(x, y)
  width <- fit$form$width
  expect_identical(width$multiples, c(1, 2, 4, 8, 16))
  # an independent transcription of the choice: the held-out rows are every
  # ceiling(n / 300)-th row of each class in turn (a quarter of 1,200), the
  # rest fit Ny-iKFD on 150 random landmarks at each multiple of the median
  # heuristic's gamma, drawing from the seed the fit started from
  scaled <- scale(x)
  base <- median_gamma(scaled)
  order <- unlist(split(seq_along(y), y), use.names = FALSE)
  fold <- integer(length(y))
  fold[order] <- rep_len(seq_len(ceiling(length(y) / 300)), length(y))
  held_out <- fold == 1L
  set.seed(3)
  errors <- vapply(width$multiples, function(multiple) {
    trial <- ikfd(scaled[!held_out, ], y[!held_out], kernel = kernel_rbf(gamma = base * multiple), scale = FALSE,
                  landmarks = "random", m = 150)
    mean(predict(trial, scaled[held_out, ]) != y[held_out])
  }, numeric(1))
  expect_equal(width$errors, errors)
  expect_identical(width$held_out, sum(held_out))
  # the widest kernel within one standard error of the lowest error
  best <- min(errors)
  expect_identical(width$multiple, width$multiples[which(errors <= best + sqrt(best * (1 - best) / sum(held_out)))[1]])
  expect_gt(width$multiple, 1)
  expect_equal(width$gamma, base * width$multiple)
  expect_match(capture.output(print(fit)), sprintf("^Width: gamma %g x the heuristic's %s", width$multiple, format(base, digits = 4)), all = FALSE)
  # the choice leaves R's random numbers as they were: the fit is the same
  # call with the chosen width, under the same seed
  set.seed(3)
  same <- kqd(x, y, kernel = kernel_rbf(gamma = width$gamma), landmarks = "random", m = 300)
  expect_null(same$form$width)
  expect_identical(predict(fit, new, type = "prob"), predict(same, new, type = "prob"))
  # data in chunks choose on the sample of their first chunks: here every row
  set.seed(3)
  chunked <- kqd(krein_chunks(unname(split(d, rep(1:2, each = 600))), y = "y"))
  expect_equal(chunked$form$width$errors, width$errors)
  # no choice where the width is given, the form asked for, or the model an SVM
  expect_null(kqd(x, y, kernel = kernel_rbf(0.5))$form$width)
  expect_null(kqd(x, y, landmarks = "random")$form$width)
  fewer <- seq_along(y) %% 4 != 0  # 900 rows, fewer than 1,000
  expect_null(ikpca_qd(x[fewer, ], y[fewer])$form$width)
  skip_if_not_installed("LiblineaR")
  expect_null(isvm(x, y)$form$width)
})

test_that("counts of a million rows stay exact in the Nystroem forms' arithmetic", {
  # at 1e6 training rows the products of two counts pass R's integers: the
  # merge of Ny-iKFD's leave-one-out moments over blocks and the Nystroem
  # KSVM's stratified selection of rows and iknn's stratified prototypes
  # gave NA there (bench/README.md)
  a <- list(n = 500000L, sum = c(1, 2), squares = c(0, 0))
  b <- list(n = 500000L, sum = c(3, 2), squares = c(0, 0))
  merged <- krein:::merge_loss_moments(a, b)
  # the squares of 1e6 losses, half at 2e-6 and half at 6e-6 (first column)
  expect_equal(merged$squares, c(1e6 * (2e-6)^2, 0))
  y <- factor(rep(c("a", "b", "c"), c(600000L, 300000L, 100000L)))
  rows <- krein:::selection_rows(y, 10000L)
  expect_identical(as.vector(table(y[rows])), c(6000L, 3000L, 1000L))
  # iknn's 5,000 prototypes of a million rows, stratified
  prototypes <- withr::with_seed(1, krein:::random_landmarks(y, 5000L, stratified = TRUE))
  expect_identical(as.vector(table(y[prototypes])), c(3000L, 1500L, 500L))
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
  # "none" is NULL's alias, for the interfaces that drop NULL arguments
  expect_identical(kqd(large$x, large$y, landmarks = "none")$form$kind, "full")
  skip_if_not_installed("parsnip")
  data <- data.frame(large$x, y = large$y)
  auto <- parsnip::fit(parsnip::set_engine(parsnip::discrim_quad(), "krein"), y ~ ., data = data)
  expect_identical(auto$fit$form$kind, "nystrom")
  # parsnip drops an engine argument given as NULL; "none" forces the full form
  none <- parsnip::fit(parsnip::set_engine(parsnip::discrim_quad(), "krein", landmarks = "none"), y ~ ., data = data)
  expect_identical(none$fit$form$kind, "full")
  # a method given to the engine is passed on
  given <- parsnip::fit(parsnip::set_engine(parsnip::discrim_quad(), "krein", landmarks = "random", m = 10),
                        y ~ ., data = data)
  expect_length(given$fit$landmarks$class, 10)
})
