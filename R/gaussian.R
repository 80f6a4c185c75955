# Gaussian classes: the one model of Gaussian class-conditional densities in
# krein. Gaussian NDA (onda(), paper 004, eqs. 30-33) and KFQDA / KFLDA on the
# reduced kernel data (kfda(), paper 003, eqs. 9, 11-12) use it; so can every
# other model that fits Gaussians to some coordinates (a kernel PCA space, the
# scores of a discriminant).
#
# Covariances are held as upper triangular factors R with R'R = Sigma, taken
# from a QR decomposition of the centred class data (never from the formed
# covariance), so the small directions keep their digits; a ridge or a
# shrinkage enters as extra rows of that QR.

#' Fit Gaussian classes
#'
#' @param x An n x p numeric matrix (complete rows).
#' @param y A factor of n class labels; every level must occur.
#' @param prior Class priors in the order of the levels; NULL for the class
#'   proportions.
#' @param pooled FALSE: one covariance per class (quadratic rules); TRUE: one
#'   pooled within-class covariance for all (linear rules).
#' @param denominator "ml": n_k per class, n pooled (maximum likelihood, as
#'   MASS::qda(method = "mle")); "unbiased": n_k - 1, n - K (as MASS::lda and
#'   MASS::qda(method = "moment")). At least 1 in either case.
#' @param ridge Added to the diagonal of every covariance: a number, or one per
#'   coordinate.
#' @param shrinkage Between 0 and 1: each covariance S becomes (1 - s) S + s tr(S) / p I
#'   before the ridge is added.
#' @param pooling Between 0 and 1: each class covariance S_k first becomes
#'   (1 - l) S_k + l S_pooled, the regularised discriminant analysis of
#'   Friedman (1989): 0 quadratic, 1 the pooled covariance for every class
#'   (with the class's own log-determinant term, the same for all). One
#'   weight for every class, or one per class (a class of one point, which
#'   has no covariance of its own, takes 1: class_poolings()).
#' @param threads Threads for the class factors.
#' @param moments The class means (p x K), centred factors and counts of `x`
#'   as cpp_kfda_class_factors() gives them, when they were computed
#'   elsewhere (over data in chunks); `x` is then NULL.
#' @returns A `krein_gaussian` list: `levels`, `prior`, `counts`, `means`
#'   (K x p), `factors` (K upper triangular p x p, R_k'R_k = Sigma_k; the same
#'   pooled factor K times when `pooled`), `logdet` (log |Sigma_k|), `rcond` (the
#'   reciprocal condition number of each factor, LAPACK's dtrcon: about the
#'   ratio of the smallest to the largest singular value of the centred data),
#'   `pooled_factor` and `pooled_rcond` (the pooled covariance, always given),
#'   `pooled`, `ridge`, `shrinkage`, and for pooled models the linear form
#'   `weights` (p x K) and `constant` (K).
#' @noRd
gaussian_classes <- function(x, y, prior = NULL, pooled = FALSE, denominator = c("ml", "unbiased"),
                             ridge = 0, shrinkage = 0, threads = 1L, moments = NULL, pooling = 0) {
  denominator <- match_choice(denominator, "denominator", c("ml", "unbiased"))
  levels <- levels(y)
  classes <- length(levels)
  n <- length(y)
  counts <- tabulate(as.integer(y), classes)
  prior <- stats::setNames(as.double(prior %||% (counts / n)), levels)
  unbiased <- denominator == "unbiased"
  pooled_scale <- sqrt(max(1, n - if (unbiased) classes else 0))
  pending_ridge <- ridge  # the ridge adjusted() still has to add
  pooling_of <- rep_len(as.double(pooling), classes)
  if (pooled && is.null(moments) && all(pooling_of == 0)) {
    # a pooled model needs no class factors: the pooled factor is that of
    # the data centred at their class means, one QR of n rows (the stacked
    # class factors below have K p rows: five times as many for the six
    # classes of mlbench's Satellite in 959 dimensions)
    class_means <- rowsum(x, as.integer(y), reorder = TRUE) / counts
    moments <- list(means = t(class_means))
    centred <- (x - class_means[as.integer(y), , drop = FALSE]) / pooled_scale
    # a ridge without shrinkage enters as rows of the same QR (the pooled
    # factor without it is not needed), not as a second QR of 2p rows
    ridged <- shrinkage == 0 && any(ridge != 0)
    pooled_root <- cpp_triangular_factor(if (ridged) rbind(centred, diag(sqrt(ridge), ncol(x))) else centred)
    if (ridged) pending_ridge <- 0 * ridge  # in the factor already
  } else {
    moments <- moments %||% cpp_kfda_class_factors(x, as.integer(y), classes, threads)
    # R_k'R_k = the centred scatter matrix of class k
    roots <- moments$factors
    pooled_root <- cpp_triangular_factor(do.call(rbind, roots)) / pooled_scale
  }
  p <- nrow(moments$means)
  adjusted <- function(R) {
    if (shrinkage == 0 && all(pending_ridge == 0)) return(R)
    # sqrt(shrinkage tr(R'R) / p + ridge), the squares of R never formed:
    # tr(R'R) / p = rms(R)^2 p, which overflows for data of size 1e160 and
    # underflows for 1e-160
    target <- sqrt(shrinkage * p) * root_mean_square(R)
    root <- if (target > 0) target * sqrt(1 + (pending_ridge / target) / target) else sqrt(pending_ridge)
    cpp_triangular_factor(rbind(sqrt(1 - shrinkage) * R, diag(root, p)))
  }
  pooled_factor <- adjusted(pooled_root)
  factors <- if (pooled) {
    rep(list(pooled_factor), classes)
  } else {
    lapply(seq_len(classes), function(k) {
      R <- roots[[k]] / sqrt(max(1, counts[k] - unbiased))
      # (1 - l) S_k + l S_pooled as the factor of the stacked, weighted factors
      if (pooling_of[k] > 0) {
        R <- cpp_triangular_factor(rbind(sqrt(1 - pooling_of[k]) * R, sqrt(pooling_of[k]) * pooled_root))
      }
      adjusted(R)
    })
  }
  means <- t(moments$means)
  dimnames(means) <- list(levels, colnames(x))
  model <- list(levels = levels, prior = prior, counts = stats::setNames(counts, levels), means = means,
                factors = factors, logdet = vapply(factors, factor_logdet, numeric(1)),
                rcond = vapply(factors, factor_rcond, numeric(1)), pooled_factor = pooled_factor,
                pooled_rcond = factor_rcond(pooled_factor), pooled = pooled, ridge = ridge,
                shrinkage = shrinkage, pooling = pooling)
  if (pooled && model$pooled_rcond > 0) {
    # the linear form: log(q_k f_k(x)) = x' W_k + c_k + a term common to all classes
    R <- pooled_factor
    model$weights <- backsolve(R, forwardsolve(t(R), t(means)))
    model$constant <- -0.5 * colSums(t(means) * model$weights) + log(prior)
  }
  structure(model, class = "krein_gaussian")
}

#' The class moments of the leading `p` coordinates from those of all (as
#' cpp_kfda_class_factors() gives them): the means' leading rows and the
#' leading p x p blocks of the upper triangular factors, which are the QR
#' factors of the leading columns of the centred class data
#' @noRd
leading_moments <- function(moments, p) {
  keep <- seq_len(p)
  moments$means <- moments$means[keep, , drop = FALSE]
  moments$factors <- lapply(moments$factors, function(R) R[keep, keep, drop = FALSE])
  moments
}

# sqrt(mean(v^2)) without overflow or underflow of the squares
root_mean_square <- function(v) {
  largest <- max(abs(v))
  if (!is.finite(largest) || largest == 0) return(largest)
  largest * sqrt(mean((v / largest)^2))
}

factor_logdet <- function(R) 2 * sum(log(abs(diag(R))))

factor_rcond <- function(R) {
  if (!all(is.finite(R))) return(0)
  value <- rcond(R, triangular = TRUE)
  if (is.finite(value)) value else 0
}

#' Discriminant scores of Gaussian classes: log(q_k f_k(x)) up to a term common
#' to all classes of a row (so differences between columns are log-likelihood
#' ratios plus log prior ratios, and their softmax the posteriors).
#'
#' With `relative = FALSE` (the default) the values are log(q_k f_k(x)) + p/2
#' log(2 pi), exactly; for points far from every class mean (x * 1e300) they
#' overflow to -Inf. With `relative = TRUE`
#' a row's term is chosen so that the row stays finite where its posteriors
#' are not all zero: at least one entry of every row is finite, and entries
#' are -Inf only where the class has posterior 0 in double precision. See
#' gaussian_parts() for how.
#' @param model A `krein_gaussian`.
#' @param x An m x p matrix.
#' @param logdet FALSE drops the log-determinants (a Mahalanobis rule; no
#'   effect for pooled models, where they cancel).
#' @param relative See above.
#' @returns An m x K matrix, columns named by the levels.
#' @noRd
gaussian_discriminants <- function(model, x, logdet = TRUE, relative = FALSE) {
  # rows are independent: in blocks, the temporaries of gaussian_parts() (a
  # few dozen per row) stay bounded however many rows (1e7 training scores of
  # a fit over chunks) there are
  block <- gaussian_block_rows()
  if (nrow(x) > block) {
    g <- matrix(0, nrow(x), length(model$levels), dimnames = list(rownames(x), model$levels))
    for (start in seq(1L, nrow(x), by = block)) {
      rows <- start:min(nrow(x), start + block - 1L)
      g[rows, ] <- gaussian_discriminants(model, x[rows, , drop = FALSE], logdet, relative)
    }
    return(g)
  }
  parts <- gaussian_parts(model, x, logdet)
  g <- if (relative) {
    times_pow2(parts$scaled - parts$reference, parts$exponent) + parts$constant
  } else {
    times_pow2(parts$scaled, parts$exponent) + parts$constant
  }
  if (is.null(dim(g))) g <- matrix(g, nrow = nrow(x))
  dimnames(g) <- list(rownames(x), model$levels)
  g
}

# Rows per block of gaussian_discriminants() (the tests replace this
# function with testthat's mocked bindings to check the blocks)
gaussian_block_rows <- function() 65536L

# Whether gaussian_parts() takes the power-of-two scaling for pooled models
# even where the values are moderate (FALSE: only where it changes bits; the
# tests replace this function to compare the two)
gaussian_always_scaled <- function() FALSE

#' Posteriors of Gaussian classes (Bayes' rule; paper 004, eq. 33): the
#' softmax of the relative discriminants, so rows are finite and sum to 1 for
#' inputs of any size (1e300 or 1e-300 times the training data).
#' @noRd
gaussian_posteriors <- function(model, x) {
  softmax_rows(gaussian_discriminants(model, x, relative = TRUE))
}

# The discriminants in pieces that cannot overflow: g[i, k] = scaled[i, k] *
# 2^exponent[i] + constant[k] (m x K, m-vector, K-vector), the data-dependent
# term scaled by a power of two per row, which is exact, so that in the
# ordinary range the sum is bit for bit what the plain formula gives.
# `reference` (one per row) is the largest `scaled` value of the row: the
# term reference[i] * 2^exponent[i] is common to the row, and subtracting it
# leaves `scaled - reference` <= 0, 0 for at least one class. Scaling that
# difference back can only overflow to -Inf (a posterior that is 0 in double
# precision) and never gives Inf - Inf.
#
# Quadratic (per-class) models: z_k = R_k^-T (x - m_k), the data term is
# -|z_k|^2 / 2. Each row of x and the means are first divided by 2^e (e the
# exponent of the largest |x|, |m|), so x - m_k cannot overflow; the solved
# z_k by 2^t (its largest entry), so its squares cannot; then exponent = 2 (e
# + t). Pooled models: the linear form x'W_k, with the row of x divided by
# 2^e and x'W_k by 2^t, exponent e + t.
gaussian_parts <- function(model, x, logdet = TRUE) {
  m <- nrow(x)
  classes <- length(model$levels)
  rows <- seq_len(m)
  if (model$pooled && !is.null(model$weights) && !gaussian_always_scaled() &&
      moderate_values(x) && moderate_values(model$weights)) {
    # every product x_ij w_jk and their sums are normal numbers, where scaling
    # by powers of two is exact: the scaled path below would give these very
    # bits, at several times the cost (it dominates the training predictions
    # of a fit on 1e7 points)
    scaled <- x %*% model$weights
    exponent <- 0
    constant <- model$constant
  } else if (model$pooled && !is.null(model$weights)) {
    e <- pow2_exponent(row_max_abs(x))
    a <- times_pow2(x, -e) %*% model$weights
    t <- pow2_exponent(row_max_abs(a))
    scaled <- times_pow2(a, -t)
    exponent <- e + t
    constant <- model$constant
  } else if (!model$pooled && !gaussian_always_scaled() && moderate_values(x) && moderate_values(model$means) &&
             !is.null(z <- moderate_solves(model, x))) {
    # as for pooled models: moderate inputs, means and solved z_k, where
    # the scaled path below gives these bits at several times the cost
    scaled <- vapply(z, function(zk) -0.5 * colSums(zk^2), numeric(m))
    exponent <- 0
    constant <- log(model$prior) - if (logdet) 0.5 * model$logdet else 0
  } else {
    e <- pow2_exponent(pmax(row_max_abs(x), max(abs(model$means))))
    x_scaled <- times_pow2(x, -e)
    z <- lapply(seq_len(classes), function(k) {
      mean_scaled <- times_pow2(matrix(model$means[k, ], m, ncol(x), byrow = TRUE), -e)
      backsolve(model$factors[[k]], t(x_scaled - mean_scaled), transpose = TRUE)
    })
    largest <- do.call(pmax, lapply(z, function(zk) col_max_abs(zk)))
    t <- pow2_exponent(largest)
    scaled <- vapply(z, function(zk) -0.5 * colSums(times_pow2(zk, -rep(t, each = nrow(zk)))^2),
                     numeric(m))
    exponent <- 2 * (e + t)
    constant <- log(model$prior) - if (logdet) 0.5 * model$logdet else 0
  }
  if (is.null(dim(scaled))) scaled <- matrix(scaled, nrow = m)
  list(scaled = scaled, exponent = exponent, constant = rep(constant, each = m),
       reference = scaled[cbind(rows, max.col(scaled, ties.method = "first"))])
}

row_max_abs <- function(x) if (ncol(x) == 0L) numeric(nrow(x)) else do.call(pmax, lapply(seq_len(ncol(x)), function(j) abs(x[, j])))
col_max_abs <- function(x) row_max_abs(t(x))

# The power of two at or above v (its exponent), 0 for v = 0 or non-finite v;
# limited to [-1000, 1000], so that 2^-e stays a normal number and scaling by
# it is exact.
pow2_exponent <- function(v) {
  e <- ifelse(is.finite(v) & v > 0, ceiling(log2(pmax(v, .Machine$double.xmin))), 0)
  pmin(pmax(e, -1000), 1000)
}

# Are the non-zero |v| all within [2^-200, 2^200]? Then products of two such
# values, and sums of up to 2^40 of them, are normal numbers (or zero).
moderate_values <- function(v) {
  if (!length(v) || length(v) > 2^40 / 1e3 || anyNA(v)) return(FALSE)
  a <- abs(v)
  largest <- max(a)
  if (!is.finite(largest) || largest > 2^200) return(FALSE)
  nonzero <- a[a > 0]
  !length(nonzero) || min(nonzero) >= 2^-200
}

# z_k = R_k^-T (x - m_k) of every class k of a quadratic model (a list, one
# p x m matrix per class), or NULL where some value is not moderate
# (moderate_values()), so that its square could overflow or underflow
moderate_solves <- function(model, x) {
  xt <- t(x)
  z <- lapply(seq_along(model$levels), function(k) {
    backsolve(model$factors[[k]], xt - model$means[k, ], transpose = TRUE)
  })
  if (all(vapply(z, moderate_values, logical(1)))) z
}

# v * 2^k elementwise (k recycled; one per row of a matrix), in steps of at
# most 2^+-1000, so that no step overflows where the result does not; zeros
# stay zero (never 0 * Inf).
times_pow2 <- function(v, k) {
  if (identical(k, 0)) return(v)
  k <- rep_len(k, length(v))
  repeat {
    step <- pmax(pmin(k, 1000), -1000)
    if (all(step == 0)) return(v)
    v <- v * 2^step
    k <- k - step
  }
}

# The default weight of the pooled covariance in each class covariance
# (gaussian_classes(pooling = )) of ikpca_qd() and onda()'s Gaussian
# posteriors, from the class sizes: 0 (each class its own covariance) when
# the smallest class has at least twice as many points as coordinates p, 1
# (the pooled covariance) when it has at most p -- where its own covariance
# is singular --, and linear in between: min(1, max(0, 2 - min(n_k) / p)).
pooling_by_class_sizes <- function(counts, p) min(1, max(0, 2 - min(counts) / p))

#' The pooling weight of each class (gaussian_classes(pooling = )): `pooling`
#' (NULL: pooling_by_class_sizes() of the classes of two points or more),
#' and 1 for a class of one point, whose own covariance is zero: it borrows
#' the pooled covariance whole, Friedman's (1989) regularised discriminant
#' analysis at its pooled end for that class alone. One weight where all are
#' the same, else one per class, named by level.
#' @noRd
class_poolings <- function(counts, p, pooling = NULL) {
  several <- counts >= 2L
  common <- pooling %||% if (any(several)) pooling_by_class_sizes(counts[several], p) else 1
  if (all(several)) return(common)
  stats::setNames(ifelse(several, common, 1), names(counts))
}

#' A pooling weight, or the weights per class (class_poolings())
#' @noRd
pooling_text <- function(pooling) {
  if (length(pooling) == 1L) return(format(pooling, digits = 3))
  paste0("(", paste(names(pooling), format(pooling, digits = 3), sep = " ", collapse = ", "), ")")
}
