# The property test over the registry (test-combinations.R): the
# data, the combination table built from the registry, the fits and the
# comparison of two fits. Nothing here names a model: what a model accepts
# comes from its registry entry (R/contract.R) and its fitting function's
# formals.

# ---- data --------------------------------------------------------------------

# 45 points in three classes, two columns in very different units (so that
# scaling matters), 9 new points; the same as a data frame with missing
# values in two rows; 45 + 9 strings in three classes.
combination_data <- local({
  seed <- if (exists(".Random.seed", globalenv())) get(".Random.seed", globalenv())
  set.seed(25)
  n <- 45L
  y <- factor(rep(c("a", "b", "c"), length.out = n))
  raw <- matrix(stats::rnorm(n * 2), n, 2) + 1.2 * as.integer(y)
  x <- cbind(x1 = 100 * raw[, 1] - 40, x2 = raw[, 2] / 10 + 5)
  new_raw <- matrix(stats::rnorm(18), 9, 2) + 1.2 * rep(1:3, 3)
  x_new <- cbind(x1 = 100 * new_raw[, 1] - 40, x2 = new_raw[, 2] / 10 + 5)
  missing_rows <- c(4L, 17L)
  data_na <- data.frame(x, y = y)
  data_na$x1[4] <- NA
  data_na$x2[17] <- NA
  word <- function(alphabet) paste(sample(alphabet, 5, TRUE), collapse = "")
  alphabets <- list(a = c("a", "b", "x"), b = c("c", "d", "x"), c = c("a", "d", "y"))
  strings <- vapply(as.character(y), function(l) word(alphabets[[l]]), "")
  strings_new <- vapply(rep(c("a", "b", "c"), 3), function(l) word(alphabets[[l]]), "")
  names(strings) <- names(strings_new) <- NULL
  if (!is.null(seed)) assign(".Random.seed", seed, globalenv()) else rm(".Random.seed", envir = globalenv())
  list(x = x, y = y, x_new = x_new, data = data.frame(x, y = y), data_new = as.data.frame(x_new),
       data_na = data_na, missing_rows = missing_rows,
       strings = strings, strings_new = strings_new,
       # Nystroem landmarks (bases): training rows, spread over the classes
       landmarks = c(1L, 2L, 3L, 10L, 14L, 20L, 27L, 33L, 41L))
})

# scale() by hand with the training columns' means and standard deviations
scale_by <- function(x, reference) {
  sweep(sweep(x, 2L, colMeans(reference), "-"), 2L, apply(reference, 2L, stats::sd), "/")
}
unscale_by <- function(x, reference) {
  sweep(sweep(x, 2L, apply(reference, 2L, stats::sd), "*"), 2L, colMeans(reference), "+")
}

# A kernel on strings: a function of two objects (krein evaluates it pair by
# pair); its matrices on the training strings and of the new ones against
# them, computed here by hand
string_kernel <- function(a, b) exp(-0.4 * utils::adist(a, b)[1, 1])
string_kernels <- local({
  pairwise <- function(a, b) {
    outer(seq_along(a), seq_along(b), Vectorize(function(i, j) string_kernel(a[i], b[j])))
  }
  d <- combination_data
  list(K = pairwise(d$strings, d$strings),
       new = precomputed_kernel(pairwise(d$strings_new, d$strings),
                                self = diag(pairwise(d$strings_new, d$strings_new))))
})

# ---- the registry's view of the models -------------------------------------------

# Packages a model needs (only to skip where they are not installed)
combination_needs <- list(isvm = c("kernlab", "LiblineaR"), krein_svm = c("kernlab", "LiblineaR"))

# The fitting function's formals of a model
combination_formals <- function(name) {
  formals(get(krein:::model_info(name)$fit, envir = asNamespace("krein")))
}

# A model's settings: its defaults; every other value of each option whose
# default in the fitting function lists its choices (c("linear",
# "quadratic"), ...); and the Nystroem (landmarks or bases) fit on the
# landmark rows where the registry says how to ask for one. Each setting is
# a named list of model arguments, with a `label`.
combination_settings <- function(name) {
  info <- krein:::model_info(name)
  settings <- list(list(label = "defaults", args = list()))
  f <- combination_formals(name)
  for (arg in names(f)[vapply(f, is.call, NA)]) {
    default <- f[[arg]]
    if (!identical(default[[1L]], as.name("c"))) next
    choices <- tryCatch(eval(default, baseenv()), error = function(e) NULL)
    if (!is.character(choices) || length(choices) < 2L) next
    for (value in choices[-1L]) {
      settings[[length(settings) + 1L]] <- list(label = sprintf("%s = \"%s\"", arg, value),
                                                args = stats::setNames(list(value), arg))
    }
  }
  if (!is.null(info$landmark_args)) {
    settings[[length(settings) + 1L]] <- list(label = "Nystroem (landmark rows)", nystrom = TRUE,
                                              args = info$landmark_args(combination_data$landmarks))
  }
  settings
}

# What a model accepts, from its registry entry: kernel matrices and objects
# for kernel models whose fit does not need the inputs themselves; chunks for
# models with a krein_chunks method, on their landmark setting.
accepts_kernel_matrix <- function(name, args) {
  info <- krein:::model_info(name)
  info$uses_kernel && !info$needs_inputs(args)
}
accepts_chunks <- function(name) {
  !is.null(utils::getS3method(name, "krein_chunks", optional = TRUE, envir = asNamespace("krein"))) &&
    !is.null(krein:::model_info(name)$landmark_args)
}

# The combination table: one row per model x setting x input form x scale x
# na.action that the test checks, each with the property (its explicit
# equivalent). Built from the registry; test-combinations.R runs it. The
# defaults and the Nystroem setting of every model get the whole grid; the
# other values of an option get the properties where an option could act
# differently (formula = matrix, a precomputed kernel, a fitted model as a
# posterior, with the default scale = TRUE, and the scale property), which
# keeps the file fast.
combination_table <- function() {
  rows <- list()
  add <- function(form, scale, na_action, property) {
    rows[[length(rows) + 1L]] <<- data.frame(model = name, setting = setting$label, form = form,
                                             scale = scale, na_action = na_action, property = property,
                                             stringsAsFactors = FALSE)
  }
  for (name in krein:::registered_models()) {
    for (setting in combination_settings(name)) {
      kernel_matrix_ok <- accepts_kernel_matrix(name, setting$args)
      full <- setting$label == "defaults" || isTRUE(setting$nystrom)
      add("matrix", TRUE, "none", "scale = TRUE = scale = FALSE on scale()d data")
      for (scale in if (full) c(TRUE, FALSE) else TRUE) {
        add("formula", scale, "none", "formula = matrix")
        add("matrix", scale, "none", "a fitted model as onda()'s posterior = a function calling its predict() on raw data")
        if (kernel_matrix_ok) add("matrix", scale, "none", "a kernel = its precomputed kernel")
        if (!full) next
        if (scale) {
          for (na in c("na.omit", "na.exclude", "default")) {
            for (form in c("formula", "matrix")) add(form, scale, na, "na.action = the fit on the complete rows")
          }
          add("formula", scale, "none", "a fitted model as onda()'s posterior = a function calling its predict() on raw data")
        } else {
          add("formula", scale, "na.omit", "na.action = the fit on the complete rows")
        }
        if (kernel_matrix_ok) {
          add("matrix", scale, "none", "a discriminant kernel (kernel_discriminant()) = its precomputed kernel")
          add("strings", scale, "none", "strings = their precomputed kernel")
          if (scale) add("strings", scale, "na.omit", "na.action = the fit on the complete rows")
        }
        if (isTRUE(setting$nystrom) && all(c("landmarks", "m") %in% names(combination_formals(name)))) {
          add("matrix", scale, "none", "landmarks selected beforehand = selected by the fit")
        }
        if (isTRUE(setting$nystrom) && accepts_chunks(name)) {
          add("chunks (column name)", scale, "none", "chunks = in memory")
          if (scale) add("chunks (formula)", scale, "none", "chunks = in memory")
        }
      }
    }
  }
  do.call(rbind, rows)
}

# ---- fitting ----------------------------------------------------------------------

# A fit with R's RNG seeded first (landmarks, folds, starts), on one thread
# (the fit keeps it for its predictions), warnings and messages muffled (the
# comparisons are the point here)
combination_fit <- function(name, ...) {
  fun <- get(name, envir = asNamespace("krein"))
  old <- options(krein.threads = 1L)
  on.exit(options(old), add = TRUE)
  set.seed(2525)
  suppressWarnings(suppressMessages(fun(...)))
}

# Reference fits that several rows share, computed once per test file run
# (combination_fit() seeds the RNG, so a cached fit is the fit itself)
combination_cache <- new.env(parent = emptyenv())
cached_fit <- function(key, ...) {
  if (is.null(combination_cache[[key]])) {
    combination_cache[[key]] <- tryCatch(combination_fit(...), krein_error = function(e) e)
  }
  fit <- combination_cache[[key]]
  if (inherits(fit, "error")) stop(fit)
  fit
}

# Fit `reference` then `fit` (two expressions). Where the explicit equivalent
# itself is refused with a krein error (a singular covariance, ...), the
# combination must be refused alike: the same error class and message.
# Returns the two fits, or NULL when both were refused.
fit_pair <- function(fit, reference, label) {
  reference <- tryCatch(reference, krein_error = function(e) e)
  if (inherits(reference, "error")) {
    fit <- tryCatch(fit, krein_error = function(e) e)
    testthat::expect_s3_class(fit, "krein_error")
    if (inherits(fit, "error")) {
      testthat::expect_identical(conditionMessage(fit), conditionMessage(reference), info = label)
    }
    return(NULL)
  }
  list(fit = fit, reference = reference)
}

# An explicit kernel (a width that does not come from the data) for the
# comparisons that must not depend on how a width is chosen
combination_kernel <- function(name) {
  if (krein:::model_info(name)$uses_kernel) list(kernel = kernel_rbf(0.7)) else list()
}

# ---- comparing ---------------------------------------------------------------------

# The predict() types of a model
combination_types <- function(name) c("class", "prob", "decision", krein:::model_info(name)$types)

# Two fits predict alike: on their training data (every type, and fitted())
# and on new data given to each in its own form. Classes must be identical,
# numbers equal to `tolerance`.
expect_same_fit <- function(fit, reference, new_fit, new_reference, label, tolerance = 1e-10,
                            training = TRUE) {
  name <- class(reference)[1]
  for (type in combination_types(name)) {
    if (training) {
      compare_predictions(predict(fit, type = type), predict(reference, type = type),
                          sprintf("%s, training predictions of type \"%s\"", label, type), tolerance)
    }
    compare_predictions(predict(fit, new_fit, type = type), predict(reference, new_reference, type = type),
                        sprintf("%s, new data, type \"%s\"", label, type), tolerance)
  }
  if (training) {
    testthat::expect_identical(as.character(fitted(fit)), as.character(fitted(reference)),
                               info = sprintf("%s: fitted()", label))
  }
}

compare_predictions <- function(a, b, label, tolerance) {
  if (is.factor(a) || is.factor(b)) {
    testthat::expect_identical(as.character(a), as.character(b), info = label)
  } else {
    testthat::expect_equal(unname(as.matrix(a)), unname(as.matrix(b)), tolerance = tolerance, info = label)
    testthat::expect_identical(colnames(a), colnames(b), info = label)
  }
}

# ---- the properties: each row of the table checked against its explicit equivalent ----

# The setting of a table row, by its label
combination_setting <- function(name, label) {
  for (setting in combination_settings(name)) if (identical(setting$label, label)) return(setting)
  stop("no setting ", label, " for ", name)
}

combination_label <- function(row) {
  sprintf("%s (%s), %s, scale = %s, na.action = %s: %s", row$model, row$setting, row$form, row$scale,
          row$na_action, row$property)
}

check_combination <- function(row) {
  name <- row$model
  for (pkg in combination_needs[[name]]) testthat::skip_if_not_installed(pkg)
  setting <- combination_setting(name, row$setting)
  label <- combination_label(row)
  check <- switch(row$property,
    "formula = matrix" = check_formula_matrix,
    "na.action = the fit on the complete rows" = check_na_action,
    "a fitted model as onda()'s posterior = a function calling its predict() on raw data" = check_posterior,
    "a discriminant kernel (kernel_discriminant()) = its precomputed kernel" = check_discriminant_kernel,
    "a kernel = its precomputed kernel" = check_precomputed,
    "strings = their precomputed kernel" = check_strings,
    "chunks = in memory" = check_chunks,
    "scale = TRUE = scale = FALSE on scale()d data" = check_scale,
    "landmarks selected beforehand = selected by the fit" = check_selected_landmarks,
    stop("unknown property ", row$property))
  check(name, setting$args, row, label)
}

# The shared fits of a row's model and setting: on the matrix (all rows, or
# the complete rows), with the default kernel and the row's `scale`
key_of <- function(row, what) paste(row$model, row$setting, what, sep = " | ")
matrix_fit <- function(name, args, row, scale = row$scale) {
  d <- combination_data
  do.call(cached_fit, c(list(key_of(row, paste("matrix, scale", scale)), name, d$x, d$y, scale = scale), args))
}
complete_rows_fit <- function(name, args, row) {
  d <- combination_data
  complete <- setdiff(seq_len(nrow(d$x)), d$missing_rows)
  do.call(cached_fit, c(list(key_of(row, paste("complete rows, scale", row$scale)), name, d$x[complete, ],
                             d$y[complete], scale = row$scale), args))
}

# formula = matrix, with the default kernel (its width from the same data)
check_formula_matrix <- function(name, args, row, label) {
  d <- combination_data
  pair <- fit_pair(do.call(combination_fit, c(list(name, y ~ ., data = d$data, scale = row$scale), args)),
                   matrix_fit(name, args, row), label)
  if (!is.null(pair)) expect_same_fit(pair$fit, pair$reference, d$data_new, d$x_new, label)
}

# na.action = na.omit / na.exclude / the default (getOption("na.action"),
# "na.omit" as in a fresh R session) equals the fit on the complete rows;
# strings: NA objects are missing rows
check_na_action <- function(name, args, row, label) {
  d <- combination_data
  complete <- setdiff(seq_len(nrow(d$x)), d$missing_rows)
  na <- if (row$na_action != "default") list(na.action = get(row$na_action, envir = asNamespace("stats")))
  if (row$na_action == "default") {
    old <- options(na.action = "na.omit")
    on.exit(options(old), add = TRUE)
  }
  if (row$form == "strings") {
    strings <- d$strings
    strings[d$missing_rows] <- NA
    pair <- fit_pair(
      do.call(combination_fit, c(list(name, strings, d$y, kernel = string_kernel, scale = row$scale), na, args)),
      do.call(combination_fit, c(list(name, d$strings[complete], d$y[complete], kernel = string_kernel,
                                      scale = row$scale), args)),
      label)
    if (!is.null(pair)) expect_same_fit(pair$fit, pair$reference, d$strings_new, d$strings_new, label)
    return(invisible())
  }
  fit <- if (row$form == "formula") {
    quote(do.call(combination_fit, c(list(name, y ~ ., data = d$data_na, scale = row$scale), na, args)))
  } else {
    quote(do.call(combination_fit, c(list(name, as.matrix(d$data_na[, c("x1", "x2")]), d$data_na$y,
                                          scale = row$scale), na, args)))
  }
  pair <- fit_pair(eval(fit), complete_rows_fit(name, args, row), label)
  if (is.null(pair)) return(invisible())
  new_fit <- if (row$form == "formula") d$data_new else d$x_new
  expect_same_fit(pair$fit, pair$reference, new_fit, d$x_new, label, training = FALSE)
  # the training predictions: those of the complete rows (na.exclude pads
  # the dropped rows with NA)
  for (type in combination_types(name)) {
    training <- predict(pair$fit, type = type)
    if (row$na_action == "na.exclude") {
      testthat::expect_true(all(is.na(as.matrix(training)[d$missing_rows, ])), info = label)
      training <- if (is.factor(training)) training[complete] else training[complete, , drop = FALSE]
    }
    compare_predictions(training, predict(pair$reference, type = type),
                        sprintf("%s, training predictions of type \"%s\"", label, type), 1e-10)
  }
}

# onda(posterior = <fit>) = onda(posterior = function calling the fit's
# predict() on the data in the units the fit was fitted on (the model's
# defaults, scale = TRUE, fitted on the raw data)
check_posterior <- function(name, args, row, label) {
  d <- combination_data
  raw <- function(x_new) if (row$scale) unscale_by(x_new, d$x) else x_new
  model <- if (row$form == "formula") {
    tryCatch(do.call(combination_fit, c(list(name, y ~ ., data = d$data), args)), krein_error = function(e) NULL)
  } else {
    tryCatch(matrix_fit(name, args, row, scale = TRUE), krein_error = function(e) NULL)
  }
  if (is.null(model)) return(testthat::expect_true(TRUE))  # no fit to use (formula = matrix reports it)
  if (row$form == "formula") {
    by_hand <- function(x_train, y_train, x_new) predict(model, as.data.frame(raw(x_new)), type = "prob")
    pair <- fit_pair(combination_fit("onda", y ~ ., data = d$data, posterior = model, scale = row$scale),
                     combination_fit("onda", y ~ ., data = d$data, posterior = by_hand, scale = row$scale),
                     label)
    if (!is.null(pair)) expect_same_fit(pair$fit, pair$reference, d$data_new, d$data_new, label)
    return(invisible())
  }
  by_hand <- function(x_train, y_train, x_new) predict(model, raw(x_new), type = "prob")
  pair <- fit_pair(combination_fit("onda", d$x, d$y, posterior = model, scale = row$scale),
                   combination_fit("onda", d$x, d$y, posterior = by_hand, scale = row$scale), label)
  if (!is.null(pair)) expect_same_fit(pair$fit, pair$reference, d$x_new, d$x_new, label)
}

# A kernel computed on the training points, and on new points against them,
# as a precomputed kernel with its self-similarities
precomputed_pair <- function(kernel, x, x_new) {
  K <- kernel_matrix(kernel, x)
  list(K = K, new = precomputed_kernel(kernel_matrix(kernel, x_new, x), self = diag(kernel_matrix(kernel, x_new))))
}

# onda()'s generalised discriminant kernel, fitted on the raw data
discriminant_kernel <- local({
  kernel <- NULL
  function() {
    if (is.null(kernel)) {
      d <- combination_data
      kernel <<- kernel_discriminant(combination_fit("onda", d$x, d$y), "gdk")
    }
    kernel
  }
})

# A kernel fitted on data receives the data in its units whatever the
# model's `scale`: the fit equals the one on its precomputed kernel
check_discriminant_kernel <- function(name, args, row, label) {
  d <- combination_data
  kernel <- discriminant_kernel()
  pair <- precomputed_pair(kernel, d$x, d$x_new)
  fits <- fit_pair(do.call(combination_fit, c(list(name, d$x, d$y, kernel = kernel, scale = row$scale), args)),
                   do.call(cached_fit, c(list(key_of(row, "discriminant kernel, precomputed"), name, pair$K, d$y,
                                              kernel = "precomputed"), args)),
                   label)
  if (!is.null(fits)) expect_same_fit(fits$fit, fits$reference, d$x_new, pair$new, label)
}

# a kernel = its precomputed kernel (on the data as the model's `scale`
# gives them to the kernel), as a matrix and as a precomputed_kernel()
check_precomputed <- function(name, args, row, label) {
  d <- combination_data
  kernel <- kernel_rbf(0.7)
  x <- if (row$scale) scale_by(d$x, d$x) else d$x
  x_new <- if (row$scale) scale_by(d$x_new, d$x) else d$x_new
  pair <- precomputed_pair(kernel, x, x_new)
  fits <- fit_pair(do.call(combination_fit, c(list(name, d$x, d$y, kernel = kernel, scale = row$scale), args)),
                   do.call(combination_fit, c(list(name, pair$K, d$y, kernel = "precomputed"), args)),
                   label)
  if (is.null(fits)) return(invisible())
  # a Nystroem fit on the RBF kernel reduces the landmark kernel in the core's
  # landmark pass, the precomputed one in R's blocks: the same QR in other
  # blocks, equal to rounding amplified by the fit (as chunks against memory)
  tolerance <- if (grepl("Nystroem", label, fixed = TRUE)) 1e-8 else 1e-10
  expect_same_fit(fits$fit, fits$reference, d$x_new, pair$new, label, tolerance = tolerance)
  as_object <- do.call(combination_fit, c(list(name, precomputed_kernel(pair$K, diag(pair$K)), d$y), args))
  expect_same_fit(as_object, fits$reference, pair$new, pair$new, paste(label, "(precomputed_kernel())"),
                  tolerance = 1e-12)
}

# strings = their precomputed kernel: a function kernel, and
# kernel_dissimilarity() = kernel_from_dissimilarity() of the same
# dissimilarities (`scale` does not apply to objects)
check_strings <- function(name, args, row, label) {
  d <- combination_data
  fits <- fit_pair(
    do.call(combination_fit, c(list(name, d$strings, d$y, kernel = string_kernel, scale = row$scale), args)),
    do.call(cached_fit, c(list(key_of(row, "strings, precomputed"), name,
                               precomputed_kernel(string_kernels$K, diag(string_kernels$K)), d$y), args)),
    label)
  if (!is.null(fits)) expect_same_fit(fits$fit, fits$reference, d$strings_new, string_kernels$new, label)
  if (!row$scale) return(invisible())
  this <- paste(label, "(kernel_dissimilarity(adist) = kernel_from_dissimilarity())")
  converted <- kernel_from_dissimilarity(utils::adist(d$strings), "gaussian")
  fits <- fit_pair(
    do.call(combination_fit, c(list(name, d$strings, d$y, kernel = kernel_dissimilarity(utils::adist),
                                    scale = row$scale), args)),
    do.call(cached_fit, c(list(key_of(row, "strings, dissimilarities"), name, converted, d$y), args)),
    this)
  if (!is.null(fits)) {
    expect_same_fit(fits$fit, fits$reference, d$strings_new, utils::adist(d$strings_new, d$strings), this)
  }
}

# The landmarks of the chunked fits: a select_landmarks() result (its points
# and classes, which Ny-PCVM needs over chunks); in memory, its rows
chunk_landmark_set <- local({
  selected <- NULL
  function() {
    if (is.null(selected)) {
      d <- combination_data
      selected <<- select_landmarks(d$x, d$y, kernel = kernel_rbf(0.7), method = "meb", m = 9)
    }
    selected
  }
})

# chunks = in memory: the landmarks as points (chunks) and as the rows they
# are (in memory), an explicit kernel width and the median heuristic (its
# sample, `sample_rows`, holds every row); and predict() over chunks =
# predict() in memory. The merged per-chunk factors are exact only to
# rounding: 1e-8.
check_chunks <- function(name, args, row, label) {
  d <- combination_data
  info <- krein:::model_info(name)
  parts <- split(d$data, rep(1:2, c(20, 25)))
  response <- if (row$form == "chunks (formula)") y ~ x1 + x2 else "y"
  chunks <- krein_chunks(unname(parts), y = response)
  landmarks <- chunk_landmark_set()
  chunk_args <- info$landmark_args(landmarks)
  memory_args <- info$landmark_args(landmarks$indices)
  # the median heuristic once per model (a Ny-PCVM fit over chunks reads
  # them once per EM iteration: the slowest fits of this file)
  kernels <- list(list(kernel = kernel_rbf(0.7)), list())
  if (!row$scale || row$form != "chunks (column name)") kernels <- kernels[1]
  for (kernel in kernels) {
    this <- sprintf("%s, kernel %s", label, if (length(kernel)) "rbf(0.7)" else "rbf() (median heuristic)")
    fits <- fit_pair(do.call(combination_fit, c(list(name, chunks, scale = row$scale), kernel, chunk_args)),
                     do.call(combination_fit, c(list(name, d$x, d$y, scale = row$scale), kernel, memory_args)),
                     this)
    if (is.null(fits)) next
    expect_same_fit(fits$fit, fits$reference, d$data_new, d$x_new, this, tolerance = 1e-8)
  }
  if (is.null(fits)) return(invisible())
  new_chunks <- krein_chunks(list(d$data_new[1:4, ], d$data_new[5:9, ]))
  for (type in combination_types(name)) {
    compare_predictions(predict(fits$reference, new_chunks, type = type),
                        predict(fits$reference, d$x_new, type = type),
                        sprintf("%s, predict() over chunks, type \"%s\"", label, type), 1e-10)
  }
}

# scale = TRUE = scale = FALSE on scale()d data (and new data scaled by the
# training columns' means and standard deviations), with an explicit kernel
# and with the median heuristic (taken from the same scaled data)
check_scale <- function(name, args, row, label) {
  d <- combination_data
  xs <- scale_by(d$x, d$x)
  xs_new <- scale_by(d$x_new, d$x)
  # (a model without a kernel, onda, once)
  for (kernel in unique(list(combination_kernel(name), list()))) {
    this <- sprintf("%s, %s", label, if (length(kernel)) "explicit kernel" else "default kernel")
    fit <- if (length(kernel)) {
      quote(do.call(combination_fit, c(list(name, d$x, d$y, scale = TRUE), kernel, args)))
    } else {
      quote(matrix_fit(name, args, row, scale = TRUE))
    }
    fits <- fit_pair(eval(fit), do.call(combination_fit, c(list(name, xs, d$y, scale = FALSE), kernel, args)), this)
    if (!is.null(fits)) expect_same_fit(fits$fit, fits$reference, d$x_new, xs_new, this)
  }
}

# landmarks selected beforehand by select_landmarks() (with the model's
# `scale` and `eps`: pcvm()'s default differs from select_landmarks()') =
# landmarks selected by the fit
check_selected_landmarks <- function(name, args, row, label) {
  d <- combination_data
  kernel <- kernel_rbf(0.7)
  # a model without its own `eps` selects with select_landmarks()' default
  eps <- krein:::model_defaults(name, "eps")$eps
  if (is.null(eps)) eps <- eval(formals(select_landmarks)$eps)
  fits <- fit_pair(
    combination_fit(name, d$x, d$y, kernel = kernel, scale = row$scale,
                    landmarks = select_landmarks(d$x, d$y, kernel = kernel, method = "meb", eps = eps, m = 9,
                                                 scale = row$scale)),
    combination_fit(name, d$x, d$y, kernel = kernel, landmarks = "meb", m = 9, scale = row$scale),
    label)
  if (!is.null(fits)) expect_same_fit(fits$fit, fits$reference, d$x_new, d$x_new, label)
}
