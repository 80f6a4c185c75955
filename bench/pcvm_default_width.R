# Benchmark: the default PCVM (pcvm(y ~ ., data), every argument at its
# default) on banana(N) against e1071::svm() with its defaults (probability
# = TRUE), both tested on banana(5000) drawn apart, for several seeds; issue
# 47's target: the PCVM's test error within 1.3 times the SVM's. The lines
# say whether a pair's width was narrowed (see ?pcvm, The default kernel).
# Run from the checkout's root after installing krein:
#   Rscript bench/pcvm_default_width.R [N] [seeds]   (default 10000, 1:3)
suppressPackageStartupMessages(library(krein))
options(krein.threads = 2)
arguments <- commandArgs(trailingOnly = TRUE)
n <- if (length(arguments) >= 1) as.numeric(arguments[1]) else 1e4
seeds <- if (length(arguments) >= 2) eval(parse(text = arguments[2])) else 1:3
for (seed in seeds) {
  set.seed(seed)
  train <- banana(n)
  set.seed(1000 + seed)
  test <- banana(5000)
  svm_time <- system.time(svm <- e1071::svm(y ~ ., train, probability = TRUE))[["elapsed"]]
  svm_error <- mean(predict(svm, test) != test$y)
  notes <- character()
  pcvm_time <- system.time(fit <- withCallingHandlers(pcvm(y ~ ., train), warning = function(w) {
    notes <<- c(notes, conditionMessage(w))
    invokeRestart("muffleWarning")
  }))[["elapsed"]]
  pcvm_error <- mean(predict(fit, test) != test$y)
  model <- fit$models[[1]]
  cat(sprintf("N = %d, seed %d: svm %.4f (%.1f s), pcvm %.4f (%.1f s), ratio %.2f; gamma %s; %d relevance vectors%s\n",
              n, seed, svm_error, svm_time, pcvm_error, pcvm_time, pcvm_error / svm_error,
              if (is.null(model$narrowed)) format(fit$spec$kernel$params$gamma, digits = 3) else
                sprintf("%s -> %s", format(model$narrowed$gamma, digits = 3), format(model$kernel$params$gamma, digits = 3)),
              length(model$relevant), if (length(notes)) paste0("; warnings: ", paste(notes, collapse = " | ")) else ""))
}
