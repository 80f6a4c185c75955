# The Nystroem Krein SVM at scale (issue 26): krein_svm(landmarks = ) on the
# 4 x 4 checkerboard with the invariant distance kernel of Pekalska and
# Haasdonk (2009, Sec. V-B), kernel_invariant(kernel_dist(s = 1, power = 4)),
# which is indefinite; against the full krein_svm() where that fits (N =
# 5000), and alone at N = 1e5. Test error on 20,000 fresh points of the same
# board. C = 10 for every fit (the full model's cross-validation of C would
# cost 20 eigendecompositions of 4000 x 4000 kernels), no Platt model unless
# said; random landmarks (stratified). Two threads.
# Parts: "medium" (the first 2000 training points: full and Nystroem),
# "small" (5000: the full KSVM's eigendecomposition alone took more than 8
# minutes of CPU on the shared 2-core machine) and "large" (1e5, Nystroem).
# Run from the checkout's root after installing krein (with kernlab and
# LiblineaR): Rscript bench/krein_svm.R [medium | small | large]
library(krein)
for (pkg in c("kernlab", "LiblineaR")) {
  if (!requireNamespace(pkg, quietly = TRUE)) stop("bench/krein_svm.R needs the ", pkg, " package")
}
options(krein.threads = 2)
part <- commandArgs(trailingOnly = TRUE)
if (!length(part)) part <- c("medium", "small", "large")
kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
set.seed(1)
train <- checkerboard(5000)
test <- checkerboard(20000)
rows <- list()
run <- function(n, label, m, expr) {
  time <- system.time(fit <- expr)
  # elapsed and CPU (user + system, both threads) seconds: on a loaded
  # machine the elapsed time is the CPU time stretched by the other processes
  rows[[length(rows) + 1L]] <<- data.frame(n = n, model = label, landmarks = m,
                                           test_error = mean(predict(fit, test) != test$y),
                                           seconds = time[["elapsed"]],
                                           cpu_seconds = time[["user.self"]] + time[["sys.self"]])
  print(rows[[length(rows)]], row.names = FALSE)
}

# the full KSVM beside Nystroem ones on the first n training points
compare_with_full <- function(n) {
  data <- train[seq_len(n), ]
  for (m in c(100, 200)) {
    set.seed(2)
    run(n, "krein_svm (Nystroem)", m, krein_svm(y ~ x1 + x2, data = data, kernel = kernel, C = 10,
                                               landmarks = "random", m = m, probability = FALSE))
  }
  run(n, "krein_svm (full)", NA, krein_svm(y ~ x1 + x2, data = data, kernel = kernel, C = 10,
                                          probability = FALSE))
}
if ("medium" %in% part) compare_with_full(2000)
if ("small" %in% part) compare_with_full(5000)
if ("large" %in% part) {
  set.seed(4)
  large <- checkerboard(1e5)
  for (m in c(100, 200)) {
    set.seed(5)
    run(1e5, "krein_svm (Nystroem)", m, krein_svm(y ~ x1 + x2, data = large, kernel = kernel, C = 10,
                                                 landmarks = "random", m = m, probability = FALSE))
  }
  set.seed(5)
  run(1e5, "krein_svm (Nystroem, Platt probabilities)", 200,
      krein_svm(y ~ x1 + x2, data = large, kernel = kernel, C = 10, landmarks = "random", m = 200))
}
print(do.call(rbind, rows), row.names = FALSE)
