# The full PCVM's M-step by preconditioned conjugate gradients (pcvm.hpp,
# step_cg; pcvm_control(solver = "cg")): the iterates, relevance vectors and
# predictions equal those of the direct solves, the Cholesky factorisation
# of I + M D G[A, A] D M from G = K'K ("cholesky") and of Phi_A'Phi_A formed
# in every iteration (the core's path without G), which test-pcvm.R checks
# against the plain-R transcription of Chen, Tino & Yao (2009) in
# helper-pcvm.R. Each fit's `solver` record shows that CG ran.

# as in test-pcvm.R: reaching max_iter is expected on some of these data
without_max_iter_warning <- function(expr) {
  withCallingHandlers(expr, krein_warning = function(w) {
    if (grepl("max_iter", conditionMessage(w))) invokeRestart("muffleWarning")
  })
}

# cpp_pcvm_fit() with the control list pcvm_pair() gives it; `core` adds
# the core's CG settings (its defaults: 200 steps per M-step, CG while at
# least max(1000, n / 4) basis functions are active)
pcvm_em <- function(K, signs, start, control, gram = TRUE, threads = 1L, core = list()) {
  krein:::cpp_pcvm_fit(K, FALSE, signs, signs, start, c(unclass(control), core), NULL, threads, gram = gram)
}

with_solver <- function(control, solver) {
  control$solver <- solver
  control
}

test_that("CG M-steps keep the iterates of the direct ones, positive definite and indefinite kernels", {
  set.seed(41)
  board <- checkerboard(300, size = 2)
  x <- as.matrix(board[, 1:2])
  signs <- ifelse(board$y == levels(board$y)[1], 1, -1)
  kernels <- list(rbf = kernel_matrix(x, kernel = kernel_rbf(2)),
                  tanh = kernel_matrix(x, kernel = kernel_tanh(2, -1)),
                  # a negated squared distance: rank 4 (so the sketch is exact), one
                  # positive eigenvalue, and ill-conditioned: the two direct paths
                  # differ by up to 2e-9 on it, hence its wider tolerance below
                  distance = -as.matrix(dist(x))^2)
  tolerance <- c(rbf = 1e-10, tanh = 1e-10, distance = 1e-8)
  expect_lt(min(eigen(kernels$tanh, symmetric = TRUE, only.values = TRUE)$values), -1)
  expect_lt(min(eigen(kernels$distance, symmetric = TRUE, only.values = TRUE)$values), -1)
  start <- ref_pcvm_start(300, signs)
  for (kernel in names(kernels)) {
    K <- kernels[[kernel]]
    for (control in list(pcvm_control(max_iter = 1, convergence = "weights"),
                         pcvm_control(max_iter = 4, convergence = "weights"),
                         pcvm_control(max_iter = 200, tol = 1e-3))) {
      cg <- pcvm_em(K, signs, start, with_solver(control, "cg"), threads = 2L)
      cholesky <- pcvm_em(K, signs, start, with_solver(control, "cholesky"))
      expect_same_iterates(cg, cholesky, tolerance[[kernel]])
      expect_same_iterates(cg, pcvm_em(K, signs, start, control, gram = FALSE), tolerance[[kernel]])
      # CG solved every M-step, with a sketch and without G
      expect_identical(cg$solver$cg_iterations, cg$iterations)
      expect_gte(cg$solver$cg_steps, cg$iterations)
      expect_identical(cg$solver$fallbacks, 0L)
      expect_identical(cg$solver$sketch_rank, 37)  # n / 8, rounded down
      expect_identical(cg$solver$gram_size, 0)
      expect_identical(cholesky$solver$cg_iterations, 0L)
      expect_identical(cholesky$solver$gram_size, 300)
    }
  }
})

test_that("the automatic solver goes from CG to G_A of the active set; CG falls back when capped or slow", {
  set.seed(42)
  board <- checkerboard(300, size = 2)
  x <- as.matrix(board[, 1:2])
  signs <- ifelse(board$y == levels(board$y)[1], 1, -1)
  K <- kernel_matrix(x, kernel = kernel_rbf(2))
  start <- ref_pcvm_start(300, signs)
  control <- pcvm_control(max_iter = 200, tol = 1e-3)
  cholesky <- pcvm_em(K, signs, start, with_solver(control, "cholesky"))
  # small data: the automatic solver is the Cholesky path
  automatic <- pcvm_em(K, signs, start, control)
  expect_identical(automatic, cholesky)
  # CG while at least 150 basis functions are active, then G_A for the
  # active set of that moment (a proper subset) and its submatrices after
  switched <- pcvm_em(K, signs, start, control, core = list(cg_min_active = 150))
  expect_same_iterates(switched, cholesky)
  expect_gte(switched$solver$cg_iterations, 2L)
  expect_lt(switched$solver$cg_iterations, switched$iterations)
  expect_lt(switched$solver$gram_size, 150)
  expect_gt(switched$solver$gram_size, length(which(switched$weights > 0)))
  # one CG step cannot reach the tolerance: the first M-step falls back to
  # the direct solve (G over all basis functions), and the fit is the same
  capped <- pcvm_em(K, signs, start, with_solver(control, "cg"), core = list(cg_max_steps = 1))
  expect_same_iterates(capped, cholesky, tolerance = 1e-12)
  expect_identical(capped$solver[c("cg_iterations", "cg_steps", "fallbacks")],
                   list(cg_iterations = 0L, cg_steps = 1L, fallbacks = 1L))
  expect_identical(capped$solver$gram_size, 300)
  # a CG whose first ten steps predict more steps than allowed gives up
  # after those ten (this one needs about 18 at the sketch's rank 37)
  early <- pcvm_em(K, signs, start, pcvm_control(max_iter = 1, convergence = "weights", solver = "cg"),
                   core = list(cg_max_steps = 11))
  expect_identical(early$solver[c("cg_iterations", "cg_steps", "fallbacks")],
                   list(cg_iterations = 0L, cg_steps = 10L, fallbacks = 1L))
})

test_that("pcvm() with CG M-steps gives the same models and predictions, two and more classes", {
  set.seed(43)
  board <- checkerboard(240, size = 2)
  sine <- sine_populations(60)  # four classes, 60 points each
  test_board <- checkerboard(60, size = 2)
  test_sine <- sine_populations(15)
  fit_with <- function(solver, ..., control) {
    set.seed(44)
    without_max_iter_warning(pcvm(..., control = with_solver(control, solver)))
  }
  cases <- list(
    list(args = list(y ~ x1 + x2, data = board, kernel = kernel_rbf(2), control = pcvm_control(max_iter = 200)),
         test = test_board),
    list(args = list(y ~ x1 + x2, data = board, kernel = kernel_tanh(2, -1), scale = FALSE,
                     control = pcvm_control(max_iter = 100, convergence = "weights")),
         test = test_board),
    list(args = list(y ~ ., data = sine, kernel = kernel_rbf(1), scale = FALSE, control = pcvm_control(max_iter = 200)),
         test = test_sine))
  for (case in cases) {
    cg <- do.call(fit_with, c(list("cg"), case$args))
    cholesky <- do.call(fit_with, c(list("cholesky"), case$args))
    for (k in seq_along(cg$models)) {
      expect_identical(cg$models[[k]]$relevant, cholesky$models[[k]]$relevant)
      expect_equal(cg$models[[k]]$weights, cholesky$models[[k]]$weights, tolerance = 1e-10)
      expect_equal(cg$models[[k]]$bias, cholesky$models[[k]]$bias, tolerance = 1e-10)
      expect_identical(cg$models[[k]]$iterations, cholesky$models[[k]]$iterations)
      expect_identical(cg$models[[k]]$solver$cg_iterations, cg$models[[k]]$iterations)
      expect_identical(cholesky$models[[k]]$solver$cg_iterations, 0L)
    }
    for (type in c("latent", "prob")) {
      expect_equal(predict(cg, case$test, type = type), predict(cholesky, case$test, type = type), tolerance = 1e-10)
      expect_equal(predict(cg, type = type), predict(cholesky, type = type), tolerance = 1e-10)
    }
    expect_identical(predict(cg, case$test), predict(cholesky, case$test))
  }
  # the sketch draws nothing from R's RNG: the stream after a fit is the same
  set.seed(45)
  without_max_iter_warning(pcvm(y ~ x1 + x2, data = board, control = pcvm_control(max_iter = 5, solver = "cg")))
  after_cg <- runif(1)
  set.seed(45)
  without_max_iter_warning(pcvm(y ~ x1 + x2, data = board,
                                control = pcvm_control(max_iter = 5, solver = "cholesky")))
  expect_identical(runif(1), after_cg)
})

test_that("the solver is checked", {
  set.seed(46)
  board <- checkerboard(40, size = 2)
  expect_snapshot(show_error(pcvm(y ~ x1 + x2, data = board, control = pcvm_control(solver = "qr"))))
  control <- pcvm_control()
  control$solver <- "qr"
  expect_error(pcvm(y ~ x1 + x2, data = board, control = control), "control\\$solver", class = "krein_error")
})

test_that("several starts in one call share the sketch and keep each start's iterates", {
  # pcvm_pair() fits all of a pair's EM starts in one call
  # (cpp_pcvm_fit_starts()), which forms the sketch of K'K once, in the first
  # start's first CG step, and keeps it for the others (FullBasis::
  # next_start()): every start must reach the iterates of its own fit, the
  # automatic solver's switch to G_A included, and report the shared rank.
  set.seed(43)
  board <- checkerboard(300, size = 2)
  x <- as.matrix(board[, 1:2])
  signs <- ifelse(board$y == levels(board$y)[1], 1, -1)
  K <- kernel_matrix(x, kernel = kernel_rbf(2))
  starts <- lapply(1:3, function(k) ref_pcvm_start(300, signs))
  for (control in list(with_solver(pcvm_control(max_iter = 200, tol = 1e-3), "cg"),
                       c(unclass(pcvm_control(max_iter = 200, tol = 1e-3)), list(cg_min_active = 150)))) {
    together <- krein:::cpp_pcvm_fit_starts(K, FALSE, signs, signs, starts, control, NULL, 1L)
    expect_length(together, 3L)
    for (k in 1:3) {
      alone <- krein:::cpp_pcvm_fit(K, FALSE, signs, signs, starts[[k]], control, NULL, 1L)
      expect_same_iterates(together[[k]], alone)
      expect_identical(together[[k]]$solver$sketch_rank, alone$solver$sketch_rank)
      expect_gte(together[[k]]$solver$cg_iterations, 2L)
    }
    # the starts differ, so the test compares different fits
    expect_false(identical(together[[1]]$weights, together[[2]]$weights))
  }
  # Ny-PCVM's starts share the QR of the landmark columns and run on
  # threads, one start each: the same fits as one by one, on any number of
  # threads
  columns <- sort(c(which(signs > 0)[1:10], which(signs < 0)[1:10]))
  C <- K[, columns]
  short <- lapply(1:3, function(k) ref_pcvm_start(20, signs))
  control <- pcvm_control(max_iter = 100, tol = 1e-3)
  together <- krein:::cpp_pcvm_fit_starts(C, TRUE, signs, signs[columns], short, control, NULL, 1L)
  for (k in 1:3) {
    expect_same_iterates(together[[k]], krein:::cpp_pcvm_fit(C, TRUE, signs, signs[columns], short[[k]], control,
                                                              NULL, 1L))
  }
  expect_identical(krein:::cpp_pcvm_fit_starts(C, TRUE, signs, signs[columns], short, control, NULL, 2L), together)
  # below the size of CG (and of the sketch the starts would share), the full
  # PCVM's starts run on threads, each with its own basis: the same fits,
  # statistics included, as one by one on one thread
  control <- pcvm_control(max_iter = 200, tol = 1e-3)
  alone <- lapply(starts, function(start) krein:::cpp_pcvm_fit(K, FALSE, signs, signs, start, control, NULL, 1L))
  for (threads in c(1L, 2L)) {
    together <- krein:::cpp_pcvm_fit_starts(K, FALSE, signs, signs, starts, control, NULL, threads)
    for (k in 1:3) {
      expect_same_iterates(together[[k]], alone[[k]], tolerance = 0)
      expect_identical(together[[k]]$solver, alone[[k]]$solver)
      expect_identical(together[[k]]$training_errors, alone[[k]]$training_errors)
    }
  }
})
