#' Reference classifiers of Pekalska and Haasdonk: IKNN, IKPCA-QD and ISVM
#'
#' The classifiers Pekalska & Haasdonk compare their kernel quadratic
#' discriminants with (Pekalska and Haasdonk 2009, Secs. IV-E and V, Table
#' III), for positive definite and indefinite kernels alike, with
#' krein's kernels and interfaces so that they can be tuned and compared with
#' [tune_krein()].
#'
#' * `iknn()`: \eqn{k} nearest neighbours in the kernel-induced distance
#'   \eqn{d^2(x, x') = k(x, x) - 2 k(x, x') + k(x', x')} (Sec. IV-E), valid
#'   for indefinite kernels, where \eqn{d^2} may be negative: neighbours are
#'   still the points with the smallest \eqn{d^2}. For a Gaussian kernel it
#'   is ordinary \eqn{k}-NN in the input space (\eqn{d^2 = 2 - 2e^{-\gamma
#'   \|x - x'\|^2}} is increasing in \eqn{\|x - x'\|}). The class is the
#'   majority vote; ties go to the tied class with the nearest neighbour.
#'   Probabilities are the vote shares.
#' * `ikpca_qd()`: indefinite kernel PCA (Appendix I-E): the centred kernel
#'   \eqn{\tilde K = H K H = Q \Lambda Q'}, components by decreasing
#'   \eqn{|\lambda|} until they hold the share `pvar` of \eqn{\sum |\lambda|},
#'   the map \eqn{\psi(x) = |\Lambda|^{-1/2} Q' \tilde k_x}; then Gaussian
#'   quadratic discriminant analysis there with maximum-likelihood class
#'   covariances shrunk towards a multiple of the identity, \eqn{(1 - \alpha)
#'   C_j + \alpha (\mathrm{tr} C_j / p) I} with \eqn{\alpha} = `reg` (the
#'   regularisation of PRTools' `qdc`, which the paper used), and the class
#'   proportions as priors.
#' * `isvm()`: a support vector machine on the precomputed (possibly
#'   indefinite) kernel matrix through [kernlab::ksvm()] (`kernel =
#'   "matrix"`, one-vs-one, Platt probabilities); needs kernlab.
#'
#' @inheritParams kqd
#' @param k Number of neighbours, a whole number between 1 and the number of
#'   training points.
#' @param pvar Share of the absolute eigenvalue mass kept by the indefinite
#'   kernel PCA, in \eqn{(0, 1]} (the paper uses 0.8).
#' @param reg Shrinkage of the class covariances in `ikpca_qd()`, in \eqn{[0,
#'   1]}.
#' @param C The cost of constraint violation of the SVM.
#' @param probability Fit kernlab's Platt probability model (an inner
#'   cross-validation, a few seconds per fit) so that `predict(type =
#'   "prob")` works; `FALSE` for class predictions only, e.g. when tuning `C`
#'   by error with [tune_krein()].
#' @returns A fit of class `c("iknn", "krein_model")`, `c("ikpca_qd",
#'   "krein_model")` or `c("isvm", "krein_model")` with `predict(type =
#'   c("class", "prob"))` and `print()` methods.
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (Sections, equations and tables are cited
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#' @family reference classifiers
#' @examples
#' set.seed(1)
#' train <- checkerboard(200, size = 3)
#' test <- checkerboard(500, size = 3)
#' kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
#' knn <- iknn(y ~ ., data = train, kernel = kernel, k = 5)
#' mean(predict(knn, test) != test$y)
#' pca <- ikpca_qd(y ~ ., data = train, kernel = kernel, pvar = 0.8, reg = 0.1)
#' pca
#' mean(predict(pca, test) != test$y)
#' @name reference_classifiers
NULL

#' @rdname reference_classifiers
#' @export
iknn <- function(x, ...) UseMethod("iknn")

#' @rdname reference_classifiers
#' @export
iknn.formula <- function(formula, data, subset, na.action, kernel = kernel_rbf(), ...) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel)
  fit <- iknn_fit(inputs, ...)
  fit$call <- match.call()
  fit
}

#' @rdname reference_classifiers
#' @export
iknn.default <- function(x, y, kernel = kernel_rbf(), k = 1, na.action = NULL, threads = NULL, ...) {
  inputs <- inputs_from_xy(x, y, kernel, na.action)
  fit <- iknn_fit(inputs, k = k, threads = threads)
  fit$call <- match.call()
  fit
}

iknn_fit <- function(inputs, k = 1, threads = NULL) {
  n <- length(inputs$y)
  k <- check_number(k, "k", lower = 1, upper = n, allow_lower = TRUE, integer = TRUE)
  threads <- check_threads(threads)
  self <- if (is.null(inputs$x)) inputs$precomputed$self else kernel_self(inputs$kernel, inputs$x)
  if (is.null(self)) {
    krein_abort("`x` must carry the self-similarities k(x, x) of the training points for iknn(): pass precomputed_kernel(K, self = ...).")
  }
  structure(
    list(k = k, y = inputs$y, levels = levels(inputs$y), self = self, x = inputs$x,
         K = if (is.null(inputs$x)) inputs$precomputed$K, kernel = inputs$kernel, spec = inputs$spec,
         threads = threads, na_action = inputs$na_action),
    class = c("iknn", "krein_model")
  )
}

#' @rdname reference_classifiers
#' @param object A fit.
#' @param newdata New data in the form the model was fitted on; missing: the
#'   training data.
#' @param type `"class"` or `"prob"`.
#' @export
predict.iknn <- function(object, newdata, type = c("class", "prob"), ...) {
  type <- match_choice(type, "type", c("class", "prob"))
  if (missing(newdata) || is.null(newdata)) {
    K <- if (is.null(object$x)) object$K else evaluate_kernel(object$kernel, object$x, NULL, object$threads)
    self <- object$self
    names <- rownames(object$x)
  } else {
    kernels <- new_data_kernels(object, newdata, need_self = TRUE)
    K <- kernels$K
    self <- kernels$self
    names <- kernels$names
  }
  d2 <- self - 2 * K + rep(object$self, each = nrow(K))
  iknn_vote(d2, object$y, object$k, type, names)
}

iknn_vote <- function(d2, y, k, type, names) {
  levels <- levels(y)
  labels <- as.integer(y)
  votes <- matrix(0, nrow(d2), length(levels), dimnames = list(names, levels))
  first <- matrix(Inf, nrow(d2), length(levels))
  for (i in seq_len(nrow(d2))) {
    nearest <- order(d2[i, ])[seq_len(k)]
    cls <- labels[nearest]
    votes[i, ] <- tabulate(cls, length(levels))
    # rank of each class's nearest neighbour, for ties
    first[i, ] <- vapply(seq_along(levels), function(j) {
      hit <- which(cls == j)
      if (length(hit)) hit[1] else Inf
    }, numeric(1))
  }
  if (type == "prob") return(votes / k)
  top <- votes == apply(votes, 1, max)
  first[!top] <- Inf
  stats::setNames(factor(levels[max.col(-first, ties.method = "first")], levels = levels), names)
}

#' @export
print.iknn <- function(x, ...) {
  cat("Kernel ", x$k, "-nearest neighbours (IKNN), ", length(x$levels), " classes, ", length(x$y),
      " training points\n", sep = "")
  cat("  kernel: ", kernel_description(x$kernel), "\n", sep = "")
  invisible(x)
}

#' @rdname reference_classifiers
#' @export
ikpca_qd <- function(x, ...) UseMethod("ikpca_qd")

#' @rdname reference_classifiers
#' @export
ikpca_qd.formula <- function(formula, data, subset, na.action, kernel = kernel_rbf(), ...) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel)
  fit <- ikpca_qd_fit(inputs, ...)
  fit$call <- match.call()
  fit
}

#' @rdname reference_classifiers
#' @export
ikpca_qd.default <- function(x, y, kernel = kernel_rbf(), pvar = 0.8, reg = 0.01, na.action = NULL,
                             threads = NULL, ...) {
  inputs <- inputs_from_xy(x, y, kernel, na.action)
  fit <- ikpca_qd_fit(inputs, pvar = pvar, reg = reg, threads = threads)
  fit$call <- match.call()
  fit
}

ikpca_qd_fit <- function(inputs, pvar = 0.8, reg = 0.01, threads = NULL) {
  pvar <- check_number(pvar, "pvar", lower = 0, upper = 1)
  reg <- check_number(reg, "reg", lower = 0, upper = 1, allow_lower = TRUE)
  threads <- check_threads(threads)
  y <- inputs$y
  levels <- levels(y)
  counts <- stats::setNames(as.vector(table(y)), levels)
  check_two_per_class(counts, "ikpca_qd()")
  K <- training_kernel(inputs, threads)
  n <- nrow(K)
  column_means <- colMeans(K)
  total_mean <- mean(column_means)
  centred <- double_center(K)  # H K H (indefiniteness.R)
  e <- cpp_symmetric_eigen((centred + t(centred)) / 2, TRUE)
  magnitude <- abs(e$values)
  kept_order <- order(magnitude, decreasing = TRUE)
  nonzero <- kept_order[magnitude[kept_order] > max(magnitude) * n * .Machine$double.eps]
  share <- cumsum(magnitude[nonzero]) / sum(magnitude[nonzero])
  p <- which(share >= pvar - 1e-12)[1]
  keep <- nonzero[seq_len(p)]
  projection <- e$vectors[, keep, drop = FALSE] / rep(sqrt(magnitude[keep]), each = n)
  Z <- centred %*% projection
  classes <- lapply(levels, function(l) {
    Zl <- Z[y == l, , drop = FALSE]
    m <- colMeans(Zl)
    C <- crossprod(Zl - rep(m, each = nrow(Zl))) / nrow(Zl)
    C <- (1 - reg) * C + reg * (sum(diag(C)) / p) * diag(p)
    R <- tryCatch(chol(C), error = function(e) {
      krein_abort(sprintf("The covariance of class \"%s\" in the kernel PCA space is singular; use a larger `reg`.", l))
    })
    list(mean = m, factor = R, logdet = 2 * sum(log(diag(R))))
  })
  structure(
    list(pvar = pvar, reg = reg, ncomp = p, share = share[p], values = e$values[keep],
         signature = c(p = sum(e$values[keep] > 0), q = sum(e$values[keep] < 0)),
         projection = projection, column_means = column_means, total_mean = total_mean,
         classes = classes, prior = counts / sum(counts), levels = levels, counts = counts,
         y = y, x = inputs$x, kernel = inputs$kernel, spec = inputs$spec, threads = threads,
         na_action = inputs$na_action, training_scores = Z),
    class = c("ikpca_qd", "krein_model")
  )
}

#' @rdname reference_classifiers
#' @export
predict.ikpca_qd <- function(object, newdata, type = c("class", "prob"), ...) {
  type <- match_choice(type, "type", c("class", "prob"))
  if (missing(newdata) || is.null(newdata)) {
    Z <- object$training_scores
    names <- rownames(object$x)
  } else {
    kernels <- new_data_kernels(object, newdata)
    K <- kernels$K
    # centre the new kernel rows as the training kernel was: H(k_x - K 1 / n)
    row_means <- rowMeans(K)
    centred <- K - rep(object$column_means, each = nrow(K)) - row_means + object$total_mean
    Z <- centred %*% object$projection
    names <- kernels$names
  }
  g <- vapply(object$classes, function(cl) {
    z <- backsolve(cl$factor, t(Z) - cl$mean, transpose = TRUE)
    -0.5 * colSums(z^2) - 0.5 * cl$logdet
  }, numeric(nrow(Z)))
  if (is.null(dim(g))) g <- matrix(g, nrow = 1L)
  g <- g + rep(log(object$prior), each = nrow(g))
  dimnames(g) <- list(names, object$levels)
  if (type == "prob") return(softmax_rows(g))
  stats::setNames(class_from_decisions(g, object$levels), names)
}

#' @export
print.ikpca_qd <- function(x, ...) {
  cat("Quadratic discriminant in the indefinite kernel PCA space (IKPCA-QD), ", length(x$levels),
      " classes, ", sum(x$counts), " training points\n", sep = "")
  cat("  kernel: ", kernel_description(x$kernel), "\n", sep = "")
  cat(sprintf("  %d components (%d positive, %d negative eigenvalues) with %.1f%% of the absolute eigenvalue mass (pvar = %g); reg = %g\n",
              x$ncomp, x$signature[["p"]], x$signature[["q"]], 100 * x$share, x$pvar, x$reg))
  invisible(x)
}

#' @rdname reference_classifiers
#' @export
isvm <- function(x, ...) UseMethod("isvm")

#' @rdname reference_classifiers
#' @export
isvm.formula <- function(formula, data, subset, na.action, kernel = kernel_rbf(), ...) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel)
  fit <- isvm_fit(inputs, ...)
  fit$call <- match.call()
  fit
}

#' @rdname reference_classifiers
#' @export
isvm.default <- function(x, y, kernel = kernel_rbf(), C = 1, probability = TRUE, na.action = NULL,
                         threads = NULL, ...) {
  inputs <- inputs_from_xy(x, y, kernel, na.action)
  fit <- isvm_fit(inputs, C = C, probability = probability, threads = threads)
  fit$call <- match.call()
  fit
}

isvm_fit <- function(inputs, C = 1, probability = TRUE, threads = NULL) {
  if (!requireNamespace("kernlab", quietly = TRUE)) {
    krein_abort("isvm() needs the kernlab package: install.packages(\"kernlab\").")
  }
  C <- check_number(C, "C", lower = 0)
  probability <- check_flag(probability, "probability")
  threads <- check_threads(threads)
  K <- training_kernel(inputs, threads)
  # kernlab's probability model (Platt's sigmoid fit) prints "line search
  # fails" to the console on separable folds; keep its lines in the fit
  # instead. Without shrinking: with a precomputed kernel and a large C,
  # kernlab's shrinking heuristic ends far from the optimum after many
  # iterations (at C = 1e4 on 100 banana points an objective of -9.8e6 in 19 s
  # instead of -2.0e4 in 0.01 s, the optimum kernlab's own RBF kernel and
  # libsvm reach).
  model <- NULL
  console <- utils::capture.output(
    model <- kernlab::ksvm(kernlab::as.kernelMatrix(K), inputs$y, kernel = "matrix", C = C,
                           prob.model = probability, shrinking = FALSE))
  sv <- sort(unique(kernlab::SVindex(model)))
  structure(
    list(model = model, support = sv, C = C, levels = levels(inputs$y), y = inputs$y,
         kernlab_output = console, probability = probability,
         training_x = inputs$x,
         counts = stats::setNames(as.vector(table(inputs$y)), levels(inputs$y)),
         x = if (!is.null(inputs$x)) inputs$x[sv, , drop = FALSE], kernel = inputs$kernel,
         spec = inputs$spec, threads = threads, na_action = inputs$na_action,
         training_K = K[, sv, drop = FALSE]),
    class = c("isvm", "krein_model")
  )
}

#' @rdname reference_classifiers
#' @export
predict.isvm <- function(object, newdata, type = c("class", "prob"), ...) {
  type <- match_choice(type, "type", c("class", "prob"))
  if (missing(newdata) || is.null(newdata)) {
    K <- object$training_K
    names <- NULL
  } else {
    new <- new_inputs(object$spec, newdata)
    K <- new_kernel_matrix(object$spec, new, points = object$x, columns = object$support,
                           threads = object$threads)
    names <- rownames(new$x %||% new$K)
  }
  # kernlab's predict for kernel = "matrix" takes the columns of the support vectors
  K_sv <- kernlab::as.kernelMatrix(K[, match(kernlab::SVindex(object$model), object$support), drop = FALSE])
  if (type == "prob") {
    if (!object$probability) {
      krein_abort("This isvm() fit has no probability model; refit with `probability = TRUE` for type = \"prob\".")
    }
    p <- kernlab::predict(object$model, K_sv, type = "probabilities")
    p <- p[, object$levels, drop = FALSE]
    dimnames(p) <- list(names, object$levels)
    return(p)
  }
  out <- kernlab::predict(object$model, K_sv, type = "response")
  stats::setNames(factor(as.character(out), levels = object$levels), names)
}

#' @export
print.isvm <- function(x, ...) {
  cat("Support vector machine on the kernel matrix (ISVM, kernlab), ", length(x$levels), " classes, ",
      sum(x$counts), " training points, ", length(x$support), " support vectors\n", sep = "")
  cat("  kernel: ", kernel_description(x$kernel), ", C = ", format(x$C), "\n", sep = "")
  invisible(x)
}

#' Plot a reference classifier
#'
#' For two input columns, the decision regions over the plane with the
#' training points (as Pekalska and Haasdonk 2009, Fig. 2, draw IKNN and
#' IKPCA-QD); otherwise
#' the training points' class probabilities, against each other.
#'
#' @param x A fit of [iknn()], [ikpca_qd()] or [isvm()].
#' @param resolution Grid points along each axis.
#' @param main The title; `NULL` for one naming the classifier and its parameter.
#' @param ... Passed to [graphics::image()] (two inputs) or
#'   [graphics::pairs()].
#' @returns `x`, invisibly.
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (Sections, equations and tables are cited
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#' @family reference classifiers
#' @examples
#' set.seed(1)
#' board <- checkerboard(100)
#' plot(iknn(y ~ ., data = board, kernel = kernel_rbf(2), k = 3))
#' @name plot.reference_classifiers
#' @export
plot.iknn <- function(x, resolution = 120L, main = NULL, ...) {
  plot_classifier(x, x$x, x$y, main %||% sprintf("IKNN, k = %d", x$k), resolution, ...)
}

#' @rdname plot.reference_classifiers
#' @export
plot.ikpca_qd <- function(x, resolution = 120L, main = NULL, ...) {
  plot_classifier(x, x$x, x$y, main %||% sprintf("IKPCA-QD, %d components", x$ncomp), resolution, ...)
}

#' @rdname plot.reference_classifiers
#' @export
plot.isvm <- function(x, resolution = 120L, main = NULL, ...) {
  plot_classifier(x, x$training_x, x$y, main %||% sprintf("ISVM, C = %s", format(x$C)), resolution, ...)
}

# Decision regions of any fit with a predict() method that takes a data frame of
# the two input columns; class probabilities of the training points when the
# inputs are not two columns (or the kernel was precomputed).
plot_classifier <- function(fit, x, y, main, resolution = 120L, ...) {
  resolution <- check_number(resolution, "resolution", lower = 2, integer = TRUE)
  if (!is.null(x) && ncol(x) == 2L) {
    plot_decision_regions(x, y, function(grid) stats::predict(fit, grid, type = "class"),
                          resolution = resolution, main = main, ...)
    return(invisible(fit))
  }
  p <- stats::predict(fit, type = "prob")
  col <- hcl.colors(length(fit$levels), "Dark 3")[as.integer(y)]
  if (ncol(p) == 2L) {
    graphics::plot(seq_len(nrow(p)), p[, 2], col = col, pch = 19, xlab = "training point",
                   ylab = paste0("P(", fit$levels[2], " | x)"), main = main, ...)
    graphics::abline(h = 0.5, lty = 2)
  } else {
    graphics::pairs(p, col = col, pch = 19, main = main, labels = paste("P(", colnames(p), ")"), ...)
  }
  invisible(fit)
}
