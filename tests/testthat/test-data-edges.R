# The columns real data bring: large integers as bit64's integer64 (DBI,
# data.table::fread()), duplicated or empty column names, a CSV chunk that a
# reader stops early in. Each gets the result the same data as plain doubles
# give, or a krein error naming the column, row or chunk; never a silent
# wrong result.

edge_data <- function(n = 40) {
  set.seed(31)
  y <- factor(rep(c("p", "q"), length.out = n))
  data.frame(a = as.numeric(seq_len(n)) - 20 + 4 * (y == "q"), b = round(rnorm(n) * 100) + 150 * (y == "q"),
             y = y)
}

edge_needs <- list(isvm = "kernlab")

edge_model <- function(name) {
  for (pkg in edge_needs[[name]]) skip_if_not_installed(pkg)
  get(name, envir = asNamespace("krein"))
}

for (name in krein:::registered_models()) {
  test_that(sprintf("%s: integer64 columns are read exactly, by the formula and the x/y interface", name), {
    skip_if_not_installed("bit64")
    fun <- edge_model(name)
    d <- edge_data()
    wide <- d
    wide$a <- bit64::as.integer64(d$a)
    wide$b <- bit64::as.integer64(d$b)
    set.seed(1)
    plain <- suppressWarnings(fun(y ~ ., data = d))
    set.seed(1)
    from_wide <- suppressWarnings(fun(y ~ ., data = wide))
    expect_identical(nobs(from_wide), nrow(d))
    expect_equal(predict(from_wide, wide, type = "prob"), predict(plain, d, type = "prob"), tolerance = 1e-12)
    set.seed(1)
    plain_xy <- suppressWarnings(fun(d[, 1:2], d$y))
    set.seed(1)
    wide_xy <- suppressWarnings(fun(wide[, 1:2], wide$y))
    expect_equal(predict(wide_xy, wide[, 1:2], type = "prob"), predict(plain_xy, d[, 1:2], type = "prob"),
                 tolerance = 1e-12)
  })

  test_that(sprintf("%s: duplicated and empty column names are refused at fit time", name), {
    fun <- edge_model(name)
    d <- edge_data()
    x <- as.matrix(d[, 1:2])
    colnames(x) <- c("a", "a")
    expect_error(fun(x, d$y), class = "krein_error", regexp = "more than one column named \"a\"")
    colnames(x) <- c("a", "")
    expect_error(fun(x, d$y), class = "krein_error", regexp = "a column without a name \\(column 2\\)")
    twice <- d
    names(twice) <- c("a", "a", "y")
    expect_error(fun(y ~ ., data = twice), class = "krein_error", regexp = "more than one column named \"a\"")
  })
}

test_that("integer64: missing values stay missing, huge values and a missing bit64 are said", {
  skip_if_not_installed("bit64")
  d <- edge_data()
  wide <- d
  wide$a <- bit64::as.integer64(d$a)
  wide$a[3] <- NA
  expect_error(kqd(y ~ ., data = wide, na.action = na.fail), class = "krein_error", regexp = "row 3")
  expect_identical(nobs(kqd(y ~ ., data = wide, na.action = na.omit)), nrow(d) - 1L)
  wide$a[5] <- bit64::as.integer64("9007199254740993")  # 2^53 + 1
  expect_snapshot(show_error(kqd(y ~ ., data = wide)))
  expect_snapshot(show_error(kqd(wide[, 1:2], wide$y)))
  # the kernel of integer64 values is the kernel of the integers
  v <- data.frame(v = bit64::as.integer64(c(-2, 1, 3)))
  expect_equal(kernel_matrix(kernel_rbf(1), v), kernel_matrix(kernel_rbf(1), data.frame(v = c(-2, 1, 3))))
  # integer64 labels are labels
  fit <- kqd(d[, 1:2], bit64::as.integer64(rep(c(7, 9), 20)))
  expect_identical(levels(predict(fit, d[1:3, 1:2])), c("7", "9"))
})

test_that("a CSV chunk a reader stops early in is refused, naming the file", {
  skip_if_not_installed("data.table")
  d <- edge_data()
  files <- c(tempfile(fileext = ".csv"), tempfile(fileext = ".csv"))
  on.exit(unlink(files), add = TRUE)
  utils::write.csv(d[1:20, ], files[1], row.names = FALSE)
  lines <- c("a,b,y", sprintf("%g,%g,%s", d$a[21:40], d$b[21:40], d$y[21:40]))
  lines[8] <- "1,2,q,surplus"  # a ragged line: fread() would stop before it
  writeLines(lines, files[2])
  chunks <- krein_chunks(files, y = "y")
  error <- expect_error(ikfd(chunks, kernel = kernel_rbf(1), landmarks = as.matrix(d[c(1, 2, 5, 30), 1:2])),
                        class = "krein_chunk_error")
  expect_match(conditionMessage(error), sprintf("Chunk 2 (`%s`) of `x` was not read whole", basename(files[2])),
               fixed = TRUE)
  expect_match(conditionMessage(error), "line 8", fixed = TRUE)
})

test_that("messages describe classed vectors by their class, complex columns by name, bounds exactly", {
  d <- edge_data()
  dates <- as.Date("2026-01-01") + seq_len(nrow(d))
  expect_error(kqd(d[, 1:2], dates), class = "krein_error", regexp = "not a Date vector of length 40", fixed = TRUE)
  complex_data <- d
  complex_data$z <- complex(real = d$a, imaginary = 1)
  expect_error(kqd(y ~ a + z, data = complex_data), class = "krein_error",
               regexp = "`data` has complex numbers in column `z`", fixed = TRUE)
  # a value just past a bound is printed as itself, not rounded onto the bound
  expect_error(ikpca_qd(d[, 1:2], d$y, pvar = 1 + 1e-12), class = "krein_error",
               regexp = "not 1.000000000001", fixed = TRUE)
  expect_identical(krein:::format_number(1.0000001e15), "1.0000001e+15")
  expect_identical(krein:::format_number(0.5), "0.5")
})
