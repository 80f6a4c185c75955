# tune_krein(): cross-validated model selection for any registered model --
# what the registry says about the model, the folds and the tasks that run
# them, the fits and predictions of one fold (tune_fold()), and the refit of
# the best parameters on all data.

#' Cross-validated model selection for krein models, in parallel on any
#' future backend
#'
#' Every experiment in the papers tunes kernel and regularisation parameters
#' by (stratified) 10-fold cross-validation over a grid (e.g. Pekalska and
#' Haasdonk 2009, Sec. V-A). `tune_krein()` does this for any krein
#' model, running the folds through the future framework when
#' \pkg{future.apply} is installed: on local cores (`future::plan(multisession)`),
#' on other machines (`plan(cluster)`) or on a scheduler (future.batchtools),
#' with the same result whatever the plan.
#'
#' `tune_krein()` knows the models from the registry that [krein_models()]
#' lists: their arguments, their path argument, their predict arguments and
#' whether they need self-similarities or the input features. A model that
#' joins the registry can be tuned with no other change.
#'
#' @section What is reused:
#' Within a fold, the kernel matrices of the training and held-out points are
#' computed once per combination of kernel parameters and shared by all
#' model parameters (the model is fitted on the precomputed kernel). For a
#' model with a path argument (the `path` column of [krein_models()]: the
#' `reg` of [kqd()] and of [kmdc()]), the grid's values of that argument are
#' one path: a single fit per fold and setting of the other parameters
#' serves them all (one decomposition per class; for kmdc with `distance =
#' "IC"` also one per fold of its out-of-fold distances, and one
#' discriminant per value), and each value is predicted with the predict
#' argument of the same name. Likewise one fit serves every value of a
#' predict argument in the grid (such as a class `rule`). Models on the input
#' features ([onda()]) have no kernel to share; models whose options need the
#' input data (`landmarks = "kmeans"`, a `pcvm_control()` that optimises the
#' kernel width) are fitted on the inputs as well.
#'
#' @section Scaling:
#' `scale` (default `TRUE`, as for the models; give `scale = FALSE` among the
#' fixed arguments to fit on the data as given) centres and scales the
#' columns of `x` within each fold by the means and standard deviations of
#' the fold's training rows, as a fit on those rows alone would: the
#' held-out rows never enter the scaling, also where the fold's kernel
#' matrices are computed once and shared. The refitted model scales by all
#' rows. Kernel parameters taken from data (the median-heuristic `gamma`)
#' are computed on the scaled training rows of each fold; `gamma` values in
#' the grid apply to the scaled data. A precomputed kernel is not scaled.
#'
#' A precomputed kernel, or a [kernel_from_dissimilarity()] object, is cut
#' into folds as it is. A precomputed kernel that can be rebuilt with other
#' parameters (a class with methods of krein's internal generics
#' `kernel_parameter_names()`, `with_kernel_parameters()` and
#' `default_kernel_grid()`) takes them as grid columns: it is rebuilt once
#' per combination and then cut into folds, and the refit's call writes the
#' best values into the expression that made it. A conversion that centres
#' the kernel (`method = "classical"`) was centred on all objects, so the
#' held-out objects' dissimilarities (never their labels) take part in that
#' centring. With
#' `method = "negsq"` they enter only through the one scale \eqn{\bar d}.
#'
#' @section Randomness:
#' The folds, and one seed per (repeat, fold) task, are drawn from R's RNG in
#' the calling process; each task sets its seed (Mersenne-Twister) before
#' fitting, so models that draw random numbers (random bases, landmarks, SVM
#' probabilities) give the same numbers under every future plan, and
#' `set.seed()` before `tune_krein()` reproduces the whole result. The
#' caller's random number stream is advanced only by those draws.
#'
#' @section Threads:
#' Under a plan with several workers each fit runs on one thread
#' (`options(krein.threads = 1)` and one OpenMP thread inside the tasks), so
#' that the workers do not oversubscribe the cores; sequentially, fits use
#' krein's threads as usual.
#'
#' @section Progress:
#' With \pkg{progressr} installed, every grid point evaluated on a fold
#' advances the progress by one step (grid points times folds times
#' repeats steps in all): a fit of a path over \eqn{k} values, or one fit
#' that serves \eqn{k} values of a predict argument, advances it by \eqn{k}
#' when it is done. Wrap the call in `progressr::with_progress()` (or set
#' `progressr::handlers(global = TRUE)`) to see a bar. Nothing is printed
#' otherwise.
#'
#' @section The default grid:
#' Without `grid`, `tune_krein()` tunes the kernel's width and the model's
#' regularisation (or its main parameter), about `grid_size` values each.
#' The width of a Gaussian kernel whose `gamma` is left to the data
#' (`kernel_rbf()`, the default; also as the base of [kernel_invariant()])
#' takes `grid_size` values log-spaced from 1/32 to 32 times the median
#' heuristic [median_gamma()] of all the rows of `x` as the model sees them
#' (centred and scaled with `scale = TRUE`), or times \eqn{1/p} for
#' `kernel_rbf(heuristic = "dimension")` (the default kernel of [isvm()],
#' [krein_svm()] and [pcvm()]); a
#' width the user gave is kept.
#' Numeric model parameters are log-spaced (\eqn{10^a} to \eqn{10^b} in
#' `grid_size` steps):
#'
#' | model | default grid besides the width |
#' |---|---|
#' | [kqd()] | `reg` \eqn{10^{-5}}..\eqn{10}, or \eqn{10^{-5}}..\eqn{10^{-1}} for the IC and FK variants |
#' | [kmdc()] | `reg` as for kqd: \eqn{10^{-5}}..\eqn{10} (RC), \eqn{10^{-5}}..\eqn{10^{-1}} (IC) |
#' | [ikfd()] | `ridge_relative` \eqn{10^{-6}}..\eqn{10^{-2}} |
#' | [kfda()] | `ncomp` (reduce `"pca"`) or `bases` (`"subset"`): about `grid_size` whole numbers log-spaced from 2 to the smaller of 64 and half a training fold; `ridge` \eqn{10^{-6}}..\eqn{10^{-1}} (`"ridge"`) |
#' | [pcvm()] | none (the width only) |
#' | [iknn()] | `k` = 1, 3, 5, ... (`grid_size` odd numbers, at most a training fold) |
#' | [ikpca_qd()] | `shrinkage` \eqn{10^{-3}}..\eqn{1} |
#' | [isvm()] | `C` \eqn{10^{-1}}..\eqn{10^{3}} |
#' | [onda()] | `posterior` = `"gaussian"`, `"linear"`; with `posterior = "svm"` fixed: `cost` \eqn{10^{-1}}..\eqn{10^{3}} and, for the radial SVM, `svm_gamma` as the width above |
#'
#' These ranges (and onda's `ridge`, \eqn{10^{-4}}..\eqn{10^{-2}}) are one
#' table, which [caret_model()]'s default grids and the dials parameters of
#' the parsnip engines ([rbf_gamma()], [kqd_penalty()], ...) read too.
#'
#' Fixed arguments are not tuned (`variant = "IC-"` chooses kqd's IC range
#' and is not varied). A model that registers with the contract gives its
#' own default grid (`default_grid` of its registry entry).
#'
#' @section Where the optimum lies:
#' When the best value of a numeric parameter with three or more values in
#' the grid is the grid's smallest or largest, and strictly better than the
#' next value, a warning of class `krein_grid_edge_warning` names the
#' parameter, the value and the side to extend the grid on: the optimum may
#' lie beyond. Where the next step beyond the grid leaves the parameter's
#' domain (`k = 0` neighbours, a `shrinkage` above 1) there is no warning.
#'
#' @param learner A krein fitting function: [kqd()], [ikfd()], [pcvm()],
#'   [kfda()], [onda()], [kmdc()], [iknn()], [ikpca_qd()], [isvm()], or any
#'   other model in [krein_models()].
#' @param x Inputs: a numeric matrix or data frame, a precomputed kernel
#'   ([precomputed_kernel()], with its self-similarities), or objects (strings,
#'   a list) with a `kernel` for them; the `gamma` of
#'   [kernel_dissimilarity()] is tuned like [kernel_rbf()]'s.
#' @param y Class labels.
#' @param grid A data frame of parameter combinations, or a named list of
#'   values whose combinations are all tried ([expand.grid()]). Names are the
#'   model's arguments (`reg`, `variant`, `ncomp`, `k`, ...), its predict
#'   arguments (such as [ikfd()]'s `rule`) or parameters of the kernel (e.g.
#'   `gamma` for [kernel_rbf()], `s` for [kernel_dist()]). Missing: the
#'   default grid (see The default grid).
#' @param folds Number of folds, between 2 and the number of points.
#' @param repeats Number of repetitions with new folds.
#' @param metric `"error"` (misclassification rate), `"logloss"` (mean
#'   negative log posterior of the true class, posteriors clipped at
#'   \eqn{10^{-15}}) or `"brier"` (mean squared distance of the posterior
#'   vector from the one-hot truth). Lower is better. The last two judge
#'   `predict(type = "prob")` as probabilities and are refused (a
#'   `krein_error`) where it is only a score: [kqd()] unless `bias = "map"`.
#' @param stratified Keep the class proportions in every fold.
#' @param refit Refit the best model on all data.
#' @param na.action What to do with points with missing values in `x` or
#'   `y`, as in the models (see [krein_inputs]): `NULL` (the default)
#'   follows `getOption("na.action")` (na.omit unless set); [na.omit()] or
#'   [na.exclude()] leave them out of the tuning (and of the refit);
#'   [na.fail()] makes them an error.
#' @param grid_size About how many values the default grid gives each
#'   numeric parameter (1 to 50); used only when `grid` is missing.
#' @param ... Fixed arguments of the model (e.g. `kernel = kernel_rbf()`,
#'   `variant = "FK+"`, `m = 20`) and of its predictions (e.g. `rule =`),
#'   used in every fold. They, and the options after `...`, must be named in
#'   full; an argument the model does not have is an error. No model argument
#'   is the beginning of the name of `learner`, `x`, `y` or `grid`, so none is
#'   taken for one of them by R's partial matching.
#' @returns An object of class `krein_tune`: a list with `best` (a one-row
#'   data frame of the best parameters), `results` (the grid with the mean
#'   and standard deviation of the metric over all folds and repeats, and the
#'   number of failed fits), `folds` (one row per grid point, repeat and
#'   fold), `fold_ids` (an \eqn{n \times} `repeats` matrix), `metric`,
#'   `model` (the best model refitted on all data, with a call that names its
#'   parameters, or `NULL`; predict arguments among the best parameters or
#'   the fixed arguments are to be given to [predict()][predict.krein_model()]
#'   again, or use [predict()][predict.krein_tune()] on the result, which
#'   does), `predict_args` (those predict arguments) and `call`; with
#'   `print()`, `summary()`, `plot()` and `predict()` methods. A
#'   fit that fails (for example a singular covariance at one grid point)
#'   counts as missing for that fold, with one warning at the end, and the
#'   rest of the grid goes on (a path fit that fails is retried value by
#'   value). Values outside a parameter's domain (a negative `gamma`, an
#'   `NA`, a `reg` of -1) are an error before any fit, naming the grid column
#'   and its bad values.
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (Sections, equations and tables are cited
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#' @family model selection
#' @examples
#' set.seed(1)
#' d <- checkerboard(200, size = 3)
#' tuned <- tune_krein(kqd, d[, 1:2], d$y, kernel = kernel_rbf(), variant = "RC+",
#'                     grid = list(gamma = c(1, 4, 16), reg = 10^(-3:0)), folds = 5)
#' tuned
#' tuned$model$call
#' plot(tuned)
#' predict(tuned, checkerboard(5, size = 3)[, 1:2])
#' # the default grid: widths around the median heuristic, kqd's reg range
#' # (a warning says where the best value is the grid's smallest or largest)
#' tuned <- tune_krein(kqd, d[, 1:2], d$y, folds = 3, grid_size = 3)
#' plot(tuned)   # a heat map of the two parameters
#' \dontrun{
#' # in parallel on two local cores, with a progress bar
#' future::plan(future::multisession, workers = 2)
#' progressr::with_progress(
#'   tune_krein(kqd, d[, 1:2], d$y, grid = list(gamma = 2^(-2:5), reg = 10^(-4:3)))
#' )
#' }
#' @export
tune_krein <- function(learner, x, y, grid, ..., folds = 10, repeats = 1,
                       metric = c("error", "logloss", "brier"), stratified = TRUE, refit = TRUE,
                       na.action = NULL, grid_size = 5) {
  call <- match.call()
  info <- tuned_model(learner)
  name <- info$name
  fixed <- list(...)
  check_model_arguments(fixed, c(tuning_argument_names(info), if (info$uses_kernel) "kernel", "scale"), name)
  scale <- check_flag(fixed$scale %||% TRUE, "scale")
  fixed$scale <- NULL
  metric <- match_choice(metric, "metric", c("error", "logloss", "brier"))
  stratified <- check_flag(stratified, "stratified")
  refit <- check_flag(refit, "refit")
  repeats <- check_number(repeats, "repeats", lower = 1, allow_lower = TRUE, integer = TRUE)
  precomputed <- inherits(x, "krein_precomputed")
  if (precomputed && !info$uses_kernel) {
    krein_abort(sprintf("`x` is a precomputed kernel, but %s() works on the input features; give them as a matrix or data frame.",
                        name))
  }
  # x and y are checked, and rows with missing values handled, as the models
  # do it (the same messages and na.action); the kernel is resolved per fold
  if (missing(y)) krein_abort("`y` is missing; give the class labels, one per row of `x`.")
  inputs <- tuning_inputs(x, y, precomputed, na.action, info)  # R/object_inputs.R
  if (!precomputed) x <- inputs$objects %||% inputs$x
  y <- inputs$y
  n <- length(y)
  folds <- check_number(folds, "folds", lower = 2, upper = n, allow_lower = TRUE, integer = TRUE)
  # a class of one point is missing from the training part of the fold that
  # holds it, whose fit then sees one class fewer (and two classes, one)
  counts <- table(y)
  if (any(counts < 2L)) {
    single <- names(counts)[counts < 2L]
    krein_abort(sprintf("`y` has %s with one point (%s); cross-validation leaves it out of the training part of the fold that holds it. Give each class at least two points.",
                        if (length(single) > 1L) "classes" else "a class", paste0("\"", single, "\"", collapse = ", ")))
  }
  # (a model registered without a default method: the contract's kernel_rbf())
  kernel <- if (info$uses_kernel) {
    as_krein_kernel(fixed$kernel %||% model_defaults(name, "kernel")[[1L]] %||% kernel_rbf())
  }
  fixed$kernel <- NULL
  # the object whose parameters the grid may set: the kernel, or a
  # precomputed kernel that can be rebuilt with other parameters
  tunable <- if (precomputed) x else kernel
  # strings and other objects: their kernel (or dissimilarities) once, sliced
  # per fold and read by the default grid
  object_cache <- if (!is.null(inputs$objects)) object_tuning_cache(kernel, x)
  # a kernel or posterior fitted on data sets the units of the inputs, as in
  # every fit (input_units(), R/inputs.R): no scaling of the folds of its own
  units <- if (!precomputed && is.null(object_cache)) input_units(kernel, fitted_objects(name, fixed))
  scale <- scale && is.null(units)
  if (missing(grid) || is.null(grid)) {
    grid_size <- check_number(grid_size, "grid_size", lower = 1, upper = 50, allow_lower = TRUE, integer = TRUE)
    grid <- default_tuning_grid(info, tunable, if (!is.null(object_cache)) object_cache else x,
                                scale && !precomputed, fixed, grid_size,
                                n_train = n - ceiling(n / folds), n_classes = nlevels(y))
  }
  grid <- tuning_grid(grid, info, tunable, precomputed, names(fixed))
  check_grid_values(grid, info, tunable, inputs, fixed)
  check_metric_calibrated(metric, info, grid, fixed)
  if (precomputed && is.null(x$self) && grid_needs_self(info, grid, fixed)) {
    krein_abort("`x` must carry the self-similarities of the points: precomputed_kernel(K, self = ...).")
  }

  fold_ids <- vapply(seq_len(repeats), function(r) draw_folds(y, folds, stratified), integer(n))
  if (n == 1L) fold_ids <- matrix(fold_ids, nrow = 1L)
  tasks <- expand.grid(fold = seq_len(folds), rep = seq_len(repeats))
  seeds <- sample.int(.Machine$integer.max, nrow(tasks))
  predict_only <- names(fixed) %in% predict_only_arguments(info)
  job <- list(info = info, x = x, y = y, grid = grid, kernel = kernel, fixed = fixed[!predict_only],
              fixed_predict = fixed[predict_only], precomputed = precomputed,
              scale = scale && !precomputed, units = units, objects = object_cache)
  run <- function(t, progress) {
    set.seed(seeds[t], kind = "Mersenne-Twister", normal.kind = "Inversion", sample.kind = "Rejection")
    test <- fold_ids[, tasks$rep[t]] == tasks$fold[t]
    out <- tune_fold(job, which(!test), which(test), metric, progress)
    out$rep <- tasks$rep[t]
    out$fold <- tasks$fold[t]
    out
  }
  # one progress step per grid point and task: a path fit over k values, or
  # one fit serving k values of a predict argument, advances by k
  per_task <- run_tasks(run, nrow(tasks), steps = nrow(tasks) * nrow(grid), threads = fixed$threads)
  fold_results <- do.call(rbind, per_task)
  results <- summarise_tuning(grid, fold_results)
  failures <- fold_results$message[!is.na(fold_results$message)]
  if (length(failures)) {
    krein_warn(sprintf("%d of %d fits failed and count as missing; the first: %s", length(failures),
                       nrow(fold_results), failures[1]))
  }
  complete <- results$failed == 0
  if (!any(complete)) {
    krein_abort(sprintf("Every grid point had a failing fit; the first failure: %s", failures[1]))
  }
  best_row <- which(complete)[which.min(results$mean[complete])]
  best <- grid[best_row, , drop = FALSE]
  rownames(best) <- NULL
  warn_grid_edges(grid, best, results, info, tunable, inputs, fixed)
  fitted <- if (refit) refit_best(job, best, call, parent.frame()) else NULL
  structure(
    list(best = best, best_value = results$mean[best_row], results = results, folds = fold_results,
         fold_ids = fold_ids, metric = metric, model = fitted, model_name = name,
         n_folds = folds, repeats = repeats, stratified = stratified,
         predict_args = c(job$fixed_predict, as.list(best[intersect(names(best), predict_only_arguments(info))])),
         call = call),
    class = "krein_tune"
  )
}

# ---------------------------------------------------------------------------
# What the registry says about the tuned model (R/contract.R)

#' The registry entry of the model whose fitting function (generic) is
#' `learner`
#' @noRd
tuned_model <- function(learner) {
  if (missing(learner)) krein_abort("`learner` is missing; give a krein fitting function such as kqd.")
  models <- registered_models()
  for (name in models) {
    if (identical(learner, get0(name, mode = "function"))) return(model_info(name))
  }
  krein_abort(sprintf("`learner` must be one of krein's fitting functions (%s), not %s.",
                      paste(models, collapse = ", "), describe_value(learner)))
}

#' A model's arguments that tuning may set: those of its fitting function and
#' its predict arguments
#' @noRd
tuning_argument_names <- function(info) union(fit_argument_names(info), info$predict_args)

#' Predict arguments that are not fit arguments (a class rule, ...): one fit
#' serves all their values
#' @noRd
predict_only_arguments <- function(info) setdiff(info$predict_args, fit_argument_names(info))

#' The argument whose values one fit computes as a path and predict() picks
#' by the predict argument of the same name; NULL where there is none
#' @noRd
path_argument <- function(info) {
  path <- info$path
  if (is.null(path) || !(path %in% info$predict_args) || !(path %in% fit_argument_names(info))) return(NULL)
  path
}

#' Does any grid point need the self-similarities of new points?
#' @noRd
grid_needs_self <- function(info, grid, fixed) {
  any(vapply(seq_len(nrow(grid)), function(i) {
    isTRUE(info$needs_self(utils::modifyList(fixed, as.list(grid[i, , drop = FALSE]))))
  }, logical(1)))
}

# ---------------------------------------------------------------------------
# Folds, and the tasks that run them

# Fold labels 1..folds; stratified: each class's points in random order dealt
# round-robin, continuing across classes, so folds differ in size by at most
# one and every class is spread evenly.
draw_folds <- function(y, folds, stratified) {
  n <- length(y)
  if (!stratified) return(sample(rep_len(seq_len(folds), n)))
  order <- unlist(lapply(split(seq_len(n), y), function(idx) idx[sample.int(length(idx))]), use.names = FALSE)
  ids <- integer(n)
  ids[order] <- rep_len(sample.int(folds), n)
  ids
}

# The folds of a model's own choice of a path value (kqd, kmdc): stratified
# like draw_folds(), but dealt in turn instead of at random -- the points of
# each class in data order, the classes one after another, go to folds 1, 2,
# ..., folds, 1, 2, ... -- so that a default fit is a function of the data
# and the arguments alone, predicts the same classes whatever the seed, and
# leaves the random number generator untouched. tune_krein() keeps random
# folds (draw_folds()), which its `seed` and `repeats` control.
interleaved_folds <- function(y, folds) {
  order <- unlist(split(seq_along(y), y), use.names = FALSE)
  ids <- integer(length(y))
  ids[order] <- rep_len(seq_len(folds), length(y))
  ids
}

# The cross-validated misclassification of a model's own choice among
# `candidates` settings (ikpca_qd()'s pvar, onda()'s ridge), over
# interleaved_folds(): `fold_classes(train, held_out)` gives the class codes
# (as.integer() of the levels) of the held-out points under every candidate
# fitted on the training part, a matrix with a column per candidate; a
# column of NA (the candidate's fit failed in that fold) makes its error NA.
# A `fold` of 0 keeps a row in every fold's training part (one_row_folds()).
cv_misclassification <- function(y, folds, candidates, fold_classes, fold = interleaved_folds(y, folds)) {
  wrong <- numeric(candidates)
  for (k in seq_len(folds)) {
    held_out <- which(fold == k)
    codes <- matrix(fold_classes(which(fold != k), held_out), length(held_out), candidates)
    wrong <- wrong + colSums(codes != as.integer(y[held_out]))
  }
  wrong / sum(fold > 0L)
}

# interleaved_folds() of the classes of two points or more; the row of a
# class of one point has fold 0: it is held out of no fold and trains in
# every one, since a fold's model without it would not know its class.
one_row_folds <- function(y, folds) {
  single <- y %in% names(which(table(y) == 1L))
  fold <- integer(length(y))
  fold[!single] <- interleaved_folds(droplevels(y[!single]), folds)
  fold
}

# The tasks (folds x repeats) on future_map(): in parallel on the user's
# plan, each fit with the cores shared out among the workers (or the
# `threads` the user gave the model), one progress step per grid point
run_tasks <- function(run, count, steps = count, threads = NULL) {
  progress <- if (requireNamespace("progressr", quietly = TRUE)) progressr::progressor(steps = steps) else function(...) NULL
  if (!requireNamespace("future.apply", quietly = TRUE) && !isTRUE(krein_state$told_parallel)) {
    krein_state$told_parallel <- TRUE
    message("tune_krein() runs its folds one after another. To run them in parallel, install.packages(c(\"future.apply\", \"progressr\")) and choose a plan, e.g. future::plan(future::multisession).")
  }
  future_map(seq_len(count), run, progress = progress, .threads = threads, .seed = TRUE)
}

# ---------------------------------------------------------------------------
# One fold

#' Every grid point on one fold. Grid points that differ only in the path
#' argument and in predict arguments share one fit; the kernel matrices are
#' computed once per combination of kernel parameters.
#' @noRd
tune_fold <- function(job, train, test, metric, progress = function(...) NULL) {
  grid <- job$grid
  info <- job$info
  tunable <- if (job$precomputed) job$x else job$kernel
  kernel_names <- if (is.null(tunable)) character() else intersect(names(grid), kernel_parameter_names(tunable))
  path <- intersect(names(grid), path_argument(info))
  shared <- intersect(names(grid), c(path, predict_only_arguments(info)))
  fit_names <- setdiff(names(grid), c(kernel_names, shared))
  kernel_key <- grid_keys(grid, kernel_names)
  fit_key <- grid_keys(grid, c(kernel_names, fit_names))
  values <- rep(NA_real_, nrow(grid))
  messages <- rep(NA_character_, nrow(grid))
  y_train <- job$y[train]
  y_test <- job$y[test]
  for (key in unique(kernel_key)) {
    rows <- which(kernel_key == key)
    kernel_job <- job_with_kernel_parameters(job, as.list(grid[rows[1], kernel_names, drop = FALSE]))
    kernel <- kernel_job$kernel
    data <- fold_data(kernel_job, kernel, train, test)
    for (g in unique(fit_key[rows])) {
      members <- rows[fit_key[rows] == g]
      args <- c(job$fixed, as.list(grid[members[1], fit_names, drop = FALSE]))
      path_values <- if (length(path)) unique(grid[[path]][members])
      if (length(path)) args[[path]] <- info$path_values(path_values)
      # tuning validates the path on its own folds: no inner cross-validation
      if ("select" %in% fit_argument_names(info) && is.null(args$select)) args$select <- "training"
      fold <- NULL
      fit_fold <- function(args) {
        tryCatch({
          fold <<- if (fit_on_inputs(job, args)) data$inputs() else data$kernel()
          # the fold's data are scaled already (fold_data())
          fit_registered(info, fold$train, y_train, kernel, c(args, list(scale = FALSE)))
        }, error = function(e) conditionMessage(e))
      }
      fit <- fit_fold(args)
      # a path fit that fails at one value must not fail the others: retry
      # value by value, each fit serving the grid points of its value
      fits <- if (is.character(fit) && length(path_values) > 1L) {
        lapply(path_values, function(v) fit_fold(utils::modifyList(args, stats::setNames(list(v), path))))
      } else {
        list(fit)
      }
      for (i in members) {
        fit_i <- if (length(fits) > 1L) fits[[match(grid[[path]][i], path_values)]] else fits[[1L]]
        if (is.character(fit_i)) {
          messages[i] <- fit_i
          next
        }
        extra <- c(job$fixed_predict, as.list(grid[i, shared, drop = FALSE]))
        outcome <- tryCatch(evaluate_predictions(fit_i, fold$test, y_test, metric, extra),
                            error = function(e) conditionMessage(e))
        if (is.character(outcome)) messages[i] <- outcome else values[i] <- outcome
      }
      progress(amount = length(members))
    }
  }
  data.frame(grid_row = seq_len(nrow(grid)), value = values, n_test = length(test), message = messages,
             stringsAsFactors = FALSE)
}

#' The tuning job with kernel parameters set: in the kernel, or in a
#' precomputed kernel rebuilt with them
#' @noRd
job_with_kernel_parameters <- function(job, values) {
  if (length(values) == 0L) return(job)
  if (job$precomputed) job$x <- with_kernel_parameters(job$x, values) else job$kernel <- with_kernel_parameters(job$kernel, values)
  job
}

grid_keys <- function(grid, columns) {
  if (length(columns) == 0L) return(rep("", nrow(grid)))
  do.call(paste, c(unname(as.list(grid[columns])), sep = "\r"))
}

#' Must this fit see the input features rather than a kernel matrix? (A
#' precomputed kernel has no features: the model gets the kernel.)
#' @noRd
fit_on_inputs <- function(job, args) {
  if (!job$info$uses_kernel) return(TRUE)
  !job$precomputed && (isTRUE(job$info$needs_inputs(args)) || may_choose_nystrom(job$info, args, length(job$y)))
}

#' Can a model left to choose its form (R/form.R) take its Nystroem form on
#' up to `n` rows? Then a fold fits on its rows, not on a slice of an n x n
#' kernel matrix that its Nystroem form never needs.
#' @noRd
may_choose_nystrom <- function(info, args, n) {
  forms <- info$forms
  if (is.null(forms)) return(FALSE)
  value <- if (forms$argument %in% names(args)) args[[forms$argument]] else model_defaults(info$name, forms$argument)[[1]]
  is_auto_form(value) && n > full_max_rows(info)
}

#' A fold's training and held-out data, as the inputs themselves or as
#' kernel matrices; each computed when first asked for.
#' @noRd
fold_data <- function(job, kernel, train, test) {
  if (!is.null(job$objects)) return(object_fold_data(job$objects, kernel, train, test))  # R/object_kernels.R
  x <- job$x
  if (job$precomputed) {
    fold <- list(train = precomputed_kernel(x$K[train, train, drop = FALSE], self = x$self[train]),
                 test = precomputed_kernel(x$K[test, train, drop = FALSE], self = x$self[test]))
    return(list(inputs = function() fold, kernel = function() fold))
  }
  x_train <- x[train, , drop = FALSE]
  x_test <- x[test, , drop = FALSE]
  if (job$scale) {
    # scaled by the training fold alone, as a fit on it would be; the refit
    # on all data reports constant columns
    scaling <- suppressMessages(column_scaling(x_train))
    x_train <- scale_columns(scaling, x_train)
    x_test <- scale_columns(scaling, x_test)
  }
  kernels <- NULL
  list(
    # a fit on the inputs scales them by the units of a kernel or posterior
    # fitted on data (job$units) itself
    inputs = function() list(train = x_train, test = x_test),
    kernel = function() {
      if (is.null(kernels)) {
        x_train <- scale_columns(job$units$scaling, x_train)
        x_test <- scale_columns(job$units$scaling, x_test)
        resolved <- resolve_kernel(kernel, x_train)
        threads <- check_threads(NULL)
        kernels <<- list(
          train = precomputed_kernel(evaluate_kernel(resolved, x_train, NULL, threads),
                                     self = kernel_self(resolved, x_train)),
          test = precomputed_kernel(evaluate_kernel(resolved, x_test, x_train, threads),
                                    self = kernel_self(resolved, x_test)))
      }
      kernels
    }
  )
}

#' Fit a registered model on x and y through the contract's one path (what
#' its default method does); the kernel is ignored for precomputed kernels
#' @noRd
fit_registered <- function(info, x, y, kernel, args, call = NULL) {
  # `scale` is an input argument, not one of the fitting function's
  scale <- args$scale %||% model_defaults(info$name, "scale")[[1L]] %||% TRUE
  args$scale <- NULL
  inputs <- inputs_from_xy(x, y, if (info$uses_kernel) kernel, NULL, scale = scale)
  fit_model(info$name, inputs, args, call)
}

evaluate_predictions <- function(fit, test, y_test, metric, extra) {
  if (metric == "error") {
    predicted <- do.call(stats::predict, c(list(fit, test, type = "class"), extra))
    return(mean(predicted != y_test))
  }
  p <- do.call(stats::predict, c(list(fit, test, type = "prob"), extra))
  truth <- cbind(seq_along(y_test), as.integer(y_test))
  if (metric == "logloss") return(-mean(log(pmax(p[truth], 1e-15))))
  onehot <- matrix(0, nrow(p), ncol(p))
  onehot[truth] <- 1
  mean(rowSums((p - onehot)^2))
}

summarise_tuning <- function(grid, fold_results) {
  by_row <- split(fold_results, fold_results$grid_row)
  stats_rows <- t(vapply(seq_len(nrow(grid)), function(i) {
    v <- by_row[[as.character(i)]]$value
    ok <- v[!is.na(v)]
    c(mean = if (length(ok)) mean(ok) else NA_real_, sd = if (length(ok) > 1) stats::sd(ok) else NA_real_,
      failed = sum(is.na(v)))
  }, numeric(3)))
  cbind(grid, as.data.frame(stats_rows))
}

# ---------------------------------------------------------------------------
# The refit

#' The best model on all data, with a call that says how to fit it again
#' @noRd
refit_best <- function(job, best, call, env = parent.frame()) {
  params <- as.list(best)
  tunable <- if (job$precomputed) job$x else job$kernel
  kernel_names <- if (is.null(tunable)) character() else intersect(names(params), kernel_parameter_names(tunable))
  model_params <- params[setdiff(names(params), c(kernel_names, predict_only_arguments(job$info)))]
  job <- job_with_kernel_parameters(job, params[kernel_names])
  if (job$precomputed && length(kernel_names)) call$x <- input_call(call$x, params[kernel_names], env)
  fit_registered(job$info, job$x, job$y, job$kernel, c(job$fixed, model_params, list(scale = job$scale)),
                 refit_call(call, job$info, job$kernel, length(kernel_names) > 0L && !job$precomputed, model_params))
}

#' A precomputed kernel's expression with its tuned parameters written in,
#' where it is a call of a function that takes them (e.g. a conversion of
#' dissimilarities with its width); else the expression as it was
#' @noRd
input_call <- function(expr, values, env) {
  if (!is.call(expr)) return(expr)
  fun <- tryCatch(eval(expr[[1L]], env), error = function(e) NULL)
  if (!is.function(fun) || !all(names(values) %in% names(formals(fun)))) return(expr)
  expr <- match.call(fun, expr)
  for (nm in names(values)) expr[[nm]] <- values[[nm]]
  expr
}

#' `model(x = , y = , <fixed arguments as the user wrote them>, <best
#' values>)`, the kernel written out where its parameters were tuned
#' @noRd
refit_call <- function(call, info, kernel, kernel_tuned, params) {
  given <- as.list(call)[-1L]
  own <- names(formals(tune_krein))
  fixed <- given[setdiff(names(given), c(own, predict_only_arguments(info)))]
  if (kernel_tuned) fixed$kernel <- kernel_call(kernel, fixed$kernel)
  fixed <- fixed[order(names(fixed) != "kernel")]
  # the refit saw the rows na.action kept; so does the call
  if (!is.null(call$na.action)) fixed$na.action <- call$na.action
  as.call(c(as.name(info$name), list(x = call$x, y = call$y), fixed, params))
}

#' A call of a kernel's constructor with its parameters (built-in kernels,
#' and the base of an invariant kernel written as kernel_invariant(...));
#' otherwise the user's expression
#' @noRd
kernel_call <- function(kernel, expr) {
  constructor <- function(k) as.call(c(as.name(paste0("kernel_", k$name)), k$params))
  if (inherits(kernel, "krein_kernel_dissimilarity")) return(dissimilarity_kernel_call(kernel, expr))  # R/object_kernels.R
  if (is_builtin_kernel(kernel)) return(constructor(kernel))
  if (inherits(kernel, "krein_kernel_invariant") && is_builtin_kernel(kernel$base) && is.call(expr) &&
      deparse(expr[[1L]]) %in% c("kernel_invariant", "krein::kernel_invariant")) {
    expr <- match.call(kernel_invariant, expr)
    expr$base <- constructor(kernel$base)
  }
  expr
}
