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

test_that("the registry lists the nine model families", {
  expect_setequal(krein:::registered_models(),
                  c("kqd", "kmdc", "ikfd", "pcvm", "kfda", "onda", "iknn", "ikpca_qd", "isvm"))
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
    # the class is the most probable one
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

  test_that(sprintf("%s: 0-row newdata gives a 0-row result of every type", name), {
    # issue 16: pcvm and isvm failed with base errors on formula fits
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
    expect_snapshot(predict(fit, test[, "x1", drop = FALSE]), error = TRUE, variant = name)
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
