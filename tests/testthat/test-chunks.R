# Fits over data in chunks (R/chunk_*.R, R/pcvm_chunks.R, R/kfda_chunks.R):
# each chunked fit must equal the in-memory fit on the same rows (to 1e-10,
# relative), whatever the chunking, the source and the future plan.

relative_difference <- function(a, b) max(abs(a - b)) / max(abs(b))

chunk_data <- function(n = 300, seed = 1) {
  set.seed(seed)
  d <- checkerboard(n, size = 3)
  d$x1 <- d$x1 * 3 + 10   # scaling must matter
  d
}

split_rows <- function(d, sizes) unname(split(d, rep(seq_along(sizes), sizes)))

expect_same_ikfd <- function(chunked, memory) {
  expect_lt(relative_difference(chunked$coefficients, memory$coefficients), 1e-10)
  expect_lt(relative_difference(chunked$bias, memory$bias), 1e-10)
  expect_lt(relative_difference(chunked$training_scores, memory$training_scores), 1e-10)
  expect_equal(chunked$spec$scaling, memory$spec$scaling, tolerance = 1e-12)
  expect_identical(chunked$fitted_class, memory$fitted_class)
  # the default ridge: the leave-one-out pass over the chunks
  expect_identical(chunked$ridge_relative, memory$ridge_relative)
  if (!is.null(memory$ridge_selection)) {
    expect_lt(relative_difference(chunked$ridge_selection$press, memory$ridge_selection$press), 1e-10)
  }
}

test_that("Ny-iKFD over chunks equals the in-memory fit, whatever the chunking", {
  d <- chunk_data()
  landmarks <- c(3, 10, 40, 77, 101, 150, 160, 222, 250, 299, 12, 58)
  for (scale in c(TRUE, FALSE)) {
    memory <- ikfd(d[, 1:2], d$y, kernel = kernel_rbf(2), landmarks = landmarks, scale = scale)
    for (sizes in list(300, c(100, 100, 100), c(1, 7, 150, 142), c(299, 1))) {
      chunked <- ikfd(krein_chunks(split_rows(d, sizes), y = "y"), kernel = kernel_rbf(2),
                      landmarks = as.matrix(d[landmarks, 1:2]), scale = scale)
      expect_same_ikfd(chunked, memory)
    }
  }
})

test_that("the moments of the scaling pass merge exactly (Chan, Golub and LeVeque)", {
  set.seed(2)
  x <- matrix(rnorm(60, mean = 100), 20, 3, dimnames = list(NULL, c("a", "b", "c")))
  parts <- lapply(list(1:3, 4:15, 16:20), function(r) chunk_moments(as.data.frame(x[r, ]), NULL, list(type = "xy", colnames = colnames(x))))
  expect_equal(scaling_from_moments(parts, colnames(x)), column_scaling(x), tolerance = 1e-12)
})

# scale = TRUE over chunks: the moments are held in units of a power of two
# per column; otherwise the squares of 1e-300 numbers underflow, the columns
# are called constant ("centred but not scaled") and the fit is wrong.
test_that("chunked scaling of tiny and huge data is that of the same data at ordinary size", {
  d <- chunk_data(120, seed = 5)
  parts <- split_rows(d, c(50, 40, 30))
  landmarks <- as.matrix(d[c(3, 10, 40, 77, 101, 12), 1:2])
  for (factor in c(1e-300, 1e300)) {
    tiny <- lapply(parts, function(p) transform(p, x1 = x1 * factor, x2 = x2 * factor))
    # one chunk of smaller numbers than the others: the merge changes units
    tiny[[2]][, 1:2] <- tiny[[2]][, 1:2] / 1024
    expected <- lapply(parts, identity)
    expected[[2]][, 1:2] <- expected[[2]][, 1:2] / 1024
    reference <- ikfd(krein_chunks(expected, y = "y"), kernel = kernel_rbf(2), landmarks = landmarks)
    expect_message(fit <- ikfd(krein_chunks(tiny, y = "y"), kernel = kernel_rbf(2),
                                  landmarks = landmarks * factor), NA)
    expect_equal(fit$spec$scaling$scale, reference$spec$scaling$scale * factor, tolerance = 1e-12)
    expect_equal(fit$spec$scaling$center, reference$spec$scaling$center * factor, tolerance = 1e-12)
    expect_identical(fit$fitted_class, reference$fitted_class)
    expect_lt(relative_difference(fit$coefficients, reference$coefficients), 1e-10)
  }
})

test_that("Ny-KQD over chunks equals the in-memory fit for all six variants", {
  d <- chunk_data(240, seed = 3)
  landmarks <- seq(1, 240, by = 8)
  chunks <- krein_chunks(split_rows(d, c(90, 60, 90)), y = y ~ x1 + x2)
  for (variant in kqd_variants) {
    memory <- kqd(y ~ x1 + x2, data = d, kernel = kernel_rbf(2), landmarks = landmarks, variant = variant)
    chunked <- kqd(chunks, kernel = kernel_rbf(2), landmarks = as.matrix(d[landmarks, 1:2]), variant = variant)
    expect_lt(relative_difference(chunked$training_distances[[1]], memory$training_distances[[1]]), 1e-10)
    expect_equal(chunked$bias, memory$bias, tolerance = 1e-10)
    expect_identical(chunked$fitted_class, memory$fitted_class)
  }
})

test_that("CSV files, an RSQLite database and a function give the in-memory fit", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("RSQLite")
  d <- chunk_data(200, seed = 4)
  landmarks <- seq(2, 200, by = 10)
  files <- vapply(1:3, function(i) tempfile(fileext = ".csv"), "")
  on.exit(unlink(files), add = TRUE)
  parts <- split_rows(d, c(50, 80, 70))
  for (i in 1:3) utils::write.csv(parts[[i]], files[i], row.names = FALSE)
  # the rows as the files hold them (CSV text has 15 significant digits)
  from_files <- do.call(rbind, lapply(files, read_csv_chunk))
  memory <- ikfd(from_files[, 1:2], from_files$y, kernel = kernel_rbf(2), landmarks = landmarks)
  points <- as.matrix(from_files[landmarks, 1:2])
  expect_same_ikfd(ikfd(krein_chunks(files, y = "y"), kernel = kernel_rbf(2), landmarks = points), memory)

  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  DBI::dbWriteTable(con, "board", from_files)
  db <- krein_chunks(con, y = "y", query = "SELECT x1, x2, y FROM board ORDER BY rowid", page_rows = 64)
  expect_same_ikfd(ikfd(db, kernel = kernel_rbf(2), landmarks = points), memory)
  # a sample of the first pages for a landmark method: the same as from the rows in a list
  set.seed(5)
  from_db <- ikfd(krein_chunks(con, y = "y", query = "SELECT x1, x2, y FROM board ORDER BY rowid",
                               page_rows = 64, sample_rows = 100), kernel = kernel_rbf(2),
                  landmarks = "random", m = 12)
  set.seed(5)
  from_list <- ikfd(krein_chunks(split_rows(from_files, c(64, 64, 64, 8)), y = "y", sample_rows = 100),
                    kernel = kernel_rbf(2), landmarks = "random", m = 12)
  expect_equal(from_db$coefficients, from_list$coefficients, tolerance = 1e-10)

  # a function of the chunk index, NULL after the last chunk
  reader <- function(i) {
    rows <- which(ceiling(seq_len(200) / 70) == i)
    if (length(rows)) from_files[rows, ]
  }
  expect_same_ikfd(ikfd(krein_chunks(reader, y = "y"), kernel = kernel_rbf(2), landmarks = points), memory)
})

test_that("a formula dummy-codes factor and character predictors as in memory", {
  d <- chunk_data(240, seed = 5)
  d$group <- sample(c("a", "b", "c"), nrow(d), replace = TRUE)
  landmarks <- seq(1, 240, by = 6)
  memory <- ikfd(y ~ x1 + x2 + group, data = d, kernel = kernel_rbf(1), landmarks = landmarks)
  chunks <- krein_chunks(split_rows(d, c(100, 140)), y = y ~ x1 + x2 + group)
  points <- stats::model.matrix(~ x1 + x2 + group, d)[landmarks, -1]
  chunked <- ikfd(chunks, kernel = kernel_rbf(1), landmarks = points)
  expect_same_ikfd(chunked, memory)
  expect_identical(chunked$spec$xlevels, memory$spec$xlevels)
  test <- chunk_data(50, seed = 6)
  test$group <- sample(c("a", "b", "c"), nrow(test), replace = TRUE)
  expect_equal(predict(chunked, krein_chunks(split_rows(test, c(20, 30))), type = "prob"),
               unname(predict(memory, test, type = "prob")), tolerance = 1e-10, ignore_attr = TRUE)
})

test_that("predict() on a chunk source gives the predictions in chunk order", {
  d <- chunk_data(200, seed = 7)
  landmarks <- seq(1, 200, by = 7)
  memory <- kqd(d[, 1:2], d$y, kernel = kernel_rbf(2), landmarks = landmarks, variant = "RC+")
  test <- chunk_data(90, seed = 8)
  chunks <- krein_chunks(split_rows(test, c(30, 45, 15)))
  expect_identical(predict(memory, chunks), unname(predict(memory, test[, 1:2])))
  expect_equal(predict(memory, chunks, type = "decision"), unname(predict(memory, test[, 1:2], type = "decision")),
               ignore_attr = TRUE)
  # the response column of a training source is left aside
  expect_identical(predict(memory, krein_chunks(split_rows(test, c(50, 40)), y = "y")),
                   unname(predict(memory, test[, 1:2])))
})

test_that("landmark methods select on the first chunks", {
  d <- chunk_data(300, seed = 9)
  chunks <- krein_chunks(split_rows(d, c(100, 100, 100)), y = "y", sample_rows = 150)
  set.seed(1)
  fit <- ikfd(chunks, kernel = kernel_rbf(2), landmarks = "random", m = 20)
  expect_length(fit$landmarks$class, 20)
  expect_null(fit$landmarks$indices)
  # the same selection on the same sample, in memory
  set.seed(1)
  sample_x <- scale(d[1:150, 1:2], center = fit$spec$scaling$center, scale = fit$spec$scaling$scale)
  sample_landmarks <- select_landmarks(sample_x, d$y[1:150], kernel_rbf(2), method = "random", m = 20)
  expect_equal(fit$landmarks$points, sample_landmarks$points, ignore_attr = TRUE)
})

test_that("a krein_landmarks object gives its points in the original units", {
  d <- chunk_data(200, seed = 12)
  set.seed(3)
  selected <- select_landmarks(d[, 1:2], d$y, kernel_rbf(2), method = "random", m = 15)
  memory <- ikfd(d[, 1:2], d$y, kernel = kernel_rbf(2), landmarks = selected$indices)
  chunked <- ikfd(krein_chunks(split_rows(d, c(120, 80)), y = "y"), kernel = kernel_rbf(2), landmarks = selected)
  expect_same_ikfd(chunked, memory)
  expect_identical(chunked$landmarks$class, selected$class)
})

test_that("a kernel width from the data is the median heuristic on the sample of the first chunks", {
  d <- chunk_data(300, seed = 13)
  chunks <- krein_chunks(split_rows(d, c(100, 100, 100)), y = "y", sample_rows = 100)
  fit <- ikfd(chunks, kernel = kernel_rbf(), landmarks = as.matrix(d[1:10, 1:2]))
  sample_x <- scale(d[1:100, 1:2], center = fit$spec$scaling$center, scale = fit$spec$scaling$scale)
  expect_equal(fit$spec$kernel$params$gamma, median_gamma(sample_x))
})

test_that("bad chunks give errors naming the chunk", {
  d <- chunk_data(60, seed = 10)
  parts <- split_rows(d, c(20, 20, 20))
  points <- as.matrix(d[1:6, 1:2])
  fit_on <- function(parts, y = "y", ...) ikfd(krein_chunks(parts, y = y), kernel = kernel_rbf(2), landmarks = points, ...)

  renamed <- parts
  names(renamed[[2]])[2] <- "z"
  expect_snapshot(show_error(fit_on(renamed)))
  typed <- parts
  typed[[3]]$x2 <- as.character(typed[[3]]$x2)
  expect_snapshot(show_error(fit_on(typed)))
  leveled <- parts
  leveled[[2]]$y <- factor(leveled[[2]]$y, levels = c("2", "1"))
  expect_snapshot(show_error(fit_on(leveled)))
  missing_values <- parts
  missing_values[[2]]$x1[c(3, 7)] <- NA
  expect_snapshot(show_error(fit_on(missing_values)))
  expect_snapshot(show_error(fit_on(parts, y = "class")))
  with_text <- lapply(parts, function(p) transform(p, g = "a"))
  expect_snapshot(show_error(fit_on(with_text)))
  expect_snapshot(show_error(ikfd(krein_chunks(parts, y = "y"), kernel = kernel_rbf(2), landmarks = 1:5)))
  expect_snapshot(show_error(ikfd(krein_chunks(parts), kernel = kernel_rbf(2), landmarks = points)))
  expect_snapshot(show_error(krein_chunks(list(d, 1:3), y = "y")))
  expect_snapshot(show_error(krein_chunks(c("no-such-file.csv"), y = "y")))
  expect_snapshot(show_error(krein_chunks(parts, y = 3)))
  expect_error(ikfd(krein_chunks(parts, y = "y"), kernel = kernel_rbf(2), landmarks = points[, 1, drop = FALSE]),
               class = "krein_error")
  # models without a map-reduce fit say so
  expect_snapshot(show_error(onda(krein_chunks(parts, y = "y"))))
})

test_that("kfda(reduce = \"subset\") over chunks equals the in-memory fit", {
  d <- chunk_data()
  bases <- sort(c(3, 10, 40, 77, 101, 150, 160, 222, 250, 299, 12, 58))
  test <- chunk_data(60, seed = 21)
  for (discriminant in c("linear", "quadratic")) {
    for (ridge in list(NULL, 0.1)) {
      memory <- kfda(d[, 1:2], d$y, kernel = kernel_rbf(2), reduce = "subset", bases = bases,
                     discriminant = discriminant, ridge = ridge)
      for (sizes in list(300, c(100, 100, 100), c(1, 7, 150, 142))) {
        chunked <- kfda(krein_chunks(split_rows(d, sizes), y = "y"), kernel = kernel_rbf(2), reduce = "subset",
                        bases = as.matrix(d[bases, 1:2]), discriminant = discriminant, ridge = ridge)
        expect_lt(relative_difference(chunked$training_decisions, memory$training_decisions), 1e-10)
        expect_lt(relative_difference(as.matrix(chunked$means), as.matrix(memory$means)), 1e-10)
        # Fisher directions are defined up to their signs
        expect_lt(relative_difference(abs(chunked$training_projection), abs(memory$training_projection)), 1e-10)
        expect_lt(relative_difference(predict(chunked, test[, 1:2], type = "prob"),
                                      predict(memory, test[, 1:2], type = "prob")), 1e-10)
        expect_identical(chunked$fitted_class, memory$fitted_class)
        if (discriminant == "linear") {
          expect_lt(relative_difference(coef(chunked), coef(memory)), 1e-10)
        }
      }
    }
  }
})

test_that("kfda over chunks draws a number or share of bases from the first chunks with R's RNG", {
  d <- chunk_data(300, seed = 22)
  chunks <- krein_chunks(split_rows(d, c(80, 80, 140)), y = "y", sample_rows = 120)
  for (bases in list(15, 0.05)) {
    set.seed(4)
    chunked <- kfda(chunks, kernel = kernel_rbf(2), reduce = "subset", bases = bases)
    set.seed(4)
    drawn <- sort(sample.int(120, 15))
    memory <- kfda(d[, 1:2], d$y, kernel = kernel_rbf(2), reduce = "subset", bases = drawn)
    expect_lt(relative_difference(chunked$training_decisions, memory$training_decisions), 1e-10)
    expect_identical(chunked$landmarks$class, d$y[drawn])
  }
})

test_that("bad kfda arguments over chunks give clear errors", {
  d <- chunk_data(60, seed = 23)
  chunks <- krein_chunks(split_rows(d, c(30, 30)), y = "y", sample_rows = 30)
  expect_snapshot(show_error(kfda(chunks, kernel = kernel_rbf(2), reduce = "subset", bases = c(1, 5, 9))))
  expect_snapshot(show_error(kfda(chunks, kernel = kernel_rbf(2), reduce = "subset", bases = 40)))
  expect_snapshot(show_error(kfda(chunks, kernel = kernel_rbf(2), reduce = "subset", bases = -2)))
  expect_snapshot(show_error(kfda(chunks, kernel = kernel_rbf(2), reduce = "subset", bases = matrix(1, 3, 3))))
  expect_error(kfda(chunks, kernel = kernel_rbf(2), reduce = "subset", bases = 5, ncomp = 3), class = "krein_error")
})

test_that("Ny-PCVM over chunks has the iterates of the in-memory fit", {
  d <- chunk_data()
  set.seed(2)
  landmarks <- select_landmarks(d[, 1:2], d$y, kernel_rbf(2), method = "random", m = 30)
  controls <- list(pcvm_control(tol = 1e-2), pcvm_control(convergence = "weights", tol = 1e-2),
                   pcvm_control(max_iter = 6))
  for (control in controls) {
    set.seed(3)
    memory <- suppressWarnings(pcvm(d[, 1:2], d$y, kernel = kernel_rbf(2), landmarks = landmarks, control = control))
    for (sizes in list(300, c(1, 7, 150, 142))) {
      set.seed(3)
      chunked <- suppressWarnings(pcvm(krein_chunks(split_rows(d, sizes), y = "y"), kernel = kernel_rbf(2),
                                       landmarks = landmarks, control = control))
      a <- memory$models[[1]]
      b <- chunked$models[[1]]
      expect_lt(relative_difference(b$coefficients, a$coefficients), 1e-10)
      expect_equal(b$bias, a$bias, tolerance = 1e-10)
      expect_identical(b$relevant, a$relevant)
      expect_identical(b[c("iterations", "converged")], a[c("iterations", "converged")])
      expect_lt(relative_difference(chunked$training_latent, memory$training_latent), 1e-10)
    }
  }
  expect_true(memory$models[[1]]$iterations == 6 && !memory$models[[1]]$converged)
  test <- chunk_data(40, seed = 24)
  expect_lt(relative_difference(predict(chunked, test[, 1:2], type = "prob"),
                                predict(memory, test[, 1:2], type = "prob")), 1e-10)
})

test_that("Ny-PCVM over chunks: three classes, one pairwise EM each", {
  set.seed(5)
  landmarks <- select_landmarks(iris[, 1:4], iris$Species, kernel_rbf(0.5), method = "random", m = 24)
  control <- pcvm_control(max_iter = 15)
  set.seed(6)
  memory <- suppressWarnings(pcvm(iris[, 1:4], iris$Species, kernel = kernel_rbf(0.5), landmarks = landmarks,
                                  control = control))
  set.seed(6)
  chunked <- suppressWarnings(pcvm(krein_chunks(split_rows(iris, c(40, 70, 40)), y = "Species"),
                                   kernel = kernel_rbf(0.5), landmarks = landmarks, control = control))
  for (k in 1:3) {
    expect_lt(relative_difference(chunked$models[[k]]$coefficients, memory$models[[k]]$coefficients), 1e-10)
  }
  expect_lt(relative_difference(chunked$training_latent, memory$training_latent), 1e-10)
  expect_identical(chunked$fitted_class, memory$fitted_class)
})

# iris in three chunks from a function source that counts its reads of
# chunk 1 (`seen$reads`; a function source is read in the main process), and
# 24 random landmarks: the passes of Ny-PCVM over chunks, counted through
# public arguments
counted_iris_chunks <- function() {
  set.seed(5)
  landmarks <- select_landmarks(iris[, 1:4], iris$Species, kernel_rbf(0.5), method = "random", m = 24)
  parts <- split_rows(iris, c(40, 70, 40))
  seen <- new.env()
  seen$reads <- 0L
  source <- function(i) {
    if (i == 1L) seen$reads <- seen$reads + 1L
    if (i <= length(parts)) parts[[i]]
  }
  list(landmarks = landmarks, source = source, seen = seen)
}

test_that("Ny-PCVM over chunks runs every EM start of every pair in the same passes over the chunks", {
  # all starts (pcvm_control(starts), ten by default on iris) and all pairs
  # iterate in lockstep, each start with the iterates of the fit in memory:
  # the data are read as often as the longest of those EMs iterates, not, start
  # after start, as often as each start's longest
  counted <- counted_iris_chunks()
  landmarks <- counted$landmarks
  source <- counted$source
  seen <- counted$seen
  fit_chunks <- function(control) {
    seen$reads <- 0L
    suppressWarnings(pcvm(krein_chunks(source, y = "Species"), kernel = kernel_rbf(0.5), landmarks = landmarks,
                          control = control))
  }
  # the reads that are not EM passes, from a fit of one pass
  fit_chunks(pcvm_control(convergence = "weights", max_iter = 1, starts = 1))
  outside_em <- seen$reads - 1L
  for (control in list(pcvm_control(tol = 1e-2), pcvm_control(convergence = "weights", tol = 1e-2))) {
    chunked <- fit_chunks(control)
    memory <- suppressWarnings(pcvm(iris[, 1:4], iris$Species, kernel = kernel_rbf(0.5), landmarks = landmarks,
                                    control = control))
    # starts x pairs
    iterations <- sapply(chunked$models, `[[`, "start_iterations")
    bias_only <- sapply(chunked$models, `[[`, "start_bias_only")
    expect_identical(dim(iterations), c(10L, 3L))
    # an EM's passes: one per iteration and, with the "latent" rule, one
    # more, whose latent values test its last iteration (unless it pruned
    # every basis function, which stops it at once)
    passes <- iterations + (control$convergence == "latent" & !bias_only)
    expect_identical(seen$reads, outside_em + max(passes))
    # the starts stopped at different iterations: one lockstep EM per start
    # would read the data more often
    expect_gt(sum(apply(passes, 1, max)), max(passes))
    for (k in seq_along(chunked$models)) {
      a <- memory$models[[k]]
      b <- chunked$models[[k]]
      expect_lt(relative_difference(b$coefficients, a$coefficients), 1e-10)
      expect_equal(b$bias, a$bias, tolerance = 1e-10)
      expect_identical(b[c("relevant", "iterations", "converged", "start_iterations", "start_bias_only",
                           "start_dropped")],
                       a[c("relevant", "iterations", "converged", "start_iterations", "start_bias_only",
                           "start_dropped")])
      expect_equal(b$start_training_errors, a$start_training_errors)
    }
    expect_lt(relative_difference(chunked$training_latent, memory$training_latent), 1e-10)
    expect_identical(chunked$fitted_class, memory$fitted_class)
  }
})

test_that("Ny-PCVM over chunks reads the data once per EM iteration for all pairs of classes", {
  # one pass serves every pair still running (not one pass per pair of
  # classes, three per EM iteration for 3 classes), and a pair that has
  # stopped leaves the later passes.
  counted <- counted_iris_chunks()
  landmarks <- counted$landmarks
  source <- counted$source
  seen <- counted$seen
  # for each block's EM statistics, the read they were computed in and the pairs computed
  suppressMessages(trace("pcvm_block_statistics", where = asNamespace("krein"), print = FALSE,
                         tracer = bquote(assign("em", c(get("em", envir = .(seen)), list(list(
                           read = get("reads", envir = .(seen)),
                           pairs = vapply(tasks, function(task) paste(task$pair, collapse = "-"), "")))),
                           envir = .(seen)))))
  on.exit(suppressMessages(untrace("pcvm_block_statistics", where = asNamespace("krein"))), add = TRUE)
  fit_chunks <- function(control) {
    seen$reads <- 0L
    seen$em <- list()
    suppressWarnings(pcvm(krein_chunks(source, y = "Species"), kernel = kernel_rbf(0.5), landmarks = landmarks,
                          control = control))
  }
  # the reads that are not EM passes (the first chunk's columns, the survey,
  # the column moments, the landmark factors, the training latent values)
  # (one EM start here; the starts share the passes: the next test)
  fit_chunks(pcvm_control(convergence = "weights", max_iter = 1, starts = 1))
  outside_em <- seen$reads - 1L
  controls <- list(pcvm_control(convergence = "weights", tol = 1e-2, starts = 1), pcvm_control(tol = 1e-2, starts = 1),
                   pcvm_control(max_iter = 15, starts = 1))
  stopped <- list()
  for (control in controls) {
    chunked <- fit_chunks(control)
    memory <- suppressWarnings(pcvm(iris[, 1:4], iris$Species, kernel = kernel_rbf(0.5), landmarks = landmarks,
                                    control = control))
    iterations <- vapply(chunked$models, `[[`, integer(1), "iterations")
    stopped[[length(stopped) + 1L]] <- iterations
    pairs <- vapply(chunked$models, function(model) paste(model$pair, collapse = "-"), "")
    # a pair's passes: one per iteration and, with the "latent" rule, one
    # more, whose latent values test its last iteration (no pair is pruned away here)
    needed <- iterations + (control$convergence == "latent")
    reads <- vapply(seen$em, `[[`, integer(1), "read")
    passes <- unique(reads)
    expect_identical(length(passes), max(needed))
    expect_identical(seen$reads, outside_em + max(needed))
    served <- lapply(passes, function(read) sort(unique(unlist(lapply(seen$em[reads == read], `[[`, "pairs")))))
    expect_identical(served, lapply(seq_along(passes), function(t) sort(pairs[needed >= t])))
    for (k in seq_along(chunked$models)) {
      a <- memory$models[[k]]
      b <- chunked$models[[k]]
      expect_lt(relative_difference(b$coefficients, a$coefficients), 1e-10)
      expect_equal(b$bias, a$bias, tolerance = 1e-10)
      expect_identical(b[c("relevant", "iterations", "converged")], a[c("relevant", "iterations", "converged")])
    }
    expect_lt(relative_difference(chunked$training_latent, memory$training_latent), 1e-10)
  }
  # under both rules the pairs stopped at different iterations, so that the
  # later passes served fewer pairs
  expect_gt(length(unique(stopped[[1]])), 1L)
  expect_gt(length(unique(stopped[[2]])), 1L)
})

# The core's E-step (pcvm.hpp's expected_latent(), which the EM in memory
# and over chunks both run)
expected_latent <- function(f, y, kind) cpp_pcvm_expected_latent(f, y, list(e_step = kind))

test_that("the inverse Mills ratio matches its definition and its tail", {
  t <- c(-40, -10, -5.0001, -5, 0, 3)
  direct <- exp(stats::dnorm(t, log = TRUE) - stats::pnorm(t, log.p = TRUE))
  # with y = 1 the exact E-step is Z = t + phi(t) / Psi(t)
  expect_equal(expected_latent(t, rep(1, length(t)), "exact") - t, direct, tolerance = 1e-10)
})

test_that("the E-step's expected latent values, exact and as the authors' reference code", {
  y <- c(1, -1, 1, -1, 1, -1, 1)
  f <- y * c(3, 0, -2, -5.5, -8, -10, -40)  # y f as given
  # Chen, Tino and Yao (2009): Z = E[z | y, f] = f + y phi(f) / Psi(y f),
  # the ratio in log space
  exact <- f + y * exp(dnorm(f, log = TRUE) - pnorm(y * f, log.p = TRUE))
  # the authors' MATLAB code (?pcvm, "Model and EM"): phi(f) / (Psi(y f) + eps)
  reference <- f + y * dnorm(f) / (pnorm(y * f) + .Machine$double.eps)
  expect_equal(expected_latent(f, y, "exact"), exact, tolerance = 1e-10)
  # (the core's Psi is erfc()'s, R's pnorm() another approximation: 1e-12)
  expect_equal(expected_latent(f, y, "reference"), reference, tolerance = 1e-12)
  # the bounded E-step: the exact ratio evaluated at max(y f, -8)
  expect_equal(expected_latent(f, y, "bounded"), ref_e_step(f, y, "bounded"), tolerance = 1e-10)
  expect_identical(expected_latent(f[1:5], y[1:5], "bounded"), expected_latent(f[1:5], y[1:5], "exact"))
  expect_equal(y[6:7] * (expected_latent(f[6:7], y[6:7], "bounded") - f[6:7]), rep(dnorm(8) / pnorm(-8), 2),
               tolerance = 1e-10)
  # at y f = -10 and -40 the reference form stays at f (its ratio underflows
  # to 0 at -40); the exact Z is the mean of a normal truncated to the
  # label's side, so y Z > 0 always
  expect_lt(max(abs(expected_latent(f[6:7], y[6:7], "reference") - f[6:7])), 1e-6)
  expect_identical(expected_latent(f[7], y[7], "reference"), f[7])
  expect_true(all(y * expected_latent(f, y, "exact") > 0))
  expect_error(expected_latent(f, y, "matlab"), "unknown PCVM E-step")
})

test_that("Ny-PCVM over chunks with the reference code's E-step has the iterates of the in-memory fit", {
  # the chunked EM hands control$e_step to the core's pass over each block,
  # the in-memory one to the core's fit(): both must honour it
  d <- chunk_data()
  set.seed(2)
  landmarks <- select_landmarks(d[, 1:2], d$y, kernel_rbf(2), method = "random", m = 30)
  for (convergence in c("latent", "weights")) {
    control <- pcvm_control(e_step = "reference", convergence = convergence, tol = 1e-2, start = "random")
    set.seed(3)
    memory <- suppressWarnings(pcvm(d[, 1:2], d$y, kernel = kernel_rbf(2), landmarks = landmarks, control = control))
    set.seed(3)
    chunked <- suppressWarnings(pcvm(krein_chunks(split_rows(d, c(1, 7, 150, 142)), y = "y"), kernel = kernel_rbf(2),
                                     landmarks = landmarks, control = control))
    a <- memory$models[[1]]
    b <- chunked$models[[1]]
    expect_lt(relative_difference(b$coefficients, a$coefficients), 1e-10)
    expect_equal(b$bias, a$bias, tolerance = 1e-10)
    expect_identical(b[c("relevant", "iterations", "converged")], a[c("relevant", "iterations", "converged")])
  }
})

# A plain-R transcription of one pair's EM over its basis functions K (?pcvm,
# "Model and EM"; the M-step of ref_pcvm_step(), helper-pcvm.R), for
# `iterations` iterations with the E-step `expected(f, y)`, and the training
# error of each iteration: the proportion of rows with y f <= 0 for the f its
# E-step used (the start latent values in the first).
ref_pcvm_training_errors <- function(K, y, y_columns, start, iterations, prune, expected) {
  w <- start$weights
  b <- start$bias
  errors <- numeric(iterations)
  for (t in seq_len(iterations)) {
    active <- which(w > 0)
    Phi <- K[, active, drop = FALSE] * rep(y_columns[active], each = nrow(K))
    f <- if (t == 1L) start$latent else drop(Phi %*% w[active]) + b
    errors[t] <- mean(y * f <= 0)
    Z <- expected(f, y)
    M <- sqrt(2) * w[active]
    step <- M * solve(diag(length(active)) + outer(M, M) * crossprod(Phi), M * drop(crossprod(Phi, Z - b)))
    b <- sum(Z - Phi %*% step) / (nrow(K) + 1 / (2 * b^2))
    w[active] <- ifelse(step < prune, 0, step)
  }
  list(weights = w, bias = b, training_errors = errors)
}

test_that("Ny-PCVM over chunks counts each iteration's training errors and takes control$e_step", {
  d <- chunk_data()
  set.seed(2)
  landmarks <- select_landmarks(d[, 1:2], d$y, kernel_rbf(2), method = "random", m = 30)
  # the pair's EM problem, its result and the basis that made it
  seen <- new.env()
  suppressMessages(trace("pcvm_pair_model", where = asNamespace("krein"), print = FALSE,
                         tracer = bquote(assign("pair", list(basis = basis, problem = problem, em = em),
                                                envir = .(seen)))))
  on.exit(suppressMessages(untrace("pcvm_pair_model", where = asNamespace("krein"))), add = TRUE)
  control <- pcvm_control(convergence = "weights", max_iter = 8, start = "random", e_step = "exact")
  set.seed(3)
  suppressWarnings(pcvm(krein_chunks(split_rows(d, c(100, 200)), y = "y"), kernel = kernel_rbf(2),
                        landmarks = landmarks, scale = FALSE, control = control))
  problem <- seen$pair$problem
  em <- seen$pair$em
  K <- kernel_matrix(kernel_rbf(2), as.matrix(d[problem$rows, 1:2]), landmarks$points[problem$columns, ])
  ref <- ref_pcvm_training_errors(K, problem$signs, problem$column_signs, problem$start, em$iterations,
                                  control$prune, function(f, y) ref_e_step(f, y, "exact"))
  expect_identical(em$iterations, 8L)
  expect_length(em$training_errors, 8L)
  expect_equal(em$training_errors, ref$training_errors)
  expect_gt(min(em$training_errors[-1]), 0)
  expect_equal(em$weights, ref$weights, tolerance = 1e-10)
  expect_equal(em$bias, ref$bias, tolerance = 1e-10)
  expect_identical(em$hessian_fallbacks, 0L)
  # each control$e_step, given to the chunked EM directly: from a start
  # whose latent values are confidently wrong
  # for three rows (y f = -8, -10, -40), where the two E-steps differ most
  wrong <- c(3, 30, 90)
  problem$start$latent[wrong] <- -c(8, 10, 40) * problem$signs[wrong]
  problem$starts <- list(problem$start)  # the chunked EM runs from a problem's `starts`
  fits <- list()
  for (kind in c("exact", "reference", "bounded")) {
    # the pair's results, of its one start
    fits[[kind]] <- seen$pair$basis$em(list(problem), modifyList(control, list(e_step = kind)))[[1]][[1]]
    ref <- ref_pcvm_training_errors(K, problem$signs, problem$column_signs, problem$start, fits[[kind]]$iterations,
                                    control$prune, function(f, y) ref_e_step(f, y, kind))
    expect_equal(fits[[kind]]$weights, ref$weights, tolerance = 1e-10)
    expect_equal(fits[[kind]]$bias, ref$bias, tolerance = 1e-10)
    expect_equal(fits[[kind]]$training_errors, ref$training_errors)
  }
  expect_gt(max(abs(fits$exact$weights - fits$reference$weights)), 1e-6)
  expect_gt(max(abs(fits$bounded$weights - fits$exact$weights)), 1e-6)
  expect_gt(max(abs(fits$bounded$weights - fits$reference$weights)), 1e-6)
})

# The M-step's solve where the Cholesky factorisation fails (an indefinite
# Hessian from rounding, huge weights) is the core's, shared by the EM in
# memory and over chunks: tests/cpp (test_pcvm_hessian_fallback).

test_that("Ny-PCVM over chunks needs the landmarks' classes", {
  d <- chunk_data(60, seed = 25)
  chunks <- krein_chunks(split_rows(d, c(30, 30)), y = "y")
  expect_snapshot(show_error(pcvm(chunks, kernel = kernel_rbf(2), landmarks = as.matrix(d[1:6, 1:2]))))
  expect_snapshot(show_error(pcvm(chunks, kernel = kernel_rbf(2), landmarks = as.matrix(d[1:6, 1:2]),
                                     control = pcvm_control(optimize_width = TRUE))))
})

# A database file written from `d` and a connect() that carries its name (a
# function travels to the workers with its environment); skips without RSQLite
board_database <- function(d) {
  skip_if_not_installed("DBI")
  skip_if_not_installed("RSQLite")
  path <- tempfile(fileext = ".sqlite")
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  d$part <- rep(1:3, length.out = nrow(d), each = ceiling(nrow(d) / 3))
  DBI::dbWriteTable(con, "board", d)
  DBI::dbDisconnect(con)
  list(path = path, connect = function() DBI::dbConnect(RSQLite::SQLite(), path))
}

test_that("a database read on the workers (`connect`) gives the in-memory fit", {
  d <- chunk_data(200, seed = 29)
  database <- board_database(d)
  on.exit(unlink(database$path), add = TRUE)
  landmarks <- seq(2, 200, by = 10)
  memory <- ikfd(d[, 1:2], d$y, kernel = kernel_rbf(2), landmarks = landmarks)
  points <- as.matrix(d[landmarks, 1:2])
  pages <- krein_chunks(connect = database$connect, y = "y", page_rows = 64,
                        query = "SELECT x1, x2, y FROM board ORDER BY rowid")
  expect_identical(pages$count, 4L)
  chunked <- ikfd(pages, kernel = kernel_rbf(2), landmarks = points)
  expect_lt(relative_difference(chunked$coefficients, memory$coefficients), 1e-10)
  expect_lt(relative_difference(chunked$training_scores, memory$training_scores), 1e-10)
  parts <- krein_chunks(connect = database$connect, y = "y",
                        query = sprintf("SELECT x1, x2, y FROM board WHERE part = %d ORDER BY rowid", 1:3))
  expect_identical(parts$count, 3L)
  chunked <- ikfd(parts, kernel = kernel_rbf(2), landmarks = points)
  expect_lt(relative_difference(chunked$training_scores, memory$training_scores), 1e-10)
  expect_identical(predict(memory, parts), unname(predict(memory, d[, 1:2])))
})

test_that("bad `connect` sources give clear errors", {
  d <- chunk_data(60, seed = 30)
  database <- board_database(d)
  on.exit(unlink(database$path), add = TRUE)
  expect_snapshot(show_error(krein_chunks(connect = "board.sqlite", y = "y", query = "SELECT * FROM board")))
  expect_snapshot(show_error(krein_chunks(connect = database$connect, y = "y")))
  expect_snapshot(show_error(krein_chunks(connect = database$connect, y = "y", query = c("SELECT 1", NA))))
  expect_snapshot(show_error(krein_chunks(connect = function() 42, y = "y", query = "SELECT * FROM board")))
  expect_snapshot(show_error(krein_chunks(connect = function() stop("no server"), y = "y", query = "SELECT * FROM board")))
  expect_snapshot(show_error(krein_chunks(list(d), connect = database$connect, y = "y", query = "SELECT * FROM board")))
  expect_snapshot(show_error(krein_chunks(connect = database$connect, y = "y", query = "SELECT * FROM board WHERE part = 9")))
  expect_error(krein_chunks(connect = database$connect, y = "y", query = "SELECT * FROM nowhere"), class = "krein_error")
  broken <- krein_chunks(connect = database$connect, y = "y", query = c("SELECT x1, x2, y FROM board", "SELECT * FROM nowhere"))
  expect_snapshot(show_error(ikfd(broken, kernel = kernel_rbf(2), landmarks = as.matrix(d[1:5, 1:2]))),
                  transform = function(lines) gsub("nowhere.*", "nowhere", lines))
})

test_that("a chunk that fails gives krein's error alone, without future's notice", {
  skip_if_not_installed("future.apply")
  # future >= 1.80 announces a failed element with a message "Caught
  # krein_error. Canceling all iterations ..." before re-signalling the error
  d <- chunk_data(60, seed = 10)
  parts <- split_rows(d, c(20, 20, 20))
  names(parts[[2]])[2] <- "z"
  said <- character()
  err <- withCallingHandlers(
    tryCatch(ikfd(krein_chunks(parts, y = "y"), kernel = kernel_rbf(2), landmarks = as.matrix(d[1:6, 1:2])),
             error = identity),
    message = function(m) {
      said <<- c(said, conditionMessage(m))
      invokeRestart("muffleMessage")
    },
    warning = function(w) {
      said <<- c(said, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  expect_s3_class(err, "krein_error")
  expect_match(conditionMessage(err), "Chunk 2 of `x`", fixed = TRUE)
  expect_identical(said, character())
})

test_that("a multisession plan gives the sequential fit", {
  skip_on_cran()
  skip_if_not_installed("future.apply")
  skip_if_not_installed("future")
  # workers load krein from the library: an installed krein is needed
  skip_if_not(nzchar(base::system.file(package = "krein", lib.loc = .libPaths())), "krein is not installed")
  d <- chunk_data(400, seed = 11)
  landmarks <- seq(1, 400, by = 10)
  memory <- ikfd(d[, 1:2], d$y, kernel = kernel_rbf(2), landmarks = landmarks)
  memory_kqd <- kqd(d[, 1:2], d$y, kernel = kernel_rbf(2), landmarks = landmarks, variant = "RC+")
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old), add = TRUE)
  chunks <- krein_chunks(split_rows(d, c(100, 150, 50, 100)), y = "y")
  points <- as.matrix(d[landmarks, 1:2])
  expect_same_ikfd(ikfd(chunks, kernel = kernel_rbf(2), landmarks = points), memory)
  chunked_kqd <- kqd(chunks, kernel = kernel_rbf(2), landmarks = points, variant = "RC+")
  expect_lt(relative_difference(chunked_kqd$training_distances[[1]], memory_kqd$training_distances[[1]]), 1e-10)
  # kfda's subset reduction and Ny-PCVM's EM passes
  memory_kfda <- kfda(d[, 1:2], d$y, kernel = kernel_rbf(2), reduce = "subset", bases = landmarks)
  chunked_kfda <- kfda(chunks, kernel = kernel_rbf(2), reduce = "subset", bases = points)
  expect_lt(relative_difference(chunked_kfda$training_decisions, memory_kfda$training_decisions), 1e-10)
  selected <- select_landmarks(d[, 1:2], d$y, kernel_rbf(2), method = "random", m = 20)
  set.seed(1)
  memory_pcvm <- pcvm(d[, 1:2], d$y, kernel = kernel_rbf(2), landmarks = selected, control = pcvm_control(tol = 1e-2))
  set.seed(1)
  chunked_pcvm <- pcvm(chunks, kernel = kernel_rbf(2), landmarks = selected, control = pcvm_control(tol = 1e-2))
  expect_lt(relative_difference(chunked_pcvm$training_latent, memory_pcvm$training_latent), 1e-10)
  # a database read on the workers, each through its own connection
  database <- board_database(d)
  on.exit(unlink(database$path), add = TRUE)
  pages <- krein_chunks(connect = database$connect, y = "y", page_rows = 150,
                        query = "SELECT x1, x2, y FROM board ORDER BY rowid")
  expect_same_ikfd(ikfd(pages, kernel = kernel_rbf(2), landmarks = points), memory)
})

test_that("predict(output = ) writes the predictions chunk by chunk", {
  d <- chunk_data(200, seed = 26)
  fit <- ikfd(d[, 1:2], d$y, kernel = kernel_rbf(2), landmarks = seq(1, 200, by = 8))
  test <- chunk_data(90, seed = 27)
  chunks <- krein_chunks(split_rows(test, c(30, 45, 15)))
  folder <- tempfile("predictions")
  dir.create(folder)
  on.exit(unlink(folder, recursive = TRUE), add = TRUE)
  files <- predict(fit, chunks, type = "prob", output = file.path(folder, "part-%02d.csv"))
  expect_identical(files, file.path(folder, sprintf("part-%02d.csv", 1:3)))
  # the columns are the class labels "1" and "2": read with a header
  written <- do.call(rbind, lapply(files, utils::read.csv, check.names = FALSE))
  expect_equal(as.matrix(written), predict(fit, test[, 1:2], type = "prob"), tolerance = 1e-12, ignore_attr = TRUE)
  classes <- predict(fit, chunks, output = file.path(folder, "class-%d.csv"))
  expect_identical(unlist(lapply(classes, function(f) as.character(utils::read.csv(f)$class))),
                   as.character(predict(fit, test[, 1:2])))
  # a function of the predictions and the chunk number, for a function source too
  seen <- list()
  reader <- function(i) if (i <= 3) test[(30 * (i - 1) + 1):(30 * i), ]
  result <- predict(fit, krein_chunks(reader), type = "decision",
                    output = function(predictions, chunk) seen[[chunk]] <<- predictions)
  expect_null(result)
  expect_equal(do.call(rbind, seen), predict(fit, test[, 1:2], type = "decision"), ignore_attr = TRUE)
})

test_that("bad `output` arguments give clear errors", {
  d <- chunk_data(60, seed = 28)
  fit <- ikfd(d[, 1:2], d$y, kernel = kernel_rbf(2), landmarks = 1:10)
  chunks <- krein_chunks(split_rows(d[, 1:2], c(30, 30)))
  expect_snapshot(show_error(predict(fit, chunks, output = "predictions.csv")))
  expect_snapshot(show_error(predict(fit, chunks, output = "p-%d-%d.csv")))
  expect_snapshot(show_error(predict(fit, chunks, output = file.path("no-such-folder", "p-%d.csv"))))
  expect_snapshot(show_error(predict(fit, chunks, output = function(p) NULL)))
  expect_snapshot(show_error(predict(fit, d[, 1:2], output = "p-%d.csv")))
})

test_that("the full form of data in chunks reads their rows into memory and equals the fit in memory", {
  d <- chunk_data(90, seed = 31)
  chunks <- krein_chunks(split_rows(d, c(40, 50)), y = "y")
  # left to choose, below the full-form limit: the full form
  chunked <- ikfd(chunks, kernel = kernel_rbf(2))
  memory <- ikfd(as.matrix(d[, 1:2]), d$y, kernel = kernel_rbf(2))
  expect_identical(chunked$form$kind, "full")
  expect_identical(chunked$form$chosen, "size")
  expect_equal(predict(chunked, d[, 1:2], type = "prob"), predict(memory, d[, 1:2], type = "prob"), tolerance = 1e-8)
  # asked for: kfda's kernel PCA, kqd's full form
  expect_equal(predict(kfda(chunks, kernel = kernel_rbf(2), reduce = "pca"), d[, 1:2], type = "prob"),
               predict(kfda(as.matrix(d[, 1:2]), d$y, kernel = kernel_rbf(2), reduce = "pca"), d[, 1:2], type = "prob"),
               tolerance = 1e-8)
  expect_identical(kqd(chunks, kernel = kernel_rbf(2), landmarks = NULL)$form$kind, "full")
  # above the limit, the same rule as in memory: the Nystroem form on
  # landmarks drawn from the sample of the first chunks
  withr::local_options(krein.full_max_rows = 50)
  set.seed(4)
  nystrom <- ikfd(chunks, kernel = kernel_rbf(2))
  expect_identical(nystrom$form$kind, "nystrom")
  expect_length(nystrom$landmarks$class, 45)
})
