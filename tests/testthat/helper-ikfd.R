# Plain-R transcription of the indefinite kernel Fisher discriminant
# (paper 000, Sec. III-A, eqs. 7-8, with the conventions of the DisTools
# reference code): K used as is, one-vs-rest for more than two classes,
# alpha = (N + mu I)^{-1} (m_A - m_B), b = -alpha'(m_A + m_B) / 2. The ridge
# is krein's relative one, mu = reg * tr(N) / n with reg the fit's
# `ridge_relative` (documented in ?ikfd). Written from the formulas, with
# dense matrices and solve(); it shares no code with the package.
ref_ikfd <- function(K, y, reg, weights = "equal") {
  y <- as.integer(factor(y))
  classes <- max(y)
  n <- nrow(K)
  d <- if (classes == 2) 1 else classes
  alpha <- matrix(0, n, d)
  b <- numeric(d)
  for (i in seq_len(d)) {
    in_A <- y == i
    N <- matrix(0, n, n)
    for (group in list(in_A, !in_A)) {
      K_G <- K[, group, drop = FALSE]
      n_G <- sum(group)
      P <- if (weights == "equal") 1 else n_G / n
      H <- diag(n_G) - matrix(1 / n_G, n_G, n_G)
      N <- N + P * K_G %*% H %*% t(K_G)
    }
    mu <- reg * sum(diag(N)) / n
    m_A <- rowMeans(K[, in_A, drop = FALSE])
    m_B <- rowMeans(K[, !in_A, drop = FALSE])
    alpha[, i] <- solve(N + mu * diag(n), m_A - m_B)
    b[i] <- -sum(alpha[, i] * (m_A + m_B)) / 2
  }
  list(alpha = alpha, bias = b)
}

# Decision values as krein reports them: (f, -f) for two classes.
ref_ikfd_decisions <- function(ref, K_new) {
  f <- K_new %*% ref$alpha + rep(ref$bias, each = nrow(K_new))
  if (ncol(f) == 1L) cbind(f, -f) else f
}
