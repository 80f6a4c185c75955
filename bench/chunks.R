# Benchmark: Ny-iKFD over data in chunks (krein_chunks()) against the same fit
# in memory, and a multisession plan against a sequential one.
# Run from the checkout's root after installing krein:
#   Rscript bench/chunks.R [N]          (N training points, default 1e6)
# The script writes checkerboard(N, size = 4) to 10 CSV files in a temporary
# directory (deleted at the end) and prints, each measurement in a fresh R
# process (so its peak memory is its own):
#   1. the fit in memory on the same rows, or on the first 1e6 when N is
#      larger (read from the same files): time, time per point, test error
#      on 20,000 points, peak memory;
#   2. the fit over the 10 files with plan(sequential) and with
#      plan(multisession, workers = 2): time, test error, peak memory of the
#      main process; for every fit, its size (object.size(), MB) as kept
#      and after drop_training_scores() (without its n x classes training
#      scores);
#   3. the ratios: time per point chunked (sequential) / in memory (target
#      <= 1.5), sequential / multisession (target >= 1.6), and the largest
#      relative difference of the decision values, chunked against in memory
#      (same rows only) and multisession against sequential (target <= 1e-10).
# The multisession workers are started, and load krein, before the clock
# starts (a session pays that second once, not per fit).
# All fits use one thread per process (`threads = 1`), so that the two
# workers of the multisession plan have one core each: the comparison is of
# the plans, not of krein's threads. The landmarks (MEB, eps = 0.01, Gaussian
# kernel gamma = 5) are selected once, on the first file, and given to every
# fit as points, so all fits are the same model.
suppressPackageStartupMessages(library(krein))

peak_memory_mb <- function() {
  status <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep("^VmHWM", status, value = TRUE))) / 1024
}

read_file <- function(file) {
  if (requireNamespace("data.table", quietly = TRUE)) data.table::fread(file, data.table = FALSE)
  else utils::read.csv(file)
}

# One measurement in this process: --run <mode> <dir>
args <- commandArgs(trailingOnly = TRUE)
if (length(args) == 3L && args[1] == "--run") {
  mode <- args[2]
  dir <- args[3]
  files <- sort(list.files(dir, pattern = "^part-.*\\.csv$", full.names = TRUE))
  landmarks <- readRDS(file.path(dir, "landmarks.rds"))
  test <- readRDS(file.path(dir, "test.rds"))
  if (mode == "memory") {
    # the in-memory reference: all rows up to 1e6 (the issue's yardstick is
    # the time per point of the in-memory fit at 1e6)
    rows_per_file <- nrow(read_file(files[1]))
    files <- files[seq_len(min(length(files), max(1, round(1e6 / rows_per_file))))]
    train <- do.call(rbind, lapply(files, read_file))
    time <- system.time(fit <- ikfd(y ~ x1 + x2, data = train, kernel = kernel_rbf(5),
                                    landmarks = landmarks$indices, threads = 1))[["elapsed"]]
    n <- nrow(train)
  } else {
    if (mode == "multisession") {
      future::plan(future::multisession, workers = 2)
      # start the workers and load krein on them before the clock starts: a
      # session pays this once (about a second here), not once per fit
      invisible(future.apply::future_lapply(1:2, function(i) loadNamespace("krein"), future.seed = NULL))
    }
    time <- system.time(fit <- ikfd(krein_chunks(files, y = y ~ x1 + x2), kernel = kernel_rbf(5),
                                    landmarks = landmarks$points, threads = 1))[["elapsed"]]
    n <- length(fit$y)
  }
  decision <- predict(fit, test, type = "decision")[, 1]
  saveRDS(decision, file.path(dir, paste0("decision-", mode, ".rds")))
  # the size of the fit as kept, and without its training scores (n x
  # classes; drop_training_scores())
  size <- as.numeric(utils::object.size(fit)) / 2^20
  dropped <- as.numeric(utils::object.size(drop_training_scores(fit))) / 2^20
  cat(sprintf("%g %.3f %.5f %.0f %.1f %.1f\n", n, time, mean(predict(fit, test) != test$y), peak_memory_mb(),
              size, dropped))
  quit(save = "no")
}

main <- function(args) {
  N <- if (length(args) >= 1L) as.numeric(args[1]) else 1e6
  files_count <- 10L
  dir <- tempfile("krein-chunks-bench-")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)  # the files are deleted however the run ends
  set.seed(1)
  for (i in seq_len(files_count)) {
    part <- checkerboard(N / files_count, size = 4)
    file <- file.path(dir, sprintf("part-%02d.csv", i))
    if (requireNamespace("data.table", quietly = TRUE)) data.table::fwrite(part, file) else
      utils::write.csv(part, file, row.names = FALSE)
  }
  first <- read_file(file.path(dir, "part-01.csv"))
  set.seed(2)
  landmarks <- select_landmarks(first[, c("x1", "x2")], first$y, kernel_rbf(5), method = "meb")
  # the in-memory fit takes them as row indices (the first file holds the first rows)
  saveRDS(list(points = landmarks$points, indices = landmarks$indices), file.path(dir, "landmarks.rds"))
  saveRDS(checkerboard(20000, size = 4), file.path(dir, "test.rds"))
  cat(sprintf("checkerboard(%g, size = 4) in %d CSV files (%.0f MB); %d MEB landmarks from the first file\n",
              N, files_count, sum(file.size(list.files(dir, pattern = "csv$", full.names = TRUE))) / 2^20,
              nrow(landmarks$points)))

  script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
  rscript <- file.path(R.home("bin"), "Rscript")
  run <- function(mode) {
    out <- system2(rscript, c(shQuote(script), "--run", mode, shQuote(dir)), stdout = TRUE)
    values <- as.numeric(strsplit(trimws(out[length(out)]), " +")[[1]])
    stats::setNames(values, c("n", "time", "error", "peak", "size", "dropped"))
  }
  results <- lapply(c(memory = "memory", sequential = "sequential", multisession = "multisession"), run)
  cat(sprintf("\n%-26s %9s %14s %10s %14s %10s %13s\n", "fit", "time (s)", "us per point", "test err",
              "peak RSS (MB)", "fit (MB)", "dropped (MB)"))
  for (mode in names(results)) {
    r <- results[[mode]]
    cat(sprintf("%-26s %9.2f %14.2f %10.4f %14.0f %10.1f %13.1f\n",
                switch(mode, memory = "in memory", sequential = "chunks, plan(sequential)",
                       multisession = "chunks, multisession x 2"),
                r[["time"]], 1e6 * r[["time"]] / r[["n"]], r[["error"]], r[["peak"]], r[["size"]], r[["dropped"]]))
  }
  decision <- lapply(results, function(r) NULL)
  for (mode in names(results)) decision[[mode]] <- readRDS(file.path(dir, paste0("decision-", mode, ".rds")))
  relative <- function(a, b) max(abs(a - b)) / max(abs(b))
  per_point <- function(r) r[["time"]] / r[["n"]]
  cat(sprintf("\ntime per point, chunks (sequential, %g points) / in memory (%g points): %.2f (target <= 1.5)\n",
              results$sequential[["n"]], results$memory[["n"]],
              per_point(results$sequential) / per_point(results$memory)))
  cat(sprintf("speedup, multisession (2 workers) / sequential: %.2f (target >= 1.6)\n",
              results$sequential[["time"]] / results$multisession[["time"]]))
  if (results$memory[["n"]] == results$sequential[["n"]]) {
    cat(sprintf("largest relative difference of the decision values, chunks vs in memory: %.1e (target <= 1e-10)\n",
                max(relative(decision$sequential, decision$memory), relative(decision$multisession, decision$memory))))
  }
  cat(sprintf("largest relative difference of the decision values, multisession vs sequential: %.1e (target <= 1e-10)\n",
              relative(decision$multisession, decision$sequential)))
}

main(args)
