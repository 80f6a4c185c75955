# Benchmark: kernel matrices of 5000 points in 10 dimensions for every kernel
# family, and the cross-kernel of 1e6 points against 300.
#
# One build (the installed krein), against kernlab in the same process:
#   Rscript bench/kernel_matrix.R
# Two builds, alternating in child processes (each child also times kernlab,
# so every run has its own krein / kernlab ratio), e.g. against the reference
# commit of bench/README.md:
#   KREIN_LIB_OLD=/tmp/lib-old KREIN_LIB_NEW=/tmp/lib-new Rscript bench/kernel_matrix.R [rounds]
# (rounds: old, new, old, new, ...; default 2). The children also hash each
# matrix's bytes, and the driver says whether the two builds' matrices are
# bitwise the same.
#
# Prints, best of `KREIN_BENCH_REPEATS` runs (default 7; 3 for the cross-kernel):
#   1. each family at 2 threads and at 1 thread, and the speedup
#   2. krein's RBF and polynomial matrices against kernlab::kernelMatrix
#      (target for RBF at 2 threads: >= 4x kernlab)
#   3. the invariant kernel's 2-thread speedup (compute-bound, target >= 1.6);
#      the RBF's is reported (largely memory-bound)
n <- 5000
d <- 10
cross_n <- 1e6
cross_m <- 300
gamma <- 0.05
repeats <- as.integer(Sys.getenv("KREIN_BENCH_REPEATS", "7"))

families <- list(
  rbf = list(label = "RBF, gamma = 0.05",
             kernel = function() krein::kernel_rbf(gamma),
             kernlab = function() kernlab::rbfdot(sigma = gamma)),
  poly = list(label = "polynomial, degree 3, scale 0.1, offset 1",
              kernel = function() krein::kernel_poly(degree = 3, scale = 0.1, offset = 1),
              kernlab = function() kernlab::polydot(degree = 3, scale = 0.1, offset = 1)),
  dist = list(label = "distance, s = 3, power = 1.5",
              kernel = function() krein::kernel_dist(s = 3, power = 1.5)),
  invariant = list(label = "invariant, dist(s = 1, power = 4), tau(x) = -x",
                   kernel = function() krein::kernel_invariant(krein::kernel_dist(s = 1, power = 4))),
  elm = list(label = "ELM, sigma2 = 1",
             kernel = function() krein::kernel_elm(sigma2 = 1)),
  cross = list(label = sprintf("RBF cross-kernel, %g x %d points", cross_n, cross_m),
               kernel = function() krein::kernel_rbf(gamma), cross = TRUE)
)

# MD5 of a matrix's doubles, column block by column block (no copy of the whole).
matrix_md5 <- function(K) {
  file <- tempfile()
  con <- file(file, "wb")
  step <- max(1L, floor(4e6 / nrow(K)))
  for (j in seq(1L, ncol(K), by = step)) writeBin(as.vector(K[, j:min(ncol(K), j + step - 1L)]), con)
  close(con)
  on.exit(unlink(file))
  unname(tools::md5sum(file))
}

# Time the competitors of one family alternately, so that all see the same
# machine load, and keep the best (least disturbed) run of each.
time_family <- function(family, x, y, reps) {
  runs <- list(two = function() krein::kernel_matrix(family$kernel(), x, y, threads = 2),
               one = function() krein::kernel_matrix(family$kernel(), x, y, threads = 1))
  if (!is.null(family$kernlab)) {
    runs$kernlab <- function() kernlab::kernelMatrix(family$kernlab(), x, y)
    reference <- runs$two()
    stopifnot(max(abs(reference - unclass(runs$kernlab()))) < 1e-12 * max(1, max(abs(reference))))
    rm(reference)
  }
  times <- matrix(NA_real_, reps, length(runs), dimnames = list(NULL, names(runs)))
  for (r in seq_len(reps)) for (run in names(runs)) {
    gc()
    times[r, run] <- system.time(runs[[run]]())[["elapsed"]]
  }
  best <- apply(times, 2, min)
  K <- runs$two()
  list(two = best[["two"]], one = best[["one"]],
       kernlab = if (is.null(family$kernlab)) NA_real_ else best[["kernlab"]], md5 = matrix_md5(K))
}

measure <- function() {
  if (!requireNamespace("kernlab", quietly = TRUE)) stop("install.packages(\"kernlab\") first")
  set.seed(1)
  x <- matrix(rnorm(n * d), n, d)
  rows <- list()
  for (name in names(families)) {
    family <- families[[name]]
    if (isTRUE(family$cross)) {
      set.seed(2)
      big <- matrix(rnorm(cross_n * d), cross_n, d)
      res <- time_family(family, big, big[seq_len(cross_m), ], min(repeats, 3L))
      rm(big)
    } else {
      res <- time_family(family, x, NULL, repeats)
    }
    rows[[name]] <- data.frame(family = name, two = res$two, one = res$one, kernlab = res$kernlab,
                               md5 = res$md5)
  }
  do.call(rbind, rows)
}

print_one <- function(tab, title) {
  cat(title, "\n")
  cat(sprintf("  %-10s %9s %9s %8s %9s %10s\n", "family", "2 thr (s)", "1 thr (s)", "1 / 2",
              "kernlab", "kernlab/2"))
  for (i in seq_len(nrow(tab))) {
    cat(sprintf("  %-10s %9.3f %9.3f %8.2f %9s %10s\n", tab$family[i], tab$two[i], tab$one[i],
                tab$one[i] / tab$two[i],
                if (is.na(tab$kernlab[i])) "" else sprintf("%.3f", tab$kernlab[i]),
                if (is.na(tab$kernlab[i])) "" else sprintf("%.1fx", tab$kernlab[i] / tab$two[i])))
  }
}

targets <- function(tab) {
  rbf <- tab[tab$family == "rbf", ]
  inv <- tab[tab$family == "invariant", ]
  cat(sprintf("  RBF: krein (2 threads) is %.1fx faster than kernlab::kernelMatrix (target >= 4)\n",
              rbf$kernlab / rbf$two))
  cat(sprintf("  invariant kernel: speedup 2 threads over 1 %.2f (target >= 1.6)\n", inv$one / inv$two))
}

args <- commandArgs(trailingOnly = TRUE)
if (length(args) == 2L && args[1] == "--child") {
  saveRDS(measure(), args[2])
  quit(save = "no")
}
libraries <- c(old = Sys.getenv("KREIN_LIB_OLD"), new = Sys.getenv("KREIN_LIB_NEW"))
if (!all(nzchar(libraries))) {
  tab <- measure()
  print_one(tab, sprintf("kernel matrices, n = %d, d = %d, best of %d runs (cross-kernel: of %d)", n, d,
                         repeats, min(repeats, 3L)))
  targets(tab)
  quit(save = "no")
}

# ---- two builds, alternating in child processes ----
stopifnot(all(dir.exists(file.path(libraries, "krein"))))
rounds <- if (length(args)) as.integer(args[1]) else 2L
script <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
rscript <- file.path(R.home("bin"), "Rscript")
results <- list()
for (r in seq_len(rounds)) for (version in names(libraries)) {
  file <- tempfile(fileext = ".rds")
  status <- system2(rscript, c(shQuote(script), "--child", shQuote(file)),
                    env = paste0("R_LIBS=", libraries[[version]]))
  if (status != 0L || !file.exists(file)) stop(sprintf("the %s build's run %d failed", version, r))
  tab <- readRDS(file)
  print_one(tab, sprintf("%s build (%s), round %d, best of %d runs", version, libraries[[version]], r, repeats))
  targets(tab)
  results[[version]] <- c(results[[version]], list(tab))
}
best <- lapply(results, function(tabs) {
  out <- tabs[[1]]
  for (column in c("two", "one", "kernlab")) {
    out[[column]] <- apply(sapply(tabs, `[[`, column), 1, min)
  }
  out
})
cat(sprintf("\nbest over %d rounds: new / old (below 1: the new build is faster)\n", rounds))
cat(sprintf("  %-10s %9s %9s %8s %9s %9s %8s  %s\n", "family", "old 2 thr", "new 2 thr", "new/old",
            "old 1 thr", "new 1 thr", "new/old", "bitwise the same?"))
for (i in seq_len(nrow(best$old))) {
  o <- best$old[i, ]
  w <- best$new[i, ]
  cat(sprintf("  %-10s %9.3f %9.3f %8.2f %9.3f %9.3f %8.2f  %s\n", o$family, o$two, w$two, w$two / o$two,
              o$one, w$one, w$one / o$one, if (identical(o$md5, w$md5)) "yes" else "NO"))
}
