# Ny-KQD: the six kernel quadratic discriminants of paper 000 (Table II) in
# the feature space of a Nystroem approximation (derived in the section
# "Nystroem KQD" of ?kqd). The model is the core's (kqd_nystrom.hpp, fit():
# the feature map of the landmarks, the classes' spectra in it and the one
# expansion prediction applies); what R does here is gather its inputs: the
# triangular QR factor of each class's rows [C_j, 1] of the landmark kernel
# (from the core's landmark pass, or merged over chunks, never the whole
# landmark kernel) and the landmark kernel W.

#' The landmark kernel W of a Nystroem fit, refused when its approximation
#' has rank 0: W zero or not finite (the largest |eigenvalue| always passes
#' the cutoff of nystrom.hpp when it is positive)
#' @noRd
check_landmark_kernel <- function(W) {
  if (!all(is.finite(W)) || !any(W != 0)) {
    krein_abort("The kernel matrix of the landmarks is zero (or not finite): the Nystroem approximation has rank 0. Check the kernel and its parameters.")
  }
  W
}

#' The Nystroem feature map of the landmarks from their kernel W (the core's,
#' nystrom.hpp): `map` (r x m) with phi(x) = map k(L, x), `signs` (J) and
#' `landmark_rank`
#' @noRd
nystrom_feature_map <- function(W) cpp_nystrom_feature_map(check_landmark_kernel(W))

#' The Ny-KQD model from the landmark kernel W (checked) and each class's
#' triangular factor of its rows of the landmark kernel and a column of ones
#' (the core's fit(), kqd_nystrom.hpp)
#' @noRd
kqd_nystrom_core <- function(W, factors, counts, variant, reg, mode) {
  cpp_kqd_nystrom_model(W, factors, as.double(counts), variant, reg, mode)
}

#' The Ny-KQD fit: the model's core (the counterpart of cpp_kqd_fit()) from the
#' training inputs and landmarks, and the training distances: the class
#' factors in one pass over the rows and the distances in a second (one row
#' source, R/landmark_pass.R: data in memory or in chunks alike). With
#' `default_path`, `reg` becomes the default path of RC
#' (kqd_nystrom_default_path()); the fit returns the `reg` it used. With
#' `fold_ids` (the path's cross-validation, kqd_cv_folds()), the one pass
#' gathers the class factors within each fold (`fold_factors`, for
#' kqd_nystrom_cv_errors()), which merge into the fit's own. The fit keeps
#' the landmark kernel `W` and the pass for the cross-validation.
#' @noRd
kqd_nystrom_fit <- function(inputs, landmarks, variant, reg, indefinite, threads, default_path = FALSE,
                            fold_ids = NULL) {
  W <- check_landmark_kernel(landmark_kernel(inputs, landmarks, threads))
  y <- inputs$y
  fold_factors <- NULL
  if (is.null(fold_ids)) {
    pass <- landmark_class_factors(inputs, landmarks, threads)
    factors <- pass$factors
  } else {
    pass <- kqd_nystrom_fold_factors(inputs, landmarks, fold_ids, threads)
    fold_factors <- pass$fold_factors
    factors <- Reduce(cpp_merge_factors, fold_factors)
  }
  if (default_path) reg <- check_kqd_reg(kqd_nystrom_default_path(W, factors), variant, levels(y))
  core <- kqd_nystrom_core(W, factors, as.vector(table(y)), variant, reg, indefinite)
  list(core = core, reg = reg, distances = kqd_nystrom_training_distances(core, inputs, landmarks, pass, threads),
       W = W, pass = pass, fold_ids = fold_ids, fold_factors = fold_factors)
}

#' The first pass of a Ny-KQD fit with its rows in folds: the triangular
#' factors of each class within each fold, `fold_factors` (one list per fold,
#' 1 to max(fold_ids); a class without rows in a fold has a zero factor),
#' from one pass over the rows, and what the pass keeps for the second
#' (kqd_nystrom_training_distances()). The model of any union of folds merges
#' their factors exactly (kqd_nystrom_fold_core()).
#' @noRd
kqd_nystrom_fold_factors <- function(inputs, landmarks, fold_ids, threads) {
  y <- inputs$y
  classes <- nlevels(y)
  folds <- max(fold_ids)
  # code (fold - 1) * classes + class: fold f's classes are one block of codes
  pass <- landmark_class_factors(inputs, landmarks, threads, codes = (fold_ids - 1L) * classes + as.integer(y),
                                 classes = folds * classes)
  pass$fold_factors <- lapply(seq_len(folds), function(f) pass$factors[(f - 1L) * classes + seq_len(classes)])
  pass$factors <- NULL
  pass
}

#' The Ny-KQD model (kqd_nystrom_core()) of the training rows in the folds
#' `folds`, from the class factors within each fold (kqd_nystrom_fold_factors())
#' @noRd
kqd_nystrom_fold_core <- function(W, fold_factors, fold_ids, y, folds, variant, reg, indefinite) {
  kqd_nystrom_core(W, Reduce(cpp_merge_factors, fold_factors[folds]), as.vector(table(y[fold_ids %in% folds])),
                   variant, reg, indefinite)
}

# The squared distances of every training row to every class at every path
# value under the Ny-KQD model `core` (a list of n x classes matrices, one
# per path value): the core's landmark pass where the first pass (`pass`)
# took it, else the row blocks that pass kept or recomputes.
kqd_nystrom_training_distances <- function(core, inputs, landmarks, pass, threads) {
  if (identical(pass$route, "pass")) {
    return(kqd_nystrom_pass_distances(core, inputs$kernel, inputs$x, landmarks$points, threads))
  }
  distance <- function(C, self, codes) kqd_nystrom_distances(core, C, self, check_threads(NULL))
  blocks <- landmark_blocks(inputs, landmarks, bare_function(distance, core = core), threads, pass,
                            need_self = startsWith(core$variant, "RC"))
  lapply(seq_along(blocks[[1L]]), function(k) do.call(rbind, lapply(blocks, `[[`, k)))
}

# Ny-KQD's default path for RC: the full fit's (kqd_default_path()), s
# 10^(-5:1) with s = tr(H K H) / n, here of the Nystroem kernel k(x, L) W^+
# k(L, x') that the model works in -- so taken from the class factors of the
# first pass, without another: with phi(x) = map k(L, x) and J the signs,
# tr(H K H) / n = tr(J Phi'Phi) / n - mu' J mu, where Phi'Phi = map C'C map'
# and mu = map C'1 / n, and C'C, C'1 and n are blocks of the sum over the
# classes of R_j'R_j, R_j the triangular factor of [C_j, 1].
kqd_nystrom_default_path <- function(W, factors) {
  gram <- Reduce(`+`, lapply(factors, crossprod))
  m <- nrow(W)
  n <- gram[m + 1L, m + 1L]
  feature <- nystrom_feature_map(W)
  map <- feature$map
  mean_phi <- drop(map %*% gram[seq_len(m), m + 1L]) / n
  spread <- sum(feature$signs * rowSums((map %*% gram[seq_len(m), seq_len(m)]) * map)) / n -
    sum(feature$signs * mean_phi^2)
  if (!is.finite(spread) || spread <= 0) spread <- 1
  spread * 10^(-5:1)
}

# The cross-validated error of each path value of a Ny-KQD fit (the
# counterpart of kqd_cv_errors()), in memory or over chunks, from the fit
# (kqd_nystrom_fit() with these `fold_ids`): its one pass gave the triangular
# factors of every class within every fold; a fold's model merges its
# training folds' factors exactly (cpp_merge_factors(), as over chunks) and
# costs an eigenproblem of the landmarks' size per class, and one more pass
# over the rows gives its distances. So the cross-validation costs about
# `folds` distance passes on top of the fit.
kqd_nystrom_cv_errors <- function(fit, inputs, landmarks, fold_ids, variant, reg, indefinite, bias, prior,
                                  threads) {
  stopifnot(identical(fit$fold_ids, fold_ids))
  y <- inputs$y
  folds <- max(fold_ids)
  wrong <- matrix(0, folds, nrow(reg))
  for (f in seq_len(folds)) {
    test <- fold_ids == f
    core <- kqd_nystrom_fold_core(fit$W, fit$fold_factors, fold_ids, y, setdiff(seq_len(folds), f), variant, reg,
                                  indefinite)
    distances <- kqd_nystrom_training_distances(core, inputs, landmarks, fit$pass, threads)
    wrong[f, ] <- kqd_fold_wrong(core, lapply(distances, function(d) d[!test, , drop = FALSE]),
                                 lapply(distances, function(d) d[test, , drop = FALSE]),
                                 y, test, variant, reg, bias, prior)
  }
  colSums(wrong) / length(y)
}

#' Squared distances of points, given by their kernel against the landmarks
#' (rows of C), to every class at every path value: a list of (rows x
#' classes) matrices. `self`: their exact k(x, x) (RC only). One matrix
#' product, O(m sum_j s_j) per point, in the C++ core (kqd_nystrom.hpp).
#' @noRd
kqd_nystrom_distances <- function(core, C, self = NULL, threads = 1L) {
  terms <- core$terms
  cpp_kqd_nystrom_distances(C, core$expansion, core$offsets, core$sizes, terms$weights, terms$scale,
                            terms$self_scale, terms$self_offsets,
                            if (startsWith(core$variant, "RC")) as.double(self) else numeric(), threads)
}

# The distances of the rows of x (kqd_nystrom_distances()) by the core's
# landmark pass: the landmark kernel in blocks, never held whole; a kernel
# value that is not finite is an error naming its row and landmark.
kqd_nystrom_pass_distances <- function(core, kernel, x, points, threads) {
  terms <- core$terms
  landmark_pass_checked(cpp_kqd_nystrom_pass_distances(
    kernel, x, points, core$expansion, core$offsets, core$sizes, terms$weights, terms$scale,
    terms$self_scale, terms$self_offsets, landmark_pass_block_rows(nrow(points)), threads), kernel, x, points)
}

# Distances of new points for a Nystroem fit, path value k
kqd_nystrom_new_distances <- function(object, new, k) {
  lm <- object$landmarks
  if (landmark_pass_applies_new(object, new, lm$points)) {
    distances <- kqd_nystrom_pass_distances(object$core, object$spec$kernel, new$x, lm$points,
                                            check_threads(object$threads))
    if (!is.null(distances)) return(list(d = distances[[k]], names = rownames(new$x)))
  }
  kernels <- new_kernels(object, new, points = lm$points, columns = lm$indices,
                         need_self = startsWith(object$variant, "RC"))
  list(d = kqd_nystrom_distances(object$core, kernels$K, kernels$self, object$threads)[[k]], names = kernels$names)
}
