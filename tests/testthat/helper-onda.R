# Plain-R transcriptions for onda() and the discriminant kernels, written from
# paper 004 (Hidaka and Kurita 2016) independently of krein's code.

# Gaussian class densities (eq. 30) with ML covariances (eq. 31)
ref_gaussian_densities <- function(x, y, new) {
  sapply(levels(y), function(l) {
    xl <- x[y == l, , drop = FALSE]
    m <- colMeans(xl)
    S <- crossprod(sweep(xl, 2, m)) / nrow(xl)
    S_inv <- solve(S)
    d <- ncol(x)
    apply(new, 1, function(v) {
      exp(-0.5 * sum((v - m) * (S_inv %*% (v - m)))) / sqrt((2 * pi)^d * det(S))
    })
  })
}

# eq. (33)
ref_gaussian_posteriors <- function(x, y, new, prior) {
  f <- ref_gaussian_densities(x, y, new) * rep(prior, each = nrow(new))
  f / rowSums(f)
}

# eq. (42): sum_k P(C_k|x) P(C_k|x') / P(C_k), one pair at a time
ref_dk <- function(B1, B2, prior) {
  K <- matrix(0, nrow(B1), nrow(B2))
  for (i in seq_len(nrow(B1))) for (j in seq_len(nrow(B2))) K[i, j] <- sum(B1[i, ] * B2[j, ] / prior)
  K
}

# eq. (53), the closed form
ref_ldk <- function(x, y, new1, new2, prior) {
  m <- colMeans(x)
  ST <- crossprod(sweep(x, 2, m)) / nrow(x)
  means <- t(sapply(levels(y), function(l) colMeans(x[y == l, , drop = FALSE])))
  SB <- Reduce(`+`, lapply(seq_along(prior), function(k) prior[k] * tcrossprod(means[k, ] - m)))
  A <- solve(ST) %*% SB %*% solve(ST)
  sweep(new1, 2, m) %*% A %*% t(sweep(new2, 2, m)) + 1
}

# eq. (55): D_G(x)' Psi D_G(x') with D_G the Gaussian likelihood ratios (eq. 54)
ref_gdk <- function(x, y, new1, new2, prior) {
  ratio <- function(new) {
    f <- ref_gaussian_densities(x, y, new)
    f / rowSums(f * rep(prior, each = nrow(new)))
  }
  ratio(new1) %*% diag(prior) %*% t(ratio(new2))
}

# eq. (50): sum_k P(C_k|x) P(C_k|x') x' S_k^-1 x'
ref_gmk <- function(x, y, new1, new2, prior) {
  B1 <- ref_gaussian_posteriors(x, y, new1, prior)
  B2 <- ref_gaussian_posteriors(x, y, new2, prior)
  K <- matrix(0, nrow(new1), nrow(new2))
  for (k in seq_along(levels(y))) {
    xl <- x[y == levels(y)[k], , drop = FALSE]
    S_inv <- solve(crossprod(sweep(xl, 2, colMeans(xl))) / nrow(xl))
    for (i in seq_len(nrow(new1))) for (j in seq_len(nrow(new2))) {
      K[i, j] <- K[i, j] + B1[i, k] * B2[j, k] * sum(new1[i, ] * (S_inv %*% new2[j, ]))
    }
  }
  K
}

# eq. (23): L(C_k | x) = P_k [(m_k - m_T)' Sigma_T^-1 (x - m_T) + 1], with the
# mean and covariance of the mixture with priors P_k (for the class
# proportions, the total mean and the total covariance of eq. (11)), formed
# and inverted with solve(), one point at a time.
ref_linear_posteriors <- function(x, y, new, prior) {
  levels <- levels(y)
  means <- lapply(levels, function(l) colMeans(x[y == l, , drop = FALSE]))
  m_T <- Reduce(`+`, Map(`*`, means, prior))
  S_T <- Reduce(`+`, Map(function(l, m, p) {
    xl <- x[y == l, , drop = FALSE]
    p * (crossprod(sweep(xl, 2, m)) / nrow(xl) + tcrossprod(m - m_T))
  }, levels, means, prior))
  t(apply(new, 1, function(v) {
    vapply(seq_along(levels), function(k) {
      prior[k] * (sum((means[[k]] - m_T) * solve(S_T, v - m_T)) + 1)
    }, numeric(1))
  }))
}

# The data term of the Gaussian discriminants far from the data: for x = s v
# with s -> Inf, log(q_k f_k(x)) = -s^2 v' S_k^-1 v / 2 + O(s), so the class
# with the smallest v' S_k^-1 v (ML covariances, eq. 31) wins. Returns
# -v' S_k^-1 v / 2 per row v and class k.
ref_gaussian_quadratic <- function(x, y, v) {
  sapply(levels(y), function(l) {
    xl <- x[y == l, , drop = FALSE]
    S <- crossprod(sweep(xl, 2, colMeans(xl))) / nrow(xl)
    apply(v, 1, function(u) -0.5 * sum(u * solve(S, u)))
  })
}
