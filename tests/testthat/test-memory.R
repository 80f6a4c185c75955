# The memory check of the full forms (R/memory.R): before a fit allocates its
# first n x n matrix, its estimated peak (the model's measured number of n x n
# matrices of doubles) is compared with the memory krein may use; a fit over
# the limit stops at once with the estimate, the limit and what to do.

memory_data <- function(n = 60) {
  set.seed(3)
  d <- gaussian_mixture_2d(n)
  list(x = as.matrix(d[, 1:2]), y = d$y)
}

memory_needs <- list(isvm = "kernlab", krein_svm = "kernlab")

# the arguments that ask a model for its full form: `landmarks = NULL`
# (kfda: `reduce = "pca"`), or none for a model with one form
full_form_arguments <- function(name) krein:::model_info(name)$forms$full %||% list()

test_that("every full form is refused over the limit, before it allocates, with the estimate", {
  d <- memory_data()
  withr::local_options(krein.memory_limit = 1e4)
  full <- 0L
  for (name in krein:::registered_models()) {
    for (pkg in memory_needs[[name]]) skip_if_not_installed(pkg)
    info <- krein:::model_info(name)
    asked <- full_form_arguments(name)
    if (!isTRUE(info$full_form(utils::modifyList(krein:::model_defaults(name), asked)))) next
    # iknn()'s full form holds no n x n matrix (a pass over blocks of rows)
    if (info$full_copies == 0) next
    full <- full + 1L
    copies <- info$full_copies
    estimate <- krein:::format_bytes(copies * 8 * 60^2)
    fun <- get(name, envir = asNamespace("krein"))
    expect_error(do.call(fun, c(list(d$x, d$y), asked)), class = "krein_memory_error",
                 regexp = sprintf("%s() would hold about %s for its 60 training rows", name, estimate), fixed = TRUE)
    # the same for the formula interface and a precomputed kernel
    expect_error(do.call(fun, c(list(y ~ ., data = data.frame(d$x, y = d$y)), asked)), class = "krein_memory_error")
    expect_error(do.call(fun, c(list(precomputed_kernel(kernel_matrix(kernel_rbf(1), d$x)), d$y), asked)),
                 class = "krein_memory_error")
  }
  # all but onda(), which works on the features, and iknn(), whose full form
  # fits under any limit: no n x n matrix
  expect_identical(full, length(krein:::registered_models()) - 2L)
  fit <- iknn(d$x, d$y, landmarks = NULL)
  expect_identical(fit$form$kind, "full")
  expect_identical(fit$k, iknn(d$x, d$y, landmarks = seq_len(60))$k)
})

test_that("a model left to choose its form takes the Nystroem form where the full one would not fit", {
  d <- memory_data()
  withr::local_options(krein.memory_limit = 1e4)
  chosen <- 0L
  for (name in krein:::registered_models()) {
    for (pkg in memory_needs[[name]]) skip_if_not_installed(pkg)
    if (is.null(krein:::model_info(name)$forms) || krein:::model_info(name)$full_copies == 0) next
    chosen <- chosen + 1L
    fun <- get(name, envir = asNamespace("krein"))
    fit <- suppressWarnings(fun(d$x, d$y))
    expect_identical(fit$form$kind, "nystrom", info = name)
    expect_identical(fit$form$chosen, "memory", info = name)
    expect_match(krein:::form_text(fit), "chosen by memory: the full form would hold about", fixed = TRUE)
  }
  expect_gte(chosen, 5L)
})

test_that("the Nystroem forms and kfda's subset are not full forms", {
  d <- memory_data()
  withr::local_options(krein.memory_limit = 1e4)
  for (name in c("ikfd", "kqd", "pcvm")) {
    fun <- get(name, envir = asNamespace("krein"))
    expect_s3_class(suppressWarnings(fun(d$x, d$y, landmarks = c(1:5, 31:35))), name)
  }
  expect_s3_class(kfda(d$x, d$y, reduce = "subset", bases = 10), "kfda")
  expect_s3_class(onda(d$x, d$y), "onda")
  # a limit above the estimate lets the full form fit
  withr::local_options(krein.memory_limit = 1e6)
  expect_identical(kqd(d$x, d$y, landmarks = NULL)$form$kind, "full")
})

test_that("the memory limit: the option, else 80% of what the system reports available", {
  meminfo <- withr::local_tempfile(lines = c("MemTotal:       24000000 kB", "MemAvailable:   20000000 kB"))
  expect_identical(krein:::available_memory(meminfo), 1024 * 2e7)
  expect_identical(krein:::available_memory(withr::local_tempfile(lines = "MemTotal: 1 kB")), NA_real_)
  expect_identical(krein:::available_memory(tempfile()), NA_real_)
  withr::local_options(krein.memory_limit = 2^30)
  expect_identical(krein:::memory_limit(meminfo), 2^30)
  withr::local_options(krein.memory_limit = NULL)
  expect_identical(krein:::memory_limit(meminfo), 0.8 * 1024 * 2e7)
  expect_identical(krein:::memory_limit(tempfile()), Inf)
  expect_identical(krein:::format_bytes(80.5 * 1024^3), "80.5 GB")
  expect_identical(krein:::format_bytes(512 * 1024^2), "512 MB")
  expect_identical(krein:::format_bytes(100), "100 bytes")
})

test_that("a bad memory limit and a fit over it are krein errors that say what to do", {
  d <- memory_data()
  withr::local_options(krein.memory_limit = "a lot")
  expect_snapshot(show_error(kqd(d$x, d$y)))
  withr::local_options(krein.memory_limit = 1e4)
  expect_snapshot(show_error(kqd(d$x, d$y, landmarks = NULL)))
  expect_snapshot(show_error(kfda(d$x, d$y, reduce = "pca")))
  expect_snapshot(show_error(pcvm(d$x, d$y, landmarks = NULL)))
})
