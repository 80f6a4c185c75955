# Kernel constructors (validated here, evaluated in C++ by
# inst/include/krein/kernels.hpp) and the machinery that turns any accepted
# kernel -- a krein kernel, an R function of two vectors, a kernlab kernel --
# into kernel matrices.

new_krein_kernel <- function(name, params, label, formula, positive_definite, ...,
                             class = character()) {
  structure(
    list(name = name, params = params, label = label, formula = formula,
         positive_definite = positive_definite, ...),
    class = c(class, paste0("krein_kernel_", name), "krein_kernel")
  )
}

#' Kernels
#'
#' Constructors of the kernels krein evaluates in its C++ engine. Each returns
#' a `krein_kernel` object, to be passed to [kernel_matrix()] or to any krein
#' model. Wherever a kernel is accepted, krein also accepts an R function
#' `function(x, y)` of two numeric vectors returning one number, and a
#' `kernlab` kernel object (for example `kernlab::rbfdot(sigma = 1)`); those are
#' evaluated in R, pair by pair or through `kernlab::kernelMatrix()`, and are
#' much slower than the built-in kernels. For `x` given as objects (strings,
#' a list), the R function takes two objects and kernlab string kernels
#' apply; see [kernel_dissimilarity()]. An R function is evaluated on every
#' pair of training points, both ways; if it is not symmetric there, a
#' message says so and the training matrix is \eqn{(K + K^\top) / 2}, as for
#' asymmetric dissimilarities.
#'
#' | constructor | \eqn{k(x, x')} | positive definite |
#' |---|---|---|
#' | `kernel_linear()` | \eqn{\langle x, x'\rangle} | yes |
#' | `kernel_poly()` | \eqn{(\mathrm{scale}\,\langle x, x'\rangle + \mathrm{offset})^{\mathrm{degree}}} | for whole `degree` and `offset` >= 0 |
#' | `kernel_rbf()` | \eqn{\exp(-\gamma \|x - x'\|^2)} | yes |
#' | `kernel_rbf_diag()` | \eqn{\exp(-\frac12 \sum_j (x_j - x'_j)^2 / \mathrm{scales}_j)} | yes |
#' | `kernel_epanechnikov()` | \eqn{\prod_j (1 - (x_j - x'_j)^2/w^2)\, 1\{|x_j - x'_j| < w\}} | no |
#' | `kernel_elm()` | \eqn{\frac{2}{\pi}\arcsin\frac{1 + \langle x, x'\rangle}{\sqrt{(\frac{1}{2\sigma^2} + 1 + \langle x, x\rangle)(\frac{1}{2\sigma^2} + 1 + \langle x', x'\rangle)}}} | yes |
#' | `kernel_tanh()` | \eqn{\tanh(\mathrm{scale}\,\langle x, x'\rangle + \mathrm{offset})} | no |
#' | `kernel_dist()` | \eqn{\exp(-d(x, x')^{p} / s^2)}, \eqn{d = \|x - x'\|^2} | for `power` <= 1 |
#'
#' Every kernel matrix krein computes is checked: a NaN or infinite kernel
#' value (a non-whole `degree` on a negative base, inner products of inputs
#' near 1e300 overflowing) stops with an error that names the kernel and its
#' parameters, as for R-function and kernlab kernels.
#'
#' @section Parametrisations in the papers:
#' The Gaussian kernel appears in three forms. Pekalska and Haasdonk (2009,
#' Sec. V-A) write \eqn{\exp(-\|x - x'\|^2 / s^2)}: use `gamma = 1 / s^2`.
#' Haasdonk and Pekalska (2010) and Hidaka and Kurita (2016) write
#' \eqn{\exp(-\gamma \|x - x'\|^2)}: `gamma` as is. Schleif, Gisbrecht and
#' Tino (2018) and Huang, Hwang and Lin (2005, Example 1) write
#' \eqn{\exp(-\|x - x'\|^2 / (2\sigma^2))}: use `gamma = 1 / (2 * sigma^2)`.
#' Huang, Hwang and Lin also use a Gaussian with covariance
#' \eqn{\mathrm{diag}(10 S_j)},
#' \eqn{S_j} the sample variance of input \eqn{j} (Example 2): that is
#' `kernel_rbf_diag()`, whose default `scales = NULL` makes exactly that choice
#' from the training data.
#'
#' `kernel_dist()` is the base kernel of Pekalska and Haasdonk (2009, Sec. V-B),
#' \eqn{\exp(-d(x, x')^4/s^2)} with \eqn{d} the *squared* Euclidean distance,
#' taken literally from the paper (`power = 4`); with `power = 1` it is the
#' Gaussian kernel with `gamma = 1 / s^2`. By Schoenberg's theorem
#' \eqn{\exp(-\|x - x'\|^{2p}/s^2)} is positive definite for every dimension
#' only when \eqn{p \le 1}.
#'
#' The Epanechnikov product kernel is that of Huang, Hwang and Lin (2005,
#' Example 1). It is not
#' positive definite (the Fourier transform of \eqn{(1 - t^2)_+} changes sign),
#' which their method does not need, but krein records it.
#' The "\eqn{\sigma^2}" column of their Table 4 is the width itself:
#' `kernel_epanechnikov(width = value)`.
#'
#' The ELM (extreme learning machine, arcsine) kernel is that of Schleif,
#' Gisbrecht and Tino (2018, Sec. 4.3; Frenay & Verleysen 2011), where
#' `sigma2 = 1e10`.
#'
#' @param gamma The width \eqn{\gamma > 0}. `NULL` (the default) chooses it from
#'   the training data by `heuristic`.
#' @param heuristic How `gamma = NULL` is chosen from the training data (as
#'   the model sees them: centred and scaled with `scale = TRUE`):
#'   * `"median"` (the default): the median heuristic, \eqn{\gamma = 1 /
#'     \mathrm{median}\|x_i - x_j\|^2}: see [median_gamma()];
#'   * `"dimension"`: \eqn{\gamma = 1 / p} for \eqn{p} input columns, the
#'     default of libsvm and [e1071::svm()] (which scale the inputs too):
#'     the default kernel of [isvm()] and [kfda()].
#'
#'   Ignored when `gamma` is given.
#' @param degree The degree of the polynomial, a positive number (usually whole;
#'   a non-whole degree is defined only where `scale` \eqn{\langle x, x'\rangle} +
#'   `offset` >= 0, and krein stops with an error where the kernel is NaN).
#' @param scale The factor multiplying the inner product.
#' @param offset The constant added to the scaled inner product.
#' @param scales The per-input variances of `kernel_rbf_diag()`, one positive
#'   number per input column; `NULL` (the default) uses ten times the sample
#'   variances of the training inputs, the choice of Huang, Hwang and Lin
#'   (2005).
#' @param width The window width \eqn{w > 0} of the Epanechnikov kernel (its
#'   square must be a positive finite double, so about 1.5e-154 to 1.3e154).
#' @param sigma2 The variance parameter \eqn{\sigma^2 > 0} of the ELM kernel.
#' @param s The width \eqn{s > 0} of `kernel_dist()` (its square must be a
#'   positive finite double, so about 1.5e-154 to 1.3e154).
#' @param power The power \eqn{p > 0} of the squared distance in `kernel_dist()`.
#' @returns A `krein_kernel` object: a list with the kernel's `name`, its
#'   `params`, a `label`, the `formula` as text and `positive_definite`
#'   (`TRUE`, `FALSE`, or `NA` when it depends on the parameters' values).
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (Sections, equations and tables are cited
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#'
#' Haasdonk, B. and Pekalska, E. (2010). Classification with kernel
#' Mahalanobis distance classifiers. In *Advances in Data Analysis, Data
#' Handling and Business Intelligence*, Studies in Classification, Data
#' Analysis, and Knowledge Organization, Springer, 351-361.
#' \doi{10.1007/978-3-642-01044-6_32}.
#'
#' Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#' indefinite kernel approximation using minimum enclosing balls.
#' *Neurocomputing*, 318, 213-226. \doi{10.1016/j.neucom.2018.08.057}.
#'
#' Huang, S.-Y., Hwang, C.-R. and Lin, M.-H. (2005). Kernel Fisher's
#' discriminant analysis in Gaussian reproducing kernel Hilbert space.
#' Manuscript, Institute of Statistical Science, Academia Sinica, Taipei.
#'
#' Hidaka, A. and Kurita, T. (2016). Optimum nonlinear discriminant analysis
#' and discriminant kernel support vector machine. *IEICE Transactions on
#' Information and Systems*, E99.D(11), 2734-2744.
#' \doi{10.1587/transinf.2016EDP7081}.
#' @seealso [kernel_invariant()] for invariant (indefinite) kernels,
#'   [kernel_matrix()] to evaluate, [indefiniteness()] to inspect a kernel
#'   matrix.
#' @family kernels
#' @examples
#' x <- matrix(c(0, 1, 2, 0, 1, 0), ncol = 2)
#' kernel_matrix(kernel_rbf(gamma = 0.5), x)
#' kernel_poly(degree = 3)
#' # Pekalska and Haasdonk (2009) write exp(-|x - x'|^2 / s^2): gamma = 1 / s^2
#' s <- 2
#' kernel_rbf(gamma = 1 / s^2)
#' @name kernels
NULL

#' @rdname kernels
#' @export
kernel_linear <- function() {
  new_krein_kernel("linear", list(), "linear", "<x, x'>", TRUE)
}

#' @rdname kernels
#' @export
kernel_poly <- function(degree = 2, scale = 1, offset = 1) {
  degree <- check_number(degree, "degree", lower = 0)
  scale <- check_number(scale, "scale")
  offset <- check_number(offset, "offset")
  whole <- abs(degree - round(degree)) < 1e-12
  new_krein_kernel("poly", list(degree = degree, scale = scale, offset = offset),
                   "polynomial", "(scale <x, x'> + offset)^degree",
                   if (whole && scale >= 0 && offset >= 0) TRUE else NA)
}

#' @rdname kernels
#' @export
kernel_rbf <- function(gamma = NULL, heuristic = c("median", "dimension")) {
  if (!is.null(gamma)) gamma <- check_number(gamma, "gamma", lower = 0)
  heuristic <- match_choice(heuristic, "heuristic", c("median", "dimension"))
  kernel <- new_krein_kernel("rbf", list(gamma = gamma), "Gaussian RBF", "exp(-gamma ||x - x'||^2)", TRUE)
  # only a width left to the data records its rule, and the median (the
  # default) is left implicit: kernel_rbf() is the object it always was
  if (is.null(gamma) && heuristic != "median") kernel$heuristic <- heuristic
  kernel
}

#' @rdname kernels
#' @export
kernel_rbf_diag <- function(scales = NULL) {
  if (!is.null(scales)) scales <- check_positive_vector(scales, "scales")
  new_krein_kernel("rbf_diag", list(scales = scales), "Gaussian RBF, diagonal covariance",
                   "exp(-0.5 sum_j (x_j - x'_j)^2 / scales_j)", TRUE)
}

#' @rdname kernels
#' @export
kernel_epanechnikov <- function(width) {
  if (missing(width)) krein_abort("`width` is missing; give the window width, a positive number.")
  width <- check_squarable_width(width, "width")
  new_krein_kernel("epanechnikov", list(width = width), "Epanechnikov product",
                   "prod_j (1 - (x_j - x'_j)^2 / width^2) 1{|x_j - x'_j| < width}", FALSE)
}

#' @rdname kernels
#' @export
kernel_elm <- function(sigma2 = 1e10) {
  sigma2 <- check_number(sigma2, "sigma2", lower = 0)
  new_krein_kernel("elm", list(sigma2 = sigma2), "ELM (arcsine)",
                   "(2/pi) asin((1 + <x, x'>) / sqrt((1/(2 sigma2) + 1 + <x, x>)(1/(2 sigma2) + 1 + <x', x'>)))",
                   TRUE)
}

#' @rdname kernels
#' @export
kernel_tanh <- function(scale = 1, offset = 0) {
  scale <- check_number(scale, "scale")
  offset <- check_number(offset, "offset")
  new_krein_kernel("tanh", list(scale = scale, offset = offset), "sigmoid (tanh)",
                   "tanh(scale <x, x'> + offset)", FALSE)
}

#' @rdname kernels
#' @export
kernel_dist <- function(s, power = 1) {
  if (missing(s)) krein_abort("`s` is missing; give the kernel width, a positive number.")
  s <- check_squarable_width(s, "s")
  power <- check_number(power, "power", lower = 0)
  new_krein_kernel("dist", list(s = s, power = power), "distance-based",
                   "exp(-d(x, x')^power / s^2), d = ||x - x'||^2", power <= 1)
}

# A width the engine divides by squared (kernel_dist's s, kernel_epanechnikov's
# width): below about 1.5e-154 its square underflows to 0 and the kernel is
# 0 * Inf = NaN at distance 0; above about 1.3e154 it overflows to Inf.
check_squarable_width <- function(value, arg) {
  value <- check_number(value, arg, lower = 0)
  if (value^2 == 0 || !is.finite(value^2)) {
    krein_abort(sprintf("`%s` must be a positive number whose square is a positive finite double (about 1.5e-154 to 1.3e154), not %s.",
                        arg, format(value, digits = 7)))
  }
  value
}

#' Invariant kernels
#'
#' Makes a kernel invariant to a transformation \eqn{\tau} of the inputs,
#' \deqn{\bar k(x, x') = \max\{k(x, x'), k(x, \tau(x'))\},}
#' as Pekalska and Haasdonk (2009, Sec. V-B) do
#' for the checkerboard, whose distribution is invariant to the point
#' reflection \eqn{\tau(x) = -x}. Such kernels are in general indefinite.
#'
#' \eqn{\bar k} is symmetric when \eqn{k(x, \tau(x')) = k(\tau(x), x')}, which
#' holds for a kernel of the distance (or inner product) and an involutive
#' isometry \eqn{\tau} such as a reflection or a swap of coordinates. A
#' training kernel matrix must be symmetric, so [kernel_matrix()] checks that
#' property on the first rows of the data and signals an error when it fails.
#'
#' The transformation acts on the data as the user gives them: a model given
#' an invariant kernel works in the data's own coordinates, whatever its
#' `scale` (centring would move the origin the reflection is about, and
#' scaling would change what the base kernel's width means), as for the other
#' objects that keep their units (see "Objects fitted on data keep their
#' units" in [krein_inputs]). A width the base kernel takes from the data (the
#' median heuristic of `kernel_rbf()`) is then that of the data as given.
#'
#' @param base The base kernel: a krein kernel (evaluated in C++) or an R
#'   function of two vectors.
#' @param transform A function mapping one input vector to a vector of the same
#'   length: \eqn{\tau}. The default is the point reflection `function(x) -x`.
#' @returns A `krein_kernel` object of name `"invariant"`.
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (Sections, equations and tables are cited
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#' @family kernels
#' @examples
#' set.seed(1)
#' board <- checkerboard(100)
#' k <- kernel_invariant(kernel_dist(s = 1, power = 4))
#' K <- kernel_matrix(k, board[, c("x1", "x2")])
#' indefiniteness(K)
#' @export
kernel_invariant <- function(base, transform = function(x) -x) {
  if (missing(base)) krein_abort("`base` is missing; give the base kernel, e.g. kernel_rbf(1).")
  base <- as_krein_kernel(base, "base")
  if (inherits(base, "krein_kernel_invariant")) {
    krein_abort("`base` must not itself be an invariant kernel; transform once with a composed `transform`.")
  }
  if (!is.null(data_units(base)$scaling)) {
    krein_abort("`base` was fitted on scaled data (its width comes from a fit with `scale = TRUE`), but an invariant kernel takes the data as given: give the base kernel with its width, e.g. kernel_rbf(gamma = 0.5), or leave the width to the data.")
  }
  if (!is.function(transform)) {
    krein_abort(sprintf("`transform` must be a function of one input vector, not %s.",
                        describe_value(transform)))
  }
  new_krein_kernel("invariant", list(), paste("invariant", base$label),
                   sprintf("max{k(x, x'), k(x, transform(x'))}, k = %s", base$formula), FALSE,
                   base = base, transform = transform)
}

# Wrap an R function of two vectors as a kernel (the slow path).
function_kernel <- function(fun) {
  new_krein_kernel("function", list(), "user-supplied function", "function(x, y)", NA, fun = fun)
}

# Wrap a kernlab kernel object (evaluated by kernlab::kernelMatrix).
kernlab_kernel <- function(kern) {
  new_krein_kernel("kernlab", list(), paste("kernlab", class(kern)[1]), "kernlab kernel", NA,
                   kern = kern)
}

# inherits() follows S4 inheritance, so every kernlab kernel class (rbfkernel,
# polykernel, ...) is recognised through their common superclass "kernel".
is_kernlab_kernel <- function(x) isS4(x) && inherits(x, "kernel")

#' Turn anything krein accepts as a kernel into a `krein_kernel`
#' @noRd
as_krein_kernel <- function(kernel, arg = "kernel", call = NULL) {
  if (inherits(kernel, "krein_kernel")) return(kernel)
  if (is_kernlab_kernel(kernel)) {
    if (!requireNamespace("kernlab", quietly = TRUE)) {
      krein_abort(sprintf("`%s` is a kernlab kernel, but kernlab is not installed: install.packages(\"kernlab\").", arg),
                  call = call)
    }
    return(kernlab_kernel(kernel))
  }
  if (is.function(kernel)) {
    if (length(formals(kernel)) < 2L && !("..." %in% names(formals(kernel)))) {
      krein_abort(sprintf("`%s` must be a function of two vectors, function(x, y); this one takes %d argument%s.",
                          arg, length(formals(kernel)), if (length(formals(kernel)) == 1L) "" else "s"),
                  call = call)
    }
    return(function_kernel(kernel))
  }
  if (is.character(kernel) && length(kernel) == 1L && identical(kernel, "precomputed")) {
    krein_abort(sprintf("`%s = \"precomputed\"` is not a kernel function here; pass the kernel matrix itself.", arg),
                call = call)
  }
  krein_abort(sprintf(
    "`%s` must be a krein kernel (e.g. kernel_rbf()), a function(x, y) or a kernlab kernel, not %s.",
    arg, describe_value(kernel)), call = call)
}

#' @export
print.krein_kernel <- function(x, ...) {
  cat("<krein kernel> ", x$label, "\n", sep = "")
  cat("  k(x, x') = ", x$formula, "\n", sep = "")
  params <- kernel_parameter_text(x)
  if (nzchar(params)) cat("  ", params, "\n", sep = "")
  pd <- if (isTRUE(x$positive_definite)) "positive definite" else
    if (identical(x$positive_definite, FALSE)) "not positive definite in general (indefinite)" else
      "definiteness unknown"
  cat("  ", pd, "\n", sep = "")
  invisible(x)
}

kernel_parameter_text <- function(kernel) {
  p <- kernel$params
  if (identical(kernel$name, "invariant")) {
    return(paste0("base: ", kernel$base$label,
                  if (nzchar(kernel_parameter_text(kernel$base))) paste0(", ", kernel_parameter_text(kernel$base)) else ""))
  }
  if (length(p) == 0L) return("")
  shown <- vapply(names(p), function(nm) {
    v <- p[[nm]]
    if (is.null(v)) {
      return(sprintf("%s = %s", nm, if (nm != "gamma") "<from training data>" else
        if (identical(kernel$heuristic, "dimension")) "<1 / number of input columns>" else "<median heuristic>"))
    }
    if (length(v) > 4L) return(sprintf("%s = <%d values>", nm, length(v)))
    sprintf("%s = %s", nm, paste(format(v, digits = 4), collapse = ", "))
  }, character(1))
  paste(shown, collapse = ", ")
}

#' Median heuristic for the Gaussian kernel width
#'
#' \eqn{\gamma = 1 / \mathrm{median}_{i < j} \|x_i - x_j\|^2}, so that a typical
#' pair of training points has kernel value \eqn{e^{-1}}. This is the value
#' `kernel_rbf(gamma = NULL)` takes from the training data. For more than 1000
#' rows the median is taken over 1000 rows evenly spaced through the data (a
#' deterministic choice, so the random number stream is untouched). The
#' distances are taken on the data divided by its largest absolute value and
#' the scale is put back into \eqn{\gamma}, so that tiny (1e-150) and huge
#' (1e150) inputs get the right width rather than squared distances that
#' underflow or overflow; where \eqn{\gamma} itself is beyond double precision
#' (inputs near 1e-300), the error says so.
#'
#' It takes `x` as given, as [kernel_matrix()] evaluates a kernel on the
#' points given: a model with `scale = TRUE` (the default) takes the width
#' of its scaled columns, `median_gamma(scale(x))`, which is what
#' `kernel_rbf()` does inside the model (see [krein_inputs]).
#'
#' @param x A numeric matrix or data frame of numeric columns.
#' @returns One positive number.
#' @family kernels
#' @examples
#' median_gamma(as.matrix(iris[, 1:4]))
#' @export
median_gamma <- function(x) {
  x <- check_numeric_matrix(x, "x")
  if (nrow(x) < 2L) krein_abort("`x` must have at least two rows to choose a kernel width.")
  if (nrow(x) > 1000L) x <- x[unique(round(seq(1, nrow(x), length.out = 1000L))), , drop = FALSE]
  # Squared distances of 1e-300 data underflow to 0 and those of 1e200 data
  # overflow: take them on the data divided by its largest absolute value,
  # then put the scale back, gamma = 1 / (median * scale^2).
  scale <- max(abs(x))
  d2 <- if (scale > 0) stats::dist(x / scale)^2 else numeric()
  if (!any(d2 > 0)) {
    krein_abort("`x` has no two distinct rows, so no kernel width can be chosen from it; give `gamma`.")
  }
  gamma <- (1 / scale)^2 / stats::median(d2[d2 > 0])
  if (!is.finite(gamma) || gamma <= 0) {
    krein_abort(sprintf(paste0(
      "The median-heuristic width of `x` (largest |x| = %s) is outside the range of double precision ",
      "(gamma = 1 / median squared distance %s); rescale `x` (e.g. centre and scale its columns) or give `gamma`."),
      format(scale, digits = 3), if (gamma <= 0) "underflows to 0" else "overflows"))
  }
  gamma
}

#' The width `kernel_rbf(gamma = NULL, heuristic)` takes from the training
#' inputs `x` (as the model sees them)
#' @noRd
rbf_heuristic_gamma <- function(kernel, x) {
  if (identical(kernel$heuristic, "dimension")) {
    if (ncol(x) < 1L) krein_abort("`x` has no columns, so no kernel width can be chosen from it; give `gamma`.")
    return(1 / ncol(x))
  }
  median_gamma(x)
}

# Does the kernel take a parameter from the training data (an RBF width, the
# scales of a diagonal RBF) that it does not have yet?
kernel_needs_data <- function(kernel) {
  base <- if (inherits(kernel, "krein_kernel_invariant")) kernel$base else kernel
  (inherits(base, "krein_kernel_rbf") && is.null(base$params$gamma)) ||
    (inherits(base, "krein_kernel_rbf_diag") && is.null(base$params$scales))
}

#' Fill in the parameters a kernel takes from the training data
#'
#' `kernel_rbf(gamma = NULL)` and `kernel_rbf_diag(scales = NULL)` are
#' completed here; every model stores the resolved kernel so that predictions
#' use the same parameters as the fit. `scaling` is the scaling that made `x`
#' from the data as given (NULL: none), recorded as the kernel's units.
#' @noRd
resolve_kernel <- function(kernel, x, scaling = NULL) {
  if (inherits(kernel, "krein_kernel_dissimilarity")) {
    krein_abort("`kernel` kernel_dissimilarity() compares objects, but `x` is numeric data. Give `x` as a character vector or a list of objects (the rows of a matrix as a list: split(x, row(x))), or use a kernel for numeric data.")
  }
  if (inherits(kernel, "krein_kernel_invariant")) {
    kernel$base <- resolve_kernel(kernel$base, x, scaling)
    return(kernel)
  }
  needs_data <- kernel_needs_data(kernel)
  if (inherits(kernel, "krein_kernel_rbf") && is.null(kernel$params$gamma)) {
    kernel$params$gamma <- rbf_heuristic_gamma(kernel, x)
    kernel$heuristic <- NULL
  }
  if (inherits(kernel, "krein_kernel_rbf_diag") && is.null(kernel$params$scales)) {
    if (nrow(x) < 2L) krein_abort("`x` must have at least two rows to choose `scales` from the data.")
    v <- apply(x, 2, stats::var)
    if (any(v <= 0)) {
      krein_abort(sprintf("`x` has constant column%s %s, so `scales` cannot be chosen from the data; give `scales`.",
                          if (sum(v <= 0) > 1) "s" else "", format_indices(which(v <= 0))))
    }
    kernel$params$scales <- 10 * v  # paper 003, Example 2: diag(10 S_j)
  }
  # a parameter taken from data ties the kernel to the units of `x`: the
  # scaling that made them from the data as given, NULL for none (data_units())
  if (needs_data) kernel$units <- list(scaling = scaling)
  kernel
}

is_builtin_kernel <- function(kernel) {
  kernel$name %in% c("linear", "poly", "tanh", "elm", "rbf", "rbf_diag", "dist", "epanechnikov")
}

check_kernel_dimension <- function(kernel, d, call = NULL) {
  if (inherits(kernel, "krein_kernel_discriminant") && !is.null(kernel$dimension) && kernel$dimension != d) {
    krein_abort(sprintf("The discriminant kernel was built on %d input columns; the data have %d.",
                        kernel$dimension, d), call = call)
  }
  base <- if (inherits(kernel, "krein_kernel_invariant")) kernel$base else kernel
  if (inherits(base, "krein_kernel_rbf_diag") && length(base$params$scales) != d) {
    krein_abort(sprintf("`scales` must have one entry per input column (%d), not %d.",
                        d, length(base$params$scales)), call = call)
  }
}

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
#' not flow silently into a model, where they became NA classes or obscure
#' LAPACK failures (issue 16). The engine tests each value as it computes it
#' and marks the matrix if one is not finite, so a good matrix costs no pass
#' in R (a pass over a 5000 x 5000 matrix, and the copy `range()` makes,
#' took longer than computing it: issue 32).
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
  base <- if (identical(kernel$name, "invariant")) kernel$base else kernel
  hint <- if (identical(base$name, "poly") && nan > 0 &&
              abs(base$params$degree - round(base$params$degree)) > 1e-12) {
    "a non-whole `degree` needs scale <x, x'> + offset >= 0 for every pair of points; use a whole degree or a larger offset"
  } else {
    "the inputs are too large or too small for this kernel and its parameters; rescale the inputs (e.g. centre and scale the columns) or change the parameters"
  }
  krein_abort(sprintf("%s gave %d non-finite value%s (%s) on the data (largest |x| = %s): %s.",
                      kernel_call_text(kernel), nan + inf, if (nan + inf > 1) "s" else "",
                      paste(kinds, collapse = ", "), format(largest, digits = 3), hint))
}

#' How the user would write this kernel: "kernel_poly(degree = 0.5, scale = 1, offset = 0)"
#' @noRd
kernel_call_text <- function(kernel) {
  if (identical(kernel$name, "invariant")) {
    return(sprintf("kernel_invariant(%s)", kernel_call_text(kernel$base)))
  }
  sprintf("kernel_%s(%s)", kernel$name, kernel_parameter_text(kernel))
}

check_kernel_values <- function(K) {
  if (any(!is.finite(K))) krein_abort("`kernel` produced NA or infinite values.")
  K
}

# ---------------------------------------------------------------------------
# Kernels on objects: strings, sequences, point sets (issue 18)

#' A kernel from a dissimilarity function of objects
#'
#' For `x` given as objects -- a character vector of strings or a list of
#' sequences, point sets or anything else -- and a function that computes
#' their dissimilarities, such as [utils::adist()] (the generalised Levenshtein
#' edit distance between strings). Pass it as the `kernel` of any krein model
#' with the objects as `x`: the model computes the dissimilarities of the
#' training objects, converts them into a kernel as [kernel_from_dissimilarity()]
#' does, stores the training objects prediction needs and, at prediction,
#' computes the dissimilarities of the new objects to them and converts them
#' the same way.
#'
#' The conversions (see [kernel_from_dissimilarity()] for their formulas):
#' * `"gaussian"` (the default): \eqn{k(x, x') = \exp(-\gamma\, d(x, x')^2)},
#'   `gamma` a kernel parameter as for [kernel_rbf()]: `NULL` takes the median
#'   heuristic \eqn{1 / \mathrm{median}\, d^2} over pairs of distinct training
#'   objects, a number is used as given, and [tune_krein()] tunes it like the
#'   RBF width (`grid = list(gamma = ...)`). It is the default because its
#'   values lie in \eqn{(0, 1]} and its width can be tuned.
#' * `"negsq"`: \eqn{-(d / \bar d)^2}, \eqn{\bar d} the mean training
#'   dissimilarity (Pekalska and Haasdonk 2009, Sec. V-C).
#' * `"classical"`: classical scaling, \eqn{-\frac12 J D^{(2)} J}; converting
#'   new objects needs their dissimilarities to every training object, so
#'   fits keep all training objects (also Nystroem fits).
#'
#' @section The dissimilarity function:
#' `dissimilarity(a, b)` is called with two vectors (or lists) of objects --
#' subsets of `x` or of `newdata`, of the same type as `x` -- and must return
#' the `length(a)` by `length(b)` numeric matrix of their dissimilarities:
#' non-negative, finite, zero between an object and itself and, on the
#' training objects, symmetric (an asymmetric one is symmetrised with a
#' message). [utils::adist()] is such a function. A function of two single
#' objects returning one number, `function(a, b)`, is accepted with
#' `pairwise = TRUE`, and is then called once per pair (slower).
#'
#' A kernel of two objects can also be given directly as the model's
#' `kernel`: a kernlab string kernel (`kernlab::stringdot()`, evaluated by
#' `kernlab::kernelMatrix()`), or an R function `function(a, b)` of two
#' single objects returning one number (the contract of R-function kernels
#' on numeric data, with objects in place of rows).
#'
#' @section Inputs that are objects:
#' `x` is taken as objects when it is a character vector or a plain list (not
#' a data frame). `NA` strings, or `NA` elements of a list, are missing
#' objects: an error, unless `na.action = na.omit` (or `na.exclude`) drops
#' them; `NULL` elements are an error. `scale` does not apply to objects and
#' is ignored (as for precomputed kernels). The training kernel is computed
#' once, \eqn{n \times n} (also for Nystroem fits, which then keep only the
#' landmark objects for prediction). `predict()` takes new objects of the
#' same kind; a missing one gives an `NA` row. Models on input features
#' ([onda()]) and views that need coordinates (decision regions) are not
#' available for objects: `plot()` shows the class probabilities instead.
#'
#' @param dissimilarity A function `function(a, b)` of two vectors or lists
#'   of objects returning the matrix of their dissimilarities (see the
#'   section below), such as [utils::adist()].
#' @param method `"gaussian"`, `"negsq"` or `"classical"`, see Details.
#' @param gamma For `method = "gaussian"`: the width \eqn{\gamma > 0}, or
#'   `NULL` (the default) for the median heuristic on the training objects.
#' @param pairwise `FALSE` (the default): `dissimilarity` takes vectors of
#'   objects and returns a matrix; `TRUE`: it takes two single objects and
#'   returns one number.
#' @returns A `krein_kernel` object of name `"dissimilarity"`.
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}.
#' @family kernels
#' @seealso [kernel_from_dissimilarity()] for a dissimilarity matrix computed
#'   beforehand.
#' @examples
#' set.seed(1)
#' # two classes of strings: words over "ab" and over "cd", with typos
#' word <- function(letters) {
#'   paste(sample(c(letters, "x"), 8, TRUE, prob = c(0.45, 0.45, 0.1)), collapse = "")
#' }
#' strings <- c(replicate(15, word(c("a", "b"))), replicate(15, word(c("c", "d"))))
#' y <- factor(rep(c("ab", "cd"), each = 15))
#' fit <- kqd(strings, y, kernel = kernel_dissimilarity(adist), variant = "RC+")
#' fit
#' predict(fit, c("abbaabab", "cdcdxdcc"))
#' # the same kernel on the strings themselves
#' kernel_matrix(kernel_dissimilarity(adist, gamma = 0.1), strings[1:3])
#' # tune the width of the Gaussian
#' tuned <- tune_krein(kqd, strings, y, kernel = kernel_dissimilarity(adist),
#'                     grid = list(gamma = c(0.01, 0.1, 1)), folds = 3)
#' tuned$best
#' @export
kernel_dissimilarity <- function(dissimilarity, method = c("gaussian", "negsq", "classical"), gamma = NULL,
                                 pairwise = FALSE) {
  if (missing(dissimilarity)) {
    krein_abort("`dissimilarity` is missing; give a function of two vectors of objects returning their dissimilarity matrix, e.g. adist.")
  }
  if (!is.function(dissimilarity)) {
    krein_abort(sprintf("`dissimilarity` must be a function, e.g. adist, not %s.", describe_value(dissimilarity)))
  }
  method <- match_choice(method, "method", c("gaussian", "negsq", "classical"))
  pairwise <- check_flag(pairwise, "pairwise")
  if (!is.null(gamma)) {
    gamma <- check_number(gamma, "gamma", lower = 0)
    if (method != "gaussian") {
      krein_abort(sprintf("`gamma` is the width of `method = \"gaussian\"`; method \"%s\" takes none.", method))
    }
  }
  formula <- switch(method,
    gaussian = "exp(-gamma d(x, x')^2)",
    negsq = "-(d(x, x') / mean d)^2",
    classical = "-1/2 J D^2 J (classical scaling)")
  new_krein_kernel("dissimilarity", if (method == "gaussian") list(gamma = gamma) else list(),
                   paste0("dissimilarity (", method, ")"), formula,
                   if (method == "negsq") FALSE else NA,
                   fun = dissimilarity, method = method, pairwise = pairwise)
}

# The kernels that can compare objects: R functions, kernlab kernels (which
# fail where they cannot, e.g. a numeric kernlab kernel on strings) and
# dissimilarity kernels. krein's built-in kernels need coordinates.
check_object_kernel <- function(kernel, objects, arg = "x") {
  if (kernel$name %in% c("function", "kernlab", "dissimilarity")) return(invisible(kernel))
  krein_abort(sprintf(
    "`kernel` %s works on numeric coordinates, but `%s` is %s. Give a kernel for such objects: a kernlab string kernel (e.g. kernlab::stringdot()), a function(a, b) of two objects returning one number, or kernel_dissimilarity() with a dissimilarity function such as adist.",
    if (identical(kernel$name, "discriminant") || identical(kernel$name, "invariant")) kernel$label else
      paste0(kernel_call_text(kernel)), arg, describe_objects(objects)))
}

#' Does converting the values of new objects need every training object?
#' (classical scaling centres on all of them)
#' @noRd
object_kernel_needs_all <- function(kernel) {
  identical(kernel$name, "dissimilarity") && identical(kernel$method, "classical")
}

#' The dissimilarity matrix of objects `a` against `b`, checked
#' @noRd
object_dissimilarities <- function(kernel, a, b) {
  fun <- kernel$fun
  shape <- c(length(a), length(b))
  D <- tryCatch(
    if (kernel$pairwise) {
      out <- matrix(0, shape[1], shape[2])
      for (j in seq_len(shape[2])) for (i in seq_len(shape[1])) {
        v <- fun(a[[i]], b[[j]])
        if (!(is.numeric(v) || is.logical(v)) || length(v) != 1L) {
          krein_abort(sprintf("The dissimilarity function must return one number for two objects (`pairwise = TRUE`); for objects %d and %d it returned %s.",
                              i, j, describe_value(v)))
        }
        out[i, j] <- v
      }
      out
    } else {
      fun(a, b)
    },
    error = function(e) {
      if (inherits(e, "krein_error")) stop(e)
      krein_abort(sprintf("The dissimilarity function failed on the objects: %s", conditionMessage(e)),
                  class = "krein_user_function_error")
    })
  if (is.data.frame(D)) D <- as.matrix(D)
  if (!is.matrix(D) || !(is.numeric(D) || is.logical(D)) || !identical(dim(D), as.integer(shape))) {
    krein_abort(sprintf("The dissimilarity function must return a %d x %d numeric matrix for %d and %d objects, not %s.%s",
                        shape[1], shape[2], shape[1], shape[2], describe_value(D),
                        if (!kernel$pairwise && length(D) == 1L) " For a function of two single objects, use kernel_dissimilarity(..., pairwise = TRUE)." else ""))
  }
  storage.mode(D) <- "double"
  bad <- which(!is.finite(D) | D < 0, arr.ind = TRUE)
  if (nrow(bad)) {
    v <- D[bad[1, , drop = FALSE]]
    krein_abort(sprintf("The dissimilarity function must return non-negative finite numbers; it returned %s for objects %d and %d (%d such value%s).",
                        format(v), bad[1, 1], bad[1, 2], nrow(bad), if (nrow(bad) > 1) "s" else ""))
  }
  dimnames(D) <- NULL
  D
}

#' The kernlab kernel on objects (`b = NULL`: the symmetric training matrix)
#' @noRd
kernlab_object_matrix <- function(kern, a, b = NULL) {
  K <- tryCatch(
    kernlab::kernelMatrix(kern, as.list(a), if (!is.null(b)) as.list(b)),
    error = function(e) {
      krein_abort(sprintf("The kernlab kernel %s failed on the objects: %s", class(kern)[1], conditionMessage(e)),
                  class = "krein_user_function_error")
    })
  K <- matrix(as.numeric(K), length(a), if (is.null(b)) length(a) else length(b))
  check_object_kernel_values(K)
}

#' An R function of two objects, pair by pair (`b = NULL`: the symmetric
#' training matrix, symmetrised)
#' @noRd
function_object_matrix <- function(fun, a, b = NULL) {
  symmetric <- is.null(b)
  if (symmetric) b <- a
  K <- matrix(0, length(a), length(b))
  i <- j <- NA_integer_
  tryCatch(
    for (j in seq_along(b)) {
      for (i in seq_along(a)) {
        v <- fun(a[[i]], b[[j]])
        if (!(is.numeric(v) || is.logical(v)) || length(v) != 1L || !is.finite(v)) {
          krein_abort(sprintf("`kernel` must return one finite number for two objects; for objects %d and %d it returned %s.",
                              i, j, describe_value(v)))
        }
        K[i, j] <- v
      }
    },
    error = function(e) {
      if (inherits(e, "krein_error")) stop(e)
      krein_abort(sprintf("The kernel function failed on objects %d and %d: %s", i, j, conditionMessage(e)),
                  class = "krein_user_function_error")
    })
  if (symmetric) K <- symmetrise_function_kernel(K, "objects")
  K
}

check_object_kernel_values <- function(K) {
  if (any(!is.finite(K))) krein_abort("`kernel` gave NA or infinite values on the objects.")
  K
}

#' The training kernel of objects and the kernel completed from them (the
#' width and conversion of a dissimilarity kernel)
#' @noRd
train_object_kernel <- function(kernel, objects) {
  if (identical(kernel$name, "dissimilarity")) {
    D <- object_dissimilarities(kernel, objects, objects)
    converted <- dissimilarity_kernel_from_matrix(kernel, D)
    return(list(kernel = converted$kernel, K = converted$K))
  }
  K <- switch(kernel$name,
    kernlab = kernlab_object_matrix(kernel$kern, objects),
    "function" = function_object_matrix(kernel$fun, objects))
  if (asymmetry(K) > symmetry_tolerance()) {
    krein_abort("`kernel` is not symmetric on the training objects: k(a, b) differs from k(b, a).")
  }
  list(kernel = kernel, K = (K + t(K)) / 2)
}

#' Convert the training dissimilarities of a dissimilarity kernel; the
#' kernel keeps the conversion (and the width it took) for new objects
#' @noRd
dissimilarity_kernel_from_matrix <- function(kernel, D) {
  if (asymmetry(D) > symmetry_tolerance()) {
    message("The dissimilarities of the training objects are not symmetric; using (D + t(D)) / 2.")
    D <- (D + t(D)) / 2
  }
  converted <- tryCatch(
    kernel_from_dissimilarity(D, kernel$method, gamma = kernel$params$gamma),
    krein_error = function(e) {
      message <- conditionMessage(e)
      krein_abort(if (grepl("`D`", message, fixed = TRUE)) {
        sprintf("The dissimilarities of the training objects cannot be converted: %s",
                sub("`D`", "their matrix", message, fixed = TRUE))
      } else {
        sub("^The dissimilarities", "The dissimilarities of the training objects", message)
      })
    })
  kernel$converter <- dissimilarity_converter(converted)
  if (kernel$method == "gaussian") kernel$params$gamma <- converted$gamma
  list(kernel = kernel, K = unname(converted$K), self = unname(converted$self))
}

#' The kernel of new objects against training objects, and the new objects'
#' self-similarities
#' @noRd
object_test_kernel <- function(kernel, new, train, arg = "newdata") {
  check_object_kernel(kernel, new, arg)
  if (identical(kernel$name, "dissimilarity")) {
    return(convert_dissimilarities(kernel$converter, object_dissimilarities(kernel, new, train)))
  }
  if (identical(kernel$name, "kernlab")) {
    K <- kernlab_object_matrix(kernel$kern, new, train)
    self <- vapply(seq_along(new), function(i) kernlab_object_matrix(kernel$kern, new[i], new[i])[1, 1], numeric(1))
  } else {
    K <- function_object_matrix(kernel$fun, new, train)
    self <- vapply(seq_along(new), function(i) function_object_matrix(kernel$fun, new[i], new[i])[1, 1], numeric(1))
  }
  list(K = K, self = self)
}

#' kernel_matrix() on objects: the training kernel of `x`, or the kernel of
#' `x` (the training objects, from which the kernel takes its parameters)
#' against `y`
#' @noRd
object_kernel_matrix <- function(kernel, x, y = NULL) {
  check_objects(x, "x")
  check_object_kernel(kernel, x, "x")
  if (any(is_missing_object(x))) {
    krein_abort(sprintf("`x` has missing objects at position%s %s.", if (sum(is_missing_object(x)) > 1) "s" else "",
                        format_indices(which(is_missing_object(x)))))
  }
  trained <- train_object_kernel(kernel, x)
  if (is.null(y)) {
    K <- trained$K
    if (!is.null(names(x))) dimnames(K) <- list(names(x), names(x))
    return(K)
  }
  if (!is_object_data(y)) {
    krein_abort(sprintf("`y` must be objects like `x` (a character vector or a list), not %s.", describe_value(y)))
  }
  check_objects(y, "y")
  if (any(is_missing_object(y))) {
    krein_abort(sprintf("`y` has missing objects at position%s %s.", if (sum(is_missing_object(y)) > 1) "s" else "",
                        format_indices(which(is_missing_object(y)))))
  }
  K <- t(object_test_kernel(trained$kernel, y, x, "y")$K)
  if (!is.null(names(x)) || !is.null(names(y))) dimnames(K) <- list(names(x), names(y))
  K
}

# ---- tune_krein() on objects (called from R/tune.R) ------------------------

#' What every fold of a tuning on objects slices: the dissimilarities of all
#' objects (dissimilarity kernels, whose width and conversion then vary per
#' fold and grid point at no new cost) or their kernel matrix (kernels
#' without tunable parameters)
#' @noRd
object_tuning_cache <- function(kernel, objects) {
  check_object_kernel(kernel, objects, "x")
  if (identical(kernel$name, "dissimilarity")) {
    return(list(D = object_dissimilarities(kernel, objects, objects)))
  }
  list(K = train_object_kernel(kernel, objects)$K)
}

#' A fold's training and held-out kernels from the cache, as a fit on the
#' fold's training objects alone would compute them (the median width and
#' the conversion from the training objects)
#' @noRd
object_fold_data <- function(cache, kernel, train, test) {
  fold <- if (!is.null(cache$D)) {
    converted <- dissimilarity_kernel_from_matrix(kernel, cache$D[train, train, drop = FALSE])
    held_out <- convert_dissimilarities(converted$kernel$converter, cache$D[test, train, drop = FALSE])
    list(train = precomputed_kernel(converted$K, self = converted$self),
         test = precomputed_kernel(held_out$K, self = held_out$self))
  } else {
    self <- diag(cache$K)
    list(train = precomputed_kernel(cache$K[train, train, drop = FALSE], self = self[train]),
         test = precomputed_kernel(cache$K[test, train, drop = FALSE], self = self[test]))
  }
  list(inputs = function() fold, kernel = function() fold)
}

#' NULL if a kernel without a built-in constructor accepts `value` for
#' `parameter` (a dissimilarity kernel's `gamma`), else the message
#' @noRd
probe_object_kernel_parameter <- function(kernel, parameter, value) {
  if (!identical(kernel$name, "dissimilarity")) return(NULL)
  args <- list(kernel$fun, method = kernel$method, pairwise = kernel$pairwise)
  args[parameter] <- list(value)
  tryCatch({
    do.call(kernel_dissimilarity, args)
    NULL
  }, krein_error = function(e) conditionMessage(e))
}

#' The refit's call of a dissimilarity kernel: the user's expression with
#' the tuned width written in
#' @noRd
dissimilarity_kernel_call <- function(kernel, expr) {
  if (!is.call(expr)) return(expr)
  expr$gamma <- kernel$params$gamma
  expr
}
