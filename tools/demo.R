# Quick start, command 1: install what is missing, install krein from this
# checkout and run its demonstration. Usage, from the checkout's root:
#   Rscript tools/demo.R
source(file.path("tools", "setup.R"))
install_missing(c("Rcpp", "RcppEigen"))
install_krein()
source(system.file("demo", "checkerboard.R", package = "krein"), echo = TRUE, keep.source = TRUE,
       max.deparse.length = Inf)
