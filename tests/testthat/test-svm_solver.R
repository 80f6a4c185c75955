# The two-class C-SVM dual of the core (svm.hpp; libsvm's SMO with the
# second-order working set selection of Fan, Chen and Lin 2005, without
# shrinking), which the cost cross-validations of isvm() and krein_svm() use
# instead of kernlab's ksvm(). Checked against the problem itself, in plain
# R: the KKT conditions to the solver's tolerance and the dual objective
# against kernlab's solution of the same problem; then the choices of C
# against those of the kernlab folds.

skip_if_not_installed("kernlab")

# The dual of min 1/2 a'Qa - 1'a, 0 <= a <= C, y'a = 0, Q = (y y') * K, at a
# = coefficients * y; and the largest violation of its KKT conditions,
# max over I_up of -y G minus min over I_low of -y G (Keerthi et al. 2001),
# with G = Q a - 1
svm_dual <- function(K, y, C, coefficients) {
  a <- coefficients * y
  Q <- outer(y, y) * K
  G <- drop(Q %*% a) - 1
  up <- (y > 0 & a < C) | (y < 0 & a > 0)
  low <- (y > 0 & a > 0) | (y < 0 & a < C)
  list(objective = 0.5 * sum(a * drop(Q %*% a)) - sum(a), alpha = a,
       violation = max(-y[up] * G[up]) - min(-y[low] * G[low]), balance = sum(y * a))
}

test_that("the core's two-class SVM solves the dual to kernlab's tolerance, positive definite or not", {
  set.seed(51)
  board <- checkerboard(120, size = 2)
  x <- as.matrix(board[, 1:2])
  y <- board$y
  signs <- ifelse(as.integer(y) == 2L, 1, -1)
  kernels <- list(rbf = kernel_matrix(x, kernel = kernel_rbf(2)),
                  tanh = kernel_matrix(x, kernel = kernel_tanh(1, -1)))
  expect_lt(min(eigen(kernels$tanh, symmetric = TRUE, only.values = TRUE)$values), -1)
  for (name in names(kernels)) for (C in c(0.1, 1, 100)) {
    K <- kernels[[name]]
    info <- sprintf("%s, C = %g", name, C)
    ours <- krein:::smo_binary(K, y, C)
    expect_true(ours$converged, info = info)
    dual <- svm_dual(K, signs, C, ours$coefficients)
    expect_lt(dual$violation, 1e-3 + 1e-9)
    expect_true(all(dual$alpha >= 0 & dual$alpha <= C), info = info)
    expect_lt(abs(dual$balance), 1e-8 * C * length(y))
    if (name == "rbf") {
      # a convex problem: the same optimum as kernlab's, to the tolerance
      theirs <- krein:::kernlab_binary(K, y, C)
      reference <- svm_dual(K, signs, C, theirs$coefficients)
      expect_lt(abs(dual$objective - reference$objective), 1e-3 * max(1, abs(reference$objective)))
      f_ours <- drop(K %*% ours$coefficients) + ours$b
      f_theirs <- drop(K %*% theirs$coefficients) + theirs$b
      expect_gte(mean(sign(f_ours) == sign(f_theirs)), 0.97)
    }
  }
  # the sign: f > 0 favours the second level
  fit <- krein:::smo_binary(kernels$rbf, y, 10)
  f <- drop(kernels$rbf %*% fit$coefficients) + fit$b
  expect_gt(mean((f > 0) == (as.integer(y) == 2L)), 0.9)
})

test_that("the cost cross-validation with the core's SVM chooses what kernlab's folds choose", {
  # isvm_cost_cv() takes smo_fold_outputs() by default; kernlab_fold_outputs()
  # fits the same problems with ksvm(). The chosen cost must be the same, or
  # one whose error under kernlab's folds is within a point of the lowest;
  # each cost's error within two points (both solvers stop at a KKT violation
  # of 1e-3, so a few held-out points near a boundary may change sides)
  set.seed(52)
  mixture <- gaussian_mixture_2d(100)
  cases <- list(
    list(K = kernel_matrix(as.matrix(mixture[, 1:2]), kernel = kernel_rbf(1)), y = mixture$y),
    list(K = kernel_matrix(as.matrix(iris[, 1:4]), kernel = kernel_rbf(0.5)), y = iris$Species),
    list(K = kernel_matrix(scale(as.matrix(iris[, 1:4])), kernel = kernel_tanh(0.5, -1)), y = iris$Species))
  for (case in cases) {
    ours <- krein:::isvm_cost_cv(case$K, case$y)
    theirs <- krein:::isvm_cost_cv(case$K, case$y, fold_outputs = krein:::kernlab_fold_outputs)
    expect_lte(max(abs(ours$table$error - theirs$table$error)), 0.02 + 1e-12)
    chosen <- krein:::cross_validated_cost(ours)$C
    expect_lte(theirs$table$error[theirs$table$C == chosen], min(theirs$table$error) + 0.01 + 1e-12)
    # the held-out decision values (Platt's data) agree in sign almost everywhere
    for (j in seq_along(ours$decisions)) {
      expect_gte(mean(sign(ours$decisions[[j]]) == sign(theirs$decisions[[j]])), 0.95)
    }
  }
})

test_that("the core's one-vs-one decisions for all costs at once equal the two-class fits pair by pair", {
  # one_vs_one_decisions() (one core call per fold of the cost
  # cross-validation) against the pairs fitted one by one in R: each pair
  # (i, j), i < j, in kernlab's order, on its own points, labelled +1 for the
  # second class, the held-out decisions K_new[, members] a + b per cost
  x <- scale(as.matrix(iris[, 1:4]))
  train <- seq(1, 150, by = 3)
  train <- sort(c(train, train + 1L))
  held_out <- setdiff(1:150, train)
  for (kernel in list(kernel_rbf(gamma = 0.5), kernel_tanh(scale = 0.5, offset = -1))) {
    K <- kernel_matrix(kernel, x[train, ])
    K_new <- kernel_matrix(kernel, x[held_out, ], x[train, ])
    y <- iris$Species[train]
    grid <- c(0.1, 1, 10, 100)
    all_at_once <- krein:::cpp_svm_one_vs_one(K, as.integer(y), 3L, grid, K_new, 1e-3)
    expect_identical(dim(all_at_once), c(length(held_out), 3L * 4L))
    pairs <- combn(3, 2)
    for (j in seq_along(grid)) {
      for (p in 1:3) {
        members <- which(as.integer(y) %in% pairs[, p])
        pair_y <- factor(as.integer(y)[members], levels = pairs[, p])
        solved <- krein:::smo_binary(K[members, members], pair_y, grid[j])
        expect_equal(all_at_once[, (j - 1) * 3 + p], drop(K_new[, members] %*% solved$coefficients) + solved$b,
                     tolerance = 1e-12)
      }
    }
  }
  expect_error(krein:::cpp_svm_one_vs_one(K, c(as.integer(y)[-1], 4L), 3L, grid, K_new, 1e-3), "class codes")
})
