# krein_app(): the settings -> code -> view path as plain functions and the
# server with shiny::testServer(); the app in headless Chromium is in
# test-app-browser.R.

test_that("krein_app() without shiny says how to install it", {
  expect_error(krein:::check_shiny(available = FALSE), class = "krein_missing_package")
  expect_snapshot(show_error(krein:::check_shiny(available = FALSE)))
})

test_that("the app offers every registered model with the registry's parameters", {
  models <- krein:::app_models()
  expect_setequal(names(models), krein_models()$model)
  for (name in names(models)) {
    expect_identical(vapply(models[[name]]$params, `[[`, "", "name"),
                     krein:::model_info(name)$parameters$parameter, label = name)
  }
  # character parameters are choices: from the default's values or the registry
  variant <- models$kqd$params[[1]]
  expect_identical(variant$choices, c("RC+", "RC-", "IC+", "IC-", "FK+", "FK-"))
  expect_identical(models$kmdc$params[[1]]$choices, c("RC", "IC"))
  # the landmark panel: the models whose form a `landmarks` argument sets
  expect_identical(vapply(models, `[[`, NA, "landmarks")[c("ikfd", "kqd", "pcvm", "kmdc", "onda", "kfda")],
                   c(ikfd = TRUE, kqd = TRUE, pcvm = TRUE, kmdc = TRUE, onda = FALSE, kfda = FALSE))
})

test_that("a model that registers appears in the app with its parameters", {
  skip_if_not_installed("shiny")
  assign("apptoy_fit", function(inputs, temp = 2, rule = c("first", "second")) list(), envir = globalenv())
  krein:::register_krein_model(
    "apptoy", label = "A toy", fit = "apptoy_fit",
    parameters = data.frame(parameter = c("temp", "rule"), class = c("numeric", "character"),
                            label = c("temperature", "rule")))
  on.exit({
    rm("apptoy", envir = krein:::krein_registry)
    rm("apptoy_fit", envir = globalenv())
  })
  html <- as.character(krein:::app_ui())
  expect_match(html, "apptoy: A toy", fixed = TRUE)
  expect_match(html, "id=\"model_apptoy_temp\"", fixed = TRUE)
  expect_match(html, "id=\"model_apptoy_rule\"", fixed = TRUE)
  expect_match(html, "<option value=\"second\">second</option>", fixed = TRUE)
})

test_that("every kernel family comes with its parameters; widths left empty take the median heuristic", {
  kernels <- krein:::app_kernels()
  expect_setequal(names(kernels), c("rbf", "rbf_diag", "poly", "linear", "tanh", "elm", "dist", "epanechnikov"))
  expect_identical(vapply(kernels$poly$params, `[[`, "", "name"), c("degree", "scale", "offset"))
  settings <- krein:::app_default_settings()
  settings$kernel <- list(family = "dist", params = list(power = 4), invariant = TRUE)
  code <- krein:::app_code(settings)$kernel
  # an invariant kernel takes the data as given (its reflection is about their
  # origin), so its width comes from the columns as given, and so does the
  # spectrum; other kernels see them centred and scaled
  expect_identical(code, paste0("kernel <- kernel_invariant(kernel_dist(power = 4, s = 1 / sqrt(median_gamma(",
                                "train[, c(\"x1\", \"x2\")]))))  # k(x, -x') too"))
  expect_match(krein:::app_code(settings)$spectrum[2], "kernel_matrix(kernel, train[", fixed = TRUE)
  settings$kernel$invariant <- FALSE
  expect_identical(krein:::app_code(settings)$kernel,
                   paste0("kernel <- kernel_dist(power = 4, s = 1 / sqrt(median_gamma(",
                          "scale(train[, c(\"x1\", \"x2\")]))))"))
  expect_match(krein:::app_code(settings)$spectrum[2], "kernel_matrix(kernel, scale(train[", fixed = TRUE)
})

test_that("the code of a view reproduces it in a fresh R process", {
  skip_on_cran()
  settings <- krein:::app_default_settings()
  settings$data$source <- "checkerboard"
  settings$data$noise <- 3
  settings$data$seed <- 7
  settings$kernel$params <- list(gamma = 2)
  settings$model <- list(name = "ikfd", params = list())
  settings$landmarks <- list(method = "kmeans", m = 15)
  view <- krein:::app_run(settings)
  expect_match(view$text, "landmarks = \"kmeans\", m = 15", fixed = TRUE)
  expect_equal(nrow(view$fit$landmarks$points), 15)
  expect_equal(run_code_in_fresh_r(view$text), view$test_error, tolerance = 1e-12)
  # an invariant kernel with its width from the data as given
  settings$kernel <- list(family = "dist", params = list(power = 4), invariant = TRUE)
  settings$model <- list(name = "kqd", params = list(variant = "FK+"))
  settings$landmarks <- list(method = "none")
  view <- krein:::app_run(settings)
  expect_null(view$fit$spec$scaling)
  expect_equal(run_code_in_fresh_r(view$text), view$test_error, tolerance = 1e-12)
})

test_that("the user's data: two numeric columns and a class column, 30% held out", {
  # ?krein_app's example: the factor keeps the unused level "setosa", which
  # the fit drops, so its classes and the data's column have other level sets
  flowers <- iris[iris$Species != "setosa", c("Petal.Length", "Petal.Width", "Species")]
  user <- krein:::app_user_data(flowers, "flowers")
  expect_identical(user$x, c("Petal.Length", "Petal.Width"))
  settings <- krein:::app_default_settings(user)
  view <- krein:::app_run(settings, user)
  expect_identical(nrow(view$train), 70L)
  expect_identical(nrow(view$test), 30L)
  expect_match(view$text, "fit <- kqd(Species ~ Petal.Length + Petal.Width, data = train", fixed = TRUE)
  expect_equal(view$training_error, mean(as.character(fitted(view$fit)) != view$train$Species))
  expect_lt(view$test_error, 0.2)
  # character classes, and logical ones
  for (as_class in list(as.character, function(v) v == "virginica")) {
    other <- flowers
    other$Species <- as_class(other$Species)
    user <- krein:::app_user_data(other, "other")
    view <- krein:::app_run(krein:::app_default_settings(user), user)
    expect_match(view$text, "data <- other", fixed = TRUE)
    expect_lt(view$test_error, 0.2)
  }
  expect_snapshot(show_error(krein:::app_user_data(iris, "iris")))
  expect_snapshot(show_error(krein:::app_user_data(as.matrix(iris[, 1:2]), "m")))
  # two columns of one name: the app would take one of them twice
  twice <- flowers
  names(twice) <- c("Petal", "Petal", "Species")
  expect_snapshot(show_error(krein:::app_user_data(twice, "twice")))
  # a column without a name, or with a missing one (NA): the app's code
  # cannot name it (before, "attempt to use zero-length variable name" from
  # the fit, or "`newdata` lacks the variable `NA`" from its predictions)
  unnamed <- flowers
  names(unnamed)[1] <- ""
  expect_snapshot(show_error(krein:::app_user_data(unnamed, "unnamed")))
  names(unnamed)[c(1, 3)] <- c(NA, "")
  expect_snapshot(show_error(krein:::app_user_data(unnamed, "unnamed")))
  for (position in 1:3) {
    for (name in list("", NA_character_)) {
      unnamed <- flowers
      names(unnamed)[position] <- name
      expect_error(krein:::app_user_data(unnamed, "unnamed"), class = "krein_error",
                   regexp = sprintf("a column without a name (column %d)", position), fixed = TRUE)
    }
  }
  # the string "NA" is a name like any other: the code writes it `NA`, and
  # runs as the app ran it
  named_NA <- flowers
  names(named_NA) <- c("NA", "Petal.Width", "Species")
  user <- krein:::app_user_data(named_NA, "named_NA")
  expect_identical(user$x, c("NA", "Petal.Width"))
  view <- krein:::app_run(krein:::app_default_settings(user), user)
  expect_match(view$text, "fit <- kqd(Species ~ `NA` + Petal.Width, data = train", fixed = TRUE)
  expect_lt(view$test_error, 0.2)
  expect_equal(run_code_in_fresh_r(sub("data <- named_NA", "data <- iris[51:150, c(3, 4, 5)]; names(data)[1] <- \"NA\"",
                                       view$text, fixed = TRUE)),
               view$test_error, tolerance = 1e-12)
  names(named_NA) <- c("Petal.Length", "Petal.Width", "NA")
  user <- krein:::app_user_data(named_NA, "named_NA")
  view <- krein:::app_run(krein:::app_default_settings(user), user)
  expect_match(view$text, "fit <- kqd(`NA` ~ Petal.Length + Petal.Width, data = train", fixed = TRUE)
  expect_lt(view$test_error, 0.2)
  # infinite values are an error naming the user's rows and columns
  holes <- flowers
  holes$Petal.Width[3] <- Inf
  holes$Petal.Length[7] <- -Inf
  holes$Petal.Length[8] <- NA
  expect_error(krein:::app_user_data(holes, "holes"), class = "krein_error",
               regexp = "infinite values in rows 3 and 7 \\(columns \"Petal.Length\", \"Petal.Width\"\\)")
  # rows with missing values (inputs or class) are left out, named in the
  # user's rows and columns, and the code says how
  holes <- flowers
  holes$Petal.Width[3] <- NA
  holes$Species[10] <- NA
  user <- krein:::app_user_data(holes, "holes")
  expect_identical(nrow(user$data), 98L)
  expect_identical(user$incomplete, c(3L, 10L))
  expect_match(user$note, "missing values in rows 3 and 10 (columns \"Petal.Width\", \"Species\"); those rows are left out",
               fixed = TRUE)
  view <- krein:::app_run(krein:::app_default_settings(user), user)
  expect_identical(view$warnings[1], user$note)
  expect_match(view$text, "data <- holes\ndata <- data[stats::complete.cases(data), ]\nset.seed(1)", fixed = TRUE)
  expect_identical(nrow(view$train) + nrow(view$test), 98L)
  expect_equal(run_code_in_fresh_r(sub("data <- holes", "data <- iris[51:150, c(3, 4, 5)]; data$Petal.Width[3] <- NA; data$Species[10] <- NA", view$text, fixed = TRUE)),
               view$test_error, tolerance = 1e-12)
  expect_error(krein:::app_user_data(holes[c(3, 10, 11, 12, 13), ], "few"), class = "krein_error",
               regexp = "at least 4 rows without missing values, not 3")
})

test_that("the server draws a view, changes it, and keeps it when a setting fails", {
  skip_if_not_installed("shiny")
  shiny::testServer(krein:::app_server(), {
    session$setInputs(source = "banana", n = 150, noise_banana = 0.3, seed = 2, kernel = "rbf",
                      kernel_rbf_gamma = "", model = "kqd", model_kqd_variant = "RC+", model_kqd_reg = "")
    first <- view()
    expect_match(output$results, "training error [0-9.]+%   test error [0-9.]+%   fit [0-9.]+ s   \\(150 training")
    expect_match(output$signature, "signature \\(p, q, z\\) = \\([0-9]+, 0, [0-9]+\\)")
    expect_match(output$code, "train <- banana(n = 150, overlap = 0.3)", fixed = TRUE)
    expect_match(output$kernel_default, "gamma = [0-9.]+ for these data")
    expect_null(problem())
    # every plot is an image with something drawn on it
    expect_drawn_png(output$regions, "decision regions")
    expect_drawn_png(output$spectrum, "spectrum")

    # an invariant indefinite kernel: negative eigenvalues, and their share
    session$setInputs(kernel = "dist", kernel_dist_s = "0.5", kernel_dist_power = "4", invariant = TRUE)
    expect_match(output$signature, "signature \\(p, q, z\\) = \\([0-9]+, [1-9][0-9]*, [0-9]+\\)   r_neg = 0\\.[0-9]*[1-9]")
    expect_match(output$code, "kernel_invariant(kernel_dist(s = 0.5, power = 4))", fixed = TRUE)
    indefinite <- view()

    # a parameter outside its domain: a message, the view stays
    session$setInputs(kernel_dist_s = "-1")
    expect_match(problem(), "`s` must be", fixed = TRUE)
    expect_identical(view(), indefinite)
    expect_match(as.character(output$message$html), "Not drawn: .*`s` must be")
    # text that is no number
    session$setInputs(kernel_dist_s = "wide")
    expect_match(problem(), "`s` must be a number (or numbers separated by commas)", fixed = TRUE)
    session$setInputs(kernel_dist_s = "0.5")
    expect_null(problem())
    restored <- view()

    # a fit that fails: more k-means landmarks than distinct points
    session$setInputs(model = "ikfd", landmarks = "kmeans", m = 1000)
    expect_match(problem(), "`m`")
    expect_identical(view(), restored)
    session$setInputs(m = 12)
    expect_null(problem())
    expect_match(output$code, "ikfd(y ~ x1 + x2, data = train, kernel = kernel, landmarks = \"kmeans\", m = 12)",
                 fixed = TRUE)
    expect_equal(nrow(view()$fit$landmarks$points), 12)

    # a model parameter from the registry (iknn keeps the landmarks: its
    # prototypes); a model without a kernel
    session$setInputs(model = "iknn", model_iknn_k = "5")
    expect_match(output$code, "iknn(y ~ x1 + x2, data = train, kernel = kernel, k = 5, landmarks = \"kmeans\", m = 12)",
                 fixed = TRUE)
    # "none": the full form, written out
    session$setInputs(landmarks = "none")
    expect_match(output$code, "iknn(y ~ x1 + x2, data = train, kernel = kernel, k = 5, landmarks = NULL)", fixed = TRUE)
    session$setInputs(model = "onda")
    expect_match(output$code, "fit <- onda(y ~ x1 + x2, data = train)", fixed = TRUE)
    expect_null(problem())
    expect_false(identical(view(), first))
  })
})

test_that("data with one class is refused with a message, and the app goes on", {
  skip_if_not_installed("shiny")
  one <- data.frame(a = c(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), b = c(2, 1, 4, 3, 6, 5, 8, 7, 10, 9),
                    class = factor(rep("A", 10)))
  shiny::testServer(krein:::app_server(krein:::app_user_data(one, "one")), {
    session$setInputs(source = "user", seed = 1, kernel = "rbf", model = "kqd")
    expect_null(view())
    expect_match(problem(), "only one class")
    expect_match(as.character(output$message$html), "only one class")
    session$setInputs(source = "xor4", model = "iknn")
    expect_null(problem())
    expect_match(output$code, "train <- xor4()", fixed = TRUE)
  })
})
