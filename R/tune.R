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
#' @section What is reused:
#' Within a fold, the kernel matrices of the training and held-out points are
#' computed once per combination of kernel parameters and shared by all
#' model parameters (the model is fitted on the precomputed kernel). For
#' [kqd()], a grid over `reg` is one regularisation path: one decomposition
#' per class and fold serves every `reg` value. [onda()] works on the inputs
#' and has no kernel to share; models whose options need the input data
#' (`landmarks = "kmeans"`, a `pcvm_control()` that optimises the kernel
#' width) are fitted on the inputs as well.
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
#' @param model A krein fitting function: [kqd()], [ikfd()], [pcvm()],
#'   [kfda()], [onda()], [kmdc()], [iknn()], [ikpca_qd()] or [isvm()].
#' @param x Inputs: a numeric matrix or data frame, or a precomputed kernel
#'   ([precomputed_kernel()], with its self-similarities).
#' @param y Class labels.
#' @param grid A data frame of parameter combinations, or a named list of
#'   values whose combinations are all tried ([expand.grid()]). Names are the
#'   model's arguments (`reg`, `variant`, `ncomp`, `k`, ...) or parameters
#'   of the kernel (e.g. `gamma` for [kernel_rbf()], `s` for [kernel_dist()]).
#' @param folds Number of folds, between 2 and the number of points.
#' @param repeats Number of repetitions with new folds.
#' @param metric `"error"` (misclassification rate), `"logloss"` (mean
#'   negative log posterior of the true class, posteriors clipped at
#'   \eqn{10^{-15}}) or `"brier"` (mean squared distance of the posterior
#'   vector from the one-hot truth). Lower is better.
#' @param stratified Keep the class proportions in every fold.
#' @param refit Refit the best model on all data.
#' @param ... Fixed arguments of the model (e.g. `kernel = kernel_rbf()`,
#'   `variant = "FK+"`). The options after `...` must be named in full. R
#'   matches a name that begins another argument's name to that argument, so
#'   a fixed model argument called `m` (the landmark count of [ikfd()] and
#'   [pcvm()]) would be taken for `model`: give it in `grid` as a single value,
#'   `grid = list(reg = ..., m = 20)`.
#' @returns An object of class `krein_tune`: a list with `best` (a one-row
#'   data frame of the best parameters), `results` (the grid with the mean
#'   and standard deviation of the metric over all folds and repeats, and the
#'   number of failed fits), `folds` (one row per grid point, repeat and
#'   fold), `fold_ids` (an \eqn{n \times} `repeats` matrix), `metric`,
#'   `model` (the refitted model, or `NULL`) and `call`; with `print()`,
#'   `summary()` and `plot()` methods. A fit that fails (for example a
#'   singular covariance at one grid point) counts as missing for that fold,
#'   with one warning at the end.
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
#' plot(tuned)
#' \dontrun{
#' # in parallel on two local cores, with a progress bar
#' future::plan(future::multisession, workers = 2)
#' progressr::with_progress(
#'   tune_krein(kqd, d[, 1:2], d$y, grid = list(gamma = 2^(-2:5), reg = 10^(-4:3)))
#' )
#' }
#' @export
tune_krein <- function(model, x, y, grid, ..., folds = 10, repeats = 1,
                       metric = c("error", "logloss", "brier"), stratified = TRUE, refit = TRUE) {
  call <- match.call()
  model_name <- tuned_model_name(model)
  fixed <- list(...)
  metric <- match_choice(metric, "metric", c("error", "logloss", "brier"))
  stratified <- check_flag(stratified, "stratified")
  refit <- check_flag(refit, "refit")
  repeats <- check_number(repeats, "repeats", lower = 1, allow_lower = TRUE, integer = TRUE)
  precomputed <- inherits(x, "krein_precomputed")
  if (!precomputed) {
    x <- check_numeric_matrix_allow_na(x, "x")
    if (anyNA(x)) krein_abort("`x` has missing values; remove or impute them before tuning.")
  } else if (is.null(x$self) && model_name %in% c("kqd", "iknn", "kmdc")) {
    krein_abort("`x` must carry the self-similarities of the points: precomputed_kernel(K, self = ...).")
  }
  n <- if (precomputed) nrow(x$K) else nrow(x)
  if (missing(y) || length(y) != n) {
    krein_abort(sprintf("`y` must have one label per row of `x` (%d).", n))
  }
  y <- as_class_factor(y)
  folds <- check_number(folds, "folds", lower = 2, upper = n, allow_lower = TRUE, integer = TRUE)
  kernel <- if (model_name == "onda") NULL else as_krein_kernel(fixed$kernel %||% kernel_rbf())
  fixed$kernel <- NULL
  grid <- tuning_grid(grid, model_name, kernel, precomputed)

  fold_ids <- vapply(seq_len(repeats), function(r) draw_folds(y, folds, stratified), integer(n))
  if (n == 1L) fold_ids <- matrix(fold_ids, nrow = 1L)
  tasks <- expand.grid(fold = seq_len(folds), rep = seq_len(repeats))
  seeds <- sample.int(.Machine$integer.max, nrow(tasks))
  job <- list(model_name = model_name, x = x, y = y, grid = grid, kernel = kernel, fixed = fixed,
              precomputed = precomputed)
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
  fitted <- if (refit) refit_best(job, best) else NULL
  structure(
    list(best = best, best_value = results$mean[best_row], results = results, folds = fold_results,
         fold_ids = fold_ids, metric = metric, model = fitted, model_name = model_name,
         n_folds = folds, repeats = repeats, call = call),
    class = "krein_tune"
  )
}

# The registry of tunable models: how each is fitted and what it needs.
tuned_models <- function() {
  list(kqd = kqd, ikfd = ikfd, pcvm = pcvm, kfda = kfda, onda = onda, kmdc = kmdc, iknn = iknn,
       ikpca_qd = ikpca_qd, isvm = isvm)
}

tuned_model_name <- function(model) {
  if (missing(model)) krein_abort("`model` is missing; give a krein fitting function such as kqd.")
  models <- tuned_models()
  for (name in names(models)) if (identical(model, models[[name]])) return(name)
  krein_abort(sprintf("`model` must be one of krein's fitting functions (%s), not %s.",
                      paste(names(models), collapse = ", "), describe_value(model)))
}

# The arguments a model takes (its default method's, without the data)
model_arguments <- function(model_name) {
  fun <- switch(model_name, kqd = kqd.default, ikfd = ikfd.default, pcvm = pcvm.default,
                kfda = kfda.default, onda = onda.default, kmdc = kmdc, iknn = iknn.default,
                ikpca_qd = ikpca_qd.default, isvm = isvm.default)
  setdiff(names(formals(fun)), c("x", "y", "kernel", "na.action", "threads", "..."))
}

empty_grid_message <- paste(
  "`grid` is empty; give at least one value of each parameter.",
  "To cross-validate a single setting, give one of its parameters as a single value, e.g. `list(reg = 1e-3)`.")

tuning_grid <- function(grid, model_name, kernel, precomputed) {
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
  allowed <- c(model_arguments(model_name), kernel_names)
  unknown <- setdiff(names(grid), allowed)
  if (length(unknown)) {
    krein_abort(sprintf("`grid` has unknown parameter%s %s for %s(); its parameters are %s.",
                        if (length(unknown) > 1) "s" else "", paste0("`", unknown, "`", collapse = ", "),
                        model_name, paste0("`", allowed, "`", collapse = ", ")))
  }
  if (precomputed && any(names(grid) %in% kernel_names)) {
    krein_abort("`grid` has kernel parameters, but `x` is a precomputed kernel; tune the model's own parameters only.")
  }
  grid
}

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

# One fold: every grid point, kernels computed once per kernel-parameter
# combination, kqd's reg values as one path.
tune_fold <- function(job, train, test, metric) {
  grid <- job$grid
  kernel_names <- if (is.null(job$kernel)) character() else intersect(names(grid), kernel_parameter_names(job$kernel))
  kernel_key <- if (length(kernel_names)) do.call(paste, c(grid[kernel_names], sep = "\r")) else rep("", nrow(grid))
  values <- rep(NA_real_, nrow(grid))
  messages <- rep(NA_character_, nrow(grid))
  y_train <- job$y[train]
  y_test <- job$y[test]
  for (key in unique(kernel_key)) {
    rows <- which(kernel_key == key)
    kernel <- if (is.null(job$kernel)) NULL else with_kernel_parameters(job$kernel, as.list(grid[rows[1], kernel_names, drop = FALSE]))
    data <- fold_data(job, kernel, train, test, grid[rows, , drop = FALSE])
    model_grid <- grid[rows, setdiff(names(grid), kernel_names), drop = FALSE]
    groups <- if (job$model_name == "kqd" && "reg" %in% names(model_grid)) {
      other <- setdiff(names(model_grid), "reg")
      if (length(other)) do.call(paste, c(model_grid[other], sep = "\r")) else rep("", length(rows))
    } else as.character(seq_along(rows))
    for (g in unique(groups)) {
      members <- rows[groups == g]
      params <- as.list(grid[members[1], setdiff(names(grid), kernel_names), drop = FALSE])
      if (job$model_name == "kqd" && "reg" %in% names(params)) params$reg <- grid$reg[members]
      outcome <- tryCatch({
        fit <- fit_tuned(job, data, params, y_train)
        lapply(seq_along(members), function(i) {
          extra <- if (job$model_name == "kqd" && "reg" %in% names(params)) list(reg = params$reg[i]) else list()
          evaluate_predictions(fit, data$test, y_test, metric, extra)
        })
      }, error = function(e) conditionMessage(e))
      if (is.character(outcome)) {
        messages[members] <- outcome
      } else {
        values[members] <- unlist(outcome)
      }
    }
  }
  data.frame(grid_row = seq_len(nrow(grid)), value = values, n_test = length(test), message = messages,
             stringsAsFactors = FALSE)
}

# Does this model (with these parameters) have to be fitted on the inputs?
needs_inputs <- function(job, grid_rows) {
  if (job$model_name == "onda" || job$precomputed) return(job$model_name == "onda")
  landmarks <- c(job$fixed$landmarks, grid_rows$landmarks)
  if (any(vapply(landmarks, function(l) identical(l, "kmeans"), logical(1)))) return(TRUE)
  control <- job$fixed$control
  isTRUE(control$optimize_width) || isTRUE(control$optimise_width)
}

fold_data <- function(job, kernel, train, test, grid_rows) {
  x <- job$x
  if (job$precomputed) {
    self <- x$self
    return(list(train = precomputed_kernel(x$K[train, train, drop = FALSE], self = self[train]),
                test = precomputed_kernel(x$K[test, train, drop = FALSE], self = self[test])))
  }
  x_train <- x[train, , drop = FALSE]
  x_test <- x[test, , drop = FALSE]
  if (needs_inputs(job, grid_rows)) {
    return(list(train = x_train, test = x_test, kernel = kernel, inputs = TRUE))
  }
  kernel <- resolve_kernel(kernel, x_train)
  threads <- check_threads(NULL)
  K_train <- evaluate_kernel(kernel, x_train, NULL, threads)
  list(train = precomputed_kernel(K_train, self = kernel_self(kernel, x_train)),
       test = precomputed_kernel(evaluate_kernel(kernel, x_test, x_train, threads),
                                 self = kernel_self(kernel, x_test)))
}

fit_tuned <- function(job, data, params, y_train) {
  fun <- tuned_models()[[job$model_name]]
  args <- c(list(data$train, y_train), job$fixed, params)
  if (isTRUE(data$inputs) && !is.null(data$kernel)) args$kernel <- data$kernel
  do.call(fun, args)
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

refit_best <- function(job, best) {
  params <- as.list(best)
  kernel_names <- if (is.null(job$kernel)) character() else intersect(names(params), kernel_parameter_names(job$kernel))
  fun <- tuned_models()[[job$model_name]]
  args <- c(list(job$x, job$y), job$fixed, params[setdiff(names(params), kernel_names)])
  if (!is.null(job$kernel) && !job$precomputed) {
    args$kernel <- with_kernel_parameters(job$kernel, params[kernel_names])
  }
  do.call(fun, args)
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
