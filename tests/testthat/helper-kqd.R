# Plain-R transcription of paper 000 (Pekalska & Haasdonk 2009,
# 000_7435e1e84b20a6bd.txt), Sec. IV and Table II: the kernel quadratic
# discriminants KQD-IC+/-, KQD-RC+/-, KQD-FK+/- and their indefinite
# versions IKQD-*, and of paper 001 (Haasdonk & Pekalska 2008,
# 001_88454dd8a3dd391d.txt), eqs. 4 and 7. Written from the papers with dense
# matrices and base R only (solve(), eigen()): deliberately naive, one obvious
# formula per variant, no code shared with krein. Used by test-kqd.R.
# (k' A^-2 k is computed as |A^-1 k|^2 and k' A^-1 k with solve(A, k): the
# same formulas, but forming A^-2 loses ~7 digits when alpha is small.)
#
# Reading notes (where the text is garbled or ambiguous):
# * Eq. (2) of paper 000 prints k~_x = H(k_x - (1/n) 1_n K 1_n); Tables I/II
#   and paper 001 Sec. 2 give the dimensionally correct H(k_x - (1/n) K 1_n),
#   which is used here.
# * Sec. IV-C prints K~^[j] := K~_j H^[j] K~_j' "in R^{n_j x n_j}" with a single
#   tilde; Table II and Appendix I-D make clear that the FK matrix is the
#   double-tilde K~~^[j] = K~_j H^[j] K~_j', n x n, with K~_j the n x n_j
#   column block of class j of the fully centred K~ = H K H.
# * Appendix I-C ends with k~' C_reg^{-1} k~; from the preceding line it must
#   be k~' K~_reg^{-1} k~ (eq. 20).
# * "pinv(A, alpha) treats singular values smaller than |alpha| as zero": for
#   the symmetric matrices here the singular values are |eigenvalues|, so an
#   eigenpair is kept iff |lambda| >= alpha (the boundary has measure zero).
# * J^[j] = diag(1_p, -1_q, 1_z) counts zero eigenvalues as +1. "Zero" is
#   decided numerically: |lambda| <= 100 * n_j * eps * max|lambda| (the
#   tolerance agreed for krein; the paper gives none).
# * Appendix I-C writes C_reg psi~ = (1/n) Psi~ k~ + sigma^2 psi~, but with
#   C_reg = C + sigma^2 J (eq. 30) the last term is sigma^2 J psi~. So eq. (20)
#   -- transcribed here as printed -- is not psi~' J C_reg^-1 psi~: in
#   canonical pseudo-Euclidean coordinates it equals
#   sum_i s_i psi_i^2 / (|lambda_i| / n + sigma^2), s_i = sign(lambda_i), and
#   can be negative (it is on the checkerboard fixture of test-kqd.R), while
#   IKQD-IC (eqs. 16/17) is a proper distance. Checked numerically.
# * Table II's decisions are f_j = -(n_j/2) q_j + b_j (IC, FK) and
#   f_j = -(1/(2 sigma_j^2)) (...) + b_j (RC). We return the squared kernel
#   Mahalanobis distance d2_j with f_j = -d2_j/2 + b_j, i.e. d2_j = n_j q_j for
#   IC/FK and d2_j = (...)/sigma_j^2 for RC, which is paper 001's eq. 4 (IC-)
#   and eq. 7 (RC+) exactly.

# H = I - 1 1'/n, the centring matrix (paper 000 Sec. II-A)
ref_centering <- function(n) diag(n) - matrix(1 / n, n, n)

# Eigendecomposition of a symmetric matrix
ref_eigen <- function(A) eigen((A + t(A)) / 2, symmetric = TRUE)

# Is an eigenvalue numerically zero? |lambda| <= 100 * n_j * eps * max|lambda|
ref_is_zero <- function(values, n) {
  abs(values) <= 100 * n * .Machine$double.eps * max(abs(values))
}

# The diagonal of J (Table II caption): +1 for positive and zero eigenvalues,
# -1 for negative ones.
ref_J <- function(values, n) ifelse(values < 0 & !ref_is_zero(values, n), -1, 1)

# pinv(A, alpha) of Table II for symmetric A: eigenpairs with |lambda| < alpha
# are dropped, the others inverted.
ref_pinv <- function(A, alpha) {
  e <- ref_eigen(A)
  keep <- abs(e$values) >= alpha
  inv <- ifelse(keep, 1 / e$values, 0)
  e$vectors %*% diag(inv, length(inv)) %*% t(e$vectors)
}

# Signature (p, q, z) of a symmetric matrix with the zero rule above
ref_signature_of <- function(A, n = nrow(A)) {
  values <- ref_eigen(A)$values
  zero <- ref_is_zero(values, n)
  c(p = sum(values > 0 & !zero), q = sum(values < 0 & !zero), z = sum(zero))
}

# The c x 3 matrix of signatures kqd() reports: of the class-wise centred
# kernel K~^[j] = H^[j] K^[j] H^[j] (IC, RC), or of the fully centred
# K~ = H K H (FK, the same row for every class).
ref_kqd_signature <- function(K, y, variant) {
  y <- as.factor(y)
  lev <- levels(y)
  out <- matrix(0L, length(lev), 3, dimnames = list(lev, c("p", "q", "z")))
  for (j in seq_along(lev)) {
    if (substr(variant, 1, 2) == "FK") {
      H <- ref_centering(length(y))
      out[j, ] <- ref_signature_of(H %*% K %*% H)
    } else {
      idx <- which(y == lev[j])
      Hj <- ref_centering(length(idx))
      out[j, ] <- ref_signature_of(Hj %*% K[idx, idx, drop = FALSE] %*% Hj)
    }
  }
  out
}

# Squared kernel Mahalanobis distances of Table II, paper 000
#
# @param K n x n training kernel (training points in any order).
# @param y factor (or vector) of training labels; classes = levels(factor(y)).
# @param K_new m x n kernel of new points against the training points.
# @param self_new the m self-similarities k(x, x) (needed by RC only).
# @param variant "IC+", "IC-", "RC+", "RC-", "FK+" or "FK-".
# @param reg one value per class (recycled): alpha_j for IC/FK, sigma^2_j for
#   RC.
# @param indefinite use the IKQD formulas of Table II.
# @returns m x c matrix of d2_j(x) with f_j(x) = -d2_j(x)/2 + b_j.
ref_kqd_distance <- function(K, y, K_new, self_new = NULL, variant, reg, indefinite) {
  y <- as.factor(y)
  lev <- levels(y)
  n <- length(y)
  m <- nrow(K_new)
  reg <- rep_len(reg, length(lev))
  family <- substr(variant, 1, 2)
  plus <- substr(variant, 3, 3) == "+"
  stopifnot(family %in% c("IC", "RC", "FK"), nrow(K) == n, ncol(K_new) == n)
  d2 <- matrix(NA_real_, m, length(lev), dimnames = list(NULL, lev))

  # quadratic forms v_i' M v_i for the columns v_i of V; squared norms |M v_i|^2
  # (= v_i' M^2 v_i for symmetric M, more accurate than forming M^2 when M is
  # ill-conditioned)
  qform <- function(V, M) colSums(V * (M %*% V))
  sqnorm <- function(V) colSums(V^2)

  for (j in seq_along(lev)) {
    idx <- which(y == lev[j])
    nj <- length(idx)
    Hj <- ref_centering(nj)

    if (family %in% c("IC", "RC")) {
      # Table II, BASIC DEFINITIONS (class-wise quantities)
      Kj <- K[idx, idx, drop = FALSE]                          # K^[j]
      Kt <- Hj %*% Kj %*% Hj                                   # K~^[j]
      kx <- t(K_new[, idx, drop = FALSE])                      # k_x^[j], one column per x
      kt <- Hj %*% (kx - as.vector(Kj %*% rep(1, nj)) / nj)    # k~_x^[j]
      e <- ref_eigen(Kt)                                       # K~^[j] = U Lambda U'
      U <- e$vectors
      lambda <- e$values
      J <- ref_J(lambda, nj)
    }

    if (family == "IC") {
      alpha <- reg[j]
      if (plus) {
        # eq. (15) KQD-IC+: K~reg = K~ + alpha I; eq. (17) IKQD-IC+:
        # K~reg = U (Lambda + alpha J) U'
        Kreg <- if (indefinite) U %*% diag(lambda + alpha * J, nj) %*% t(U)
                else Kt + alpha * diag(nj)
        d2[, j] <- nj * sqnorm(solve(Kreg, kt))               # n_j k~' K~reg^-2 k~
      } else {
        # eqs. (14)/(16) KQD-IC- / IKQD-IC-: (K~^[j])^- = pinv(K~^[j], alpha),
        # the same formula for both; paper 001 eq. (4)
        P <- ref_pinv(Kt, alpha)
        d2[, j] <- nj * sqnorm(P %*% kt)                       # n_j k~' (K~^-)^2 k~
      }
    } else if (family == "RC") {
      s2 <- reg[j]
      ktxx <- self_new - 2 / nj * colSums(kx) + sum(Kj) / nj^2  # k~_xx^[j]
      if (plus) {
        # eq. (18) KQD-RC+: K~reg = K~ + n_j sigma^2 I; eq. (20) IKQD-RC+:
        # K~reg = K~ + n_j sigma^2 U J U'; paper 001 eq. (7)
        Kreg <- if (indefinite) Kt + nj * s2 * U %*% diag(J, nj) %*% t(U)
                else Kt + nj * s2 * diag(nj)
        d2[, j] <- (ktxx - colSums(kt * solve(Kreg, kt))) / s2
      } else {
        # eq. (19) KQD-RC-: A = I; eq. (21) IKQD-RC-: A = U J U'
        A <- if (indefinite) U %*% diag(J, nj) %*% t(U) else diag(nj)
        d2[, j] <- (ktxx - qform(kt, A) / (nj * s2)) / s2
      }
    } else {
      # Sec. IV-C, Appendix I-D/E, eqs. (22)/(23); the same for pd and
      # indefinite kernels since K~~^[j] is always psd.
      alpha <- reg[j]
      H <- ref_centering(n)
      Kt_full <- H %*% K %*% H                                 # K~ = H K H
      Kt_j <- Kt_full[, idx, drop = FALSE]                     # K~_j, n x n_j
      KK <- Kt_j %*% Hj %*% t(Kt_j)                            # K~~^[j], n x n
      ktx <- H %*% (t(K_new) - as.vector(K %*% rep(1, n)) / n)  # k~_x, n x m
      kkx <- ktx - as.vector(Kt_j %*% rep(1, nj)) / nj         # k~~_x^[j]
      if (plus) {
        d2[, j] <- nj * colSums(kkx * solve(KK + alpha * diag(n), kkx))  # eq. (23)
      } else {
        d2[, j] <- nj * qform(kkx, ref_pinv(KK, alpha))                   # eq. (22)
      }
    }
  }
  d2
}

# The smallest |eigenvalue| of every matrix the reference inverts, relative to
# the largest: lets a test state that its regularisation keeps the comparison
# well conditioned. For "-" variants: the smallest gap between a kept
# eigenvalue and the pinv threshold (RC-: Inf, nothing is inverted).
ref_kqd_conditioning <- function(K, y, variant, reg, indefinite) {
  y <- as.factor(y)
  lev <- levels(y)
  reg <- rep_len(reg, length(lev))
  family <- substr(variant, 1, 2)
  plus <- substr(variant, 3, 3) == "+"
  vapply(seq_along(lev), function(j) {
    idx <- which(y == lev[j])
    nj <- length(idx)
    Hj <- ref_centering(nj)
    if (family == "FK") {
      H <- ref_centering(length(y))
      Kt_j <- (H %*% K %*% H)[, idx, drop = FALSE]
      lambda <- ref_eigen(Kt_j %*% Hj %*% t(Kt_j))$values
      J <- rep(1, length(lambda))
      shift <- reg[j]
    } else {
      lambda <- ref_eigen(Hj %*% K[idx, idx, drop = FALSE] %*% Hj)$values
      J <- if (indefinite) ref_J(lambda, nj) else rep(1, nj)
      shift <- if (family == "RC") nj * reg[j] else reg[j]
    }
    if (family == "RC" && !plus) return(Inf)
    if (plus) {
      reg_values <- lambda + shift * J
      min(abs(reg_values)) / max(abs(reg_values))
    } else {
      # relative distance of the spectrum from the pinv threshold
      min(abs(abs(lambda) - shift)) / shift
    }
  }, numeric(1))
}

# Two-class bias search by brute force (paper 000 Sec. IV-D): g = f_1 - f_2
# without biases (e.g. (d2_2 - d2_1) / 2), is_first the logical indicator of
# class 1. The rule "class 1 iff g >= t" (t = b_2 - b_1 = -Delta; ties go to
# the first class, Sec. IV eq. (10)) is tried at every midpoint between sorted
# distinct values of g and beyond both ends; returns the smallest number of
# training errors.
ref_best_pairwise_error <- function(g, is_first) {
  v <- sort(unique(g))
  thresholds <- c(v[1] - 1, (v[-1] + v[-length(v)]) / 2, v[length(v)] + 1)
  errors <- vapply(thresholds, function(t) sum((g >= t) != is_first), numeric(1))
  min(errors)
}

# Relative difference max|A - B| / max|B|
ref_rel_diff <- function(A, B) max(abs(unname(A) - unname(B))) / max(abs(unname(B)))

# Fixtures of test-kqd.R and test-kmdc.R

# Three Gaussian classes, n = 40, classes interleaved, non-alphabetical levels
fx_three_classes <- function() {
  set.seed(7)
  x <- rbind(matrix(rnorm(26, 0, 1), 13), matrix(rnorm(28, 2, 1), 14),
             matrix(rnorm(26, c(-2, 2), 1), 13, byrow = TRUE))
  y <- factor(rep(c("zeta", "alpha", "mid"), c(13, 14, 13)), levels = c("zeta", "alpha", "mid"))
  perm <- sample(40)
  x_new <- rbind(matrix(rnorm(12, 1, 1.5), 6), x[perm[1:3], ])  # new points and training points
  list(x = data.frame(x1 = x[perm, 1], x2 = x[perm, 2]), y = y[perm],
       x_new = data.frame(x1 = x_new[, 1], x2 = x_new[, 2]), kernel = kernel_rbf(gamma = 1))
}

# The 4 x 4 checkerboard with the invariant indefinite kernel of paper 000
# Sec. V-B, n = 40 (class kernels of signature (10, 8) and (11, 9))
fx_checkerboard <- function() {
  set.seed(42)
  board <- checkerboard(40)
  x_new <- checkerboard(8)
  list(x = board[, c("x1", "x2")], y = board$y, x_new = x_new[, c("x1", "x2")],
       kernel = kernel_invariant(kernel_dist(s = 1, power = 4)))
}

# Kernel matrices of a fixture, for the reference
fx_kernels <- function(d) {
  list(K = kernel_matrix(d$kernel, d$x), K_new = kernel_matrix(d$kernel, d$x_new, d$x),
       self_new = diag(kernel_matrix(d$kernel, d$x_new)))
}

# Small two-class problem for the bias search and the regularisation path
fx_two_classes <- function(seed, n = 24) {
  set.seed(seed)
  y <- factor(sample(rep(c("pos", "neg"), each = n / 2)), levels = c("pos", "neg"))
  x <- matrix(rnorm(2 * n), n)
  x[y == "pos", ] <- x[y == "pos", ] + 0.8
  list(x = x, y = y)
}

# The prior-weighted two-class bias search of ?kqd (Bias, "error"),
# transcribed in plain R: an error on a point of the first (second) class
# counts w_first (w_second); the threshold t ("first iff g >= t") is the
# middle of the widest run of optimal gaps between sorted distinct scores, a
# run unbounded on one side closed two mean gaps beyond its other end.
# Returns Delta = b_first - b_second = -t.
ref_weighted_pair_bias <- function(g_first, g_second, w_first, w_second) {
  g <- c(g_first, g_second)
  v <- sort(unique(g))
  lo <- c(-Inf, v)
  hi <- c(v, Inf)
  inside <- ifelse(is.finite(lo) & is.finite(hi), (lo + hi) / 2, ifelse(is.finite(hi), hi - 1, lo + 1))
  err <- vapply(inside, function(t) w_first * sum(g_first < t) + w_second * sum(g_second >= t), numeric(1))
  optimal <- err <= min(err) + 1e-9 * min(w_first, w_second)
  runs <- rle(optimal)
  ends <- cumsum(runs$lengths)
  starts <- ends - runs$lengths + 1
  mean_gap <- if (length(g) > 1 && diff(range(g)) > 0) diff(range(g)) / (length(g) - 1) else 1
  width <- -1
  t <- 0
  for (r in which(runs$values)) {
    a0 <- lo[starts[r]]
    b0 <- hi[ends[r]]
    a <- if (is.infinite(a0)) b0 - 2 * mean_gap else a0
    b <- if (is.infinite(b0)) a0 + 2 * mean_gap else b0
    if (b - a > width) {
      width <- b - a
      t <- (a + b) / 2
    }
  }
  -t
}

# Held-out errors along a regularisation path, counted in plain R (the
# transcription of cross-validation that kqd's and kmdc's `select = "cv"` are
# checked against): `errors_on_fold(train, test)` gets logical row masks and
# returns the number of errors of every path value on the test rows
held_out_errors <- function(folds, errors_on_fold) {
  Reduce(`+`, lapply(sort(unique(folds)), function(f) errors_on_fold(folds != f, folds == f)))
}
