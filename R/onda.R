# onda(): optimum nonlinear discriminant analysis -- the fit, its class
# rules, the posterior estimators (Gaussian with the default ridge and
# pooling, linear, SVM), prediction, print, summary, plot and registration.

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
#' 34), or any classifier that gives posteriors. ONDA works on the input
#' features themselves: it takes no kernel (for kernels that carry the class
#' information see [kernel_discriminant()]).
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
#' @section Prediction:
#' [predict()][predict.krein_model()] gives
#' * `type = "class"`: by default the most probable class under the
#'   estimator's posteriors (`rule = "posterior"`);
#' * `type = "prob"`: the posteriors of the estimator, \eqn{B(x)}. Those of
#'   `posterior = "linear"` sum to 1 but may leave \eqn{[0, 1]} (eq. 23);
#' * `type = "decision"`: the negative squared Euclidean distances of the
#'   point to the class means (over the training points) in the discriminant
#'   space, normalised as the paper does: \eqn{U' \Psi U = I} for the NDA
#'   (eqs. 35-36) and unit total covariance, \eqn{A' \Sigma_T A = I}, for
#'   FLDA (`posterior = "linear"`, eq. 3; each direction divided by
#'   \eqn{\sqrt{\lambda_j}}). Larger favours the class;
#' * `type = "projection"`: the discriminant coordinates \eqn{y = U'B(x)}
#'   (eq. 19), `D1`, `D2`, ...
#'
#' Its argument `rule` chooses how `type = "class"` classifies:
#' * `"posterior"` (the default): \eqn{\arg\max_k B_k(x)};
#' * `"nearest_mean"`, the paper's rule (Hidaka and Kurita 2016, Sec. 5.2,
#'   Table 2: "nearest mean classification in each discriminant space"):
#'   the Euclidean nearest class mean in the normalised discriminant
#'   coordinates, \eqn{\arg\min_k \|D(y - \bar y_k)\|^2} with \eqn{y =
#'   U'B(x)}, \eqn{\bar y_k} the mean of the mapped training points of class
#'   \eqn{k} and \eqn{D} the normalisation: \eqn{D = I} for the NDA, whose
#'   \eqn{U} satisfies \eqn{U'\Psi U = I} (eqs. 35-36), and \eqn{D =
#'   \Lambda^{-1/2}} for FLDA (`posterior = "linear"`), so that the
#'   discriminant map \eqn{A} of \eqn{x} satisfies \eqn{A'\Sigma_T A = I}
#'   (eq. 3: FLDA's coordinates have total covariance \eqn{U'\Gamma U =
#'   \Lambda}). It is the largest `"decision"` value. Only this rule
#'   reproduces the paper's FLDA row: on Iris, 20 random 2/3 : 1/3 splits
#'   give 85.1 % (paper: 83.2 %, sd 4.61), against 97.7 % with
#'   `"mahalanobis"`;
#' * `"mahalanobis"`: the nearest class mean in the pooled within-class
#'   metric of the mapped training points, \eqn{\arg\min_k (y - \bar y_k)'
#'   S_W^{-1} (y - \bar y_k)}, \eqn{S_W = \sum_i (y_i - \bar y_{k_i})(y_i -
#'   \bar y_{k_i})' / (n - K)}, which does not depend on how \eqn{U} is
#'   normalised and, for `posterior = "linear"`, is the nearest-mean rule of
#'   [MASS::lda()]'s discriminant space; Euclidean when the classes have no
#'   spread there, as with ideal posteriors.
#'
#' The rules can disagree near the class boundaries; [tune_krein()] takes
#' `rule` as a fixed argument or a grid column.
#' [plot()][plot.krein_model()] takes `rule` too;
#' for more than two inputs it shows the discriminant space (the first two
#' coordinates, or histograms of the only one) with the class means as
#' diamonds, as Figs. 2-3 of the paper -- for three classes a triangle, the
#' 2-simplex of posterior vectors.
#'
#' @section Posterior estimators:
#' * `"gaussian"`: class-conditional Gaussians with maximum-likelihood means
#'   and covariances \eqn{\Sigma_k = n_k^{-1} \sum (x_i - \bar x_k)(x_i - \bar
#'   x_k)'} (eq. 31), priors `prior`: eq. (33), the posteriors of
#'   `MASS::qda(method = "mle")` -- with `pooling = 0`, the paper's
#'   estimator. `pooling` \eqn{= \lambda} replaces each \eqn{\Sigma_k} by
#'   \eqn{(1 - \lambda) \Sigma_k + \lambda \Sigma_W}, with the pooled
#'   within-class covariance \eqn{\Sigma_W = \sum_k n_k \Sigma_k / n}, as the
#'   regularised discriminant analysis of Friedman (1989) does; \eqn{\lambda
#'   = 1} gives the posteriors of Gaussian classes with a common covariance
#'   (those of [MASS::lda()] with ML covariance and the same priors). The
#'   default `pooling = NULL` chooses \eqn{\lambda} from the class sizes:
#'   \eqn{\lambda = \min(1, \max(0, 2 - n_{\min} / p))} for the smallest
#'   class size \eqn{n_{\min}} and \eqn{p} input columns (0, each class its
#'   own covariance, while every class has at least \eqn{2p} points; 1 when
#'   one has at most \eqn{p}, so that its own covariance is singular), and
#'   at least \eqn{3/4} where a class covariance is singular all the same
#'   (discrete columns, or a column constant within a class, as on
#'   Ionosphere, spam or BreastCancer). The paper's ML class covariances
#'   fit every training point of a small class tightly: with 166 inputs and
#'   classes of 143 and 190 points (kernlab's musk) they give 0 training
#'   error and 55% test accuracy, the default pooling 80% (the SVM 88%). The
#'   weight used is the fit's `pooling`. A class covariance that is still
#'   singular (reciprocal
#'   condition number of its triangular factor below \eqn{10^{-8}}: with the
#'   default, only where the pooled covariance is, for collinear columns) gets a
#'   ridge \eqn{r I}: `ridge` if given, else \eqn{10^{-6}} times the mean
#'   variance of the inputs with a warning of class
#'   `krein_singular_covariance_warning`; the fit stores it as `ridge` and uses it at
#'   prediction. With at least as many columns \eqn{p} as points \eqn{n}
#'   every class covariance is singular, so `ridge` must not be 0 (the
#'   default pools completely and adds the default ridge without a warning); the
#'   Gaussians are then fitted in an orthonormal basis of the span of the
#'   centred training points (\eqn{n} coordinates): the part of a point
#'   orthogonal to that span adds the same term to every class's log-density,
#'   so the posteriors are those of the \eqn{p}-dimensional model, without its
#'   \eqn{p \times p}{p x p} factorisations. The Gaussian marginalised kernel
#'   of such a fit (`kernel_discriminant(kind = "gmk")`) still needs them.
#'   With both `ridge` and `pooling` left `NULL` (the default) and a class
#'   with fewer than twice as many points as inputs, the ridge is
#'   chosen by 5-fold cross-validation (folds stratified and dealt in turn,
#'   as [kqd()]'s; fewer when a class has fewer points) among none beyond
#'   the singular case's above (tried first, so that ties keep it) and 0.01,
#'   0.1 and 1 times the mean input variance: the error is that of the
#'   Gaussian classes' most probable class, and each candidate costs one
#'   Gaussian fit per fold, no eigenproblem. With many inputs per point of a
#'   class the pooled covariance fits the training points' noise: on 333
#'   rows of mlbench's DNA (180 binary inputs, classes of 55 to 120 training
#'   points) onda reached 70% test accuracy (MASS::lda too), and 85-91%
#'   with the chosen ridge over three splits (e1071::svm 73-82%). The fit
#'   keeps the candidates and their errors as `ridge_selection` (`NULL`
#'   when a ridge or a pooling is given, or every class has at least twice
#'   as many points as inputs).
#' * `"linear"`: the least-squares linear approximation \eqn{L(C_k | x) =
#'   P(C_k) [(\bar x_k - \bar x_T)' \Sigma_T^{-1} (x - \bar x_T) + 1]} (eq.
#'   23) with the total mean \eqn{\bar x_T} and covariance \eqn{\Sigma_T} of
#'   eq. (11) (denominator \eqn{n}). Its values sum to 1 but may leave
#'   \eqn{[0, 1]}; ONDA with it is FLDA (eqs. 25-29). With a `prior` other
#'   than the class proportions, \eqn{\bar x_T = \sum_k P(C_k) \bar x_k} and
#'   \eqn{\Sigma_T = \sum_k P(C_k) (\Sigma_k + (\bar x_k - \bar x_T)(\bar x_k -
#'   \bar x_T)')}, the mean and covariance of the mixture with these priors,
#'   so that the values still sum to 1. \eqn{\Sigma_T} must be invertible
#'   (reciprocal condition number of its triangular factor at least
#'   \eqn{10^{-8}}): at least one point more than columns, not on a common
#'   hyperplane; otherwise `onda()` stops with an error. New points so far
#'   from the data that the rounding of the linear function loses the sum
#'   (rows off 1 by more than \eqn{10^{-8}}) are refused with an error.
#' * `"svm"`: the posteriors of a multi-class SVM by pairwise coupling (Wu,
#'   Lin and Weng 2004; libsvm `-b 1` in the paper), through
#'   `e1071::svm(probability = TRUE)` with `svm_kernel`, `cost`, the width
#'   `svm_gamma` (of the radial, polynomial and sigmoid kernels; the radial
#'   kernel is \eqn{\exp(-\gamma \|u - v\|^2)}, as [kernel_rbf()]) and any
#'   other argument of [e1071::svm()] in `svm_args` (a name that is not an
#'   argument of `e1071::svm()` is an error). `tune_krein(onda, x, y,
#'   posterior = "svm", grid = list(svm_gamma = , cost = ))` tunes width and
#'   cost together (the paper's grid search, Sec. 5). Needs the e1071 package. Its internal cross-validation draws from R's
#'   RNG, so `set.seed()` reproduces it.
#' * a function `function(x_train, y_train, x_new)` returning an
#'   \eqn{n_{new} \times K} matrix of posteriors (columns in the order of the
#'   levels of `y`, or named by them); it is called once for the training
#'   points and once for each `predict()`, with numeric matrices of the
#'   model's input columns (scaled with `scale = TRUE`). Rows must be finite
#'   and sum to 1.
#' * a fitted model whose `predict(model, newdata, type = "prob")` gives such
#'   a matrix -- any krein classifier, for example. It is called with the
#'   input columns of `onda()`'s fit: a numeric matrix for matrix or data
#'   frame input, a data frame of the model matrix's columns for the formula
#'   interface (the variables themselves when they are numeric), in the
#'   original units: the model was fitted on data as given and scales them
#'   itself, so `onda()` does not scale, whatever `scale` (see "Objects fitted
#'   on data keep their units" in [krein_inputs]).
#'
#' @param x A numeric matrix or data frame of inputs (see [krein_inputs]).
#' @param y Class labels, one per row.
#' @inheritParams krein_inputs
#' @param formula,data,subset,na.action As in [MASS::lda()]: see [krein_inputs].
#' @param posterior `"gaussian"`, `"linear"`, `"svm"`, a function or a fitted
#'   model (see Posterior estimators).
#' @param dim Dimension of the discriminant space, at most \eqn{K - 1};
#'   `NULL` for \eqn{K - 1}.
#' @param prior Class priors in the order of the levels; `NULL` for the class
#'   proportions (as the paper uses).
#' @param ridge For `"gaussian"`: a ridge added to the class covariances; a
#'   number applies to all classes. `NULL` (the default) with `pooling =
#'   NULL` chooses it by cross-validation where a class has fewer than twice
#'   as many points as inputs; otherwise it adds one only where a covariance
#'   is singular (see Posterior estimators).
#' @param pooling For `"gaussian"`: the weight \eqn{\lambda \in [0, 1]} of
#'   the pooled within-class covariance in each class covariance; 0 for the
#'   paper's Gaussian NDA (each class its own covariance), 1 for a common
#'   covariance; `NULL` (the default) chooses
#'   it from the class sizes (see Posterior estimators).
#' @param svm_kernel,cost,svm_gamma,svm_args For `"svm"`: the kernel, cost
#'   and kernel width \eqn{\gamma} of [e1071::svm()] (`svm_gamma = NULL`:
#'   e1071's default, one over the number of columns), and a list of further
#'   arguments of [e1071::svm()] (e.g. `list(degree = 2)`; not those
#'   arguments already named here). `cost` and `svm_gamma` can be tuned by
#'   [tune_krein()] as grid columns.
#' @param ... Not used: every argument after the data must be named in full
#'   (an unknown name is an error).
#' @returns An object of class `c("onda", "krein_model")`: a list with
#'   `posterior` (the estimator's name), `U` (\eqn{K \times} `dim`), `values`
#'   (the eigenvalues \eqn{\Lambda}, all \eqn{K} of them), `Gamma`, `prior`,
#'   `class_means` (class means in the discriminant space), `ridge`,
#'   `pooling` (the weight of the pooled covariance, Gaussian posteriors),
#'   `training_posteriors`, `x` (the training inputs), the shared fields of a
#'   krein fit (`levels`, `counts`, `training_error` of the default rule, ...)
#'   and what prediction and [kernel_discriminant()] need.
#' @references
#' Friedman, J. H. (1989). Regularized discriminant analysis. *Journal of the
#' American Statistical Association*, 84(405), 165-175.
#' \doi{10.1080/01621459.1989.10478752}.
#'
#' Hidaka, A. and Kurita, T. (2016). Optimum nonlinear discriminant analysis
#' and discriminant kernel support vector machine. *IEICE Transactions on
#' Information and Systems*, E99.D(11), 2734-2744.
#' \doi{10.1587/transinf.2016EDP7081}.
#'
#' Otsu, N. (1975). Nonlinear discriminant analysis as a natural extension of
#' the linear case. *Behaviormetrika*, 2, 45-59.
#'
#' Otsu, N. (1982). Optimal linear and nonlinear solutions for least-square
#' discriminant feature extraction. In *Proceedings of the 6th International
#' Conference on Pattern Recognition*, 557-560.
#'
#' Wu, T.-F., Lin, C.-J. and Weng, R. C. (2004). Probability estimates for
#' multi-class classification by pairwise coupling. *Journal of Machine
#' Learning Research*, 5, 975-1005.
#' @family optimum nonlinear discriminant analysis
#' @examples
#' fit <- onda(Species ~ ., data = iris)
#' fit
#' table(predict(fit, iris), iris$Species)
#' head(predict(fit, iris, type = "projection"))
#' # the paper's rule: the nearest class mean in the discriminant space
#' table(predict(fit, iris, rule = "nearest_mean"), iris$Species)
#' plot(fit)   # the 2-simplex of Fig. 2
#' # FLDA as the linear approximation of ONDA
#' flda <- onda(Species ~ ., data = iris, posterior = "linear")
#' mean(predict(flda, iris, rule = "nearest_mean") != iris$Species)
#' @export
onda <- function(x, ...) UseMethod("onda")

#' @rdname onda
#' @export
onda.formula <- function(formula, data, ..., subset, na.action, scale = TRUE) {
  refuse_onda_kernel(list(...))
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), NULL, scale = scale,
                                fitted = fitted_objects("onda", list(...)))
  fit_model("onda", inputs, list(...), match.call())
}

#' @rdname onda
#' @export
onda.default <- function(x, y, ..., scale = TRUE, posterior = "gaussian", dim = NULL, prior = NULL, ridge = NULL,
                         pooling = NULL,
                         svm_kernel = "radial", cost = 1, svm_gamma = NULL, svm_args = list(), na.action = NULL) {
  refuse_onda_kernel(list(...))
  check_dots_empty("onda", ...)
  args <- method_arguments("onda")
  inputs <- inputs_from_xy(x, y, NULL, na.action, scale = scale, chunks = TRUE,
                           fitted = fitted_objects("onda", args))
  fit_model("onda", inputs, args, match.call())
}

refuse_onda_kernel <- function(dots) {
  if ("kernel" %in% names(dots)) {
    krein_abort("onda() works on the input features and takes no `kernel`; for kernels that carry the class information see kernel_discriminant().",
                class = "krein_argument_error")
  }
  if ("spectrum" %in% names(dots)) {
    krein_abort("onda() works on the input features and has no kernel matrix whose spectrum `spectrum` could correct; leave `spectrum` out, or use a kernel model (kqd(), ikfd(), ...).",
                class = "krein_argument_error")
  }
}

#' The fit behind every onda() interface
#' @noRd
onda_fit <- function(inputs, posterior, dim, prior, ridge, pooling, svm_kernel, cost, svm_gamma, svm_args) {
  if (is.null(inputs$x)) {
    krein_abort("onda() estimates posteriors from input features; give a numeric matrix, a data frame or a formula, not a kernel matrix.")
  }
  x <- inputs$x
  y <- inputs$y
  levels <- levels(y)
  K <- length(levels)
  counts <- stats::setNames(as.vector(table(y)), levels)
  prior <- check_prior(prior, levels, counts)
  if (is.null(dim)) dim <- K - 1L
  dim <- check_number(dim, "dim", lower = 1, upper = K - 1, allow_lower = TRUE, integer = TRUE)
  if (!is.null(ridge)) ridge <- check_number(ridge, "ridge", lower = 0, allow_lower = TRUE)
  if (!is.null(pooling)) pooling <- check_number(pooling, "pooling", lower = 0, upper = 1, allow_lower = TRUE)
  estimator <- posterior_estimator(posterior, x, y, inputs$spec, prior, ridge, pooling, svm_kernel, cost, svm_gamma,
                                   svm_args)
  B <- estimator$predict(x)
  dimnames(B) <- list(rownames(x), levels)
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
  # The paper's normalisation of the space for its nearest-mean rule: U' Psi U
  # = I for the NDA (eqs. 35-36, as U is), unit total covariance for FLDA
  # (eq. 3): FLDA's coordinates have covariance U' Gamma U = Lambda.
  lambda <- e$values[seq_len(dim)]
  paper_scale <- if (estimator$name == "linear") ifelse(lambda > 0, 1 / sqrt(pmax(lambda, 0)), 1) else rep(1, dim)
  metrics <- list(nearest_mean = diag(paper_scale, dim),
                  mahalanobis = nearest_mean_metric(projection, y, class_means))
  list(posterior = estimator$name, U = U, values = e$values, Gamma = Gamma, prior = prior,
       class_means = class_means, metrics = metrics, ridge = estimator$ridge,
       ridge_selection = estimator$ridge_selection, pooling = estimator$pooling,
       estimator = estimator, training_posteriors = B, x = x)
}

# The within-class whitening of the discriminant space (rule = "mahalanobis",
# documented under Prediction in ?onda).
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

# Squared distances of points in the discriminant space to the class means,
# after the linear map A of a rule's metric.
class_mean_distances <- function(projection, class_means, A) {
  Z <- projection %*% A
  M <- class_means %*% A
  d <- vapply(seq_len(nrow(M)), function(k) rowSums((Z - rep(M[k, ], each = nrow(Z)))^2), numeric(nrow(Z)))
  if (is.null(dim(d))) d <- matrix(d, nrow = nrow(Z))
  dimnames(d) <- list(rownames(projection), rownames(class_means))
  d
}

onda_rules <- c("posterior", "nearest_mean", "mahalanobis")

#' @export
krein_scores.onda <- function(object, new, type, rule = "posterior") {
  rule <- match_choice(rule, "rule", onda_rules)
  B <- if (is.null(new)) object$training_posteriors else onda_posteriors(object, new$x)
  if (type == "prob") return(B)
  projection <- B %*% object$U
  if (type == "projection") return(projection)
  if (type == "decision") return(-class_mean_distances(projection, object$class_means, object$metrics$nearest_mean))
  # type = "class" under another rule than the posterior
  scores <- if (rule == "posterior") B else -class_mean_distances(projection, object$class_means, object$metrics[[rule]])
  stats::setNames(class_from_decisions(scores, object$levels), rownames(B))
}

# The estimator's posteriors of new inputs (complete rows), named
onda_posteriors <- function(object, x) {
  B <- object$estimator$predict(x)
  dimnames(B) <- list(rownames(x), object$levels)
  B
}

#' @export
model_title.onda <- function(x) paste(x$posterior, "posteriors")

#' @export
model_print_lines.onda <- function(x) {
  dim <- ncol(x$U)
  paper_error <- mean(krein_scores(x, NULL, "class", rule = "nearest_mean") != x$y)
  c(sprintf("discriminant space: %d dimension%s, eigenvalues %s", dim, if (dim > 1) "s" else "",
            paste(format(x$values[seq_len(dim)], digits = 4), collapse = ", ")),
    if (!is.null(x$pooling)) {
      kind <- if (all(x$pooling == 0)) "each class its own" else if (all(x$pooling == 1)) "the pooled one" else
        "shrunk towards the pooled one"
      sprintf("class covariances: %s (pooling = %s)", kind, pooling_text(x$pooling))
    },
    if (!is.null(x$ridge_selection)) {
      chosen <- match(TRUE, if (x$ridge > 0) x$ridge_selection$ridge == x$ridge else is.na(x$ridge_selection$ridge))
      sprintf("ridge on the class covariances: %s, chosen by cross-validated error %s among none and %s",
              format(x$ridge, digits = 3), format(x$ridge_selection$cv_error[chosen], digits = 3),
              paste(format(x$ridge_selection$ridge[-1], digits = 3), collapse = ", "))
    } else if (!is.null(x$ridge) && x$ridge > 0) paste0("ridge on the class covariances: ", format(x$ridge, digits = 3)),
    paste0("training error of the paper's nearest-class-mean rule (rule = \"nearest_mean\"): ",
           format(paper_error, digits = 3)))
}

#' @export
model_summary.onda <- function(object) {
  rules <- vapply(onda_rules, function(rule) {
    # the training points again where drop_training_scores() removed their posteriors
    new <- if (is.null(object$training_posteriors)) list(x = object$x)
    mean(krein_scores(object, new, "class", rule = rule) != object$y)
  }, numeric(1))
  list("Classes" = data.frame(n = as.vector(object$counts), prior = as.vector(object$prior),
                              row.names = object$levels),
       "Gamma (eq. 15)" = object$Gamma,
       "Eigenvalues of Gamma U = Psi U Lambda (eq. 14)" = paste(format(zapsmall(object$values), digits = 4), collapse = "  "),
       "Class representative vectors U (eq. 16)" = object$U,
       "Class means in the discriminant space" = object$class_means,
       "Training error by rule (predict(rule = ))" = data.frame(training_error = rules, row.names = onda_rules))
}

# Inputs that are not two columns: the discriminant space (paper 004, Figs. 2-3)
#' @export
plot_model_diagnostic.onda <- function(x, data, main, predict_args, ...) {
  plot_discriminant_space(x, data, main, predict_args, x$class_means, ...)
}

# Points of `data` (or the training points) in a model's discriminant
# coordinates (predict type "projection"), coloured by the response of `data`
# where it has one, else by the predicted class; class means as diamonds.
plot_discriminant_space <- function(x, data, main, predict_args, class_means, ...) {
  projection <- do.call(stats::predict, c(list(x, data, type = "projection"), predict_args))
  y <- if (is.null(data)) stats::napredict(x$na_action, x$y) else data_response(x, data, nrow(projection))
  if (all(is.na(y))) y <- do.call(stats::predict, c(list(x, data), predict_args))
  shown <- stats::complete.cases(projection) & !is.na(y)
  plot_projection(projection[shown, , drop = FALSE], y[shown], main, class_means = class_means, ...)
  invisible(x)
}

# --- posterior estimators: list(name, ridge, predict(new) -> n x K, and the
# Gaussian or linear model where there is one)

posterior_estimator <- function(posterior, x, y, spec, prior, ridge, pooling, svm_kernel, cost, svm_gamma, svm_args) {
  levels <- levels(y)
  if (is.character(posterior) && length(posterior) == 1L) {
    posterior <- check_choice(posterior, "posterior", c("gaussian", "linear", "svm"))
    return(switch(posterior,
      gaussian = {
        if (is.null(pooling)) {
          warn_one_row_classes(table(y), paste(
            "its Gaussian posterior takes the pooled covariance of the classes as its own (`pooling` = 1 for it)",
            if (is.null(ridge)) "and the cross-validation of the ridge keeps its row in every fold's training part"))
        }
        # both left to the data: the ridge is chosen with the pooling
        selection <- if (is.null(ridge) && is.null(pooling)) onda_select_ridge(x, y, prior)
        estimator <- gaussian_estimator(x, y, prior, if (!is.null(selection)) selection$chosen else ridge, pooling)
        estimator$ridge_selection <- selection$table
        estimator
      },
      linear = linear_estimator(x, y, prior),
      svm = svm_estimator(x, y, svm_kernel, cost, svm_gamma, svm_args)
    ))
  }
  if (is.function(posterior)) {
    fun <- posterior
    return(list(name = "function", ridge = NULL, predict = function(new) {
      p <- tryCatch(fun(x, y, new), error = function(e) {
        krein_abort(sprintf("`posterior` is a function, but posterior(x_train, y_train, x_new) failed: %s",
                            conditionMessage(e)))
      })
      check_posterior_matrix(p, nrow(new), levels, "`posterior`")
    }))
  }
  if (is.list(posterior) || isS4(posterior)) {
    model <- posterior
    # the input columns as the model was given them: a data frame for formula fits
    as_model_input <- if (spec$type == "formula") function(m) as.data.frame(m) else identity
    return(list(name = paste0("model (", class(model)[1], ")"), ridge = NULL, predict = function(new) {
      p <- tryCatch(stats::predict(model, as_model_input(new), type = "prob"),
                    error = function(e) krein_abort(sprintf("`posterior` is a fitted model, but predict(<model>, newdata, type = \"prob\") failed: %s",
                                                            conditionMessage(e))))
      check_posterior_matrix(p, nrow(new), levels, "`posterior`'s predict(type = \"prob\")")
    }))
  }
  krein_abort(sprintf("`posterior` must be \"gaussian\", \"linear\", \"svm\", a function(x_train, y_train, x_new) or a fitted model, not %s.",
                      describe_value(posterior)))
}

check_posterior_matrix <- function(p, n, levels, what) {
  if (is.data.frame(p)) p <- as.matrix(p)
  # a model fitted on an outcome with a level that has no training rows here
  # (a krein fit keeps it among its probabilities, at 0) gives its column too
  if (is.matrix(p) && is.numeric(p) && !is.null(colnames(p)) && all(levels %in% colnames(p))) {
    extra <- setdiff(colnames(p), levels)
    if (length(extra) && all(p[, extra] == 0, na.rm = TRUE)) p <- p[, levels, drop = FALSE]
  }
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
# `reduction`: onda_data_span() of `x`, given where several fits share it
gaussian_estimator <- function(x, y, prior, ridge, pooling, reduction = onda_data_span(x)) {
  if (is.null(reduction)) {
    model <- onda_gaussian_classes(x, y, prior, ridge, pooling)
    return(list(name = "gaussian", predict = function(new) gaussian_posteriors(model, new), gaussian = model,
                ridge = model$ridge, pooling = model$pooling))
  }
  # at least as many columns as points: every class covariance is singular
  # and gets the ridge r, Sigma_k = S_k + r I with S_k in the span of the
  # centred data. Written in an orthonormal basis V of that span (one column
  # per point), x' Sigma_k^-1 x and log |Sigma_k| split into the part in the
  # span (the classes' d x d Gaussians, d = n) and a part orthogonal to it
  # that is the same for every class (|x_perp|^2 / r, (p - d) log r), which the
  # posteriors do not see. So the posteriors of the p-dimensional model come
  # from the d-dimensional one, without the p x p factorisations.
  if (!is.null(ridge) && ridge == 0) {
    krein_abort(sprintf("A class covariance is singular even with the ridge: with %d columns and %d points every class covariance is singular; give a positive `ridge` (or leave it NULL).",
                        ncol(x), nrow(x)))
  }
  # the default (pooling = NULL) pools completely here (no class has more
  # points than columns), and its ridge is part of it: no warning
  ridge <- ridge %||% onda_default_ridge(x, levels(y), warn = !is.null(pooling))
  model <- onda_gaussian_classes(reduction$project(x), y, prior, ridge, pooling %||% 1)
  list(name = "gaussian", predict = function(new) gaussian_posteriors(model, reduction$project(new)),
       gaussian = NULL, ridge = model$ridge, pooling = model$pooling, span = reduction)
}

# The default ridge (`ridge = NULL`) of the Gaussian posteriors: the least
# 5-fold cross-validated error (cv_misclassification(); fewer folds when a
# class has fewer points) of the Gaussian classifier among no ridge beyond
# the singular case's (tried first, so ties keep it) and 0.01, 0.1 and 1
# times the mean input variance. With many inputs per point of a class the
# pooled ML covariance fits the training points' noise: on 333 rows of
# mlbench's DNA (180 binary inputs, classes of 55-120 training rows) onda
# reaches 68-71% test accuracy over three splits without a ridge, as
# MASS::lda, and 85-91% with the chosen ridge (e1071::svm 73-82%). Each fold costs one
# Gaussian fit of the training part per candidate, no kernel and no
# eigenproblem; the choice is made only where some class has fewer than
# twice as many points as inputs (the default pooling is then positive),
# where the covariances are poorly determined; elsewhere it would cost 20
# fits for nothing. Returns NULL where nothing is chosen, else list(chosen,
# table).
onda_select_ridge <- function(x, y, prior) {
  counts <- tabulate(as.integer(y), nlevels(y))
  # a class of one point trains in every fold (one_row_folds()); the others
  # decide the pooling and the folds
  several <- counts[counts >= 2L]
  if (!length(several) || pooling_by_class_sizes(several, ncol(x)) == 0) return(NULL)
  variance <- mean_input_variance(x)
  if (!is.finite(variance) || variance <= 0) return(NULL)
  candidates <- c(NA, 0.01, 0.1, 1) * variance
  folds <- min(5L, min(several))
  errors <- cv_misclassification(y, folds, length(candidates), fold = one_row_folds(y, folds), function(train, held_out) {
    # the span of the fold's training points, once for all candidates
    span <- onda_data_span(x[train, , drop = FALSE])
    vapply(candidates, function(r) {
      estimator <- tryCatch(suppressWarnings(
        gaussian_estimator(x[train, , drop = FALSE], y[train], prior, if (is.na(r)) NULL else r, NULL,
                           reduction = span)),
        krein_error = function(e) NULL)
      if (is.null(estimator)) return(rep(NA_integer_, length(held_out)))
      max.col(estimator$predict(x[held_out, , drop = FALSE]), ties.method = "first")
    }, integer(length(held_out)))
  })
  best <- which.min(errors)
  if (length(best) == 0L) return(NULL)
  list(chosen = if (is.na(candidates[best])) NULL else candidates[best],
       table = data.frame(ridge = candidates, cv_error = errors))
}

# The mean variance of the input columns (denominator n): the unit of onda's
# ridges
mean_input_variance <- function(x) mean(apply(x, 2, function(v) mean((v - mean(v))^2)))

# The span of the centred training points when they have at least as many
# columns as rows (NULL otherwise): its basis (p x n, orthonormal) and the
# map of points to their coordinates in it
onda_data_span <- function(x) {
  if (ncol(x) < nrow(x)) return(NULL)
  center <- colMeans(x)
  basis <- qr.Q(qr(t(x - rep(center, each = nrow(x)))))
  list(center = center, basis = basis,
       project = function(new) (new - rep(center, each = nrow(new))) %*% basis)
}

# The default ridge where class covariances are singular (`singular`: their
# levels, for the warning): 1e-6 of the mean input variance
onda_default_ridge <- function(x, singular, warn = TRUE) {
  variance <- mean_input_variance(x)
  if (!is.finite(variance)) {
    krein_abort("The inputs are so large that their variance overflows, so no ridge can be chosen for the singular class covariances; fit with `scale = TRUE` or give `ridge`.")
  }
  used <- if (variance > 0) 1e-6 * variance else 1e-6
  if (!warn) return(used)
  krein_warn(sprintf("The covariance of class%s %s is singular; a ridge of %s (1e-6 of the mean input variance) was added to every class covariance (see `ridge`).",
                     if (length(singular) > 1) "es" else "", paste0("\"", singular, "\"", collapse = ", "),
                     format(used, digits = 3)),
             class = "krein_singular_covariance_warning")
  used
}

# Gaussian classes with ML covariances (eq. 31), each (1 - l) S_k + l S_pooled
# with l = `pooling`. pooling = NULL (the default) takes l from the class
# sizes, pooling_by_class_sizes(), and at least 3/4 where a class covariance
# is singular with it (then the class covariances are singular only if the
# pooled one is). Where one is singular after that and no `ridge` is given,
# 1e-6 of the mean input variance is added to all of them, with a warning.
onda_singular_pooling <- 0.75
onda_gaussian_classes <- function(x, y, prior, ridge = NULL, pooling = NULL) {
  fit <- function(l, r) gaussian_classes(x, y, prior, denominator = "ml", ridge = r, pooling = l)
  # a class of one point takes the pooled covariance (class_poolings())
  used <- pooling %||% class_poolings(stats::setNames(tabulate(as.integer(y), nlevels(y)), levels(y)), ncol(x))
  model <- fit(used, ridge %||% 0)
  singular <- model$rcond < 1e-8
  if (is.null(pooling) && any(singular) && any(used < onda_singular_pooling)) {
    model <- fit(pmax(used, onda_singular_pooling), ridge %||% 0)
    singular <- model$rcond < 1e-8
  }
  if (is.null(ridge) && any(singular)) {
    model <- fit(model$pooling, onda_default_ridge(x, model$levels[singular]))
  }
  if (any(model$rcond <= .Machine$double.eps)) {
    krein_abort("A class covariance is singular even with the ridge; give a larger `ridge`.")
  }
  model
}

# The linear approximation of the posteriors (eq. 23):
#   L(C_k | x) = P_k [(m_k - m_T)' Sigma_T^-1 (x - m_T) + 1].
# Its values sum to 1 because sum_k P_k (m_k - m_T) = 0, which holds when m_T
# and Sigma_T are the mean and covariance of the mixture with the priors P_k:
# m_T = sum_k P_k m_k and Sigma_T = sum_i w_i (x_i - m_T)(x_i - m_T)' with w_i
# = P_k / n_k for x_i in class k (for the class proportions, the plain total
# mean and the total covariance of eq. (11), denominator n). Rounding would
# still break the sum where Sigma_T is ill-conditioned, so Sigma_T must be
# well-conditioned (its triangular factor's reciprocal condition number at
# least 1e-8, as for the Gaussian classes), and the coefficients are projected
# so that sum_k P_k D_k = 0 holds to rounding.
linear_estimator <- function(x, y, prior) {
  levels <- levels(y)
  prior <- prior / sum(prior)
  counts <- tabulate(as.integer(y), length(levels))
  means <- t(vapply(levels, function(l) colMeans(x[y == l, , drop = FALSE]), numeric(ncol(x))))
  if (ncol(x) == 1L) means <- matrix(means, ncol = 1L)
  total_mean <- colSums(means * prior)
  weights <- (prior / counts)[as.integer(y)]
  # Sigma_T = R'R from the weighted, centred rows (never formed)
  R <- cpp_triangular_factor(sqrt(weights) * (x - rep(total_mean, each = nrow(x))))
  if (factor_rcond(R) < 1e-8) {
    krein_abort(sprintf(
      "posterior = \"linear\" needs an invertible total covariance of `x`: at least %d points (one more than its columns) that do not lie on a common hyperplane, so no constant or collinear columns; %s.",
      ncol(x) + 1L,
      if (nrow(x) > ncol(x)) {
        sprintf("the %d points of `x` lie on one, or nearly", nrow(x))
      } else {
        sprintf("`x` has %d point%s in %d column%s", nrow(x), if (nrow(x) == 1L) "" else "s",
                ncol(x), if (ncol(x) == 1L) "" else "s")
      }))
  }
  # coefficients: column k is Sigma_T^-1 (m_k - m_T), with sum_k P_k D_k = 0
  directions <- backsolve(R, forwardsolve(t(R), t(means) - total_mean))
  directions <- directions - as.vector(directions %*% prior)
  model <- list(directions = directions, total_mean = total_mean, prior = prior)
  list(name = "linear", predict = function(new) linear_posteriors(model, new), linear = model,
       ridge = NULL)
}

linear_posteriors <- function(model, new) {
  scores <- (new - rep(model$total_mean, each = nrow(new))) %*% model$directions
  p <- (scores + 1) * rep(model$prior, each = nrow(new))
  # far from the data the scores are so large that the 1 of eq. 23 is lost
  # in their rounding, and the rows no longer sum to 1
  overflow <- which(rowSums(!is.finite(p)) > 0 | abs(rowSums(p) - 1) > 1e-8)
  if (length(overflow)) {
    krein_abort(sprintf("The linear posteriors (posterior = \"linear\") overflow at row%s %s of the new data: the points are too far from the training data for a linear function of them to be held in double precision with rows that sum to 1.",
                        if (length(overflow) > 1) "s" else "", format_indices(overflow)))
  }
  p
}

# SVM posteriors by pairwise coupling (eq. 34) through e1071.
svm_estimator <- function(x, y, svm_kernel, cost, svm_gamma, svm_args) {
  svm_kernel <- check_choice(svm_kernel, "svm_kernel", c("radial", "linear", "polynomial", "sigmoid"))
  cost <- check_number(cost, "cost", lower = 0)
  if (!is.null(svm_gamma)) svm_gamma <- check_number(svm_gamma, "svm_gamma", lower = 0)
  if (!is.list(svm_args)) krein_abort(sprintf("`svm_args` must be a list of arguments of e1071::svm(), not %s.", describe_value(svm_args)))
  reserved <- intersect(names(svm_args), c("x", "y", "kernel", "cost", "probability", if (!is.null(svm_gamma)) "gamma"))
  if (length(reserved)) {
    krein_abort(sprintf("`svm_args` must not set %s; give %s.", paste0("`", reserved, "`", collapse = ", "),
                        paste(c(x = "`x` as onda()'s `x`", y = "`y` as onda()'s `y`", kernel = "the kernel as `svm_kernel`",
                                cost = "the cost as `cost`", probability = "nothing: posteriors need probability = TRUE",
                                gamma = "the width once, as `svm_gamma`")[reserved], collapse = "; ")))
  }
  if (!requireNamespace("e1071", quietly = TRUE)) {
    krein_abort("posterior = \"svm\" needs the e1071 package: install.packages(\"e1071\").")
  }
  # e1071::svm() passes unknown arguments on through `...` and ignores them
  known <- setdiff(names(formals(utils::getS3method("svm", "default", envir = asNamespace("e1071")))), "...")
  if (length(svm_args) && (is.null(names(svm_args)) || any(!nzchar(names(svm_args))))) {
    krein_abort("`svm_args` must name every argument of e1071::svm() it sets.")
  }
  unknown <- setdiff(names(svm_args), known)
  if (length(unknown)) {
    krein_abort(sprintf("`svm_args` sets %s, which %s not %s of e1071::svm(); its arguments are %s.",
                        paste0("`", unknown, "`", collapse = ", "), if (length(unknown) > 1) "are" else "is",
                        if (length(unknown) > 1) "arguments" else "an argument",
                        paste0("`", setdiff(known, c("x", "y", "kernel", "cost", "probability")), "`", collapse = ", ")))
  }
  if (!is.null(svm_gamma)) svm_args$gamma <- svm_gamma
  model <- do.call(e1071::svm, c(list(x = x, y = y, kernel = svm_kernel, cost = cost, probability = TRUE),
                                 svm_args))
  levels <- levels(y)
  list(name = "svm", ridge = NULL, predict = function(new) {
    p <- attr(stats::predict(model, new, probability = TRUE), "probabilities")
    p[, levels, drop = FALSE]
  })
}

model_registration_onda <- function() register_krein_model(
  "onda", label = "Optimum nonlinear discriminant analysis", fit = "onda_fit",
  parameters = data.frame(parameter = c("posterior", "dim", "ridge", "svm_kernel", "cost", "svm_gamma"),
                          class = c("character", "numeric", "numeric", "character", "numeric", "numeric"),
                          label = c("posterior estimator", "dimension", "ridge", "SVM kernel", "SVM cost",
                                    "SVM kernel width"),
                          choices = c("gaussian, linear, svm", NA, NA, "radial, linear, polynomial, sigmoid",
                                      NA, NA),
                          stringsAsFactors = FALSE),
  needs_inputs = function(args) TRUE,
  types = "projection", predict_args = "rule", uses_kernel = FALSE, fitted_arguments = "posterior",
  ranges = function(args) list(ridge = c(-4, -2), cost = c(-1, 3)),
  default_grid = function(size, args, data) onda_default_grid(size, args, data)
)

# tune_krein()'s default grid (documented there): the estimator; for the SVM
# posterior its cost and, for the radial kernel, its width around the median
# heuristic of the inputs (e1071's radial kernel is exp(-gamma |u - v|^2),
# as kernel_rbf(); the inputs are those onda() gives the SVM)
onda_default_grid <- function(size, args, data) {
  if (!identical(args$posterior, "svm")) {
    return(if (is.null(args$posterior)) list(posterior = c("gaussian", "linear")) else list())
  }
  values <- list(cost = range_values(tuning_range("onda", "cost"), size))
  if (identical(model_argument("onda", args, "svm_kernel"), "radial") && is.null(args$svm_args$gamma)) {
    values$svm_gamma <- median_gamma(data$x) * width_factors(size)
  }
  values
}
