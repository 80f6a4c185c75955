# Kernels: the constructors (validated here, evaluated in C++ by
# inst/include/krein/kernels.hpp), as_krein_kernel() for anything accepted as
# a kernel (a krein kernel, an R function of two vectors, a kernlab kernel),
# print() and how a kernel is written, and the parameters a kernel takes from
# the training data (median_gamma(), resolve_kernel()).

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
#'     the default kernel of [isvm()], [krein_svm()] and [pcvm()].
#'
#'   Ignored when `gamma` is given. Where krein chooses the Nystroem form of
#'   [ikfd()], [kqd()], [kmdc()] or [ikpca_qd()] for large data, it tries
#'   narrower multiples of the heuristic's width too ([krein_forms], "The
#'   width of an automatic Nystroem form").
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
                        arg, format_number(value)))
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

#' How the user would write this kernel: "kernel_poly(degree = 0.5, scale = 1, offset = 0)"
#' @noRd
kernel_call_text <- function(kernel) {
  if (identical(kernel$name, "invariant")) {
    return(sprintf("kernel_invariant(%s)", kernel_call_text(kernel$base)))
  }
  sprintf("kernel_%s(%s)", kernel$name, kernel_parameter_text(kernel))
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
