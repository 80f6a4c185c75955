# Shared by the two quick-start commands (tools/demo.R, tools/check.R): make sure
# the packages they need are installed, from the user's package repositories
# (CRAN by default), into a library we can write.
# Run from the root of a krein checkout.

if (!file.exists("DESCRIPTION") || !any(grepl("^Package: krein$", readLines("DESCRIPTION")))) {
  stop("Run this from the root of the krein checkout (the folder with DESCRIPTION).", call. = FALSE)
}

# Packages come from the repositories of the user's `repos` option. Where none
# is set (NULL, or R's "@CRAN@" placeholder), R chooses: the first mirror of its
# own list, as chooseCRANmirror() offers it.
repos <- getOption("repos")
if (length(repos) == 0 || identical(unname(repos["CRAN"]), "@CRAN@")) {
  utils::chooseCRANmirror(graphics = FALSE, ind = 1)
}
rm(repos)

# A writable library: the first of .libPaths(), else the user library (created).
ensure_writable_library <- function() {
  lib <- .libPaths()[1]
  if (file.access(lib, 2) == 0) return(lib)
  user_lib <- Sys.getenv("R_LIBS_USER")
  dir.create(user_lib, recursive = TRUE, showWarnings = FALSE)
  .libPaths(c(user_lib, .libPaths()))
  Sys.setenv(R_LIBS_USER = user_lib)
  user_lib
}

# fs (a dependency of testthat and pkgload) compiles against the system's libuv
# and fails to configure where it is missing (no libuv1-dev on a fresh Debian
# or Ubuntu): then let it build the copy of libuv it bundles.
use_bundled_libuv <- function() {
  if (nzchar(Sys.getenv("USE_BUNDLED_LIBUV"))) return(invisible())
  found <- nzchar(Sys.which("pkg-config")) &&
    suppressWarnings(system2("pkg-config", c("--exists", "libuv"), stdout = FALSE, stderr = FALSE)) == 0
  if (!found) Sys.setenv(USE_BUNDLED_LIBUV = "1")
}

# The minimum versions DESCRIPTION asks for: a named character vector, one
# entry per package that has a `(>= x.y)` in Depends, Imports, LinkingTo or
# Suggests. A package named without a version has none.
description_minimums <- function(description = "DESCRIPTION") {
  values <- read.dcf(description, fields = c("Depends", "Imports", "LinkingTo", "Suggests"))
  requirement_minimums(trimws(unlist(strsplit(gsub("\n", " ", values[!is.na(values)]), ","))))
}

# The `(>= x)` minimums of requirements like "rlang (>= 1.1.0)", named by package
requirement_minimums <- function(requirements) {
  versioned <- grepl("\\([[:space:]]*>=", requirements)
  stats::setNames(trimws(sub("^[^(]*\\([[:space:]]*>=[[:space:]]*([^)]+)\\).*$", "\\1", requirements[versioned])),
                  trimws(sub("[[:space:]]*\\(.*$", "", requirements[versioned])))
}

installed_version <- function(package) {
  tryCatch(utils::packageVersion(package, lib.loc = .libPaths()), error = function(e) NULL)
}

# Those of `packages` not installed, or older than `minimums`. Read from the
# libraries, not by loading: this session has loaded the older versions of
# packages it has just upgraded (rlang, vctrs), with which a newly installed
# package would fail to load here, though it loads in a new R process.
not_installed <- function(packages, minimums = description_minimums()) {
  packages[vapply(packages, function(package) {
    version <- installed_version(package)
    is.null(version) || (!is.na(minimums[package]) && version < package_version(minimums[package]))
  }, logical(1))]
}

# What install_missing() would install to make `packages` usable at the
# versions DESCRIPTION asks for: each package that is missing or older than
# DESCRIPTION's minimum, and each dependency that is missing or, for a package
# being installed, older than that package requires. Nothing else: the
# machine's own packages (a distribution's, at its versions) are used where
# they are recent enough. Returns the reasons, named by package.
installation_plan <- function(packages, minimums = description_minimums(), db = utils::available.packages()) {
  base <- rownames(utils::installed.packages(priority = "base"))
  reasons <- character()
  need <- function(package, minimum, by) {
    version <- installed_version(package)
    if (is.null(version)) {
      reasons[[package]] <<- if (is.null(by)) "missing" else paste("missing; needed by", by)
    } else if (!is.na(minimum) && version < package_version(minimum)) {
      reasons[[package]] <<- sprintf("%s installed, %s needs >= %s", version,
                                     if (is.null(by)) "krein" else by, minimum)
    }
  }
  for (package in packages) need(package, unname(minimums[package]), NULL)
  # every package is walked, installed or not: an installed package whose
  # dependency went missing loads, and fails only when it first uses it. The
  # requirements of a package being installed (the repository's version) are
  # checked for version too; those of an installed one (its own DESCRIPTION),
  # for presence only: it was built against what it has.
  queue <- packages
  walked <- character()
  while (length(queue) > 0) {
    package <- queue[1]
    queue <- queue[-1]
    if (package %in% walked) next
    walked <- c(walked, package)
    installing <- package %in% names(reasons)
    if (installing && !package %in% rownames(db)) next
    # LinkingTo only matters to a package being compiled
    fields <- if (installing) {
      db[package, c("Depends", "Imports", "LinkingTo")]
    } else {
      unlist(utils::packageDescription(package, lib.loc = .libPaths(), fields = c("Depends", "Imports")))
    }
    requirements <- trimws(unlist(strsplit(gsub("\n", " ", fields[!is.na(fields)]), ",")))
    for (requirement in requirements[nzchar(requirements)]) {
      parts <- regmatches(requirement, regexec(
        "^([A-Za-z0-9.]+)[[:space:]]*(\\([[:space:]]*>=[[:space:]]*([^)]+)\\))?", requirement))[[1]]
      dependency <- parts[2]
      if (dependency %in% c("R", base, names(reasons))) next
      need(dependency, if (installing && nzchar(parts[4])) trimws(parts[4]) else NA, package)
      queue <- c(queue, dependency)
    }
  }
  reasons
}

# Install what installation_plan() finds, from the user's repositories, saying
# what and why. Returns the packages installed.
install_missing <- function(packages, minimums = description_minimums(),
                            db = utils::available.packages()) {
  lib <- ensure_writable_library()
  use_bundled_libuv()
  reasons <- installation_plan(packages, minimums, db)
  todo <- names(reasons)
  if (length(todo) > 0) {
    unavailable <- setdiff(todo, rownames(db))
    if (length(unavailable) > 0) {
      stop("Not in the repositories (", paste(getOption("repos"), collapse = ", "), "): ",
           paste(unavailable, collapse = ", "), call. = FALSE)
    }
    asked <- intersect(todo, names(minimums))
    too_new <- asked[package_version(db[asked, "Version"]) < package_version(minimums[asked])]
    if (length(too_new) > 0) {
      stop("The repositories offer ", paste(sprintf("%s %s", too_new, db[too_new, "Version"]), collapse = ", "),
           ", older than DESCRIPTION asks for.", call. = FALSE)
    }
    message("Installing into ", lib, " from ", paste(getOption("repos"), collapse = ", "), ":\n",
            paste(sprintf("  %s %s (%s)", todo, db[todo, "Version"], reasons[todo]), collapse = "\n"))
    utils::install.packages(todo, lib = lib, dependencies = FALSE, Ncpus = available_cores())
  }
  still <- not_installed(packages, minimums)
  if (length(still) > 0) stop("Could not install: ", paste(still, collapse = ", "), call. = FALSE)
  invisible(todo)
}

available_cores <- function() max(1L, parallel::detectCores(), na.rm = TRUE)

# Install krein itself from this checkout, with its vignettes built, so that
# vignette(package = "krein") lists them. R CMD INSTALL of a source folder
# builds no vignettes, and R CMD build followed by an install of the tarball
# compiles the C++ twice (R CMD build installs the package once to build the
# vignettes, and the tarball carries no objects). Instead, in a copy of the
# checkout: install into a temporary library (the one compilation), build the
# vignettes with that installation, then install the same copy into the user's
# library, which reuses the compiled objects left in the copy's src/ and
# installs the vignettes found in its inst/doc.
# If a vignette fails to build, krein is still installed, without vignettes,
# and the error names the vignette (vignettes = FALSE skips them on purpose).
install_krein <- function(vignettes = TRUE) {
  lib <- ensure_writable_library()
  r_bin <- file.path(R.home("bin"), "R")
  work <- tempfile("krein-install-")
  dir.create(work)
  on.exit(unlink(work, recursive = TRUE), add = TRUE)
  source_copy <- copy_package_source(".", work)
  build_lib <- file.path(work, "library")
  dir.create(build_lib)
  timed <- function(expr) {
    start <- proc.time()[["elapsed"]]
    force(expr)
    proc.time()[["elapsed"]] - start
  }

  if (!vignettes) {
    seconds <- timed(r_install(r_bin, source_copy, lib))
    message(sprintf("krein installed in %.0f s, without vignettes.", seconds))
    return(invisible(lib))
  }
  seconds <- timed(r_install(r_bin, source_copy, build_lib))
  message(sprintf("krein compiled and installed (temporary library) in %.0f s.", seconds))
  vignette_error <- NULL
  seconds <- timed(vignette_error <- build_vignettes(source_copy, build_lib))
  message(sprintf("Vignettes built in %.0f s.", seconds))
  if (!is.null(vignette_error)) unlink(file.path(source_copy, "inst", "doc"), recursive = TRUE)
  seconds <- timed(r_install(r_bin, source_copy, lib))
  message(sprintf("krein installed into %s in %.0f s.", lib, seconds))
  if (!is.null(vignette_error)) {
    stop("krein is installed, but WITHOUT its vignettes: ", vignette_error, call. = FALSE)
  }
  invisible(lib)
}

r_install <- function(r_bin, source_dir, lib) {
  # krein's C++ files compile independently: let make run one per core, unless
  # the user chose MAKEFLAGS already
  if (!nzchar(Sys.getenv("MAKEFLAGS"))) {
    Sys.setenv(MAKEFLAGS = paste0("-j", max(1L, parallel::detectCores(), na.rm = TRUE)))
    on.exit(Sys.unsetenv("MAKEFLAGS"), add = TRUE)
  }
  status <- system2(r_bin, c("CMD", "INSTALL", strip_debug_args(), paste0("--library=", shQuote(lib)),
                             shQuote(source_dir)))
  if (status != 0) stop("R CMD INSTALL of krein failed.", call. = FALSE)
}

# The package's files as R CMD build would take them (without what
# .Rbuildignore names), without compiled objects (a checkout used with
# pkgload::load_all() holds unoptimised ones) and without stale built vignettes.
copy_package_source <- function(checkout, work) {
  target <- file.path(work, "krein")
  dir.create(target)
  entries <- list.files(checkout, all.files = TRUE, no.. = TRUE)
  ignore <- if (file.exists(file.path(checkout, ".Rbuildignore"))) {
    patterns <- readLines(file.path(checkout, ".Rbuildignore"), warn = FALSE)
    patterns[nzchar(trimws(patterns))]
  } else character()
  ignored <- vapply(entries, function(entry) any(vapply(patterns_or_none(ignore), grepl, logical(1),
                                                         x = entry, perl = TRUE)), logical(1))
  entries <- entries[!ignored]
  ok <- file.copy(file.path(checkout, entries), target, recursive = TRUE, copy.date = TRUE)
  if (!all(ok)) stop("Could not copy ", paste(entries[!ok], collapse = ", "), " to ", target, call. = FALSE)
  compiled <- list.files(file.path(target, "src"), pattern = "\\.(o|so|dll)$", full.names = TRUE)
  unlink(c(compiled, file.path(target, "inst", "doc")), recursive = TRUE)
  target
}

patterns_or_none <- function(patterns) if (length(patterns)) patterns else "(?!)"

# Build each vignette with the krein installed in `build_lib`, in a separate R
# process as R CMD build does, timing each, and put the HTML and the tangled R
# code into inst/doc, where R CMD INSTALL finds them. Returns NULL, or the error
# message naming the vignette that failed.
build_vignettes <- function(source_dir, build_lib) {
  script <- file.path(dirname(source_dir), "build-vignettes.R")
  writeLines(c(
    "vignette_dir <- commandArgs(trailingOnly = TRUE)[1]",
    "setwd(vignette_dir)",
    # in a function: the vignettes run in the global environment and must not
    # overwrite the loop's variables
    "build_each <- function(files) for (vignette_file in files) {",
    "  start <- proc.time()",
    "  built <- tryCatch(tools::buildVignette(vignette_file, tangle = TRUE, quiet = TRUE, buildPkg = 'knitr'),",
    "                    error = function(e) e)",
    "  if (inherits(built, 'error')) {",
    "    message('Building vignette ', vignette_file, ' failed: ', conditionMessage(built))",
    "    quit(status = 1, save = 'no')",
    "  }",
    "  used <- proc.time() - start",
    "  message(sprintf('  %-18s %6.1f s (CPU %.1f s)', vignette_file, used[['elapsed']],",
    "                  sum(used[c('user.self', 'sys.self', 'user.child', 'sys.child')], na.rm = TRUE)))",
    "}",
    "build_each(list.files('.', pattern = '[.][Rr]md$'))"), script)
  vignette_dir <- file.path(source_dir, "vignettes")
  message("Building the vignettes:")
  # the child process must see the temporary installation first, then the
  # libraries this process uses (knitr, markdown and the suggested packages)
  libs <- paste(c(build_lib, .libPaths()), collapse = .Platform$path.sep)
  status <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script), shQuote(vignette_dir)),
                    env = paste0("R_LIBS=", shQuote(libs)))
  if (status != 0) return("a vignette failed to build (see the messages above).")
  outputs <- list.files(vignette_dir, pattern = "\\.(html|R)$", full.names = TRUE)
  doc_dir <- file.path(source_dir, "inst", "doc")
  dir.create(doc_dir, recursive = TRUE, showWarnings = FALSE)
  if (!all(file.copy(outputs, doc_dir, overwrite = TRUE))) return("could not copy the built vignettes.")
  # and, as R CMD build does, the sources and what vignettes/.install_extras
  # names: the copy of KaTeX (katex/) that renders the vignettes' formulas
  sources <- list.files(vignette_dir, pattern = "\\.[Rr]md$", full.names = TRUE)
  if (!all(file.copy(sources, doc_dir, overwrite = TRUE))) return("could not copy the vignettes' sources.")
  extras <- install_extras(vignette_dir)
  if (length(extras) && !all(file.copy(extras, doc_dir, recursive = TRUE, overwrite = TRUE))) {
    return("could not copy the files vignettes/.install_extras names.")
  }
  NULL
}

# The files and folders of a vignettes folder that its .install_extras names
# (Perl regular expressions, matched as R CMD build does against the paths
# "vignettes/...").
install_extras <- function(vignette_dir) {
  extras_file <- file.path(vignette_dir, ".install_extras")
  if (!file.exists(extras_file)) return(character())
  patterns <- readLines(extras_file, warn = FALSE)
  patterns <- patterns[nzchar(trimws(patterns))]
  entries <- list.files(vignette_dir, all.files = TRUE, recursive = TRUE, include.dirs = TRUE)
  named <- vapply(file.path("vignettes", entries), function(entry) {
    any(vapply(patterns, grepl, logical(1), x = entry, perl = TRUE, ignore.case = TRUE))
  }, logical(1))
  file.path(vignette_dir, entries[named])
}

# R's default flags compile with -g. configure keeps that debug information
# small (about 5 MB of krein.so with GCC; see configure), but over R CMD
# check's 5 MB note. `strip -S` (GNU and Apple strip alike) removes only the
# debug information, keeping the symbols R CMD check inspects; R CMD INSTALL
# --strip runs the command in R_STRIP_SHARED_LIB. Without a strip command
# nothing is stripped.
strip_debug_args <- function() {
  if (!nzchar(Sys.which("strip"))) return(character())
  Sys.setenv(R_STRIP_SHARED_LIB = "strip -S")
  "--strip"
}

# The value after `flag` among a script's command-line arguments, or `default`
option_value <- function(flag, default, args = commandArgs(trailingOnly = TRUE)) {
  at <- match(flag, args)
  if (is.na(at)) return(default)
  if (at == length(args)) stop(flag, " needs a value.", call. = FALSE)
  args[[at + 1]]
}
