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
#' @param threads Threads for the class factors.
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
                             ridge = 0, shrinkage = 0, threads = 1L) {
  denominator <- match_choice(denominator, "denominator", c("ml", "unbiased"))
  levels <- levels(y)
  classes <- length(levels)
  n <- nrow(x)
  p <- ncol(x)
  counts <- tabulate(as.integer(y), classes)
  prior <- stats::setNames(as.double(prior %||% (counts / n)), levels)
  moments <- cpp_kfda_class_factors(x, as.integer(y), classes, threads)
  # R_k'R_k = the centred scatter matrix of class k
  roots <- moments$factors
  unbiased <- denominator == "unbiased"
  pooled_root <- cpp_triangular_factor(do.call(rbind, roots)) / sqrt(max(1, n - if (unbiased) classes else 0))
  adjusted <- function(R) {
    if (shrinkage == 0 && all(ridge == 0)) return(R)
    diagonal <- shrinkage * sum(R^2) / p + ridge  # sum(R^2) = tr(R'R)
    cpp_triangular_factor(rbind(sqrt(1 - shrinkage) * R, diag(sqrt(diagonal), p)))
  }
  pooled_factor <- adjusted(pooled_root)
  factors <- if (pooled) {
    rep(list(pooled_factor), classes)
  } else {
    lapply(seq_len(classes), function(k) adjusted(roots[[k]] / sqrt(max(1, counts[k] - unbiased))))
  }
  means <- t(moments$means)
  dimnames(means) <- list(levels, colnames(x))
  model <- list(levels = levels, prior = prior, counts = stats::setNames(counts, levels), means = means,
                factors = factors, logdet = vapply(factors, factor_logdet, numeric(1)),
                rcond = vapply(factors, factor_rcond, numeric(1)), pooled_factor = pooled_factor,
                pooled_rcond = factor_rcond(pooled_factor), pooled = pooled, ridge = ridge,
                shrinkage = shrinkage)
  if (pooled && model$pooled_rcond > 0) {
    # the linear form: log(q_k f_k(x)) = x' W_k + c_k + a term common to all classes
    R <- pooled_factor
    model$weights <- backsolve(R, forwardsolve(t(R), t(means)))
    model$constant <- -0.5 * colSums(t(means) * model$weights) + log(prior)
  }
  structure(model, class = "krein_gaussian")
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
#' @param model A `krein_gaussian`.
#' @param x An m x p matrix.
#' @param logdet FALSE drops the log-determinants (a Mahalanobis rule; no
#'   effect for pooled models, where they cancel).
#' @returns An m x K matrix, columns named by the levels.
#' @noRd
gaussian_discriminants <- function(model, x, logdet = TRUE) {
  if (model$pooled) {
    g <- x %*% model$weights + rep(model$constant, each = nrow(x))
  } else {
    g <- vapply(seq_along(model$levels), function(k) {
      z <- backsolve(model$factors[[k]], t(x) - model$means[k, ], transpose = TRUE)
      -0.5 * colSums(z^2) - if (logdet) 0.5 * model$logdet[k] else 0
    }, numeric(nrow(x)))
    if (is.null(dim(g))) g <- matrix(g, nrow = nrow(x))
    g <- g + rep(log(model$prior), each = nrow(x))
  }
  dimnames(g) <- list(rownames(x), model$levels)
  g
}

#' Posteriors of Gaussian classes (Bayes' rule; paper 004, eq. 33)
#' @noRd
gaussian_posteriors <- function(model, x) softmax_rows(gaussian_discriminants(model, x))
