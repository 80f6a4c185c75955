# The memory check of the full forms: before a fit allocates its first
# n x n matrix, krein estimates what the fit will hold at its peak and
# compares it with the memory the machine has (or the user's cap), so that a
# fit too large for the machine stops at once with the estimate and what to
# do, instead of after minutes of swapping or being killed by the system.

#' The bytes a full form holds at its peak on `n` training rows: `copies` n x
#' n matrices of doubles (the model's registry entry, `full_copies`)
#' @noRd
full_form_bytes <- function(n, copies) copies * 8 * as.double(n)^2

#' The memory a fit may use, in bytes: the option `krein.memory_limit` where
#' set, else 80% of the memory the system reports available (Linux's
#' MemAvailable, which counts the page cache it can free); Inf where the
#' system does not report it (the check is then the user's option alone).
#' @noRd
memory_limit <- function(meminfo = "/proc/meminfo") {
  limit <- getOption("krein.memory_limit")
  if (!is.null(limit)) {
    if (!is.numeric(limit) || length(limit) != 1L || is.na(limit) || limit <= 0) {
      krein_abort(sprintf("The option `krein.memory_limit` must be a positive number of bytes, not %s.",
                          describe_value(limit)))
    }
    return(as.double(limit))
  }
  available <- available_memory(meminfo)
  if (is.na(available)) Inf else 0.8 * available
}

#' The memory the system reports available, in bytes (Linux: MemAvailable of
#' /proc/meminfo); NA elsewhere
#' @noRd
available_memory <- function(meminfo = "/proc/meminfo") {
  if (!file.exists(meminfo)) return(NA_real_)
  lines <- tryCatch(readLines(meminfo, warn = FALSE), error = function(e) character())
  line <- grep("^MemAvailable:", lines, value = TRUE)
  if (length(line) != 1L) return(NA_real_)
  kilobytes <- suppressWarnings(as.double(gsub("[^0-9]", "", line)))
  if (is.na(kilobytes)) NA_real_ else 1024 * kilobytes
}

#' A number of bytes for a message: "80.5 GB", "512 MB"
#' @noRd
format_bytes <- function(bytes) {
  units <- c("bytes", "KB", "MB", "GB", "TB")
  power <- if (is.finite(bytes) && bytes >= 1) min(length(units) - 1, floor(log(bytes, 1024))) else 0
  sprintf("%s %s", format(signif(bytes / 1024^power, 3), big.mark = ","), units[power + 1])
}

#' Stop, before the first n x n allocation, a full form whose estimated peak
#' (full_form_bytes()) exceeds memory_limit(): the model `name`, its `n`
#' training rows and what the user can do instead (`instead`, a sentence).
#' @noRd
check_full_form_memory <- function(name, n, copies, instead) {
  needed <- full_form_bytes(n, copies)
  limit <- memory_limit()
  if (needed > limit) {
    set <- !is.null(getOption("krein.memory_limit"))
    krein_abort(sprintf(paste(
      "%s() would hold about %s for its %s training rows (its full form keeps %g n x n matrices of doubles),",
      "more than the %s krein may use (%s). %s"),
      name, format_bytes(needed), format(n, big.mark = ","), copies, format_bytes(limit),
      if (set) "options(krein.memory_limit = )" else
        "80% of the memory the system reports available; options(krein.memory_limit = ) sets another limit",
      instead), class = "krein_memory_error")
  }
  invisible(needed)
}

#' What a model's full form on data too large for memory can be replaced by
#' (every model with a full form has a scalable one: its registry's `forms`)
#' @noRd
full_form_alternative <- function(info) {
  forms <- info$forms
  sprintf("Leave `%s` at its default (\"auto\"), which takes the %s where the full form does not fit, give %s, or fit on fewer rows.",
          forms$argument, if (forms$argument == "reduce") "subset of bases" else "Nystroem form",
          if (forms$argument == "reduce") "`reduce = \"subset\"`" else "landmarks")
}
