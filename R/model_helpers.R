# Pieces every krein classifier shares: posterior from decision values, the
# class factor, the kernel of new points, and the 2-D decision-region plot.

#' Row-wise softmax, stable for large decision values
#' @noRd
softmax_rows <- function(f) {
  # the row maxima by max.col(): apply() over rows costs a tenth of a
  # Nystroem fit at n = 1e5
  f <- f - f[cbind(seq_len(nrow(f)), max.col(f, ties.method = "first"))]
  e <- exp(f)
  e / rowSums(e)
}

#' The class with the largest decision value; ties go to the first class
#' (paper 000, eq. (10): "chooses minimal j")
#' @noRd
class_from_decisions <- function(f, levels) {
  # the factor from its codes: factor() on the labels would build and match
  # a string per row (seconds for the 1e7 training rows of a fit over chunks)
  structure(max.col(f, ties.method = "first"), levels = levels, class = "factor")
}

`%||%` <- function(a, b) if (is.null(a)) b else a

#' The warning of a fit with classes of one training row: names them
#' (`counts`: points per class, named by level) and says what the model
#' does for them (`treatment`, a sentence without its first word's capital
#' or final stop). Returns the classes, invisibly.
#' @noRd
warn_one_row_classes <- function(counts, treatment) {
  one <- names(counts)[as.vector(counts) == 1L]
  if (length(one)) {
    krein_warn(sprintf("%s %s of `y` %s one training row: %s.", if (length(one) > 1L) "Classes" else "Class",
                       paste0("\"", one, "\"", collapse = ", "), if (length(one) > 1L) "have" else "has",
                       treatment),
               class = "krein_one_row_class_warning")
  }
  invisible(one)
}

#' The error of a model that pools a covariance within the classes
#' (`pooled`, what it estimates, as a sentence's middle) when every class of
#' `counts` has one point: there is no spread within any class to pool
#' @noRd
check_some_class_of_two <- function(counts, pooled) {
  if (all(as.vector(counts) < 2L)) {
    krein_abort(sprintf("`y` has one point in every class; %s, so at least one class needs two points or more.",
                        pooled))
  }
}

#' A kernel's label and parameters, for print methods
#' @noRd
kernel_description <- function(kernel) {
  if (is.null(kernel)) return("precomputed")
  params <- kernel_parameter_text(kernel)
  paste0(kernel$label, if (nzchar(params)) paste0(" (", params, ")") else "")
}

#' Decision regions of a 2-D classifier
#'
#' Shades the plane by predicted class on a grid, draws the boundaries and the
#' training points (grey where the class is NA), and circles `landmarks`. `predict_grid` maps a two-column data frame (named as the
#' training inputs) to a factor of classes.
#' @noRd
plot_decision_regions <- function(x, y, predict_grid, resolution = 120L, main = NULL,
                                  col = NULL, landmarks = NULL, ...) {
  levels <- levels(y)
  if (is.null(col)) col <- hcl.colors(length(levels), "Dark 3")
  g1 <- plot_grid_axis(x[, 1], resolution)
  g2 <- plot_grid_axis(x[, 2], resolution)
  grid <- expand.grid(g1, g2)
  names(grid) <- colnames(x)
  predicted <- predict_grid(grid)
  z <- matrix(as.integer(predicted), resolution, resolution)
  light <- grDevices::adjustcolor(col, alpha.f = 0.25)
  # a raster image: polygons leave hairline seams in large PNGs
  graphics::image(g1, g2, z, col = light, breaks = seq(0.5, length(levels) + 0.5, by = 1),
                  useRaster = TRUE, xlab = colnames(x)[1], ylab = colnames(x)[2], main = main, ...)
  graphics::contour(g1, g2, z, levels = seq(1.5, length(levels) - 0.5, by = 1),
                    drawlabels = FALSE, add = TRUE, col = "grey20", lwd = 1.5)
  point_col <- ifelse(is.na(y), "grey40", col[as.integer(y)])
  graphics::points(x[, 1], x[, 2], col = point_col, pch = 19, cex = 0.8)
  # landmarks circled, as in paper 002, Fig. 2
  if (!is.null(landmarks)) graphics::points(landmarks[, 1], landmarks[, 2], pch = 1, cex = 1.8, lwd = 2, col = "red")
  graphics::legend("topright", legend = levels, col = col, pch = 19, bg = "white", cex = 0.8)
}

# The points drawn under decision regions: those of `data` (coloured by its
# response for formula fits), else the training data the fit kept, else its
# landmarks (Nystroem fits keep no training data); in the original units.
plot_points <- function(fit, data) {
  if (!is.null(data)) {
    x <- new_inputs(fit$spec, data, scaled = FALSE)$x
    return(list(x = x, y = data_response(fit, data, nrow(x))))
  }
  # a fit with a spectrum correction keeps its training points in the correction
  points <- fit$x %||% fit$spec$spectrum$points
  if (!is.null(points)) return(list(x = unscale_columns(fit$spec$scaling, points), y = fit$y))
  list(x = unscale_columns(fit$spec$scaling, fit$landmarks$points), y = fit$landmarks$class)
}

# Points in discriminant coordinates (kfda, onda): histograms for one
# coordinate, a scatter of the first two with the class means otherwise.
plot_projection <- function(projection, y, main, class_means = NULL, ...) {
  levels <- levels(y)
  col <- hcl.colors(length(levels), "Dark 3")
  if (ncol(projection) == 1L) {
    breaks <- pretty(range(projection), 30)
    h <- lapply(levels, function(l) graphics::hist(projection[y == l, 1], breaks = breaks, plot = FALSE))
    graphics::plot(range(breaks), c(0, max(vapply(h, function(v) max(v$density), numeric(1)))),
                   type = "n", xlab = colnames(projection)[1], ylab = "density", main = main, ...)
    for (j in seq_along(h)) {
      graphics::lines(h[[j]], freq = FALSE, col = grDevices::adjustcolor(col[j], 0.4), border = col[j])
    }
    graphics::legend("topright", legend = levels, fill = grDevices::adjustcolor(col, 0.4), bty = "n")
    return(invisible())
  }
  graphics::plot(projection[, 1], projection[, 2], col = col[as.integer(y)], pch = 19, cex = 0.7,
                 xlab = colnames(projection)[1], ylab = colnames(projection)[2], main = main, ...)
  means <- if (!is.null(class_means)) class_means[, 1:2, drop = FALSE] else
    apply(projection[, 1:2, drop = FALSE], 2, function(v) tapply(v, y, mean))
  graphics::points(means[, 1], means[, 2], pch = 23, cex = 2, bg = col, col = "black")
  graphics::legend("topright", legend = levels, col = col, pch = 19, bg = "white", cex = 0.8)
  invisible()
}

#' The grid along one axis of a 2-D plot: the data's range padded by 5% on
#' each side; a range of width zero (one point, identical points) is widened
#' to +-1 (or +-5% of the value), as base graphics widen a flat range. Data
#' so large that the padded range is not finite cannot be drawn.
#' @noRd
plot_grid_axis <- function(v, resolution) {
  lo <- min(v)
  hi <- max(v)
  pad <- 0.05 * (hi - lo)
  if (!is.finite(pad) || pad == 0) pad <- if (is.finite(pad)) max(1, 0.05 * abs(lo)) else Inf
  if (!is.finite(lo - pad) || !is.finite(hi + pad)) {
    krein_abort(sprintf("The points to plot span [%s, %s], too wide to draw a grid over in double precision; rescale them.",
                        format(lo, digits = 3), format(hi, digits = 3)))
  }
  seq(lo - pad, hi + pad, length.out = resolution)
}
