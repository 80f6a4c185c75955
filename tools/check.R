# Quick start, command 2: install what is missing and run the full checks:
# R CMD build, R CMD check --no-manual on the tarball (an ERROR or WARNING
# fails), the C++ core tests of tests/cpp, and the test tally as the last line,
# "N passed, N failed, N skipped" (R tests and core tests together).
# Usage, from the checkout's root:
#   Rscript tools/check.R
source(file.path("tools", "setup.R"))
# The packages DESCRIPTION names in Imports, LinkingTo and Suggests, without
# their version constraints and without the packages that come with R itself
# (base packages such as stats or utils, and MASS).
# caret and the tidymodels packages are suggested too; they are installed
# below, their own way.
package_dependencies <- function(description = "DESCRIPTION") {
  fields <- read.dcf(description, fields = c("Imports", "LinkingTo", "Suggests"))
  packages <- trimws(unlist(strsplit(fields[!is.na(fields)], ",")))
  packages <- unique(sub("[[:space:]]*\\(.*$", "", packages))
  with_r <- c(rownames(utils::installed.packages(lib.loc = .Library, priority = "base")), "MASS")
  setdiff(packages[nzchar(packages)], c(with_r, "caret", tidymodels_packages, browser_test_packages))
}

# The packages of krein_app()'s browser tests (tests/testthat/test-app.R),
# which drive headless Chromium (.ci/run installs Debian's). The current
# shinytest2 needs a newer testthat than Debian's: installed like the
# tidymodels packages below, upgrading only what a version requirement asks.
# A failure only skips the browser tests, with a message.
browser_test_packages <- c("chromote", "shinytest2")

# The tidymodels packages the parsnip engines' tests use. A plain
# install.packages() installs what is missing but never upgrades an installed
# package that is too old for them (Debian's vctrs or dplyr), and a blanket
# upgrade rebuilds dozens of packages: install what is missing and upgrade
# only where a version requirement asks. A failure here only skips their
# tests (with a message), as for caret.
tidymodels_packages <- c("parsnip", "dials", "scales", "tune", "workflows", "rsample", "yardstick")
install_with_requirements <- function(targets, lib = ensure_writable_library(), db = utils::available.packages()) {
  base <- rownames(utils::installed.packages(priority = "base"))
  installed_version <- function(p) tryCatch(utils::packageVersion(p, lib.loc = .libPaths()), error = function(e) NULL)
  too_old <- function(p, op, required) {
    v <- installed_version(p)
    is.null(v) || (!is.na(op) && !do.call(op, list(v, package_version(required))))
  }
  todo <- targets[vapply(targets, function(p) is.null(installed_version(p)), logical(1))]
  queue <- todo
  while (length(queue) > 0) {
    p <- queue[1]
    queue <- queue[-1]
    if (!p %in% rownames(db)) next
    fields <- db[p, c("Depends", "Imports", "LinkingTo")]
    requirements <- trimws(unlist(strsplit(gsub("\n", " ", fields[!is.na(fields)]), ",")))
    for (r in requirements[nzchar(requirements)]) {
      m <- regmatches(r, regexec("^([A-Za-z0-9.]+)[[:space:]]*(\\([[:space:]]*([<>=]+)[[:space:]]*([^)]+)\\))?", r))[[1]]
      dep <- m[2]
      if (dep %in% c("R", base, todo)) next
      if (too_old(dep, if (nzchar(m[4])) m[4] else NA, trimws(m[5]))) {
        todo <- c(todo, dep)
        queue <- c(queue, dep)
      }
    }
  }
  if (length(todo) > 0) {
    message("Installing from ", paste(getOption("repos"), collapse = ", "), ": ", paste(todo, collapse = ", "))
    utils::install.packages(todo, lib = lib, dependencies = FALSE, Ncpus = max(1L, parallel::detectCores()))
  }
  still <- targets[!vapply(targets, requireNamespace, logical(1), quietly = TRUE)]
  if (length(still) > 0) {
    message("Not installed (their tests are skipped): ", paste(still, collapse = ", "))
    # the usual cause on a fresh Linux machine: a system library's headers
    if ("curl" %in% todo && !requireNamespace("curl", quietly = TRUE)) {
      message("The R package curl did not compile: it needs libcurl's development files ",
              "(Debian, Ubuntu: libcurl4-openssl-dev; Fedora: libcurl-devel).")
    }
  }
  invisible(todo)
}

install_missing(package_dependencies())
tryCatch(install_with_requirements(tidymodels_packages),
         error = function(e) message("The tidymodels packages were not installed (their tests are skipped): ",
                                     conditionMessage(e)))
tryCatch(install_with_requirements(browser_test_packages),
         error = function(e) message("shinytest2 and chromote were not installed (the app's browser tests are skipped): ",
                                     conditionMessage(e)))
# caret (its current release supports R >= 3.2, its dependencies R >= 4.1) with
# what it needs beyond the tidymodels packages (about 20 packages, stringi the
# longest to compile), timed. A failure only skips its tests, with a message.
local({
  if (requireNamespace("caret", quietly = TRUE)) return()
  start <- proc.time()[["elapsed"]]
  installed <- tryCatch(install_with_requirements("caret"),
                        error = function(e) message("caret was not installed (its tests are skipped): ",
                                                    conditionMessage(e)))
  if (requireNamespace("caret", quietly = TRUE)) {
    message(sprintf("caret and %d packages it needs installed in %.0f s.", length(installed) - 1L,
                    proc.time()[["elapsed"]] - start))
  }
})

r_bin <- file.path(R.home("bin"), "R")
work <- tempfile("krein-check-")
dir.create(work)
checkout <- normalizePath(".")

message("== R CMD build")
build_status <- system2(r_bin, c("CMD", "build", shQuote(checkout)), env = character(),
                        stdout = "", stderr = "")
tarball <- list.files(".", pattern = "^krein_.*\\.tar\\.gz$")
if (build_status != 0 || length(tarball) != 1) stop("R CMD build failed.", call. = FALSE)
invisible(file.rename(tarball, file.path(work, tarball)))

message("== R CMD check --no-manual")
# NOT_CRAN=true runs the snapshot tests too; the library we installed into must
# be visible to the check's child processes. _R_CHECK_LIMIT_CORES_ keeps the
# examples (and the tests, which cap themselves anyway) at two threads, as on
# CRAN.
Sys.setenv(NOT_CRAN = "true", R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep),
           `_R_CHECK_FORCE_SUGGESTS_` = "false", `_R_CHECK_LIMIT_CORES_` = "TRUE")
# without a time zone, packages that ask for it (caret's dependencies) run
# timedatectl, which fails with a warning in containers
if (!nzchar(Sys.getenv("TZ"))) Sys.setenv(TZ = "UTC")
strip <- strip_debug_args()  # see tools/setup.R
check_output <- system2(r_bin, c("CMD", "check", "--no-manual",
                                 if (length(strip)) paste0("--install-args=", strip),
                                 paste0("--output=", shQuote(work)), shQuote(file.path(work, tarball))),
                        stdout = TRUE, stderr = TRUE)
writeLines(check_output)
if (!is.null(attr(check_output, "status"))) message("R CMD check exited with status ", attr(check_output, "status"))

check_dir <- file.path(work, "krein.Rcheck")
test_out <- list.files(file.path(check_dir, "tests"), pattern = "^testthat\\.Rout(\\.fail)?$",
                       full.names = TRUE)
tally <- NULL
if (length(test_out) > 0) {
  lines <- readLines(test_out[1], warn = FALSE)
  if (grepl("\\.fail$", test_out[1])) writeLines(utils::tail(lines, 80))
  # testthat's own list of skipped tests (reason and place), so a skip is
  # visible in the log even though the check directory is removed afterwards
  skip_start <- grep("Skipped tests", lines, fixed = TRUE)
  if (length(skip_start) > 0) {
    headers <- grep("^\u2550\u2550 |^== ", lines)
    skip_end <- c(headers[headers > skip_start[1]], length(lines) + 1L)[1] - 1L
    writeLines(lines[skip_start[1]:skip_end])
  }
  summary_line <- utils::tail(grep("\\[ FAIL [0-9]+ \\| WARN [0-9]+ \\| SKIP [0-9]+ \\| PASS [0-9]+ \\]",
                                   lines, value = TRUE), 1)
  if (length(summary_line) == 1) {
    count <- function(what) as.integer(sub(paste0(".*", what, " ([0-9]+).*"), "\\1", summary_line))
    tally <- c(passed = count("PASS"), failed = count("FAIL"), skipped = count("SKIP"))
  }
}

# The C++ core on its own, without R (tests/cpp): built with R's compiler and
# LAPACK. A machine where it cannot be linked standalone skips it, saying so.
core <- c(passed = 0L, failed = 0L)
if (nzchar(Sys.which("make"))) {
  message("== C++ core tests (tests/cpp)")
  built <- system2("make", c("-s", "-C", "tests/cpp", "test_core"), stdout = TRUE, stderr = TRUE)
  if (is.null(attr(built, "status")) && file.exists(file.path("tests", "cpp", "test_core"))) {
    # run from tests/cpp, as `make -C tests/cpp test` does: the tests read
    # fixtures by paths relative to it
    core_output <- local({
      old <- setwd(file.path("tests", "cpp"))
      on.exit(setwd(old))
      system2(file.path(".", "test_core"), stdout = TRUE, stderr = TRUE)
    })
    writeLines(core_output)
    core_line <- utils::tail(grep("^core: [0-9]+ passed, [0-9]+ failed", core_output, value = TRUE), 1)
    if (length(core_line) == 1) {
      core[["passed"]] <- as.integer(sub("^core: ([0-9]+) passed.*", "\\1", core_line))
      core[["failed"]] <- as.integer(sub(".* ([0-9]+) failed.*", "\\1", core_line))
    } else {
      core[["failed"]] <- 1L
    }
    system2("make", c("-s", "-C", "tests/cpp", "clean"))
  } else {
    writeLines(built)
    message("The C++ core tests could not be built standalone here; skipped.")
  }
}

status_line <- utils::tail(grep("^Status:", check_output, value = TRUE), 1)
bad <- length(status_line) == 0 || grepl("ERROR|WARNING", status_line)
if (is.null(tally)) {
  message("No test results were found.")
  bad <- TRUE
  tally <- c(passed = 0L, failed = 0L, skipped = 0L)
}
tally[["passed"]] <- tally[["passed"]] + core[["passed"]]
tally[["failed"]] <- tally[["failed"]] + core[["failed"]]
if (tally[["failed"]] > 0) bad <- TRUE
if (bad) message("The check FAILED: ", if (length(status_line)) status_line else "no status")
cat(sprintf("%d passed, %d failed, %d skipped\n", tally[["passed"]], tally[["failed"]],
            tally[["skipped"]]))
quit(status = if (bad) 1L else 0L, save = "no")
