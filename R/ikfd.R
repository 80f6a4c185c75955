#' Indefinite kernel Fisher discriminant, full and Nystroem low-rank
#'
#' The kernel Fisher discriminant for positive definite and indefinite kernels
#' (IKFD; Pekalska and Haasdonk 2009, Sec. III-A, eqs. 7-8): the Fisher
#' discriminant in the Krein space of the kernel
#' equals the one in its associated Hilbert space, so the usual kernelised
#' formula applies to any symmetric similarity. With `landmarks`, the
#' Nystroem low-rank version Ny-iKFD of Schleif, Gisbrecht and Tino (2018,
#' Sec. 5.2), linear in the number of training
#' points in time and memory.
#'
#' @section The discriminant:
#' For two groups \eqn{A} and \eqn{B} of training points, with \eqn{K} the
#' \eqn{n \times n} training kernel (not centred, as in the DisTools reference
#' code), \eqn{s_G = K_{\cdot G} 1} and \eqn{n_G = |G|}:
#' \deqn{N = \sum_G P_G (K_{\cdot G} K_{\cdot G}' - s_G s_G' / n_G), \quad
#'   \alpha = (N + \mu I)^{-1} (s_A / n_A - s_B / n_B),}
#' \eqn{b = -\alpha'(s_A / n_A + s_B / n_B) / 2} and \eqn{f(x) = k_x'\alpha + b}
#' (eq. 8). `weights = "equal"` takes \eqn{P_G = 1} (DisTools' `ikfd.m`, the
#' default); `"prior"` takes \eqn{P_G = n_G / n}, the priors of eq. 7. Two
#' classes give one discriminant, positive for the first class. More classes
#' are handled one-vs-rest, as DisTools does: discriminant \eqn{i} separates
#' class \eqn{i} from the others and the predicted class is the argmax of the
#' \eqn{c} decision values.
#'
#' @section Regularisation:
#' `reg` is relative to the scale of the within-class scatter:
#' \eqn{\mu = \mathrm{reg} \cdot \mathrm{tr}(N) / n}, the mean eigenvalue of
#' \eqn{N} times `reg`. Scaling the kernel by \eqn{c} scales \eqn{N} by
#' \eqn{c^2}; a relative ridge leaves the classifier unchanged, so one default
#' suits Gaussian kernels with values in \eqn{[0, 1]} and dissimilarity
#' kernels with values in the thousands alike. DisTools' absolute
#' \eqn{\mu = 10^{-4}} corresponds to `reg = 1e-4 * n / tr(N)`; the fit reports
#' the absolute \eqn{\mu} of each discriminant as `ridge`. Should rounding
#' leave \eqn{N + \mu I} without a Cholesky factor, \eqn{\mu} is doubled until
#' it has one, with a warning.
#'
#' @section Nystroem low rank (Ny-iKFD):
#' With `landmarks`, the kernel is replaced by its Nystroem approximation
#' \eqn{\hat K = K_{nm} K_{mm}^+ K_{nm}'} (see [nystrom()]), whose signed
#' eigendecomposition \eqn{\hat K = Q \Lambda Q'} turns the \eqn{n \times n}
#' system into an \eqn{r \times r} one:
#' \eqn{G = \Lambda (\sum_G P_G (Q_G'Q_G - q_G q_G'/n_G)) \Lambda},
#' \eqn{\beta = (G + \mu I)^{-1} \Lambda (q_A/n_A - q_B/n_B)}, \eqn{\alpha = Q
#' \beta}, with \eqn{q_G = Q'1_G}. The landmark kernel \eqn{K_{nm}} is
#' computed in blocks of rows and reduced at once to one small triangular QR
#' factor per class (tall-skinny QR), so no \eqn{n \times m} or \eqn{n \times
#' n} matrix is ever held: \eqn{O(n m^2)} time, \eqn{O(m^2)} memory beyond the
#' data and one block. A block has \eqn{2^{22} / m} rows (32 MB), or
#' `getOption("krein.block_rows")` rows if set. The training scores need a
#' second pass over the blocks unless all of them fit in 128 MB. The model keeps the \eqn{m} landmarks and an \eqn{m}-vector \eqn{a =
#' K_{mm}^+ K_{nm}' \alpha} per discriminant, and predicts \eqn{f(x) = k(x,
#' L)'a + b} from the landmarks alone. When the landmarks span the kernel
#' (every training point a landmark, or a kernel of rank at most \eqn{m}) the
#' result is the full iKFD.
#'
#' @section Probabilities:
#' The decision values are calibrated by the model KFD rests on: Gaussian
#' class-conditional densities of the discriminant scores with a pooled
#' covariance, fitted on the training scores (one score for two classes, the
#' \eqn{c} one-vs-rest scores otherwise), and the class proportions as
#' priors. `predict(type = "prob")` gives the posterior of that model (the
#' softmax of a linear function of the scores); its rows sum to 1. The class
#' of `predict(type = "class")` is the argmax of the decision values
#' (DisTools), which the posterior can disagree with near a boundary.
#'
#' @inheritParams kqd
#' @param reg The relative ridge on the within-class scatter (see
#'   Regularisation), a positive number.
#' @param landmarks `NULL` for the full iKFD; `"meb"`, `"kmeans"` or
#'   `"random"` to select landmarks with [select_landmarks()]; a vector of
#'   training-row indices; or a `krein_landmarks` object from
#'   [select_landmarks()] (on the same training data).
#' @param eps,m Passed to [select_landmarks()] when `landmarks` names a
#'   method.
#' @param weights `"equal"` (DisTools) or `"prior"` (Pekalska and Haasdonk
#'   2009, eq. 7)
#'   within-class weights.
#' @param threads Threads for kernel evaluations and the Nystroem factors.
#' @returns An object of class `c("ikfd", "krein_model")`: a list with
#'   `coefficients` (one column per discriminant: \eqn{\alpha} over the
#'   training points, or \eqn{a} over the landmarks), `bias`, `ridge` (the
#'   absolute \eqn{\mu}), `reg`, `weights`, `levels`, `counts`,
#'   `training_error`, `calibration`, `landmarks` (`NULL` for a full fit, else
#'   the `krein_landmarks`), and for Ny-iKFD `values` (the signed eigenvalues
#'   of \eqn{\hat K}), `signature` and `landmark_rank`.
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
#' *Neurocomputing*. \doi{10.1016/j.neucom.2018.08.057}.
#' @family indefinite kernel Fisher discriminant
#' @examples
#' set.seed(1)
#' train <- checkerboard(400, size = 3)
#' test <- checkerboard(1000, size = 3)
#' full <- ikfd(y ~ x1 + x2, data = train, kernel = kernel_rbf(5))
#' mean(predict(full, test) != test$y)
#' ny <- ikfd(y ~ x1 + x2, data = train, kernel = kernel_rbf(5), landmarks = "meb")
#' ny
#' mean(predict(ny, test) != test$y)
#' head(predict(ny, test, type = "prob"))
#' # an indefinite kernel
#' fit <- ikfd(y ~ x1 + x2, data = train, kernel = kernel_tanh(2, -1))
#' fit
#' @export
ikfd <- function(x, ...) UseMethod("ikfd")

#' @rdname ikfd
#' @export
ikfd.formula <- function(formula, data, subset, na.action, kernel = kernel_rbf(), ...) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel)
  fit <- ikfd_fit(inputs, ...)
  fit$call <- match.call()
  fit
}

#' @rdname ikfd
#' @export
ikfd.default <- function(x, y, kernel = kernel_rbf(), reg = 1e-4, landmarks = NULL, eps = 0.01,
                         m = NULL, weights = c("equal", "prior"), na.action = NULL,
                         threads = NULL, ...) {
  inputs <- inputs_from_xy(x, y, kernel, na.action)
  fit <- ikfd_fit(inputs, reg = reg, landmarks = landmarks, eps = eps, m = m, weights = weights,
                  threads = threads)
  fit$call <- match.call()
  fit
}

#' The fit behind every ikfd() interface
#' @noRd
ikfd_fit <- function(inputs, reg = 1e-4, landmarks = NULL, eps = 0.01, m = NULL,
                     weights = c("equal", "prior"), threads = NULL) {
  reg <- check_number(reg, "reg", lower = 0)
  weights <- match_choice(weights, "weights", c("equal", "prior"))
  threads <- check_threads(threads)
  y <- inputs$y
  levels <- levels(y)
  counts <- stats::setNames(as.vector(table(y)), levels)
  check_two_per_class(counts, "iKFD")
  landmarks <- resolve_landmarks(landmarks, inputs, eps, m, threads)
  fit <- if (is.null(landmarks)) {
    ikfd_full(inputs, reg, weights, threads)
  } else {
    ikfd_nystrom(inputs, landmarks, reg, weights, threads)
  }
  if (isTRUE(fit$ridge_increased)) {
    krein_warn("The regularised within-class scatter had no Cholesky factor; its ridge was increased until it had one (see `ridge`). Consider a larger `reg`.")
  }
  decision <- ikfd_decisions(fit$scores, length(levels))
  training_error <- mean(class_from_decisions(decision, levels) != y)
  calibration <- calibrate_scores(fit$scores, y)
  # a small, evenly spaced sample of training scores for plot()
  shown <- unique(round(seq(1, length(y), length.out = min(length(y), 2000L))))
  structure(
    list(coefficients = fit$coefficients, bias = fit$bias, ridge = fit$ridge, reg = reg,
         weights = weights, levels = levels, counts = counts, training_error = training_error,
         calibration = calibration, landmarks = landmarks, values = fit$values,
         signature = if (!is.null(fit$values)) c(p = sum(fit$values > 0), q = sum(fit$values < 0)),
         landmark_rank = fit$landmark_rank,
         scores_sample = list(scores = fit$scores[shown, , drop = FALSE], y = y[shown]),
         x = if (is.null(landmarks)) inputs$x, kernel = inputs$kernel, spec = inputs$spec,
         threads = threads, na_action = inputs$na_action),
    class = c("ikfd", "krein_model")
  )
}

# NULL, a method name, training-row indices or a krein_landmarks object.
resolve_landmarks <- function(landmarks, inputs, eps, m, threads) {
  if (is.null(landmarks)) return(NULL)
  n <- length(inputs$y)
  if (inherits(landmarks, "krein_landmarks")) {
    if (landmarks$n != n || landmarks$precomputed != is.null(inputs$x)) {
      krein_abort(sprintf("`landmarks` was selected on other data (%d %s points); select them on the training data of this fit (%d points).",
                          landmarks$n, if (landmarks$precomputed) "precomputed" else "data", n))
    }
    return(landmarks)
  }
  if (is.character(landmarks)) {
    landmarks <- check_choice(landmarks, "landmarks", c("meb", "kmeans", "random"))
    return(landmarks_from_inputs(inputs, method = landmarks, eps = eps, m = m, threads = threads))
  }
  indices <- check_landmarks(landmarks, n)
  structure(list(method = "indices", indices = indices,
                 points = if (!is.null(inputs$x)) inputs$x[indices, , drop = FALSE],
                 class = inputs$y[indices], n = n, levels = levels(inputs$y),
                 precomputed = is.null(inputs$x)),
            class = "krein_landmarks")
}

ikfd_full <- function(inputs, reg, weights, threads) {
  K <- training_kernel(inputs, threads)
  core <- cpp_ikfd_full(K, as.integer(inputs$y), nlevels(inputs$y), weights, reg, threads)
  scores <- K %*% core$coefficients + rep(core$bias, each = nrow(K))
  c(core[c("coefficients", "bias", "ridge", "ridge_increased")], list(scores = scores))
}

# Ny-iKFD: the landmark kernel in row blocks, reduced to per-class QR factors;
# a second pass gives the training scores unless the blocks were small enough
# to keep.
ikfd_nystrom <- function(inputs, landmarks, reg, weights, threads) {
  y <- inputs$y
  n <- length(y)
  classes <- nlevels(y)
  m <- length(landmarks$class)
  W <- landmark_kernel(inputs, landmarks, threads)
  block_rows <- nystrom_block_rows(m)
  starts <- seq(1L, n, by = block_rows)
  keep_blocks <- as.double(n) * m <= 2^24
  kept <- list()
  factors <- NULL
  for (b in seq_along(starts)) {
    rows <- starts[b]:min(n, starts[b] + block_rows - 1L)
    C <- landmark_columns(inputs, landmarks, rows, threads)
    block <- cpp_class_factors(C, as.integer(y[rows]), classes, threads)
    factors <- if (is.null(factors)) block else cpp_merge_factors(factors, block)
    if (keep_blocks) kept[[b]] <- C
  }
  core <- cpp_ikfd_nystrom(factors, as.double(table(y)), W, weights, reg)
  scores <- matrix(0, n, ncol(core$coefficients))
  for (b in seq_along(starts)) {
    rows <- starts[b]:min(n, starts[b] + block_rows - 1L)
    C <- if (keep_blocks) kept[[b]] else landmark_columns(inputs, landmarks, rows, threads)
    scores[rows, ] <- C %*% core$coefficients
  }
  scores <- scores + rep(core$bias, each = n)
  c(core, list(scores = scores))
}

# Rows of the landmark kernel per block: about 32 MB of doubles, or the
# option krein.block_rows (documented in ?ikfd).
nystrom_block_rows <- function(m) {
  rows <- getOption("krein.block_rows")
  if (is.null(rows)) return(max(1000L, as.integer(2^22 %/% m)))
  check_number(rows, "options(krein.block_rows)", lower = 1, allow_lower = TRUE, integer = TRUE)
}

# K(L, L) and K(rows, L) for data or precomputed fits
landmark_kernel <- function(inputs, landmarks, threads) {
  if (is.null(inputs$x)) {
    W <- inputs$precomputed$K[landmarks$indices, landmarks$indices, drop = FALSE]
  } else {
    W <- evaluate_kernel(inputs$kernel, landmarks$points, NULL, threads)
  }
  (W + t(W)) / 2
}

landmark_columns <- function(inputs, landmarks, rows, threads) {
  if (is.null(inputs$x)) return(inputs$precomputed$K[rows, landmarks$indices, drop = FALSE])
  evaluate_kernel(inputs$kernel, inputs$x[rows, , drop = FALSE], landmarks$points, threads)
}

# n x c decision values: (f, -f) for two classes, the one-vs-rest scores otherwise
ikfd_decisions <- function(scores, classes) {
  if (classes == 2L) cbind(scores[, 1], -scores[, 1]) else scores
}

# Gaussian class-conditional densities of the scores with pooled covariance
# (documented under Probabilities in ?ikfd).
calibrate_scores <- function(scores, y) {
  levels <- levels(y)
  means <- t(vapply(levels, function(l) colMeans(scores[y == l, , drop = FALSE]), numeric(ncol(scores))))
  if (ncol(scores) == 1L) means <- matrix(means, ncol = 1L)
  centred <- scores - means[as.integer(y), , drop = FALSE]
  covariance <- crossprod(centred) / max(1, length(y) - length(levels))
  # a tiny ridge: one-vs-rest scores can be nearly collinear
  covariance <- covariance + diag(1e-10 * max(mean(diag(covariance)), .Machine$double.xmin), ncol(scores))
  prior <- as.vector(table(y)) / length(y)
  list(means = means, covariance = covariance, prior = stats::setNames(prior, levels))
}

posterior_from_scores <- function(calibration, scores) {
  inverse <- solve(calibration$covariance)
  means <- calibration$means
  # log prior + linear discriminant of the pooled Gaussian model
  linear <- scores %*% inverse %*% t(means)
  constant <- -0.5 * rowSums((means %*% inverse) * means) + log(calibration$prior)
  softmax_rows(linear + rep(constant, each = nrow(scores)))
}

#' Predict with an indefinite kernel Fisher discriminant
#'
#' @param object An `ikfd` fit.
#' @param newdata New data in the form the model was fitted on (see
#'   [krein_inputs]); for a precomputed kernel, the kernel of the new points
#'   against all training points (a Nystroem fit uses only the landmark
#'   columns). Missing: the training data, for full fits (a Nystroem fit does
#'   not keep them).
#' @param type `"class"` (the argmax of the decision values), `"prob"` (the
#'   calibrated posterior, see [ikfd()]) or `"decision"` (an \eqn{n \times c}
#'   matrix: \eqn{(f, -f)} for two classes, the one-vs-rest values
#'   otherwise).
#' @param ... Unused.
#' @returns A factor with the training levels, or a matrix with one row per
#'   point and one column per class.
#' @family indefinite kernel Fisher discriminant
#' @export
predict.ikfd <- function(object, newdata, type = c("class", "prob", "decision"), ...) {
  type <- match_choice(type, "type", c("class", "prob", "decision"))
  if (missing(newdata) || is.null(newdata)) {
    if (!is.null(object$landmarks)) {
      krein_abort("`newdata` is missing; a Nystroem iKFD keeps only its landmarks, not the training data.")
    }
    if (is.null(object$x)) {
      krein_abort("`newdata` is missing; give the kernel of the points to predict against the training points.")
    }
    return(ikfd_outputs(object, ikfd_points_scores(object, object$x), rownames(object$x), type))
  }
  new <- new_inputs(object$spec, newdata)
  lm <- object$landmarks
  K_new <- new_kernel_matrix(object$spec, new, points = if (is.null(lm)) object$x else lm$points,
                             columns = if (!is.null(lm)) lm$indices, threads = object$threads)
  scores <- K_new %*% object$coefficients + rep(object$bias, each = nrow(K_new))
  ikfd_outputs(object, scores, rownames(new$x %||% new$K), type)
}

# Scores of points given as a numeric matrix in the input space (training
# data, plot grids), bypassing the newdata checks.
ikfd_points_scores <- function(object, points) {
  expansion <- if (is.null(object$landmarks)) object$x else object$landmarks$points
  K <- evaluate_kernel(object$kernel, points, expansion, object$threads)
  K %*% object$coefficients + rep(object$bias, each = nrow(K))
}

ikfd_outputs <- function(object, scores, names, type) {
  if (type == "prob") {
    p <- posterior_from_scores(object$calibration, scores)
    dimnames(p) <- list(names, object$levels)
    return(p)
  }
  decision <- ikfd_decisions(scores, length(object$levels))
  dimnames(decision) <- list(names, object$levels)
  if (type == "decision") return(decision)
  stats::setNames(class_from_decisions(decision, object$levels), names)
}

#' @export
print.ikfd <- function(x, ...) {
  ny <- !is.null(x$landmarks)
  cat(if (ny) "Nystroem indefinite kernel Fisher discriminant" else "Indefinite kernel Fisher discriminant",
      ", ", length(x$levels), " classes, ", sum(x$counts), " training points\n", sep = "")
  cat("  kernel: ", kernel_description(x$kernel), "\n", sep = "")
  if (ny) {
    cat("  landmarks: ", length(x$landmarks$class), " (", x$landmarks$method, "), rank ",
        length(x$values), ", signature (", x$signature[["p"]], ", ", x$signature[["q"]], ")\n", sep = "")
  }
  cat("  ", if (length(x$levels) == 2L) "one discriminant" else paste(length(x$levels), "one-vs-rest discriminants"),
      ", reg = ", format(x$reg), " (relative), ", x$weights, " weights, training error ",
      format(x$training_error, digits = 3), "\n", sep = "")
  invisible(x)
}

#' @export
summary.ikfd <- function(object, ...) {
  lm <- object$landmarks
  classes <- data.frame(n = as.vector(object$counts), prior = as.vector(object$calibration$prior),
                        row.names = object$levels)
  if (!is.null(lm)) classes$landmarks <- as.vector(table(factor(lm$class, levels = object$levels)))
  d <- length(object$bias)
  discriminants <- data.frame(
    discriminant = if (d == 1L) paste(object$levels, collapse = " vs ") else paste(object$levels, "vs rest"),
    ridge = object$ridge, bias = object$bias, check.names = FALSE)
  structure(list(nystrom = !is.null(lm), method = lm$method, m = length(lm$class),
                 rank = length(object$values), landmark_rank = object$landmark_rank,
                 signature = object$signature, classes = classes, discriminants = discriminants,
                 training_error = object$training_error, reg = object$reg, weights = object$weights,
                 kernel = kernel_description(object$kernel)),
            class = "summary.ikfd")
}

#' @export
print.summary.ikfd <- function(x, ...) {
  cat(if (x$nystrom) "Nystroem indefinite kernel Fisher discriminant" else "Indefinite kernel Fisher discriminant",
      "\n  kernel: ", x$kernel, "\n  reg = ", format(x$reg), " (relative), ", x$weights,
      " weights, training error ", format(x$training_error, digits = 3), "\n", sep = "")
  if (x$nystrom) {
    cat("  ", x$m, " landmarks (", x$method, "); K_mm of rank ", x$landmark_rank,
        "; approximated kernel of rank ", x$rank, ", signature (p, q) = (", x$signature[["p"]], ", ",
        x$signature[["q"]], ")\n", sep = "")
  }
  cat("\nClasses:\n")
  print(x$classes, digits = 4)
  cat("\nDiscriminants:\n")
  print(x$discriminants, digits = 4, row.names = FALSE)
  invisible(x)
}

#' Plot an indefinite kernel Fisher discriminant
#'
#' For two input variables: the decision regions over the plane with the
#' points and, for Ny-iKFD, the landmarks circled (as Schleif, Gisbrecht and
#' Tino 2018, Fig. 2).
#' The points are the training data of a full fit; a Nystroem fit keeps only
#' its landmarks, so pass `data` to show other points. Otherwise (or for
#' precomputed kernels): the discriminant scores of a sample of up to 2000
#' training points (kept by the fit) -- histograms per class for two classes,
#' a pairs plot of the one-vs-rest scores for more.
#'
#' @param x An `ikfd` fit.
#' @param data Points to show (a data frame or matrix with the training
#'   columns and the response, for formula fits, or a matrix whose rows are
#'   drawn in grey), or `NULL`.
#' @param resolution Grid points per axis.
#' @param main The title; `NULL` for one that describes the fit.
#' @param ... Passed to the plotting functions.
#' @references
#' Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#' indefinite kernel approximation using minimum enclosing balls.
#' *Neurocomputing*. \doi{10.1016/j.neucom.2018.08.057}.
#' @returns `x`, invisibly.
#' @family indefinite kernel Fisher discriminant
#' @export
plot.ikfd <- function(x, data = NULL, resolution = 120L, main = NULL, ...) {
  lm <- x$landmarks
  main <- main %||% if (is.null(lm)) "iKFD" else sprintf("Ny-iKFD, %d landmarks (%s)", length(lm$class), lm$method)
  two_d <- !is.null(x$kernel) && x$spec$n_columns == 2L
  if (two_d) {
    shown <- plot_points(x, data)
    plot_decision_regions(shown$x, shown$y, function(grid) {
      ikfd_outputs(x, ikfd_points_scores(x, as.matrix(grid)), NULL, "class")
    }, resolution = resolution, main = main, landmarks = lm$points, ...)
    return(invisible(x))
  }
  scores <- x$scores_sample$scores
  y <- x$scores_sample$y
  col <- hcl.colors(length(x$levels), "Dark 3")
  if (ncol(scores) == 1L) {
    breaks <- pretty(range(scores), 30)
    h <- lapply(x$levels, function(l) graphics::hist(scores[y == l, 1], breaks = breaks, plot = FALSE))
    graphics::plot(range(breaks), c(0, max(vapply(h, function(v) max(v$density), numeric(1)))),
                   type = "n", xlab = "discriminant score f(x)", ylab = "density", main = main, ...)
    for (j in seq_along(h)) {
      graphics::lines(h[[j]], freq = FALSE, col = grDevices::adjustcolor(col[j], 0.4),
                      border = col[j])
    }
    graphics::abline(v = 0, lty = 2)
    graphics::legend("topright", legend = x$levels, fill = grDevices::adjustcolor(col, 0.4), bty = "n")
  } else {
    colnames(scores) <- paste("f", x$levels)
    graphics::pairs(scores, col = col[as.integer(y)], pch = 19, cex = 0.5, main = main, ...)
  }
  invisible(x)
}
