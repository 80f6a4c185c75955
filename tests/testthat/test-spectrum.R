# Spectrum corrections (R/spectrum.R): correct_spectrum() against a plain-R
# transcription of Chen, Garcia, Gupta, Rahimi and Cazzanti (2009, JMLR 10,
# Sec. 3: clip, flip, shift, square and their maps for test points), with
# base::eigen() as the independent eigensolver; the `spectrum` argument of
# every kernel model in the registry against the same model fitted on the
# corrected matrix as a precomputed kernel.

# An indefinite kernel on the combination data (helper-combinations.R),
# scaled by hand so that a fit with scale = FALSE sees the same numbers
spectrum_data <- local({
  d <- combination_data
  x <- scale_by(d$x, d$x)
  x_new <- scale_by(d$x_new, d$x)
  kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
  list(x = x, y = d$y, x_new = x_new, kernel = kernel,
       K = kernel_matrix(kernel, x), K_new = kernel_matrix(kernel, x_new, x),
       self_new = diag(kernel_matrix(kernel, x_new)))
})

# Chen et al.'s definitions, transcribed: K = U diag(l) U'; clip
# l -> max(l, 0) and s -> U diag(1[l > 0]) U' s; flip l -> |l| and
# s -> U diag(sign l) U' s; shift K + max(-min(l), 0) I, s unchanged; square
# K K and s -> K s. Eigenvalues within n eps max|l| of zero pass unchanged
# (the sign of 1 in P). Self-similarities as ?correct_spectrum defines them:
# clip and flip add 1 and 2 times s' U_- |L_-|^{-1} U_-' s; shift adds the
# shift; square is s's.
spectrum_reference <- function(K, method, K_new, self_new) {
  e <- eigen(K, symmetric = TRUE)
  U <- e$vectors
  l <- e$values
  zero <- abs(l) <= nrow(K) * .Machine$double.eps * max(abs(l))
  neg <- l < 0 & !zero
  switch(method,
    clip = list(matrix = U %*% diag(pmax(l, 0)) %*% t(U),
                rows = t(U %*% diag(ifelse(zero, 1, as.numeric(l > 0))) %*% t(U) %*% t(K_new)),
                self = self_new + diag(K_new %*% U[, neg] %*% diag(1 / abs(l[neg])) %*% t(U[, neg]) %*% t(K_new))),
    flip = list(matrix = U %*% diag(abs(l)) %*% t(U),
                rows = t(U %*% diag(ifelse(zero, 1, sign(l))) %*% t(U) %*% t(K_new)),
                self = self_new + 2 * diag(K_new %*% U[, neg] %*% diag(1 / abs(l[neg])) %*% t(U[, neg]) %*% t(K_new))),
    shift = list(matrix = K + max(-min(l), 0) * diag(nrow(K)), rows = K_new, self = self_new + max(-min(l), 0)),
    square = list(matrix = K %*% K, rows = t(K %*% t(K_new)), self = rowSums(K_new^2)))
}

spectrum_corrections <- c("clip", "flip", "shift", "square")

test_that("correct_spectrum() equals Chen et al.'s corrections on training and new points", {
  d <- spectrum_data
  expect_gt(indefiniteness(d$K)$signature[["q"]], 5)  # genuinely indefinite
  for (method in spectrum_corrections) {
    correction <- correct_spectrum(d$K, method)
    reference <- spectrum_reference(d$K, method, d$K_new, d$self_new)
    expect_s3_class(correction, "krein_spectrum_correction")
    expect_equal(correction$matrix, reference$matrix, tolerance = 1e-10, info = method)
    expect_equal(predict(correction, d$K_new), reference$rows, tolerance = 1e-10, info = method)
    new <- predict(correction, precomputed_kernel(d$K_new, self = d$self_new))
    expect_s3_class(new, "krein_precomputed")
    expect_equal(new$K, reference$rows, tolerance = 1e-10, info = method)
    expect_equal(new$self, reference$self, tolerance = 1e-10, info = method)
    # the corrected matrix is positive semidefinite
    expect_gt(min(eigen(correction$matrix, symmetric = TRUE, only.values = TRUE)$values),
              -1e-10 * max(abs(correction$matrix)))
  }
})

test_that("a training point given as a new point gets its corrected row and diagonal (not for shift: a new point is distinct)", {
  d <- spectrum_data
  rows <- c(2L, 11L, 30L)
  for (method in c("clip", "flip", "square")) {
    correction <- correct_spectrum(d$K, method)
    new <- predict(correction, precomputed_kernel(d$K[rows, ], self = diag(d$K)[rows]))
    expect_equal(new$K, correction$matrix[rows, ], tolerance = 1e-10, info = method)
    expect_equal(new$self, diag(correction$matrix)[rows], tolerance = 1e-10, info = method)
  }
  shift <- correct_spectrum(d$K, "shift")
  new <- predict(shift, precomputed_kernel(d$K[rows, ], self = diag(d$K)[rows]))
  expect_equal(new$K, d$K[rows, ])
  expect_equal(new$self, diag(shift$matrix)[rows], tolerance = 1e-12)
})

test_that("clip, flip and shift leave a positive semidefinite kernel and new points unchanged, without a warning", {
  d <- spectrum_data
  K <- kernel_matrix(kernel_rbf(0.5), d$x)
  K_new <- kernel_matrix(kernel_rbf(0.5), d$x_new, d$x)
  for (method in c("clip", "flip", "shift")) {
    expect_no_warning(correction <- correct_spectrum(K, method))
    expect_equal(correction$matrix, K, tolerance = 1e-12, info = method)
    new <- predict(correction, precomputed_kernel(K_new, self = rep(1, nrow(K_new))))
    expect_equal(new$K, K_new, tolerance = 1e-12, info = method)
    expect_equal(new$self, rep(1, nrow(K_new)), info = method)
  }
  expect_identical(correct_spectrum(K, "shift")$shift, 0)
})

# The registry's kernel models, fitted with `spectrum = m` on data, equal the
# same model fitted on correct_spectrum(K, m)$matrix as a precomputed kernel
# and predicted on predict(correction, <kernel rows, self-similarities>), for
# every predict type, on new and training points.
test_that("every kernel model with `spectrum` = the model on the corrected precomputed kernel", {
  d <- spectrum_data
  new_kernel <- precomputed_kernel(d$K_new, self = d$self_new)
  for (name in krein:::registered_models()) {
    info <- krein:::model_info(name)
    if (!info$uses_kernel) next
    if (!is.null(combination_needs[[name]]) && !requireNamespace(combination_needs[[name]], quietly = TRUE)) next
    model <- getExportedValue("krein", name)
    types <- c("class", "prob", "decision", info$types)
    for (method in spectrum_corrections) {
      label <- sprintf("%s, spectrum = \"%s\"", name, method)
      correction <- correct_spectrum(d$K, method)
      set.seed(3)
      fit <- suppressWarnings(model(d$x, d$y, kernel = d$kernel, scale = FALSE, spectrum = method))
      set.seed(3)
      reference <- suppressWarnings(model(correction$matrix, d$y, kernel = "precomputed"))
      expect_s3_class(fit$spec$spectrum, "krein_spectrum_correction")
      expect_null(fit$spec$spectrum$matrix)  # the fit keeps the map, not the corrected matrix
      for (type in types) {
        expect_equal(predict(fit, d$x_new, type = type), predict(reference, predict(correction, new_kernel), type = type),
                     tolerance = 1e-10, info = paste(label, type))
        expect_equal(predict(fit, type = type), predict(reference, type = type), tolerance = 1e-10,
                     info = paste(label, type, "training"))
      }
    }
  }
})

# A Nystroem fit with `spectrum = m` corrects the landmark block W = K[L, L]
# alone; transcribed: with W = U diag(l) U' and V = U_- diag(sqrt(c / |l_-|))
# (c = 1 clip, 2 flip) over W's negative eigenvalues and C = K[, L], the
# corrected kernel is K + C V V' C' (clip, flip; = K P on the landmark
# columns, P the map of W), C C' (square) and K + shift I (shift); new rows
# K_new + K_new[, L] V V' C', K_new[, L] C' and K_new, self-similarities
# self + |K_new[, L] V|^2, |K_new[, L]|^2 and self + shift.
landmark_reference <- function(K, L, method, K_new, self_new) {
  C <- K[, L]
  e <- eigen(K[L, L], symmetric = TRUE)
  l <- e$values
  neg <- l < 0 & abs(l) > length(L) * .Machine$double.eps * max(abs(l))
  V <- e$vectors[, neg, drop = FALSE] %*% diag(sqrt((if (method == "clip") 1 else 2) / abs(l[neg])), sum(neg))
  shift <- max(-min(l), 0)
  switch(method,
    shift = list(K = K + diag(shift, nrow(K)), new = precomputed_kernel(K_new, self = self_new + shift)),
    square = list(K = C %*% t(C), new = precomputed_kernel(K_new[, L] %*% t(C), self = rowSums(K_new[, L]^2))),
    list(K = K + tcrossprod(C %*% V),
         new = precomputed_kernel(K_new + tcrossprod(K_new[, L] %*% V, C %*% V),
                                  self = self_new + rowSums((K_new[, L] %*% V)^2))))
}

test_that("Nystroem fits with `spectrum` correct the landmark block: = the transcription as a precomputed kernel", {
  d <- spectrum_data
  L <- combination_data$landmarks
  expect_gt(indefiniteness(d$K[L, L])$signature[["q"]], 0)
  new_kernel <- precomputed_kernel(d$K_new, self = d$self_new)
  for (name in krein:::registered_models()) {
    info <- krein:::model_info(name)
    if (!info$uses_kernel || is.null(info$landmark_args)) next
    model <- getExportedValue("krein", name)
    types <- c("class", "prob", "decision", info$types)
    for (method in spectrum_corrections) {
      label <- sprintf("%s (landmarks), spectrum = \"%s\"", name, method)
      reference <- landmark_reference(d$K, L, method, d$K_new, d$self_new)
      # the same random numbers for every fit (krein_svm's Platt folds)
      set.seed(26)
      oracle <- tryCatch(suppressWarnings(do.call(model, c(list(reference$K, d$y, kernel = "precomputed"),
                                                           info$landmark_args(L)))),
                         krein_error = function(e) e)
      if (inherits(oracle, "krein_error")) {
        # a fit the model refuses on the corrected kernel (kfda's singular
        # covariance on 9 bases) is refused with the same kind of error
        expect_error(suppressWarnings(do.call(model, c(list(d$x, d$y, kernel = d$kernel, scale = FALSE, spectrum = method),
                                                       info$landmark_args(L)))),
                     class = class(oracle)[1], info = label)
        next
      }
      set.seed(26)
      fit <- suppressWarnings(do.call(model, c(list(d$x, d$y, kernel = d$kernel, scale = FALSE, spectrum = method),
                                               info$landmark_args(L))))
      set.seed(26)
      precomputed <- suppressWarnings(do.call(model, c(list(d$K, d$y, kernel = "precomputed", spectrum = method),
                                                       info$landmark_args(L))))
      # the corrected kernel the fits compute with (training and new points
      # against the landmarks, self-similarities) = the transcription
      expect_equal(krein:::evaluate_kernel(fit$spec$kernel, d$x, d$x[L, ]), reference$K[, L], tolerance = 1e-10,
                   info = label)
      expect_equal(krein:::evaluate_kernel(fit$spec$kernel, d$x_new, d$x[L, ]), reference$new$K[, L],
                   tolerance = 1e-10, info = label)
      expect_equal(krein:::kernel_self(fit$spec$kernel, d$x_new), reference$new$self, tolerance = 1e-10, info = label)
      corrected <- krein:::new_kernels(precomputed, list(K = d$K_new, self = d$self_new), columns = L, need_self = TRUE)
      expect_equal(corrected$K, reference$new$K[, L], tolerance = 1e-10, info = label)
      expect_equal(corrected$self, reference$new$self, tolerance = 1e-10, info = label)
      expect_equal(precomputed$spec$spectrum$landmarks, L)
      for (type in types) {
        # the fit on data = the fit on the precomputed kernel: to 1e-6, for
        # the reason below (the two kernels agree to rounding, not bit for
        # bit; with OpenBLAS ikfd's "flip" probabilities then differ by 8e-8)
        expect_equal(predict(fit, d$x_new, type = type), predict(precomputed, new_kernel, type = type),
                     tolerance = 1e-6, info = paste(label, type))
        # = the model on the transcribed kernel: to 1e-6, since ikfd's
        # Nystroem probabilities move by about 1e-7 when the kernel moves by
        # 1e-15 (base::eigen's and dsyevr's smallest eigenvalue, the shift,
        # differ in the last bits); the kernels agree to 1e-10 above
        expected <- predict(oracle, reference$new, type = type)
        expect_equal(predict(fit, d$x_new, type = type), expected, tolerance = 1e-6, info = paste(label, type))
        expect_equal(predict(fit, type = type), predict(oracle, type = type), tolerance = 1e-6,
                     info = paste(label, type, "training"))
      }
    }
  }
})

test_that("`spectrum` on strings and on dissimilarities = the precomputed corrected kernel", {
  d <- combination_data
  correction <- correct_spectrum(string_kernels$K, "flip")
  fit <- kqd(d$strings, d$y, kernel = string_kernel, spectrum = "flip")
  reference <- kqd(correction$matrix, d$y, kernel = "precomputed")
  expect_equal(predict(fit, d$strings_new, type = "prob"),
               predict(reference, predict(correction, string_kernels$new), type = "prob"), tolerance = 1e-10)
  D <- as.matrix(stats::dist(d$x[, 1, drop = FALSE]))^0.5
  D_new <- as.matrix(stats::dist(rbind(d$x_new[, 1, drop = FALSE], d$x[, 1, drop = FALSE])))[1:9, -(1:9)]^0.5
  converted <- kernel_from_dissimilarity(D)
  correction <- correct_spectrum(converted, "clip")
  fit <- iknn(converted, d$y, k = 3, spectrum = "clip")
  reference <- iknn(correction$matrix, d$y, kernel = "precomputed", k = 3)
  expect_equal(predict(fit, D_new, type = "prob"),
               predict(reference, predict(correction, predict(converted, D_new)), type = "prob"), tolerance = 1e-10)
})

test_that("`spectrum` is a column of tune_krein()'s grid and an argument caret and parsnip pass on", {
  d <- spectrum_data
  tuned <- tune_krein(iknn, d$x, d$y, grid = list(spectrum = c("none", "flip"), k = 1), kernel = d$kernel,
                      scale = FALSE, folds = 3)
  expect_setequal(tuned$results$spectrum, c("none", "flip"))
  expect_true("spectrum" %in% names(tuned$best))
  expect_identical(tuned$model$spec$spectrum$method %||% "none", tuned$best$spectrum)
  skip_if_not_installed("caret")
  spec <- caret_model("iknn", tune = c("k", "spectrum"))
  expect_true("spectrum" %in% spec$parameters$parameter)
  fit <- spec$fit(d$x, d$y, param = data.frame(k = 1, spectrum = "clip", gamma = NA), kernel = d$kernel, scale = FALSE)
  expect_identical(fit$spec$spectrum$method, "clip")
})

test_that("parsnip's krein engines pass `spectrum` on as an engine argument", {
  skip_if_not_installed("parsnip")
  d <- spectrum_data
  train <- data.frame(d$x, y = d$y)
  spec <- parsnip::set_engine(parsnip::nearest_neighbor(neighbors = 3), "krein", kernel = d$kernel,
                              spectrum = "flip", scale = FALSE)
  fitted <- parsnip::fit(parsnip::set_mode(spec, "classification"), y ~ ., data = train)
  expect_identical(fitted$fit$spec$spectrum$method, "flip")
  direct <- iknn(d$x, d$y, kernel = d$kernel, k = 3, spectrum = "flip", scale = FALSE)
  expect_equal(unname(as.matrix(predict(fitted, data.frame(d$x_new), type = "prob"))),
               unname(predict(direct, d$x_new, type = "prob")), tolerance = 1e-10)
})

test_that("bad `spectrum` values, chunks and onda() give clear errors", {
  d <- spectrum_data
  expect_snapshot({
    show_error(kqd(d$x, d$y, kernel = d$kernel, spectrum = "abs"))
    show_error(kqd(d$x, d$y, kernel = d$kernel, spectrum = c("clip", "flip")))
    show_error(kqd(krein_chunks(list(data.frame(d$x, y = d$y)), y = "y"), kernel = d$kernel, spectrum = "clip",
                   landmarks = 1:9))
    show_error(onda(d$x, d$y, spectrum = "clip"))
    show_error(correct_spectrum(d$K[, -1], "clip"))
    show_error(correct_spectrum(d$K, "clap"))
    show_error(correct_spectrum(d$K, "clip", tol = -1))
    show_error(predict(correct_spectrum(d$K, "clip"), d$K_new[, -1]))
    show_error(predict(correct_spectrum(d$K, "clip")))
  })
  expect_error(onda(y ~ ., data = combination_data$data, spectrum = "flip"), class = "krein_error")
})

test_that("a `tol` of 1 or more is refused: every eigenvalue would count as zero and nothing be corrected", {
  d <- spectrum_data
  # tol = 2 returned K uncorrected: |lambda| <= 2 max|lambda| holds for all
  for (tol in c(1, 2, 1e300)) {
    expect_error(correct_spectrum(d$K, "flip", tol = tol), class = "krein_error",
                 regexp = "`tol` must be below 1")
  }
  expect_s3_class(correct_spectrum(d$K, "flip", tol = 0.5), "krein_spectrum_correction")
  expect_false(isTRUE(all.equal(correct_spectrum(d$K, "flip", tol = 1e-8)$matrix, d$K)))
  expect_error(correct_spectrum(), class = "krein_error", regexp = "`K` is missing")
  expect_error(correct_spectrum(method = "flip"), class = "krein_error", regexp = "`K` is missing")
})
