#' Kernel Mahalanobis distances
#'
#' The squared Mahalanobis distances of points to each class in the feature
#' space of a kernel, after Haasdonk and Pekalska (2010): for an invertible
#' covariance (eq. 4),
#' \deqn{d_{IC}^2(x) = n \tilde k_x' (\tilde K^-)^2 \tilde k_x,}
#' with \eqn{\tilde K^-} the pseudo-inverse treating eigenvalues below
#' \eqn{\alpha} = `reg` as zero, and for a regularised covariance \eqn{C +
#' \sigma^2 I} (eq. 7),
#' \deqn{d_{RC}^2(x) = \frac{1}{\sigma^2}\left(\tilde k_{xx} - \tilde k_x'
#' (\tilde K + n \sigma^2 I)^{-1} \tilde k_x\right),}
#' with \eqn{\sigma^2} = `reg`. These are the distances of [kqd()]'s IC- and RC+
#' variants. With a single class they are one-class novelty scores. For an
#' indefinite kernel the Krein-space forms of Pekalska and Haasdonk (2009) are
#' used (see [kqd()],
#' `indefinite = "auto"`).
#'
#' Both distances are invariant to adding a constant to the kernel (a
#' translation in feature space) and to scaling kernel and `reg` together by
#' the same factor (Haasdonk and Pekalska 2010, Sec. 5).
#'
#' @inheritParams kqd
#' @param type `"RC"` or `"IC"`.
#' @param reg \eqn{\sigma^2} (RC) or \eqn{\alpha} (IC): one positive number, or
#'   one per class.
#' @param newdata The points to measure (as for [predict.kqd()]); missing: the
#'   training points.
#' @param indefinite As in [kqd()].
#' @returns A matrix with one row per point of `newdata` and one column per
#'   class.
#' @references
#' Haasdonk, B. and Pekalska, E. (2010). Classification with kernel
#' Mahalanobis distance classifiers. In *Advances in Data Analysis, Data
#' Handling and Business Intelligence*, Springer.
#' \doi{10.1007/978-3-642-01044-6_32}.
#'
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (Sections, equations and tables are cited
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#' @family kernel quadratic discriminants
#' @examples
#' # Haasdonk and Pekalska (2010), Fig. 2: the XOR problem
#' xor <- xor4()
#' kernel_mahalanobis(xor[, 1:2], xor$y, kernel_rbf(1), type = "IC", reg = 1e-4)
#' kernel_mahalanobis(xor[, 1:2], xor$y, kernel_rbf(1), type = "RC", reg = 1)
#' @export
kernel_mahalanobis <- function(x, y, kernel = kernel_rbf(), type = c("RC", "IC"), reg = NULL,
                               newdata = NULL, indefinite = c("auto", "yes", "no"),
                               threads = NULL) {
  type <- match_choice(type, "type", c("RC", "IC"))
  inputs <- inputs_from_xy(x, y, kernel, NULL, min_classes = 1L)
  fit <- kqd_fit(inputs, variant = if (type == "RC") "RC+" else "IC-",
                 reg = per_class_reg(reg, nlevels(inputs$y)),
                 indefinite = indefinite, bias = "none", threads = threads)
  stats::predict(fit, newdata, type = "distance")
}

# One regularisation value, or one per class (a one-row kqd path); kqd_fit()
# validates the values themselves.
per_class_reg <- function(reg, n_classes) {
  if (is.null(reg) || (length(reg) == 1L && !is.matrix(reg))) return(reg)
  if (is.matrix(reg) || length(reg) != n_classes) {
    krein_abort(sprintf("`reg` must be one number or one per class (%d), not %s.", n_classes,
                        describe_value(reg)))
  }
  matrix(reg, nrow = 1L)
}

#' Kernel Mahalanobis distance classifiers
#'
#' The FD/QD-IC/RC classifiers of Haasdonk and Pekalska (2010, Sec. 3.3): every
#' point is mapped to the
#' \eqn{c}-dimensional space of its squared kernel Mahalanobis distances to
#' the classes ([kernel_mahalanobis()]), where a Fisher (`"lda"`,
#' [MASS::lda()]) or quadratic (`"qda"`, [MASS::qda()]) discriminant is
#' trained. This uses the between-class information the class-wise distances
#' lack; KQD itself is a line parallel to the diagonal in that space for two
#' classes.
#'
#' @inheritParams kernel_mahalanobis
#' @param distance `"RC"` or `"IC"`.
#' @param classifier `"lda"` or `"qda"`.
#' @param ... Passed to [MASS::lda()] or [MASS::qda()].
#' @returns An object of class `c("kmdc", "krein_model")` with the distance
#'   model (`distances`, a [kqd()] fit) and the discriminant (`discriminant`).
#' @references
#' Haasdonk, B. and Pekalska, E. (2010). Classification with kernel
#' Mahalanobis distance classifiers. In *Advances in Data Analysis, Data
#' Handling and Business Intelligence*, Springer.
#' \doi{10.1007/978-3-642-01044-6_32}.
#' @family kernel quadratic discriminants
#' @examples
#' set.seed(1)
#' train <- gaussian_mixture_2d(100)
#' fit <- kmdc(train[, 1:2], train$y, kernel_rbf(1), distance = "RC", classifier = "qda")
#' test <- gaussian_mixture_2d(200)
#' mean(predict(fit, test[, 1:2]) != test$y)
#' @export
kmdc <- function(x, y, kernel = kernel_rbf(), distance = c("RC", "IC"),
                 classifier = c("lda", "qda"), reg = NULL, indefinite = c("auto", "yes", "no"),
                 threads = NULL, ...) {
  distance <- match_choice(distance, "distance", c("RC", "IC"))
  classifier <- match_choice(classifier, "classifier", c("lda", "qda"))
  inputs <- inputs_from_xy(x, y, kernel, NULL)
  model <- kqd_fit(inputs, variant = if (distance == "RC") "RC+" else "IC-",
                   reg = per_class_reg(reg, nlevels(inputs$y)),
                   indefinite = indefinite, bias = "none", threads = threads)
  d <- stats::predict(model, type = "distance")
  colnames(d) <- paste0("d2_", seq_len(ncol(d)))
  discriminant <- tryCatch(
    if (classifier == "lda") MASS::lda(d, inputs$y, ...) else MASS::qda(d, inputs$y, ...),
    error = function(e) krein_abort(sprintf("The %s in the distance space failed: %s", classifier, conditionMessage(e))))
  structure(list(distances = model, discriminant = discriminant, distance = distance,
                 classifier = classifier, levels = levels(inputs$y)),
            class = c("kmdc", "krein_model"))
}

#' @rdname kmdc
#' @param object A `kmdc` fit.
#' @param newdata New data, as for [predict.kqd()].
#' @param type `"class"` or `"prob"`.
#' @export
predict.kmdc <- function(object, newdata, type = c("class", "prob"), ...) {
  type <- match_choice(type, "type", c("class", "prob"))
  d <- stats::predict(object$distances, newdata, type = "distance")
  colnames(d) <- paste0("d2_", seq_len(ncol(d)))
  p <- stats::predict(object$discriminant, d)
  if (type == "class") return(factor(as.character(p$class), levels = object$levels))
  p$posterior[, object$levels, drop = FALSE]
}

#' Plot a kernel Mahalanobis distance classifier
#'
#' For two input columns, the decision regions over the plane with the
#' training points; otherwise the training points in the space of their
#' squared distances to the classes, where the classifier of [kmdc()] works
#' (Haasdonk and Pekalska 2010, Sec. 3.3).
#'
#' @param x A [kmdc()] fit.
#' @param resolution Grid points along each axis.
#' @param main The title; `NULL` for one naming the classifier and its `reg`.
#' @param ... Passed to [graphics::image()] or [graphics::pairs()].
#' @returns `x`, invisibly.
#' @references
#' Haasdonk, B. and Pekalska, E. (2010). Classification with kernel
#' Mahalanobis distance classifiers. In *Advances in Data Analysis, Data
#' Handling and Business Intelligence*, Springer.
#' \doi{10.1007/978-3-642-01044-6_32}.
#' @family kernel quadratic discriminants
#' @examples
#' set.seed(1)
#' train <- gaussian_mixture_2d(100)
#' plot(kmdc(train[, 1:2], train$y, kernel_rbf(1), distance = "RC", classifier = "qda"))
#' @export
plot.kmdc <- function(x, resolution = 120L, main = NULL, ...) {
  distances <- x$distances
  main <- main %||% sprintf("%s-%s, reg = %s", if (x$classifier == "lda") "FD" else "QD",
                            x$distance, format_reg_row(distances$reg[1, ]))
  y <- factor(x$levels[class_labels(distances$core$classes, distances$spec$n_train)], levels = x$levels)
  if (!is.null(distances$x) && ncol(distances$x) == 2L) {
    return(plot_classifier(x, distances$x, y, main, resolution, ...))
  }
  # the training points in the space of their class-wise distances: what
  # plot() of the underlying kqd fit draws for inputs other than two columns
  plot(distances, main = main, ...)
  invisible(x)
}

#' @export
print.kmdc <- function(x, ...) {
  cat(if (x$classifier == "lda") "FD" else "QD", "-", x$distance,
      " kernel Mahalanobis distance classifier, ", length(x$levels), " classes\n", sep = "")
  invisible(x)
}
