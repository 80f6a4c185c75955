# Before/after comparison of two builds of krein on reduced versions of the
# workloads of the other bench/*.R scripts (krein's own calls only, no
# competitors), timed alternately in fresh child processes.
#
# THE GUARD (issue 32): run it against the fixed reference commit recorded in
# bench/README.md before resolving any issue that touches inst/include, src or
# the input path, and put its table in the note. From the checkout's root:
#   Rscript bench/compare_versions.R --reference [workload ...]
# installs the reference commit (once; cached in KREIN_BENCH_CACHE, default
# tools::R_user_dir("krein", "cache")/bench) and the checkout as it is
# (uncommitted changes included, into a temporary library), both with
# `R CMD INSTALL` (-O2), and compares them. Comparing only against the commit
# where the current work began misses what an earlier issue lost: a 3x slower
# kernel_matrix() went unseen through two issues that way. A slowdown beyond
# the noise (new/old above 1.10 is flagged) is fixed or explained.
#
# Or make the two libraries yourself (optimised builds, as users get them; not
# pkgload, which compiles with -O0), e.g. for the rework of issue 15:
#   git worktree add /tmp/bench-old 96ba114
#   #   (on a machine whose RcppEigen has Eigen 3.3, replace in
#   #    /tmp/bench-old/inst/include/krein/kfda.hpp the line
#   #    `if (svd.info() != Eigen::Success) throw ...;` by
#   #    `if (!svd.singularValues().allFinite()) throw std::runtime_error("centred_svd: the SVD did not converge");`)
#   mkdir -p /tmp/lib-old && MAKEFLAGS=-j2 R CMD INSTALL --library=/tmp/lib-old /tmp/bench-old
#   git worktree add /tmp/bench-new HEAD
#   mkdir -p /tmp/lib-new && MAKEFLAGS=-j2 R CMD INSTALL --library=/tmp/lib-new /tmp/bench-new
# Then, from the checkout's root:
#   KREIN_LIB_OLD=/tmp/lib-old KREIN_LIB_NEW=/tmp/lib-new Rscript bench/compare_versions.R [workload ...]
# (no workload names: all of them; KREIN_BENCH_REPEATS sets the runs per build, default 3;
# with --reference, KREIN_LIB_NEW, if set, replaces the install of the checkout).
#
# Two versions of one package cannot be loaded in one R session, so each run is
# a child process (`--child <workload> <result file>`) with R_LIBS pointing at
# one library; the builds alternate (old, new, old, new, ...) so that both see
# the same machine load, and the best (least disturbed) run of each is kept.
# A child times its workload once; workloads under a second are run once
# untimed first and then timed `reps` times, keeping the best. Each child saves
# the workload's results (predictions, test errors, decision values), and the
# driver checks that the two builds agree.

workloads <- list(
  kernel_matrix_rbf = list(script = "kernel_matrix.R", reps = 10, what = "RBF kernel_matrix, n = 4000, d = 10"),
  kernel_matrix_invariant = list(script = "kernel_matrix.R", reps = 5,
                                 what = "invariant kernel_matrix (power 4), n = 4000, d = 10"),
  kernel_matrix_poly = list(script = "kernel_matrix.R", reps = 10, what = "polynomial kernel_matrix (degree 3), n = 4000, d = 10"),
  kernel_matrix_dist = list(script = "kernel_matrix.R", reps = 5, what = "distance kernel_matrix (power 1.5), n = 4000, d = 10"),
  kernel_matrix_elm = list(script = "kernel_matrix.R", reps = 10, what = "ELM kernel_matrix, n = 4000, d = 10"),
  kernel_matrix_cross = list(script = "kernel_matrix.R", reps = 3, what = "RBF cross-kernel, 1e6 x 300 points, d = 10"),
  kqd_rc = list(script = "kqd.R", reps = 1, what = "kqd RC+ fit + predict 10,000, n = 2000"),
  kqd_fk = list(script = "kqd.R", reps = 1, what = "kqd FK+ fit + predict 10,000, n = 2000"),
  kqd_rc_indefinite = list(script = "kqd.R", reps = 1, what = "kqd indefinite RC+ fit + predict 10,000, n = 2000"),
  kqd_path = list(script = "kqd.R", reps = 1,
                  what = "kqd 8-value path, 6 variants x pd/indefinite formulas, n = 1000"),
  ikfd_meb_1e5 = list(script = "ikfd.R", reps = 1, what = "Ny-iKFD (MEB landmarks) fit, N = 1e5"),
  ikfd_meb_1e6 = list(script = "ikfd.R", reps = 1, what = "Ny-iKFD (MEB landmarks) fit, N = 1e6"),
  ikfd_full = list(script = "ikfd.R", reps = 1, what = "full iKFD fit + predict 1000, n = 2500"),
  pcvm_full = list(script = "pcvm.R", reps = 1, what = "PCVM fit, N = 2000 (predictions checked untimed)"),
  pcvm_nystrom = list(script = "pcvm.R", reps = 1, what = "Ny-PCVM (MEB, eps = 0.001) fit, N = 20000 (predictions checked untimed)"),
  kfda_pca = list(script = "kfda.R", reps = 1, what = "kfda(reduce = \"pca\", ncomp = 50) fit + predict 15,000, n = 2000"),
  tune = list(script = "tune.R", reps = 1, what = "tune_krein kqd RC+ 5-fold, 8 reg x 4 gamma, n = 400")
)

# ---- the workloads (run in a child: krein is the build R_LIBS points at) ----
# Each is list(setup = function() data, run = function(data) results), timed; an
# optional check = function(data, fit) turns a timed fit into results, untimed
# (the bench scripts time the fit alone there).
workload_code <- function(name) {
  gaussian_data <- function(n, m) {
    set.seed(1)
    train <- krein::gaussian_mixture_2d(n)
    test <- krein::gaussian_mixture_2d(m)
    list(x = as.matrix(train[, c("x1", "x2")]), y = train$y, x_test = as.matrix(test[, c("x1", "x2")]))
  }
  kqd_case <- function(variant, indefinite) list(
    setup = function() gaussian_data(2000, 10000),
    run = function(d) {
      fit <- krein::kqd(d$x, d$y, kernel = krein::kernel_rbf(gamma = 1), variant = variant,
                        reg = if (variant == "RC+") 0.1 else 1e-3, indefinite = indefinite)
      as.integer(predict(fit, d$x_test))
    })
  matrix_digest <- function(K) c(sum = sum(K), sum2 = sum(K^2), corner = K[1:5, 1:5], last = K[nrow(K), ])
  checkerboard_data <- function(N, seed, size = 4, test_size = 20000, test_seed = NULL) {
    if (!is.null(test_seed)) set.seed(test_seed)
    test <- if (!is.null(test_seed)) krein::checkerboard(test_size, size = size)
    set.seed(seed)
    train <- krein::checkerboard(N, size = size)
    if (is.null(test_seed)) test <- krein::checkerboard(test_size, size = size)
    list(x = as.matrix(train[, c("x1", "x2")]), y = train$y, test = test,
         x_test = as.matrix(test[, c("x1", "x2")]))
  }
  ikfd_meb <- function(N) list(
    setup = function() checkerboard_data(N, seed = 1),
    run = function(d) krein::ikfd(d$x, d$y, kernel = krein::kernel_rbf(5), landmarks = "meb"),
    check = function(d, fit) list(landmarks = length(fit$landmarks$class), predicted = predict(fit, d$x_test)))
  switch(name,
    kernel_matrix_rbf = list(
      setup = function() { set.seed(1); matrix(rnorm(4000 * 10), 4000, 10) },
      run = function(x) krein::kernel_matrix(krein::kernel_rbf(0.05), x, threads = 2),
      check = function(x, K) matrix_digest(K)),
    kernel_matrix_invariant = list(
      setup = function() { set.seed(1); matrix(rnorm(4000 * 10), 4000, 10) },
      run = function(x) krein::kernel_matrix(
        krein::kernel_invariant(krein::kernel_dist(s = 1, power = 4)), x, threads = 2),
      check = function(x, K) matrix_digest(K)),
    kernel_matrix_poly = list(
      setup = function() { set.seed(1); matrix(rnorm(4000 * 10), 4000, 10) },
      run = function(x) krein::kernel_matrix(krein::kernel_poly(3, scale = 0.1, offset = 1), x, threads = 2),
      check = function(x, K) matrix_digest(K)),
    kernel_matrix_dist = list(
      setup = function() { set.seed(1); matrix(rnorm(4000 * 10), 4000, 10) },
      run = function(x) krein::kernel_matrix(krein::kernel_dist(s = 3, power = 1.5), x, threads = 2),
      check = function(x, K) matrix_digest(K)),
    kernel_matrix_elm = list(
      setup = function() { set.seed(1); matrix(rnorm(4000 * 10), 4000, 10) },
      run = function(x) krein::kernel_matrix(krein::kernel_elm(1), x, threads = 2),
      check = function(x, K) matrix_digest(K)),
    kernel_matrix_cross = list(
      setup = function() { set.seed(2); matrix(rnorm(1e6 * 10), 1e6, 10) },
      run = function(x) krein::kernel_matrix(krein::kernel_rbf(0.05), x, x[1:300, ], threads = 2),
      check = function(x, K) matrix_digest(K)),
    kqd_rc = kqd_case("RC+", "no"),
    kqd_fk = kqd_case("FK+", "no"),
    kqd_rc_indefinite = kqd_case("RC+", "yes"),
    kqd_path = list(
      setup = function() {
        d <- gaussian_data(4000, 2000)
        rows <- round(seq(1, 4000, length.out = 1000))  # both classes (the data are sorted by class)
        list(x = d$x[rows, ], y = d$y[rows], x_test = d$x_test)
      },
      run = function(d) {
        out <- list()
        for (variant in c("IC+", "IC-", "RC+", "RC-", "FK+", "FK-")) for (indefinite in c("no", "yes")) {
          base_reg <- if (startsWith(variant, "RC")) 0.1 else 1e-3
          fit <- krein::kqd(d$x, d$y, kernel = krein::kernel_rbf(gamma = 1), variant = variant,
                            reg = base_reg * 10^seq(-2, 1.5, length.out = 8), indefinite = indefinite)
          errors <- if (!is.null(fit$path_error)) fit$path_error else fit$training_error
          out[[paste(variant, indefinite)]] <- list(errors = errors, predicted = as.integer(predict(fit, d$x_test)))
        }
        out
      }),
    ikfd_meb_1e5 = ikfd_meb(1e5),
    ikfd_meb_1e6 = ikfd_meb(1e6),
    ikfd_full = list(
      setup = function() {
        set.seed(4)
        train <- krein::checkerboard(2500, size = 4)
        list(x = as.matrix(train[, c("x1", "x2")]), y = train$y,
             x_new = as.matrix(krein::checkerboard(1000, size = 4)[, c("x1", "x2")]))
      },
      run = function(d) {
        # the relative ridge is `reg` before issue 15 and `ridge_relative` after
        ridge <- if ("ridge_relative" %in% names(formals(krein:::ikfd.default))) "ridge_relative" else "reg"
        arguments <- list(d$x, d$y, kernel = krein::kernel_rbf(5))
        arguments[[ridge]] <- 1e-4
        fit <- do.call(krein::ikfd, arguments)
        predict(fit, d$x_new, type = "decision")[, 1]
      }),
    pcvm_full = list(
      setup = function() checkerboard_data(2000, seed = 2, size = 4, test_size = 10000, test_seed = 1),
      run = function(d) {
        set.seed(3)
        suppressWarnings(krein::pcvm(d$x, d$y, kernel = krein::kernel_rbf(5)))
      },
      check = function(d, fit) list(relevant = length(fit$models[[1]]$relevant),
                                    prob = predict(fit, d$x_test, type = "prob"))),
    pcvm_nystrom = list(
      setup = function() checkerboard_data(20000, seed = 2, size = 4, test_size = 10000, test_seed = 1),
      run = function(d) {
        set.seed(3)
        suppressWarnings(krein::pcvm(d$x, d$y, kernel = krein::kernel_rbf(5), landmarks = "meb", eps = 0.001))
      },
      check = function(d, fit) list(landmarks = length(fit$landmarks$class),
                                    relevant = length(fit$models[[1]]$relevant),
                                    prob = predict(fit, d$x_test, type = "prob"))),
    kfda_pca = list(
      setup = function() {
        adult_like <- function(n) {
          x <- matrix(stats::rnorm(n * 14), n, 14)
          score <- x[, 1] * x[, 2] + sin(2 * x[, 3]) + 0.5 * x[, 4]^2 - 0.4 * x[, 5] + 0.3 * stats::rnorm(n)
          y <- factor(ifelse(score > stats::quantile(score, 0.76), ">50K", "<=50K"))
          list(x = x, y = y)
        }
        set.seed(1)
        test <- adult_like(15000)
        set.seed(2000)
        train <- adult_like(2000)
        list(x = train$x, y = train$y, x_test = test$x)
      },
      run = function(d) {
        fit <- krein::kfda(d$x, d$y, kernel = krein::kernel_rbf(0.05), reduce = "pca", ncomp = 50)
        predict(fit, d$x_test)
      }),
    tune = list(
      setup = function() {
        set.seed(1)
        d <- krein::checkerboard(400, size = 4)
        list(x = d[, c("x1", "x2")], y = d$y)
      },
      run = function(d) {
        future::plan(future::sequential)
        set.seed(42)
        grid <- list(reg = 10^seq(-4, 1, length.out = 8), gamma = c(1, 3, 9, 27))
        # positional learner: `model` before issue 15, `learner` after
        res <- krein::tune_krein(krein::kqd, d$x, d$y, grid = grid, variant = "RC+", folds = 5, refit = FALSE)
        list(results = res$results, best = unlist(res$best))
      }),
    stop("unknown workload ", name))
}

run_child <- function(name, result_file) {
  suppressPackageStartupMessages(library(krein))
  options(krein.threads = 2)
  reps <- workloads[[name]]$reps
  code <- workload_code(name)
  data <- code$setup()
  if (reps > 1) invisible(code$run(data))  # untimed warm-up of a short workload
  times <- numeric(reps)
  for (r in seq_len(reps)) {
    result <- NULL  # the previous run's result (a kernel matrix of up to 2.4 GB) is not kept alive
    gc()
    times[r] <- system.time(result <- code$run(data))[["elapsed"]]
  }
  # untimed: predictions of a timed fit, the digest of a timed kernel matrix
  if (!is.null(code$check)) result <- code$check(data, result)
  saveRDS(result, result_file)
  cat(sprintf("TIME %.6f\n", min(times)))
  cat(sprintf("FROM %s\n", find.package("krein")))
}

# ---- agreement of two results ----
agreement <- function(a, b) {
  flat <- function(v) {
    if (is.list(v)) return(unlist(lapply(v, flat), use.names = FALSE))
    if (is.factor(v)) return(as.character(v))
    if (is.data.frame(v)) return(unlist(lapply(v, flat), use.names = FALSE))
    as.vector(v)
  }
  fa <- flat(a)
  fb <- flat(b)
  if (length(fa) != length(fb)) return(sprintf("no (lengths %d vs %d)", length(fa), length(fb)))
  if (identical(fa, fb)) return("identical")
  if (is.numeric(fa) && is.numeric(fb)) {
    relative <- max(abs(fa - fb)) / max(abs(fa), .Machine$double.xmin)
    if (relative < 1e-6) return(sprintf("yes (max. rel. difference %.1e)", relative))
  }
  sprintf("no (%.2f%% of %d values differ)", 100 * mean(fa != fb), length(fa))
}

# ---- the driver ----
args <- commandArgs(trailingOnly = TRUE)
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
if (length(args) == 3L && args[1] == "--child") {
  run_child(args[2], args[3])
  quit(save = "no")
}
# ---- --reference: install the reference commit of bench/README.md and the checkout ----
source(file.path(dirname(script), "build_libraries.R"))
if (length(args) && args[1] == "--reference") {
  args <- args[-1]
  root <- dirname(dirname(script))
  commit <- readme_commit(dirname(script), "Reference commit")
  reference_library <- cached_commit_library(root, commit)
  new_library <- Sys.getenv("KREIN_LIB_NEW")
  if (!nzchar(new_library)) {
    new_library <- tempfile("krein-lib-new-")
    install_into(export_revision(root, NULL), new_library)
  }
  Sys.setenv(KREIN_LIB_OLD = reference_library, KREIN_LIB_NEW = new_library)
  cat(sprintf("reference commit (bench/README.md): %s\n", commit))
}
libraries <- c(old = Sys.getenv("KREIN_LIB_OLD", "/tmp/lib-old"), new = Sys.getenv("KREIN_LIB_NEW", "/tmp/lib-new"))
stopifnot(all(dir.exists(file.path(libraries, "krein"))))
repeats <- as.integer(Sys.getenv("KREIN_BENCH_REPEATS", "3"))
selected <- if (length(args)) args else names(workloads)
stopifnot(all(selected %in% names(workloads)))
rscript <- file.path(R.home("bin"), "Rscript")
scratch <- tempfile("krein-compare-")
dir.create(scratch)

cat(sprintf("old: %s\nnew: %s\nbest of %d alternating runs per build\n\n", libraries[["old"]],
            libraries[["new"]], repeats))
cat(sprintf("%-24s %9s %9s %9s  %s\n", "workload", "old (s)", "new (s)", "new/old", "same results?"))
rows <- list()
for (name in selected) {
  times <- matrix(NA_real_, repeats, 2, dimnames = list(NULL, names(libraries)))
  files <- character(2)
  names(files) <- names(libraries)
  for (r in seq_len(repeats)) for (version in names(libraries)) {
    files[[version]] <- file.path(scratch, sprintf("%s-%s.rds", name, version))
    out <- system2(rscript, c(shQuote(script), "--child", name, shQuote(files[[version]])),
                   stdout = TRUE, stderr = TRUE, env = paste0("R_LIBS=", libraries[[version]]))
    line <- grep("^TIME ", out, value = TRUE)
    from <- sub("^FROM ", "", grep("^FROM ", out, value = TRUE))
    if (length(line) != 1L || !startsWith(normalizePath(from), normalizePath(libraries[[version]])))
      stop(sprintf("%s (%s) failed or loaded krein from elsewhere:\n%s", name, version, paste(out, collapse = "\n")))
    times[r, version] <- as.numeric(sub("^TIME ", "", line))
  }
  best <- apply(times, 2, min)
  same <- agreement(readRDS(files[["old"]]), readRDS(files[["new"]]))
  flag <- if (best[["new"]] / best[["old"]] > 1.10) "  <- SLOWER beyond noise? rerun; fix or explain" else ""
  cat(sprintf("%-24s %9.3f %9.3f %9.2f  %s%s\n", name, best[["old"]], best[["new"]],
              best[["new"]] / best[["old"]], same, flag))
  cat(sprintf("%-24s   runs old: %s; new: %s\n", "", paste(sprintf("%.3f", times[, "old"]), collapse = " "),
              paste(sprintf("%.3f", times[, "new"]), collapse = " ")))
  rows[[name]] <- data.frame(workload = name, what = workloads[[name]]$what, old = best[["old"]],
                             new = best[["new"]], ratio = best[["new"]] / best[["old"]], same = same)
}
results <- do.call(rbind, rows)
rownames(results) <- NULL
cat("\nFor the note (markdown):\n\n| workload | old | new | new/old | same results? |\n|---|---|---|---|---|\n")
cat(sprintf("| %s | %.3f s | %.3f s | %.2f | %s |\n", results$what, results$old, results$new, results$ratio,
            results$same), sep = "")
invisible(results)
