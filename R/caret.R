#' krein models as caret custom models
#'
#' `caret_model(name)` returns the list caret's `train()` takes as a custom
#' `method`, so that `caret::train(x, y, method = caret_model("kqd"),
#' tuneGrid = ...)` tunes a krein model with caret's resampling. caret is a
#' suggested package: install it to use this.
#'
#' The tuning parameters are the model's tunable arguments, as the `tunable`
#' column of [krein_models()] lists them, and for the models with a kernel
#' the Gaussian kernel's `gamma` (other kernels: pass `kernel = ` to
#' `train()`, which forwards it, and set `gamma` to `NA`). A `tuneGrid` needs
#' a column for each; a parameter set to `NA` takes the model's default (for
#' `gamma`, the median heuristic). Other model arguments can be passed to
#' `train()`, which forwards them to the model, `scale` among them (the
#' default `TRUE` centres and scales the columns by the training rows of each
#' resample, see [krein_inputs]; caret's own `preProcess` is then not needed).
#'
#' The default grid, used when `train()` gets no `tuneGrid` (parameters not
#' named here are `NA`):
#'
#' | name | default grid |
#' |---|---|
#' | `"kqd"` | `variant = "RC+"`, `reg` in 0.01, 0.1, 1 |
#' | `"ikfd"` | `ridge_relative` in 1e-5, 1e-4, 1e-3 |
#' | `"kfda"` | `discriminant = "linear"`, `ncomp` in 5, 10, 20 |
#' | `"onda"` | `posterior` in `"gaussian"`, `"linear"` |
#' | `"iknn"` | `k` in 1, 5, 9 |
#' | `"ikpca_qd"` | `pvar = 0.8`, `shrinkage` in 0.01, 0.1 |
#' | `"isvm"` | `C` in 0.1, 1, 10 |
#' | any other | one point, every parameter at its default |
#'
#' @param name The krein model, one of the names [krein_models()] lists.
#' @returns A list with the elements caret expects (`library`, `type`,
#'   `parameters`, `grid`, `fit`, `predict`, `prob`, `sort`, `levels`).
#' @family model selection
#' @examples
#' if (requireNamespace("caret", quietly = TRUE)) {
#'   set.seed(1)
#'   d <- checkerboard(150, size = 3)
#'   tuned <- caret::train(d[, 1:2], d$y, method = caret_model("kqd"),
#'                         tuneGrid = expand.grid(variant = "RC+", reg = c(0.01, 0.1), gamma = c(2, 8)),
#'                         trControl = caret::trainControl(method = "cv", number = 3))
#'   tuned$bestTune
#' }
#' @export
caret_model <- function(name) {
  name <- check_choice(name, "name", registered_models())
  info <- model_info(name)
  parameters <- caret_parameters(info)
  default <- caret_default_grid(name, parameters)
  list(
    label = paste("krein", name),
    library = "krein",
    type = "Classification",
    parameters = parameters,
    grid = function(x, y, len = NULL, search = "grid") default,
    fit = function(x, y, wts, param, lev, last, weights, classProbs, ...) {
      args <- list(...)
      # expand.grid() makes factors of character values; NA takes the default
      param <- lapply(as.list(param), function(v) if (is.factor(v)) as.character(v) else v)
      param <- param[!vapply(param, function(v) length(v) == 1L && is.na(v), logical(1))]
      param$parameter <- NULL  # caret's placeholder for a model without parameters
      kernel <- NULL
      if (info$uses_kernel) {
        kernel <- args$kernel %||% kernel_rbf(param$gamma)
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
    sort = function(x) x,
    levels = function(x) x$levels
  )
}

#' caret's parameter table: the registry's tunable arguments and, for kernel
#' models, the Gaussian width
#' @noRd
caret_parameters <- function(info) {
  parameters <- info$parameters[c("parameter", "class", "label")]
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

# caret's default grids (issue 18 will make them tune the width and follow
# tuneLength); parameters not named take the model's default (NA)
caret_default_values <- list(
  kqd = list(variant = "RC+", reg = c(0.01, 0.1, 1)),
  ikfd = list(ridge_relative = 10^c(-5, -4, -3)),
  kfda = list(discriminant = "linear", ncomp = c(5, 10, 20)),
  onda = list(posterior = c("gaussian", "linear")),
  iknn = list(k = c(1, 5, 9)),
  ikpca_qd = list(pvar = 0.8, shrinkage = c(0.01, 0.1)),
  isvm = list(C = c(0.1, 1, 10))
)

caret_default_grid <- function(name, parameters) {
  values <- caret_default_values[[name]] %||% list()
  columns <- lapply(seq_len(nrow(parameters)), function(j) {
    values[[parameters$parameter[j]]] %||% if (parameters$class[j] == "character") NA_character_ else NA_real_
  })
  names(columns) <- parameters$parameter
  expand.grid(columns, stringsAsFactors = FALSE, KEEP.OUT.ATTRS = FALSE)
}
