# krein's one parallel map, for the folds of tune_krein() and the chunks of
# krein_chunks(), and its thread policy.

#' Map `.f` over `.x` on the user's future plan where future.apply is
#' installed (else lapply()), the results in order.
#'
#' Threads: each task runs with `task_threads(.threads)` threads, set as its
#' krein.threads option and OpenMP's default (with_task_threads()), so that
#' krein's code inside it takes them wherever its `threads` is NULL: the
#' count the user gave (`.threads`, a model's or tune_krein()'s argument as
#' given), else the cores shared out among the plan's workers, so that a
#' multisession plan of 4 workers on 8 cores runs 2 threads in each, not 8.
#'
#' Seeds: `.seed = TRUE` gives each task its own random stream (future's
#' L'Ecuyer-CMRG streams from the caller's seed); `.seed = NULL` is for tasks
#' that draw no random numbers. Either way the caller's random state is left
#' as it was. future announces an error in one task with a "Canceling all
#' iterations" notice before the error itself; krein's errors say all, so the
#' notice is muffled.
#' @noRd
future_map <- function(.x, .f, ..., .threads = NULL, .seed = NULL) {
  count <- task_threads(.threads)
  saved <- get_random_state()
  on.exit(set_random_state(saved), add = TRUE)
  task <- function(element, ...) with_task_threads(count, .f(element, ...))
  # lapply() where future.apply would run the tasks in this process anyway
  # and they draw no random numbers: the same results without its per-call
  # search for globals, which was 90% of a pass of Ny-PCVM over 60 rows in
  # chunks (one pass per EM iteration)
  if (!requireNamespace("future.apply", quietly = TRUE) || (is.null(.seed) && sequential_plan())) {
    return(lapply(.x, task, ...))
  }
  without_cancel_notice(future.apply::future_lapply(.x, task, ..., future.seed = .seed, future.packages = "krein"))
}

#' Whether the user's future plan runs tasks one after another in this
#' process (future's default)
#' @noRd
sequential_plan <- function() inherits(future::plan(), "sequential")

#' The threads of each task of future_map(): the user's count where given,
#' else the cores (krein.threads' default, see check_threads()) divided among
#' the plan's workers, at least one
#' @noRd
task_threads <- function(threads = NULL) {
  if (!is.null(threads)) return(check_threads(threads))
  cores <- check_threads(NULL)
  if (cores == 0L) cores <- max(1L, cpp_processor_count())
  workers <- if (requireNamespace("future", quietly = TRUE)) future::nbrOfWorkers() else 1L
  as.integer(max(1L, cores %/% max(1L, workers)))
}

#' Evaluate `expr` with krein.threads and OpenMP's default set to `threads`,
#' both restored afterwards
#' @noRd
with_task_threads <- function(threads, expr) {
  old <- options(krein.threads = threads)
  old_omp <- cpp_set_omp_threads(threads)
  on.exit({
    options(old)
    cpp_set_omp_threads(old_omp)
  })
  expr
}

#' future (>= 1.80) announces an error in one element of a map with a
#' message "Caught <class>. Canceling all iterations ..." (older versions: a
#' warning) before it re-signals the error. krein's error names the chunk or
#' the task and says all: the announcement is muffled, so that the user sees
#' one error.
#' @noRd
without_cancel_notice <- function(expr) {
  is_notice <- function(condition) grepl("^Caught [^ ]+\\. Canceling all iterations", conditionMessage(condition))
  withCallingHandlers(expr,
    message = function(m) if (is_notice(m)) invokeRestart("muffleMessage"),
    warning = function(w) if (is_notice(w)) invokeRestart("muffleWarning"))
}

krein_state <- new.env(parent = emptyenv())

get_random_state <- function() {
  if (exists(".Random.seed", envir = globalenv(), inherits = FALSE)) get(".Random.seed", envir = globalenv()) else NULL
}

set_random_state <- function(state) {
  if (is.null(state)) {
    if (exists(".Random.seed", envir = globalenv(), inherits = FALSE)) rm(".Random.seed", envir = globalenv())
  } else {
    assign(".Random.seed", state, envir = globalenv())
  }
}
