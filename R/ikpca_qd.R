# ikpca_qd(): Gaussian quadratic discriminant analysis in the space of
# indefinite kernel PCA (documented in ?reference_classifiers).

#' @rdname reference_classifiers
#' @export
ikpca_qd <- function(x, ...) UseMethod("ikpca_qd")

#' @rdname reference_classifiers
#' @export
ikpca_qd.formula <- function(formula, data, ..., subset, na.action, kernel = kernel_rbf(),
                        scale = TRUE) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel, scale = scale)
  fit_model("ikpca_qd", inputs, list(...), match.call())
}

#' @rdname reference_classifiers
#' @export
ikpca_qd.default <- function(x, y, ..., kernel = kernel_rbf(), scale = TRUE, spectrum = "none", pvar = NULL, shrinkage = 0.01,
                             pooling = NULL, na.action = NULL, threads = NULL) {
  check_dots_empty("ikpca_qd", ...)
  inputs <- inputs_from_xy(x, y, kernel, na.action, scale = scale, chunks = TRUE)
  fit_model("ikpca_qd", inputs, method_arguments("ikpca_qd"), match.call())
}

#' The fit behind every ikpca_qd() interface
#' @noRd
ikpca_qd_fit <- function(inputs, pvar, shrinkage, pooling, threads) {
  if (!is.null(pvar)) pvar <- check_number(pvar, "pvar", lower = 0, upper = 1)
  shrinkage <- check_number(shrinkage, "shrinkage", lower = 0, upper = 1, allow_lower = TRUE)
  if (!is.null(pooling)) pooling <- check_number(pooling, "pooling", lower = 0, upper = 1, allow_lower = TRUE)
  threads <- check_threads(threads)
  y <- inputs$y
  levels <- levels(y)
  counts <- stats::setNames(as.vector(table(y)), levels)
  check_some_class_of_two(counts, "ikpca_qd() estimates the covariance of each class in the kernel PCA space, pooled for a class of one point")
  warn_one_row_classes(counts, paste(
    "its covariance in the kernel PCA space is the pooled covariance of the classes (`pooling` = 1 for it),",
    "and the cross-validation of `pvar` keeps its row in every fold's training part"))
  K <- training_kernel(inputs, threads)
  prior <- counts / sum(counts)
  pvar_selection <- NULL
  if (is.null(pvar)) {
    pvar_selection <- ikpca_qd_select_pvar(K, y, prior, shrinkage, pooling, threads)
    # which.min(): the first least error (the fewest components), NA skipped
    best <- which.min(pvar_selection$cv_error)
    pvar <- if (length(best)) pvar_selection$pvar[best] else ikpca_qd_pvar_candidates[1]
  }
  # the map's eigenvectors for the share used only
  pca <- ikpca_map(K, pvar, threads)
  if (is.null(pca)) {
    krein_abort("The centred kernel matrix is zero (the kernel is constant on the training points, e.g. a Gaussian kernel with a vanishing `gamma`): the kernel PCA space of ikpca_qd() has no components. Use another kernel or kernel width.")
  }
  if (!is.null(pvar_selection)) {
    pvar_selection <- data.frame(pvar = pvar_selection$pvar,
                                 ncomp = vapply(pvar_selection$pvar, pca$components_for, 1L),
                                 cv_error = pvar_selection$cv_error)
  }
  p <- pca$components_for(pvar)
  keep <- pca$nonzero[seq_len(p)]
  projection <- pca$projection(p)
  Z <- pca$scores(p)
  # ML class covariances pooled by the class sizes (default) and shrunk
  # towards tr(C_j) / p I (PRTools' qdc), held as triangular factors from a QR
  # of the centred class coordinates (gaussian.R)
  pooling <- class_poolings(counts, p, pooling)
  gaussian <- gaussian_classes(Z, y, prior = prior, denominator = "ml", shrinkage = shrinkage, threads = threads,
                               pooling = pooling)
  singular <- ikpca_qd_singular(gaussian)
  if (any(singular)) {
    krein_abort(sprintf("The covariance of class%s %s in the kernel PCA space is singular (reciprocal condition number of its factor %s); use a larger `shrinkage` or a smaller `pvar`.",
                        if (sum(singular) > 1) "es" else "", paste0("\"", levels[singular], "\"", collapse = ", "),
                        paste(format(gaussian$rcond[singular], digits = 3), collapse = ", ")),
                class = "krein_singular_covariance")
  }
  list(pvar = pvar, pvar_selection = pvar_selection, shrinkage = shrinkage, pooling = pooling, ncomp = p,
       share = pca$share[p], values = pca$eigen$values[keep],
       signature = c(p = sum(pca$eigen$values[keep] > 0), q = sum(pca$eigen$values[keep] < 0)),
       projection = projection, column_means = pca$column_means, total_mean = pca$total_mean,
       gaussian = gaussian, prior = prior, x = inputs$x, threads = threads,
       training_scores = Z)
}

# The shares of the absolute eigenvalue mass that ikpca_qd()'s default
# chooses among: the paper's 0.8 first (ties go to the fewest components)
ikpca_qd_pvar_candidates <- c(0.8, 0.9, 0.95, 0.99, 0.999)

#' The kernel PCA of Pekalska and Haasdonk (2009, Appendix I-E) of a
#' training kernel K: the eigenpairs of the doubly centred H K H, the nonzero
#' ones by decreasing |eigenvalue| (`nonzero`), the share of the absolute
#' eigenvalue mass the leading ones hold (`share`) and
#' `components_for(pvar)`, the fewest components holding `pvar` of it;
#' `projection(p)`, the map of the leading p (centred kernel rows times it
#' are the scores) and `scores(p)`, the training points' own; the column
#' and total means that centre new kernel rows
#' (ikpca_centre_rows()). NULL when H K H is zero.
#' @noRd
ikpca_map <- function(K, pvar = 1, threads = 1L) ikpca_maps(list(K), pvar, threads)[[1L]]

#' ikpca_map() of each training kernel of a list, their eigendecompositions
#' on `threads` threads, one kernel each (cpp_symmetric_eigen_leading_each();
#' the same maps as one by one)
#' @noRd
ikpca_maps <- function(kernels, pvar, threads) {
  centred <- lapply(kernels, function(K) {
    centred <- double_center(K)  # H K H (indefiniteness.R)
    (centred + t(centred)) / 2
  })
  # every eigenvalue, but the eigenvectors of the leading components up to
  # the share `pvar` only (and a margin of 8 for the rounding of their
  # count), whose back-transformation is two thirds of an eigendecomposition
  # (spam's final fit: 632 of 1,400)
  decompositions <- cpp_symmetric_eigen_leading_each(centred, pvar - 1e-12, 8L, threads)
  Map(ikpca_map_of, lapply(kernels, colMeans), centred, decompositions, MoreArgs = list(pvar = pvar))
}

#' ikpca_map() of a training kernel from its column means, its centred H K H
#' and that matrix's leading decomposition `e` (an element of
#' cpp_symmetric_eigen_leading_each()'s list); the map keeps neither matrix
#' @noRd
ikpca_map_of <- function(column_means, centred, e, pvar) {
  n <- length(column_means)
  magnitude <- abs(e$values)
  kept_order <- order(magnitude, decreasing = TRUE)
  nonzero <- kept_order[magnitude[kept_order] > max(magnitude) * n * .Machine$double.eps]
  if (length(nonzero) == 0L || !(max(magnitude) > 0)) return(NULL)
  share <- cumsum(magnitude[nonzero]) / sum(magnitude[nonzero])
  components_for <- function(pvar) which(share >= pvar - 1e-12)[1]
  columns <- match(nonzero[seq_len(components_for(pvar))], e$selected)
  # all the eigenvectors where the margin did not cover the components
  # counted here (never seen: it would take 8 ties or near-ties of the
  # count's rounding)
  if (anyNA(columns)) {
    e <- cpp_symmetric_eigen(centred, TRUE)
    e$selected <- seq_along(e$values)
  }
  rm(centred)
  # the columns of e$vectors holding the eigenvectors of positions `keep`
  vectors <- function(keep) e$vectors[, match(keep, e$selected), drop = FALSE]
  list(eigen = e, magnitude = magnitude, nonzero = nonzero, share = share,
       components_for = components_for,
       projection = function(p) {
         keep <- nonzero[seq_len(p)]
         vectors(keep) / rep(sqrt(magnitude[keep]), each = n)
       },
       # the training points' scores, H K H times projection(p), are
       # U Lambda |Lambda|^-1/2 = U sign(Lambda) |Lambda|^1/2: no n x n x p
       # product (on kernlab's spam, 1,120 points in 920 components, 2 GFlop
       # per fold of the pvar cross-validation)
       scores = function(p) {
         keep <- nonzero[seq_len(p)]
         vectors(keep) * rep(sign(e$values[keep]) * sqrt(magnitude[keep]), each = n)
       },
       column_means = column_means, total_mean = mean(column_means))
}

#' New kernel rows (against the training points) centred as the training
#' kernel was: H (k_x - K 1 / n), from the training kernel's column means and
#' total mean
#' @noRd
ikpca_centre_rows <- function(K_new, column_means, total_mean) {
  K_new - rep(column_means, each = nrow(K_new)) - rowMeans(K_new) + total_mean
}

#' The default `pvar` of ikpca_qd(): the candidate of the least 5-fold
#' cross-validated error (cv_misclassification(); fewer folds when a class has
#' fewer points) of the fitted model itself: in each fold the kernel PCA of
#' the fold's training rows (ikpca_map()), the Gaussian classes in its
#' leading components for each candidate share, and the held-out rows
#' mapped as new points are (their kernel rows centred by the training part's
#' means). The PCA needs no labels, but computing it once on all training
#' points lets the held-out points take part in it: their scores in the
#' small components are their own (a point the map has seen is not a new
#' point), so the error of many components came out optimistic (kernlab's
#' promotergene on its edit distances: 0.999 chosen, 0.63 test accuracy
#' against 0.88 at 0.8). With few points per class the paper's 0.8 can
#' leave out the low-variance directions that separate the classes
#' (MASS::crabs: 35-52% test accuracy at 0.8 over three splits). A candidate
#' whose covariances are singular in some fold, or that the fold's map cannot
#' hold, counts as failed (NA); if all fail, the paper's 0.8 is used. Costs
#' one eigendecomposition of about 4n/5 points per fold, `threads` folds at
#' a time. With shrinkage the
#' candidates' models come from one scatter matrix per class and a Cholesky
#' factor per candidate (the core's shrunk_gaussian.hpp), the same models
#' as gaussian_classes()' QR factors, at a tenth of their cost.
#' @returns A data frame: `pvar`, `cv_error`.
#' @noRd
ikpca_qd_select_pvar <- function(K, y, prior, shrinkage, pooling, threads) {
  candidates <- ikpca_qd_pvar_candidates
  # a class of one point stays in every fold's training part: held out, its
  # fold's model would not know the class (one_row_folds())
  counts <- as.vector(table(y))
  folds <- min(5L, min(counts[counts >= 2L]))
  # the folds' kernel PCAs, `threads` folds at a time (their LAPACK
  # tridiagonalisations are sequential: the folds are where threads pay),
  # each batch when its first fold comes, so that at most `threads` are held
  fold <- one_row_folds(y, folds)
  maps <- list()
  fold_map <- function(k) {
    key <- as.character(k)
    if (!key %in% names(maps)) {
      batch <- k:min(folds, k + threads - 1L)
      maps <<- stats::setNames(ikpca_maps(lapply(batch, function(b) K[fold != b, fold != b, drop = FALSE]),
                                          max(candidates), threads), batch)
    }
    map <- maps[[key]]
    maps[[key]] <<- NULL  # each fold's map serves its fold once
    map
  }
  errors <- cv_misclassification(y, folds, length(candidates), fold = fold, function(train, held_out) {
    failed <- rep(NA_integer_, length(held_out))
    pca <- fold_map(fold[held_out[1L]])
    if (is.null(pca)) return(rep(failed, length(candidates)))
    K_new <- K[held_out, train, drop = FALSE]
    centred_new <- ikpca_centre_rows(K_new, pca$column_means, pca$total_mean)
    train_counts <- as.vector(table(y[train]))
    # the candidates' components are the leading ones of the largest: its
    # scores, class means and QR factors computed once serve them all (the
    # factor of the leading p columns is the leading p x p block of the
    # factor of all: Householder QR works column by column)
    ncomp <- vapply(candidates, pca$components_for, 1L)
    projection <- pca$projection(max(ncomp))
    scores_new <- centred_new %*% projection
    scores <- pca$scores(max(ncomp))
    poolings <- lapply(ncomp, function(p) class_poolings(stats::setNames(train_counts, levels(y)), p, pooling))
    # with shrinkage, every candidate's covariances are well conditioned: the
    # core's Cholesky route (shrunk_gaussian.hpp, one pooling weight for all
    # classes); a candidate it leaves (0), unshrunk models and per-class
    # weights take gaussian_classes()' QR factors
    common <- all(lengths(poolings) == 1L)
    classes <- if (shrinkage > 0 && common && ikpca_qd_fast_candidates()) {
      poolings <- unlist(poolings)
      cpp_shrunk_gaussian_classes(scores, as.integer(y[train]), nlevels(y), scores_new, ncomp, poolings, shrinkage,
                                  FALSE, log(prior), threads)
    } else matrix(0L, length(held_out), length(candidates))
    moments <- NULL
    for (j in which(classes[1L, ] == 0L)) {
      moments <- moments %||% cpp_kfda_class_factors(scores, as.integer(y[train]), nlevels(y), threads)
      p <- ncomp[j]
      fit <- tryCatch(gaussian_classes(NULL, y[train], prior = prior, denominator = "ml", shrinkage = shrinkage,
                                       threads = threads, moments = leading_moments(moments, p),
                                       pooling = poolings[[j]]),
                      krein_error = function(e) NULL)
      classes[, j] <- if (is.null(fit) || any(ikpca_qd_singular(fit))) failed else {
        max.col(gaussian_discriminants(fit, scores_new[, seq_len(p), drop = FALSE], relative = TRUE),
                ties.method = "first")
      }
    }
    classes
  })
  data.frame(pvar = candidates, cv_error = errors)
}

# Whether ikpca_qd()'s pvar cross-validation takes the core's Cholesky route
# for shrunk models (FALSE: gaussian_classes() for every candidate; the
# tests replace this function to compare the two)
ikpca_qd_fast_candidates <- function() TRUE

# A class covariance of ikpca_qd() too close to singular to use: its
# reciprocal condition number, rcond(R)^2, below the double precision
# epsilon (where a Cholesky of it would fail)
ikpca_qd_singular <- function(gaussian) gaussian$rcond < sqrt(.Machine$double.eps)

#' @export
krein_scores.ikpca_qd <- function(object, new, type) {
  if (is.null(new)) {
    Z <- object$training_scores
    names <- rownames(object$x)
  } else {
    K <- new_kernels(object, new)$K
    Z <- ikpca_centre_rows(K, object$column_means, object$total_mean) %*% object$projection
    names <- rownames(K)
  }
  dimnames(Z) <- list(names, paste0("PC", seq_len(ncol(Z))))
  if (type == "projection") return(Z)
  # probabilities from discriminants relative to each row's largest, which
  # cannot overflow to Inf - Inf for points far from the training data
  g <- gaussian_discriminants(object$gaussian, Z, relative = type == "prob")
  dimnames(g) <- list(names, object$levels)
  if (type == "decision") g else softmax_rows(g)
}

#' @export
model_title.ikpca_qd <- function(x) sprintf("%d components", x$ncomp)

#' @export
model_print_lines.ikpca_qd <- function(x) {
  chosen <- if (!is.null(x$pvar_selection)) {
    sprintf(", chosen among %s by cross-validated error %s",
            paste(x$pvar_selection$pvar, collapse = ", "),
            format(x$pvar_selection$cv_error[match(x$pvar, x$pvar_selection$pvar)], digits = 3))
  } else ""
  sprintf("%d components (%d positive, %d negative eigenvalues) with %.1f%% of the absolute eigenvalue mass (pvar = %g%s); pooling = %s, shrinkage = %g",
          x$ncomp, x$signature[["p"]], x$signature[["q"]], 100 * x$share, x$pvar, chosen,
          pooling_text(x$pooling %||% 0), x$shrinkage)
}

#' @export
model_summary.ikpca_qd <- function(object) {
  components <- data.frame(eigenvalue = object$values, share = cumsum(abs(object$values)) /
                             sum(abs(object$values)) * object$share,
                           row.names = paste0("PC", seq_len(object$ncomp)))
  classes <- data.frame(n = as.vector(object$counts), prior = as.vector(object$prior),
                        logdet = unname(object$gaussian$logdet),
                        row.names = object$levels)
  list("Kernel PCA components (eigenvalues of the centred kernel; share: cumulative share of the absolute eigenvalue mass)" = components,
       "Classes (logdet: log-determinant of the shrunk covariance)" = classes)
}

model_registration_ikpca_qd <- function() register_krein_model(
  full_form = function(args) TRUE, full_copies = 10,
  "ikpca_qd", label = "IKPCA-QD: quadratic discriminant in the indefinite kernel PCA space",
  fit = "ikpca_qd_fit",
  parameters = data.frame(parameter = c("pvar", "shrinkage"), class = c("numeric", "numeric"),
                          label = c("share of eigenvalue mass", "covariance shrinkage"),
                          stringsAsFactors = FALSE),
  types = "projection", renamed = c(reg = "shrinkage"),
  ranges = function(args) list(shrinkage = c(-3, 0)),
  default_grid = function(size, args, data) list(shrinkage = range_values(tuning_range("ikpca_qd", "shrinkage"), size))
)
