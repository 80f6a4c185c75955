# The suite must mean the same under every testthat release DESCRIPTION
# allows, the one a newcomer's distribution ships among them (Debian 12's
# 3.1.6), not only under the newest.

# testthat renders the conditions an expect_snapshot() meets in a format of
# its own, which its releases changed ("Error <class>" in a section of that
# name, later "Condition" then "Error:" and "! message"): a snapshot holding
# one passes under one side of the change only. helper-snapshots.R's
# show_error() and show_conditions() print conditions as plain output instead.
test_that("no snapshot holds a condition rendered by testthat itself", {
  files <- list.files(test_path("_snaps"), pattern = "\\.md$", recursive = TRUE, full.names = TRUE)
  expect_gt(length(files), 10)
  rendered <- unlist(lapply(files, function(file) {
    lines <- readLines(file, warn = FALSE, encoding = "UTF-8")
    # a section header of the snapshot's own (four spaces), not output (six)
    at <- grep("^    (Condition|Error|Warning|Message)( <[^>]+>)?$", lines)
    sprintf("%s:%d: %s", rep(basename(file), length(at)), at, trimws(lines[at]))
  }))
  expect_identical(rendered, character())
})

# Before testthat 3.1.10, expect_no_message() looked for a condition class
# misspelt "messsage" and so passed whatever the code said (3.1.6:
# expect_no_message(message("hi")) passes). expect_message(expr, NA) asserts
# the same under every release.
test_that("no test relies on expect_no_message()", {
  files <- list.files(test_path(), pattern = "^(test|helper|setup)-.*\\.R$")
  files <- file.path(test_path(), setdiff(files, "test-testthat-releases.R"))  # this file names it
  expect_gt(length(files), 10)
  uses <- unlist(lapply(files, function(file) {
    lines <- readLines(file, warn = FALSE, encoding = "UTF-8")
    code <- sub("#.*$", "", lines)
    at <- grep("expect_no_message(", code, fixed = TRUE)
    sprintf("%s:%d", rep(basename(file), length(at)), at)
  }))
  expect_identical(uses, character())
})
