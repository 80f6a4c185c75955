# caret_model(): krein models as caret custom models, with their tuning
# parameters, ranges and default grids.

#' krein models as caret custom models
#'
#' `caret_model(name)` returns the list caret's `train()` takes as a custom
#' `method`, so that `caret::train(x, y, method = caret_model("kqd"))` tunes a
#' krein model with caret's resampling. caret is a suggested package: install
#' it to use this.
#'
#' The tuning parameters are the model arguments named in `tune` and, for the
#' models with a kernel, the Gaussian kernel's `gamma` (other kernels: pass
#' `kernel = ` to `train()`, which forwards it; `gamma` is then ignored). A
#' `tuneGrid` needs a column for each; a value of `NA` takes the model's
#' default (for `gamma`, the median heuristic; for `"isvm"`, `"krein_svm"`
#' and `"pcvm"`, their default width \eqn{1/p}), but caret counts any `NA` in a
#' grid as a missing result and warns, so prefer values. Other model arguments
#' can be passed to `train()`, which forwards them to the model, `scale` among
#' them (the default `TRUE` centres and scales the columns by the training
#' rows of each resample, see [krein_inputs]; caret's own `preProcess` is then
#' not needed).
#'
#' @section Default grid:
#' Without a `tuneGrid`, `train()` asks the method for a grid of
#' `tuneLength` values per tuned parameter (caret's default `tuneLength` is 3;
#' `trainControl(search = "random")` draws `tuneLength` random points from the
#' same ranges instead). The ranges are those of [tune_krein()]'s default
#' grid and of the dials parameters ([rbf_gamma()]): krein keeps one table of
#' them. The width is log-spaced from 1/32 to 32 times the median
#' heuristic \eqn{\gamma_0}, [median_gamma()] of the training `x` centred and
#' scaled as the model's default `scale = TRUE` scales it (with `scale =
#' FALSE`, give a `tuneGrid`), for `"isvm"`, `"krein_svm"` and `"pcvm"` times their default width
#' \eqn{\gamma_0 = 1/p}; for odd `tuneLength` one value is
#' \eqn{\gamma_0} itself. The model's own parameters, with one value each at
#' `tuneLength = 1` (the model's default where it has a fixed one):
#'
#' | name | parameters | default grid |
#' |---|---|---|
#' | `"kqd"` | `variant`, `reg` | `variant = "RC+"`, `reg` log-spaced in 1e-5 to 10 |
#' | `"kmdc"` | `distance`, `classifier`, `reg` | `"RC"`, `"lda"`, `reg` log-spaced in 1e-5 to 10 |
#' | `"ikfd"` | `ridge_relative` | log-spaced in 1e-6 to 1e-2 |
#' | `"kfda"` | `discriminant`, `ncomp` | `"linear"`, `ncomp` as a share of variance, 0.8, 0.9, 0.95, ... |
#' | `"onda"` | `posterior`, `ridge` | `"linear"` (ridge 0) and `"gaussian"` with `ridge` log-spaced in 1e-4 to 1e-2 (no kernel, no `gamma`) |
#' | `"iknn"` | `k` | 1, 5, 9, ... |
#' | `"ikpca_qd"` | `pvar`, `shrinkage` | `pvar = 0.8`, `shrinkage` log-spaced in 0.001 to 1 |
#' | `"isvm"` | `C` | log-spaced in 0.1 to 1000 |
#' | `"krein_svm"` | `C` | log-spaced in 0.1 to 1000 |
#' | `"pcvm"` | none | the width alone |
#'
#' A model's other tunable arguments ([krein_models()]) can be added with
#' `tune`, among them every kernel model's `spectrum` (a correction of the
#' kernel's spectrum, see [correct_spectrum()]); they get the model's default
#' in the default grid (give a `tuneGrid` to vary them, e.g. `spectrum =
#' c("none", "clip", "flip")`).
#'
#' @param name The krein model, one of the names [krein_models()] lists.
#' @param tune The model arguments caret tunes, a subset of the model's
#'   tunable arguments (the `tunable` column of [krein_models()]); `NULL`
#'   for the ones the table above lists (all of them for a model not listed).
#' @returns A list with the elements caret expects (`library`, `type`,
#'   `parameters`, `grid`, `fit`, `predict`, `prob`, `sort`, `levels`).
#' @family model selection
#' @examples
#' if (requireNamespace("caret", quietly = TRUE)) {
#'   set.seed(1)
#'   d <- checkerboard(150, size = 3)
#'   tuned <- caret::train(d[, 1:2], d$y, method = caret_model("kqd"), tuneLength = 2,
#'                         trControl = caret::trainControl(method = "cv", number = 3))
#'   tuned$bestTune
#'   # or a grid of your own
#'   grid <- expand.grid(variant = "RC+", reg = c(0.01, 0.1), gamma = c(2, 8))
#'   tuned <- caret::train(d[, 1:2], d$y, method = caret_model("kqd"), tuneGrid = grid,
#'                         trControl = caret::trainControl(method = "cv", number = 3))
#'   tuned$bestTune
#' }
#' @export
caret_model <- function(name, tune = NULL) {
  if (missing(name)) {
    krein_abort(sprintf("`name` is missing; give the model's name, one of %s.",
                        paste0("\"", registered_models(), "\"", collapse = ", ")))
  }
  name <- check_choice(name, "name", registered_models())
  info <- model_info(name)
  specs <- caret_tuning_specs[[name]]
  if (is.null(tune)) {
    # `spectrum` only on request: its default grid would be "none" alone
    tune <- if (is.null(specs)) setdiff(info$parameters$parameter, "spectrum") else names(specs)
  } else {
    if (!is.character(tune) || anyNA(tune)) {
      krein_abort(sprintf("`tune` must be NULL or a character vector of %s()'s tunable arguments, not %s.",
                          name, describe_value(tune)))
    }
    # the width is tuned for every kernel model anyway
    if (info$uses_kernel) tune <- setdiff(tune, "gamma")
    unknown <- setdiff(tune, info$parameters$parameter)
    if (length(unknown)) {
      krein_abort(sprintf("`tune` names %s, not %s of %s()'s tunable arguments (%s).",
                          paste0("`", unknown, "`", collapse = ", "), if (length(unknown) > 1) "among" else "one",
                          name, if (nrow(info$parameters)) paste0("`", info$parameters$parameter, "`", collapse = ", ")
                          else "it has none"))
    }
  }
  parameters <- caret_parameters(info, tune)
  reported <- new.env(parent = emptyenv())
  list(
    label = paste("krein", name),
    library = "krein",
    type = "Classification",
    parameters = parameters,
    grid = function(x, y, len = NULL, search = "grid") {
      caret_default_grid(info, parameters, if (missing(x)) NULL else x, len %||% 1L, search)
    },
    fit = function(x, y, wts, param, lev, last, weights, classProbs, ...) {
      caret_report_refused_row(info, param, reported)
      args <- list(...)
      # expand.grid() makes factors of character values; NA takes the default
      param <- lapply(as.list(param), function(v) if (is.factor(v)) as.character(v) else v)
      param <- param[!vapply(param, function(v) length(v) == 1L && is.na(v), logical(1))]
      param$parameter <- NULL  # caret's placeholder for a model without parameters
      kernel <- NULL
      if (info$uses_kernel) {
        kernel <- args$kernel %||% gaussian_or_default_kernel(info$name, param$gamma)
        args$kernel <- NULL
        param$gamma <- NULL
      }
      x <- if (is.data.frame(x)) as.matrix(x) else x
      fit_registered(info, x, y, kernel, c(param, args))
    },
    predict = function(modelFit, newdata, submodels = NULL) {
      as.character(stats::predict(modelFit, as.matrix(newdata), type = "class"))
    },
    prob = function(modelFit, newdata, submodels = NULL) {
      as.data.frame(stats::predict(modelFit, as.matrix(newdata), type = "prob"))
    },
    # caret calls `loop` with the grid before any fit (for grids of more than
    # one row) and outside its try(): a value krein refuses is said here in
    # krein's words, instead of failing every resample and ending in caret's
    # "Stopping"
    loop = function(grid) {
      caret_check_grid(info, grid)
      # checked: fit() need not check these rows again
      for (i in seq_len(nrow(grid))) reported[[caret_row_key(grid[i, , drop = FALSE])]] <- TRUE
      list(loop = grid, submodels = NULL)
    },
    sort = function(x) x,
    levels = function(x) x$outcome_levels %||% x$levels
  )
}

#' A one-row tuneGrid never reaches `loop` (caret calls it for grids of more
#' than one row), so a value krein refuses first shows in `fit`, inside
#' caret's try(): every resample fails, each with a warning, and caret stops
#' with "Stopping". Say it once per row as a message in krein's words before
#' that, then let the fit fail as caret expects. `reported` remembers the rows
#' already checked, here or by `loop` (one environment per caret_model()).
#' @noRd
caret_report_refused_row <- function(info, param, reported) {
  key <- caret_row_key(param)
  if (isTRUE(reported[[key]])) return(invisible())
  reported[[key]] <- TRUE
  refused <- tryCatch({
    caret_check_grid(info, param)
    NULL
  }, krein_error = function(e) e)
  if (!is.null(refused)) {
    message("krein: caret's resamples will fail: ", conditionMessage(refused))
    stop(refused)
  }
  invisible()
}

#' A row of a caret tuning grid as text (its columns' values as characters,
#' factors and numbers alike)
#' @noRd
caret_row_key <- function(row) paste(deparse(lapply(as.list(row), as.character)), collapse = "")

#' The values of a caret tuning grid that krein refuses, as tune_krein()
#' checks its grid: each model argument probed on a small made-up data set
#' (arguments are validated before the data matter), the width by the kernel
#' @noRd
caret_check_grid <- function(info, grid) {
  grid <- lapply(as.list(grid), function(v) if (is.factor(v)) as.character(v) else v)
  grid$parameter <- NULL
  grid <- grid[!vapply(grid, function(v) all(is.na(v)), NA)]
  if (length(grid) == 0L) return(invisible())
  x <- cbind(x1 = c(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), x2 = c(3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8))
  y <- factor(rep(c("a", "b", "c"), 4))
  kernel <- if (info$uses_kernel) kernel_rbf(1)
  inputs <- inputs_from_xy(x, y, kernel, NULL, scale = TRUE)
  check_grid_values(as.data.frame(grid, stringsAsFactors = FALSE), info, kernel, inputs, list(), arg = "tuneGrid")
}

#' caret's parameter table: the tuned model arguments and, for kernel
#' models, the Gaussian width
#' @noRd
caret_parameters <- function(info, tune) {
  parameters <- info$parameters[match(tune, info$parameters$parameter), c("parameter", "class", "label")]
  if (info$uses_kernel) {
    parameters <- rbind(parameters, data.frame(parameter = "gamma", class = "numeric", label = "RBF width gamma",
                                               stringsAsFactors = FALSE))
  }
  if (nrow(parameters) == 0L) {
    parameters <- data.frame(parameter = "parameter", class = "character", label = "none", stringsAsFactors = FALSE)
  }
  rownames(parameters) <- NULL
  parameters
}

# A tuning range `c(from, to)` in log10 units (times `center`): `values(len)`
# gives `len` grid values (for len = 1 the model's default `single`, else the
# range's centre), `draw(len)` `len` random ones.
log_range <- function(range, center = 1, single = NULL) {
  list(values = function(len) if (len == 1L && !is.null(single)) single else center * range_values(range, len),
       draw = function(len) center * 10^stats::runif(len, range[1], range[2]))
}
# A fixed set of choices: all of them on a grid, `len` draws at random.
choice_values <- function(values) {
  list(values = function(len) values, draw = function(len) values[sample.int(length(values), len, replace = TRUE)])
}

# The default tuning parameters per model (see ?caret_model): fixed choices
# here, numeric ranges (NULL here) from the registry's one table
# (tuning_range()), as tune_krein() and the dials parameters read it; at
# len = 1 the model's default.
caret_tuning_specs <- list(
  kqd = list(variant = choice_values("RC+"), reg = NULL),
  kmdc = list(distance = choice_values("RC"), classifier = choice_values("lda"), reg = NULL),
  ikfd = list(ridge_relative = NULL),
  # ncomp as a share of variance (< 1) adapts to each resample's rank, where
  # a count could exceed it in a small resample
  kfda = list(discriminant = choice_values("linear"),
              ncomp = list(values = function(len) 1 - 0.2 / 2^(seq_len(len) - 1L),
                           draw = function(len) stats::runif(len, 0.8, 0.99))),
  # handled by caret_onda_grid(): ridge matters for the Gaussian posteriors only
  onda = list(posterior = choice_values(c("linear", "gaussian")), ridge = NULL),
  iknn = list(k = list(values = function(len) 1 + 4 * (seq_len(len) - 1),
                       draw = function(len) sample(seq(1, 21, by = 2), len, replace = TRUE))),
  ikpca_qd = list(pvar = choice_values(0.8), shrinkage = NULL),
  isvm = list(C = NULL),
  krein_svm = list(C = NULL),
  pcvm = list()
)

#' The width range of the default grids: the registry's (tuning_range()),
#' around the width of the model's default kernel (the median heuristic;
#' 1/p for isvm, krein_svm and pcvm) on the training x scaled as `scale = TRUE` scales it
#' @noRd
caret_gamma_range <- function(x, name) {
  x <- as.matrix(x)
  if (!is.numeric(x) || nrow(x) < 2L) krein_abort("`x` must be a numeric matrix with at least two rows to choose the widths of the default grid.")
  log_range(tuning_range(name, "gamma"), center = width_grid_center(x, gaussian_or_default_kernel(name, NULL)))
}

caret_default_grid <- function(info, parameters, x, len, search = "grid") {
  len <- check_number(len, "len", lower = 1, allow_lower = TRUE, integer = TRUE)
  random <- identical(search, "random")
  specs <- caret_tuning_specs[[info$name]] %||% list()
  if (info$uses_kernel) {
    # without x (a direct call, not caret's) the width is the median heuristic of each fit
    specs$gamma <- if (is.null(x)) choice_values(NA_real_) else caret_gamma_range(x, info$name)
  }
  defaults <- model_defaults(info$name)
  # the fixed choices above are the arguments the ranges depend on
  fixed <- lapply(Filter(Negate(is.null), specs[setdiff(names(specs), "gamma")]), function(spec) spec$values(1L))
  columns <- lapply(seq_len(nrow(parameters)), function(j) {
    p <- parameters$parameter[j]
    if (!is.null(specs[[p]])) return(specs[[p]])
    range <- if (p != "gamma") tuning_range(info$name, p, fixed)
    if (!is.null(range)) {
      single <- defaults[[p]]
      return(log_range(range, single = if (is.numeric(single) && length(single) == 1L) single))
    }
    # a parameter tuned by request: its default where that is one value, else NA
    value <- defaults[[p]]
    if (is.atomic(value) && length(value) >= 1L) choice_values(value[1]) else
      choice_values(if (parameters$class[j] == "character") NA_character_ else NA_real_)
  })
  names(columns) <- parameters$parameter
  if (random) {
    grid <- as.data.frame(lapply(columns, function(spec) spec$draw(len)), stringsAsFactors = FALSE)
    grid <- unique(grid)
  } else {
    grid <- expand.grid(lapply(columns, function(spec) spec$values(len)), stringsAsFactors = FALSE,
                        KEEP.OUT.ATTRS = FALSE)
  }
  if (identical(info$name, "onda") && all(c("posterior", "ridge") %in% names(grid))) {
    # the linear posteriors take no ridge: one row for them
    linear <- grid$posterior == "linear"
    grid$ridge[linear] <- 0
    grid <- unique(grid)
  }
  rownames(grid) <- NULL
  grid
}
