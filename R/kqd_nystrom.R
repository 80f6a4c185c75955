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
# Only sums over rows enter the fit, so the landmark kernel is computed in
# blocks of rows (nystrom_block_rows(), as Ny-iKFD) and never held whole; the
# model keeps the landmarks, the r x m map and per class mu_j, the r-column
# projection Q' F_j J and the eigenvalues: O(m r + c r^2) numbers.

# The weights w(lambda) of Table II's inverse operators: the R twin of
# kqd.hpp's spectral_weight(), vectorised over the eigenvalues of one class.
nykqd_weights <- function(variant, indefinite, lambda, reg, n_j, zero) {
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
nykqd_feature_map <- function(W) {
  e <- eigen(W, symmetric = TRUE)
  largest <- max(abs(e$values))
  keep <- abs(e$values) > sqrt(.Machine$double.eps) * largest   # nystrom.hpp, step 1
  if (!is.finite(largest) || !any(keep)) {
    krein_abort("The kernel matrix of the landmarks is zero (or not finite): the Nystroem approximation has rank 0. Check the kernel and its parameters.")
  }
  list(map = t(e$vectors[, keep, drop = FALSE]) / sqrt(abs(e$values[keep])),
       signs = sign(e$values[keep]), landmark_rank = sum(keep))
}

# The nonzero "square root" F (s x r) of a positive semidefinite r x r Gram
# matrix G = F'F: F = D^1/2 U' over the eigenvalues above 100 r eps of the
# largest (the rest carry no more than rounding).
nykqd_gram_factor <- function(G) {
  e <- eigen((G + t(G)) / 2, symmetric = TRUE)
  largest <- max(0, e$values)
  keep <- e$values > 100 * nrow(G) * .Machine$double.eps * largest & e$values > 0
  sqrt(e$values[keep]) * t(e$vectors[, keep, drop = FALSE])
}

# One class's spectrum: the eigenvalues of F A F' (the nonzero spectrum of the
# class's n_j x n_j or n x n matrix) and the projection Q' F J of centred
# features onto its eigenvectors.
nykqd_spectrum <- function(factor, middle, signs) {
  if (nrow(factor) == 0L) return(list(values = numeric(), projection = matrix(0, 0, length(signs))))
  M <- factor %*% middle %*% t(factor)
  e <- eigen((M + t(M)) / 2, symmetric = TRUE)
  list(values = e$values, projection = t(e$vectors) %*% (factor * rep(signs, each = nrow(factor))))
}

# Per-class sums over the training rows: counts, shifted sums and Grams. The
# rows are shifted by the class's first feature row, so that the centred Gram
# G - n (mu - s)(mu - s)' does not cancel the large mean of the features.
nykqd_accumulate <- function(stats, Phi, y) {
  for (j in which(tabulate(y, length(stats)) > 0L)) {
    rows <- Phi[y == j, , drop = FALSE]
    s <- stats[[j]]
    if (is.null(s$shift)) s <- list(shift = rows[1, ], n = 0, sum = 0, gram = 0)
    shifted <- sweep(rows, 2, s$shift)
    s$n <- s$n + nrow(rows)
    s$sum <- s$sum + colSums(shifted)
    s$gram <- s$gram + crossprod(shifted)
    stats[[j]] <- s
  }
  stats
}

#' The Ny-KQD fit: the model's core (the counterpart of cpp_kqd_fit()) from the
#' training inputs and landmarks, and the training distances.
#' @noRd
kqd_nystrom_fit <- function(inputs, landmarks, variant, reg, indefinite, threads) {
  y <- as.integer(inputs$y)
  n <- length(y)
  classes <- nlevels(inputs$y)
  feature <- nykqd_feature_map(landmark_kernel(inputs, landmarks, threads))
  r <- length(feature$signs)
  rc <- startsWith(variant, "RC")
  block_rows <- nystrom_block_rows(length(landmarks$class))
  starts <- seq(1L, n, by = block_rows)
  # the features of all rows are kept for the second pass when they fit in 128 MB
  keep_features <- as.double(n) * r <= 2^24
  kept <- list()
  stats <- vector("list", classes)
  for (b in seq_along(starts)) {
    rows <- starts[b]:min(n, starts[b] + block_rows - 1L)
    Phi <- landmark_columns(inputs, landmarks, rows, threads) %*% t(feature$map)
    stats <- nykqd_accumulate(stats, Phi, y[rows])
    if (keep_features) kept[[b]] <- Phi
  }
  core <- nykqd_core(stats, feature, variant, reg, indefinite, n)
  distances <- lapply(seq_len(nrow(reg)), function(k) matrix(0, n, classes))
  for (b in seq_along(starts)) {
    rows <- starts[b]:min(n, starts[b] + block_rows - 1L)
    Phi <- if (keep_features) kept[[b]] else landmark_columns(inputs, landmarks, rows, threads) %*% t(feature$map)
    self <- if (rc) training_self_similarity(inputs, rows)
    block <- nykqd_distances(core, Phi, self)
    for (k in seq_along(distances)) distances[[k]][rows, ] <- block[[k]]
  }
  list(core = core, distances = distances)
}

training_self_similarity <- function(inputs, rows) {
  if (is.null(inputs$x)) return(inputs$precomputed$K[cbind(rows, rows)])
  kernel_self(inputs$kernel, inputs$x[rows, , drop = FALSE])
}

# The classes' spectra and projections from the per-class sums: what
# kqd.hpp's fit() gives the full KQD, with the same diagnostics.
nykqd_core <- function(stats, feature, variant, reg, mode, n) {
  signs <- feature$signs
  r <- length(signs)
  J <- diag(signs, r)
  fk <- startsWith(variant, "FK")
  parts <- lapply(stats, function(s) {
    centre <- s$sum / s$n
    list(n = s$n, mean = s$shift + centre, gram = s$gram - s$n * tcrossprod(centre))
  })
  if (fk) {
    # the fully centred Gram of all rows: within-class plus between-class parts
    grand <- Reduce(`+`, lapply(parts, function(p) p$n * p$mean)) / n
    total <- Reduce(`+`, lapply(parts, function(p) p$gram + p$n * tcrossprod(p$mean - grand)))
    total_factor <- nykqd_gram_factor(total)
  }
  classes <- lapply(seq_along(parts), function(j) {
    p <- parts[[j]]
    n_j <- p$n
    cls <- list(n_j = n_j, mean = p$mean, indefinite = FALSE, negative_found = FALSE,
                signature = c(-1L, -1L, -1L), regularised_singular = FALSE)
    # the centred class kernel K~^[j]: its nonzero spectrum, for the record
    # (and the model of IC and RC); RC- with A = I decomposes nothing, as in kqd.hpp
    class_spectrum <- if (!(variant == "RC-" && mode == "no")) {
      nykqd_spectrum(nykqd_gram_factor(p$gram), J, signs)
    }
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
      spectrum <- nykqd_spectrum(total_factor, J %*% p$gram %*% J, signs)
      cls$signature <- c(-1L, -1L, -1L)
      cls$zero <- 100 * n_j * .Machine$double.eps * max(0, abs(spectrum$values))
    } else if (is.null(class_spectrum)) {
      # RC- with A = I: q = |k~_x|^2, any orthonormal coordinates of range(Phit_j J) do
      factor <- nykqd_gram_factor(p$gram)
      spectrum <- list(values = rep(0, nrow(factor)), projection = factor * rep(signs, each = nrow(factor)))
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
  list(variant = variant, reg = reg, signs = signs, map = feature$map,
       landmark_rank = feature$landmark_rank, classes = classes)
}

#' Squared distances of points, given by their features Phi (rows), to every
#' class at every path value: a list of (rows x classes) matrices. `self`:
#' their exact k(x, x) (RC only).
#' @noRd
nykqd_distances <- function(core, Phi, self = NULL) {
  paths <- nrow(core$reg)
  out <- lapply(seq_len(paths), function(k) matrix(0, nrow(Phi), length(core$classes)))
  for (j in seq_along(core$classes)) {
    cls <- core$classes[[j]]
    coordinates <- sweep(Phi, 2, cls$mean) %*% t(cls$projection)
    squares <- coordinates^2
    for (k in seq_len(paths)) {
      reg <- core$reg[k, j]
      w <- nykqd_weights(core$variant, cls$indefinite, cls$values, reg, cls$n_j, cls$zero)
      q <- as.vector(squares %*% w)
      out[[k]][, j] <- if (startsWith(core$variant, "RC")) {
        # k~_xx = k(x, x) - 2 phi(x)' J mu_j + mu_j' J mu_j: the exact self-similarity,
        # the approximated kernel elsewhere (?kqd, Nystroem KQD)
        signed_mean <- core$signs * cls$mean
        centred_self <- self - 2 * as.vector(Phi %*% signed_mean) + sum(signed_mean * cls$mean)
        (centred_self - q) / reg
      } else {
        cls$n_j * q
      }
    }
  }
  out
}

# Distances of new points for a Nystroem fit, path value k
kqd_nystrom_new_distances <- function(object, new, k) {
  lm <- object$landmarks
  kernels <- new_kernels(object, new, points = lm$points, columns = lm$indices,
                         need_self = startsWith(object$variant, "RC"))
  Phi <- kernels$K %*% t(object$core$map)
  d <- nykqd_distances(object$core, Phi, kernels$self)[[k]]
  list(d = d, names = kernels$names)
}
