# The one input path of every krein model. A model's formula method calls
# inputs_from_formula(), its default method (matrix, data frame, precomputed
# kernel, dissimilarity kernel) calls inputs_from_xy(); both end in
# finish_inputs() and give a `krein_inputs` object. The model stores
# `inputs$spec` (a `krein_input_spec`), from which new_inputs() rebuilds
# `newdata` at prediction time. Nothing here is model-specific. Strings and
# other objects as `x` take the path of R/object_inputs.R.
#
# A model's generic and methods then look like (MASS::lda's shape):
#
#   model <- function(x, ...) UseMethod("model")
#   model.formula <- function(formula, data, ..., subset, na.action, kernel = kernel_rbf(), scale = TRUE) {
#     inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel, scale = scale)
#     fit_model("model", inputs, list(...), match.call())
#   }
#   model.default <- function(x, y, ..., kernel = kernel_rbf(), scale = TRUE, <model arguments>,
#                             na.action = NULL) {
#     check_dots_empty("model", ...)
#     inputs <- inputs_from_xy(x, y, kernel, na.action, scale = scale)
#     fit_model("model", inputs, method_arguments("model"), match.call())
#   }

#' How krein models take their data
#'
#' Every krein model is a generic with the same ways in, all handled by one
#' internal path, so they behave alike:
#'
#' * **formula**: `model(y ~ x1 + x2, data = df, subset = , na.action = )`.
#'   Predictors go through [stats::model.matrix()], so factors are
#'   dummy-coded (treatment contrasts unless set otherwise) and transformations
#'   such as `log(x1)` are applied; the intercept is dropped. The terms, factor
#'   levels and contrasts are kept, and `predict()` rebuilds `newdata` from them
#'   (its columns are matched by name, unknown factor levels are an error).
#' * **data frame or matrix**: `model(x, y)` with numeric (or logical)
#'   columns only -- a factor column is an error that points to the formula
#'   interface. `predict()` matches `newdata` columns by name when both have
#'   names, else by position.
#' * **precomputed kernel**: `model(K, y, kernel = "precomputed")` with the
#'   \eqn{n \times n} symmetric training kernel, or `model(precomputed_kernel(K), y)`;
#'   `predict()` then takes the \eqn{n_{new} \times n} kernel of new points
#'   against the training points (see [precomputed_kernel()]).
#' * **dissimilarities**: `model(kernel_from_dissimilarity(D), y)`; `predict()`
#'   then takes the dissimilarities of new objects to the training objects and
#'   converts them as the training ones were (see [kernel_from_dissimilarity()]).
#' * **strings and other objects**: `model(x, y, kernel = )` with `x` a
#'   character vector or a plain list of objects (sequences, point sets, ...)
#'   and a kernel that compares them: a kernlab string kernel
#'   (`kernlab::stringdot()`), an R function `function(a, b)` of two objects
#'   returning one number, or [kernel_dissimilarity()] with a dissimilarity
#'   function such as [utils::adist()]. The fit keeps the training objects
#'   prediction needs (all of them; for Nystroem fits the landmarks) and
#'   `predict()` takes new objects, computing their kernel against those.
#'   `NA` objects are missing values; `scale` does not apply. See
#'   [kernel_dissimilarity()].
#'
#' The response is made a factor; numbers that are not whole are refused
#' (krein classifies). A level of the response without training rows (a rare
#' class left out of a split) is left out of the fit, with a message, and kept
#' in the predictions, as [MASS::lda()] and [e1071::svm()] keep it: the class
#' factor of [predict()][predict.krein_model()] has the outcome's levels in
#' their order, and its probabilities a column of zeros for that level. A
#' numeric predictor column equal to the response (its class codes 1, ..., k
#' or its numeric labels) gives a warning: the response was probably left
#' among the predictors.
#'
#' Columns are matched by name: columns with the same name, or without one,
#' are refused. Large integers of package bit64 (`integer64`, as DBI and
#' `data.table::fread()` return them) are read as the numbers they hold, and
#' refused where a double cannot hold them exactly (magnitude \eqn{2^{53}} or
#' more). A data frame given to `predict()` of a matrix fit may hold other
#' columns (the outcome, an identifier): the fit's columns are taken by name,
#' as [stats::predict.lm()] takes its variables.
#'
#' Missing values follow R's convention, as [stats::model.frame()],
#' [MASS::lda()] and [e1071::svm()] do: `na.action` (of the formula method,
#' or `NULL`, the default of the others) takes `getOption("na.action")`,
#' which is [stats::na.omit()] unless set. [stats::na.omit()] drops the
#' rows with missing values (in the predictors or the response) and the fit
#' records them (`fit$na_action`; print() says how many);
#' [stats::na.exclude()] drops them too, and [fitted()][fitted.krein_model()]
#' and `predict(fit)` pad them with `NA`, as [stats::naresid()] does;
#' [stats::na.fail()] makes them an error naming the rows and whether they
#' are in the predictors or in the response. Data in chunks
#' ([krein_chunks()]) are never dropped from: missing values there are an
#' error naming the chunk.
#'
#' @section Classes of one training row:
#' A class with one training row (a rare class in a split) is fitted by
#' every model, as [e1071::svm()] fits it, with one warning (class
#' `krein_one_row_class_warning`) that names the class and says what the
#' model does for it:
#' * [isvm()], [krein_svm()] and [pcvm()] fit its pairs of classes with that
#'   row as the class's only point; in a cross-validation fold that holds it
#'   out (of the SVMs' cost, of their Platt model) its pairs favour the other
#'   class, as libsvm does.
#' * [kfda()], [ikpca_qd()] and [onda()]'s Gaussian posteriors give it the
#'   pooled covariance of the classes as its own; [ikfd()]'s discriminant for
#'   it uses the other classes' scatter with the ridge; [kqd()] and [kmdc()]
#'   measure distances to its one point under the regularisation alone.
#' * Cross-validations that choose a default (the regularisation paths of
#'   [kqd()] and [kmdc()], `pvar` of [ikpca_qd()], the ridge of [onda()]) keep
#'   its row in every fold's training part: held out, the fold's model would
#'   not know the class. Ny-KQD (`landmarks`) then takes the single default
#'   value instead of its path.
#'
#' What truly needs more rows is an error that says why: [kqd()]'s IC and FK-
#' variants (the centred kernel of one point is zero, so every distance to
#' the class would be 0), [kmdc()] with `distance = "IC"` (three per class:
#' its discriminant is fitted on out-of-fold distances) or `classifier =
#' "qda"` (a covariance of the \eqn{c} squared distances per class), and
#' [kfda()], [ikpca_qd()] and [kmdc()] when every class has one row (no
#' covariance within the classes to pool).
#'
#' @section Scaling:
#' With `scale = TRUE`, the default of every model fitted on data (as in
#' [kernlab::ksvm()] and [e1071::svm()]), each predictor column -- for formula
#' fits each column of the model matrix, dummy columns included -- is centred
#' and scaled by its mean and standard deviation over the training rows (those
#' left after `subset` and `na.action`). A constant column (standard deviation
#' zero, up to rounding) is centred but not scaled, with a message naming it.
#' A factor predictor keeps every level it declares, as in [e1071::svm()]: the
#' dummy column of a level that no training row has is constant zero (centred
#' and left unscaled, without a message), so `newdata` may hold that level.
#' The centres and scales are stored in the fit (`fit$spec$scaling`) and
#' applied to `newdata` by [predict()][predict.krein_model()], so new data are
#' always given in the original units. `scale = FALSE` fits on the data as
#' given. Precomputed kernels, dissimilarities and objects (strings, lists)
#' have no columns: `scale` is ignored for them, whatever its value.
#'
#' The kernel sees the scaled data. Kernel parameters taken from data
#' (`kernel_rbf(gamma = NULL)`, `kernel_rbf_diag(scales = NULL)`) are computed
#' once from the scaled training data and stored in the fit, so predictions
#' use the same kernel; a `gamma` (or any other kernel parameter) you give
#' applies to the scaled data. What you give as coordinates (`newdata`,
#' landmarks selected by [select_landmarks()] on the data, the points of
#' `plot(fit, data = )`) is in the original units, and [plot()][plot.krein_model()]
#' draws points, landmarks and decision regions in the original units. The
#' training data and landmark points a fit stores for prediction (`fit$x`,
#' `fit$landmarks$points`, PCVM's relevance vectors) are in the scaled units
#' the kernel sees; `fit$spec$scaling` (`center`, `scale`) maps them back.
#' Each column is divided by the power of two at or above its largest
#' magnitude before its mean and standard deviation are taken (exact), so
#' columns of tiny (`1e-300`) or huge (`1e300`) numbers are scaled as the
#' same columns of ordinary size, without underflow or overflow.
#'
#' @section Objects fitted on data keep their units:
#' What a model hands its data to may have been fitted on data itself. Such
#' an object always receives data in the units it was fitted on, whatever
#' the `scale` of the model that uses it; the model then works in those units
#' (`scale` does not apply, as for precomputed kernels):
#' * a fitted model used as [onda()]'s `posterior` (any krein fit, or another
#'   classifier): its `predict()` takes the data as given (original units)
#'   and applies its own scaling, so the model does not scale;
#' * a discriminant kernel ([kernel_discriminant()]): it applies the scaling
#'   of its [onda()] fit itself and takes the data as given, so the model does
#'   not scale;
#' * an invariant kernel ([kernel_invariant()]): its transformation maps the
#'   data's own coordinates (the reflection \eqn{x \mapsto -x} is about their
#'   origin; after centring it would be another kernel, no longer invariant
#'   about the data's origin), so the model works in them and does not scale;
#' * a kernel with a parameter taken from data (the width of
#'   `kernel_rbf(gamma = NULL)` or the `scales` of `kernel_rbf_diag()`, as a
#'   fit stores it in `fit$spec$kernel`): it takes the units of the data its
#'   parameter was computed on, so the model applies the scaling of that fit
#'   (`kernel$units$scaling`; none if that fit had `scale = FALSE`).
#'
#' Two such objects fitted in different units are an error. Landmarks are
#' points, not fitted objects: [select_landmarks()] takes `scale` as the
#' models do (selecting on the data as the model sees them) and returns
#' points in the original units, which a model maps into its own units.
#'
#' @param scale `TRUE` (the default) to centre and scale every predictor
#'   column by its training mean and standard deviation before the kernel (or
#'   the model) sees it, `FALSE` to use the data as given; see the Scaling
#'   section of [krein_inputs]. Ignored for precomputed kernels,
#'   dissimilarities and objects (strings, lists), and where a kernel or
#'   posterior model fitted on data sets the units (see "Objects fitted on
#'   data keep their units" in [krein_inputs]).
#' @param spectrum `"none"` (the default), or a correction of the spectrum of
#'   the training kernel that makes it positive semidefinite: `"clip"`,
#'   `"flip"`, `"shift"` or `"square"`, as [correct_spectrum()] defines them
#'   after Chen et al. (2009). The fit corrects the \eqn{n \times n} training
#'   kernel once (one eigendecomposition; none for `"square"`) and keeps the
#'   map that new points' kernel rows go through at prediction (one matrix
#'   product). A fit with `spectrum = m` equals the fit on the precomputed
#'   kernel `correct_spectrum(K, m)$matrix` predicted on
#'   `predict(correct_spectrum(K, m), <kernel rows of new points>)`. A
#'   positive semidefinite kernel is left unchanged by `"clip"`, `"flip"` and
#'   `"shift"`. Nystroem fits (`landmarks`; kfda's `bases` with `reduce =
#'   "subset"`) correct the \eqn{m \times m} landmark block \eqn{W} only
#'   (cost \eqn{m^3}), with the landmarks in the part of the training points:
#'   every point's similarities to the landmarks go through the map of
#'   \eqn{W}'s correction and its self-similarity is corrected as
#'   [correct_spectrum()] corrects a new point's, so the Nystroem kernel
#'   \eqn{C W^{-1} C^\top} becomes the clipped, flipped, shifted or squared
#'   one of the landmark block (for clip, its positive part \eqn{C U_+
#'   \Lambda_+^{-1} U_+^\top C^\top}). Landmarks chosen by the fit
#'   (`"meb"`, `"random"`, `"kmeans"`) are chosen on the raw kernel. Not
#'   available for data in chunks.
#' @name krein_inputs
#' @family kernels
NULL

#' Training inputs from a formula call
#'
#' @param mc The model's `match.call(expand.dots = FALSE)`: its `formula`,
#'   `data`, `subset` and `na.action` are used.
#' @param env Where to evaluate them (the caller's `parent.frame()`).
#' @param kernel The kernel argument of the model.
#' @param fitted Other objects the model hands its inputs to (onda()'s
#'   `posterior`): a fitted model among them sets the units (input_units()).
#' @noRd
inputs_from_formula <- function(mc, env, kernel, min_classes = 2L, scale = FALSE, fitted = list()) {
  if (is.null(mc$formula)) krein_abort("`formula` is missing.")
  formula <- eval(mc$formula, env)
  if (!inherits(formula, "formula") || length(formula) != 3L) {
    krein_abort(sprintf("`formula` must be a two-sided formula such as y ~ x1 + x2, not %s.",
                        describe_value(formula)))
  }
  data <- if (is.null(mc$data)) environment(formula) else eval(mc$data, env)
  if (!is.null(mc$data) && !is.data.frame(data) && !is.list(data)) {
    krein_abort(sprintf("`data` must be a data frame, not %s.", describe_value(data)))
  }
  if (is.data.frame(data)) {
    data <- exact_integer64_columns(data, "`data`")
    # `.` takes every column; otherwise the columns the formula names
    used <- if ("." %in% all.vars(formula)) names(data) else intersect(names(data), all.vars(formula))
    check_column_names(names(data)[names(data) %in% used], "data")
    complex <- used[vapply(data[used], is.complex, logical(1))]
    if (length(complex)) {
      krein_abort(sprintf("`data` has complex numbers in column%s %s; the models take real numbers, logicals and factors: give the real and imaginary parts (Re(), Im()) or the modulus (Mod()) as columns of their own.",
                          if (length(complex) > 1) "s" else "",
                          format_indices(paste0("`", complex, "`"))))
    }
  }
  # Unused levels of the response are dropped with a message (as_class_factor()).
  # A predictor keeps the levels its factor declares, as e1071::svm() and
  # kernlab::ksvm() do (lm() and MASS::lda() drop them): a level no training
  # row has (a rare one left out of a split, or one whose rows na.omit
  # dropped) then has its column, constant zero in training, and predict()
  # takes new rows with that level instead of refusing them.
  mf_call <- call("model.frame", formula = formula, data = data, na.action = stats::na.pass,
                  drop.unused.levels = FALSE)
  if (!is.null(mc$subset)) mf_call$subset <- mc$subset
  mf_call[[1L]] <- quote(stats::model.frame)
  mf <- tryCatch(eval(mf_call, env), error = function(e) {
    krein_abort(sprintf("`formula` could not be evaluated in `data`: %s", conditionMessage(e)))
  })
  na_action <- if (is.null(mc$na.action)) NULL else eval(mc$na.action, env)
  terms <- attr(mf, "terms")
  # `y ~ . - id`: the frame still holds `id`, model.matrix() would give it
  # contrasts (an error for a one-level factor) and predict() would check its
  # levels in newdata. Refit the frame on the variables the terms use.
  unused <- unused_variables(terms)
  if (length(unused) > 0L && length(attr(terms, "term.labels")) > 0L) {
    mf_call$formula <- stats::reformulate(attr(terms, "term.labels"), response = formula[[2L]],
                                          intercept = attr(terms, "intercept") == 1L,
                                          env = environment(formula))
    mf <- tryCatch(eval(mf_call, env), error = function(e) {
      krein_abort(sprintf("`formula` could not be evaluated in `data`: %s", conditionMessage(e)))
    })
    terms <- attr(mf, "terms")
  }
  response <- attr(terms, "response")
  check_factor_levels(mf, response, formula)
  y <- stats::model.response(mf)
  if (is.null(y)) krein_abort("`formula` must have a response on its left-hand side.")
  names(y) <- NULL
  x <- model_matrix_without_intercept(terms, mf, NULL)
  if (ncol(x) == 0L) krein_abort("`formula` must have at least one predictor on its right-hand side.")
  check_no_infinite(x, "data")
  response_name <- deparse(formula[[2L]], width.cutoff = 500L)[1]
  keep <- na_rows_action(na_action, x, y, "data", sprintf("`%s` (the response)", response_name))
  spec <- list(type = "formula", terms = terms, xlevels = stats::.getXlevels(terms, mf),
               contrasts = attr(x, "contrasts"), colnames = colnames(x), n_columns = ncol(x),
               factor_columns = factor_columns(x, terms, mf))
  finish_inputs(x, y, kernel, spec, keep, min_classes, scale = scale, x_arg = "data", fitted = fitted)
}

# The predictor variables of a terms object that no term uses (`x` in
# `y ~ . - x`)
unused_variables <- function(terms) {
  factors <- attr(terms, "factors")
  variables <- vapply(as.list(attr(terms, "variables"))[-1L], deparse1, "")
  response <- attr(terms, "response")
  predictors <- if (response > 0L) variables[-response] else variables
  if (length(factors) == 0L) return(character())
  used <- rownames(factors)[rowSums(factors) > 0]
  setdiff(predictors, used)
}

# The columns of a model matrix that code factors only (dummy columns, and
# interactions of factors): where one is constant in training it codes a level
# no training row has, which needs no message (column_scaling()).
factor_columns <- function(x, terms, mf) {
  assign <- attr(x, "assign")
  if (is.null(assign)) return(character())
  factors <- attr(terms, "factors")
  if (length(factors) == 0L) return(character())
  is_factor <- vapply(rownames(factors), function(v) is.factor(mf[[v]]) || is.character(mf[[v]]), NA)
  all_factor_terms <- which(vapply(seq_len(ncol(factors)), function(j) all(is_factor[factors[, j] > 0]), NA))
  colnames(x)[assign %in% all_factor_terms]
}

# A factor predictor that declares a single level is constant: model.matrix()
# would stop with a base error about contrasts. Name it and say how to leave
# it out. (One that declares more, of which the training rows use one, is
# coded by constant columns, as any level no training row has.)
check_factor_levels <- function(mf, response, formula) {
  single <- names(mf)[-response][vapply(mf[-response], function(v) is.factor(v) && nlevels(v) < 2L, NA)]
  if (length(single) == 0L) return(invisible())
  example <- if ("." %in% all.names(formula[[3L]])) {
    sprintf(", e.g. %s", paste(deparse1(formula), paste0("- ", single, collapse = " ")))
  } else ""
  krein_abort(sprintf(
    "`data` has the factor predictor%s %s with a single level in the training rows; a constant carries no information. Leave %s out of the formula%s.",
    if (length(single) > 1) "s" else "", paste0("`", single, "`", collapse = ", "),
    if (length(single) > 1) "them" else "it", example))
}

#' Training inputs from x and y: a matrix or data frame of numeric columns, a
#' kernel matrix with kernel = "precomputed", a `krein_precomputed` or a
#' `krein_dissimilarity` object.
#' @param chunks TRUE for a model's default method: data in chunks
#'   ([krein_chunks()]) give a `krein_chunk_request` that fit_model() turns
#'   into inputs once the model has checked its arguments (chunked_inputs()).
#' @noRd
inputs_from_xy <- function(x, y, kernel, na.action = NULL, min_classes = 2L, scale = FALSE, chunks = FALSE,
                           fitted = list()) {
  if (inherits(x, "krein_chunks")) {
    if (!chunks) {
      krein_abort(sprintf("`x` is data in chunks (krein_chunks()); only the model fits %s take chunks. Read the data into memory here.",
                          chunk_model_names()))
    }
    if (!missing(y) && !is.null(y)) {
      krein_abort("`y` is not used with data in chunks: the chunks carry the response (krein_chunks(y = )). Leave `y` out.")
    }
    return(structure(list(chunks = x, kernel = kernel, scale = scale, na.action = na.action),
                     class = "krein_chunk_request"))
  }
  if (missing(y) || is.null(y)) krein_abort("`y` is missing; give the class labels, one per row of `x`.")
  precomputed <- NULL
  if (inherits(x, "dist")) {
    krein_abort("`x` is a `dist` object of dissimilarities; convert it to a kernel first: kernel_from_dissimilarity(x).")
  }
  if (inherits(x, "krein_precomputed")) {
    # The object says what it is: `kernel` is not needed and is ignored.
    precomputed <- x
  } else if (identical(kernel, "precomputed")) {
    precomputed <- precomputed_kernel(check_symmetric_matrix(x, "x"))
  }
  if (!is.null(precomputed)) {
    K <- check_symmetric_matrix(precomputed$K, "x")
    # the models square kernel values and add n of them (scatters, distances,
    # Gram matrices): beyond this they overflow, whatever the regularisation
    largest <- max(abs(K))
    limit <- sqrt(.Machine$double.xmax / nrow(K))
    if (largest > limit) {
      krein_abort(sprintf("The kernel matrix `x` has entries up to %s; the models square kernel values and add %d of them, which overflows double precision beyond %s. Divide the kernel by a constant first.",
                          format(largest, digits = 3), nrow(K), format(limit, digits = 3)))
    }
    if (length(y) != nrow(K)) {
      krein_abort(sprintf("`y` must have one label per row of the kernel matrix `x` (%d), not %d.",
                          nrow(K), length(y)))
    }
    if (anyNA(y)) {
      krein_abort(sprintf("`y` has missing values at position%s %s; a precomputed kernel cannot drop rows, remove them from the kernel and `y` first.",
                          if (sum(is.na(y)) > 1) "s" else "", format_indices(which(is.na(y)))))
    }
    spec <- list(type = "precomputed", n_train = nrow(K),
                 dissimilarity = if (inherits(precomputed, "krein_dissimilarity")) dissimilarity_converter(precomputed))
    # no columns to scale: `scale` is checked but ignored
    return(finish_inputs(NULL, y, NULL, spec, seq_len(nrow(K)), min_classes,
                         precomputed = precomputed, scale = scale))
  }
  # strings and other objects without coordinates: their own input type
  if (is_object_data(x)) return(inputs_from_objects(x, y, kernel, na.action, min_classes, scale = scale))
  x <- check_numeric_matrix_allow_na(x, "x")
  check_column_names(colnames(x), "x")
  y <- check_label_vector(y)
  if (length(y) != nrow(x)) {
    krein_abort(sprintf("`y` must have one label per row of `x` (%d), not %d.", nrow(x), length(y)))
  }
  keep <- na_rows_action(na.action, x, y, "x", "`y`")
  spec <- list(type = "xy", colnames = colnames(x), n_columns = ncol(x))
  finish_inputs(x, y, kernel, spec, keep, min_classes, scale = scale, x_arg = "x", fitted = fitted)
}

#' Column names a fit can match new data by: none (a matrix without names),
#' or all present and distinct. predict() takes new data's columns by name, so
#' with two columns "a" it would take the first one twice. A name that is
#' `NA` is missing, as an empty one is; the string "NA" is a name.
#' @param why Why names are needed, as the messages say it.
#' @param fix How to name a column: a function of the positions without a name.
#' @noRd
check_column_names <- function(names, arg, why = "predict() matches columns by name",
                               fix = function(empty) "cbind(x, name = values) names the column it adds") {
  if (is.null(names)) return(invisible())
  empty <- which(is.na(names) | !nzchar(names))
  if (length(empty)) {
    krein_abort(sprintf("`%s` has %s without a name (column%s %s); %s, so name every column (%s).", arg,
                        if (length(empty) > 1) "columns" else "a column", if (length(empty) > 1) "s" else "",
                        format_indices(empty), why, fix(empty)))
  }
  repeated <- unique(names[duplicated(names)])
  if (length(repeated)) {
    krein_abort(sprintf("`%s` has more than one column named %s; %s, so give each its own name.",
                        arg, format_indices(paste0("\"", repeated, "\"")), why))
  }
  invisible()
}

#' `y` as a plain vector or factor of labels (a one-column data frame or
#' matrix is taken as its column)
#' @noRd
check_label_vector <- function(y) {
  if (is.data.frame(y)) {
    if (ncol(y) != 1L) krein_abort(sprintf("`y` must be a vector or factor of labels, not %s.", describe_value(y)))
    y <- y[[1L]]
  }
  if (!is.null(dim(y)) && length(dim(y)) == 2L && min(dim(y)) == 1L) y <- as.vector(y)
  if (!is.atomic(y) || !is.null(dim(y))) {
    krein_abort(sprintf("`y` must be a vector or factor of labels, not %s.", describe_value(y)))
  }
  y
}

#' The common end of both paths: subset the complete rows, make the response a
#' factor, scale the columns (`scale = TRUE`), resolve the kernel from the
#' (scaled) training data.
#' @noRd
finish_inputs <- function(x, y, kernel, spec, keep, min_classes, precomputed = NULL, scale = FALSE,
                          x_arg = "x", fitted = list()) {
  scale <- check_flag(scale, "scale")
  labels <- y[keep]
  y <- as_class_factor(labels, min_classes)
  spec$outcome_levels <- outcome_levels_of(y)
  attr(y, "outcome_levels") <- NULL
  # kernel = NULL: no kernel to resolve (a model on the features themselves,
  # onda(); tune_krein()'s checks). A kernel model refuses it (fit_model()).
  has_kernel <- !is.null(x) && !is.null(kernel)
  if (has_kernel) kernel <- as_krein_kernel(kernel)
  # a Gaussian width left to the data (pcvm() narrows it where EM goes wrong)
  width_from_data <- has_kernel && inherits(kernel, "krein_kernel_rbf") && is.null(kernel$params$gamma)
  if (!is.null(x)) {
    x <- x[keep, , drop = FALSE]
    warn_response_columns(x, y, labels, x_arg)
    spec$scaling <- input_scaling(x, if (has_kernel) kernel, fitted, scale, quiet = spec$factor_columns)
    x <- scale_columns(spec$scaling, x)
  }
  if (has_kernel) {
    kernel <- resolve_kernel(kernel, x, spec$scaling)
    check_kernel_dimension(kernel, ncol(x))
  }
  spec$kernel <- kernel
  spec$n_train <- length(y)
  spec$levels <- levels(y)
  structure(
    list(x = x, y = y, kernel = kernel, precomputed = precomputed, width_from_data = width_from_data,
         na_action = attr(keep, "na.action"), spec = structure(spec, class = "krein_input_spec")),
    class = "krein_inputs"
  )
}

# ---------------------------------------------------------------------------
# Objects fitted on data carry their units
#
# A model hands its inputs to its kernel and, for onda(), to a posterior
# model. Such an object may have been fitted on data itself: a model used as
# a posterior, a discriminant kernel (kernel_discriminant()), a kernel whose
# width was taken from data (the kernel a fit stores, `fit$spec$kernel`).
# It must receive data in the units it was fitted in, whatever the `scale`
# of the model that uses it, or it computes on data it never saw (data
# scaled twice, say). Its units are NULL when it was not fitted on data,
# else list(scaling = ): NULL for the data as the user gives them (a model's
# predict() and the discriminant kernels apply their own scaling), or the
# centres and scales of the scaled data it was fitted on. A model given such
# an object computes in its units: finish_inputs() scales by them instead of
# the model's own scaling (none for original units). Landmarks are points,
# not fitted objects: they are given in the original units and mapped into
# the model's (resolve_landmarks()).

#' The units of data an object fitted on data takes (see above): NULL for an
#' object not fitted on data, else a list with `scaling`
#' @noRd
data_units <- function(object) {
  if (inherits(object, "krein_kernel")) {
    if (!is.null(object$units)) return(object$units)
    # a transformation invariance is a map of the user's coordinates (the
    # reflection x -> -x is about their origin): after a model's centring it
    # would be another kernel, so an invariant kernel takes the data as given
    if (inherits(object, "krein_kernel_invariant")) return(list(scaling = NULL))
    return(NULL)
  }
  if (is.null(object) || is.character(object) || is.function(object) || is.atomic(object)) return(NULL)
  # a fitted model (onda()'s `posterior`): its predict() takes the original units
  if (is.list(object) || isS4(object)) return(list(scaling = NULL))
  NULL
}

#' The units the inputs of a model must be given in: those of its kernel
#' and the other fitted objects (`fitted`, a list) it hands them to; NULL
#' when none was fitted on data (then `scale` decides). Objects fitted in
#' different units are an error: no one scaling serves them all.
#' @noRd
input_units <- function(kernel, fitted = list(), n_columns = NULL) {
  units <- lapply(c(list(kernel), fitted), data_units)
  units <- units[!vapply(units, is.null, logical(1))]
  if (length(units) == 0L) return(NULL)
  same <- vapply(units, function(u) identical(u$scaling, units[[1L]]$scaling), logical(1))
  if (!all(same)) {
    krein_abort("The kernel and the posterior model were fitted on data in different units (one scaled, one not, or scaled differently); fit them on the data as given, or with the same `scale`.")
  }
  scaling <- units[[1L]]$scaling
  if (!is.null(scaling) && !is.null(n_columns) && length(scaling$center) != n_columns) {
    krein_abort(sprintf("The kernel was fitted on data with %d columns; the data have %d.",
                        length(scaling$center), n_columns))
  }
  units[[1L]]
}

#' The scaling of a model's columns `x`: the units of its kernel or of
#' other objects fitted on data (`fitted`) where they have them (whatever
#' `scale`), else the columns' own centres and scales (`scale = TRUE`) or
#' none (NULL)
#' @noRd
input_scaling <- function(x, kernel, fitted = list(), scale = TRUE, quiet = character()) {
  units <- input_units(kernel, fitted, ncol(x))
  if (!is.null(units)) return(units$scaling)
  if (scale) column_scaling(x, quiet)
}

#' The n x n training kernel of prepared inputs (computed once, by the model
#' that needs it; Nystroem models never call this).
#' @noRd
training_kernel <- function(inputs, threads = NULL) {
  if (!is.null(inputs$precomputed)) return(inputs$precomputed$K)
  evaluate_kernel(inputs$kernel, inputs$x, NULL, check_threads(threads))
}

#' Response to factor: the classes are the levels with training rows, enough
#' of them. A level without training rows is left out of the fit with a
#' message and kept in attribute "outcome_levels" (all levels, in order), the
#' levels predictions carry (outcome_predictions()).
#' @noRd
as_class_factor <- function(y, min_classes = 2L) {
  outcome_levels <- NULL
  if (inherits(y, "integer64")) y <- exact_integer64(y, "`y`")
  if (is.factor(y)) {
    # an ordered factor's classes are its levels: their order has no part in
    # a classifier, and Ops.ordered would refuse comparing them with the
    # plain factors the models predict (kernlab's income, kqd and kmdc)
    if (is.ordered(y)) y <- factor(y, levels = levels(y), ordered = FALSE)
    used <- tabulate(y, nlevels(y)) > 0L
    if (!all(used)) {
      unused <- levels(y)[!used]
      several <- length(unused) > 1L
      message(sprintf(paste("Level%s %s of `y` %s no training rows: the model is fitted on the other classes,",
                            "and predictions keep %s among their levels, with probability 0."),
                      if (several) "s" else "", paste0("\"", unused, "\"", collapse = ", "),
                      if (several) "have" else "has", if (several) "them" else "it"))
      outcome_levels <- levels(y)
      y <- droplevels(y)
    }
  } else if (is.character(y) || is.logical(y) || is.numeric(y)) {
    if (is.numeric(y) && any(abs(y - round(y)) > 0)) {
      krein_abort("`y` must hold class labels; it has non-integer numbers. krein classifies, it does not regress.")
    }
    y <- if (is.integer(y) || is.logical(y) || (is.double(y) && all(abs(y) < 1e15, na.rm = TRUE))) {
      # factor() would turn every label into a string first (a second for
      # the 1e7 labels of a fit over chunks); for these labels the codes
      # against the sorted distinct values are the same factor
      values <- sort(unique(y))
      structure(match(y, values), levels = as.character(values), names = names(y), class = "factor")
    } else {
      factor(y)
    }
  } else {
    krein_abort(sprintf("`y` must be a factor, character, logical or integer vector of class labels, not %s.",
                        describe_value(y)))
  }
  if (nlevels(y) < min_classes) {
    krein_abort(sprintf("`y` must have at least %d classes; it has %d%s.", min_classes, nlevels(y),
                        if (nlevels(y) > 0) paste0(" (", paste0("\"", levels(y), "\"", collapse = ", "), ")") else ""))
  }
  attr(y, "outcome_levels") <- outcome_levels
  y
}

#' The levels of the outcome a response factor came from (as_class_factor()):
#' its own, and those without training rows
#' @noRd
outcome_levels_of <- function(y) attr(y, "outcome_levels") %||% levels(y)

#' Rows to keep under `na.action`: na.fail (and NULL, the default, when
#' getOption("na.action") is na.fail) gives an error naming the rows, and whether the predictors (`arg`) or the response
#' (`y_arg`, already quoted) hold the missing values; na.omit / na.exclude
#' drop them and record which.
#' @noRd
na_rows_action <- function(na_action, x, y, arg, y_arg = "`y`", unit = "row") {
  action <- na_action_name(na_action)
  missing_x <- which(rowSums(is.na(x)) > 0)
  missing_y <- which(is.na(y))
  incomplete <- sort(union(missing_x, missing_y))
  keep <- seq_len(nrow(x))
  if (length(incomplete) == 0L) return(keep)
  if (action == "fail") {
    rows_text <- function(rows) sprintf("%s%s %s", unit, if (length(rows) > 1) "s" else "", format_indices(rows))
    where <- c(if (length(missing_x)) sprintf("`%s` has missing values in %s", arg, rows_text(missing_x)),
               if (length(missing_y)) sprintf("%s has missing values in %s", y_arg, rows_text(missing_y)))
    krein_abort(sprintf("%s; remove %s or use `na.action = na.omit`.", paste(where, collapse = " and "),
                        if (length(incomplete) > 1) "them" else "it"))
  }
  keep <- keep[-incomplete]
  if (length(keep) == 0L) {
    krein_abort(sprintf("`%s` has no complete %ss.", arg, if (unit == "row") "row" else "element"))
  }
  omitted <- stats::setNames(incomplete, rownames(x)[incomplete])
  attr(keep, "na.action") <- structure(omitted, class = action)
  keep
}

na_action_name <- function(na_action) {
  # NULL (the default): R's convention, as model.frame(), MASS::lda() and
  # e1071::svm() follow it: getOption("na.action"), na.omit unless set
  if (is.null(na_action)) {
    option <- getOption("na.action")
    if (is.null(option)) return("fail")
    name <- tryCatch(na_action_name(option), krein_error = function(e) NULL)
    if (is.null(name)) {
      krein_abort(sprintf("`na.action` is NULL, which follows getOption(\"na.action\"), and that is %s; krein takes na.fail, na.omit or na.exclude. Give one as `na.action`.",
                          if (is.character(option)) paste0("\"", option[1], "\"") else describe_value(option)))
    }
    return(name)
  }
  if (is.character(na_action) && length(na_action) == 1L) {
    name <- sub("^na\\.", "", na_action)
    if (name %in% c("fail", "omit", "exclude")) return(name)
  }
  if (is.function(na_action)) {
    if (identical(na_action, stats::na.fail)) return("fail")
    if (identical(na_action, stats::na.omit)) return("omit")
    if (identical(na_action, stats::na.exclude)) return("exclude")
  }
  krein_abort("`na.action` must be NULL (getOption(\"na.action\"), na.omit unless set), na.fail, na.omit or na.exclude.")
}

#' Training centres and scales of the columns (`scale = TRUE`), computed as
#' base::scale() does, so that a fit equals one with `scale = FALSE` on
#' `scale(x)`. A constant column (standard deviation zero up to rounding) is
#' centred only, with a message.
#'
#' `quiet`: names of columns whose constancy needs no message (the dummy
#' column of a factor level no training row has; inputs_from_formula()).
#'
#' Each column is first divided by the power of two at or above its
#' largest magnitude (pow2_size()): exact, so that ordinary data get the same
#' bits as base::scale() gives, while columns of tiny (1e-300) or huge
#' (1e300) numbers neither underflow nor overflow in the squares of the
#' standard deviation.
#' @noRd
column_scaling <- function(x, quiet = character()) {
  n <- nrow(x)
  size <- pow2_size(apply(abs(x), 2L, max))
  z <- sweep(x, 2L, size, "/", check.margin = FALSE)
  center <- colMeans(z)
  centred <- sweep(z, 2L, center, check.margin = FALSE)
  scale <- if (n > 1L) sqrt(colSums(centred^2) / (n - 1L)) else rep(0, ncol(x))
  center <- center * size
  scale <- scale * size
  # rounding leaves a constant column a standard deviation of a few ulps of its mean
  constant <- !is.finite(scale) | scale <= 100 * .Machine$double.eps * abs(center)
  told <- constant & !(colnames(x) %||% character(ncol(x))) %in% quiet
  if (any(told)) {
    names <- if (is.null(colnames(x))) paste0("column ", which(told)) else paste0("`", colnames(x)[told], "`")
    message(sprintf("Constant predictor column%s %s: centred but not scaled.",
                    if (sum(told) > 1) "s" else "", paste(names, collapse = ", ")))
  }
  scale[constant] <- 1
  names(center) <- names(scale) <- names(constant) <- colnames(x)
  list(center = center, scale = scale, constant = constant)
}

#' The power of two at or above each number (1 for zero; pow2_exponent(),
#' R/gaussian.R): dividing by it is exact and brings the numbers to at most 1
#' in magnitude
#' @noRd
pow2_size <- function(v) 2^pow2_exponent(v)

#' Apply a fit's scaling to data in the original units (NULL: none). The
#' columns, centres and scales are first divided by the power of two at or
#' above the larger of |centre| and scale (exact: the same bits as (x -
#' center) / scale for ordinary data), so that the difference neither
#' underflows for tiny columns nor overflows for huge ones of opposite sign.
#' @noRd
scale_columns <- function(scaling, x) {
  if (is.null(scaling) || is.null(x)) return(x)
  size <- pow2_size(pmax(abs(scaling$center), scaling$scale))
  scaled <- sweep(x, 2L, size, "/", check.margin = FALSE)
  scaled <- sweep(scaled, 2L, scaling$center / size, check.margin = FALSE)
  sweep(scaled, 2L, scaling$scale / size, "/", check.margin = FALSE)
}

#' Back to the original units: what plot() and print() show
#' @noRd
unscale_columns <- function(scaling, x) {
  if (is.null(scaling) || is.null(x)) return(x)
  x <- sweep(x, 2L, scaling$scale, "*", check.margin = FALSE)
  sweep(x, 2L, scaling$center, "+", check.margin = FALSE)
}

#' Warn when a numeric predictor column is the response itself: its class
#' codes 1..k or its numeric labels (a factor column is refused elsewhere).
#' @param labels The response as given (before it became a factor).
#' @noRd
warn_response_columns <- function(x, y, labels, arg) {
  if (ncol(x) == 0L || length(y) < 2L) return(invisible())
  codes <- list(as.integer(y))
  numeric_labels <- if (is.numeric(labels) || is.logical(labels)) as.numeric(labels) else
    suppressWarnings(as.numeric(as.character(labels)))
  if (!anyNA(numeric_labels)) codes <- c(codes, list(numeric_labels))
  same <- vapply(seq_len(ncol(x)), function(j) {
    column <- x[, j]
    !anyNA(column) && any(vapply(codes, function(code) all(column == code), logical(1)))
  }, logical(1))
  if (any(same)) {
    names <- colnames(x)[same] %||% paste0("column ", which(same))
    krein_warn(sprintf("`%s` has %s %s equal to the class labels of the response; is the response among the predictors? Remove %s.",
                       arg, if (sum(same) > 1) "columns" else "a column",
                       paste0("`", names, "`", collapse = ", "), if (sum(same) > 1) "them" else "it"))
  }
  invisible()
}

# Matrices that may hold NA (na.action deals with them), but no Inf.
check_numeric_matrix_allow_na <- function(x, arg) {
  x <- as_numeric_matrix(x, arg)
  check_no_infinite(x, arg)
  x
}

model_matrix_without_intercept <- function(terms, mf, contrasts) {
  x <- stats::model.matrix(terms, mf, contrasts.arg = contrasts)
  intercept <- match("(Intercept)", colnames(x), nomatch = 0L)
  if (intercept > 0L) {
    contr <- attr(x, "contrasts")
    assign <- attr(x, "assign")
    x <- x[, -intercept, drop = FALSE]
    attr(x, "contrasts") <- contr
    attr(x, "assign") <- assign[-intercept]
  }
  x
}

# What predict() needs of a dissimilarity conversion: everything but the kernel.
dissimilarity_converter <- function(object) {
  object$K <- NULL
  object$self <- NULL
  object
}

#' New data for a fitted model: the predictor matrix (data fits) or the test
#' kernel with self-similarities (precomputed fits), checked against the fit.
#' @param spec The model's `krein_input_spec`.
#' @param scaled Apply the fit's scaling (what the model computes with);
#'   FALSE keeps the original units (what plot() draws).
#' @returns A list with `x` (n_new x d, or NULL) or `K` (n_new x n_train) and `self`.
#' @noRd
new_inputs <- function(spec, newdata, scaled = TRUE) {
  if (missing(newdata) || is.null(newdata)) krein_abort("`newdata` is missing.")
  x <- switch(spec$type,
    formula = new_formula_data(spec, newdata),
    xy = new_xy_data(spec, newdata),
    precomputed = return(new_precomputed_data(spec, newdata)),
    objects = return(new_object_data(spec, newdata))
  )
  list(x = if (scaled) scale_columns(spec$scaling, x) else x)
}

new_formula_data <- function(spec, newdata) {
  if (!is.data.frame(newdata) && !is.list(newdata)) {
    if (is.matrix(newdata)) newdata <- as.data.frame(newdata) else
      krein_abort(sprintf("`newdata` must be a data frame, not %s.", describe_value(newdata)))
  }
  terms <- stats::delete.response(spec$terms)
  needed <- all.vars(terms)
  if (is.data.frame(newdata)) newdata <- exact_integer64_columns(newdata, "`newdata`")
  missing_vars <- setdiff(needed, names(newdata))
  if (length(missing_vars) > 0L) {
    krein_abort(sprintf("`newdata` lacks the variable%s %s used in the fit.",
                        if (length(missing_vars) > 1) "s" else "",
                        format_indices(paste0("`", missing_vars, "`"))))
  }
  mf <- tryCatch(
    stats::model.frame(terms, newdata, na.action = stats::na.pass, xlev = spec$xlevels),
    error = function(e) krein_abort(sprintf("`newdata` does not match the fit: %s", conditionMessage(e))))
  classes <- attr(terms, "dataClasses")
  if (!is.null(classes)) {
    tryCatch(stats::.checkMFClasses(classes, mf),
             error = function(e) krein_abort(sprintf("`newdata` does not match the fit: %s", conditionMessage(e))))
  }
  x <- model_matrix_without_intercept(terms, mf, spec$contrasts)
  check_new_rows(x)
}

new_xy_data <- function(spec, newdata) {
  d <- spec$n_columns
  if (is.numeric(newdata) && is.null(dim(newdata)) && length(newdata) == d) {
    newdata <- matrix(newdata, nrow = 1L, dimnames = list(NULL, spec$colnames))
  }
  # a data frame holding the fit's columns among others (the outcome, an id)
  # gives those columns, as predict.lm() takes the variables it needs
  if (is.data.frame(newdata) && !is.null(spec$colnames) && all(spec$colnames %in% names(newdata))) {
    newdata <- newdata[spec$colnames]
  }
  x <- check_numeric_matrix_allow_na(newdata, "newdata")
  if (!is.null(spec$colnames) && !is.null(colnames(x))) {
    missing_cols <- setdiff(spec$colnames, colnames(x))
    if (length(missing_cols) > 0L) {
      krein_abort(sprintf("`newdata` lacks the column%s %s used in the fit.",
                          if (length(missing_cols) > 1) "s" else "",
                          format_indices(paste0("`", missing_cols, "`"))))
    }
    x <- x[, spec$colnames, drop = FALSE]
  } else if (ncol(x) != d) {
    krein_abort(sprintf("`newdata` must have %d columns, as the training data, not %d.", d, ncol(x)))
  }
  check_new_rows(x)
}

new_precomputed_data <- function(spec, newdata) {
  n <- spec$n_train
  self <- NULL
  # A model fitted on dissimilarities takes new dissimilarities, or new
  # kernel values already converted (a precomputed_kernel() or the result of
  # predict() on the conversion), which are used as given.
  already_kernel <- inherits(newdata, "krein_precomputed")
  if (already_kernel) {
    self <- newdata$self
    newdata <- newdata$K
  } else if (inherits(newdata, "dist")) {
    newdata <- as.matrix(newdata)
  } else if (is.numeric(newdata) && is.null(dim(newdata)) && length(newdata) == n) {
    newdata <- matrix(newdata, nrow = 1L)
  }
  if (!is.null(spec$dissimilarity) && !already_kernel) {
    converted <- predict.krein_dissimilarity(spec$dissimilarity, newdata)
    return(list(K = converted$K, self = converted$self))
  }
  K <- check_numeric_matrix_allow_na(newdata, "newdata")
  if (ncol(K) != n) {
    krein_abort(sprintf("`newdata` must be a kernel matrix with one column per training point (%d), not %d.",
                        n, ncol(K)))
  }
  list(K = K, self = self)
}

# Missing values are allowed (those rows predict NA, as predict.lm with
# na.pass); infinite ones are not.
check_new_rows <- function(x) {
  check_no_infinite(x, "newdata")
  x
}

#' The kernel between new points and a fit's expansion points
#'
#' @param spec The model's `krein_input_spec`.
#' @param new The result of new_inputs().
#' @param points The expansion points the model kept (rows of the training
#'   data, or landmarks), for data fits.
#' @param columns Which training points they are (indices), for precomputed
#'   fits; NULL means all.
#' @noRd
new_kernel_matrix <- function(spec, new, points = NULL, columns = NULL, threads = NULL) {
  if (spec$type == "precomputed") {
    if (is.null(columns)) return(new$K)
    return(new$K[, columns, drop = FALSE])
  }
  if (spec$type == "objects") return(stored_object_columns(spec, new$K, columns))
  evaluate_kernel(spec$kernel, new$x, points, check_threads(threads))
}

#' Self-similarities k(x, x) of new points (for kernel-induced distances)
#' @noRd
new_self_similarity <- function(spec, new) {
  if (spec$type == "objects") return(new$self)
  if (spec$type == "precomputed") {
    if (is.null(new$self)) {
      krein_abort("`newdata` must carry the self-similarities k(x, x) of the new points for this model: pass precomputed_kernel(K_new, self = ...).")
    }
    return(new$self)
  }
  kernel_self(spec$kernel, new$x)
}
