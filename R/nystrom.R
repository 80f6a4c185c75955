# nystrom(): the Nystroem approximation of a kernel and its
# eigendecomposition, with print, as.matrix, predict, and nystrom_error().

#' Nystroem approximation of a (possibly indefinite) kernel
#'
#' Approximates the \eqn{n \times n} kernel matrix from the kernel columns of
#' \eqn{m} landmark points, \eqn{\hat K = K_{nm} K_{mm}^{+} K_{nm}'} (Schleif,
#' Gisbrecht and Tino 2018, Sec. 3, eq. 10), and
#' computes its eigendecomposition \eqn{\hat K = Q \Lambda Q'} in \eqn{O(n m^2)}
#' time and \eqn{O(n m)} memory without ever forming an \eqn{n \times n} matrix.
#' The eigenvalues keep their signs: the paper's recipe through the
#' eigenvectors of \eqn{B'B} is right only for a positive semidefinite
#' \eqn{K_{mm}}, so krein uses a thin QR of \eqn{B = K_{nm} U |l|^{-1/2}} and
#' the small symmetric problem \eqn{R S R'} instead (exact algebra; see
#' Details). The approximation is exact when the kernel matrix has rank at
#' most \eqn{m} and the landmarks span it.
#'
#' Steps: \eqn{K_{mm} = U \mathrm{diag}(l) U'} keeping the nonzero \eqn{l};
#' \eqn{B = K_{nm} U \mathrm{diag}(|l|^{-1/2})} and \eqn{S = \mathrm{diag}(\mathrm{sign}(l))},
#' so that \eqn{\hat K = B S B'}; \eqn{B = Q_B R}; \eqn{R S R' = V \Lambda V'};
#' \eqn{Q = Q_B V}. The pseudo-inverse keeps the eigenvalues of \eqn{K_{mm}}
#' above \eqn{\sqrt{\epsilon}} times the largest in absolute value (the
#' tolerance of [MASS::ginv()]): the extension to new points divides by them,
#' so a kept eigenvalue at rounding level would turn rounding errors into large
#' errors at new points. Eigenvalues of \eqn{R S R'} within \eqn{100 m
#' \epsilon} times the largest of zero are dropped.
#'
#' With `scale = TRUE` (the default, as in the models and
#' [select_landmarks()]) the approximated kernel is that of the columns
#' centred and scaled, as a model computes it; landmark points,
#' [predict()][predict.krein_nystrom()]'s `newdata` and [nystrom_error()]'s
#' `x` are given in the original units and scaled as the training data were.
#'
#' @param x The training data (a numeric matrix or data frame), or an
#'   \eqn{n \times n} kernel matrix with `kernel = "precomputed"` (or a
#'   [precomputed_kernel()]).
#' @param kernel A kernel (see [kernels]) or `"precomputed"`.
#' @param landmarks The landmarks: row indices of `x` (distinct whole numbers
#'   in \eqn{1, \dots, n}), a matrix of landmark points with the columns of
#'   `x` (not for precomputed kernels), or the result of [select_landmarks()]
#'   on `x`.
#' @param threads Threads for the kernel matrices.
#' @inheritParams krein_inputs
#' @returns An object of class `krein_nystrom`: a list with `vectors`
#'   (\eqn{Q}, \eqn{n \times r}), `values` (\eqn{\Lambda}, decreasing, signed),
#'   `signature` (\eqn{p, q} of \eqn{\hat K}), `landmarks`, the landmark points
#'   (data fits, in the units the kernel sees), the `scaling` of the columns
#'   (`NULL` without) and what [predict.krein_nystrom()] needs. `as.matrix()`
#'   reconstructs \eqn{\hat K} (only when asked: it is \eqn{n \times n}).
#' @references
#' Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#' indefinite kernel approximation using minimum enclosing balls.
#' *Neurocomputing*, 318, 213-226. \doi{10.1016/j.neucom.2018.08.057}.
#'
#' Williams, C. K. I. and Seeger, M. (2001). Using the Nystroem method to
#' speed up kernel machines. In *Advances in Neural Information Processing
#' Systems 13*, MIT Press, 682-688.
#' @family Nystroem approximation
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(400), ncol = 2)
#' ny <- nystrom(x, kernel_tanh(scale = 0.5, offset = -1), landmarks = 1:20)
#' ny
#' nystrom_error(ny, x)
#' @export
nystrom <- function(x, kernel = kernel_rbf(), landmarks, threads = NULL, scale = TRUE) {
  threads <- check_threads(threads)
  scale <- check_flag(scale, "scale")
  precomputed <- inherits(x, "krein_precomputed") || identical(kernel, "precomputed")
  scaling <- NULL
  if (precomputed) {
    K <- check_symmetric_matrix(if (inherits(x, "krein_precomputed")) x$K else x, "x")
    n <- nrow(K)
  } else {
    x <- check_numeric_matrix(x, "x")
    n <- nrow(x)
    kernel <- as_krein_kernel(kernel)
    # the models' scaling, or the units of a kernel fitted on data (R/inputs.R)
    scaling <- input_scaling(x, kernel, list(), scale)
    x <- scale_columns(scaling, x)
    kernel <- resolve_kernel(kernel, x, scaling)
    check_kernel_dimension(kernel, ncol(x))
  }
  if (missing(landmarks)) {
    krein_abort("`landmarks` is missing; give row indices of `x`, landmark points or select_landmarks().")
  }
  points <- NULL
  if (inherits(landmarks, "krein_landmarks")) {
    if (landmarks$n != n || landmarks$precomputed != precomputed) {
      krein_abort(sprintf("`landmarks` was selected on other data (%d points); select them on `x` (%d points).",
                          landmarks$n, n))
    }
    points <- if (!precomputed) landmark_points(landmarks, x, scaling)
    landmarks <- landmarks$indices
  } else if (is.matrix(landmarks) || is.data.frame(landmarks)) {
    if (precomputed) krein_abort("`landmarks` must be row indices for a precomputed kernel.")
    points <- check_numeric_matrix(landmarks, "landmarks")
    if (ncol(points) != ncol(x)) {
      krein_abort(sprintf("`landmarks` points must have %d columns, as `x`, not %d.", ncol(x), ncol(points)))
    }
    points <- scale_columns(scaling, points)
    landmarks <- NULL
  } else {
    landmarks <- check_landmarks(landmarks, n)
  }
  if (precomputed) {
    C <- K[, landmarks, drop = FALSE]
    W <- C[landmarks, , drop = FALSE]
    kernel <- NULL
  } else {
    if (is.null(points)) points <- x[landmarks, , drop = FALSE]
    C <- evaluate_kernel(kernel, x, points, threads)
    W <- if (is.null(landmarks)) evaluate_kernel(kernel, points, NULL, threads) else C[landmarks, , drop = FALSE]
  }
  W <- (W + t(W)) / 2
  d <- with_core_errors("nystrom()", cpp_nystrom(C, W))
  structure(
    list(vectors = d$vectors, values = d$values,
         signature = c(p = sum(d$values > 0), q = sum(d$values < 0)),
         landmarks = landmarks, points = points, extension = d$extension,
         landmark_rank = d$landmark_rank, kernel = kernel, scaling = scaling, n = n, threads = threads),
    class = "krein_nystrom"
  )
}

check_landmarks <- function(landmarks, n) {
  if (!is.numeric(landmarks) || length(landmarks) == 0L || anyNA(landmarks) || any(!is.finite(landmarks)) ||
      any(abs(landmarks - round(landmarks)) > 0)) {
    krein_abort(sprintf("`landmarks` must be row indices (whole numbers), not %s.", describe_value(landmarks)))
  }
  if (any(landmarks < 1 | landmarks > n)) {
    bad <- landmarks[landmarks < 1 | landmarks > n]
    krein_abort(sprintf("`landmarks` must lie in 1..%d; %s %s not.", n, format_indices(bad),
                        if (length(bad) > 1) "are" else "is"))
  }
  if (anyDuplicated(landmarks)) {
    krein_abort(sprintf("`landmarks` must be distinct; %s %s repeated.",
                        format_indices(unique(landmarks[duplicated(landmarks)])),
                        if (sum(duplicated(landmarks)) > 1) "are" else "is"))
  }
  as.integer(landmarks)
}

#' @export
print.krein_nystrom <- function(x, ...) {
  cat("<Nystroem approximation> ", x$n, " points, ", ncol(x$extension), " landmarks, rank ",
      length(x$values), "\n", sep = "")
  cat("  signature (p, q): (", x$signature[["p"]], ", ", x$signature[["q"]], ")\n", sep = "")
  invisible(x)
}

#' @export
as.matrix.krein_nystrom <- function(x, ...) {
  x$vectors %*% (x$values * t(x$vectors))
}

#' Map new points through a Nystroem approximation
#'
#' The Nystroem extension \eqn{\hat k(x, X) = k(x, L) K_{mm}^{+} K_{nm}'} of new
#' points, computed from the \eqn{m} landmarks alone: as rows of the
#' approximated kernel against the training points (`"kernel"`), or as
#' coordinates \eqn{Q'\hat k(x, X)} in the eigenbasis of \eqn{\hat K}
#' (`"coordinates"`).
#'
#' @param object A `krein_nystrom` object.
#' @param newdata New points with the training data's columns; for a
#'   precomputed kernel, the kernel of the new points against the landmarks
#'   (\eqn{n_{new} \times m}, in the order of `object$landmarks`).
#' @param type `"kernel"` or `"coordinates"`.
#' @param ... Unused.
#' @returns An \eqn{n_{new} \times n} (kernel) or \eqn{n_{new} \times r}
#'   (coordinates) matrix.
#' @family Nystroem approximation
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(400), ncol = 2)
#' ny <- nystrom(x, kernel_rbf(1), landmarks = 1:20, threads = 1)
#' new <- matrix(rnorm(10), ncol = 2)
#' approx <- predict(ny, new)                     # 5 x 200 rows of the kernel
#' exact <- kernel_matrix(kernel_rbf(1), new, x, threads = 1)
#' max(abs(approx - exact))
#' dim(predict(ny, new, type = "coordinates"))
#' @export
predict.krein_nystrom <- function(object, newdata, type = c("kernel", "coordinates"), ...) {
  type <- match_choice(type, "type", c("kernel", "coordinates"))
  if (missing(newdata)) krein_abort("`newdata` is missing.")
  m <- ncol(object$extension)
  if (is.null(object$kernel)) {
    k_new <- check_numeric_matrix(newdata, "newdata", allow_vector = FALSE)
    if (ncol(k_new) != m) {
      krein_abort(sprintf("`newdata` must be the kernel against the %d landmarks, not %d columns.", m, ncol(k_new)))
    }
  } else {
    x_new <- check_numeric_matrix(newdata, "newdata")
    if (ncol(x_new) != ncol(object$points)) {
      krein_abort(sprintf("`newdata` must have %d columns, as the training data, not %d.",
                          ncol(object$points), ncol(x_new)))
    }
    k_new <- evaluate_kernel(object$kernel, scale_columns(object$scaling, x_new), object$points, object$threads)
  }
  coordinates <- k_new %*% t(object$extension)
  if (type == "coordinates") return(coordinates)
  coordinates %*% t(object$vectors)
}

#' Relative Frobenius error of a Nystroem approximation
#'
#' \eqn{\|K_{S\cdot} - \hat K_{S\cdot}\|_F / \|K_{S\cdot}\|_F} over a sample
#' \eqn{S} of rows drawn with R's RNG (all rows when `size` is at least
#' \eqn{n}): the exact rows cost \eqn{O(|S| n)} kernel evaluations.
#'
#' @param object A `krein_nystrom` object.
#' @param x The training data it was built from (or the full kernel matrix
#'   for a precomputed fit).
#' @param size The number of rows to compare.
#' @returns One number. When the exact rows are all zero it is 0 if the
#'   approximation is zero too and `Inf` otherwise.
#' @family Nystroem approximation
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(400), ncol = 2)
#' for (m in c(5, 20, 80)) {
#'   ny <- nystrom(x, kernel_rbf(1), landmarks = seq_len(m), threads = 1)
#'   print(nystrom_error(ny, x))
#' }
#' @export
nystrom_error <- function(object, x, size = 200) {
  if (!inherits(object, "krein_nystrom")) {
    krein_abort(sprintf("`object` must be a Nystroem approximation made by nystrom(), not %s.",
                        describe_value(object)))
  }
  size <- check_number(size, "size", lower = 1, allow_lower = TRUE, integer = TRUE)
  rows <- if (size >= object$n) seq_len(object$n) else sort(sample.int(object$n, size))
  if (is.null(object$kernel)) {
    K <- if (inherits(x, "krein_precomputed")) x$K else check_square_matrix(x, "x")
    if (nrow(K) != object$n) krein_abort(sprintf("`x` must be the %d x %d training kernel.", object$n, object$n))
    exact <- K[rows, , drop = FALSE]
  } else {
    x <- check_numeric_matrix(x, "x")
    if (nrow(x) != object$n) krein_abort(sprintf("`x` must be the training data (%d rows), not %d rows.", object$n, nrow(x)))
    x <- scale_columns(object$scaling, x)
    exact <- evaluate_kernel(object$kernel, x[rows, , drop = FALSE], x, object$threads)
  }
  approx <- object$vectors[rows, , drop = FALSE] %*% (object$values * t(object$vectors))
  # both norms relative to the largest exact entry, so that the squares of
  # huge kernels do not overflow
  size <- max(abs(exact))
  if (!is.finite(size)) krein_abort("The kernel values of `x` are not finite; the error cannot be computed.")
  if (size == 0) return(if (all(approx == 0)) 0 else Inf)
  sqrt(sum(((exact - approx) / size)^2) / sum((exact / size)^2))
}
