# At most two threads in the tests (CRAN's policy for checks; the tests'
# results do not depend on the count): the default thread count of krein's
# functions and OpenMP's default, which Eigen's products and a count of 0 use.
# In testthat's parallel mode each worker process takes one core: one thread.
test_threads <- if (identical(Sys.getenv("TESTTHAT_IS_PARALLEL"), "true")) 1L else 2L
options(krein.threads = test_threads)
krein:::cpp_set_omp_threads(test_threads)
