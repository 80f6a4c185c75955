# The Nystroem Krein SVM (krein_svm(landmarks = )): Loosli, Canu and Ong's
# KSVM on the Nystroem kernel of paper 002 (Schleif, Gisbrecht and Tino 2018,
# Sec. 3 and 4.2), as a linear SVM (LiblineaR) on the features of its flip.
#
#   W = k(L, L) = V diag(l) V' (nonzero part), phi(x) = |l|^-1/2 V' k(L, x),
#   J = sign(l): the Nystroem kernel is K^ = Phi J Phi' (the signed features
#   of Ny-KQD, nystrom_feature_map()). Phi (n x r) has columns that are
#   not orthogonal in general, so Phi Phi' (the flip of W alone, C |W|^+ C')
#   is NOT the flip |K^| of K^. The flip of K^ itself, exactly, from the
#   r x r Gram G = Phi'Phi = P D P' (D > 0 kept): Phi = Q R with R = D^1/2
#   P' and Q = Phi P D^-1/2 orthonormal, so K^ = Q (R J R') Q' and with R J R'
#   = V Lambda V' (Lambda nonzero) K^ = U Lambda U', U = Q V. The flipped
#   kernel |K^| = Psi Psi' has the features Psi = U |Lambda|^1/2 = Phi T,
#   T = P D^-1/2 V |Lambda|^1/2 (r x k).
#
#   The C-SVM on |K^| is the linear SVM on Psi: w = Psi' a (a = alpha y),
#   f_i = psi_i' w + b = (|K^| a)_i + b. KSVM's map back, beta = U sign(Lambda)
#   U' a, predicts with the raw Nystroem kernel, f(x) = k^(x, X) beta + b =
#   phi(x)' J Phi' beta + b, and Phi' beta = R' V sign(Lambda) U' a = R' V
#   sign(Lambda) |Lambda|^-1/2 w (as Phi'Q = R' and Psi' a = |Lambda|^1/2 U' a):
#   the coefficients over the features are v = J R' V sign(Lambda)
#   |Lambda|^-1/2 w, over the landmark kernel c = map' v, and f(x) = k(x, L) c
#   + b. On the training points Phi v = Q R J R' V sign |Lambda|^-1/2 w = Psi
#   w: the decision values of the linear SVM, exactly.
#
# The loss: LIBLINEAR's L2-loss (squared hinge) SVM by its primal trust-region
# Newton solver (type 2), not the C-SVM's hinge loss: on 1e5 points and 100
# features, C = 10, its hinge-loss dual solver (type 3) took 21 s of CPU
# (with the tolerance 0.1 as with 0.01), the primal solver 4 s, with about the
# same test error (0.0076 and 0.0069 on the checkerboard of
# bench/krein_svm.R). The map back
# holds for any loss whose optimal w lies in the span of the features (w =
# Psi' a): it is the same.
#
# Exact: the flip of K^ (to rounding; directions of Phi with D at rounding
# level are dropped), the map back. Approximations: K^ for K (the landmarks);
# the squared hinge for the hinge; LIBLINEAR's solver tolerance; and its
# bias, which is a weight on a constant feature and so regularised, where the
# C-SVM's bias is free.

#' LiblineaR's availability, as check_kernlab()
#' @noRd
check_liblinear <- function(available = requireNamespace("LiblineaR", quietly = TRUE),
                            model = "krein_svm(landmarks = )") {
  if (!available) {
    krein_abort(sprintf("%s needs the LiblineaR package: install it with install.packages(\"LiblineaR\"), or give `landmarks = NULL` for the full form.", model),
                class = "krein_missing_package")
  }
}

# The tolerance of LIBLINEAR's primal Newton solver (the norm of the gradient
# relative to its start; LIBLINEAR's default)
krein_svm_liblinear_epsilon <- 0.01

# The costs the Nystroem Krein SVM passes to LIBLINEAR. The largest: on
# scaled data its primal solution no longer changes beyond about 1e10 (the
# hard-margin limit), while around 1e100 its Newton solver runs without end.
# The smallest: the weights shrink with the cost (4e-13 at 1e-15 for weights
# of 4e-3 at 1e-5, 400 points with 20 features), are all 0 from about 1e-18
# on, so that every point gets the same decision, and from about 1e-165 on
# the solver never returns (measured with LiblineaR 2.10: type 2, epsilon
# 0.01, timed out after 20 s where larger costs take 0.03 s).
krein_svm_liblinear_max_cost <- 1e15
krein_svm_liblinear_min_cost <- 1e-15

# The most training points the Nystroem KSVM's choice of C cross-validates
# on: beyond, a stratified subsample of this many (selection_rows()), and
# one fit at the chosen C on all. On 1e5 sine points (the tanh kernel, 200
# k-means landmarks) the cross-validation on all took 218 of the default
# fit's 236 s, for a test error (0.0262) that every fixed C of its grid
# gives within 0.0012 (0.0262-0.0274).
svm_selection_points <- function() 10000L

#' `size` rows of a class factor `y` (all of them if it has fewer): from
#' each class its share of `size`, spread evenly over the class's rows in
#' data order, so that the subsample is stratified and a function of the
#' data alone (no random numbers)
#' @noRd
selection_rows <- function(y, size) {
  if (length(y) <= size) return(seq_along(y))
  rows <- lapply(split(seq_along(y), y), function(members) {
    take <- max(2L, round(as.double(size) * length(members) / length(y)))  # as doubles: n may pass 2^31 / size
    if (take >= length(members)) return(members)
    members[unique(round(seq(1, length(members), length.out = take)))]
  })
  sort(unlist(rows, use.names = FALSE))
}

#' The Nystroem KSVM fit
#' @noRd
krein_svm_nystrom_fit <- function(inputs, C, probability, landmarks, eps, m, threads) {
  landmarks <- resolve_landmarks(landmarks, inputs, eps, m, threads)
  feature <- nystrom_feature_map(landmark_kernel(inputs, landmarks, threads))
  signs <- feature$signs
  phi <- krein_svm_features(inputs, landmarks, t(feature$map), threads)
  y <- inputs$y
  fold_outputs <- function(phi, y, grid, phi_new) krein_svm_linear_fold_outputs(phi, signs, y, grid, phi_new)
  binary_decisions <- function(phi, y, C, phi_new) {
    binary <- krein_svm_linear(phi, signs, y, C)
    drop(phi_new %*% binary$v) + binary$b
  }
  # C = NULL: the cross-validated cost, on a subsample of many points
  # (selection_rows()); its held-out decision values serve the Platt model
  selected <- if (is.null(C)) selection_rows(y, svm_selection_points()) else seq_along(y)
  choice <- if (is.null(C)) {
    cross_validated_cost(isvm_cost_cv(phi[selected, , drop = FALSE], y[selected], fold_outputs = fold_outputs,
                                      block = feature_block))
  } else list(C = C)
  C <- choice$C
  pairs <- lapply(krein_svm_linear_pairs(phi, signs, y, C), function(pair) {
    # f(x) = k(x, L) c + b: the coefficients over the landmark kernel
    pair$coefficients <- drop(crossprod(feature$map, pair$v))
    pair
  })
  platt <- if (probability) {
    isvm_platt(phi[selected, , drop = FALSE], y[selected], C, binary_decisions = binary_decisions,
               block = feature_block, held_out = choice$held_out)
  }
  warn_platt_convergence(platt)
  fit <- list(pairs = pairs, C = C, cost_cv = choice$cost_cv, probability = probability, platt = platt,
              landmarks = landmarks, landmark_rank = feature$landmark_rank,
              signature = c(p = sum(signs > 0), q = sum(signs < 0)), threads = threads)
  pairwise <- matrix(vapply(pairs, function(pair) drop(phi %*% pair$v) + pair$b, numeric(length(y))), length(y))
  fit$training_outputs <- svm_outputs(fit, pairwise, levels(y))
  fit
}

#' The signed Nystroem features Phi = K(X, L) map' of the training points
#' (n x r), by the landmark pass where it applies, else in row blocks
#' @noRd
krein_svm_features <- function(inputs, landmarks, coefficients, threads) {
  landmark_scores(inputs, landmarks, coefficients, threads)
}

#' The features Psi = Phi T of the flip of the Nystroem kernel Phi J Phi' of
#' the rows `phi` (see the head of this file), for the Nystroem KSVM:
#' nystrom_flip(), an error where the features are all zero.
#' @noRd
krein_svm_flip_features <- function(phi, signs) {
  flip <- nystrom_flip(phi, signs)
  if (is.null(flip)) {
    krein_abort("The Nystroem features of a pair of classes are all zero: the kernel between the training points and the landmarks vanishes. Check the kernel and its parameters.")
  }
  flip
}

#' The eigendecomposition K^ = Phi J Phi' = U Lambda U' of the Nystroem
#' kernel of the feature rows `phi` (n x r) from r x r algebra (see the head
#' of this file): `transform` T (Phi T = U |Lambda|^1/2, the features of the
#' flip |K^|), `back` (J R' V sign(Lambda) |Lambda|^-1/2: the Nystroem KSVM's
#' map of the linear SVM's weights to the coefficients over Phi, and, up to
#' the signs of Lambda, the kernel PCA map of Ny-IKPCA-QD) and `values`
#' (Lambda, the nonzero eigenvalues, in decreasing order). NULL where the
#' features are all zero. Shared by the Nystroem KSVM and ikpca_qd()'s
#' Nystroem form.
#' @noRd
nystrom_flip <- function(phi, signs) {
  G <- crossprod(phi)
  gram <- eigen((G + t(G)) / 2, symmetric = TRUE)
  largest <- max(gram$values, 0)
  keep <- gram$values > 100 * ncol(phi) * .Machine$double.eps * largest
  if (!any(keep)) return(NULL)
  P <- gram$vectors[, keep, drop = FALSE]
  d <- gram$values[keep]
  R <- sqrt(d) * t(P)                                   # Phi = Q R, R'R = G
  M <- R %*% (signs * t(R))                             # R J R'
  middle <- eigen((M + t(M)) / 2, symmetric = TRUE)
  nonzero <- abs(middle$values) > 100 * length(d) * .Machine$double.eps * max(abs(middle$values))
  V <- middle$vectors[, nonzero, drop = FALSE]
  lambda <- middle$values[nonzero]
  transform <- P %*% (V / sqrt(d))
  transform <- transform * rep(sqrt(abs(lambda)), each = nrow(transform))
  back <- signs * (t(R) %*% (V * rep(sign(lambda) / sqrt(abs(lambda)), each = nrow(V))))
  list(transform = transform, back = back, values = lambda)
}

#' One two-class Nystroem KSVM on the feature rows `phi` with labels `y` (a
#' two-level factor): LIBLINEAR's L2-loss (squared hinge) SVM on the flipped
#' features, its weights w mapped to the coefficients v over phi (f = phi v +
#' b > 0 favours the second level)
#' @noRd
krein_svm_linear <- function(phi, signs, y, C) {
  flip <- krein_svm_flip_features(phi, signs)
  psi <- phi %*% flip$transform
  model <- LiblineaR::LiblineaR(psi, y, type = 2L, cost = C, epsilon = krein_svm_liblinear_epsilon, bias = 1)
  W <- drop(model$W)
  # LIBLINEAR's weights favour its first label (the first in the data)
  direction <- if (identical(as.character(model$ClassNames[1]), levels(y)[2])) 1 else -1
  k <- ncol(psi)
  w <- direction * W[seq_len(k)]
  list(v = drop(flip$back %*% w), b = direction * W[k + 1L], w = w, values = flip$values,
       margin = sum(ifelse(y == levels(y)[2], 1, -1) * (drop(psi %*% w) + direction * W[k + 1L]) <= 1))
}

#' The one-vs-one Nystroem KSVMs, pairs (i, j), i < j, in kernlab's order
#' @noRd
krein_svm_linear_pairs <- function(phi, signs, y, C) {
  one_vs_one_pairs(y, function(rows, pair_y, pair) {
    c(list(classes = levels(pair_y)), krein_svm_linear(phi[rows, , drop = FALSE], signs, pair_y, C))
  })
}

#' The classes the Nystroem KSVMs' one-vs-one vote gives held-out feature
#' rows and their pairwise decision values (isvm_cost_cv()'s `fold_outputs`
#' with feature_block())
#' @noRd
krein_svm_linear_fold_outputs <- function(phi, signs, y, grid, phi_new) {
  per_cost_outputs(grid, function(C) {
    pairs <- krein_svm_linear_pairs(phi, signs, droplevels(y), C)
    pairwise <- matrix(vapply(pairs, function(pair) drop(phi_new %*% pair$v) + pair$b, numeric(nrow(phi_new))),
                       nrow(phi_new))
    vote_outputs(pairwise, levels(y))  # the KSVMs' values favour the second class
  })
}
