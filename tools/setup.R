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

install_missing <- function(packages) {
  lib <- ensure_writable_library()
  missing <- packages[!vapply(packages, requireNamespace, logical(1), quietly = TRUE)]
  if (length(missing) > 0) {
    message("Installing from ", paste(getOption("repos"), collapse = ", "), ": ",
            paste(missing, collapse = ", "))
    utils::install.packages(missing, lib = lib, Ncpus = max(1L, parallel::detectCores()))
  }
  still <- packages[!vapply(packages, requireNamespace, logical(1), quietly = TRUE)]
  if (length(still) > 0) stop("Could not install: ", paste(still, collapse = ", "), call. = FALSE)
  invisible(lib)
}

# Install krein itself from this checkout.
install_krein <- function() {
  lib <- ensure_writable_library()
  status <- system2(file.path(R.home("bin"), "R"),
                    c("CMD", "INSTALL", strip_debug_args(), paste0("--library=", shQuote(lib)), "."))
  if (status != 0) stop("R CMD INSTALL of krein failed.", call. = FALSE)
  invisible(lib)
}

# R's default flags compile with -g, and the Eigen template instances then
# carry about 60 MB of debug information. `strip -S` (GNU and Apple strip
# alike) removes only that, keeping the symbols R CMD check inspects; R CMD
# INSTALL --strip runs the command in R_STRIP_SHARED_LIB. Without a strip
# command nothing is stripped.
strip_debug_args <- function() {
  if (!nzchar(Sys.which("strip"))) return(character())
  Sys.setenv(R_STRIP_SHARED_LIB = "strip -S")
  "--strip"
}
