# The methods of a tuning result (`krein_tune`): print(), summary(),
# predict() with the refitted best model, and plot() of the cross-validated
# metric over the grid.

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

#' Predict with the best model of a tuning
#'
#' [tune_krein()] refits the best parameters on all data (`refit = TRUE`,
#' the default) and keeps the fit as `model`; `predict()` predicts with it,
#' with the predict arguments the tuning used: those among the best
#' parameters (such as a class `rule` in the grid) and those given to
#' `tune_krein()` among the fixed arguments.
#'
#' @param object A `krein_tune` result.
#' @param newdata,type As for [predict()][predict.krein_model()]: new data in
#'   the form of the tuning's `x` (`NULL`: the training data), and `"class"`,
#'   `"prob"`, `"decision"` or one of the model's own types.
#' @param ... Predict arguments of the model; they replace those of the
#'   tuning.
#' @returns As [predict()][predict.krein_model()].
#' @family model selection
#' @examples
#' set.seed(1)
#' d <- checkerboard(200, size = 3)
#' tuned <- tune_krein(kqd, d[, 1:2], d$y, grid = list(gamma = c(2, 8), reg = c(0.01, 0.1)), folds = 3)
#' test <- checkerboard(5, size = 3)
#' predict(tuned, test[, 1:2])
#' predict(tuned, test[, 1:2], type = "prob")
#' @export
predict.krein_tune <- function(object, newdata = NULL, type = "class", ...) {
  if (is.null(object$model)) {
    krein_abort("This tuning was run with `refit = FALSE`, so it holds no model to predict with; run tune_krein() with `refit = TRUE` (the default), or fit the parameters in `$best` yourself.")
  }
  args <- utils::modifyList(object$predict_args %||% list(), list(...))
  do.call(stats::predict, c(list(object$model, newdata, type = type), args))
}

#' Plot a cross-validated tuning
#'
#' With one tuned parameter, or with character ones: one panel per tuned
#' parameter, the mean metric at each of its values (the best over the other
#' parameters) with bars of one standard deviation over the folds and
#' repeats, the best value marked. With two or more numeric parameters: a
#' heat map of the mean metric over the two numeric parameters whose values
#' change it most (the largest range of their profiles; at each cell the
#' best over the other parameters), with contour lines, the best point
#' marked and a colour scale, then one profile panel for each other tuned
#' parameter. A parameter whose grid is log-spaced (positive values with a
#' constant ratio between neighbours), or spans two orders of magnitude,
#' gets a logarithmic axis; heat-map cells are placed at the grid's values,
#' equally spaced on that scale. The title names the model, the
#' cross-validation scheme and the metric.
#'
#' @param x A `krein_tune` result.
#' @param ... Passed to [graphics::plot()] (profile panels) and
#'   [graphics::image()] (heat map).
#' @returns `x`, invisibly.
#' @family model selection
#' @examples
#' set.seed(1)
#' d <- checkerboard(120, size = 2)
#' tuned <- tune_krein(kqd, d[, 1:2], d$y, kernel = kernel_rbf(), folds = 3,
#'                     grid = list(gamma = c(0.25, 1, 4), reg = 10^(-4:-2)))
#' plot(tuned)   # a heat map over the two parameters, the best one marked
#' @export
plot.krein_tune <- function(x, ...) {
  results <- x$results
  params <- names(x$best)
  varying <- params[vapply(params, function(p) length(unique(results[[p]])) > 1L, logical(1))]
  if (length(varying) == 0L) varying <- params[1]
  numeric_params <- varying[vapply(varying, function(p) is.numeric(results[[p]]), logical(1))]
  heat <- NULL
  if (length(numeric_params) >= 2L) {
    spread <- vapply(numeric_params, function(p) {
      profile <- tuning_profile(results, p)
      diff(range(profile$mean, na.rm = TRUE))
    }, numeric(1))
    heat <- numeric_params[order(-spread)][1:2]
  }
  panels <- setdiff(varying, heat)
  title <- tuning_title(x)
  n_panels <- length(panels) + if (is.null(heat)) 0L else 1L
  old <- graphics::par(no.readonly = TRUE)
  on.exit(graphics::par(old))
  if (is.null(heat)) {
    graphics::par(mfrow = c(1L, n_panels), oma = c(0, 0, 2, 0))
  } else {
    # the heat map, its colour scale, then the profiles
    widths <- c(4, 1, rep(4, length(panels)))
    graphics::layout(matrix(seq_along(widths), nrow = 1L), widths = widths)
    graphics::par(oma = c(0, 0, 2, 0))
    plot_tuning_heat_map(x, heat[1], heat[2], ...)
  }
  for (p in panels) plot_tuning_profile(x, p, ...)
  graphics::mtext(title, outer = TRUE, line = 0.5, font = 2)
  invisible(x)
}

tuning_title <- function(x) {
  sprintf("%s(): %d-fold%s CV%s, mean %s", x$model_name, x$n_folds,
          if (isFALSE(x$stratified)) "" else " stratified",
          if (x$repeats > 1) sprintf(" x %d repeats", x$repeats) else "", x$metric)
}

# The best mean (and its sd) at each value of a parameter over the others
tuning_profile <- function(results, p) {
  values <- results[[p]]
  levels <- unique(values)
  stats <- vapply(levels, function(v) {
    rows <- which(values == v & results$failed == 0)
    if (!length(rows)) return(c(NA_real_, NA_real_))
    r <- rows[which.min(results$mean[rows])]
    c(results$mean[r], results$sd[r])
  }, numeric(2))
  list(levels = levels, mean = stats[1, ], sd = stats[2, ])
}

# A logarithmic axis for log-spaced grids or grids over two orders of magnitude
log_axis_for <- function(levels) {
  is.numeric(levels) && all(levels > 0) && (log_spaced(levels) || max(levels) / min(levels) >= 100)
}

plot_tuning_profile <- function(x, p, ...) {
  profile <- tuning_profile(x$results, p)
  levels <- profile$levels
  numeric_axis <- is.numeric(levels)
  at <- if (numeric_axis) levels else seq_along(levels)
  log_axis <- log_axis_for(levels)
  sd <- ifelse(is.na(profile$sd), 0, profile$sd)
  lower <- profile$mean - sd
  upper <- profile$mean + sd
  ord <- order(at)
  graphics::plot(at[ord], profile$mean[ord], type = "b", pch = 19, log = if (log_axis) "x" else "",
                 ylim = range(c(lower, upper), na.rm = TRUE),
                 xlab = if (log_axis) paste(p, "(log scale)") else p, ylab = paste("mean", x$metric),
                 xaxt = if (numeric_axis) "s" else "n", ...)
  if (!numeric_axis) graphics::axis(1, at = at, labels = as.character(levels))
  keep <- upper > lower
  if (any(keep, na.rm = TRUE)) {
    keep <- which(keep)
    graphics::arrows(at[keep], lower[keep], at[keep], upper[keep], angle = 90, code = 3, length = 0.03,
                     col = "grey40")
  }
  graphics::abline(v = at[match(x$best[[p]], levels)], lty = 2, col = "red")
}

# Heat map of the mean metric over two numeric parameters (the best over the
# others at each cell), contours, the best point, and a colour scale panel
plot_tuning_heat_map <- function(x, px, py, ...) {
  results <- x$results
  xs <- sort(unique(results[[px]]))
  ys <- sort(unique(results[[py]]))
  z <- matrix(NA_real_, length(xs), length(ys))
  ok <- results$failed == 0
  for (i in seq_along(xs)) for (j in seq_along(ys)) {
    rows <- ok & results[[px]] == xs[i] & results[[py]] == ys[j]
    if (any(rows)) z[i, j] <- min(results$mean[rows])
  }
  # cells at the values, equally spaced on a log scale where the grid is
  log_x <- log_axis_for(xs)
  log_y <- log_axis_for(ys)
  cx <- if (log_x) log10(xs) else xs
  cy <- if (log_y) log10(ys) else ys
  range_z <- range(z, na.rm = TRUE)
  if (!all(is.finite(range_z))) range_z <- c(0, 1)
  if (range_z[1] == range_z[2]) range_z <- range_z + c(-0.5, 0.5) * max(1e-8, abs(range_z[1]) * 1e-3)
  colours <- grDevices::hcl.colors(64, "YlOrRd", rev = TRUE)
  label <- function(p, v) if (log_axis_for(v)) paste(p, "(log scale)") else p
  graphics::image(cx, cy, z, col = colours, zlim = range_z, xlab = label(px, xs), ylab = label(py, ys),
                  axes = FALSE, ...)
  tick_labels <- function(v) vapply(v, format, "", digits = 3)
  graphics::axis(1, at = cx, labels = tick_labels(xs))
  graphics::axis(2, at = cy, labels = tick_labels(ys), las = 1)
  graphics::box()
  if (length(cx) > 1 && length(cy) > 1 && sum(is.finite(z)) > 3 && diff(range(z, na.rm = TRUE)) > 0) {
    graphics::contour(cx, cy, z, add = TRUE, col = "grey25", labcex = 0.7, nlevels = 6)
  }
  best_x <- if (log_x) log10(x$best[[px]]) else x$best[[px]]
  best_y <- if (log_y) log10(x$best[[py]]) else x$best[[py]]
  graphics::points(best_x, best_y, pch = 4, cex = 2, lwd = 3, col = "blue")
  # the colour scale
  old_mar <- graphics::par(mar = c(5.1, 1, 4.1, 4))
  on.exit(graphics::par(old_mar))
  levels <- seq(range_z[1], range_z[2], length.out = length(colours))
  graphics::image(1, levels, matrix(levels, nrow = 1), col = colours, axes = FALSE, xlab = "", ylab = "")
  graphics::axis(4, las = 1)
  graphics::mtext(paste("mean", x$metric), side = 4, line = 2.8, cex = 0.8)
  graphics::box()
}
