# The model contract. Every krein classifier is a small file that supplies its
# parts; this file supplies the rest, the same for every model:
#
#   * a registry entry: a function model_registration_<name>() at the end of
#     the model's file that calls register_krein_model() (register_models()
#     calls them all when the package loads): its fitting function, label, tunable arguments, path argument,
#     extra predict types and predict arguments, and whether it needs
#     self-similarities or the raw inputs (tune_krein(), caret_model() and
#     later engines read it);
#   * the generic and its methods, in the same shape for all models:
#       model.formula(formula, data, ..., subset, na.action, kernel, scale)
#       model.default(x, y, ..., kernel, scale, <the model's arguments>, na.action, threads)
#     Everything after `...` must be named in full, so no user argument can be
#     captured by partial matching; both methods end in fit_model(), which
#     refuses unknown arguments;
#   * a method of krein_scores() giving the model's "prob" and "decision"
#     matrices (and its extra types) for new inputs, or for the training data
#     when `new` is NULL;
#   * optionally model_title(), model_print_lines(), model_summary() and
#     plot_model_diagnostic() methods for its own lines and views.
#
# predict(), print(), summary(), fitted(), nobs() and plot() are the methods of
# class `krein_model` below.

# ---------------------------------------------------------------------------
# The registry

krein_registry <- new.env(parent = emptyenv())

#' Register a model with the contract
#'
#' @param name The model's name, also its class and its generic's name.
#' @param label A short description for print().
#' @param fit The name of the internal fitting function, `function(inputs,
#'   <model arguments>)`, returning the model's fields as a list.
#' @param parameters The tunable model arguments: a data frame with `parameter`,
#'   `class` ("numeric" or "character") and `label`; kernel parameters are
#'   tunable for every kernel model and are not listed.
#' @param path The argument along which one fit computes a whole path of
#'   values (kqd's `reg`), or NULL.
#' @param needs_self `function(args)`: does a fit with these arguments need the
#'   self-similarities k(x, x) of new points?
#' @param needs_inputs `function(args)`: must a fit with these arguments see the
#'   inputs themselves rather than a kernel matrix (k-means landmarks, a model
#'   on the features)?
#' @param types Predict types beyond "class", "prob" and "decision".
#' @param predict_args Extra arguments of predict() (such as kqd's `reg`).
#' @param uses_kernel FALSE for a model on the features themselves (onda).
#' @param renamed Former argument names and their new ones, e.g.
#'   `c(reg = "ridge_relative")`, so that an old name gets a pointer.
#' @param default_grid `function(size, args, data)`: the model's own part of
#'   tune_krein()'s default grid, a named list of values (about `size` per
#'   numeric parameter) given the fixed arguments `args` and `data`, a list
#'   with `x` (the training inputs as the model sees them, scaled; NULL for a
#'   precomputed kernel), `n` and `n_classes`. The kernel's width is added by
#'   tune_krein() (default_kernel_grid()).
#' @param path_values `function(values)`: how the grid's values of the path
#'   argument are given to the fitting function in one fit (a vector for kqd;
#'   kmdc, whose vector `reg` is one value per class, takes a one-column
#'   matrix).
#' @param calibrated `function(args)`: TRUE when `predict(type = "prob")` of
#'   a fit with these arguments is a probability model that log-loss and the
#'   Brier score may judge; otherwise a sentence saying why not (kqd's
#'   softmax of decision values under the error bias).
#'
#' @param ranges `function(args)`: the tuning ranges of the model's numeric
#'   parameters given its fixed arguments `args` (kqd's `reg` by `variant`),
#'   a named list of `c(from, to)` in log10 units. With the kernel width's
#'   (`width_range`, the same for every model) this is the one table of
#'   tuning ranges: tune_krein()'s default grid, caret_model()'s default
#'   grid and the dials parameters of the parsnip engines read it
#'   (tuning_range()).
#' @param parsnip NULL, or the parsnip model the model is the `"krein"`
#'   engine of: a list with `model` (e.g. "discrim_quad") and `args`, one
#'   element per tuned argument under parsnip's name, a list with `krein`
#'   (the model's name of it), `main` (a main argument of the parsnip model,
#'   which parsnip renames; else an engine argument) and `dials` (the dials
#'   parameter, list(pkg, fun)). The engines are registered from these
#'   (register_parsnip_engines()).
#' @param chunks NULL for a model that does not fit over data in chunks
#'   ([krein_chunks()]), else `function(args)` that refuses, before any pass
#'   over the chunks, arguments (all of them, defaults filled in) with which
#'   it cannot (a Nystroem fit needs `landmarks`).
#' @param landmark_args `function(landmarks)`: the model arguments of a
#'   Nystroem fit (or a fit on a subset of bases) on the given landmarks:
#'   training-row indices, or (for data in chunks) a select_landmarks()
#'   result, e.g. `list(landmarks = landmarks)`; NULL for a model without
#'   one. The property test over the registry (test-combinations.R) reads it.
#' @param full_form `function(args)`: TRUE when the fit with these arguments
#'   (defaults filled in) is a full form, which holds n x n matrices
#'   (check_full_form_memory(), R/memory.R); FALSE for a Nystroem form or a
#'   model on the features.
#' @param full_copies The n x n matrices of doubles a full form holds at its
#'   peak, measured (bench/README.md, "Memory of the full forms") and rounded
#'   up with a margin of one.
#' @param forms NULL for a model with one form; else how its default
#'   (`"auto"`) chooses between its full and its Nystroem form (choose_form(),
#'   R/form.R): `argument`, the argument that sets the form; `full`, its
#'   value for the full form (a list); `nystrom(inputs, args)`, the arguments
#'   of its automatic Nystroem form; optionally `fixed(args)`, the form that
#'   other arguments given fix (a list with attribute `by`), or NULL.
#' @param full_max_rows The largest number of training rows at which the
#'   model, left to choose, fits its full form (measured: bench/README.md,
#'   "The switch of the defaults").
#' @param fitted_arguments The arguments that may hold an object fitted on
#'   data to which the model hands its inputs (onda's `posterior`): such an
#'   object sets the units of the inputs (input_units(), R/inputs.R).
#' @noRd
register_krein_model <- function(name, label, fit, parameters, path = NULL,
                                 needs_self = function(args) FALSE,
                                 needs_inputs = function(args) FALSE,
                                 types = character(), predict_args = character(),
                                 uses_kernel = TRUE, renamed = character(),
                                 default_grid = function(size, args, data) list(),
                                 path_values = identity, ranges = function(args) list(), parsnip = NULL,
                                 chunks = NULL, calibrated = function(args) TRUE, landmark_args = NULL,
                                 fitted_arguments = character(), full_form = function(args) FALSE,
                                 full_copies = NA_real_, forms = NULL, full_max_rows = Inf) {
  parameters <- as.data.frame(parameters, stringsAsFactors = FALSE)
  # `choices`: the values of a character parameter (krein_app() offers them)
  if (is.null(parameters$choices)) parameters$choices <- rep(NA_character_, nrow(parameters))
  # every kernel model takes a spectrum correction (fit_model(), R/spectrum.R)
  if (uses_kernel) {
    parameters <- rbind(parameters, data.frame(parameter = "spectrum", class = "character",
                                               label = "spectrum correction",
                                               choices = paste(spectrum_methods, collapse = ", "),
                                               stringsAsFactors = FALSE))
  }
  assign(name, list(name = name, label = label, fit = fit, parameters = parameters, path = path,
                    needs_self = needs_self, needs_inputs = needs_inputs, types = types,
                    predict_args = predict_args, uses_kernel = uses_kernel, renamed = renamed,
                    default_grid = default_grid, path_values = path_values, ranges = ranges,
                    parsnip = parsnip, chunks = chunks, calibrated = calibrated,
                    landmark_args = landmark_args, fitted_arguments = fitted_arguments,
                    full_form = full_form, full_copies = full_copies, forms = forms,
                    full_max_rows = full_max_rows),
         envir = krein_registry)
  invisible(name)
}

#' Fill the registry: every function `model_registration_<name>()` of the
#' package registers its model. Called by `.onLoad()`, so the registry does not
#' depend on the order in which R collates the files, and a new model's file
#' needs no line anywhere else.
#' @noRd
register_models <- function(namespace = environment(register_models)) {
  for (registration in ls(namespace, pattern = "^model_registration_")) get(registration, namespace)()
  invisible(registered_models())
}

#' The registry entry of a model, by name or by fit
#' @noRd
model_info <- function(model) {
  name <- if (is.character(model)) model else class(model)[1]
  info <- get0(name, envir = krein_registry, inherits = FALSE)
  if (is.null(info)) krein_abort(sprintf("`%s` is not a registered krein model.", name))
  info
}

registered_models <- function() sort(ls(krein_registry))

#' The tuning range of the width of a Gaussian kernel (`gamma`), the same for
#' every model: log10 of the factors on the median heuristic, 1/32 to 32
#' @noRd
width_range <- c(-5, 5) * log10(2)

#' A model's tuning range of a numeric parameter (log10 units), from the
#' registry; `gamma`: the kernel width's factors on the median heuristic.
#' @param args The model's fixed arguments (defaults filled in).
#' @noRd
tuning_range <- function(name, parameter, args = list()) {
  info <- model_info(name)
  if (identical(parameter, "gamma")) return(if (info$uses_kernel) width_range)
  defaults <- model_defaults(name)
  args <- c(args, defaults[setdiff(names(defaults), names(args))])
  info$ranges(args)[[parameter]]
}

#' `size` values log-spaced over a range `c(from, to)` (log10 units); one
#' value: the middle
#' @noRd
range_values <- function(range, size) {
  if (size == 1L) 10^mean(range) else 10^seq(range[1], range[2], length.out = size)
}

#' The models krein provides
#'
#' One row per model family, from the registry every model joins: the
#' function, what it fits, its tunable arguments (kernel parameters are tunable
#' for every model with a kernel), the argument whose values one fit computes
#' as a path, and the predict types beyond `"class"`, `"prob"` and
#' `"decision"`, which every model gives. [tune_krein()] and [caret_model()]
#' read the same registry.
#'
#' @returns A data frame with columns `model`, `label`, `tunable`, `path` and
#'   `extra_types`.
#' @examples
#' krein_models()
#' @export
krein_models <- function() {
  rows <- lapply(registered_models(), function(name) {
    info <- model_info(name)
    data.frame(model = name, label = info$label,
               tunable = paste(info$parameters$parameter, collapse = ", "),
               path = info$path %||% "", extra_types = paste(info$types, collapse = ", "),
               stringsAsFactors = FALSE)
  })
  do.call(rbind, rows)
}

# ---------------------------------------------------------------------------
# Fitting

#' The arguments of a model's fitting function (what a user may pass besides
#' the data and the kernel)
#' @noRd
fit_argument_names <- function(info) {
  # `spectrum` (R/spectrum.R): every kernel model's, applied by fit_model()
  c(setdiff(names(formals(get(info$fit, mode = "function"))), c("inputs", "...")),
    if (info$uses_kernel) "spectrum")
}

#' A model's default method, `<name>.default`: its formals hold every default
#' of the model, written once. The formula method has only the input
#' arguments (`kernel`, `scale`), with the same defaults (a test guards it);
#' the fitting functions have none, fit_model() fills them from here; the
#' registry's functions, tune_krein(), caret and parsnip read them here too.
#' @noRd
default_method <- function(name) {
  utils::getS3method(name, "default", optional = TRUE, envir = environment(fit_model))
}

#' The defaults of a model's arguments (or of `arguments`), evaluated; a
#' model registered without a default method (a test's, a package's) has
#' them in its fitting function
#' @noRd
model_defaults <- function(name, arguments = fit_argument_names(model_info(name))) {
  holder <- default_method(name) %||% get(model_info(name)$fit, mode = "function")
  defaults <- formals(holder)[arguments]
  names(defaults) <- arguments
  # an argument without a default stays missing
  defaults <- defaults[!vapply(defaults, function(value) identical(value, quote(expr = )), NA)]
  lapply(defaults, function(value) if (is.null(value)) NULL else eval(value, environment(fit_model)))
}

#' The kernel of a fit through caret or parsnip without a `kernel`: the
#' Gaussian of width `gamma`, or without one the model's default kernel
#' (isvm()'s and krein_svm()'s take the width 1/p, the others the median heuristic)
#' @noRd
gaussian_or_default_kernel <- function(name, gamma) {
  if (!is.null(gamma)) return(kernel_rbf(gamma))
  model_defaults(name, "kernel")[[1L]] %||% kernel_rbf()
}

#' The one rule for the centre of every default width grid (tune_krein()'s,
#' caret_model()'s and the parsnip engines' dials parameters): the width
#' that `kernel`, a kernel_rbf() without `gamma` (by default the model's
#' default kernel, gaussian_or_default_kernel()), takes from the inputs as
#' the model sees them: the median heuristic, or 1/p for isvm(), pcvm() and
#' krein_svm() (`heuristic = "dimension"`). `x` as the user gives it is
#' encoded (factor columns as indicators) and scaled as the default `scale =
#' TRUE` scales it; `scaled = TRUE` says it already is.
#' @noRd
width_grid_center <- function(x, kernel, scaled = FALSE) {
  if (!scaled) {
    x <- as.data.frame(x)
    x <- if (all(vapply(x, is.numeric, logical(1)))) as.matrix(x) else stats::model.matrix(~ . - 1, x)
    x <- suppressMessages(scale_columns(column_scaling(x), x))
  }
  rbf_heuristic_gamma(kernel, x)
}

#' A model argument as given in `args`, else its default
#' @noRd
model_argument <- function(name, args, argument) {
  if (!is.null(args[[argument]])) return(args[[argument]])
  model_defaults(name, argument)[[1L]]
}

#' Refuse arguments a model does not have, suggesting the closest name (or
#' the new name of a renamed argument)
#' @noRd
check_model_arguments <- function(args, allowed, name, renamed = character(), aliases = character()) {
  if (length(args) == 0L) return(invisible())
  arg_names <- names(args) %||% rep("", length(args))
  if (any(!nzchar(arg_names))) {
    krein_abort(sprintf("%s() takes its model arguments by name; %d unnamed argument%s given after the data.",
                        name, sum(!nzchar(arg_names)), if (sum(!nzchar(arg_names)) > 1) "s were" else " was"),
                class = "krein_argument_error")
  }
  unknown <- setdiff(arg_names, allowed)
  if (length(unknown) == 0L) return(invisible())
  hints <- vapply(unknown, function(u) {
    if (!is.na(renamed[u])) return(sprintf(" (`%s` is now called `%s`)", u, renamed[[u]]))
    if (!is.na(aliases[u])) return(sprintf(" (did you mean `%s`?)", aliases[[u]]))
    close <- allowed[utils::adist(u, allowed) <= max(1, nchar(u) %/% 3)]
    prefix <- allowed[startsWith(allowed, u)]
    candidates <- unique(c(prefix, close))
    if (length(candidates)) sprintf(" (did you mean `%s`?)", candidates[1]) else ""
  }, character(1))
  krein_abort(sprintf("%s %s not %s of %s()%s. %s",
                      paste0("`", unknown, "`", collapse = ", "),
                      if (length(unknown) > 1) "are" else "is",
                      if (length(unknown) > 1) "arguments" else "an argument", name,
                      paste(hints, collapse = ""),
                      if (length(allowed)) paste0("Its arguments are ", paste0("`", allowed, "`", collapse = ", "), ".")
                      else "It takes no other arguments."),
              class = "krein_argument_error")
}

#' `...` of a default method must be empty: everything is named after it
#' (the input arguments `kernel`, `scale` and `na.action` are named in the
#' suggestions too)
#' @noRd
check_dots_empty <- function(name, ...) {
  info <- model_info(name)
  allowed <- c(fit_argument_names(info), "kernel", "scale", "na.action")
  check_model_arguments(list(...), allowed, name, info$renamed)
}

#' The objects fitted on data among a model's arguments (its registry's
#' `fitted_arguments`), for the input path (input_units())
#' @noRd
fitted_objects <- function(name, args) {
  unname(args[intersect(model_info(name)$fitted_arguments, names(args))])
}

#' The arguments a default method received, by the names of the fitting
#' function's formals
#' @noRd
method_arguments <- function(name, env = parent.frame()) {
  mget(fit_argument_names(model_info(name)), envir = env)
}

#' The common end of every model method: check the arguments, fit, and add
#' what the contract needs.
#' @param name The model's name.
#' @param inputs A `krein_inputs` object (R/inputs.R).
#' @param args The model arguments (a named list).
#' @param call The user's call.
#' @noRd
fit_model <- function(name, inputs, args, call) {
  info <- model_info(name)
  check_model_arguments(args, fit_argument_names(info), name, info$renamed)
  defaults <- model_defaults(name)
  args <- c(args, defaults[setdiff(names(defaults), names(args))])
  args <- full_form_alias(info, args)
  spectrum <- check_spectrum(args$spectrum)
  args$spectrum <- NULL
  if (spectrum != "none" && inherits(inputs, "krein_chunk_request")) {
    krein_abort(sprintf("`spectrum = \"%s\"` needs the whole training kernel; data in chunks are fitted on landmarks. Leave `spectrum` out.",
                        spectrum), class = "krein_argument_error")
  }
  if (inherits(inputs, "krein_chunk_request")) inputs <- chunked_inputs(info, inputs, args)
  if (info$uses_kernel && is.null(inputs$kernel) && is.null(inputs$precomputed)) {
    krein_abort("`kernel` is missing; give a kernel, e.g. kernel_rbf().")
  }
  # the form (full or Nystroem) is chosen once, here (R/form.R), and its
  # memory checked before the first n x n matrix (the spectrum correction's
  # kernel too)
  form <- choose_form(info, inputs, args)
  args <- form$args
  # an automatic Nystroem form may choose a narrower Gaussian width (R/form.R)
  form$record$width <- choose_nystrom_width(info, inputs, args, form$record)
  if (!is.null(form$record$width)) inputs <- with_kernel_width(inputs, form$record$width$gamma)
  if (isTRUE(info$full_form(args))) {
    check_full_form_memory(name, length(inputs$y), info$full_copies, full_form_alternative(info))
    # a full form on data in chunks: their rows, read into memory
    if (inherits(inputs, "krein_chunked_inputs")) inputs <- chunk_rows_in_memory(inputs)
  }
  if (spectrum != "none") {
    corrected <- spectrum_inputs(inputs, spectrum, name, args)
    inputs <- corrected$inputs
    args <- corrected$args
  }
  fields <- with_core_errors(sprintf("%s()", name),
                             do.call(get(info$fit, mode = "function"), c(list(inputs), args)))
  # the generic's name, not the method's: kqd(...), as the user wrote it
  if (is.call(call)) call[[1L]] <- as.name(name)
  fields$form <- form$record
  new_krein_model(fields, inputs, name, call)
}

#' Build a fit: the model's fields plus the shared ones, then its training
#' predictions, computed once.
#' @noRd
new_krein_model <- function(fields, inputs, name, call = NULL) {
  y <- inputs$y
  fields$kernel <- NULL  # stored once, in the input spec
  fit <- c(fields, list(
    call = call,
    spec = stored_input_spec(inputs$spec, fields),  # objects: only those prediction needs
    levels = levels(y),
    outcome_levels = inputs$spec$outcome_levels %||% levels(y),
    counts = stats::setNames(as.vector(table(y)), levels(y)),
    y = y,
    na_action = inputs$na_action
  ))
  fit <- fit[!duplicated(names(fit), fromLast = TRUE)]
  class(fit) <- c(name, "krein_model")
  fitted_class <- model_predictions(fit, NULL, "class", list())
  fit$fitted_class <- unname(fitted_class)
  # codes, not labels: the same levels, and no string per row
  fit$training_error <- mean(as.integer(fitted_class) != as.integer(y))
  fit
}

#' The kernel of a fit (NULL for precomputed kernels and for models on the
#' features themselves)
#' @noRd
model_kernel <- function(object) object$spec$kernel

# ---------------------------------------------------------------------------
# Prediction

#' The scores a model gives for new inputs
#'
#' @param object The fit.
#' @param new NULL for the training data, else a list with `x` (new inputs,
#'   complete rows) or `K` and `self` (precomputed kernels), and `names`.
#' @param type "prob", "decision", one of the model's extra types, or "class"
#'   (only asked for when a non-default `rule` is given).
#' @param ... The model's predict arguments.
#' @returns A matrix with one row per new point (a factor for "class").
#' @noRd
krein_scores <- function(object, new, type, ...) UseMethod("krein_scores")

#' Predict with a krein model
#'
#' Every krein model predicts through this one method.
#'
#' @param object A krein fit.
#' @param newdata New data in the form the model was fitted on: a data frame
#'   for formula fits (columns matched by name), a matrix or data frame for
#'   matrix fits, the kernel of the new points against the training points for
#'   precomputed fits (with self-similarities, via [precomputed_kernel()],
#'   where the model needs them) or their dissimilarities for
#'   [kernel_from_dissimilarity()] fits. `NULL` (or missing): the training
#'   data, padded with `NA` rows for rows a fit with `na.action = na.exclude`
#'   dropped. Rows of `newdata` with missing values give `NA` rows, as
#'   [stats::predict.lm()] does with `na.pass`.
#' @param type `"class"` (a factor with the levels of the training outcome:
#'   the most probable class), `"prob"` (an \eqn{n \times c} matrix of class
#'   probabilities whose rows sum to 1, one column per level of the training
#'   outcome: a level without training rows has a column of zeros),
#'   `"decision"` (an \eqn{n \times c} matrix of the model's decision values,
#'   one column per fitted class: larger favours the class; see each model's
#'   page for what they are), or a model's own types (kqd's and kmdc's
#'   `"distance"`, kfda's and onda's `"projection"`, ...).
#' @param ... The model's own predict arguments: kqd's `reg` (a value of the
#'   fitted regularisation path), ikfd's and onda's `rule`, ...; see each
#'   model's page. Any other argument is an error.
#' @param output Only for `newdata` from [krein_chunks()]: `NULL` returns the
#'   predictions of all chunks; a file name pattern with one integer field
#'   (e.g. `"pred-%03d.csv"`, filled by [sprintf()] with the chunk number)
#'   writes each chunk's predictions to its own CSV file and returns the file
#'   names; a `function(predictions, chunk)` is called with each chunk's
#'   predictions and returns `invisible(NULL)`. Memory: one chunk's.
#' @returns See `type`: one row (or element) per row of `newdata`, named by its
#'   row names.
#' @seealso [krein_models()] lists every model's extra types.
#' @examples
#' set.seed(1)
#' train <- checkerboard(200, size = 2)
#' fit <- kqd(y ~ x1 + x2, data = train, kernel = kernel_rbf(2))
#' test <- checkerboard(5, size = 2)
#' predict(fit, test)
#' predict(fit, test, type = "prob")
#' test$x1[2] <- NA
#' predict(fit, test, type = "decision")
#' @export
predict.krein_model <- function(object, newdata = NULL, type = "class", ..., output = NULL) {
  info <- model_info(object)
  type <- match_choice(type, "type", c("class", "prob", "decision", info$types))
  extra <- list(...)
  check_model_arguments(extra, info$predict_args, "predict")
  if (missing(newdata) || is.null(newdata)) {
    out <- outcome_predictions(object, model_predictions(object, NULL, type, extra), type)
    return(stats::napredict(object$na_action, out))
  }
  if (inherits(newdata, "krein_chunks")) return(predict_chunks(object, newdata, type, extra, output))
  if (!is.null(output)) krein_abort("`output` is for `newdata` in chunks (krein_chunks()); leave it NULL.")
  outcome_predictions(object, model_predictions(object, new_inputs(object$spec, newdata), type, extra), type)
}

#' Predictions in the levels of the training outcome. A level without training
#' rows (left out of the fit by as_class_factor()) stays among the levels of
#' the class factor, and has a column of zeros among the probabilities, as
#' MASS::lda() and e1071::svm() keep it: the predictions then compare with the
#' outcome (`==`, yardstick's metrics). Other types have one column per
#' fitted class.
#' @noRd
outcome_predictions <- function(object, out, type) {
  outcome <- object$outcome_levels
  if (is.null(outcome) || identical(outcome, object$levels)) return(out)
  if (is.factor(out)) {
    return(structure(match(levels(out), outcome)[as.integer(out)], levels = outcome, names = names(out),
                     class = "factor"))
  }
  if (type != "prob" || !is.matrix(out) || is.null(colnames(out))) return(out)
  full <- matrix(0, nrow(out), length(outcome), dimnames = list(rownames(out), outcome))
  full[, colnames(out)] <- out
  full[rowSums(is.na(out)) > 0L, ] <- NA_real_
  full
}

#' Predictions for prepared inputs (NULL: the training data): rows with
#' missing values are left out of the computation and come back as NA rows.
#' @noRd
model_predictions <- function(object, new, type, extra) {
  with_core_errors(sprintf("predict(<%s>)", class(object)[1]),
                   model_predictions_core(object, new, type, extra))
}

model_predictions_core <- function(object, new, type, extra) {
  if (is.null(new)) {
    if (isTRUE(object$training_scores_dropped)) {
      krein_abort("This fit's training scores were dropped (drop_training_scores()): give the training data as `newdata` to predict them again. fitted() gives the training classes.")
    }
    return(scores_of_type(object, NULL, type, extra))
  }
  rows <- new_input_rows(new)
  complete <- rows$complete
  n <- length(complete)
  # no rows: an empty result of the type's shape, as predict.lm() gives, the
  # same for every model (the columns those of the training predictions,
  # since some models cannot compute anything on zero rows)
  if (n == 0L) {
    training <- scores_of_type(object, NULL, type, extra)
    return(if (is.factor(training)) factor(character(), levels = object$levels) else training[0L, , drop = FALSE])
  }
  if (all(complete)) return(scores_of_type(object, new, type, extra))
  kept <- if (any(complete)) scores_of_type(object, subset_new_inputs(new, complete), type, extra)
  if (type == "class") {
    out <- factor(rep(NA_character_, n), levels = object$levels)
    if (any(complete)) out[complete] <- kept
    return(stats::setNames(out, rows$names))
  }
  width <- if (is.null(kept)) length(object$levels) else ncol(kept)
  out <- matrix(NA_real_, n, width, dimnames = list(rows$names, if (is.null(kept)) object$levels else colnames(kept)))
  if (any(complete)) out[complete, ] <- kept
  out
}

scores_of_type <- function(object, new, type, extra) {
  rule <- extra$rule %||% default_class_rule(object)
  if (type == "class" && identical(rule, "posterior")) {
    p <- do.call(krein_scores, c(list(object, new, "prob"), extra))
    return(stats::setNames(class_from_decisions(p, object$levels), rownames(p)))
  }
  do.call(krein_scores, c(list(object, new, type), extra))
}

#' The class rule of predict(type = "class") when no `rule` is given: the
#' most probable class for every model but those whose probabilities are
#' random (isvm's Platt model, fitted on random folds when `C` is given), whose default class
#' must still be a deterministic function of the data and the arguments
#' @noRd
default_class_rule <- function(object) UseMethod("default_class_rule")

#' @export
default_class_rule.default <- function(object) "posterior"

#' @export
default_class_rule.isvm <- function(object) "vote"

#' Which rows of new inputs are complete, and their names
#' @noRd
new_input_rows <- function(new) {
  # complete.cases() only where something is missing (anyNA() is one pass
  # and stops at the first NA)
  all_complete <- function(m) if (anyNA(m)) stats::complete.cases(m) else rep(TRUE, NROW(m))
  if (!is.null(new$x)) {
    complete <- all_complete(new$x)
    names <- rownames(new$x)
  } else {
    complete <- all_complete(new$K)
    if (!is.null(new$self)) complete <- complete & !is.na(new$self)
    names <- rownames(new$K)
  }
  list(complete = complete, names = names)
}

subset_new_inputs <- function(new, rows) {
  if (!is.null(new$x)) new$x <- new$x[rows, , drop = FALSE]
  if (!is.null(new$K)) new$K <- new$K[rows, , drop = FALSE]
  if (!is.null(new$self)) new$self <- new$self[rows]
  new
}

#' The kernel between new inputs and a fit's expansion points, and their
#' self-similarities where asked
#' @param points Rows of the training data or landmarks the model kept (data fits).
#' @param columns Which training points they are (precomputed fits); NULL: all.
#' @noRd
new_kernels <- function(object, new, points = object$x, columns = NULL, need_self = FALSE) {
  if (!is.null(object$spec$spectrum)) {
    # a spectrum correction (R/spectrum.R): the rows against every training
    # point, mapped, then the columns the model uses
    corrected <- spectrum_new_kernels(object$spec, new, columns, need_self, object$threads)
    K <- corrected$K
    self <- corrected$self
  } else {
    K <- new_kernel_matrix(object$spec, new, points, columns, threads = object$threads)
    self <- if (need_self) new_self_similarity(object$spec, new) else NULL
  }
  rownames(K) <- rownames(new$x %||% new$K)
  list(K = K, self = self, n = nrow(K), names = rownames(K))
}

#' Drop the training scores a fit keeps
#'
#' A fit keeps the scores of its training points -- kqd's and kmdc's squared
#' distances at every value of the regularisation path, ikfd's discriminant
#' scores, kfda's decisions and Fisher coordinates, PCVM's latent values, ...
#' -- so that `predict(fit)` (without `newdata`) and `plot(fit)` give them
#' without the training data, which Nystroem fits and fits over chunks do not
#' keep. They take \eqn{n \times c} numbers (per path value for kqd and
#' kmdc): about 800 MB for a two-class kqd fit over \eqn{10^7} rows with a
#' path of five values. `drop_training_scores()` removes them. What stays:
#' the training classes (so [fitted()][fitted.krein_model()], `print()`,
#' `summary()` and the training error), and everything prediction for new
#' data needs; `predict(fit)` without `newdata` is then an error that says
#' to give the data (`predict(fit, newdata = <training data>)` computes the
#' same scores again).
#'
#' @param object A krein fit.
#' @returns The fit without its training scores.
#' @examples
#' set.seed(1)
#' train <- checkerboard(2000, size = 2)
#' fit <- kqd(y ~ x1 + x2, data = train, kernel = kernel_rbf(2), landmarks = "random", m = 50,
#'            reg = c(0.01, 0.1, 1))
#' small <- drop_training_scores(fit)
#' c(format(object.size(fit), units = "Kb"), format(object.size(small), units = "Kb"))
#' identical(fitted(small), fitted(fit))
#' p <- predict(small, train, type = "prob")  # the training data again
#' all.equal(p, predict(fit, type = "prob"), check.attributes = FALSE)
#' @export
drop_training_scores <- function(object) {
  if (!inherits(object, "krein_model")) {
    krein_abort(sprintf("`object` must be a krein fit, not %s.", describe_value(object)))
  }
  scores <- setdiff(grep("^training_", names(object), value = TRUE), "training_error")
  object[scores] <- NULL
  # kmdc's distance model is a kqd fit of its own
  for (name in names(object)) {
    if (inherits(object[[name]], "krein_model")) object[[name]] <- drop_training_scores(object[[name]])
  }
  object$training_scores_dropped <- TRUE
  object
}

#' @describeIn predict.krein_model The training classes (padded with `NA`
#'   where `na.action = na.exclude` dropped rows).
#' @export
fitted.krein_model <- function(object, ...) {
  fitted_class <- outcome_predictions(object, object$fitted_class, "class")
  stats::napredict(object$na_action, stats::setNames(fitted_class, rownames(object$x)))
}

#' @describeIn predict.krein_model The number of training points used.
#' @export
nobs.krein_model <- function(object, ...) length(object$y)

# ---------------------------------------------------------------------------
# print and summary

#' A model's title line after its label (e.g. kqd's variant); "" for none
#' @noRd
model_title <- function(x) UseMethod("model_title")
#' @export
model_title.default <- function(x) ""

#' A model's own lines for print()
#' @noRd
model_print_lines <- function(x) UseMethod("model_print_lines")
#' @export
model_print_lines.default <- function(x) character()

#' A model's own parts for summary(): a named list of data frames, matrices or
#' character vectors, printed under their names
#' @noRd
model_summary <- function(object) UseMethod("model_summary")
#' @export
model_summary.default <- function(object) list()

#' @export
print.krein_model <- function(x, ...) {
  info <- model_info(x)
  title <- model_title(x)
  cat(info$label, if (nzchar(title)) paste0(" (", title, ")"), "\n", sep = "")
  if (!is.null(x$call)) cat("Call: ", paste(deparse(x$call, width.cutoff = 500L), collapse = " "), "\n", sep = "")
  if (info$uses_kernel) cat("Kernel: ", kernel_description(model_kernel(x)), "\n", sep = "")
  cat("Classes: ", paste0(names(x$counts), " (", x$counts, ")", collapse = ", "), "\n", sep = "")
  cat("Training points: ", length(x$y), dropped_rows_text(x), "; training error ",
      format(x$training_error, digits = 3), "\n", sep = "")
  if (!is.null(x$form)) cat("Form: ", form_text(x), "\n", sep = "")
  if (!is.null(x$form$width)) cat("Width: ", width_text(x), "\n", sep = "")
  if (!is.null(x$spec$scaling)) cat(scaling_text(x$spec$scaling), "\n", sep = "")
  if (!is.null(x$spec$spectrum)) cat(spectrum_text(x$spec$spectrum), "\n", sep = "")
  lines <- model_print_lines(x)
  if (length(lines)) cat(paste0("  ", lines, "\n"), sep = "")
  invisible(x)
}

# One line on the input scaling (scale = TRUE)
scaling_text <- function(scaling) {
  constant <- sum(scaling$constant)
  paste0("Inputs: centred and scaled by their training means and standard deviations",
         if (constant > 0) sprintf(" (%d constant column%s centred only)", constant, if (constant > 1) "s" else ""))
}

dropped_rows_text <- function(x) {
  if (is.null(x$na_action)) return("")
  sprintf(" (%d row%s with missing values dropped by na.%s)", length(x$na_action),
          if (length(x$na_action) > 1) "s" else "", class(x$na_action)[1])
}

#' Summarise a krein model
#'
#' @param object A krein fit.
#' @param x A `summary.krein_model`.
#' @param ... Unused.
#' @returns An object of class `summary.krein_model`: the call, the kernel,
#'   the classes with their sizes, the training confusion matrix and error,
#'   the centres and scales of the inputs (`scaling`, for fits with
#'   `scale = TRUE`) and the model's own tables (`model`, a named list).
#' @examples
#' fit <- kqd(Species ~ ., data = iris, kernel = kernel_rbf())
#' summary(fit)
#' @export
summary.krein_model <- function(object, ...) {
  info <- model_info(object)
  confusion <- table(observed = object$y, predicted = object$fitted_class)
  structure(list(label = info$label, title = model_title(object), call = object$call,
                 kernel = if (info$uses_kernel) kernel_description(model_kernel(object)),
                 counts = object$counts, dropped = dropped_rows_text(object), form = form_text(object),
                 width = width_text(object),
                 confusion = confusion, training_error = object$training_error,
                 scaling = if (!is.null(object$spec$scaling)) {
                   rbind(center = object$spec$scaling$center, scale = object$spec$scaling$scale)
                 },
                 model = model_summary(object)),
            class = "summary.krein_model")
}

#' @rdname summary.krein_model
#' @export
print.summary.krein_model <- function(x, ...) {
  cat(x$label, if (nzchar(x$title)) paste0(" (", x$title, ")"), "\n", sep = "")
  if (!is.null(x$call)) cat("Call: ", paste(deparse(x$call, width.cutoff = 500L), collapse = " "), "\n", sep = "")
  if (!is.null(x$kernel)) cat("Kernel: ", x$kernel, "\n", sep = "")
  cat("Training points: ", sum(x$counts), x$dropped, "\n", sep = "")
  if (!is.null(x$form)) cat("Form: ", x$form, "\n", sep = "")
  if (!is.null(x$width)) cat("Width: ", x$width, "\n", sep = "")
  cat("\n")
  if (!is.null(x$scaling)) {
    cat("Inputs centred and scaled (training means and standard deviations):\n")
    print(x$scaling, digits = 4)
    cat("\n")
  }
  cat("Training confusion matrix (error ", format(x$training_error, digits = 3), "):\n", sep = "")
  print(x$confusion)
  for (name in names(x$model)) {
    cat("\n", name, ":\n", sep = "")
    part <- x$model[[name]]
    if (is.character(part)) cat(paste0("  ", part, "\n"), sep = "") else print(part, digits = 4)
  }
  invisible(x)
}

# ---------------------------------------------------------------------------
# plot

#' A model's view when its inputs are not two columns
#' @noRd
plot_model_diagnostic <- function(x, data, main, predict_args, ...) UseMethod("plot_model_diagnostic")

# The default view: class probabilities of the training points (or of `data`)
#' @export
plot_model_diagnostic.default <- function(x, data, main, predict_args, ...) {
  p <- do.call(stats::predict, c(list(x, data, type = "prob"), predict_args))
  y <- if (is.null(data)) stats::napredict(x$na_action, x$y) else data_response(x, data, nrow(p))
  col <- grDevices::hcl.colors(length(x$levels), "Dark 3")
  point_col <- ifelse(is.na(y), "grey40", col[as.integer(y)])
  if (ncol(p) == 2L) {
    graphics::plot(seq_len(nrow(p)), p[, 2], col = point_col, pch = 19,
                   xlab = if (is.null(data)) "training point" else "point",
                   ylab = paste0("P(", x$levels[2], " | x)"), ylim = c(0, 1), main = main, ...)
    graphics::abline(h = 0.5, lty = 2)
    graphics::legend("topright", legend = x$levels, col = col, pch = 19, bg = "white", cex = 0.8)
  } else {
    graphics::pairs(p, col = point_col, pch = 19, main = main, labels = paste0("P(", colnames(p), ")"), ...)
  }
  invisible(x)
}

#' Plot a krein model
#'
#' Every krein model plots through this one method. When the model was fitted
#' on two input variables: the decision regions over the plane, with the
#' training points (or the points of `data`) coloured by class, the
#' landmarks circled for Nystroem fits, and a class legend. Otherwise the
#' model's own view: kqd's and kmdc's class-wise distances, kfda's and onda's
#' discriminant coordinates, and the class probabilities of the points for the
#' other models.
#'
#' @param x A krein fit.
#' @param data Points to draw instead of the training points, in the form
#'   `predict()` takes; for formula fits, a response column in `data` colours
#'   them by class.
#' @param resolution Grid points per axis for decision regions.
#' @param main The title; `NULL` for one that describes the fit.
#' @param ... The model's predict arguments (kqd's `reg`, ...), then graphical
#'   parameters.
#' @returns `x`, invisibly.
#' @examples
#' set.seed(1)
#' train <- checkerboard(200, size = 2)
#' plot(kqd(y ~ x1 + x2, data = train, kernel = kernel_rbf(2)))
#' plot(kqd(Species ~ ., data = iris, kernel = kernel_rbf()))
#' @export
plot.krein_model <- function(x, data = NULL, resolution = 120L, main = NULL, ...) {
  info <- model_info(x)
  resolution <- check_number(resolution, "resolution", lower = 2, integer = TRUE)
  dots <- list(...)
  is_predict_arg <- names(dots) %in% info$predict_args
  predict_args <- dots[is_predict_arg]
  graphics_args <- dots[!is_predict_arg]
  title <- model_title(x)
  main <- main %||% plot_title(x_label(x), title)
  if (has_two_inputs(x)) {
    layers <- decision_region_layers(x, data, predict_args)
    do.call(plot_decision_regions, c(list(layers$x, layers$y, layers$predict_grid, resolution = resolution,
                                          main = main, landmarks = layers$landmarks), graphics_args))
  } else {
    do.call(plot_model_diagnostic, c(list(x, data, main, predict_args), graphics_args))
  }
  invisible(x)
}

#' What the decision regions of a fit on two inputs draw, all in the original
#' units of the data: the points (`x`, `y`), the classes of grid points
#' (`predict_grid`, which scales the grid as predict() scales newdata) and
#' the circled `landmarks`.
#' @noRd
decision_region_layers <- function(x, data = NULL, predict_args = list()) {
  points <- plot_points(x, data)
  list(x = points$x, y = points$y,
       predict_grid = function(grid) {
         model_predictions(x, list(x = scale_columns(x$spec$scaling, as.matrix(grid))), "class", predict_args)
       },
       landmarks = unscale_columns(x$spec$scaling, plot_marks(x)))
}

#' Points to circle on a model's decision regions: its landmarks by default
#' (Nystroem fits), a model's own (PCVM's relevance vectors) by a method; in
#' the units the kernel sees (plot.krein_model() unscales them)
#' @noRd
plot_marks <- function(x) UseMethod("plot_marks")
#' @export
plot_marks.default <- function(x) x$landmarks$points

x_label <- function(x) toupper(chartr("_", "-", class(x)[1]))

# "KQD RC+", but "KFLDA" rather than "KFDA KFLDA" when the title names the model
plot_title <- function(label, title) {
  if (!nzchar(title)) return(label)
  if (startsWith(title, substr(label, 1L, 2L))) return(title)
  paste(label, title)
}

has_two_inputs <- function(x) x$spec$type != "precomputed" && identical(as.integer(x$spec$n_columns), 2L)

#' The response of `data` for a formula fit (NA where absent)
#' @noRd
data_response <- function(fit, data, n) {
  if (fit$spec$type == "formula" && is.list(data)) {
    response <- all.vars(fit$spec$terms)[attr(fit$spec$terms, "response")]
    if (!is.null(data[[response]])) return(factor(data[[response]], levels = fit$levels))
  }
  factor(rep(NA, n), levels = fit$levels)
}
