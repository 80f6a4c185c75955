# Condition snapshots that read the same under every testthat 3e release.
# testthat renders the conditions an expect_snapshot() meets itself, and 3.3
# changed that rendering ("Error <class>" became "Condition / Error: / ! ..."),
# so snapshots recorded with one release failed under the other. Here the
# conditions are caught and printed as plain output instead: one line naming
# the kind and the most specific class, then the message as krein wrote it.
# Warnings and messages are printed and muffled; they do not stop evaluation.
print_condition <- function(kind, condition) {
  cat(kind, " <", class(condition)[1], ">\n", conditionMessage(condition), "\n", sep = "")
}

show_conditions <- function(expr) {
  withCallingHandlers(
    expr,
    warning = function(w) {
      print_condition("Warning", w)
      invokeRestart("muffleWarning")
    },
    message = function(m) {
      print_condition("Message", m)
      invokeRestart("muffleMessage")
    })
  invisible(NULL)
}

# The snapshot of an expression that must fail with one of krein's errors;
# the test fails if it succeeds or fails with another error (a base R error
# slipping through would otherwise be recorded as if it were krein's).
show_error <- function(expr) {
  condition <- tryCatch({
    show_conditions(expr)
    NULL
  }, error = function(e) e)
  if (is.null(condition)) stop("expected a krein_error, but there was no error")
  if (!inherits(condition, "krein_error")) {
    stop("expected a krein_error, got <", class(condition)[1], ">: ", conditionMessage(condition))
  }
  print_condition("Error", condition)
}
