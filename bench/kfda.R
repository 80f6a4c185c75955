# Benchmark: kfda() with the random-subset reduction at the size of paper 003's
# Example 5 (Adult: 30,148 training and 15,074 test points, 1-2% of the
# points as bases), against the by-hand route R users take today:
# kernlab::kpca followed by MASS::lda, timed at the largest N it finishes in
# 60 s. Run from the checkout's root after installing krein:
#   Rscript bench/kfda.R
# Prints:
#   1. kfda(reduce = "subset", bases = 2%) at N = 30,000 (15,000 test points):
#      fit and predict times, test error.
#   2. kernlab::kpca (600 features) + MASS::lda, fit + predict of the same
#      test points, at N = 1000, 2000, ... until a run exceeds 60 s; krein's
#      kfda (subset 2%, and pca with the same 600 components where possible)
#      at the same N in the same process, and the ratio.
#   3. kfda(reduce = "pca", ncomp = 50) on checkerboard() at N = 2000 and 5000
#      (fit + predict of 1000 test points): the partial spectrum (block
#      Lanczos, the default) against the full SVD of krein <= 0.1.0
#      (krein's internal kfda_pca_method() replaced for that run) and, at
#      N = 2000, against
#      kernlab::kpca(features = 50) + MASS::lda, with the ratios and the
#      largest difference of the posteriors between the two krein routes.
# KREIN_BENCH_KFDA_PARTS=3 runs only part 3 (default: 1,2,3).
library(krein)
# KREIN_BENCH_THREADS sets krein's threads (default 2)
options(krein.threads = as.integer(Sys.getenv("KREIN_BENCH_THREADS", "2")))

# Adult-like generated data: 14 inputs, two classes of about 24% / 76%
# separated by a nonlinear boundary with label noise.
adult_like <- function(n) {
  x <- matrix(stats::rnorm(n * 14), n, 14)
  score <- x[, 1] * x[, 2] + sin(2 * x[, 3]) + 0.5 * x[, 4]^2 - 0.4 * x[, 5] + 0.3 * stats::rnorm(n)
  y <- factor(ifelse(score > stats::quantile(score, 0.76), ">50K", "<=50K"))
  list(x = x, y = y)
}

parts <- as.integer(strsplit(Sys.getenv("KREIN_BENCH_KFDA_PARTS", "1,2,3"), ",")[[1]])
gamma <- 0.05
set.seed(1)
test <- adult_like(15000)
if (1 %in% parts) {

cat("== 1. kfda(reduce = \"subset\", bases = 2%), N = 30,000, 15,000 test points\n")
train <- adult_like(30000)
fit_time <- system.time(fit <- kfda(train$x, train$y, kernel = kernel_rbf(gamma), reduce = "subset",
                                    bases = 0.02))[["elapsed"]]
predict_time <- system.time(predicted <- predict(fit, test$x))[["elapsed"]]
cat(sprintf("bases %d, fit %.2f s, predict %.2f s, total %.2f s, test error %.4f (majority class %.4f)\n",
            fit$ncomp, fit_time, predict_time, fit_time + predict_time, mean(predicted != test$y),
            mean(test$y != "<=50K")))
big_total <- fit_time + predict_time
}

if (2 %in% parts) {
cat("\n== 2. kernlab::kpca + MASS::lda at the largest N within 60 s, krein at the same N\n")
if (!requireNamespace("kernlab", quietly = TRUE)) stop("install kernlab to run part 2")
kernlab_route <- function(train, test, features) {
  kp <- kernlab::kpca(train$x, kernel = "rbfdot", kpar = list(sigma = gamma), features = features)
  model <- MASS::lda(kernlab::rotated(kp), train$y)
  predict(model, kernlab::predict(kp, test$x))$class
}
cat(sprintf("%6s %12s %10s %12s %10s %12s %10s %8s\n", "N", "kernlab (s)", "error", "kfda pca (s)",
            "error", "kfda rs (s)", "error", "ratio"))
last <- NULL
for (N in seq(1000, 10000, by = 1000)) {
  set.seed(N)
  train <- adult_like(N)
  features <- min(600, N - 10)
  kt <- system.time(kclass <- kernlab_route(train, test, features))[["elapsed"]]
  pt <- system.time({
    f <- kfda(train$x, train$y, kernel = kernel_rbf(gamma), ncomp = features)
    pclass <- predict(f, test$x)
  })[["elapsed"]]
  rt <- system.time({
    f <- kfda(train$x, train$y, kernel = kernel_rbf(gamma), reduce = "subset", bases = 0.02)
    rclass <- predict(f, test$x)
  })[["elapsed"]]
  cat(sprintf("%6d %12.2f %10.4f %12.2f %10.4f %12.2f %10.4f %8.1f\n", N, kt, mean(kclass != test$y), pt,
              mean(pclass != test$y), rt, mean(rclass != test$y), kt / pt))
  if (kt > 60) break
  last <- c(N = N, kernlab = kt, error = mean(kclass != test$y))
}
cat(sprintf("\nlargest N for kernlab::kpca + MASS::lda within 60 s: %d (%.1f s, test error %.4f)\n",
            last[["N"]], last[["kernlab"]], last[["error"]]))
cat(sprintf("kfda subset 2%% at N = 30,000: %.1f s, test error %.4f -- %.0fx the data in %.2f of the time\n",
            big_total, mean(predicted != test$y), 30000 / last[["N"]], big_total / last[["kernlab"]]))
}

if (3 %in% parts) {
cat("\n== 3. kfda(reduce = \"pca\", ncomp = 50) on checkerboard(): partial spectrum, full SVD, kernlab + MASS\n")
pca_method <- get("kfda_pca_method", envir = asNamespace("krein"))
route_pca <- function(train, test, method) {
  utils::assignInNamespace("kfda_pca_method", function() method, "krein")
  on.exit(utils::assignInNamespace("kfda_pca_method", pca_method, "krein"))
  fit <- kfda(y ~ ., data = train, reduce = "pca", ncomp = 50)
  list(prob = predict(fit, test, type = "prob"), fit = fit)
}
route_kernlab <- function(train, test, sigma) {
  x <- as.matrix(train[c("x1", "x2")])
  kp <- kernlab::kpca(x, kernel = "rbfdot", kpar = list(sigma = sigma), features = 50)
  model <- MASS::lda(kernlab::rotated(kp), train$y)
  predict(model, kernlab::predict(kp, as.matrix(test[c("x1", "x2")])))$class
}
cat(sprintf("%6s %10s %10s %12s %12s %14s %12s %10s\n", "N", "partial", "full SVD", "kpca + lda",
            "SVD/partial", "kpca/partial", "max |dprob|", "error"))
for (N in c(2000, 5000)) {
  set.seed(N)
  train <- checkerboard(N)
  test3 <- checkerboard(1000)
  tp <- system.time(partial <- route_pca(train, test3, "auto"))[["elapsed"]]
  ts <- system.time(full <- route_pca(train, test3, "svd"))[["elapsed"]]
  # the same kernel width as krein's fit (kernlab's rbfdot: exp(-sigma ||x - u||^2))
  sigma <- partial$fit$spec$kernel$params$gamma
  tk <- if (N <= 2000 && requireNamespace("kernlab", quietly = TRUE)) {
    system.time(kclass <- route_kernlab(train, test3, sigma))[["elapsed"]]
  } else NA_real_
  cat(sprintf("%6d %9.2fs %9.2fs %12s %12.1f %14s %12.1e %10.4f\n", N, tp, ts,
              if (is.na(tk)) "-" else sprintf("%.2fs", tk), ts / tp, if (is.na(tk)) "-" else sprintf("%.1f", tk / tp),
              max(abs(partial$prob - full$prob)),
              mean(levels(test3$y)[max.col(partial$prob)] != test3$y)))
  cat(sprintf("       partial spectrum: %s\n", paste(names(partial$fit$spectrum),
              vapply(partial$fit$spectrum, function(v) format(v, digits = 3), ""), sep = " = ", collapse = ", ")))
}
}
