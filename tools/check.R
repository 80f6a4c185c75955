# Quick start, command 2: install what is missing, build, R CMD check and
# print the test tally.
#
# Usage, from the checkout's root:
#   Rscript tools/check.R           # the default tier: minutes
#   Rscript tools/check.R --full    # the full tier (or KREIN_CHECK_TIER=full)
#
# The default tier installs only what krein and its core tests need (Imports,
# LinkingTo, testthat and the suggested packages DESCRIPTION lists in
# Config/krein/core_suggests: the vignette builder and the tests' oracles and
# data), upgrades a suggested package the machine has at a version below
# DESCRIPTION's minimum (R CMD check reads it), and runs R CMD check with
# every test whose packages are there. The
# tests of optional integrations (caret, tidymodels, shiny and the browser,
# DBI/SQLite, future backends) skip where their packages are missing, and the
# tally says how many skipped and why. The full tier installs everything in
# Suggests and runs all of it, and R CMD check also rebuilds the vignettes
# (the default tier runs their code once, as the build made them).
#
# Steps: R CMD build, R CMD check --no-manual on the tarball (an ERROR or
# WARNING fails), the C++ core tests of tests/cpp. The phase times are printed
# before the last line, the tally "N passed, N failed, N skipped" (R tests and
# core tests together). The exit status is non-zero on any failure.
source(file.path("tools", "setup.R"))
source(file.path("tools", "check_helpers.R"))

tier <- check_tier()
phases <- phase_clock()
message(sprintf("== krein check, %s tier (%s)", tier,
                if (tier == "full") "every suggested package" else "Rscript tools/check.R --full runs everything"))

phases$start("installs")
install_missing(core_packages())
if (tier == "full") install_optional_packages() else install_missing(installed_too_old(optional_packages()))
phases$stop()

r_bin <- file.path(R.home("bin"), "R")
work <- tempfile("krein-check-")
dir.create(work)
checkout <- normalizePath(".")
# krein's C++ compiles as two units: one per core, unless MAKEFLAGS says otherwise
if (!nzchar(Sys.getenv("MAKEFLAGS"))) Sys.setenv(MAKEFLAGS = paste0("-j", available_cores()))

# a file the build would not compile, or whose change would not rebuild
unlisted <- unlisted_source_files()
if (length(unlisted)) stop("src/ is out of step with its files:\n", paste(unlisted, collapse = "\n"), call. = FALSE)

phases$start("build")
message("== R CMD build")
build_status <- system2(r_bin, c("CMD", "build", shQuote(checkout)), stdout = "", stderr = "")
tarball <- list.files(".", pattern = "^krein_.*\\.tar\\.gz$")
if (build_status != 0 || length(tarball) != 1) stop("R CMD build failed.", call. = FALSE)
invisible(file.rename(tarball, file.path(work, tarball)))
phases$stop()

message("== R CMD check --no-manual")
# NOT_CRAN=true runs the snapshot tests too; the libraries we installed into
# must be visible to the check's child processes. _R_CHECK_LIMIT_CORES_ keeps
# the examples at two threads, as on CRAN; the tests run their files on two
# worker processes (testthat's parallel mode), one krein thread each.
Sys.setenv(NOT_CRAN = "true", R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep),
           `_R_CHECK_FORCE_SUGGESTS_` = "false", `_R_CHECK_LIMIT_CORES_` = "TRUE")
if (!nzchar(Sys.getenv("TESTTHAT_CPUS"))) Sys.setenv(TESTTHAT_CPUS = available_cores())
# without a time zone, packages that ask for it (caret's dependencies) run
# timedatectl, which fails with a warning in containers
if (!nzchar(Sys.getenv("TZ"))) Sys.setenv(TZ = "UTC")
strip <- strip_debug_args()  # see tools/setup.R
check_args <- c("CMD", "check", "--no-manual",
                # the build has just built the vignettes; the default tier runs
                # their code once, the full tier rebuilds them too
                if (tier != "full") "--no-build-vignettes",
                if (length(strip)) paste0("--install-args=", strip),
                paste0("--output=", shQuote(work)), shQuote(file.path(work, tarball)))
check_output <- run_check_with_phases(r_bin, check_args, phases)

check_dir <- file.path(work, "krein.Rcheck")
test_out <- list.files(file.path(check_dir, "tests"), pattern = "^testthat\\.Rout(\\.fail)?$",
                       full.names = TRUE)
tally <- NULL
if (length(test_out) > 0) {
  lines <- readLines(test_out[1], warn = FALSE)
  if (grepl("\\.fail$", test_out[1])) writeLines(utils::tail(lines, 80))
  tally <- testthat_tally(lines)
  skips <- skipped_tests(lines)
}

# The C++ core on its own, without R (tests/cpp): built with R's compiler and
# LAPACK. A machine where it cannot be linked standalone skips it, saying so.
phases$start("core tests")
core <- c(passed = 0L, failed = 0L)
if (nzchar(Sys.which("make"))) {
  message("== C++ core tests (tests/cpp)")
  built <- system2("make", c("-s", paste0("-j", available_cores()), "-C", "tests/cpp", "test_core"),
                   stdout = TRUE, stderr = TRUE)
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
phases$stop()

status_line <- utils::tail(grep("^Status:", check_output, value = TRUE), 1)
bad <- length(status_line) == 0 || grepl("ERROR|WARNING", status_line)
if (is.null(tally)) {
  message("No test results were found.")
  bad <- TRUE
  tally <- c(passed = 0L, failed = 0L, skipped = 0L)
  skips <- NULL
}
tally[["passed"]] <- tally[["passed"]] + core[["passed"]]
tally[["failed"]] <- tally[["failed"]] + core[["failed"]]
if (tally[["failed"]] > 0) bad <- TRUE

message(sprintf("== %s tier: %s", tier, if (length(status_line)) status_line else "no R CMD check status"))
print_skip_reasons(skips, tier)
phases$report()
if (bad) message("The check FAILED: ", if (length(status_line)) status_line else "no status")
cat(sprintf("%d passed, %d failed, %d skipped\n", tally[["passed"]], tally[["failed"]],
            tally[["skipped"]]))
quit(status = if (bad) 1L else 0L, save = "no")
