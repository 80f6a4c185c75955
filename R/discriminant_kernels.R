# Discriminant kernels built from class posteriors (kernel_discriminant():
# the DK of an onda() fit or any classifier, its linear and Gaussian forms,
# the marginalised kernel, the ideal kernel of the labels), and the plots of
# a kernel matrix and of a kernel map.

#' Discriminant kernels: kernels that carry the class information
#'
#' The dual of ONDA's eigenproblem (Hidaka and Kurita 2016, Sec. 4) shows
#' that ONDA is kernel discriminant analysis with the
#' discriminant kernel (DK, eq. 42)
#' \deqn{K(x, x') = \sum_k P(C_k | x) P(C_k | x') / P(C_k) = B(x)' \Psi^{-1} B(x'),}
#' a Mercer kernel (Sec. 4.2) built from posteriors. Each posterior estimator
#' gives one (`kind`):
#' * `"dk"`: the posteriors of the `onda()` fit itself (Gaussian, linear,
#'   SVM, a function or a model), or of any classifier with
#'   `predict(type = "prob")`;
#' * `"ldk"`: the linear discriminant kernel (eq. 53), the DK of the linear
#'   approximation \eqn{L(C_k | x)} of eq. (23), equal to \eqn{(x - \bar
#'   x_T)' \Sigma_T^{-1} \Sigma_B \Sigma_T^{-1} (x' - \bar x_T) + 1};
#' * `"gdk"`: the Gaussian discriminant kernel (eq. 55), the DK of the
#'   Gaussian posteriors of eq. (33);
#' * `"gmk"`: Tsuda's marginalised kernel with the class as hidden variable
#'   (eq. 50), \eqn{\sum_k P(C_k | x) P(C_k | x') x' \Sigma_k^{-1} x'}, with
#'   Gaussian posteriors and the class covariances of eq. (31);
#' * `"ideal"`: the DK of the true labels, one-hot posteriors (the left
#'   columns of Figs. 4-5), defined on the training points only.
#'
#' The statistics (means, covariances, priors) come from the training data of
#' the `onda()` fit. The result is a `krein_kernel`: [kernel_matrix()]
#' evaluates it and every krein model accepts it. It takes points in the
#' original units of the `onda()` fit's data and applies that fit's scaling
#' itself, so a model given it does not scale its inputs, whatever its
#' `scale` (see "Objects fitted on data keep their units" in [krein_inputs]). For kernlab's SVM (the
#' paper's DK-SVM), pass kernel matrices: `kernlab::ksvm(kernlab::as.kernelMatrix(K), y)`
#' and predict with `kernlab::as.kernelMatrix()` of the kernel between new
#' points and the support vectors (see the examples).
#'
#' @param fit An [onda()] fit; for `kind = "dk"` also any classifier whose
#'   `predict(fit, newdata, type = "prob")` gives posteriors (then `prior` is
#'   needed unless the fit has a `prior` element).
#' @param kind `"dk"`, `"ldk"`, `"gdk"`, `"gmk"` or `"ideal"`.
#' @param prior Class priors for a non-`onda` `fit`; ignored otherwise.
#' @returns A `krein_kernel` of name `"discriminant"`, with its `kind`.
#' @references
#' Hidaka, A. and Kurita, T. (2016). Optimum nonlinear discriminant analysis
#' and discriminant kernel support vector machine. *IEICE Transactions on
#' Information and Systems*, E99.D(11), 2734-2744.
#' \doi{10.1587/transinf.2016EDP7081}.
#' @family optimum nonlinear discriminant analysis
#' @examples
#' fit <- onda(Species ~ ., data = iris)
#' gdk <- kernel_discriminant(fit, "gdk")
#' x <- as.matrix(iris[, 1:4])
#' K <- kernel_matrix(gdk, x)
#' plot_kernel_matrix(K, iris$Species, main = "GDK, iris")
#' # a krein model with the discriminant kernel
#' kfit <- kqd(x, iris$Species, kernel = kernel_discriminant(fit, kind = "ldk"), variant = "RC+")
#' mean(predict(kfit, x) != iris$Species)
#' # the paper's DK-SVM through kernlab
#' if (requireNamespace("kernlab", quietly = TRUE)) {
#'   svm <- kernlab::ksvm(kernlab::as.kernelMatrix(K), iris$Species, kernel = "matrix")
#'   new <- x[c(1, 51, 101), ]
#'   K_new <- kernel_matrix(gdk, new, x[kernlab::SVindex(svm), , drop = FALSE])
#'   kernlab::predict(svm, kernlab::as.kernelMatrix(K_new))
#' }
#' @export
kernel_discriminant <- function(fit, kind = c("dk", "ldk", "gdk", "gmk", "ideal"), prior = NULL) {
  kind <- match_choice(kind, "kind", c("dk", "ldk", "gdk", "gmk", "ideal"))
  if (missing(fit)) krein_abort("`fit` is missing; give an onda() fit.")
  # what the plain DK reads from a classifier fit: `fit$prior`, `fit$levels`,
  # `fit$counts` (list-based S3 fits) and predict(fit, x, type = "prob")
  if (!is.list(fit) || isS4(fit) || is.data.frame(fit)) {
    krein_abort(sprintf("`fit` must be an onda() fit, or a list-based S3 classifier fit whose predict(fit, newdata, type = \"prob\") gives class posteriors; not %s.",
                        if (isS4(fit)) sprintf("an S4 object of class \"%s\"", class(fit)[1]) else describe_value(fit)))
  }
  if (!inherits(fit, "onda")) {
    if (kind != "dk") {
      krein_abort(sprintf("`fit` must be an onda() fit for kind = \"%s\"; other classifiers give only the plain discriminant kernel (kind = \"dk\").", kind))
    }
    return(model_discriminant_kernel(fit, prior))
  }
  prior <- fit$prior
  d <- ncol(fit$x)
  # the fit's own Gaussian or linear model where it has one (the same ridge)
  # (a Gaussian fit on more columns than points computes in the span of its
  # data, estimator$span: its posteriors serve the GDK, the GMK needs the
  # full model)
  reduced_gaussian <- identical(fit$posterior, "gaussian") && !is.null(fit$estimator$span)
  gaussian <- if (kind == "gmk" || (kind == "gdk" && !reduced_gaussian)) {
    fit$estimator$gaussian %||% onda_gaussian_classes(fit$x, fit$y, prior, fit$ridge, fit$pooling)
  }
  features <- switch(kind,
    dk = function(x) onda_posteriors(fit, x),
    ldk = {
      model <- fit$estimator$linear %||% linear_estimator(fit$x, fit$y, prior)$linear
      function(x) linear_posteriors(model, x)
    },
    gdk = if (reduced_gaussian) function(x) onda_posteriors(fit, x) else function(x) gaussian_posteriors(gaussian, x),
    gmk = function(x) gaussian_posteriors(gaussian, x),
    ideal = ideal_posteriors(fit)
  )
  evaluate <- if (kind == "gmk") {
    function(x, y) marginalised_kernel(gaussian, x, y)
  } else {
    function(x, y) posterior_kernel(features, prior, x, y)
  }
  # the kernel takes points in the original units; a fit with scale = TRUE
  # computes in its scaled ones
  scaling <- fit$spec$scaling
  if (!is.null(scaling)) {
    evaluate_scaled <- evaluate
    evaluate <- function(x, y) evaluate_scaled(scale_columns(scaling, x), scale_columns(scaling, y))
  }
  formula <- switch(kind,
    dk = sprintf("sum_k P(C_k|x) P(C_k|x') / P(C_k), %s posteriors (eq. 42)", fit$posterior),
    ldk = "(x - m)' S_T^-1 S_B S_T^-1 (x' - m) + 1 (eq. 53)",
    gdk = "sum_k P(C_k|x) P(C_k|x') / P(C_k), Gaussian posteriors (eq. 55)",
    gmk = "sum_k P(C_k|x) P(C_k|x') x' S_k^-1 x', Gaussian posteriors (eq. 50)",
    ideal = "sum_k 1[x in C_k] 1[x' in C_k] / P(C_k), training points only"
  )
  label <- switch(kind, dk = "discriminant kernel (DK)", ldk = "linear discriminant kernel (LDK)",
                  gdk = "Gaussian discriminant kernel (GDK)", gmk = "Gaussian marginalised kernel (GMK)",
                  ideal = "ideal discriminant kernel")
  # it takes the original units of the onda() fit's data, whatever the
  # `scale` of a model it is given to (data_units(), R/inputs.R)
  new_krein_kernel("discriminant", list(), label, formula, TRUE, kind = kind, dimension = d,
                   evaluate = evaluate, units = list(scaling = NULL))
}

model_discriminant_kernel <- function(fit, prior) {
  prior <- prior %||% fit$prior
  if (is.null(prior) && !is.null(fit$counts)) prior <- fit$counts / sum(fit$counts)
  levels <- fit$levels %||% names(prior)
  if (is.null(prior) || is.null(levels)) {
    krein_abort("`prior` is needed: `fit` is not an onda() fit and does not carry class priors.")
  }
  prior <- check_prior(unname(prior), levels, NULL)
  features <- function(x) {
    p <- tryCatch(stats::predict(fit, x, type = "prob"),
                  error = function(e) krein_abort(sprintf("predict(<fit>, newdata, type = \"prob\") failed: %s", conditionMessage(e))))
    check_posterior_matrix(p, nrow(x), levels, "`fit`'s predict(type = \"prob\")")
  }
  new_krein_kernel("discriminant", list(), "discriminant kernel (DK)",
                   sprintf("sum_k P(C_k|x) P(C_k|x') / P(C_k), posteriors of a %s fit (eq. 42)", class(fit)[1]),
                   TRUE, kind = "dk", dimension = NULL,
                   evaluate = function(x, y) posterior_kernel(features, prior, x, y),
                   units = list(scaling = NULL))
}

# B(x) Psi^-1 B(y)' (eqs. 42, 52)
posterior_kernel <- function(features, prior, x, y) {
  Fx <- features(x) / rep(sqrt(prior), each = nrow(x))
  Fy <- if (is.null(y)) Fx else features(y) / rep(sqrt(prior), each = nrow(y))
  tcrossprod(Fx, Fy)
}

# sum_k B_k(x) B_k(y) x' S_k^-1 y (eq. 50)
marginalised_kernel <- function(model, x, y) {
  Bx <- gaussian_posteriors(model, x)
  By <- if (is.null(y)) Bx else gaussian_posteriors(model, y)
  yy <- if (is.null(y)) x else y
  K <- matrix(0, nrow(x), nrow(yy))
  for (k in seq_along(model$factors)) {
    R <- model$factors[[k]]
    Zx <- t(backsolve(R, t(x), transpose = TRUE)) * Bx[, k]
    Zy <- if (is.null(y)) Zx else t(backsolve(R, t(yy), transpose = TRUE)) * By[, k]
    K <- K + tcrossprod(Zx, Zy)
  }
  K
}

# One-hot posteriors of training points, looked up by their exact rows
ideal_posteriors <- function(fit) {
  keys <- apply(fit$x, 1, function(r) paste(format(r, digits = 17), collapse = "|"))
  labels <- as.integer(fit$y)
  K <- length(fit$levels)
  function(x) {
    k <- apply(x, 1, function(r) paste(format(r, digits = 17), collapse = "|"))
    rows <- match(k, keys)
    if (anyNA(rows)) {
      krein_abort(sprintf("The ideal discriminant kernel is defined on the training points only; row%s %s of the input %s not training points.",
                          if (sum(is.na(rows)) > 1) "s" else "", format_indices(which(is.na(rows))),
                          if (sum(is.na(rows)) > 1) "are" else "is"))
    }
    B <- matrix(0, length(rows), K)
    B[cbind(seq_along(rows), labels[rows])] <- 1
    B
  }
}

#' Display a kernel matrix sorted by class
#'
#' The kernel matrices of Hidaka and Kurita (2016), Figs. 4-5: rows and
#' columns sorted by class, brighter for larger values, with lines between the
#' classes. A
#' kernel that carries the class information shows bright diagonal blocks.
#'
#' @param K A square kernel matrix (for example from [kernel_matrix()]).
#' @param y Class labels of its rows, or `NULL` to keep the order.
#' @param main A title.
#' @param col Colours from low to high values.
#' @param ... Passed to [graphics::image()].
#' @returns The order of the rows used, invisibly.
#' @references
#' Hidaka, A. and Kurita, T. (2016). Optimum nonlinear discriminant analysis
#' and discriminant kernel support vector machine. *IEICE Transactions on
#' Information and Systems*, E99.D(11), 2734-2744.
#' \doi{10.1587/transinf.2016EDP7081}.
#' @family optimum nonlinear discriminant analysis
#' @examples
#' fit <- onda(Species ~ ., data = iris)
#' x <- as.matrix(iris[, 1:4])
#' old <- par(mfrow = c(1, 2))
#' plot_kernel_matrix(kernel_matrix(kernel_rbf(), x), iris$Species, main = "RBF")
#' plot_kernel_matrix(kernel_matrix(kernel_discriminant(fit, "gdk"), x), iris$Species, main = "GDK")
#' par(old)
#' @export
plot_kernel_matrix <- function(K, y = NULL, main = NULL, col = grDevices::grey.colors(64, 0, 1), ...) {
  K <- check_square_matrix(as_numeric_matrix(K, "K", allow_vector = FALSE), "K")
  n <- nrow(K)
  order <- seq_len(n)
  if (!is.null(y)) {
    if (length(y) != n) krein_abort(sprintf("`y` must have one label per row of `K` (%d), not %d.", n, length(y)))
    y <- factor(y)
    order <- order(as.integer(y), seq_len(n))
  }
  sorted <- K[order, order, drop = FALSE]
  # image() draws column j of its matrix at x = j; flip so row 1 is on top
  graphics::image(seq_len(n), seq_len(n), t(sorted)[, n:1, drop = FALSE], col = col, axes = FALSE,
                  xlab = "", ylab = "", main = main, useRaster = TRUE, ...)
  if (!is.null(y)) {
    bounds <- cumsum(table(y))
    bounds <- bounds[-length(bounds)] + 0.5
    graphics::abline(v = bounds, h = n + 1 - bounds, col = "red", lwd = 1)
    centres <- (c(0, cumsum(table(y)))[-(nlevels(y) + 1)] + cumsum(table(y))) / 2 + 0.5
    graphics::axis(1, at = centres, labels = levels(y), tick = FALSE)
    graphics::axis(2, at = n + 1 - centres, labels = levels(y), tick = FALSE, las = 1)
  }
  graphics::box()
  invisible(order)
}

#' Map the kernel values from a fixed point over the plane
#'
#' Hidaka and Kurita (2016), Fig. 1: the similarity \eqn{k(p, x)} of every
#' location \eqn{x} of a 2-D input space to a fixed point \eqn{p}, brighter
#' for larger values,
#' with the data drawn on top (one symbol per class) and \eqn{p} as a large
#' filled marker. An RBF kernel gives circles; a discriminant kernel follows
#' the decision boundary.
#'
#' @param kernel A kernel (see [kernel_rbf()], [kernel_discriminant()]).
#' @param point The fixed point, a numeric vector of length 2.
#' @param x A two-column matrix or data frame of points that sets the plotted
#'   region and is drawn on top.
#' @param y Their class labels (optional).
#' @param resolution Grid points per axis.
#' @param main A title.
#' @param col Colours from low to high values.
#' @param ... Passed to [graphics::image()].
#' @returns The grid of kernel values (a `resolution` x `resolution` matrix),
#'   invisibly.
#' @references
#' Hidaka, A. and Kurita, T. (2016). Optimum nonlinear discriminant analysis
#' and discriminant kernel support vector machine. *IEICE Transactions on
#' Information and Systems*, E99.D(11), 2734-2744.
#' \doi{10.1587/transinf.2016EDP7081}.
#' @family optimum nonlinear discriminant analysis
#' @examples
#' set.seed(1)
#' x <- rbind(matrix(rnorm(100, 0, 1), 50), matrix(rnorm(100, 2.5, 0.6), 50))
#' y <- factor(rep(1:2, each = 50))
#' fit <- onda(x, y)
#' old <- par(mfrow = c(1, 2))
#' plot_kernel_map(kernel_rbf(0.5), colMeans(x[y == 1, ]), x, y, main = "RBF")
#' plot_kernel_map(kernel_discriminant(fit, "gdk"), colMeans(x[y == 1, ]), x, y, main = "GDK")
#' par(old)
#' @export
plot_kernel_map <- function(kernel, point, x, y = NULL, resolution = 100L, main = NULL,
                            col = grDevices::grey.colors(64, 0, 1), ...) {
  kernel <- as_krein_kernel(kernel)
  x <- check_finite_matrix(as_numeric_matrix(x, "x"), "x")
  if (ncol(x) != 2L) krein_abort(sprintf("`x` must have two columns (a plane), not %d.", ncol(x)))
  if (!is.numeric(point) || length(point) != 2L || anyNA(point)) {
    krein_abort(sprintf("`point` must be a numeric vector of length 2, not %s.", describe_value(point)))
  }
  if (!all(is.finite(point))) {
    krein_abort(sprintf("`point` must be finite, not c(%s).", paste(vapply(point, format, "", digits = 7), collapse = ", ")))
  }
  resolution <- check_number(resolution, "resolution", lower = 2, allow_lower = TRUE, integer = TRUE)
  # a kernel fitted on data receives the points in its units (R/inputs.R)
  scaling <- input_scaling(x, kernel, list(), scale = FALSE)
  kernel <- resolve_kernel(kernel, scale_columns(scaling, x))
  g1 <- plot_grid_axis(x[, 1], resolution)
  g2 <- plot_grid_axis(x[, 2], resolution)
  grid <- as.matrix(expand.grid(g1, g2))
  colnames(grid) <- colnames(x)
  anchor <- matrix(point, 1L, dimnames = list(NULL, colnames(x)))
  values <- matrix(evaluate_kernel(kernel, scale_columns(scaling, grid), scale_columns(scaling, anchor))[, 1],
                   resolution, resolution)
  if (!all(is.finite(values))) {
    krein_abort(sprintf("The kernel is not finite between `point` and %d of the %d grid points of the plane; nothing can be drawn.",
                        sum(!is.finite(values)), length(values)))
  }
  graphics::image(g1, g2, values, col = col, xlab = colnames(x)[1] %||% "x1",
                  ylab = colnames(x)[2] %||% "x2", main = main, ...)
  pch <- if (is.null(y)) rep(1, nrow(x)) else c(1, 2, 0, 5, 6)[(as.integer(factor(y)) - 1) %% 5 + 1]
  graphics::points(x[, 1], x[, 2], pch = pch, col = "red", cex = 0.7)
  graphics::points(point[1], point[2], pch = 21, bg = "red", col = "black", cex = 2.2)
  invisible(values)
}
