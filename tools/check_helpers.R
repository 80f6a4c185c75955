# The two tiers of tools/check.R: what each installs, the phase clock, and the
# reading of R CMD check's output (test tally, skip reasons, step times).
# Sourced by tools/check.R after tools/setup.R.

# "default" or "full": from the command line (--full, --default) or from the
# environment variable KREIN_CHECK_TIER; the default tier otherwise.
check_tier <- function(args = commandArgs(trailingOnly = TRUE), env = Sys.getenv("KREIN_CHECK_TIER")) {
  unknown <- setdiff(args, c("--full", "--default"))
  if (length(unknown) > 0) {
    stop("Unknown argument ", paste(unknown, collapse = " "),
         "; use --full for the full tier (nothing for the default tier).", call. = FALSE)
  }
  if ("--full" %in% args) return("full")
  if ("--default" %in% args) return("default")
  if (!nzchar(env)) return("default")
  if (!env %in% c("default", "full")) {
    stop("KREIN_CHECK_TIER must be \"default\" or \"full\", not \"", env, "\".", call. = FALSE)
  }
  env
}

# The packages named in DESCRIPTION's `fields`, without version constraints
# and without the packages that come with R itself (base packages and MASS)
description_packages <- function(fields, description = "DESCRIPTION") {
  values <- read.dcf(description, fields = fields)
  packages <- trimws(unlist(strsplit(gsub("\n", " ", values[!is.na(values)]), ",")))
  packages <- unique(sub("[[:space:]]*\\(.*$", "", packages))
  with_r <- c(rownames(utils::installed.packages(lib.loc = .Library, priority = "base")), "MASS")
  setdiff(packages[nzchar(packages)], with_r)
}

# The default tier's packages: what krein needs to build, testthat, and the
# suggested packages its core tests use (Config/krein/core_suggests: the
# vignette builder and the tests' oracles, models and data)
core_packages <- function() {
  unique(c(description_packages(c("Imports", "LinkingTo")), "testthat",
           description_packages("Config/krein/core_suggests")))
}

# The full tier adds the rest of Suggests: the optional integrations
optional_packages <- function() setdiff(description_packages("Suggests"), core_packages())

# R CMD check reads every suggested package that is installed, whether or not
# the tier runs its tests: one older than DESCRIPTION's minimum (Debian's
# scales 1.2.1, which has no transform_log10()) fails it with a WARNING. The
# default tier upgrades those, and only those.
installed_too_old <- function(packages, minimums = description_minimums()) {
  packages[vapply(packages, function(package) {
    version <- installed_version(package)
    !is.null(version) && !is.na(minimums[package]) && version < package_version(minimums[package])
  }, logical(1))]
}

# The oldest versions DESCRIPTION allows (tools/fresh_check.sh --oldest): each
# of `packages` that DESCRIPTION names a minimum for is installed at exactly
# that version, from the repository's current packages or its archive, into
# the writable library, with what that version needs (at the repository's
# versions, or these minimums where they name a dependency). A minimum set too
# low then fails the check that follows, before a user meets it. Those whose
# dependencies name others first. A minimum the repository no longer serves
# (CRAN's archive, or a mirror's copy of it, can lack a version) cannot be
# tried: it is said, and the package is left to the check's own installer.
install_oldest <- function(packages, minimums = description_minimums()) {
  lib <- ensure_writable_library()
  pinned <- intersect(names(minimums), packages)
  if (length(pinned) == 0) {
    message("DESCRIPTION names no minimum version for these packages.")
    return(invisible(character()))
  }
  repository <- sub("/+$", "", getOption("repos")[["CRAN"]])
  current <- utils::available.packages()
  work <- tempfile("krein-oldest-")
  dir.create(work)
  on.exit(unlink(work, recursive = TRUE), add = TRUE)
  tarballs <- character()
  needs <- list()
  unavailable <- character()
  for (package in pinned) {
    file <- sprintf("%s_%s.tar.gz", package, minimums[[package]])
    urls <- c(if (package %in% rownames(current) && current[package, "Version"] == minimums[[package]])
                paste0(repository, "/src/contrib/", file),
              sprintf("%s/src/contrib/Archive/%s/%s", repository, package, file))
    tarball <- file.path(work, file)
    got <- FALSE
    for (url in urls) {
      got <- !inherits(tryCatch(suppressWarnings(utils::download.file(url, tarball, quiet = TRUE, mode = "wb")),
                                error = function(e) e), "error") && file.exists(tarball)
      if (got) break
    }
    if (!got) {
      unavailable <- c(unavailable, sprintf("%s %s", package, minimums[[package]]))
      next
    }
    tarballs[[package]] <- tarball
    fields <- read.dcf(file.path(untar_description(tarball, work, package)),
                       fields = c("Depends", "Imports", "LinkingTo"))
    requirements <- trimws(unlist(strsplit(gsub("\n", " ", fields[!is.na(fields)]), ",")))
    needs[[package]] <- requirements[nzchar(requirements)]
  }
  if (length(unavailable)) {
    message("NOT tried at DESCRIPTION's minimum, which ", repository, " does not serve: ",
            paste(unavailable, collapse = ", "), "; the check installs these as it would for a user.")
  }
  pinned <- names(tarballs)
  dependency_names <- function(requirements) sub("[[:space:]]*\\(.*$", "", requirements)
  order <- character()
  while (length(order) < length(pinned)) {
    ready <- setdiff(pinned, order)
    ready <- ready[vapply(ready, function(p) all(setdiff(intersect(dependency_names(needs[[p]]), pinned), p) %in% order),
                          logical(1))]
    if (length(ready) == 0) ready <- setdiff(pinned, order)[1]  # a cycle: take them as listed
    order <- c(order, ready)
  }
  base <- rownames(utils::installed.packages(priority = "base"))
  for (package in order) {
    requirements <- needs[[package]]
    dependencies <- setdiff(dependency_names(requirements), c("R", base, pinned))
    own_minimums <- requirement_minimums(requirements)
    if (length(dependencies)) install_missing(dependencies, minimums = own_minimums[names(own_minimums) %in% dependencies])
    message(sprintf("Installing %s %s, DESCRIPTION's minimum, into %s", package, minimums[[package]], lib))
    utils::install.packages(tarballs[[package]], lib = lib, repos = NULL, type = "source")
    if (!identical(as.character(installed_version(package)), minimums[[package]])) {
      stop("Could not install ", package, " ", minimums[[package]], ".", call. = FALSE)
    }
  }
  invisible(order)
}

# A package source tarball's DESCRIPTION, extracted into `work`
untar_description <- function(tarball, work, package) {
  target <- file.path(work, paste0(package, "-description"))
  utils::untar(tarball, files = file.path(package, "DESCRIPTION"), exdir = target)
  file.path(target, package, "DESCRIPTION")
}

# The full tier's optional packages: Debian's or Ubuntu's prebuilt r-cran-*
# packages where this is such a machine and we are root (they take seconds
# where compiling caret's or shiny's stack takes many minutes), then the rest
# from the user's repositories, compiled with every core. A plain
# install.packages() never upgrades an installed package that is too old for
# a newer one (Debian's vctrs for the tidymodels packages), and a blanket
# upgrade rebuilds dozens: install_missing() installs what is missing and
# upgrades only where a version requirement (DESCRIPTION's or a dependency's)
# asks. A failure only skips the tests that need the package, with a message.
install_optional_packages <- function(packages = optional_packages()) {
  install_prebuilt(not_installed(packages, minimums = character()))
  installed <- tryCatch(install_missing(packages),
                        error = function(e) {
                          message("Some optional packages could not be installed (their tests are skipped): ",
                                  conditionMessage(e))
                          character()
                        })
  still <- not_installed(packages)
  if (length(still) > 0) {
    message("Not installed (their tests are skipped): ", paste(still, collapse = ", "))
    # the usual cause on a fresh Linux machine: a system library's headers
    if (any(c("chromote", "shinytest2") %in% still) && length(not_installed("curl"))) {
      message("The R package curl did not compile: it needs libcurl's development files ",
              "(Debian, Ubuntu: libcurl4-openssl-dev; Fedora: libcurl-devel).")
    }
  }
  invisible(installed)
}

# Debian's and Ubuntu's prebuilt R packages (r-cran-<name>), installed with
# apt-get as root into the system's site library, which is then added to the
# end of the library path (the user's library stays first, so a newer version
# installed there wins). KREIN_PREBUILT=false turns this off.
prebuilt_library <- "/usr/lib/R/site-library"
install_prebuilt <- function(packages) {
  if (length(packages) == 0 || identical(tolower(Sys.getenv("KREIN_PREBUILT")), "false")) return(invisible())
  if (.Platform$OS.type != "unix" || !nzchar(Sys.which("apt-get")) || !nzchar(Sys.which("apt-cache")) ||
      !identical(unname(Sys.info()[["effective_user"]]), "root") || !file.exists("/etc/debian_version")) {
    return(invisible())
  }
  debian <- paste0("r-cran-", tolower(packages))
  offered <- function() {
    policy <- suppressWarnings(system2("apt-cache", c("policy", debian), stdout = TRUE, stderr = FALSE))
    names <- sub(":$", "", policy[grepl("^r-cran-", policy)])
    candidates <- sub("^[[:space:]]*Candidate:[[:space:]]*", "", policy[grepl("^[[:space:]]*Candidate:", policy)])
    if (length(names) != length(candidates)) return(character())
    names[candidates != "(none)"]
  }
  available <- offered()
  if (length(available) == 0) {
    # a fresh machine has no package lists yet
    system2("apt-get", c("update", "-qq"), stdout = FALSE, stderr = FALSE)
    available <- offered()
  }
  if (length(available) == 0) return(invisible())
  message("Installing Debian's prebuilt packages (apt-get, as root; KREIN_PREBUILT=false compiles them instead): ",
          paste(available, collapse = ", "))
  status <- system2("apt-get", c("install", "-y", "-qq", "--no-install-recommends", available),
                    env = "DEBIAN_FRONTEND=noninteractive", stdout = FALSE, stderr = "")
  if (status != 0) message("apt-get install failed; these packages are compiled from source instead.")
  if (dir.exists(prebuilt_library) && !normalizePath(prebuilt_library) %in% normalizePath(.libPaths())) {
    .libPaths(c(.libPaths(), prebuilt_library))
    message("Added ", prebuilt_library, " (Debian's R packages) to the end of the library path.")
  }
  invisible(available)
}

# Wall-clock time of each phase, and of the steps of R CMD check it reports
phase_clock <- function() {
  times <- numeric()
  current <- NULL
  started <- NULL
  first <- proc.time()[["elapsed"]]
  list(
    start = function(name) {
      current <<- name
      started <<- proc.time()[["elapsed"]]
    },
    stop = function() {
      times[[current]] <<- proc.time()[["elapsed"]] - started
      current <<- NULL
    },
    add = function(name, seconds) times[[name]] <<- seconds,
    report = function() {
      message("== phase times (wall clock, seconds)")
      for (name in names(times)) message(sprintf("  %-28s %7.0f", name, times[[name]]))
      message(sprintf("  %-28s %7.0f", "total", proc.time()[["elapsed"]] - first))
    }
  )
}

# R CMD check, its output shown as it comes; the step times it reports
# (`_R_CHECK_TIMINGS_=0`: "[CPU s/elapsed s]" after every timed step) are
# added to the clock as sub-phases of "check". Returns the output's lines,
# with the exit status as attribute "status" where it is not 0.
run_check_with_phases <- function(r_bin, args, phases) {
  phases$start("check")
  Sys.setenv(`_R_CHECK_TIMINGS_` = "0")
  command <- paste(c(shQuote(r_bin), args, "2>&1"), collapse = " ")
  connection <- pipe(command, open = "r")
  output <- character()
  repeat {
    line <- readLines(connection, n = 1L, warn = FALSE)
    if (length(line) == 0L) break
    writeLines(line)
    output <- c(output, line)
  }
  status <- close(connection)
  phases$stop()
  steps <- c("can be installed" = "  install krein", "checking examples" = "  examples",
             "Running .testthat\\.R" = "  tests", "running R code from vignettes" = "  vignette code",
             "re-building of vignette outputs" = "  vignette rebuild")
  timing <- "\\[[0-9.]+m?[0-9.]*s/[0-9.]+m?[0-9.]*s\\]"
  for (pattern in names(steps)) {
    at <- grep(pattern, output)[1]
    if (is.na(at)) next
    # a step of several lines ("running R code from vignettes") has its time
    # on its closing line, " [CPU/elapsed] OK", before the next "* " step
    following <- seq(at, length(output))
    next_step <- following[-1][grepl("^\\* ", output[following[-1]])][1]
    lines <- output[at:(if (is.na(next_step)) length(output) else next_step - 1L)]
    own <- grepl(timing, lines[1]) || pattern == "Running .testthat\\.R"
    line <- if (own) lines[1] else utils::tail(grep(paste0("^ ", timing), lines, value = TRUE), 1)
    elapsed <- regmatches(line, regexpr(timing, line))
    if (length(elapsed) == 1L) phases$add(steps[[pattern]], step_seconds(elapsed))
  }
  if (!is.null(status) && !identical(as.integer(status), 0L)) {
    message("R CMD check exited with status ", status)
    attr(output, "status") <- status
  }
  output
}

# "[12s/34s]" or "[1m2s/3m4s]" -> the elapsed seconds (the second figure)
step_seconds <- function(timing) {
  elapsed <- sub("^\\[[^/]*/([^]]*)\\]$", "\\1", timing)
  minutes <- if (grepl("m", elapsed)) as.numeric(sub("m.*$", "", elapsed)) else 0
  seconds <- as.numeric(sub("s$", "", sub("^.*m", "", elapsed)))
  60 * minutes + seconds
}

# testthat's closing "[ FAIL n | WARN n | SKIP n | PASS n ]" as a named vector
testthat_tally <- function(lines) {
  summary_line <- utils::tail(grep("\\[ FAIL [0-9]+ \\| WARN [0-9]+ \\| SKIP [0-9]+ \\| PASS [0-9]+ \\]",
                                   lines, value = TRUE), 1)
  if (length(summary_line) != 1) return(NULL)
  count <- function(what) as.integer(sub(paste0(".*", what, " ([0-9]+).*"), "\\1", summary_line))
  c(passed = count("PASS"), failed = count("FAIL"), skipped = count("SKIP"))
}

# testthat's list of skipped tests: one line per reason, "• reason (n): places"
skipped_tests <- function(lines) {
  start <- grep("Skipped tests", lines, fixed = TRUE)
  if (length(start) == 0) return(character())
  headers <- grep("^\u2550\u2550 |^== ", lines)
  end <- c(headers[headers > start[1]], length(lines) + 1L)[1] - 1L
  section <- lines[(start[1] + 1L):end]
  section[grepl("^(\u2022|\\*) ", section)]
}

# The skip reasons with their counts of tests, without the list of places
print_skip_reasons <- function(skips, tier) {
  if (length(skips) == 0) {
    message("== no test skipped")
    return(invisible())
  }
  message("== skipped tests, by reason (tests per reason):")
  for (reason in skips) message("  ", sub("\\):.*$", ")", sub("^(\u2022|\\*) ", "", reason)))
  if (tier != "full") {
    message("  (Rscript tools/check.R --full installs every suggested package and runs these too.)")
  }
}

# The files of src/ and inst/include/krein/ that the build could miss: make
# sees only the unity units, so each Makevars lists every glue file and core
# header as their dependency, and every glue file must be #included by a
# unity unit or it is not compiled. Returns one line per omission.
unlisted_source_files <- function(root = ".") {
  src <- file.path(root, "src")
  glue <- basename(Sys.glob(file.path(src, c("*.cpp", "*.h"))))
  glue <- setdiff(glue[!startsWith(glue, "unity_")], "RcppExports.h")
  headers <- file.path("..", "inst", "include", "krein",
                       basename(Sys.glob(file.path(root, "inst", "include", "krein", "*.hpp"))))
  problems <- character()
  for (makevars in file.path(src, c("Makevars.in", "Makevars.win"))) {
    words <- scan(makevars, what = "", quiet = TRUE, comment.char = "#")
    missing <- setdiff(c(glue, headers), words)
    if (length(missing)) {
      problems <- c(problems, sprintf("%s does not list %s", basename(makevars), missing))
    }
  }
  unity <- unlist(lapply(Sys.glob(file.path(src, "unity_*.cpp")), readLines))
  included <- sub('^#include "([^"]+)".*', "\\1", grep('^#include "', unity, value = TRUE))
  not_compiled <- setdiff(glue[endsWith(glue, ".cpp")], included)
  c(problems, sprintf("%s is #included by no unity_*.cpp file", not_compiled))
}
