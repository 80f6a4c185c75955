# A class with one training row (a rare class in a split) is fitted by every
# model, as e1071::svm() fits it: the SVMs and PCVM fit its pairs on that
# row as libsvm does, the Gaussian and discriminant models give it the
# pooled (or shrunk) spread they already estimate, with one warning that
# names the class and says what it borrowed. The class is then predictable
# (a probability column, a probability at its own point), and the other
# classes are classified as a fit without that row classifies them.

one_row_data <- function(n, seed) {
  set.seed(seed)
  y <- rep(c("a", "b", "c"), length.out = n)
  centre <- c(a = 0, b = 2.5, c = 5)[y]
  x <- cbind(x1 = centre + rnorm(n), x2 = rnorm(n) + 0.5 * centre)
  data.frame(x, y = factor(y, levels = c("a", "b", "c", "rare")))
}

# the rare class's one row, away from the others
rare_row <- data.frame(x1 = 2.5, x2 = 6, y = factor("rare", levels = c("a", "b", "c", "rare")))

one_row_needs <- list(isvm = "kernlab", krein_svm = "kernlab")

# the models that borrow nothing for the class (its row is a neighbour like
# any other) give no warning
borrows_nothing <- "iknn"

fit_quietly <- function(fun, ...) {
  withCallingHandlers(suppressMessages(fun(...)),
                      krein_one_row_class_warning = function(w) invokeRestart("muffleWarning"))
}

for (name in krein:::registered_models()) {
  test_that(sprintf("%s fits a class with one training row and classifies the others as without it", name), {
    for (pkg in one_row_needs[[name]]) skip_if_not_installed(pkg)
    fun <- get(name, envir = asNamespace("krein"))
    train <- one_row_data(90, 3)
    with_rare <- rbind(train, rare_row)
    test <- one_row_data(600, 4)
    x <- as.matrix(with_rare[, 1:2])

    # one warning naming the class (other warnings of the fit, if any, aside)
    warnings <- character()
    set.seed(5)
    fit <- withCallingHandlers(suppressMessages(fun(x, with_rare$y)),
                               krein_one_row_class_warning = function(w) {
                                 warnings <<- c(warnings, conditionMessage(w))
                                 invokeRestart("muffleWarning")
                               },
                               warning = function(w) invokeRestart("muffleWarning"))
    if (name %in% borrows_nothing) {
      expect_length(warnings, 0)
    } else {
      expect_length(warnings, 1)
      expect_match(warnings, "Class \"rare\" of `y` has one training row: ", fixed = TRUE)
    }
    expect_identical(fit$levels, c("a", "b", "c", "rare"))

    # predictable: its probability column, positive at its own point
    p <- predict(fit, test[, 1:2], type = "prob")
    expect_identical(colnames(p), c("a", "b", "c", "rare"))
    expect_true(all(is.finite(p)))
    expect_equal(unname(rowSums(p)), rep(1, nrow(test)), tolerance = 1e-10)
    at_rare <- predict(fit, as.matrix(rare_row[, 1:2]), type = "prob")
    expect_gt(at_rare[1, "rare"], 0)
    expect_identical(levels(predict(fit, test[, 1:2])), c("a", "b", "c", "rare"))

    # the other classes: within a point of the fits without the row, on
    # average over six training sets (on one, a model that chooses its
    # regularisation by cross-validation may move by two points either way:
    # kmdc's path ties among values)
    accuracy <- function(fit) mean(as.character(predict(fit, test[, 1:2])) == as.character(test$y))
    differences <- vapply(1:6, function(seed) {
      train <- one_row_data(90, seed)
      with_rare <- rbind(train, rare_row)
      set.seed(5)
      with <- fit_quietly(fun, as.matrix(with_rare[, 1:2]), with_rare$y)
      set.seed(5)
      without <- fit_quietly(fun, as.matrix(train[, 1:2]), droplevels(train$y))
      accuracy(with) - accuracy(without)
    }, numeric(1))
    expect_gte(mean(differences), -0.01)

    # the formula interface fits it the same way
    set.seed(5)
    formula_fit <- fit_quietly(fun, y ~ ., data = with_rare)
    expect_identical(predict(formula_fit, test), predict(fit, test[, 1:2]))
  })
}

test_that("the models over data in chunks fit a class with one training row too", {
  train <- rbind(one_row_data(90, 3), rare_row)
  chunks <- krein_chunks(split(train, rep(1:3, length.out = nrow(train))), y = "y")
  test <- one_row_data(300, 4)
  for (name in krein:::registered_models()) {
    info <- krein:::model_info(name)
    if (is.null(info$chunks)) next
    fun <- get(name, envir = asNamespace("krein"))
    set.seed(6)
    landmarks <- select_landmarks(as.matrix(train[, 1:2]), train$y, method = "kmeans", m = 20)
    expect_identical(sum(landmarks$class == "rare"), 1L)
    warnings <- character()
    fit <- withCallingHandlers(suppressMessages(do.call(fun, c(list(chunks), info$landmark_args(landmarks)))),
                               krein_one_row_class_warning = function(w) {
                                 warnings <<- c(warnings, conditionMessage(w))
                                 invokeRestart("muffleWarning")
                               },
                               warning = function(w) invokeRestart("muffleWarning"))
    expect_length(warnings, 1)
    expect_match(warnings, "Class \"rare\" of `y` has one training row", fixed = TRUE)
    p <- predict(fit, test[, 1:2], type = "prob")
    expect_identical(colnames(p), c("a", "b", "c", "rare"), label = name)
    expect_true(all(is.finite(p)), label = name)
    expect_gt(mean(as.character(predict(fit, test[, 1:2])) == as.character(test$y)), 0.5)
  }
})
