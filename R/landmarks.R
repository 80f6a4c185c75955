# The landmarks of a Nystroem approximation: select_landmarks() and its three
# methods (minimum enclosing balls, k-means, random), the resolution of a
# fit's `landmarks` argument (resolve_landmarks()), print(), and the title a
# Nystroem fit prints.

#' Landmarks for a Nystroem approximation, chosen with the class labels
#'
#' Picks the landmark points of a Nystroem approximation ([nystrom()],
#' `ikfd(landmarks = )`) in one of three ways compared by Schleif, Gisbrecht
#' and Tino (2018, Sec. 4):
#'
#' * `"meb"` (the paper's proposal, Sec. 4.1 and Algorithm 1): for each class,
#'   the core set of a \eqn{(1 + \epsilon)}-approximate minimum enclosing ball
#'   of the class in the kernel feature space (Badoiu & Clarkson's core-set
#'   loop: start from a random point and the point farthest from it, solve the
#'   small ball problem on the core set by pairwise SMO on the simplex, add
#'   the point farthest from its centre, until every point of the class lies
#'   within \eqn{(1 + \epsilon) R}). The landmarks are the core points with
#'   nonzero centre weight, at least two per class, united over the classes.
#'   The number of landmarks follows from `eps` (about \eqn{1/\epsilon} per
#'   class at most, independent of the class size), so `m` is not used.
#' * `"kmeans"` (Zhang & Kwok, ref. 14 of Schleif et al. 2018):
#'   [stats::kmeans()] with `m`
#'   centres in the input space; the centres are the landmarks (they need not
#'   be training points). `m` can be at most the number of distinct training
#'   points; with that many, every distinct point is a landmark. For a precomputed kernel, k-means runs on the rows of
#'   the kernel matrix (the empirical kernel map; for an indefinite kernel this
#'   is kernel k-means with \eqn{K K'}, Schleif et al. 2018, Sec. 4.2) and
#'   the landmarks are the training points nearest to the centres.
#' * `"random"`: `m` training points drawn uniformly, by default stratified by
#'   class (proportional allocation, at least two per class).
#'
#' With `m = NULL`, `"kmeans"` and `"random"` use the number of landmarks the
#' MEB selection picks, as in the paper's comparisons.
#'
#' The data go through the models' input path: with `scale = TRUE` (the
#' default, as in the models) the selection sees the columns centred and
#' scaled, as a model sees them, so landmarks selected here and passed to a
#' model with the same `scale` (and kernel) equal those it selects itself
#' (`landmarks = "meb"`). The returned `points` are in the original units
#' either way, as every coordinate a user gives a model.
#'
#' @section Cost:
#' With a positive definite kernel, MEB costs \eqn{O(n_j |S|)} kernel
#' evaluations and \eqn{O(n_j |S|^2)} further operations for a class of
#' \eqn{n_j} points with core set \eqn{S}; no \eqn{n_j \times n_j} matrix is
#' formed. A kernel that is not positive definite (a built-in indefinite
#' kernel such as [kernel_tanh()] or [kernel_dist()] with `power > 1`, a kernel
#' of unknown definiteness, or a precomputed kernel whose class block has a
#' negative eigenvalue) gives no ball in a feature space; as Schleif et al. do,
#' krein then runs MEB on the positive semidefinite \eqn{K_j K_j'} of the class
#' block (same eigenvectors, squared eigenvalues). That needs the whole class
#' block: \eqn{O(n_j^2)} kernel evaluations and memory and \eqn{O(n_j^2 |S|)}
#' operations. Whether a precomputed or unknown kernel is positive
#' semidefinite is decided by a Cholesky factorisation of the class block
#' (with a jitter of \eqn{10^{-10}} times its largest diagonal entry),
#' \eqn{O(n_j^3 / 3)}; set `psd` to skip the test.
#'
#' All randomness (the MEB starting points, the k-means starts, the random
#' draws) comes from R's RNG: `set.seed()` reproduces a selection.
#'
#' @param x Training data: a numeric matrix or data frame, an \eqn{n \times n}
#'   kernel matrix with `kernel = "precomputed"`, or a [precomputed_kernel()].
#' @param y Class labels, one per row of `x`.
#' @param kernel A kernel (see [kernels]) or `"precomputed"`.
#' @param method `"meb"`, `"kmeans"` or `"random"`.
#' @param eps The MEB approximation quality, in \eqn{(0, 1)}; Schleif et al. use
#'   0.01 throughout. The core set of a class is capped at \eqn{\max(200,
#'   \lceil 10/\epsilon \rceil)} points (and at the class size), with a warning
#'   if the cap is reached before the class is covered.
#' @param m The number of landmarks for `"kmeans"` and `"random"`; `NULL`
#'   takes the MEB count.
#' @param stratified For `"random"`: draw within each class.
#' @param psd For `"meb"`: is the kernel positive semidefinite? `NULL` decides
#'   as described under Cost; `TRUE` runs MEB on the kernel itself, `FALSE` on
#'   \eqn{K_j K_j'}.
#' @param threads Threads for kernel evaluations.
#' @param na.action `NULL` (the default: `getOption("na.action")`, as the
#'   models take it; see [krein_inputs]), [stats::na.omit()] or
#'   [stats::na.exclude()]: select among the complete rows only;
#'   [stats::na.fail()]: an error naming the rows of `x` or `y` with missing
#'   values. `indices` and
#'   `n` then count the complete rows, as a model fitted on the same data with
#'   the same `na.action` does (so the landmarks can be passed to it).
#' @inheritParams krein_inputs
#' @returns An object of class `krein_landmarks`: a list with `method`,
#'   `indices` (training rows; `NULL` for k-means centres of data), `points`
#'   (the landmark points for data, in the original units; `NULL` for
#'   precomputed kernels), `class`
#'   (the class of each landmark: its own label, or for k-means centres the
#'   majority class of its cluster), `n`, `eps`, and for `"meb"` a list
#'   `balls` with, per class, the core-set `indices`, their centre `weights`,
#'   the `radius` \eqn{R}, the largest distance of a class point to the centre
#'   (`farthest`, at most \eqn{(1 + \epsilon) R} on convergence), `squared`
#'   (was \eqn{K_j K_j'} used) and `converged`; with `scale = TRUE` also the
#'   `scaling` (centres and scales) the selection used and the points in
#'   those units (`scaled_points`).
#' @references
#' Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#' indefinite kernel approximation using minimum enclosing balls.
#' *Neurocomputing*, 318, 213-226. \doi{10.1016/j.neucom.2018.08.057}.
#'
#' Badoiu, M. and Clarkson, K. L. (2008). Optimal core-sets for balls.
#' *Computational Geometry*, 40(1), 14-22. \doi{10.1016/j.comgeo.2007.04.002}.
#'
#' Tsang, I. W., Kwok, J. T. and Cheung, P.-M. (2005). Core vector machines:
#' fast SVM training on very large data sets. *Journal of Machine Learning
#' Research*, 6, 363-392.
#'
#' Williams, C. K. I. and Seeger, M. (2001). Using the Nystroem method to
#' speed up kernel machines. In *Advances in Neural Information Processing
#' Systems 13*, MIT Press, 682-688.
#' @seealso `vignette("landmarks")` for evidence on when each method pays.
#' @family Nystroem approximation
#' @examples
#' set.seed(1)
#' train <- checkerboard(500, size = 3)
#' lm <- select_landmarks(train[, 1:2], train$y, kernel_rbf(5), method = "meb")
#' lm
#' ny <- nystrom(train[, 1:2], kernel_rbf(5), landmarks = lm)
#' nystrom_error(ny, train[, 1:2])
#' @export
select_landmarks <- function(x, y, kernel = kernel_rbf(), method = c("meb", "kmeans", "random"),
                             eps = 0.01, m = NULL, stratified = TRUE, psd = NULL,
                             threads = NULL, na.action = NULL, scale = TRUE) {
  check_kernel_argument(kernel, x)
  # the models' input path: the selection sees the data as a model with the
  # same `scale` (and kernel) sees them
  inputs <- inputs_from_xy(x, y, kernel, na.action = na.action, scale = scale)
  landmarks <- landmarks_from_inputs(inputs, method = method, eps = eps, m = m, stratified = stratified,
                                     psd = psd, threads = threads)
  scaling <- inputs$spec$scaling
  if (is.null(scaling) || is.null(landmarks$points)) return(landmarks)
  # points in the original units, as every coordinate a user gives; a model
  # with the same scaling takes the scaled ones as they are
  # (resolve_landmarks(), below), the training rows themselves by index
  landmarks$scaling <- scaling
  landmarks$scaled_points <- landmarks$points
  landmarks$points <- if (!is.null(landmarks$indices)) {
    original <- check_numeric_matrix_allow_na(x, "x")
    if (!is.null(inputs$na_action)) original <- original[-inputs$na_action, , drop = FALSE]
    original[landmarks$indices, , drop = FALSE]
  } else {
    unscale_columns(scaling, landmarks$points)
  }
  landmarks
}

#' Landmarks from prepared model inputs (the path select_landmarks() and the
#' Nystroem models share)
#' @noRd
landmarks_from_inputs <- function(inputs, method = c("meb", "kmeans", "random"), eps = 0.01,
                                  m = NULL, stratified = TRUE, psd = NULL, threads = NULL) {
  method <- match_choice(method, "method", c("meb", "kmeans", "random"))
  eps <- check_eps(eps)
  n <- length(inputs$y)
  if (!is.null(m)) {
    m <- check_number(m, "m", lower = 2, allow_lower = TRUE, integer = TRUE)
    if (m > n) krein_abort(sprintf("`m` must be at most the number of training points (%d), not %d.", n, m))
  }
  stratified <- check_flag(stratified, "stratified")
  if (!is.null(psd)) psd <- check_flag(psd, "psd")
  threads <- check_threads(threads)
  balls <- NULL
  if (method == "meb" || is.null(m)) {
    balls <- meb_balls(inputs, eps, psd, threads)
    meb_indices <- unlist(lapply(balls, `[[`, "indices"), use.names = FALSE)
    if (is.null(m)) m <- length(meb_indices)
  }
  out <- switch(method,
    meb = list(indices = meb_indices),
    kmeans = kmeans_landmarks(inputs, m, threads),
    random = list(indices = random_landmarks(inputs$y, m, stratified))
  )
  indices <- out$indices
  points <- out$points
  if (is.null(points) && !is.null(inputs$x)) points <- inputs$x[indices, , drop = FALSE]
  class <- out$class %||% inputs$y[indices]
  structure(
    list(method = method, indices = indices, points = points, class = class, n = n,
         eps = if (method == "meb" || !is.null(balls)) eps, balls = if (method == "meb") balls,
         levels = levels(inputs$y), precomputed = is.null(inputs$x)),
    class = "krein_landmarks"
  )
}

#' The points of a `krein_landmarks` object in the units of a fit: `x` the
#' fit's training rows as it sees them, `scaling` its scaling (NULL: none).
#' Training rows by index; points selected with the same scaling as they
#' were selected; other points (original units) scaled.
#' @noRd
landmark_points <- function(landmarks, x, scaling) {
  if (is.null(landmarks$points)) return(NULL)
  if (!is.null(landmarks$indices)) return(x[landmarks$indices, , drop = FALSE])
  if (!is.null(landmarks$scaled_points) && identical(landmarks$scaling, scaling)) return(landmarks$scaled_points)
  scale_columns(scaling, landmarks$points)
}

# Does a `landmarks` argument ask for k-means centres? They are computed from
# the inputs, so tuning must fit on the inputs rather than a kernel matrix.
landmarks_need_inputs <- function(landmarks) {
  (is.character(landmarks) || is.factor(landmarks)) && length(landmarks) == 1L &&
    identical(as.character(landmarks), "kmeans")
}

# NULL, a method name, training-row indices or a krein_landmarks object.
resolve_landmarks <- function(landmarks, inputs, eps, m, threads) {
  if (is.null(landmarks)) return(NULL)
  # "auto" is resolved once, by choose_form() (R/form.R)
  if (identical(landmarks, "auto")) krein_abort("internal: `landmarks = \"auto\"` reached a fitting function unresolved.")
  if (inherits(inputs, "krein_chunked_inputs")) return(chunk_landmarks(landmarks, inputs, eps, m, threads))
  n <- length(inputs$y)
  if (inherits(landmarks, "krein_landmarks")) {
    if (landmarks$n != n || landmarks$precomputed != is.null(inputs$x)) {
      krein_abort(sprintf("`landmarks` was selected on other data (%d %s points); select them on the training data of this fit (%d points).",
                          landmarks$n, if (landmarks$precomputed) "precomputed" else "data", n))
    }
    # select_landmarks() gives points in the original units: into the fit's
    landmarks$points <- landmark_points(landmarks, inputs$x, inputs$spec$scaling)
    landmarks$scaling <- NULL
    landmarks$scaled_points <- NULL
    return(landmarks)
  }
  if (is.character(landmarks)) {
    landmarks <- check_choice(landmarks, "landmarks", c("auto", "meb", "kmeans", "random"))
    return(landmarks_from_inputs(inputs, method = landmarks, eps = eps, m = m, threads = threads))
  }
  indices <- check_landmarks(landmarks, n)
  structure(list(method = "indices", indices = indices,
                 points = if (!is.null(inputs$x)) inputs$x[indices, , drop = FALSE],
                 class = inputs$y[indices], n = n, levels = levels(inputs$y),
                 precomputed = is.null(inputs$x)),
            class = "krein_landmarks")
}

#' Resolved landmarks (resolve_landmarks()) as the `landmarks` argument of
#' another fit on the same inputs -- kmdc's distance model, a Nystroem fit
#' after its spectrum correction -- which resolves them again and must take
#' them as they are: training rows by index, other points (k-means centres,
#' already in the fit's units) marked as scaled with the fit's scaling.
#' @noRd
landmarks_argument <- function(landmarks, inputs) {
  if (!is.null(landmarks$points) && is.null(landmarks$indices)) {
    landmarks$scaled_points <- landmarks$points
    landmarks$scaling <- inputs$spec$scaling
  }
  landmarks
}

check_eps <- function(eps) {
  if (!is.numeric(eps) || length(eps) != 1L || is.na(eps) || eps <= 0 || eps >= 1) {
    krein_abort(sprintf("`eps` must be a number in (0, 1), not %s.", describe_value(eps)))
  }
  as.double(eps)
}

# One MEB core set per class (paper 002, Sec. 4.1, Algorithm 1).
meb_balls <- function(inputs, eps, psd, threads) {
  y <- inputs$y
  # the core-set cap, 10 / eps points (at least 200), is computed in double:
  # as an integer it would overflow for eps < 5e-9; no class needs more than
  # its own size
  max_core <- max(200, ceiling(10 / eps))
  balls <- lapply(levels(y), function(level) {
    rows <- which(y == level)
    start <- sample.int(length(rows), 1L)
    core <- meb_core_set(inputs, rows, psd, threads, start, eps, as.integer(min(length(rows), max_core)))
    keep <- core$weights > 0
    if (sum(keep) < 2L) keep <- seq_along(core$weights) <= 2L
    list(class = level, indices = rows[core$core[keep]], weights = core$weights[keep],
         radius = sqrt(max(core$radius2, 0)), farthest = sqrt(max(core$farthest2, 0)),
         squared = core$squared, converged = core$converged, iterations = core$iterations)
  })
  names(balls) <- levels(y)
  unconverged <- !vapply(balls, `[[`, logical(1), "converged")
  if (any(unconverged)) {
    krein_warn(sprintf(
      "The MEB core set of class%s %s reached %d points without covering the class within (1 + eps) R; its landmarks are used as they are. Increase `eps`.",
      if (sum(unconverged) > 1) "es" else "", paste0("\"", levels(y)[unconverged], "\"", collapse = ", "),
      as.integer(min(max_core, max(table(y))))))
  }
  balls
}

# The core set of one class (paper 002, Algorithm 1). Built-in kernels and
# kernel blocks are handled in C++; only an R kernel (function, kernlab)
# known to be positive semidefinite is evaluated column by column through R.
# A kernel that is not positive semidefinite is replaced by K_j K_j' (step 4);
# with `psd = NULL` a block is tested in C++ (Cholesky with a jitter of
# 1e-10 times its largest diagonal entry).
meb_core_set <- function(inputs, rows, psd, threads, start, eps, max_core) {
  kernel <- inputs$kernel
  if (!is.null(inputs$precomputed)) {
    block <- inputs$precomputed$K[rows, rows, drop = FALSE]
  } else {
    x_class <- inputs$x[rows, , drop = FALSE]
    if (is.null(psd) && !is.na(kernel$positive_definite %||% NA)) psd <- kernel$positive_definite
    if (isTRUE(psd)) {
      if (is_builtin_kernel(kernel)) {
        # the core evaluates the kernel on the fly, unchecked; for a positive
        # semidefinite kernel |k(x, y)| <= sqrt(k(x, x) k(y, y)), so finite
        # self-similarities (checked by kernel_self()) bound every value
        kernel_self(kernel, x_class)
        return(cpp_meb_kernel(kernel, FALSE, x_class, x_class, start, eps, max_core, threads))
      }
      if (identical(kernel$name, "invariant") && is_builtin_kernel(kernel$base)) {
        x_tau <- apply_transform(kernel$transform, x_class)
        return(cpp_meb_kernel(kernel$base, TRUE, x_class, x_tau, start, eps, max_core, threads))
      }
      return(cpp_meb_callback(kernel_self(kernel, x_class), function(s) {
        evaluate_kernel(kernel, x_class, x_class[s, , drop = FALSE], threads)[, 1]
      }, start, eps, max_core))
    }
    block <- evaluate_kernel(kernel, x_class, NULL, threads)
  }
  cpp_meb_block(block, if (is.null(psd)) NA else psd, start, eps, max_core)
}

# k-means landmarks (Zhang & Kwok): centres in input space; for precomputed
# kernels, k-means on the rows of K and the nearest training points.
kmeans_landmarks <- function(inputs, m, threads) {
  data <- if (is.null(inputs$x)) inputs$precomputed$K else inputs$x
  distinct <- nrow(unique(data))
  if (m > distinct) {
    krein_abort(sprintf("`m` (%d) must be at most the number of distinct training points (%d) for k-means landmarks.",
                        m, distinct))
  }
  # k-means in units of a power of two near the data's largest magnitude: the
  # same clusters (the scaling is exact), but squared distances of tiny or
  # huge data neither underflow (every point "equal", kmeans()'s "empty
  # cluster") nor overflow
  unit <- max(abs(data))
  unit <- if (unit > 0) 2^round(log2(unit)) else 1
  data <- data / unit
  # Every distinct point a centre: the only solution, which kmeans()'s default
  # Hartigan-Wong algorithm refuses (it needs fewer centres than points) and
  # its random start would not find with duplicated rows; Lloyd's algorithm
  # started from the distinct points assigns each point to its copy.
  fit <- withCallingHandlers(
    if (m == distinct) {
      stats::kmeans(data, centers = data[!duplicated(data), , drop = FALSE], iter.max = 10L,
                    algorithm = "Lloyd")
    } else {
      stats::kmeans(data, centers = m, iter.max = 100L, nstart = 1L)
    },
    warning = function(w) {
      krein_warn(sprintf("k-means landmark selection: %s", conditionMessage(w)))
      invokeRestart("muffleWarning")
    })
  majority <- vapply(seq_len(m), function(k) {
    members <- inputs$y[fit$cluster == k]
    if (length(members) == 0L) NA_character_ else names(which.max(table(members)))
  }, character(1))
  class <- factor(majority, levels = levels(inputs$y))
  if (!is.null(inputs$x)) {
    centres <- fit$centers * unit
    dimnames(centres) <- list(NULL, colnames(inputs$x))
    return(list(indices = NULL, points = centres, class = class))
  }
  # nearest training point (in the rows of K) to each centre, without repeats
  nearest <- vapply(seq_len(m), function(k) {
    members <- which(fit$cluster == k)
    d <- rowSums((data[members, , drop = FALSE] - rep(fit$centers[k, ], each = length(members)))^2)
    members[which.min(d)]
  }, integer(1))
  list(indices = nearest, points = NULL, class = inputs$y[nearest])
}

# Uniform draws, stratified by class with proportional allocation (largest
# remainders) and at least two per class (more than m only when m is below
# two per class).
random_landmarks <- function(y, m, stratified) {
  n <- length(y)
  if (!stratified) return(sort(sample.int(n, m)))
  counts <- as.vector(table(y))
  share <- as.double(m) * counts / n  # as doubles: m times a class count passes 2^31 at 1e6 rows
  take <- floor(share)
  short <- m - sum(take)
  if (short > 0) take[order(share - take, decreasing = TRUE)[seq_len(short)]] <-
    take[order(share - take, decreasing = TRUE)[seq_len(short)]] + 1
  # at least two per class, taken from the classes with the most
  floor_take <- pmin(2, counts)
  while (any(take < floor_take)) {
    j <- which(take < floor_take)[1]
    take[j] <- take[j] + 1
    donor <- which.max(ifelse(take > floor_take, take, -Inf))
    if (is.finite(take[donor]) && take[donor] > floor_take[donor] && sum(take) > m) take[donor] <- take[donor] - 1
  }
  sort(unlist(lapply(seq_along(counts), function(j) {
    rows <- which(as.integer(y) == j)
    rows[sample.int(length(rows), take[j])]
  }), use.names = FALSE))
}

#' @export
print.krein_landmarks <- function(x, ...) {
  m <- length(x$class)
  cat("<Landmarks> ", m, " chosen by ", switch(x$method, meb = "minimum enclosing balls",
      kmeans = "k-means", random = "random sampling", indices = "row indices"), " from ", x$n,
      " points\n", sep = "")
  per_class <- table(x$class, useNA = "no")
  cat("  per class: ", paste0(names(per_class), " ", as.vector(per_class), collapse = ", "), "\n", sep = "")
  if (x$method == "meb") {
    cat("  eps = ", format(x$eps), "; radius per class: ",
        paste(format(vapply(x$balls, `[[`, numeric(1), "radius"), digits = 4), collapse = ", "),
        if (any(vapply(x$balls, `[[`, logical(1), "squared"))) " (K K' for classes with an indefinite kernel)",
        "\n", sep = "")
  }
  invisible(x)
}

# "Nystroem, 19 MEB landmarks" (ikfd, kqd and pcvm); "" for a full fit
nystrom_title <- function(landmarks) {
  if (is.null(landmarks)) return("")
  sprintf("Nystroem, %d %slandmarks", length(landmarks$class), landmark_method_word(landmarks))
}

# How landmarks were chosen, as a word before "landmarks": "MEB ", "k-means
# ", "random ", or "" for rows given by index
landmark_method_word <- function(landmarks) {
  switch(landmarks$method, meb = "MEB ", kmeans = "k-means ", random = "random ", "")
}
