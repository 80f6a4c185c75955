# Shared by test-app.R and test-app-browser.R: a view's code run in a fresh R
# process, and what a drawn plot output looks like.

# How a fresh R process loads krein: the installed package, or the source
# under test (pkgload::load_all(), exports only) when that is what runs here
krein_load_line <- function() {
  path <- getNamespaceInfo("krein", "path")
  # an installed package has Meta/; a source tree loaded by pkgload has not
  if (!dir.exists(file.path(path, "Meta")) && file.exists(file.path(path, "DESCRIPTION"))) {
    sprintf("pkgload::load_all(%s, export_all = FALSE, quiet = TRUE)", deparse(normalizePath(path)))
  } else {
    "library(krein)"
  }
}

# Runs a view's code in a fresh R process; returns its test error
run_code_in_fresh_r <- function(code) {
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  code <- sub("^library\\(krein\\)$", krein_load_line(), strsplit(code, "\n")[[1]])
  writeLines(c(code, "cat(sprintf('TEST_ERROR=%.17g\\n', test_error))"), script)
  out <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)), stdout = TRUE, stderr = TRUE,
                 env = c(paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)),
                         "OMP_NUM_THREADS=2"))
  line <- grep("^TEST_ERROR=", out, value = TRUE)
  if (length(line) != 1L) stop("the code did not run:\n", paste(utils::tail(out, 20), collapse = "\n"))
  as.numeric(sub("^TEST_ERROR=", "", line))
}

# A plot output is a PNG with something drawn on it (a blank plot of this
# size compresses to a few hundred bytes)
expect_drawn_png <- function(value, label) {
  # "iVBORw0KGgo" is the base64 of the PNG signature
  expect_match(value$src, "^data:image/png;base64,iVBORw0KGgo", label = label)
  expect_gt(nchar(value$src) * 3 / 4, 5000, label = label)
}
