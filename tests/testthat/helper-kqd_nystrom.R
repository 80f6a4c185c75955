# Plain-R transcription of the Ny-KQD derivation (the section "Nystroem KQD"
# of ?kqd; derived, not in the papers): the Table II formulas of paper 000
# (Pekalska & Haasdonk 2009) written in the r-dimensional (pseudo-Euclidean)
# feature space of a Nystroem approximation. Dense and naive, base R only,
# no code shared with krein: svd() for the class factors (krein uses the
# eigenvalues of the Gram matrices), qr() for the FK range (krein: the Gram
# again), solve() for every inverse. Used by test-kqd_nystrom.R.
#
# Derivation in brief (the names as in ?kqd):
# * W = k(L, L) = V Lambda V', keeping |Lambda_i| > sqrt(eps) max|Lambda| (the
#   pseudo-inverse cutoff of nystrom()); phi(x) = |Lambda|^-1/2 V' k(L, x) and
#   J = sign(Lambda), so k_hat(x, x') = phi(x)' J phi(x') = k(x, L) W^+ k(L, x').
# * Class j: Phit_j (n_j x r) the class's features minus their mean mu_j;
#   centred class kernel K~^[j] = Phit_j J Phit_j', centred kernel vector
#   k~_x = Phit_j J (phi(x) - mu_j). Thin SVD Phit_j = U S Vs': K~^[j] =
#   U M U', M = S Vs' J Vs S = Q Lambda_j Q', and k~_x = U (S Vs' J phit(x)),
#   so in the eigenbasis U Q of K~^[j] its coordinates are c = Q' S Vs' J phit(x)
#   and it has no part outside. Each Table II inverse is then an r x r
#   diagonal one in Lambda_j, with J_j = sign(Lambda_j) (zero -> +1).
# * RC: k~_xx = k(x, x) - 2 phi(x)' J mu_j + mu_j' J mu_j (exact self-similarity,
#   approximated kernel against the training points).
# * FK: Phibar (n x r) all features minus their grand mean; K~ = Phibar J
#   Phibar', K~_j H_j K~_j' = Phibar A_j Phibar' with A_j = J Phit_j' Phit_j J,
#   and k~~_x^[j] = Phibar J (phi(x) - mu_j). With Phibar = P R (thin QR), the
#   n x n inverses act on range(P) as the r x r ones of R A_j R' + alpha I
#   (FK+) or pinv(R A_j R', alpha) (FK-), applied to P'k~~_x = R J phit(x).

# Features of the landmark kernel: the map (r x m) and J
ref_nystrom_features <- function(W) {
  e <- eigen((W + t(W)) / 2, symmetric = TRUE)
  keep <- abs(e$values) > sqrt(.Machine$double.eps) * max(abs(e$values))
  list(map = diag(1 / sqrt(abs(e$values[keep])), sum(keep)) %*% t(e$vectors[, keep, drop = FALSE]),
       J = sign(e$values[keep]))
}

# Squared distances (m_new x c) of Ny-KQD.
# @param C n x m kernel of the training points against the landmarks.
# @param W m x m landmark kernel.
# @param C_new kernel of new points against the landmarks; self_new their k(x, x).
ref_kqd_nystrom_distance <- function(C, W, y, C_new, self_new = NULL, variant, reg, indefinite) {
  y <- as.factor(y)
  lev <- levels(y)
  reg <- rep_len(reg, length(lev))
  family <- substr(variant, 1, 2)
  plus <- substr(variant, 3, 3) == "+"
  f <- ref_nystrom_features(W)
  J <- diag(f$J, length(f$J))
  Phi <- C %*% t(f$map)                         # training features, n x r
  phi_new <- C_new %*% t(f$map)                 # new features, one row per point
  d2 <- matrix(NA_real_, nrow(C_new), length(lev), dimnames = list(NULL, lev))
  if (family == "FK") {
    Phibar <- sweep(Phi, 2, colMeans(Phi))
    q <- qr(Phibar)                              # Phibar[, pivot] = P R, P orthonormal (n x r)
    R <- qr.R(q)[, order(q$pivot), drop = FALSE] # so that Phibar = P R
  }
  for (j in seq_along(lev)) {
    idx <- which(y == lev[j])
    nj <- length(idx)
    mu <- colMeans(Phi[idx, , drop = FALSE])
    Phit <- sweep(Phi[idx, , drop = FALSE], 2, mu)
    phit_new <- t(sweep(phi_new, 2, mu))        # r x m_new, centred at the class
    if (family == "FK") {
      A <- J %*% crossprod(Phit) %*% J
      KK <- R %*% A %*% t(R)                    # K~~^[j] on range(P)
      v <- R %*% J %*% phit_new                 # P' k~~_x^[j]
      if (plus) {
        d2[, j] <- nj * colSums(v * solve(KK + reg[j] * diag(nrow(KK)), v))   # eq. (23)
      } else {
        d2[, j] <- nj * colSums(v * (ref_pinv(KK, reg[j]) %*% v))            # eq. (22)
      }
      next
    }
    s <- svd(Phit)
    keep <- s$d > 1e-7 * max(s$d)
    SV <- diag(s$d[keep], sum(keep)) %*% t(s$v[, keep, drop = FALSE])   # S Vs'
    e <- ref_eigen(SV %*% J %*% t(SV))          # M = Q Lambda_j Q'
    lambda <- e$values
    Jj <- ref_J(lambda, nj)                     # zero eigenvalues count as +1
    zero <- ref_is_zero(lambda, nj)
    cx <- t(e$vectors) %*% SV %*% J %*% phit_new   # coordinates of k~_x, one column per point
    if (family == "IC") {
      if (plus) {
        # eqs. (15)/(17): (Lambda_j + alpha I) or (Lambda_j + alpha J_j), squared inverse
        lreg <- if (indefinite) ifelse(zero, 0, lambda) + reg[j] * Jj else ifelse(zero, 0, lambda) + reg[j]
        d2[, j] <- nj * colSums((cx / lreg)^2)
      } else {
        # eqs. (14)/(16): pinv(Lambda_j, alpha)^2
        inv <- ifelse(!zero & abs(lambda) >= reg[j], 1 / lambda, 0)
        d2[, j] <- nj * colSums((cx * inv)^2)
      }
    } else {
      signed_mean <- f$J * mu
      ktxx <- self_new - 2 * as.vector(phi_new %*% signed_mean) + sum(signed_mean * mu)
      a <- nj * reg[j]
      if (plus) {
        # eqs. (18)/(20): Lambda_j + n_j sigma^2 I or + n_j sigma^2 J_j
        lreg <- ifelse(zero, 0, lambda) + a * (if (indefinite) Jj else 1)
        quad <- colSums(cx^2 / lreg)
      } else {
        # eqs. (19)/(21): A = I or U J U'
        quad <- colSums(cx^2 * (if (indefinite) Jj else 1)) / a
      }
      d2[, j] <- (ktxx - quad) / reg[j]
    }
  }
  d2
}

# The kernels a Ny-KQD reference needs, for a fixture and landmark indices
fx_nystrom_kernels <- function(d, landmarks) {
  L <- d$x[landmarks, , drop = FALSE]
  list(C = kernel_matrix(d$kernel, d$x, L), W = kernel_matrix(d$kernel, L),
       C_new = kernel_matrix(d$kernel, d$x_new, L),
       self_new = diag(kernel_matrix(d$kernel, d$x_new)))
}
