# Precomputed kernels and dissimilarity data: how a user gives krein kernel
# values instead of data, once, for every model.

#' Precomputed kernel matrices
#'
#' Every krein model can be fitted on a kernel matrix instead of data, and
#' predict from a kernel matrix instead of new data:
#'
#' * **fit**: pass the \eqn{n \times n} symmetric training kernel
#'   \eqn{K_{ij} = k(x_i, x_j)} as `x` with `kernel = "precomputed"`, or wrap it
#'   as `precomputed_kernel(K)` (then `kernel` need not be given);
#' * **predict**: pass the \eqn{n_{new} \times n} matrix \eqn{k(x_{new,i},
#'   x_j)} of new points against the training points, in the training order,
#'   as `newdata`. Methods based on kernel-induced distances (for example the
#'   RC variants of kernel quadratic discriminants) also need the
#'   self-similarities \eqn{k(x_{new,i}, x_{new,i})} of the new points: give
#'   them as `precomputed_kernel(K_new, self = ...)`.
#'
#' Dissimilarity data are converted by [kernel_from_dissimilarity()], which
#' returns a `krein_precomputed` object that also knows how to convert test
#' dissimilarities.
#'
#' @param K A numeric matrix of kernel values: \eqn{n \times n} and symmetric
#'   for training, \eqn{n_{new} \times n} for prediction.
#' @param self `NULL`, or the self-similarities \eqn{k(x_i, x_i)} of the rows
#'   of `K`, one per row. For a square symmetric `K` the default is its
#'   diagonal.
#' @returns An object of class `krein_precomputed`: a list with `K` and `self`.
#' @family kernels
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(20), ncol = 2)
#' K <- kernel_matrix(kernel_rbf(gamma = 1), x)
#' pk <- precomputed_kernel(K)
#' pk
#' # test points against the training points, with their self-similarities
#' x_new <- matrix(rnorm(4), ncol = 2)
#' precomputed_kernel(kernel_matrix(kernel_rbf(gamma = 1), x_new, x),
#'                    self = rep(1, 2))
#' @export
precomputed_kernel <- function(K, self = NULL) {
  if (inherits(K, "krein_precomputed")) {
    if (!is.null(self)) K$self <- check_self(self, nrow(K$K))
    return(K)
  }
  if (is.data.frame(K)) K <- as.matrix(K)
  if (!is.matrix(K) || !(is.numeric(K) || is.logical(K))) {
    krein_abort(sprintf("`K` must be a numeric matrix of kernel values, not %s.", describe_value(K)))
  }
  if (nrow(K) == 0L || ncol(K) == 0L) krein_abort("`K` must have at least one row and one column.")
  storage.mode(K) <- "double"
  check_finite_matrix(K, "K")
  if (is.null(self)) {
    if (nrow(K) == ncol(K) && asymmetry(K) <= symmetry_tolerance()) self <- unname(diag(K))
  } else {
    self <- check_self(self, nrow(K))
  }
  new_precomputed(K, self)
}

new_precomputed <- function(K, self, ..., class = character()) {
  structure(list(K = K, self = self, ...), class = c(class, "krein_precomputed"))
}

check_self <- function(self, n) {
  if (!is.numeric(self) || length(self) != n || anyNA(self) || any(!is.finite(self))) {
    krein_abort(sprintf("`self` must be %d finite numbers, one self-similarity per row of `K`, not %s.",
                        n, describe_value(self)))
  }
  as.double(self)
}

#' @export
print.krein_precomputed <- function(x, ...) {
  square <- nrow(x$K) == ncol(x$K) && asymmetry(x$K) <= symmetry_tolerance()
  cat("<precomputed kernel> ", nrow(x$K), " x ", ncol(x$K),
      if (square) " symmetric (training)" else " (new points against training points)",
      if (!is.null(x$self)) ", with self-similarities" else "", "\n", sep = "")
  invisible(x)
}

#' @export
as.matrix.krein_precomputed <- function(x, ...) x$K

#' Kernels from dissimilarity data
#'
#' Turns an \eqn{n \times n} matrix of dissimilarities \eqn{d(x_i, x_j)} --
#' edit, Hausdorff, alignment or any other distances, metric or not -- into a
#' training kernel, remembering what it needs to convert the dissimilarities
#' of new objects to the training objects in the same way (with [predict()]).
#'
#' * `method = "negsq"` (Pekalska and Haasdonk 2009, Sec. V-C):
#'   \eqn{k(x, x') = -(d(x, x')/\bar d)^2},
#'   with \eqn{\bar d} the mean training dissimilarity over pairs \eqn{i \ne
#'   j}. The scaling only makes parameter ranges comparable across data sets.
#'   New objects: \eqn{-(d/\bar d)^2} with the same \eqn{\bar d}; their
#'   self-similarity is \eqn{0}.
#' * `method = "classical"` (classical scaling; Schleif, Gisbrecht and Tino
#'   2018, Sec. 2.2): \eqn{K = -\frac12 J D^{(2)} J},
#'   \eqn{J = I - \frac1n 1 1^\top}, \eqn{D^{(2)}} the squared dissimilarities:
#'   the Gram matrix around the mean of the pseudo-Euclidean embedding. It is
#'   positive semidefinite exactly when the dissimilarities are Euclidean
#'   distances. New objects with squared dissimilarities \eqn{a} to the training
#'   objects: \eqn{k_j = -\frac12 (a_j - \bar a - \bar c_j + \bar g)}, with
#'   \eqn{\bar a} the mean of \eqn{a}, \eqn{\bar c_j} the column means of
#'   \eqn{D^{(2)}} and \eqn{\bar g} its grand mean (Gower's formula, exact for
#'   Euclidean embeddings); self-similarity \eqn{\bar a - \bar g/2}.
#'
#' * `method = "gaussian"`: \eqn{k(x, x') = \exp(-\gamma\, d(x, x')^2)}, the
#'   Gaussian kernel with the dissimilarity in place of the Euclidean
#'   distance; with \eqn{d} the Euclidean distance it is [kernel_rbf()]. It is
#'   positive definite when \eqn{d} is a Euclidean distance (Schoenberg), and
#'   in general indefinite otherwise (edit distances, for instance). The
#'   default width is the median heuristic of [median_gamma()] applied to
#'   the dissimilarities: \eqn{\gamma = 1 / \mathrm{median}_{i < j,\, d_{ij} >
#'   0}\, d_{ij}^2}, the median over pairs of distinct training objects (pairs
#'   of identical objects are left out, as for `kernel_rbf()`), so that a
#'   typical pair has kernel value \eqn{e^{-1}}. New objects: \eqn{\exp(-\gamma
#'   d^2)} with the same \eqn{\gamma}; their self-similarity is \eqn{1}.
#'
#' The diagonal must be zero. An asymmetric matrix is replaced by
#' \eqn{(D + D^\top)/2} with a message.
#'
#' For objects (strings, sequences, point sets) and a function that computes
#' their dissimilarities, [kernel_dissimilarity()] makes the same conversions
#' a kernel that any krein model takes with the objects themselves as `x`,
#' and whose `gamma` [tune_krein()] can tune.
#'
#' @param D A square matrix of non-negative, finite dissimilarities with zero
#'   diagonal, or a `dist` object (such as [stats::dist()] returns).
#' @param method `"negsq"`, `"classical"` or `"gaussian"`, see Details.
#' @param gamma For `method = "gaussian"`: the width \eqn{\gamma > 0}, or
#'   `NULL` (the default) for the median heuristic (see Details). Not used by
#'   the other methods.
#' @returns An object of class `c("krein_dissimilarity", "krein_precomputed")`:
#'   a list with the training kernel `K`, its diagonal `self`, the `method` and
#'   what the conversion of new dissimilarities needs (for `"gaussian"`, the
#'   width `gamma` used). Pass it as `x` to any
#'   krein model.
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (Sections, equations and tables are cited
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#'
#' Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#' indefinite kernel approximation using minimum enclosing balls.
#' *Neurocomputing*, 318, 213-226. \doi{10.1016/j.neucom.2018.08.057}.
#' @family kernels
#' @seealso [predict.krein_dissimilarity()] for new objects,
#'   [indefiniteness()] for the spectrum of the result.
#' @examples
#' set.seed(1)
#' balls <- ball_dissimilarities(n_per_class = 20)
#' kd <- kernel_from_dissimilarity(balls$D, method = "classical")
#' indefiniteness(kd)
#' # dissimilarities of new objects to the training objects -> test kernel
#' predict(kd, balls$D[1:3, ])
#' # the Gaussian of the dissimilarities, exp(-gamma d^2)
#' kg <- kernel_from_dissimilarity(balls$D, method = "gaussian")
#' kg
#' all.equal(kg$K, exp(-kg$gamma * balls$D^2), check.attributes = FALSE)
#' @export
kernel_from_dissimilarity <- function(D, method = c("negsq", "classical", "gaussian"), gamma = NULL) {
  if (missing(D)) krein_abort("`D` is missing; give a square matrix of dissimilarities.")
  method <- match_choice(method, "method", c("negsq", "classical", "gaussian"))
  if (!is.null(gamma)) {
    gamma <- check_number(gamma, "gamma", lower = 0)
    if (method != "gaussian") {
      krein_abort(sprintf("`gamma` is the width of `method = \"gaussian\"`; method \"%s\" takes none.", method))
    }
  }
  if (inherits(D, "dist")) D <- as.matrix(D)  # stats::dist() and friends
  D <- check_square_matrix(D, "D")
  if (any(D < 0)) krein_abort("`D` must be non-negative; it has negative dissimilarities.")
  if (any(diag(D) != 0)) {
    krein_abort(sprintf("`D` must have a zero diagonal (d(x, x) = 0); %d diagonal entr%s not zero.",
                        sum(diag(D) != 0), if (sum(diag(D) != 0) == 1) "y is" else "ies are"))
  }
  symmetrised <- asymmetry(D) > symmetry_tolerance()
  if (symmetrised) {
    message("`D` is not symmetric; using (D + t(D)) / 2.")
    D <- (D + t(D)) / 2
  }
  n <- nrow(D)
  if (n < 2L) krein_abort("`D` must describe at least two objects.")
  if (method == "gaussian") {
    if (is.null(gamma)) gamma <- dissimilarity_median_gamma(D)
    K <- exp(-gamma * D^2)
    out <- new_precomputed(K, unname(diag(K)), method = method, n = n, gamma = gamma,
                           symmetrised = symmetrised, class = "krein_dissimilarity")
  } else if (method == "negsq") {
    mean_d <- sum(D) / (n * (n - 1))  # mean over i != j; the diagonal is zero
    if (mean_d <= 0) krein_abort("`D` is all zeros, so it cannot be scaled by its mean.")
    K <- -(D / mean_d)^2
    out <- new_precomputed(K, unname(diag(K)), method = method, n = n, mean_dissimilarity = mean_d,
                           symmetrised = symmetrised, class = "krein_dissimilarity")
  } else {
    D2 <- D^2
    col_means <- colMeans(D2)
    grand_mean <- mean(D2)
    K <- -0.5 * double_center(D2)
    K <- (K + t(K)) / 2  # exactly symmetric
    if (!all(is.finite(K))) {
      krein_abort(sprintf("Classical scaling squares the dissimilarities, and the squares of `D` (largest %s) overflow double precision; divide `D` by a constant first.",
                          format(max(D), digits = 3)))
    }
    out <- new_precomputed(K, unname(diag(K)), method = method, n = n, col_means = col_means,
                           grand_mean = grand_mean, symmetrised = symmetrised,
                           class = "krein_dissimilarity")
  }
  dimnames(out$K) <- dimnames(D)
  out
}

#' The median heuristic on dissimilarities: 1 / median of d^2 over pairs
#' i < j of distinct objects (d > 0), as median_gamma() takes it over squared
#' Euclidean distances. Computed on d / max(d) and rescaled, so that tiny and
#' huge dissimilarities neither underflow nor overflow when squared.
#' @noRd
dissimilarity_median_gamma <- function(D) {
  d <- D[upper.tri(D)]
  d <- d[d > 0]
  if (length(d) == 0L) {
    krein_abort("The dissimilarities are all zero, so no Gaussian width can be chosen from them; give `gamma`.")
  }
  scale <- max(d)
  gamma <- (1 / scale)^2 / stats::median((d / scale)^2)
  if (!is.finite(gamma) || gamma <= 0) {
    krein_abort(sprintf("The median-heuristic width of the dissimilarities (largest %s) is outside the range of double precision; rescale them or give `gamma`.",
                        format(scale, digits = 3)))
  }
  gamma
}

#' Convert dissimilarities of new objects into kernel values
#'
#' Applies the conversion of a [kernel_from_dissimilarity()] object to the
#' dissimilarities of new objects to the training objects, consistently with
#' the training kernel: converting the training dissimilarities themselves
#' gives back the training kernel.
#'
#' @param object A `krein_dissimilarity` object.
#' @param newdata An \eqn{n_{new} \times n} matrix of non-negative dissimilarities
#'   of new objects (rows) to the \eqn{n} training objects (columns, in the
#'   training order); a `dist` object is taken as its full matrix.
#' @param ... Unused.
#' @returns A `krein_precomputed` object with the \eqn{n_{new} \times n} kernel
#'   `K` and the self-similarities `self` of the new objects.
#' @family kernels
#' @examples
#' set.seed(1)
#' balls <- ball_dissimilarities(n_per_class = 10)
#' kd <- kernel_from_dissimilarity(balls$D)
#' all.equal(predict(kd, balls$D)$K, kd$K)
#' @export
predict.krein_dissimilarity <- function(object, newdata, ...) {
  if (missing(newdata)) krein_abort("`newdata` is missing; give the dissimilarities of new objects to the training objects.")
  if (inherits(newdata, "dist")) newdata <- as.matrix(newdata)  # the training objects themselves
  if (is.numeric(newdata) && is.null(dim(newdata)) && length(newdata) == object$n) {
    newdata <- matrix(newdata, nrow = 1L)  # one new object
  }
  D_new <- check_numeric_matrix(newdata, "newdata", allow_vector = FALSE)
  if (ncol(D_new) != object$n) {
    krein_abort(sprintf("`newdata` must have one column per training object (%d), not %d.",
                        object$n, ncol(D_new)))
  }
  if (any(D_new < 0)) krein_abort("`newdata` must be non-negative; it has negative dissimilarities.")
  converted <- convert_dissimilarities(object, D_new)
  # the fit refuses training dissimilarities whose squares overflow; new ones
  # must be refused too, not handed on as infinite kernel values
  if (!all(is.finite(converted$K)) || !all(is.finite(converted$self))) {
    krein_abort(sprintf("The \"%s\" conversion squares the dissimilarities, and those of `newdata` (largest %s) give kernel values beyond double precision; divide the training and the new dissimilarities by the same constant first.",
                        object$method, format(max(D_new), digits = 3)))
  }
  dimnames(converted$K) <- list(rownames(D_new), colnames(object$K))
  new_precomputed(converted$K, converted$self)
}

#' Kernel values and self-similarities of new objects from their (checked)
#' dissimilarities to the training objects: every column for "classical",
#' which centres on all training objects; any columns for the elementwise
#' methods.
#' @noRd
convert_dissimilarities <- function(object, D_new) {
  if (object$method == "gaussian") {
    K <- exp(-object$gamma * D_new^2)
    self <- rep(1, nrow(D_new))
  } else if (object$method == "negsq") {
    K <- -(D_new / object$mean_dissimilarity)^2
    self <- rep(0, nrow(D_new))
  } else {
    A <- D_new^2
    a_mean <- rowMeans(A)
    K <- -0.5 * (A - outer(a_mean, rep(1, object$n)) - outer(rep(1, nrow(A)), object$col_means) +
                   object$grand_mean)
    self <- unname(a_mean - object$grand_mean / 2)
  }
  list(K = K, self = self)
}

#' @export
print.krein_dissimilarity <- function(x, ...) {
  cat("<kernel from dissimilarities> ", x$n, " objects, method \"", x$method, "\"",
      if (x$symmetrised) " (symmetrised)" else "", "\n", sep = "")
  if (x$method == "gaussian") {
    cat("  k(x, x') = exp(-gamma d(x, x')^2), gamma = ", format(x$gamma, digits = 4), "\n", sep = "")
  } else if (x$method == "negsq") {
    cat("  k(x, x') = -(d(x, x') / ", format(x$mean_dissimilarity, digits = 4), ")^2\n", sep = "")
  } else {
    cat("  K = -1/2 J D^2 J (classical scaling)\n")
  }
  invisible(x)
}

#' match.arg() with a krein_error naming the argument
#' @noRd
match_choice <- function(x, arg, choices) {
  if (identical(x, choices)) return(choices[1])
  check_choice(x, arg, choices)
}
