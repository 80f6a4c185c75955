# Benchmark: every krein model with its default arguments on eight real data
# sets, beside kernlab::ksvm, e1071::svm, MASS::lda and MASS::qda with their
# defaults, all in the same process. Test accuracy on a fixed 70/30 split
# (set.seed(1) before sampling; the same split for every method) and the time
# of fit + prediction. Run from the checkout's root after installing krein:
#   Rscript bench/real_data.R
# Needs mlbench, kernlab and e1071. Prints (in markdown) one table of
# accuracies and one of times (seconds), data sets in rows, methods in
# columns; "-" marks a method that failed, and the warnings and errors of each
# fit are listed after the tables.
#
# Data sets (formula interface; factor columns dummy-coded by model.matrix):
#   Sonar, Ionosphere (V2, a factor with one level, dropped), Glass,
#   BreastCancer (Id dropped, rows with missing values dropped by
#   na.action = na.omit), iris, promotergene (edit distances between the DNA
#   strings, through kernel_from_dissimilarity(); the competitors and onda,
#   which work on data only, get the dummy-coded bases), spam (2000 random
#   rows), Vowel.
#
# Then the targets of issue 30, defaults only: kqd, kmdc, ikfd, pcvm, kfda
# and isvm within 5 points of e1071::svm's accuracy on every set; onda, iknn
# and ikpca_qd within 10; no model at or below the majority class.
library(krein)
for (p in c("mlbench", "kernlab", "e1071")) {
  if (!requireNamespace(p, quietly = TRUE)) stop("bench/real_data.R needs the ", p, " package")
}

# KREIN_BENCH_SETS: a comma-separated list of data sets (default the eight
# below; four held-out sets are available by name, see `held_out`);
# KREIN_BENCH_SPLIT: the seed of the 70/30 split (default 1, the table of
# bench/README.md); KREIN_BENCH_MODELS: a comma-separated list of methods to
# run (default all; e.g. "pcvm,e1071::svm"), so that one model's change can
# be measured without the others.
split_seed <- as.integer(Sys.getenv("KREIN_BENCH_SPLIT", "1"))
only_methods <- strsplit(Sys.getenv("KREIN_BENCH_MODELS", ""), ",")[[1]]

split_rows <- function(n, seed = split_seed) {
  set.seed(seed)
  train <- sort(sample.int(n, round(0.7 * n)))
  list(train = train, test = setdiff(seq_len(n), train))
}

e <- new.env()
utils::data("Sonar", "Ionosphere", "Glass", "BreastCancer", "Vowel", package = "mlbench", envir = e)
utils::data("promotergene", "spam", package = "kernlab", envir = e)
ionosphere <- e$Ionosphere
ionosphere$V2 <- NULL
breast <- e$BreastCancer
breast$Id <- NULL
breast <- stats::na.omit(breast)
set.seed(1)
spam <- e$spam[sort(sample.int(nrow(e$spam), 2000)), ]
promoter <- e$promotergene
dna <- apply(as.matrix(promoter[, -1]), 1, paste, collapse = "")

sets <- list(
  Sonar = list(data = e$Sonar, formula = Class ~ .),
  Ionosphere = list(data = ionosphere, formula = Class ~ .),
  Glass = list(data = e$Glass, formula = Type ~ .),
  BreastCancer = list(data = breast, formula = Class ~ ., na_action = stats::na.omit),
  iris = list(data = datasets::iris, formula = Species ~ .),
  promotergene = list(data = promoter, formula = Class ~ ., D = utils::adist(dna)),
  spam = list(data = spam, formula = type ~ .),
  Vowel = list(data = e$Vowel, formula = Class ~ .)
)
# Four more sets, held out: not used when the defaults were chosen (issue
# 30), to check that the targets hold beyond the eight above. Run them by
# name: KREIN_BENCH_SETS="Satellite,Vehicle,HouseVotes84,musk".
more <- new.env()
utils::data("Satellite", "Vehicle", "HouseVotes84", package = "mlbench", envir = more)
utils::data("musk", package = "kernlab", envir = more)
set.seed(2)
satellite <- more$Satellite[sort(sample.int(nrow(more$Satellite), 1500)), ]
held_out <- list(
  Satellite = list(data = satellite, formula = classes ~ .),
  Vehicle = list(data = more$Vehicle, formula = Class ~ .),
  HouseVotes84 = list(data = stats::na.omit(more$HouseVotes84), formula = Class ~ .),
  musk = list(data = more$musk, formula = Class ~ .)
)
chosen_sets <- strsplit(Sys.getenv("KREIN_BENCH_SETS", ""), ",")[[1]]
if (length(chosen_sets)) {
  all_sets <- c(sets, held_out)
  unknown <- setdiff(chosen_sets, names(all_sets))
  if (length(unknown)) stop("unknown KREIN_BENCH_SETS: ", paste(unknown, collapse = ", "))
  sets <- all_sets[chosen_sets]
}

# The competitors get the model matrix of the formula (no intercept), as
# krein's formula methods build it.
design <- function(formula, data) {
  x <- stats::model.matrix(formula, data)
  x[, colnames(x) != "(Intercept)", drop = FALSE]
}

competitors <- list(
  `kernlab::ksvm` = function(x, y, x_test) kernlab::predict(kernlab::ksvm(x, y), x_test),
  `e1071::svm` = function(x, y, x_test) stats::predict(e1071::svm(x, y), x_test),
  `MASS::lda` = function(x, y, x_test) stats::predict(MASS::lda(x, y), x_test)$class,
  `MASS::qda` = function(x, y, x_test) stats::predict(MASS::qda(x, y), x_test)$class
)

run_method <- function(method, set) {
  data <- set$data
  s <- split_rows(nrow(data))
  response <- all.vars(set$formula)[1]
  truth <- data[[response]][s$test]
  warnings <- character()
  elapsed <- system.time(predicted <- withCallingHandlers(
    tryCatch({
      if (method %in% names(competitors)) {
        x <- design(set$formula, data)
        competitors[[method]](x[s$train, , drop = FALSE], data[[response]][s$train], x[s$test, , drop = FALSE])
      } else if (!is.null(set$D) && method != "onda") {
        fit <- get(method)(kernel_from_dissimilarity(set$D[s$train, s$train]), data[[response]][s$train])
        predict(fit, set$D[s$test, s$train])
      } else {
        fit <- get(method)(set$formula, data = data[s$train, ])
        predict(fit, data[s$test, ])
      }
    }, error = function(e) {
      warnings <<- c(warnings, paste("ERROR:", conditionMessage(e)))
      NULL
    }),
    warning = function(w) {
      warnings <<- c(warnings, conditionMessage(w))
      invokeRestart("muffleWarning")
    },
    message = function(m) invokeRestart("muffleMessage")))[["elapsed"]]
  accuracy <- if (is.null(predicted)) NA else mean(as.character(predicted) == as.character(truth))
  list(accuracy = accuracy, time = elapsed, warnings = unique(warnings))
}

methods <- c(krein_models()$model, names(competitors))
if (length(only_methods)) {
  unknown <- setdiff(only_methods, methods)
  if (length(unknown)) stop("unknown KREIN_BENCH_MODELS: ", paste(unknown, collapse = ", "))
  methods <- intersect(methods, only_methods)
}
accuracy <- matrix(NA_real_, length(sets), length(methods), dimnames = list(names(sets), methods))
time <- accuracy
majority <- setNames(numeric(length(sets)), names(sets))
notes <- character()
for (set_name in names(sets)) {
  set <- sets[[set_name]]
  s <- split_rows(nrow(set$data))
  y <- set$data[[all.vars(set$formula)[1]]]
  majority[set_name] <- mean(y[s$test] == names(which.max(table(y[s$train]))))
  for (method in methods) {
    r <- run_method(method, set)
    accuracy[set_name, method] <- r$accuracy
    time[set_name, method] <- r$time
    if (length(r$warnings)) {
      notes <- c(notes, sprintf("%s / %s: %s", set_name, method, paste(r$warnings, collapse = " | ")))
    }
  }
}

# Tables in markdown, as bench/README.md keeps them; "-" marks a failed fit.
markdown_table <- function(m, digits) {
  cells <- ifelse(is.na(m), "-", formatC(m, format = "f", digits = digits))
  cat("| data set | ", paste(colnames(m), collapse = " | "), " |\n", sep = "")
  cat("|---|", strrep("---|", ncol(m)), "\n", sep = "")
  for (i in seq_len(nrow(m))) cat("| ", rownames(m)[i], " | ", paste(cells[i, ], collapse = " | "), " |\n", sep = "")
}

sizes <- vapply(sets, function(s) sprintf("%d x %d, %d classes", nrow(s$data), ncol(s$data) - 1L,
                                          nlevels(factor(s$data[[all.vars(s$formula)[1]]]))), "")
cat("krein", as.character(utils::packageVersion("krein")), "with its defaults;", R.version.string, "\n")
cat(sprintf("Data sets (rows x columns, classes; 70/30 split, set.seed(%d)); majority = test share of the", split_seed),
    "training majority class:\n")
print(data.frame(size = sizes, majority = round(majority, 3)))
cat("\nTest accuracy:\n\n")
markdown_table(cbind(majority = majority, accuracy), 3)
cat("\nFit + predict time (s):\n\n")
markdown_table(time, 2)
if (length(notes)) {
  cat("\nWarnings and errors:\n")
  cat(paste0("  ", notes), sep = "\n")
}

# ---- the targets (issue 30) ----
within <- c(kqd = 5, kmdc = 5, ikfd = 5, pcvm = 5, kfda = 5, isvm = 5, onda = 10, iknn = 10, ikpca_qd = 10)
cat("\nTargets, defaults only: points below e1071::svm on the worst set (target), sets at or below",
    "the majority class:\n\n")
cat("| model | worst gap to svm (points) | on | target | sets at or below majority | met |\n")
cat("|---|---|---|---|---|---|\n")
for (model in intersect(intersect(krein_models()$model, names(within)), methods)) {
  if (!"e1071::svm" %in% methods) break
  gap <- 100 * (accuracy[, "e1071::svm"] - accuracy[, model])
  gap[is.na(gap)] <- Inf
  worst <- which.max(gap)
  low <- names(which(is.na(accuracy[, model]) | accuracy[, model] <= majority))
  met <- gap[worst] <= within[[model]] && !length(low)
  cat(sprintf("| %s | %.1f | %s | %d | %s | %s |\n", model, gap[worst], names(gap)[worst], within[[model]],
              if (length(low)) paste(low, collapse = ", ") else "none", if (met) "yes" else "**no**"))
}
