# The inputs of a fit over data in chunks: the survey of the chunks (columns,
# types, levels, labels, missing values), the formula spec, the scaling from
# column moments merged over the chunks, inputs_from_chunks(), the sample of
# the first chunks and the landmarks of a chunked fit.

# ---------------------------------------------------------------------------
# The survey: columns, types, levels, labels, missing values

# A column's type as the checks compare it
column_type <- function(v) {
  if (is.factor(v)) return("factor")
  if (is.numeric(v)) return("numeric")
  if (is.logical(v)) return("logical")
  if (is.character(v)) return("character")
  class(v)[1]
}

chunk_schema <- function(data) {
  list(names = names(data), types = vapply(data, column_type, ""),
       levels = lapply(data, function(v) if (is.factor(v)) levels(v)))
}

check_chunk_schema <- function(data, schema, task) {
  if (is.null(schema)) return(invisible())
  label <- chunk_label(task, capital = TRUE)
  missing_cols <- setdiff(schema$names, names(data))
  extra <- setdiff(names(data), schema$names)
  if (length(missing_cols) || length(extra)) {
    krein_abort(sprintf("%s of `x` does not have the columns of the first chunk:%s%s.", label,
                        if (length(missing_cols)) paste0(" it lacks ", paste0("`", missing_cols, "`", collapse = ", ")) else "",
                        if (length(extra)) paste0(if (length(missing_cols)) " and" else "", " it has ",
                                                  paste0("`", extra, "`", collapse = ", "), " in addition") else ""))
  }
  for (name in schema$names) {
    type <- column_type(data[[name]])
    if (type != schema$types[[name]]) {
      krein_abort(sprintf("%s of `x` has column `%s` of type %s; in the first chunk it is %s.",
                          label, name, type, schema$types[[name]]))
    }
    if (type == "factor" && !identical(levels(data[[name]]), schema$levels[[name]])) {
      krein_abort(sprintf("%s of `x` has factor column `%s` with levels %s; in the first chunk they are %s.",
                          label, name, paste0("\"", levels(data[[name]]), "\"", collapse = ", "),
                          paste0("\"", schema$levels[[name]], "\"", collapse = ", ")))
    }
  }
  invisible()
}

# The response's variables and the predictor columns a chunk's survey looks at
chunk_columns <- function(response, names) {
  if (is.character(response)) {
    if (!response %in% names) {
      krein_abort(sprintf("`y` names the column `%s`, which the first chunk of `x` does not have; its columns are %s.",
                          response, format_indices(paste0("`", names, "`"))))
    }
    return(list(response = response, predictors = setdiff(names, response)))
  }
  terms <- stats::terms(response, data = as.data.frame(stats::setNames(rep(list(1), length(names)), names)))
  variables <- all.vars(response[[2L]])
  used <- intersect(names, all.vars(stats::delete.response(terms)))
  list(response = variables, predictors = used, terms = terms)
}

# `y ~ x1 + x2` -> `y ~ 1`: the response alone
response_only <- function(formula) {
  out <- formula
  out[[3L]] <- 1
  out
}

# One chunk's survey: its checks, rows, labels and the values of its
# character and factor predictors.
survey_chunk <- function(data, task, schema, response) {
  check_chunk_schema(data, schema, task)
  columns <- chunk_columns(response, names(data))
  used <- intersect(names(data), c(columns$response, columns$predictors))
  incomplete <- which(!stats::complete.cases(data[used]))
  if (length(incomplete)) {
    krein_abort(sprintf("%s of `x` has missing values in row%s %s; remove them from the data first.",
                        chunk_label(task, capital = TRUE), if (length(incomplete) > 1) "s" else "", format_indices(incomplete)))
  }
  y <- if (is.character(response)) data[[response]] else {
    mf <- tryCatch(stats::model.frame(response_only(response), data, na.action = stats::na.pass),
                   error = function(e) krein_abort(sprintf("The response `y` could not be evaluated in %s of `x`: %s",
                                                           chunk_label(task), conditionMessage(e))))
    stats::model.response(mf)
  }
  names(y) <- NULL
  categorical <- columns$predictors[vapply(data[columns$predictors], function(v) is.character(v) || is.factor(v), NA)]
  if (is.character(response) && length(categorical)) {
    krein_abort(sprintf("`x` has the %s column%s %s among the predictors; with `y` a column name all other columns must be numeric. Give `y` as a formula (e.g. %s ~ .) to dummy-code %s.",
                        column_type(data[[categorical[1]]]), if (length(categorical) > 1) "s" else "",
                        paste0("`", categorical, "`", collapse = ", "), response,
                        if (length(categorical) > 1) "them" else "it"))
  }
  list(y = y, values = lapply(data[categorical], function(v) unique(as.character(v))))
}

#' The survey of a chunk source: the response (a factor over all chunks,
#' chunk by chunk), the rows per chunk and the input spec, as a fit in memory
#' would build them from all rows.
#' @noRd
survey_chunks <- function(chunks) {
  response <- chunks$response
  if (is.null(response)) {
    krein_abort("`x` has no response: give krein_chunks(..., y = ) the column name or formula of the class labels.")
  }
  first <- map_chunks(chunks, function(data, task) chunk_schema(data), limit = 1)[[1L]]
  surveys <- map_chunks(chunks, survey_chunk, schema = first, response = response)
  rows <- vapply(surveys, function(s) attr(s, "rows"), numeric(1))
  labels <- do.call(c, lapply(surveys, `[[`, "y"))
  y <- as_class_factor(labels, 2L)
  outcome_levels <- outcome_levels_of(y)
  attr(y, "outcome_levels") <- NULL
  columns <- chunk_columns(response, first$names)
  if (is.character(response)) {
    spec <- list(type = "xy", colnames = columns$predictors, n_columns = length(columns$predictors))
    if (length(columns$predictors) == 0L) krein_abort("`x` has no predictor columns besides the response.")
  } else {
    spec <- chunk_formula_spec(response, first, surveys, columns)
  }
  list(y = y, outcome_levels = outcome_levels, rows = rows, spec = spec, schema = first)
}

# The formula spec of a fit in memory on all rows: the terms, the levels of
# factor predictors (those present in some chunk, in their order) and of
# character ones (all values, sorted, as factor() makes them), the contrasts.
chunk_formula_spec <- function(formula, schema, surveys, columns) {
  categorical <- names(surveys[[1L]]$values)
  levels <- lapply(stats::setNames(categorical, categorical), function(name) {
    present <- unique(unlist(lapply(surveys, function(s) s$values[[name]]), use.names = FALSE))
    if (schema$types[[name]] == "factor") intersect(schema$levels[[name]], present) else sort(present)
  })
  single <- names(levels)[lengths(levels) < 2L]
  if (length(single)) {
    krein_abort(sprintf("`x` has the factor predictor%s %s with a single level in all chunks; a constant carries no information. Leave %s out of the formula.",
                        if (length(single) > 1) "s" else "", paste0("`", single, "`", collapse = ", "),
                        if (length(single) > 1) "them" else "it"))
  }
  # a one-row frame per level combination is enough for the terms and contrasts
  size <- max(2L, lengths(levels))
  frame <- lapply(stats::setNames(schema$names, schema$names), function(name) {
    if (name %in% categorical) factor(rep_len(levels[[name]], size), levels = levels[[name]])
    else if (schema$types[[name]] == "logical") rep(c(TRUE, FALSE), length.out = size)
    else seq_len(size) + 0
  })
  frame <- as.data.frame(frame, stringsAsFactors = FALSE)
  mf <- stats::model.frame(formula, frame, na.action = stats::na.pass)
  terms <- attr(mf, "terms")
  x <- model_matrix_without_intercept(terms, mf, NULL)
  if (ncol(x) == 0L) krein_abort("`y` must have at least one predictor on its right-hand side.")
  list(type = "formula", terms = terms, xlevels = stats::.getXlevels(terms, mf),
       contrasts = attr(x, "contrasts"), colnames = colnames(x), n_columns = ncol(x))
}

# The predictor matrix of a chunk in the spec's columns, scaled as the fit
# scales (spec$scaling; none before the scaling pass)
chunk_predictors <- function(spec, data) {
  x <- switch(spec$type,
    formula = new_formula_data(spec, data),
    xy = as_numeric_matrix(data[spec$colnames], "x"))
  check_no_infinite(x, "x")
  scale_columns(spec$scaling, x)
}

# ---------------------------------------------------------------------------
# Scaling over chunks: per chunk the count, means and centred sums of squares,
# merged with the pairwise update of Chan, Golub and LeVeque (1983):
# M2 = M2_a + M2_b + delta^2 n_a n_b / n, delta = mean_b - mean_a.
# As in column_scaling(), each column is held in units of a power of two at or
# above its largest magnitude (`size`; exact), so that the squares of tiny
# (1e-300) or huge (1e300) columns neither underflow nor overflow; two chunks
# merge in the larger of their units.

chunk_moments <- function(data, task, spec) {
  x <- chunk_predictors(spec, data)
  size <- pow2_size(apply(abs(x), 2L, max))
  z <- sweep(x, 2L, size, "/", check.margin = FALSE)
  center <- colMeans(z)
  list(n = nrow(x), size = size, mean = center, m2 = colSums(sweep(z, 2L, center, check.margin = FALSE)^2))
}

merge_moments <- function(a, b) {
  size <- pmax(a$size, b$size)
  a_mean <- a$mean * (a$size / size)
  b_mean <- b$mean * (b$size / size)
  n <- a$n + b$n
  delta <- b_mean - a_mean
  list(n = n, size = size, mean = a_mean + delta * b$n / n,
       m2 = a$m2 * (a$size / size)^2 + b$m2 * (b$size / size)^2 + delta^2 * (as.double(a$n) * b$n / n))
}

# column_scaling()'s result (and its message on constant columns) from moments
scaling_from_moments <- function(moments, names) {
  total <- Reduce(merge_moments, moments)
  center <- total$mean * total$size
  scale <- (if (total$n > 1) sqrt(total$m2 / (total$n - 1)) else rep(0, length(center))) * total$size
  constant <- !is.finite(scale) | scale <= 100 * .Machine$double.eps * abs(center)
  if (any(constant)) {
    message(sprintf("Constant predictor column%s %s: centred but not scaled.",
                    if (sum(constant) > 1) "s" else "", paste0("`", names[constant], "`", collapse = ", ")))
    scale[constant] <- 1
  }
  names(center) <- names(scale) <- names(constant) <- names
  list(center = center, scale = scale, constant = constant)
}

# ---------------------------------------------------------------------------
# The inputs of a chunked fit

#' The inputs of a model fit over chunks, from the request inputs_from_xy()
#' made in the model's default method: the model's registry entry says
#' whether it fits over chunks and checks its arguments (`args`, defaults
#' filled in) before the first pass.
#' @noRd
chunked_inputs <- function(info, request, args) {
  if (is.null(info$chunks)) {
    krein_abort(sprintf("`x` is data in chunks (krein_chunks()), over which %s() does not fit; the fits that do: %s. Read the data into memory for %s().",
                        info$name, chunk_model_names(), info$name))
  }
  info$chunks(args)
  inputs <- inputs_from_chunks(request$chunks, request$kernel, scale = request$scale, na.action = request$na.action)
  # the fit's `threads` as the user gave it: the passes over the chunks share
  # the cores among the workers unless it is set (map_chunks())
  inputs$threads <- args$threads
  inputs
}

# "ikfd(), kfda(), ...": the models whose registry entry says they fit over chunks
chunk_model_names <- function() {
  names <- Filter(function(name) !is.null(model_info(name)$chunks), registered_models())
  paste0(names, "()", collapse = ", ")
}

#' What the model methods get for chunked data: a `krein_inputs` with the
#' labels, the spec (scaling and resolved kernel included), no `x`, and the
#' chunk source (class `krein_chunked_inputs`; the Nystroem fits map over
#' it, see chunk_class_factors()).
#' @noRd
inputs_from_chunks <- function(chunks, kernel, scale = TRUE, na.action = NULL) {
  scale <- check_flag(scale, "scale")
  if (!is.null(na.action) && na_action_name(na.action) != "fail") {
    krein_abort("`na.action` must be left NULL for chunked data, whose rows cannot be dropped: missing values there are an error naming the chunk; remove them from the chunks first.")
  }
  survey <- survey_chunks(chunks)
  spec <- survey$spec
  rows <- survey$rows
  codes <- split(as.integer(survey$y), rep(seq_along(rows), rows))
  names(codes) <- NULL
  if (missing(kernel) || is.null(kernel)) krein_abort("`kernel` is missing; give a kernel, e.g. kernel_rbf().")
  if (identical(kernel, "precomputed") || inherits(kernel, "krein_precomputed")) {
    krein_abort("`kernel` cannot be \"precomputed\" for chunked data; give a kernel function such as kernel_rbf(1).")
  }
  kernel <- as_krein_kernel(kernel)
  # a kernel fitted on data takes its own units, whatever `scale` (input_units(), R/inputs.R)
  units <- input_units(kernel, list(), spec$n_columns)
  if (!is.null(units)) {
    spec$scaling <- units$scaling
  } else if (scale) {
    moments <- map_chunks(chunks, chunk_moments, spec = spec, per_chunk = codes)
    spec$scaling <- scaling_from_moments(moments, spec$colnames)
  }
  inputs <- structure(list(x = NULL, y = survey$y, kernel = kernel, precomputed = NULL, na_action = NULL,
                           spec = NULL, chunks = chunks, codes = codes),
                      class = c("krein_chunked_inputs", "krein_inputs"))
  sample <- NULL
  # a Gaussian width left to the data, as finish_inputs() records it
  inputs$width_from_data <- inherits(kernel, "krein_kernel_rbf") && is.null(kernel$params$gamma)
  if (kernel_needs_data(kernel)) {
    sample <- chunk_sample(inputs, spec)
    kernel <- resolve_kernel(kernel, sample$x, spec$scaling)
  }
  check_kernel_dimension(kernel, spec$n_columns)
  spec$kernel <- kernel
  spec$n_train <- length(survey$y)
  spec$levels <- levels(survey$y)
  spec$outcome_levels <- survey$outcome_levels
  inputs$kernel <- kernel
  inputs$spec <- structure(spec, class = "krein_input_spec")
  inputs$sample <- sample
  inputs
}

# The rows of the first chunks, up to sample_rows, scaled: where landmark
# methods and kernel parameters from data look.
chunk_sample <- function(inputs, spec, limit = inputs$chunks$sample_rows) {
  if (!is.null(inputs$sample) && nrow(inputs$sample$x) >= min(limit, length(inputs$y))) {
    take <- seq_len(min(nrow(inputs$sample$x), limit))
    return(list(x = inputs$sample$x[take, , drop = FALSE], y = inputs$sample$y[take]))
  }
  parts <- map_chunks(inputs$chunks, function(data, task, spec) {
    list(x = chunk_predictors(spec, data), y = task$extra)
  }, spec = spec, per_chunk = inputs$codes, limit = limit, threads = inputs$threads)
  x <- do.call(rbind, lapply(parts, `[[`, "x"))
  codes <- unlist(lapply(parts, `[[`, "y"), use.names = FALSE)
  take <- seq_len(min(nrow(x), limit))
  list(x = x[take, , drop = FALSE], y = factor(levels(inputs$y)[codes[take]], levels = levels(inputs$y)))
}

#' Landmarks of a chunked fit: points (original units) or a krein_landmarks
#' with points, scaled as the fit scales; a method name selects them on the
#' sample of the first chunks.
#' @noRd
chunk_landmarks <- function(landmarks, inputs, eps, m, threads, arg = "landmarks") {
  spec <- inputs$spec
  levels <- levels(inputs$y)
  if (is.character(landmarks)) {
    method <- check_choice(landmarks, arg, c(if (arg == "landmarks") "auto", "meb", "kmeans", "random"))
    sample <- chunk_sample(inputs, spec)
    sample_inputs <- list(x = sample$x, y = droplevels(sample$y), kernel = inputs$kernel, precomputed = NULL)
    selected <- landmarks_from_inputs(sample_inputs, method = method, eps = eps, m = m, threads = threads)
    selected$class <- factor(as.character(selected$class), levels = levels)
    selected$levels <- levels
    # indices refer to the sample, not to the training rows
    selected$indices <- NULL
    selected$sample <- TRUE
    return(selected)
  }
  if (inherits(landmarks, "krein_landmarks")) {
    if (is.null(landmarks$points)) {
      krein_abort(sprintf("`%s` was selected on a precomputed kernel; a chunked fit needs points.", arg))
    }
    points <- landmarks$points
    class <- factor(as.character(landmarks$class), levels = levels)
    method <- landmarks$method
  } else if (is.matrix(landmarks) || is.data.frame(landmarks)) {
    points <- landmarks
    class <- factor(rep(NA_character_, nrow(points)), levels = levels)
    method <- "points"
  } else {
    krein_abort(sprintf("`%s` must be a matrix of landmark points, a `krein_landmarks` object or a method name (\"meb\", \"kmeans\", \"random\") for chunked data, not %s; row indices cannot point into chunks.",
                        arg, describe_value(landmarks)))
  }
  points <- check_numeric_matrix(points, arg)
  if (ncol(points) != spec$n_columns) {
    krein_abort(sprintf("`%s` must have %d columns, one per predictor column, not %d.", arg, spec$n_columns, ncol(points)))
  }
  if (!is.null(colnames(points)) && all(spec$colnames %in% colnames(points))) points <- points[, spec$colnames, drop = FALSE]
  if (nrow(points) < 1L) krein_abort(sprintf("`%s` must hold at least one point.", arg))
  points <- scale_columns(spec$scaling, points)
  dimnames(points) <- list(NULL, spec$colnames)
  structure(list(method = method, indices = NULL, points = points, class = class, n = length(inputs$y),
                 levels = levels, precomputed = FALSE),
            class = "krein_landmarks")
}


