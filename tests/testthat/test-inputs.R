# The one input path every model uses (R/inputs.R). A stand-in model with the
# generic / formula / default shape of the real ones drives it.

toy_model <- function(x, ...) UseMethod("toy_model")
toy_model.formula <- function(formula, data, subset, na.action, kernel = kernel_rbf(1), ...) {
  krein:::inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel)
}
toy_model.default <- function(x, y, kernel = kernel_rbf(1), na.action = NULL, ...) {
  krein:::inputs_from_xy(x, y, kernel, na.action)
}

set.seed(7)
df <- data.frame(a = rnorm(12), b = rnorm(12), y = factor(rep(c("u", "v", "w"), 4)))

test_that("formula, data frame, matrix and precomputed kernel give the same training problem", {
  from_formula <- toy_model(y ~ a + b, data = df)
  from_df <- toy_model(df[, c("a", "b")], df$y)
  from_matrix <- toy_model(as.matrix(df[, c("a", "b")]), df$y)
  K <- kernel_matrix(kernel_rbf(1), df[, c("a", "b")])
  from_kernel <- toy_model(K, df$y, kernel = "precomputed")
  from_object <- toy_model(precomputed_kernel(K), df$y)
  for (inputs in list(from_formula, from_df, from_matrix, from_kernel, from_object)) {
    expect_s3_class(inputs, "krein_inputs")
    expect_equal(unname(krein:::training_kernel(inputs)), unname(K))
    expect_identical(inputs$y, df$y)
    expect_identical(inputs$spec$levels, c("u", "v", "w"))
  }
  expect_identical(from_formula$spec$type, "formula")
  expect_identical(from_matrix$spec$type, "xy")
  expect_identical(from_kernel$spec$type, "precomputed")
})

test_that("the response becomes a factor; a level without rows is left out of the fit, with a message, and kept", {
  expect_identical(toy_model(as.matrix(df[, 1:2]), as.character(df$y))$y, df$y)
  expect_identical(levels(toy_model(as.matrix(df[, 1:2]), rep(1:2, 6))$y), c("1", "2"))
  y_extra <- factor(df$y, levels = c("u", "z", "v", "w"))
  expect_message(inputs <- toy_model(as.matrix(df[, 1:2]), y_extra),
                 "Level \"z\" of `y` has no training rows: the model is fitted on the other classes", fixed = TRUE)
  expect_identical(levels(inputs$y), c("u", "v", "w"))
  expect_identical(inputs$spec$outcome_levels, c("u", "z", "v", "w"))
  expect_null(attr(inputs$y, "outcome_levels"))
  df2 <- df
  df2$y <- y_extra
  expect_message(toy_model(y ~ a + b, data = df2), "\"z\"")
})

test_that("formula fits dummy-code factors and rebuild newdata from terms", {
  df2 <- df
  df2$g <- factor(rep(c("p", "q"), 6))
  inputs <- toy_model(y ~ a + g, data = df2)
  expect_identical(colnames(inputs$x), c("a", "gq"))
  new <- krein:::new_inputs(inputs$spec, df2[c(2, 1), c("g", "a")])
  expect_equal(unname(new$x), unname(inputs$x[c(2, 1), ]), ignore_attr = TRUE)
  expect_error(krein:::new_inputs(inputs$spec, df2[, "a", drop = FALSE]), class = "krein_error",
               regexp = "`newdata` lacks the variable `g`")
  bad_level <- df2[1:2, ]
  bad_level$g <- factor(c("p", "zz"))
  expect_error(krein:::new_inputs(inputs$spec, bad_level), class = "krein_error",
               regexp = "`newdata`")
  # transformations in the formula are applied to newdata too
  logged <- toy_model(y ~ log(abs(a)) + b, data = df)
  expect_equal(krein:::new_inputs(logged$spec, df[1:3, ])$x[, 1], log(abs(df$a[1:3])),
               ignore_attr = TRUE)
})

test_that("subset and na.action are honoured; na.fail names the rows", {
  expect_equal(nrow(toy_model(y ~ a + b, data = df, subset = a > 0)$x), sum(df$a > 0))
  df_na <- df
  df_na$a[c(3, 8)] <- NA
  expect_snapshot(show_error(toy_model(y ~ a + b, data = df_na, na.action = na.fail)))
  expect_error(toy_model(df_na[, 1:2], df_na$y, na.action = na.fail), class = "krein_error", regexp = "rows 3 and 8")
  omitted <- toy_model(y ~ a + b, data = df_na, na.action = na.omit)
  expect_equal(nrow(omitted$x), 10L)
  expect_equal(as.vector(omitted$na_action), c(3L, 8L))
  expect_s3_class(omitted$na_action, "omit")
  expect_equal(nrow(toy_model(df_na[, 1:2], df_na$y, na.action = "na.exclude")$x), 10L)
  y_na <- df$y
  y_na[5] <- NA
  expect_error(toy_model(df[, 1:2], y_na, na.action = na.fail), class = "krein_error", regexp = "row 5")
  expect_error(toy_model(df[, 1:2], df$y, na.action = mean), class = "krein_error",
               regexp = "`na.action`")
})

test_that("matrix fits check newdata columns by name or position", {
  inputs <- toy_model(as.matrix(df[, c("a", "b")]), df$y)
  swapped <- as.matrix(df[1:2, c("b", "a")])
  expect_equal(krein:::new_inputs(inputs$spec, swapped)$x, as.matrix(df[1:2, c("a", "b")]))
  expect_equal(dim(krein:::new_inputs(inputs$spec, c(0.1, 0.2))$x), c(1L, 2L))
  expect_error(krein:::new_inputs(inputs$spec, data.frame(a = 1, c = 2)), class = "krein_error",
               regexp = "`newdata` lacks the column `b`")
  unnamed <- toy_model(unname(as.matrix(df[, 1:2])), df$y)
  expect_error(krein:::new_inputs(unnamed$spec, matrix(1, 2, 3)), class = "krein_error",
               regexp = "`newdata` must have 2 columns")
  # missing values are kept (those rows predict NA); infinite ones are refused
  expect_identical(krein:::new_inputs(unnamed$spec, matrix(c(1, NA), 1))$x, matrix(c(1, NA), 1))
  expect_error(krein:::new_inputs(unnamed$spec, matrix(c(1, Inf), 1)), class = "krein_error",
               regexp = "`newdata` has infinite values in row 1")
})

test_that("precomputed fits take test kernels, self-similarities and dissimilarities", {
  set.seed(8)
  x <- matrix(rnorm(20), 10)
  K <- kernel_matrix(kernel_rbf(1), x)
  inputs <- toy_model(K, rep(1:2, 5), kernel = "precomputed")
  K_new <- kernel_matrix(kernel_rbf(1), x[1:2, ] + 0.1, x)
  new <- krein:::new_inputs(inputs$spec, K_new)
  expect_identical(new$K, K_new)
  expect_error(krein:::new_self_similarity(inputs$spec, new), class = "krein_error",
               regexp = "self-similarities")
  with_self <- krein:::new_inputs(inputs$spec, precomputed_kernel(K_new, self = c(1, 1)))
  expect_equal(krein:::new_self_similarity(inputs$spec, with_self), c(1, 1))
  expect_equal(krein:::new_kernel_matrix(inputs$spec, new, columns = 3:4), K_new[, 3:4])
  expect_error(krein:::new_inputs(inputs$spec, K_new[, 1:9]), class = "krein_error",
               regexp = "`newdata` must be a kernel matrix with one column per training point \\(10\\)")

  kd <- kernel_from_dissimilarity(as.matrix(dist(x)), method = "classical")
  from_d <- toy_model(kd, rep(1:2, 5))
  new_d <- krein:::new_inputs(from_d$spec, as.matrix(dist(x))[1:3, ])
  expect_equal(new_d$K, kd$K[1:3, ], tolerance = 1e-12, ignore_attr = TRUE)
  expect_equal(new_d$self, unname(diag(kd$K))[1:3], tolerance = 1e-12)
})

test_that("data fits compute new kernels and self-similarities from the stored kernel", {
  inputs <- toy_model(y ~ a + b, data = df, kernel = kernel_invariant(kernel_rbf(0.5)))
  new <- krein:::new_inputs(inputs$spec, df[1:4, ])
  expect_equal(krein:::new_kernel_matrix(inputs$spec, new, inputs$x),
               kernel_matrix(kernel_invariant(kernel_rbf(0.5)), inputs$x[1:4, ], inputs$x),
               ignore_attr = TRUE)
  expect_equal(krein:::new_self_similarity(inputs$spec, new), rep(1, 4))
  # the median heuristic is resolved once, from the training data, and stored
  median_fit <- toy_model(y ~ a + b, data = df, kernel = kernel_rbf())
  expect_equal(median_fit$spec$kernel$params$gamma, median_gamma(df[, c("a", "b")]))
})

test_that("bad training inputs are krein_errors naming the argument", {
  expect_snapshot(show_error(toy_model(df[, 1:2], df$y[1:5])))
  expect_snapshot(show_error(toy_model(df[, 1:2], rep("u", 12))))
  expect_snapshot(show_error(toy_model(data.frame(a = 1:12, g = letters[1:12]), df$y)))
  expect_error(toy_model(df[, 1:2]), class = "krein_error", regexp = "`y`")
  expect_error(toy_model(df[, 1:2], list(1)), class = "krein_error", regexp = "`y`")
  expect_error(toy_model(df[, 1:2], seq(0.5, 6, by = 0.5)), class = "krein_error",
               regexp = "`y`")
  expect_error(toy_model(df[, 1:2], df$y, kernel = "rbf"), class = "krein_error",
               regexp = "`kernel`")
  expect_error(toy_model(matrix(1:6, 2), 1:2, kernel = "precomputed"), class = "krein_error",
               regexp = "`x`.*square")
  expect_error(toy_model(matrix(c(1, 2, 3, 1), 2), 1:2, kernel = "precomputed"),
               class = "krein_error", regexp = "`x`.*symmetric")
  expect_error(toy_model(diag(3), 1:2, kernel = "precomputed"), class = "krein_error",
               regexp = "`y`")
  expect_error(toy_model(diag(3), c(1, NA, 2), kernel = "precomputed"), class = "krein_error",
               regexp = "`y`")
  expect_error(toy_model(y ~ a + nothere, data = df), class = "krein_error", regexp = "`formula`")
  expect_error(toy_model(y ~ 1, data = df), class = "krein_error", regexp = "`formula`")
  expect_error(toy_model(y ~ a, data = 3), class = "krein_error", regexp = "`data`")
  expect_error(toy_model(rbind(c(1, Inf), c(2, 2)), 1:2), class = "krein_error", regexp = "`x`")
  df_inf <- df
  df_inf$a[2] <- Inf
  expect_error(toy_model(y ~ a + b, data = df_inf), class = "krein_error", regexp = "`data`")
})

test_that("check_number() asks for a finite or a whole number in plain words", {
  # not "must be a finite a number"
  expect_snapshot(show_error(check_number("a", "gamma", lower = 0)))
  expect_snapshot(show_error(check_number(Inf, "gamma", lower = 0)))
  expect_snapshot(show_error(check_number(2.5, "dim", lower = 1, integer = TRUE)))
  expect_error(check_number(NA, "cost", lower = 0), class = "krein_error",
               regexp = "`cost` must be a finite number, not NA", fixed = FALSE)
  expect_error(ikfd(matrix(rnorm(20), 10), rep(1:2, 5), ridge_relative = NaN),
               class = "krein_error", regexp = "`ridge_relative` must be a finite number, not")
})

# ---------------------------------------------------------------------------
# Scaling, dist objects, a response among the predictors, NA in y

toy_scaled <- function(x, ...) UseMethod("toy_scaled")
toy_scaled.formula <- function(formula, data, subset, na.action, kernel = kernel_rbf(1), scale = TRUE) {
  krein:::inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel, scale = scale)
}
toy_scaled.default <- function(x, y, kernel = kernel_rbf(1), na.action = NULL, scale = TRUE) {
  krein:::inputs_from_xy(x, y, kernel, na.action, scale = scale)
}

test_that("scale = TRUE centres and scales the training columns as base::scale() does, and newdata alike", {
  x <- cbind(a = df$a * 1000 + 5, b = df$b / 100)
  inputs <- toy_scaled(x, df$y)
  expect_identical(unname(inputs$x), unname(scale(x)[, ]))
  expect_equal(inputs$spec$scaling$center, colMeans(x))
  expect_equal(inputs$spec$scaling$scale, apply(x, 2, sd))
  new <- krein:::new_inputs(inputs$spec, x[3:1, ] + 1)
  expect_equal(new$x, scale(x[3:1, ] + 1, colMeans(x), apply(x, 2, sd))[, ], ignore_attr = TRUE)
  # plot() asks for the original units
  expect_identical(krein:::new_inputs(inputs$spec, x[1:2, ], scaled = FALSE)$x, x[1:2, ])
  expect_equal(krein:::unscale_columns(inputs$spec$scaling, inputs$x), x, ignore_attr = TRUE)
  # the median heuristic sees the scaled data
  median_fit <- toy_scaled(x, df$y, kernel = kernel_rbf())
  expect_equal(median_fit$spec$kernel$params$gamma, median_gamma(scale(x)))
  # formula fits scale every column of the model matrix, dummies included
  df2 <- transform(df, g = factor(rep(c("p", "q", "q"), 4)))
  from_formula <- toy_scaled(y ~ a + g, data = df2)
  expect_equal(unname(from_formula$x), unname(scale(model.matrix(~ a + g, df2)[, -1])[, ]))
  # the rows dropped by na.action do not enter the scaling
  df_na <- df
  df_na$a[2] <- NA
  omitted <- toy_scaled(y ~ a + b, data = df_na, na.action = na.omit)
  expect_equal(omitted$spec$scaling$center[["a"]], mean(df$a[-2]))
  # scale = FALSE and precomputed kernels: no scaling
  expect_null(toy_scaled(x, df$y, scale = FALSE)$spec$scaling)
  K <- kernel_matrix(kernel_rbf(1), x)
  expect_null(toy_scaled(K, df$y, kernel = "precomputed")$spec$scaling)
  expect_error(toy_scaled(x, df$y, scale = NA), class = "krein_error", regexp = "`scale`")
  expect_error(toy_scaled(K, df$y, kernel = "precomputed", scale = "yes"), class = "krein_error",
               regexp = "`scale`")
})

test_that("constant columns are centred but not scaled, with a message naming them", {
  x <- cbind(a = df$a, const = 7, b = df$b)
  expect_message(inputs <- toy_scaled(x, df$y), "Constant predictor column `const`")
  expect_identical(inputs$spec$scaling$scale[["const"]], 1)
  expect_true(inputs$spec$scaling$constant[["const"]])
  expect_equal(inputs$x[, "const"], rep(0, 12), ignore_attr = TRUE)
  # rounding noise around a constant counts as constant
  expect_message(toy_scaled(cbind(a = df$a, c = 0.3 + c(0, rep(c(0.1 + 0.2 - 0.3, 0), length.out = 11))), df$y),
                 "`c`")
  expect_message(toy_scaled(unname(x), df$y), "column 2")
  expect_message(toy_scaled(x, df$y, scale = FALSE), NA)
})

test_that("a numeric predictor column equal to the response warns", {
  iris_coded <- cbind(as.matrix(iris[, 1:4]), Species = as.integer(iris$Species))
  expect_warning(toy_scaled(iris_coded, iris$Species), class = "krein_warning",
                 regexp = "`x` has a column `Species` equal to the class labels")
  # the numeric labels themselves, in a data frame of a formula fit
  d <- data.frame(a = df$a, label = rep(c(0, 1), 6), y = rep(c(0, 1), 6))
  expect_warning(toy_scaled(y ~ ., data = d), class = "krein_warning", regexp = "`data`.*`label`")
  expect_warning(toy_scaled(cbind(a = df$a, code = rep(c(10, 20), 6)), rep(c(10, 20), 6)),
                 class = "krein_warning", regexp = "`code`")
  expect_no_warning(toy_scaled(as.matrix(iris[, 1:4]), iris$Species))
})

test_that("an NA in y is reported as in y, an NA in x as in x", {
  y_na <- df$y
  y_na[5] <- NA
  expect_error(toy_model(df[, 1:2], y_na, na.action = na.fail), class = "krein_error",
               regexp = "^`y` has missing values in row 5;")
  x_na <- df[, 1:2]
  x_na$a[2] <- NA
  expect_snapshot(show_error(toy_model(x_na, y_na, na.action = na.fail)))
  df_na <- df
  df_na$y[4] <- NA
  expect_error(toy_model(y ~ a + b, data = df_na, na.action = na.fail), class = "krein_error",
               regexp = "^`y` \\(the response\\) has missing values in row 4")
})

test_that("dist objects are accepted wherever dissimilarities are", {
  set.seed(8)
  x <- matrix(rnorm(20), 10)
  for (method in c("negsq", "classical")) {
    from_dist <- kernel_from_dissimilarity(dist(x), method = method)
    expect_equal(from_dist, kernel_from_dissimilarity(as.matrix(dist(x)), method = method))
    expect_equal(predict(from_dist, dist(x))$K, from_dist$K, ignore_attr = TRUE)
  }
  inputs <- toy_model(kernel_from_dissimilarity(dist(x)), rep(1:2, 5))
  expect_equal(krein:::new_inputs(inputs$spec, dist(x))$K, inputs$precomputed$K, ignore_attr = TRUE)
  expect_error(toy_model(dist(x), rep(1:2, 5)), class = "krein_error", regexp = "kernel_from_dissimilarity")
})

test_that("variables a formula leaves out are neither in the frame nor checked in newdata", {
  # `y ~ . - id` must not keep `id` in the model frame: model.matrix() would
  # give a one-level factor contrasts (a base error) and predict() would
  # refuse newdata with levels of `id` unseen in training
  d <- transform(df, id = factor(seq_len(12)), const = factor("k"))
  inputs <- toy_model(y ~ . - id - const, data = d)
  expect_identical(inputs$spec$colnames, c("a", "b"))
  expect_identical(all.vars(stats::delete.response(inputs$spec$terms)), c("a", "b"))
  new <- data.frame(a = 1, b = 2, id = factor("new level"))
  expect_identical(dim(krein:::new_inputs(inputs$spec, new)$x), c(1L, 2L))
  # transformations and interactions keep working
  inputs <- toy_model(y ~ log(abs(a)) + a:b - b, data = d)
  expect_identical(inputs$spec$colnames, c("log(abs(a))", "a:b"))
})

test_that("a one-level factor predictor is a krein_error naming it and how to leave it out", {
  d <- transform(df, const = factor("k"))
  expect_snapshot(show_error(toy_model(y ~ ., data = d)))
  expect_error(toy_model(y ~ a + const, data = d), class = "krein_error", regexp = "`const` with a single level")
})

test_that("a factor predictor keeps its declared levels: a level no training row has is predicted, not refused", {
  # As e1071::svm() codes it: the level's dummy column is constant zero in
  # training (centred, left unscaled, no message), and a new row with that
  # level has a 1 there. Oracle: the same model on model.matrix() of the full
  # factor, computed by hand.
  set.seed(3)
  d <- data.frame(y = factor(rep(c("a", "b"), 20)), x = rnorm(40),
                  f = factor(rep(c("u", "v", "w"), length.out = 40), levels = c("u", "v", "w", "z")))
  new <- data.frame(x = c(0, 0.5), f = factor(c("z", "v"), levels = levels(d$f)))
  for (model in c("kqd", "ikfd", "kfda")) {
    expect_message(fit <- get(model)(y ~ x + f, data = d), NA)
    expect_identical(fit$spec$factor_columns, c("fv", "fw", "fz"))
    by_formula <- predict(fit, new, type = "prob")
    design <- function(data) stats::model.matrix(~ x + f, data)[, -1]
    x_train <- design(d)
    center <- colMeans(x_train)
    scale <- apply(x_train, 2, stats::sd)
    scale[scale == 0] <- 1
    by_matrix <- predict(get(model)(sweep(sweep(x_train, 2, center), 2, scale, "/"), d$y, scale = FALSE),
                         sweep(sweep(design(new), 2, center), 2, scale, "/"), type = "prob")
    expect_equal(by_formula, by_matrix, tolerance = 1e-10, info = model)
  }
  # a factor whose training rows all have one of its levels fits (its columns
  # are constant) and predicts the others; one that declares a single level
  # is refused (test below)
  d$f <- factor(rep("u", 40), levels = c("u", "v"))
  expect_message(fit <- kqd(y ~ x + f, data = d), NA)
  expect_identical(fit$spec$colnames, c("x", "fv"))
  expect_true(fit$spec$scaling$constant[["fv"]])
  expect_true(predict(fit, data.frame(x = 0, f = factor("v", levels = c("u", "v")))) %in% c("a", "b"))
})

test_that("columns of huge numbers are scaled, not mistaken for constant columns", {
  # their sums of squares overflow: the scale comes from the column divided by
  # its largest magnitude, and predictions equal those on the data as drawn
  x <- cbind(a = df$a * 1e300, b = df$b)
  expect_message(inputs <- toy_scaled(x, df$y), NA)
  expect_false(any(inputs$spec$scaling$constant))
  expect_equal(inputs$x, scale(cbind(a = df$a, b = df$b))[, ], ignore_attr = TRUE, tolerance = 1e-12)
  near_max <- cbind(c(-1.7e308, 1.7e308, rep(0, 10)), df$b)
  scaled <- toy_scaled(near_max, df$y)$x
  expect_true(all(is.finite(scaled)))
  expect_equal(scaled[, 1], scale(near_max[, 1] / 1e308)[, 1], tolerance = 1e-12)
})

test_that("strings and lists are an input type of their own: the kernel of the objects, stored for predict()", {
  words <- c("abab", "abba", "baab", "bbba", "cdcd", "dccd", "cddc", "dcdd", "abcd", "cdab", "aabb", "ccdd")
  inputs <- toy_model(words, df$y, kernel = kernel_dissimilarity(adist, gamma = 0.5))
  expect_identical(inputs$spec$type, "objects")
  expect_null(inputs$x)
  expect_equal(krein:::training_kernel(inputs), exp(-0.5 * adist(words)^2), ignore_attr = TRUE)
  expect_identical(inputs$spec$objects, words)
  new <- krein:::new_inputs(inputs$spec, c("abab", NA, "dddd"))
  expect_equal(new$K[c(1, 3), ], exp(-0.5 * adist(c("abab", "dddd"), words)^2), ignore_attr = TRUE)
  expect_true(all(is.na(new$K[2, ])))
  expect_equal(new$self, c(1, NA, 1))
  # a list of objects; missing objects dropped on request, as missing rows are
  listed <- toy_model(replace(as.list(words), 2, NA), df$y, kernel = function(a, b) sum(utf8ToInt(a) == utf8ToInt(b)),
                      na.action = na.omit)
  expect_identical(inputs$spec$type, "objects")
  expect_identical(as.vector(listed$na_action), 2L)
  expect_identical(length(listed$y), 11L)
  # objects have no columns: `scale` is checked, then ignored
  scaled <- krein:::inputs_from_xy(words, df$y, kernel_dissimilarity(adist), scale = TRUE)
  expect_null(scaled$spec$scaling)
  expect_error(krein:::inputs_from_xy(words, df$y, kernel_dissimilarity(adist), scale = NA),
               class = "krein_error", regexp = "`scale`")
  # a data frame is never taken as a list of objects
  expect_identical(toy_model(df[, c("a", "b")], df$y)$spec$type, "xy")
  expect_error(toy_model(words, df$y), class = "krein_error", regexp = "numeric coordinates")
  expect_error(toy_model(words, df$y, kernel = NULL), class = "krein_error", regexp = "input features")
})

test_that("class labels given as numbers or logicals become the factor factor() makes", {
  # as_class_factor() codes integer, whole-number and logical labels against
  # their sorted distinct values instead of calling factor(), which turns each
  # label into a string first; the result must be identical, names included
  # (missing labels are handled before, by the input path's na.action)
  labels <- list(c(3L, 1L, 2L, 3L, 1L), c(b = 2L, a = -1L, c = 2L), c(10, 2, 2, 1e14, -0, 0),
                 c(TRUE, FALSE, TRUE), c(7L, 7L, 9L))
  for (y in labels) expect_identical(krein:::as_class_factor(y), factor(y))
})

test_that("missing values follow getOption(\"na.action\") by default, as model.frame() and MASS::lda() do", {
  # not `na.action = NULL`, which would make any NA an error, where R's
  # modelling functions follow getOption("na.action") (na.omit unless set)
  x <- as.matrix(iris[, 1:4])
  x[c(3, 70), 2] <- NA
  y <- iris$Species
  data <- data.frame(x, y = y)
  old <- options(na.action = "na.omit")
  on.exit(options(old), add = TRUE)
  for (fit in list(kqd(x, y, kernel = kernel_rbf(0.5)), kqd(y ~ ., data = data, kernel = kernel_rbf(0.5)),
                   onda(x, y))) {
    # na.omit drops the rows and records them, as MASS::lda() does
    expect_identical(nobs(fit), 148L)
    expect_s3_class(fit$na_action, "omit")
    expect_identical(as.vector(fit$na_action), c(3L, 70L))
    expect_length(fitted(fit), 148L)
  }
  expect_identical(nobs(kqd(x, y, kernel = kernel_rbf(0.5))), MASS::lda(y ~ ., data = data)$N)
  # na.fail, as the option or the argument: an error naming the rows
  expect_error(kqd(x, y, kernel = kernel_rbf(0.5), na.action = na.fail), class = "krein_error",
               regexp = "rows 3 and 70")
  options(na.action = "na.fail")
  expect_error(kqd(x, y, kernel = kernel_rbf(0.5)), class = "krein_error", regexp = "rows 3 and 70")
  expect_error(kqd(y ~ ., data = data, kernel = kernel_rbf(0.5)), class = "krein_error", regexp = "rows 3 and 70")
  # an option krein cannot follow is named
  options(na.action = "na.pass")
  expect_error(kqd(x, y, kernel = kernel_rbf(0.5)), class = "krein_error", regexp = "na.pass")
  options(na.action = "na.omit")
  # na.exclude pads fitted() and the training predictions with NA, as naresid() does
  excluded <- kqd(x, y, kernel = kernel_rbf(0.5), na.action = na.exclude)
  expect_length(fitted(excluded), 150L)
  expect_true(all(is.na(fitted(excluded)[c(3, 70)])))
  expect_false(anyNA(fitted(excluded)[-c(3, 70)]))
  expect_identical(dim(predict(excluded, type = "prob")), c(150L, 3L))
  expect_true(all(is.na(predict(excluded, type = "prob")[c(3, 70), ])))
})

# scale = TRUE divides each column by the power of two at or above its
# largest magnitude first; otherwise the squares of a column of 1e-300
# numbers underflow, the column is called constant and left unscaled
# ("Constant predictor columns `x1`, `x2`"), and the fits are wrong (training
# error 0.5) or stop (the median heuristic asks to "rescale x").
test_that("scale = TRUE fits tiny and huge data as the same data of ordinary size", {
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  X <- as.matrix(d[, 1:2])
  Y <- d$y
  # ordinary data: the same bits as base::scale()
  expect_identical(unname(krein:::scale_columns(krein:::column_scaling(X), X)), unname(scale(X)[, ]))
  models <- list(kqd = function(x) kqd(x, Y, kernel = kernel_rbf(1)),
                 ikfd = function(x) ikfd(x, Y, kernel = kernel_rbf(1)),
                 pcvm = function(x) { set.seed(3); pcvm(x, Y, kernel = kernel_rbf(1)) },
                 iknn = function(x) iknn(x, Y, kernel = kernel_rbf(1)),
                 onda = function(x) onda(x, Y),
                 kqd_default_kernel = function(x) kqd(x, Y))
  if (requireNamespace("e1071", quietly = TRUE)) {
    models$isvm <- function(x) { set.seed(3); isvm(x, Y, kernel = kernel_rbf(1)) }
  }
  for (name in names(models)) {
    reference <- models[[name]](X)
    for (factor in c(1e-300, 1e300)) {
      expect_message(fit <- models[[name]](X * factor), NA)
      expect_equal(fit$spec$scaling$scale, reference$spec$scaling$scale * factor, tolerance = 1e-12,
                   info = paste(name, factor))
      expect_identical(fit$training_error, reference$training_error, info = paste(name, factor))
      expect_equal(predict(fit, X[1:10, ] * factor, type = "decision"),
                   predict(reference, X[1:10, ], type = "decision"), tolerance = 1e-8,
                   info = paste(name, factor))
    }
  }
  # a truly constant column is still centred only, with the message
  expect_message(krein:::column_scaling(cbind(X, z = 3e-300)), "Constant predictor column `z`")
})

# Objects fitted on data carry their units
# (R/inputs.R, data_units(), input_units()).
test_that("a kernel with a width taken from data keeps the units it was fitted on", {
  X <- as.matrix(iris[, 1:4])
  y <- iris$Species
  first <- kqd(X, y)  # kernel_rbf(): the median heuristic on the scaled data
  kernel <- first$spec$kernel
  expect_identical(kernel$units$scaling, first$spec$scaling)
  # given to another model, whatever its `scale`, the kernel sees the data
  # as it saw them: the same fit
  again <- kqd(X, y, kernel = kernel, scale = FALSE)
  expect_identical(again$spec$scaling, first$spec$scaling)
  expect_equal(predict(again, X, type = "decision"), predict(first, X, type = "decision"), tolerance = 1e-10)
  # on part of the data, the units of the kernel, not the part's own scaling
  part <- ikfd(X[1:120, ], y[1:120], kernel = kernel)
  expect_identical(part$spec$scaling, first$spec$scaling)
  # a width taken from data as given (scale = FALSE) keeps the data as given
  plain <- kqd(X, y, scale = FALSE)
  expect_null(kqd(X, y, kernel = plain$spec$kernel)$spec$scaling)
  # objects fitted in different units cannot share one model's inputs
  expect_error(krein:::input_units(kernel, list(first)), class = "krein_error", regexp = "different units")
  expect_error(kqd(X[, 1:3], y, kernel = kernel), class = "krein_error", regexp = "4 columns")
})

test_that("kernel_matrix() gives a kernel fitted on data the points in its units", {
  X <- as.matrix(iris[, 1:4])
  fit <- ikfd(X, iris$Species)
  K <- kernel_matrix(fit$spec$kernel, X[1:20, ])
  expect_equal(K, kernel_matrix(kernel_rbf(fit$spec$kernel$params$gamma), scale(X)[1:20, ]),
               tolerance = 1e-12, ignore_attr = TRUE)
  expect_equal(K, krein:::training_kernel(list(kernel = fit$spec$kernel, x = fit$x))[1:20, 1:20],
               tolerance = 1e-12, ignore_attr = TRUE)
})

test_that("predict() on a data frame that still holds the outcome takes the fit's columns, as predict.lm() does", {
  d <- data.frame(x1 = c(1:10, 4:13), x2 = rep(c(0.5, 2.5), 10), y = factor(rep(c("p", "q"), each = 10)))
  fit <- kqd(as.matrix(d[, 1:2]), d$y, kernel = kernel_rbf(0.5))
  expect_identical(predict(fit, d), predict(fit, d[, 1:2]))
  expect_identical(predict(fit, d[, c("y", "x2", "x1")], type = "prob"), predict(fit, d[, 1:2], type = "prob"))
  # a column the fit needs is still needed
  expect_error(predict(fit, d[, c("x1", "y")]), class = "krein_error")
})
