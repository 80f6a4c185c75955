# indefiniteness(): how indefinite a kernel matrix is (its spectrum, its
# signature and the share of negative eigenvalue mass, optionally of the
# centred matrix), with print and plot.

#' How indefinite is a kernel matrix?
#'
#' The eigenvalue spectrum of a symmetric kernel matrix and the indices of
#' indefiniteness of Pekalska and Haasdonk (2009, Sec. V-B, Table V): the
#' signature \eqn{(p, q)} of the pseudo-Euclidean
#' (Krein) space the data embed into, here with the number \eqn{z} of
#' eigenvalues counted as zero, and the share of negative eigenvalue mass
#' \deqn{r_{neg} = \sum_{\lambda_i < 0} |\lambda_i| / \sum_i |\lambda_i|.}
#'
#' An eigenvalue counts as zero when \eqn{|\lambda| \le} `tol` \eqn{\times
#' \max_i |\lambda_i|}. The default, `tol = n * .Machine$double.eps`, is the
#' usual numerical-rank tolerance (the one of MATLAB's `rank()`): eigenvalues
#' below it are indistinguishable from rounding errors of the eigensolver.
#' (Their Table V counts every eigenvalue as positive or negative, so
#' \eqn{p + q = n} there.) `r_neg` uses every eigenvalue, as in the paper.
#'
#' The eigenvalues come from LAPACK's `dsyevr` through the LAPACK R is linked
#' against.
#'
#' @param K A symmetric numeric matrix, such as a training kernel matrix from
#'   [kernel_matrix()] or a `krein_precomputed` object.
#' @param center If `TRUE`, analyse the centred matrix \eqn{HKH}, \eqn{H = I -
#'   \frac1n 1 1^\top}: the spectrum of the data around their mean in the
#'   feature space.
#' @param tol The relative tolerance below which an eigenvalue counts as zero.
#' @returns An object of class `krein_indefiniteness`: a list with `values`
#'   (the eigenvalues, decreasing), `signature` (named integer vector `p`, `q`,
#'   `z`), `r_neg`, `tol` and `center`. It has `print()` and `plot()` methods.
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (Sections, equations and tables are cited
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#' @family kernels
#' @examples
#' set.seed(1)
#' board <- checkerboard(100)
#' K <- kernel_matrix(kernel_invariant(kernel_dist(s = 1, power = 4)),
#'                    board[, c("x1", "x2")])
#' ind <- indefiniteness(K)
#' ind
#' plot(ind)
#' @export
indefiniteness <- function(K, center = FALSE, tol = NULL) {
  if (inherits(K, "krein_precomputed")) K <- K$K
  K <- check_symmetric_matrix(K, "K")
  check_flag(center, "center")
  n <- nrow(K)
  if (is.null(tol)) tol <- n * .Machine$double.eps
  tol <- check_number(tol, "tol", lower = 0, allow_lower = TRUE)
  if (center) K <- double_center(K)
  values <- with_core_errors("Computing the eigenvalues of the kernel matrix", cpp_symmetric_eigen(K, FALSE))$values
  if (!all(is.finite(values))) {
    krein_abort(sprintf(
      "The eigenvalues of `K` overflow double precision (its largest entry is %s in absolute value); divide `K` by a constant first: the signature and `r_neg` do not change.",
      format(max(abs(K)), digits = 3)))
  }
  scale <- max(abs(values))
  zero <- abs(values) <= tol * scale
  signature <- c(p = sum(values > 0 & !zero), q = sum(values < 0 & !zero), z = sum(zero))
  r_neg <- if (scale > 0) sum(abs(values[values < 0])) / sum(abs(values)) else 0
  structure(
    list(values = values, signature = signature, r_neg = r_neg, tol = tol, center = center),
    class = "krein_indefiniteness"
  )
}

#' H K H with H = I - 11'/n, without forming H
#' @noRd
double_center <- function(K) {
  row_means <- rowMeans(K)
  col_means <- colMeans(K)
  K - outer(row_means, rep(1, ncol(K))) - outer(rep(1, nrow(K)), col_means) + mean(K)
}

#' @export
print.krein_indefiniteness <- function(x, ...) {
  n <- length(x$values)
  cat("<indefiniteness> ", n, " x ", n, if (x$center) " centred" else "", " kernel matrix\n",
      sep = "")
  cat("  signature (p, q, z): (", x$signature[["p"]], ", ", x$signature[["q"]], ", ",
      x$signature[["z"]], ")\n", sep = "")
  cat("  r_neg: ", format(x$r_neg, digits = 4), if (x$r_neg == 0) " (positive semidefinite)" else "",
      "\n", sep = "")
  rng <- range(x$values)
  cat("  eigenvalues from ", format(rng[1], digits = 4), " to ", format(rng[2], digits = 4), "\n",
      sep = "")
  invisible(x)
}

#' Plot a kernel's eigenvalue spectrum
#'
#' The eigenvalues in decreasing order; negative ones in a second colour, so
#' that the negative part of an indefinite spectrum is visible, with the zero
#' line.
#'
#' @param x A `krein_indefiniteness` object.
#' @param log If `TRUE`, plot \eqn{|\lambda|} on a log scale, negative values
#'   still in their own colour.
#' @param col Two colours: positive and negative eigenvalues.
#' @param main,... Passed to [graphics::plot()].
#' @returns `x`, invisibly.
#' @family kernels
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(200), ncol = 2)
#' spectrum <- indefiniteness(kernel_matrix(kernel_tanh(scale = 1, offset = -1), x))
#' plot(spectrum)
#' plot(spectrum, log = TRUE)
#' @export
plot.krein_indefiniteness <- function(x, log = FALSE, col = rev(hcl.colors(2, "Dark 3")),
                                      main = NULL, ...) {
  check_flag(log, "log")
  if (length(col) < 2L) {
    krein_abort(sprintf("`col` must give two colours (positive, negative), not %s.", describe_value(col)))
  }
  values <- x$values
  negative <- values < 0
  if (is.null(main)) {
    main <- sprintf("Spectrum: (p, q, z) = (%d, %d, %d), r_neg = %.3f", x$signature[["p"]],
                    x$signature[["q"]], x$signature[["z"]], x$r_neg)
  }
  index <- seq_along(values)
  if (log) {
    shown <- abs(values)
    keep <- shown > 0
    if (!any(keep)) {
      krein_abort("`log = TRUE` needs a nonzero eigenvalue, but every eigenvalue of this spectrum is zero; plot it with `log = FALSE`.")
    }
    graphics::plot(index[keep], shown[keep], log = "y", type = "h",
                   col = ifelse(negative[keep], col[2], col[1]), xlab = "index",
                   ylab = "|eigenvalue|", main = main, ...)
  } else {
    graphics::plot(index, values, type = "h", col = ifelse(negative, col[2], col[1]),
                   xlab = "index", ylab = "eigenvalue", main = main, ...)
    graphics::abline(h = 0, col = "grey60")
  }
  graphics::legend("topright", legend = c("positive", "negative"), col = col, lwd = 2,
                   bty = "n")
  invisible(x)
}
