# Data in chunks: krein_chunks(), a source of row blocks that a fit or
# predict() reads one chunk at a time (a list, CSV files, DBI queries, with
# `connect` on the workers, or a function), its print method, and the reading
# of a chunk where its task runs, with errors that name the chunk.

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

# A CSV chunk, read whole or refused: fread() stops at a ragged or blank line
# and returns the rows before it with only a warning of its own, which names
# no file; that warning is an error here, naming the chunk's file and giving
# fread's account of the line. (read.csv() fills a short row with NA, which
# the fit then refuses as missing values in the chunk.)
read_csv_chunk <- function(file, task = NULL) {
  label <- if (is.null(task)) sprintf("The file `%s`", basename(file)) else
    sprintf("%s of `x`", chunk_label(task, capital = TRUE))
  if (requireNamespace("data.table", quietly = TRUE)) {
    return(withCallingHandlers(
      data.table::fread(file, data.table = FALSE, showProgress = FALSE),
      warning = function(w) {
        krein_abort(sprintf("%s was not read whole: %s Fix the file (or split it) and try again.",
                            label, trimws(sub(" ?Consider fill=TRUE[^.]*[.]", "", conditionMessage(w)))),
                    class = "krein_chunk_error")
      }))
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
  data <- if (!is.null(task$file)) read_csv_chunk(task$file, task) else if (!is.null(task$query)) read_query_chunk(task) else task$data
  if (is.matrix(data)) {
    if (is.null(colnames(data))) colnames(data) <- paste0("V", seq_len(ncol(data)))
    data <- as.data.frame(data, stringsAsFactors = FALSE)
  }
  if (!is.data.frame(data)) {
    krein_abort(sprintf("%s of `x` is not a matrix or data frame but %s.", chunk_label(task, capital = TRUE), describe_value(data)))
  }
  exact_integer64_columns(data, sprintf("%s of `x`", chunk_label(task, capital = TRUE)))
}
