# tune_krein(): folds, reuse, reproducibility across future plans, and the
# registry (R/contract.R) as its only source of what a model is.

test_that("folds are stratified and balanced", {
  set.seed(1)
  y <- factor(rep(c("a", "b", "c"), c(50, 30, 13)))
  ids <- krein:::draw_folds(y, 5, TRUE)
  counts <- table(ids, y)
  expect_true(all(apply(counts, 2, function(v) max(v) - min(v)) <= 1))
  expect_lte(max(table(ids)) - min(table(ids)), 1)
  set.seed(2)
  d <- checkerboard(60, size = 2)
  tuned <- tune_krein(iknn, d[, 1:2], d$y, grid = list(k = 1), folds = 4, repeats = 2, refit = FALSE)
  expect_equal(dim(tuned$fold_ids), c(60L, 2L))
  for (r in 1:2) {
    expect_true(all(apply(table(tuned$fold_ids[, r], d$y), 2, function(v) max(v) - min(v)) <= 1))
  }
})

test_that("the best grid point of a problem with a known optimum is found", {
  set.seed(3)
  d <- checkerboard(150, size = 3)
  # k = 1 follows the board; k = 100 of 120 points predicts the local majority of most of the board
  tuned <- tune_krein(iknn, d[, 1:2], d$y, grid = list(k = c(1, 100)), folds = 5, kernel = kernel_rbf(4))
  expect_equal(tuned$best$k, 1)
  # a Gaussian width matched to the squares, against widths that see nothing
  tuned <- tune_krein(kqd, d[, 1:2], d$y, grid = list(gamma = c(1e-4, 5, 1e5)), variant = "RC+", reg = 0.1,
                      folds = 5)
  expect_equal(tuned$best$gamma, 5)
  expect_s3_class(tuned$model, "kqd")
  expect_lt(tuned$best_value, 0.3)
})

test_that("the kqd regularisation path in the grid equals separate fits", {
  set.seed(4)
  d <- checkerboard(100, size = 2)
  regs <- c(1e-3, 1e-2, 0.1, 1)
  tuned <- tune_krein(kqd, d[, 1:2], d$y, grid = list(reg = regs), variant = "FK+", kernel = kernel_rbf(2),
                      folds = 4, refit = FALSE)
  ids <- tuned$fold_ids[, 1]
  for (i in seq_along(regs)) {
    errors <- vapply(1:4, function(f) {
      fit <- kqd(d[ids != f, 1:2], d$y[ids != f], kernel = kernel_rbf(2), variant = "FK+", reg = regs[i])
      mean(predict(fit, d[ids == f, 1:2]) != d$y[ids == f])
    }, numeric(1))
    got <- tuned$folds$value[tuned$folds$grid_row == i][order(tuned$folds$fold[tuned$folds$grid_row == i])]
    expect_equal(got, errors)
    expect_equal(tuned$results$mean[i], mean(errors))
  }
})

test_that("the same seed gives the same result, and the caller's random stream moves only by the draws", {
  set.seed(5)
  d <- checkerboard(80, size = 2)
  run <- function() {
    set.seed(11)
    tune_krein(kfda, d[, 1:2], d$y, grid = list(bases = c(10, 20)), reduce = "subset",
               kernel = kernel_rbf(2), folds = 4, metric = "brier", refit = FALSE)
  }
  a <- run()
  b <- run()
  expect_identical(a$results, b$results)
  expect_identical(a$fold_ids, b$fold_ids)
})

test_that("sequential and multisession plans give identical results", {
  skip_on_cran()
  skip_if_not_installed("future.apply")
  skip_if_not_installed("future")
  set.seed(6)
  d <- checkerboard(80, size = 2)
  run <- function() {
    set.seed(12)
    tune_krein(kfda, d[, 1:2], d$y, grid = list(bases = c(8, 16), gamma = c(1, 4)), reduce = "subset",
               folds = 4, metric = "logloss", refit = FALSE)
  }
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  sequential <- run()
  future::plan(future::multisession, workers = 2)
  parallel <- run()
  expect_identical(parallel$results, sequential$results)
  expect_identical(parallel$folds, sequential$folds)
})

test_that("failing fits count as missing, with a warning", {
  set.seed(7)
  d <- sine_populations(20)
  expect_warning(
    tuned <- tune_krein(kfda, d[, 1:2], d$y, grid = list(ncomp = c(3, 40)), discriminant = "quadratic",
                        kernel = kernel_rbf(1), folds = 3, refit = FALSE),
    "fits failed")
  expect_equal(tuned$results$failed, c(0, 3))
  expect_equal(tuned$best$ncomp, 3)
})

test_that("print, summary and plot", {
  set.seed(8)
  d <- checkerboard(60, size = 2)
  tuned <- suppressWarnings(tune_krein(kqd, d[, 1:2], d$y, grid = list(gamma = c(0.5, 2, 8), reg = 10^(-2:0)),
                                       folds = 3))
  expect_output(expect_invisible(print(tuned)), "best: gamma")
  expect_output(print(summary(tuned)), "grid points by mean")
  pdf(NULL)
  on.exit(dev.off())
  expect_invisible(plot(tuned))
})

test_that("bad input gives a krein_error", {
  d <- checkerboard(30, size = 2)
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y, grid = list())))
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y, grid = data.frame(reg = numeric()))))
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y, grid = list(lambda = 1))))
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y, grid = list(reg = 1), folds = 1)))
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y, grid = list(reg = 1), folds = 31)))
  expect_snapshot(show_error(tune_krein(lm, d[, 1:2], d$y, grid = list(reg = 1))))
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y[-1], grid = list(reg = 1))))
  K <- kernel_matrix(kernel_rbf(1), d[, 1:2])
  expect_snapshot(show_error(tune_krein(kqd, precomputed_kernel(K), d$y, grid = list(gamma = 1))))
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y, grid = list(reg = 1), regg = 2)))
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y, grid = list(reg = 1), reg = 2)))
  expect_snapshot(show_error(tune_krein(kqd, d[, 1:2], d$y, grid = list(reg = 1), 2)))
  expect_snapshot(show_error(tune_krein(grid = list(reg = 1))))
  # a model on the input features takes no kernel
  expect_snapshot(show_error(tune_krein(onda, d[, 1:2], d$y, grid = list(posterior = "linear"),
                                        kernel = kernel_rbf())))
  expect_snapshot(show_error(tune_krein(onda, precomputed_kernel(K), d$y, grid = list(posterior = "linear"))))
  expect_snapshot(show_error(tune_krein(onda, d[, 1:2], d$y, grid = list(gamma = 1))))
})

test_that("a grid data frame with factor columns, as expand.grid() makes them", {
  set.seed(9)
  d <- checkerboard(60, size = 2)
  tuned <- tune_krein(kqd, d[, 1:2], d$y, grid = expand.grid(variant = c("RC+", "FK+"), reg = 0.1),
                      folds = 3, refit = FALSE)
  expect_true(tuned$best$variant %in% c("RC+", "FK+"))
})

test_that("the refitted model's call names the best parameters, the kernel written out", {
  set.seed(10)
  d <- checkerboard(60, size = 2)
  tuned <- tune_krein(kqd, d[, 1:2], d$y, grid = list(gamma = c(1, 4), reg = c(0.01, 0.1)), variant = "RC+",
                      folds = 3)
  best <- tuned$best
  expect_identical(tuned$model$call,
                   call("kqd", x = quote(d[, 1:2]), y = quote(d$y), kernel = call("kernel_rbf", gamma = best$gamma),
                        variant = "RC+", reg = best$reg))
  # evaluating it gives the same model
  again <- eval(tuned$model$call)
  expect_equal(predict(again, d[1:10, 1:2], type = "prob"), predict(tuned$model, d[1:10, 1:2], type = "prob"))
  # an untuned kernel stays as the user wrote it
  k <- kernel_rbf(2)
  tuned <- tune_krein(kqd, d[, 1:2], d$y, grid = list(reg = c(0.01, 0.1)), kernel = k, folds = 3)
  expect_identical(tuned$model$call, call("kqd", x = quote(d[, 1:2]), y = quote(d$y), kernel = quote(k),
                                          reg = tuned$best$reg))
})

test_that("a model on the input features is tuned on them, with a paper's class rule", {
  set.seed(16)
  d <- checkerboard(90, size = 2)
  x <- as.matrix(d[, 1:2])
  tuned <- tune_krein(onda, x, d$y, grid = list(posterior = c("linear", "gaussian")), rule = "nearest_mean",
                      folds = 3)
  expect_identical(tuned$results$failed, c(0, 0))
  expect_s3_class(tuned$model, "onda")
  expect_null(tuned$model$spec$kernel)  # no kernel: NULL, as for precomputed fits
  expect_identical(tuned$model$call, call("onda", x = quote(x), y = quote(d$y), posterior = tuned$best$posterior))
  # the fold values are those of separate fits classified by that rule
  ids <- tuned$fold_ids[, 1]
  separate <- vapply(1:3, function(f) {
    fit <- onda(x[ids != f, ], d$y[ids != f], posterior = "linear")
    mean(predict(fit, x[ids == f, ], rule = "nearest_mean") != d$y[ids == f])
  }, numeric(1))
  got <- tuned$folds[tuned$folds$grid_row == 1, ]
  expect_equal(got$value[order(got$fold)], separate)
})

test_that("self-similarities are required where the model needs them with the grid's arguments", {
  set.seed(12)
  d <- checkerboard(60, size = 2)
  K <- precomputed_kernel(kernel_matrix(kernel_rbf(2), d[, 1:2]))
  K$self <- NULL
  expect_snapshot(show_error(tune_krein(kqd, K, d$y, grid = list(reg = 0.1), folds = 3)))
  expect_snapshot(show_error(tune_krein(kqd, K, d$y, grid = list(variant = c("FK+", "RC-")), folds = 3)))
  # FK+ needs no self-similarities
  tuned <- tune_krein(kqd, K, d$y, grid = list(reg = c(1e-3, 1e-2)), variant = "FK+", folds = 3)
  expect_s3_class(tuned$model, "kqd")
})

test_that("no model argument is taken for one of tune_krein()'s own", {
  own <- names(formals(tune_krein))
  options_after_dots <- own[seq(match("...", own) + 1L, length(own))]
  for (name in krein:::registered_models()) {
    args <- c(krein:::tuning_argument_names(krein:::model_info(name)), "kernel")
    # a model argument with the name of an option would be taken for the option
    expect_identical(intersect(args, options_after_dots), character(), label = name)
  }
  # ikfd's landmark count `m` once matched `model`, tune_krein()'s first argument
  set.seed(13)
  d <- checkerboard(60, size = 2)
  tuned <- tune_krein(ikfd, d[, 1:2], d$y, grid = list(ridge_relative = c(1e-4, 1e-2)), landmarks = "random",
                      m = 5, folds = 3)
  expect_identical(tuned$model$call$m, 5)
  expect_length(tuned$model$landmarks$indices, 5)
})

# A model that exists only in this test: the mean kernel value per class, with
# a "temperature" path for its posterior, a class rule as a predict argument,
# and an option that needs the input features. Registering it is all it takes
# to be tunable.
toy_log <- new.env()
toy_fit <- function(inputs, temp = 1, raw = FALSE, threads = NULL) {
  if (!is.numeric(temp) || anyNA(temp) || any(temp <= 0)) krein_abort("`temp` must be positive.")
  # tune_krein() checks the grid by running the fit up to the kernel: the log
  # counts the fits that get past it
  K_train <- training_kernel(inputs, threads)
  toy_log$fits <- c(toy_log$fits, length(temp))
  toy_log$inputs <- c(toy_log$inputs, !is.null(inputs$x))
  # a valid value at which the fit fails (numerically, say)
  if (!is.null(toy_log$fail_at) && any(temp == toy_log$fail_at)) stop("the toy fit failed")
  list(x = inputs$x, temp = temp, K_train = K_train)
}
krein_scores_toy <- function(object, new, type, temp = NULL, rule = "posterior") {
  K <- if (is.null(new)) object$K_train else new_kernels(object, new)$K
  onehot <- outer(as.integer(object$y), seq_along(object$levels), "==")
  f <- K %*% sweep(onehot, 2, colSums(onehot), "/")
  dimnames(f) <- list(rownames(K), object$levels)
  if (type == "decision") return(f)
  p <- exp(f / (temp %||% object$temp[1]))
  p <- p / rowSums(p)
  if (type == "class") {  # rule = "reverse": the least probable class
    return(factor(object$levels[max.col(-p, ties.method = "first")], levels = object$levels))
  }
  p
}

# Registers the toy model; returns the function that removes it again.
register_toy <- function() {
  assign("toy", function(x, ...) UseMethod("toy"), envir = globalenv())
  assign("toy_fit", toy_fit, envir = globalenv())
  registerS3method("krein_scores", "toy", krein_scores_toy, envir = asNamespace("krein"))
  krein:::register_krein_model(
    "toy", label = "Toy", fit = "toy_fit",
    parameters = data.frame(parameter = "temp", class = "numeric", label = "temperature"),
    path = "temp", needs_inputs = function(args) isTRUE(args$raw), predict_args = c("temp", "rule"))
  function() {
    rm("toy", envir = krein:::krein_registry)
    rm("toy", "toy_fit", envir = globalenv())
    rm("krein_scores.toy", envir = asNamespace("krein")[[".__S3MethodsTable__."]])
  }
}

test_that("a model that registers is tunable with no other change", {
  unregister <- register_toy()
  on.exit(unregister())
  expect_true("toy" %in% krein_models()$model)
  set.seed(14)
  d <- checkerboard(90, size = 2)
  toy_log$fits <- NULL
  tuned <- tune_krein(toy, d[, 1:2], d$y, grid = list(temp = c(0.01, 0.1, 1), gamma = c(1, 4)), folds = 3)
  expect_s3_class(tuned, "krein_tune")
  expect_identical(tuned$results$failed, rep(0, 6))
  # the path: one fit per fold and gamma serves the three temperatures; then the refit
  expect_identical(toy_log$fits, c(rep(3L, 6), 1L))
  expect_s3_class(tuned$model, c("toy", "krein_model"))
  expect_identical(tuned$model$call,
                   call("toy", x = quote(d[, 1:2]), y = quote(d$y), kernel = call("kernel_rbf", gamma = tuned$best$gamma),
                        temp = tuned$best$temp))
  # each grid point's fold values are those of a separate fit of that point
  ids <- tuned$fold_ids[, 1]
  row <- which(tuned$results$temp == 0.1 & tuned$results$gamma == 4)
  separate <- vapply(1:3, function(f) {
    inputs <- krein:::inputs_from_xy(as.matrix(d[ids != f, 1:2]), d$y[ids != f], kernel_rbf(4), scale = TRUE)
    fit <- krein:::fit_model("toy", inputs, list(temp = 0.1), NULL)
    mean(predict(fit, d[ids == f, 1:2]) != d$y[ids == f])
  }, numeric(1))
  got <- tuned$folds[tuned$folds$grid_row == row, ]
  expect_equal(got$value[order(got$fold)], separate)

  # a predict argument in the grid: one fit serves both rules
  toy_log$fits <- NULL
  set.seed(15)
  by_rule <- tune_krein(toy, d[, 1:2], d$y, grid = list(rule = c("posterior", "reverse")), kernel = kernel_rbf(4),
                        folds = 3)
  expect_length(toy_log$fits, 3 + 1)
  expect_identical(by_rule$best$rule, "posterior")
  expect_gt(by_rule$results$mean[2], 0.5)
  expect_null(by_rule$model$call$rule)
  # a fixed predict argument is used in every fold
  set.seed(15)
  reversed <- tune_krein(toy, d[, 1:2], d$y, grid = list(temp = 1), kernel = kernel_rbf(4), rule = "reverse",
                         folds = 3, refit = FALSE)
  expect_equal(reversed$results$mean, by_rule$results$mean[2])

  # an option that needs the input features: the folds fit on them, else on kernel matrices
  toy_log$inputs <- NULL
  tune_krein(toy, d[, 1:2], d$y, grid = list(temp = 1), raw = TRUE, folds = 3, refit = FALSE)
  expect_identical(toy_log$inputs, rep(TRUE, 3))
  toy_log$inputs <- NULL
  tune_krein(toy, d[, 1:2], d$y, grid = list(temp = 1), folds = 3, refit = FALSE)
  expect_identical(toy_log$inputs, rep(FALSE, 3))

  # and caret sees it too
  method <- caret_model("toy")
  expect_identical(method$parameters$parameter, c("temp", "gamma"))
  expect_identical(nrow(method$grid()), 1L)
  fit <- method$fit(d[, 1:2], d$y, param = data.frame(temp = 0.5, gamma = 2))
  expect_s3_class(fit, "toy")
  expect_identical(fit$temp, 0.5)
  expect_identical(fit$spec$kernel$params$gamma, 2)
})

test_that("grid values outside a parameter's domain are an error before any fit, naming the column", {
  # gamma = c(-1, 1) and gamma = NA are refused; reg = c(-1, 0.1) names the
  # bad value, instead of saying every grid point failed although 0.1 is valid
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  Y <- d$y
  expect_snapshot(show_error(tune_krein(kqd, X, Y, grid = list(gamma = c(-1, 1)))))
  expect_snapshot(show_error(tune_krein(kqd, X, Y, grid = list(gamma = NA))))
  expect_snapshot(show_error(tune_krein(kqd, X, Y, grid = list(reg = c(-1, 0.1)))))
  expect_snapshot(show_error(tune_krein(iknn, X, Y, grid = list(k = c(0, 3, 2.5)))))
  expect_error(tune_krein(kqd, X, Y, grid = list(variant = c("RC+", "XX"))), class = "krein_error",
               regexp = "`grid` column `variant`.*\"XX\"")
  expect_error(tune_krein(ikpca_qd, X, Y, grid = list(pvar = c(0.5, 2))), class = "krein_error",
               regexp = "`grid` column `pvar`")
  expect_error(tune_krein(onda, X, Y, grid = list(dim = c(1, 5))), class = "krein_error",
               regexp = "`grid` column `dim`")
  K <- kernel_matrix(kernel_rbf(1), X)
  expect_error(tune_krein(kqd, precomputed_kernel(K, self = rep(1, 60)), Y, grid = list(reg = c(-1, 0.1))),
               class = "krein_error", regexp = "`grid` column `reg` has an invalid value -1")
  # checking the grid draws no random numbers: the result is that of a valid grid
  set.seed(2)
  valid <- tune_krein(kqd, X, Y, grid = list(reg = c(0.01, 0.1)), folds = 3, refit = FALSE)
  expect_identical(dim(valid$results), c(2L, 4L))
})

test_that("a path fit that fails at a valid value is retried value by value; the others go on", {
  unregister <- register_toy()
  on.exit({
    unregister()
    toy_log$fail_at <- NULL
  })
  set.seed(16)
  d <- checkerboard(60, size = 2)
  toy_log$fail_at <- 0.5
  expect_warning(
    tuned <- tune_krein(toy, d[, 1:2], d$y, grid = list(temp = c(0.1, 0.5, 1)), kernel = kernel_rbf(4),
                        folds = 3, refit = FALSE),
    "3 of 9 fits failed")
  expect_identical(tuned$results$failed, c(0, 3, 0))
  expect_true(all(is.finite(tuned$results$mean[c(1, 3)])))
  expect_false(identical(tuned$best$temp, 0.5))
})

test_that("missing values in x or y are handled as the models handle them", {
  # an NA in y must not give "a precomputed kernel cannot drop rows" for a
  # data matrix
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  Y <- d$y
  Y[4] <- NA
  # with na.fail, the models' message (by default, getOption("na.action"))
  model_message <- tryCatch(kqd(X, Y, na.action = na.fail), krein_error = conditionMessage)
  expect_error(tune_krein(kqd, X, Y, grid = list(reg = 0.1), na.action = na.fail), class = "krein_error",
               regexp = model_message, fixed = TRUE)
  X_na <- X
  X_na[7, 2] <- NA
  expect_error(tune_krein(kqd, X_na, d$y, grid = list(reg = 0.1), na.action = na.fail), class = "krein_error",
               regexp = tryCatch(kqd(X_na, d$y, na.action = na.fail), krein_error = conditionMessage), fixed = TRUE)
  # by default, as the models: the rows are dropped
  set.seed(3)
  expect_identical(nobs(tune_krein(kqd, X_na, Y, grid = list(reg = 0.1), folds = 3)$model), 58L)
  set.seed(3)
  tuned <- tune_krein(kqd, X_na, Y, grid = list(reg = c(0.01, 0.1)), folds = 3, na.action = na.omit)
  expect_identical(nrow(tuned$fold_ids), 58L)
  expect_identical(nobs(tuned$model), 58L)
  expect_identical(deparse(tuned$model$call$na.action), "na.omit")
})

test_that("the toy model left the registry", {
  expect_false("toy" %in% krein:::registered_models())
  expect_false(exists("toy_fit", envir = globalenv()))
})

# ---------------------------------------------------------------------------
# Default grid, edge warning, predict(), plot(), progress per fit, onda's
# SVM width, kmdc's regularisation path

test_that("without a grid, the width comes from the median heuristic on the scaled inputs and reg from the registry", {
  # `grid` is optional
  set.seed(21)
  d <- checkerboard(90, size = 2)
  X <- as.matrix(d[, 1:2]) * c(1, 100)
  tuned <- suppressWarnings(tune_krein(kqd, X, d$y, folds = 3, grid_size = 3, refit = FALSE))
  scaled <- scale(X)   # scale = TRUE: the width of the data as the model sees them
  expect_setequal(names(tuned$results)[1:2], c("reg", "gamma"))
  expect_equal(sort(unique(tuned$results$gamma)), median_gamma(scaled) * 2^c(-5, 0, 5))
  expect_equal(sort(unique(tuned$results$reg)), 10^c(-5, -2, 1))   # RC: the default path's range
  expect_identical(nrow(tuned$results), 9L)
  # scale = FALSE: the width of the data as given; the IC and FK variants' range
  grid <- krein:::default_tuning_grid(krein:::model_info("kqd"), kernel_rbf(), X, FALSE,
                                      list(variant = "IC-"), 4, n_train = 60, n_classes = 2)
  expect_equal(sort(unique(grid$gamma)), median_gamma(X) * 2^seq(-5, 5, length.out = 4))
  expect_equal(sort(unique(grid$reg)), 10^seq(-5, -1, length.out = 4))
  # a width the user gave is kept: only reg is tuned
  grid <- krein:::default_tuning_grid(krein:::model_info("kqd"), kernel_rbf(2), X, TRUE, list(), 5, 60, 2)
  expect_identical(names(grid), "reg")
  # the base of an invariant kernel
  grid <- krein:::default_tuning_grid(krein:::model_info("kqd"), kernel_invariant(kernel_rbf()), X, TRUE,
                                      list(), 3, 60, 2)
  expect_setequal(names(grid), c("reg", "gamma"))
})

test_that("every registered model has a default grid, from its registry entry", {
  set.seed(22)
  d <- checkerboard(60, size = 2)
  X <- as.matrix(d[, 1:2])
  expected <- list(kqd = "reg", kmdc = "reg", ikfd = "ridge_relative", kfda = "ncomp", pcvm = character(),
                   iknn = "k", ikpca_qd = "shrinkage", isvm = "C")
  for (name in names(expected)) {
    info <- krein:::model_info(name)
    grid <- krein:::default_tuning_grid(info, kernel_rbf(), X, TRUE, list(), 4, n_train = 40, n_classes = 2)
    expect_setequal(names(grid), c(expected[[name]], "gamma"))
    expect_identical(length(unique(grid$gamma)), 4L, label = name)
  }
  # onda: the estimators; with the SVM posterior its cost and width
  info <- krein:::model_info("onda")
  expect_identical(krein:::default_tuning_grid(info, NULL, X, TRUE, list(), 4, 40, 2)$posterior,
                   c("gaussian", "linear"))
  svm <- krein:::default_tuning_grid(info, NULL, X, TRUE, list(posterior = "svm"), 3, 40, 2)
  expect_setequal(names(svm), c("cost", "svm_gamma"))
  expect_equal(sort(unique(svm$svm_gamma)), median_gamma(scale(X)) * 2^c(-5, 0, 5))
  # kfda's reduction decides what is tuned
  info <- krein:::model_info("kfda")
  expect_identical(names(krein:::kfda_default_grid(4, list(reduce = "ridge"), list(n = 40))), "ridge")
  expect_identical(krein:::kfda_default_grid(4, list(reduce = "subset"), list(n = 40))$bases, c(2, 4, 9, 20))
  # a fixed argument is not tuned
  grid <- krein:::default_tuning_grid(krein:::model_info("iknn"), kernel_rbf(), X, TRUE, list(k = 3), 4, 40, 2)
  expect_identical(names(grid), "gamma")
  # nothing to tune
  expect_snapshot(show_error(tune_krein(pcvm, X, d$y, kernel = kernel_rbf(1))))
  expect_snapshot(show_error(tune_krein(kqd, X, d$y, grid_size = 0)))
})

test_that("a best value on the grid's edge warns, naming the parameter and the side", {
  # an optimum on the edge (as on four UCI data sets) must not pass silently
  set.seed(23)
  d <- checkerboard(90, size = 3)
  X <- as.matrix(d[, 1:2])
  # a board of three by three squares needs a width far above these
  set.seed(1)
  expect_warning(tuned <- tune_krein(kqd, X, d$y, grid = list(gamma = c(0.02, 0.1, 0.5)), reg = 0.1,
                                     folds = 3, refit = FALSE),
                 class = "krein_grid_edge_warning")
  expect_identical(tuned$best$gamma, 0.5)
  set.seed(1)
  expect_snapshot(show_conditions(tune_krein(kqd, X, d$y, grid = list(gamma = c(0.02, 0.1, 0.5)), reg = 0.1,
                                             folds = 3, refit = FALSE)))
  # an interior optimum, or two values only: no warning
  expect_no_warning(tune_krein(kqd, X, d$y, grid = list(gamma = c(1e-4, 5, 1e5)), reg = 0.1, folds = 3,
                               refit = FALSE))
  expect_no_warning(tune_krein(kqd, X, d$y, grid = list(gamma = c(1e-3, 1e-2)), reg = 0.1, folds = 3,
                               refit = FALSE))
  # the rule itself, on made-up results: the smallest value, strictly best
  info <- krein:::model_info("iknn")
  inputs <- krein:::inputs_from_xy(X, d$y, kernel_rbf(), NULL)
  results <- data.frame(k = c(3, 5, 7), mean = c(0.1, 0.2, 0.3), failed = 0)
  grid <- results["k"]
  expect_warning(krein:::warn_grid_edges(grid, grid[1, , drop = FALSE], results, info, kernel_rbf(), inputs, list()),
                 "The best `k` \\(3\\) is the smallest in the grid; extend the grid below it",
                 class = "krein_grid_edge_warning")
  results$mean <- c(0.3, 0.2, 0.1)
  expect_warning(krein:::warn_grid_edges(grid, grid[3, , drop = FALSE], results, info, kernel_rbf(), inputs, list()),
                 "largest in the grid; extend the grid above it", class = "krein_grid_edge_warning")
  # a tie with the neighbour, or the edge of the domain (k = 1: no k below): no warning
  results$mean <- c(0.1, 0.1, 0.3)
  expect_no_warning(krein:::warn_grid_edges(grid, grid[1, , drop = FALSE], results, info, kernel_rbf(), inputs, list()))
  results <- data.frame(k = c(1, 2, 3), mean = c(0.1, 0.2, 0.3), failed = 0)
  expect_no_warning(krein:::warn_grid_edges(results["k"], data.frame(k = 1), results, info, kernel_rbf(), inputs,
                                            list()))
  # the step beyond a log-spaced grid is by its ratio, else by its difference
  expect_equal(krein:::grid_step_beyond(c(0.1, 1, 10), "below"), 0.01)
  expect_equal(krein:::grid_step_beyond(c(1, 2, 3), "below"), 0)
  expect_equal(krein:::grid_step_beyond(c(1, 2, 3), "above"), 4)
})

test_that("predict() on a tuning predicts with the refitted model and the tuning's predict arguments", {
  set.seed(24)
  d <- checkerboard(90, size = 2)
  X <- as.matrix(d[, 1:2])
  tuned <- suppressWarnings(tune_krein(kqd, X, d$y, grid = list(gamma = c(1, 4), reg = c(0.01, 0.1)), folds = 3))
  new <- X[1:7, ]
  expect_identical(predict(tuned, new), predict(tuned$model, new))
  expect_equal(predict(tuned, new, type = "prob"), predict(tuned$model, new, type = "prob"))
  expect_identical(predict(tuned), predict(tuned$model))
  # a predict argument in the grid or among the fixed arguments is used again
  by_rule <- tune_krein(onda, X, d$y, grid = list(rule = c("nearest_mean", "mahalanobis")), posterior = "linear",
                        folds = 3)
  expect_identical(predict(by_rule, new), predict(by_rule$model, new, rule = by_rule$best$rule))
  fixed_rule <- tune_krein(onda, X, d$y, grid = list(posterior = c("linear", "gaussian")), rule = "mahalanobis",
                           folds = 3)
  expect_identical(predict(fixed_rule, new), predict(fixed_rule$model, new, rule = "mahalanobis"))
  # arguments given to predict() replace them
  expect_identical(predict(fixed_rule, new, rule = "posterior"), predict(fixed_rule$model, new))
  no_model <- tune_krein(kqd, X, d$y, grid = list(reg = c(0.01, 0.1)), folds = 3, refit = FALSE)
  expect_error(predict(no_model, new), class = "krein_error")
  expect_snapshot(show_error(predict(no_model, new)))
})

test_that("plot(): log axes for log-spaced grids, a title, a heat map of two numeric parameters", {
  expect_true(krein:::log_spaced(2^(-3:3)))
  expect_true(krein:::log_spaced(c(10, 1, 0.1)))
  expect_false(krein:::log_spaced(c(1, 2, 3)))
  expect_false(krein:::log_spaced(c(0, 1, 10)))
  expect_true(krein:::log_axis_for(2^(0:3)))   # 64-fold ranges are drawn on a log axis
  expect_false(krein:::log_axis_for(c(1, 2, 3)))
  set.seed(25)
  d <- checkerboard(60, size = 2)
  X <- as.matrix(d[, 1:2])
  tuned <- suppressWarnings(tune_krein(kqd, X, d$y, grid = list(gamma = 2^(0:2), reg = 10^(-2:0),
                                                                variant = c("RC+", "FK+")), folds = 3,
                                       repeats = 2, refit = FALSE))
  expect_identical(krein:::tuning_title(tuned), "kqd(): 3-fold stratified CV x 2 repeats, mean error")
  # the heat map's cells hold the best mean over the other parameters
  profile <- krein:::tuning_profile(tuned$results, "gamma")
  expect_equal(profile$mean[1], min(tuned$results$mean[tuned$results$gamma == 1]))
  pdf(NULL)
  on.exit(dev.off())
  expect_invisible(plot(tuned))
  one <- suppressWarnings(tune_krein(kqd, X, d$y, grid = list(gamma = 2^(0:3)), folds = 3, refit = FALSE))
  expect_invisible(plot(one))
  three <- suppressWarnings(tune_krein(kqd, X, d$y, grid = list(gamma = c(1, 4), reg = c(0.01, 0.1)),
                                       variant = "FK+", folds = 3, refit = FALSE))
  expect_invisible(plot(three))
})

test_that("progress advances once per grid point and fold: a path fit over k values by k", {
  skip_if_not_installed("progressr")
  old <- options(progressr.enable = TRUE)
  on.exit(options(old))
  set.seed(26)
  d <- checkerboard(60, size = 2)
  signals <- list()
  withCallingHandlers(
    suppressWarnings(tune_krein(kqd, d[, 1:2], d$y, grid = list(reg = 10^(-3:0), gamma = c(1, 4)), folds = 3,
                                refit = FALSE)),
    progression = function(p) signals[[length(signals) + 1]] <<- p)
  types <- vapply(signals, function(p) p$type, "")
  expect_identical(signals[[which(types == "initiate")]]$steps, 4L * 2L * 3L)
  updates <- signals[types == "update"]
  # one signal per path fit (two widths, three folds), each worth its four values
  expect_identical(vapply(updates, function(p) p$amount, 1), rep(4, 6))
})

test_that("onda's SVM width and cost are tunable grid columns", {
  # the width is an argument of its own, not only in svm_args out of the
  # grid's reach
  skip_if_not_installed("e1071")
  set.seed(27)
  d <- checkerboard(60, size = 2)
  X <- as.matrix(d[, 1:2])
  set.seed(1)
  a <- onda(X, d$y, posterior = "svm", svm_gamma = 0.3)
  set.seed(1)
  b <- onda(X, d$y, posterior = "svm", svm_args = list(gamma = 0.3))
  expect_equal(predict(a, X[1:5, ], type = "prob"), predict(b, X[1:5, ], type = "prob"))
  tuned <- tune_krein(onda, X, d$y, grid = list(svm_gamma = c(0.01, 2), cost = c(1, 10)), posterior = "svm",
                      folds = 3)
  expect_identical(tuned$results$failed, rep(0, 4))
  expect_identical(tuned$model$call$svm_gamma, tuned$best$svm_gamma)
  # a board of two by two squares needs more than a nearly linear SVM
  expect_lt(min(tuned$results$mean[tuned$results$svm_gamma == 2]),
            min(tuned$results$mean[tuned$results$svm_gamma == 0.01]))
  expect_error(tune_krein(onda, X, d$y, grid = list(svm_gamma = c(-1, 1)), posterior = "svm"),
               class = "krein_error", regexp = "`grid` column `svm_gamma`")
  expect_snapshot(show_error(onda(X, d$y, posterior = "svm", svm_gamma = 1, svm_args = list(gamma = 2))))
  expect_snapshot(show_error(onda(X, d$y, posterior = "svm", svm_gamma = 0)))
})

test_that("kmdc's reg is a path in tune_krein(): one distance model per fold, values equal to separate fits", {
  # kmdc must not refit its distance model for every reg value
  set.seed(28)
  d <- checkerboard(90, size = 2)
  X <- as.matrix(d[, 1:2])
  regs <- c(1e-3, 1e-2, 0.1, 1)
  count <- new.env()
  count$fits <- 0L
  suppressMessages(trace("cpp_kqd_fit", tracer = bquote(assign("fits", get("fits", .(count)) + 1L, envir = .(count))),
                         where = asNamespace("krein"), print = FALSE))
  tuned <- tune_krein(kmdc, X, d$y, grid = list(reg = regs), kernel = kernel_rbf(2), folds = 3, refit = FALSE)
  suppressMessages(untrace("cpp_kqd_fit", where = asNamespace("krein")))
  expect_identical(count$fits, 3L)   # one decomposition per fold serves the four values
  ids <- tuned$fold_ids[, 1]
  for (i in seq_along(regs)) {
    errors <- vapply(1:3, function(f) {
      fit <- kmdc(X[ids != f, ], d$y[ids != f], kernel = kernel_rbf(2), reg = regs[i])
      mean(predict(fit, X[ids == f, ]) != d$y[ids == f])
    }, numeric(1))
    got <- tuned$folds[tuned$folds$grid_row == i, ]
    expect_equal(got$value[order(got$fold)], errors)
  }
})

test_that("a precomputed kernel with tunable parameters is rebuilt for each grid value", {
  # the mechanism a conversion of dissimilarities with a width uses: methods
  # of three internal generics for its class
  set.seed(29)
  d <- checkerboard(60, size = 2)
  D <- as.matrix(stats::dist(d[, 1:2]))
  gaussian_of <- function(D, gamma = 1) {
    structure(list(K = exp(-gamma * D^2), self = rep(1, nrow(D)), D = D),
              class = c("test_gaussian_dissimilarity", "krein_precomputed"))
  }
  ns <- asNamespace("krein")
  registerS3method("kernel_parameter_names", "test_gaussian_dissimilarity", function(kernel) "gamma", envir = ns)
  registerS3method("with_kernel_parameters", "test_gaussian_dissimilarity", function(kernel, values) {
    if (!is.numeric(values$gamma) || !(values$gamma > 0)) krein_abort("`gamma` must be positive.")
    gaussian_of(kernel$D, values$gamma)
  }, envir = ns)
  registerS3method("default_kernel_grid", "test_gaussian_dissimilarity", function(kernel, x, size) {
    list(gamma = 2^seq(-1, 1, length.out = size))
  }, envir = ns)
  on.exit(rm(list = paste0(c("kernel_parameter_names", "with_kernel_parameters", "default_kernel_grid"),
                           ".test_gaussian_dissimilarity"), envir = ns[[".__S3MethodsTable__."]]))
  G <- gaussian_of(D)
  set.seed(1)
  tuned <- suppressWarnings(tune_krein(kqd, G, d$y, grid = list(gamma = c(0.5, 2, 8)), variant = "FK+", folds = 3))
  for (i in 1:3) {
    g <- c(0.5, 2, 8)[i]
    set.seed(1)
    separate <- tune_krein(kqd, precomputed_kernel(exp(-g * D^2), self = rep(1, 60)), d$y, grid = list(reg = 1e-3),
                           variant = "FK+", folds = 3, refit = FALSE)
    expect_equal(tuned$folds$value[tuned$folds$grid_row == i], separate$folds$value)
  }
  # the refit's call writes the best width into the expression that made the kernel
  # (where the kernel was given as such a call)
  expect_identical(tuned$model$call$x, quote(G))
  set.seed(1)
  again <- suppressWarnings(tune_krein(kqd, gaussian_of(D), d$y, grid = list(gamma = c(0.5, 2, 8)), variant = "FK+",
                                       folds = 3))
  expect_identical(again$model$call$x, call("gaussian_of", D = quote(D), gamma = again$best$gamma))
  expect_equal(predict(eval(again$model$call), type = "prob"), predict(again$model, type = "prob"))
  expect_error(tune_krein(kqd, G, d$y, grid = list(gamma = c(-1, 1)), folds = 3), class = "krein_error",
               regexp = "`grid` column `gamma` has an invalid value -1")
  set.seed(1)
  default <- suppressWarnings(tune_krein(kqd, G, d$y, variant = "FK+", folds = 3, grid_size = 3, refit = FALSE))
  expect_equal(sort(unique(default$results$gamma)), c(0.5, 1, 2))
  # a plain precomputed kernel has no kernel parameters
  expect_error(tune_krein(kqd, precomputed_kernel(G$K, self = G$self), d$y, grid = list(gamma = 1)),
               class = "krein_error", regexp = "precomputed kernel")
})

test_that("log-loss and the Brier score refuse kqd's uncalibrated softmax", {
  # ?kqd, Prediction: under bias = "error" (the default) or "none", "prob"
  # is a softmax of decision values whose scale nothing fitted; only
  # bias = "map" gives the Gaussian posterior. tune_krein() must not score
  # the softmax with log-loss without a word.
  set.seed(3)
  d <- gaussian_mixture_2d(40)
  x <- as.matrix(d[, 1:2])
  for (metric in c("logloss", "brier")) {
    expect_error(tune_krein(kqd, x, d$y, grid = list(reg = c(0.01, 0.1)), folds = 3, metric = metric),
                 class = "krein_error", regexp = "not a calibrated probability")
  }
  expect_snapshot(show_error(tune_krein(kqd, x, d$y, grid = list(reg = c(0.01, 0.1)), folds = 3,
                                        metric = "logloss")))
  expect_error(tune_krein(kqd, x, d$y, grid = list(reg = 0.1, bias = c("map", "none")), folds = 3,
                          metric = "logloss"),
               class = "krein_error", regexp = "1 of the 2 grid points")
  tuned <- suppressWarnings(tune_krein(kqd, x, d$y, grid = list(reg = c(0.01, 0.1)), folds = 3,
                                       metric = "logloss", bias = "map", refit = FALSE))
  expect_true(all(is.finite(tuned$results$mean)))
  # the error metric and the calibrated models are untouched
  expect_s3_class(tune_krein(kqd, x, d$y, grid = list(reg = c(0.01, 0.1)), folds = 3, refit = FALSE),
                  "krein_tune")
  expect_s3_class(tune_krein(kmdc, x, d$y, grid = list(reg = c(0.01, 0.1)), folds = 3, metric = "logloss",
                             refit = FALSE), "krein_tune")
})

test_that("the parallel map shares the cores among the workers unless the user sets the threads", {
  skip_if_not_installed("future.apply")
  # the one map of tune_krein() and of the passes over chunks: each task's
  # krein.threads is the user's count, else the cores divided among the
  # plan's workers (at least 1); the caller's option is left as it was
  threads_of_tasks <- function(...) {
    unlist(krein:::future_map(1:4, function(i) c(getOption("krein.threads"), krein:::check_threads(NULL)), ...))
  }
  cores <- krein:::check_threads(NULL)
  if (cores == 0L) cores <- krein:::cpp_processor_count()
  old_plan <- future::plan(future::sequential)
  on.exit(future::plan(old_plan), add = TRUE)
  before <- getOption("krein.threads")
  expect_identical(threads_of_tasks(), rep(as.integer(cores), 8))
  expect_identical(threads_of_tasks(.threads = 1), rep(1L, 8))
  expect_identical(getOption("krein.threads"), before)
  future::plan(future::multisession, workers = 2)
  expect_identical(threads_of_tasks(), rep(as.integer(max(1L, cores %/% 2L)), 8))
  expect_identical(threads_of_tasks(.threads = 2), rep(min(2L, as.integer(krein:::cpp_processor_count())), 8))
})
