#' Kernel Fisher linear and quadratic discriminant analysis on the kernel data
#'
#' KFLDA and KFQDA of Huang, Hwang and Lin (2005, Sec. 4): every point
#' \eqn{x} is represented by
#' its kernel data \eqn{K_x = (k(x, x_1), \dots, k(x, x_n))'}, the Aronszajn
#' map of eq. (7) discretised at the training points, and classical Fisher
#' discriminant analysis runs on the kernel training data \eqn{[K, y]} (eq.
#' 10). Kernel data are much closer to Gaussian than most raw data (Example 1,
#' see [kernel_normality()]), which is what Fisher's Gaussian model needs.
#'
#' @section The discriminants:
#' With \eqn{\bar k_i} the mean kernel data of class \eqn{i} and \eqn{q_i} its
#' prior, KFLDA (`type = "linear"`, eq. 11) gives the log-likelihood ratio of
#' class \eqn{i} against the reference class 1 as
#' \deqn{\{K_x - (\bar k_i + \bar k_1)/2\}' M^{-1} (\bar k_i - \bar k_1) + \log(q_i/q_1)}
#' with \eqn{M} the pooled covariance; KFQDA (`type = "quadratic"`, eq. 12) as
#' \deqn{\tfrac12 \{(K_x - \bar k_1)' M_1^{-1} (K_x - \bar k_1) - (K_x - \bar
#' k_i)' M_i^{-1} (K_x - \bar k_i)\} + \log(q_i/q_1) + \tfrac12 \log(|M_1| / |M_i|)}
#' with class covariances \eqn{M_i}. `logdet = FALSE` drops the determinant
#' term (Remark 1: a kernel Mahalanobis criterion). These ratios are the
#' `"decision"` values (the first column, class 1 against itself, is 0); the
#' posteriors are eq. (9), their softmax, and the class is the one with the
#' largest posterior. Everything is computed on the reduced kernel data
#' described next, with \eqn{K_x} replaced by its reduction.
#'
#' **Covariance normalisation.** As [MASS::lda()] and [MASS::qda()]
#' (`method = "moment"`): \eqn{M = \sum_i S_i / (n - K)} and \eqn{M_i = S_i /
#' (n_i - 1)}, where \eqn{S_i} is the centred scatter matrix of class \eqn{i}
#' and \eqn{K} the number of classes. So `kfda()` gives the posteriors of
#' `MASS::lda()` / `MASS::qda()` run on the same reduced kernel data.
#'
#' @section Regularisation (Huang, Hwang and Lin 2005, Sec. 4.2):
#' The kernel data are \eqn{n}-dimensional and their covariances singular
#' (Remark 3), so one of three reductions is used:
#' * `reduce = "pca"` (the paper's choice for small data): the leading
#'   `ncomp` principal components of the kernel data \eqn{K}. `ncomp` is a
#'   whole number, or a fraction in \eqn{(0, 1)}: the fewest components whose
#'   share of the variance reaches it. `NULL` takes the fewest reaching 99%,
#'   but at most a fifth of the training points (linear) or a quarter of the
#'   smallest class (quadratic), so that each covariance has several points
#'   per dimension. The share of the variance of the centred kernel data kept
#'   is reported. (The percentages of the paper's Tables 3-4 are another
#'   quantity: the cumulative share of the absolute eigenvalues of the
#'   uncentred \eqn{K}.) The components come from a thin singular value
#'   decomposition of the centred kernel data (not from the eigenvectors of
#'   their covariance, which would square the condition number) and are
#'   kept up to its numerical rank: singular values below \eqn{n \epsilon}
#'   times the largest are rounding noise. A larger `ncomp` is an error of
#'   class `krein_rank_error`.
#'   Costs \eqn{O(n^3)} time and \eqn{O(n^2)} memory; the model keeps all
#'   training points.
#' * `reduce = "subset"` (Lee & Mangasarian's reduced set, for large data):
#'   the kernel data are only the columns of `bases` training points drawn at
#'   random with R's RNG (`set.seed()` reproduces them): \eqn{K_x = (k(x,
#'   u_1), \dots, k(x, u_m))}. `bases` is a count, a fraction of the
#'   training points in \eqn{(0, 1)}, or a vector of training-row indices.
#'   `NULL` takes 10% of the points, at most 500 (at most a quarter of the
#'   smallest class for KFQDA). The paper suggests 1-2% for massive data,
#'   10-20% for moderate sizes. Costs \eqn{O(n m^2)} time, \eqn{O(n m)}
#'   memory; the model keeps the \eqn{m} bases.
#' * `reduce = "ridge"` (Mika et al.): all \eqn{n} columns of \eqn{K}, with
#'   `ridge` \eqn{\times I} added to the covariances (\eqn{M + rI}, \eqn{M_i +
#'   rI}). `NULL` takes \eqn{r} = 1e-3 times the mean variance of the kernel
#'   data columns (the mean diagonal of the pooled covariance). Costs
#'   \eqn{O(n^3)} per class.
#'
#' A `ridge` can also be added to the covariances of the `"pca"` and
#' `"subset"` reductions (in the units of their coordinates: principal
#' component scores, kernel values). A covariance that is still singular --
#' the "---" cells of Tables 3-4, where a class has too few points or too
#' little spread for the dimension -- is an error that says which class and
#' what to change; there is no silent pseudo-inverse. Singular means that a
#' class has no more points than dimensions (without a ridge), or that the
#' reciprocal condition number of the covariance's triangular factor
#' (LAPACK's `dtrcon` through [rcond()], about the ratio of the smallest to
#' the largest singular value of the centred class data, on coordinates
#' scaled to unit variance) is below `tol`. The factors come from a QR
#' decomposition of the centred data, never from the covariance itself, so
#' the small directions keep their digits. The default `tol = 1e-9` is far
#' below MASS's `1e-4` (which refuses most reductions the paper uses) and
#' above the rounding level of Matlab's `classify`, which the paper used. On
#' one draw of `sine_populations()` it refused the "---" cells of Table 3 at
#' \eqn{\sigma^2 = 0.25} (25 components) and \eqn{\sigma^2 = 10} (35) and
#' accepted its cells with 8-15 components and most of those with 25; cells
#' near the threshold can go either way with the draw.
#'
#' The kernel need not be positive definite: the kernel data are features, so
#' any similarity (or a precomputed kernel matrix, or dissimilarities through
#' [kernel_from_dissimilarity()]) can be used.
#'
#' @section The expansion:
#' For KFLDA every log-likelihood ratio is a kernel expansion \eqn{d_i(x) =
#' \sum_j \alpha_{ij} k(x_j, x) + b_i} (Remark 4, eq. 13) over the training
#' points (or the bases); [coef()] returns the \eqn{\alpha}s and \eqn{b}s.
#'
#' @inheritParams kqd
#' @param type `"linear"` (KFLDA, eq. 11) or `"quadratic"` (KFQDA, eq. 12).
#' @param reduce `"pca"`, `"subset"` or `"ridge"` (see Regularisation).
#' @param ncomp For `"pca"`: the number of principal components, or the share
#'   of the variance to keep (a number in \eqn{(0, 1)}); `NULL` for the
#'   default described above.
#' @param bases For `"subset"`: the number of random bases, their share of the
#'   training points, or their row indices; `NULL` for the default. (Named
#'   `bases`, not `subset`, because `subset` selects training rows in the
#'   formula interface, as in every R modelling function.)
#' @param ridge A non-negative number added to the diagonal of the
#'   covariances; `NULL` for 0 (`"pca"`, `"subset"`) or the default ridge
#'   (`"ridge"`).
#' @param logdet For `type = "quadratic"`: keep the log-determinant term of
#'   eq. (12) (`TRUE`) or drop it (`FALSE`, Remark 1). Ignored for the linear
#'   rule, where the determinants cancel.
#' @param tol Singularity tolerance on the reciprocal condition number of a
#'   covariance's factor, a number in \eqn{(0, 1)} (see Regularisation).
#' @param threads Threads for the kernel evaluations and the covariances.
#' @returns An object of class `c("kfda", "krein_model")`: a list with
#'   `type`, `reduce`, `ncomp` (the reduced dimension), `variance_explained`
#'   (for `"pca"`), `bases` (training-row indices, for `"subset"`), `ridge`,
#'   `prior`, `counts`, `levels`, `means` (class means of the reduced kernel
#'   data, one row per class), `training_error`, `scaling` (the Fisher
#'   discriminant directions in the reduced space, as `MASS::lda()`'s) and
#'   `trace_proportion` (their share of the between-class variance), and what
#'   prediction needs.
#' @family kernel Fisher discriminant on the kernel data
#' @examples
#' set.seed(1)
#' train <- sine_populations(100)
#' test <- sine_populations(200)
#' # Huang, Hwang and Lin (2005), Example 3: the quadratic rule wins by far
#' # at 10 components
#' lin <- kfda(y ~ ., data = train, kernel = kernel_rbf(2), ncomp = 10)
#' quad <- kfda(y ~ ., data = train, kernel = kernel_rbf(2), ncomp = 10, type = "quadratic")
#' c(linear = mean(predict(lin, test) != test$y),
#'   quadratic = mean(predict(quad, test) != test$y))
#' quad
#' head(predict(quad, test, type = "prob"))
#' # a random subset of 20% of the points as bases
#' rs <- kfda(y ~ ., data = train, kernel = kernel_rbf(2), reduce = "subset", bases = 0.2)
#' mean(predict(rs, test) != test$y)
#' @export
kfda <- function(x, ...) UseMethod("kfda")

#' @rdname kfda
#' @export
kfda.formula <- function(formula, data, subset, na.action, kernel = kernel_rbf(), ...) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel)
  fit <- kfda_fit(inputs, ...)
  fit$call <- match.call()
  fit
}

#' @rdname kfda
#' @export
kfda.default <- function(x, y, kernel = kernel_rbf(), type = c("linear", "quadratic"),
                         reduce = c("pca", "subset", "ridge"), ncomp = NULL, bases = NULL,
                         ridge = NULL, prior = NULL, logdet = TRUE, tol = 1e-9, na.action = NULL,
                         threads = NULL, ...) {
  check_no_subset_argument(list(...))
  inputs <- inputs_from_xy(x, y, kernel, na.action)
  fit <- kfda_fit(inputs, type = type, reduce = reduce, ncomp = ncomp, bases = bases,
                  ridge = ridge, prior = prior, logdet = logdet, tol = tol, threads = threads)
  fit$call <- match.call()
  fit
}

# `subset` is row selection in the formula interface; the number of random
# bases is `bases`. Say so rather than ignore it.
check_no_subset_argument <- function(dots) {
  if ("subset" %in% names(dots)) {
    krein_abort("`subset` is not an argument of kfda() for matrix input; give the number (or share, or indices) of random bases as `bases`.")
  }
}

#' The fit behind every kfda() interface
#' @noRd
kfda_fit <- function(inputs, type = c("linear", "quadratic"), reduce = c("pca", "subset", "ridge"),
                     ncomp = NULL, bases = NULL, ridge = NULL, prior = NULL, logdet = TRUE,
                     tol = 1e-9, threads = NULL, ...) {
  check_no_subset_argument(list(...))
  type <- match_choice(type, "type", c("linear", "quadratic"))
  reduce <- match_choice(reduce, "reduce", c("pca", "subset", "ridge"))
  logdet <- check_flag(logdet, "logdet")
  tol <- check_number(tol, "tol", lower = 0, upper = 1)
  threads <- check_threads(threads)
  if (!is.null(ridge)) ridge <- check_number(ridge, "ridge", lower = 0, allow_lower = TRUE)
  if (!is.null(ncomp) && reduce != "pca") {
    krein_abort(sprintf("`ncomp` is for reduce = \"pca\"; with reduce = \"%s\" leave it NULL.", reduce))
  }
  if (!is.null(bases) && reduce != "subset") {
    krein_abort(sprintf("`bases` is for reduce = \"subset\"; with reduce = \"%s\" leave it NULL.", reduce))
  }
  y <- inputs$y
  levels <- levels(y)
  counts <- stats::setNames(as.vector(table(y)), levels)
  check_two_per_class(counts, "kfda()")
  prior <- check_prior(prior, levels, counts)

  reduction <- switch(reduce,
    pca = kfda_pca(inputs, ncomp, type, counts, threads),
    subset = kfda_subset(inputs, bases, type, counts, threads),
    ridge = kfda_full_columns(inputs, threads)
  )
  classes <- length(levels)
  moments <- cpp_kfda_class_factors(reduction$Z, as.integer(y), classes, threads)
  p <- ncol(reduction$Z)
  n <- length(y)
  # the pooled scatter's factor: QR of the stacked class factors
  pooled_root <- cpp_triangular_factor(do.call(rbind, moments$factors)) / sqrt(n - classes)
  if (is.null(ridge)) {
    # the default ridge of reduce = "ridge": 1e-3 of the mean variance of the
    # kernel data columns (in their own units, hence the scale^2)
    ridge <- if (reduce == "ridge") 1e-3 * mean(colSums(pooled_root^2) * reduction$scale^2) else 0
  }
  ridge_scaled <- ridge / reduction$scale^2
  hint <- kfda_singular_hint(reduce, type)
  if (type == "linear" && n - classes < p && ridge == 0) {
    krein_abort(sprintf("The pooled covariance of the reduced kernel data is singular: %d points in %d classes cannot estimate it in %d dimensions. %s",
                        n, classes, p, hint), class = "krein_singular_covariance")
  }
  pooled_factor <- covariance_factor(pooled_root, ridge_scaled, "The pooled covariance", p, tol, hint)
  discriminant <- if (type == "linear") {
    kfda_linear_parameters(pooled_factor, moments$means, prior)
  } else {
    kfda_quadratic_parameters(moments, counts, ridge_scaled, prior, p, tol, hint, ridge > 0)
  }
  discriminant$means <- moments$means
  fisher <- fisher_directions(pooled_factor, moments$means, prior)
  fit <- structure(
    list(type = type, reduce = reduce, ncomp = p, variance_explained = reduction$variance_explained,
         eigenvalues = reduction$eigenvalues, bases = reduction$bases, ridge = ridge, logdet = logdet,
         tol = tol, prior = prior, counts = counts, levels = levels,
         means = stats::setNames(as.data.frame(t(moments$means) * rep(reduction$scale, each = length(levels))),
                                 paste0("Z", seq_len(p))),
         projection = reduction[c("center", "rotation", "scale")], discriminant = discriminant,
         scaling = fisher$scaling, fisher_center = fisher$center,
         trace_proportion = fisher$trace_proportion,
         x = reduction$points, kernel = inputs$kernel, spec = inputs$spec, threads = threads,
         na_action = inputs$na_action),
    class = c("kfda", "krein_model")
  )
  rownames(fit$means) <- levels
  decision <- kfda_decisions(fit, reduction$Z)
  fit$training_error <- mean(class_from_decisions(decision, levels) != y)
  if (type == "linear") fit[c("coefficients", "intercept")] <- kfda_expansion(fit)
  # a small, evenly spaced sample of the training points in the Fisher
  # coordinates, and of the inputs, for plot()
  shown <- unique(round(seq(1, n, length.out = min(n, 2000L))))
  fit$training_sample <- list(
    rows = shown, y = y[shown],
    projection = fisher_coordinates(fit, reduction$Z[shown, , drop = FALSE]),
    x = if (!is.null(inputs$x)) inputs$x[shown, , drop = FALSE]
  )
  fit
}

kfda_singular_hint <- function(reduce, type) {
  change <- switch(reduce,
    pca = "Use fewer components (`ncomp`) or add a `ridge`",
    subset = "Use fewer bases (`bases`) or add a `ridge`",
    ridge = "Use a larger `ridge`"
  )
  paste0(change, if (type == "quadratic") ", or type = \"linear\"" else "", ".")
}

# The upper triangular factor R (R'R = M) of a covariance M given as root'root,
# plus a ridge on its diagonal, or an error naming M when it is singular: the
# reciprocal condition number of R (LAPACK dtrcon, about the ratio of the
# smallest to the largest singular value of the centred data) below `tol`.
covariance_factor <- function(root, ridge_scaled, what, p, tol, hint) {
  R <- if (any(ridge_scaled > 0)) cpp_triangular_factor(rbind(root, diag(sqrt(ridge_scaled), p))) else root
  condition <- rcond(R, triangular = TRUE)
  if (!is.finite(condition) || condition < tol) {
    krein_abort(sprintf("%s of the reduced kernel data is singular in %d dimensions (reciprocal condition number %s, below `tol` = %s). %s",
                        what, p, format(condition, digits = 3), format(tol, digits = 3), hint),
                class = "krein_singular_covariance")
  }
  R
}

# KFLDA (eq. 11): g_i(z) = z' M^-1 m_i - m_i' M^-1 m_i / 2 + log q_i
kfda_linear_parameters <- function(R, means, prior) {
  W <- backsolve(R, forwardsolve(t(R), means))
  list(weights = W, constant = -0.5 * colSums(means * W) + log(prior))
}

# KFQDA (eq. 12): g_i(z) = -||(z - m_i)' F_i||^2 / 2 - log|M_i| / 2 + log q_i,
# F_i = R_i^-1 for M_i = R_i' R_i
kfda_quadratic_parameters <- function(moments, counts, ridge_scaled, prior, p, tol, hint, ridged) {
  levels <- names(counts)
  factors <- vector("list", length(levels))
  logdets <- numeric(length(levels))
  for (i in seq_along(levels)) {
    what <- sprintf("The covariance of class \"%s\"", levels[i])
    if (counts[i] - 1 < p && !ridged) {
      krein_abort(sprintf("%s of the reduced kernel data is singular: %d points cannot estimate it in %d dimensions. %s",
                          what, counts[i], p, hint), class = "krein_singular_covariance")
    }
    R <- covariance_factor(moments$factors[[i]] / sqrt(counts[i] - 1), ridge_scaled, what, p, tol, hint)
    factors[[i]] <- backsolve(R, diag(p))
    logdets[i] <- 2 * sum(log(abs(diag(R))))
  }
  list(factors = factors, logdet = logdets, log_prior = log(prior))
}

# Fisher's canonical directions in the reduced space, as MASS::lda's
# `scaling`: the generalised eigenvectors of the prior-weighted between-class
# covariance against the pooled one, normalised so that the pooled
# within-class covariance of the coordinates is the identity.
fisher_directions <- function(R, means, prior) {
  center <- as.vector(means %*% prior)
  between <- (means - center) %*% (prior * t(means - center))
  R_inv <- backsolve(R, diag(nrow(R)))
  A <- crossprod(R_inv, between %*% R_inv)
  e <- cpp_symmetric_eigen((A + t(A)) / 2, TRUE)
  d <- min(nrow(R), ncol(means) - 1L)
  values <- pmax(e$values[seq_len(d)], 0)
  scaling <- R_inv %*% e$vectors[, seq_len(d), drop = FALSE]
  colnames(scaling) <- paste0("LD", seq_len(d))
  list(scaling = scaling, center = center,
       trace_proportion = if (sum(values) > 0) values / sum(values) else values)
}

fisher_coordinates <- function(fit, Z) {
  (Z - rep(fit$fisher_center, each = nrow(Z))) %*% fit$scaling
}

# n x K log-likelihood ratios against the first class (eqs. 11, 12)
kfda_decisions <- function(fit, Z) {
  d <- fit$discriminant
  g <- if (fit$type == "linear") {
    Z %*% d$weights + rep(d$constant, each = nrow(Z))
  } else {
    Q <- cpp_kfda_quadratic_forms(Z, d$means, d$factors)
    -0.5 * Q + rep(d$log_prior - if (fit$logdet) 0.5 * d$logdet else 0, each = nrow(Z))
  }
  g - g[, 1]
}

# KFLDA as a kernel expansion (Remark 4, eq. 13): d_i(x) = k_x' alpha_i + b_i
kfda_expansion <- function(fit) {
  d <- fit$discriminant
  proj <- fit$projection
  W <- d$weights - d$weights[, 1]
  if (length(proj$rotation)) W <- proj$rotation %*% (W / proj$scale) else W <- W / proj$scale
  b <- d$constant - d$constant[1] - as.vector(crossprod(proj$center, W))
  colnames(W) <- names(b) <- fit$levels
  list(coefficients = W, intercept = b)
}

# --- the three reductions: reduced data Z (scaled), and how to reduce new kernel data

kfda_pca <- function(inputs, ncomp, type, counts, threads) {
  K <- training_kernel(inputs, threads)
  n <- nrow(K)
  # the components from a thin SVD of the centred kernel data Z = U D V'
  # (rotation V, variances D^2 / (n - 1)), not from the eigenvectors of Z'Z,
  # which squares the condition number (see centred_svd in
  # inst/include/krein/kfda.hpp)
  one <- cpp_centred_svd(K, threads)
  d <- one$d
  values <- d^2 / (n - 1)
  # Numerical rank on the singular values, by the usual rule (LAPACK's, and
  # Matlab's rank(): max(size) * eps * norm): a backward stable SVD returns
  # each singular value with an error up to a modest multiple of
  # eps * D_max, so smaller ones cannot be told from zero; ncol(K) = n here.
  # On the eigenvalues of Z'Z the same rule would keep only D > sqrt(n eps) D_max.
  rank <- sum(d > d[1] * max(n, ncol(K)) * .Machine$double.eps)
  if (rank == 0L) krein_abort("The kernel data have no variance: every training point has the same kernel row.")
  total <- sum(values[values > 0])
  share <- cumsum(values[seq_len(rank)]) / total
  if (is.null(ncomp)) {
    cap <- if (type == "linear") floor(n / 5) else floor(min(counts) / 4)
    ncomp <- max(1L, min(which(share >= 0.99)[1], cap, rank))
  } else {
    if (!is.numeric(ncomp) || length(ncomp) != 1L || is.na(ncomp) || ncomp <= 0) {
      krein_abort(sprintf("`ncomp` must be a whole number of components or a share of variance in (0, 1), not %s.",
                          describe_value(ncomp)))
    }
    if (ncomp < 1) {
      ncomp <- which(share >= ncomp - 1e-12)[1]
      if (is.na(ncomp)) ncomp <- rank
    } else {
      ncomp <- check_number(ncomp, "ncomp", lower = 1, allow_lower = TRUE, integer = TRUE)
      if (ncomp > rank) {
        krein_abort(sprintf("`ncomp` (%d) is larger than the rank of the kernel data (%d): there are only %d principal components with variance.",
                            ncomp, rank, rank), class = "krein_rank_error")
      }
    }
  }
  keep <- seq_len(ncomp)
  rotation <- one$v[, keep, drop = FALSE]
  scale <- sqrt(values[keep])
  list(Z = cpp_kfda_project(K, one$means, rotation, scale), center = one$means,
       rotation = rotation, scale = scale, variance_explained = share[ncomp],
       eigenvalues = values[seq_len(rank)], points = inputs$x, bases = NULL)
}

kfda_subset <- function(inputs, bases, type, counts, threads) {
  n <- length(inputs$y)
  bases <- resolve_bases(bases, n, type, counts)
  K <- if (is.null(inputs$x)) {
    inputs$precomputed$K[, bases, drop = FALSE]
  } else {
    evaluate_kernel(inputs$kernel, inputs$x, inputs$x[bases, , drop = FALSE], threads)
  }
  c(column_reduction(K, threads),
    list(points = if (!is.null(inputs$x)) inputs$x[bases, , drop = FALSE], bases = bases))
}

kfda_full_columns <- function(inputs, threads) {
  c(column_reduction(training_kernel(inputs, threads), threads),
    list(points = inputs$x, bases = NULL))
}

# Kernel data columns centred and scaled to unit variance (an invertible
# affine map: the discriminants do not change, the covariances are better
# conditioned).
column_reduction <- function(K, threads) {
  moments <- cpp_column_moments(K, threads)
  scale <- moments$sd
  scale[!(scale > 0)] <- 1
  center <- moments$mean
  no_rotation <- matrix(0, ncol(K), 0)
  list(Z = cpp_kfda_project(K, center, no_rotation, scale), center = center,
       rotation = NULL, scale = scale, variance_explained = NULL, eigenvalues = NULL)
}

resolve_bases <- function(bases, n, type, counts) {
  if (is.null(bases)) {
    m <- min(ceiling(n / 10), 500)
    if (type == "quadratic") m <- min(m, floor(min(counts) / 4))
    return(sort(sample.int(n, max(1L, m))))
  }
  if (!is.numeric(bases) || anyNA(bases) || length(bases) == 0L || any(bases <= 0)) {
    krein_abort(sprintf("`bases` must be a number of bases, a share of the training points in (0, 1), or training-row indices, not %s.",
                        describe_value(bases)))
  }
  if (length(bases) == 1L && bases < 1) return(sort(sample.int(n, max(1L, round(bases * n)))))
  if (length(bases) == 1L) {
    m <- check_number(bases, "bases", lower = 1, allow_lower = TRUE, integer = TRUE)
    if (m > n) {
      krein_abort(sprintf("`bases` (%d) is larger than the number of training points (%d).", m, n))
    }
    return(sort(sample.int(n, m)))
  }
  if (any(abs(bases - round(bases)) > 0) || any(bases > n) || anyDuplicated(bases)) {
    krein_abort(sprintf("`bases` as indices must be distinct training rows between 1 and %d.", n))
  }
  sort(as.integer(bases))
}

#' @export
coef.kfda <- function(object, ...) {
  if (object$type != "linear") {
    krein_abort("Only the linear rule (type = \"linear\") is a kernel expansion; KFQDA has no coefficients of that form.")
  }
  rbind(`(Intercept)` = object$intercept, object$coefficients)
}

#' Predict with a kernel Fisher discriminant on the kernel data
#'
#' @param object A `kfda` fit.
#' @param newdata New data in the form the model was fitted on (see
#'   [krein_inputs]); for a precomputed kernel, the kernel of the new points
#'   against all training points (a `"subset"` fit uses the columns of its
#'   bases). Missing: the training data of a fit that kept them.
#' @param type `"class"`, `"prob"` (the posteriors of eq. 9), `"decision"`
#'   (the log-likelihood ratios of eqs. 11-12 against the first class) or
#'   `"projection"` (the Fisher discriminant coordinates LD1, LD2, ... in the
#'   reduced kernel data space, as `predict(<lda>)$x`).
#' @param ... Unused.
#' @returns A factor with the training levels, or a matrix with one row per
#'   point (and one column per class, or per discriminant direction).
#' @family kernel Fisher discriminant on the kernel data
#' @export
predict.kfda <- function(object, newdata, type = c("class", "prob", "decision", "projection"), ...) {
  type <- match_choice(type, "type", c("class", "prob", "decision", "projection"))
  if (missing(newdata) || is.null(newdata)) {
    if (object$reduce == "subset" || is.null(object$x)) {
      krein_abort(if (object$reduce == "subset") "`newdata` is missing; a reduce = \"subset\" fit keeps only its bases, not the training data."
                  else "`newdata` is missing; give the kernel of the points to predict against the training points.")
    }
    K <- evaluate_kernel(object$kernel, object$x, object$x, object$threads)
    return(kfda_outputs(object, K, rownames(object$x), type))
  }
  new <- new_inputs(object$spec, newdata)
  K <- new_kernel_matrix(object$spec, new, points = object$x, columns = object$bases,
                         threads = object$threads)
  kfda_outputs(object, K, rownames(new$x %||% new$K), type)
}

kfda_outputs <- function(object, K, names, type) {
  proj <- object$projection
  Z <- cpp_kfda_project(K, proj$center, proj$rotation %||% matrix(0, ncol(K), 0), proj$scale)
  if (type == "projection") {
    out <- fisher_coordinates(object, Z)
    rownames(out) <- names
    return(out)
  }
  decision <- kfda_decisions(object, Z)
  dimnames(decision) <- list(names, object$levels)
  switch(type,
    decision = decision,
    prob = softmax_rows(decision),
    class = stats::setNames(class_from_decisions(decision, object$levels), names)
  )
}

# Classes of points given as a numeric matrix in the input space (plot grids)
kfda_points_class <- function(object, points) {
  K <- evaluate_kernel(object$kernel, points, object$x, object$threads)
  kfda_outputs(object, K, NULL, "class")
}

kfda_label <- function(x) {
  paste0(if (x$type == "linear") "KFLDA" else "KFQDA",
         switch(x$reduce, pca = sprintf(", %d principal components", x$ncomp),
                subset = sprintf(", %d random bases", x$ncomp),
                ridge = ", ridge"))
}

#' @export
print.kfda <- function(x, ...) {
  cat("Kernel Fisher ", if (x$type == "linear") "linear" else "quadratic",
      " discriminant on the kernel data (", if (x$type == "linear") "KFLDA" else "KFQDA", "), ",
      length(x$levels), " classes, ", sum(x$counts), " training points\n", sep = "")
  cat("  kernel: ", kernel_description(x$kernel), "\n", sep = "")
  cat("  reduction: ", switch(x$reduce,
    pca = sprintf("%d principal components (%.2f%% of the variance)", x$ncomp, 100 * x$variance_explained),
    subset = sprintf("%d random bases (%.1f%% of the points)", x$ncomp, 100 * x$ncomp / sum(x$counts)),
    ridge = sprintf("all %d kernel columns", x$ncomp)),
    if (x$ridge > 0) sprintf(", ridge %s", format(x$ridge, digits = 3)) else "", "\n", sep = "")
  if (x$type == "quadratic" && !x$logdet) cat("  log-determinants dropped (kernel Mahalanobis rule)\n")
  cat("  training error: ", format(x$training_error, digits = 3), "\n", sep = "")
  invisible(x)
}

#' @export
summary.kfda <- function(object, ...) {
  classes <- data.frame(n = as.vector(object$counts), prior = as.vector(object$prior),
                        row.names = object$levels)
  if (object$type == "quadratic") classes$log_det <- object$discriminant$logdet +
    2 * sum(log(object$projection$scale))
  structure(list(label = kfda_label(object), type = object$type, reduce = object$reduce,
                 ncomp = object$ncomp, variance_explained = object$variance_explained,
                 ridge = object$ridge, classes = classes,
                 trace_proportion = stats::setNames(object$trace_proportion, colnames(object$scaling)),
                 training_error = object$training_error, kernel = object$kernel),
            class = "summary.kfda")
}

#' @export
print.summary.kfda <- function(x, ...) {
  cat(x$label, "\n", sep = "")
  cat("kernel: ", kernel_description(x$kernel), "\n", sep = "")
  if (!is.null(x$variance_explained)) {
    cat("variance of the kernel data kept: ", sprintf("%.2f%%", 100 * x$variance_explained), "\n", sep = "")
  }
  if (x$ridge > 0) cat("ridge: ", format(x$ridge, digits = 4), "\n", sep = "")
  cat("\nClasses", if (x$type == "quadratic") " (log-determinant of the covariance of the reduced kernel data)", ":\n", sep = "")
  print(x$classes, digits = 4)
  cat("\nProportion of trace (Fisher directions):\n")
  print(round(x$trace_proportion, 4))
  cat("\nTraining error: ", format(x$training_error, digits = 4), "\n", sep = "")
  invisible(x)
}

#' Plot a kernel Fisher discriminant on the kernel data
#'
#' For two input variables: the decision regions over the plane with the
#' training points (or `data`). Otherwise (or for precomputed kernels): the
#' training points in the Fisher discriminant coordinates of the reduced
#' kernel data (LD1 against LD2, or histograms of LD1 for two classes), as
#' `plot(<lda>)` draws them.
#'
#' @param x A `kfda` fit.
#' @param data Points to draw instead of the training points (for 2-D
#'   inputs), in the form the model was fitted on.
#' @param resolution Grid points per axis for decision regions.
#' @param main The title; `NULL` for one that describes the fit.
#' @param ... Passed to the plotting functions.
#' @returns `x`, invisibly.
#' @family kernel Fisher discriminant on the kernel data
#' @export
plot.kfda <- function(x, data = NULL, resolution = 120L, main = NULL, ...) {
  main <- main %||% kfda_label(x)
  sample <- x$training_sample
  if (!is.null(x$kernel) && x$spec$n_columns == 2L) {
    shown <- if (is.null(data)) list(x = sample$x, y = sample$y) else plot_points(x, data)
    plot_decision_regions(shown$x, shown$y, function(grid) kfda_points_class(x, as.matrix(grid)),
                          resolution = resolution, main = main,
                          landmarks = if (x$reduce == "subset") x$x, ...)
    return(invisible(x))
  }
  plot_projection(sample$projection, sample$y, main, ...)
  invisible(x)
}
