#' krein engines for tidymodels
#'
#' When parsnip is loaded, krein registers the engine `"krein"` for two of
#' parsnip's discriminant models (their model functions come with parsnip;
#' the discrim extension package is not needed for these engines):
#'
#' | parsnip model | krein model | parsnip argument | krein argument |
#' |---|---|---|---|
#' | `discrim_quad()` | [kqd()] | `penalty` (engine) | `reg` |
#' | `discrim_linear()` | [ikfd()] | `penalty` (main) | `ridge_relative` |
#' | both | | `gamma` (engine) | the Gaussian width of [kernel_rbf()] |
#'
#' Engine arguments are given to [parsnip::set_engine()] or
#' [parsnip::set_args()], e.g. `discrim_quad() |> set_engine("krein",
#' penalty = tune(), gamma = tune())`; any other argument of the krein
#' model (`variant`, `kernel`, `scale`, `landmarks`, ...) can be given there
#' too and is passed on. A `kernel` replaces the Gaussian one (and `gamma`
#' must then be left out). `gamma = NULL` (the default) takes the median
#' heuristic of the training data, as `kernel_rbf()` does. The predictors are
#' centred and scaled by the training rows (the models' default `scale =
#' TRUE`), so no recipe step for that is needed; factor predictors become
#' indicator columns. Predictions come in parsnip's formats: `type = "class"`
#' gives `.pred_class`, `type = "prob"` one column `.pred_<level>` per class.
#'
#' The tunable arguments have [dials][dials::dials-package] parameter objects:
#' [rbf_gamma()] for `gamma` (its range is finalised from the data by the
#' median heuristic, so `tune::tune_grid()` needs no range), and
#' [kqd_penalty()] and [ikfd_penalty()] for the regularisation. Both
#' engines call the regularisation `penalty`: discrim_linear()'s own argument
#' of that name, and an engine argument of discrim_quad(). (An engine argument
#' named `reg` or `regularization` would not do: `tune::finalize_workflow()`
#' passes the tuned values to parsnip's `update()` method, where R's partial
#' matching of argument names hands them to its `regularization_method`.)
#'
#' The other discriminant models of parsnip have no natural krein
#' counterpart: `discrim_flexible()` is Hastie, Tibshirani and Buja's
#' flexible discriminant analysis with MARS terms (arguments `num_terms`,
#' `prod_degree`, `prune_method`) and `discrim_regularized()` Friedman's
#' regularised discriminant analysis (`frac_common_cov`, `frac_identity`).
#' [kfda()] and [onda()] stay outside parsnip: a parsnip engine belongs to a
#' model, and a new model type for them would be a second, krein-owned model
#' function beside parsnip's set, which tidymodels users would not look for;
#' tune them with [tune_krein()] or [caret_model()].
#'
#' @name krein_tidymodels
#' @aliases krein-engines
#' @seealso [rbf_gamma()] for the dials parameters; [tune_krein()] and [caret_model()] for
#'   tuning without tidymodels.
#' @examples
#' if (requireNamespace("parsnip", quietly = TRUE) && requireNamespace("mlbench", quietly = TRUE)) {
#'   library(parsnip)
#'   data(Sonar, package = "mlbench")
#'   spec <- discrim_quad() |> set_engine("krein", penalty = 0.1)
#'   fitted <- fit(spec, Class ~ ., data = Sonar[-(1:5), ])
#'   predict(fitted, Sonar[1:5, ])
#'   predict(fitted, Sonar[1:5, ], type = "prob")
#' }
NULL

#' dials parameters for the krein engines
#'
#' Parameter objects for tuning the krein engines of parsnip
#' ([krein_tidymodels]) with the tune package; dials must be installed.
#'
#' * `rbf_gamma()`: the width \eqn{\gamma} of the Gaussian kernel
#'   \eqn{\exp(-\gamma \|x - y\|^2)} ([kernel_rbf()]), on a log10 scale. This
#'   \eqn{\gamma} is kernlab's `sigma` in `rbfdot()`, and so the quantity of
#'   dials' `rbf_sigma()`, whose fixed range (\eqn{10^{-10}} to 1) suits no
#'   particular data. The default range is unknown and finalised from the
#'   predictors by [dials::finalize()] (which `tune::tune_grid()` calls): one
#'   decade either side of the median heuristic [median_gamma()] of the
#'   predictors centred and scaled as the models' default `scale = TRUE`
#'   scales them, \eqn{\gamma_0/10} to \eqn{10\gamma_0}.
#' * `kqd_penalty()`: [kqd()]'s `reg`, \eqn{10^{-3}} to 1 (log10).
#' * `ikfd_penalty()`: [ikfd()]'s `ridge_relative`, \eqn{10^{-6}} to
#'   \eqn{10^{-1}} (log10).
#'
#' @param range The range, on the log10 scale of `trans`; for `rbf_gamma()`
#'   the default `NULL` leaves it to [dials::finalize()].
#' @param trans The transformation (default log10), a `scales` transform.
#' @returns A dials `quant_param` object.
#' @seealso [krein_tidymodels] for the engines.
#' @examples
#' if (requireNamespace("dials", quietly = TRUE)) {
#'   print(rbf_gamma())
#'   x <- iris[, 1:4]
#'   print(dials::finalize(rbf_gamma(), x))  # around median_gamma(scale(x))
#'   print(kqd_penalty())
#' }
#' @export
rbf_gamma <- function(range = NULL, trans = NULL) {
  require_suggested("dials", "rbf_gamma()")
  range <- range %||% c(dials::unknown(), dials::unknown())
  dials::new_quant_param(type = "double", range = range, inclusive = c(TRUE, TRUE),
                         trans = trans %||% log10_transform(), label = c(rbf_gamma = "Gaussian kernel width"),
                         finalize = finalize_rbf_gamma)
}

#' @rdname rbf_gamma
#' @export
kqd_penalty <- function(range = c(-3, 0), trans = NULL) {
  require_suggested("dials", "kqd_penalty()")
  dials::new_quant_param(type = "double", range = range, inclusive = c(TRUE, TRUE),
                         trans = trans %||% log10_transform(), label = c(kqd_penalty = "KQD regularisation"),
                         finalize = NULL)
}

#' @rdname rbf_gamma
#' @export
ikfd_penalty <- function(range = c(-6, -1), trans = NULL) {
  require_suggested("dials", "ikfd_penalty()")
  dials::new_quant_param(type = "double", range = range, inclusive = c(TRUE, TRUE),
                         trans = trans %||% log10_transform(), label = c(ikfd_penalty = "iKFD relative ridge"),
                         finalize = NULL)
}

log10_transform <- function() {
  require_suggested("scales", "the krein dials parameters")
  scales::transform_log10()
}

require_suggested <- function(package, what) {
  if (!requireNamespace(package, quietly = TRUE)) {
    krein_abort(sprintf("%s needs the %s package; install it with install.packages(\"%s\").", what, package, package))
  }
}

#' The finalize function of rbf_gamma(): a decade either side of the median
#' heuristic of the predictors, scaled as the models' default scale = TRUE
#' scales them (factor columns become indicators, as parsnip's encoding does)
#' @noRd
finalize_rbf_gamma <- function(object, x) {
  if (!dials::has_unknowns(object)) return(object)
  x <- as.data.frame(x)
  x <- if (all(vapply(x, is.numeric, logical(1)))) as.matrix(x) else stats::model.matrix(~ . - 1, x)
  x <- suppressMessages(scale_columns(column_scaling(x), x))
  center <- log10(median_gamma(x))
  dials::range_set(object, center + c(-1, 1))
}

# --- parsnip's fitting functions -------------------------------------------

#' Fitting functions of the parsnip engines
#'
#' What parsnip calls to fit the `"krein"` engines ([krein_tidymodels]); use
#' parsnip's `fit()` rather than these.
#'
#' @param x A numeric matrix of predictors.
#' @param y A factor of classes.
#' @param penalty [kqd()]'s `reg`.
#' @param ridge_relative [ikfd()]'s `ridge_relative` (parsnip's `penalty`).
#' @param gamma The width of the Gaussian kernel; `NULL` for the median
#'   heuristic.
#' @param ... Further arguments of the krein model (`kernel`, `variant`,
#'   `scale`, ...).
#' @returns The krein fit.
#' @keywords internal
#' @export
kqd_parsnip_fit <- function(x, y, penalty = NULL, gamma = NULL, ...) {
  engine_fit("kqd", x, y, gamma, c(list(reg = penalty), list(...)), c(reg = "penalty"))
}

#' @rdname kqd_parsnip_fit
#' @export
ikfd_parsnip_fit <- function(x, y, ridge_relative = 1e-4, gamma = NULL, ...) {
  engine_fit("ikfd", x, y, gamma, c(list(ridge_relative = ridge_relative), list(...)), c(ridge_relative = "penalty"))
}

# `renamed`: the model's arguments that parsnip users know by another name
# (kqd()'s `reg` is parsnip's `penalty`); krein's errors name both.
engine_fit <- function(name, x, y, gamma, args, renamed = character()) {
  args <- args[!vapply(args, is.null, logical(1))]
  kernel <- args$kernel
  args$kernel <- NULL
  if (is.null(kernel)) {
    kernel <- kernel_rbf(gamma)
  } else if (!is.null(gamma)) {
    krein_abort("Give the krein engine either `gamma` (for the Gaussian kernel) or `kernel`, not both.")
  }
  tryCatch(
    fit_registered(model_info(name), as.matrix(x), y, kernel, args, call = call(name, quote(x), quote(y))),
    krein_error = function(e) {
      message <- conditionMessage(e)
      for (arg in names(renamed)) {
        message <- gsub(sprintf("`%s`", arg), sprintf("`%s` (%s()'s `%s`)", renamed[[arg]], name, arg), message,
                        fixed = TRUE)
      }
      if (identical(message, conditionMessage(e))) stop(e)
      krein_abort(message, class = setdiff(class(e), c("krein_error", "error", "condition")), call = conditionCall(e))
    })
}

# --- registration ------------------------------------------------------------

#' Register the krein engines with parsnip (called when both are loaded;
#' parsnip's set_* functions leave an identical registration as it is)
#' @noRd
register_parsnip_engines <- function() {
  engines <- list(
    discrim_quad = list(fit = "kqd_parsnip_fit",
                        args = list(penalty = list(original = "penalty", fun = "kqd_penalty"),
                                    gamma = list(original = "gamma", fun = "rbf_gamma"))),
    discrim_linear = list(fit = "ikfd_parsnip_fit",
                          args = list(penalty = list(original = "ridge_relative", fun = "ikfd_penalty"),
                                      gamma = list(original = "gamma", fun = "rbf_gamma")))
  )
  for (model in names(engines)) {
    engine <- engines[[model]]
    parsnip::set_model_engine(model, mode = "classification", eng = "krein")
    parsnip::set_dependency(model, eng = "krein", pkg = "krein", mode = "classification")
    for (arg in names(engine$args)) {
      parsnip::set_model_arg(model = model, eng = "krein", parsnip = arg, original = engine$args[[arg]]$original,
                             func = list(pkg = "krein", fun = engine$args[[arg]]$fun), has_submodel = FALSE)
    }
    parsnip::set_fit(model = model, eng = "krein", mode = "classification",
                     value = list(interface = "matrix", protect = c("x", "y"),
                                  func = c(pkg = "krein", fun = engine$fit), defaults = list()))
    parsnip::set_encoding(model = model, eng = "krein", mode = "classification",
                          options = list(predictor_indicators = "traditional", compute_intercept = FALSE,
                                         remove_intercept = TRUE, allow_sparse_x = FALSE))
    parsnip::set_pred(model = model, eng = "krein", mode = "classification", type = "class",
                      value = list(pre = NULL, post = NULL, func = c(fun = "predict"),
                                   args = list(object = quote(object$fit), newdata = quote(as.matrix(new_data)),
                                               type = "class")))
    parsnip::set_pred(model = model, eng = "krein", mode = "classification", type = "prob",
                      value = list(pre = NULL, post = function(result, object) as.data.frame(result),
                                   func = c(fun = "predict"),
                                   args = list(object = quote(object$fit), newdata = quote(as.matrix(new_data)),
                                               type = "prob")))
  }
  invisible(TRUE)
}

#' Register now if parsnip is loaded, else when it is
#' @noRd
register_parsnip_hook <- function() {
  if (isNamespaceLoaded("parsnip")) try_register_parsnip_engines()
  setHook(packageEvent("parsnip", "onLoad"), function(...) try_register_parsnip_engines())
}

# A parsnip too old for the registration functions must not stop krein from
# loading: the engines are then missing, with a message saying why.
try_register_parsnip_engines <- function() {
  tryCatch(register_parsnip_engines(), error = function(e) {
    packageStartupMessage("krein could not register its parsnip engines: ", conditionMessage(e))
  })
}
