# User-facing validation. Every check a user can trip lives here as a
# `check_*()` helper; each one signals a condition of class `krein_error`
# whose message names the argument and says what was wrong with it.

#' Signal a krein error
#'
#' @param message The message, already formatted.
#' @param class Extra condition classes, most specific first.
#' @param call The call to report (the user's call, not an internal helper's).
#' @noRd
krein_abort <- function(message, class = NULL, call = NULL) {
  cond <- structure(
    class = c(class, "krein_error", "error", "condition"),
    list(message = message, call = call)
  )
  stop(cond)
}

#' Signal a krein warning (numerical trouble that does not stop the work)
#' @noRd
krein_warn <- function(message, class = NULL, call = NULL) {
  cond <- structure(
    class = c(class, "krein_warning", "warning", "condition"),
    list(message = message, call = call)
  )
  warning(cond)
}

#' The kernel argument of a function that always needs one (the models on
#' the features themselves pass `kernel = NULL` to the input path, so the
#' input path cannot refuse NULL for everybody)
#' @noRd
check_kernel_argument <- function(kernel, x) {
  if (inherits(x, "krein_precomputed") || identical(kernel, "precomputed")) return(invisible())
  as_krein_kernel(kernel)
  invisible()
}

#' Run the numerical core, turning its C++ exceptions into krein errors
#'
#' The core throws std::invalid_argument or std::runtime_error (a LAPACK
#' routine that failed after its fallbacks, a factorisation that did not
#' succeed); Rcpp hands them to R as plain errors of class `C++Error`. They
#' reach users as `krein_numerical_error`s saying what was being computed.
#' Errors of R code pass unchanged, so a defect in krein's R code still shows
#' as one.
#' @param what What was being computed, e.g. "kqd()".
#' @noRd
with_core_errors <- function(what, expr) {
  tryCatch(expr, "C++Error" = function(e) {
    krein_abort(sprintf("%s failed in krein's numerical core: %s", what, conditionMessage(e)),
                class = "krein_numerical_error")
  })
}

#' A short rendering of a user's value for error messages
#' @noRd
describe_value <- function(x) {
  if (is.null(x)) return("NULL")
  if (is.function(x)) return("a function")
  if (inherits(x, "formula")) {
    return(sprintf("the %s formula %s", if (length(x) == 2L) "one-sided" else "two-sided",
                   paste(deparse(x, width.cutoff = 500L), collapse = " ")))
  }
  if (is.language(x)) return(sprintf("the expression %s", paste(deparse(x, width.cutoff = 500L), collapse = " ")))
  if (is.environment(x)) return("an environment")
  if (is.data.frame(x)) return(sprintf("a data frame with %d rows and %d columns", nrow(x), ncol(x)))
  if (is.matrix(x)) return(sprintf("a %d x %d %s matrix", nrow(x), ncol(x), typeof(x)))
  if (is.array(x)) return(sprintf("a %s %s array", paste(dim(x), collapse = " x "), typeof(x)))
  if (is.list(x)) return(sprintf("a list of length %d", length(x)))
  if (!is.atomic(x)) return(sprintf("an object of class %s", class(x)[1]))
  # a factor is not the character vector its labels make
  if (is.factor(x)) {
    if (length(x) == 0L) return("an empty factor")
    return(if (length(x) == 1L) sprintf("the factor \"%s\"", as.character(x)) else
      sprintf("a factor of length %d", length(x)))
  }
  # a vector with a class (Date, POSIXct, difftime, integer64) is what its
  # class says, not the doubles that store it
  if (is.object(x)) {
    kind <- class(x)[1]
    if (length(x) == 0L) return(sprintf("an empty %s vector", kind))
    if (length(x) == 1L) return(sprintf("the %s %s", kind, format(x)))
    return(with_article(sprintf("%s vector of length %d", kind, length(x))))
  }
  if (length(x) == 0L) return(sprintf("an empty %s vector", typeof(x)))
  if (length(x) == 1L) {
    if (is.character(x)) return(sprintf("\"%s\"", x))
    if (is.numeric(x) || is.logical(x)) return(format(x, digits = 7))
    return(sprintf("an object of class %s", class(x)[1]))
  }
  # what is wrong with a vector of the right type and length is its values
  flaw <- if (anyNA(x)) " with missing values (NA)" else if (is.numeric(x) && any(is.infinite(x))) " with infinite values" else ""
  with_article(sprintf("%s vector of length %d%s", typeof(x), length(x), flaw))
}

#' "a" or "an" before a phrase ("an integer vector", "a double vector")
#' @noRd
with_article <- function(phrase) {
  paste(if (grepl("^[aeiou]", phrase)) "an" else "a", phrase)
}

#' The `...` of a function that takes no (more) arguments must be empty: an
#' error naming what was given, instead of base R's "unused argument"
#' @param name The function's name.
#' @param dots `list(...)`.
#' @param allowed Its arguments, for the message.
#' @param aliases Names users may try, mapped to the argument they mean.
#' @noRd
check_no_more_arguments <- function(name, dots, allowed = character(), aliases = character()) {
  if (length(dots) == 0L) return(invisible())
  arg_names <- names(dots) %||% rep("", length(dots))
  if (!length(allowed)) {
    krein_abort(sprintf("%s() takes no arguments; %d %s given.", name, length(dots),
                        if (length(dots) > 1) "were" else "was"),
                class = "krein_argument_error")
  }
  if (any(!nzchar(arg_names))) {
    unnamed <- sum(!nzchar(arg_names))
    krein_abort(sprintf("%s() takes at most %d arguments (%s); %d more %s given.", name, length(allowed),
                        paste0("`", allowed, "`", collapse = ", "), unnamed, if (unnamed > 1) "were" else "was"),
                class = "krein_argument_error")
  }
  check_model_arguments(dots, allowed, name, aliases = aliases)
}

#' One positive (or non-negative) finite number
#' @noRd
check_number <- function(x, arg, lower = -Inf, upper = Inf, allow_lower = FALSE,
                         integer = FALSE, call = NULL) {
  ok <- is.numeric(x) && length(x) == 1L && !is.na(x) && is.finite(x)
  if (ok && integer) ok <- abs(x - round(x)) < 1e-8
  # a whole number beyond R's integers would become NA in as.integer()
  if (ok && integer && abs(x) > .Machine$integer.max) {
    krein_abort(sprintf("`%s` must be a whole number of at most %d, not %s.", arg,
                        .Machine$integer.max, format_number(x)), call = call)
  }
  if (!ok) {
    krein_abort(sprintf("`%s` must be %s, not %s.", arg, finite_word(integer),
                        describe_value(x)), call = call)
  }
  if (x < lower || (x == lower && !allow_lower) || x > upper) {
    krein_abort(sprintf("`%s` must be %s, not %s.", arg,
                        range_phrase(lower, upper, allow_lower), format_number(x)),
                call = call)
  }
  invisible(if (integer) as.integer(round(x)) else as.double(x))
}

# A number as an error message shows it: seven significant digits, or as
# many more as it takes to tell it from a bound it is compared with
# (1.0000001e15 is not "1e+15", 1 + 1e-12 not "1").
format_number <- function(x) {
  for (digits in 7:17) {
    text <- format(x, digits = digits)
    if (identical(as.numeric(text), as.numeric(x))) return(text)
  }
  text
}

# What check_number() asks for: "a whole number" (finite by being whole) or
# "a finite number".
finite_word <- function(integer) if (integer) "a whole number" else "a finite number"

range_phrase <- function(lower, upper, allow_lower) {
  if (lower == 0 && is.infinite(upper)) {
    return(if (allow_lower) "non-negative" else "positive")
  }
  lo <- if (is.finite(lower)) sprintf("%s %s", if (allow_lower) ">=" else ">", format(lower)) else NULL
  hi <- if (is.finite(upper)) sprintf("<= %s", format(upper)) else NULL
  paste(c(lo, hi), collapse = " and ")
}

#' A numeric vector of positive finite numbers
#' @noRd
check_positive_vector <- function(x, arg, call = NULL) {
  if (!is.numeric(x) || length(x) == 0L || anyNA(x) || any(!is.finite(x))) {
    krein_abort(sprintf("`%s` must be a vector of finite positive numbers, not %s.", arg,
                        describe_value(x)), call = call)
  }
  if (any(x <= 0)) {
    bad <- which(x <= 0)
    krein_abort(sprintf("`%s` must be positive; element%s %s %s not.", arg,
                        if (length(bad) > 1) "s" else "", format_indices(bad),
                        if (length(bad) > 1) "are" else "is"), call = call)
  }
  invisible(as.double(x))
}

#' A single string from a fixed set
#' @noRd
check_choice <- function(x, arg, choices, call = NULL) {
  if (!is.character(x) || length(x) != 1L || is.na(x) || !(x %in% choices)) {
    krein_abort(sprintf("`%s` must be one of %s, not %s.", arg,
                        paste0("\"", choices, "\"", collapse = ", "), describe_value(x)),
                call = call)
  }
  invisible(x)
}

#' TRUE or FALSE
#' @noRd
check_flag <- function(x, arg, call = NULL) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    krein_abort(sprintf("`%s` must be TRUE or FALSE, not %s.", arg, describe_value(x)),
                call = call)
  }
  invisible(x)
}

#' Render indices for messages: "3, 7 and 9" or "3, 7, 9, ... (12 in all)"
#' @noRd
format_indices <- function(idx, max_show = 5L) {
  idx <- as.character(idx)
  if (length(idx) == 1L) return(idx)
  if (length(idx) > max_show) {
    return(sprintf("%s, ... (%d in all)", paste(head(idx, max_show), collapse = ", "),
                   length(idx)))
  }
  paste(paste(idx[-length(idx)], collapse = ", "), "and", idx[length(idx)])
}

#' A numeric matrix from a matrix, a data frame of numeric columns or a vector
#'
#' Returns the matrix as double; says nothing yet about NA or Inf. Data frames
#' must have only numeric (or logical) columns; the formula interface is the
#' way to dummy-code factors.
#' @noRd
as_numeric_matrix <- function(x, arg, call = NULL, allow_vector = TRUE) {
  if (inherits(x, "integer64")) x <- exact_integer64(x, sprintf("`%s`", arg), call)
  if (is.data.frame(x)) {
    x <- exact_integer64_columns(x, sprintf("`%s`", arg), call)
    numeric_cols <- vapply(x, function(col) is.numeric(col) || is.logical(col), logical(1))
    if (!all(numeric_cols)) {
      bad <- names(x)[!numeric_cols]
      krein_abort(sprintf(
        "`%s` must have only numeric columns; %s %s %s not numeric. Use the formula interface to dummy-code factors.",
        arg, if (length(bad) > 1) "columns" else "column", format_indices(paste0("`", bad, "`")),
        if (length(bad) > 1) "are" else "is"), call = call)
    }
    x <- as.matrix(x)
  }
  if ((is.numeric(x) || is.logical(x)) && is.null(dim(x)) && allow_vector) {
    x <- matrix(x, ncol = 1L, dimnames = list(names(x), NULL))
  }
  if (!(is.matrix(x) && (is.numeric(x) || is.logical(x)))) {
    krein_abort(sprintf("`%s` must be a numeric matrix or a data frame of numeric columns, not %s.",
                        arg, describe_value(x)), call = call)
  }
  if (nrow(x) == 0L || ncol(x) == 0L) {
    krein_abort(sprintf("`%s` must have at least one row and one column, not %d x %d.",
                        arg, nrow(x), ncol(x)), call = call)
  }
  storage.mode(x) <- "double"
  x
}

#' A numeric matrix of finite values (no NA, NaN or Inf)
#' @noRd
check_numeric_matrix <- function(x, arg, call = NULL, allow_vector = TRUE) {
  x <- as_numeric_matrix(x, arg, call = call, allow_vector = allow_vector)
  check_finite_matrix(x, arg, call = call)
  x
}

#' No Inf (NA may be left for `na.action` to deal with)
#' @noRd
check_no_infinite <- function(x, arg, call = NULL) {
  # a finite sum has no Inf (nor NA) to find: one pass and no n x p logical
  # matrix, which took 3% of a tune_krein() run of small fits. Doubles only:
  # an integer sum can overflow to NA with a warning (and integers have no Inf)
  if (is.double(x) && is.finite(sum(x))) return(invisible(x))
  bad <- is.infinite(x)
  if (any(bad)) {
    rows <- which(rowSums(bad) > 0)
    krein_abort(sprintf("`%s` has infinite values in row%s %s.", arg,
                        if (length(rows) > 1) "s" else "", format_indices(rows)), call = call)
  }
  invisible(x)
}

#' No NA, NaN or Inf; the message names the first offending rows
#' @noRd
check_finite_matrix <- function(x, arg, call = NULL) {
  if (anyNA(x)) {
    rows <- which(rowSums(is.na(x)) > 0)
    krein_abort(sprintf("`%s` has missing values (NA) in row%s %s.", arg,
                        if (length(rows) > 1) "s" else "", format_indices(rows)), call = call)
  }
  check_no_infinite(x, arg, call = call)
}

#' A square symmetric numeric matrix (a training kernel or dissimilarity)
#'
#' Symmetry is tested relative to the largest absolute entry.
#' @noRd
check_square_matrix <- function(x, arg, call = NULL) {
  if (is.data.frame(x)) x <- as.matrix(x)
  if (!is.matrix(x) || !(is.numeric(x) || is.logical(x))) {
    krein_abort(sprintf("`%s` must be a square numeric matrix, not %s.", arg, describe_value(x)),
                call = call)
  }
  if (nrow(x) != ncol(x) || nrow(x) == 0L) {
    krein_abort(sprintf("`%s` must be a square matrix, not %d x %d.", arg, nrow(x), ncol(x)),
                call = call)
  }
  storage.mode(x) <- "double"
  check_finite_matrix(x, arg, call = call)
  x
}

#' Relative asymmetry of a square matrix: max |A - A'| / max |A|
#' @noRd
asymmetry <- function(x) {
  scale <- max(abs(x))
  if (scale == 0) return(0)
  max(abs(x - t(x))) / scale
}

#' Tolerance used to decide that a matrix is symmetric
#' @noRd
symmetry_tolerance <- function() 100 * .Machine$double.eps

check_symmetric_matrix <- function(x, arg, call = NULL) {
  x <- check_square_matrix(x, arg, call = call)
  a <- asymmetry(x)
  if (a > symmetry_tolerance()) {
    krein_abort(sprintf(
      "`%s` must be symmetric; its largest asymmetry |K[i, j] - K[j, i]| is %s of its largest entry.",
      arg, format(a, digits = 3)), call = call)
  }
  x
}

#' Number of threads to use: the argument, else the option, else all cores
#' (2 under a check that limits cores, see check_thread_cap())
#'
#' A whole number >= 0 (0: OpenMP's default, every core or OMP_NUM_THREADS),
#' capped at the processors available to the process: more threads than
#' processors only add overhead, and a huge count (1e6) makes OpenMP exhaust
#' memory and stacks and crash R.
#' @noRd
check_threads <- function(threads, call = NULL) {
  arg <- "threads"
  if (is.null(threads)) {
    threads <- getOption("krein.threads", check_thread_cap() %||% 0L)
    arg <- "options(krein.threads)"
  }
  ok <- is.numeric(threads) && length(threads) == 1L && !is.na(threads) && is.finite(threads) &&
    threads >= 0 && threads == round(threads)
  if (!ok) {
    krein_abort(sprintf("`%s` must be a whole number >= 0 (0 uses every core), not %s.", arg,
                        describe_value(threads)), call = call)
  }
  as.integer(min(threads, max(1L, cpp_processor_count())))
}

#' Two increasing finite numbers (an interval)
#' @noRd
check_range <- function(x, arg, call = NULL) {
  if (!is.numeric(x) || length(x) != 2L || anyNA(x) || any(!is.finite(x)) || x[1] >= x[2]) {
    krein_abort(sprintf("`%s` must be two increasing finite numbers, not %s.", arg,
                        if (is.numeric(x) && length(x) == 2L)
                          sprintf("c(%s)", paste(vapply(x, format, "", digits = 7), collapse = ", "))
                        else describe_value(x)),
                call = call)
  }
  as.double(x)
}

#' The thread cap of a package check: 2 where `_R_CHECK_LIMIT_CORES_` is set
#' (to anything but "false"), as `R CMD check --as-cran` and CRAN's check
#' machines set it (CRAN's policy: at most two cores); NULL otherwise.
#' @noRd
check_thread_cap <- function() {
  limit <- Sys.getenv("_R_CHECK_LIMIT_CORES_", "")
  if (nzchar(limit) && !identical(tolower(limit), "false")) 2L else NULL
}

#' integer64 columns (package bit64, in which DBI and data.table::fread()
#' return large integers) keep a 64-bit integer's bits in a double, which
#' as.matrix() and model.frame() read as a tiny double (a negative value as
#' NaN, NA as 0). Each such column becomes the doubles it stands for, exactly,
#' or an error naming it (`what`, e.g. "`data`"): values of magnitude 2^53 or
#' more, which a double cannot hold exactly, or no bit64 to read them.
#' @noRd
exact_integer64_columns <- function(data, what, call = NULL) {
  wide <- vapply(data, inherits, logical(1), what = "integer64")
  for (name in names(data)[wide]) {
    data[[name]] <- exact_integer64(data[[name]], sprintf("%s (column `%s`)", what, name), call)
  }
  data
}

exact_integer64 <- function(values, what, call = NULL) {
  if (!requireNamespace("bit64", quietly = TRUE)) {
    krein_abort(sprintf("%s is an integer64 vector (package bit64), which krein reads with bit64: install it with install.packages(\"bit64\"), or convert the column with as.numeric() first.",
                        what), call = call)
  }
  # as.double() dispatches to bit64's method once its namespace is loaded
  doubles <- suppressWarnings(as.double(values))  # bit64 warns of lost precision: said below
  inexact <- which(!is.na(doubles) & abs(doubles) >= 2^53)
  if (length(inexact)) {
    krein_abort(sprintf("%s holds integers of magnitude 2^53 or more (row%s %s), which a double cannot hold exactly; these look like identifiers, not measurements: leave the column out, or rescale it.",
                        what, if (length(inexact) > 1) "s" else "", format_indices(inexact)), call = call)
  }
  attributes(doubles) <- NULL
  stats::setNames(doubles, names(values))
}
