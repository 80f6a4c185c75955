# Spectrum corrections of an indefinite kernel matrix (clip, flip, shift,
# square) with the consistent treatment of new points of Chen, Garcia, Gupta,
# Rahimi and Cazzanti (2009): correct_spectrum() for users' own matrices, and
# the `spectrum` argument every kernel model takes (fit_model(),
# R/contract.R), which computes the same object from the training kernel and
# applies it to the kernel rows of new points (new_kernels()).

#' Spectrum corrections of an indefinite kernel matrix
#'
#' Makes a symmetric kernel matrix positive semidefinite by changing its
#' eigenvalues, and maps the similarities of new points to the training
#' points consistently, as defined by Chen et al. (2009). With the training
#' kernel \eqn{K = U \mathrm{diag}(\lambda) U^\top}:
#'
#' * `"clip"`: \eqn{\lambda \to \max(\lambda, 0)}; a new point's similarity
#'   vector \eqn{s} (its kernel values against the \eqn{n} training points)
#'   becomes \eqn{P s} with \eqn{P = U \mathrm{diag}(1[\lambda > 0]) U^\top}.
#' * `"flip"`: \eqn{\lambda \to |\lambda|}; \eqn{s \to P s} with
#'   \eqn{P = U \mathrm{diag}(\mathrm{sign}\,\lambda) U^\top}.
#' * `"shift"`: \eqn{\lambda \to \lambda - \min(\min_i \lambda_i, 0)}, that is
#'   \eqn{K + \sigma I} with \eqn{\sigma = \max(-\min_i \lambda_i, 0)}; \eqn{s}
#'   is unchanged.
#' * `"square"`: \eqn{K \to K K} (\eqn{\lambda \to \lambda^2}); \eqn{s \to K s}.
#'
#' Eigenvalues with \eqn{|\lambda| \le} `tol` \eqn{\times \max |\lambda|} are
#' zero up to rounding and have no reliable sign: \eqn{P} passes their
#' directions unchanged (its entry is 1, as for a positive semidefinite
#' kernel, whose maps are the identity).
#'
#' Each map sends a training point's own row of \eqn{K} to its row of the
#' corrected matrix, so a training point given as a new point is treated as
#' in training (for `"shift"` see below).
#'
#' @section Self-similarities of new points:
#' Models built on kernel-induced distances (the RC variants of [kqd()],
#' [iknn()]) also need a new point's self-similarity \eqn{k(x, x)} in the
#' corrected kernel. The corrections define it as follows:
#'
#' * `"shift"`: \eqn{k(x, x) + \sigma}. The shift adds \eqn{\sigma} to the
#'   diagonal only, i.e. to the similarity of a point with itself and not to
#'   its similarity with any other point; a new point is a point distinct from
#'   every training point, so its cross-similarities stay as they are and its
#'   self-similarity gets the same \eqn{\sigma} as every training point's.
#'   This keeps the corrected kernel of the training and new points together
#'   equal to \eqn{K_{all} + \sigma I}, positive semidefinite whenever the
#'   kernel on all points is no more indefinite than on the training points.
#' * `"square"`: \eqn{\|s\|^2 = s^\top s}: the squared kernel is the inner
#'   product of the similarity vectors, \eqn{(K K)_{ij} = K_{i\cdot}^\top K_{\cdot j}}.
#' * `"clip"` and `"flip"`: \eqn{k(x, x) + c\, s^\top U_- |\Lambda_-|^{-1}
#'   U_-^\top s} with \eqn{c = 1} for clip and \eqn{c = 2} for flip, where
#'   \eqn{U_-, \Lambda_-} are the eigenvectors and eigenvalues of the negative
#'   part. The training points embed in the pseudo-Euclidean space of \eqn{K}
#'   as the rows of \eqn{U |\Lambda|^{1/2}}; a new point splits into its
#'   projection on their span, with coordinates \eqn{z = |\Lambda|^{-1/2}
#'   U^\top s} (which reproduce \eqn{s}, and whose clipped or flipped
#'   coordinates give \eqn{P s}), and a residual outside the span. The
#'   projection's self-similarity \eqn{z^\top J z} (\eqn{J} the signature)
#'   becomes \eqn{z_+^\top z_+} under clip and \eqn{z^\top z} under flip,
#'   which adds the negative part's \eqn{|z_-|^2} once or twice; the residual
#'   is left as it is, as shift leaves the part of a new point that no training
#'   point shares. A training point has no residual, so this is the corrected
#'   diagonal; for a positive semidefinite kernel nothing changes.
#'
#' The eigendecomposition is LAPACK's `dsyevr` (the one [indefiniteness()]
#' uses). Prediction is one matrix product with the stored map, with no new
#' eigendecomposition. A positive semidefinite `K` (no eigenvalue below
#' \eqn{-}`tol` \eqn{\times \max|\lambda|}) is left unchanged by clip, flip and
#' shift, and its maps are the identity, without a warning.
#'
#' @param K A symmetric numeric matrix (a training kernel), or a
#'   `krein_precomputed` object ([precomputed_kernel()],
#'   [kernel_from_dissimilarity()]).
#' @param method One of `"clip"`, `"flip"`, `"shift"` and `"square"`.
#' @param tol The relative tolerance below which an eigenvalue counts as zero
#'   (a number in \[0, 1), relative to the largest absolute eigenvalue);
#'   the default is \eqn{n} times the machine epsilon, as in [indefiniteness()].
#' @returns An object of class `krein_spectrum_correction`: a list with
#'   `method`, `matrix` (the corrected \eqn{n \times n} matrix), `map` (\eqn{P}
#'   for clip and flip, \eqn{K} for square, `NULL` for shift), `self_map` (for
#'   clip and flip the \eqn{n \times q} matrix \eqn{V = U_-
#'   (|\Lambda_-|/c)^{-1/2}} over the \eqn{q} negative eigenvalues: a new
#'   point's self-similarity is \eqn{k(x, x) + \|V^\top s\|^2}; else
#'   `NULL`), `shift` (\eqn{\sigma}, 0 for the others),
#'   `values` (the eigenvalues of `K`, decreasing), `n` and `tol`. Its
#'   `predict()` method maps the rows of new points.
#' @references
#' Chen, Y., Garcia, E. K., Gupta, M. R., Rahimi, A. and Cazzanti, L. (2009).
#' Similarity-based classification: concepts and algorithms. *Journal of
#' Machine Learning Research*, 10, 747-776.
#' @seealso The `spectrum` argument of every kernel model applies a
#'   correction to its training kernel and to the kernel rows of new points.
#' @family kernels
#' @examples
#' set.seed(1)
#' board <- checkerboard(60)
#' x <- as.matrix(board[, c("x1", "x2")])
#' kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
#' K <- kernel_matrix(kernel, x)
#' clipped <- correct_spectrum(K, "clip")
#' clipped
#' min(eigen(clipped$matrix, symmetric = TRUE, only.values = TRUE)$values)
#' # new points: their kernel rows against the training points
#' x_new <- as.matrix(checkerboard(5)[, c("x1", "x2")])
#' rows <- kernel_matrix(kernel, x_new, x)
#' dim(predict(clipped, rows))
#' # with self-similarities: a precomputed kernel in, a precomputed kernel out
#' predict(correct_spectrum(K, "shift"), precomputed_kernel(rows, self = rep(1, 5)))$self
#' @export
correct_spectrum <- function(K, method = c("clip", "flip", "shift", "square"), tol = NULL) {
  if (missing(K)) krein_abort("`K` is missing; give a symmetric kernel matrix (or a precomputed_kernel()).")
  if (inherits(K, "krein_precomputed")) K <- K$K
  K <- check_symmetric_matrix(K, "K")
  method <- match_choice(method, "method", c("clip", "flip", "shift", "square"))
  n <- nrow(K)
  if (is.null(tol)) tol <- n * .Machine$double.eps
  tol <- check_number(tol, "tol", lower = 0, allow_lower = TRUE)
  # relative to the largest |eigenvalue|: at 1 or more every eigenvalue counts
  # as zero and nothing would be corrected
  if (tol >= 1) {
    krein_abort(sprintf("`tol` must be below 1, not %s: it is relative to the largest absolute eigenvalue, so 1 or more counts every eigenvalue as zero and nothing is corrected.",
                        format_number(tol)))
  }
  spectrum_correction(K, method, tol, keep_matrix = TRUE)
}

#' The correction of a training kernel (checked by the caller): the object
#' correct_spectrum() returns; `keep_matrix = FALSE` leaves out the corrected
#' matrix (a fit keeps only what prediction needs)
#' @noRd
spectrum_correction <- function(K, method, tol = nrow(K) * .Machine$double.eps, keep_matrix = TRUE) {
  n <- nrow(K)
  K <- (K + t(K)) / 2
  dimnames(K) <- NULL
  out <- list(method = method, matrix = NULL, map = NULL, self_map = NULL, shift = 0,
              values = NULL, n = n, tol = tol)
  if (method == "square") {
    # no eigendecomposition needed: K K, and s -> K s
    out$matrix <- K %*% K
    out$map <- K
    out$matrix <- (out$matrix + t(out$matrix)) / 2
  } else {
    eig <- kernel_eigen(K, vectors = method != "shift")
    values <- eig$values
    out$values <- values
    zero <- abs(values) <= tol * max(abs(values))
    negative <- values < 0 & !zero
    if (method == "shift") {
      out$shift <- if (any(negative)) -min(values) else 0
      out$matrix <- K
      diag(out$matrix) <- diag(out$matrix) + out$shift
    } else if (!any(negative)) {
      # already positive semidefinite: the identity maps
      out$matrix <- K
      out$map <- diag(n)
      out$self_map <- matrix(0, n, 0L)
    } else {
      U <- eig$vectors
      # eigenvalues at rounding level have no reliable sign: their directions
      # pass unchanged, as they do for a positive semidefinite kernel
      signs <- ifelse(zero, 1, if (method == "clip") as.double(values > 0) else sign(values))
      corrected <- if (method == "clip") pmax(values, 0) else abs(values)
      out$matrix <- spectral_matrix(U, corrected)
      out$map <- spectral_matrix(U, signs)
      out$self_map <- sweep(U[, negative, drop = FALSE], 2L,
                            sqrt((if (method == "clip") 1 else 2) / abs(values[negative])), "*")
    }
  }
  if (!all(is.finite(out$matrix)) || !all(is.finite(out$map))) {
    krein_abort(sprintf(
      "The %s-corrected kernel matrix overflows double precision (the largest entry of the kernel is %s in absolute value); divide the kernel by a constant first.",
      method, format(max(abs(K)), digits = 3)))
  }
  if (!keep_matrix) out$matrix <- NULL
  structure(out, class = "krein_spectrum_correction")
}

#' The eigendecomposition of a symmetric kernel matrix (LAPACK through the
#' core), with a clear error where its eigenvalues overflow; spectrum
#' corrections and krein_svm()'s flip use it
#' @noRd
kernel_eigen <- function(K, vectors = TRUE) {
  eig <- with_core_errors("The eigendecomposition of the kernel matrix", cpp_symmetric_eigen(K, vectors))
  if (!all(is.finite(eig$values))) {
    krein_abort(sprintf(
      "The eigenvalues of the kernel matrix overflow double precision (its largest entry is %s in absolute value); divide it by a constant first.",
      format(max(abs(K)), digits = 3)))
  }
  eig
}

#' U diag(f) U', exactly symmetric, computed in the core (Eigen) rather than
#' with R's BLAS
#' @noRd
spectral_matrix <- function(U, f) cpp_spectral_matrix(U, as.double(f))

#' The corrected kernel rows (n_new x n) of new points and, when `self` is
#' given, their corrected self-similarities
#' @noRd
apply_spectrum <- function(correction, K, self = NULL) {
  switch(correction$method,
    shift = list(K = K, self = if (!is.null(self)) self + correction$shift),
    square = list(K = K %*% correction$map, self = if (!is.null(self)) rowSums(K^2)),
    # clip, flip: P and the self map are symmetric, so the rows are K P
    list(K = K %*% correction$map,
         self = if (!is.null(self)) self + rowSums((K %*% correction$self_map)^2))
  )
}

#' Map new points' similarities through a spectrum correction
#'
#' @param object A `krein_spectrum_correction` from [correct_spectrum()].
#' @param newdata The kernel values of new points against the training points
#'   (one row per new point, one column per training point, in the training
#'   order), as a numeric matrix, or a `krein_precomputed` object
#'   ([precomputed_kernel()]) that also carries their self-similarities.
#' @param ... Unused.
#' @returns The corrected rows in the form given: a matrix, or a
#'   `krein_precomputed` object whose `self` are the corrected
#'   self-similarities (see the section of [correct_spectrum()] on them), ready
#'   as `newdata` for a model fitted on `object$matrix`.
#' @examples
#' set.seed(2)
#' x <- matrix(rnorm(40), ncol = 2)
#' kernel <- kernel_tanh(scale = 1, offset = -1)
#' flipped <- correct_spectrum(kernel_matrix(kernel, x), "flip")
#' x_new <- matrix(rnorm(6), ncol = 2)
#' predict(flipped, kernel_matrix(kernel, x_new, x))[, 1:4]
#' @export
predict.krein_spectrum_correction <- function(object, newdata, ...) {
  if (length(list(...))) {
    krein_abort("predict() of a spectrum correction takes only `object` and `newdata`.")
  }
  if (missing(newdata) || is.null(newdata)) krein_abort("`newdata` is missing.")
  self <- NULL
  precomputed <- inherits(newdata, "krein_precomputed")
  if (precomputed) {
    self <- newdata$self
    newdata <- newdata$K
  } else if (is.numeric(newdata) && is.null(dim(newdata)) && length(newdata) == object$n) {
    newdata <- matrix(newdata, nrow = 1L)
  }
  K <- check_numeric_matrix(newdata, "newdata", allow_vector = FALSE)
  check_finite_matrix(K, "newdata")
  if (ncol(K) != object$n) {
    krein_abort(sprintf("`newdata` must have one column per training point (%d), not %d.", object$n, ncol(K)))
  }
  out <- apply_spectrum(object, K, self)
  dimnames(out$K) <- dimnames(K)
  if (precomputed) new_precomputed(out$K, out$self) else out$K
}

#' @export
print.krein_spectrum_correction <- function(x, ...) {
  cat("<spectrum correction> ", x$method, " of a ", x$n, " x ", x$n, " kernel matrix\n", sep = "")
  if (!is.null(x$values)) {
    negative <- sum(x$values < 0 & abs(x$values) > x$tol * max(abs(x$values)))
    cat("  negative eigenvalues: ", negative, if (negative) sprintf(" (the smallest %s)", format(min(x$values), digits = 4)),
        "\n", sep = "")
  }
  cat("  new points: ", switch(x$method,
    clip = "s -> P s, P = U diag(1[l > 0]) U'",
    flip = "s -> P s, P = U diag(sign l) U'",
    shift = sprintf("s unchanged; k(x, x) + %s", format(x$shift, digits = 4)),
    square = "s -> K s; k(x, x) -> s's"), "\n", sep = "")
  if (x$method %in% c("clip", "flip")) {
    cat("  new self-similarities: k(x, x) + |V's|^2 over the ", ncol(x$self_map), " negative eigenvalues\n", sep = "")
  }
  invisible(x)
}

# ---------------------------------------------------------------------------
# The `spectrum` argument of the kernel models

spectrum_methods <- c("none", "clip", "flip", "shift", "square")

#' The `spectrum` argument of a model: one of spectrum_methods
#' @noRd
check_spectrum <- function(spectrum) {
  if (is.null(spectrum)) return("none")
  match_choice(spectrum, "spectrum", spectrum_methods)
}

#' Inputs (and model arguments) with a corrected kernel. A full fit: the
#' kernel of the training inputs (a precomputed one, the kernel of objects,
#' or the kernel of data evaluated here) is corrected once, and the model
#' fits on it as on a precomputed kernel; the spec keeps the correction
#' (without the corrected matrix) and the training points, from which
#' new_kernels() computes and maps the kernel rows of new points. A Nystroem
#' fit (landmarks, kfda's bases): the landmark block is corrected
#' (spectrum_landmark_inputs()).
#' @returns list(inputs, args)
#' @noRd
spectrum_inputs <- function(inputs, spectrum, name, args) {
  info <- model_info(name)
  if (!info$uses_kernel) {
    krein_abort(sprintf("`spectrum` corrects the spectrum of a kernel matrix, but %s() works on the input features and has no kernel; leave `spectrum` out.",
                        name), class = "krein_argument_error")
  }
  reference <- spectrum_reference_set(inputs, args)
  if (!is.null(reference)) return(spectrum_landmark_inputs(inputs, spectrum, reference))
  if (info$needs_inputs(args)) {
    krein_abort(sprintf("`spectrum = \"%s\"` needs a fit on a kernel matrix, but %s() with these arguments works on the inputs themselves (e.g. a kernel width optimised during the fit).",
                        spectrum, name), class = "krein_argument_error")
  }
  K <- training_kernel(inputs, args$threads)
  correction <- spectrum_correction(K, spectrum)
  corrected <- correction$matrix
  correction$matrix <- NULL
  names <- rownames(inputs$x) %||% rownames(K)
  dimnames(corrected) <- list(names, names)
  # the training points new points are compared with (data fits)
  correction$points <- inputs$x
  inputs$spec$spectrum <- correction
  inputs$precomputed <- new_precomputed(corrected, unname(diag(corrected)))
  inputs$x <- NULL
  list(inputs = inputs, args = args)
}

#' The landmarks of a Nystroem fit (`landmarks`, resolved here once so that
#' the correction and the model use the same ones) or kfda's subset of bases
#' (`reduce = "subset"`), with the model arguments that hand them to the
#' model; NULL for a full fit
#' @noRd
spectrum_reference_set <- function(inputs, args) {
  if (!is.null(args$landmarks)) {
    landmarks <- resolve_landmarks(args$landmarks, inputs, args$eps, args$m, args$threads)
    # resolved again by the model, which takes them as they are
    args$landmarks <- landmarks_argument(landmarks, inputs)
    return(list(indices = landmarks$indices, points = landmarks$points, args = args))
  }
  if (identical(args$reduce, "subset")) {
    discriminant <- match_choice(args$discriminant, "discriminant", c("linear", "quadratic"))
    bases <- resolve_bases(args$bases, length(inputs$y), discriminant, as.vector(table(inputs$y)))
    args$bases <- bases
    return(list(indices = bases, points = if (!is.null(inputs$x)) inputs$x[bases, , drop = FALSE], args = args))
  }
  NULL
}

#' A Nystroem fit with a corrected landmark block W = k(R, R) (R the
#' landmarks): the kernel becomes
#'   clip, flip: k_c(x, y) = k(x, y) + (k(x, R) V)(k(y, R) V)',
#'   square:     k_c(x, y) = k(x, R) k(R, y),
#'   shift:      k_c(x, y) = k(x, y) + shift if x and y are the same point,
#' with V the correction of W (the `self_map`). k_c(R, R) is W's corrected
#' matrix, k_c(x, R) = k(x, R) P is Chen et al.'s map of x's similarities to
#' the landmarks, and k_c(x, x) the self-similarity correct_spectrum()
#' defines: the landmarks play the training points' part, at cost m^3.
#' Data fits get the corrected kernel as their kernel (every evaluation the
#' model and prediction make goes through it); precomputed fits (and
#' objects) get the corrected training matrix, and the spec keeps what new
#' rows need.
#' @noRd
spectrum_landmark_inputs <- function(inputs, spectrum, reference) {
  threads <- reference$args$threads
  if (!is.null(inputs$x)) {
    W <- evaluate_kernel(inputs$kernel, reference$points, NULL, check_threads(threads))
    correction <- spectrum_correction(W, spectrum, keep_matrix = FALSE)
    kernel <- spectrum_kernel(inputs$kernel, reference$points, correction)
    inputs$kernel <- kernel
    inputs$spec$kernel <- kernel
    return(list(inputs = inputs, args = reference$args))
  }
  K <- inputs$precomputed$K
  L <- reference$indices
  correction <- spectrum_correction(K[L, L, drop = FALSE], spectrum, keep_matrix = FALSE)
  correction$landmarks <- L
  C <- K[, L, drop = FALSE]
  corrected <- switch(spectrum,
    # every training point is the same point as itself (the landmarks among them)
    shift = K + diag(correction$shift, nrow(K)),
    square = {
      correction$rows <- C
      tcrossprod(C)
    },
    {
      correction$rows <- C %*% correction$self_map
      K + tcrossprod(correction$rows)
    })
  dimnames(corrected) <- dimnames(K)
  correction$map <- NULL
  inputs$spec$spectrum <- correction
  inputs$precomputed <- new_precomputed(corrected, unname(diag(corrected)))
  list(inputs = inputs, args = reference$args)
}

#' The kernel of a Nystroem fit with a corrected landmark block (see
#' spectrum_landmark_inputs())
#' @noRd
spectrum_kernel <- function(base, points, correction) {
  correction$matrix <- NULL
  correction$map <- NULL
  new_krein_kernel("spectrum", list(), sprintf("%s; spectrum %s on the %d landmarks", kernel_description(base),
                                               correction$method, nrow(points)),
                   base$formula, TRUE, base = base, points = points, correction = correction,
                   units = data_units(base))
}

spectrum_kernel_matrix <- function(kernel, x, y, threads) {
  correction <- kernel$correction
  Cx <- evaluate_kernel(kernel$base, x, kernel$points, threads)
  if (correction$method == "square") {
    return(if (is.null(y)) tcrossprod(Cx) else tcrossprod(Cx, evaluate_kernel(kernel$base, y, kernel$points, threads)))
  }
  K <- evaluate_kernel(kernel$base, x, y, threads)
  if (correction$method == "shift") {
    if (correction$shift == 0) return(K)
    if (is.null(y)) {
      diag(K) <- diag(K) + correction$shift
    } else {
      same <- which(outer(row_keys(x), row_keys(y), "=="), arr.ind = TRUE)
      K[same] <- K[same] + correction$shift
    }
    return(K)
  }
  A <- Cx %*% correction$self_map
  if (is.null(y)) return(K + tcrossprod(A))
  K + tcrossprod(A, evaluate_kernel(kernel$base, y, kernel$points, threads) %*% correction$self_map)
}

spectrum_kernel_self <- function(kernel, x) {
  correction <- kernel$correction
  Cx <- evaluate_kernel(kernel$base, x, kernel$points)
  switch(correction$method,
    square = rowSums(Cx^2),
    shift = kernel_self(kernel$base, x) + correction$shift,
    kernel_self(kernel$base, x) + rowSums((Cx %*% correction$self_map)^2))
}

#' The exact value of each row, as a string (identical points)
#' @noRd
row_keys <- function(x) apply(x, 1L, function(r) paste(sprintf("%a", r), collapse = " "))

#' The corrected kernel rows of new points against the training points in
#' `columns` (NULL: all), and their corrected self-similarities where asked
#' @noRd
spectrum_new_kernels <- function(spec, new, columns = NULL, need_self = FALSE, threads = NULL) {
  correction <- spec$spectrum
  if (!is.null(correction$landmarks)) return(spectrum_landmark_new_kernels(spec, new, columns, need_self))
  K <- if (spec$type %in% c("precomputed", "objects")) {
    new_kernel_matrix(spec, new, NULL, NULL)
  } else {
    evaluate_kernel(spec$kernel, new$x, correction$points, check_threads(threads))
  }
  out <- apply_spectrum(correction, K, if (need_self) new_self_similarity(spec, new))
  if (!is.null(columns)) out$K <- out$K[, columns, drop = FALSE]
  out
}

#' One line on a fit's spectrum correction, for print()
#' @noRd
spectrum_text <- function(correction) {
  negative <- if (!is.null(correction$values)) {
    sum(correction$values < 0 & abs(correction$values) > correction$tol * max(abs(correction$values)))
  }
  paste0("Spectrum: ", correction$method, " (Chen et al. 2009)",
         if (!is.null(negative)) sprintf("; %d negative eigenvalue%s of the %s", negative,
                                         if (negative == 1L) "" else "s",
                                         if (is.null(correction$landmarks)) "training kernel" else
                                           sprintf("landmark block (%d landmarks)", length(correction$landmarks))),
         if (correction$method == "shift") sprintf(", shift %s", format(correction$shift, digits = 4)))
}

#' spectrum_new_kernels() of a precomputed Nystroem fit: the corrected kernel
#' k_c (spectrum_landmark_inputs()) of new points against training points in
#' `columns` (the landmarks, or bases), from their raw kernel rows
#' @noRd
spectrum_landmark_new_kernels <- function(spec, new, columns, need_self) {
  correction <- spec$spectrum
  L <- correction$landmarks
  if (is.null(columns)) columns <- seq_len(spec$n_train)
  needed <- union(L, columns)
  raw <- new_kernel_matrix(spec, new, NULL, needed)
  at <- function(index) raw[, match(index, needed), drop = FALSE]
  self <- if (need_self) new_self_similarity(spec, new)
  switch(correction$method,
    shift = list(K = at(columns), self = if (need_self) self + correction$shift),
    square = list(K = tcrossprod(at(L), correction$rows[columns, , drop = FALSE]),
                  self = if (need_self) rowSums(at(L)^2)),
    {
      A <- at(L) %*% correction$self_map
      list(K = at(columns) + tcrossprod(A, correction$rows[columns, , drop = FALSE]),
           self = if (need_self) self + rowSums(A^2))
    })
}
