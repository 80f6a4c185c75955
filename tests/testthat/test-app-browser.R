# krein_app() in headless Chromium (shinytest2): the app as a student sees it.

# --- In a browser: shinytest2 driving headless Chromium ---------------------

skip_if_no_browser <- function() {
  skip_on_cran()
  skip_if_not_installed("shiny")
  skip_if_not_installed("shinytest2")
  skip_if_not_installed("chromote")
  # Debian's Chromium, where chromote does not look by itself
  if (!nzchar(Sys.getenv("CHROMOTE_CHROME")) && file.exists("/usr/bin/chromium")) {
    Sys.setenv(CHROMOTE_CHROME = "/usr/bin/chromium")
  }
  chrome <- tryCatch(chromote::find_chrome(), error = function(e) NULL)
  if (is.null(chrome) || !nzchar(chrome)) {
    skip("no Chromium or Chrome found for the browser tests: install Debian's `chromium` or set CHROMOTE_CHROME")
  }
}

# chromote draws Chromium's debugging port with sample(), from R's RNG,
# which the tests seed: two test runs at once on one machine (CI beside
# another check) then draw the same port, the second browser cannot open
# it, and shinytest2 skipped this test ("{chromote} can not be started").
# The browser is started here from a seed of the clock and process id
# (set.seed(NULL)), and the tests' random stream is put back afterwards.
start_browser_on_unseeded_port <- function() {
  seeded <- exists(".Random.seed", envir = globalenv(), inherits = FALSE)
  if (seeded) saved <- get(".Random.seed", envir = globalenv(), inherits = FALSE)
  on.exit(if (seeded) assign(".Random.seed", saved, envir = globalenv()) else
    rm(".Random.seed", envir = globalenv()))
  set.seed(NULL)
  # chromote waits 10 s for Chromium's debugging port by default; on a
  # loaded machine (the check's test workers, a vignette build beside them)
  # Chromium has taken longer to start
  old <- options(chromote.timeout = max(60, getOption("chromote.timeout", 10)))
  on.exit(options(old), add = TRUE)
  chromote::set_default_chromote_object(chromote::Chromote$new())
}

# A folder with the app, loading krein as this process did
app_folder <- function(data = NULL) {
  dir <- tempfile("krein-app-")
  dir.create(dir)
  app <- if (is.null(data)) "krein:::app_object()" else {
    sprintf("krein:::app_object(krein:::app_user_data(%s, %s))", data, deparse(data))
  }
  writeLines(c(krein_load_line(), app), file.path(dir, "app.R"))
  dir
}

start_app <- function(data = NULL, name = "krein-app") {
  start_browser_on_unseeded_port()
  shinytest2::AppDriver$new(app_folder(data), name = name, width = 1300, height = 950,
                            load_timeout = 120 * 1000, timeout = 60 * 1000)
}

# The view drawn, without a message that it was not
expect_view_drawn <- function(app, label) {
  app$wait_for_value(output = "results", ignore = list(NULL, ""))
  expect_match(app$get_value(output = "results"), "training error .*test error .*fit ", label = label)
  expect_false(app$get_js("document.getElementById('app-error') !== null"), label = paste(label, "(no error shown)"))
  expect_drawn_png(app$get_value(output = "regions"), label)
}

test_that("in a browser: change data, kernel, model and landmarks; errors, signature, code and plots", {
  chrome <- Sys.getenv("CHROMOTE_CHROME", NA)
  on.exit(if (is.na(chrome)) Sys.unsetenv("CHROMOTE_CHROME") else Sys.setenv(CHROMOTE_CHROME = chrome))
  skip_if_no_browser()
  app <- start_app()
  on.exit(app$stop(), add = TRUE)
  app$wait_for_value(output = "results")
  expect_match(app$get_value(output = "results"), "training error .*test error .*fit ")
  expect_match(app$get_value(output = "code"), "train <- banana(n = 200, overlap = 0.5)", fixed = TRUE)
  expect_drawn_png(app$get_value(output = "regions"), "decision regions")

  # data and kernel: a checkerboard with an invariant indefinite kernel
  app$set_inputs(source = "checkerboard", noise_checkerboard = 3)
  expect_match(app$get_value(output = "code"), "train <- checkerboard(n = 200, size = 3)", fixed = TRUE)
  app$set_inputs(kernel = "dist")
  app$set_inputs(kernel_dist_s = "0.5", kernel_dist_power = "4")
  app$set_inputs(invariant = TRUE)
  expect_match(app$get_value(output = "signature"),
               "signature \\(p, q, z\\) = \\([0-9]+, [1-9][0-9]*, [0-9]+\\)   r_neg = 0\\.[0-9]*[1-9]")
  # the hidden tab's plot is drawn once the page says it is shown, which can
  # come after set_inputs() returns: wait for it
  app$set_inputs(view = "Kernel spectrum")
  app$wait_for_value(output = "spectrum", ignore = list(NULL, ""), timeout = 60 * 1000)
  expect_drawn_png(app$get_value(output = "spectrum"), "spectrum")

  # model and landmarks
  app$set_inputs(model = "ikfd")
  app$set_inputs(landmarks = "meb")
  app$set_inputs(eps = "0.2")
  code <- app$get_value(output = "code")
  expect_match(code, "fit <- ikfd(y ~ x1 + x2, data = train, kernel = kernel, landmarks = \"meb\", eps = 0.2)",
               fixed = TRUE)
  app$set_inputs(view = "Decision regions")
  expect_drawn_png(app$get_value(output = "regions"), "decision regions with landmarks")
  expect_equal(run_code_in_fresh_r(code), app$get_value(export = "test_error"), tolerance = 1e-12)

  # a parameter outside its domain: the message, and the view and code stay
  app$set_inputs(kernel_dist_s = "-1")
  app$wait_for_js("document.getElementById('app-error') !== null")
  expect_match(app$get_text("#app-error"), "Not drawn: .*`s` must be")
  expect_identical(app$get_value(output = "code"), code)
  # and the app goes on
  app$set_inputs(kernel_dist_s = "0.7")
  app$wait_for_js("document.getElementById('app-error') === null")
  expect_match(app$get_value(output = "code"), "kernel_dist(s = 0.7, power = 4)", fixed = TRUE)
})

test_that("in a browser: the user's data of ?krein_app's example, character classes and one class", {
  chrome <- Sys.getenv("CHROMOTE_CHROME", NA)
  on.exit(if (is.na(chrome)) Sys.unsetenv("CHROMOTE_CHROME") else Sys.setenv(CHROMOTE_CHROME = chrome))
  skip_if_no_browser()
  # ?krein_app's example: a factor with the unused level "setosa" (its first
  # view said "Not drawn: level sets of factors are different")
  app <- start_app("iris[iris$Species != \"setosa\", c(\"Petal.Length\", \"Petal.Width\", \"Species\")]", "krein-app-iris")
  expect_view_drawn(app, "?krein_app's example")
  expect_match(app$get_value(output = "code"), "fit <- kqd(Species ~ Petal.Length + Petal.Width, data = train",
               fixed = TRUE)
  app$set_inputs(model = "ikfd")
  expect_view_drawn(app, "?krein_app's example, ikfd")
  app$stop()
  # character classes
  app <- start_app("transform(iris[51:150, c(3, 4, 5)], Species = as.character(Species))", "krein-app-character")
  expect_view_drawn(app, "character classes")
  app$stop()
  # missing values: the rows are left out, the app says which
  app <- start_app("transform(iris[51:150, c(3, 4, 5)], Petal.Width = replace(Petal.Width, 3, NA), Species = replace(Species, 10, NA))",
                   "krein-app-missing")
  expect_view_drawn(app, "missing values")
  expect_match(app$get_text("#app-warning"), "missing values in rows 3 and 10 (columns \"Petal.Width\", \"Species\")",
               fixed = TRUE)
  expect_match(app$get_value(output = "code"), "data <- data[stats::complete.cases(data), ]", fixed = TRUE)
  app$stop()
  # a class column of one class: a message, and the generators go on
  app <- start_app("data.frame(a = c(1, 3, 2, 5, 4, 7, 6, 9, 8, 10), b = 10:1, class = \"A\")", "krein-app-one")
  app$wait_for_js("document.getElementById('app-error') !== null")
  expect_match(app$get_text("#app-error"), "only one class")
  app$set_inputs(source = "xor4", model = "iknn")
  expect_view_drawn(app, "one class, then xor4")
  app$stop()
})

test_that("in a browser: every generator, kernel family and model draws its view", {
  chrome <- Sys.getenv("CHROMOTE_CHROME", NA)
  on.exit(if (is.na(chrome)) Sys.unsetenv("CHROMOTE_CHROME") else Sys.setenv(CHROMOTE_CHROME = chrome))
  skip_if_no_browser()
  app <- start_app(name = "krein-app-sweep")
  on.exit(app$stop(), add = TRUE)
  expect_view_drawn(app, "first view")
  app$set_inputs(n = 100)
  # (setting an input to its value changes nothing, and set_inputs() would
  # wait for a change)
  for (source in setdiff(names(krein:::app_generators()), app$get_value(input = "source"))) {
    app$set_inputs(source = source)
    expect_view_drawn(app, paste("generator", source))
    expect_match(app$get_value(output = "code"), paste0("train <- ", source, "("), fixed = TRUE)
  }
  app$set_inputs(source = "banana")
  for (kernel in setdiff(names(krein:::app_kernels()), app$get_value(input = "kernel"))) {
    app$set_inputs(kernel = kernel)
    expect_view_drawn(app, paste("kernel", kernel))
    expect_match(app$get_value(output = "code"), paste0("kernel <- kernel_", kernel, "("), fixed = TRUE)
  }
  app$set_inputs(kernel = "rbf")
  for (model in setdiff(names(krein:::app_models()), app$get_value(input = "model"))) {
    app$set_inputs(model = model)
    expect_view_drawn(app, paste("model", model))
    expect_match(app$get_value(output = "code"), paste0("fit <- ", model, "(y ~ x1 + x2, data = train"), fixed = TRUE)
  }
})
