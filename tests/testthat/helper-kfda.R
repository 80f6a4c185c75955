# Plain-R transcription of KFLDA and KFQDA on the kernel data, written from
# paper 003 (Huang, Hwang and Lin 2005), eqs. (9), (11), (12) and Sec. 4.2's
# ridge approach, independent of krein's code: explicit class means, the
# pooled and class sample covariances (denominators n - K and n_i - 1, as
# MASS::lda and MASS::qda), M + rI, solve() and determinant().
#
# Kx: n_new x p kernel data of the points to classify; K: n x p kernel
# training data (rows = points). Returns the n_new x K matrix of
# log(q_i f_i(x) / q_1 f_1(x)).
ref_kfda_decisions <- function(K, y, Kx, type, ridge = 0, prior = NULL, logdet = TRUE) {
  y <- factor(y)
  levels <- levels(y)
  n <- nrow(K)
  p <- ncol(K)
  g <- length(levels)
  if (is.null(prior)) prior <- as.vector(table(y)) / n
  kbar <- lapply(levels, function(l) colMeans(K[y == l, , drop = FALSE]))
  class_cov <- lapply(levels, function(l) {
    Kl <- K[y == l, , drop = FALSE]
    C <- sweep(Kl, 2, colMeans(Kl))
    t(C) %*% C / (nrow(Kl) - 1)
  })
  out <- matrix(0, nrow(Kx), g)
  if (type == "linear") {
    pooled <- Reduce(`+`, lapply(seq_len(g), function(i) class_cov[[i]] * (sum(y == levels[i]) - 1))) / (n - g)
    M_inv <- solve(pooled + ridge * diag(p))
    for (i in seq_len(g)) {
      for (j in seq_len(nrow(Kx))) {
        # eq. (11)
        out[j, i] <- sum((Kx[j, ] - (kbar[[i]] + kbar[[1]]) / 2) * (M_inv %*% (kbar[[i]] - kbar[[1]]))) +
          log(prior[i] / prior[1])
      }
    }
    return(out)
  }
  M <- lapply(class_cov, function(C) C + ridge * diag(p))
  M_inv <- lapply(M, solve)
  logdet_of <- function(A) as.numeric(determinant(A, logarithm = TRUE)$modulus)
  for (i in seq_len(g)) {
    rho <- log(prior[i] / prior[1]) + if (logdet) 0.5 * (logdet_of(M[[1]]) - logdet_of(M[[i]])) else 0
    for (j in seq_len(nrow(Kx))) {
      # eq. (12)
      a <- Kx[j, ] - kbar[[1]]
      b <- Kx[j, ] - kbar[[i]]
      out[j, i] <- 0.5 * (sum(a * (M_inv[[1]] %*% a)) - sum(b * (M_inv[[i]] %*% b))) + rho
    }
  }
  out
}

# Posteriors from log-likelihood ratios against class 1 (eq. 9)
ref_posteriors <- function(d) {
  e <- exp(d - apply(d, 1, max))
  e / rowSums(e)
}

# Principal component scores of kernel data, by prcomp-style centring and
# eigen() of the sample covariance (the test's own PCA), whitened.
ref_kernel_pca_scores <- function(K, Kx, q) {
  center <- colMeans(K)
  e <- eigen(stats::cov(K), symmetric = TRUE)
  V <- e$vectors[, seq_len(q), drop = FALSE] %*% diag(1 / sqrt(e$values[seq_len(q)]), q)
  list(train = sweep(K, 2, center) %*% V, new = sweep(Kx, 2, center) %*% V)
}
