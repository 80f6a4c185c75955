# The three reductions of kfda() in memory, each giving the reduced, scaled
# kernel data Z (or its class moments) and how to reduce new kernel data:
# "pca" (the principal components of the centred kernel data, their number
# by leave-one-out PRESS, the full or the partial spectrum), "subset" (the
# kernel columns of random bases, in one pass over row blocks) and "ridge"
# (all kernel columns, centred and scaled). The "subset" reduction over data
# in chunks is in R/kfda_chunks.R.

kfda_pca <- function(inputs, ncomp, discriminant, counts, threads) {
  K <- training_kernel(inputs, threads)
  n <- nrow(K)
  if (!is.null(ncomp) && (!is.numeric(ncomp) || length(ncomp) != 1L || is.na(ncomp) || ncomp <= 0)) {
    krein_abort(sprintf("`ncomp` must be a whole number of components or a share of variance in (0, 1), not %s.",
                        describe_value(ncomp)))
  }
  if (!is.null(ncomp) && ncomp >= 1) {
    ncomp <- check_number(ncomp, "ncomp", lower = 1, allow_lower = TRUE, integer = TRUE)
  }
  # NULL: the count up to the cap (at most 128) with the smallest
  # leave-one-out error, from the leading `cap` components
  cap <- max(1L, if (discriminant == "linear") floor(n / 5) else floor(min(counts) / 4))
  if (is.null(ncomp)) cap <- min(cap, kfda_max_components)
  # (a target share of 1: every component up to the cap or the rank)
  target <- if (is.null(ncomp)) 1 else if (ncomp < 1) ncomp
  method <- kfda_pca_method()
  spectrum <- if (method != "svd") kfda_partial_spectrum(K, ncomp, target, cap, threads, force = method == "krylov")
  if (is.null(spectrum)) spectrum <- kfda_full_spectrum(K, threads)
  d <- spectrum$d
  values <- d^2 / (n - 1)
  # Numerical rank on the singular values, by the usual rule (LAPACK's, and
  # Matlab's rank(): max(size) * eps * norm): a backward stable SVD returns
  # each singular value with an error up to a modest multiple of
  # eps * D_max, so smaller ones cannot be told from zero; ncol(K) = n here.
  # On the eigenvalues of Z'Z the same rule would keep only D > sqrt(n eps) D_max.
  # A partial spectrum has the rank only up to its length: enough, since it
  # holds every component asked for, or reaches the rank.
  rank <- sum(d > d[1] * max(n, ncol(K)) * .Machine$double.eps)
  if (rank == 0L) krein_abort("The kernel data have no variance: every training point has the same kernel row.")
  # the total variance is the squared Frobenius norm of the centred data: the
  # sum of all squared singular values, without computing them
  total <- spectrum$total / (n - 1)
  share <- cumsum(values[seq_len(rank)]) / total
  selection <- NULL
  ridge <- NULL
  if (is.null(ncomp)) {
    # every component computed (all of the rank where the full SVD was
    # used) for the ridge candidates of the linear discriminant; the counts
    # up to the cap without one
    candidates <- min(cap, rank)
    available <- if (discriminant == "linear") min(rank, ncol(spectrum$v)) else candidates
    Z_all <- cpp_kfda_project(K, spectrum$means, spectrum$v[, seq_len(available), drop = FALSE],
                              sqrt(values[seq_len(available)]))
    selection <- kfda_loo_components(Z_all, inputs$y, candidates, variances = values[seq_len(available)],
                                     ridges = if (discriminant == "linear") kfda_ridge_candidates(values[seq_len(available)]))
    ncomp <- selection$chosen
    ridge <- selection$chosen_ridge
  } else if (ncomp < 1) {
    ncomp <- which(share >= ncomp - 1e-12)[1]
    if (is.na(ncomp)) ncomp <- rank
  } else if (ncomp > rank) {
    krein_abort(sprintf("`ncomp` (%d) is larger than the rank of the kernel data (%d): there are only %d principal components with variance.",
                        ncomp, rank, rank), class = "krein_rank_error")
  }
  keep <- seq_len(ncomp)
  rotation <- spectrum$v[, keep, drop = FALSE]
  scale <- sqrt(values[keep])
  Z <- if (is.null(selection)) cpp_kfda_project(K, spectrum$means, rotation, scale) else Z_all[, keep, drop = FALSE]
  list(Z = Z, center = spectrum$means,
       rotation = rotation, scale = scale, variance_explained = share[ncomp],
       eigenvalues = values[seq_len(rank)], spectrum = spectrum$info, points = inputs$x, bases = NULL,
       selection = selection, ridge = ridge)
}

# The ridges the default tries on every computed component (in the units of
# the component scores' variances `values`): 1e-3 to 1 times their mean
kfda_ridge_candidates <- function(values) 10^(-3:0) * mean(values)

# The most components the default ncomp considers (documented in ?kfda)
kfda_max_components <- 128L

# The default number of principal components: the q in 1..ncol(Z) with the
# smallest leave-one-out squared error (PRESS) of the least-squares
# regressions of the class indicators (one for two classes) on the first q
# component scores and an intercept -- the regressions whose fits give the
# Fisher discriminants of those components (for two classes the direction
# itself; for more, by optimal scoring). The scores Z (n x qmax) have
# orthogonal, centred columns of equal norm sqrt(n - 1), so U = Z /
# sqrt(n - 1) has orthonormal columns, the hat matrix of q components is
# 1 1' / n + U_q U_q', and every q's leave-one-out residuals r_i / (1 - H_ii)
# follow from cumulative sums: O(n qmax c) for c indicators.
#
# `ridges` (NULL for none): ridges r tried on all ncol(Z) components, in the
# units of the components' variances `variances` (the scores Z are scaled to
# unit variance). With r the hat matrix is 1 1' / n + U D U',
# D = diag(v_j / (v_j + r)) for the components' variances v_j: a ridge
# regression of the indicators on the unscaled scores, whose direction for
# two classes is that of the Fisher discriminant with the ridge on the
# pooled covariance (the covariances differ by a rank-one term, which
# Sherman-Morrison's formula shows changes only the length). Where the cap
# on the count binds (n / 5: 14 components for 74 points of kernlab's
# promotergene, 171 dummy inputs) every component with a ridge can fit
# better: over five splits the counts alone gave 0.75-0.81 test accuracy,
# the choice among counts and ridges 0.75-0.875 (mean 0.82; e1071::svm 0.83).
kfda_loo_components <- function(Z, y, counts = ncol(Z), variances = NULL, ridges = NULL) {
  n <- nrow(Z)
  targets <- discriminant_indicators(y)
  targets <- targets - rep(colMeans(targets), each = n)
  U <- Z / sqrt(n - 1)
  coefficients <- crossprod(U, targets)
  loo <- function(residual, leverage) {
    gap <- 1 - leverage
    if (!all(gap > 1e-12)) return(Inf)
    sum((residual / gap)^2)
  }
  residual <- targets
  leverage <- rep(1 / n, n)
  press <- double(counts)
  for (q in seq_len(counts)) {
    residual <- residual - U[, q] %o% coefficients[q, ]
    leverage <- leverage + U[, q]^2
    press[q] <- loo(residual, leverage)
  }
  chosen <- if (any(is.finite(press))) which.min(press) else 1L
  ridge_press <- NULL
  chosen_ridge <- NULL
  if (length(ridges)) {
    # a component whose variance is below 1e-6 r is shrunk to nothing (its
    # weight v / (v + r) < 1e-6): left out, so that the covariances' factors
    # keep a condition the fit accepts (`tol`)
    ridge_counts <- vapply(ridges, function(r) sum(variances >= 1e-6 * r), 1L)
    ridge_press <- vapply(seq_along(ridges), function(k) {
      used <- seq_len(ridge_counts[k])
      shrink <- variances[used] / (variances[used] + ridges[k])
      loo(targets - U[, used, drop = FALSE] %*% (shrink * coefficients[used, , drop = FALSE]),
          1 / n + as.vector(U[, used, drop = FALSE]^2 %*% shrink))
    }, 1)
    best <- which.min(ridge_press)
    if (ridge_press[best] < press[chosen]) {
      chosen <- ridge_counts[best]
      chosen_ridge <- ridges[best]
    }
  }
  list(press = press, ridges = ridges, ridge_press = ridge_press, chosen = chosen, chosen_ridge = chosen_ridge)
}

# How the principal components are computed: "auto", the partial spectrum
# where it pays and else the full SVD. The tests and bench/kfda.R replace
# this function (testthat's mocked bindings) to compare the routes:
# "krylov" (the partial spectrum whenever it fits) against "svd" (the full
# SVD always).
kfda_pca_method <- function() "auto"

# All singular values and right vectors of the centred kernel data, from a
# thin SVD of Z = K - 1 m' = U D V' (rotation V, variances D^2 / (n - 1)),
# not from the eigenvectors of Z'Z, which squares the condition number (see
# centred_svd in inst/include/krein/kfda.hpp). O(n^3).
kfda_full_spectrum <- function(K, threads) {
  one <- with_core_errors("kfda()", cpp_centred_svd(K, threads))
  list(means = one$means, d = one$d, v = one$v, total = sum(one$d^2),
       info = list(method = "svd", components = length(one$d)))
}

# The leading singular triplets of the centred kernel data only, by block
# Golub-Kahan-Lanczos bidiagonalisation (centred_partial_svd in
# inst/include/krein/kfda.hpp): as many components as asked for, or, for a
# share of the variance (`target`), doubling the number until their share
# reaches it, the rank is reached or the cap (`cap`, for the default ncomp)
# is. NULL where a full SVD is the better route: more than a tenth of the
# points' components, or at most 200 points (a full SVD then takes
# milliseconds), unless `force`d (then up to a quarter of the points).
# Non-convergence within n / 2 basis vectors falls back to the full SVD with a
# warning (the fit records it in `spectrum`).
kfda_partial_spectrum <- function(K, ncomp, target, cap, threads, force = FALSE) {
  n <- nrow(K)
  limit <- floor(n / if (force) 4 else 10)
  if (!force && n <= 200) return(NULL)
  # a count of components is computed as asked; a share starts from 16, all
  # of them (share 1) from the cap
  wanted <- if (is.null(target)) ncomp else if (target >= 1) max(1L, cap) else
    max(1L, min(16L, if (is.null(ncomp)) cap else limit))
  repeat {
    if (wanted > limit) return(NULL)
    one <- with_core_errors("kfda()", cpp_centred_partial_svd(K, wanted, kfda_krylov_tolerance(n),
                                                                floor(n / 2), threads))
    if (!one$converged) {
      krein_warn(sprintf("The partial SVD of the kernel data (block Lanczos) did not reach its tolerance for %d components within %d basis vectors (largest relative residual %s); the principal components come from a full SVD instead.",
                         wanted, as.integer(one$dimension), format(max(one$residuals), digits = 3)),
                 class = "krein_numerical_warning")
      full <- kfda_full_spectrum(K, threads)
      full$info$fallback <- TRUE
      return(full)
    }
    info <- list(method = "krylov", components = wanted, dimension = as.integer(one$dimension),
                 max_residual = max(one$residuals))
    spectrum <- list(means = one$means, d = one$d, v = one$v, total = one$total, info = info)
    if (is.null(target)) return(spectrum)
    d <- one$d
    above <- d > d[1] * n * .Machine$double.eps
    share <- cumsum(d^2) / one$total
    if (any(share[above] >= target - 1e-12) || !all(above) || (is.null(ncomp) && wanted >= cap)) {
      return(spectrum)
    }
    wanted <- if (is.null(ncomp)) min(2L * wanted, cap) else 2L * wanted
  }
}

# Residual tolerance of the partial SVD relative to the largest singular
# value: the backward error a full SVD guarantees, a modest multiple of n eps
# of the largest singular value (LAPACK Users' Guide, "Error bounds for the
# singular value decomposition": p(m, n) eps sigma_1). A tolerance of 8
# sqrt(n) eps, the rounding of a single product, is tighter than the full
# SVD itself: on mlbench's Ionosphere (245 training rows) Lanczos stalls
# there at a residual of 7e-14 against 2.8e-14 and falls back, with a
# warning, to the full SVD it is as accurate as.
kfda_krylov_tolerance <- function(n) 16 * n * .Machine$double.eps

kfda_subset <- function(inputs, bases, discriminant, counts, ridge, threads) {
  if (inherits(inputs, "krein_chunked_inputs")) {
    return(kfda_subset_chunks(inputs, bases, discriminant, counts, ridge, threads))
  }
  n <- length(inputs$y)
  bases <- resolve_bases(bases, n, discriminant, counts)
  points <- if (!is.null(inputs$x)) inputs$x[bases, , drop = FALSE]
  c(kfda_subset_moments(inputs, list(indices = bases, points = points, class = inputs$y[bases]), discriminant, ridge,
                        threads),
    list(points = points, bases = bases))
}

# kfda_subset()'s reduction, for data in memory (data, or a precomputed
# kernel: `bases` holds the training-row `indices` and, for data, their
# `points` and `class`) and in chunks alike (one row source,
# R/landmark_pass.R), without the n x m kernel data K(x, B) or its centred,
# scaled copy: one pass over blocks of rows for the per-class QR factors of
# [K(x, B) | 1] (the core's landmark pass where it applies, else blocks of
# rows, as Ny-iKFD takes them), turned into the class moments
# (kfda_class_moments()), then kfda_moments_reduction(), whose training(fit)
# passes over the blocks again (kept where they fit in 128 MB). A data fit
# whose kernel the pass does not take and the fit on its precomputed kernel
# so take the same arithmetic.
kfda_subset_moments <- function(inputs, bases, discriminant, ridge, threads) {
  codes <- as.integer(inputs$y)
  pass <- landmark_class_factors(inputs, bases, threads)
  each_block <- function(fun) landmark_blocks(inputs, bases, fun, threads, pass)
  kfda_moments_reduction(kfda_class_moments(pass$factors, tabulate(codes, nlevels(inputs$y))), length(codes),
                         each_block, discriminant, ridge)
}

# The class moments of cpp_kfda_class_factors() (means, one column per class;
# factors R_c of the centred class rows, R_c'R_c = (C_c - 1 m_c')'(C_c - 1
# m_c'); counts) from the per-class triangular factors F_c of [C_c | 1]
# (m + 1 columns) of the landmark pass and of cpp_class_factors(). F_c is
# the factor of the class's rows with the column of ones last; the factor U
# of the same rows with it first, [1 | C_c] = Q U, follows from a QR
# decomposition of F_c with its columns so permuted (the permuted F_c'F_c is
# U'U). With Q = [q, Q_2]: 1 = q U_11 and C_c = q u' + Q_2 U_22 (u' the
# rest of U's first row, U_22 its lower right m x m block), so the class
# mean is C_c'1 / n_c = u / U_11 (q'q = 1, Q_2'q = 0) and C_c - 1 m_c' =
# Q_2 U_22: U_22 is the centred factor, obtained without centring the rows
# (nor forming a scatter, which would square the condition number).
kfda_class_moments <- function(factors, counts) {
  m <- ncol(factors[[1]]) - 1L
  means <- matrix(0, m, length(factors))
  centred <- vector("list", length(factors))
  for (k in seq_along(factors)) {
    if (counts[k] == 0) {
      centred[[k]] <- matrix(0, m, m)
      next
    }
    U <- cpp_triangular_factor(factors[[k]][, c(m + 1L, seq_len(m)), drop = FALSE])
    means[, k] <- U[1L, -1L] / U[1L, 1L]
    centred[[k]] <- U[-1L, -1L, drop = FALSE]
  }
  list(means = means, factors = centred, counts = as.double(counts))
}

# The "subset" reduction from the class moments of the kernel data C = K(x,
# B) (n rows; means, centred factors and counts, as cpp_kfda_class_factors()
# gives them), for data in memory (kfda_subset_memory()) and in chunks
# (kfda_subset_chunks()) alike: the column centre, the rotation onto the
# principal components with variance and their scale, the moments of the
# kernel data there that kfda_fit() takes in place of Z (`ridge`: the
# user's, NULL for the default), and `training(fit)`, the training decisions
# and Fisher coordinates from a second pass. `each_block(fun)` applies
# fun(C, self, codes) to the kernel data of each block of rows and returns
# the results in row order (fun is a bare_function(), fit to be sent to
# future workers).
kfda_moments_reduction <- function(moments, n, each_block, discriminant, ridge) {
  center <- as.vector(moments$means %*% moments$counts) / n
  centred_means <- moments$means - center
  p <- length(center)
  classes <- sum(moments$counts > 0)
  # Kernel columns of nearby bases are nearly collinear (a smooth kernel on
  # few inputs): 500 bases on checkerboard(6000) span about 100 directions,
  # and the discriminant on all 500 columns with a ridge was unstable (test
  # accuracy 0.61-0.89 for ridges 1e-10 to 1e-3, against 0.965 for reduce =
  # "pca"). So the columns are rotated onto their principal components with
  # variance, by kfda_pca()'s numerical rank rule, from the singular values
  # of T with T'T the total scatter: T stacks the centred class factors and
  # the weighted class means (its triangular factor, then the SVD of that,
  # so that the scatter, which squares the condition number, is never
  # formed). On those components the linear discriminant needs no ridge
  # (the same data: 0.965; sine populations 0.971, "pca" 0.972).
  stacked <- rbind(do.call(rbind, moments$factors), t(centred_means) * sqrt(moments$counts))
  spectrum <- svd(cpp_triangular_factor(stacked), nu = 0L)
  d <- spectrum$d
  rank <- sum(d > d[1] * max(n, p) * .Machine$double.eps)
  if (rank == 0L) krein_abort("The kernel data have no variance: every training point has the same kernel row.")
  values <- d[seq_len(rank)]^2 / max(1, n - 1)
  # the quadratic discriminant's default ridge, as reduce = "ridge" takes
  # it: 1e-3 of the mean within-class variance of the kernel data columns
  # (each class's covariance in all components is singular to rounding
  # without one)
  if (is.null(ridge) && discriminant == "quadratic") {
    ridge <- default_ridge <- 1e-3 * sum(Reduce(`+`, lapply(moments$factors, function(R) colSums(R^2)))) /
      max(1, n - classes) / p
  } else {
    default_ridge <- NULL
  }
  # with a ridge, no component whose variance is below 1e-12 of it: the
  # ridge swamps it (its part in the discriminant is below 1e-12 of the
  # others'), and in the whitened coordinates it would take the covariance's
  # condition number past what kfda_fit() checks (`tol`)
  if (!is.null(ridge) && ridge > 0) values <- values[seq_len(max(1L, sum(values >= 1e-12 * ridge)))]
  keep <- seq_along(values)
  rotation <- spectrum$v[, keep, drop = FALSE]
  # each component's sign fixed (its largest loading positive), so that fits
  # whose moments agree (data in memory and in chunks) agree in their
  # coordinates
  largest <- apply(abs(rotation), 2, which.max)
  rotation <- rotation * rep(sign(rotation[cbind(largest, keep)]), each = nrow(rotation))
  component_scale <- sqrt(values)
  # z = (C - center) V / sqrt(values): unit total variance
  whiten <- function(M) (M %*% rotation) / rep(component_scale, each = nrow(M))
  # (each class factor R V, m x rank, made triangular again: the same R'R)
  rotated <- list(means = t(whiten(t(centred_means))),
                  factors = lapply(moments$factors, function(R) cpp_triangular_factor(whiten(R))),
                  counts = moments$counts)
  training <- function(fit) {
    score <- function(C, self, codes) {
      Z <- cpp_kfda_project(C, center, rotation, component_scale)
      list(decisions = kfda_decisions(fit, Z), projection = fisher_coordinates(fit, Z))
    }
    model <- fit[c("gaussian", "logdet", "fisher_center", "scaling")]
    blocks <- each_block(bare_function(score, fit = model, center = center, rotation = rotation,
                                       component_scale = component_scale))
    list(decisions = do.call(rbind, lapply(blocks, `[[`, "decisions")),
         projection = do.call(rbind, lapply(blocks, `[[`, "projection")))
  }
  list(Z = NULL, moments = rotated, center = center, rotation = rotation, scale = component_scale,
       variance_explained = NULL, eigenvalues = values, training = training, ridge = default_ridge)
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

resolve_bases <- function(bases, n, discriminant, counts) {
  if (is.null(bases)) {
    m <- min(ceiling(n / 10), 500)
    if (discriminant == "quadratic") m <- min(m, floor(min(counts) / 4))
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
