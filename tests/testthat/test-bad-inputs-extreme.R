# Bad and extreme input beyond the table of helper-bad-inputs.R: extreme
# values must give a krein_error or a finite, valid result (not NaN, Inf or a
# wrong result); arguments must not be ignored without a word; chunk failures
# must name the chunk; no base R error; messages must describe the value
# given. Data: set.seed(1); d <- gaussian_mixture_2d(60).

extreme_data <- function() {
  set.seed(1)
  d <- gaussian_mixture_2d(60)
  list(d = d, X = as.matrix(d[, 1:2]), Y = d$y)
}

test_that("extreme values give a krein_error or a finite, valid result", {
  data <- extreme_data()
  X <- data$X
  Y <- data$Y
  finite_field <- function(field) {
    force(field)
    function(value) if (!all(is.finite(value[[field]]))) sprintf("non-finite `%s`", field)
  }
  cases <- list(
    bad_case("onda_linear_huge_newdata", function() {
      fit <- onda(X, Y, posterior = "linear")
      check_prediction(predict(fit, X[1:3, ] * 1e300, type = "prob"), fit, "prob")
    }, function(problem) problem),
    bad_case("indefiniteness_near_max", function() indefiniteness(matrix(.Machine$double.xmax, 3, 3)),
             finite_field("values")),
    bad_case("nystrom_error_zero_kernel", function() {
      K <- matrix(0, 10, 10)
      nystrom_error(nystrom(K, "precomputed", landmarks = 1:3), K)
    }, check_finite_numeric),
    bad_case("classical_scaling_huge", function() {
      kernel_from_dissimilarity(as.matrix(stats::dist(X)) * 1e300, "classical")
    }, finite_field("K")),
    bad_case("checkerboard_huge_range", function() checkerboard(10, range = c(-1e308, 1e308)),
             function(value) if (anyNA(value$y) || !all(is.finite(value$x1))) "NA labels or non-finite points"),
    bad_case("plot_kernel_map_infinite_point", function() plot_kernel_map(kernel_rbf(1), c(0, Inf), X),
             function(value) if (length(unique(as.vector(value))) == 1L) "a flat map")
  )
  expect_bad_cases(lapply(cases, function(case) {
    case$id <- paste0("extreme_value/", case$id)
    case
  }))
  # the zero kernel is approximated exactly
  K <- matrix(0, 10, 10)
  expect_identical(nystrom_error(nystrom(K, "precomputed", landmarks = 1:3), K), 0)
})

test_that("no base R error, and a wide onda() answers in seconds", {
  data <- extreme_data()
  X <- data$X
  Y <- data$Y
  set.seed(3)
  wide <- matrix(stats::rnorm(10 * 5000), 10)
  wide_y <- factor(rep(c("a", "b"), 5))
  cases <- list(
    bad_case("select_landmarks_kmeans_tiny", function() {
      select_landmarks(X * 1e-300, Y, kernel_rbf(1), method = "kmeans", m = 6)
    }, check_landmarks),
    bad_case("plot_zero_spectrum_log", function() plot(indefiniteness(matrix(0, 3, 3)), log = TRUE)),
    bad_case("plot_normality_constant", function() {
      plot(kernel_normality(matrix(1, 20, 2), kernel = kernel_rbf(1)))
    }),
    bad_case("xor4_argument", function() xor4(5)),
    bad_case("caret_model_no_name", function() caret_model()),
    bad_case("tune_function_column", function() tune_krein(kqd, X, Y, list(reg = function(v) v), folds = 3),
             check_tune),
    bad_case("onda_5000_columns", function() onda(wide, wide_y), check_model)
  )
  expect_bad_cases(lapply(cases, function(case) {
    case$id <- paste0("no_base_error/", case$id)
    case
  }))
})

test_that("onda() in the span of the data gives the posteriors of the full model", {
  # more columns than points: the Gaussian posteriors computed in the span of
  # the centred training points equal those of the p-dimensional model (the
  # part orthogonal to the span is the same for every class)
  set.seed(4)
  x <- matrix(stats::rnorm(12 * 30), 12, dimnames = list(NULL, paste0("v", 1:30)))
  y <- factor(rep(c("a", "b", "c"), 4))
  new <- matrix(stats::rnorm(5 * 30), 5)
  # the paper's ML class covariances (pooling = 0) need the ridge, and warn
  expect_warning(fit <- onda(x, y, scale = FALSE, pooling = 0), class = "krein_singular_covariance_warning")
  full <- suppressWarnings(onda_gaussian_classes(x, y, fit$prior, pooling = 0))
  expect_equal(fit$ridge, full$ridge)
  expect_equal(predict(fit, new, type = "prob"), gaussian_posteriors(full, new), tolerance = 1e-8,
               ignore_attr = TRUE)
  expect_equal(predict(fit, type = "prob"), gaussian_posteriors(full, x), tolerance = 1e-8, ignore_attr = TRUE)
  # the GDK of such a fit is the DK of its posteriors
  gdk <- kernel_discriminant(fit, kind = "gdk")
  B <- gaussian_posteriors(full, new) / rep(sqrt(fit$prior), each = 5)
  expect_equal(kernel_matrix(gdk, new), tcrossprod(B), tolerance = 1e-8, ignore_attr = TRUE)
  # the default pools completely: the same in the span, silently
  expect_no_warning(pooled <- onda(x, y, scale = FALSE))
  expect_identical(pooled$pooling, 1)
  full <- onda_gaussian_classes(x, y, pooled$prior, ridge = pooled$ridge, pooling = 1)
  expect_equal(predict(pooled, new, type = "prob"), gaussian_posteriors(full, new), tolerance = 1e-8,
               ignore_attr = TRUE)
  expect_snapshot(show_error(onda(x, y, ridge = 0)))
})

test_that("arguments are not ignored without a word", {
  data <- extreme_data()
  X <- data$X
  Y <- data$Y
  if (requireNamespace("e1071", quietly = TRUE)) {
    expect_snapshot(show_error(onda(X, Y, posterior = "svm", svm_args = list(foo = 1))))
  }
  expect_snapshot(show_error(tune_krein(kqd, X, Y, list(reg = 0.1, reg = 0.2), folds = 3)))
  control <- pcvm_control()
  control$max_iter <- -5
  control$tol <- -1
  expect_snapshot(show_error(pcvm(X, Y, control = control)))
  control <- pcvm_control()
  control$maxit <- 10
  expect_snapshot(show_error(pcvm(X, Y, control = control)))
  expect_snapshot(show_error(pcvm_control(maxit = 10)))
  expect_snapshot(show_error(pcvm_control(10, 1e-3, 1e-3, FALSE, "latent", "fixed", "exact", 1, "auto", 2e4, 5)))
})

test_that("an asymmetric kernel function is symmetrised with a message, as dissimilarities are", {
  data <- extreme_data()
  x <- data$X[1:6, ]
  asymmetric <- function(a, b) sum(a) - 2 * sum(b)
  full <- outer(rowSums(x), rowSums(x), function(a, b) a - 2 * b)
  expect_message(K <- kernel_matrix(asymmetric, x), "not symmetric")
  expect_equal(K, (full + t(full)) / 2, ignore_attr = TRUE)
  # a symmetric function: no message, the matrix of the function itself
  expect_message(K <- kernel_matrix(function(a, b) sum(a * b), x), NA)
  expect_equal(K, tcrossprod(x), ignore_attr = TRUE)
  # objects
  words <- c("ab", "abc", "b", "cab")
  expect_message(K <- kernel_matrix(function(a, b) nchar(a) - 2 * nchar(b), words), "not symmetric")
  full <- outer(nchar(words), nchar(words), function(a, b) a - 2 * b)
  expect_equal(K, (full + t(full)) / 2, ignore_attr = TRUE)
})

test_that("the parsnip engines name parsnip's `penalty`", {
  data <- extreme_data()
  expect_snapshot(show_error(krein_parsnip_fit(data$X, data$Y, krein_model = "kqd", penalty = -1)))
  expect_snapshot(show_error(krein_parsnip_fit(data$X, data$Y, krein_model = "ikfd", penalty = -1)))
})

test_that("messages describe the value given", {
  data <- extreme_data()
  d <- data$d
  expect_snapshot(show_error(kqd(~ x1, data = d)))
  expect_snapshot(show_error(checkerboard(1:2)))
  expect_snapshot(show_error(kqd(array(1, c(2, 2, 2)), data$Y[1:2])))
  one_point <- factor(c("lonely", rep("b", 59)))
  expect_snapshot(show_error(kmdc(data$X, one_point, kernel = kernel_rbf(1), classifier = "qda")))
})

# ---- chunk sources ---------------------------------------------------------

extreme_chunks <- function() {
  d <- extreme_data()$d
  parts <- unname(split(d, rep(1:3, each = 20)))
  list(d = d, parts = parts, points = as.matrix(d[seq(1, 60, by = 6), 1:2]))
}

# A function source that gives `parts` on its first pass and `second(i)` on
# the next ones
two_pass_source <- function(parts, second) {
  pass <- 1L
  function(i) {
    if (i > length(parts)) {
      pass <<- pass + 1L
      return(NULL)
    }
    if (pass == 1L) parts[[i]] else second(i)
  }
}

test_that("a function source that fails or changes on a later pass is named by chunk", {
  s <- extreme_chunks()
  fit_on <- function(source) ikfd(krein_chunks(source, y = "y"), kernel = kernel_rbf(1), landmarks = s$points)
  failing <- two_pass_source(s$parts, function(i) if (i == 2L) stop("the disk is gone") else s$parts[[i]])
  expect_error(fit_on(failing), class = "krein_error", regexp = "chunk 2.*the disk is gone")
  shorter <- two_pass_source(s$parts, function(i) if (i == 2L) s$parts[[i]][1:5, ] else s$parts[[i]])
  expect_error(fit_on(shorter), class = "krein_error", regexp = "[Cc]hunk 2 of `x` has 5 rows in this pass and had 20")
  longer <- two_pass_source(s$parts, function(i) s$parts[[min(i, 3L)]])
  longer_source <- function(i) if (environment(longer)$pass > 1L && i == 4L) s$parts[[1]] else longer(i)
  expect_error(fit_on(longer_source), class = "krein_error", regexp = "chunk 4 is new")
})

test_that("files that vanish or hold no rows, and outputs that cannot be written, are named", {
  s <- extreme_chunks()
  folder <- tempfile("chunks")
  dir.create(folder)
  on.exit(unlink(folder, recursive = TRUE), add = TRUE)
  files <- file.path(folder, sprintf("part%d.csv", 1:3))
  for (i in 1:3) utils::write.csv(s$parts[[i]], files[i], row.names = FALSE)
  chunks <- krein_chunks(files, y = "y")
  fit <- ikfd(chunks, kernel = kernel_rbf(1), landmarks = s$points)
  # an output pattern that cannot be written: its file is a folder
  dir.create(file.path(folder, "out2.csv"))
  expect_error(predict(fit, chunks, output = file.path(folder, "out%d.csv")), class = "krein_error",
               regexp = "chunk 2 to `.*out2.csv`")
  expect_error(predict(fit, chunks, output = function(p, i) if (i == 3L) stop("no space left")),
               class = "krein_error", regexp = "chunk 3: no space left")
  unlink(files[3])
  expect_error(predict(fit, chunks), class = "krein_error", regexp = "Chunk 3 \\(`part3.csv`\\) of `x` cannot be read")
  # a header-only CSV has no rows (not "a column of type logical")
  utils::write.csv(s$parts[[3]][0, ], files[3], row.names = FALSE)
  expect_error(ikfd(krein_chunks(files, y = "y"), kernel = kernel_rbf(1), landmarks = s$points),
               class = "krein_error", regexp = "Chunk 3 \\(`part3.csv`\\) of `x` has no rows")
})

test_that("queries without rows, dropped tables and closed connections are named", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("RSQLite")
  s <- extreme_chunks()
  d <- s$d
  d$part <- rep(1:3, each = 20)
  path <- tempfile(fileext = ".sqlite")
  on.exit(unlink(path), add = TRUE)
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  DBI::dbWriteTable(con, "board", d)
  connect <- local({
    database <- path
    function() DBI::dbConnect(RSQLite::SQLite(), database)
  })
  queries <- sprintf("SELECT x1, x2, y FROM board WHERE part = %d ORDER BY rowid", c(1, 9, 3))
  empty <- krein_chunks(connect = connect, y = "y", query = queries)
  expect_error(ikfd(empty, kernel = kernel_rbf(1), landmarks = s$points), class = "krein_error",
               regexp = "Chunk 2 of `x` has no rows \\(its query returned none\\)")
  pages <- krein_chunks(con, y = "y", query = "SELECT x1, x2, y FROM board ORDER BY rowid", page_rows = 25)
  fit <- ikfd(pages, kernel = kernel_rbf(1), landmarks = s$points)
  DBI::dbRemoveTable(con, "board")
  expect_error(predict(fit, pages), class = "krein_error", regexp = "query of `x` failed before chunk 1")
  DBI::dbDisconnect(con)
  expect_error(predict(fit, pages), class = "krein_error", regexp = "query of `x` failed before chunk 1")
})
