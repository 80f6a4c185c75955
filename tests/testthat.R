library(testthat)
library(krein)

test_check("krein")
