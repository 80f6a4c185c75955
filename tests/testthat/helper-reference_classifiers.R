# Plain-R transcriptions of the kernel formulas, written from their
# definitions in papers 000-003, independent of the C++ engine: one pair at a
# time, no shared code with krein.

reference_kernel_matrix <- function(k, a, b = a) {
  K <- matrix(0, nrow(a), nrow(b))
  for (i in seq_len(nrow(a))) for (j in seq_len(nrow(b))) K[i, j] <- k(a[i, ], b[j, ])
  K
}

ref_linear <- function(x, z) sum(x * z)
ref_poly <- function(degree, scale, offset) function(x, z) (scale * sum(x * z) + offset)^degree
ref_rbf <- function(gamma) function(x, z) exp(-gamma * sum((x - z)^2))
ref_rbf_diag <- function(scales) function(x, z) exp(-0.5 * sum((x - z)^2 / scales))
ref_epanechnikov <- function(width) {
  function(x, z) prod((1 - (x - z)^2 / width^2) * (abs(x - z) < width))
}
# Frenay & Verleysen's arcsine ELM kernel, as written in paper 002's group's code
ref_elm <- function(s2) {
  function(x, z) {
    (2 / pi) * asin((1 + sum(x * z)) /
                      sqrt((1 / (2 * s2) + 1 + sum(x * x)) * (1 / (2 * s2) + 1 + sum(z * z))))
  }
}
ref_tanh <- function(scale, offset) function(x, z) tanh(scale * sum(x * z) + offset)
# paper 000 Sec. V-B: exp(-d^power / s^2) with d the squared Euclidean distance
ref_dist <- function(s, power) function(x, z) exp(-sum((x - z)^2)^power / s^2)
ref_invariant <- function(base, tau) function(x, z) max(base(x, z), base(x, tau(z)))

relative_error <- function(A, B) max(abs(A - B)) / max(abs(B))

# A symmetric matrix with a chosen spectrum
matrix_with_spectrum <- function(values, seed = 1) {
  set.seed(seed)
  n <- length(values)
  Q <- qr.Q(qr(matrix(rnorm(n * n), n)))
  M <- Q %*% diag(values, n) %*% t(Q)
  (M + t(M)) / 2
}
