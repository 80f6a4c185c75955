# Kernel Mahalanobis distances (kernel_mahalanobis()) and kmdc(), the
# classifier on them: its fit, the regularisation path and its
# cross-validated choice, prediction, print, summary, plot and registration.

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
#' @param distance `"RC"` (the regularised covariance, eq. 7) or `"IC"` (the
#'   invertible covariance, eq. 4).
#' @param reg \eqn{\sigma^2} (RC) or \eqn{\alpha} (IC): one positive number, or
#'   one per class.
#' @param newdata The points to measure, in the form of `x` (as
#'   [predict.krein_model()] takes them; a precomputed kernel with the
#'   self-similarities of the new points for `"RC"`); `NULL`: the training
#'   points (without the rows `na.action` dropped, or with `NA` rows for
#'   them under [na.exclude()]). Rows of `newdata` with missing values give
#'   `NA` rows.
#' @param na.action What to do with training points with missing values in
#'   `x` or `y`, as in the models (see [krein_inputs]): `NULL` (the default)
#'   follows `getOption("na.action")` (na.omit unless set); [na.omit()] or
#'   [na.exclude()] drop them; [na.fail()] makes them an error.
#' @param indefinite As in [kqd()].
#' @inheritParams krein_inputs
#' @returns A matrix with one row per point of `newdata` and one column per
#'   class.
#' @references
#' Haasdonk, B. and Pekalska, E. (2010). Classification with kernel
#' Mahalanobis distance classifiers. In *Advances in Data Analysis, Data
#' Handling and Business Intelligence*, Studies in Classification, Data
#' Analysis, and Knowledge Organization, Springer, 351-361.
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
#' kernel_mahalanobis(xor[, 1:2], xor$y, kernel_rbf(1), distance = "IC", reg = 1e-4, scale = FALSE)
#' kernel_mahalanobis(xor[, 1:2], xor$y, kernel_rbf(1), distance = "RC", reg = 1, scale = FALSE)
#' @export
kernel_mahalanobis <- function(x, y, kernel = kernel_rbf(), distance = c("RC", "IC"), reg = NULL,
                               newdata = NULL, indefinite = c("auto", "yes", "no"),
                               na.action = NULL, threads = NULL, scale = TRUE) {
  distance <- match_choice(distance, "distance", c("RC", "IC"))
  check_kernel_argument(kernel, x)
  # the models' input path (and their scaling) and, in mahalanobis_model(),
  # their fit_model()
  inputs <- inputs_from_xy(x, y, kernel, na.action, min_classes = 1L, scale = scale)
  fit <- mahalanobis_model(inputs, distance, reg, indefinite, threads)
  stats::predict(fit, newdata, type = "distance")
}

#' The kqd fit whose distances are d2_RC (RC+) or d2_IC (IC-), without biases:
#' the distance model of kernel_mahalanobis() and kmdc()
#' @noRd
mahalanobis_model <- function(inputs, distance, reg, indefinite, threads) {
  # one distance per class: the single default value, not kqd()'s default path
  if (is.null(reg)) reg <- kqd_default_reg(if (distance == "RC") "RC+" else "IC-")
  distance_path_model(inputs, distance, per_class_reg(reg, nlevels(inputs$y)), indefinite, threads, landmarks = NULL)
}

#' The same for a resolved `reg`: NULL (the default) or a matrix with one row
#' per path value and one column per class (kqd's path: one decomposition
#' per class serves every row), and resolved `landmarks` (resolve_landmarks()):
#' NULL for the full KQD, else Ny-KQD on them
#' @noRd
distance_path_model <- function(inputs, distance, reg, indefinite, threads, landmarks) {
  # through fit_model(), as every fit: kqd's checks, defaults and core errors;
  # kmdc chooses its path value itself (kmdc_fit()): no selection here; a
  # class of one point is kmdc_fit()'s one warning, not kqd's too. The form
  # is always given: kqd's default would choose one by itself.
  withCallingHandlers(
    fit_model("kqd", inputs, list(variant = if (distance == "RC") "RC+" else "IC-", reg = reg,
                                  indefinite = indefinite, bias = "none", select = "training",
                                  landmarks = if (!is.null(landmarks)) landmarks_argument(landmarks, inputs),
                                  threads = threads), call = NULL),
    krein_one_row_class_warning = function(w) invokeRestart("muffleWarning"))
}

# kmdc's `reg`: one number, one per class, or a path -- a matrix with one row
# per value and one column (shared by the classes) or one per class. Returns
# NULL or the matrix kqd_fit() takes (which validates the values).
kmdc_reg_path <- function(reg, n_classes) {
  if (is.null(reg)) return(NULL)
  if (is.numeric(reg) && is.matrix(reg) && nrow(reg) > 0L && ncol(reg) %in% c(1L, n_classes)) {
    return(matrix(reg, nrow = nrow(reg), ncol = n_classes))
  }
  if (is.numeric(reg) && !is.matrix(reg) && length(reg) %in% c(1L, n_classes)) {
    return(matrix(reg, nrow = 1L, ncol = n_classes, byrow = TRUE))
  }
  krein_abort(sprintf("`reg` must be one number or one per class (%d), or a path: a matrix with one row per value and one column (shared by the classes) or one per class; not %s.",
                      n_classes, describe_value(reg)))
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
#' point is mapped to the \eqn{c}-dimensional space of its squared kernel
#' Mahalanobis distances to the classes ([kernel_mahalanobis()]), where a
#' Fisher (`"lda"`, [MASS::lda()]) or quadratic (`"qda"`, [MASS::qda()])
#' discriminant is trained. This uses the between-class information the
#' class-wise distances lack; KQD itself is a line parallel to the diagonal in
#' that space for two classes.
#'
#' @section The discriminant's training distances:
#' With `distance = "RC"` the discriminant is trained, as in the paper, on the
#' training points' distances to the classes. With `distance = "IC"` it is
#' trained on out-of-fold distances: each training point's distances come from
#' a distance model fitted without it (stratified 10-fold cross-validation, or
#' as many folds as the smallest class has points; the folds are drawn from
#' R's random number generator, so [set.seed()] reproduces a fit, and are
#' kept in the fit as `folds`); the distance model used for prediction is
#' still fitted on all points. The reason: on its own training points
#' \eqn{d_{IC}^2} is degenerate. With \eqn{\alpha} below the nonzero
#' eigenvalues of a class's centred kernel, every training point of class
#' \eqn{j} is at distance \eqn{n_j - 1} from its class (eq. 4 gives
#' \eqn{n_j} times a diagonal entry of the projection onto the span of the
#' centred class points, \eqn{1 - 1/n_j}), whatever the point: the
#' discriminant would learn a constant that no new point shows (and
#' [MASS::lda()] stops with "variables appear to be constant within
#' groups"). Regularising the discriminant's covariance, as PRTools does,
#' would remove the error but not the mismatch between training and new
#' points' distances; out-of-fold distances are distributed as those of new
#' points. \eqn{d_{RC}^2} has no such degeneracy (the regularisation keeps
#' the training points' distances informative), and the RC classifiers keep
#' the paper's training. IC therefore needs at least three points per class.
#'
#' The training predictions of an IC fit -- `fitted()`, `predict(fit)`
#' without `newdata` (every type, `"distance"` included) and the training
#' error that `print()` and `summary()` show -- use these same out-of-fold
#' distances, so the training error is the discriminant's out-of-fold error,
#' comparable to a test error; in-sample IC distances would make it look
#' nearly perfect.
#'
#' @section Nystroem form:
#' With `landmarks`, the distances are those of the Nystroem KQD (Ny-KQD,
#' [kqd()] with `landmarks`; see its section Nystroem KQD): the squared
#' kernel Mahalanobis distances in the feature space of the Nystroem
#' approximation on \eqn{m} landmarks, the discriminant as above on them.
#' The landmarks are selected once and serve the distance model, the
#' out-of-fold distances of IC and every fold of the path's
#' cross-validation; each fold's distance model is merged from the class
#' moments within the folds that one pass over the training points gathers,
#' and a pass per fold gives its distances. No \eqn{n \times n} matrix is
#' formed: each pass over the training points costs \eqn{O(n m^2)} time
#' (the full form: \eqn{O(n^3)}), and memory grows linearly in \eqn{n}.
#' The fit keeps the
#' landmarks (`landmarks`), not the training data (`x` is `NULL`); with every
#' training point a landmark it is the full kmdc (to rounding). Where a
#' class has one point, the default `reg` of RC is Ny-KQD's: the single
#' value 0.1 (see [kqd()]).
#'
#' @section Prediction:
#' [predict()][predict.krein_model()] gives `type = "class"` (the most
#' probable class), `"prob"` (the discriminant's posterior, as
#' [MASS::predict.lda()] and [MASS::predict.qda()] give it with their
#' default plug-in method), `"decision"` (the discriminant functions in the
#' distance space, the log posteriors up to a constant per point: for `"lda"`
#' \eqn{z' \Sigma^{-1} m_j - \frac12 m_j' \Sigma^{-1} m_j + \log \pi_j}, for
#' `"qda"` \eqn{-\frac12 (z - m_j)' \Sigma_j^{-1} (z - m_j) - \frac12 \log
#' |\Sigma_j| + \log \pi_j}, with \eqn{z} the point's squared distances,
#' \eqn{m_j} and \eqn{\Sigma_j} the class means and covariances of the
#' training points' squared distances and \eqn{\pi_j} the prior) and
#' `"distance"` (the squared kernel Mahalanobis distances to the classes, the
#' discriminant's inputs); its argument `reg` picks a value of a fitted
#' regularisation path. Precomputed fits with `distance = "RC"` need the
#' self-similarities of new points: `precomputed_kernel(K_new, self = )`.
#' [plot()][plot.krein_model()] draws the decision regions for two input
#' columns, and otherwise the points in the space of their squared distances
#' to the classes, where the discriminant works.
#'
#' @inheritParams krein_inputs
#' @inheritParams kernel_mahalanobis
#' @inheritParams kqd
#' @param formula,data,subset,na.action As in [MASS::lda()]: see [krein_inputs].
#' @param distance `"RC"` or `"IC"`: the distances of [kernel_mahalanobis()].
#' @param landmarks `"auto"` (the default): the full form up to a number of
#'   training rows, the Nystroem form on random landmarks beyond (see
#'   [krein_forms]); `NULL` (or `"none"`, which interfaces that drop `NULL` arguments can pass, such as parsnip's `set_engine()`) for the full form; for the Nystroem form (see
#'   Nystroem form) the landmarks as [kqd()] takes them: `"meb"`,
#'   `"kmeans"` or `"random"` to select them with [select_landmarks()], a
#'   vector of training-row indices, or a `krein_landmarks` object from
#'   [select_landmarks()] on the same training data (with the same
#'   `scale`).
#' @param classifier `"lda"` or `"qda"`, or `NULL` (the default): chosen
#'   with `reg` by the cross-validation of the default path (`distance =
#'   "RC"`, `reg = NULL`, `select = "cv"`) when every class has more points
#'   than there are classes (MASS::qda()'s covariance of the \eqn{c}
#'   squared distances): `"qda"` where its lowest cross-validated number of
#'   errors \eqn{e_{qda}} is below `"lda"`'s \eqn{e_{lda}} by more than
#'   \eqn{\sqrt{e_{lda} + e_{qda}}} (a bound on the standard error of the
#'   difference, counting every error of either as a disagreement), else
#'   `"lda"`, the simpler discriminant; otherwise `"lda"`. A `"qda"` that
#'   MASS refuses on some fold or path value (collinear distances within a
#'   class) only leaves that candidate out. The fit records the choice in
#'   `classifier` and each candidate's lowest cross-validated error in
#'   `classifier_cv_error`. Why: over ten 70/30 splits of nineteen public
#'   data sets (the benchmark `bench/real_data.R` of krein's source
#'   repository) the quadratic discriminant was up to 7 points more
#'   accurate on average (mlbench's Vehicle, 0.696 with `"lda"` against
#'   0.765; LetterRecognition 0.791 against 0.856) and up to 6 less
#'   (kernlab's promotergene by formula, 0.822 against 0.766). This choice
#'   took `"qda"` on every split of those two and `"lda"` on every split of
#'   promotergene: 0.838 on average over the nineteen sets, against 0.825
#'   with `"lda"` (better on 52 of the 190 splits, worse on 5, by at most
#'   6.7 points).
#' @param reg \eqn{\sigma^2} (RC) or \eqn{\alpha} (IC): `NULL` for the
#'   default -- for RC the cross-validated path of [kqd()] (seven values
#'   \eqn{s \cdot 10^{-5}, \dots, s \cdot 10}, \eqn{s} the spread of the
#'   training kernel, \eqn{\mathrm{tr}(HKH)/n}; see its Regularisation and
#'   the path), for IC 0.001; one positive number (e.g. `reg = 0.1` for a
#'   single RC value), or one per class; or a
#'   regularisation path, a matrix with one row per value and one column
#'   (shared by the classes) or one per class. A path costs one
#'   decomposition per class (and, for IC, per fold of the out-of-fold
#'   distances), as [kqd()]'s does; each value gets its own discriminant,
#'   and `predict(fit, newdata, reg = )` picks one. By default
#'   (`select = "cv"`) that is the value with the lowest `nfolds`-fold
#'   cross-validated error of the whole classifier (distance model and
#'   discriminant refitted on each fold's training part; folds stratified by
#'   class and dealt in turn, as [kqd()]'s, so the choice does not depend on
#'   the seed), ties to the more regularised (larger) value,
#'   as for [kqd()] (see its Regularisation and the path); `select =
#'   "training"` takes the lowest training error of the discriminant
#'   instead (on out-of-fold distances for IC), ties to the first value. [tune_krein()] tunes `reg` on its own folds.
#' @param select,nfolds How the default value of a path is chosen: `"cv"`
#'   or `"training"`, and the number of folds of `"cv"` (at most the size of
#'   the smallest class), as in [kqd()]. A class too small for the
#'   cross-validation (fewer than 3 points for RC, 4 for IC) falls back to
#'   the training error with a warning.
#' @param prior Class prior probabilities of the discriminant, in the order of
#'   the levels; `NULL` for the class proportions.
#' @param ... Not used: every argument after the data must be named in full
#'   (an unknown name is an error).
#' @returns An object of class `c("kmdc", "krein_model")` (see
#'   [predict.krein_model()], [summary.krein_model()] and
#'   [plot.krein_model()]) with `distance`, `classifier`, `prior`, the
#'   distance model (`distances`, a [kqd()] fit with variant RC+ or IC- and no
#'   biases; its `reg` holds the path), the discriminant (`discriminant`, the [MASS::lda()] or
#'   [MASS::qda()] fit on the training points' squared distances,
#'   out-of-fold for IC; for a path the best value's, all of them in
#'   `discriminants`), `path_error` (the discriminant's training error per
#'   path value, on out-of-fold distances for IC), `cv_error`, `cv_folds`,
#'   `select` and `best` (as in [kqd()]), `folds` (the fold of each training
#'   point for the out-of-fold distances of IC, `NULL` for RC) and, for IC,
#'   `training_distances` (those out-of-fold distances, one matrix per path
#'   value), `landmarks` (`NULL` for the full form, else the
#'   `krein_landmarks`) and `x` (the training inputs of a full fit; `NULL`
#'   for the Nystroem form).
#' @references
#' Haasdonk, B. and Pekalska, E. (2010). Classification with kernel
#' Mahalanobis distance classifiers. In *Advances in Data Analysis, Data
#' Handling and Business Intelligence*, Studies in Classification, Data
#' Analysis, and Knowledge Organization, Springer, 351-361.
#' \doi{10.1007/978-3-642-01044-6_32}.
#' @family kernel quadratic discriminants
#' @examples
#' set.seed(1)
#' train <- gaussian_mixture_2d(100)
#' fit <- kmdc(y ~ ., data = train, kernel = kernel_rbf(1), distance = "RC", classifier = "qda")
#' fit
#' test <- gaussian_mixture_2d(200)
#' mean(predict(fit, test) != test$y)
#' head(predict(fit, test, type = "distance"))
#' plot(fit)
#' # the Nystroem form: the distances of Ny-KQD on 30 random landmarks
#' ny <- kmdc(y ~ ., data = train, kernel = kernel_rbf(1), landmarks = "random", m = 30)
#' ny
#' mean(predict(ny, test) != test$y)
#' @export
kmdc <- function(x, ...) UseMethod("kmdc")

#' @rdname kmdc
#' @export
kmdc.formula <- function(formula, data, ..., subset, na.action, kernel = kernel_rbf(),
                        scale = TRUE) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel, scale = scale)
  fit_model("kmdc", inputs, list(...), match.call())
}

#' @rdname kmdc
#' @export
kmdc.default <- function(x, y, ..., kernel = kernel_rbf(), scale = TRUE, spectrum = "none", distance = c("RC", "IC"),
                         classifier = NULL, reg = NULL, indefinite = c("auto", "yes", "no"),
                         prior = NULL, landmarks = "auto", eps = 0.01, m = NULL, select = c("cv", "training"),
                         nfolds = 5L, na.action = NULL, threads = NULL) {
  check_dots_empty("kmdc", ...)
  inputs <- inputs_from_xy(x, y, kernel, na.action, scale = scale, chunks = TRUE)
  fit_model("kmdc", inputs, method_arguments("kmdc"), match.call())
}

#' The fit behind every kmdc() interface
#' @noRd
kmdc_fit <- function(inputs, distance, classifier, reg, indefinite, prior, landmarks, eps, m, select, nfolds,
                     threads) {
  distance <- match_choice(distance, "distance", c("RC", "IC"))
  if (!is.null(classifier)) classifier <- match_choice(classifier, "classifier", c("lda", "qda"))
  indefinite <- match_choice(indefinite, "indefinite", c("auto", "yes", "no"))
  select <- match_choice(select, "select", c("cv", "training"))
  nfolds <- as.integer(check_number(nfolds, "nfolds", lower = 2, allow_lower = TRUE, integer = TRUE))
  y <- inputs$y
  prior <- check_prior(prior, levels(y), as.vector(table(y)))
  counts <- table(y)
  if (distance == "IC" && any(counts < 3)) {
    krein_abort(sprintf("`y` has a class with fewer than three points (%s); kmdc(distance = \"IC\") needs at least three per class, since its discriminant is fitted on out-of-fold distances.",
                        paste0("\"", names(counts)[counts < 3], "\"", collapse = ", ")))
  }
  # MASS::qda() estimates a covariance of the K squared distances in each
  # class: a class of at most K points makes it stop ("some group is too
  # small"), which no kernel width or `reg` can change
  if (identical(classifier, "qda") && any(counts < nlevels(y) + 1L)) {
    small <- names(counts)[counts < nlevels(y) + 1L]
    krein_abort(sprintf("kmdc(classifier = \"qda\") fits a covariance of the %d squared distances within each class, so every class needs at least %d points; class%s %s %s fewer. Use classifier = \"lda\".",
                        nlevels(y), nlevels(y) + 1L, if (length(small) > 1) "es" else "",
                        paste0("\"", small, "\"", collapse = ", "), if (length(small) > 1) "have" else "has"))
  }
  # MASS::lda() pools the covariance of the squared distances within the
  # classes: with one point in every class there is none ("variables appear
  # to be constant within groups"), whatever the kernel width or `reg`
  if (!identical(classifier, "qda")) {
    check_some_class_of_two(counts, "kmdc()'s discriminant pools the covariance of the squared distances within the classes")
  }
  warn_one_row_classes(counts, paste(
    "its distance model is its one point under the regularisation alone, the Fisher discriminant on the",
    "squared distances pools the covariance of the other classes, and",
    if (!is.null(landmarks) && is.null(reg) && distance == "RC") {
      sprintf("with landmarks the default `reg` is then the single value %s, as Ny-KQD's", format(kqd_default_reg("RC+")))
    } else {
      "the cross-validation of the regularisation path keeps its row in every fold's training part"
    }))
  # the default: kqd()'s cross-validated path for RC, where every class has
  # the three points its cross-validation needs (kmdc_select_path()), else
  # kqd()'s single default value
  # (a class of one point trains in every fold: one_row_folds())
  several <- counts[counts >= 2L]
  path_cv <- is.null(reg) && distance == "RC" && min(several) >= 3L && select == "cv"
  if (is.null(reg) && (distance == "IC" || min(several) < 3L)) {
    reg <- kqd_default_reg(if (distance == "RC") "RC+" else "IC-")
  }
  # classifier = NULL: "qda" competes with "lda" in the cross-validation of
  # the default path, where every class has more points than there are
  # classes (MASS::qda's covariance of the K distances); else "lda"
  candidates <- classifier %||%
    if (path_cv && all(counts > nlevels(y))) c("lda", "qda") else "lda"
  # once: the same landmarks serve the distance model and every fold's
  landmarks <- resolve_landmarks(landmarks, inputs, eps, m, threads)
  core <- kmdc_candidate_fits(inputs, distance, candidates, reg, indefinite, prior, threads, landmarks,
                              optional_qda = is.null(classifier))
  cv <- kmdc_select_path(select, nfolds, inputs, distance, candidates, core$distances$reg, indefinite,
                         prior, core$path_error, threads, landmarks, optional_qda = is.null(classifier))
  chosen <- cv$classifier
  core <- kmdc_fit_candidate(core, chosen)
  best <- cv$best
  for (text in unique(core$warnings[[chosen]][[best]])) krein_warn(text)
  list(distance = distance, classifier = candidates[chosen], prior = prior, distances = core$distances,
       discriminant = core$discriminants[[chosen]][[best]], discriminants = core$discriminants[[chosen]],
       path_error = core$path_error[chosen, ], cv_error = cv$error[[chosen]], cv_folds = cv$folds,
       select = cv$select, best = best,
       # classifier = NULL: each candidate's lowest cross-validated error
       classifier_cv_error = if (is.null(classifier) && !is.null(cv$error)) {
         stats::setNames(vapply(cv$error, function(e) min(c(e, Inf), na.rm = TRUE), numeric(1)), candidates)
       },
       folds = core$folds,
       # IC: the training points' out-of-fold distances, which the
       # discriminant was trained on and fitted() and training_error use
       training_distances = if (distance == "IC") core$d_path,
       # a Nystroem fit keeps its landmarks, not the training data
       landmarks = landmarks, x = if (is.null(landmarks)) inputs$x, threads = threads)
}

#' The distance model of a kmdc fit and, for each candidate classifier, a
#' discriminant per path value, with MASS's warnings and the discriminant's
#' training error (out-of-fold distances for IC) per value. `optional_qda`:
#' "qda" is a candidate the user did not ask for, so a qda that MASS refuses
#' (a class whose distances are collinear) leaves it out (NULL, NA error)
#' rather than stopping the fit.
#' @noRd
kmdc_candidate_fits <- function(inputs, distance, candidates, reg, indefinite, prior, threads, landmarks,
                                optional_qda = FALSE, held_out_only = FALSE) {
  y <- inputs$y
  counts <- table(y)
  # a path of `reg` values: one distance model (one decomposition per class,
  # and per fold for IC) serves them all; a discriminant per value
  distances <- distance_path_model(inputs, distance, kmdc_reg_path(reg, nlevels(y)), indefinite, threads, landmarks)
  path <- distances$reg
  folds <- NULL
  if (distance == "IC") {
    folds <- draw_folds(y, min(kmdc_folds, min(counts)), stratified = TRUE)
    d_path <- if (is.null(landmarks)) {
      kmdc_out_of_fold_distances(inputs, folds, path, indefinite, threads)
    } else {
      kmdc_nystrom_out_of_fold_distances(inputs, landmarks, folds, path, indefinite, threads)
    }
  } else {
    d_path <- distances$training_distances
  }
  kmdc_core(distances, d_path, !is.na(distances$path_error), folds, y, prior, path, candidates, optional_qda,
            held_out_only)
}

#' A kmdc_candidate_fits() result from its distance model (`distances`: a
#' kqd fit, or a list with the `core` of a fold's), the squared distances
#' its discriminants train on (`d_path`, one matrix per path value; `usable`
#' the values whose distances are finite) and the IC `folds` of those
#' distances: with its first candidate's discriminants, or with
#' `held_out_only` (a fold of the cross-validation) those kmdc_fold_wrong()
#' needs
#' @noRd
kmdc_core <- function(distances, d_path, usable, folds, y, prior, path, candidates, optional_qda,
                      held_out_only) {
  discriminants <- warnings <- vector("list", length(candidates))
  path_error <- matrix(NA_real_, length(candidates), nrow(path))
  core <- list(distances = distances, d_path = d_path, folds = folds, discriminants = discriminants,
               warnings = warnings, path_error = path_error, usable = usable, y = y, prior = prior, path = path,
               candidates = candidates, optional_qda = optional_qda)
  # a fold of the cross-validation needs only its held-out classes, which
  # kmdc_fold_classes() finds (fitting discriminants only where the core's
  # route leaves a value to them); the full fit, its first candidate's
  # discriminants (the others' once the cross-validation has chosen,
  # kmdc_fit_candidate())
  if (held_out_only && kmdc_gaussian_folds()) return(core)
  for (j in if (held_out_only) seq_along(candidates) else 1L) core <- kmdc_fit_candidate(core, j)
  core
}

#' The MASS discriminant per path value of candidate `j` of `core` (a
#' kmdc_candidate_fits() result), its warnings and its error on the points
#' it was trained on; `core` with them filled in (unchanged if they are)
#' @noRd
kmdc_fit_candidate <- function(core, j) {
  if (!is.null(core$discriminants[[j]])) return(core)
  classifier <- core$candidates[j]
  y <- core$y
  fits <- kmdc_discriminants(core$d_path, y, classifier, core$prior, core$usable, core$path, table(y),
                             optional = core$optional_qda && classifier == "qda")
  core$discriminants[[j]] <- fits$discriminants
  core$warnings[[j]] <- fits$warnings
  core$path_error[j, ] <- vapply(seq_len(nrow(core$path)), function(k) {
    if (is.null(fits$discriminants[[k]])) return(NA_real_)
    f <- kmdc_decisions(fits$discriminants[[k]], unname(core$d_path[[k]]), classifier)
    mean(class_from_decisions(f, levels(y)) != y)
  }, numeric(1))
  core
}

# Whether the folds of kmdc_select_path() classify their held-out points by
# the core's Gaussian classes (kmdc_fold_classes()) rather than by MASS
# discriminants (the tests replace this function to compare the two)
kmdc_gaussian_folds <- function() TRUE

#' The folds of the full form's cross-validation (kmdc_select_path()):
#' `function(f)` giving fold f's fit on its training part (`fit`, from its
#' distance model: kmdc_fold_distances() or kmdc_candidate_fits()) and the
#' held-out points' squared distances (`d_test`), from the training kernel
#' @noRd
kmdc_full_folds <- function(inputs, fold_ids, distance, candidates, path, indefinite, prior, threads,
                            optional_qda) {
  K <- training_kernel(inputs, threads)
  self <- diag(K)
  y <- inputs$y
  function(f) {
    train <- fold_ids != f
    test <- !train
    fit <- if (distance == "RC" && kmdc_gaussian_folds()) {
      kmdc_fold_distances(K[train, train, drop = FALSE], self[train], y[train], path, indefinite)
    } else {
      fold_inputs <- inputs_from_xy(precomputed_kernel(K[train, train, drop = FALSE], self = self[train]),
                                    y[train], NULL, NULL)
      kmdc_candidate_fits(fold_inputs, distance, candidates, path, indefinite, prior, threads, landmarks = NULL,
                          optional_qda = optional_qda, held_out_only = TRUE)
    }
    list(fit = fit, d_test = cpp_kqd_distances(fit$distances$core, K[test, train, drop = FALSE],
                                               if (distance == "RC") self[test]))
  }
}

#' The held-out points of one fold (`train` FALSE) that each candidate
#' classifier misclassifies at each path value (a candidates x values
#' matrix, NA where a value is unusable), from the fold's fit on its
#' training part and the held-out points' distances (`fold`, from
#' kmdc_full_folds() or kmdc_nystrom_folds()): kmdc_fold_classes() (or, with
#' kmdc_gaussian_folds() FALSE, the full fit's MASS discriminants)
#' @noRd
kmdc_fold_wrong <- function(fold, y, train, candidates, prior, path, optional_qda) {
  test <- !train
  fit <- fold$fit
  d_test <- fold$d_test
  codes <- as.integer(y[test])
  wrong <- matrix(NA_real_, length(candidates), nrow(path))
  for (k in seq_len(nrow(path))) {
    classes <- if (kmdc_gaussian_folds()) {
      kmdc_fold_classes(fit, k, y[train], d_test[[k]], candidates, prior, path, optional_qda)
    } else {
      vapply(seq_along(candidates), function(j) {
        discriminant <- fit$discriminants[[j]][[k]]
        if (is.null(discriminant) || !all(is.finite(d_test[[k]]))) return(rep(NA_integer_, length(codes)))
        max.col(kmdc_decisions(discriminant, unname(d_test[[k]]), candidates[j]), ties.method = "first")
      }, integer(length(codes)))
    }
    wrong[, k] <- colSums(matrix(classes, length(codes)) != codes)
  }
  wrong
}

#' The RC distance model of a fold's training part (kernel `K`, self
#' similarities `self`, classes `y`) at the values of the full fit's `path`,
#' straight from the core as kqd's own cross-validation fits it
#' (kqd_cv_errors()): the parts of a kmdc_candidate_fits() result that
#' kmdc_fold_classes() uses, without the checks, defaults and training
#' predictions of a whole kqd fit (most of a fold's time on small data)
#' @noRd
kmdc_fold_distances <- function(K, self, y, path, indefinite) {
  indefinite <- match_choice(indefinite, "indefinite", c("auto", "yes", "no"))
  core <- with_core_errors("The kernel Mahalanobis distances of a fold",
                           cpp_kqd_fit(K, as.integer(y), nlevels(y), "RC+", path, indefinite, allow_cholesky = TRUE))
  d_path <- cpp_kqd_distances(core, K, self)
  list(distances = list(core = core), d_path = d_path, usable = kqd_check_path(d_path, path, "RC+"))
}

#' The classes a fold's discriminants give its held-out points at path value
#' `k` (squared distances `d_test`), a column per candidate classifier (NA
#' where the value is unusable or its distances are not finite): the core's
#' Gaussian classes (shrunk_gaussian.hpp; moment estimates as MASS's, pooled
#' with n - K for "lda", per class with n_k - 1 for "qda", no shrinkage),
#' whose discriminants rank the classes as MASS::lda's and MASS::qda's do
#' (lda's discarded directions carry no between-class spread), in one call
#' for both; MASS's own discriminant, as the full fit's, for a candidate the
#' core leaves (a covariance not clearly well conditioned: collinear or
#' constant distances, where MASS drops directions or stops)
#' @noRd
kmdc_fold_classes <- function(fit, k, y, d_test, candidates, prior, path, optional_qda) {
  classes <- matrix(NA_integer_, nrow(d_test), length(candidates))
  if (!fit$usable[k] || !all(is.finite(d_test))) return(classes)
  d <- unname(fit$d_path[[k]])
  d_test <- unname(d_test)
  if (all(is.finite(d))) {
    classes[] <- cpp_shrunk_gaussian_classes(d, as.integer(y), nlevels(y), d_test, rep(ncol(d), length(candidates)),
                                             ifelse(candidates == "lda", 1, 0), 0, TRUE, log(prior), 1L)
  } else {
    classes[] <- 0L
  }
  for (j in which(classes[1L, ] == 0L)) {
    # as the full fit does it: MASS, which drops collinear directions
    discriminant <- kmdc_discriminants(fit$d_path[k], y, candidates[j], prior, TRUE, path[k, , drop = FALSE],
                                       table(y), optional = optional_qda && candidates[j] == "qda")$discriminants[[1L]]
    classes[, j] <- if (is.null(discriminant)) NA_integer_ else {
      max.col(kmdc_decisions(discriminant, d_test, candidates[j]), ties.method = "first")
    }
  }
  classes
}

#' One MASS discriminant per path value on the squared distances `d_path`.
#' MASS's warnings (collinear distances) are kept per value and repeated by
#' kmdc_fit() for the value that is used only: a path's extreme values may
#' well give collinear distances that no prediction uses.
#' @noRd
kmdc_discriminants <- function(d_path, y, classifier, prior, usable, path, counts, optional = FALSE) {
  warnings <- vector("list", length(d_path))
  discriminants <- lapply(seq_along(d_path), function(k) {
    if (!usable[k]) return(NULL)
    d <- d_path[[k]]
    dimnames(d) <- list(NULL, paste0("d2_", levels(y)))
    at <- if (nrow(path) > 1L) paste0(" at reg = ", format_reg_row(path[k, ])) else ""
    withCallingHandlers(
      tryCatch(
        if (classifier == "lda") kmdc_lda(d, y, prior) else MASS::qda(d, y, prior = prior),
        error = function(e) {
          if (optional) return(NULL)
          # a class of one or two points has distances without spread within
          # it (two points are equally far from their class in RC): the
          # cause is its size, which no kernel width or `reg` changes
          hint <- if (any(counts <= 2L)) {
            sprintf("classes of one or two points (%s) give squared distances without spread within the class; give them more points",
                    paste0("\"", names(counts)[counts <= 2L], "\" ", counts[counts <= 2L], collapse = ", "))
          } else "the squared distances do not separate the classes; try another kernel width or `reg`"
          krein_abort(sprintf("The %s in the distance space failed%s: %s. %s.", classifier, at,
                              sub("[.]$", "", conditionMessage(e)), paste0(toupper(substr(hint, 1, 1)), substring(hint, 2))))
        }),
      warning = function(w) {
        if (inherits(w, "krein_warning")) return()
        warnings[[k]] <<- c(warnings[[k]],
                            sprintf("The %s in the distance space%s: %s.", classifier, at,
                                    sub("[.]$", "", conditionMessage(w))))
        invokeRestart("muffleWarning")
      })
  })
  list(discriminants = discriminants, warnings = warnings)
}

#' MASS::lda() on the squared distances `d`, without the columns that have
#' no spread within the classes by MASS's own test (a within-class standard
#' deviation below its `tol`, 1e-4), where some column has spread: the
#' distance to a class of one point is constant to rounding when every other
#' point is far from it in a narrow kernel, and MASS::lda() stops on such a
#' column ("variable appears to be constant within groups"). The class is
#' then told by its distances to the other classes. The columns used are
#' kept (`columns`) for kmdc_decisions().
#' @noRd
kmdc_lda <- function(d, y, prior) {
  # MASS divides the within-class scatter by n - 1, within_class_variances() by n - K
  n <- nrow(d)
  spread <- sqrt(within_class_variances(d, y) * (n - nlevels(y)) / max(1, n - 1))
  flat <- !(spread >= 1e-4)
  if (!any(flat) || all(flat)) return(MASS::lda(d, y, prior = prior))
  fit <- MASS::lda(d[, !flat, drop = FALSE], y, prior = prior)
  fit$columns <- which(!flat)
  fit
}

# The default value of a kmdc path, and with classifier = NULL its
# discriminant: as kqd's (kqd_select_path()), the lowest cross-validated
# error of the whole classifier -- distance model and discriminant refitted
# on each fold's training part (for IC with its own inner out-of-fold
# distances) -- ties to the more regularised value; "qda" only where it is
# clearly better than "lda" (below). Returns the
# chosen candidate's index (`classifier`) and path value (`best`), and the
# errors, one vector per candidate.
kmdc_select_path <- function(select, nfolds, inputs, distance, candidates, path, indefinite, prior,
                             path_error, threads, landmarks, optional_qda = FALSE) {
  # without cross-validation the first candidate ("lda" for classifier = NULL)
  none <- list(error = NULL, folds = NULL, select = select, classifier = 1L,
               best = which.min(path_error[1L, ]))
  if (nrow(path) == 1L && length(candidates) == 1L) return(utils::modifyList(none, list(select = "none")))
  if (select == "training") return(none)
  y <- inputs$y
  # each fold's training part must itself fit: three points per class for
  # IC (its inner out-of-fold distances), two for RC; a class of one point
  # (RC) is held out of no fold and trains in every one (one_row_folds())
  counts <- as.vector(table(y))
  if (distance == "RC") counts <- counts[counts >= 2L]
  needed <- if (distance == "IC") 4L else 3L
  folds <- min(nfolds, min(counts))
  fallback <- function(why) {
    krein_warn(sprintf("The regularisation path cannot be cross-validated (%s): the default value is the one with the lowest training error (select = \"training\").", why))
    utils::modifyList(none, list(select = "training"))
  }
  if (min(counts) < needed || folds < 2L) {
    return(fallback(sprintf("a class has %d points; kmdc(distance = \"%s\") needs %d", min(counts), distance, needed)))
  }
  fold_ids <- one_row_folds(y, folds)
  held_out <- sum(fold_ids > 0L)
  # fold_fit(f): the fold's distance model, its discriminants' training
  # distances and the held-out points' distances
  fold_fit <- if (is.null(landmarks)) {
    kmdc_full_folds(inputs, fold_ids, distance, candidates, path, indefinite, prior, threads, optional_qda)
  } else {
    kmdc_nystrom_folds(inputs, landmarks, fold_ids, distance, candidates, path, indefinite, prior, threads,
                       optional_qda)
  }
  wrong <- array(0, c(folds, length(candidates), nrow(path)))
  for (f in seq_len(folds)) {
    # a fold whose fit fails (a distance model or MASS's discriminant) ends
    # the cross-validation: the path falls back to the training error
    fold_wrong <- tryCatch(
      withCallingHandlers(
        kmdc_fold_wrong(fold_fit(f), y, fold_ids != f, candidates, prior, path, optional_qda),
        krein_warning = function(w) invokeRestart("muffleWarning")),
      krein_error = function(e) e)
    if (inherits(fold_wrong, "krein_error")) {
      return(fallback(sprintf("the fit on the training part of fold %d failed: %s", f, conditionMessage(fold_wrong))))
    }
    wrong[f, , ] <- fold_wrong
  }
  error <- apply(wrong, c(2, 3), sum) / held_out
  if (all(is.na(error))) return(fallback("no value of the path gave finite distances in every fold"))
  # "qda" (the second candidate) only where it makes fewer errors than "lda"
  # by more than a standard error of the difference, sqrt(e_lda + e_qda)
  # errors at most (every error of either counted as a disagreement, as
  # McNemar's test counts them): it fits c covariances where "lda" pools
  # one, and on small data one or two held-out errors decide nothing (on
  # kernlab's promotergene by formula, 74 training points, the lower error
  # alone chose "qda" on two of ten splits, 3 and 6 points less accurate
  # than "lda" on the test points)
  lowest <- apply(error, 1, function(e) min(c(e, Inf), na.rm = TRUE)) * held_out
  chosen <- 1L
  if (!is.finite(lowest[1L])) {
    chosen <- which.min(lowest)
  } else if (length(candidates) > 1L) {
    clearly_better <- which(lowest[1L] - lowest > sqrt(lowest[1L] + lowest))
    if (length(clearly_better)) chosen <- clearly_better[which.min(lowest[clearly_better])]
  }
  list(error = lapply(seq_along(candidates), function(j) error[j, ]), folds = fold_ids, select = "cv",
       classifier = chosen, best = most_regularised_minimum(error[chosen, ], path))
}

# Folds of the out-of-fold IC distances the discriminant is fitted on (fewer
# when a class has fewer points)
kmdc_folds <- 10L

#' The squared IC distances of every training point from distance models
#' fitted without its fold. In-sample d2_IC is degenerate: with alpha below
#' the nonzero eigenvalues of the centred class kernel, a training point's
#' distance to its own class is n_j k_i' H (H K H)^+2 H k_i = n_j (1 - 1/n_j)
#' = n_j - 1 for every point (Haasdonk and Pekalska 2010, eq. 4), so the
#' discriminant would learn a constant that no new point shows (and MASS::lda
#' stops with "variable appears to be constant within groups").
#' @noRd
kmdc_out_of_fold_distances <- function(inputs, folds, reg, indefinite, threads) {
  K <- training_kernel(inputs, threads)
  y <- inputs$y
  d <- rep(list(matrix(NA_real_, length(y), nlevels(y))), nrow(reg))
  for (k in sort(unique(folds))) {
    held_out <- folds == k
    fold_inputs <- inputs_from_xy(precomputed_kernel(K[!held_out, !held_out, drop = FALSE]), y[!held_out],
                                  NULL, NULL)
    model <- distance_path_model(fold_inputs, "IC", reg, indefinite, threads, landmarks = NULL)
    # every path value's distances from the fold's one decomposition
    fold_d <- cpp_kqd_distances(model$core, K[held_out, !held_out, drop = FALSE], NULL)
    for (r in seq_len(nrow(reg))) d[[r]][held_out, ] <- fold_d[[r]]
  }
  d
}

#' The same for the Nystroem form on `landmarks`: the distance model of each
#' fold is the Ny-KQD of the rows of the other folds, whose class factors
#' come from one pass over the rows for all folds (kqd_nystrom_fold_factors(),
#' merged by kqd_nystrom_fold_core(), as Ny-KQD's own cross-validation); a
#' second pass per fold gives its rows' distances. Rows of fold 0 take no
#' part (the held-out points of a fold of kmdc_nystrom_folds()) and keep NA
#' rows. `W`: the landmark kernel, if computed already.
#' @noRd
kmdc_nystrom_out_of_fold_distances <- function(inputs, landmarks, folds, reg, indefinite, threads, W = NULL) {
  threads <- check_threads(threads)
  y <- inputs$y
  count <- max(folds)
  groups <- as.integer(ifelse(folds == 0L, count + 1L, folds))
  W <- W %||% check_landmark_kernel(landmark_kernel(inputs, landmarks, threads))
  pass <- kqd_nystrom_fold_factors(inputs, landmarks, groups, threads)
  d <- rep(list(matrix(NA_real_, length(y), nlevels(y))), nrow(reg))
  for (k in seq_len(count)) {
    held_out <- folds == k
    core <- kqd_nystrom_fold_core(W, pass$fold_factors, groups, y, setdiff(seq_len(count), k), "IC-", reg,
                                  indefinite)
    fold_d <- kqd_nystrom_training_distances(core, inputs, landmarks, pass, threads)
    for (r in seq_len(nrow(reg))) d[[r]][held_out, ] <- fold_d[[r]][held_out, , drop = FALSE]
  }
  d
}

#' The folds of the Nystroem form's cross-validation (kmdc_select_path()),
#' as kmdc_full_folds() gives them, without an n x n matrix: the class
#' factors within every fold from one pass over the rows (a class of one
#' point, fold 0, is a last group that trains in every fold), a fold's
#' Ny-KQD merged from those of its training part (kqd_nystrom_fold_core())
#' and a pass for its distances; for IC its training part's own out-of-fold
#' distances, with inner folds drawn as the full form draws them
#' (kmdc_candidate_fits()).
#' @noRd
kmdc_nystrom_folds <- function(inputs, landmarks, fold_ids, distance, candidates, path, indefinite, prior,
                               threads, optional_qda) {
  threads <- check_threads(threads)
  y <- inputs$y
  variant <- if (distance == "RC") "RC+" else "IC-"
  groups <- as.integer(ifelse(fold_ids == 0L, max(fold_ids) + 1L, fold_ids))
  W <- check_landmark_kernel(landmark_kernel(inputs, landmarks, threads))
  pass <- kqd_nystrom_fold_factors(inputs, landmarks, groups, threads)
  rows <- function(d, keep) lapply(d, function(part) part[keep, , drop = FALSE])
  function(f) {
    train <- fold_ids != f
    core <- with_core_errors("The kernel Mahalanobis distances of a fold",
                             kqd_nystrom_fold_core(W, pass$fold_factors, groups, y, setdiff(seq_len(max(groups)), f),
                                                   variant, path, indefinite))
    d <- kqd_nystrom_training_distances(core, inputs, landmarks, pass, threads)
    usable <- kqd_check_path(rows(d, train), path, variant)
    d_path <- if (distance == "RC") rows(d, train) else {
      inner <- integer(length(y))
      inner[train] <- draw_folds(y[train], min(kmdc_folds, min(table(y[train]))), stratified = TRUE)
      rows(kmdc_nystrom_out_of_fold_distances(inputs, landmarks, inner, path, indefinite, threads, W), train)
    }
    fit <- kmdc_core(list(core = core), d_path, usable, NULL, y[train], prior, path, candidates, optional_qda,
                     held_out_only = TRUE)
    list(fit = fit, d_test = rows(d, !train))
  }
}

#' The discriminant functions of a MASS lda or qda fit at the rows of `z`, as
#' MASS's predict methods compute them with their plug-in method (the log
#' posterior up to a constant per row)
#' @noRd
kmdc_decisions <- function(discriminant, z, classifier) {
  prior <- discriminant$prior
  means <- discriminant$means
  if (!is.null(discriminant$columns)) z <- z[, discriminant$columns, drop = FALSE]  # kmdc_lda()
  if (classifier == "lda") {
    centre <- colSums(prior * means)
    dimen <- seq_along(discriminant$svd)
    scaling <- discriminant$scaling[, dimen, drop = FALSE]
    u <- (z - rep(centre, each = nrow(z))) %*% scaling
    m <- (means - rep(centre, each = nrow(means))) %*% scaling
    return(u %*% t(m) - rep(0.5 * rowSums(m^2) - log(prior), each = nrow(z)))
  }
  vapply(seq_along(prior), function(j) {
    dev <- (z - rep(means[j, ], each = nrow(z))) %*% discriminant$scaling[, , j]
    -0.5 * rowSums(dev^2) - 0.5 * discriminant$ldet[j] + log(prior[j])
  }, numeric(nrow(z)))
}

#' @export
krein_scores.kmdc <- function(object, new, type, reg = NULL) {
  k <- if (is.null(reg)) object$best %||% 1L else kqd_path_index(object$distances, reg)
  distances <- object$distances
  d <- if (is.null(new) && !is.null(object$training_distances)) {
    # IC: the out-of-fold distances the discriminant was trained on (in-sample
    # d2_IC is degenerate; see The discriminant's training distances)
    structure(object$training_distances[[k]], dimnames = list(rownames(object$x), object$levels))
  } else {
    krein_scores(distances, new, "distance", reg = distances$reg[k, ])
  }
  if (type == "distance") return(d)
  discriminant <- if (is.null(object$discriminants)) object$discriminant else object$discriminants[[k]]
  f <- matrix(kmdc_decisions(discriminant, unname(d), object$classifier), nrow(d),
              length(object$levels), dimnames = list(rownames(d), object$levels))
  if (type == "decision") f else softmax_rows(f)
}

kmdc_name <- function(x) paste0(if (x$classifier == "lda") "FD" else "QD", "-", x$distance)

#' @export
model_title.kmdc <- function(x) {
  if (is.null(x$landmarks)) kmdc_name(x) else paste0(kmdc_name(x), ", ", nystrom_title(x$landmarks))
}

#' @export
model_print_lines.kmdc <- function(x) {
  distances <- x$distances
  best <- x$best %||% 1L
  c(sprintf("%s discriminant (MASS::%s%s) on the squared %s kernel Mahalanobis distances to the classes",
            if (x$classifier == "lda") "Fisher" else "quadratic", x$classifier,
            if (length(x$classifier_cv_error) > 1L) {
              other <- setdiff(names(x$classifier_cv_error), x$classifier)
              sprintf("; cross-validated error %s, %s %s", format(x$classifier_cv_error[[x$classifier]], digits = 3),
                      other, format(x$classifier_cv_error[[other]], digits = 3))
            } else "",
            x$distance),
    paste0(if (x$distance == "RC") "sigma^2" else "alpha",
           if (nrow(distances$reg) > 1L) paste0(" path of ", nrow(distances$reg), " values; best ")
           else " = ",
           format_reg_row(distances$reg[best, ]),
           if (nrow(distances$reg) > 1L) paste0(" (", kqd_selection_text(x), ")"),
           "; indefinite formulas for: ",
           if (any(distances$indefinite)) paste(names(distances$indefinite)[distances$indefinite], collapse = ", ") else "no class"),
    if (!is.null(x$folds)) sprintf("discriminant trained on out-of-fold distances (%d folds)", length(unique(x$folds))),
    if (!is.null(x$landmarks)) {
      signs <- distances$core$signs
      sprintf("distances of Ny-KQD: Nystroem feature space of rank %d, signature (p, q) = (%d, %d)",
              length(signs), sum(signs > 0), sum(signs < 0))
    })
}

#' @export
model_summary.kmdc <- function(object) {
  distances <- object$distances
  classes <- data.frame(n = as.vector(object$counts), prior = as.vector(object$prior),
                        reg = as.vector(distances$reg[object$best %||% 1L, ]), distances$signature,
                        indefinite = as.vector(distances$indefinite),
                        row.names = object$levels, check.names = FALSE)
  lm <- object$landmarks
  if (!is.null(lm)) classes$landmarks <- as.vector(table(factor(lm$class, levels = object$levels)))
  means <- object$discriminant$means
  dimnames(means) <- list(object$levels, paste("d2 to", object$levels[object$discriminant$columns %||% seq_along(object$levels)]))
  list("Classes (reg: sigma^2 or alpha; signature p, q, z of the centred class kernel)" = classes,
       "Class means of the training points' squared distances (the discriminant's inputs)" = means)
}

# Inputs that are not two columns: the points in the space of their squared
# distances to the classes, where the discriminant works (Haasdonk and
# Pekalska 2010, Sec. 3.3) -- the view of the underlying kqd fit.
#' @export
plot_model_diagnostic.kmdc <- function(x, data, main, predict_args, ...) {
  k <- if (is.null(predict_args$reg)) x$best %||% 1L else kqd_path_index(x$distances, predict_args$reg)
  plot_model_diagnostic(x$distances, data, main, list(reg = x$distances$reg[k, ]), ...)
  invisible(x)
}

model_registration_kmdc <- function() register_krein_model(
  full_form = function(args) is.null(args$landmarks), full_copies = 4,
  forms = landmark_forms(chooses_width = TRUE), full_max_rows = 2000,
  "kmdc", label = "Kernel Mahalanobis distance classifier", fit = "kmdc_fit",
  parameters = data.frame(parameter = c("distance", "classifier", "reg"),
                          class = c("character", "character", "numeric"),
                          label = c("distance", "discriminant", "regularisation"),
                          stringsAsFactors = FALSE),
  path = "reg", path_values = function(values) matrix(values, ncol = 1L),
  needs_self = function(args) identical(model_argument("kmdc", args, "distance")[1], "RC"),
  needs_inputs = function(args) landmarks_need_inputs(args$landmarks),
  types = "distance", predict_args = "reg",
  ranges = function(args) list(reg = reg_range(args$distance)),
  default_grid = function(size, args, data) list(reg = range_values(tuning_range("kmdc", "reg", args), size)),
  landmark_args = function(landmarks) list(landmarks = landmarks)
)
