# Kernels on objects without coordinates -- strings, sequences, point sets:
# kernel_dissimilarity(), the kernel matrices of kernlab kernels and R
# functions on objects, the conversion of dissimilarities, and what
# tune_krein() computes once and slices per fold.

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

# ---- tune_krein() on objects (called from R/tune.R and R/tune_grid.R) ----

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
