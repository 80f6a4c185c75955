# krein's demonstration (demo/checkerboard.R, the README's first command)
# against the table it prints beside: Pekalska & Haasdonk (2009), Table V,
# test errors at s = 1 as mean (sd) over ten draws of 50 + 50 training points,
# and the indices of indefiniteness r_neg for seven widths (also averaged over
# ten draws). The demonstration runs one draw, so the tolerance is that of
# one draw: each test error within three of the paper's standard deviations
# of its mean, each r_neg within 0.01 (one draw's r_neg differs from the
# ten-draw average by about 0.002 here). Data centred under the
# point-reflection-invariant kernel (as by a default scaling) make four errors
# miss this by more than four standard deviations (IKQD-IC- 23.3 against
# 12.4 (1.8), IKQD-RC- 27.8 against 12.9 (3.2), IKQD-FK+ 23.0 against 12.7
# (1.8), IKFD 28.2 against 13.6 (3.4)).

test_that("the demonstration reproduces Table V of Pekalska & Haasdonk (2009) within one draw's spread", {
  demo_file <- system.file("demo", "checkerboard.R", package = "krein")
  skip_if(!nzchar(demo_file), "the demonstration is not installed")
  dir <- withr::local_tempdir()
  withr::local_dir(dir)
  withr::local_preserve_seed()
  env <- new.env(parent = globalenv())
  utils::capture.output(suppressWarnings(source(demo_file, local = env)))
  expect_true(file.exists(file.path(dir, "krein-checkerboard.png")))

  errors <- env$errors
  expect_identical(errors$classifier, c("IKQD-IC+", "IKQD-IC-", "IKQD-RC+", "IKQD-RC-", "IKQD-FK+", "IKQD-FK-",
                                        "IKFD", "IKNN", "IKPCA-QD"))
  paper_mean <- as.numeric(sub(" \\(.*$", "", errors$paper))
  paper_sd <- as.numeric(sub("^.*\\((.*)\\)$", "\\1", errors$paper))
  expect_equal(paper_mean, c(15.0, 12.4, 30.4, 12.9, 12.7, 17.1, 13.6, 15.4, 12.0))
  z <- (errors$test_error - paper_mean) / paper_sd
  for (i in seq_along(z)) {
    expect_lt(abs(z[i]), 3, label = sprintf("%s: %.1f %% against the paper's %s, z", errors$classifier[i],
                                            errors$test_error[i], errors$paper[i]))
  }

  table_v <- env$table_v
  expect_identical(table_v$s, c(0.05, 0.1, 0.5, 1, 5, 10, 50))
  expect_lt(max(abs(table_v$r_neg - table_v$r_neg_paper)), 0.01)
  expect_identical(table_v$p + table_v$q, rep(100L, 7))
})
