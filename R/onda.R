#' Optimum nonlinear discriminant analysis
#'
#' ONDA of Otsu as developed by Hidaka and Kurita (2016): the mapping that
#' maximises Fisher's
#' discriminant criterion over all nonlinear maps is a linear combination of
#' the Bayesian posteriors, \eqn{y = U' B(x)} with \eqn{B(x) = (P(C_1 | x),
#' \dots, P(C_K | x))'} (eqs. 13, 19-20). Each way of estimating the
#' posteriors gives a nonlinear discriminant analysis: Gaussian classes
#' (Gaussian NDA, eqs. 30-33), the best linear approximation (which is
#' Fisher's LDA, eqs. 21-29), an SVM with pairwise coupling (SVM NDA, eq.
#' 34), or any classifier that gives posteriors.
#'
#' @section The eigenproblem:
#' With priors \eqn{\psi = (P(C_1), \dots, P(C_K))'} and \eqn{\Psi =
#' \mathrm{diag}(\psi)} (eq. 17), \eqn{\Gamma} (eq. 15) is the sample average
#' over the training points of \eqn{(B(x_i) - \psi)(B(x_i) - \psi)'}, and
#' \eqn{\Gamma U = \Psi U \Lambda} (eq. 14) is solved in its symmetric form
#' \eqn{(\Psi^{-1/2} \Gamma \Psi^{-1/2}) \tilde U = \tilde U \Lambda}, \eqn{U =
#' \Psi^{-1/2} \tilde U} (eqs. 35-36), so \eqn{U' \Psi U = I}. Posteriors sum
#' to one, so \eqn{\Gamma} has rank at most \eqn{K - 1}: `dim` is at most
#' \eqn{K - 1} (the default). The training points map into a \eqn{(K -
#' 1)}-dimensional simplex (Figs. 2-3).
#'
#' @section Classification:
#' `predict(type = "class")` assigns the class whose mean (over its
#' training points) is nearest in the discriminant space, as the paper's
#' Table 2 does. The paper leaves the scale of each discriminant direction
#' implicit, so distances are measured in the pooled within-class metric of
#' the mapped training points (Mahalanobis; Euclidean once each direction is
#' scaled to unit within-class variance): the rule then does not depend on
#' how \eqn{U} is normalised, and for `posterior = "linear"` it is the
#' nearest-mean rule of [MASS::lda()]'s discriminant space. When the classes
#' have no spread there (ideal posteriors), the metric is Euclidean.
#'
#' @section Posterior estimators:
#' * `"gaussian"`: class-conditional Gaussians with maximum-likelihood means
#'   and covariances \eqn{\Sigma_k = n_k^{-1} \sum (x_i - \bar x_k)(x_i - \bar
#'   x_k)'} (eq. 31), priors `prior`: eq. (33), the posteriors of
#'   `MASS::qda(method = "mle")`. A singular class covariance gets a ridge
#'   \eqn{r I}: `ridge` if given, else \eqn{10^{-6}} times the mean variance
#'   of the inputs with a warning; the fit reports it as `ridge`.
#' * `"linear"`: the least-squares linear approximation \eqn{L(C_k | x) =
#'   P(C_k) [(\bar x_k - \bar x_T)' \Sigma_T^{-1} (x - \bar x_T) + 1]} (eq.
#'   23) with the total covariance \eqn{\Sigma_T} of eq. (11) (denominator
#'   \eqn{n}). Its values sum to 1 but may leave \eqn{[0, 1]}; ONDA with it is
#'   FLDA (eqs. 25-29).
#' * `"svm"`: the posteriors of a multi-class SVM by pairwise coupling (Wu,
#'   Lin & Weng; libsvm `-b 1` in the paper), through
#'   `e1071::svm(probability = TRUE)` with `svm_kernel`, `cost` and any other
#'   argument of [e1071::svm()] in `svm_args`. Needs the e1071 package. Its
#'   internal cross-validation draws from R's RNG, so `set.seed()` reproduces
#'   it.
#' * a function `function(x_train, y_train, x_new)` returning an
#'   \eqn{n_{new} \times K} matrix of posteriors (columns in the order of the
#'   levels of `y`, or named by them); it is called once for the training
#'   points and once for each `predict()`. Rows must be finite and sum to 1.
#' * a fitted model whose `predict(model, newdata, type = "prob")` gives such
#'   a matrix -- any krein classifier, for example: it is called with the
#'   training data in the form given to `onda()` and with each `newdata`.
#'
#' @param x A numeric matrix or data frame of inputs (formula interface:
#'   `formula`, `data`, `subset`, `na.action` as in [krein_inputs]).
#' @param y Class labels, one per row.
#' @param posterior `"gaussian"`, `"linear"`, `"svm"`, a function or a fitted
#'   model (see Posterior estimators).
#' @param dim Dimension of the discriminant space, at most \eqn{K - 1};
#'   `NULL` for \eqn{K - 1}.
#' @param prior Class priors in the order of the levels; `NULL` for the class
#'   proportions (as the paper uses).
#' @param ridge For `"gaussian"`: a ridge added to singular class
#'   covariances (`NULL`: see Posterior estimators); a number applies to all
#'   classes.
#' @param svm_kernel,cost,svm_args For `"svm"`: the kernel and cost of
#'   [e1071::svm()] and a list of further arguments (e.g. `list(gamma =
#'   0.5)`).
#' @param formula,data,subset,na.action The formula interface (see
#'   [krein_inputs]).
#' @param ... Passed from the formula method to the default method.
#' @returns An object of class `c("onda", "krein_model")`: a list with
#'   `posterior` (the estimator's name), `U` (\eqn{K \times} `dim`), `values`
#'   (the eigenvalues \eqn{\Lambda}, all \eqn{K} of them), `Gamma`, `prior`,
#'   `levels`, `counts`, `class_means` (class means in the discriminant
#'   space), `ridge`, `training_error` and what prediction and
#'   [kernel_discriminant()] need.
#' @references
#' Hidaka, A. and Kurita, T. (2016). Optimum nonlinear discriminant analysis
#' and discriminant kernel support vector machine. *IEICE Transactions on
#' Information and Systems*. \doi{10.1587/transinf.2016EDP7081}.
#' @family optimum nonlinear discriminant analysis
#' @examples
#' fit <- onda(Species ~ ., data = iris)
#' fit
#' table(predict(fit, iris), iris$Species)
#' head(predict(fit, iris, type = "projection"))
#' plot(fit)   # the 2-simplex of Fig. 2
#' # FLDA as the linear approximation of ONDA
#' flda <- onda(Species ~ ., data = iris, posterior = "linear")
#' mean(predict(flda, iris) != iris$Species)
#' @export
onda <- function(x, ...) UseMethod("onda")

#' @rdname onda
#' @export
onda.formula <- function(formula, data, subset, na.action, ...) {
  mc <- match.call(expand.dots = FALSE)
  inputs <- inputs_from_formula(mc, parent.frame(), NA)
  raw <- if (is.null(mc$data)) NULL else {
    d <- eval(mc$data, parent.frame())
    if (is.data.frame(d) && !is.null(rownames(inputs$x))) d[rownames(inputs$x), , drop = FALSE] else d
  }
  if ("kernel" %in% names(list(...))) {
    krein_abort("onda() works on the input features and takes no `kernel`; for kernels that carry the class information see kernel_discriminant().")
  }
  fit <- onda_fit(inputs, raw = raw %||% inputs$x, ...)
  fit$call <- match.call()
  fit
}

#' @rdname onda
#' @export
onda.default <- function(x, y, posterior = "gaussian", dim = NULL, prior = NULL, ridge = NULL,
                         svm_kernel = "radial", cost = 1, svm_args = list(), na.action = NULL, ...) {
  if ("kernel" %in% names(list(...))) {
    krein_abort("onda() works on the input features and takes no `kernel`; for kernels that carry the class information see kernel_discriminant().")
  }
  inputs <- inputs_from_xy(x, y, NA, na.action)
  fit <- onda_fit(inputs, raw = inputs$x, posterior = posterior, dim = dim, prior = prior,
                  ridge = ridge, svm_kernel = svm_kernel, cost = cost, svm_args = svm_args)
  fit$call <- match.call()
  fit
}

#' The fit behind every onda() interface
#' @noRd
onda_fit <- function(inputs, raw, posterior = "gaussian", dim = NULL, prior = NULL, ridge = NULL,
                     svm_kernel = "radial", cost = 1, svm_args = list()) {
  if (is.null(inputs$x)) {
    krein_abort("onda() estimates posteriors from input features; give a numeric matrix, a data frame or a formula, not a kernel matrix.")
  }
  y <- inputs$y
  levels <- levels(y)
  K <- length(levels)
  counts <- stats::setNames(as.vector(table(y)), levels)
  prior <- check_prior(prior, levels, counts)
  if (is.null(dim)) dim <- K - 1L
  dim <- check_number(dim, "dim", lower = 1, upper = K - 1, allow_lower = TRUE, integer = TRUE)
  if (!is.null(ridge)) ridge <- check_number(ridge, "ridge", lower = 0, allow_lower = TRUE)
  estimator <- posterior_estimator(posterior, inputs, raw, prior, ridge, svm_kernel, cost, svm_args)
  B <- estimator$training
  # Gamma (eq. 15) as a sample average, the symmetric eigenproblem (eqs. 35-36)
  centred <- B - rep(prior, each = nrow(B))
  Gamma <- crossprod(centred) / nrow(B)
  scaled <- Gamma / sqrt(outer(prior, prior))
  e <- eigen((scaled + t(scaled)) / 2, symmetric = TRUE)
  U <- e$vectors[, seq_len(dim), drop = FALSE] / sqrt(prior)
  # a sign convention: each direction's largest coefficient is positive
  U <- U * rep(sign(U[cbind(max.col(abs(t(U)), ties.method = "first"), seq_len(dim))]), each = K)
  dimnames(U) <- list(levels, paste0("D", seq_len(dim)))
  dimnames(Gamma) <- list(levels, levels)
  projection <- B %*% U
  class_means <- t(vapply(levels, function(l) colMeans(projection[y == l, , drop = FALSE]), numeric(dim)))
  if (dim == 1L) class_means <- matrix(class_means, ncol = 1L, dimnames = list(levels, "D1"))
  metric <- nearest_mean_metric(projection, y, class_means)
  fit <- structure(
    list(posterior = estimator$name, U = U, values = e$values, Gamma = Gamma, prior = prior,
         levels = levels, counts = counts, class_means = class_means, metric = metric,
         ridge = estimator$ridge, estimator = estimator[c("name", "predict", "gaussian", "linear")],
         statistics = feature_statistics(inputs$x, y, prior),
         training_posteriors = B, training_projection = projection, y = y, x = inputs$x,
         spec = inputs$spec,
         na_action = inputs$na_action),
    class = c("onda", "krein_model")
  )
  fit$training_error <- mean(nearest_mean_class(fit, projection) != y)
  fit
}

# The within-class whitening of the discriminant space used by the
# nearest-mean rule (documented under Classification in ?onda).
nearest_mean_metric <- function(projection, y, class_means) {
  within <- projection - class_means[as.integer(y), , drop = FALSE]
  W <- crossprod(within) / max(1, nrow(projection) - nlevels(y))
  total <- sum(diag(stats::cov(projection))) / ncol(projection)
  floor_value <- max(1e-10 * total, .Machine$double.xmin)
  e <- eigen(W, symmetric = TRUE)
  if (min(e$values) <= 1e-8 * max(e$values, floor_value)) {
    return(diag(ncol(projection)))   # no within-class spread: Euclidean
  }
  e$vectors %*% diag(1 / sqrt(e$values), ncol(projection)) %*% t(e$vectors)
}

nearest_mean_class <- function(object, projection) {
  Z <- projection %*% object$metric
  M <- object$class_means %*% object$metric
  d <- outer(rowSums(Z^2), rep(1, nrow(M))) - 2 * Z %*% t(M) + rep(rowSums(M^2), each = nrow(Z))
  factor(object$levels[max.col(-d, ties.method = "first")], levels = object$levels)
}

# Means and covariances of the training features: the Gaussian model (eq.
# 31), the total and between-class covariances (eqs. 11-12) for LDK.
feature_statistics <- function(x, y, prior) {
  levels <- levels(y)
  means <- t(vapply(levels, function(l) colMeans(x[y == l, , drop = FALSE]), numeric(ncol(x))))
  if (ncol(x) == 1L) means <- matrix(means, ncol = 1L)
  total_mean <- colMeans(x)
  centred <- x - rep(total_mean, each = nrow(x))
  total <- crossprod(centred) / nrow(x)
  between <- crossprod(sqrt(prior) * (means - rep(total_mean, each = length(levels))))
  list(means = means, total_mean = total_mean, total = total, between = between)
}

# --- posterior estimators: list(name, training = n x K, predict(new) -> n x K)

posterior_estimator <- function(posterior, inputs, raw, prior, ridge, svm_kernel, cost, svm_args) {
  x <- inputs$x
  y <- inputs$y
  levels <- levels(y)
  if (is.character(posterior) && length(posterior) == 1L) {
    posterior <- check_choice(posterior, "posterior", c("gaussian", "linear", "svm"))
    est <- switch(posterior,
      gaussian = gaussian_estimator(x, y, prior, ridge),
      linear = linear_estimator(x, y, prior),
      svm = svm_estimator(x, y, svm_kernel, cost, svm_args)
    )
    est$training <- est$predict(x)
    return(est)
  }
  if (is.function(posterior)) {
    fun <- posterior
    predict_new <- function(new) {
      check_posterior_matrix(fun(x, y, new), nrow(new), levels, "`posterior`")
    }
    return(list(name = "function", predict = predict_new, training = predict_new(x),
                raw_input = FALSE))
  }
  if (is.list(posterior) || isS4(posterior)) {
    model <- posterior
    predict_new <- function(new) {
      p <- tryCatch(stats::predict(model, new, type = "prob"),
                    error = function(e) krein_abort(sprintf("`posterior` is a fitted model, but predict(<model>, newdata, type = \"prob\") failed: %s",
                                                            conditionMessage(e))))
      check_posterior_matrix(p, NROW(new), levels, "`posterior`'s predict(type = \"prob\")")
    }
    return(list(name = paste0("model (", class(model)[1], ")"), predict = predict_new,
                training = predict_new(raw), raw_input = TRUE))
  }
  krein_abort(sprintf("`posterior` must be \"gaussian\", \"linear\", \"svm\", a function(x_train, y_train, x_new) or a fitted model, not %s.",
                      describe_value(posterior)))
}

check_posterior_matrix <- function(p, n, levels, what) {
  if (is.data.frame(p)) p <- as.matrix(p)
  if (!is.matrix(p) || !is.numeric(p) || nrow(p) != n || ncol(p) != length(levels)) {
    krein_abort(sprintf("%s must give an %d x %d numeric matrix of posteriors (one row per point, one column per class), not %s.",
                        what, n, length(levels), describe_value(p)))
  }
  if (!is.null(colnames(p))) {
    if (!setequal(colnames(p), levels)) {
      krein_abort(sprintf("%s gave columns named %s; they must be the class levels %s.", what,
                          paste0("\"", colnames(p), "\"", collapse = ", "),
                          paste0("\"", levels, "\"", collapse = ", ")))
    }
    p <- p[, levels, drop = FALSE]
  }
  if (anyNA(p) || any(!is.finite(p))) {
    krein_abort(sprintf("%s gave missing or infinite posteriors (rows %s).", what,
                        format_indices(which(rowSums(!is.finite(p)) > 0))))
  }
  off <- abs(rowSums(p) - 1) > 1e-6
  if (any(off)) {
    krein_abort(sprintf("%s gave rows that do not sum to 1 (rows %s; e.g. %s).", what, format_indices(which(off)),
                        format(sum(p[which(off)[1], ]), digits = 6)))
  }
  unname(p)
}

# Gaussian NDA (eqs. 30-33): ML class covariances, posteriors by Bayes.
gaussian_estimator <- function(x, y, prior, ridge) {
  model <- gaussian_model(x, y, prior, ridge)
  list(name = "gaussian", predict = function(new) gaussian_posteriors(model, new), gaussian = model,
       ridge = model$ridge)
}

gaussian_model <- function(x, y, prior, ridge = NULL) {
  levels <- levels(y)
  p <- ncol(x)
  scale <- mean(apply(x, 2, function(v) mean((v - mean(v))^2)))
  auto_ridge <- if (scale > 0) 1e-6 * scale else 1e-6
  classes <- lapply(levels, function(l) {
    xl <- x[y == l, , drop = FALSE]
    m <- colMeans(xl)
    centred <- xl - rep(m, each = nrow(xl))
    list(mean = m, covariance = crossprod(centred) / nrow(xl))
  })
  singular <- vapply(classes, function(cl) {
    rc <- tryCatch(rcond(chol(cl$covariance)), error = function(e) 0)
    rc < 1e-8
  }, logical(1))
  used <- if (!is.null(ridge)) ridge else if (any(singular)) auto_ridge else 0
  if (is.null(ridge) && any(singular)) {
    krein_warn(sprintf("The covariance of class%s %s is singular; a ridge of %s (1e-6 of the mean input variance) was added to every class covariance (see `ridge`).",
                       if (sum(singular) > 1) "es" else "", paste0("\"", levels[singular], "\"", collapse = ", "),
                       format(used, digits = 3)))
  }
  classes <- lapply(classes, function(cl) {
    S <- cl$covariance + diag(used, p)
    R <- tryCatch(chol(S), error = function(e) {
      krein_abort("A class covariance is not positive definite even with the ridge; give a larger `ridge`.")
    })
    c(cl, list(factor = R, logdet = 2 * sum(log(diag(R)))))
  })
  list(classes = classes, prior = prior, ridge = used, levels = levels)
}

gaussian_log_densities <- function(model, new) {
  vapply(seq_along(model$classes), function(k) {
    cl <- model$classes[[k]]
    centred <- t(new) - cl$mean
    z <- backsolve(cl$factor, centred, transpose = TRUE)
    -0.5 * colSums(z^2) - 0.5 * cl$logdet - 0.5 * nrow(cl$factor) * log(2 * pi)
  }, numeric(nrow(new)))
}

gaussian_posteriors <- function(model, new) {
  g <- gaussian_log_densities(model, new)
  if (is.null(dim(g))) g <- matrix(g, nrow = 1L)
  softmax_rows(g + rep(log(model$prior), each = nrow(g)))
}

# The linear approximation of the posteriors (eq. 23).
linear_estimator <- function(x, y, prior) {
  stats <- feature_statistics(x, y, prior)
  R <- tryCatch(chol(stats$total), error = function(e) {
    krein_abort("The total covariance of `x` is singular (collinear or constant inputs); posterior = \"linear\" needs it invertible.")
  })
  # coefficients: column k is Sigma_T^-1 (m_k - m_T)
  directions <- backsolve(R, forwardsolve(t(R), t(stats$means) - stats$total_mean))
  model <- list(directions = directions, total_mean = stats$total_mean, prior = prior)
  list(name = "linear", predict = function(new) linear_posteriors(model, new), linear = model,
       ridge = NULL)
}

linear_posteriors <- function(model, new) {
  scores <- (new - rep(model$total_mean, each = nrow(new))) %*% model$directions
  (scores + 1) * rep(model$prior, each = nrow(new))
}

# SVM posteriors by pairwise coupling (eq. 34) through e1071.
svm_estimator <- function(x, y, svm_kernel, cost, svm_args) {
  if (!requireNamespace("e1071", quietly = TRUE)) {
    krein_abort("posterior = \"svm\" needs the e1071 package: install.packages(\"e1071\").")
  }
  svm_kernel <- check_choice(svm_kernel, "svm_kernel", c("radial", "linear", "polynomial", "sigmoid"))
  cost <- check_number(cost, "cost", lower = 0)
  if (!is.list(svm_args)) krein_abort(sprintf("`svm_args` must be a list of arguments of e1071::svm(), not %s.", describe_value(svm_args)))
  model <- do.call(e1071::svm, c(list(x = x, y = y, kernel = svm_kernel, cost = cost, probability = TRUE),
                                 svm_args))
  levels <- levels(y)
  list(name = "svm", ridge = NULL, predict = function(new) {
    p <- attr(stats::predict(model, new, probability = TRUE), "probabilities")
    p[, levels, drop = FALSE]
  })
}

#' Predict with optimum nonlinear discriminant analysis
#'
#' @param object An `onda` fit.
#' @param newdata New data in the form the model was fitted on; missing: the
#'   training data.
#' @param type `"class"` (nearest class mean in the discriminant space, see
#'   [onda()]), `"prob"` (the posteriors of the estimator, \eqn{B(x)}) or
#'   `"projection"` (the discriminant coordinates \eqn{y = U'B(x)}, eq. 19).
#' @param ... Unused.
#' @returns A factor with the training levels, or a matrix with one row per
#'   point.
#' @family optimum nonlinear discriminant analysis
#' @export
predict.onda <- function(object, newdata, type = c("class", "prob", "projection"), ...) {
  type <- match_choice(type, "type", c("class", "prob", "projection"))
  if (missing(newdata) || is.null(newdata)) {
    B <- object$training_posteriors
    names <- rownames(object$x)
  } else {
    new <- new_inputs(object$spec, newdata)$x
    B <- onda_posteriors(object, new, raw = newdata)
    names <- rownames(new)
  }
  dimnames(B) <- list(names, object$levels)
  if (type == "prob") return(B)
  projection <- B %*% object$U
  if (type == "projection") return(projection)
  stats::setNames(nearest_mean_class(object, projection), names)
}

onda_posteriors <- function(object, x, raw = x) {
  estimator <- object$estimator
  if (startsWith(estimator$name, "model")) return(estimator$predict(raw))
  estimator$predict(x)
}

#' @export
print.onda <- function(x, ...) {
  cat("Optimum nonlinear discriminant analysis, ", x$posterior, " posteriors, ", length(x$levels),
      " classes, ", sum(x$counts), " training points\n", sep = "")
  dim <- ncol(x$U)
  cat("  discriminant space: ", dim, " dimension", if (dim > 1) "s", ", eigenvalues ",
      paste(format(x$values[seq_len(dim)], digits = 4), collapse = ", "), "\n", sep = "")
  if (!is.null(x$ridge) && x$ridge > 0) cat("  ridge on the class covariances: ", format(x$ridge, digits = 3), "\n", sep = "")
  cat("  training error (nearest class mean): ", format(x$training_error, digits = 3), "\n", sep = "")
  invisible(x)
}

#' @export
summary.onda <- function(object, ...) {
  structure(list(posterior = object$posterior, U = object$U, values = object$values,
                 Gamma = object$Gamma, class_means = object$class_means,
                 classes = data.frame(n = as.vector(object$counts), prior = as.vector(object$prior),
                                      row.names = object$levels),
                 training_error = object$training_error),
            class = "summary.onda")
}

#' @export
print.summary.onda <- function(x, ...) {
  cat("ONDA with ", x$posterior, " posteriors\n\nClasses:\n", sep = "")
  print(x$classes, digits = 4)
  cat("\nGamma (eq. 15):\n")
  print(x$Gamma, digits = 4)
  cat("\nEigenvalues of Gamma U = Psi U Lambda (eq. 14):\n")
  print(x$values, digits = 4)
  cat("\nClass representative vectors U (eq. 16):\n")
  print(x$U, digits = 4)
  cat("\nClass means in the discriminant space:\n")
  print(x$class_means, digits = 4)
  cat("\nTraining error (nearest class mean): ", format(x$training_error, digits = 4), "\n", sep = "")
  invisible(x)
}

#' Plot the discriminant space of an ONDA fit
#'
#' The first two discriminant coordinates (or histograms of the only one),
#' coloured by class, with the class means as diamonds -- the displays of
#' Hidaka and Kurita (2016), Figs. 2-3. For three classes the points fill a
#' triangle (the 2-simplex of posterior vectors).
#'
#' @param x An `onda` fit.
#' @param newdata Points to show instead of the training points, in the form
#'   the model was fitted on; for formula fits whose `newdata` holds the
#'   response they are coloured by it, otherwise by predicted class.
#' @param main The title; `NULL` for one naming the posterior estimator.
#' @param ... Passed to the plotting functions.
#' @references
#' Hidaka, A. and Kurita, T. (2016). Optimum nonlinear discriminant analysis
#' and discriminant kernel support vector machine. *IEICE Transactions on
#' Information and Systems*. \doi{10.1587/transinf.2016EDP7081}.
#' @returns `x`, invisibly.
#' @family optimum nonlinear discriminant analysis
#' @export
plot.onda <- function(x, newdata = NULL, main = NULL, ...) {
  if (is.null(newdata)) {
    projection <- x$training_projection
    y <- x$y
  } else {
    projection <- stats::predict(x, newdata, type = "projection")
    y <- NULL
    if (x$spec$type == "formula" && is.data.frame(newdata)) {
      response <- all.vars(x$spec$terms)[attr(x$spec$terms, "response")]
      if (!is.null(newdata[[response]])) y <- factor(newdata[[response]], levels = x$levels)
    }
    if (is.null(y)) y <- nearest_mean_class(x, projection)
  }
  plot_projection(projection, y, main %||% sprintf("ONDA, %s posteriors", x$posterior),
                  class_means = x$class_means, ...)
  invisible(x)
}
