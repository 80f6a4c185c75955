# At most two threads in the tests (CRAN's policy for checks; the tests'
# results do not depend on the count): the default thread count of krein's
# functions and OpenMP's default, which Eigen's products and a count of 0 use.
options(krein.threads = 2L)
krein:::cpp_set_omp_threads(2L)
