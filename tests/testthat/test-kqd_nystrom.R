# Ny-KQD, kqd(landmarks = ): against the full KQD where the landmarks span the
# kernel, and against the plain-R transcription of the derivation in
# helper-kqd_nystrom.R (the section "Nystroem KQD" of ?kqd). Fixtures and the full
# Table II reference are in helper-kqd.R.

ny_variants <- c("IC+", "IC-", "RC+", "RC-", "FK+", "FK-")
ny_reg <- function(variant) if (substr(variant, 1, 2) == "RC") 0.1 else 1e-2

# forcing the pd formulas on an indefinite kernel may warn: muffled here
ny_quiet <- function(expr) withCallingHandlers(expr, krein_warning = function(w) invokeRestart("muffleWarning"))

# Ny-KQD with `landmarks` against the full kqd(): decision values (with the
# error-minimising biases) and distances of new and training points
ny_expect_full <- function(d, landmarks, modes, tolerance = 1e-8) {
  for (variant in ny_variants) {
    for (indefinite in modes) {
      info <- sprintf("%s, indefinite = \"%s\"", variant, indefinite)
      args <- list(d$x, d$y, kernel = d$kernel, variant = variant, reg = ny_reg(variant),
                   indefinite = indefinite, scale = FALSE)
      full <- ny_quiet(do.call(kqd, args))
      ny <- ny_quiet(do.call(kqd, c(args, list(landmarks = landmarks))))
      expect_null(ny$x)
      want <- predict(full, d$x_new, type = "decision")
      expect_lt(ref_rel_diff(predict(ny, d$x_new, type = "decision"), want), tolerance)
      expect_lt(ref_rel_diff(predict(ny, d$x_new, type = "distance"),
                             predict(full, d$x_new, type = "distance")), tolerance)
      expect_lt(ref_rel_diff(predict(ny, type = "decision"), predict(full, type = "decision")), tolerance)
      # the biases enter the decision values: compared on their scale
      expect_lt(max(abs(ny$bias - full$bias)) / max(abs(want)), tolerance)
      expect_identical(ny$indefinite, full$indefinite, info = info)
      expect_identical(ny$fitted_class, full$fitted_class, info = info)
    }
  }
}

test_that("with every training point a landmark, Ny-KQD is the full KQD (RBF kernel)", {
  d <- fx_three_classes()
  ny_expect_full(d, seq_len(nrow(d$x)), c("auto", "yes"))
  # the transcription of the derivation agrees with Table II there too
  k <- fx_kernels(d)
  kn <- fx_nystrom_kernels(d, seq_len(nrow(d$x)))
  for (variant in ny_variants) {
    expect_lt(ref_rel_diff(ref_kqd_nystrom_distance(kn$C, kn$W, d$y, kn$C_new, kn$self_new, variant, ny_reg(variant), FALSE),
                           ref_kqd_distance(k$K, d$y, k$K_new, k$self_new, variant, ny_reg(variant), FALSE)), 1e-8)
  }
})

test_that("with every training point a landmark, Ny-KQD is the full KQD (indefinite invariant kernel)", {
  d <- fx_checkerboard()
  ny_expect_full(d, seq_len(nrow(d$x)), c("auto", "yes", "no"))
  k <- fx_kernels(d)
  kn <- fx_nystrom_kernels(d, seq_len(nrow(d$x)))
  for (variant in ny_variants) {
    expect_lt(ref_rel_diff(ref_kqd_nystrom_distance(kn$C, kn$W, d$y, kn$C_new, kn$self_new, variant, ny_reg(variant), TRUE),
                           ref_kqd_distance(k$K, d$y, k$K_new, k$self_new, variant, ny_reg(variant), TRUE)), 1e-8)
  }
  # the class kernels' signatures are those of the full fit (eigendecomposition path)
  full <- kqd(d$x, d$y, kernel = d$kernel, variant = "RC+", indefinite = "yes", scale = FALSE)
  ny <- kqd(d$x, d$y, kernel = d$kernel, variant = "RC+", indefinite = "yes", scale = FALSE,
            landmarks = seq_len(nrow(d$x)))
  expect_identical(ny$signature, full$signature)
  expect_true(all(ny$signature[, "q"] > 0))
})

test_that("a kernel of rank <= m: quadratic kernels in 2-D give the full KQD with 10 landmarks", {
  # (x'x' + c)^2 in 2-D has six features: ten landmarks span it, so the
  # Nystroem kernel is the kernel (k_hat(x, x) = k(x, x) too). offset = -1
  # makes it indefinite (signature (4, 2) here).
  d <- fx_three_classes()
  set.seed(11)
  landmarks <- sort(sample(nrow(d$x), 10))
  for (offset in c(1, -1)) {
    d$kernel <- kernel_poly(2, offset = offset)
    ny <- kqd(d$x, d$y, kernel = d$kernel, variant = "IC-", scale = FALSE, landmarks = landmarks)
    expect_length(ny$core$signs, 6L)
    expect_identical(sum(ny$core$signs < 0), if (offset < 0) 2L else 0L)
    ny_expect_full(d, landmarks, if (offset < 0) c("auto", "no") else "auto")
  }
})

test_that("Ny-KQD equals the transcription of its derivation with few landmarks", {
  for (d in list(fx_three_classes(), fx_checkerboard())) {
    set.seed(3)
    landmarks <- sort(sample(nrow(d$x), 12))
    k <- fx_nystrom_kernels(d, landmarks)
    for (variant in ny_variants) {
      for (indefinite in c("no", "yes")) {
        info <- sprintf("%s, indefinite = \"%s\"", variant, indefinite)
        fit <- ny_quiet(kqd(d$x, d$y, kernel = d$kernel, variant = variant, reg = ny_reg(variant),
                            indefinite = indefinite, scale = FALSE, landmarks = landmarks))
        want <- ref_kqd_nystrom_distance(k$C, k$W, d$y, k$C_new, k$self_new, variant, ny_reg(variant),
                                   indefinite == "yes")
        expect_lt(ref_rel_diff(predict(fit, d$x_new, type = "distance"), want), 1e-8)
        # the training distances, from which the biases come
        want_train <- ref_kqd_nystrom_distance(k$C, k$W, d$y, k$C, diag(kernel_matrix(d$kernel, d$x)), variant,
                                         ny_reg(variant), indefinite == "yes")
        expect_lt(ref_rel_diff(predict(fit, type = "distance"), want_train), 1e-8)
      }
    }
  }
})

test_that("Ny-KQD fits in row blocks: the blocks do not change the model", {
  # the per-class QR factors are merged block by block (a block may hold no
  # point of a class)
  d <- fx_checkerboard()
  landmarks <- seq(1, nrow(d$x), by = 3)
  for (variant in c("IC+", "RC+", "FK-")) {
    whole <- kqd(d$x, d$y, kernel = d$kernel, variant = variant, scale = FALSE, landmarks = landmarks)
    old <- options(krein.block_rows = 3L)
    blocks <- kqd(d$x, d$y, kernel = d$kernel, variant = variant, scale = FALSE, landmarks = landmarks)
    options(old)
    expect_lt(ref_rel_diff(predict(blocks, d$x_new, type = "distance"),
                           predict(whole, d$x_new, type = "distance")), 1e-10)
    expect_lt(ref_rel_diff(predict(blocks, type = "distance"), predict(whole, type = "distance")), 1e-10)
  }
})

test_that("a Ny-KQD regularisation path equals separate fits; predict types and MAP biases", {
  d <- fx_two_classes(21, n = 30)
  kernel <- kernel_rbf(gamma = 0.5)
  x_new <- matrix(rnorm(10), 5)
  landmarks <- c(2, 5, 9, 14, 20, 27)
  path <- c(0.5, 0.1, 0.02)
  fit <- kqd(d$x, d$y, kernel = kernel, variant = "RC+", reg = path, scale = FALSE, landmarks = landmarks)
  for (i in seq_along(path)) {
    single <- kqd(d$x, d$y, kernel = kernel, variant = "RC+", reg = path[i], scale = FALSE, landmarks = landmarks)
    expect_lt(ref_rel_diff(predict(fit, x_new, type = "decision", reg = path[i]),
                           predict(single, x_new, type = "decision")), 1e-10)
    expect_equal(unname(fit$path_error[i]), unname(single$training_error))
  }
  f <- predict(fit, x_new, type = "decision")
  expect_equal(predict(fit, x_new, type = "prob"), softmax_rows(f), ignore_attr = TRUE)
  expect_equal(as.integer(predict(fit, x_new)), max.col(f, ties.method = "first"))
  # MAP biases from the feature-space spectrum: the full fit's when every point is a landmark
  all_points <- seq_len(nrow(d$x))
  for (variant in c("IC+", "RC+", "FK+")) {
    # one value each (a full fit's default for RC is a cross-validated path)
    reg <- kqd_default_reg(variant)
    full <- ny_quiet(kqd(d$x, d$y, kernel = kernel, variant = variant, bias = "map", scale = FALSE, reg = reg))
    ny <- ny_quiet(kqd(d$x, d$y, kernel = kernel, variant = variant, bias = "map", scale = FALSE, reg = reg,
                       landmarks = all_points))
    expect_equal(ny$bias, full$bias, tolerance = 1e-8)
  }
})

test_that("Ny-KQD takes landmarks as ikfd() does: methods, indices, precomputed kernels, formulas", {
  d <- fx_checkerboard()
  df <- data.frame(d$x, class = d$y)
  set.seed(5)
  random <- kqd(class ~ x1 + x2, data = df, kernel = d$kernel, variant = "RC+", landmarks = "random", m = 10)
  expect_s3_class(random$landmarks, "krein_landmarks")
  expect_length(random$landmarks$class, 10L)
  expect_null(random$x)
  expect_match(model_title(random), "Nystroem, 10 random landmarks")
  expect_output(print(random), "Nystroem feature space of rank")
  # a krein_landmarks object of the same data, and its indices, give the same model
  set.seed(5)
  chosen <- select_landmarks(df[, 1:2], df$class, kernel = d$kernel, method = "random", m = 10)
  from_object <- kqd(class ~ x1 + x2, data = df, kernel = d$kernel, variant = "RC+", landmarks = chosen)
  expect_equal(predict(from_object, d$x_new, type = "decision"), predict(random, d$x_new, type = "decision"))
  # precomputed kernel with landmark indices: the data fit's distances
  k <- fx_kernels(d)
  idx <- c(1, 4, 9, 16, 25, 33, 38)
  data_fit <- kqd(d$x, d$y, kernel = d$kernel, variant = "RC-", scale = FALSE, landmarks = idx)
  pre_fit <- kqd(precomputed_kernel(k$K), d$y, variant = "RC-", landmarks = idx)
  expect_lt(ref_rel_diff(predict(pre_fit, precomputed_kernel(k$K_new, self = k$self_new), type = "distance"),
                         predict(data_fit, d$x_new, type = "distance")), 1e-10)
  # k-means landmarks are computed from the inputs
  set.seed(2)
  km <- kqd(d$x, d$y, kernel = kernel_rbf(1), variant = "IC+", landmarks = "kmeans", m = 8)
  expect_identical(km$landmarks$method, "kmeans")
  expect_true(all(is.finite(predict(km, d$x_new, type = "decision"))))
})

test_that("bad landmarks give krein_errors naming the argument", {
  d <- fx_three_classes()
  expect_error(kqd(d$x, d$y, kernel = d$kernel, landmarks = c(1, 1, 2)), class = "krein_error", regexp = "`landmarks`")
  expect_error(kqd(d$x, d$y, kernel = d$kernel, landmarks = c(0, 5)), class = "krein_error", regexp = "`landmarks`")
  expect_error(kqd(d$x, d$y, kernel = d$kernel, landmarks = "grid"), class = "krein_error", regexp = "`landmarks`")
  expect_error(kqd(d$x, d$y, kernel = d$kernel, landmarks = "random", m = 1000), class = "krein_error", regexp = "`m`")
  other <- select_landmarks(d$x[1:20, ], d$y[1:20], kernel = d$kernel, method = "random", m = 6)
  expect_error(kqd(d$x, d$y, kernel = d$kernel, landmarks = other), class = "krein_error", regexp = "`landmarks`")
  # a kernel that is zero on the landmarks has no Nystroem feature space
  zero <- kernel_poly(1, offset = 0)
  x <- cbind(c(0, 0, 1, 2, -1, 3), c(0, 0, 1, 0, 2, 1))
  expect_error(kqd(x, factor(c("a", "b", "a", "b", "a", "b")), kernel = zero, variant = "RC+",
                   scale = FALSE, landmarks = 1:2), class = "krein_error", regexp = "rank 0")
})

test_that("summary() of a Ny-KQD fit describes the approximation", {
  d <- fx_checkerboard()
  fit <- kqd(d$x, d$y, kernel = d$kernel, variant = "IC+", scale = FALSE, landmarks = c(1, 5, 9, 13, 17, 21))
  s <- summary(fit)
  expect_match(s$model[["Nystroem approximation"]], "6 landmarks \\(indices\\); feature space of rank")
  expect_identical(sum(s$model[[1]]$landmarks), 6L)
  expect_output(print(s), "Nystroem approximation")
})

test_that("Ny-KQD chooses and reports the IKQD formulas from the class spectra as the full fit does", {
  # paper 000 Sec. IV: indefinite = "auto" switches per class; "no" on an
  # indefinite kernel warns (krein_warning), with or without landmarks
  d <- fx_checkerboard()
  landmarks <- seq(1, nrow(d$x), by = 2)
  auto <- kqd(d$x, d$y, kernel = d$kernel, variant = "IC-", scale = FALSE, landmarks = landmarks)
  expect_true(all(auto$indefinite))
  expect_true(all(auto$signature[, "q"] > 0))
  expect_equal(unname(rowSums(auto$signature)), as.vector(auto$counts))
  warnings <- character()
  withCallingHandlers(
    kqd(d$x, d$y, kernel = d$kernel, variant = "RC+", indefinite = "no", scale = FALSE, landmarks = landmarks),
    krein_warning = function(w) {
      warnings <<- c(warnings, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  expect_true(any(grepl("is indefinite, but `indefinite = \"no\"` forces", warnings, fixed = TRUE)))
  rbf <- fx_three_classes()
  pd <- kqd(rbf$x, rbf$y, kernel = rbf$kernel, variant = "IC-", scale = FALSE, landmarks = 1:20)
  expect_false(any(pd$indefinite))
  expect_true(all(pd$signature[, "q"] == 0))
})

test_that("Ny-KQD through the landmark pass equals the R path to 1e-10 and the transcription, every variant", {
  # The RBF kernel takes the core's landmark pass (class factors, then the
  # training distances with k(x, x) from the core, block by block on the
  # threads); without_landmark_pass() takes the R path.
  # Reference: the plain-R transcription of helper-kqd_nystrom.R.
  set.seed(7)
  board <- checkerboard(90)
  d <- list(x = as.matrix(board[, c("x1", "x2")]), y = board$y,
            x_new = as.matrix(checkerboard(10)[, c("x1", "x2")]), kernel = kernel_rbf(2))
  landmarks <- seq(1, 90, by = 4)
  k <- fx_nystrom_kernels(d, landmarks)
  expect_true(krein:::landmark_pass_applies(d$x, d$kernel, d$x[landmarks, ]))
  for (variant in ny_variants) {
    args <- list(d$x, d$y, kernel = d$kernel, variant = variant, reg = ny_reg(variant), scale = FALSE,
                 indefinite = "yes", landmarks = landmarks, threads = 2)
    old <- options(krein.block_rows = 7L)
    pass <- ny_quiet(do.call(kqd, args))
    r_path <- without_landmark_pass(ny_quiet(do.call(kqd, args)))
    options(old)
    for (type in c("distance", "decision")) {
      # new points: the prediction pass against the R path's kernel rows
      want_new <- without_landmark_pass(predict(r_path, d$x_new, type = type))
      expect_lt(ref_rel_diff(predict(pass, d$x_new, type = type), want_new), 1e-10)
      expect_lt(ref_rel_diff(predict(pass, type = type), predict(r_path, type = type)), 1e-10)
    }
    # the prediction pass of the training points gives the training distances
    expect_lt(ref_rel_diff(predict(pass, d$x, type = "distance"), predict(pass, type = "distance")), 1e-12)
    want <- ref_kqd_nystrom_distance(k$C, k$W, d$y, k$C, rep(1, nrow(d$x)), variant, ny_reg(variant), TRUE)
    expect_lt(ref_rel_diff(predict(pass, type = "distance"), want), 1e-8)
  }
})

test_that("Ny-KQD's default: the path of the Nystroem kernel's spread, chosen by 5-fold cross-validation", {
  # ?kqd, Regularisation and the path: with landmarks, RC's default is the
  # full fit's path s 10^(-5:1) with s = tr(H K H) / n of the Nystroem
  # kernel K = C W^+ C' the model works in (plain R here, from
  # ref_nystrom_features()), chosen by 5-fold cross-validation over folds
  # dealt in turn. A fold's model merges its training folds' class factors;
  # it must be the Ny-KQD fit on those points with the same landmarks.
  set.seed(3)
  d <- gaussian_mixture_2d(150)
  x <- as.matrix(d[, 1:2])
  k <- kernel_rbf(2)
  landmarks <- seq(1, 150, by = 6)
  points <- x[landmarks, ]
  C <- kernel_matrix(k, x, points)
  features <- ref_nystrom_features(kernel_matrix(k, points))
  phi <- C %*% t(features$map)
  K_hat <- phi %*% diag(features$J, length(features$J)) %*% t(phi)
  spread <- mean(diag(K_hat)) - mean(K_hat)
  for (variant in c("RC+", "RC-")) {
    fit <- kqd(x, d$y, kernel = k, scale = FALSE, landmarks = landmarks, variant = variant)
    expect_equal(unname(fit$reg[, 1]), spread * 10^(-5:1), tolerance = 1e-8)
    expect_identical(fit$select, "cv")
    folds <- integer(length(d$y))
    folds[order(d$y)] <- rep_len(1:5, length(d$y))
    expect_identical(fit$cv_folds, folds)
    path <- fit$reg[, 1]
    # the fit on a fold's training part with the same landmark points: over
    # one chunk, which takes landmarks as points (test-chunks.R: the same
    # fit as in memory)
    wrong <- held_out_errors(folds, function(train, test) {
      part <- kqd(krein_chunks(list(data.frame(x[train, ], y = d$y[train])), y = "y"), kernel = k, scale = FALSE,
                  landmarks = points, variant = variant, reg = path, select = "training")
      vapply(path, function(reg) sum(predict(part, x[test, , drop = FALSE], reg = reg) != d$y[test]), numeric(1))
    })
    expect_equal(fit$cv_error, wrong / nrow(x), tolerance = 1e-12)
    expect_identical(fit$best, max(which(wrong == min(wrong))))
    expect_identical(predict(fit, x), predict(fit, x, reg = path[fit$best]))
  }
  # through the row blocks (not the core's landmark pass): the same choice
  blocks <- without_landmark_pass(kqd(x, d$y, kernel = k, scale = FALSE, landmarks = landmarks))
  pass <- kqd(x, d$y, kernel = k, scale = FALSE, landmarks = landmarks)
  expect_equal(blocks$cv_error, pass$cv_error, tolerance = 1e-12)
  expect_identical(blocks$best, pass$best)
  # print() says what was chosen and its cross-validated error
  expect_match(paste(capture.output(print(pass)), collapse = "\n"), "lowest 5-fold CV error")
})
