# Strings and other objects as `x`: a kernlab string kernel, an R
# function of two objects, or kernel_dissimilarity() with a dissimilarity
# function. Every fit must equal the same model fitted on the precomputed
# kernel matrix, with the test-versus-training values computed by hand in
# plain R; the conversions are those of kernel_from_dissimilarity(): the
# Gaussian exp(-gamma d^2) with gamma = 1 / median of d^2 over pairs i < j of
# distinct objects, negsq and classical scaling (Pekalska and Haasdonk 2009,
# Sec. V-C; Schleif, Gisbrecht and Tino 2018, Sec. 2.2).

# Two classes of 8-letter words: over {a, b} and over {c, d}, with typos "x"
string_data <- withr::with_seed(18, local({
  word <- function(letters) {
    paste(sample(c(letters, "x"), 8, TRUE, prob = c(0.45, 0.45, 0.1)), collapse = "")
  }
  # the classes overlap a little: some "ab" words borrow "c"
  train <- c(replicate(12, word(c("a", "b"))), replicate(12, word(c("c", "d"))),
             replicate(3, word(c("a", "c"))))
  y <- factor(c(rep("ab", 12), rep("cd", 12), rep("ab", 3)))
  new <- c(replicate(3, word(c("a", "b"))), replicate(3, word(c("c", "d"))))
  list(train = train, y = y, new = new)
}))

# The kernel models of the registry (onda works on input features)
kernel_models <- function() {
  Filter(function(name) krein:::model_info(name)$uses_kernel, krein:::registered_models())
}

# A fit on objects equals the fit on the precomputed kernel: training
# predictions, and predictions on new objects against the kernel of the new
# objects computed by hand.
expect_same_as_precomputed <- function(model, kernel, K, K_new, self_new, args = list(),
                                       prob_tolerance = 1e-10) {
  s <- string_data
  fun <- getExportedValue("krein", model)
  set.seed(3)
  on_objects <- do.call(fun, c(list(s$train, s$y, kernel = kernel), args))
  set.seed(3)
  on_kernel <- do.call(fun, c(list(precomputed_kernel(K), s$y), args))
  label <- sprintf("%s with %s", model, krein:::as_krein_kernel(kernel)$label)
  for (type in c("prob", "decision")) {
    tolerance <- if (type == "prob") prob_tolerance else 1e-10
    expect_equal(unname(predict(on_objects, type = type)), unname(predict(on_kernel, type = type)),
                 tolerance = tolerance, info = paste(label, "training", type))
    expect_equal(unname(predict(on_objects, s$new, type = type)),
                 unname(predict(on_kernel, precomputed_kernel(K_new, self = self_new), type = type)),
                 tolerance = tolerance, info = paste(label, "new", type))
  }
  expect_identical(unname(predict(on_objects, s$new)),
                   unname(predict(on_kernel, precomputed_kernel(K_new, self = self_new))))
  on_objects
}

test_that("every kernel model on strings with a kernlab string kernel equals its fit on the kernel matrix", {
  skip_if_not_installed("kernlab")
  s <- string_data
  sk <- kernlab::stringdot(type = "spectrum", length = 2, normalized = TRUE)
  # by hand: kernlab's kernel object evaluates one pair at a time
  pair <- function(a, b) outer(seq_along(a), seq_along(b), Vectorize(function(i, j) sk(a[[i]], b[[j]])))
  K <- pair(s$train, s$train)
  K_new <- pair(s$new, s$train)
  self_new <- diag(pair(s$new, s$new))
  for (model in kernel_models()) {
    # isvm's probabilities come from kernlab's Platt scaling, fitted by an
    # internal cross-validation that turns the last-bit difference between
    # kernlab's kernelMatrix() and its pairwise evaluation into 1e-5; its
    # decision values agree to 1e-10 as every other model's
    fit <- expect_same_as_precomputed(model, sk, K, K_new, self_new,
                                      prob_tolerance = if (model %in% c("isvm", "krein_svm")) 1e-4 else 1e-10)
    expect_identical(fit$spec$type, "objects")
    expect_identical(fit$spec$objects, s$train)
  }
})

test_that("every kernel model on strings with kernel_dissimilarity(adist) equals its fit on exp(-gamma d^2)", {
  s <- string_data
  D <- adist(s$train)
  # the median heuristic, by hand: pairs i < j of distinct strings
  d <- D[upper.tri(D)]
  gamma <- 1 / median(d[d > 0]^2)
  K <- exp(-gamma * D^2)
  K_new <- exp(-gamma * adist(s$new, s$train)^2)
  for (model in kernel_models()) {
    fit <- expect_same_as_precomputed(model, kernel_dissimilarity(adist), K, K_new, rep(1, 6))
    expect_equal(fit$spec$kernel$params$gamma, gamma)
  }
  # a width given is used as given
  expect_same_as_precomputed("kqd", kernel_dissimilarity(adist, gamma = 0.3), exp(-0.3 * D^2),
                             exp(-0.3 * adist(s$new, s$train)^2), rep(1, 6))
})

test_that("negsq and classical conversions of a dissimilarity function equal kernel_from_dissimilarity()", {
  s <- string_data
  D <- adist(s$train)
  D_new <- adist(s$new, s$train)
  for (method in c("negsq", "classical")) {
    conversion <- kernel_from_dissimilarity(D, method = method)
    new <- predict(conversion, D_new)
    for (model in c("kqd", "ikfd", "iknn")) {
      expect_same_as_precomputed(model, kernel_dissimilarity(adist, method = method), conversion$K,
                                 new$K, new$self)
    }
  }
  # classical scaling by hand (Gower): the centred squared dissimilarities
  J <- diag(27) - 1 / 27
  inputs <- krein:::inputs_from_xy(s$train, s$y, kernel_dissimilarity(adist, method = "classical"))
  expect_equal(unname(krein:::training_kernel(inputs)), -0.5 * J %*% D^2 %*% J, tolerance = 1e-10)
})

test_that("an R function of two objects is a kernel on objects; a pairwise dissimilarity equals the vectorised one", {
  s <- string_data
  # shared letters, counted with multiplicity: a positive semidefinite kernel
  counts <- function(w) table(factor(strsplit(w, "")[[1]], levels = c("a", "b", "c", "d", "x")))
  shared <- function(a, b) sum(pmin(counts(a), counts(b)))
  pair <- function(a, b) outer(seq_along(a), seq_along(b), Vectorize(function(i, j) shared(a[i], b[j])))
  expect_same_as_precomputed("kqd", shared, pair(s$train, s$train), pair(s$new, s$train),
                             diag(pair(s$new, s$new)))
  one_pair <- function(a, b) drop(adist(a, b))
  vectorised <- kqd(s$train, s$y, kernel = kernel_dissimilarity(adist))
  pairwise <- kqd(s$train, s$y, kernel = kernel_dissimilarity(one_pair, pairwise = TRUE))
  expect_equal(predict(pairwise, s$new, type = "prob"), predict(vectorised, s$new, type = "prob"),
               tolerance = 1e-12)
})

test_that("a list of objects: point sets with the Hausdorff distance", {
  set.seed(5)
  # clouds of 5 to 8 points around the origin (class a) or around (2, 2) (class b)
  cloud <- function(centre) matrix(rnorm(2 * sample(5:8, 1), centre), ncol = 2, byrow = TRUE)
  sets <- c(lapply(1:10, function(i) cloud(c(0, 0))), lapply(1:10, function(i) cloud(c(2, 2))))
  y <- factor(rep(c("a", "b"), each = 10))
  hausdorff <- function(p, q) {
    # distances from coordinate differences: |p|^2 + |q|^2 - 2 p'q through
    # the BLAS is rounding-negative (NaN) or ~1e-8 for a point against itself
    # under OpenBLAS, and d(x, x) must be exactly 0
    d <- sqrt(Reduce(`+`, lapply(seq_len(ncol(p)), function(k) outer(p[, k], q[, k], "-")^2)))
    max(apply(d, 1, min), apply(d, 2, min))
  }
  fit <- ikfd(sets, y, kernel = kernel_dissimilarity(hausdorff, pairwise = TRUE))
  expect_identical(fit$spec$object_type, "list")
  expect_equal(predict(fit, list(cloud(c(0, 0)), cloud(c(2, 2)))), factor(c("a", "b"), levels = c("a", "b")),
               ignore_attr = TRUE)
})

test_that("Nystroem fits on objects keep only the landmark objects and equal the precomputed fit", {
  skip_if_not_installed("kernlab")
  s <- string_data
  landmarks <- c(2, 5, 9, 14, 17, 21, 25)
  D <- adist(s$train)
  d <- D[upper.tri(D)]
  gamma <- 1 / median(d[d > 0]^2)
  K <- exp(-gamma * D^2)
  K_new <- exp(-gamma * adist(s$new, s$train)^2)
  for (model in c("kqd", "ikfd", "pcvm")) {
    fit <- expect_same_as_precomputed(model, kernel_dissimilarity(adist), K, K_new, rep(1, 6),
                                      args = list(landmarks = landmarks))
    expect_identical(fit$spec$stored, as.integer(landmarks), info = model)
    expect_identical(fit$spec$objects, s$train[landmarks], info = model)
  }
  # classical scaling converts new objects against all training objects: all kept
  fit <- kqd(s$train, s$y, kernel = kernel_dissimilarity(adist, method = "classical"), landmarks = landmarks)
  expect_length(fit$spec$objects, 27)
  # landmarks selected on the strings
  lm <- select_landmarks(s$train, s$y, kernel_dissimilarity(adist), method = "random", m = 8)
  fit <- ikfd(s$train, s$y, kernel = kernel_dissimilarity(adist), landmarks = lm)
  expect_identical(fit$spec$stored, sort(lm$indices))
  expect_length(predict(fit, s$new), 6)
})

test_that("kernel_from_dissimilarity(method = \"gaussian\") is exp(-gamma d^2) with the median width", {
  set.seed(9)
  x <- matrix(rnorm(40), 20)
  D <- as.matrix(dist(x))
  kd <- kernel_from_dissimilarity(D, method = "gaussian")
  # plain R: 1 / median of the squared distances between distinct points
  gamma <- 1 / median(D[upper.tri(D)]^2)
  expect_equal(kd$gamma, gamma)
  expect_equal(kd$K, exp(-gamma * D^2), tolerance = 1e-14)
  expect_equal(kd$self, rep(1, 20))
  # on Euclidean distances it is kernel_rbf() with the median heuristic
  expect_equal(kd$K, kernel_matrix(kernel_rbf(), x), tolerance = 1e-12, ignore_attr = TRUE)
  # a width given; new dissimilarities convert with the training width
  kd2 <- kernel_from_dissimilarity(D, method = "gaussian", gamma = 0.7)
  expect_equal(kd2$K, exp(-0.7 * D^2))
  D_new <- D[1:4, ] + 0.5
  expect_equal(predict(kd, D_new)$K, exp(-gamma * D_new^2), ignore_attr = TRUE)
  expect_equal(predict(kd, D_new)$self, rep(1, 4))
  # duplicated objects (d = 0 off the diagonal) do not enter the median
  D_dup <- as.matrix(dist(rbind(x, x[1:5, ])))
  d <- D_dup[upper.tri(D_dup)]
  expect_equal(kernel_from_dissimilarity(D_dup, "gaussian")$gamma, 1 / median(d[d > 0]^2))
  # a model on it equals the model on the RBF kernel matrix
  y <- factor(rep(c("u", "v"), 10))
  expect_equal(predict(kqd(kd, y), predict(kd, D_new), type = "prob"),
               predict(kqd(precomputed_kernel(exp(-gamma * D^2)), y),
                       precomputed_kernel(exp(-gamma * D_new^2), self = rep(1, 4)), type = "prob"),
               tolerance = 1e-10, ignore_attr = TRUE)
  expect_snapshot(kd)
})

test_that("kernel_matrix() takes objects", {
  s <- string_data
  K <- kernel_matrix(kernel_dissimilarity(adist, gamma = 0.1), s$train[1:4])
  expect_equal(K, exp(-0.1 * adist(s$train[1:4])^2))
  cross <- kernel_matrix(kernel_dissimilarity(adist, gamma = 0.1), s$train[1:4], s$new[1:2])
  expect_equal(cross, exp(-0.1 * adist(s$train[1:4], s$new[1:2])^2))
  named <- stats::setNames(s$train[1:3], c("p", "q", "r"))
  expect_identical(dimnames(kernel_matrix(kernel_dissimilarity(adist), named)), list(c("p", "q", "r"), c("p", "q", "r")))
})

test_that("missing objects: na.action drops them at the fit, predict() gives NA rows", {
  s <- string_data
  x <- replace(s$train, c(3, 20), NA)
  expect_error(kqd(x, s$y, kernel = kernel_dissimilarity(adist), na.action = na.fail), class = "krein_error",
               regexp = "elements 3 and 20")
  fit <- kqd(x, s$y, kernel = kernel_dissimilarity(adist), na.action = na.exclude)
  reference <- kqd(s$train[-c(3, 20)], s$y[-c(3, 20)], kernel = kernel_dissimilarity(adist))
  expect_equal(predict(fit, s$new, type = "prob"), predict(reference, s$new, type = "prob"))
  expect_true(all(is.na(fitted(fit)[c(3, 20)])))
  p <- predict(fit, c(s$new[1], NA, s$new[2]), type = "prob")
  expect_true(all(is.na(p[2, ])))
  expect_equal(p[c(1, 3), ], predict(fit, s$new[1:2], type = "prob"), ignore_attr = TRUE)
  # in a list, a single NA is a missing object
  fit_list <- ikfd(as.list(x), s$y, kernel = kernel_dissimilarity(function(a, b) adist(unlist(a), unlist(b))),
                   na.action = na.omit)
  expect_equal(nobs(fit_list), 25L)
})

test_that("scale does not apply to objects; print, summary and plot work", {
  s <- string_data
  a <- kqd(s$train, s$y, kernel = kernel_dissimilarity(adist), scale = TRUE)
  b <- kqd(s$train, s$y, kernel = kernel_dissimilarity(adist), scale = FALSE)
  expect_equal(predict(a, s$new, type = "prob"), predict(b, s$new, type = "prob"))
  expect_null(a$spec$scaling)
  expect_output(print(a), "dissimilarity \\(gaussian\\)")
  expect_output(print(summary(a)), "Training confusion")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(a))
})

test_that("tune_krein() tunes the width of a dissimilarity kernel on strings", {
  s <- string_data
  set.seed(1)
  tuned <- tune_krein(kqd, s$train, s$y, kernel = kernel_dissimilarity(adist),
                      grid = list(gamma = c(0.002, 0.02, 0.2), reg = c(0.01, 0.1)), folds = 3)
  expect_true(all(tuned$results$failed == 0))
  expect_identical(tuned$model$spec$kernel$params$gamma, tuned$best$gamma)
  expect_identical(tuned$model$call$kernel[[1]], as.name("kernel_dissimilarity"))
  expect_identical(tuned$model$call$kernel$gamma, tuned$best$gamma)
  # the refitted model is the model fitted with the best values
  direct <- kqd(s$train, s$y, kernel = kernel_dissimilarity(adist, gamma = tuned$best$gamma), reg = tuned$best$reg)
  expect_equal(predict(tuned$model, s$new, type = "prob"), predict(direct, s$new, type = "prob"))
  # missing strings left out of the tuning on request, as missing rows are
  set.seed(1)
  with_na <- tune_krein(kqd, replace(s$train, 2, NA), s$y, kernel = kernel_dissimilarity(adist),
                        grid = list(reg = 0.1), folds = 3, na.action = na.omit)
  expect_equal(nobs(with_na$model), 26L)
  # bad widths are refused before any fit
  expect_error(tune_krein(kqd, s$train, s$y, kernel = kernel_dissimilarity(adist), grid = list(gamma = c(-1, 1)),
                          folds = 3), class = "krein_error", regexp = "`gamma`")
})

test_that("tune_krein()'s default grid on strings spans the median-heuristic width of the dissimilarities", {
  s <- string_data
  D <- adist(s$train)
  median_width <- 1 / stats::median(D[upper.tri(D)][D[upper.tri(D)] > 0]^2)  # plain R: 1 / median d^2
  set.seed(1)
  tuned <- suppressWarnings(tune_krein(kqd, s$train, s$y, kernel = kernel_dissimilarity(adist), grid_size = 3,
                                       folds = 3))
  expect_equal(sort(unique(tuned$results$gamma)), median_width * c(1 / 32, 1, 32))
  # a width the user gave is not tuned
  set.seed(1)
  fixed <- suppressWarnings(tune_krein(kqd, s$train, s$y, kernel = kernel_dissimilarity(adist, gamma = 0.1),
                                       grid_size = 3, folds = 3))
  expect_false("gamma" %in% names(fixed$results))
})

test_that("a fold of tune_krein() on objects sees the kernel a fit on its training objects computes", {
  s <- string_data
  train <- c(1:8, 13:20, 25:27)
  test <- setdiff(seq_along(s$y), train)
  for (method in c("gaussian", "classical")) {
    kernel <- kernel_dissimilarity(adist, method = method)
    cache <- krein:::object_tuning_cache(kernel, s$train)
    fold <- krein:::object_fold_data(cache, kernel, train, test)$kernel()
    fit <- kqd(s$train[train], s$y[train], kernel = kernel)
    new <- krein:::new_inputs(fit$spec, s$train[test])
    expect_equal(fold$train$K, krein:::training_kernel(krein:::inputs_from_xy(s$train[train], s$y[train], kernel)),
                 ignore_attr = TRUE)
    expect_equal(fold$test$K, new$K, ignore_attr = TRUE)
    expect_equal(fold$test$self, new$self)
  }
  skip_if_not_installed("kernlab")
  set.seed(2)
  tuned <- tune_krein(ikfd, s$train, s$y, kernel = kernlab::stringdot(length = 2),
                      grid = list(ridge_relative = c(1e-4, 1e-2)), folds = 3)
  expect_true(all(tuned$results$failed == 0))
})

test_that("bad objects and kernels that cannot compare them are krein_errors", {
  s <- string_data
  expect_snapshot({
    show_error(kqd(list("abab", NULL, "cdcd", NULL), factor(c("a", "a", "b", "b")), kernel = kernel_dissimilarity(adist)))
    show_error(kqd(s$train, s$y))
    show_error(kqd(s$train, s$y, kernel = kernel_poly(2)))
    show_error(kqd(replace(s$train, 4, NA), s$y, kernel = kernel_dissimilarity(adist), na.action = na.fail))
    show_error(kqd(s$train, s$y, kernel = kernel_dissimilarity(function(a, b) as.vector(adist(a, b)))))
    show_error(kqd(s$train, s$y, kernel = kernel_dissimilarity(function(a, b) adist(a, b)[, -1])))
    show_error(kqd(s$train, s$y, kernel = kernel_dissimilarity(function(a, b) adist(a, b) - 1)))
    show_error(kqd(s$train, s$y, kernel = kernel_dissimilarity(function(a, b) stop("no distance today"))))
    show_error(kqd(s$train, s$y, kernel = function(a, b) nchar(a) + nchar(b) + c(0, 1)))
    show_error(kqd(s$train, s$y[-1], kernel = kernel_dissimilarity(adist)))
    show_error(kqd(character(), factor(character()), kernel = kernel_dissimilarity(adist)))
    show_error(onda(s$train, s$y))
    show_error(tune_krein(onda, s$train, s$y, grid = list(dim = 1)))
    show_error(kqd(matrix(1:54, 27), s$y, kernel = kernel_dissimilarity(adist)))
    show_error(kernel_dissimilarity("adist"))
    show_error(kernel_dissimilarity(adist, method = "negsq", gamma = 1))
    show_error(kernel_from_dissimilarity(adist(s$train), method = "classical", gamma = 1))
  })
  fit <- kqd(s$train, s$y, kernel = kernel_dissimilarity(adist))
  # a function right on the training objects but not on new ones
  only_square <- kqd(s$train, s$y, kernel = kernel_dissimilarity(function(a, b) adist(a)))
  expect_snapshot({
    show_error(predict(fit, matrix(1:4, 2)))
    show_error(predict(fit, list("abab", NULL)))
    show_error(predict(only_square, s$new))
  })
  skip_if_not_installed("kernlab")
  expect_snapshot({
    show_error(kqd(s$train, s$y, kernel = kernlab::rbfdot(1)))
    show_error(kqd(list(1:3, 2:4, 5:6, 7:9), factor(c("a", "a", "b", "b")), kernel = kernlab::stringdot()))
  })
})
