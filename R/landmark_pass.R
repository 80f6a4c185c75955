# The passes of the Nystroem fits over the landmark kernel of their rows, in
# blocks: the per-class QR factors of [C, 1] (blockwise_class_factors()), the
# core's landmark pass where it applies (landmark_pass_*()), the rows per
# block, and the landmark kernel K(L, L) and its columns K(rows, L).

# The row-block pass of the Nystroem fits: the landmark kernel C of the rows
# in blocks of nystrom_block_rows() rows, each reduced to the per-class QR
# factors of [C, 1] (cpp_class_factors()) and merged (cpp_merge_factors()).
# `columns(rows)` gives the C of rows `rows` (of `m` landmarks). The
# blocks are kept for a second pass when all of them fit in 128 MB; `block(b)`
# gives block b's rows and C, kept or recomputed.
blockwise_class_factors <- function(codes, classes, m, columns, threads,
                                    keep = as.double(length(codes)) * m <= 2^24) {
  n <- length(codes)
  block_rows <- nystrom_block_rows(m)
  starts <- seq(1L, n, by = block_rows)
  rows_of <- function(b) starts[b]:min(n, starts[b] + block_rows - 1L)
  kept <- list()
  factors <- NULL
  for (b in seq_along(starts)) {
    rows <- rows_of(b)
    C <- columns(rows)
    block <- cpp_class_factors(C, codes[rows], classes, threads)
    factors <- if (is.null(factors)) block else cpp_merge_factors(factors, block)
    if (keep) kept[[b]] <- C
  }
  list(factors = factors, starts = starts,
       block = function(b) {
         rows <- rows_of(b)
         list(rows = rows, C = if (keep) kept[[b]] else columns(rows))
       })
}

# The landmark pass of the core (landmark_pass.hpp) for the coordinate
# kernels on data in memory: the landmark kernel in blocks of rows that stay
# in cache, each reduced (per-class QR factors) or applied (scores,
# distances) at once on its thread, never held whole, with no R copies. Each
# function returns NULL where the pass does not apply (the caller then takes
# the row blocks of blockwise_class_factors()); a kernel value that was not
# finite is an error naming its row and landmark, which the core reports
# (landmark_pass_checked()). The tests replace landmark_pass_applies() to
# compare the two routes.
landmark_pass_applies <- function(x, kernel, points) {
  !is.null(x) && !is.null(points) && is.double(x) && is.double(points) && is_builtin_kernel(kernel) &&
    cpp_landmark_pass_supported(kernel)
}

# Rows per block of the landmark pass: about 2 MB of kernel values per
# thread, or the option krein.block_rows.
landmark_pass_block_rows <- function(m) {
  if (!is.null(getOption("krein.block_rows"))) return(nystrom_block_rows(m))
  max(256L, as.integer(2^18 %/% m))
}

# A result of the core's landmark pass over the rows of `x`, or the error
# for the first kernel value that was not finite, at the row and landmark
# the core reports (attribute krein_nonfinite)
landmark_pass_checked <- function(result, kernel, x, points) {
  at <- attr(result, "krein_nonfinite", exact = TRUE)
  if (is.null(at)) return(result)
  largest <- max(abs(range(x)), abs(range(points)))
  krein_abort(sprintf("%s gave a non-finite value at row %d of the points and landmark %d (largest |x| = %s): %s.",
                      kernel_call_text(kernel), as.integer(at[1]), as.integer(at[2]), format(largest, digits = 3),
                      nonfinite_kernel_hint(kernel, TRUE)))
}

# per-class factors of the rows x of class codes `codes` (1..classes)
landmark_pass_class_factors <- function(x, kernel, points, codes, classes, threads) {
  if (!landmark_pass_applies(x, kernel, points)) return(NULL)
  landmark_pass_checked(cpp_landmark_class_factors(kernel, x, points, codes, classes,
                                                   landmark_pass_block_rows(nrow(points)), threads),
                        kernel, x, points)
}

# The landmark pass for the new points of a Nystroem fit (prediction), where
# it applies to the new points' coordinates and the fit has no spectrum
# correction (whose kernel rows of new points go through every training
# point, R/spectrum.R). So the n_new x m landmark kernel is never held either.
landmark_pass_applies_new <- function(object, new, points) {
  is.null(object$spec$spectrum) && landmark_pass_applies(new$x, object$spec$kernel, points)
}

landmark_pass_scores <- function(inputs, landmarks, coefficients, threads) {
  if (!landmark_pass_applies(inputs$x, inputs$kernel, landmarks$points)) return(NULL)
  landmark_pass_checked(cpp_landmark_scores(inputs$kernel, inputs$x, landmarks$points, coefficients,
                                            landmark_pass_block_rows(nrow(landmarks$points)), threads),
                        inputs$kernel, inputs$x, landmarks$points)
}

# Rows of the landmark kernel per block: about 32 MB of doubles, or the
# option krein.block_rows (documented in ?ikfd).
nystrom_block_rows <- function(m) {
  rows <- getOption("krein.block_rows")
  if (is.null(rows)) return(max(1000L, as.integer(2^22 %/% m)))
  check_number(rows, "options(krein.block_rows)", lower = 1, allow_lower = TRUE, integer = TRUE)
}

# K(L, L) and K(rows, L) for data or precomputed fits
landmark_kernel <- function(inputs, landmarks, threads) {
  if (is.null(inputs$x) && is.null(landmarks$points)) {
    W <- inputs$precomputed$K[landmarks$indices, landmarks$indices, drop = FALSE]
  } else {
    W <- evaluate_kernel(inputs$kernel, landmarks$points, NULL, threads)
  }
  (W + t(W)) / 2
}

landmark_columns <- function(inputs, landmarks, rows, threads) {
  if (is.null(inputs$x)) return(inputs$precomputed$K[rows, landmarks$indices, drop = FALSE])
  evaluate_kernel(inputs$kernel, inputs$x[rows, , drop = FALSE], landmarks$points, threads)
}

# ---------------------------------------------------------------------------
# One pass over one row source. Every Nystroem fit reads its training rows'
# landmark kernel C = K(rows, L) through these functions, whatever holds the
# rows: data in chunks (map_chunks(), R/chunk_map.R), or data in memory --
# through the core's landmark pass for the coordinate kernels, else in
# blocks of rows in R (blockwise_class_factors()). The model files have one
# path each; which route a fit took is this file's business.

#' The first pass: the per-class triangular factors of `[C_c, 1]` of the
#' training rows. Returns `factors` and, for the second pass
#' (landmark_blocks(), landmark_scores()), what the route keeps: the R
#' blocks (kept where they fit in 128 MB) or the route's name. `codes` (1 to
#' `classes`, one per training row) may group the rows otherwise than by
#' class (Ny-KQD's cross-validation: class within fold).
#' @noRd
landmark_class_factors <- function(inputs, landmarks, threads, codes = as.integer(inputs$y),
                                   classes = nlevels(inputs$y)) {
  if (inherits(inputs, "krein_chunked_inputs")) {
    return(list(factors = chunk_class_factors(inputs, landmarks, threads, codes, classes), route = "chunks"))
  }
  factors <- landmark_pass_class_factors(inputs$x, inputs$kernel, landmarks$points, codes, classes, threads)
  if (!is.null(factors)) return(list(factors = factors, route = "pass"))
  blocks <- blockwise_class_factors(codes, classes, length(landmarks$class),
                                    function(rows) landmark_columns(inputs, landmarks, rows, threads), threads)
  list(factors = blocks$factors, route = "blocks", blocks = blocks)
}

#' A second pass in blocks of rows: `fun(C, self, codes)` on each block of
#' the training rows' landmark kernel (`self`, with `need_self`, their
#' k(x, x); `codes`, their class codes, or with `per_row` (a vector or a
#' matrix, one element or row per training row) the block's part of it),
#' the results in row order, or with `combine(a, b)` their fold. `fun` takes
#' its threads by check_threads(NULL): on the workers a chunk's task's share
#' (map_landmark_kernel()), in this process `threads`. Data in memory: the
#' blocks the first pass kept (`pass`), else blocks of nystrom_block_rows()
#' rows.
#' @noRd
landmark_blocks <- function(inputs, landmarks, fun, threads, pass = NULL, need_self = FALSE, combine = NULL,
                            per_row = NULL) {
  part <- function(rows) if (is.matrix(per_row)) per_row[rows, , drop = FALSE] else per_row[rows]
  if (inherits(inputs, "krein_chunked_inputs")) {
    per_chunk <- inputs$codes
    if (!is.null(per_row)) {
      sizes <- lengths(inputs$codes)
      per_chunk <- lapply(seq_along(sizes), function(i) part(sum(sizes[seq_len(i - 1L)]) + seq_len(sizes[i])))
    }
    return(map_landmark_kernel(inputs, landmarks, fun, need_self = need_self, combine = combine,
                               per_chunk = per_chunk))
  }
  codes <- as.integer(inputs$y)
  blocks <- pass$blocks
  if (is.null(blocks)) {
    n <- length(codes)
    block_rows <- nystrom_block_rows(length(landmarks$class))
    starts <- seq(1L, n, by = block_rows)
    blocks <- list(starts = starts, block = function(b) {
      rows <- starts[b]:min(n, starts[b] + block_rows - 1L)
      list(rows = rows, C = landmark_columns(inputs, landmarks, rows, threads))
    })
  }
  parts <- list()
  folded <- NULL
  with_task_threads(threads, for (b in seq_along(blocks$starts)) {
    block <- blocks$block(b)
    value <- fun(block$C, if (need_self) training_self_similarity(inputs, block$rows),
                 if (is.null(per_row)) codes[block$rows] else part(block$rows))
    if (is.null(combine)) parts[[b]] <- value else folded <- if (is.null(folded)) value else combine(folded, value)
  })
  if (is.null(combine)) parts else folded
}

#' The training rows' landmark kernel times `coefficients` (n x k): the
#' core's landmark pass where the first pass took it, else the blocks
#' @noRd
landmark_scores <- function(inputs, landmarks, coefficients, threads, pass = NULL) {
  if (identical(pass$route, "pass") || (is.null(pass) && !inherits(inputs, "krein_chunked_inputs"))) {
    scores <- landmark_pass_scores(inputs, landmarks, coefficients, threads)
    if (!is.null(scores)) return(scores)
  }
  score <- function(C, self, codes) C %*% coefficients
  do.call(rbind, landmark_blocks(inputs, landmarks, bare_function(score, coefficients = coefficients), threads, pass))
}

# k(x, x) of training rows `rows` (data or a precomputed kernel)
training_self_similarity <- function(inputs, rows) {
  if (is.null(inputs$x)) return(inputs$precomputed$K[cbind(rows, rows)])
  kernel_self(inputs$kernel, inputs$x[rows, , drop = FALSE])
}
