# The passes over data in chunks. Everything a Nystroem fit needs of the rows
# is a sum over rows (the per-class QR factors of the landmark kernel, merged
# by cpp_merge_factors(), as the in-memory fits do block by block), so a fit
# is a map over the chunks (map_chunks(): future.apply when installed, so any
# future::plan() runs it) and a reduce in the main process. Here are the map,
# the chunk tasks, and the map of the landmark kernel over the blocks of all
# chunks.

#' Map `fun(data, task, ...)` over the chunks, in chunk order. Lists, files
#' and queries with `connect` run through future.apply (when installed) so any
#' plan processes them; a list element travels with its task, a file or a
#' query is read on the worker. A DBI connection and function sources are read
#' and processed in the main process, in order.
#' `per_chunk`: a list with one element per chunk, given to its task as
#' `task$extra` (e.g. its class codes). `limit`: stop reading after this
#' many rows (the sample of the first chunks). `threads`: the fit's
#' `threads` as the user gave it (NULL: not given); each task runs with
#' future_map()'s share of the cores, or with those, as its krein.threads
#' option, which `fun` reads by leaving its own `threads` NULL.
#' @noRd
map_chunks <- function(chunks, fun, ..., per_chunk = NULL, limit = Inf, threads = NULL) {
  if (chunks$kind %in% c("list", "files", "connect")) {
    indices <- seq_len(chunks$count)
    if (is.finite(limit)) {
      out <- list()
      rows <- 0
      for (i in indices) {
        out[[i]] <- with_task_threads(check_threads(threads), run_chunk_task(chunk_task(chunks, i, per_chunk), fun, ...))
        rows <- rows + attr(out[[i]], "rows")
        if (rows >= limit) break
      }
      return(out)
    }
    tasks <- lapply(indices, function(i) chunk_task(chunks, i, per_chunk))
    # the map draws no random numbers, but loading packages on a fresh worker
    # may touch its RNG state: seed = NULL skips the check (and the seeding)
    # that would warn about that
    return(future_map(tasks, run_chunk_task, fun = fun, ..., .threads = threads, .seed = NULL))
  }
  # a function or a database query: read in order, in this process
  threads <- check_threads(threads)
  out <- list()
  rows <- 0
  index <- 0L
  each <- function(data) {
    index <<- index + 1L
    if (!is.null(per_chunk) && index > length(per_chunk)) {
      krein_abort(sprintf("`x` gave more chunks in this pass than the %d of the first (chunk %d is new); a source must give the same rows on every read.",
                          length(per_chunk), index))
    }
    task <- list(index = index, data = data, extra = per_chunk[[index]])
    out[[index]] <<- with_task_threads(threads, run_chunk_task(task, fun, ...))
    rows <<- rows + attr(out[[index]], "rows")
    rows < limit
  }
  if (chunks$kind == "function") {
    repeat {
      data <- with_chunk_errors(chunks$source(index + 1L), sprintf("`x`'s function failed to give chunk %d", index + 1L))
      if (is.null(data)) break
      if (!each(data)) break
    }
  } else {
    result <- with_chunk_errors(DBI::dbSendQuery(chunks$source, chunks$query),
                                sprintf("The query of `x` failed before chunk %d", index + 1L))
    on.exit(try(DBI::dbClearResult(result), silent = TRUE), add = TRUE)
    repeat {
      data <- with_chunk_errors(DBI::dbFetch(result, n = chunks$page_rows),
                                sprintf("Reading chunk %d (rows %s to %s of the query) of `x` failed", index + 1L,
                                        format(index * chunks$page_rows + 1, scientific = FALSE),
                                        format((index + 1) * chunks$page_rows, scientific = FALSE)))
      if (nrow(data) == 0L) break
      if (!each(data)) break
      if (DBI::dbHasCompleted(result)) break
    }
  }
  if (index == 0L) krein_abort("`x` gave no chunks: its source returned no rows.")
  if (!is.null(per_chunk) && is.infinite(limit) && index != length(per_chunk)) {
    krein_abort(sprintf("`x` gave %d chunks in this pass and %d in the first; a source must give the same rows on every read.",
                        index, length(per_chunk)))
  }
  out
}

chunk_task <- function(chunks, i, per_chunk) {
  task <- list(index = i, extra = per_chunk[[i]])
  if (chunks$kind == "connect") {
    task$query <- chunks$source[i]
    task$connect <- chunks$connect
  } else if (chunks$kind == "files") task$file <- chunks$source[i] else {
    task$data <- chunks$source[[i]]
    task$name <- names(chunks$source)[i]
  }
  task
}

run_chunk_task <- function(task, fun, ...) {
  data <- with_chunk_errors(task_data(task), sprintf("Reading %s of `x` failed", chunk_label(task)))
  if (nrow(data) == 0L) {
    krein_abort(sprintf("%s of `x` has no rows%s; every chunk must hold at least one row.", chunk_label(task, capital = TRUE),
                        if (!is.null(task$file)) " (the file has at most a header)" else if (!is.null(task$query)) " (its query returned none)" else ""))
  }
  if (!is.null(task$extra)) {
    first <- NROW(task$extra)
    if (nrow(data) != first) {
      krein_abort(sprintf("%s of `x` has %d rows in this pass and had %d in the first; a source must give the same rows on every read.",
                          chunk_label(task, capital = TRUE), nrow(data), first))
    }
  }
  out <- fun(data, task, ...)
  attr(out, "rows") <- nrow(data)
  out
}

# ---------------------------------------------------------------------------
# The landmark kernel over the chunks, block by block

# The per-class factors of the landmark kernel of a chunk's rows, in blocks
# as the in-memory fits make them (blockwise_class_factors(), R/landmark_pass.R)
chunk_factors <- function(data, task, spec, points, classes) {
  threads <- check_threads(NULL)  # the task's share (map_chunks())
  x <- chunk_predictors(spec, data)
  # the core's landmark pass where it applies (see landmark_pass_applies())
  factors <- landmark_pass_class_factors(x, spec$kernel, points, task$extra, classes, threads)
  if (!is.null(factors)) return(factors)
  columns <- function(rows) evaluate_kernel(spec$kernel, x[rows, , drop = FALSE], points, threads)
  blockwise_class_factors(task$extra, classes, nrow(points), columns, threads, keep = FALSE)$factors
}

#' The per-class factors of the landmark kernel over all chunks: the map
#' (chunk_factors()) and the reduce (cpp_merge_factors(), in chunk order).
#' `codes` (1 to `classes`, one per row in chunk order) may group the rows
#' otherwise than by class, as landmark_class_factors() allows.
#' @noRd
chunk_class_factors <- function(inputs, landmarks, threads, codes = NULL, classes = nlevels(inputs$y)) {
  per_chunk <- if (is.null(codes)) {
    inputs$codes
  } else {
    unname(split(codes, rep(seq_along(inputs$codes), lengths(inputs$codes))))
  }
  parts <- map_chunks(inputs$chunks, chunk_factors, spec = inputs$spec, points = landmarks$points,
                      classes = classes, per_chunk = per_chunk, threads = inputs$threads)
  factors <- NULL
  for (part in parts) {
    attr(part, "rows") <- NULL
    factors <- if (is.null(factors)) part else cpp_merge_factors(factors, part)
  }
  factors
}

# A chunk's landmark kernel and self-similarities, block by block, handed to
# `block_fun(C, self, codes)` (codes: the class codes of the block's rows,
# or the rows of a matrix of per-row values whose first column they are);
# the list of its results or, with `combine`, their fold (so that a chunk's
# sufficient statistics take the memory of one block's)
chunk_apply_landmark_kernel <- function(data, task, spec, points, block_fun, need_self, combine = NULL) {
  threads <- check_threads(NULL)  # the task's share (map_chunks())
  x <- chunk_predictors(spec, data)
  block_rows <- nystrom_block_rows(nrow(points))
  parts <- list()
  folded <- NULL
  for (start in seq(1L, nrow(x), by = block_rows)) {
    rows <- start:min(nrow(x), start + block_rows - 1L)
    xb <- x[rows, , drop = FALSE]
    value <- block_fun(evaluate_kernel(spec$kernel, xb, points, threads),
                       if (need_self) kernel_self(spec$kernel, xb),
                       if (is.matrix(task$extra)) task$extra[rows, , drop = FALSE] else task$extra[rows])
    if (is.null(combine)) parts[[length(parts) + 1L]] <- value
    else folded <- if (is.null(folded)) value else combine(folded, value)
  }
  if (is.null(combine)) parts else folded
}

#' Map `fun(C, self, codes)` over the blocks of all chunks (C: the landmark
#' kernel of a block's rows); a list of the results in row order, or with
#' `combine(a, b)` their fold in row order (within chunks on the workers,
#' then over the chunks). `fun` runs with the task's threads as its
#' krein.threads option (map_chunks()): it takes them by check_threads(NULL).
#' @noRd
map_landmark_kernel <- function(inputs, landmarks, fun, need_self = FALSE, combine = NULL,
                                per_chunk = inputs$codes) {
  parts <- map_chunks(inputs$chunks, chunk_apply_landmark_kernel, spec = inputs$spec, points = landmarks$points,
                      block_fun = fun, need_self = need_self, combine = combine,
                      per_chunk = per_chunk, threads = inputs$threads)
  parts <- lapply(parts, function(p) { attr(p, "rows") <- NULL; p })
  if (!is.null(combine)) return(Reduce(combine, parts))
  unlist(parts, recursive = FALSE)
}

# `fun` with only the named values around it (and krein's namespace above):
# a function sent to future workers carries its environment, which must not
# be a frame holding the data.
bare_function <- function(fun, ...) {
  environment(fun) <- list2env(list(...), parent = topenv())
  fun
}

# map_chunks() in the main process, in order: prediction keeps one chunk in
# memory at a time
map_chunks_sequential <- function(chunks, fun) {
  if (chunks$kind %in% c("list", "files", "connect")) {
    return(lapply(seq_len(chunks$count), function(i) run_chunk_task(chunk_task(chunks, i, NULL), fun)))
  }
  map_chunks(chunks, fun)
}
