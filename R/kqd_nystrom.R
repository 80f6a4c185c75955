# Ny-KQD: the six kernel quadratic discriminants of paper 000 (Table II) in
# the feature space of a Nystroem approximation (derived here; the derivation
# is the section "Nystroem KQD" of ?kqd and note 7 of the algorithm notes).
#
#   W = k(L, L) = V diag(l) V', r nonzero eigenpairs kept (the pseudo-inverse
#   cutoff of nystrom()); phi(x) = |l|^-1/2 V' k(L, x), J = sign(l), so that
#   k_hat(x, x') = phi(x)' J phi(x') is the Nystroem kernel k(x, L) W^+ k(L, x').
#
# Per class j the training rows give n_j, the mean mu_j and the centred Gram
# G_j = Phit_j' Phit_j (r x r). With G_j = F_j' F_j (F_j = S Vs', the nonzero
# part), the nonzero spectrum of the centred class kernel K~^[j] = Phit_j J
# Phit_j' is that of M_j = F_j J F_j' = Q Lambda Q', and a point's centred
# kernel vector k~_x = Phit_j J phit(x) has the coordinates c(x) = Q' F_j J
# phit(x) in that eigenbasis and nothing outside it. Every Table II formula is
# a spectral function of K~^[j] applied to k~_x, so it becomes
# sum_i w(Lambda_i) c_i(x)^2 with the weights of kqd.hpp (spectral_weight).
# FK does the same with the fully centred Gram of all rows and the class
# matrix J G_j J (see ?kqd).
#
# Only per-class factors of the rows enter the fit: the landmark kernel is
# computed in blocks of rows (nystrom_block_rows(), as Ny-iKFD) and reduced at
# once to the triangular QR factor of [C_j, 1] per class (cpp_class_factors(),
# the tall-skinny QR of Ny-iKFD), from which the class's count, mean and
# exactly centred Gram follow (kqd_nystrom_class_moments()). The model keeps the
# landmarks, the r x m map and per class mu_j, the projection Q' F_j J and the
# eigenvalues, folded into one m x (sum_j s_j + c) matrix for prediction:
# O(m r + c r^2) numbers, never the training set.

# The weights w(lambda) of Table II's inverse operators: the R twin of
# kqd.hpp's spectral_weight(), vectorised over the eigenvalues of one class.
kqd_nystrom_weights <- function(variant, indefinite, lambda, reg, n_j, zero) {
  is_zero <- abs(lambda) <= zero
  sign <- ifelse(indefinite & !is_zero & lambda < 0, -1, 1)
  magnitude <- if (indefinite) abs(lambda) else lambda
  magnitude[is_zero] <- 0
  switch(variant,
    "IC+" = 1 / (magnitude + reg)^2,
    "IC-" = ifelse(!is_zero & abs(lambda) >= reg, 1 / lambda^2, 0),
    "RC+" = sign / (magnitude + n_j * reg),
    "RC-" = sign / (n_j * reg),
    "FK+" = 1 / (ifelse(is_zero, 0, lambda) + reg),
    "FK-" = ifelse(!is_zero & lambda >= reg, 1 / lambda, 0))
}

# The Nystroem feature map of the landmarks: `map` (r x m) with phi(x) = map
# %*% k(L, x), and the signature `signs` (J).
kqd_nystrom_feature_map <- function(W) {
  e <- eigen(W, symmetric = TRUE)
  largest <- max(abs(e$values))
  keep <- abs(e$values) > sqrt(.Machine$double.eps) * largest   # nystrom.hpp, step 1
  if (!is.finite(largest) || !any(keep)) {
    krein_abort("The kernel matrix of the landmarks is zero (or not finite): the Nystroem approximation has rank 0. Check the kernel and its parameters.")
  }
  list(map = t(e$vectors[, keep, drop = FALSE]) / sqrt(abs(e$values[keep])),
       signs = sign(e$values[keep]), landmark_rank = sum(keep))
}

# An r-column factor F with F'F = A'A, from the rows of A (thin QR: at most
# r rows; R's qr() pivots columns, undone here).
kqd_nystrom_row_factor <- function(A) {
  if (nrow(A) == 0L) return(A)
  q <- qr(A)
  qr.R(q)[, order(q$pivot), drop = FALSE]
}

# One class's spectrum: the eigenvalues of F A F' (the nonzero spectrum of the
# class's n_j x n_j or n x n matrix) and the projection Q' F J of centred
# features onto its eigenvectors.
kqd_nystrom_spectrum <- function(factor, middle, signs) {
  if (nrow(factor) == 0L) return(list(values = numeric(), projection = matrix(0, 0, length(signs))))
  M <- factor %*% middle %*% t(factor)
  e <- eigen((M + t(M)) / 2, symmetric = TRUE)
  list(values = e$values, projection = t(e$vectors) %*% (factor * rep(signs, each = nrow(factor))))
}

# A class's count, mean and centred factor in landmark-kernel space from the
# triangular factor R of its rows [C_j, 1] (tall-skinny QR, as Ny-iKFD):
# with R = [R11 u; 0 rho], C_j'1 = R11'u, n_j = |u|^2 + rho^2 and the centred
# Gram C_j'C_j - C_j'1 1'C_j / n_j = R11'(I - uu'/n_j)R11 = F'F with F =
# (I - a uu'/|u|^2) R11, a = 1 - |rho| / sqrt(n_j): the centring is exact,
# with no cancellation of the mean.
kqd_nystrom_class_moments <- function(R, n) {
  m <- ncol(R) - 1L
  R11 <- R[seq_len(m), seq_len(m), drop = FALSE]
  u <- R[seq_len(m), m + 1L]
  uu <- sum(u^2)
  # rho^2 = n - |u|^2, from the factor itself (not by cancellation)
  rho <- abs(R[m + 1L, m + 1L])
  centred <- if (uu > 0) R11 - (1 - rho / sqrt(uu + rho^2)) / uu * tcrossprod(u, crossprod(R11, u)) else R11
  list(n = n, sum = as.vector(crossprod(R11, u)), centred = centred)
}

#' The Ny-KQD fit: the model's core (the counterpart of cpp_kqd_fit()) from the
#' training inputs and landmarks, and the training distances.
#' @noRd
kqd_nystrom_fit <- function(inputs, landmarks, variant, reg, indefinite, threads) {
  if (inherits(inputs, "krein_chunked_inputs")) {
    return(kqd_nystrom_fit_chunks(inputs, landmarks, variant, reg, indefinite, threads))
  }
  y <- inputs$y
  n <- length(y)
  classes <- nlevels(y)
  feature <- kqd_nystrom_feature_map(landmark_kernel(inputs, landmarks, threads))
  rc <- startsWith(variant, "RC")
  counts <- as.vector(table(y))
  factors <- landmark_pass_class_factors(inputs$x, inputs$kernel, landmarks$points, as.integer(y), classes,
                                         threads)
  if (!is.null(factors)) {
    moments <- lapply(seq_len(classes), function(j) kqd_nystrom_class_moments(factors[[j]], counts[j]))
    core <- kqd_nystrom_core(moments, feature, variant, reg, indefinite, n)
    distances <- kqd_nystrom_pass_distances(core, inputs$kernel, inputs$x, landmarks$points, threads)
    if (!is.null(distances)) return(list(core = core, distances = distances))
  }
  pass <- nystrom_class_factors(inputs, landmarks, threads)
  moments <- lapply(seq_len(classes), function(j) kqd_nystrom_class_moments(pass$factors[[j]], counts[j]))
  core <- kqd_nystrom_core(moments, feature, variant, reg, indefinite, n)
  distances <- lapply(seq_len(nrow(reg)), function(k) matrix(0, n, classes))
  for (b in seq_along(pass$starts)) {
    block <- pass$block(b)
    self <- if (rc) training_self_similarity(inputs, block$rows)
    distances_block <- kqd_nystrom_distances(core, block$C, self, threads)
    for (k in seq_along(distances)) distances[[k]][block$rows, ] <- distances_block[[k]]
  }
  list(core = core, distances = distances)
}

# Ny-KQD over chunked data (R/chunks.R): the class factors mapped over the
# chunks and merged, then the training distances in a second pass
kqd_nystrom_fit_chunks <- function(inputs, landmarks, variant, reg, indefinite, threads) {
  y <- inputs$y
  classes <- nlevels(y)
  feature <- kqd_nystrom_feature_map(landmark_kernel(inputs, landmarks, threads))
  factors <- chunk_class_factors(inputs, landmarks, threads)
  counts <- as.vector(table(y))
  moments <- lapply(seq_len(classes), function(j) kqd_nystrom_class_moments(factors[[j]], counts[j]))
  core <- kqd_nystrom_core(moments, feature, variant, reg, indefinite, length(y))
  distance <- function(C, self, codes) kqd_nystrom_distances(core, C, self, threads)
  blocks <- map_landmark_kernel(inputs, landmarks, bare_function(distance, core = core, threads = threads),
                                need_self = startsWith(variant, "RC"), threads = threads)
  distances <- lapply(seq_len(nrow(reg)), function(k) do.call(rbind, lapply(blocks, `[[`, k)))
  list(core = core, distances = distances)
}

training_self_similarity <- function(inputs, rows) {
  if (is.null(inputs$x)) return(inputs$precomputed$K[cbind(rows, rows)])
  kernel_self(inputs$kernel, inputs$x[rows, , drop = FALSE])
}

# The classes' spectra and projections from the per-class moments: what
# kqd.hpp's fit() gives the full KQD, with the same diagnostics. Then the
# whole prediction as one m x k matrix `expansion` applied to the landmark
# kernel (see kqd_nystrom_distances()).
kqd_nystrom_core <- function(moments, feature, variant, reg, mode, n) {
  signs <- feature$signs
  map <- feature$map
  r <- length(signs)
  J <- diag(signs, r)
  fk <- startsWith(variant, "FK")
  # in the feature space: mean mu_j and an r-column factor of the centred Gram G_j
  parts <- lapply(moments, function(mo) {
    list(n = mo$n, mean = as.vector(map %*% mo$sum) / mo$n,
         factor = kqd_nystrom_row_factor(mo$centred %*% t(map)))
  })
  if (fk) {
    # the fully centred Gram of all rows: within-class plus between-class parts
    grand <- Reduce(`+`, lapply(parts, function(p) p$n * p$mean)) / n
    total_factor <- kqd_nystrom_row_factor(do.call(rbind, lapply(parts, function(p) {
      rbind(p$factor, sqrt(p$n) * (p$mean - grand))
    })))
  }
  classes <- lapply(seq_along(parts), function(j) {
    p <- parts[[j]]
    n_j <- p$n
    cls <- list(n_j = n_j, mean = p$mean, indefinite = FALSE, negative_found = FALSE,
                signature = c(-1L, -1L, -1L), regularised_singular = FALSE)
    # the centred class kernel K~^[j]: its nonzero spectrum, for the record
    # (and the model of IC and RC); RC- with A = I decomposes nothing, as in kqd.hpp
    class_spectrum <- if (!(variant == "RC-" && mode == "no")) kqd_nystrom_spectrum(p$factor, J, signs)
    if (!is.null(class_spectrum)) {
      lambda <- class_spectrum$values
      largest <- max(0, abs(lambda))
      zero <- 100 * n_j * .Machine$double.eps * largest
      cls$negative_found <- any(lambda < -1e-8 * largest)
      p_count <- sum(lambda > zero)
      q_count <- sum(lambda < -zero)
      cls$signature <- as.integer(c(p_count, q_count, n_j - p_count - q_count))
    }
    cls$indefinite <- mode == "yes" || (mode == "auto" && cls$negative_found)
    if (fk) {
      # K~~^[j] = Phibar J G_j J Phibar' (psd): the spectrum of F J G_j J F'
      spectrum <- kqd_nystrom_spectrum(total_factor, J %*% crossprod(p$factor) %*% J, signs)
      cls$signature <- c(-1L, -1L, -1L)
      cls$zero <- 100 * n_j * .Machine$double.eps * max(0, abs(spectrum$values))
    } else if (is.null(class_spectrum)) {
      # RC- with A = I: q = |k~_x|^2, any orthonormal coordinates of range(Phit_j J) do
      spectrum <- list(values = rep(0, nrow(p$factor)), projection = p$factor * rep(signs, each = nrow(p$factor)))
      cls$zero <- 0
    } else {
      spectrum <- class_spectrum
      cls$zero <- zero
      if (!cls$indefinite && variant %in% c("IC+", "RC+")) {
        smallest <- min(c(lambda, if (n_j > p_count + q_count) 0))
        shift <- if (variant == "RC+") n_j * reg[, j] else reg[, j]
        cls$regularised_singular <- any(smallest + shift <= zero)
      }
    }
    cls$values <- spectrum$values
    cls$projection <- spectrum$projection
    cls
  })
  # c(x) = T_j (phi(x) - mu_j) = (T_j map) k(L, x) - T_j mu_j, and for RC
  # phi(x)' J mu_j = k(x, L) map' J mu_j: one m x (sum_j s_j + c) expansion
  sizes <- vapply(classes, function(cls) length(cls$values), integer(1))
  expansion <- cbind(do.call(cbind, lapply(classes, function(cls) t(map) %*% t(cls$projection))),
                     t(map) %*% (signs * vapply(classes, `[[`, numeric(r), "mean")))
  offsets <- unlist(lapply(classes, function(cls) as.vector(cls$projection %*% cls$mean)))
  list(variant = variant, reg = reg, signs = signs, map = map,
       landmark_rank = feature$landmark_rank, classes = classes,
       expansion = expansion, offsets = offsets, sizes = sizes)
}

#' Squared distances of points, given by their kernel against the landmarks
#' (rows of C), to every class at every path value: a list of (rows x
#' classes) matrices. `self`: their exact k(x, x) (RC only). One matrix
#' product, O(m sum_j s_j) per point, in the C++ core (kqd_nystrom.hpp).
#' @noRd
kqd_nystrom_distances <- function(core, C, self = NULL, threads = 1L) {
  terms <- kqd_nystrom_distance_terms(core)
  cpp_kqd_nystrom_distances(C, core$expansion, core$offsets, core$sizes, terms$weights, terms$scale,
                            terms$self_scale, terms$self_offsets,
                            if (terms$rc) as.double(self) else numeric(), threads)
}

# The terms of kqd_nystrom_distances() that depend on the model only.
kqd_nystrom_distance_terms <- function(core) {
  rc <- startsWith(core$variant, "RC")
  paths <- nrow(core$reg)
  # the spectral weights of every class (stacked) at every path value
  weights <- do.call(rbind, lapply(seq_along(core$classes), function(j) {
    cls <- core$classes[[j]]
    matrix(vapply(seq_len(paths), function(k) {
      kqd_nystrom_weights(core$variant, cls$indefinite, cls$values, core$reg[k, j], cls$n_j, cls$zero)
    }, numeric(length(cls$values))), ncol = paths)
  }))
  n_j <- vapply(core$classes, `[[`, numeric(1), "n_j")
  # d = a q + b (k(x, x) - 2 phi(x)' J mu_j + mu_j' J mu_j): IC and FK a = n_j, b = 0;
  # RC a = -1 / sigma^2, b = 1 / sigma^2, with the exact self-similarity and the
  # approximated kernel elsewhere (?kqd, Nystroem KQD)
  scale <- if (rc) -1 / core$reg else matrix(n_j, paths, length(n_j), byrow = TRUE)
  self_scale <- if (rc) 1 / core$reg else matrix(0, paths, length(n_j))
  self_offsets <- vapply(core$classes, function(cls) sum(core$signs * cls$mean^2), numeric(1))
  list(rc = rc, weights = weights, scale = scale, self_scale = self_scale, self_offsets = self_offsets)
}

# The distances of the rows of x (kqd_nystrom_distances()) by the core's
# landmark pass: the landmark kernel in blocks, never held whole; NULL where a
# kernel value was not finite (the caller then takes the R path, which says so).
kqd_nystrom_pass_distances <- function(core, kernel, x, points, threads) {
  terms <- kqd_nystrom_distance_terms(core)
  landmark_pass_finite(cpp_kqd_nystrom_pass_distances(
    kernel, x, points, core$expansion, core$offsets, core$sizes, terms$weights, terms$scale,
    terms$self_scale, terms$self_offsets, landmark_pass_block_rows(nrow(points)), threads))
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
