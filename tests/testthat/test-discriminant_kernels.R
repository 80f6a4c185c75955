# kernel_discriminant(): paper 004 (Hidaka and Kurita 2016), Sec. 4: DK
# (eq. 42), LDK (eq. 53), GDK (eq. 55), GMK (eq. 50) against the plain-R
# transcriptions in helper-onda.R, and the Mercer property (Sec. 4.2).

kernel_case <- function() {
  set.seed(3)
  n <- 45
  y <- factor(rep(c("a", "b", "c"), length.out = n))
  x <- cbind(rnorm(n) + as.integer(y), rnorm(n) * as.integer(y) / 2, rnorm(n))
  colnames(x) <- c("p", "q", "r")
  list(x = x, y = y, new = matrix(rnorm(15), 5, 3, dimnames = list(NULL, c("p", "q", "r"))))
}

expect_psd <- function(K) {
  expect_true(isSymmetric(K, tol = 1e-12))
  values <- eigen(K, symmetric = TRUE, only.values = TRUE)$values
  expect_gte(min(values), -1e-10 * max(values))
}

test_that("each discriminant kernel is positive semidefinite and equals its equation", {
  d <- kernel_case()
  # the paper's Gaussian classes: ML class covariances (pooling = 0)
  fit <- onda(d$x, d$y, scale = FALSE, pooling = 0)
  prior <- as.vector(fit$prior)
  B <- predict(fit, d$x, type = "prob")
  B_new <- predict(fit, d$new, type = "prob")
  expected <- list(
    dk = ref_dk(B, B, prior),
    ldk = ref_ldk(d$x, d$y, d$x, d$x, prior),
    gdk = ref_gdk(d$x, d$y, d$x, d$x, prior),
    gmk = ref_gmk(d$x, d$y, d$x, d$x, prior),
    ideal = ref_dk(diag(3)[as.integer(d$y), ], diag(3)[as.integer(d$y), ], prior)
  )
  for (kind in names(expected)) {
    kernel <- kernel_discriminant(fit, kind = kind)
    expect_s3_class(kernel, "krein_kernel")
    expect_identical(kernel$kind, kind)
    K <- kernel_matrix(kernel, d$x)
    expect_psd(K)
    expect_equal(K, expected[[kind]], tolerance = 1e-8, ignore_attr = TRUE)
  }
  # between new points and training points
  expect_equal(kernel_matrix(kernel_discriminant(fit, "dk"), d$new, d$x), ref_dk(B_new, B, prior),
               tolerance = 1e-8, ignore_attr = TRUE)
  expect_equal(kernel_matrix(kernel_discriminant(fit, "ldk"), d$new, d$x),
               ref_ldk(d$x, d$y, d$new, d$x, prior), tolerance = 1e-8, ignore_attr = TRUE)
  expect_equal(kernel_matrix(kernel_discriminant(fit, "gmk"), d$new, d$x),
               ref_gmk(d$x, d$y, d$new, d$x, prior), tolerance = 1e-8, ignore_attr = TRUE)
})

test_that("LDK is the DK of the linear posteriors of eq. (23), and GDK the DK of Gaussian NDA", {
  d <- kernel_case()
  linear <- onda(d$x, d$y, posterior = "linear")
  gaussian <- onda(d$x, d$y)
  expect_equal(kernel_matrix(kernel_discriminant(linear, "dk"), d$x),
               kernel_matrix(kernel_discriminant(gaussian, "ldk"), d$x), tolerance = 1e-10)
  expect_equal(kernel_matrix(kernel_discriminant(gaussian, "dk"), d$x),
               kernel_matrix(kernel_discriminant(linear, "gdk"), d$x), tolerance = 1e-10)
})

test_that("discriminant kernels work in krein models and in kernlab::ksvm", {
  d <- kernel_case()
  fit <- onda(d$x, d$y)
  model <- kqd(d$x, d$y, kernel = kernel_discriminant(fit, "gdk"), variant = "RC+")
  expect_s3_class(predict(model, d$new), "factor")
  # any classifier's posteriors give a DK
  dk <- kernel_discriminant(model, "dk")
  expect_psd(kernel_matrix(dk, d$x))
  skip_if_not_installed("kernlab")
  K <- kernel_matrix(kernel_discriminant(fit, "gdk"), d$x)
  svm <- kernlab::ksvm(kernlab::as.kernelMatrix(K), d$y, kernel = "matrix")
  sv <- kernlab::SVindex(svm)
  K_new <- kernel_matrix(kernel_discriminant(fit, "gdk"), d$new, d$x[sv, , drop = FALSE])
  predicted <- kernlab::predict(svm, kernlab::as.kernelMatrix(K_new))
  expect_length(predicted, 5L)
  expect_true(all(predicted %in% levels(d$y)))
  train_predicted <- kernlab::predict(svm, kernlab::as.kernelMatrix(K[, sv, drop = FALSE]))
  expect_lt(mean(train_predicted != d$y), 0.3)
})

test_that("plotting helpers draw and return their values", {
  d <- kernel_case()
  fit <- onda(d$x[, 1:2], d$y)
  pdf(NULL)
  on.exit(dev.off())
  K <- kernel_matrix(kernel_discriminant(fit, "gdk"), d$x[, 1:2])
  order <- plot_kernel_matrix(K, d$y, main = "GDK")
  expect_equal(d$y[order], sort(d$y))
  values <- plot_kernel_map(kernel_discriminant(fit, "gdk"), c(1, 0), d$x[, 1:2], d$y, resolution = 20)
  expect_equal(dim(values), c(20L, 20L))
  expect_snapshot(show_error(plot_kernel_map(kernel_rbf(1), c(1, 0), d$x, d$y)))
  expect_snapshot(show_error(plot_kernel_matrix(K, d$y[-1])))
  expect_snapshot(show_error(kernel_matrix(kernel_discriminant(fit, "ideal"), d$new[, 1:2])))
  expect_snapshot(show_error(kernel_discriminant(fit, "gauss")))
  expect_snapshot(show_error(kernel_discriminant(kqd(d$x, d$y, kernel = kernel_rbf(1)), kind = "gdk")))
})

test_that("GDK and GMK use the fit's own Gaussian classes, its ridge included", {
  d <- kernel_case()
  x <- cbind(d$x, r2 = d$x[, "r"])
  fit <- suppressWarnings(onda(x, d$y))
  expect_gt(fit$ridge, 0)
  # no second warning: the ridge resolved at the fit is reused
  expect_no_warning(K <- kernel_matrix(kernel_discriminant(fit, "gdk"), x))
  expect_equal(K, kernel_matrix(kernel_discriminant(fit, "dk"), x), tolerance = 1e-12)
  expect_psd(kernel_matrix(kernel_discriminant(fit, "gmk"), x))
})

test_that("kernel_discriminant() on an S4 fit, a number or nothing is a krein_error naming `fit`", {
  # not base errors ("$ operator not defined for this S4 class")
  expect_snapshot(show_error(kernel_discriminant(3)))
  expect_error(kernel_discriminant(), class = "krein_error", regexp = "`fit`")
  expect_error(kernel_discriminant(iris), class = "krein_error", regexp = "`fit`")
  skip_if_not_installed("kernlab")
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  svm <- kernlab::ksvm(as.matrix(d[, 1:2]), d$y)
  expect_snapshot(show_error(kernel_discriminant(svm)))
})

# A discriminant kernel applies its onda() fit's scaling itself, so it takes
# the data as given, whatever the model's `scale` (a model with scale = TRUE
# scaling the data once more gives kqd with the GDK a training error of 0.54,
# against 0.013 with scale = FALSE).
test_that("a discriminant kernel receives the data as given, whatever the model's `scale`", {
  X <- as.matrix(iris[, 1:4])
  y <- iris$Species
  fit <- onda(X, y)
  for (kind in c("gdk", "ldk", "dk")) {
    kernel <- kernel_discriminant(fit, kind)
    scaled <- kqd(X, y, kernel = kernel, variant = "RC+")
    plain <- kqd(X, y, kernel = kernel, variant = "RC+", scale = FALSE)
    expect_null(scaled$spec$scaling)
    expect_equal(predict(scaled, X, type = "decision"), predict(plain, X, type = "decision"), tolerance = 1e-10,
                 info = kind)
    expect_lt(scaled$training_error, 0.05)
  }
  # through the formula interface and another model too
  gdk <- kernel_discriminant(onda(Species ~ ., data = iris), "gdk")
  expect_equal(predict(ikfd(Species ~ ., data = iris, kernel = gdk), iris, type = "decision"),
               predict(ikfd(Species ~ ., data = iris, kernel = gdk, scale = FALSE), iris, type = "decision"),
               tolerance = 1e-10)
  # tune_krein() does not scale its folds for it either
  set.seed(1)
  tuned <- tune_krein(kqd, X, y, grid = list(reg = c(0.01, 0.1)), kernel = gdk, variant = "RC+", folds = 3)
  set.seed(1)
  plain <- tune_krein(kqd, X, y, grid = list(reg = c(0.01, 0.1)), kernel = gdk, variant = "RC+", folds = 3,
                      scale = FALSE)
  expect_equal(tuned$results$mean, plain$results$mean, tolerance = 1e-10)
  expect_lt(min(tuned$results$mean), 0.1)
})
