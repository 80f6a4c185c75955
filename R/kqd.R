#' Kernel quadratic discriminant analysis
#'
#' Quadratic discriminant analysis in the feature space of a kernel -- positive
#' definite or indefinite -- after Pekalska and Haasdonk (2009, Sec. IV and
#' Table II). Each class gets a Gaussian
#' model in the feature space; an object is assigned to the class with the
#' largest decision value
#' \deqn{f_j(x) = -\tfrac12 d_j^2(x) + b_j,}
#' where \eqn{d_j^2} is a squared kernel Mahalanobis distance to class \eqn{j}
#' and \eqn{b_j} a bias.
#'
#' @section Variants (Pekalska and Haasdonk 2009, Table II):
#' * `"IC+"`, `"IC-"` (invertible covariance, eqs. 14-17):
#'   \eqn{d^2 = n_j \tilde k_x' M^2 \tilde k_x}, with \eqn{M = (\tilde K + \alpha
#'   I)^{-1}} (`+`) or the pseudo-inverse of \eqn{\tilde K} with threshold
#'   \eqn{\alpha} (`-`); \eqn{\tilde K} the centred class kernel, \eqn{\tilde
#'   k_x} the centred kernel vector of \eqn{x} against the class.
#' * `"RC+"`, `"RC-"` (regularised covariance \eqn{C + \sigma^2 I}, eqs.
#'   18-21): \eqn{d^2 = (\tilde k_{xx} - \tilde k_x' M \tilde k_x) /
#'   \sigma^2} with \eqn{M = (\tilde K + n_j \sigma^2 I)^{-1}} (`+`) or
#'   \eqn{I / (n_j \sigma^2)} (`-`). Needs the self-similarity \eqn{k(x, x)}.
#' * `"FK+"`, `"FK-"` (full kernel space, eqs. 22-23): like IC but with the
#'   \eqn{n \times n} matrix \eqn{\tilde K_j H_j \tilde K_j'} built from all
#'   training points, so between-class information enters.
#'
#' For indefinite kernels the IKQD formulas regularise in the Krein sense:
#' \eqn{U(\Lambda + \alpha J)U'} for IC+, \eqn{\tilde K + n_j \sigma^2 U J U'} for
#' RC+ and \eqn{U J U'} for RC-, with \eqn{\tilde K = U \Lambda U'} and \eqn{J}
#' the signs of the eigenvalues (zero eigenvalues count as +1). IC- and the FK
#' variants are the same for both kinds of kernel (their matrices are
#' pseudo-inverted or positive semidefinite). With `indefinite = "auto"` a
#' class uses the IKQD formulas when its centred kernel has an eigenvalue below
#' \eqn{-10^{-8}} times its largest absolute eigenvalue (or, on the Cholesky
#' path, when \eqn{\tilde K + 10^{-8} \max_i |\tilde K_{ii}| I} has no Cholesky
#' factor). Eigenvalues within \eqn{100 n_j \epsilon} times the largest of zero
#' count as zero.
#'
#' As printed, the IKQD-RC+ quadratic form (eq. 20) can be negative for an
#' indefinite kernel: the derivation in Appendix I-C adds
#' \eqn{\sigma^2\tilde\psi(x)} where \eqn{C + \sigma^2 \mathcal{J}} gives
#' \eqn{\sigma^2 \mathcal{J} \tilde\psi(x)}. krein implements the formula as
#' published, which reproduces the paper's results; its values are then
#' indefinite quadratic forms rather than squared distances.
#'
#' @section Regularisation and the path:
#' `reg` is \eqn{\alpha_j} for IC and FK (a ridge or pseudo-inverse threshold on
#' eigenvalues of centred kernel matrices, so it scales with the kernel) and
#' \eqn{\sigma_j^2} for RC. The defaults, `1e-3` for IC and FK and `0.1` for RC,
#' suit kernels with \eqn{k(x, x) = 1} such as the Gaussian; tune them (paper
#' 000 searches eight values on a log scale). A vector of values is a
#' regularisation path: one eigendecomposition per class serves all of them,
#' each extra value costing only \eqn{O(n n_j)} per class, and
#' `predict(fit, newdata, reg = )` picks one. A matrix with one column per
#' class gives per-class values, one path point per row. A single value of
#' IC+ or RC+ with the positive definite formulas is fitted by a Cholesky
#' factorisation instead of an eigendecomposition. The FK variants always use
#' the eigenpairs of \eqn{\tilde K_j H_j \tilde K_j'} (from an \eqn{n_j \times
#' n_j} problem): its rank is below \eqn{n_j}, so prediction costs
#' \eqn{O(n r)} per point for its numerical rank \eqn{r}.
#'
#' @section Bias:
#' * `"error"` (Pekalska and Haasdonk 2009, Sec. IV-D): for each pair of
#'   classes, the bias difference minimising their training errors -- the
#'   middle of the widest
#'   interval of optimal thresholds (closed with the mean gap between scores
#'   when it is unbounded) -- and then the biases, summing to zero, that fit
#'   these differences in least squares. Priors do not enter.
#' * `"map"`: \eqn{b_j = -\frac12 \sum_i \log \mu_i + \log P(\omega_j)}, with
#'   \eqn{\mu_i} the eigenvalues of the (regularised) class covariance in the
#'   span of the class, \eqn{|\lambda_i| / n_j} (plus \eqn{\alpha / n_j} for
#'   IC+ and FK+, plus \eqn{\sigma^2} for RC+), over the eigenvalues counted
#'   as nonzero (and above \eqn{\alpha} for IC- and FK-). As the paper warns,
#'   this is numerically fragile: krein warns when the classes keep different
#'   numbers of eigenvalues or the smallest kept one is below \eqn{10^{-8}}
#'   times the largest. RC- has no class covariance model: its MAP bias is the
#'   log prior.
#' * `"none"`: \eqn{b_j = \log P(\omega_j)}.
#'
#' @param x A formula, a numeric matrix or data frame, a precomputed kernel
#'   (see [krein_inputs]).
#' @param y The class labels (not for the formula method).
#' @param formula,data,subset,na.action As in [MASS::lda()]: see [krein_inputs].
#' @param kernel A kernel (see [kernels]), or `"precomputed"` when `x` is a
#'   kernel matrix.
#' @param variant One of `"RC+"`, `"RC-"`, `"IC+"`, `"IC-"`, `"FK+"`, `"FK-"`.
#' @param reg The regularisation: `NULL` for the variant's default, a positive
#'   number, a vector of positive numbers (a path), or a matrix with one column
#'   per class.
#' @param indefinite `"auto"`, `"yes"` (IKQD formulas for every class) or
#'   `"no"` (positive definite formulas for every class).
#' @param bias `"error"`, `"map"` or `"none"`.
#' @param prior Class prior probabilities in the order of the levels; `NULL`
#'   for the class proportions.
#' @param threads Threads for the kernel matrices; `NULL` uses
#'   `getOption("krein.threads")`.
#' @param ... Passed to the default method.
#' @returns An object of class `c("kqd", "krein_model")`: a list with
#'   `variant`, `reg` (a matrix: one row per path value, one column per class),
#'   `bias` (same shape), `training_error` (one per path value), `best` (the
#'   path value with the lowest training error, the default of `predict()`),
#'   `indefinite` (per class: were the IKQD formulas used), `signature` (per
#'   class: \eqn{(p, q, z)} of the centred class kernel, `NA` where a Cholesky
#'   factorisation replaced the eigendecomposition and for FK), `levels`,
#'   `prior`, `counts`, the kernel and what prediction needs.
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (Sections, equations and tables are cited
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#'
#' Haasdonk, B. and Pekalska, E. (2010). Classification with kernel
#' Mahalanobis distance classifiers. In *Advances in Data Analysis, Data
#' Handling and Business Intelligence*, Springer.
#' \doi{10.1007/978-3-642-01044-6_32}.
#' @family kernel quadratic discriminants
#' @examples
#' set.seed(1)
#' train <- checkerboard(200, size = 2)
#' fit <- kqd(y ~ x1 + x2, data = train, kernel = kernel_rbf(2), variant = "RC+")
#' fit
#' test <- checkerboard(200, size = 2)
#' mean(predict(fit, test) != test$y)
#' head(predict(fit, test, type = "prob"))
#' # a regularisation path: one decomposition, several values
#' path <- kqd(y ~ x1 + x2, data = train, kernel = kernel_rbf(2), variant = "IC-",
#'             reg = c(1e-4, 1e-3, 1e-2))
#' path$training_error
#' @export
kqd <- function(x, ...) UseMethod("kqd")

#' @rdname kqd
#' @export
kqd.formula <- function(formula, data, subset, na.action, kernel = kernel_rbf(), ...) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel)
  fit <- kqd_fit(inputs, ...)
  fit$call <- match.call()
  fit
}

#' @rdname kqd
#' @export
kqd.default <- function(x, y, kernel = kernel_rbf(), variant = "RC+", reg = NULL,
                        indefinite = c("auto", "yes", "no"), bias = c("error", "map", "none"),
                        prior = NULL, na.action = NULL, threads = NULL, ...) {
  inputs <- inputs_from_xy(x, y, kernel, na.action)
  fit <- kqd_fit(inputs, variant = variant, reg = reg, indefinite = indefinite, bias = bias,
                 prior = prior, threads = threads)
  fit$call <- match.call()
  fit
}

kqd_variants <- c("RC+", "RC-", "IC+", "IC-", "FK+", "FK-")

#' The fit behind every kqd() interface
#' @noRd
kqd_fit <- function(inputs, variant = "RC+", reg = NULL, indefinite = c("auto", "yes", "no"),
                    bias = c("error", "map", "none"), prior = NULL, threads = NULL) {
  variant <- check_choice(variant, "variant", kqd_variants)
  indefinite <- match_choice(indefinite, "indefinite", c("auto", "yes", "no"))
  bias <- match_choice(bias, "bias", c("error", "map", "none"))
  threads <- check_threads(threads)
  y <- inputs$y
  levels <- levels(y)
  counts <- as.vector(table(y))
  names(counts) <- levels
  prior <- check_prior(prior, levels, counts)
  reg <- check_kqd_reg(reg, variant, levels)
  check_class_sizes(counts, variant)

  K <- training_kernel(inputs, threads)
  core <- cpp_kqd_fit(K, as.integer(y), length(levels), variant, reg, indefinite,
                      allow_cholesky = bias != "map")
  distances <- cpp_kqd_distances(core, K, if (startsWith(variant, "RC")) diag(K) else NULL)
  bias_matrix <- kqd_biases(bias, core, distances, y, prior, reg, variant)
  training_error <- vapply(seq_len(nrow(reg)), function(k) {
    f <- -distances[[k]] / 2 + rep(bias_matrix[k, ], each = nrow(K))
    mean(class_from_decisions(f, levels) != y)
  }, numeric(1))

  classes <- core$classes
  indefinite_used <- stats::setNames(vapply(classes, `[[`, logical(1), "indefinite"), levels)
  negative_found <- vapply(classes, `[[`, logical(1), "negative_found")
  signature <- t(vapply(classes, function(cl) {
    s <- cl$signature
    s[s < 0] <- NA_integer_
    as.integer(s)
  }, integer(3)))
  dimnames(signature) <- list(levels, c("p", "q", "z"))
  kqd_warnings(indefinite, negative_found, classes, levels)

  structure(
    list(variant = variant, reg = reg, bias = bias_matrix, bias_method = bias,
         training_error = training_error, best = which.min(training_error),
         indefinite = indefinite_used, indefinite_mode = indefinite, signature = signature,
         levels = levels, prior = prior, counts = counts, kernel = inputs$kernel,
         spec = inputs$spec, x = inputs$x, core = core, threads = threads,
         training_distances = distances, na_action = inputs$na_action),
    class = c("kqd", "krein_model")
  )
}

kqd_default_reg <- function(variant) if (startsWith(variant, "RC")) 0.1 else 1e-3

check_kqd_reg <- function(reg, variant, levels) {
  c_classes <- length(levels)
  if (is.null(reg)) reg <- kqd_default_reg(variant)
  what <- sprintf("`reg` must be a positive number, a vector of positive numbers (a path) or a matrix with one column per class (%d)",
                  c_classes)
  if (!is.numeric(reg) || length(reg) == 0L) {
    krein_abort(sprintf("%s, not %s.", what, describe_value(reg)))
  }
  if (anyNA(reg) || any(!is.finite(reg))) krein_abort(sprintf("%s; it has missing or infinite values.", what))
  if (any(reg <= 0)) krein_abort(sprintf("%s; it has values <= 0.", what))
  if (is.matrix(reg)) {
    if (ncol(reg) != c_classes) {
      krein_abort(sprintf("%s, not a matrix with %d columns.", what, ncol(reg)))
    }
  } else {
    reg <- matrix(reg, nrow = length(reg), ncol = c_classes)
  }
  storage.mode(reg) <- "double"
  dimnames(reg) <- list(NULL, levels)
  reg
}

check_prior <- function(prior, levels, counts) {
  if (is.null(prior)) return(stats::setNames(counts / sum(counts), levels))
  if (!is.numeric(prior) || length(prior) != length(levels) || anyNA(prior) || any(prior <= 0)) {
    krein_abort(sprintf("`prior` must be %d positive probabilities, one per class, not %s.",
                        length(levels), describe_value(prior)))
  }
  if (abs(sum(prior) - 1) > 1e-8) krein_abort(sprintf("`prior` must sum to 1, not %s.", format(sum(prior))))
  if (!is.null(names(prior))) {
    if (!setequal(names(prior), levels)) krein_abort("`prior` names must be the class levels.")
    prior <- prior[levels]
  }
  stats::setNames(as.double(prior), levels)
}

# A class of one point: its centred kernel is 0. IC and FK- then carry no
# information (every distance would be 0); RC (distance to the point, scaled)
# and FK+ (ridge only) still work.
check_class_sizes <- function(counts, variant) {
  small <- counts < 2
  if (any(small) && variant %in% c("IC+", "IC-", "FK-")) {
    krein_abort(sprintf(
      "`y` has a class with a single point (%s); %s needs at least two points per class (RC+, RC- and FK+ work with one).",
      paste0("\"", names(counts)[small], "\"", collapse = ", "), variant))
  }
}

kqd_biases <- function(method, core, distances, y, prior, reg, variant) {
  c_classes <- nlevels(y)
  out <- matrix(0, nrow(reg), c_classes, dimnames = list(NULL, levels(y)))
  for (k in seq_len(nrow(reg))) {
    out[k, ] <- switch(method,
      error = cpp_kqd_error_biases(-distances[[k]] / 2, as.integer(y), c_classes),
      none = log(prior),
      map = kqd_map_bias(core, reg[k, ], variant) + log(prior)
    )
  }
  out
}

# MAP bias (paper 000, Sec. IV-D, first paragraph): -1/2 sum log of the class
# covariance eigenvalues. Documented in ?kqd; fragile by nature, so it warns.
kqd_map_bias <- function(core, reg, variant) {
  if (variant == "RC-") return(rep(0, length(core$classes)))
  kept <- integer(length(core$classes))
  smallest_ratio <- numeric(length(core$classes))
  b <- vapply(seq_along(core$classes), function(j) {
    cl <- core$classes[[j]]
    n_j <- length(cl$members)
    lambda <- abs(cl$values)
    mu <- switch(variant,
      "IC+" = (lambda + reg[j]) / n_j,
      "FK+" = (lambda + reg[j]) / n_j,
      "IC-" = lambda[lambda >= reg[j]] / n_j,
      "FK-" = lambda[lambda >= reg[j]] / n_j,
      "RC+" = lambda / n_j + reg[j])
    kept[j] <<- length(mu)
    smallest_ratio[j] <<- if (length(mu)) min(mu) / max(mu) else 1
    -0.5 * sum(log(mu))
  }, numeric(1))
  if (length(unique(kept)) > 1L || any(smallest_ratio < 1e-8)) {
    krein_warn(paste0(
      "The MAP bias is numerically unreliable here (the classes keep ", paste(kept, collapse = "/"),
      " eigenvalues; small eigenvalues dominate the log-determinants). Consider bias = \"error\"."))
  }
  b
}

kqd_warnings <- function(mode, negative_found, classes, levels) {
  if (mode == "no" && any(negative_found)) {
    krein_warn(sprintf(
      "The centred kernel of class%s %s is indefinite, but `indefinite = \"no\"` forces the positive definite formulas.",
      if (sum(negative_found) > 1) "es" else "", paste0("\"", levels[negative_found], "\"", collapse = ", ")))
  }
  singular <- vapply(classes, `[[`, logical(1), "regularised_singular")
  if (any(singular)) {
    krein_warn(sprintf(
      "The regularised kernel of class%s %s is singular or indefinite (an eigenvalue of the centred kernel is near -reg); use indefinite = \"yes\" or a larger `reg`.",
      if (sum(singular) > 1) "es" else "", paste0("\"", levels[singular], "\"", collapse = ", ")))
  }
}

# Which path point: NULL -> the best; else a value of the path (a number for a
# shared path, or one value per class).
kqd_path_index <- function(object, reg) {
  if (is.null(reg)) return(object$best)
  path <- object$reg
  if (!is.numeric(reg) || anyNA(reg)) {
    krein_abort(sprintf("`reg` must be one of the fitted regularisation values, not %s.", describe_value(reg)))
  }
  matches <- if (length(reg) == 1L) {
    which(apply(path, 1, function(row) all(abs(row - reg) <= 1e-10 * abs(reg))))
  } else if (length(reg) == ncol(path)) {
    which(apply(path, 1, function(row) all(abs(row - reg) <= 1e-10 * abs(reg))))
  } else integer()
  if (length(matches) == 0L) {
    shown <- if (all(path == path[, 1])) format(path[, 1], digits = 4) else sprintf("rows of a %d x %d matrix", nrow(path), ncol(path))
    krein_abort(sprintf("`reg` must be one of the fitted regularisation values (%s), not %s; refit to use another value.",
                        paste(shown, collapse = ", "), describe_value(reg)))
  }
  matches[1]
}

#' Predict with a kernel quadratic discriminant
#'
#' @param object A `kqd` fit.
#' @param newdata New data in the form the model was fitted on: a data frame
#'   for formula fits, a matrix or data frame for matrix fits, the kernel of
#'   the new points against the training points for precomputed fits (with
#'   self-similarities, via [precomputed_kernel()], for RC variants) or their
#'   dissimilarities for [kernel_from_dissimilarity()] fits. Missing: the
#'   training data.
#' @param type `"class"` (a factor with the training levels), `"prob"` (the
#'   posterior under the model's Gaussian assumption: the softmax of the
#'   decision values, an \eqn{n \times c} matrix whose rows sum to 1),
#'   `"decision"` (the decision values \eqn{f_j}) or `"distance"` (the
#'   squared kernel Mahalanobis distances \eqn{d_j^2}).
#' @param reg Which value of the regularisation path: one of the fitted
#'   values; `NULL` takes the one with the lowest training error.
#' @param ... Unused.
#' @returns See `type`; matrices have one row per row of `newdata` and one
#'   column per class.
#' @family kernel quadratic discriminants
#' @examples
#' set.seed(1)
#' train <- xor4()
#' fit <- kqd(y ~ ., data = train, kernel = kernel_rbf(1), bias = "none")
#' predict(fit, train, type = "distance")
#' @export
predict.kqd <- function(object, newdata, type = c("class", "prob", "decision", "distance"),
                        reg = NULL, ...) {
  type <- match_choice(type, "type", c("class", "prob", "decision", "distance"))
  k <- kqd_path_index(object, reg)
  rc <- startsWith(object$variant, "RC")
  if (missing(newdata) || is.null(newdata)) {
    # the training points: their distances were computed by the fit
    d <- object$training_distances[[k]]
    dimnames(d) <- list(rownames(object$x), object$levels)
    return(kqd_from_distances(object, d, k, type))
  }
  kernels <- new_data_kernels(object, newdata, need_self = rc)
  kqd_outputs(object, kernels, k, type)
}

# The kernels of points given as a numeric matrix in the fit's input space
# (training data, plot grids), bypassing the newdata checks.
points_kernels <- function(object, points, need_self) {
  list(K = evaluate_kernel(object$kernel, points, object$x, object$threads),
       self = if (need_self) kernel_self(object$kernel, points),
       names = rownames(points))
}

kqd_outputs <- function(object, kernels, k, type) {
  d <- cpp_kqd_distances(object$core, kernels$K, kernels$self)[[k]]
  dimnames(d) <- list(kernels$names, object$levels)
  kqd_from_distances(object, d, k, type)
}

kqd_from_distances <- function(object, d, k, type) {
  if (type == "distance") return(d)
  f <- -d / 2 + rep(object$bias[k, ], each = nrow(d))
  switch(type,
    decision = f,
    prob = softmax_rows(f),
    class = stats::setNames(class_from_decisions(f, object$levels), rownames(d))
  )
}

#' @export
print.kqd <- function(x, ...) {
  cat("Kernel quadratic discriminant (", x$variant, "), ", length(x$levels), " classes, ",
      sum(x$counts), " training points\n", sep = "")
  cat("  kernel: ", kernel_description(x$kernel), "\n", sep = "")
  cat("  indefinite formulas for: ", if (any(x$indefinite)) paste(names(x$indefinite)[x$indefinite], collapse = ", ") else "no class", "\n", sep = "")
  reg_name <- if (startsWith(x$variant, "RC")) "sigma^2" else "alpha"
  if (nrow(x$reg) > 1L) {
    cat("  ", reg_name, " path of ", nrow(x$reg), " values; best ", format_reg_row(x$reg[x$best, ]),
        " with training error ", format(x$training_error[x$best], digits = 3), "\n", sep = "")
  } else {
    cat("  ", reg_name, " = ", format_reg_row(x$reg[1, ]), ", bias by ", x$bias_method,
        ", training error ", format(x$training_error, digits = 3), "\n", sep = "")
  }
  invisible(x)
}

format_reg_row <- function(row) {
  if (all(row == row[1])) format(row[1], digits = 4) else paste0("(", paste(format(row, digits = 4), collapse = ", "), ")")
}

#' @export
summary.kqd <- function(object, ...) {
  classes <- data.frame(n = as.vector(object$counts), prior = as.vector(object$prior),
                        object$signature, indefinite = as.vector(object$indefinite),
                        row.names = object$levels, check.names = FALSE)
  path <- data.frame(object$reg, training_error = object$training_error, check.names = FALSE)
  names(path)[seq_len(ncol(object$reg))] <- paste0("reg[", object$levels, "]")
  biases <- object$bias
  colnames(biases) <- paste0("b[", object$levels, "]")
  path <- cbind(path, biases)
  structure(list(variant = object$variant, bias_method = object$bias_method, classes = classes,
                 path = path, best = object$best, kernel = object$kernel),
            class = "summary.kqd")
}

#' @export
print.summary.kqd <- function(x, ...) {
  cat("Kernel quadratic discriminant, variant ", x$variant, ", bias by ", x$bias_method, "\n\n", sep = "")
  cat("Classes (signature p, q, z of the centred class kernel):\n")
  print(x$classes)
  cat("\nRegularisation path (best: row ", x$best, "):\n", sep = "")
  print(x$path, digits = 4)
  invisible(x)
}

#' Plot a kernel quadratic discriminant
#'
#' For two input variables: the decision regions over the plane with the
#' training points and the decision boundary. Otherwise (or for precomputed
#' kernels): a pairs plot of the training points' squared distances to the
#' classes, coloured by class -- for two classes the KQD boundary is a line
#' parallel to the diagonal there (Haasdonk and Pekalska 2010, Sec. 3.3).
#'
#' @param x A `kqd` fit.
#' @param reg Which value of the regularisation path (see [predict.kqd()]).
#' @param resolution Grid points per axis for decision regions.
#' @param main The title; `NULL` for one that describes the fit.
#' @param ... Passed to the plotting functions.
#' @returns `x`, invisibly.
#' @family kernel quadratic discriminants
#' @export
plot.kqd <- function(x, reg = NULL, resolution = 120L, main = NULL, ...) {
  k <- kqd_path_index(x, reg)
  reg_value <- x$reg[k, ]
  y <- factor(x$levels[class_labels(x$core$classes, x$spec$n_train)], levels = x$levels)
  main <- main %||% sprintf("KQD %s, reg = %s", x$variant, format_reg_row(reg_value))
  rc <- startsWith(x$variant, "RC")
  if (!is.null(x$x) && ncol(x$x) == 2L) {
    plot_decision_regions(x$x, y, function(grid) {
      kqd_outputs(x, points_kernels(x, as.matrix(grid), rc), k, "class")
    }, resolution = resolution, main = main, ...)
  } else {
    d <- stats::predict(x, type = "distance", reg = reg_value)
    col <- hcl.colors(length(x$levels), "Dark 3")
    graphics::pairs(d, col = col[as.integer(y)], pch = 19, main = main,
                    labels = paste("d2 to", x$levels), ...)
  }
  invisible(x)
}

# Training labels (as integer codes) from the class memberships of the core
class_labels <- function(classes, n) {
  labels <- integer(n)
  for (j in seq_along(classes)) labels[classes[[j]]$members] <- j
  labels
}
