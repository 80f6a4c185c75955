# PCVM's stopping rule on real data: the default (`convergence = "latent"`,
# the training latent values move by at most 3e-4 relative, at most 2000
# iterations) against the reference code's rule (`convergence = "weights"`,
# no weight moves by 1e-3 or more, at most 500 iterations), on Sonar,
# Ionosphere, Glass, BreastCancer (mlbench), iris and musk (kernlab): default
# kernel (Gaussian, median-heuristic width),
# formula interface, unscaled inputs, `na.action = na.omit`. 5-fold
# cross-validation, the same folds and the same EM start (seed) for both
# rules. Run from the checkout's root after installing krein:
#   Rscript bench/pcvm_convergence.R
# (PCVM_RULES and PCVM_SETS, comma-separated, select rules and data sets.)
# Prints per data set and rule: the CV accuracy (correct over all test
# points, %), the fits that reached max_iter (with a warning), the mean and
# largest number of EM iterations over all pairwise models, and the total fit
# time.
library(krein)
stopifnot(requireNamespace("mlbench", quietly = TRUE), requireNamespace("kernlab", quietly = TRUE))

data_sets <- local({
  e <- new.env()
  utils::data(Sonar, Ionosphere, Glass, BreastCancer, package = "mlbench", envir = e)
  utils::data(musk, package = "kernlab", envir = e)
  # Ionosphere's V2 is a factor with a single level, which model.matrix()
  # rejects; BreastCancer's Id is a sample code. Both leave the data (a
  # formula that leaves them out still keeps them in the model frame)
  ionosphere <- e$Ionosphere
  ionosphere$V2 <- NULL
  breast_cancer <- e$BreastCancer
  breast_cancer$Id <- NULL
  # its nine scores (1-10) are factors; a test fold can hold a score its
  # training folds lack, which predict() rejects: the scores as numbers
  scores <- setdiff(names(breast_cancer), "Class")
  breast_cancer[scores] <- lapply(breast_cancer[scores], function(v) as.numeric(as.character(v)))
  list(Sonar = list(data = e$Sonar, formula = Class ~ .),
       Ionosphere = list(data = ionosphere, formula = Class ~ .),
       Glass = list(data = e$Glass, formula = Type ~ .),
       BreastCancer = list(data = breast_cancer, formula = Class ~ .),
       iris = list(data = datasets::iris, formula = Species ~ .),
       musk = list(data = e$musk, formula = Class ~ .))
})

# PCVM_RULES="latent" (or "weights") runs one rule only
rules <- strsplit(Sys.getenv("PCVM_RULES", "weights,latent"), ",")[[1]]
sets <- strsplit(Sys.getenv("PCVM_SETS", paste(names(data_sets), collapse = ",")), ",")[[1]]
folds <- 5
rows <- list()
for (name in sets) {
  set <- data_sets[[name]]
  response <- all.vars(set$formula)[1]
  set.seed(1)
  fold_of <- sample(rep(seq_len(folds), length.out = nrow(set$data)))
  for (rule in rules) {
    correct <- tested <- warned <- seconds <- 0
    iterations <- integer()
    for (k in seq_len(folds)) {
      train <- set$data[fold_of != k, ]
      test <- stats::na.omit(set$data[fold_of == k, ])
      set.seed(k)
      warnings <- 0
      seconds <- seconds + system.time(fit <- withCallingHandlers(
        pcvm(set$formula, data = train, na.action = stats::na.omit,
             control = pcvm_control(convergence = rule)),
        warning = function(w) { warnings <<- warnings + 1; invokeRestart("muffleWarning") }))[["elapsed"]]
      warned <- warned + (warnings > 0)
      iterations <- c(iterations, vapply(fit$models, `[[`, integer(1), "iterations"))
      correct <- correct + sum(predict(fit, test) == test[[response]])
      tested <- tested + nrow(test)
    }
    rows[[length(rows) + 1]] <- row <- data.frame(
      data = name, convergence = rule, accuracy = round(100 * correct / tested, 2),
      warned = sprintf("%d of %d", warned, folds), mean_iter = round(mean(iterations)),
      max_iter = max(iterations), seconds = round(seconds, 1))
    print(row, row.names = FALSE)
  }
}
results <- do.call(rbind, rows)
cat("\n")
print(results, row.names = FALSE)
