# Plain-R references for pcvm() (paper 002, Sec. 2.4, eqs. 4-7; Chen, Tino &
# Yao 2009, in the order and constants of the authors' reference code).

# Transcription of one EM iteration (?pcvm, section "Model and EM"). The
# E-step: "exact", the ratio phi(f) / Psi(y f) computed in log space by R's
# dnorm / pnorm; "bounded", the same ratio at max(y f, -8); "reference", as
# the authors' MATLAB code writes it,
# normpdf(f) ./ (normcdf(y .* f) + eps). K holds the basis functions' kernel
# columns (n x basis), `y` labels its rows and `y_columns` its columns.
ref_e_step <- function(f, y, e_step) {
  switch(e_step,
         exact = f + y * exp(dnorm(f, log = TRUE) - pnorm(y * f, log.p = TRUE)),
         # the exact ratio at max(y f, -8): a bounded pull (?pcvm, "Which E-step")
         bounded = {
           t <- pmax(y * f, -8)
           f + y * exp(dnorm(t, log = TRUE) - pnorm(t, log.p = TRUE))
         },
         reference = f + y * dnorm(f) / (pnorm(y * f) + .Machine$double.eps))
}

ref_pcvm_step <- function(K, y, active, w, b, latent = NULL, y_columns = y, e_step = "exact") {
  Phi <- K[, active, drop = FALSE] * rep(y_columns[active], each = nrow(K))
  f <- if (is.null(latent)) drop(Phi %*% w) + b else latent
  Z <- ref_e_step(f, y, e_step)
  M <- sqrt(2) * w
  Hess <- diag(length(active)) + outer(M, M) * crossprod(Phi)
  w_new <- M * solve(Hess, M * drop(crossprod(Phi, Z - b)))
  b_new <- sum(Z - Phi %*% w_new) / (nrow(K) + 1 / (2 * b^2))
  list(weights = w_new, bias = b_new, Z = Z)
}

# The EM loop of pcvm_pair() in plain R, with the C++ steps replaced by
# ref_pcvm_step(): start, pruning, the reference code's convergence test
# (`control$convergence = "weights"`) and the width step of optimize_width
# (for which `x` holds the pair's points). Also the default rule of
# ?pcvm_control, `convergence = "latent"`: stop when the
# training latent values f = Phi_A w + b of two iterates satisfy
# ||f_t - f_{t-1}||_2 <= tol ||f_{t-1}||_2 (f on the kernel the next
# iteration uses). The E-step is `control$e_step` (?pcvm_control).
ref_pcvm_em <- function(K, signs, column_signs, start, control, kernel = NULL, x = NULL, threads = 1L) {
  n_basis <- length(start$weights)
  active <- seq_len(n_basis)
  w_full <- start$weights
  b <- start$bias
  converged <- FALSE
  iterations <- 0L
  f_previous <- NULL
  for (iteration in seq_len(control$max_iter)) {
    iterations <- iteration
    latent <- if (iteration == 1L) start$latent
    step <- ref_pcvm_step(K, signs, active, w_full[active], b, latent, column_signs, control$e_step %||% "exact")
    if (isTRUE(control$optimize_width)) {
      kernel <- krein:::optimize_rbf_width(kernel, x, active, signs, step, step$Z, threads)
      K <- krein:::evaluate_kernel(kernel, x, NULL, threads)
    }
    w_new <- numeric(n_basis)
    w_new[active] <- step$weights
    w_new[w_new < control$prune] <- 0
    change <- max(abs(w_new - w_full))
    w_full <- w_new
    b <- step$bias
    active <- which(w_full > 0)
    if (length(active) == 0L) stop("every basis function pruned")
    if (identical(control$convergence, "weights")) {
      if (iteration > 1L && change < control$tol) {
        converged <- TRUE
        break
      }
      next
    }
    f <- drop(K[, active, drop = FALSE] %*% (column_signs[active] * w_full[active])) + b
    settled <- iteration > 1L && sqrt(sum((f - f_previous)^2)) <= control$tol * sqrt(sum(f_previous^2))
    f_previous <- f
    if (settled) {
      converged <- TRUE
      break
    }
  }
  list(weights = w_full, bias = b, iterations = iterations, converged = converged, kernel = kernel)
}

# The start pcvm() draws for a pair, in its order.
ref_pcvm_start <- function(n_basis, signs) {
  n <- length(signs)
  list(weights = stats::runif(n_basis) + 0.2, bias = stats::rnorm(1),
       latent = 10 * stats::runif(n) * signs + stats::runif(n))
}

# Two EM runs (cpp_pcvm_fit() or ref_pcvm_em() results) reach the same
# iterate: the same relevance vectors and iteration count, and weights and
# bias to `tolerance`.
expect_same_iterates <- function(got, ref, tolerance = 1e-10) {
  expect_identical(which(got$weights > 0), which(ref$weights > 0))
  expect_equal(got$weights, ref$weights, tolerance = tolerance)
  expect_equal(got$bias, ref$bias, tolerance = tolerance)
  expect_identical(got$iterations, ref$iterations)
  expect_identical(got$converged, ref$converged)
}
