# The model contract (R/contract.R): every registered model, fitted with its
# defaults on the same small data, must show the same face. A new model passes
# these tests by registering; nothing here is model-specific except the
# optional packages a model needs.

contract_data <- function(n = 60, d = 2) {
  set.seed(11)
  y <- factor(rep(c("a", "b", "c"), length.out = n))
  x <- matrix(rnorm(n * d), n, d) + 1.5 * as.integer(y)
  colnames(x) <- paste0("x", seq_len(d))
  data.frame(x, y = y)
}

model_needs <- list(isvm = "kernlab")

contract_fit <- function(name, data, ...) {
  for (pkg in model_needs[[name]]) testthat::skip_if_not_installed(pkg)
  fun <- get(name, envir = asNamespace("krein"))
  suppressWarnings(fun(y ~ ., data = data, ...))
}

test_that("the registry lists the ten model families", {
  expect_setequal(krein:::registered_models(),
                  c("kqd", "kmdc", "ikfd", "pcvm", "kfda", "onda", "iknn", "ikpca_qd", "isvm", "krein_svm"))
  models <- krein_models()
  expect_s3_class(models, "data.frame")
  expect_true(all(c("model", "label", "tunable", "path", "extra_types") %in% names(models)))
  expect_identical(models$path[models$model == "kqd"], "reg")
})

for (name in krein:::registered_models()) {
  test_that(sprintf("%s: predict() types, shapes and the class-probability agreement", name), {
    d <- contract_data()
    fit <- contract_fit(name, d)
    expect_s3_class(fit, c(name, "krein_model"))
    expect_null(fit$kernel)  # the kernel is stored once, in the input spec
    info <- krein:::model_info(name)
    test <- contract_data(20)
    cls <- predict(fit, test)
    expect_s3_class(cls, "factor")
    expect_identical(levels(cls), c("a", "b", "c"))
    expect_length(cls, 20)
    p <- predict(fit, test, type = "prob")
    expect_identical(dim(p), c(20L, 3L))
    expect_identical(colnames(p), c("a", "b", "c"))
    expect_true(all(p >= 0 & p <= 1))
    expect_equal(unname(rowSums(p)), rep(1, 20), tolerance = 1e-10)
    # the class is the most probable one (isvm's default class is kernlab's
    # vote, deterministic where its Platt probabilities are not;
    # there rule = "posterior" gives the most probable class)
    if (!identical(krein:::default_class_rule(fit), "posterior")) cls <- predict(fit, test, rule = "posterior")
    expect_identical(as.character(cls), colnames(p)[max.col(p, ties.method = "first")])
    f <- predict(fit, test, type = "decision")
    expect_identical(nrow(f), 20L)
    expect_true(is.numeric(f))
    for (extra in info$types) expect_identical(NROW(predict(fit, test, type = extra)), 20L)
    # the median-heuristic width is resolved once, at fit, and kept
    if (info$uses_kernel) expect_true(is.numeric(krein:::model_kernel(fit)$params$gamma))
    # a row's prediction never depends on the other rows
    expect_equal(predict(fit, test[c(5, 1), ], type = "prob"), p[c(5, 1), ], ignore_attr = TRUE)
    expect_equal(predict(fit, test[7, ], type = "prob"), p[7, , drop = FALSE], ignore_attr = TRUE)
    expect_error(predict(fit, test, type = "nonsense"), class = "krein_error")
    expect_error(predict(fit, test, nonsense = 1), class = "krein_argument_error")
  })

  test_that(sprintf("%s: an ordered factor response is taken as its classes", name), {
    d <- contract_data()
    ranked <- d
    ranked$y <- factor(d$y, levels = c("a", "b", "c"), ordered = TRUE)
    set.seed(1)
    ranked_fit <- contract_fit(name, ranked)
    set.seed(1)
    fit <- contract_fit(name, d)
    test <- contract_data(20)
    expect_identical(predict(ranked_fit, test), predict(fit, test))
    expect_equal(predict(ranked_fit, test, type = "prob"), predict(fit, test, type = "prob"))
    expect_identical(ranked_fit$training_error, fit$training_error)
  })

  test_that(sprintf("%s: 0-row newdata gives a 0-row result of every type", name), {
    # formula fits, pcvm's and isvm's included, must not fail with base errors
    d <- contract_data()
    fit <- contract_fit(name, d)
    cls <- predict(fit, d[0, ])
    expect_s3_class(cls, "factor")
    expect_length(cls, 0L)
    expect_identical(levels(cls), c("a", "b", "c"))
    for (type in c("prob", "decision", krein:::model_info(name)$types)) {
      empty <- predict(fit, d[0, ], type = type)
      expect_identical(nrow(empty), 0L, info = type)
      expect_identical(colnames(empty), colnames(predict(fit, d[1:2, ], type = type)), info = type)
    }
  })

  test_that(sprintf("%s: training predictions, NA rows and na.exclude padding", name), {
    d <- contract_data()
    d$x1[c(3, 10)] <- NA
    fit <- contract_fit(name, d, na.action = na.exclude)
    expect_identical(nobs(fit), 58L)
    fitted_classes <- fitted(fit)
    expect_length(fitted_classes, 60)
    expect_identical(unname(which(is.na(fitted_classes))), c(3L, 10L))
    for (type in c("class", "prob", "decision")) {
      training <- predict(fit, type = type)
      expect_identical(NROW(training), 60L)
      expect_true(all(is.na(as.matrix(training)[c(3, 10), ])))
      expect_false(anyNA(as.matrix(training)[-c(3, 10), ]))
    }
    # the training predictions are those of the training data given as newdata
    expect_equal(predict(fit, d[-c(3, 10), ], type = "prob"), predict(fit, type = "prob")[-c(3, 10), ],
                 ignore_attr = TRUE, tolerance = 1e-8)
    expect_identical(as.character(predict(fit)[-c(3, 10)]), as.character(fitted_classes[-c(3, 10)]))
    # missing values in newdata give NA rows, the other rows as without them
    test <- contract_data(10)
    test$x2[4] <- NA
    p <- predict(fit, test, type = "prob")
    expect_true(all(is.na(p[4, ])))
    expect_equal(p[-4, ], predict(fit, test[-4, ], type = "prob"), ignore_attr = TRUE)
    expect_true(is.na(predict(fit, test)[4]))
  })

  test_that(sprintf("%s: newdata columns are matched by name for matrix fits", name), {
    d <- contract_data()
    x <- as.matrix(d[, c("x1", "x2")])
    fun <- get(name, envir = asNamespace("krein"))
    for (pkg in model_needs[[name]]) skip_if_not_installed(pkg)
    fit <- suppressWarnings(fun(x, d$y))
    test <- x[1:8, ]
    expect_equal(predict(fit, test[, c("x2", "x1")], type = "prob"), predict(fit, test, type = "prob"))
    expect_error(predict(fit, test[, "x1", drop = FALSE]), class = "krein_error")
    expect_snapshot(show_error(predict(fit, test[, "x1", drop = FALSE])), variant = name)
  })

  test_that(sprintf("%s: unknown and misspelled arguments are errors", name), {
    d <- contract_data()
    fun <- get(name, envir = asNamespace("krein"))
    for (pkg in model_needs[[name]]) skip_if_not_installed(pkg)
    expect_error(fun(y ~ ., data = d, foo = 5), class = "krein_argument_error")
    expect_error(fun(as.matrix(d[, 1:2]), d$y, foo = 5), class = "krein_argument_error")
    expect_error(fun(as.matrix(d[, 1:2]), d$y, 5), class = "krein_argument_error")
  })

  test_that(sprintf("%s: print, summary, plot, fitted and nobs", name), {
    d <- contract_data()
    fit <- contract_fit(name, d)
    out <- capture.output(printed <- print(fit))
    expect_identical(printed, fit)
    expect_true(any(grepl("^Call: ", out)))
    expect_true(any(grepl("Classes: a \\(20\\), b \\(20\\), c \\(20\\)", out)))
    expect_true(any(grepl("training error", out)))
    if (krein:::model_info(name)$uses_kernel) expect_true(any(grepl("^Kernel: ", out)))
    s <- summary(fit)
    expect_s3_class(s, "summary.krein_model")
    expect_output(print(s), "confusion matrix")
    expect_identical(nobs(fit), 60L)
    expect_length(fitted(fit), 60)
    expect_equal(mean(fitted(fit) != d$y), fit$training_error)
    pdf(NULL)
    on.exit(dev.off())
    expect_identical(plot(fit), fit)
    expect_identical(plot(fit, data = contract_data(15), resolution = 20, main = "a title"), fit)
    d4 <- contract_data(60, 4)
    fit4 <- contract_fit(name, d4)
    expect_identical(plot(fit4, main = "four inputs"), fit4)
    expect_identical(plot(fit4, data = contract_data(15, 4)), fit4)
  })
}

test_that("no user argument can be captured by partial matching of krein's own", {
  # Every argument a model takes, through any of its methods
  for (name in krein:::registered_models()) {
    ns <- asNamespace("krein")
    methods <- c(name, paste0(name, c(".formula", ".default")))
    methods <- methods[vapply(methods, exists, logical(1), envir = ns)]
    all_args <- unique(unlist(lapply(methods, function(m) names(formals(get(m, envir = ns))))))
    all_args <- setdiff(all_args, "...")
    for (m in methods) {
      f <- names(formals(get(m, envir = ns)))
      before_dots <- if ("..." %in% f) f[seq_len(match("...", f) - 1L)] else f
      for (a in setdiff(all_args, f)) {
        captured <- before_dots[startsWith(before_dots, a)]
        expect(length(captured) == 0L,
               sprintf("%s(): argument `%s` would be captured by `%s`", m, a, paste(captured, collapse = ", ")))
      }
    }
    # and tune_krein()'s own arguments capture none of the model's
    tf <- names(formals(tune_krein))
    before_dots <- tf[seq_len(match("...", tf) - 1L)]
    for (a in setdiff(all_args, tf)) {
      captured <- before_dots[startsWith(before_dots, a)]
      expect(length(captured) == 0L,
             sprintf("tune_krein(): %s's argument `%s` would be captured by `%s`", name, a,
                     paste(captured, collapse = ", ")))
    }
  }
})

# ---------------------------------------------------------------------------
# scale = TRUE, the default of every model fitted on data

# Three columns in very different units, and new points outside the training range
scaling_data <- function() {
  d <- contract_data(45, 3)
  x <- sweep(as.matrix(d[, 1:3]), 2L, c(1000, 1, 1e-3), "*") + rep(c(50, 0, -3), each = 45)
  x_new <- x[c(2, 17, 31, 44), ] * 1.1
  by_hand <- scale(x)
  list(x = x, y = d$y, x_new = x_new, xs = by_hand[, ],
       xs_new = scale(x_new, attr(by_hand, "scaled:center"), attr(by_hand, "scaled:scale"))[, ])
}

for (name in krein:::registered_models()) {
  test_that(sprintf("%s: a scaled fit predicts as an unscaled fit on scale()d data", name), {
    for (pkg in model_needs[[name]]) skip_if_not_installed(pkg)
    fun <- get(name, envir = asNamespace("krein"))
    s <- scaling_data()
    set.seed(3)
    scaled <- suppressWarnings(fun(s$x, s$y))
    set.seed(3)
    by_hand <- suppressWarnings(fun(s$xs, s$y, scale = FALSE))
    set.seed(3)
    from_formula <- suppressWarnings(fun(y ~ ., data = data.frame(s$x, y = s$y)))
    expect_false(is.null(scaled$spec$scaling))
    expect_null(by_hand$spec$scaling)
    for (type in c("prob", "decision")) {
      expected <- predict(by_hand, s$xs_new, type = type)
      expect_equal(predict(scaled, s$x_new, type = type), expected, tolerance = 1e-12)
      expect_equal(predict(from_formula, as.data.frame(s$x_new), type = type), expected, tolerance = 1e-12,
                   ignore_attr = TRUE)
      expect_equal(predict(scaled, type = type), predict(by_hand, type = type), tolerance = 1e-12)
    }
    # the default is scale = TRUE; scale = FALSE on the raw data is another fit
    # (not for onda, whose Gaussian posteriors are invariant to affine maps)
    set.seed(3)
    raw <- suppressWarnings(fun(s$x, s$y, scale = FALSE))
    if (name != "onda") {
      expect_false(isTRUE(all.equal(predict(raw, s$x_new, type = "decision"),
                                    predict(scaled, s$x_new, type = "decision"))))
    }
    expect_error(fun(s$x, s$y, scale = "yes"), class = "krein_error", regexp = "`scale`")
    # print() says so in one line
    out <- capture.output(print(scaled))
    expect_identical(sum(grepl("^Inputs: centred and scaled", out)), 1L)
    expect_false(any(grepl("^Inputs:", capture.output(print(by_hand)))))
    expect_output(print(summary(scaled)), "Inputs centred and scaled")
  })

  test_that(sprintf("%s: plot() of a scaled fit draws in the original units", name), {
    for (pkg in model_needs[[name]]) skip_if_not_installed(pkg)
    fun <- get(name, envir = asNamespace("krein"))
    d <- contract_data(45)
    x <- cbind(x1 = d$x1 * 1000, x2 = d$x2 / 1000 - 7)
    set.seed(3)
    fit <- suppressWarnings(fun(x, d$y))
    # what plot() draws (plot.krein_model() hands these layers to the painter)
    drawn <- krein:::decision_region_layers(fit)
    expect_equal(drawn$x, x, tolerance = 1e-12, ignore_attr = TRUE)
    grid <- data.frame(x1 = seq(min(x[, 1]), max(x[, 1]), length.out = 7),
                       x2 = seq(max(x[, 2]), min(x[, 2]), length.out = 7))
    expect_identical(unname(drawn$predict_grid(grid)), unname(predict(fit, as.matrix(grid))))
    # circled points (PCVM's relevance vectors) are training points
    if (!is.null(drawn$landmarks)) {
      distance <- apply(drawn$landmarks, 1, function(p) min(abs(x[, 1] - p[1]) / 1000 + abs(x[, 2] - p[2]) * 1000))
      expect_lt(max(distance), 1e-9)
    }
    expect_equal(krein:::decision_region_layers(fit, x[1:5, ])$x, x[1:5, ], ignore_attr = TRUE)
    pdf(NULL)
    on.exit(dev.off())
    expect_identical(plot(fit, resolution = 10), fit)
  })
}

test_that("Nystroem fits scale their landmarks: circled where the points are, predictions as by hand", {
  s <- scaling_data()
  x2 <- s$x[, 1:2]
  # landmarks by row index: circled on those training points
  fit <- ikfd(x2, s$y, landmarks = c(1, 5, 9, 14, 20, 26, 33, 40))
  drawn <- krein:::decision_region_layers(fit)
  expect_equal(drawn$landmarks, x2[c(1, 5, 9, 14, 20, 26, 33, 40), ], tolerance = 1e-12, ignore_attr = TRUE)
  expect_equal(drawn$x, x2[c(1, 5, 9, 14, 20, 26, 33, 40), ], tolerance = 1e-12, ignore_attr = TRUE)
  # k-means landmarks selected on the data in its own units are scaled by the fit
  set.seed(4)
  landmarks <- select_landmarks(s$x, s$y, method = "kmeans", m = 9, scale = FALSE)
  fit <- ikfd(s$x, s$y, landmarks = landmarks)
  scaled_landmarks <- landmarks
  scaled_landmarks$points <- scale(landmarks$points, colMeans(s$x), apply(s$x, 2, sd))[, ]
  by_hand <- ikfd(s$xs, s$y, landmarks = scaled_landmarks, scale = FALSE)
  expect_equal(predict(fit, s$x_new, type = "prob"), predict(by_hand, s$xs_new, type = "prob"), tolerance = 1e-12)
  set.seed(5)
  pcvm_fit <- pcvm(s$x, s$y, landmarks = "kmeans", m = 9)
  set.seed(5)
  pcvm_hand <- pcvm(s$xs, s$y, landmarks = "kmeans", m = 9, scale = FALSE)
  expect_equal(predict(pcvm_fit, s$x_new, type = "prob"), predict(pcvm_hand, s$xs_new, type = "prob"),
               tolerance = 1e-12)
})

test_that("onda's discriminant kernels take points in the original units of a scaled fit", {
  s <- scaling_data()
  fit <- onda(s$x, s$y)
  by_hand <- onda(s$xs, s$y, scale = FALSE)
  for (kind in c("dk", "gdk", "gmk", "ldk")) {
    expect_equal(kernel_matrix(kernel_discriminant(fit, kind), s$x_new, s$x[1:5, ]),
                 kernel_matrix(kernel_discriminant(by_hand, kind), s$xs_new, s$xs[1:5, ]), tolerance = 1e-12)
  }
  expect_equal(kernel_matrix(kernel_discriminant(fit, "ideal"), s$x[1:4, ]),
               kernel_matrix(kernel_discriminant(by_hand, "ideal"), s$xs[1:4, ]))
})

test_that("tune_krein() scales within each fold by its training rows; caret_model() passes scale", {
  s <- scaling_data()
  set.seed(6)
  # log-loss judges probabilities: kqd's are the Gaussian posterior with the
  # MAP bias only
  tuned <- tune_krein(kqd, s$x, s$y, grid = list(reg = c(0.01, 0.1)), folds = 3, metric = "logloss",
                      bias = "map")
  expect_false(is.null(tuned$model$spec$scaling))
  for (f in 1:3) {
    test <- tuned$fold_ids[, 1] == f
    # a fit on the fold's training rows alone, with the default scale = TRUE
    fit <- kqd(s$x[!test, ], s$y[!test], reg = 0.1, bias = "map")
    p <- predict(fit, s$x[test, ], type = "prob")
    logloss <- -mean(log(pmax(p[cbind(seq_len(sum(test)), as.integer(s$y[test]))], 1e-15)))
    expect_equal(tuned$folds$value[tuned$folds$fold == f & tuned$folds$grid_row == 2], logloss, tolerance = 1e-10)
  }
  set.seed(6)
  unscaled <- tune_krein(kqd, s$x, s$y, grid = list(reg = c(0.01, 0.1)), folds = 3, scale = FALSE)
  expect_null(unscaled$model$spec$scaling)
  expect_identical(unscaled$model$call$scale, FALSE)
  model <- caret_model("kqd")
  param <- data.frame(variant = "RC+", reg = 0.1, gamma = NA)
  expect_false(is.null(model$fit(s$x, s$y, param = param)$spec$scaling))
  expect_null(model$fit(s$x, s$y, param = param, scale = FALSE)$spec$scaling)
})

test_that("each default is written once: in the default method, which every interface shares", {
  ns <- asNamespace("krein")
  for (name in krein:::registered_models()) {
    defaults <- formals(krein:::default_method(name))
    # the fitting function has no defaults of its own: fit_model() fills them
    # from the default method, for formula fits too
    fit_formals <- formals(get(krein:::model_info(name)$fit, envir = ns))[-1L]
    expect_true(all(vapply(fit_formals, function(v) identical(v, quote(expr = )), NA)), info = name)
    # data in chunks go through the default method: no method of their own
    # (which could carry defaults of their own, e.g. kfda's `reduce`)
    methods <- grep(sprintf("^%s[.]", name), ls(ns), value = TRUE)
    expect_false(sprintf("%s.krein_chunks", name) %in% methods, info = name)
    # every method shares the default method's defaults; `na.action` is left
    # missing in formula methods as in model.frame(), which means the same as
    # the default method's NULL (getOption("na.action"))
    for (method in methods) {
      own <- formals(get(method, envir = ns))
      shared <- setdiff(intersect(names(own), names(defaults)), c("...", "na.action"))
      expect_identical(own[shared], defaults[shared], info = method)
    }
    # and a formula fit uses them: its arguments are those of the default method
    expect_identical(names(krein:::model_defaults(name)), krein:::fit_argument_names(krein:::model_info(name)))
  }
})

# An invariant kernel takes the data as given: its reflection x -> -x is about
# the user's origin. On data far from it, the default scale = TRUE would centre
# them and give another kernel. Pekalska & Haasdonk (2009, Sec. V-B): with
# kbar(x, x') = max{k(x, x'), k(x, -x')} and k a function of the distance,
# kbar(-x, x') = kbar(x, x') and kbar(-x, -x) = kbar(x, x), so every kernel
# model predicts the same at -x as at x.
for (name in krein:::registered_models()[vapply(krein:::registered_models(),
                                                function(m) krein:::model_info(m)$uses_kernel, NA)]) {
  test_that(sprintf("%s: an invariant kernel works in the data's own coordinates, whatever `scale`", name), {
    for (pkg in model_needs[[name]]) skip_if_not_installed(pkg)
    fun <- get(name, envir = asNamespace("krein"))
    d <- contract_data(45)
    x <- as.matrix(d[, 1:2]) + rep(c(4, -3), each = 45)   # away from the origin
    x_new <- rbind(x[c(3, 20, 41), ] * 0.9, -x[c(3, 20, 41), ] * 0.9)
    kernel <- kernel_invariant(kernel_rbf(0.3))
    set.seed(4)
    default <- suppressWarnings(fun(x, d$y, kernel = kernel))
    set.seed(4)
    as_given <- suppressWarnings(fun(x, d$y, kernel = kernel, scale = FALSE))
    expect_null(default$spec$scaling)
    p <- predict(default, x_new, type = "prob")
    expect_equal(p, predict(as_given, x_new, type = "prob"), tolerance = 1e-12)
    expect_equal(p[4:6, ], p[1:3, ], tolerance = 1e-10, ignore_attr = TRUE)
  })
}

test_that("an invariant kernel refuses a base kernel fitted on scaled data", {
  fit <- kqd(iris[, 1:4], iris$Species, kernel = kernel_rbf())
  expect_false(is.null(fit$spec$kernel$units$scaling))
  expect_error(kernel_invariant(fit$spec$kernel), class = "krein_error", regexp = "fitted on scaled data")
  # a width left to the data is taken on the data as given
  invariant <- kqd(iris[, 1:4], iris$Species, kernel = kernel_invariant(kernel_rbf()))
  expect_equal(invariant$spec$kernel$base$params$gamma, median_gamma(as.matrix(iris[, 1:4])))
})

test_that("one table of tuning ranges: tune_krein(), caret_model() and the dials parameters agree", {
  # each parameter (e.g. ikfd's ridge_relative, the kernel width) has one
  # range, the same in tune_krein(), caret and dials
  x <- as.matrix(iris[, 1:4])
  y <- iris$Species
  xs <- scale(x)
  gamma0 <- median_gamma(xs)
  size <- 3L
  for (name in krein:::registered_models()) {
    info <- krein:::model_info(name)
    # each model's default kernel, as tune_krein() takes it (the width of
    # isvm's, krein_svm's and pcvm's is 1/p; the others' the median heuristic)
    kernel <- if (info$uses_kernel) krein:::model_defaults(name, "kernel")[[1L]]
    tune_grid <- krein:::default_tuning_grid(info, kernel, x, TRUE, list(), size, nrow(x), nlevels(y))
    caret_grid <- caret_model(name)$grid(x, y, len = size)
    if (info$uses_kernel) {
      centre <- if (name %in% c("isvm", "krein_svm", "pcvm")) 1 / ncol(x) else gamma0
      expect_equal(sort(unique(tune_grid$gamma)), sort(unique(caret_grid$gamma)), info = name)
      expect_equal(range(log10(tune_grid$gamma / centre)), krein:::tuning_range(name, "gamma"), info = name)
      # and the parsnip engine's width parameter is finalised around the same
      # width (one rule, width_grid_center(); isvm's svm_rbf() engine tunes
      # rbf_sigma, the others the engine argument gamma)
      if (!is.null(info$parsnip) && requireNamespace("dials", quietly = TRUE)) {
        width <- info$parsnip$args$rbf_sigma$dials$fun %||% "rbf_gamma"
        finalized <- dials::finalize(getExportedValue("krein", width)(), as.data.frame(x))
        expect_equal(unname(unlist(finalized$range)), log10(centre) + krein:::tuning_range(name, "gamma"),
                     info = name)
      }
    }
    # the parameters with a range in the table, where both grids tune them
    for (p in setdiff(intersect(names(tune_grid), names(caret_grid)), "gamma")) {
      range <- krein:::tuning_range(name, p)
      if (is.null(range)) next
      expect_equal(sort(unique(tune_grid[[p]])), sort(unique(caret_grid[[p]])), info = paste(name, p))
      expect_equal(range(log10(tune_grid[[p]])), range, info = paste(name, p))
    }
  }
  # the numeric ranges of kqd, ikfd and isvm are tuned by both
  expect_equal(range(caret_model("ikfd")$grid(x, y, len = 3)$ridge_relative), c(1e-6, 1e-2))
  expect_equal(range(caret_model("kqd")$grid(x, y, len = 3)$reg), c(1e-5, 10))
  skip_if_not_installed("dials")
  expect_equal(unname(unlist(kqd_penalty()$range)), krein:::tuning_range("kqd", "reg"))
  expect_equal(unname(unlist(ikfd_penalty()$range)), krein:::tuning_range("ikfd", "ridge_relative"))
  finalized <- dials::finalize(rbf_gamma(), iris[, 1:4])
  expect_equal(unname(unlist(finalized$range)), log10(gamma0) + krein:::tuning_range("kqd", "gamma"))
})

test_that("drop_training_scores() keeps fitted() and predictions for new data, and refuses predict() without data", {
  # Nystroem and chunk fits keep n x classes x path values of training
  # scores (gigabytes at 1e7 rows), which drop_training_scores() drops
  data <- contract_data(120)
  x <- as.matrix(data[, 1:2])
  nystroem <- list(
    kqd = kqd(x, data$y, kernel = kernel_rbf(0.5), landmarks = "random", m = 20, reg = c(0.01, 0.1, 1)),
    ikfd = ikfd(x, data$y, kernel = kernel_rbf(0.5), landmarks = "random", m = 20),
    pcvm = pcvm(x, data$y, kernel = kernel_rbf(0.5), landmarks = "random", m = 20),
    kfda = kfda(x, data$y, kernel = kernel_rbf(0.5), reduce = "subset", bases = 20)
  )
  for (name in names(nystroem)) {
    fit <- nystroem[[name]]
    small <- drop_training_scores(fit)
    expect_lt(as.numeric(object.size(small)), as.numeric(object.size(fit)))
    expect_identical(fitted(small), fitted(fit), info = name)
    expect_error(predict(small), class = "krein_error", regexp = "drop_training_scores")
    # the training data as newdata give the same scores again
    expect_equal(predict(small, x, type = "prob"), predict(fit, type = "prob"), tolerance = 1e-8,
                 ignore_attr = TRUE, info = name)
    expect_equal(predict(small, x[1:5, ], type = "decision"), predict(fit, x[1:5, ], type = "decision"))
    expect_output(print(small))
    expect_output(print(summary(small)))
  }
  # every model: fitted(), print() and summary() still work
  for (name in krein:::registered_models()) {
    fit <- contract_fit(name, data)
    small <- drop_training_scores(fit)
    expect_identical(fitted(small), fitted(fit), info = name)
    expect_error(predict(small), class = "krein_error")
    expect_output(print(summary(small)))
  }
  expect_error(drop_training_scores(list()), class = "krein_error")
})

test_that("kmdc's distance model is fitted through fit_model(), with kqd's checks", {
  # not by calling kqd_fit() directly, which would bypass the contract's checks
  data <- contract_data()
  calls <- new.env()
  calls$seen <- character()
  suppressMessages(trace("fit_model", where = asNamespace("krein"), print = FALSE,
                         tracer = bquote(assign("seen", c(get("seen", envir = .(calls)), name), envir = .(calls)))))
  on.exit(suppressMessages(untrace("fit_model", where = asNamespace("krein"))), add = TRUE)
  kmdc(y ~ ., data = data, kernel = kernel_rbf(0.5), reg = 0.1)
  expect_identical(calls$seen, c("kmdc", "kqd"))
})

test_that("a model on the features has no kernel: NULL, as a precomputed fit", {
  # onda must not signal "no kernel" with kernel = NA
  data <- contract_data()
  fit <- onda(y ~ ., data = data)
  expect_null(fit$spec$kernel)
  expect_null(krein:::model_kernel(fit))
  # a kernel model without one says so
  expect_error(kqd(y ~ ., data = data, kernel = NULL), class = "krein_error", regexp = "`kernel` is missing")
  expect_error(kqd(as.matrix(data[, 1:2]), data$y, kernel = NULL), class = "krein_error", regexp = "`kernel` is missing")
})

test_that("old argument names point to the new ones through the registry", {
  # kfda has no check_kfda_dots() of its own repeating the registry's `renamed`
  data <- contract_data()
  expect_error(kfda(y ~ ., data = data, kernel = kernel_rbf(0.5), type = "quadratic"),
               class = "krein_argument_error", regexp = "`type` is now called `discriminant`")
  expect_error(kfda(as.matrix(data[, 1:2]), data$y, type = "quadratic"),
               class = "krein_argument_error", regexp = "`type` is now called `discriminant`")
  expect_false(exists("check_kfda_dots", envir = asNamespace("krein"), inherits = FALSE))
})

test_that("data in chunks take the default method's path: its defaults, and the registry says which fit", {
  data <- contract_data(90)
  chunks <- krein_chunks(split(data, rep(1:3, each = 30)), y = "y")
  points <- as.matrix(data[c(1, 20, 40, 60, 80), 1:2])
  # the models the registry does not mark refuse before reading the chunks
  reads <- 0
  counting <- krein_chunks(function(i) {
    reads <<- reads + 1
    if (i <= 3) data[(30 * (i - 1) + 1):(30 * i), ]
  }, y = "y")
  expect_error(iknn(counting, kernel = kernel_rbf(0.5)), class = "krein_error", regexp = "iknn\\(\\) does not fit")
  expect_error(kqd(counting, kernel = kernel_rbf(0.5), spectrum = "clip"), class = "krein_argument_error",
               regexp = "spectrum")
  expect_identical(reads, 0)
  expect_error(kqd(chunks, data$y, kernel = kernel_rbf(0.5), landmarks = points), class = "krein_error",
               regexp = "`y` is not used")
  # the same fit as in memory, with the same defaults
  chunked <- kqd(chunks, kernel = kernel_rbf(0.5), landmarks = points)
  memory <- kqd(as.matrix(data[, 1:2]), data$y, kernel = kernel_rbf(0.5), landmarks = c(1, 20, 40, 60, 80))
  # (the default path comes from class moments merged in another order)
  expect_equal(chunked$reg, memory$reg, tolerance = 1e-12)
  expect_identical(chunked$best, memory$best)
  expect_equal(chunked$training_distances, memory$training_distances, tolerance = 1e-10)
})

test_that("the registry is filled when the package loads: one entry per model file's registration", {
  # every model file ends in a function model_registration_<name>(); the
  # package's .onLoad() calls them all, so the registry does not depend on
  # the order in which R collates the files
  ns <- asNamespace("krein")
  registrations <- sub("^model_registration_", "", ls(ns, pattern = "^model_registration_"))
  expect_gte(length(registrations), 10L)
  expect_setequal(krein:::registered_models(), registrations)
  expect_setequal(krein_models()$model, registrations)
  # every entry names a fitting function that exists, and its spectrum
  # choices are the spectrum corrections' own
  for (name in registrations) {
    info <- krein:::model_info(name)
    expect_true(exists(info$fit, envir = ns, mode = "function"), info = name)
    if (info$uses_kernel) {
      expect_identical(info$parameters$choices[info$parameters$parameter == "spectrum"],
                       paste(krein:::spectrum_methods, collapse = ", "), info = name)
    }
  }
  # filling it again (as a second load would) leaves the same models and parameters
  before <- lapply(krein:::registered_models(), function(name) krein:::model_info(name)$parameters)
  krein:::register_models()
  expect_identical(lapply(krein:::registered_models(), function(name) krein:::model_info(name)$parameters), before)
})
