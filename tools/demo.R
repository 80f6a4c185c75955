# Quick start, command 1: install what is missing, install krein from this
# checkout with its vignettes built, and run its demonstration. Usage, from the
# checkout's root:
#   Rscript tools/demo.R
source(file.path("tools", "setup.R"))
# Rcpp and RcppEigen to compile krein; knitr and markdown to build its
# vignettes (no pandoc needed); kernlab and e1071 for the vignettes' SVM
# comparisons, which are left out without them.
install_missing(c("Rcpp", "RcppEigen", "knitr", "markdown", "kernlab", "e1071"))
install_krein()
message('Vignettes installed: browseVignettes("krein"), or vignette("krein") for the tour.')
source(system.file("demo", "checkerboard.R", package = "krein"), echo = TRUE, keep.source = TRUE,
       max.deparse.length = Inf)
