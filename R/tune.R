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
#' model with a path argument (the `path` column of [krein_models()]: [kqd()]'s
#' `reg`), the grid's values of that argument are one path: a single fit per
#' fold and setting of the other parameters serves them all (for kqd, one
#' decomposition per class), and each value is predicted with the predict
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
#' into folds as it is. A conversion that centres the kernel (`method =
#' "classical"`) was centred on all objects, so the held-out objects'
#' dissimilarities (never their labels) take part in that centring. With
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
#' With \pkg{progressr} installed, each finished task signals progress; wrap
#' the call in `progressr::with_progress()` (or set
#' `progressr::handlers(global = TRUE)`) to see a bar. Nothing is printed
#' otherwise.
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
#'   `gamma` for [kernel_rbf()], `s` for [kernel_dist()]).
#' @param folds Number of folds, between 2 and the number of points.
#' @param repeats Number of repetitions with new folds.
#' @param metric `"error"` (misclassification rate), `"logloss"` (mean
#'   negative log posterior of the true class, posteriors clipped at
#'   \eqn{10^{-15}}) or `"brier"` (mean squared distance of the posterior
#'   vector from the one-hot truth). Lower is better.
#' @param stratified Keep the class proportions in every fold.
#' @param refit Refit the best model on all data.
#' @param na.action What to do with points with missing values in `x` or
#'   `y`, as in the models: `NULL` (the default) makes them an error;
#'   [na.omit()] or [na.exclude()] leave them out of the tuning (and of the
#'   refit).
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
#'   again) and `call`; with `print()`, `summary()` and `plot()` methods. A
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
                       na.action = NULL) {
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
  inputs <- tuning_inputs(x, y, precomputed, na.action, info)  # R/inputs.R; objects: issue 18
  if (!precomputed) x <- inputs$objects %||% inputs$x
  y <- inputs$y
  n <- length(y)
  folds <- check_number(folds, "folds", lower = 2, upper = n, allow_lower = TRUE, integer = TRUE)
  kernel <- if (info$uses_kernel) as_krein_kernel(fixed$kernel %||% kernel_rbf()) else NULL
  fixed$kernel <- NULL
  grid <- tuning_grid(grid, info, kernel, precomputed, names(fixed))
  check_grid_values(grid, info, kernel, inputs, fixed)
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
              scale = scale && !precomputed,
              # strings and other objects: their kernel (or dissimilarities) once, sliced per fold
              objects = if (!is.null(inputs$objects)) object_tuning_cache(kernel, x))
  run <- function(t) {
    set.seed(seeds[t], kind = "Mersenne-Twister", normal.kind = "Inversion", sample.kind = "Rejection")
    test <- fold_ids[, tasks$rep[t]] == tasks$fold[t]
    out <- tune_fold(job, which(!test), which(test), metric)
    out$rep <- tasks$rep[t]
    out$fold <- tasks$fold[t]
    out
  }
  per_task <- run_tasks(run, nrow(tasks))
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
  fitted <- if (refit) refit_best(job, best, call) else NULL
  structure(
    list(best = best, best_value = results$mean[best_row], results = results, folds = fold_results,
         fold_ids = fold_ids, metric = metric, model = fitted, model_name = name,
         n_folds = folds, repeats = repeats, call = call),
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

empty_grid_message <- paste(
  "`grid` is empty; give at least one value of each parameter.",
  "To cross-validate a single setting, give one of its parameters as a single value, e.g. `list(reg = 1e-3)`.")

tuning_grid <- function(grid, info, kernel, precomputed, fixed_names) {
  if (missing(grid) || is.null(grid)) krein_abort("`grid` is missing; give a data frame or a named list of parameter values.")
  if (!is.data.frame(grid)) {
    if (is.list(grid) && length(grid) == 0L) krein_abort(empty_grid_message)
    if (!is.list(grid) || is.null(names(grid)) || any(!nzchar(names(grid)))) {
      krein_abort(sprintf("`grid` must be a data frame or a named list of parameter values, not %s.", describe_value(grid)))
    }
    if (length(grid) == 0L || any(lengths(grid) == 0L)) krein_abort(empty_grid_message)
    grid <- expand.grid(grid, stringsAsFactors = FALSE, KEEP.OUT.ATTRS = FALSE)
  }
  if (nrow(grid) == 0L || ncol(grid) == 0L) krein_abort(empty_grid_message)
  for (j in seq_along(grid)) if (is.factor(grid[[j]])) grid[[j]] <- as.character(grid[[j]])
  kernel_names <- if (is.null(kernel)) character() else kernel_parameter_names(kernel)
  allowed <- c(setdiff(tuning_argument_names(info), "threads"), kernel_names)
  unknown <- setdiff(names(grid), allowed)
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
  if (precomputed && any(names(grid) %in% kernel_names)) {
    krein_abort("`grid` has kernel parameters, but `x` is a precomputed kernel; tune the model's own parameters only.")
  }
  grid
}

#' Every grid value must lie in its parameter's domain: an error naming the
#' column and its bad values, before any fit. Kernel parameters are checked
#' by the kernel's constructor; model arguments by the model's own fitting
#' function, run on the real inputs up to the point where it first needs the
#' kernel or the data (probe_model_argument()).
#' @noRd
check_grid_values <- function(grid, info, kernel, inputs, fixed) {
  kernel_names <- if (is.null(kernel)) character() else kernel_parameter_names(kernel)
  model_names <- intersect(names(grid), setdiff(fit_argument_names(info), "threads"))
  for (column in names(grid)) {
    values <- unique(grid[[column]])
    check <- if (column %in% kernel_names) {
      function(v) probe_kernel_parameter(kernel, column, v)
    } else if (column %in% model_names) {
      function(v) probe_model_argument(info, inputs, fixed, column, v)
    } else {
      next  # a predict argument: checked by predict() in each fold
    }
    problems <- lapply(values, check)
    bad <- !vapply(problems, is.null, logical(1))
    if (any(bad)) {
      krein_abort(sprintf("`grid` column `%s` has %s %s: %s",
                          column, if (sum(bad) > 1) "invalid values" else "an invalid value",
                          paste(vapply(values[bad], format_grid_value, ""), collapse = ", "),
                          problems[bad][[1]]))
    }
  }
  invisible(grid)
}

format_grid_value <- function(v) if (is.character(v)) paste0("\"", v, "\"") else format(v, digits = 7)

#' NULL if the kernel's constructor accepts `value` for `parameter`, else its
#' message (kernels without a constructor of krein's are not checked)
#' @noRd
probe_kernel_parameter <- function(kernel, parameter, value) {
  base <- if (inherits(kernel, "krein_kernel_invariant")) kernel$base else kernel
  if (!is_builtin_kernel(base)) return(probe_object_kernel_parameter(base, parameter, value))  # R/kernels.R
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

kernel_parameter_names <- function(kernel) {
  if (inherits(kernel, "krein_kernel_invariant")) return(names(kernel$base$params))
  names(kernel$params)
}

with_kernel_parameters <- function(kernel, values) {
  if (length(values) == 0L) return(kernel)
  if (inherits(kernel, "krein_kernel_invariant")) {
    for (nm in names(values)) kernel$base$params[[nm]] <- values[[nm]]
  } else {
    for (nm in names(values)) kernel$params[[nm]] <- values[[nm]]
  }
  kernel
}

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

run_tasks <- function(run, count) {
  if (requireNamespace("future.apply", quietly = TRUE)) {
    progress <- if (requireNamespace("progressr", quietly = TRUE)) progressr::progressor(steps = count) else function(...) NULL
    # several workers: one thread per fit, so workers do not compete for cores
    one_thread <- future::nbrOfWorkers() > 1
    saved <- get_random_state()
    on.exit(set_random_state(saved), add = TRUE)
    return(future.apply::future_lapply(seq_len(count), function(t) {
      if (one_thread) {
        old <- options(krein.threads = 1L)
        old_omp <- cpp_set_omp_threads(1L)
        on.exit({
          options(old)
          cpp_set_omp_threads(old_omp)
        })
      }
      out <- run(t)
      progress()
      out
    }, future.seed = TRUE, future.packages = "krein"))
  }
  if (!isTRUE(krein_state$told_parallel)) {
    krein_state$told_parallel <- TRUE
    message("tune_krein() runs its folds one after another. To run them in parallel, install.packages(c(\"future.apply\", \"progressr\")) and choose a plan, e.g. future::plan(future::multisession).")
  }
  saved <- get_random_state()
  on.exit(set_random_state(saved), add = TRUE)
  lapply(seq_len(count), run)
}

krein_state <- new.env(parent = emptyenv())

get_random_state <- function() {
  if (exists(".Random.seed", envir = globalenv(), inherits = FALSE)) get(".Random.seed", envir = globalenv()) else NULL
}

set_random_state <- function(state) {
  if (is.null(state)) {
    if (exists(".Random.seed", envir = globalenv(), inherits = FALSE)) rm(".Random.seed", envir = globalenv())
  } else {
    assign(".Random.seed", state, envir = globalenv())
  }
}

# ---------------------------------------------------------------------------
# One fold

#' Every grid point on one fold. Grid points that differ only in the path
#' argument and in predict arguments share one fit; the kernel matrices are
#' computed once per combination of kernel parameters.
#' @noRd
tune_fold <- function(job, train, test, metric) {
  grid <- job$grid
  info <- job$info
  kernel_names <- if (is.null(job$kernel)) character() else intersect(names(grid), kernel_parameter_names(job$kernel))
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
    kernel <- if (is.null(job$kernel)) NULL else with_kernel_parameters(job$kernel, as.list(grid[rows[1], kernel_names, drop = FALSE]))
    data <- fold_data(job, kernel, train, test)
    for (g in unique(fit_key[rows])) {
      members <- rows[fit_key[rows] == g]
      args <- c(job$fixed, as.list(grid[members[1], fit_names, drop = FALSE]))
      path_values <- if (length(path)) unique(grid[[path]][members])
      if (length(path)) args[[path]] <- path_values
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
    }
  }
  data.frame(grid_row = seq_len(nrow(grid)), value = values, n_test = length(test), message = messages,
             stringsAsFactors = FALSE)
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
  !job$precomputed && isTRUE(job$info$needs_inputs(args))
}

#' A fold's training and held-out data, as the inputs themselves or as
#' kernel matrices; each computed when first asked for.
#' @noRd
fold_data <- function(job, kernel, train, test) {
  if (!is.null(job$objects)) return(object_fold_data(job$objects, kernel, train, test))  # R/kernels.R
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
    inputs = function() list(train = x_train, test = x_test),
    kernel = function() {
      if (is.null(kernels)) {
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
  scale <- args$scale %||% TRUE
  args$scale <- NULL
  inputs <- inputs_from_xy(x, y, if (info$uses_kernel) kernel else NA, NULL, scale = scale)
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
refit_best <- function(job, best, call) {
  params <- as.list(best)
  kernel_names <- if (is.null(job$kernel)) character() else intersect(names(params), kernel_parameter_names(job$kernel))
  model_params <- params[setdiff(names(params), c(kernel_names, predict_only_arguments(job$info)))]
  kernel <- if (is.null(job$kernel)) NULL else with_kernel_parameters(job$kernel, params[kernel_names])
  fit_registered(job$info, job$x, job$y, kernel, c(job$fixed, model_params, list(scale = job$scale)),
                 refit_call(call, job$info, kernel, length(kernel_names) > 0L, model_params))
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
  if (inherits(kernel, "krein_kernel_dissimilarity")) return(dissimilarity_kernel_call(kernel, expr))  # R/kernels.R
  if (is_builtin_kernel(kernel)) return(constructor(kernel))
  if (inherits(kernel, "krein_kernel_invariant") && is_builtin_kernel(kernel$base) && is.call(expr) &&
      deparse(expr[[1L]]) %in% c("kernel_invariant", "krein::kernel_invariant")) {
    expr <- match.call(kernel_invariant, expr)
    expr$base <- constructor(kernel$base)
  }
  expr
}

#' @export
print.krein_tune <- function(x, ...) {
  cat(sprintf("Cross-validated tuning of %s(): %d grid points, %d-fold CV x %d repeat%s, metric %s\n",
              x$model_name, nrow(x$results), x$n_folds, x$repeats, if (x$repeats > 1) "s" else "", x$metric))
  best <- x$results[which(x$results$mean == x$best_value & x$results$failed == 0)[1], ]
  cat("  best: ", paste(names(x$best), vapply(x$best, function(v) format(v, digits = 4), ""), sep = " = ", collapse = ", "),
      sprintf("  (%s %.4g, sd %.3g)\n", x$metric, best$mean, best$sd), sep = "")
  if (any(x$results$failed > 0)) cat("  failed fits: ", sum(x$results$failed), "\n", sep = "")
  if (!is.null(x$model)) cat("  refitted on all data: x$model\n")
  invisible(x)
}

#' @export
summary.krein_tune <- function(object, ...) {
  structure(list(results = object$results[order(object$results$mean), , drop = FALSE],
                 metric = object$metric, model_name = object$model_name, best = object$best),
            class = "summary.krein_tune")
}

#' @export
print.summary.krein_tune <- function(x, ...) {
  cat("Tuning of ", x$model_name, "(), grid points by mean ", x$metric, ":\n", sep = "")
  print(x$results, digits = 4, row.names = FALSE)
  invisible(x)
}

#' Plot a cross-validated tuning
#'
#' One panel per tuned parameter: the mean metric at each of its values (the
#' best over the other parameters), with bars of one standard deviation over
#' the folds. Numeric parameters whose grid spans two orders of magnitude or
#' more get a logarithmic axis.
#'
#' @param x A `krein_tune` result.
#' @param ... Passed to [graphics::plot()].
#' @returns `x`, invisibly.
#' @family model selection
#' @export
plot.krein_tune <- function(x, ...) {
  params <- setdiff(names(x$best), character())
  params <- params[vapply(params, function(p) length(unique(x$results[[p]])) > 1L, logical(1))]
  if (length(params) == 0L) params <- names(x$best)[1]
  old <- graphics::par(mfrow = c(1L, length(params)))
  on.exit(graphics::par(old))
  for (p in params) {
    values <- x$results[[p]]
    levels <- unique(values)
    best <- vapply(levels, function(v) {
      rows <- which(values == v & x$results$failed == 0)
      if (!length(rows)) return(c(NA_real_, NA_real_))
      r <- rows[which.min(x$results$mean[rows])]
      c(x$results$mean[r], x$results$sd[r])
    }, numeric(2))
    numeric_axis <- is.numeric(levels)
    at <- if (numeric_axis) levels else seq_along(levels)
    log_axis <- numeric_axis && all(levels > 0) && max(levels) / min(levels) >= 100
    lower <- best[1, ] - ifelse(is.na(best[2, ]), 0, best[2, ])
    upper <- best[1, ] + ifelse(is.na(best[2, ]), 0, best[2, ])
    ord <- order(at)
    graphics::plot(at[ord], best[1, ord], type = "b", pch = 19, log = if (log_axis) "x" else "",
                   ylim = range(c(lower, upper), na.rm = TRUE), xlab = p, ylab = paste("mean", x$metric),
                   xaxt = if (numeric_axis) "s" else "n", ...)
    if (!numeric_axis) graphics::axis(1, at = at, labels = as.character(levels))
    graphics::arrows(at, lower, at, upper, angle = 90, code = 3, length = 0.03, col = "grey40")
    graphics::abline(v = at[match(x$best[[p]], levels)], lty = 2, col = "red")
  }
  invisible(x)
}
