# The kernel engine: the kernel matrices and self-similarities of any
# accepted kernel (kernel_matrix(), evaluate_kernel(), kernel_self()), the
# transform of an invariant kernel, R functions as kernels, and the checks of
# the values: non-finite values are reported with the kernel's call.

#' Kernel matrices
#'
#' The \eqn{n \times m} matrix \eqn{K_{ij} = k(x_i, y_j)} of a kernel between the
#' rows of `x` and the rows of `y` (or of `x` with itself). Built-in kernels are
#' computed in C++ with OpenMP threads; with `y = NULL` only one triangle is
#' computed and the result is exactly symmetric. Distances are formed from
#' exact coordinate differences, not from \eqn{\|x\|^2 + \|y\|^2 - 2\langle x,
#' y\rangle}, so they stay accurate for data far from the origin. R functions
#' and kernlab kernels are evaluated in R (the slow path).
#'
#' Parameters a kernel takes from the data (`kernel_rbf(gamma = NULL)`,
#' `kernel_rbf_diag(scales = NULL)`, the width and conversion of
#' [kernel_dissimilarity()]) are computed from `x`, which plays the role of
#' the training data.
#'
#' The points are taken as given: `kernel_matrix()` does not scale them (a
#' model with `scale = TRUE` evaluates its kernel on its scaled columns). A
#' kernel fitted on data takes them in its own units, as in a model (see
#' "Objects fitted on data keep their units" in [krein_inputs]): a kernel a
#' fit stores (`fit$spec$kernel`) scales them as that fit did, so that
#' `kernel_matrix(fit$spec$kernel, x)` is the fit's training kernel.
#'
#' @param kernel A kernel: a `krein_kernel` (see [kernels]), a function
#'   `function(x, y)` of two vectors, or a kernlab kernel object.
#' @param x A numeric matrix or data frame of numeric columns, one row per
#'   point; or objects (a character vector or a list) for a kernel that
#'   compares objects (see [kernel_dissimilarity()]).
#' @param y `NULL`, or a second set of points with the same columns as `x`
#'   (objects like `x` for a kernel of objects).
#' @param threads The number of threads, a whole number >= 0; `NULL` uses
#'   `getOption("krein.threads")`, and 0 (that option's default) uses every
#'   core (or `OMP_NUM_THREADS` where set). A number above the processors
#'   available (as OpenMP counts them) is capped there.
#' @returns A numeric matrix with `nrow(x)` rows and `nrow(y)` columns (or
#'   `nrow(x)` columns), with the row names of `x` and `y` as dimnames.
#' @family kernels
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(20), ncol = 2)
#' K <- kernel_matrix(kernel_rbf(gamma = 1), x)
#' isSymmetric(K)
#' # test points against training points
#' kernel_matrix(kernel_rbf(gamma = 1), x[1:3, ], x)
#' # an R function is accepted too (slower)
#' kernel_matrix(function(a, b) sum(a * b), x[1:3, ])
#' @export
kernel_matrix <- function(kernel, x, y = NULL, threads = NULL) {
  if (missing(kernel)) krein_abort("`kernel` is missing; give a kernel, e.g. kernel_rbf().")
  kernel <- as_krein_kernel(kernel)
  if (is_object_data(x)) return(object_kernel_matrix(kernel, x, y))
  x <- check_numeric_matrix(x, "x")
  if (!is.null(y)) {
    y <- check_numeric_matrix(y, "y")
    if (ncol(y) != ncol(x)) {
      krein_abort(sprintf("`y` must have the same number of columns as `x` (%d), not %d.",
                          ncol(x), ncol(y)))
    }
  }
  threads <- check_threads(threads)
  # a kernel fitted on data receives the points in its units (R/inputs.R)
  scaling <- input_scaling(x, kernel, list(), scale = FALSE)
  x <- scale_columns(scaling, x)
  y <- scale_columns(scaling, y)
  kernel <- resolve_kernel(kernel, x)
  check_kernel_dimension(kernel, ncol(x))
  K <- evaluate_kernel(kernel, x, y, threads)
  row_names <- rownames(x)
  col_names <- if (is.null(y)) rownames(x) else rownames(y)
  if (!is.null(row_names) || !is.null(col_names)) dimnames(K) <- list(row_names, col_names)
  K
}

#' Evaluate a validated, resolved kernel: the one internal entry point
#'
#' `y = NULL` means the symmetric training matrix.
#' @noRd
evaluate_kernel <- function(kernel, x, y = NULL, threads = NULL) {
  threads <- check_threads(threads)
  symmetric <- is.null(y)
  if (symmetric) y <- x
  if (is_builtin_kernel(kernel)) {
    return(builtin_kernel_matrix(kernel, kernel, FALSE, x, y, y, symmetric, threads))
  }
  switch(kernel$name,
    invariant = {
      y_tau <- apply_transform(kernel$transform, y)
      if (symmetric) check_invariant_symmetry(kernel, x, y_tau, threads)
      if (is_builtin_kernel(kernel$base)) {
        builtin_kernel_matrix(kernel, kernel$base, TRUE, x, y, y_tau, symmetric, threads)
      } else {
        K <- pmax(evaluate_kernel(kernel$base, x, y, threads),
                  evaluate_kernel(kernel$base, x, y_tau, threads))
        if (symmetric) K[lower.tri(K)] <- t(K)[lower.tri(K)]
        K
      }
    },
    "function" = evaluate_function_kernel(kernel$fun, x, y, symmetric),
    # a Nystroem fit's kernel with a corrected landmark block (R/spectrum.R)
    spectrum = spectrum_kernel_matrix(kernel, x, if (!symmetric) y, threads),
    discriminant = kernel$evaluate(x, if (symmetric) NULL else y),
    kernlab = {
      K <- tryCatch(kernlab::kernelMatrix(kernel$kern, x, if (symmetric) NULL else y),
                    error = function(e) {
                      krein_abort(sprintf("The kernlab kernel failed: %s", conditionMessage(e)),
                                  class = "krein_user_function_error")
                    })
      K <- matrix(as.numeric(K), nrow(x), nrow(y))
      check_kernel_values(K)
    },
    krein_abort(sprintf("unknown kernel '%s'.", kernel$name))
  )
}

#' k(x_i, x_i) for each row: the self-similarities that kernel-induced
#' distances need for new points
#' @noRd
kernel_self <- function(kernel, x) {
  if (is_builtin_kernel(kernel)) {
    return(check_builtin_kernel_values(cpp_kernel_diagonal(kernel, FALSE, x, x), kernel, x))
  }
  switch(kernel$name,
    spectrum = spectrum_kernel_self(kernel, x),
    invariant = {
      x_tau <- apply_transform(kernel$transform, x)
      if (is_builtin_kernel(kernel$base)) {
        check_builtin_kernel_values(cpp_kernel_diagonal(kernel$base, TRUE, x, x_tau), kernel, x)
      } else {
        pmax(kernel_self(kernel$base, x),
             vapply(seq_len(nrow(x)), function(i) {
               evaluate_kernel(kernel$base, x[i, , drop = FALSE], x_tau[i, , drop = FALSE])[1, 1]
             }, numeric(1)))
      }
    },
    vapply(seq_len(nrow(x)), function(i) {
      evaluate_kernel(kernel, x[i, , drop = FALSE], x[i, , drop = FALSE])[1, 1]
    }, numeric(1))
  )
}

apply_transform <- function(transform, x) {
  d <- ncol(x)
  out <- tryCatch(
    vapply(seq_len(nrow(x)), function(i) as.numeric(transform(x[i, ])), numeric(d)),
    error = function(e) {
      krein_abort(sprintf("`transform` must map one input vector to a numeric vector of the same length (%d); it failed with: %s",
                          d, conditionMessage(e)))
    })
  out <- if (d == 1L) matrix(out, ncol = 1L) else t(out)
  if (any(!is.finite(out))) krein_abort("`transform` returned NA or infinite values.")
  out
}

# The invariant kernel matrix is computed from one triangle; that is right only
# if k(x, tau(x')) = k(tau(x), x'). Verify it on the first rows (cheap and
# deterministic) rather than return a silently wrong matrix.
check_invariant_symmetry <- function(kernel, x, x_tau, threads) {
  idx <- seq_len(min(nrow(x), 10L))
  a <- evaluate_kernel(kernel$base, x[idx, , drop = FALSE], x_tau[idx, , drop = FALSE], threads)
  b <- evaluate_kernel(kernel$base, x_tau[idx, , drop = FALSE], x[idx, , drop = FALSE], threads)
  if (max(abs(a - b)) > 1e-10 * max(1, max(abs(a)))) {
    krein_abort(paste0(
      "`transform` does not give a symmetric invariant kernel: k(x, transform(x')) differs from ",
      "k(transform(x), x') on the data. Use an involutive isometry such as function(x) -x."))
  }
}

evaluate_function_kernel <- function(fun, x, y, symmetric) {
  n <- nrow(x)
  m <- nrow(y)
  K <- matrix(0, n, m)
  value_at <- function(i, j) {
    v <- fun(x[i, ], y[j, ])
    if (!is.numeric(v) || length(v) != 1L || !is.finite(v)) {
      krein_abort(sprintf("`kernel` must return one finite number; for rows %d and %d it returned %s.",
                          i, j, describe_value(v)))
    }
    v
  }
  i <- j <- NA_integer_
  # one handler around the loop (not one per call): an error of the user's
  # function reaches the user as a krein error saying where it happened
  tryCatch(
    for (j in seq_len(m)) {
      for (i in seq_len(n)) K[i, j] <- value_at(i, j)
    },
    error = function(e) {
      if (inherits(e, "krein_error")) stop(e)
      krein_abort(sprintf("The kernel function failed on rows %d and %d: %s", i, j, conditionMessage(e)),
                  class = "krein_user_function_error")
    })
  if (symmetric) K <- symmetrise_function_kernel(K, "rows")
  K
}

#' A training matrix of a user's kernel function, evaluated on both
#' triangles: symmetric as it is, else symmetrised with a message, as
#' asymmetric dissimilarities are (a function evaluated on one triangle would
#' silently drop the other half of an asymmetric kernel)
#' @noRd
symmetrise_function_kernel <- function(K, what) {
  a <- asymmetry(K)
  if (a > symmetry_tolerance()) {
    message(sprintf("The kernel function is not symmetric on the training %s: k(a, b) differs from k(b, a) by up to %s of its largest value; using (K + t(K)) / 2.",
                    what, format(a, digits = 3)))
  }
  (K + t(K)) / 2
}

#' The matrix of a built-in kernel (`base`, the kernel itself or an invariant
#' kernel's base), checked for NaN or Inf: such values (a non-whole polynomial
#' degree on a negative base, inner products of huge inputs overflowing) must
#' not flow silently into a model, where they would become NA classes or
#' obscure LAPACK failures. The engine tests each value as it computes it
#' and marks the matrix if one is not finite, so a good matrix costs no pass
#' in R (a pass over a 5000 x 5000 matrix, and the copy `range()` makes,
#' takes longer than computing it).
#' @noRd
builtin_kernel_matrix <- function(kernel, base, invariant, x, y, y_tau, symmetric, threads) {
  K <- cpp_kernel_matrix(base, invariant, x, y, y_tau, symmetric, threads)
  if (!is.null(attr(K, "krein_nonfinite", exact = TRUE))) report_nonfinite_kernel_values(K, kernel, x, y)
  K
}

#' The values of a built-in kernel computed one by one (the diagonal), checked
#' the same way in R: a vector, so the pass is cheap.
#' @noRd
check_builtin_kernel_values <- function(K, kernel, x, y = NULL) {
  if (!anyNA(K) && all(is.finite(range(K)))) return(K)
  report_nonfinite_kernel_values(K, kernel, x, y)
}

#' The error for a built-in kernel's non-finite values, with their counts.
#' @noRd
report_nonfinite_kernel_values <- function(K, kernel, x, y = NULL) {
  nan <- sum(is.na(K))
  inf <- sum(is.infinite(K))
  kinds <- c(if (nan > 0) "NaN", if (inf > 0) "Inf")
  largest <- max(abs(range(x)), if (!is.null(y)) abs(range(y)))
  krein_abort(sprintf("%s gave %d non-finite value%s (%s) on the data (largest |x| = %s): %s.",
                      kernel_call_text(kernel), nan + inf, if (nan + inf > 1) "s" else "",
                      paste(kinds, collapse = ", "), format(largest, digits = 3), nonfinite_kernel_hint(kernel, nan > 0)))
}

#' What to do about a built-in kernel's non-finite values (`nan`: some were
#' NaN, or may have been)
#' @noRd
nonfinite_kernel_hint <- function(kernel, nan) {
  base <- if (identical(kernel$name, "invariant")) kernel$base else kernel
  if (identical(base$name, "poly") && nan && abs(base$params$degree - round(base$params$degree)) > 1e-12) {
    return("a non-whole `degree` needs scale <x, x'> + offset >= 0 for every pair of points; use a whole degree or a larger offset")
  }
  "the inputs are too large or too small for this kernel and its parameters; rescale the inputs (e.g. centre and scale the columns) or change the parameters"
}

check_kernel_values <- function(K) {
  if (any(!is.finite(K))) krein_abort("`kernel` produced NA or infinite values.")
  K
}
