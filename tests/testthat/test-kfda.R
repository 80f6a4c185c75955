# kfda(): KFLDA / KFQDA of paper 003 (Huang, Hwang and Lin 2005, Sec. 4)
# against MASS::lda / MASS::qda on the same reduced kernel data (the paper,
# Sec. 4.2: "the FDA step here is exactly the same as the classical
# version"), against the plain-R transcription of eqs. (11)-(12) in
# helper-kfda.R for the ridge variant, and Example 3 (Table 3).

three_class_data <- function(n = 90, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(2 * n), n, 2)
  y <- factor(rep(c("a", "b", "c"), length.out = n))
  x[y == "b", 1] <- x[y == "b", 1] + 1.5
  x[y == "c", 2] <- x[y == "c", 2] + 1.5
  x[y == "c", ] <- x[y == "c", ] * 0.6
  list(x = x, y = y, new = matrix(rnorm(60), 30, 2))
}

test_that("KFLDA with PCA equals MASS::lda on the same principal components of the kernel data", {
  d <- three_class_data()
  kernel <- kernel_rbf(0.3)
  K <- kernel_matrix(d$x, kernel = kernel)
  Kx <- kernel_matrix(d$new, d$x, kernel = kernel)
  for (q in c(2, 6, 12)) {
    fit <- kfda(d$x, d$y, kernel = kernel, ncomp = q, scale = FALSE)
    scores <- ref_kernel_pca_scores(K, Kx, q)
    oracle <- MASS::lda(scores$train, d$y)
    expected <- predict(oracle, scores$new)
    got <- predict(fit, d$new, type = "prob")
    expect_equal(unname(got), unname(expected$posterior), tolerance = 1e-8)
    expect_equal(predict(fit, d$new), expected$class)
    # the Fisher coordinates are MASS's, up to the sign of each direction
    proj <- predict(fit, d$new, type = "projection")
    expect_equal(abs(unname(proj)), abs(unname(expected$x)), tolerance = 1e-8)
  }
})

test_that("KFQDA with PCA equals MASS::qda (moment covariances) on the same components", {
  d <- three_class_data()
  kernel <- kernel_rbf(0.3)
  K <- kernel_matrix(d$x, kernel = kernel)
  Kx <- kernel_matrix(d$new, d$x, kernel = kernel)
  for (q in c(2, 5, 8)) {
    fit <- kfda(d$x, d$y, kernel = kernel, ncomp = q, discriminant = "quadratic", scale = FALSE)
    scores <- ref_kernel_pca_scores(K, Kx, q)
    oracle <- MASS::qda(scores$train, d$y, method = "moment")
    expected <- predict(oracle, scores$new)
    expect_equal(unname(predict(fit, d$new, type = "prob")), unname(expected$posterior), tolerance = 1e-8)
    expect_equal(predict(fit, d$new), expected$class)
  }
  # with unequal priors as well
  fit <- kfda(d$x, d$y, kernel = kernel, ncomp = 4, discriminant = "quadratic", prior = c(0.5, 0.3, 0.2), scale = FALSE)
  scores <- ref_kernel_pca_scores(K, Kx, 4)
  expected <- predict(MASS::qda(scores$train, d$y, prior = c(0.5, 0.3, 0.2)), scores$new)
  expect_equal(unname(predict(fit, d$new, type = "prob")), unname(expected$posterior), tolerance = 1e-8)
})

test_that("the ridge variant equals the transcription of eqs. (11)-(12) with M + rI", {
  d <- three_class_data(n = 45)
  kernel <- kernel_rbf(0.5)
  K <- kernel_matrix(d$x, kernel = kernel)
  Kx <- kernel_matrix(d$new, d$x, kernel = kernel)
  for (type in c("linear", "quadratic")) {
    for (r in c(1e-3, 0.05)) {
      fit <- kfda(d$x, d$y, kernel = kernel, discriminant = type, reduce = "ridge", ridge = r, scale = FALSE)
      expected <- ref_kfda_decisions(K, d$y, Kx, type, ridge = r)
      got <- predict(fit, d$new, type = "decision")
      expect_equal(unname(got), expected, tolerance = 1e-8)
      expect_equal(unname(predict(fit, d$new, type = "prob")), ref_posteriors(expected), tolerance = 1e-8)
    }
  }
  # Remark 1: without the log-determinants; and unequal priors
  fit <- kfda(d$x, d$y, kernel = kernel, discriminant = "quadratic", reduce = "ridge", ridge = 0.01,
              logdet = FALSE, prior = c(0.2, 0.3, 0.5), scale = FALSE)
  expected <- ref_kfda_decisions(K, d$y, Kx, "quadratic", ridge = 0.01, prior = c(0.2, 0.3, 0.5),
                                 logdet = FALSE)
  expect_equal(unname(predict(fit, d$new, type = "decision")), expected, tolerance = 1e-8)
})

test_that("random subset bases equal the transcription on the kernel columns of the bases", {
  d <- three_class_data()
  kernel <- kernel_rbf(0.5)
  set.seed(3)
  fit <- kfda(d$x, d$y, kernel = kernel, reduce = "subset", bases = 12, discriminant = "quadratic", ridge = 1e-4,
                scale = FALSE)
  expect_length(fit$bases, 12)
  K <- kernel_matrix(d$x, d$x[fit$bases, ], kernel = kernel)
  Kx <- kernel_matrix(d$new, d$x[fit$bases, ], kernel = kernel)
  expected <- ref_kfda_decisions(K, d$y, Kx, "quadratic", ridge = 1e-4)
  expect_equal(unname(predict(fit, d$new, type = "decision")), expected, tolerance = 1e-8)
  # the same seed draws the same bases; all points as bases is the ridge variant
  set.seed(3)
  again <- kfda(d$x, d$y, kernel = kernel, reduce = "subset", bases = 12, discriminant = "quadratic", ridge = 1e-4,
                scale = FALSE)
  expect_identical(again$bases, fit$bases)
  all_bases <- kfda(d$x, d$y, kernel = kernel, reduce = "subset", bases = seq_len(90), ridge = 0.01, scale = FALSE)
  ridge <- kfda(d$x, d$y, kernel = kernel, reduce = "ridge", ridge = 0.01, scale = FALSE)
  expect_equal(predict(all_bases, d$new, type = "prob"), predict(ridge, d$new, type = "prob"), tolerance = 1e-10)
  # a share of the points
  expect_length(kfda(d$x, d$y, kernel = kernel, reduce = "subset", bases = 0.25, scale = FALSE)$bases, 22)
})

test_that("subset fits on data in memory equal the plain-R computation on K(x, B), in row blocks", {
  # Data in memory take one pass over blocks of rows for the class moments of
  # the kernel data K(x, B) (the core's landmark pass, or without it,
  # without_landmark_pass(), the R blocks of Ny-iKFD) and a second
  # for the training decisions; the n x m kernel data and their centred,
  # scaled copy (column_reduction()) are never formed. The reference is
  # independent of krein's fitting code: K by kernel_matrix(), then the class
  # means, the pooled and class covariances (+ ridge I) and the discriminants
  # of eqs. (11)-(12) in plain R (ref_kfda_decisions(), helper-kfda.R), and
  # MASS::lda's Fisher coordinates of K. Blocks of 17 rows: several per
  # pass, the last one short.
  d3 <- three_class_data()
  sets <- list(three = d3, two = list(x = d3$x, y = factor(ifelse(d3$y == "a", "a", "b")), new = d3$new))
  bases <- c(2, 5, 11, 17, 23, 31, 40, 47, 58, 66, 71, 85)
  kernel <- kernel_rbf(0.5)
  K <- kernel_matrix(d3$x, d3$x[bases, ], kernel = kernel)
  Kx <- kernel_matrix(d3$new, d3$x[bases, ], kernel = kernel)
  local_krein_functions(list(column_reduction = function(...) stop("the n x m kernel data were formed")))
  old <- options(krein.block_rows = 17L)
  on.exit(options(old), add = TRUE)
  for (d in sets) {
    for (discriminant in c("linear", "quadratic")) {
      for (ridge in c(0, 1e-3)) {
        fits <- list()
        for (pass in c(TRUE, FALSE)) {
          route <- if (pass) identity else without_landmark_pass
          fit <- route(kfda(d$x, d$y, kernel = kernel, reduce = "subset", bases = bases, discriminant = discriminant,
                            ridge = ridge, scale = FALSE))
          expect_identical(fit$bases, as.integer(bases))
          expect_null(fit$x)
          train <- ref_kfda_decisions(K, d$y, K, discriminant, ridge = ridge)
          expected <- ref_kfda_decisions(K, d$y, Kx, discriminant, ridge = ridge)
          expect_equal(unname(fit$training_decisions), train, tolerance = 1e-8)
          expect_equal(unname(predict(fit, type = "prob")), ref_posteriors(train), tolerance = 1e-8)
          expect_equal(unname(predict(fit, d$new, type = "decision")), expected, tolerance = 1e-8)
          expect_equal(unname(predict(fit, d$new, type = "prob")), ref_posteriors(expected), tolerance = 1e-8)
          if (ridge == 0) {
            # the Fisher coordinates are MASS's on K, up to the sign of each direction
            oracle <- MASS::lda(K, d$y, tol = 1e-12)
            expect_equal(abs(unname(fit$training_projection)), abs(unname(predict(oracle, K)$x)), tolerance = 1e-8)
            expect_equal(abs(unname(predict(fit, d$new, type = "projection"))),
                         abs(unname(predict(oracle, Kx)$x)), tolerance = 1e-8)
          }
          fits[[length(fits) + 1L]] <- fit
        }
        # the landmark pass against the R blocks, to rounding
        expect_lt(ref_rel_diff(fits[[1]]$training_decisions, fits[[2]]$training_decisions), 1e-10)
        expect_lt(ref_rel_diff(abs(fits[[1]]$training_projection), abs(fits[[2]]$training_projection)), 1e-10)
        expect_lt(ref_rel_diff(predict(fits[[1]], d$new, type = "prob"), predict(fits[[2]], d$new, type = "prob")),
                  1e-10)
      }
    }
  }
  # a precomputed kernel: its columns of the bases, in the same R blocks
  pre <- kfda(precomputed_kernel(kernel_matrix(d3$x, kernel = kernel)), d3$y, reduce = "subset", bases = bases,
              discriminant = "quadratic", ridge = 1e-3)
  expected <- ref_kfda_decisions(K, d3$y, Kx, "quadratic", ridge = 1e-3)
  expect_equal(unname(predict(pre, kernel_matrix(d3$new, d3$x, kernel = kernel), type = "decision")), expected,
               tolerance = 1e-8)
  expect_equal(unname(pre$training_decisions), ref_kfda_decisions(K, d3$y, K, "quadratic", ridge = 1e-3),
               tolerance = 1e-8)
  # a kernel the landmark pass does not take (a dot-product kernel): the R blocks
  poly <- kernel_poly(2)
  expect_false(krein:::landmark_pass_applies(d3$x, poly, d3$x[bases[1:4], ]))
  fit <- kfda(d3$x, d3$y, kernel = poly, reduce = "subset", bases = bases[1:4], scale = FALSE, ridge = 0)
  Kp <- kernel_matrix(d3$x, d3$x[bases[1:4], ], kernel = poly)
  expect_equal(unname(predict(fit, d3$new, type = "decision")),
               ref_kfda_decisions(Kp, d3$y, kernel_matrix(d3$new, d3$x[bases[1:4], ], kernel = poly), "linear"),
               tolerance = 1e-8)
  # the default linear discriminant: no ridge, on the principal components
  # of K(x, B) with variance (the numerical rank rule of "pca": singular
  # values of the centred columns above max(n, p) eps times the largest);
  # the discriminant is the same in any basis of that space
  centred_K <- sweep(K, 2, colMeans(K))
  s <- svd(centred_K)
  rank <- sum(s$d > s$d[1] * max(dim(K)) * .Machine$double.eps)
  V <- s$v[, seq_len(rank), drop = FALSE]
  default <- kfda(d3$x, d3$y, kernel = kernel, reduce = "subset", bases = bases, scale = FALSE)
  expect_identical(default$ncomp, rank)
  expect_identical(default$ridge, 0)
  expect_equal(unname(predict(default, d3$new, type = "decision")),
               ref_kfda_decisions(K %*% V, d3$y, Kx %*% V, "linear"), tolerance = 1e-8)
  # the quadratic one's default ridge: 1e-3 of the mean within-class
  # variance of the columns of K(x, B) (the mean diagonal of the pooled
  # covariance, denominator n - g)
  pooled_variances <- colSums(do.call(rbind, lapply(split(seq_len(nrow(d3$x)), d3$y), function(rows) {
    centred <- sweep(K[rows, , drop = FALSE], 2, colMeans(K[rows, , drop = FALSE]))
    colSums(centred^2)
  }))) / (nrow(d3$x) - nlevels(d3$y))
  quadratic <- kfda(d3$x, d3$y, kernel = kernel, reduce = "subset", bases = bases, scale = FALSE,
                    discriminant = "quadratic")
  expect_equal(quadratic$ridge, 1e-3 * mean(pooled_variances), tolerance = 1e-10)
  expect_equal(unname(predict(quadratic, d3$new, type = "decision")),
               ref_kfda_decisions(K, d3$y, Kx, "quadratic", ridge = 1e-3 * mean(pooled_variances)), tolerance = 1e-8)
  # a drawn count of bases is R's draw, sort(sample.int(n, count))
  set.seed(5)
  drawn <- kfda(d3$x, d3$y, kernel = kernel, reduce = "subset", bases = 12, scale = FALSE)$bases
  set.seed(5)
  expect_identical(drawn, sort(sample.int(90, 12)))
})

test_that("the class moments of the subset reduction follow from the factors of [C | 1]", {
  # kfda_class_moments() against plain-R class means and centred scatters
  # (C_k - 1 m_k')'(C_k - 1 m_k'): classes with many rows, fewer rows than
  # columns, one row and none.
  set.seed(11)
  m <- 6
  codes <- c(rep(1L, 40), rep(2L, 4), 3L, rep(1L, 10))
  C <- matrix(runif(length(codes) * m), length(codes), m) + 3
  factors <- krein:::cpp_class_factors(C, codes, 4L, 1L)
  moments <- krein:::kfda_class_moments(factors, tabulate(codes, 4L))
  expect_identical(moments$counts, c(50, 4, 1, 0))
  for (k in 1:3) {
    Ck <- C[codes == k, , drop = FALSE]
    expect_equal(moments$means[, k], colMeans(Ck), tolerance = 1e-13)
    centred <- sweep(Ck, 2, colMeans(Ck))
    expect_equal(crossprod(moments$factors[[k]]), crossprod(centred), tolerance = 1e-12)
  }
  expect_equal(moments$means[, 4], rep(0, m))
  expect_equal(moments$factors[[4]], matrix(0, m, m))
})

test_that("paper 003 Example 3: KFQDA beats KFLDA by far with 10 components (Table 3)", {
  set.seed(11)
  train <- sine_populations(100)
  test <- sine_populations(250)
  # sigma^2 = 5 in exp(-0.5 ||x - u||^2 / sigma^2): gamma = 0.1
  kernel <- kernel_rbf(1 / (2 * 5))
  linear <- kfda(y ~ ., data = train, kernel = kernel, ncomp = 10, scale = FALSE)
  quadratic <- kfda(y ~ ., data = train, kernel = kernel, ncomp = 10, discriminant = "quadratic", scale = FALSE)
  error_linear <- mean(predict(linear, test) != test$y)
  error_quadratic <- mean(predict(quadratic, test) != test$y)
  # Table 3: accuracy 0.5653 against 0.9665
  expect_lt(error_quadratic, 0.1)
  expect_gt(error_linear - error_quadratic, 0.2)
})

test_that("posteriors, classes and projections have the documented shapes", {
  d <- three_class_data()
  for (type in c("linear", "quadratic")) {
    fit <- kfda(d$x, d$y, kernel = kernel_rbf(0.5), ncomp = 5, discriminant = type)
    p <- predict(fit, d$new, type = "prob")
    expect_equal(dim(p), c(30L, 3L))
    expect_equal(colnames(p), c("a", "b", "c"))
    expect_equal(unname(rowSums(p)), rep(1, 30), tolerance = 1e-12)
    cls <- predict(fit, d$new)
    expect_s3_class(cls, "factor")
    expect_identical(levels(cls), c("a", "b", "c"))
    expect_identical(unname(cls), factor(c("a", "b", "c")[max.col(p)], levels = c("a", "b", "c")))
    dec <- predict(fit, d$new, type = "decision")
    expect_equal(unname(dec[, 1]), rep(0, 30))
    expect_equal(dim(predict(fit, d$new, type = "projection")), c(30L, 2L))
    # a row's prediction does not depend on the other rows
    expect_equal(predict(fit, d$new[7, , drop = FALSE], type = "prob"), p[7, , drop = FALSE])
    # training predictions without newdata
    expect_equal(mean(predict(fit) != d$y), fit$training_error)
  }
})

test_that("KFLDA is the kernel expansion of Remark 4 (eq. 13)", {
  d <- three_class_data()
  kernel <- kernel_rbf(0.5)
  for (reduce in c("pca", "subset", "ridge")) {
    set.seed(2)
    fit <- kfda(d$x, d$y, kernel = kernel, reduce = reduce, scale = FALSE)
    expansion <- if (reduce == "subset") d$x[fit$bases, ] else d$x
    Kx <- kernel_matrix(d$new, expansion, kernel = kernel)
    a <- coef(fit)
    expect_equal(nrow(a), nrow(expansion) + 1L)
    expect_equal(unname(cbind(1, Kx) %*% a), unname(predict(fit, d$new, type = "decision")), tolerance = 1e-8)
  }
  quad <- kfda(d$x, d$y, kernel = kernel, ncomp = 3, discriminant = "quadratic", scale = FALSE)
  expect_error(coef(quad), class = "krein_error")
})

test_that("scaling the kernel leaves every reduction's classifier unchanged", {
  # Fisher's rules are affine invariant, and the default ridge is relative
  d <- three_class_data()
  K <- kernel_matrix(d$x, kernel = kernel_rbf(0.5))
  Kx <- kernel_matrix(d$new, d$x, kernel = kernel_rbf(0.5))
  for (reduce in c("pca", "ridge")) {
    for (type in c("linear", "quadratic")) {
      a <- kfda(precomputed_kernel(K), d$y, reduce = reduce, discriminant = type, ncomp = if (reduce == "pca") 6)
      b <- kfda(precomputed_kernel(250 * K), d$y, reduce = reduce, discriminant = type, ncomp = if (reduce == "pca") 6)
      expect_equal(predict(a, Kx, type = "prob"), predict(b, 250 * Kx, type = "prob"), tolerance = 1e-8)
    }
  }
})

test_that("formula, data frame, matrix and precomputed inputs give the same fit", {
  d <- three_class_data()
  df <- data.frame(u = d$x[, 1], v = d$x[, 2], y = d$y)
  new_df <- data.frame(u = d$new[, 1], v = d$new[, 2])
  kernel <- kernel_rbf(0.5)
  f1 <- kfda(y ~ u + v, data = df, kernel = kernel, ncomp = 6, discriminant = "quadratic", scale = FALSE)
  f2 <- kfda(df[, 1:2], df$y, kernel = kernel, ncomp = 6, discriminant = "quadratic", scale = FALSE)
  f3 <- kfda(kernel_matrix(d$x, kernel = kernel), d$y, kernel = "precomputed", ncomp = 6, discriminant = "quadratic")
  p1 <- predict(f1, new_df, type = "prob")
  expect_equal(unname(predict(f2, new_df, type = "prob")), unname(p1), tolerance = 1e-12)
  expect_equal(unname(predict(f3, kernel_matrix(d$new, d$x, kernel = kernel), type = "prob")), unname(p1),
               tolerance = 1e-10)
  # precomputed subset fits take the full new kernel and use the bases' columns
  set.seed(1)
  s1 <- kfda(d$x, d$y, kernel = kernel, reduce = "subset", bases = 20, scale = FALSE)
  set.seed(1)
  s2 <- kfda(kernel_matrix(d$x, kernel = kernel), d$y, kernel = "precomputed", reduce = "subset", bases = 20)
  expect_equal(unname(predict(s2, kernel_matrix(d$new, d$x, kernel = kernel), type = "prob")),
               unname(predict(s1, d$new, type = "prob")), tolerance = 1e-10)
})

test_that("the variance share of ncomp and the default reductions", {
  d <- three_class_data()
  fit <- kfda(d$x, d$y, kernel = kernel_rbf(0.5), ncomp = 0.9, scale = FALSE)
  values <- eigen(stats::cov(kernel_matrix(d$x, kernel = kernel_rbf(0.5))), symmetric = TRUE)$values
  share <- cumsum(values) / sum(values[values > 0])
  expect_equal(fit$ncomp, which(share >= 0.9)[1])
  expect_equal(fit$variance_explained, share[fit$ncomp], tolerance = 1e-10)
  default <- kfda(d$x, d$y, kernel = kernel_rbf(0.5), scale = FALSE)
  # the cap on the count binds the counts without a ridge only
  expect_true(default$ncomp <= floor(90 / 5) || default$ridge > 0)
  quad <- kfda(d$x, d$y, kernel = kernel_rbf(0.5), discriminant = "quadratic", scale = FALSE)
  expect_lte(quad$ncomp, floor(30 / 4))
  ridge <- kfda(d$x, d$y, kernel = kernel_rbf(0.5), reduce = "ridge", scale = FALSE)
  K <- kernel_matrix(d$x, kernel = kernel_rbf(0.5))
  pooled <- Reduce(`+`, lapply(levels(d$y), function(l) stats::cov(K[d$y == l, ]) * (sum(d$y == l) - 1))) / 87
  expect_equal(ridge$ridge, 1e-3 * mean(diag(pooled)), tolerance = 1e-10)
})

test_that("the principal components come from an SVD: 100 components of paper 003's Example 3 at sigma^2 = 5", {
  # Paper 003 (Huang, Hwang and Lin 2005), Table 3: KFLDA with 100 PCs at
  # sigma^2 = 5 (gamma = 1 / (2 * 5)) on Example 3 (sine_populations(100),
  # 400 points), fitted there with Matlab's SVD-based PCA. Taking the
  # components from the eigenvectors of the scatter matrix squares the
  # condition number: that route found a rank of 54 here and refused
  # ncomp = 100. The oracle is stats::prcomp(K), an independent SVD of the
  # centred kernel data (LAPACK's dgesdd); its components are compared up to
  # sign. The singular values fall to ~3e-11 of the largest by the 100th,
  # so the tolerances widen with the index: a component with singular value
  # d_k is accurate to about eps * d_1 / d_k.
  set.seed(1)
  d <- sine_populations(100)
  fit <- kfda(y ~ ., d, kernel = kernel_rbf(gamma = 0.1), ncomp = 100, scale = FALSE)
  expect_equal(fit$ncomp, 100L)
  expect_gte(length(fit$eigenvalues), 100L)
  K <- kernel_matrix(as.matrix(d[c("x1", "x2")]), kernel = kernel_rbf(gamma = 0.1))
  oracle <- stats::prcomp(K)
  rotation <- fit$projection$rotation
  for (k in list(c(1, 10, 1e-10), c(11, 30, 1e-9), c(31, 100, 1e-4))) {
    cols <- seq(k[1], k[2])
    expect_equal(abs(rotation[, cols]), abs(unname(oracle$rotation[, cols])), tolerance = k[3])
    expect_equal(fit$projection$scale[cols], oracle$sdev[cols], tolerance = k[3])
  }
  # the reduced training data are uncorrelated with unit variance in all 100
  Z <- sweep(K, 2, fit$projection$center) %*% rotation %*% diag(1 / fit$projection$scale)
  expect_lt(max(abs(crossprod(Z) / (nrow(K) - 1) - diag(100))), 1e-4)
})

test_that("a singular covariance is an error that says what to change, never a pseudo-inverse", {
  set.seed(11)
  train <- sine_populations(30)
  # more components than a class has points
  expect_error(kfda(y ~ ., data = train, kernel = kernel_rbf(2), ncomp = 40, discriminant = "quadratic",
                    scale = FALSE),
               class = "krein_singular_covariance")
  # the kernel data of a class span fewer directions than asked for (Table 3, "---")
  # (30 points per class, 20 dimensions: enough points, too little spread)
  expect_error(kfda(y ~ ., data = train, kernel = kernel_rbf(2), ncomp = 20, discriminant = "quadratic",
                    scale = FALSE),
               class = "krein_singular_covariance")
  # a ridge makes it estimable
  fit <- kfda(y ~ ., data = train, kernel = kernel_rbf(2), ncomp = 20, discriminant = "quadratic", ridge = 1e-3,
              scale = FALSE)
  expect_s3_class(fit, "kfda")
})

test_that("print, summary and plot work and return their input invisibly", {
  d <- three_class_data()
  fit <- kfda(d$x, d$y, kernel = kernel_rbf(0.5), ncomp = 5, discriminant = "quadratic")
  expect_output(expect_invisible(print(fit)), "KFQDA")
  expect_output(print(fit), "5 principal components")
  expect_output(print(summary(fit)), "Proportion of trace")
  expect_output(print(summary(fit)), "log-determinant")
  dropped <- kfda(d$x, d$y, kernel = kernel_rbf(0.5), ncomp = 5, discriminant = "quadratic", logdet = FALSE)
  expect_output(print(dropped), "log-determinants dropped")
  pdf(NULL)
  on.exit(dev.off())
  expect_invisible(plot(fit))
  two <- droplevels(factor(ifelse(d$y == "a", "a", "b")))
  fit2 <- kfda(kernel_matrix(d$x, kernel = kernel_rbf(0.5)), two, kernel = "precomputed", ncomp = 5)
  expect_invisible(plot(fit2))
  set.seed(1)
  fit3 <- kfda(d$x, d$y, kernel = kernel_rbf(0.5), reduce = "subset", bases = 10)
  expect_invisible(plot(fit3))
  expect_output(print(fit3), "10 bases")
  # more than two inputs: the Fisher coordinates, of the training points or of `data`
  fit4 <- kfda(Species ~ ., data = iris, kernel = kernel_rbf(0.5), ncomp = 4)
  expect_invisible(plot(fit4))
  expect_invisible(plot(fit4, data = iris[1:30, ], main = "my title"))
  expect_invisible(plot(fit4, data = iris[1:30, 1:4]))
})

test_that("bad input gives a krein_error naming the argument", {
  d <- three_class_data()
  expect_snapshot(show_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), ncomp = 500)))
  expect_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), ncomp = 500), class = "krein_rank_error")
  expect_snapshot(show_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), ncomp = -1)))
  expect_snapshot(show_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), reduce = "subset", bases = 91)))
  expect_snapshot(show_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), reduce = "subset", bases = c(1, 1, 2))))
  expect_snapshot(show_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), reduce = "ridge", ridge = -1)))
  expect_snapshot(show_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), reduce = "subset", subset = 10)))
  expect_snapshot(show_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), reduce = "ridge", ncomp = 3)))
  expect_snapshot(show_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), discriminant = "cubic")))
  expect_snapshot(show_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), logdet = NA)))
  expect_snapshot(show_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), ncomp = 40, discriminant = "quadratic")))
  expect_snapshot(show_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), prior = c(0.5, 0.5))))
  fit <- kfda(d$x, d$y, kernel = kernel_rbf(0.5), ncomp = 3)
  expect_snapshot(show_error(predict(fit, d$new, type = "link")))
  expect_snapshot(show_error(predict(fit, d$new[, 1, drop = FALSE])))
})

test_that("renamed and unknown arguments are errors that say what to use", {
  d <- three_class_data()
  df <- data.frame(d$x, y = d$y)
  # `type` is predict()'s; the rule is `discriminant`
  expect_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), type = "quadratic"), class = "krein_argument_error")
  expect_snapshot(show_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), type = "quadratic")))
  expect_snapshot(show_error(kfda(y ~ ., data = df, kernel = kernel_rbf(0.5), type = "quadratic")))
  expect_error(kfda(d$x, d$y, kernel = kernel_rbf(0.5), subset = 10), class = "krein_argument_error")
  expect_error(kfda(d$x, d$y, scalee = 5), class = "krein_argument_error")
  expect_snapshot(show_error(kfda(d$x, d$y, kernel_rbf(0.5))))
})

test_that("a subset fit predicts its training points without keeping them", {
  d <- three_class_data()
  set.seed(1)
  rs <- kfda(d$x, d$y, kernel = kernel_rbf(0.5), reduce = "subset", bases = 10, scale = FALSE)
  expect_null(rs$x)
  expect_equal(rs$landmarks$points, d$x[rs$bases, ])
  expect_identical(rs$landmarks$class, d$y[rs$bases])
  for (type in c("prob", "decision", "projection")) {
    expect_equal(predict(rs, type = type), predict(rs, d$x, type = type), tolerance = 1e-10)
  }
  expect_identical(predict(rs), predict(rs, d$x))
  expect_equal(mean(predict(rs) != d$y), rs$training_error)
  # precomputed subset fits too
  K <- kernel_matrix(d$x, kernel = kernel_rbf(0.5))
  set.seed(1)
  pre <- kfda(precomputed_kernel(K), d$y, reduce = "subset", bases = 10)
  expect_equal(predict(pre, type = "prob"), predict(pre, K, type = "prob"), tolerance = 1e-10,
               ignore_attr = TRUE)
})

test_that("every resolved hyperparameter is stored at the fit and reused for new points", {
  # the median-heuristic width, the default (relative) ridge, ncomp from a
  # share of variance, random bases: a point predicts the same alone and among
  # others, and as the training point it is
  d <- three_class_data()
  fits <- list(
    kfda(d$x, d$y, kernel = kernel_rbf(), ncomp = 0.9),
    kfda(d$x, d$y, kernel = kernel_rbf(), reduce = "ridge", discriminant = "quadratic"),
    kfda(d$x, d$y, kernel = kernel_rbf_diag(), reduce = "ridge"),
    {
      set.seed(4)
      kfda(d$x, d$y, kernel = kernel_rbf(), reduce = "subset")
    }
  )
  for (fit in fits) {
    expect_false(is.null(model_kernel(fit)$params[[1]]))
    many <- predict(fit, d$new, type = "decision")
    for (i in c(1, 17)) {
      expect_equal(predict(fit, d$new[i, , drop = FALSE], type = "decision"), many[i, , drop = FALSE],
                   tolerance = 1e-10)
    }
    expect_equal(predict(fit, d$x[5, , drop = FALSE], type = "prob"), predict(fit, type = "prob")[5, , drop = FALSE],
                 tolerance = 1e-8, ignore_attr = TRUE)
  }
  expect_gt(fits[[2]]$ridge, 0)
})

test_that("kfda probabilities stay finite and sum to 1 for points far from the data", {
  # A linear kernel on points 1e150 times the data gives Fisher coordinates
  # whose quadratic forms overflow (about 1e600): the probabilities come from
  # discriminants relative to each row's largest, so they cannot be Inf - Inf.
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  fit <- kfda(X, d$y, kernel = kernel_linear(), scale = FALSE)
  p <- predict(fit, X[1:5, ] * 1e150, type = "prob")
  expect_true(all(is.finite(p)))
  expect_equal(rowSums(p), rep(1, 5), ignore_attr = TRUE)
})

# --- the partial spectrum: only the leading components, by block
# Golub-Kahan-Lanczos bidiagonalisation, against the full SVD (the route
# kfda_pca_method() picks, replaced here) on paper 003's Example 3 (Huang, Hwang and
# Lin 2005: four sine populations of 100 points, Tables 3-4).

# Compare two pca fits: the components up to sign, each to the accuracy a
# backward stable SVD itself has (eps * d_1 / gap, Wedin's theorem: two full
# SVDs differ by that much), the singular values to eps * d_1, and the
# predictions to `tolerance`.
expect_same_pca_fit <- function(partial, full, new, tolerance = 1e-8) {
  expect_identical(partial$spectrum$method, "krylov")
  expect_identical(full$spectrum$method, "svd")
  expect_identical(partial$ncomp, full$ncomp)
  q <- full$ncomp
  d <- sqrt(full$eigenvalues)
  gaps <- pmin(-diff(c(Inf, d))[seq_len(q)], -diff(d)[seq_len(q)])
  bound <- pmax(1e-10, 100 * .Machine$double.eps * d[1] / gaps)
  difference <- pmin(sqrt(colSums((partial$projection$rotation - full$projection$rotation)^2)),
                     sqrt(colSums((partial$projection$rotation + full$projection$rotation)^2)))
  expect_true(all(difference <= bound))
  expect_lt(max(abs(partial$projection$scale - full$projection$scale)) / d[1], 1e-13)
  expect_equal(partial$projection$center, full$projection$center, tolerance = 1e-14)
  expect_equal(partial$variance_explained, full$variance_explained, tolerance = 1e-12)
  expect_equal(predict(partial, new, type = "prob"), predict(full, new, type = "prob"), tolerance = tolerance)
  expect_equal(predict(partial, new, type = "decision"), predict(full, new, type = "decision"),
               tolerance = tolerance)
  expect_equal(predict(partial, type = "prob"), predict(full, type = "prob"), tolerance = tolerance)
  # the Fisher coordinates (scores) up to the sign of each direction
  expect_equal(abs(predict(partial, new, type = "projection")), abs(predict(full, new, type = "projection")),
               tolerance = tolerance)
}

with_pca_method <- function(method, expr) {
  with_krein_functions(list(kfda_pca_method = function() method), expr)
}

fit_both_ways <- function(...) {
  full <- with_pca_method("svd", kfda(...))
  # "krylov": the partial spectrum up to a quarter of the points' components
  # (the default route takes it up to a tenth)
  partial <- with_pca_method("krylov", kfda(...))
  list(partial = partial, full = full)
}

# How far the posteriors of a KFLDA fit are from those of an independent
# full SVD (LAPACK's dgesdd through stats::prcomp) of the same kernel data,
# followed by MASS::lda on the whitened scores: the accuracy that the
# problem's conditioning allows any SVD.
svd_to_svd_discrepancy <- function(fit, train, test, kernel) {
  X <- as.matrix(train[c("x1", "x2")])
  K <- kernel_matrix(X, kernel = kernel)
  Kx <- kernel_matrix(as.matrix(test[c("x1", "x2")]), X, kernel = kernel)
  pc <- stats::prcomp(K)
  W <- pc$rotation[, seq_len(fit$ncomp)] %*% diag(1 / pc$sdev[seq_len(fit$ncomp)], fit$ncomp)
  oracle <- MASS::lda(sweep(K, 2, pc$center) %*% W, train$y, tol = 1e-30)
  max(abs(predict(oracle, sweep(Kx, 2, pc$center) %*% W)$posterior - unname(predict(fit, test, type = "prob"))))
}

test_that("the partial spectrum equals the full SVD on Example 3 with the Gaussian kernel (Table 3)", {
  set.seed(3)
  train <- sine_populations(100)
  test <- sine_populations(50)
  # (sigma^2, components, rule) cells of Table 3; gamma = 1 / (2 sigma^2).
  # sigma^2 = 5 with 100 components is the cell whose small components
  # (singular values down to 3e-11 of the largest) the scatter route lost.
  # There two full SVDs, Eigen's BDCSVD and LAPACK's dgesdd, give posteriors
  # about 1e-6 apart: the partial spectrum is held to 10 times their
  # distance, elsewhere to 1e-8.
  cells <- list(list(0.25, 35, "linear"), list(5, 100, "linear"), list(5, 10, "quadratic"),
                list(10, 15, "quadratic"))
  for (cell in cells) {
    kernel <- kernel_rbf(1 / (2 * cell[[1]]))
    both <- fit_both_ways(y ~ ., data = train, kernel = kernel, ncomp = cell[[2]], discriminant = cell[[3]],
                          scale = FALSE)
    tolerance <- 1e-8
    if (cell[[3]] == "linear") {
      reference <- svd_to_svd_discrepancy(both$full, train, test, kernel)
      expect_lt(reference, 1e-5)
      tolerance <- max(tolerance, 10 * reference)
    }
    expect_same_pca_fit(both$partial, both$full, test, tolerance)
  }
})

test_that("the partial spectrum equals the full SVD with the indefinite Epanechnikov kernel (Table 4)", {
  set.seed(4)
  train <- sine_populations(100)
  test <- sine_populations(50)
  kernel <- kernel_epanechnikov(2)
  K <- kernel_matrix(as.matrix(train[c("x1", "x2")]), kernel = kernel)
  expect_lt(min(eigen(K, symmetric = TRUE, only.values = TRUE)$values), -1e-3)  # indefinite
  for (cell in list(list(25, "linear"), list(15, "quadratic"))) {
    both <- fit_both_ways(y ~ ., data = train, kernel = kernel, ncomp = cell[[1]], discriminant = cell[[2]],
                          scale = FALSE)
    expect_same_pca_fit(both$partial, both$full, test)
  }
})

test_that("ncomp as a share of the variance and the default take the same components from the partial spectrum", {
  set.seed(5)
  train <- sine_populations(100)
  test <- sine_populations(30)
  kernel <- kernel_rbf(0.1)
  for (cell in list(list(0.9, "linear"), list(0.99, "quadratic"), list(NULL, "linear"), list(NULL, "quadratic"))) {
    both <- fit_both_ways(y ~ ., data = train, kernel = kernel, ncomp = cell[[1]], discriminant = cell[[2]],
                          scale = FALSE)
    expect_same_pca_fit(both$partial, both$full, test)
  }
  # the share of the variance against the trace of the covariance of the
  # kernel data, by the default route
  K <- kernel_matrix(as.matrix(train[c("x1", "x2")]), kernel = kernel)
  fit <- kfda(y ~ ., data = train, kernel = kernel, ncomp = 0.95, scale = FALSE)
  expect_identical(fit$spectrum$method, "krylov")
  expect_equal(fit$variance_explained, sum(fit$projection$scale^2) / sum(diag(stats::cov(K))), tolerance = 1e-10)
  expect_gte(fit$variance_explained, 0.95)
  expect_lt(sum(fit$projection$scale[-fit$ncomp]^2) / sum(diag(stats::cov(K))), 0.95)
})

test_that("the partial spectrum reports a rank below ncomp as the full SVD does", {
  # a kernel of rank 3 (linear kernel of 3 inputs) at more than 200 points
  set.seed(6)
  x <- matrix(rnorm(900), 300, 3)
  y <- factor(rep(c("a", "b"), 150))
  expect_error(kfda(x, y, kernel = kernel_linear(), ncomp = 10), class = "krein_rank_error")
  fit <- kfda(x, y, kernel = kernel_linear(), ncomp = 0.999999)
  expect_identical(fit$spectrum$method, "krylov")
  expect_equal(fit$ncomp, 3L)
})

test_that("a partial spectrum that does not converge falls back to the full SVD with a warning", {
  set.seed(7)
  train <- sine_populations(100)
  # the core reports non-convergence when its Krylov basis is too small
  K <- kernel_matrix(as.matrix(train[c("x1", "x2")]), kernel = kernel_rbf(0.1))
  small <- cpp_centred_partial_svd(K, 30, 1e-14, 40, 1L)
  expect_false(small$converged)
  expect_gt(max(small$residuals), 1e-14)
  # kfda() warns, records it and uses the full SVD where the partial one does
  # not converge within n / 2 basis vectors: kernel data with a flat spectrum
  # (far-apart points in 50 dimensions: K is nearly the identity)
  set.seed(8)
  x <- matrix(rnorm(300 * 50), 300, 50)
  y <- factor(rep(c("a", "b"), 150))
  new <- matrix(rnorm(10 * 50), 10, 50)
  kernel <- kernel_rbf(0.05)
  expect_warning(fit <- with_pca_method("krylov", kfda(x, y, kernel = kernel, ncomp = 75, scale = FALSE)),
                 class = "krein_numerical_warning")
  expect_identical(fit$spectrum$method, "svd")
  expect_true(fit$spectrum$fallback)
  full <- with_pca_method("svd", kfda(x, y, kernel = kernel, ncomp = 75, scale = FALSE))
  expect_equal(predict(fit, new, type = "prob"), predict(full, new, type = "prob"), tolerance = 1e-12)
})

test_that("the partial SVD accepts a residual at the backward error of a full SVD (Ionosphere)", {
  # on mlbench's Ionosphere (70 % of it, 245 rows) the block Lanczos stalls
  # at a largest relative residual of 7.07e-14, above a tolerance of
  # 8 sqrt(n) eps = 2.8e-14 (under which kfda() would warn and fall back to
  # the full SVD); the residual is far below what a full SVD guarantees (n eps)
  skip_if_not_installed("mlbench")
  e <- new.env()
  utils::data("Ionosphere", package = "mlbench", envir = e)
  d <- e$Ionosphere
  d$V2 <- NULL  # constant
  set.seed(1)
  train <- sample(nrow(d), round(0.7 * nrow(d)))
  expect_no_warning(fit <- kfda(Class ~ ., d[train, ]))
  expect_false(isTRUE(fit$spectrum$fallback))
  full <- with_pca_method("svd", kfda(Class ~ ., d[train, ]))
  expect_equal(predict(fit, d[-train, ], type = "prob"), predict(full, d[-train, ], type = "prob"),
               tolerance = 1e-8)
})

# Plain-R transcription of the default number of components: for
# each count q, the leave-one-out squared errors of the least-squares
# regressions of the class indicators (one for two classes) on the first q
# principal component scores of the kernel data and an intercept, by
# refitting lm() without each point in turn (the components themselves are
# those of all training points).
ref_kfda_press <- function(K, y, qmax) {
  scores <- ref_kernel_pca_scores(K, K, qmax)$train
  y <- factor(y)
  targets <- if (nlevels(y) == 2) cbind(as.double(y == levels(y)[1])) else
    sapply(levels(y), function(l) as.double(y == l))
  vapply(seq_len(qmax), function(q) {
    S <- scores[, seq_len(q), drop = FALSE]
    total <- 0
    for (i in seq_len(nrow(S))) {
      fit <- stats::lm.fit(cbind(1, S[-i, , drop = FALSE]), targets[-i, , drop = FALSE])
      total <- total + sum((targets[i, ] - c(1, S[i, ]) %*% as.matrix(fit$coefficients))^2)
    }
    total
  }, double(1))
}

# ... and of the ridges tried on every component: the same regressions on the
# unscaled scores of the components whose variance is at least 1e-6 r, with
# the penalty (n - 1) r on their coefficients (r in the units of the scores'
# variances), by refitting without each point in turn. Returns the PRESS of
# each ridge and the count of components it uses.
ref_kfda_ridge_press <- function(K, y, ridges) {
  n <- nrow(K)
  e <- eigen(stats::cov(K), symmetric = TRUE)
  rank <- sum(e$values > max(e$values) * (n * .Machine$double.eps)^2)
  targets <- if (nlevels(y) == 2) cbind(as.double(y == levels(y)[1])) else
    sapply(levels(y), function(l) as.double(y == l))
  press <- counts <- double(length(ridges))
  for (k in seq_along(ridges)) {
    used <- which(e$values[seq_len(rank)] >= 1e-6 * ridges[k])
    S <- sweep(K, 2, colMeans(K)) %*% e$vectors[, used, drop = FALSE]
    penalty <- diag(c(0, rep((n - 1) * ridges[k], length(used))))
    for (i in seq_len(n)) {
      X <- cbind(1, S[-i, , drop = FALSE])
      beta <- solve(crossprod(X) + penalty, crossprod(X, targets[-i, , drop = FALSE]))
      press[k] <- press[k] + sum((targets[i, ] - c(1, S[i, ]) %*% beta)^2)
    }
    counts[k] <- length(used)
  }
  list(press = press, counts = counts, ridges = ridges)
}

test_that("the default ncomp minimises the leave-one-out PRESS over the counts up to the cap and ridges on every component, as refits give it", {
  d <- three_class_data(n = 45)
  K <- kernel_matrix(kernel_rbf(0.5), d$x)
  fit <- kfda(K, d$y, kernel = "precomputed")
  # the linear rule's cap: a fifth of the training points
  press <- ref_kfda_press(K, d$y, 9)
  expect_equal(fit$ncomp_selection$press, press, tolerance = 1e-6)
  # the ridges: 1e-3 to 1 times the components' mean variance
  variances <- eigen(stats::cov(K), symmetric = TRUE)$values
  variances <- variances[variances > max(variances) * (nrow(K) * .Machine$double.eps)^2]
  ridges <- 10^(-3:0) * mean(variances)
  expect_equal(fit$ncomp_selection$ridges, ridges, tolerance = 1e-8)
  reference <- ref_kfda_ridge_press(K, d$y, ridges)
  expect_equal(fit$ncomp_selection$ridge_press, reference$press, tolerance = 1e-6)
  # here a ridge wins: every component it keeps, with that ridge
  expect_lt(min(reference$press), min(press))
  best <- which.min(reference$press)
  expect_identical(fit$ncomp, as.integer(reference$counts[best]))
  expect_equal(fit$ridge, ridges[best], tolerance = 1e-8)
  fixed <- kfda(K, d$y, kernel = "precomputed", ncomp = fit$ncomp, ridge = fit$ridge)
  expect_null(fixed$ncomp_selection)
  expect_equal(predict(fit, K, type = "prob"), predict(fixed, K, type = "prob"), tolerance = 1e-8)
  # without ridges (a count given) the count of the least PRESS
  counted <- kfda(K, d$y, kernel = "precomputed", ncomp = which.min(press))
  expect_identical(counted$ridge, 0)
  # two classes: one indicator; the quadratic rule's cap is a quarter of the
  # smallest class
  two <- droplevels(d$y[d$y != "c"])
  K2 <- K[d$y != "c", d$y != "c"]
  quad <- kfda(K2, two, kernel = "precomputed", discriminant = "quadratic")
  press2 <- ref_kfda_press(K2, two, floor(min(table(two)) / 4))
  expect_equal(quad$ncomp_selection$press, press2, tolerance = 1e-6)
  # (no ridges for the quadratic rule: its class covariances keep the cap)
  expect_null(quad$ncomp_selection$ridges)
  expect_identical(quad$ncomp, which.min(press2))
})

test_that("the default ncomp holds up on many classes, where 99% of the variance keeps too few components", {
  skip_if_not_installed("mlbench")
  vowel <- vowel_sample()
  v <- vowel$data
  train <- vowel$train
  accuracy <- vowel$accuracy
  # ncomp = 0.99, the fewest components reaching 99% of the variance (26
  # here): 65% test accuracy
  old <- kfda(Class ~ ., data = v[train, ], ncomp = 0.99)
  expect_lt(accuracy(old), 0.7)
  fit <- kfda(Class ~ ., data = v[train, ])
  expect_gt(fit$ncomp, old$ncomp)
  expect_gt(accuracy(fit), 0.72)
})

test_that("the default kernel is the median heuristic; with the ridge candidates it holds up where the inputs outnumber the points", {
  skip_if_not_installed("kernlab")
  e <- new.env()
  utils::data("promotergene", package = "kernlab", envir = e)
  promoters <- e$promotergene
  # 57 bases as factor columns: 171 dummy columns for 74 training points
  set.seed(3)
  train <- sort(sample.int(nrow(promoters), round(0.7 * nrow(promoters))))
  test <- setdiff(seq_len(nrow(promoters)), train)
  accuracy <- function(fit) mean(predict(fit, promoters[test, ]) == promoters$Class[test])
  fit <- kfda(Class ~ ., data = promoters[train, ])
  expect_equal(fit$spec$kernel$params$gamma, median_gamma(scale(stats::model.matrix(Class ~ ., promoters[train, ])[, -1])),
               tolerance = 1e-8)
  # a ridge on every component beats every count of the capped components
  expect_false(is.null(fit$ncomp_selection$chosen_ridge))
  expect_gt(fit$ncomp, floor(74 / 5))
  # the best count alone: 0.8125 on this split (with the width 1/p, 0.781);
  # the default 0.875 (e1071::svm 0.844)
  counted <- kfda(Class ~ ., data = promoters[train, ], ncomp = which.min(fit$ncomp_selection$press))
  expect_gt(accuracy(fit), accuracy(counted))
  expect_gt(accuracy(fit), 0.85)
})
