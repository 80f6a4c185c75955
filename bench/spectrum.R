# Which remedy for an indefinite kernel? Cross-validated error of the
# spectrum corrections (clip, flip, shift, square; Chen et al. 2009), of the
# Krein-space SVM (Loosli, Canu & Ong 2016) and of krein's indefinite models
# on the raw kernel, on three data sets with indefinite similarities:
#
# * checkerboard: 300 points of the 4 x 4 checkerboard with the invariant
#   distance kernel of paper 000, Sec. V-B (kernel_invariant(kernel_dist(s =
#   1, power = 4))), on the scaled coordinates;
# * promotergene: kernlab's 106 DNA sequences, the kernel of their edit
#   distances (utils::adist()) by classical scaling (kernel_from_dissimilarity());
# * balls: the ball data of paper 002, Sec. 4.3 (ball_dissimilarities(), 200
#   balls), by classical scaling.
#
# Each row is a model with a remedy; the error is the best 10-fold
# cross-validated error over the model's grid (C for the SVMs, the relative
# ridge for ikfd, reg for kqd), with the same stratified folds for every row
# of a data set, and the correction done inside each fold: the fold's
# training kernel is corrected and its held-out rows mapped as Chen et al.
# define it (the `spectrum` argument). Time: the whole grid's
# cross-validation, seconds. Run from the checkout's root after installing
# krein: Rscript bench/spectrum.R
library(krein)
if (!requireNamespace("kernlab", quietly = TRUE)) stop("bench/spectrum.R needs the kernlab package")
options(krein.threads = 2)

set.seed(1)
board <- checkerboard(300)
x_board <- scale(as.matrix(board[, c("x1", "x2")]))
K_board <- precomputed_kernel(kernel_matrix(kernel_invariant(kernel_dist(s = 1, power = 4)), x_board))
e <- new.env()
utils::data("promotergene", package = "kernlab", envir = e)
dna <- apply(as.matrix(e$promotergene[, -1]), 1, paste, collapse = "")
K_promoter <- kernel_from_dissimilarity(utils::adist(dna), method = "classical")
set.seed(2018)
balls <- ball_dissimilarities(n_per_class = 100)
K_balls <- kernel_from_dissimilarity(balls$D, method = "classical")

sets <- list(checkerboard = list(K = K_board, y = board$y),
             promotergene = list(K = K_promoter, y = e$promotergene$Class),
             balls = list(K = K_balls, y = balls$y))

costs <- 10^(-1:3)
rows <- list(
  list(label = "isvm", model = isvm, grid = list(C = costs), spectra = c("none", "clip", "flip", "shift", "square")),
  list(label = "krein_svm", model = krein_svm, grid = list(C = costs), spectra = "none"),
  list(label = "ikfd", model = ikfd, grid = list(ridge_relative = 10^seq(-8, -2, by = 2)),
       spectra = c("none", "clip", "flip")),
  list(label = "kqd RC+", model = kqd, grid = list(reg = 10^seq(-4, 2, by = 2)), spectra = c("none", "clip", "flip"),
       fixed = list(variant = "RC+"))
)

results <- list()
for (set in names(sets)) {
  s <- sets[[set]]
  ind <- indefiniteness(s$K)
  cat(sprintf("%s: n = %d, signature (p, q, z) = (%d, %d, %d), r_neg = %.3f\n", set, length(s$y),
              ind$signature[["p"]], ind$signature[["q"]], ind$signature[["z"]], ind$r_neg))
  for (row in rows) {
    for (spectrum in row$spectra) {
      grid <- c(row$grid, list(spectrum = spectrum))
      set.seed(1)
      time <- system.time(tuned <- suppressWarnings(do.call(
        tune_krein, c(list(row$model, s$K, s$y, grid = grid, folds = 10, refit = FALSE),
                      row$fixed, if (row$label %in% c("isvm", "krein_svm")) list(probability = FALSE)))))[["elapsed"]]
      best <- tuned$results[which.min(tuned$results$mean), ]
      results[[length(results) + 1L]] <- data.frame(
        data = set, model = row$label, spectrum = spectrum, error = best$mean, sd = best$sd,
        seconds = time, stringsAsFactors = FALSE)
      cat(sprintf("  %-10s %-7s error %.3f (sd %.3f)  %.1f s\n", row$label, spectrum, best$mean,
                  best$sd, time))
    }
  }
}
table <- do.call(rbind, results)
wide <- reshape(table[, c("data", "model", "spectrum", "error")], idvar = c("model", "spectrum"),
                timevar = "data", direction = "wide")
names(wide) <- sub("^error\\.", "", names(wide))
cat("\n| model | spectrum |", paste(names(sets), collapse = " | "), "|\n")
cat("|---|---|", paste(rep("---", length(sets)), collapse = "|"), "|\n", sep = "")
for (i in seq_len(nrow(wide))) {
  cat("|", wide$model[i], "|", wide$spectrum[i], "|",
      paste(sprintf("%.3f", unlist(wide[i, names(sets)])), collapse = " | "), "|\n")
}
