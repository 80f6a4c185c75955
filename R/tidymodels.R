# The tidymodels engines of krein's models: the dials parameters of the
# kernel width and penalties, the parsnip fit, and the registration of the
# engines when parsnip is loaded.

#' krein engines for tidymodels
#'
#' When parsnip is loaded, krein registers the engine `"krein"` for each
#' parsnip model that one of its models fits, as the registry of models
#' ([krein_models()]) says, the same registry [tune_krein()] and
#' [caret_model()] read (the model functions come with parsnip; the discrim
#' extension package is not needed for these engines):
#'
#' | parsnip model | krein model | parsnip argument | krein argument |
#' |---|---|---|---|
#' | `discrim_quad()` | [kqd()] | `penalty` (engine) | `reg` |
#' | `discrim_linear()` | [ikfd()] | `penalty` (main) | `ridge_relative` |
#' | `nearest_neighbor()` | [iknn()] | `neighbors` (main) | `k` |
#' | `svm_rbf()` | [isvm()] | `cost`, `rbf_sigma` (main) | `C`, the Gaussian width of [kernel_rbf()] |
#' | all but `svm_rbf()` | | `gamma` (engine) | the Gaussian width of [kernel_rbf()] |
#'
#' Engine arguments are given to [parsnip::set_engine()] or
#' [parsnip::set_args()], e.g. `discrim_quad() |> set_engine("krein",
#' penalty = tune(), gamma = tune())`; any other argument of the krein
#' model (`variant`, `kernel`, `scale`, `landmarks`, ...) can be given there
#' too and is passed on. A `kernel` replaces the Gaussian one (and `gamma`
#' must then be left out). `gamma = NULL` (the default) takes the model's
#' default kernel: the median heuristic of the training data, as `kernel_rbf()`
#' does (for `svm_rbf()`, [isvm()]'s width \eqn{1/p}, `kernel_rbf(heuristic =
#' "dimension")`). The predictors are
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
#' [kfda()], [kmdc()], [onda()], [pcvm()] and [ikpca_qd()] stay outside
#' parsnip: a parsnip engine belongs to a model, the discriminant models
#' that would fit them have their `"krein"` engine already (kqd, ikfd), and
#' a new model type for them would be a second, krein-owned model function
#' beside parsnip's set, which tidymodels users would not look for; tune them
#' with [tune_krein()] or [caret_model()].
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
#'   predictors by [dials::finalize()] (which `tune::tune_grid()` calls):
#'   1/32 to 32 times the median heuristic [median_gamma()] of the
#'   predictors centred and scaled as the models' default `scale = TRUE`
#'   scales them.
#' * `rbf_gamma_dimension()`: the same width, its range finalised around
#'   \eqn{1/p} (\eqn{p} predictors after encoding), the width of the default
#'   kernel of [isvm()] and [krein_svm()], `kernel_rbf(heuristic =
#'   "dimension")`: the `svm_rbf()` engine's `rbf_sigma`.
#' * `kqd_penalty()`: [kqd()]'s `reg`, \eqn{10^{-5}} to 10 (log10).
#' * `ikfd_penalty()`: [ikfd()]'s `ridge_relative`, \eqn{10^{-6}} to
#'   \eqn{10^{-2}} (log10).
#'
#' These are the ranges of [tune_krein()]'s and [caret_model()]'s default
#' grids: krein keeps one table of them, and one rule for where the width's
#' range lies: around the width the model's default kernel takes from the
#' scaled predictors.
#'
#' @param range The range, on the log10 scale of `trans`; `NULL` (the
#'   default) for krein's (see above); for the widths it is left to
#'   [dials::finalize()].
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
  rbf_gamma_around(range, trans, "median", "rbf_gamma()")
}

#' @rdname rbf_gamma
#' @export
rbf_gamma_dimension <- function(range = NULL, trans = NULL) {
  rbf_gamma_around(range, trans, "dimension", "rbf_gamma_dimension()")
}

#' rbf_gamma() and rbf_gamma_dimension(): the width parameter whose range is
#' finalised around the width of kernel_rbf(heuristic = heuristic)
#' @noRd
rbf_gamma_around <- function(range, trans, heuristic, what) {
  require_suggested("dials", what)
  range <- range %||% c(dials::unknown(), dials::unknown())
  dials::new_quant_param(type = "double", range = range, inclusive = c(TRUE, TRUE),
                         trans = trans %||% log10_transform(), label = c(rbf_gamma = "Gaussian kernel width"),
                         finalize = function(object, x) finalize_rbf_gamma(object, x, heuristic))
}

#' @rdname rbf_gamma
#' @export
kqd_penalty <- function(range = NULL, trans = NULL) {
  require_suggested("dials", "kqd_penalty()")
  range <- range %||% tuning_range("kqd", "reg")
  dials::new_quant_param(type = "double", range = range, inclusive = c(TRUE, TRUE),
                         trans = trans %||% log10_transform(), label = c(kqd_penalty = "KQD regularisation"),
                         finalize = NULL)
}

#' @rdname rbf_gamma
#' @export
ikfd_penalty <- function(range = NULL, trans = NULL) {
  require_suggested("dials", "ikfd_penalty()")
  range <- range %||% tuning_range("ikfd", "ridge_relative")
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

#' The finalize function of the width parameters: the registry's width
#' range around the width kernel_rbf(heuristic = heuristic) takes from the
#' predictors, encoded and scaled as the models' default scale = TRUE scales
#' them (width_grid_center(), the rule of tune_krein() and caret_model())
#' @noRd
finalize_rbf_gamma <- function(object, x, heuristic = "median") {
  if (!dials::has_unknowns(object)) return(object)
  center <- log10(width_grid_center(x, kernel_rbf(heuristic = heuristic)))
  dials::range_set(object, center + width_range)
}

# --- parsnip's fitting function ---------------------------------------------

#' The fitting function of the parsnip engines
#'
#' What parsnip calls to fit the `"krein"` engines ([krein_tidymodels]); use
#' parsnip's `fit()` rather than this.
#'
#' @param x A numeric matrix of predictors.
#' @param y A factor of classes.
#' @param krein_model The krein model the engine fits (set by the engine).
#' @param gamma The width of the Gaussian kernel; `NULL` for the model's
#'   default kernel (the median heuristic; for isvm the width \eqn{1/p}).
#' @param ... Further arguments of the krein model (`kernel`, `variant`,
#'   `scale`, ...), and the engine's own names of its arguments (kqd's
#'   `penalty`, its `reg`).
#' @returns The krein fit.
#' @keywords internal
#' @export
krein_parsnip_fit <- function(x, y, krein_model, gamma = NULL, ...) {
  with_engine <- registered_models()[vapply(registered_models(), function(m) !is.null(model_info(m)$parsnip), NA)]
  engines <- paste0("\"", with_engine, "\"", collapse = ", ")
  if (missing(krein_model)) {
    krein_abort(sprintf("`krein_model` is missing; name the krein model the engine fits: one of %s.", engines))
  }
  if (!is.character(krein_model) || length(krein_model) != 1L || is.na(krein_model)) {
    krein_abort(sprintf("`krein_model` must be the name of a krein model with a parsnip engine (one of %s), not %s.",
                        engines, describe_value(krein_model)))
  }
  info <- model_info(krein_model)
  if (is.null(info$parsnip)) {
    krein_abort(sprintf("`krein_model` = \"%s\" has no parsnip engine; the engines fit %s.", krein_model, engines))
  }
  args <- list(...)
  # engine arguments come under parsnip's names: the model's names here
  engine <- info$parsnip$args
  for (arg in intersect(names(args), names(engine))) {
    names(args)[names(args) == arg] <- engine[[arg]]$krein
  }
  args <- args[!vapply(args, is.null, logical(1))]
  kernel <- args$kernel
  args$kernel <- NULL
  if (is.null(kernel)) {
    kernel <- gaussian_or_default_kernel(krein_model, gamma)
  } else if (!is.null(gamma)) {
    krein_abort("Give the krein engine either `gamma` (for the Gaussian kernel) or `kernel`, not both.")
  }
  # krein's errors name an engine argument by both names (kqd()'s `reg` is
  # parsnip's `penalty`)
  renamed <- stats::setNames(names(engine), vapply(engine, function(a) a$krein, character(1)))
  tryCatch(
    fit_registered(info, as.matrix(x), y, kernel, args, call = call(krein_model, quote(x), quote(y))),
    krein_error = function(e) {
      message <- conditionMessage(e)
      for (arg in names(renamed)) {
        message <- gsub(sprintf("`%s`", arg), sprintf("`%s` (%s()'s `%s`)", renamed[[arg]], krein_model, arg),
                        message, fixed = TRUE)
      }
      if (identical(message, conditionMessage(e))) stop(e)
      krein_abort(message, class = setdiff(class(e), c("krein_error", "error", "condition")), call = conditionCall(e))
    })
}

# --- registration ------------------------------------------------------------

#' The models with a parsnip engine: those whose registry entry names a
#' parsnip model (`parsnip`: its `model`, and `args`, parsnip's name of each
#' tuned argument with the krein name, whether it is a main argument of the
#' parsnip model, and its dials parameter)
#' @noRd
parsnip_models <- function() Filter(function(name) !is.null(model_info(name)$parsnip), registered_models())

#' Register the krein engines with parsnip, one per model the registry maps
#' to a parsnip model (called when both are loaded; parsnip's set_*
#' functions leave an identical registration as it is)
#' @noRd
register_parsnip_engines <- function() {
  for (name in parsnip_models()) {
    info <- model_info(name)
    model <- info$parsnip$model
    args <- info$parsnip$args
    parsnip::set_model_engine(model, mode = "classification", eng = "krein")
    parsnip::set_dependency(model, eng = "krein", pkg = "krein", mode = "classification")
    # main arguments parsnip renames to the model's; engine arguments keep
    # parsnip's names, krein_parsnip_fit() renames them
    for (arg in names(args)) {
      parsnip::set_model_arg(model = model, eng = "krein", parsnip = arg,
                             original = if (args[[arg]]$main) args[[arg]]$krein else arg,
                             func = args[[arg]]$dials, has_submodel = FALSE)
    }
    if (!"gamma" %in% vapply(args, `[[`, "", "krein")) {
      parsnip::set_model_arg(model = model, eng = "krein", parsnip = "gamma", original = "gamma",
                             func = list(pkg = "krein", fun = "rbf_gamma"), has_submodel = FALSE)
    }
    parsnip::set_fit(model = model, eng = "krein", mode = "classification",
                     value = list(interface = "matrix", protect = c("x", "y", "krein_model"),
                                  func = c(pkg = "krein", fun = "krein_parsnip_fit"),
                                  defaults = list(krein_model = name)))
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
