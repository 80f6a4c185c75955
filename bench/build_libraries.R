# Builds of krein for the before/after benchmarks (bench/compare_versions.R,
# bench/defaults.R): a commit named in bench/README.md, exported with git
# archive and installed once into a cache, or the checkout as it is. Both with
# `R CMD INSTALL` (-O2, as users get it; not pkgload, which compiles with -O0).

# The commit bench/README.md records after `label` ("Reference commit ...
# `<hash>`")
readme_commit <- function(bench_dir, label) {
  lines <- readLines(file.path(bench_dir, "README.md"))
  hits <- Filter(length, regmatches(lines, regexec(paste0(label, "[^`]*`([0-9a-f]{7,40})`"), lines)))
  if (!length(hits)) stop(sprintf("bench/README.md records no \"%s ... `<hash>`\"", label))
  hits[[1]][2]
}

install_into <- function(source_dir, library) {
  dir.create(library, recursive = TRUE, showWarnings = FALSE)
  log <- tempfile("krein-install-", fileext = ".log")
  cat(sprintf("installing %s into %s (log: %s)\n", source_dir, library, log))
  status <- system2(file.path(R.home("bin"), "R"), c("CMD", "INSTALL", "--no-test-load", "--no-docs",
                    paste0("--library=", shQuote(library)), shQuote(source_dir)),
                    stdout = log, stderr = log, env = "MAKEFLAGS=-j2")
  if (status != 0L) stop(sprintf("installing %s failed; see %s", source_dir, log))
}

# A copy of `revision` of the checkout at `root` (NULL: the checkout as it is,
# uncommitted changes included) in a temporary folder
export_revision <- function(root, revision) {
  dir <- tempfile("krein-src-")
  dir.create(dir)
  if (is.null(revision)) {
    files <- system2("git", c("-C", shQuote(root), "ls-files", "--cached", "--others", "--exclude-standard"),
                     stdout = TRUE)
    files <- files[file.exists(file.path(root, files)) & !grepl("\\.(o|so|dll)$", files)]
    for (sub in unique(dirname(files))) dir.create(file.path(dir, sub), recursive = TRUE, showWarnings = FALSE)
    stopifnot(all(file.copy(file.path(root, files), file.path(dir, files))))
  } else {
    status <- system(sprintf("git -C %s archive --format=tar %s | tar -x -C %s", shQuote(root), revision,
                             shQuote(dir)))
    if (status != 0L) stop("git archive of ", revision, " failed")
  }
  dir
}

# The library holding the build of `commit`, installed on first use into
# KREIN_BENCH_CACHE (default tools::R_user_dir("krein", "cache")/bench)
cached_commit_library <- function(root, commit) {
  cache <- Sys.getenv("KREIN_BENCH_CACHE", file.path(tools::R_user_dir("krein", "cache"), "bench"))
  library <- file.path(cache, paste0("lib-", commit))
  if (!dir.exists(file.path(library, "krein"))) install_into(export_revision(root, commit), library)
  library
}
