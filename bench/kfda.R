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
library(krein)
options(krein.threads = 2)

# Adult-like generated data: 14 inputs, two classes of about 24% / 76%
# separated by a nonlinear boundary with label noise.
adult_like <- function(n) {
  x <- matrix(stats::rnorm(n * 14), n, 14)
  score <- x[, 1] * x[, 2] + sin(2 * x[, 3]) + 0.5 * x[, 4]^2 - 0.4 * x[, 5] + 0.3 * stats::rnorm(n)
  y <- factor(ifelse(score > stats::quantile(score, 0.76), ">50K", "<=50K"))
  list(x = x, y = y)
}

gamma <- 0.05
set.seed(1)
test <- adult_like(15000)

cat("== 1. kfda(reduce = \"subset\", bases = 2%), N = 30,000, 15,000 test points\n")
train <- adult_like(30000)
fit_time <- system.time(fit <- kfda(train$x, train$y, kernel = kernel_rbf(gamma), reduce = "subset",
                                    bases = 0.02))[["elapsed"]]
predict_time <- system.time(predicted <- predict(fit, test$x))[["elapsed"]]
cat(sprintf("bases %d, fit %.2f s, predict %.2f s, total %.2f s, test error %.4f (majority class %.4f)\n",
            fit$ncomp, fit_time, predict_time, fit_time + predict_time, mean(predicted != test$y),
            mean(test$y != "<=50K")))
big_total <- fit_time + predict_time

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
