# ikpca_qd(): Gaussian quadratic discriminant analysis in the space of
# indefinite kernel PCA (documented in ?reference_classifiers), full and
# Nystroem: the kernel PCA of the training kernel K, or of its Nystroem
# approximation K^ = Phi J Phi' from r x r algebra on the landmark features
# Phi (nystrom_flip(), R/krein_svm_nystrom.R). The two forms differ only in
# how they get the components of the training points and of each fold's
# (ikpca_full_form(), ikpca_nystrom_form()); the choice of pvar and the
# Gaussian classes are shared.

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
                             pooling = NULL, landmarks = "auto", eps = 0.01, m = NULL, na.action = NULL, threads = NULL) {
  check_dots_empty("ikpca_qd", ...)
  inputs <- inputs_from_xy(x, y, kernel, na.action, scale = scale, chunks = TRUE)
  fit_model("ikpca_qd", inputs, method_arguments("ikpca_qd"), match.call())
}

#' The fit behind every ikpca_qd() interface
#' @noRd
ikpca_qd_fit <- function(inputs, pvar, shrinkage, pooling, landmarks, eps, m, threads) {
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
  landmarks <- resolve_landmarks(landmarks, inputs, eps, m, threads)
  form <- if (is.null(landmarks)) ikpca_full_form(inputs, threads) else ikpca_nystrom_form(inputs, landmarks, threads)
  prior <- counts / sum(counts)
  pvar_selection <- NULL
  if (is.null(pvar)) {
    pvar_selection <- ikpca_qd_select_pvar(form$fold_components, y, prior, shrinkage, pooling, threads)
    # which.min(): the first least error (the fewest components), NA skipped
    best <- which.min(pvar_selection$cv_error)
    pvar <- if (length(best)) pvar_selection$pvar[best] else ikpca_qd_pvar_candidates[1]
  }
  pca <- form$map(pvar)
  if (is.null(pca)) {
    krein_abort(sprintf("The centred %s is zero (the kernel is constant on the training points, e.g. a Gaussian kernel with a vanishing `gamma`): the kernel PCA space of ikpca_qd() has no components. Use another kernel or kernel width.",
                        if (is.null(landmarks)) "kernel matrix" else "Nystroem approximation of the kernel matrix"))
  }
  if (!is.null(pvar_selection)) {
    pvar_selection <- data.frame(pvar = pvar_selection$pvar,
                                 ncomp = vapply(pvar_selection$pvar, pca$components_for, 1L),
                                 cv_error = pvar_selection$cv_error)
  }
  p <- pca$components_for(pvar)
  values <- pca$values[seq_len(p)]
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
  fit <- list(pvar = pvar, pvar_selection = pvar_selection, shrinkage = shrinkage, pooling = pooling, ncomp = p,
              share = pca$share[p], values = values,
              signature = c(p = sum(values > 0), q = sum(values < 0)),
              gaussian = gaussian, prior = prior, landmarks = landmarks, threads = threads,
              training_scores = Z)
  if (is.null(landmarks)) {
    return(c(fit, list(projection = projection, column_means = pca$column_means, total_mean = pca$total_mean,
                       x = inputs$x)))
  }
  # new points: psi(x) = (phi(x) - mean)' B with phi(x) = map k(L, x), so
  # k(x, L) (map' B) - mean' B from the landmark kernel alone
  c(fit, list(projection = crossprod(form$feature_map, projection), offset = drop(pca$mean %*% projection),
              landmark_rank = length(form$signs)))
}

#' The full form of ikpca_qd(): the training kernel, the kernel PCA of all
#' training points (`map(pvar)`, ikpca_map()) and the components of each
#' fold of the pvar cross-validation (`fold_components`, see
#' ikpca_qd_select_pvar()): the kernel PCA of the fold's training rows, its
#' held-out rows mapped as new points (their kernel rows centred by the
#' training part's means). The folds' eigendecompositions run `threads` at a
#' time (their LAPACK tridiagonalisations are sequential: the folds are where
#' threads pay), each batch when its first fold comes, so that at most
#' `threads` are held.
#' @noRd
ikpca_full_form <- function(inputs, threads) {
  K <- training_kernel(inputs, threads)
  fold_components <- function(fold, folds) {
    maps <- list()
    fold_map <- function(k) {
      key <- as.character(k)
      if (!key %in% names(maps)) {
        batch <- k:min(folds, k + threads - 1L)
        maps <<- stats::setNames(ikpca_maps(lapply(batch, function(b) K[fold != b, fold != b, drop = FALSE]),
                                            max(ikpca_qd_pvar_candidates), threads), batch)
      }
      map <- maps[[key]]
      maps[[key]] <<- NULL  # each fold's map serves its fold once
      map
    }
    function(k, train, held_out) {
      pca <- fold_map(k)
      if (is.null(pca)) return(NULL)
      ncomp <- vapply(ikpca_qd_pvar_candidates, pca$components_for, 1L)
      centred_new <- ikpca_centre_rows(K[held_out, train, drop = FALSE], pca$column_means, pca$total_mean)
      list(ncomp = ncomp, scores = pca$scores(max(ncomp)), scores_new = centred_new %*% pca$projection(max(ncomp)))
    }
  }
  list(map = function(pvar) ikpca_map(K, pvar, threads), fold_components = fold_components)
}

#' The Nystroem form of ikpca_qd(): the kernel PCA of the Nystroem
#' approximation K^ = Phi J Phi' of the training kernel (Williams and Seeger
#' 2001; Schleif, Gisbrecht and Tino 2018), from the landmark features Phi
#' (n x r, phi(x) = map k(L, x), one pass over the landmark kernel of the
#' training rows: landmark_scores()) by r x r algebra (ikpca_nystrom_map()):
#' `map(pvar)` that of all training points, `fold_components` that of each
#' fold's training rows with the held-out rows mapped as new points. Memory
#' O(n r), never n x n.
#' @noRd
ikpca_nystrom_form <- function(inputs, landmarks, threads) {
  feature <- nystrom_feature_map(landmark_kernel(inputs, landmarks, threads))
  phi <- landmark_scores(inputs, landmarks, t(feature$map), threads)
  signs <- feature$signs
  fold_components <- function(fold, folds) function(k, train, held_out) {
    pca <- ikpca_nystrom_map(phi[train, , drop = FALSE], signs)
    if (is.null(pca)) return(NULL)
    ncomp <- vapply(ikpca_qd_pvar_candidates, pca$components_for, 1L)
    projection <- pca$projection(max(ncomp))
    scores_new <- (phi[held_out, , drop = FALSE] - rep(pca$mean, each = length(held_out))) %*% projection
    list(ncomp = ncomp, scores = pca$scores(max(ncomp)), scores_new = scores_new)
  }
  list(map = function(pvar) ikpca_nystrom_map(phi, signs, feature$map), fold_components = fold_components,
       feature_map = feature$map, signs = signs)
}

#' The kernel PCA of the Nystroem kernel of the feature rows `phi` (n x r)
#' with the signs J: H K^ H = Phic J Phic' (Phic = H Phi, the rows centred)
#' = U Lambda U', from the r x r Gram of Phic (nystrom_flip()). Its nonzero
#' eigenvalues are those of the full form's H K H when K^ = K (every training
#' point a landmark, K nonsingular). The map of a point x is the full form's,
#' psi(x) = |Lambda|^-1/2 U' H (k^_x - K^ 1 / n) with k^_x = Phi J phi(x):
#' as U' Phic = V'R (Phic = Q R, U = Q V), psi(x) = (phi(x) - mean)' B with B
#' = J R' V |Lambda|^-1/2, nystrom_flip()'s `back` times sign(Lambda). On the
#' training rows the scores Phic B = U sign(Lambda) |Lambda|^1/2 are the full
#' form's (up to the sign of each eigenvector). B, not the flip's T (Phic T =
#' U |Lambda|^1/2): the two agree on the row space of Phic, but a fold's
#' held-out rows can leave it (with every training row a landmark, a fold's
#' 4n/5 rows span 4n/5 of the n features). Returns the `values` (by
#' decreasing |eigenvalue|), `share`, `components_for(pvar)`,
#' `projection(p)` (B's first p columns), `scores(p)` and the feature `mean`,
#' as ikpca_map() does; NULL when the centred features are zero to rounding.
#' @noRd
ikpca_nystrom_map <- function(phi, signs, feature_map = NULL) {
  mean <- colMeans(phi)
  centred <- phi - rep(mean, each = nrow(phi))
  # centred rows at the rounding level of the features: a constant kernel
  if (!(max(abs(centred)) > 100 * .Machine$double.eps * max(abs(phi)))) return(NULL)
  flip <- nystrom_flip(centred, signs)
  if (is.null(flip) || length(flip$values) == 0L) return(NULL)
  order <- order(abs(flip$values), decreasing = TRUE)
  values <- flip$values[order]
  coefficients <- flip$back[, order, drop = FALSE] * rep(sign(values), each = nrow(flip$back))
  if (!is.null(feature_map)) {
    # each component's sign, which an eigensolver leaves open, fixed by its
    # map from the landmark kernel k(x, L): the largest coefficient is
    # positive. Fits on kernels equal to rounding (a kernel function and
    # its precomputed matrix) then give the same scores, not their negatives.
    on_landmarks <- crossprod(feature_map, coefficients)
    largest <- on_landmarks[cbind(max.col(abs(t(on_landmarks)), ties.method = "first"), seq_len(ncol(on_landmarks)))]
    coefficients <- coefficients * rep(ifelse(largest < 0, -1, 1), each = nrow(coefficients))
  }
  share <- cumsum(abs(values)) / sum(abs(values))
  list(values = values, share = share, components_for = ikpca_components_for(share),
       projection = function(p) coefficients[, seq_len(p), drop = FALSE],
       scores = function(p) centred %*% coefficients[, seq_len(p), drop = FALSE],
       mean = mean)
}

#' The fewest leading components of cumulative shares `share` that hold
#' the share `pvar` (to 1e-12 for the rounding of the shares)
#' @noRd
ikpca_components_for <- function(share) function(pvar) which(share >= pvar - 1e-12)[1]

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
  components_for <- ikpca_components_for(share)
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
  list(eigen = e, magnitude = magnitude, nonzero = nonzero, share = share, values = e$values[nonzero],
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
#' the fold's training rows (of the full or the Nystroem kernel), the
#' Gaussian classes in its leading components for each candidate share, and
#' the held-out rows mapped as new points are (full form: their kernel rows
#' centred by the training part's means; Nystroem: their features centred by
#' the training part's mean). The PCA needs no labels, but computing it once
#' on all training points lets the held-out points take part in it: their
#' scores in the small components are their own (a point the map has seen
#' is not a new point), so the error of many components came out optimistic
#' (kernlab's promotergene on its edit distances: 0.999 chosen, 0.63 test
#' accuracy against 0.88 at 0.8). With few points per class the paper's 0.8
#' can leave out the low-variance directions that separate the classes
#' (MASS::crabs: 35-52% test accuracy at 0.8 over three splits). A candidate
#' whose covariances are singular in some fold, or that the fold's map cannot
#' hold, counts as failed (NA); if all fail, the paper's 0.8 is used. Costs
#' one eigendecomposition of about 4n/5 points per fold, `threads` folds at
#' a time (full form), or one r x r Gram of the fold's training features
#' (Nystroem). With shrinkage the
#' candidates' models come from one scatter matrix per class and a Cholesky
#' factor per candidate (the core's shrunk_gaussian.hpp), the same models
#' as gaussian_classes()' QR factors, at a tenth of their cost.
#' `fold_components(fold, folds)` (ikpca_full_form(), ikpca_nystrom_form())
#' gives the function of a fold `k`, its `train` and `held_out` rows that
#' returns the fold's components: `ncomp` (per candidate), the `scores` of
#' the training rows and `scores_new` of the held-out rows in the largest
#' candidate's components; or NULL where the fold's kernel PCA has none.
#' @returns A data frame: `pvar`, `cv_error`.
#' @noRd
ikpca_qd_select_pvar <- function(fold_components, y, prior, shrinkage, pooling, threads) {
  candidates <- ikpca_qd_pvar_candidates
  # a class of one point stays in every fold's training part: held out, its
  # fold's model would not know the class (one_row_folds())
  counts <- as.vector(table(y))
  folds <- min(5L, min(counts[counts >= 2L]))
  fold <- one_row_folds(y, folds)
  components_of <- fold_components(fold, folds)
  errors <- cv_misclassification(y, folds, length(candidates), fold = fold, function(train, held_out) {
    failed <- rep(NA_integer_, length(held_out))
    components <- components_of(fold[held_out[1L]], train, held_out)
    if (is.null(components)) return(rep(failed, length(candidates)))
    train_counts <- as.vector(table(y[train]))
    # the candidates' components are the leading ones of the largest: its
    # scores, class means and QR factors computed once serve them all (the
    # factor of the leading p columns is the leading p x p block of the
    # factor of all: Householder QR works column by column)
    ncomp <- components$ncomp
    scores_new <- components$scores_new
    scores <- components$scores
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
  } else if (is.null(object$landmarks)) {
    K <- new_kernels(object, new)$K
    Z <- ikpca_centre_rows(K, object$column_means, object$total_mean) %*% object$projection
    names <- rownames(K)
  } else {
    # Nystroem: k(x, L) projection - offset, by the core's landmark pass
    # where it applies (the new points' landmark kernel never held whole)
    lm <- object$landmarks
    Z <- if (landmark_pass_applies_new(object, new, lm$points)) {
      landmark_pass_scores(list(x = new$x, kernel = object$spec$kernel), lm, object$projection,
                           check_threads(object$threads))
    }
    if (is.null(Z)) Z <- new_kernels(object, new, points = lm$points, columns = lm$indices)$K %*% object$projection
    Z <- Z - rep(object$offset, each = nrow(Z))
    names <- rownames(new$x %||% new$K)
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
model_title.ikpca_qd <- function(x) {
  components <- sprintf("%d components", x$ncomp)
  if (is.null(x$landmarks)) components else paste0(components, ", ", nystrom_title(x$landmarks))
}

#' @export
model_print_lines.ikpca_qd <- function(x) {
  chosen <- if (!is.null(x$pvar_selection)) {
    sprintf(", chosen among %s by cross-validated error %s",
            paste(x$pvar_selection$pvar, collapse = ", "),
            format(x$pvar_selection$cv_error[match(x$pvar, x$pvar_selection$pvar)], digits = 3))
  } else ""
  c(if (!is.null(x$landmarks)) {
      sprintf("kernel PCA of the Nystroem approximation (landmark features of rank %d)", x$landmark_rank)
    },
    sprintf("%d components (%d positive, %d negative eigenvalues) with %.1f%% of the absolute eigenvalue mass (pvar = %g%s); pooling = %s, shrinkage = %g",
            x$ncomp, x$signature[["p"]], x$signature[["q"]], 100 * x$share, x$pvar, chosen,
            pooling_text(x$pooling %||% 0), x$shrinkage))
}

#' @export
model_summary.ikpca_qd <- function(object) {
  components <- data.frame(eigenvalue = object$values, share = cumsum(abs(object$values)) /
                             sum(abs(object$values)) * object$share,
                           row.names = paste0("PC", seq_len(object$ncomp)))
  classes <- data.frame(n = as.vector(object$counts), prior = as.vector(object$prior),
                        logdet = unname(object$gaussian$logdet),
                        row.names = object$levels)
  out <- list("Kernel PCA components (eigenvalues of the centred kernel; share: cumulative share of the absolute eigenvalue mass)" = components,
              "Classes (logdet: log-determinant of the shrunk covariance)" = classes)
  lm <- object$landmarks
  if (!is.null(lm)) {
    out[["Nystroem approximation"]] <- sprintf("%d landmarks (%s); landmark features of rank %d",
                                               length(lm$class), lm$method, object$landmark_rank)
  }
  out
}

model_registration_ikpca_qd <- function() register_krein_model(
  full_form = function(args) is.null(args$landmarks), full_copies = 10,
  forms = landmark_forms(chooses_width = TRUE), full_max_rows = 2000,
  "ikpca_qd", label = "IKPCA-QD: quadratic discriminant in the indefinite kernel PCA space",
  fit = "ikpca_qd_fit",
  parameters = data.frame(parameter = c("pvar", "shrinkage"), class = c("numeric", "numeric"),
                          label = c("share of eigenvalue mass", "covariance shrinkage"),
                          stringsAsFactors = FALSE),
  types = "projection", renamed = c(reg = "shrinkage"),
  ranges = function(args) list(shrinkage = c(-3, 0)),
  default_grid = function(size, args, data) list(shrinkage = range_values(tuning_range("ikpca_qd", "shrinkage"), size)),
  needs_inputs = function(args) landmarks_need_inputs(args$landmarks),
  landmark_args = function(landmarks) list(landmarks = landmarks)
)
