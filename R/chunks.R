# Data in chunks: a source of row blocks (krein_chunks()), the passes a
# Nystroem fit makes over it, and predict() on it. Everything a Nystroem fit
# needs of the rows is a sum over rows (the per-class QR factors of the
# landmark kernel, merged by cpp_merge_factors(), as the in-memory fits
# already do block by block), so a fit is a map over the chunks (future.apply
# when installed, so any future::plan() runs it) and a reduce in the main
# process.

#' Data in chunks, for fits over data that do not fit in memory
#'
#' A source of training (or new) data read one chunk of rows at a time.
#' The Nystroem fits [ikfd()], [kqd()] and [pcvm()] with `landmarks`, and
#' [kfda()] with `reduce = "subset"`, take one as `x`:
#' every pass over the data is a map over the chunks (run with
#' [future.apply::future_lapply()] when future.apply is installed, so the
#' chunks are processed on whatever [future::plan()] is set: sequential,
#' multisession, a cluster, a scheduler) and a reduce of small per-chunk
#' summaries in the main process. [predict()][predict.krein_model()] takes
#' one as `newdata` and returns the predictions of all chunks in chunk order
#' (without row names), or writes them chunk by chunk (its `output`),
#' reading one chunk at a time in the main process; the response column of a
#' training source is ignored there.
#'
#' @section Sources:
#' * a **list** of matrices or data frames: each element is a chunk; with a
#'   parallel plan, each is shipped to the worker that processes it.
#' * a **character vector of CSV files**: one chunk per file, read where it
#'   is processed (on the worker) with `data.table::fread()` when data.table
#'   is installed, else [utils::read.csv()]. The files must be readable by
#'   the workers (a shared file system for a cluster).
#' * **`connect` and `query`** (a database read on the workers): `connect` is
#'   a function of no arguments returning a DBI connection, e.g.
#'   `function() DBI::dbConnect(RSQLite::SQLite(), "board.sqlite")`. Each
#'   chunk is one query, run on the worker that processes it through its own
#'   connection (opened and closed there): give `query` as one query per
#'   chunk (e.g. `WHERE part = 1`, `WHERE part = 2`, ...), or as one query
#'   with an `ORDER BY`, which is read in pages of `page_rows` rows by
#'   appending `LIMIT` / `OFFSET` (its rows are counted once, when the source
#'   is made). A connection object cannot be sent to another process: it
#'   holds a handle (a socket, an open file, a pointer into a driver's
#'   memory) that is valid only in the process that opened it, so a worker
#'   must open its own; hence a function. It is sent to the workers with its
#'   environment, so it must find everything it uses there: write the
#'   database's name or credentials' source into it, or make it where they
#'   are defined (e.g. inside a function or `local()`), not from variables
#'   of the global environment, which do not travel. An in-memory database
#'   (`":memory:"`) belongs to one connection and cannot be shared: use a
#'   database file or server.
#' * a **DBI connection** with `query`: the result of the query, fetched in
#'   pages of `page_rows` rows ([DBI::dbSendQuery()], [DBI::dbFetch()]). The
#'   connection cannot cross processes, so the pages are read in the main
#'   process, and processed there one after another, whatever the plan;
#'   every pass re-sends the query (it must return the same rows in the same
#'   order, so give it an `ORDER BY`). For parallel work, use `connect`.
#' * a **function** `f(i)` returning chunk `i` (a matrix or data frame) and
#'   `NULL` after the last one. A fit reads the data several times (see
#'   Passes), so the function must be able to give chunk `i` again; it is
#'   called in the main process, in order, chunk after chunk.
#'
#' @section Columns and response:
#' Every chunk must have the same columns (by name), of the same types
#' (numbers -- integer or double --, logical, character or factor) and, for
#' factors, the same levels as the first chunk; a chunk that differs is an
#' error naming it and the column. Missing values are an error naming the
#' chunk and its rows. The response is a column named by `y`, or the
#' left-hand side of a formula `y`, whose right-hand side gives the
#' predictors as in the formula interface ([krein_inputs]): factor and
#' character predictors are dummy-coded, a character column's levels being
#' all its values over all chunks (sorted). With a column name, all other
#' columns are the predictors and must be numeric (or logical). The class
#' labels are those of all chunks, as for data in memory.
#'
#' @section Passes:
#' A Nystroem fit over chunks reads the data three or four times: a survey
#' (the rows, the labels, the levels of character columns, and the checks
#' above), with `scale = TRUE` the column moments (counts, means and centred
#' sums of squares per chunk, merged exactly with the pairwise formula of
#' Chan, Golub and LeVeque, 1983), the per-class factors of the landmark
#' kernel, and the training scores (distances for [kqd()]).
#' `kfda(reduce = "subset")` reads it as often: its per-chunk statistics are
#' the class counts, means and triangular factors of the centred kernel data
#' against the bases. Ny-PCVM ([pcvm()]) has no finite sufficient
#' statistic and reads the data once more per EM iteration (see its page):
#' often hundreds of reads. The result equals the fit on all rows in memory
#' (to rounding), whatever the chunking and the plan. Memory: one chunk (in
#' blocks of the landmark kernel, as in memory) per worker, plus \eqn{O(n)}
#' for the labels and training scores.
#'
#' @section Landmarks and kernel parameters:
#' Landmarks can be given as a matrix (or data frame) of points in the
#' original units of the predictors (columns as the predictors; for formula
#' fits, the columns of the model matrix), or as a `krein_landmarks` object
#' from [select_landmarks()] on (part of) the data. A method name
#' (`"meb"`, `"kmeans"`, `"random"`) selects them from a sample: the rows of
#' the first chunks, up to `sample_rows` rows, scaled as the fit scales all
#' rows. Kernel parameters taken from data (`kernel_rbf(gamma = NULL)`) are
#' computed from the same sample, so they (and the fit) differ from a fit in
#' memory; give them explicitly to reproduce one.
#'
#' @param source A list of matrices or data frames, a character vector of
#'   CSV file names, a DBI connection (with `query`), or a function of the
#'   chunk index; `NULL` with `connect`.
#' @param y The response: a column name, or a formula such as
#'   `class ~ x1 + x2` or `class ~ .`. `NULL` for data to predict.
#' @param query For a DBI connection: the SQL query giving the rows. With
#'   `connect`: one query per chunk, or one query read in pages.
#' @param page_rows For a DBI connection, or one query with `connect`: the
#'   rows per chunk.
#' @param sample_rows The rows (of the first chunks) on which landmarks given
#'   by a method name, and kernel parameters taken from data, are chosen.
#' @param connect A function of no arguments returning a DBI connection, for a
#'   database read on the workers (see Sources); `NULL` otherwise.
#' @returns An object of class `krein_chunks`.
#' @references
#' Chan, T. F., Golub, G. H. and LeVeque, R. J. (1983). Algorithms for
#' computing the sample variance: analysis and recommendations. *The American
#' Statistician*, 37(3), 242-247. \doi{10.1080/00031305.1983.10483115}.
#' @family Nystroem approximation
#' @examples
#' set.seed(1)
#' d <- checkerboard(3000, size = 3)
#' chunks <- krein_chunks(split(d, rep(1:3, each = 1000)), y = "y")
#' chunks
#' landmarks <- as.matrix(d[sample(nrow(d), 100), 1:2])
#' fit <- ikfd(chunks, kernel = kernel_rbf(5), landmarks = landmarks)
#' fit
#' test <- checkerboard(1000, size = 3)
#' mean(predict(fit, krein_chunks(list(test[1:500, ], test[501:1000, ]))) != test$y)
#'
#' # a database, read in pages
#' if (requireNamespace("RSQLite", quietly = TRUE)) {
#'   con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
#'   DBI::dbWriteTable(con, "board", d)
#'   db <- krein_chunks(con, y = y ~ x1 + x2, query = "SELECT * FROM board ORDER BY rowid",
#'                      page_rows = 1000)
#'   fit_db <- ikfd(db, kernel = kernel_rbf(5), landmarks = landmarks)
#'   DBI::dbDisconnect(con)
#'
#'   # a database file, read in pages on the workers of the future plan
#'   path <- tempfile(fileext = ".sqlite")
#'   con <- DBI::dbConnect(RSQLite::SQLite(), path)
#'   DBI::dbWriteTable(con, "board", d)
#'   DBI::dbDisconnect(con)
#'   connect <- local({
#'     database <- path
#'     function() DBI::dbConnect(RSQLite::SQLite(), database)
#'   })
#'   pages <- krein_chunks(connect = connect, y = "y", page_rows = 1000,
#'                         query = "SELECT x1, x2, y FROM board ORDER BY rowid")
#'   fit_pages <- kfda(pages, kernel = kernel_rbf(5), reduce = "subset", bases = landmarks)
#'   unlink(path)
#' }
#' @export
krein_chunks <- function(source = NULL, y = NULL, query = NULL, page_rows = 1e5, sample_rows = 1e4,
                         connect = NULL) {
  if (!is.null(y) && !(is.character(y) && length(y) == 1L && !is.na(y) && nzchar(y)) &&
      !(inherits(y, "formula") && length(y) == 3L)) {
    krein_abort(sprintf("`y` must be a column name or a two-sided formula such as class ~ x1 + x2, not %s.",
                        describe_value(y)))
  }
  sample_rows <- check_number(sample_rows, "sample_rows", lower = 2, allow_lower = TRUE, integer = TRUE)
  if (!is.null(connect)) {
    if (!is.null(source)) krein_abort("Give either `source` or `connect`, not both.")
    return(chunks_from_connect(connect, y, query, page_rows, sample_rows))
  }
  if (is.null(source)) krein_abort("`source` is missing: give a list of chunks, CSV files, a DBI connection or a function.")
  if (inherits(source, "DBIConnection")) {
    if (!requireNamespace("DBI", quietly = TRUE)) krein_abort("A DBI connection as `source` needs the DBI package.")
    if (!is.character(query) || length(query) != 1L || is.na(query)) {
      krein_abort(sprintf("`query` must be an SQL query (a string) for a DBI connection, not %s.",
                          describe_value(query)))
    }
    page_rows <- check_number(page_rows, "page_rows", lower = 1, allow_lower = TRUE, integer = TRUE)
    kind <- "dbi"
    count <- NA_integer_
  } else if (!is.null(query)) {
    krein_abort("`query` is only for a DBI connection as `source`.")
  } else if (is.character(source)) {
    if (length(source) == 0L || anyNA(source)) krein_abort("`source` must name at least one file, with no missing names.")
    absent <- !file.exists(source)
    if (any(absent)) {
      krein_abort(sprintf("`source` names %s that do%s not exist: %s.", if (sum(absent) > 1) "files" else "a file",
                          if (sum(absent) > 1) "" else "es", format_indices(paste0("`", source[absent], "`"))))
    }
    kind <- "files"
    source <- normalizePath(source)
    count <- length(source)
  } else if (is.function(source)) {
    kind <- "function"
    count <- NA_integer_
  } else if (is.list(source) && !is.data.frame(source)) {
    if (length(source) == 0L) krein_abort("`source` must hold at least one chunk; it is an empty list.")
    ok <- vapply(source, function(s) is.data.frame(s) || is.matrix(s), logical(1))
    if (!all(ok)) {
      krein_abort(sprintf("`source` must be a list of matrices or data frames; element%s %s %s not.",
                          if (sum(!ok) > 1) "s" else "", format_indices(which(!ok)), if (sum(!ok) > 1) "are" else "is"))
    }
    kind <- "list"
    count <- length(source)
  } else {
    krein_abort(sprintf("`source` must be a list of matrices or data frames, a character vector of CSV files, a DBI connection or a function, not %s.",
                        describe_value(source)))
  }
  structure(list(kind = kind, source = source, response = y, query = query, page_rows = page_rows,
                 sample_rows = sample_rows, count = count),
            class = "krein_chunks")
}

# krein_chunks(connect = ): one query per chunk, run on the worker that
# processes the chunk through its own connection. A single query is paged by
# LIMIT / OFFSET, its rows counted once here (which also tries `connect`).
chunks_from_connect <- function(connect, y, query, page_rows, sample_rows) {
  if (!requireNamespace("DBI", quietly = TRUE)) krein_abort("`connect` needs the DBI package.")
  if (!is.function(connect)) {
    krein_abort(sprintf("`connect` must be a function of no arguments that returns a DBI connection, not %s.",
                        describe_value(connect)))
  }
  if (!is.character(query) || length(query) == 0L || anyNA(query) || !all(nzchar(query))) {
    krein_abort(sprintf("`query` must be SQL queries (a character vector, one query per chunk, or one query to read in pages) with `connect`, not %s.",
                        describe_value(query)))
  }
  if (length(query) == 1L) {
    page_rows <- check_number(page_rows, "page_rows", lower = 1, allow_lower = TRUE, integer = TRUE)
    con <- open_connection(connect, "krein_chunks()")
    on.exit(DBI::dbDisconnect(con), add = TRUE)
    count <- tryCatch(DBI::dbGetQuery(con, sprintf("SELECT COUNT(*) FROM (%s) AS krein_rows", query))[[1L]],
                      error = function(e) krein_abort(sprintf("`query` failed: %s", conditionMessage(e))))
    if (count == 0) krein_abort("`query` returned no rows.")
    offsets <- seq(0, count - 1, by = page_rows)
    query <- sprintf("%s LIMIT %s OFFSET %s", query, format(page_rows, scientific = FALSE),
                     format(offsets, scientific = FALSE, trim = TRUE))
  }
  structure(list(kind = "connect", source = query, connect = connect, response = y, query = query,
                 page_rows = page_rows, sample_rows = sample_rows, count = length(query)),
            class = "krein_chunks")
}

open_connection <- function(connect, where) {
  con <- tryCatch(connect(), error = function(e) {
    krein_abort(sprintf("`connect` failed in %s: %s", where, conditionMessage(e)))
  })
  if (!inherits(con, "DBIConnection")) {
    krein_abort(sprintf("`connect` must return a DBI connection; in %s it returned %s.", where, describe_value(con)))
  }
  con
}

# A chunk of krein_chunks(connect = ), read where its task runs
read_query_chunk <- function(task) {
  con <- open_connection(task$connect, chunk_label(task))
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  tryCatch(DBI::dbGetQuery(con, task$query), error = function(e) {
    krein_abort(sprintf("The query of %s failed: %s", chunk_label(task), conditionMessage(e)))
  })
}

#' @export
print.krein_chunks <- function(x, ...) {
  what <- switch(x$kind,
    list = sprintf("%d chunks in memory", x$count),
    connect = sprintf("%d SQL queries, each read through its own connection", x$count),
    files = sprintf("%d CSV files", x$count),
    dbi = sprintf("a DBI query in pages of %d rows", x$page_rows),
    "function" = "a function giving chunk i")
  cat("<Chunked data> ", what, "\n", sep = "")
  response <- x$response
  cat("  response: ", if (is.null(response)) "none" else if (is.character(response)) paste0("`", response, "`")
      else deparse1(response), "\n", sep = "")
  invisible(x)
}

# ---------------------------------------------------------------------------
# Reading

# A chunk's name in errors: "chunk 2 (`b.csv`)"
chunk_label <- function(task, capital = FALSE) {
  label <- chunk_label_text(task)
  if (capital) paste0(toupper(substr(label, 1L, 1L)), substring(label, 2L)) else label
}

chunk_label_text <- function(task) {
  if (!is.null(task$file)) return(sprintf("chunk %d (`%s`)", task$index, basename(task$file)))
  if (!is.null(task$name) && nzchar(task$name)) return(sprintf("chunk %d (\"%s\")", task$index, task$name))
  sprintf("chunk %d", task$index)
}

read_csv_chunk <- function(file) {
  if (requireNamespace("data.table", quietly = TRUE)) {
    return(data.table::fread(file, data.table = FALSE, showProgress = FALSE))
  }
  utils::read.csv(file, stringsAsFactors = FALSE)
}

# A failure of R, a package or the user's code while reading or writing a
# chunk, as a krein error that names the chunk (`what`); krein's own errors
# pass unchanged.
with_chunk_errors <- function(expr, what) {
  tryCatch(expr, error = function(e) {
    if (inherits(e, "krein_error")) stop(e)
    krein_abort(sprintf("%s: %s", what, conditionMessage(e)), class = "krein_chunk_error")
  })
}

# The data of a task, read where the task runs
task_data <- function(task) {
  if (!is.null(task$file) && !file.exists(task$file)) {
    krein_abort(sprintf("%s of `x` cannot be read: the file no longer exists (it was there when `x` was made).",
                        chunk_label(task, capital = TRUE)))
  }
  data <- if (!is.null(task$file)) read_csv_chunk(task$file) else if (!is.null(task$query)) read_query_chunk(task) else task$data
  if (is.matrix(data)) {
    if (is.null(colnames(data))) colnames(data) <- paste0("V", seq_len(ncol(data)))
    data <- as.data.frame(data, stringsAsFactors = FALSE)
  }
  if (!is.data.frame(data)) {
    krein_abort(sprintf("%s of `x` is not a matrix or data frame but %s.", chunk_label(task, capital = TRUE), describe_value(data)))
  }
  data
}

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
# The survey: columns, types, levels, labels, missing values

# A column's type as the checks compare it
column_type <- function(v) {
  if (is.factor(v)) return("factor")
  if (is.numeric(v)) return("numeric")
  if (is.logical(v)) return("logical")
  if (is.character(v)) return("character")
  class(v)[1]
}

chunk_schema <- function(data) {
  list(names = names(data), types = vapply(data, column_type, ""),
       levels = lapply(data, function(v) if (is.factor(v)) levels(v)))
}

check_chunk_schema <- function(data, schema, task) {
  if (is.null(schema)) return(invisible())
  label <- chunk_label(task, capital = TRUE)
  missing_cols <- setdiff(schema$names, names(data))
  extra <- setdiff(names(data), schema$names)
  if (length(missing_cols) || length(extra)) {
    krein_abort(sprintf("%s of `x` does not have the columns of the first chunk:%s%s.", label,
                        if (length(missing_cols)) paste0(" it lacks ", paste0("`", missing_cols, "`", collapse = ", ")) else "",
                        if (length(extra)) paste0(if (length(missing_cols)) " and" else "", " it has ",
                                                  paste0("`", extra, "`", collapse = ", "), " in addition") else ""))
  }
  for (name in schema$names) {
    type <- column_type(data[[name]])
    if (type != schema$types[[name]]) {
      krein_abort(sprintf("%s of `x` has column `%s` of type %s; in the first chunk it is %s.",
                          label, name, type, schema$types[[name]]))
    }
    if (type == "factor" && !identical(levels(data[[name]]), schema$levels[[name]])) {
      krein_abort(sprintf("%s of `x` has factor column `%s` with levels %s; in the first chunk they are %s.",
                          label, name, paste0("\"", levels(data[[name]]), "\"", collapse = ", "),
                          paste0("\"", schema$levels[[name]], "\"", collapse = ", ")))
    }
  }
  invisible()
}

# The response's variables and the predictor columns a chunk's survey looks at
chunk_columns <- function(response, names) {
  if (is.character(response)) {
    if (!response %in% names) {
      krein_abort(sprintf("`y` names the column `%s`, which the first chunk of `x` does not have; its columns are %s.",
                          response, format_indices(paste0("`", names, "`"))))
    }
    return(list(response = response, predictors = setdiff(names, response)))
  }
  terms <- stats::terms(response, data = as.data.frame(stats::setNames(rep(list(1), length(names)), names)))
  variables <- all.vars(response[[2L]])
  used <- intersect(names, all.vars(stats::delete.response(terms)))
  list(response = variables, predictors = used, terms = terms)
}

# `y ~ x1 + x2` -> `y ~ 1`: the response alone
response_only <- function(formula) {
  out <- formula
  out[[3L]] <- 1
  out
}

# One chunk's survey: its checks, rows, labels and the values of its
# character and factor predictors.
survey_chunk <- function(data, task, schema, response) {
  check_chunk_schema(data, schema, task)
  columns <- chunk_columns(response, names(data))
  used <- intersect(names(data), c(columns$response, columns$predictors))
  incomplete <- which(!stats::complete.cases(data[used]))
  if (length(incomplete)) {
    krein_abort(sprintf("%s of `x` has missing values in row%s %s; remove them from the data first.",
                        chunk_label(task, capital = TRUE), if (length(incomplete) > 1) "s" else "", format_indices(incomplete)))
  }
  y <- if (is.character(response)) data[[response]] else {
    mf <- tryCatch(stats::model.frame(response_only(response), data, na.action = stats::na.pass),
                   error = function(e) krein_abort(sprintf("The response `y` could not be evaluated in %s of `x`: %s",
                                                           chunk_label(task), conditionMessage(e))))
    stats::model.response(mf)
  }
  names(y) <- NULL
  categorical <- columns$predictors[vapply(data[columns$predictors], function(v) is.character(v) || is.factor(v), NA)]
  if (is.character(response) && length(categorical)) {
    krein_abort(sprintf("`x` has the %s column%s %s among the predictors; with `y` a column name all other columns must be numeric. Give `y` as a formula (e.g. %s ~ .) to dummy-code %s.",
                        column_type(data[[categorical[1]]]), if (length(categorical) > 1) "s" else "",
                        paste0("`", categorical, "`", collapse = ", "), response,
                        if (length(categorical) > 1) "them" else "it"))
  }
  list(y = y, values = lapply(data[categorical], function(v) unique(as.character(v))))
}

#' The survey of a chunk source: the response (a factor over all chunks,
#' chunk by chunk), the rows per chunk and the input spec, as a fit in memory
#' would build them from all rows.
#' @noRd
survey_chunks <- function(chunks) {
  response <- chunks$response
  if (is.null(response)) {
    krein_abort("`x` has no response: give krein_chunks(..., y = ) the column name or formula of the class labels.")
  }
  first <- map_chunks(chunks, function(data, task) chunk_schema(data), limit = 1)[[1L]]
  surveys <- map_chunks(chunks, survey_chunk, schema = first, response = response)
  rows <- vapply(surveys, function(s) attr(s, "rows"), numeric(1))
  labels <- do.call(c, lapply(surveys, `[[`, "y"))
  y <- as_class_factor(labels, 2L)
  columns <- chunk_columns(response, first$names)
  if (is.character(response)) {
    spec <- list(type = "xy", colnames = columns$predictors, n_columns = length(columns$predictors))
    if (length(columns$predictors) == 0L) krein_abort("`x` has no predictor columns besides the response.")
  } else {
    spec <- chunk_formula_spec(response, first, surveys, columns)
  }
  list(y = y, rows = rows, spec = spec, schema = first)
}

# The formula spec of a fit in memory on all rows: the terms, the levels of
# factor predictors (those present in some chunk, in their order) and of
# character ones (all values, sorted, as factor() makes them), the contrasts.
chunk_formula_spec <- function(formula, schema, surveys, columns) {
  categorical <- names(surveys[[1L]]$values)
  levels <- lapply(stats::setNames(categorical, categorical), function(name) {
    present <- unique(unlist(lapply(surveys, function(s) s$values[[name]]), use.names = FALSE))
    if (schema$types[[name]] == "factor") intersect(schema$levels[[name]], present) else sort(present)
  })
  single <- names(levels)[lengths(levels) < 2L]
  if (length(single)) {
    krein_abort(sprintf("`x` has the factor predictor%s %s with a single level in all chunks; a constant carries no information. Leave %s out of the formula.",
                        if (length(single) > 1) "s" else "", paste0("`", single, "`", collapse = ", "),
                        if (length(single) > 1) "them" else "it"))
  }
  # a one-row frame per level combination is enough for the terms and contrasts
  size <- max(2L, lengths(levels))
  frame <- lapply(stats::setNames(schema$names, schema$names), function(name) {
    if (name %in% categorical) factor(rep_len(levels[[name]], size), levels = levels[[name]])
    else if (schema$types[[name]] == "logical") rep(c(TRUE, FALSE), length.out = size)
    else seq_len(size) + 0
  })
  frame <- as.data.frame(frame, stringsAsFactors = FALSE)
  mf <- stats::model.frame(formula, frame, na.action = stats::na.pass)
  terms <- attr(mf, "terms")
  x <- model_matrix_without_intercept(terms, mf, NULL)
  if (ncol(x) == 0L) krein_abort("`y` must have at least one predictor on its right-hand side.")
  list(type = "formula", terms = terms, xlevels = stats::.getXlevels(terms, mf),
       contrasts = attr(x, "contrasts"), colnames = colnames(x), n_columns = ncol(x))
}

# The predictor matrix of a chunk in the spec's columns, scaled as the fit
# scales (spec$scaling; none before the scaling pass)
chunk_predictors <- function(spec, data) {
  x <- switch(spec$type,
    formula = new_formula_data(spec, data),
    xy = as_numeric_matrix(data[spec$colnames], "x"))
  check_no_infinite(x, "x")
  scale_columns(spec$scaling, x)
}

# ---------------------------------------------------------------------------
# Scaling over chunks: per chunk the count, means and centred sums of squares,
# merged with the pairwise update of Chan, Golub and LeVeque (1983):
# M2 = M2_a + M2_b + delta^2 n_a n_b / n, delta = mean_b - mean_a.
# As in column_scaling(), each column is held in units of a power of two at or
# above its largest magnitude (`size`; exact), so that the squares of tiny
# (1e-300) or huge (1e300) columns neither underflow nor overflow; two chunks
# merge in the larger of their units.

chunk_moments <- function(data, task, spec) {
  x <- chunk_predictors(spec, data)
  size <- pow2_size(apply(abs(x), 2L, max))
  z <- sweep(x, 2L, size, "/", check.margin = FALSE)
  center <- colMeans(z)
  list(n = nrow(x), size = size, mean = center, m2 = colSums(sweep(z, 2L, center, check.margin = FALSE)^2))
}

merge_moments <- function(a, b) {
  size <- pmax(a$size, b$size)
  a_mean <- a$mean * (a$size / size)
  b_mean <- b$mean * (b$size / size)
  n <- a$n + b$n
  delta <- b_mean - a_mean
  list(n = n, size = size, mean = a_mean + delta * b$n / n,
       m2 = a$m2 * (a$size / size)^2 + b$m2 * (b$size / size)^2 + delta^2 * a$n * b$n / n)
}

# column_scaling()'s result (and its message on constant columns) from moments
scaling_from_moments <- function(moments, names) {
  total <- Reduce(merge_moments, moments)
  center <- total$mean * total$size
  scale <- (if (total$n > 1) sqrt(total$m2 / (total$n - 1)) else rep(0, length(center))) * total$size
  constant <- !is.finite(scale) | scale <= 100 * .Machine$double.eps * abs(center)
  if (any(constant)) {
    message(sprintf("Constant predictor column%s %s: centred but not scaled.",
                    if (sum(constant) > 1) "s" else "", paste0("`", names[constant], "`", collapse = ", ")))
    scale[constant] <- 1
  }
  names(center) <- names(scale) <- names(constant) <- names
  list(center = center, scale = scale, constant = constant)
}

# ---------------------------------------------------------------------------
# The inputs of a chunked fit

#' The inputs of a model fit over chunks, from the request inputs_from_xy()
#' made in the model's default method: the model's registry entry says
#' whether it fits over chunks and checks its arguments (`args`, defaults
#' filled in) before the first pass.
#' @noRd
chunked_inputs <- function(info, request, args) {
  if (is.null(info$chunks)) {
    krein_abort(sprintf("`x` is data in chunks (krein_chunks()), over which %s() does not fit; the fits that do: %s. Read the data into memory for %s().",
                        info$name, chunk_model_names(), info$name))
  }
  info$chunks(args)
  inputs <- inputs_from_chunks(request$chunks, request$kernel, scale = request$scale, na.action = request$na.action)
  # the fit's `threads` as the user gave it: the passes over the chunks share
  # the cores among the workers unless it is set (map_chunks())
  inputs$threads <- args$threads
  inputs
}

# "ikfd(), kfda(), ...": the models whose registry entry says they fit over chunks
chunk_model_names <- function() {
  names <- Filter(function(name) !is.null(model_info(name)$chunks), registered_models())
  paste0(names, "()", collapse = ", ")
}

#' What the model methods get for chunked data: a `krein_inputs` with the
#' labels, the spec (scaling and resolved kernel included), no `x`, and the
#' chunk source (class `krein_chunked_inputs`; the Nystroem fits map over
#' it, see chunk_class_factors()).
#' @noRd
inputs_from_chunks <- function(chunks, kernel, scale = TRUE, na.action = NULL) {
  scale <- check_flag(scale, "scale")
  if (!is.null(na.action) && na_action_name(na.action) != "fail") {
    krein_abort("`na.action` must be left NULL for chunked data, whose rows cannot be dropped: missing values there are an error naming the chunk; remove them from the chunks first.")
  }
  survey <- survey_chunks(chunks)
  spec <- survey$spec
  rows <- survey$rows
  codes <- split(as.integer(survey$y), rep(seq_along(rows), rows))
  names(codes) <- NULL
  if (missing(kernel) || is.null(kernel)) krein_abort("`kernel` is missing; give a kernel, e.g. kernel_rbf().")
  if (identical(kernel, "precomputed") || inherits(kernel, "krein_precomputed")) {
    krein_abort("`kernel` cannot be \"precomputed\" for chunked data; give a kernel function such as kernel_rbf(1).")
  }
  kernel <- as_krein_kernel(kernel)
  # a kernel fitted on data takes its own units, whatever `scale` (input_units(), R/inputs.R)
  units <- input_units(kernel, list(), spec$n_columns)
  if (!is.null(units)) {
    spec$scaling <- units$scaling
  } else if (scale) {
    moments <- map_chunks(chunks, chunk_moments, spec = spec, per_chunk = codes)
    spec$scaling <- scaling_from_moments(moments, spec$colnames)
  }
  inputs <- structure(list(x = NULL, y = survey$y, kernel = kernel, precomputed = NULL, na_action = NULL,
                           spec = NULL, chunks = chunks, codes = codes),
                      class = c("krein_chunked_inputs", "krein_inputs"))
  sample <- NULL
  if (kernel_needs_data(kernel)) {
    sample <- chunk_sample(inputs, spec)
    kernel <- resolve_kernel(kernel, sample$x, spec$scaling)
  }
  check_kernel_dimension(kernel, spec$n_columns)
  spec$kernel <- kernel
  spec$n_train <- length(survey$y)
  spec$levels <- levels(survey$y)
  inputs$kernel <- kernel
  inputs$spec <- structure(spec, class = "krein_input_spec")
  inputs$sample <- sample
  inputs
}

kernel_needs_data <- function(kernel) {
  base <- if (inherits(kernel, "krein_kernel_invariant")) kernel$base else kernel
  (inherits(base, "krein_kernel_rbf") && is.null(base$params$gamma)) ||
    (inherits(base, "krein_kernel_rbf_diag") && is.null(base$params$scales))
}

# The rows of the first chunks, up to sample_rows, scaled: where landmark
# methods and kernel parameters from data look.
chunk_sample <- function(inputs, spec) {
  if (!is.null(inputs$sample)) return(inputs$sample)
  limit <- inputs$chunks$sample_rows
  parts <- map_chunks(inputs$chunks, function(data, task, spec) {
    list(x = chunk_predictors(spec, data), y = task$extra)
  }, spec = spec, per_chunk = inputs$codes, limit = limit, threads = inputs$threads)
  x <- do.call(rbind, lapply(parts, `[[`, "x"))
  codes <- unlist(lapply(parts, `[[`, "y"), use.names = FALSE)
  take <- seq_len(min(nrow(x), limit))
  list(x = x[take, , drop = FALSE], y = factor(levels(inputs$y)[codes[take]], levels = levels(inputs$y)))
}

#' Landmarks of a chunked fit: points (original units) or a krein_landmarks
#' with points, scaled as the fit scales; a method name selects them on the
#' sample of the first chunks.
#' @noRd
chunk_landmarks <- function(landmarks, inputs, eps, m, threads, arg = "landmarks") {
  spec <- inputs$spec
  levels <- levels(inputs$y)
  if (is.character(landmarks)) {
    method <- check_choice(landmarks, arg, c("meb", "kmeans", "random"))
    sample <- chunk_sample(inputs, spec)
    sample_inputs <- list(x = sample$x, y = droplevels(sample$y), kernel = inputs$kernel, precomputed = NULL)
    selected <- landmarks_from_inputs(sample_inputs, method = method, eps = eps, m = m, threads = threads)
    selected$class <- factor(as.character(selected$class), levels = levels)
    selected$levels <- levels
    # indices refer to the sample, not to the training rows
    selected$indices <- NULL
    selected$sample <- TRUE
    return(selected)
  }
  if (inherits(landmarks, "krein_landmarks")) {
    if (is.null(landmarks$points)) {
      krein_abort(sprintf("`%s` was selected on a precomputed kernel; a chunked fit needs points.", arg))
    }
    points <- landmarks$points
    class <- factor(as.character(landmarks$class), levels = levels)
    method <- landmarks$method
  } else if (is.matrix(landmarks) || is.data.frame(landmarks)) {
    points <- landmarks
    class <- factor(rep(NA_character_, nrow(points)), levels = levels)
    method <- "points"
  } else {
    krein_abort(sprintf("`%s` must be a matrix of landmark points, a `krein_landmarks` object or a method name (\"meb\", \"kmeans\", \"random\") for chunked data, not %s; row indices cannot point into chunks.",
                        arg, describe_value(landmarks)))
  }
  points <- check_numeric_matrix(points, arg)
  if (ncol(points) != spec$n_columns) {
    krein_abort(sprintf("`%s` must have %d columns, one per predictor column, not %d.", arg, spec$n_columns, ncol(points)))
  }
  if (!is.null(colnames(points)) && all(spec$colnames %in% colnames(points))) points <- points[, spec$colnames, drop = FALSE]
  if (nrow(points) < 1L) krein_abort(sprintf("`%s` must hold at least one point.", arg))
  points <- scale_columns(spec$scaling, points)
  dimnames(points) <- list(NULL, spec$colnames)
  structure(list(method = method, indices = NULL, points = points, class = class, n = length(inputs$y),
                 levels = levels, precomputed = FALSE),
            class = "krein_landmarks")
}

# The per-class factors of the landmark kernel of a chunk's rows, in blocks
# as the in-memory fits make them (blockwise_class_factors(), R/ikfd.R)
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
#' @noRd
chunk_class_factors <- function(inputs, landmarks, threads) {
  parts <- map_chunks(inputs$chunks, chunk_factors, spec = inputs$spec, points = landmarks$points,
                      classes = nlevels(inputs$y), per_chunk = inputs$codes, threads = inputs$threads)
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

# ---------------------------------------------------------------------------
# Methods

check_chunk_landmarks <- function(landmarks) {
  if (is.null(landmarks)) {
    krein_abort("`landmarks` is missing: a fit over chunked data is a Nystroem fit; give landmark points (a matrix), a `krein_landmarks` object or a method (\"meb\", \"kmeans\", \"random\") applied to the first chunks.")
  }
  invisible()
}

#' Predictions for a chunk source, chunk by chunk (one chunk in memory at a
#' time), in chunk order; or, with `output`, written chunk by chunk
#' (chunk_output())
#' @noRd
predict_chunks <- function(object, chunks, type, extra, output = NULL) {
  write <- chunk_output(output)
  spec <- object$spec
  parts <- map_chunks_sequential(chunks, function(data, task) {
    if (spec$type == "xy" && !is.null(spec$colnames) && all(spec$colnames %in% names(data))) {
      data <- data[spec$colnames]
    }
    new <- new_inputs(spec, data)
    predictions <- model_predictions(object, new, type, extra)
    if (is.null(write)) predictions else write(predictions, task$index)
  })
  if (!is.null(write)) {
    if (is.function(output)) return(invisible(NULL))
    return(vapply(parts, function(file) as.vector(file), ""))
  }
  if (type == "class" || is.factor(parts[[1L]])) {
    out <- unlist(lapply(parts, as.character), use.names = FALSE)
    return(factor(out, levels = object$levels))
  }
  out <- do.call(rbind, lapply(parts, function(p) { attr(p, "rows") <- NULL; p }))
  rownames(out) <- NULL
  out
}

# predict(output = ): NULL, a file name pattern with one integer field (one
# CSV per chunk; the writer returns the file name) or a function(predictions,
# chunk) (the writer returns NA: map_chunks() marks each result with its rows).
chunk_output <- function(output) {
  if (is.null(output)) return(NULL)
  if (is.function(output)) {
    if (length(formals(output)) < 2L && !"..." %in% names(formals(output))) {
      krein_abort("`output` as a function must take two arguments, the predictions of a chunk and its number.")
    }
    return(function(predictions, index) {
      with_chunk_errors(output(predictions, index), sprintf("`output` failed on the predictions of chunk %d", index))
      NA_character_
    })
  }
  fields <- if (is.character(output) && length(output) == 1L && !is.na(output)) {
    regmatches(output, gregexpr("%[-+ 0#]*[0-9]*[a-zA-Z%]", output))[[1L]]
  }
  if (is.null(fields) || sum(fields != "%%") != 1L || !any(grepl("^%[-+ 0#]*[0-9]*d$", fields))) {
    krein_abort(sprintf("`output` must be NULL, a function(predictions, chunk) or a file name pattern with one integer field such as \"pred-%%03d.csv\", not %s.",
                        describe_value(output)))
  }
  folder <- dirname(sprintf(output, 1L))
  if (!dir.exists(folder)) {
    krein_abort(sprintf("`output` writes into the folder `%s`, which does not exist; create it first.", folder))
  }
  function(predictions, index) {
    file <- sprintf(output, index)
    table <- if (is.factor(predictions)) data.frame(class = as.character(predictions)) else
      as.data.frame(predictions, optional = TRUE)
    with_chunk_errors(
      if (requireNamespace("data.table", quietly = TRUE)) data.table::fwrite(table, file) else
        utils::write.csv(table, file, row.names = FALSE),
      sprintf("Writing the predictions of chunk %d to `%s` (`output`) failed", index, file))
    file
  }
}

# map_chunks() in the main process, in order: prediction keeps one chunk in
# memory at a time
map_chunks_sequential <- function(chunks, fun) {
  if (chunks$kind %in% c("list", "files", "connect")) {
    return(lapply(seq_len(chunks$count), function(i) run_chunk_task(chunk_task(chunks, i, NULL), fun)))
  }
  map_chunks(chunks, fun)
}

# ---------------------------------------------------------------------------
# kfda(reduce = "subset") over chunks: Lee and Mangasarian's reduced set as
# Huang, Hwang and Lin (2005, Sec. 4.2) use it. Everything the in-memory fit
# needs of the n x m kernel data K(x, B) is, per class, the count, the mean
# and the triangular factor of the centred rows (cpp_kfda_class_factors(),
# as gaussian_classes() computes them); these merge exactly over blocks and
# chunks, and give the column means and standard deviations of K as well.

check_chunk_reduce <- function(reduce) {
  reduce <- match_choice(reduce, "reduce", c("pca", "subset", "ridge"))
  if (!identical(reduce, "subset")) {
    krein_abort(sprintf("`reduce` must be \"subset\" for chunked data, not \"%s\"%s: the \"pca\" and \"ridge\" reductions need all n kernel columns. Give `reduce = \"subset\"`, or read the data into memory.",
                        reduce, if (reduce == "pca") " (the default)" else ""))
  }
  invisible()
}

# The class moments of rows A and B from those of A and of B: counts add,
# means by the pairwise update of Chan, Golub and LeVeque (1983), and the
# centred factor of the union is the factor of [R_A; R_B; sqrt(n_A n_B / n)
# (m_B - m_A)'] (the centred scatter of the union is S_A + S_B + n_A n_B / n
# dd'), so the scatter itself is never formed.
merge_class_moments <- function(a, b) {
  n <- a$counts + b$counts
  means <- a$means
  factors <- a$factors
  for (j in seq_along(n)) {
    if (b$counts[j] == 0) next
    if (a$counts[j] == 0) {
      means[, j] <- b$means[, j]
      factors[[j]] <- b$factors[[j]]
      next
    }
    delta <- b$means[, j] - a$means[, j]
    means[, j] <- a$means[, j] + delta * b$counts[j] / n[j]
    factors[[j]] <- cpp_triangular_factor(rbind(a$factors[[j]], b$factors[[j]],
                                                sqrt(a$counts[j] * b$counts[j] / n[j]) * delta))
  }
  list(means = means, factors = factors, counts = n)
}

# The bases of a chunked "subset" fit: points (a matrix or a krein_landmarks
# with points, in original units), or a number / share of the training rows
# drawn with R's RNG from the sample of the first chunks (chunk_sample()).
chunk_bases <- function(bases, inputs, discriminant, counts) {
  if (is.matrix(bases) || is.data.frame(bases) || inherits(bases, "krein_landmarks")) {
    return(chunk_landmarks(bases, inputs, NULL, NULL, 1L, arg = "bases"))
  }
  if (!is.null(bases) && (!is.numeric(bases) || length(bases) != 1L || is.na(bases) || bases <= 0)) {
    krein_abort(sprintf("`bases` must be a number of bases, a share of the training points in (0, 1) or a matrix of points for chunked data, not %s; row indices cannot point into chunks.",
                        describe_value(bases)))
  }
  n <- length(inputs$y)
  m <- if (is.null(bases)) {
    default <- min(ceiling(n / 10), 500)
    if (discriminant == "quadratic") default <- min(default, floor(min(counts) / 4))
    max(1L, default)
  } else if (bases < 1) {
    max(1L, round(bases * n))
  } else {
    check_number(bases, "bases", lower = 1, allow_lower = TRUE, integer = TRUE)
  }
  sample <- chunk_sample(inputs, inputs$spec)
  if (m > nrow(sample$x)) {
    krein_abort(sprintf("`bases` asks for %d bases, more than the %d rows of the sample of the first chunks they are drawn from; raise krein_chunks(sample_rows = ) or ask for fewer.",
                        m, nrow(sample$x)))
  }
  drawn <- sort(sample.int(nrow(sample$x), m))
  structure(list(method = "random", indices = NULL, points = sample$x[drawn, , drop = FALSE],
                 class = sample$y[drawn], n = n, levels = levels(inputs$y), precomputed = FALSE, sample = TRUE),
            class = "krein_landmarks")
}

#' kfda_subset() over chunks: one pass for the class moments of K(x, B), then
#' the reduction kfda_fit() takes (the moments of the centred and scaled
#' kernel data in place of Z) and, in `training(fit)`, a second pass for the
#' training decisions and Fisher coordinates.
#' @noRd
kfda_subset_chunks <- function(inputs, bases, discriminant, counts, threads) {
  landmarks <- chunk_bases(bases, inputs, discriminant, counts)
  classes <- nlevels(inputs$y)
  moments_of <- function(C, self, codes) cpp_kfda_class_factors(C, codes, classes, check_threads(NULL))
  moments <- map_landmark_kernel(inputs, landmarks, bare_function(moments_of, classes = classes),
                                 combine = merge_class_moments)
  each_block <- function(fun) map_landmark_kernel(inputs, landmarks, fun)
  c(kfda_moments_reduction(moments, length(inputs$y), each_block),
    list(points = landmarks$points, class = landmarks$class, bases = NULL))
}

# ---------------------------------------------------------------------------
# Ny-PCVM over chunks. EM for PCVM (Chen, Tino and Yao 2009) needs at every
# iteration the expected latent values of all training points, which depend
# on the current weights: no finite sufficient statistic, so each iteration
# is one pass over the chunks. The EMs of all pairs of classes run in
# lockstep so that one pass serves every pair still running (one pass per
# pair would read the data k(k - 1) / 2 times per iteration for k classes);
# a pair that has converged or lost every basis function leaves the later
# passes. With Phi_A = C_A D (C the landmark kernel of the pair's rows, D the
# landmark signs), a pass returns for each pair Phi'(Z - b 1) (as C'(Z - b 1)
# over the pair's landmarks), sum(Z), the rows with y f <= 0 and, for the
# "latent" convergence rule, |f_t - f_{t-1}|^2 and |f_{t-1}|^2;
# Phi_A'Phi_A = D R_A'R_A D and 1'C come from one first pass (the per-class
# factors R of [C, 1] of chunk_class_factors(), merged over the pair's two
# classes). The E-step, the moments and the M-step are the core's
# (pcvm.hpp: pass_moments(), step_moments(), prune_weights(), which the fit
# in memory runs too); here is only the loop over the chunks and the
# iterations.

# The moments of one block of rows for each pair of `tasks` (the pairs still
# running: classes `pair`, landmark `columns`, coefficients `current` (a over
# its landmarks, b), for the convergence test the `previous` ones and, in
# the first pass, the columns of `extra` with the start latent values of the
# rows of its first and second class, `start`): the core's E-step and
# moments (pcvm.hpp's pass_moments()). `extra` holds the rows' class codes
# and, in the first pass, their start latent values.
pcvm_block_statistics <- function(C, self, extra, tasks, e_step) {
  storage.mode(extra) <- "double"  # the class codes come as integers
  cpp_pcvm_pass_moments(C, extra, tasks, list(e_step = e_step))
}

add_statistics <- function(a, b) Map(`+`, a, b)

add_pair_statistics <- function(a, b) Map(add_statistics, a, b)

#' The basis pcvm_fit() uses over chunks: the landmark classes and points,
#' `em(problems, control)` (EM for every pair of classes, given as
#' pcvm_pair_problem() results, in lockstep, one pass over the chunks per
#' iteration; a list of results as cpp_pcvm_fit()'s, with
#' `training_errors` and `hessian_fallbacks`) and `latent(models)` (the
#' training latent values, one more pass).
#' @noRd
chunk_pcvm_basis <- function(inputs, landmarks, threads) {
  if (anyNA(landmarks$class)) {
    krein_abort("`landmarks` must carry their classes for Ny-PCVM over chunks (its basis functions are signed by them): give a select_landmarks() result or a method name (\"meb\", \"kmeans\", \"random\"), not bare points.")
  }
  factors <- chunk_class_factors(inputs, landmarks, threads)
  m <- length(landmarks$class)
  codes <- inputs$codes
  em <- function(problems, control) {
    e_step <- control$e_step %||% "exact"
    latent_rule <- control$convergence == "latent"
    states <- lapply(problems, function(problem) {
      pair <- problem$pair
      columns <- problem$columns
      # R with R'R = [C, 1]'[C, 1] over the pair's rows
      R <- cpp_triangular_factor(rbind(factors[[pair[1L]]], factors[[pair[2L]]]))
      list(pair = pair, columns = columns, column_signs = problem$column_signs,
           sums = drop(crossprod(R[, seq_len(m), drop = FALSE], R[, m + 1L]))[columns],  # 1'C
           R = R[, columns, drop = FALSE], n = length(problem$signs),
           start = 1L + c(pair[2L] - 1L, pair[1L]),  # see start_latent below
           w = problem$start$weights, b = problem$start$bias, current = NULL, previous = NULL,
           running = TRUE, iterations = 0L, converged = FALSE, all_pruned = FALSE,
           training_errors = numeric(control$max_iter), hessian_fallbacks = 0L)
    })
    # The start latent values for the first pass. A row is in k - 1 pairs,
    # one with each other class: column j holds its start in the pair with
    # the j-th other class (pair (a, b), a < b as combn() gives them: column
    # b - 1 for the rows of a, column a for those of b), so the pass carries
    # (k - 1) n values, not one column per pair.
    start_latent <- matrix(NA_real_, length(inputs$y), nlevels(inputs$y) - 1L)
    for (problem in problems) {
      first <- problem$signs > 0
      start_latent[problem$rows[first], problem$pair[2L] - 1L] <- problem$start$latent[first]
      start_latent[problem$rows[!first], problem$pair[1L]] <- problem$start$latent[!first]
    }
    chunk_of <- rep(seq_along(codes), lengths(codes))
    first_extra <- lapply(seq_along(codes), function(i) cbind(codes[[i]], start_latent[chunk_of == i, , drop = FALSE]))
    later_extra <- lapply(codes, function(v) cbind(v))
    rm(start_latent, chunk_of)
    coefficients_of <- function(state) {
      a <- numeric(length(state$columns))
      on <- state$w > 0
      a[on] <- state$column_signs[on] * state$w[on]
      list(a = a, b = state$b)
    }
    # one pass over the chunks for the pairs `live`: their statistics, in
    # order; f_{t-1} is computed only where the "latent" test reads it (`test`)
    pass <- function(live, first, test) {
      tasks <- lapply(states[live], function(state) {
        list(pair = state$pair, columns = state$columns, current = state$current,
             previous = if (test) state$previous, start = if (first) state$start)
      })
      fun <- bare_function(function(C, self, extra) pcvm_block_statistics(C, self, extra, tasks, e_step),
                           tasks = tasks, e_step = e_step)
      map_landmark_kernel(inputs, landmarks, fun, combine = add_pair_statistics,
                          per_chunk = if (first) first_extra else later_extra)
    }
    settled <- function(statistics) sqrt(statistics$change) <= control$tol * sqrt(statistics$size)
    # a pair's iteration from its pass's statistics (pcvm.hpp's fit() and
    # step_factored())
    advance <- function(state, statistics, iteration) {
      # the "latent" test of the previous iteration (pcvm.hpp's fit(): after
      # iteration t > 1, f_t against f_{t-1}), known only now
      if (latent_rule && iteration > 2L && settled(statistics)) {
        state$converged <- TRUE
        state$running <- FALSE
        return(state)
      }
      state$iterations <- iteration
      state$training_errors[iteration] <- statistics$errors / state$n
      # the core's M-step from the pass's moments (pcvm.hpp's step_moments(),
      # the same as for data in memory) and its pruning
      step <- cpp_pcvm_moment_step(state$R, state$column_signs, state$sums, state$w, state$b, statistics$g,
                                   statistics$latent_sum, state$n, control$prune)
      state$hessian_fallbacks <- state$hessian_fallbacks + step$hessian_fallback
      state$previous <- state$current
      state$b <- step$bias
      state$w <- step$weights
      if (!any(step$weights > 0)) {
        state$all_pruned <- TRUE
        state$running <- FALSE
      } else if (!latent_rule && iteration > 1L && step$change < control$tol) {
        state$converged <- TRUE
        state$running <- FALSE
      }
      state
    }
    running <- function() which(vapply(states, `[[`, logical(1), "running"))
    for (iteration in seq_len(control$max_iter)) {
      live <- running()
      if (!length(live)) break
      for (p in live) states[[p]]$current <- coefficients_of(states[[p]])
      statistics <- pass(live, first = iteration == 1L, test = latent_rule && iteration > 2L)
      for (k in seq_along(live)) states[[live[k]]] <- advance(states[[live[k]]], statistics[[k]], iteration)
    }
    # the "latent" test after the last iteration needs one more pass, for
    # the pairs that ran to max_iter
    live <- running()
    if (latent_rule && control$max_iter > 1L && length(live)) {
      for (p in live) states[[p]]$current <- coefficients_of(states[[p]])
      statistics <- pass(live, first = FALSE, test = TRUE)
      for (k in seq_along(live)) states[[live[k]]]$converged <- settled(statistics[[k]])
    }
    lapply(states, function(state) {
      list(weights = state$w, bias = state$b, iterations = state$iterations, converged = state$converged,
           all_pruned = state$all_pruned, training_errors = state$training_errors[seq_len(state$iterations)],
           hessian_fallbacks = state$hessian_fallbacks)
    })
  }
  latent <- function(models) {
    score <- function(C, self, codes) pcvm_pair_latent(models, function(model) C, nrow(C))
    blocks <- map_landmark_kernel(inputs, landmarks, bare_function(score, models = models))
    do.call(rbind, blocks)
  }
  list(classes = landmarks$class, points = landmarks$points, em = em, latent = latent)
}
