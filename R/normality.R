# kernel_normality(): Kolmogorov-Smirnov tests of the kernel data's columns
# per class, with print and plot.

#' How Gaussian are the kernel data? Kolmogorov-Smirnov tests per column
#'
#' Huang, Hwang and Lin (2005), Sec. 3, Example 1: Fisher's discriminant
#' analysis assumes Gaussian classes, and data mapped
#' to their kernel data \eqn{K_x = (k(x, x_1), \dots, k(x, x_n))} -- the
#' Aronszajn map (eq. 7) discretised at the points themselves -- are far
#' closer to Gaussian than many raw data. This function tests each column of
#' the original data and each column of the kernel data \eqn{K} for normality
#' with the one-sample Kolmogorov-Smirnov test ([stats::ks.test()]) of the
#' standardised column (mean 0, standard deviation 1) against the standard
#' normal, as the paper does, and summarises the p-values as the paper
#' reports them: the average, the best four, the median four and the worst
#' four.
#'
#' The p-values are descriptive: the mean and standard deviation are estimated
#' from the column (the classical test assumes them known), which makes them
#' conservative. Ties (a kernel with compact support, such as
#' [kernel_epanechnikov()], gives many zeros) make them approximate; the
#' corresponding [stats::ks.test()] warning is not repeated for every column.
#' A constant column has no p-value (`NA`).
#'
#' With `scale = TRUE` (the default, as in the models) the kernel data are
#' those of the columns centred and scaled, as a model computes them;
#' Huang, Hwang and Lin use the data as given (`scale = FALSE`). The tests of
#' the original columns standardise them either way.
#'
#' @param x A numeric matrix or data frame of points (one per row), or a
#'   precomputed kernel ([precomputed_kernel()]), in which case only the
#'   kernel data are tested.
#' @param kernel A kernel (see [kernel_rbf()]); ignored for precomputed
#'   kernels.
#' @param threads Threads for the kernel evaluation.
#' @inheritParams krein_inputs
#' @returns An object of class `krein_normality`: a list with `original` and
#'   `kernel`, the p-values per column (`original` is `NULL` for a precomputed
#'   kernel), `kernel` description, and the standardised columns needed by
#'   [plot()][plot.krein_normality] (the best, median and worst four of
#'   each).
#' @references
#' Huang, S.-Y., Hwang, C.-R. and Lin, M.-H. (2005). Kernel Fisher's
#' discriminant analysis in Gaussian reproducing kernel Hilbert space.
#' Manuscript, Institute of Statistical Science, Academia Sinica, Taipei.
#' @family kernel Fisher discriminant on the kernel data
#' @examples
#' # Huang, Hwang and Lin (2005), Example 1: 200 points in 50 dimensions,
#' # exponential coordinates
#' set.seed(1)
#' x <- matrix(rexp(200 * 50), 200, 50)
#' normality <- kernel_normality(x, kernel_rbf(gamma = 0.5 / 10^2), scale = FALSE)
#' normality
#' plot(normality)
#' @export
kernel_normality <- function(x, kernel = kernel_rbf(), threads = NULL, scale = TRUE) {
  threads <- check_threads(threads)
  scale <- check_flag(scale, "scale")
  if (inherits(x, "krein_precomputed")) {
    K <- check_symmetric_matrix(x$K, "x")
    original <- NULL
    kernel <- NULL
  } else {
    x <- check_finite_matrix(as_numeric_matrix(x, "x"), "x")
    if (nrow(x) < 3L) krein_abort(sprintf("`x` must have at least 3 rows to test normality, not %d.", nrow(x)))
    kernel <- as_krein_kernel(kernel)
    # the kernel data of the columns as a model with the same `scale` sees them (R/inputs.R)
    scaling <- input_scaling(x, kernel, list(), scale)
    scaled <- scale_columns(scaling, x)
    kernel <- resolve_kernel(kernel, scaled, scaling)
    check_kernel_dimension(kernel, ncol(x))
    K <- evaluate_kernel(kernel, scaled, NULL, threads)
    original <- standardised_columns(x)
  }
  kernel_columns <- standardised_columns(K)
  colnames(kernel_columns) <- paste0("k(., x", seq_len(ncol(K)), ")")
  structure(
    list(original = if (!is.null(original)) column_ks_pvalues(original),
         kernel = column_ks_pvalues(kernel_columns),
         kernel_label = kernel_description(kernel),
         shown = list(original = if (!is.null(original)) ranked_columns(original),
                      kernel = ranked_columns(kernel_columns))),
    class = "krein_normality"
  )
}

standardised_columns <- function(x) {
  if (is.null(colnames(x))) colnames(x) <- paste0("x", seq_len(ncol(x)))
  center <- colMeans(x)
  sd <- sqrt(colSums((x - rep(center, each = nrow(x)))^2) / (nrow(x) - 1))
  z <- (x - rep(center, each = nrow(x))) / rep(sd, each = nrow(x))
  z[, !(sd > 0)] <- NA
  z
}

column_ks_pvalues <- function(z) {
  p <- apply(z, 2, function(v) {
    if (anyNA(v)) return(NA_real_)
    withCallingHandlers(stats::ks.test(v, "pnorm")$p.value,
                        warning = function(w) if (grepl("ties", conditionMessage(w))) invokeRestart("muffleWarning"))
  })
  stats::setNames(as.double(p), colnames(z))
}

# The best, median and worst four columns by p-value, standardised (for plot)
ranked_columns <- function(z) {
  p <- column_ks_pvalues(z)
  order_p <- order(p, decreasing = TRUE, na.last = NA)
  k <- length(order_p)
  if (k == 0L) return(NULL)  # every column constant: nothing to show
  take <- min(4L, k)
  middle <- max(1L, floor((k - take) / 2) + 1L)
  picks <- list(best = order_p[seq_len(take)],
                median = order_p[middle:(middle + take - 1L)],
                worst = rev(order_p[(k - take + 1L):k]))
  lapply(picks, function(j) z[, j, drop = FALSE])
}

normality_summary <- function(p) {
  p <- p[!is.na(p)]
  sorted <- sort(p, decreasing = TRUE)
  k <- length(sorted)
  take <- min(4L, k)
  middle <- max(1L, floor((k - take) / 2) + 1L)
  list(average = mean(p), sd = if (k > 1) stats::sd(p) else NA_real_,
       best = sorted[seq_len(take)], median = sorted[middle:(middle + take - 1L)],
       worst = sorted[(k - take + 1L):k])
}

#' @export
print.krein_normality <- function(x, ...) {
  cat("Kolmogorov-Smirnov p-values per column (Huang, Hwang and Lin 2005,",
      "Example 1)\n")
  show <- function(label, p) {
    s <- normality_summary(p)
    cat(sprintf("%s, %d columns\n", label, length(p)))
    cat(sprintf("  average  %.4f (sd %.4f)\n", s$average, s$sd))
    cat("  best 4  ", sprintf("%.4f", s$best), "\n")
    cat("  median 4", sprintf("%.4f", s$median), "\n")
    cat("  worst 4 ", sprintf("%.4f", s$worst), "\n")
  }
  if (!is.null(x$original)) show("original data", x$original)
  show(paste0("kernel data, ", x$kernel_label), x$kernel)
  invisible(x)
}

#' Normal probability plots of the best, median and worst columns
#'
#' The figures of Huang, Hwang and Lin (2005), Example 1 (Figs. 1-9): normal
#' Q-Q plots of the
#' four columns closest to Gaussian, the four median ones and the four
#' farthest, standardised, with the identity line; one row for the original
#' data and one for the kernel data.
#'
#' @param x A `krein_normality` object from [kernel_normality()].
#' @param ... Passed to [graphics::plot()].
#' @references
#' Huang, S.-Y., Hwang, C.-R. and Lin, M.-H. (2005). Kernel Fisher's
#' discriminant analysis in Gaussian reproducing kernel Hilbert space.
#' Manuscript, Institute of Statistical Science, Academia Sinica, Taipei.
#' @returns `x`, invisibly.
#' @family kernel Fisher discriminant on the kernel data
#' @examples
#' set.seed(1)
#' train <- sine_populations(50)
#' normality <- kernel_normality(train[, 1:2], kernel_rbf(5))
#' plot(normality)
#' @export
plot.krein_normality <- function(x, ...) {
  rows <- Filter(Negate(is.null), list(`original data` = x$shown$original, `kernel data` = x$shown$kernel))
  if (length(rows) == 0L) {
    krein_abort("There is nothing to plot: every column of the data and of the kernel data is constant, so none has a normal probability plot.")
  }
  old <- graphics::par(mfrow = c(length(rows), 3L), mar = c(4, 4, 2.5, 1))
  on.exit(graphics::par(old))
  col <- hcl.colors(4, "Dark 3")
  for (label in names(rows)) {
    for (which in c("best", "median", "worst")) {
      z <- rows[[label]][[which]]
      q <- lapply(seq_len(ncol(z)), function(j) stats::qqnorm(z[, j], plot.it = FALSE))
      lim <- range(unlist(lapply(q, unlist)), finite = TRUE)
      graphics::plot(lim, lim, type = "n", xlab = "normal quantile", ylab = "standardised column",
                     main = sprintf("%s: %s %d", label, which, ncol(z)), ...)
      graphics::abline(0, 1, col = "grey50", lty = 2)
      for (j in seq_along(q)) graphics::points(q[[j]]$x, q[[j]]$y, col = col[j], pch = 20, cex = 0.6)
    }
  }
  invisible(x)
}
