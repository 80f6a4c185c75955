# Bad numbers end in a krein_error or a documented warning, never a crash, a
# hang or a silent NaN.

robust_data <- function() {
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  list(X = as.matrix(d[, 1:2]), Y = d$y)
}

# --- KQD with a regularisation too small for the kernel's scale --------------

test_that("kqd stops with a krein_error on non-finite training distances (reg = 1e-200)", {
  d <- robust_data()
  # with bias = "error" NaN scores must not reach the tie loop of the pair
  # bias (memory would grow until std::bad_alloc); with bias = "none" they
  # must not become NaN probabilities
  expect_snapshot(show_error(kqd(d$X, d$Y, kernel = kernel_rbf(1), variant = "RC-", reg = 1e-200)))
  expect_error(kqd(d$X, d$Y, kernel = kernel_rbf(1), variant = "RC-", reg = 1e-200, bias = "none"),
               "not finite", class = "krein_error")
  expect_error(kqd(d$X, d$Y, kernel = kernel_rbf(1), variant = "IC+", reg = 1e-200, indefinite = "yes"),
               "IC\\+.*reg = 1e-200", class = "krein_error")
})

test_that("a path value with non-finite distances is left out with a warning, recorded as NA", {
  d <- robust_data()
  expect_warning(
    fit <- kqd(d$X, d$Y, kernel = kernel_rbf(1), variant = "RC-", reg = c(1e-200, 0.1)),
    "reg = 1e-200.*left out", class = "krein_warning")
  expect_true(is.na(fit$path_error[1]))
  expect_true(all(is.na(fit$bias[1, ])))
  expect_equal(fit$best, 2L)
  # the usable value is the fit of that value alone
  alone <- kqd(d$X, d$Y, kernel = kernel_rbf(1), variant = "RC-", reg = 0.1)
  expect_equal(fit$path_error[2], alone$path_error[1])
  expect_equal(unname(fit$bias[2, ]), unname(alone$bias[1, ]))
  p <- predict(fit, d$X[1:3, ], type = "prob")
  expect_true(all(is.finite(p)))
  expect_equal(p, predict(alone, d$X[1:3, ], type = "prob"))
  expect_error(predict(fit, d$X[1:3, ], reg = 1e-200), "left out of the fit", class = "krein_error")
  expect_error(predict(fit, reg = 1e-200), "left out of the fit", class = "krein_error")
})

# --- No NaN probabilities from kqd's prediction ------------------------------

test_that("kqd prediction refuses non-finite distances of new points, naming the rows", {
  d <- robust_data()
  K <- kernel_matrix(kernel_rbf(1), d$X)
  fit <- kqd(precomputed_kernel(K), d$Y, variant = "RC-", reg = 0.1)
  # finite kernel values so large that the RC distances of rows 2 and 3 overflow
  K_new <- K[1:3, ]
  K_new[2:3, ] <- rep(1e305 * seq_len(ncol(K)) / ncol(K), each = 2)
  new <- precomputed_kernel(K_new, self = c(1, 1e305, 1e305))
  expect_error(predict(fit, new, type = "prob"), "rows 2 and 3 are not finite", class = "krein_error")
  expect_snapshot(show_error(predict(fit, new, type = "prob")))
  expect_true(all(is.finite(predict(fit, precomputed_kernel(K[1:3, ], self = rep(1, 3)), type = "prob"))))
})

# --- threads ------------------------------------------------------------------

test_that("threads is validated and capped at the processor count", {
  set.seed(2)
  x <- matrix(rnorm(400), 200)
  # 1e6 threads must not crash R (segfault; 1e5: C stack overflow)
  expect_equal(kernel_matrix(kernel_rbf(1), x, threads = 1e6), kernel_matrix(kernel_rbf(1), x, threads = 1))
  expect_lte(check_threads(1e6), max(1L, cpp_processor_count()))
  expect_identical(check_threads(0), 0L)
  expect_identical(check_threads(1), 1L)
  for (bad in list(-1, 1.5, NA, Inf, "2", c(1, 2), 1e10 + 0.5)) {
    expect_error(kernel_matrix(kernel_rbf(1), x, threads = bad), "`threads` must be a whole number",
                 class = "krein_error")
  }
  old <- options(krein.threads = -2)
  on.exit(options(old), add = TRUE)
  expect_snapshot(show_error(kernel_matrix(kernel_rbf(1), x)))
  expect_error(kqd(x, factor(rep(1:2, 100))), "options\\(krein.threads\\)", class = "krein_error")
})

test_that("under a check that limits cores the default is 2 threads", {
  old_option <- options(krein.threads = NULL)
  old_limit <- Sys.getenv("_R_CHECK_LIMIT_CORES_", NA)
  on.exit({
    options(old_option)
    if (is.na(old_limit)) Sys.unsetenv("_R_CHECK_LIMIT_CORES_") else Sys.setenv(`_R_CHECK_LIMIT_CORES_` = old_limit)
  }, add = TRUE)
  Sys.setenv(`_R_CHECK_LIMIT_CORES_` = "TRUE")
  expect_identical(check_threads(NULL), min(2L, max(1L, cpp_processor_count())))
  Sys.setenv(`_R_CHECK_LIMIT_CORES_` = "false")
  expect_identical(check_threads(NULL), 0L)
  Sys.unsetenv("_R_CHECK_LIMIT_CORES_")
  expect_identical(check_threads(NULL), 0L)
  # an explicit option or argument still wins
  Sys.setenv(`_R_CHECK_LIMIT_CORES_` = "TRUE")
  options(krein.threads = 1L)
  expect_identical(check_threads(NULL), 1L)
  expect_identical(check_threads(0), 0L)
})

# --- The eigensolver where LAPACK's MRRR fails --------------------------------

test_that("symmetric_eigen falls back where dstemr fails (INFO = 22) and stays exact", {
  # The tridiagonal form of a 200 x 200 Gaussian kernel matrix of k-means
  # landmarks on kernlab's spam data (the reproducer below), on which
  # LAPACK 3.11's dstemr fails ("dstemr failed, info = 22"); krein falls back.
  tri <- utils::read.table(test_path("fixtures", "dstemr-failing-tridiagonal.txt"), header = TRUE)
  n <- nrow(tri)
  tridiagonal <- diag(tri$diagonal)
  tridiagonal[cbind(2:n, 1:(n - 1))] <- tridiagonal[cbind(1:(n - 1), 2:n)] <- tri$subdiagonal[-n]
  e <- cpp_symmetric_eigen(tridiagonal, TRUE)
  reference <- eigen(tridiagonal, symmetric = TRUE)  # R's dsyevr, which falls back itself
  expect_equal(e$values, reference$values, tolerance = 1e-10)
  expect_lt(max(abs(tridiagonal %*% e$vectors - e$vectors %*% diag(e$values))),
            1e-10 * max(abs(tridiagonal)))
  expect_lt(max(abs(crossprod(e$vectors) - diag(n))), 1e-10)
})

test_that("ikfd on a spam subset with k-means landmarks fits (dstemr failed there)", {
  skip_if_not_installed("kernlab")
  data("spam", package = "kernlab", envir = environment())
  set.seed(1)
  i <- sample(nrow(spam), 3000)
  set.seed(1)
  fit <- ikfd(type ~ ., data = spam[i, ], landmarks = "kmeans", m = 200)
  expect_gt(mean(predict(fit, spam[-i, ][1:500, ]) == spam$type[-i][1:500]), 0.7)
})

# --- Non-finite values of built-in kernels -----------------------------------

test_that("built-in kernels with NaN or Inf values stop with an error naming the kernel", {
  d <- robust_data()
  expect_snapshot({
    show_error(kernel_matrix(kernel_poly(degree = 0.5, offset = 0), d$X))
    show_error(kernel_matrix(kernel_linear(), d$X * 1e300))
    show_error(kernel_matrix(kernel_tanh(), d$X * 1e300))
    show_error(kernel_matrix(kernel_invariant(kernel_linear()), d$X * 1e300))
  })
  # against new points and for the self-similarities of new points too
  expect_error(kernel_matrix(kernel_linear(), d$X[1:3, ] * 1e300, d$X * 1e300), "kernel_linear\\(\\)",
               class = "krein_error")
  expect_error(kernel_self(kernel_linear(), d$X * 1e300), "kernel_linear\\(\\)", class = "krein_error")
  # a non-whole degree is allowed where the base is non-negative
  expect_true(all(is.finite(kernel_matrix(kernel_poly(degree = 0.5, offset = 10), d$X))))
})

test_that("kernel widths whose square underflows or overflows are rejected", {
  expect_snapshot(show_error(kernel_dist(s = 1e-200)))
  expect_error(kernel_dist(s = 1e200), "`s` must be", class = "krein_error")
  expect_error(kernel_epanechnikov(width = 1e-200), "`width` must be", class = "krein_error")
  expect_no_error(kernel_dist(s = 1e-100))
})

test_that("every model stops with the kernel's krein_error, not NA classes or LAPACK failures", {
  d <- robust_data()
  k <- kernel_poly(degree = 0.5, offset = 0)
  pattern <- "kernel_poly\\(degree = 0.5, scale = 1, offset = 0\\) gave"
  expect_error(kqd(d$X, d$Y, kernel = k), pattern, class = "krein_error")
  expect_error(ikfd(d$X, d$Y, kernel = k), pattern, class = "krein_error")
  expect_error(kfda(d$X, d$Y, kernel = k), pattern, class = "krein_error")
  expect_error(nystrom(d$X, k, landmarks = 1:10), pattern, class = "krein_error")
  expect_error(ikpca_qd(d$X, d$Y, kernel = k), pattern, class = "krein_error")
  # inputs of 1e300 taken as given (scale = TRUE would make them ordinary)
  expect_error(kqd(d$X * 1e300, d$Y, kernel = kernel_linear(), scale = FALSE), "kernel_linear\\(\\) gave",
               class = "krein_error")
  expect_s3_class(kqd(d$X * 1e300, d$Y, kernel = kernel_linear()), "kqd")
  skip_if_not_installed("kernlab")
  expect_error(isvm(d$X, d$Y, kernel = k), pattern, class = "krein_error")
  expect_error(kmdc(d$X, d$Y, kernel = k), pattern, class = "krein_error")
})

# --- The median heuristic on tiny and huge data ------------------------------

test_that("median_gamma is scale-safe: tiny and huge data get the right width", {
  d <- robust_data()
  # plain transcription of the heuristic: 1 / median of the squared distances
  reference <- 1 / stats::median(stats::dist(d$X)^2)
  expect_equal(median_gamma(d$X), reference)
  # squared distances of 1e154 data overflow (a median of Inf would say "no
  # two distinct rows"), though gamma = 2.4e-309 is a double
  expect_equal(median_gamma(d$X * 1e154), reference * 1e-308, tolerance = 1e-10)
  expect_equal(median_gamma(d$X * 1e-150), reference * 1e300, tolerance = 1e-12)
  # squared distances of 1e-300 data underflow to 0 and gamma (1e600) is no
  # double: an error that says so, not "no two distinct rows"
  expect_error(median_gamma(d$X * 1e-300), "outside the range of double precision", class = "krein_error")
  expect_snapshot(show_error(median_gamma(d$X * 1e-300)))
  expect_error(median_gamma(matrix(1e-300, 5, 2)), "no two distinct rows", class = "krein_error")
  expect_error(median_gamma(matrix(0, 5, 2)), "no two distinct rows", class = "krein_error")
})

test_that("an exception of the C++ core reaches users as a krein_numerical_error", {
  # the eigensolver rejects non-finite input with std::invalid_argument; Rcpp
  # makes that a plain `C++Error`, which with_core_errors() turns into a
  # krein error naming what was being computed
  err <- expect_error(with_core_errors("Computing the test spectrum",
                                       cpp_symmetric_eigen(matrix(NaN, 2, 2), FALSE)),
                      class = "krein_numerical_error")
  expect_s3_class(err, "krein_error")
  expect_match(conditionMessage(err), "^Computing the test spectrum failed in krein's numerical core: ")
  # errors of R code pass unchanged
  expect_error(with_core_errors("x", stop("plain R error")), "plain R error", class = "simpleError")
})

test_that("Gaussian posteriors in row blocks equal those of one block", {
  # gaussian_discriminants() works in blocks of rows so that 1e7 training
  # scores (a fit over chunks) need bounded temporaries; rows are independent,
  # so any blocking gives the same values, names and order -- the same up to
  # rounding: a BLAS may round a product of 7 rows differently from one of 120
  # (OpenBLAS chooses its kernels by size; the posteriors then differ in the
  # 10th digit), while a row mixed up would differ in the first
  set.seed(11)
  d <- checkerboard(120, size = 2)
  d$y <- factor(rep(c("a", "b", "c"), 40))
  fit_i <- ikfd(y ~ ., data = d, kernel = kernel_rbf(1))
  fit_k <- kfda(y ~ ., data = d, kernel = kernel_rbf(1), discriminant = "quadratic", ncomp = 4)
  whole <- list(predict(fit_i, d, type = "prob"), predict(fit_k, d, type = "prob"), predict(fit_i, type = "prob"))
  local_krein_functions(list(gaussian_block_rows = function() 7L))
  blocked <- list(predict(fit_i, d, type = "prob"), predict(fit_k, d, type = "prob"), predict(fit_i, type = "prob"))
  expect_identical(dimnames(blocked[[1]]), dimnames(whole[[1]]))
  for (i in seq_along(whole)) expect_equal(blocked[[i]], whole[[i]], tolerance = 1e-8)
})

test_that("Gaussian discriminants skip the power-of-two scaling only where it changes no bit", {
  # gaussian_parts(): for moderate values the unscaled product x W (pooled
  # models) and the unscaled solves R_k^-T (x - m_k) (per-class models) are
  # what the overflow-safe path computes, bit for bit (scaling by 2^k is
  # exact for normal numbers); gaussian_always_scaled() is replaced to force
  # the scaled path for this comparison
  set.seed(12)
  d <- checkerboard(200, size = 3)
  d$y <- factor(rep(c("a", "b", "c", "d"), 50))
  fits <- list(ikfd(y ~ ., data = d, kernel = kernel_rbf(2)),
               kfda(y ~ ., data = d, kernel = kernel_rbf(2), discriminant = "quadratic", ncomp = 6),
               ikpca_qd(y ~ ., data = d, kernel = kernel_rbf(2), pvar = 0.9))
  expect_false(fits[[2]]$gaussian$pooled)
  expect_false(fits[[3]]$gaussian$pooled)
  new <- checkerboard(300, size = 3)
  predictions <- function() {
    lapply(fits, function(fit) list(predict(fit, new, type = "prob"), predict(fit, new, type = "decision"),
                                    predict(fit, type = "prob")))
  }
  fast <- predictions()
  local_krein_functions(list(gaussian_always_scaled = function() TRUE))
  scaled <- predictions()
  expect_identical(fast, scaled)
  expect_true(krein:::moderate_values(c(0, 1e-60, -1e60)))
  expect_false(krein:::moderate_values(c(1, 1e-70)))
  expect_false(krein:::moderate_values(c(1, Inf)))
  expect_false(krein:::moderate_values(c(1, NA)))
})

test_that("Nystroem fits on a kernel of zeros end in a krein error or a valid fit, never a crash", {
  # Ny-iKFD read past the empty matrices of a landmark block without an
  # eigenvalue above rounding and ended R; the full iKFD warns and fits
  y <- factor(rep(c("a", "b"), 30))
  zero <- matrix(0, 60, 60)
  expect_s3_class(suppressWarnings(ikfd(zero, y, kernel = "precomputed")), "ikfd")
  expect_error(suppressWarnings(ikfd(zero, y, kernel = "precomputed", landmarks = "meb")), class = "krein_error",
               regexp = "approximation of the kernel is zero")
  # every model with a Nystroem fit, on every landmark method
  nystrom_models <- Filter(function(m) !is.null(krein:::model_info(m)$landmark_args), krein:::registered_models())
  for (name in nystrom_models) {
    if (name %in% c("isvm", "krein_svm")) skip_if_not_installed("LiblineaR")
    fun <- get(name, envir = asNamespace("krein"))
    for (landmarks in list("meb", "random", 1:10)) {
      args <- krein:::model_info(name)$landmark_args(landmarks)
      set.seed(1)
      result <- tryCatch(suppressWarnings(do.call(fun, c(list(zero, y, kernel = "precomputed"), args))),
                         krein_error = function(e) e)
      label <- sprintf("%s on a kernel of zeros, landmarks %s", name, deparse(landmarks))
      if (inherits(result, "krein_error")) {
        expect_true(nzchar(conditionMessage(result)), label = label)
      } else {
        p <- predict(result, type = "prob")
        expect_true(all(is.finite(p)) && all(abs(rowSums(p) - 1) < 1e-10), label = label)
      }
    }
  }
})

test_that("a precomputed kernel whose squares overflow is refused for that reason, not blamed on `reg`", {
  # not kqd's and kmdc's "the regularisation is too small" nor R's "missing
  # value where TRUE/FALSE needed" from ikfd
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  K <- kernel_matrix(kernel_rbf(1), as.matrix(d[, 1:2]))
  for (name in c("kqd", "kmdc", "ikfd", "pcvm", "kfda", "iknn", "ikpca_qd")) {
    fun <- get(name, envir = asNamespace("krein"))
    expect_error(fun(K * 1e300, d$y, kernel = "precomputed"), class = "krein_error",
                 regexp = "squares overflow|overflows double precision beyond", label = name)
    expect_s3_class(suppressWarnings(fun(K * 1e100, d$y, kernel = "precomputed")), name)
  }
})

test_that("one-point classes are named as the cause: in cross-validation and in kmdc's discriminant", {
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  x <- as.matrix(d[, 1:2])
  y <- factor(c("a", rep("b", 59)))
  # a fold's training part loses the class: not "`y` must have at least 2
  # classes; it has 1" from the fit
  expect_error(tune_krein(kqd, x, y, grid = list(reg = c(0.1, 1)), folds = 3), class = "krein_error",
               regexp = "`y` has a class with one point (\"a\"); cross-validation leaves it out", fixed = TRUE)
  # one point in every class: not MASS::lda's "constant within groups",
  # blamed on the kernel width
  expect_error(kmdc(x[1:3, ], factor(c("a", "b", "c"))), class = "krein_error",
               regexp = "one point in every class")
  # classes of one point beside one of two: fitted, with the warning naming them
  warned <- character()
  withCallingHandlers(kmdc(x[1:4, ], factor(c("a", "b", "c", "c"))), warning = function(w) {
    warned <<- c(warned, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  expect_match(warned, "Classes \"a\", \"b\" of `y` have one training row", fixed = TRUE, all = FALSE)
  expect_s3_class(suppressWarnings(kmdc(x[1:9, ], factor(rep(c("a", "b", "c"), 3)))), "kmdc")
})

test_that("a non-finite kernel value in the landmark pass is an error naming its row and landmark", {
  # the core's landmark pass reports the first kernel value that was not
  # finite by its row and landmark (tests/cpp: for_each_block() on NaN and
  # Inf inputs); R words the error from that position, with no second pass
  # to find it. The coordinate kernels the pass takes stay finite on finite
  # inputs, so the position is given here as the core's glue marks it.
  x <- matrix(c(1, 2, 3, 1e300, 5, 6), 3)
  result <- structure(list(), krein_nonfinite = c(2, 7))
  expect_snapshot(show_error(krein:::landmark_pass_checked(result, kernel_rbf(1), x, x[1:2, , drop = FALSE])))
  expect_identical(krein:::landmark_pass_checked(list(a = 1), kernel_rbf(1), x, x), list(a = 1))
})
