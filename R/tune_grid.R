# The grid of tune_krein(): a grid given as a list or data frame, checked
# column by column before any fit (kernel parameters by the kernel's
# constructor, model arguments by probing the model's own fitting function),
# the default grid (the model's registry entry and the kernel's width), and
# the warning when the best value lies at an edge of the grid.

# ---------------------------------------------------------------------------
# Checking a grid

empty_grid_message <- paste(
  "`grid` is empty; give at least one value of each parameter.",
  "To cross-validate a single setting, give one of its parameters as a single value, e.g. `list(reg = 1e-3)`.")

tuning_grid <- function(grid, info, tunable, precomputed, fixed_names) {
  if (!is.data.frame(grid)) {
    if (is.list(grid) && length(grid) == 0L) krein_abort(empty_grid_message)
    if (!is.list(grid) || is.null(names(grid)) || any(!nzchar(names(grid)))) {
      krein_abort(sprintf("`grid` must be a data frame or a named list of parameter values, not %s.", describe_value(grid)))
    }
    check_grid_columns(grid)
    if (length(grid) == 0L || any(lengths(grid) == 0L)) krein_abort(empty_grid_message)
    grid <- expand.grid(grid, stringsAsFactors = FALSE, KEEP.OUT.ATTRS = FALSE)
  }
  if (nrow(grid) == 0L || ncol(grid) == 0L) krein_abort(empty_grid_message)
  check_grid_columns(grid)
  for (j in seq_along(grid)) if (is.factor(grid[[j]])) grid[[j]] <- as.character(grid[[j]])
  kernel_names <- if (is.null(tunable)) character() else kernel_parameter_names(tunable)
  allowed <- c(setdiff(tuning_argument_names(info), "threads"), kernel_names)
  unknown <- setdiff(names(grid), allowed)
  if (precomputed && info$uses_kernel && any(unknown %in% builtin_kernel_parameter_names())) {
    krein_abort("`grid` has kernel parameters, but `x` is a precomputed kernel; tune the model's own parameters only.")
  }
  if (length(unknown)) {
    krein_abort(sprintf("`grid` has unknown parameter%s %s for %s(); its parameters are %s.",
                        if (length(unknown) > 1) "s" else "", paste0("`", unknown, "`", collapse = ", "),
                        info$name, paste0("`", allowed, "`", collapse = ", ")))
  }
  twice <- intersect(names(grid), fixed_names)
  if (length(twice)) {
    krein_abort(sprintf("%s %s both in `grid` and among the fixed arguments; give %s in one place.",
                        paste0("`", twice, "`", collapse = ", "), if (length(twice) > 1) "are" else "is",
                        if (length(twice) > 1) "each" else "it"))
  }
  grid
}

# A grid's columns: each named once, each a vector of numbers, strings or
# logicals (expand.grid() and the folds cannot take a function or a list)
check_grid_columns <- function(grid) {
  twice <- unique(names(grid)[duplicated(names(grid))])
  if (length(twice)) {
    krein_abort(sprintf("`grid` names %s more than once; give all values of a parameter in one column, e.g. list(%s = c(...)).",
                        paste0("`", twice, "`", collapse = ", "), twice[1]))
  }
  for (column in names(grid)) {
    v <- grid[[column]]
    if (!(is.atomic(v) && (is.numeric(v) || is.character(v) || is.logical(v) || is.factor(v)))) {
      krein_abort(sprintf("`grid` column `%s` must be a vector of numbers, strings or TRUE/FALSE values, not %s.",
                          column, describe_value(v)))
    }
  }
  invisible(grid)
}

# The parameters of krein's kernel constructors (a precomputed kernel has
# none of them, unless it can be rebuilt with them)
builtin_kernel_parameter_names <- function() {
  unique(unlist(lapply(c("linear", "poly", "tanh", "elm", "rbf", "rbf_diag", "dist", "epanechnikov"), function(k) {
    names(formals(get(paste0("kernel_", k), mode = "function")))
  })))
}

#' Every grid value must lie in its parameter's domain: an error naming the
#' column and its bad values, before any fit. Kernel parameters are checked
#' by the kernel's constructor; model arguments by the model's own fitting
#' function, run on the real inputs up to the point where it first needs the
#' kernel or the data (probe_model_argument()).
#' @noRd
check_grid_values <- function(grid, info, kernel, inputs, fixed, arg = "grid") {
  problems <- grid_value_problems(grid, info, kernel, inputs, fixed)
  for (column in names(problems)) {
    values <- problems[[column]]$values
    bad <- problems[[column]]$bad
    if (any(bad)) {
      krein_abort(sprintf("`%s` column `%s` has %s %s: %s", arg,
                          column, if (sum(bad) > 1) "invalid values" else "an invalid value",
                          paste(vapply(values[bad], format_grid_value, ""), collapse = ", "),
                          problems[[column]]$messages[bad][[1]]))
    }
  }
  invisible(grid)
}

#' For each column of a grid that holds parameters of the model or the
#' kernel: its distinct values, which of them are invalid and why
#' @noRd
grid_value_problems <- function(grid, info, kernel, inputs, fixed) {
  kernel_names <- if (is.null(kernel)) character() else kernel_parameter_names(kernel)
  model_names <- intersect(names(grid), setdiff(fit_argument_names(info), "threads"))
  out <- list()
  for (column in names(grid)) {
    values <- unique(grid[[column]])
    check <- if (column %in% kernel_names) {
      function(v) probe_kernel_parameter(kernel, column, v)
    } else if (column %in% model_names) {
      function(v) probe_model_argument(info, inputs, fixed, column, v)
    } else {
      next  # a predict argument: checked by predict() in each fold
    }
    messages <- lapply(values, check)
    out[[column]] <- list(values = values, messages = messages,
                          bad = !vapply(messages, is.null, logical(1)))
  }
  out
}

format_grid_value <- function(v) if (is.character(v)) paste0("\"", v, "\"") else format(v, digits = 7)

#' NULL if the kernel's constructor accepts `value` for `parameter`, else its
#' message (kernels without a constructor of krein's are not checked)
#' @noRd
probe_kernel_parameter <- function(kernel, parameter, value) {
  if (!inherits(kernel, "krein_kernel")) {
    # a precomputed kernel rebuilt with the value checks it itself
    return(tryCatch({
      with_kernel_parameters(kernel, stats::setNames(list(value), parameter))
      NULL
    }, krein_error = function(e) conditionMessage(e)))
  }
  base <- if (inherits(kernel, "krein_kernel_invariant")) kernel$base else kernel
  if (!is_builtin_kernel(base)) return(probe_object_kernel_parameter(base, parameter, value))  # R/object_kernels.R
  params <- base$params
  params[parameter] <- list(value)
  tryCatch({
    do.call(get(paste0("kernel_", base$name), mode = "function"), params)
    NULL
  }, krein_error = function(e) conditionMessage(e))
}

#' NULL if the model's fitting function accepts `value` for `argument`, else
#' its message. The fit runs on the real labels (so that class-dependent
#' domains are those of the data) until it first asks for the kernel or the
#' kernel's parameters, where a signal stops it: arguments are validated
#' before that in every model. Only an error that names the argument counts.
#' Models on the input features (no kernel) run to the end.
#' @noRd
probe_model_argument <- function(info, inputs, fixed, argument, value) {
  args <- fixed
  args[argument] <- list(value)
  # the model's defaults for the rest, as fit_model() fills them
  defaults <- model_defaults(info$name)
  args <- c(args, defaults[setdiff(names(defaults), names(args))])
  # `spectrum` is fit_model()'s, not the fitting function's
  if (identical(argument, "spectrum")) {
    return(tryCatch({
      check_spectrum(value)
      NULL
    }, krein_error = function(e) conditionMessage(e)))
  }
  args$spectrum <- NULL
  # the form, as fit_model() chooses it (R/form.R)
  args <- choose_form(info, inputs, args)$args
  probe <- inputs
  if (info$uses_kernel) {
    if (is.null(probe$precomputed)) probe$kernel <- probe_stop else probe$precomputed <- probe_stop
  }
  saved <- get_random_state()
  on.exit(set_random_state(saved), add = TRUE)
  fit_function <- get(info$fit, mode = "function")
  named <- sprintf("`%s`", argument)
  tryCatch({
    suppressWarnings(suppressMessages(do.call(fit_function, c(list(probe), args))))
    NULL
  }, krein_probe_stop = function(e) NULL,
  krein_error = function(e) if (grepl(named, conditionMessage(e), fixed = TRUE)) conditionMessage(e),
  error = function(e) NULL)
}

# Stands for the kernel (or the precomputed kernel) while a model's arguments
# are probed: any use of it stops the fit with a krein_probe_stop condition.
probe_stop <- structure(list(), class = "krein_probe_stop_object")
#' @export
`$.krein_probe_stop_object` <- function(x, name) {
  stop(structure(class = c("krein_probe_stop", "condition"), list(message = "probe stop", call = NULL)))
}
#' @export
`[[.krein_probe_stop_object` <- `$.krein_probe_stop_object`

#' Log-loss and the Brier score judge probabilities as probabilities: refuse
#' them for a grid point whose "prob" is only a monotone score (kqd's softmax
#' of decision values under the error bias), whose best value would reward a
#' scale the model never fitted.
#' @noRd
check_metric_calibrated <- function(metric, info, grid, fixed) {
  if (metric == "error") return(invisible())
  rows <- if (nrow(grid)) seq_len(nrow(grid)) else 0L
  verdicts <- lapply(rows, function(i) {
    info$calibrated(c(fixed, if (i > 0L) as.list(grid[i, , drop = FALSE])))
  })
  refused <- !vapply(verdicts, isTRUE, logical(1))
  if (!any(refused)) return(invisible())
  krein_abort(sprintf(
    "`metric = \"%s\"` judges probabilities, but %s()'s `type = \"prob\"` is not a calibrated probability at %s: %s Use `metric = \"error\"`.",
    metric, info$name, if (all(refused)) "any grid point" else sprintf("%d of the %d grid points", sum(refused), length(refused)),
    verdicts[[which(refused)[1]]]))
}

# ---------------------------------------------------------------------------
# Kernel parameters: what a grid may set, and the default width
#
# Three internal generics make a kernel's parameters tunable. Methods exist
# for krein's kernels (their `params`, those of the base of an invariant
# kernel); a precomputed kernel that can be rebuilt with other parameters
# (such as a conversion of dissimilarities with a width) joins by methods for
# its class: kernel_parameter_names() lists the parameters,
# with_kernel_parameters() returns the object rebuilt with new values (and
# validates them with krein errors), default_kernel_grid() gives its part of
# the default grid. tune_krein() rebuilds a precomputed kernel once per
# combination of its parameters and cuts the result into folds.

#' The parameters of a kernel (or of a precomputed kernel) a grid may set
#' @noRd
kernel_parameter_names <- function(kernel) UseMethod("kernel_parameter_names")
#' @export
kernel_parameter_names.default <- function(kernel) character()
#' @export
kernel_parameter_names.krein_kernel <- function(kernel) names(kernel$params)
#' @export
kernel_parameter_names.krein_kernel_invariant <- function(kernel) names(kernel$base$params)

#' The kernel with some of its parameters set to `values` (a named list)
#' @noRd
with_kernel_parameters <- function(kernel, values) {
  if (length(values) == 0L) return(kernel)
  UseMethod("with_kernel_parameters")
}
#' @export
with_kernel_parameters.default <- function(kernel, values) {
  krein_abort(sprintf("%s has no parameters that tuning can set.", describe_value(kernel)))
}
#' @export
with_kernel_parameters.krein_kernel <- function(kernel, values) {
  for (nm in names(values)) kernel$params[[nm]] <- values[[nm]]
  kernel
}
#' @export
with_kernel_parameters.krein_kernel_invariant <- function(kernel, values) {
  for (nm in names(values)) kernel$base$params[[nm]] <- values[[nm]]
  kernel
}

#' A kernel's part of tune_krein()'s default grid: a named list of values.
#' `x` are the inputs as the model sees them (scaled where it scales them).
#' @noRd
default_kernel_grid <- function(kernel, x, size) UseMethod("default_kernel_grid")
#' @export
default_kernel_grid.default <- function(kernel, x, size) list()
#' @export
default_kernel_grid.krein_kernel_rbf <- function(kernel, x, size) {
  # only a width left to the data is tuned; a width the user gave stays
  if (!is.null(kernel$params$gamma)) return(list())
  # around the width the kernel would take (width_grid_center(), the rule
  # of caret_model() and the parsnip engines too)
  list(gamma = width_grid_center(x, kernel, scaled = TRUE) * width_factors(size))
}
#' @export
default_kernel_grid.krein_kernel_invariant <- function(kernel, x, size) default_kernel_grid(kernel$base, x, size)
#' @export
default_kernel_grid.krein_kernel_dissimilarity <- function(kernel, x, size) {
  # the Gaussian conversion's width left to the data: factors around the
  # median heuristic of the objects' dissimilarities, as for the RBF width
  if (!identical(kernel$method, "gaussian") || !is.null(kernel$params$gamma)) return(list())
  # x: tune_krein()'s cache of the objects' dissimilarities (computed once)
  list(gamma = dissimilarity_median_gamma(x$D) * width_factors(size))
}

# The tuning range of kqd's and kmdc's `reg` (their registry `ranges`,
# documented in ?tune_krein): sigma^2 for RC over the range of kqd()'s
# default path for kernels with k(x, x) = 1 (the cross-validated choices on
# real data reach 1e-5: spam, Vowel), alpha for IC and FK around their
# default 1e-3.
reg_range <- function(variant) if (startsWith(variant[1], "RC")) c(-5, 1) else c(-5, -1)

# kfda: the size of the reduction (components, random bases) or the ridge
kfda_default_grid <- function(size, args, data) {
  reduce <- model_argument("kfda", args, "reduce")[1]
  # left to choose, the form the whole data would take (R/form.R)
  if (identical(reduce, "auto")) reduce <- if (data$n > full_max_rows(model_info("kfda"))) "subset" else "pca"
  if (identical(reduce, "ridge")) return(list(ridge = range_values(tuning_range("kfda", "ridge", args), size)))
  upper <- max(2, min(64, floor(data$n / 2)))
  counts <- unique(round(2^seq(1, log2(upper), length.out = size)))
  if (identical(reduce, "subset")) list(bases = counts) else list(ncomp = counts)
}

# Factors around the median-heuristic width: log-spaced over the registry's
# width_range (1/32 .. 32), the middle value (odd sizes) the heuristic itself.
width_factors <- function(size) range_values(width_range, size)

#' The grid tune_krein() uses when none is given: the kernel's width from the
#' median heuristic on the (scaled) inputs, and the model's own values from
#' its registry entry
#' @noRd
default_tuning_grid <- function(info, tunable, x, scale, fixed, size, n_train, n_classes) {
  inputs <- NULL
  if (!inherits(x, "krein_precomputed")) {
    inputs <- x
    # strings and other objects are not scaled (their kernel needs no coordinates)
    if (scale && is.matrix(x) && is.numeric(x)) inputs <- scale_columns(suppressMessages(column_scaling(x)), x)
  }
  values <- info$default_grid(size, fixed, list(x = inputs, n = n_train, n_classes = n_classes))
  if (!is.null(tunable)) {
    values <- c(values, default_kernel_grid(tunable, if (is.null(inputs)) x else inputs, size))
  }
  values <- values[setdiff(names(values), names(fixed))]
  if (length(values) == 0L) {
    krein_abort(sprintf("`grid` is missing, and %s() has no default grid%s; give `grid`, e.g. a list of kernel parameter values.",
                        info$name, if (!is.null(tunable)) " with this kernel" else ""))
  }
  expand.grid(values, stringsAsFactors = FALSE, KEEP.OUT.ATTRS = FALSE)
}

# ---------------------------------------------------------------------------
# The edges of the grid

#' Warn where the best value of a numeric parameter with three or more
#' values in the grid is the grid's smallest or largest: the optimum may lie
#' beyond. No warning where the grid already ends at the edge of the
#' parameter's domain (k = 1 neighbour, a share of 1): the next value beyond
#' it, one more step of the grid's spacing (a factor for log-spaced grids),
#' is probed as the grid's values were checked.
#' @noRd
warn_grid_edges <- function(grid, best, results, info, kernel, inputs, fixed) {
  ok <- results$failed == 0
  for (p in names(grid)) {
    values <- sort(unique(grid[[p]]))
    if (!is.numeric(values) || length(values) < 3L) next
    b <- best[[p]]
    at_low <- b == values[1]
    at_high <- b == values[length(values)]
    if (!at_low && !at_high) next
    # a tie with the neighbouring value (a flat profile) points nowhere
    neighbour <- if (at_low) values[2] else values[length(values) - 1L]
    next_best <- suppressWarnings(min(results$mean[ok & grid[[p]] == neighbour]))
    best_here <- min(results$mean[ok & grid[[p]] == b])
    if (!(best_here < next_best)) next
    beyond <- if (at_low) grid_step_beyond(values, "below") else grid_step_beyond(values, "above")
    probe <- data.frame(beyond)
    names(probe) <- p
    problems <- tryCatch(grid_value_problems(probe, info, kernel, inputs, fixed)[[p]],
                         error = function(e) NULL)
    if (!is.null(problems) && any(problems$bad)) next
    krein_warn(sprintf("The best `%s` (%s) is the %s in the grid; extend the grid %s it.", p, format(b, digits = 4),
                       if (at_low) "smallest" else "largest", if (at_low) "below" else "above"),
               class = "krein_grid_edge_warning")
  }
  invisible()
}

# Is the grid log-spaced: positive values with one ratio between neighbours?
log_spaced <- function(values) {
  values <- sort(unique(values))
  if (length(values) < 3L || any(values <= 0)) return(FALSE)
  ratios <- values[-1] / values[-length(values)]
  all(abs(ratios / ratios[1] - 1) < 1e-6)
}

# The value one step beyond the end of a sorted grid: by its ratio where the
# grid is log-spaced, else by its last difference
grid_step_beyond <- function(values, side) {
  n <- length(values)
  if (log_spaced(values) || (all(values > 0) && max(values) / min(values) >= 100)) {
    return(if (side == "below") values[1]^2 / values[2] else values[n]^2 / values[n - 1L])
  }
  step <- if (side == "below") values[2] - values[1] else values[n] - values[n - 1L]
  if (side == "below") values[1] - step else values[n] + step
}
