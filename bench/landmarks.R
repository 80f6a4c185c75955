# Benchmark: Nystroem landmark selection -- MEB, k-means, random -- for
# Ny-iKFD (ikfd(landmarks = )) and Ny-KQD (kqd(landmarks = )).
# Run from the checkout's root after installing krein:  Rscript bench/landmarks.R [results.csv]
#
# For every data set, model and landmark method it prints the test error and
# the fit time (landmark selection included) against the number of landmarks,
# means over the seeds (a fresh train/test draw or split per seed):
#   * "kmeans" and "random": m = 25, 50, 100, 200, 400, 800, as far as m is at
#     most 3/4 of the training set;
#   * "full": the full model (no landmarks), for reference (m = n_train);
#   * "meb": the number of landmarks follows from eps (Schleif, Gisbrecht and
#     Tino 2018, doi:10.1016/j.neucom.2018.08.057, Algorithm 1); eps = 0.1,
#     0.03, 0.01, 0.003, and the table reports the m each gives (mean over
#     the seeds).
# Data (sized so that the whole run takes about 8 minutes on 2 shared cores
# with 5 seeds):
#   checkerboard(size = 4), 2000 training and 5000 test points, with the
#     Gaussian kernel kernel_rbf(5) and with the reflection-invariant
#     indefinite kernel kernel_invariant(kernel_dist(s = 0.25, power = 4)) of
#     the checkerboard vignette (which keeps s = 1 for its 100-point
#     training sets; with 2000 points and 200 random landmarks, s = 0.25 gave
#     Ny-KQD the lowest test error of s = 0.25, 0.5, 1, 2; unscaled inputs);
#   banana(), 1000 training and 2000 test points, kernel_rbf() (median
#     heuristic, scaled inputs);
#   mlbench's Sonar (208 rows), kernlab's spam (a subset of 1500 training and
#     1000 test rows, log1p of the counts), both with kernel_rbf() on scaled
#     inputs, 2/3 - 1/3 splits for Sonar;
#   kernlab's promotergene (106 DNA sequences): the edit distance (utils::adist)
#     turned into an indefinite kernel by kernel_from_dissimilarity()
#     (method "negsq"), 72 training and 34 test sequences (stratified); the
#     landmarks are training-row indices, test sequences are predicted from
#     their distances to the training ones.
#   Sonar needs mlbench, spam and promotergene kernlab; a data set whose
#   package is not installed is skipped.
# Models: ikfd() with ridge_relative = 1e-4 (both forms choose their ridge by
# leave-one-out by default; a fixed one makes the rows compare the same
# ridge); kqd() with its
# defaults (RC+, the variant's default regularisation, the bias chosen on the
# training error). Warnings (e.g. an MEB core set that hit its cap) are
# counted, not printed; a fit that fails is reported as NA.
# The table is also written to the CSV file named by the first argument
# (default landmarks-results.csv in the working directory).
library(krein)
options(krein.threads = 2)

args <- commandArgs(trailingOnly = TRUE)
out_file <- if (length(args) >= 1L) args[1] else "landmarks-results.csv"
seeds <- 1:5
m_grid <- c(25, 50, 100, 200, 400, 800)
eps_grid <- c(0.1, 0.03, 0.01, 0.003)

# Each data set is a function of the seed returning the training inputs
# (x, y), the test inputs (test_x, test_y), the kernel and whether to scale.
checkerboard_data <- function(kernel) {
  function(seed) {
    set.seed(seed)
    train <- checkerboard(2000, size = 4)
    test <- checkerboard(5000, size = 4)
    list(x = as.matrix(train[, c("x1", "x2")]), y = train$y,
         test_x = as.matrix(test[, c("x1", "x2")]), test_y = test$y,
         kernel = kernel, scale = FALSE)
  }
}

banana_data <- function(seed) {
  set.seed(seed)
  train <- banana(1000)
  test <- banana(2000)
  list(x = as.matrix(train[, c("x1", "x2")]), y = train$y,
       test_x = as.matrix(test[, c("x1", "x2")]), test_y = test$y,
       kernel = kernel_rbf(), scale = TRUE)
}

# A stratified split: `n_train` rows in proportion to the classes.
split_rows <- function(y, n_train) {
  take <- round(n_train * table(y) / length(y))
  train <- sort(unlist(lapply(names(take), function(k) sample(which(y == k), take[[k]]))))
  list(train = train, test = setdiff(seq_along(y), train))
}

sonar_data <- function(seed) {
  e <- new.env()
  utils::data(Sonar, package = "mlbench", envir = e)
  x <- as.matrix(e$Sonar[, 1:60])
  y <- e$Sonar$Class
  set.seed(seed)
  rows <- split_rows(y, 139)
  list(x = x[rows$train, ], y = y[rows$train], test_x = x[rows$test, ], test_y = y[rows$test],
       kernel = kernel_rbf(), scale = TRUE)
}

spam_data <- function(seed) {
  e <- new.env()
  utils::data(spam, package = "kernlab", envir = e)
  x <- log1p(as.matrix(e$spam[, 1:57]))
  y <- e$spam$type
  set.seed(seed)
  rows <- sample(nrow(x), 2500)
  train <- rows[1:1500]
  test <- rows[1501:2500]
  list(x = x[train, ], y = y[train], test_x = x[test, ], test_y = y[test],
       kernel = kernel_rbf(), scale = TRUE)
}

promoter_data <- function(seed) {
  e <- new.env()
  utils::data(promotergene, package = "kernlab", envir = e)
  sequences <- apply(as.matrix(e$promotergene[, -1]), 1, paste, collapse = "")
  D <- utils::adist(sequences)
  y <- e$promotergene$Class
  set.seed(seed)
  rows <- split_rows(y, 71)
  list(x = kernel_from_dissimilarity(D[rows$train, rows$train], method = "negsq"),
       y = y[rows$train], test_x = D[rows$test, rows$train], test_y = y[rows$test],
       kernel = "precomputed", scale = FALSE)
}

datasets <- list(
  "checkerboard, RBF" = checkerboard_data(kernel_rbf(5)),
  "checkerboard, invariant" = checkerboard_data(kernel_invariant(kernel_dist(s = 0.25, power = 4))),
  "banana" = banana_data,
  "Sonar" = sonar_data,
  "spam" = spam_data,
  "promotergene, edit" = promoter_data
)
needs <- c(Sonar = "mlbench", spam = "kernlab", "promotergene, edit" = "kernlab")
for (data_name in names(needs)) {
  if (!requireNamespace(needs[[data_name]], quietly = TRUE)) {
    cat(sprintf("%s skipped: install.packages(\"%s\") to include it\n", data_name, needs[[data_name]]))
    datasets[[data_name]] <- NULL
  }
}

fit_one <- function(model, d, method, setting) {
  arguments <- list(d$x, d$y)
  if (method == "meb") arguments$eps <- setting
  if (method %in% c("kmeans", "random")) arguments$m <- setting
  if (method != "full") arguments$landmarks <- method
  if (identical(model, "ikfd")) arguments$ridge_relative <- 1e-4
  if (!identical(d$kernel, "precomputed")) {
    arguments$kernel <- d$kernel
    arguments$scale <- d$scale
  }
  warnings <- 0L
  time <- system.time(fit <- tryCatch(
    withCallingHandlers(do.call(model, arguments),
                        warning = function(w) {
                          warnings <<- warnings + 1L
                          invokeRestart("muffleWarning")
                        }),
    error = function(e) {
      message(sprintf("  %s failed: %s", model, conditionMessage(e)))
      NULL
    }))[["elapsed"]]
  if (is.null(fit)) return(c(m = NA, error = NA, time = NA, warnings = warnings))
  error <- mean(as.character(predict(fit, d$test_x)) != as.character(d$test_y))
  m <- if (method == "full") length(d$y) else length(fit$landmarks$class)
  c(m = m, error = error, time = time, warnings = warnings)
}

rows <- list()
started <- proc.time()[["elapsed"]]
for (data_name in names(datasets)) {
  draws <- lapply(seeds, datasets[[data_name]])
  n_train <- length(draws[[1]]$y)
  m_values <- m_grid[m_grid <= 0.75 * n_train]
  for (model in c("ikfd", "kqd")) {
    grid <- rbind(data.frame(method = "full", setting = NA),
                  data.frame(method = "meb", setting = eps_grid),
                  data.frame(method = "kmeans", setting = m_values),
                  data.frame(method = "random", setting = m_values))
    for (g in seq_len(nrow(grid))) {
      results <- vapply(seq_along(seeds), function(s) {
        set.seed(100 + seeds[s])
        fit_one(model, draws[[s]], grid$method[g], grid$setting[g])
      }, numeric(4))
      rows[[length(rows) + 1L]] <- data.frame(
        data = data_name, n_train = n_train, model = model, method = grid$method[g],
        eps = if (grid$method[g] == "meb") grid$setting[g] else NA,
        m = mean(results["m", ]), error = mean(results["error", ]),
        error_sd = stats::sd(results["error", ]), time = mean(results["time", ]),
        warnings = sum(results["warnings", ]), failed = sum(is.na(results["error", ])))
    }
    cat(sprintf("%s, %s done (%.0f s so far)\n", data_name, model,
                proc.time()[["elapsed"]] - started))
  }
}
table_all <- do.call(rbind, rows)
utils::write.csv(table_all, out_file, row.names = FALSE)

cat(sprintf("\n== Landmark methods: test error (%%) and fit time (s), means over %d seeds\n",
            length(seeds)))
cat(sprintf("R %s, krein %s, %s, %s\n", getRversion(), utils::packageVersion("krein"),
            Sys.info()[["machine"]], format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC")))
for (data_name in names(datasets)) {
  part <- table_all[table_all$data == data_name, ]
  cat(sprintf("\n-- %s (n_train = %d)\n", data_name, part$n_train[1]))
  cat(sprintf("%-6s %-7s %7s %6s %8s %7s %8s\n", "model", "method", "eps", "m", "error%",
              "sd", "time s"))
  for (i in seq_len(nrow(part))) {
    cat(sprintf("%-6s %-7s %7s %6.0f %8.2f %7.2f %8.3f%s\n", part$model[i], part$method[i],
                if (is.na(part$eps[i])) "" else format(part$eps[i]), part$m[i],
                100 * part$error[i], 100 * part$error_sd[i], part$time[i],
                if (part$warnings[i] > 0 || part$failed[i] > 0)
                  sprintf("  (%d warnings, %d failed)", part$warnings[i], part$failed[i]) else ""))
  }
}
cat(sprintf("\nTotal %.0f s; table written to %s\n", proc.time()[["elapsed"]] - started, out_file))
