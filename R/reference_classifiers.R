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
#' * `ikpca_qd()`: indefinite kernel PCA (Appendix I-E): the centred kernel
#'   \eqn{\tilde K = H K H = Q \Lambda Q'}, components by decreasing
#'   \eqn{|\lambda|} until they hold the share `pvar` of \eqn{\sum |\lambda|},
#'   the map \eqn{\psi(x) = |\Lambda|^{-1/2} Q' \tilde k_x}; then Gaussian
#'   quadratic discriminant analysis there with the class proportions as
#'   priors and maximum-likelihood class covariances \eqn{C_j}, first pooled
#'   as in the regularised discriminant analysis of Friedman (1989), \eqn{C_j'
#'   = (1 - \lambda) C_j + \lambda C} with the pooled within-class covariance
#'   \eqn{C = \sum_j n_j C_j / n} and \eqn{\lambda} = `pooling`, then shrunk
#'   towards a multiple of the identity, \eqn{S_j = (1 - \alpha) C_j' +
#'   \alpha (\mathrm{tr} C_j' / p) I} with \eqn{\alpha} = `shrinkage` (the
#'   regularisation of PRTools' `qdc`, which the paper used). The default
#'   `pooling = NULL` takes \eqn{\lambda} from the class sizes and the
#'   number of components \eqn{p}: \eqn{\lambda = \min(1, \max(0, 2 -
#'   n_{\min} / p))} for the smallest class size \eqn{n_{\min}}. So every
#'   class keeps its own covariance (the paper's QDA) while the smallest has
#'   at least twice as many points as components; a class with no more
#'   points than components, whose own covariance is singular, makes every
#'   class take the pooled one (a Gaussian linear discriminant in the kernel
#'   PCA space); in between the weight grows linearly. Pooling all classes,
#'   not only the small ones, keeps their covariances comparable: on Glass
#'   (mlbench; classes of 7 to 51 training points, 14 components) pooling
#'   only the classes smaller than \eqn{p} gives 52% test accuracy, pooling
#'   all 64%, the paper's QDA 38%. `pooling = 0` is the paper's
#'   classifier. A covariance that is still
#'   singular (its reciprocal condition number below the machine epsilon: a
#'   class with no more points than components, `pooling = 0` and `shrinkage
#'   = 0`, or one whose points coincide in the kernel PCA space) is an error of class
#'   `krein_singular_covariance`. The default `pvar = NULL` chooses the share
#'   among 0.8 (the paper's), 0.9, 0.95, 0.99 and 0.999 by the least 5-fold
#'   cross-validated error (fewer folds when a class has fewer points; the
#'   folds stratified and dealt in turn, as [kqd()]'s; ties to the smaller
#'   share): the kernel PCA needs no labels, so its one eigendecomposition of
#'   all training points serves every fold and candidate, and only the class
#'   Gaussians are refitted, each candidate's scores being the first columns
#'   of the largest's. With few points per class the paper's 0.8 can leave
#'   out the low-variance directions that separate the classes: on
#'   MASS::crabs (four classes of about 35 training points, 5 inputs) 0.8
#'   keeps 3 or 4 components and gives 35-52% test accuracy over three
#'   70/30 splits; the chosen 0.99 or 0.999 gives 83-98% over five. `fit$pvar_selection` keeps every candidate's
#'   error. The number of components, the centring and the map are fixed at
#'   the fit and reused for new points.
#' * `isvm()`: a support vector machine on the precomputed (possibly
#'   indefinite) kernel matrix through [kernlab::ksvm()] (`kernel =
#'   "matrix"`, one-vs-one), without kernlab's shrinking heuristic (which
#'   stalls far from the optimum at large `C` on precomputed kernels); needs
#'   the kernlab package. Its class probabilities are Platt's (1999) as
#'   libsvm computes them, fitted by krein rather than by kernlab (whose
#'   inner cross-validation refits with shrinking on, and gives flat
#'   sigmoids or errors at large `C`): for each pair of classes, the decision
#'   values of the pair's points from a 5-fold cross-validation within the
#'   pair (folds from R's random number generator, so [set.seed()]
#'   reproduces a fit; SVMs without shrinking), and the sigmoid
#'   \eqn{P(j \mid f) = 1 / (1 + e^{A f + B})} fitted to them with Platt's
#'   prior-corrected targets by the Newton method of Lin, Lin and Weng
#'   (2007). A sigmoid that does not converge gives a warning of class
#'   `krein_convergence_warning`.
#'
#' @section isvm()'s defaults:
#' Without a `kernel`, `isvm()` takes the Gaussian kernel of width
#' \eqn{\gamma = 1/p} for \eqn{p} input columns (centred and scaled with
#' `scale = TRUE`), `kernel_rbf(heuristic = "dimension")`, the default of
#' libsvm and [e1071::svm()] (and of [krein_svm()]); the other krein models take
#' the median heuristic, `kernel_rbf()`. Without `C`, it takes the cost of the lowest
#' 5-fold cross-validated error among \eqn{C = 0.1, 1, 10, 100} (the
#' smallest of tied costs), from the one training kernel matrix: the folds
#' are stratified and dealt in turn, as [kqd()]'s (the points of each class
#' in data order, the classes one after another, go to folds 1, 2, ..., 5,
#' 1, 2, ...), so the
#' random number generator is untouched and the choice is a function of the
#' data; `fit$cost_cv` holds the errors, shown by [summary()][summary.krein_model()].
#' The search fits 20 SVMs on 80% of the points: a default fit took up to
#' 4.6 times as long as one with a given `C` (and its Platt model) on the
#' data sets of NEWS, typically 2 to 4 times. Before version 0.1.0.9000 the
#' defaults were `kernel = kernel_rbf()` and `C = 1`, which left many
#' points inside the margin: on mlbench's Vowel, 685 of 693 points were
#' support vectors and the test accuracy 0.626, against 0.751 for
#' `e1071::svm()` with its defaults and 0.980 now (see NEWS for all the
#' benchmark sets). `isvm(..., kernel = kernel_rbf(), C = 1)` gives the old
#' fit; the paper reproductions tune `C` and pass their kernels.
#'
#' @section Prediction:
#' [predict()][predict.krein_model()] gives `type = "class"` (the most
#' probable class), `"prob"` and `"decision"` for all three:
#'
#' * `iknn()`: `"decision"` is the vote count, the number of the \eqn{k}
#'   nearest neighbours in each class. `"prob"` is the vote share (votes /
#'   \eqn{k}), except that where several classes share the most votes, the
#'   one with the nearest neighbour among them takes \eqn{10^{-9}} of the
#'   share of each other tied class: so the most probable class is the
#'   classifier's (majority vote, ties to the nearest neighbour's class), and
#'   the probabilities differ from the vote shares by less than \eqn{10^{-9}}
#'   times the number of classes. Precomputed fits need the self-similarities
#'   of the training points (`precomputed_kernel(K, self = )`) and of new
#'   points (`precomputed_kernel(K_new, self = )`).
#' * `ikpca_qd()`: `"decision"` is the quadratic discriminant \eqn{g_j(x) =
#'   -\frac12 (\psi(x) - m_j)' S_j^{-1} (\psi(x) - m_j) - \frac12 \log |S_j| +
#'   \log \pi_j} (\eqn{m_j} the class mean in the kernel PCA space, \eqn{\pi_j}
#'   the class proportion), `"prob"` its softmax (the Gaussian posterior), and
#'   the extra type `"projection"` the coordinates \eqn{\psi(x)} (one column
#'   per component).
#' * `isvm()`: kernlab's one-vs-one decision values \eqn{f_{ij}(x)}, one per
#'   pair of classes \eqn{i < j} (in the order of the levels; \eqn{f_{ij} > 0}
#'   favours \eqn{j}), summed per class: `"decision"` is \eqn{D_j = \sum_{i <
#'   j} f_{ij} - \sum_{l > j} f_{jl}}, for two classes \eqn{(-f, f)}.
#'   `"prob"` is the Platt probabilities of the pairs, coupled into class
#'   probabilities by the second method of Wu, Lin and Weng (2004), as libsvm
#'   does (krein solves it directly; kernlab's `couple()` pairs the
#'   probabilities in the wrong order for four or more classes); for a
#'   fit with `probability = FALSE`, the share of the one-vs-one contests each
#'   class wins (not calibrated: 0 or 1 for two classes). The predict argument
#'   `rule = c("vote", "posterior")` chooses the class rule: kernlab's (and
#'   libsvm's) own, the class that wins the most one-vs-one contests, ties to
#'   the first level (the default), or the most probable class. The vote is the default
#'   because it is a deterministic function of the data and the arguments:
#'   the Platt probabilities come from an inner cross-validation whose folds
#'   are drawn from R's random number generator, so their most probable class
#'   changes with the seed near the boundary (on 4% of the test points of a
#'   two-class problem). Without Platt probabilities the two rules agree.
#'
#' [plot()][plot.krein_model()] draws the decision regions for two input
#' columns (as Pekalska and Haasdonk 2009, Fig. 2, draw IKNN and IKPCA-QD)
#' and the class probabilities of the points otherwise; it takes `isvm()`'s
#' `rule` too.
#'
#' @inheritParams krein_inputs
#' @inheritParams kqd
#' @param k Number of neighbours, a whole number between 1 and the number of
#'   training points; `NULL` (the default) chooses it from 1 to 25 (at most
#'   the number of training points less one) by the leave-one-out error of
#'   the training points, ties to the smaller \eqn{k}: one distance matrix
#'   and one ordering of each row serve every candidate.
#' @param pvar Share of the absolute eigenvalue mass kept by the indefinite
#'   kernel PCA, in \eqn{(0, 1]} (the paper uses 0.8); `NULL` (the default)
#'   chooses it among 0.8, 0.9, 0.95, 0.99 and 0.999 by the 5-fold
#'   cross-validated error of the class Gaussians (see Details).
#' @param shrinkage Shrinkage \eqn{\alpha} of the class covariances towards a
#'   multiple of the identity in `ikpca_qd()`, in \eqn{[0, 1]}.
#' @param pooling Weight \eqn{\lambda} of the pooled within-class covariance
#'   in each class covariance of `ikpca_qd()`, in \eqn{[0, 1]}: 0 for the
#'   paper's quadratic discriminant (each class its own covariance; the
#'   only choice up to krein 0.1.0), 1 for the pooled covariance in every class;
#'   `NULL` (the default) chooses it from the class sizes and the number of
#'   components (see Details).
#' @param C The cost of constraint violation of the SVM, a positive number;
#'   `NULL` (the default) chooses it by cross-validation (see isvm()'s
#'   defaults). `C = 1` was the default before version 0.1.0.9000.
#' @param probability Fit the Platt probability model (an inner
#'   cross-validation per pair of classes) for `predict(type = "prob")`;
#'   `FALSE` for class predictions by kernlab's vote only, e.g. when tuning
#'   `C` by error with [tune_krein()].
#' @returns A fit of class `c("iknn", "krein_model")`, `c("ikpca_qd",
#'   "krein_model")` or `c("isvm", "krein_model")` (see
#'   [predict.krein_model()], [summary.krein_model()] and
#'   [plot.krein_model()]). Besides what every krein fit holds (`call`,
#'   `levels`, `counts`, `y`, `training_error`, ...):
#'   * `iknn()`: `k`, `k_selection` (for the default `k = NULL`, a data
#'     frame of the candidates `k` and their `loo_error`; else `NULL`), `self`
#'     (the training self-similarities), `loo_error`
#'     (the leave-one-out error, `NA` when `k` is the number of training
#'     points) and `negative_d2` (the share of pairs of training points with
#'     \eqn{d^2 < 0}, a sign of indefiniteness);
#'   * `ikpca_qd()`: `ncomp`, `share` (of the absolute eigenvalue mass),
#'     `values` (the kept eigenvalues), `signature` (\eqn{p}, \eqn{q}: kept
#'     positive and negative ones), `projection`, `gaussian` (the class
#'     means and triangular factors \eqn{R_j' R_j = S_j} of the shrunk
#'     covariances, from a QR decomposition of the centred class coordinates,
#'     with their log-determinants and reciprocal condition numbers), `prior`,
#'     `pvar` (the share used), `pvar_selection` (for `pvar = NULL`: a data
#'     frame of the candidates `pvar`, their `ncomp` and `cv_error`, `NA`
#'     where a fold's covariance was singular; else `NULL`), `shrinkage`,
#'     `pooling` (the weight used);
#'   * `isvm()`: `model` (the [kernlab::ksvm()] fit), `support` (indices of
#'     the support vectors among the training points), `C` (the cost used),
#'     `cost_cv` (for `C = NULL`: a data frame of the costs tried, `C`, and
#'     their cross-validated `error`; else `NULL`), `probability`,
#'     `platt` (one row per pair of classes: the sigmoid's `A` and `B`, its
#'     Newton `iterations` and whether it `converged`; `NULL` without
#'     probabilities) and `kernlab_output` (what kernlab printed).
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (Sections, equations and tables are cited
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#'
#' Friedman, J. H. (1989). Regularized discriminant analysis. *Journal of the
#' American Statistical Association*, 84(405), 165-175.
#' \doi{10.1080/01621459.1989.10478752}.
#'
#' Platt, J. C. (1999). Probabilistic outputs for support vector machines and
#' comparisons to regularized likelihood methods. In *Advances in Large
#' Margin Classifiers*, MIT Press, 61-74.
#'
#' Lin, H.-T., Lin, C.-J. and Weng, R. C. (2007). A note on Platt's
#' probabilistic outputs for support vector machines. *Machine Learning*,
#' 68(3), 267-276. \doi{10.1007/s10994-007-5018-6}.
#'
#' Wu, T.-F., Lin, C.-J. and Weng, R. C. (2004). Probability estimates for
#' multi-class classification by pairwise coupling. *Journal of Machine
#' Learning Research*, 5, 975-1005.
#' @family reference classifiers
#' @examples
#' set.seed(1)
#' train <- checkerboard(200, size = 3)
#' test <- checkerboard(500, size = 3)
#' kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
#' knn <- iknn(y ~ ., data = train, kernel = kernel, k = 5)
#' mean(predict(knn, test) != test$y)
#' head(predict(knn, test, type = "decision"))
#' pca <- ikpca_qd(y ~ ., data = train, kernel = kernel, pvar = 0.8, shrinkage = 0.1)
#' pca
#' mean(predict(pca, test) != test$y)
#' plot(pca)
#' if (requireNamespace("kernlab", quietly = TRUE)) {
#'   svm <- isvm(y ~ ., data = train, kernel = kernel, C = 10)
#'   table(vote = predict(svm, test), posterior = predict(svm, test, rule = "posterior"))
#' }
#' @name reference_classifiers
NULL

# ---------------------------------------------------------------------------
# IKNN

#' @rdname reference_classifiers
#' @export
iknn <- function(x, ...) UseMethod("iknn")

#' @rdname reference_classifiers
#' @export
iknn.formula <- function(formula, data, ..., subset, na.action, kernel = kernel_rbf(),
                        scale = TRUE) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel, scale = scale)
  fit_model("iknn", inputs, list(...), match.call())
}

#' @rdname reference_classifiers
#' @export
iknn.default <- function(x, y, ..., kernel = kernel_rbf(), scale = TRUE, spectrum = "none", k = NULL, na.action = NULL, threads = NULL) {
  check_dots_empty("iknn", ...)
  inputs <- inputs_from_xy(x, y, kernel, na.action, scale = scale, chunks = TRUE)
  fit_model("iknn", inputs, method_arguments("iknn"), match.call())
}

#' The fit behind every iknn() interface
#' @noRd
iknn_fit <- function(inputs, k, threads) {
  n <- length(inputs$y)
  if (!is.null(k)) k <- check_number(k, "k", lower = 1, upper = n, allow_lower = TRUE, integer = TRUE)
  threads <- check_threads(threads)
  self <- if (is.null(inputs$x)) inputs$precomputed$self else kernel_self(inputs$kernel, inputs$x)
  if (is.null(self)) {
    krein_abort("`x` must carry the self-similarities k(x, x) of the training points for iknn(): pass precomputed_kernel(K, self = ...).")
  }
  d2 <- iknn_distances(self, training_kernel(inputs, threads), self)
  labels <- as.integer(inputs$y)
  n_classes <- nlevels(inputs$y)
  # one ordering of each training row serves the leave-one-out errors of
  # every candidate k (the point itself left out) and the training
  # neighbours of the chosen one (the point among its own)
  candidates <- if (is.null(k)) seq_len(min(iknn_max_k, n - 1L)) else if (k < n) k else integer()
  nearest <- iknn_training_labels(d2, labels, if (is.null(k)) max(candidates) else k,
                                  if (length(candidates)) max(candidates) else 0L)
  loo <- vapply(candidates, function(j) {
    mean(iknn_winner(iknn_votes(nearest$without_self[, seq_len(j), drop = FALSE], n_classes)) != labels)
  }, numeric(1))
  k_selection <- NULL
  if (is.null(k)) {
    if (n < 2L) krein_abort("`x` must have at least two training points to choose `k` by leave-one-out; give `k`.")
    k_selection <- data.frame(k = candidates, loo_error = loo)
    k <- candidates[which.min(loo)]  # the first minimum: ties to the smaller k
  }
  loo_error <- if (k < n) loo[match(k, candidates)] else NA_real_
  # kept for the training points' predictions
  training <- iknn_votes(nearest$with_self[, seq_len(k), drop = FALSE], n_classes)
  list(k = k, k_selection = k_selection, self = self, x = inputs$x, threads = threads,
       training_neighbours = training, loo_error = loo_error, negative_d2 = mean(d2[upper.tri(d2)] < 0))
}

# The largest k the default considers (leave-one-out over 1..25)
iknn_max_k <- 25L

# d2(x, x') = k(x, x) - 2 k(x, x') + k(x', x') (paper 000, Sec. IV-E)
iknn_distances <- function(self_new, K, self_train) {
  self_new - 2 * K + rep(self_train, each = nrow(K))
}

#' The k nearest neighbours of each row of `d2` (squared distances to the
#' training points): per class, the votes and the position of the class's
#' nearest neighbour among the k (Inf if it has none).
#' @noRd
iknn_neighbours <- function(d2, labels, n_classes, k) {
  iknn_votes(iknn_nearest_labels(d2, labels, k), n_classes)
}

#' The classes of the k nearest training points of each row of `d2`, nearest
#' first (an nrow(d2) x k matrix)
#' @noRd
iknn_nearest_labels <- function(d2, labels, k) {
  out <- matrix(0L, nrow(d2), k)
  for (i in seq_len(nrow(d2))) out[i, ] <- labels[order(d2[i, ])[seq_len(k)]]
  out
}

#' For the training points (the rows of the square `d2`), from one ordering of
#' each row: the classes of the `k` nearest with the point itself
#' (`with_self`) and of the `loo` nearest without it (`without_self`, the
#' leave-one-out neighbours)
#' @noRd
iknn_training_labels <- function(d2, labels, k, loo) {
  n <- nrow(d2)
  with_self <- matrix(0L, n, k)
  without_self <- matrix(0L, n, loo)
  for (i in seq_len(n)) {
    nearest <- order(d2[i, ])
    with_self[i, ] <- labels[nearest[seq_len(k)]]
    if (loo > 0L) without_self[i, ] <- labels[nearest[nearest != i][seq_len(loo)]]
  }
  list(with_self = with_self, without_self = without_self)
}

#' Per row of `nearest` (iknn_nearest_labels()) and class: the votes, and the
#' position of the class's nearest neighbour among them (Inf if it has none)
#' @noRd
iknn_votes <- function(nearest, n_classes) {
  votes <- matrix(0, nrow(nearest), n_classes)
  first <- matrix(Inf, nrow(nearest), n_classes)
  for (cls in seq_len(n_classes)) {
    is_cls <- nearest == cls
    votes[, cls] <- rowSums(is_cls)
    has <- votes[, cls] > 0
    first[has, cls] <- max.col(is_cls[has, , drop = FALSE], ties.method = "first")
  }
  list(votes = votes, first = first)
}

#' The vote's class (an index): the most votes, ties to the class whose
#' nearest neighbour comes first
#' @noRd
iknn_winner <- function(neighbours) {
  first <- neighbours$first
  first[neighbours$votes < apply(neighbours$votes, 1, max)] <- Inf
  apply(first, 1, which.min)
}

# What a tied class gives the winner of the tie in the probabilities (see
# ?iknn, Prediction): far below any difference of vote shares (1 / k) and far
# above rounding.
iknn_tie_margin <- 1e-9

#' @export
krein_scores.iknn <- function(object, new, type) {
  if (is.null(new)) {
    neighbours <- object$training_neighbours
    names <- rownames(object$x)
  } else {
    kernels <- new_kernels(object, new, need_self = TRUE)
    d2 <- iknn_distances(kernels$self, kernels$K, object$self)
    neighbours <- iknn_neighbours(d2, as.integer(object$y), length(object$levels), object$k)
    names <- kernels$names
  }
  votes <- neighbours$votes
  dimnames(votes) <- list(names, object$levels)
  if (type == "decision") return(votes)
  p <- votes / object$k
  top <- votes == apply(votes, 1, max)
  n_top <- rowSums(top)
  tied <- which(n_top > 1L)
  if (length(tied)) {
    # each class in a tie for the most votes gives the margin to the winner
    winner <- iknn_winner(lapply(neighbours, function(m) m[tied, , drop = FALSE]))
    in_tie <- top & n_top > 1L
    p[in_tie] <- p[in_tie] - iknn_tie_margin
    p[cbind(tied, winner)] <- p[cbind(tied, winner)] + iknn_tie_margin * n_top[tied]
  }
  p
}

#' @export
model_title.iknn <- function(x) paste0("k = ", x$k)

#' @export
model_print_lines.iknn <- function(x) {
  c(sprintf("%d nearest neighbour%s in the kernel-induced distance%s; leave-one-out error %s",
            x$k, if (x$k > 1) "s" else "",
            if (!is.null(x$k_selection)) sprintf(" (k chosen among 1..%d by it)", max(x$k_selection$k)) else "",
            format(x$loo_error, digits = 3)),
    if (x$negative_d2 > 0) {
      sprintf("%.1f%% of the training pairs have d2 < 0 (an indefinite kernel)", 100 * x$negative_d2)
    })
}

#' @export
model_summary.iknn <- function(object) {
  votes <- object$training_neighbours$votes
  classes <- if (!is.null(votes)) {  # NULL: drop_training_scores() removed them
    own <- votes[cbind(seq_along(object$y), as.integer(object$y))]
    tied <- rowSums(votes == apply(votes, 1, max)) > 1L
    data.frame(n = as.vector(object$counts),
               own_votes = as.vector(tapply(own / object$k, object$y, mean)),
               ties = as.vector(tapply(tied, object$y, sum)),
               row.names = object$levels)
  }
  Filter(Negate(is.null), list("Neighbours of the training points (own_votes: mean share of votes for their own class, each point among its neighbours; ties: points whose vote was tied)" = classes,
       "Errors" = c(sprintf("leave-one-out error: %s", format(object$loo_error, digits = 3)),
                    sprintf("share of training pairs with d2 < 0: %s", format(object$negative_d2, digits = 3)))))
}

# ---------------------------------------------------------------------------
# IKPCA-QD

#' @rdname reference_classifiers
#' @export
ikpca_qd <- function(x, ...) UseMethod("ikpca_qd")

#' @rdname reference_classifiers
#' @export
ikpca_qd.formula <- function(formula, data, ..., subset, na.action, kernel = kernel_rbf(),
                        scale = TRUE) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel, scale = scale)
  fit_model("ikpca_qd", inputs, list(...), match.call())
}

#' @rdname reference_classifiers
#' @export
ikpca_qd.default <- function(x, y, ..., kernel = kernel_rbf(), scale = TRUE, spectrum = "none", pvar = NULL, shrinkage = 0.01,
                             pooling = NULL, na.action = NULL, threads = NULL) {
  check_dots_empty("ikpca_qd", ...)
  inputs <- inputs_from_xy(x, y, kernel, na.action, scale = scale, chunks = TRUE)
  fit_model("ikpca_qd", inputs, method_arguments("ikpca_qd"), match.call())
}

#' The fit behind every ikpca_qd() interface
#' @noRd
ikpca_qd_fit <- function(inputs, pvar, shrinkage, pooling, threads) {
  if (!is.null(pvar)) pvar <- check_number(pvar, "pvar", lower = 0, upper = 1)
  shrinkage <- check_number(shrinkage, "shrinkage", lower = 0, upper = 1, allow_lower = TRUE)
  if (!is.null(pooling)) pooling <- check_number(pooling, "pooling", lower = 0, upper = 1, allow_lower = TRUE)
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
  if (length(nonzero) == 0L || !(max(magnitude) > 0)) {
    krein_abort("The centred kernel matrix is zero (the kernel is constant on the training points, e.g. a Gaussian kernel with a vanishing `gamma`): the kernel PCA space of ikpca_qd() has no components. Use another kernel or kernel width.")
  }
  share <- cumsum(magnitude[nonzero]) / sum(magnitude[nonzero])
  prior <- counts / sum(counts)
  components_for <- function(pvar) which(share >= pvar - 1e-12)[1]
  pvar_selection <- NULL
  if (is.null(pvar)) {
    # The scores of the components with the largest eigenvalues are nested:
    # every candidate's are the first columns of the scores of the largest.
    most <- nonzero[seq_len(components_for(max(ikpca_qd_pvar_candidates)))]
    scores <- centred %*% (e$vectors[, most, drop = FALSE] / rep(sqrt(magnitude[most]), each = n))
    pvar_selection <- ikpca_qd_select_pvar(scores, y, vapply(ikpca_qd_pvar_candidates, components_for, 1L),
                                           prior, shrinkage, pooling, threads)
    # which.min(): the first least error (the fewest components), NA skipped
    best <- which.min(pvar_selection$cv_error)
    pvar <- if (length(best)) pvar_selection$pvar[best] else ikpca_qd_pvar_candidates[1]
  }
  p <- components_for(pvar)
  keep <- nonzero[seq_len(p)]
  projection <- e$vectors[, keep, drop = FALSE] / rep(sqrt(magnitude[keep]), each = n)
  # (the chosen share's scores are the first columns of those the choice used)
  Z <- if (is.null(pvar_selection)) centred %*% projection else scores[, seq_len(p), drop = FALSE]
  # ML class covariances pooled by the class sizes (default) and shrunk
  # towards tr(C_j) / p I (PRTools' qdc), held as triangular factors from a QR
  # of the centred class coordinates (gaussian.R)
  pooling <- pooling %||% pooling_by_class_sizes(counts, p)
  gaussian <- gaussian_classes(Z, y, prior = prior, denominator = "ml", shrinkage = shrinkage, threads = threads,
                               pooling = pooling)
  singular <- ikpca_qd_singular(gaussian)
  if (any(singular)) {
    krein_abort(sprintf("The covariance of class%s %s in the kernel PCA space is singular (reciprocal condition number of its factor %s); use a larger `shrinkage` or a smaller `pvar`.",
                        if (sum(singular) > 1) "es" else "", paste0("\"", levels[singular], "\"", collapse = ", "),
                        paste(format(gaussian$rcond[singular], digits = 3), collapse = ", ")),
                class = "krein_singular_covariance")
  }
  list(pvar = pvar, pvar_selection = pvar_selection, shrinkage = shrinkage, pooling = pooling, ncomp = p,
       share = share[p], values = e$values[keep],
       signature = c(p = sum(e$values[keep] > 0), q = sum(e$values[keep] < 0)),
       projection = projection, column_means = column_means, total_mean = total_mean,
       gaussian = gaussian, prior = prior, x = inputs$x, threads = threads,
       training_scores = Z)
}

# The shares of the absolute eigenvalue mass that ikpca_qd()'s default
# chooses among: the paper's 0.8 first (ties go to the fewest components)
ikpca_qd_pvar_candidates <- c(0.8, 0.9, 0.95, 0.99, 0.999)

#' The default `pvar` of ikpca_qd(): the candidate of the least 5-fold
#' cross-validated error (cv_misclassification(); fewer folds when a class has
#' fewer points) of the Gaussian classes in the kernel PCA scores of all
#' training points. The PCA needs no labels, so it is computed once, and each
#' candidate's scores are the first `ncomp` columns of `scores`; only the
#' classes' means and covariances are refitted per fold. With few points per
#' class the paper's 0.8 can leave out the low-variance directions that
#' separate the classes (MASS::crabs: 35-52% test accuracy at 0.8 over three
#' splits, 83-98% with the choice over five). A candidate whose covariances
#' are singular in some fold counts as failed (NA); if all fail, the paper's
#' 0.8 is used.
#' @returns A data frame: `pvar`, `ncomp`, `cv_error`.
#' @noRd
ikpca_qd_select_pvar <- function(scores, y, ncomp, prior, shrinkage, pooling, threads) {
  errors <- cv_misclassification(y, min(5L, min(table(y))), length(ncomp), function(train, held_out) {
    train_counts <- as.vector(table(y[train]))
    vapply(ncomp, function(p) {
      z <- scores[, seq_len(p), drop = FALSE]
      fit <- tryCatch(gaussian_classes(z[train, , drop = FALSE], y[train], prior = prior, denominator = "ml",
                                       shrinkage = shrinkage, threads = threads,
                                       pooling = pooling %||% pooling_by_class_sizes(train_counts, p)),
                      krein_error = function(e) NULL)
      if (is.null(fit) || any(ikpca_qd_singular(fit))) return(rep(NA_integer_, length(held_out)))
      max.col(gaussian_discriminants(fit, z[held_out, , drop = FALSE], relative = TRUE), ties.method = "first")
    }, integer(length(held_out)))
  })
  data.frame(pvar = ikpca_qd_pvar_candidates, ncomp = ncomp, cv_error = errors)
}

# A class covariance of ikpca_qd() too close to singular to use: its
# reciprocal condition number, rcond(R)^2, below the double precision
# epsilon (where a Cholesky of it would fail)
ikpca_qd_singular <- function(gaussian) gaussian$rcond < sqrt(.Machine$double.eps)

#' @export
krein_scores.ikpca_qd <- function(object, new, type) {
  if (is.null(new)) {
    Z <- object$training_scores
    names <- rownames(object$x)
  } else {
    K <- new_kernels(object, new)$K
    # centre the new kernel rows as the training kernel was: H (k_x - K 1 / n),
    # with the training means stored at the fit
    centred <- K - rep(object$column_means, each = nrow(K)) - rowMeans(K) + object$total_mean
    Z <- centred %*% object$projection
    names <- rownames(K)
  }
  dimnames(Z) <- list(names, paste0("PC", seq_len(ncol(Z))))
  if (type == "projection") return(Z)
  # probabilities from discriminants relative to each row's largest, which
  # cannot overflow to Inf - Inf for points far from the training data
  g <- gaussian_discriminants(object$gaussian, Z, relative = type == "prob")
  dimnames(g) <- list(names, object$levels)
  if (type == "decision") g else softmax_rows(g)
}

#' @export
model_title.ikpca_qd <- function(x) sprintf("%d components", x$ncomp)

#' @export
model_print_lines.ikpca_qd <- function(x) {
  chosen <- if (!is.null(x$pvar_selection)) {
    sprintf(", chosen among %s by cross-validated error %s",
            paste(x$pvar_selection$pvar, collapse = ", "),
            format(x$pvar_selection$cv_error[match(x$pvar, x$pvar_selection$pvar)], digits = 3))
  } else ""
  sprintf("%d components (%d positive, %d negative eigenvalues) with %.1f%% of the absolute eigenvalue mass (pvar = %g%s); pooling = %s, shrinkage = %g",
          x$ncomp, x$signature[["p"]], x$signature[["q"]], 100 * x$share, x$pvar, chosen,
          format(x$pooling %||% 0, digits = 3), x$shrinkage)
}

#' @export
model_summary.ikpca_qd <- function(object) {
  components <- data.frame(eigenvalue = object$values, share = cumsum(abs(object$values)) /
                             sum(abs(object$values)) * object$share,
                           row.names = paste0("PC", seq_len(object$ncomp)))
  classes <- data.frame(n = as.vector(object$counts), prior = as.vector(object$prior),
                        logdet = unname(object$gaussian$logdet),
                        row.names = object$levels)
  list("Kernel PCA components (eigenvalues of the centred kernel; share: cumulative share of the absolute eigenvalue mass)" = components,
       "Classes (logdet: log-determinant of the shrunk covariance)" = classes)
}

# ---------------------------------------------------------------------------
# ISVM

#' @rdname reference_classifiers
#' @export
isvm <- function(x, ...) UseMethod("isvm")

#' @rdname reference_classifiers
#' @export
isvm.formula <- function(formula, data, ..., subset, na.action, kernel = kernel_rbf(heuristic = "dimension"),
                        scale = TRUE) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel, scale = scale)
  fit_model("isvm", inputs, list(...), match.call())
}

#' @rdname reference_classifiers
#' @export
isvm.default <- function(x, y, ..., kernel = kernel_rbf(heuristic = "dimension"), scale = TRUE, spectrum = "none", C = NULL,
                         probability = TRUE, na.action = NULL, threads = NULL) {
  check_dots_empty("isvm", ...)
  inputs <- inputs_from_xy(x, y, kernel, na.action, scale = scale, chunks = TRUE)
  fit_model("isvm", inputs, method_arguments("isvm"), match.call())
}

check_kernlab <- function(available = requireNamespace("kernlab", quietly = TRUE), model = "isvm()") {
  if (!available) {
    krein_abort(sprintf("%s needs the kernlab package: install it with install.packages(\"kernlab\").", model),
                class = "krein_missing_package")
  }
}

#' The fit behind every isvm() interface
#' @noRd
isvm_fit <- function(inputs, C, probability, threads) {
  check_kernlab()
  if (!is.null(C)) C <- check_number(C, "C", lower = 0)
  probability <- check_flag(probability, "probability")
  threads <- check_threads(threads)
  # every pair of classes is a two-class SVM (and, with probabilities, a
  # cross-validation inside that pair): kernlab fails with base errors on a
  # one-point class
  check_two_per_class(stats::setNames(as.vector(table(inputs$y)), levels(inputs$y)), "isvm()")
  K <- training_kernel(inputs, threads)
  # C = NULL: the cost of the lowest cross-validated error (isvm_cost_cv())
  cost_cv <- NULL
  if (is.null(C)) {
    cost_cv <- isvm_cost_cv(K, inputs$y)
    C <- cost_cv$C[which.min(cost_cv$error)]
  }
  # Without shrinking: with a precomputed kernel and a large C, kernlab's
  # shrinking heuristic ends far from the optimum after many iterations (at
  # C = 1e4 on 100 banana points an objective of -9.8e6 in 19 s instead of
  # -2.0e4 in 0.01 s, the optimum kernlab's own RBF kernel and libsvm reach).
  # For the same reason krein fits the Platt model itself (isvm_platt()):
  # kernlab's own (prob.model = TRUE) refits its inner cross-validation folds
  # with shrinking on, which at a large C gives a flat sigmoid or an error.
  solved <- kernlab_svm(K, inputs$y, C)
  model <- solved$model
  console <- solved$console
  platt <- if (probability) isvm_platt(K, inputs$y, C)
  if (!is.null(platt) && any(!platt$converged)) {
    krein_warn(sprintf("The Platt sigmoid of %d pair%s of classes did not converge (%s); its probabilities may be poorly calibrated.",
                       sum(!platt$converged), if (sum(!platt$converged) > 1) "s" else "",
                       paste(platt$pair[!platt$converged], collapse = ", ")),
               class = "krein_convergence_warning")
  }
  fit <- list(model = model, support = sort(unique(kernlab::SVindex(model))), C = C, cost_cv = cost_cv,
              probability = probability, platt = platt, kernlab_output = console, x = inputs$x,
              threads = threads)
  # the training outputs, kept so that the n x n kernel is not
  fit$training_outputs <- isvm_outputs(fit, K[, fit$support, drop = FALSE], levels(inputs$y))
  fit
}

#' kernlab's SVM on a precomputed kernel `K` with labels `y` and cost `C`,
#' as every krein fit through kernlab makes it: without shrinking (see
#' isvm_fit()), without kernlab's probability model, its console output
#' captured. A list: `model`, `console`.
#' @noRd
kernlab_svm <- function(K, y, C) {
  model <- NULL
  console <- utils::capture.output(
    model <- kernlab::ksvm(kernlab::as.kernelMatrix(K), y, kernel = "matrix", C = C, prob.model = FALSE,
                           shrinking = FALSE))
  list(model = model, console = console)
}

# Folds of the inner cross-validation that gives the Platt model its decision
# values (libsvm's svm_binary_svc_probability uses 5).
isvm_platt_folds <- 5L

# The costs isvm(C = NULL) chooses from, and the folds of that
# cross-validation
isvm_cost_grid <- 10^(-1:2)
isvm_cost_folds <- 5L

#' The cross-validation that chooses isvm()'s C when none is given: for each
#' cost of `grid`, the share of the training points that kernlab's SVM (its
#' one-vs-one vote, without shrinking like the main fit) misclassifies when
#' fitted without their fold. The folds are stratified and deterministic, so
#' the RNG is untouched and the chosen C is a function of the data
#' (interleaved_folds(), as kqd's and kmdc's). Every class has at least two points (checked
#' before), so every fold's training part holds every class.
#' @param K The training kernel matrix (or, with `block = feature_block`,
#'   the training points' feature rows).
#' @param fold_classes `function(K, y, grid, K_new)`: the classes of the
#'   held-out points (kernel rows `K_new`) from the models fitted on the
#'   fold's training part (kernel `K`, labels `y`) with each cost of `grid`,
#'   a matrix with one column per cost. All costs at once, so that a model
#'   whose fit shares work between costs (krein_svm()'s eigendecompositions)
#'   does it once per fold.
#' @param block How the rows of a subset of the points and the columns of
#'   the training part are taken from `K` (kernel_block(), feature_block()).
#' @returns A data frame: `C`, `error`; the fit takes the first row of the
#'   lowest error (ties to the smaller cost).
#' @noRd
isvm_cost_cv <- function(K, y, grid = isvm_cost_grid, folds = isvm_cost_folds,
                         fold_classes = kernlab_fold_classes, block = kernel_block) {
  fold <- interleaved_folds(y, folds)
  wrong <- numeric(length(grid))
  for (k in unique(fold)) {
    held_out <- which(fold == k)
    train <- which(fold != k)
    predicted <- fold_classes(block(K, train, train), y[train], grid, block(K, held_out, train))
    wrong <- wrong + colSums(predicted != as.character(y[held_out]))
  }
  data.frame(C = grid, error = wrong / length(y))
}

#' The classes kernlab's SVM (its one-vs-one vote) gives held-out points:
#' fitted on the kernel `K` of the training part with labels `y` and each
#' cost of `grid`, applied to the held-out points' kernel rows `K_new`
#' against it (isvm_cost_cv()'s default `fold_classes`; krein_svm() passes
#' its own)
#' @noRd
kernlab_fold_classes <- function(K, y, grid, K_new) {
  per_cost(grid, nrow(K_new), function(C) {
    model <- kernlab_svm(K, y, C)$model
    as.character(kernlab::predict(model, kernlab::as.kernelMatrix(K_new[, kernlab::SVindex(model), drop = FALSE])))
  })
}

#' `classes(C)` for each cost of `grid`, as a matrix with `n` rows and a
#' column per cost (the form of isvm_cost_cv()'s `fold_classes`)
#' @noRd
per_cost <- function(grid, n, classes) matrix(vapply(grid, classes, character(n)), n)

#' Platt's probability model for every pair of classes, as libsvm fits it
#' (svm_binary_svc_probability): decision values of the pair's points from
#' SVMs fitted without them (a `isvm_platt_folds`-fold cross-validation
#' within the pair, folds from R's RNG, fitted without shrinking like the
#' main model), then the sigmoid fitted to them (platt_sigmoid()).
#' @returns A data frame with one row per pair (i, j), i < j, in kernlab's
#'   order: `pair`, `A`, `B`, `iterations`, `converged`.
#' @noRd
isvm_platt <- function(K, y, C, binary_decisions = kernlab_binary_decisions, block = kernel_block) {
  rows <- one_vs_one_pairs(y, function(members, pair_y, pair) {
    decision <- isvm_cv_decisions(block(K, members, members), pair_y, C, binary_decisions, block)
    sigmoid <- platt_sigmoid(decision, pair_y == levels(pair_y)[2])
    data.frame(pair = paste(levels(pair_y), collapse = " vs "), A = sigmoid$A, B = sigmoid$B,
               iterations = sigmoid$iterations, converged = sigmoid$converged, stringsAsFactors = FALSE)
  })
  do.call(rbind, rows)
}

#' Cross-validated decision values of a two-class SVM on a precomputed
#' kernel (f > 0 favours the second level, as kernlab's one-vs-one values).
#' A fold whose training points are all of one class gives its held-out
#' points the decision value +1 or -1 for that class, as libsvm does.
#' @noRd
isvm_cv_decisions <- function(K, y, C, binary_decisions = kernlab_binary_decisions, block = kernel_block) {
  n <- length(y)
  folds <- sample(rep_len(seq_len(min(isvm_platt_folds, n)), n))
  decision <- numeric(n)
  for (k in unique(folds)) {
    held_out <- folds == k
    train <- which(!held_out)
    present <- table(y[train]) > 0
    if (!all(present)) {
      decision[held_out] <- if (present[[2]]) 1 else -1
      next
    }
    decision[held_out] <- binary_decisions(block(K, train, train), y[train], C, block(K, which(held_out), train))
  }
  decision
}

#' The kernel of points `rows` against points `columns` from a kernel matrix
#' (the cross-validations of isvm() and krein_svm()), or, for a linear SVM on
#' features (krein_svm(landmarks = )), the feature rows of `rows`
#' @noRd
kernel_block <- function(K, rows, columns) K[rows, columns, drop = FALSE]
feature_block <- function(features, rows, columns) features[rows, , drop = FALSE]

#' Decision values of kernlab's two-class SVM, fitted on the kernel `K` with
#' labels `y`, for points with kernel rows `K_new` against the training
#' points (isvm_cv_decisions()'s default `binary_decisions`)
#' @noRd
kernlab_binary_decisions <- function(K, y, C, K_new) {
  model <- kernlab_svm(K, y, C)$model
  kernlab::predict(model, kernlab::as.kernelMatrix(K_new[, kernlab::SVindex(model), drop = FALSE]),
                   type = "decision")
}

#' Platt's sigmoid P(positive | f) = 1 / (1 + exp(A f + B)), fitted by the
#' numerically stable Newton method with backtracking line search of Lin, Lin
#' and Weng (2007, "A note on Platt's probabilistic outputs for support
#' vector machines", Algorithm 1), to Platt's (1999) targets with his prior
#' correction: (N+ + 1) / (N+ + 2) for positive points, 1 / (N- + 2) for
#' negative ones.
#' @param decision Decision values.
#' @param positive Logical: which points are positive.
#' @noRd
platt_sigmoid <- function(decision, positive, max_iterations = 100L, min_step = 1e-10,
                          sigma = 1e-12, eps = 1e-5) {
  n_positive <- sum(positive)
  n_negative <- length(positive) - n_positive
  target <- ifelse(positive, (n_positive + 1) / (n_positive + 2), 1 / (n_negative + 2))
  # -log-likelihood, each term written so that exp() cannot overflow
  objective <- function(A, B) {
    fApB <- decision * A + B
    sum(ifelse(fApB >= 0, target * fApB + log1p(exp(-fApB)), (target - 1) * fApB + log1p(exp(fApB))))
  }
  A <- 0
  B <- log((n_negative + 1) / (n_positive + 1))
  value <- objective(A, B)
  converged <- FALSE
  iteration <- 0L
  while (iteration < max_iterations) {
    fApB <- decision * A + B
    # p = P(positive), q = 1 - p, without overflow
    e <- exp(-abs(fApB))
    p <- ifelse(fApB >= 0, e / (1 + e), 1 / (1 + e))
    q <- 1 - p
    d2 <- p * q
    h11 <- sigma + sum(decision^2 * d2)
    h22 <- sigma + sum(d2)
    h21 <- sum(decision * d2)
    d1 <- target - p
    g1 <- sum(decision * d1)
    g2 <- sum(d1)
    if (abs(g1) < eps && abs(g2) < eps) {
      converged <- TRUE
      break
    }
    iteration <- iteration + 1L
    det <- h11 * h22 - h21^2
    dA <- -(h22 * g1 - h21 * g2) / det
    dB <- -(-h21 * g1 + h11 * g2) / det
    gd <- g1 * dA + g2 * dB
    step <- 1
    while (step >= min_step) {
      new_value <- objective(A + step * dA, B + step * dB)
      if (new_value < value + 1e-4 * step * gd) break
      step <- step / 2
    }
    if (step < min_step) break  # the line search failed: no further descent
    A <- A + step * dA
    B <- B + step * dB
    value <- new_value
  }
  list(A = A, B = B, iterations = iteration, converged = converged, objective = value)
}

#' Platt's sigmoid at decision values f: 1 / (1 + exp(A f + B)), without
#' overflow
#' @noRd
platt_probability <- function(f, A, B) {
  fApB <- f * A + B
  e <- exp(-abs(fApB))
  ifelse(fApB >= 0, e / (1 + e), 1 / (1 + e))
}

#' kernlab's pairwise decision values (and the Platt probabilities) from the
#' kernel of points against the support vectors (columns in the order of
#' `support`)
#' @noRd
isvm_outputs <- function(object, K_support, levels) {
  # kernlab's predict() for kernel = "matrix" takes the columns of the support
  # vectors in its SVindex() order
  K_sv <- kernlab::as.kernelMatrix(
    K_support[, match(kernlab::SVindex(object$model), object$support), drop = FALSE])
  pairwise <- matrix(kernlab::predict(object$model, K_sv, type = "decision"), nrow(K_sv))
  prob <- if (object$probability) {
    # P(i | i or j) for pair (i, j): 1 - P(j), the sigmoid fitted with j positive
    r_first <- 1 - vapply(seq_len(ncol(pairwise)), function(p) {
      platt_probability(pairwise[, p], object$platt$A[p], object$platt$B[p])
    }, numeric(nrow(pairwise)))
    couple_pairwise(matrix(r_first, nrow(pairwise)), length(levels))
  }
  list(pairwise = pairwise, prob = prob)
}

#' @export
krein_scores.isvm <- function(object, new, type, rule = "vote") {
  rule <- match_choice(rule, "rule", c("vote", "posterior"))
  check_kernlab()
  levels <- object$levels
  if (is.null(new)) {
    out <- object$training_outputs
    names <- rownames(object$x)
  } else {
    points <- if (!is.null(object$x)) object$x[object$support, , drop = FALSE]
    kernels <- new_kernels(object, new, points = points, columns = object$support)
    out <- isvm_outputs(object, kernels$K, levels)
    names <- kernels$names
  }
  svm_scores_of_type(out, levels, names, type, object$probability)
}

#' What isvm() and krein_svm() predict from their one-vs-one outputs `out`
#' (`pairwise` decision values, `prob` the coupled Platt probabilities):
#' classes by votes, class-wise decision sums, or probabilities
#' @noRd
svm_scores_of_type <- function(out, levels, names, type, probability) {
  # kernlab's pairwise values favour the second class of their pair
  scores <- pairwise_class_scores(-out$pairwise, length(levels))
  if (type == "class") {
    # rule = "vote": kernlab's class, the most votes, ties to the first level
    return(stats::setNames(factor(levels[max.col(scores$votes, ties.method = "first")], levels = levels),
                           names))
  }
  result <- if (type == "decision") {
    scores$decision
  } else if (probability) {
    out$prob
  } else {
    # no Platt model: the share of the one-vs-one contests each class wins
    # (a decision value of exactly 0 votes for neither class)
    won <- rowSums(scores$votes)
    votes <- scores$votes
    votes[won == 0, ] <- 1
    votes / rowSums(votes)
  }
  dimnames(result) <- list(names, levels)
  result
}

#' @export
model_title.isvm <- function(x) paste0("C = ", format(x$C), if (!is.null(x$cost_cv)) ", cross-validated")

#' @export
model_print_lines.isvm <- function(x) {
  c(sprintf("%d support vectors; C = %s%s", length(x$support), format(x$C),
            if (is.null(x$cost_cv)) "" else
              sprintf(" (of %s by %d-fold cross-validated error)",
                      paste(vapply(x$cost_cv$C, format, character(1)), collapse = ", "),
                      isvm_cost_folds)),
    if (x$probability) "class probabilities: Platt sigmoids per pair, coupled" else
      "no Platt model: \"prob\" gives the shares of one-vs-one votes")
}

#' @export
model_summary.isvm <- function(object) {
  sv_class <- table(factor(object$y[object$support], levels = object$levels))
  classes <- data.frame(n = as.vector(object$counts), support_vectors = as.vector(sv_class),
                        row.names = object$levels)
  c(list("Support vectors per class" = classes),
    if (!is.null(object$cost_cv)) {
      list("C by cross-validation (stratified folds, the vote's error; the first lowest is taken)" = object$cost_cv)
    },
    list("kernlab" = c(sprintf("dual objective%s: %s", if (length(object$model@obj) > 1) "s (one per pair of classes)" else "",
                               paste(signif(object$model@obj, 6), collapse = ", ")),
                       sprintf("probability model: %s", if (object$probability) "Platt (pairwise, coupled)" else "none"))),
    if (length(object$kernlab_output)) list("kernlab's console output" = object$kernlab_output))
}

# ---------------------------------------------------------------------------
# Registry

model_registration_iknn <- function() register_krein_model(
  "iknn", label = "IKNN: kernel nearest neighbours", fit = "iknn_fit",
  parameters = data.frame(parameter = "k", class = "numeric", label = "neighbours",
                          stringsAsFactors = FALSE),
  needs_self = function(args) TRUE,
  default_grid = function(size, args, data) list(k = unique(pmin(seq(1, by = 2, length.out = size), data$n))),
  parsnip = list(model = "nearest_neighbor",
                 args = list(neighbors = list(krein = "k", main = TRUE, dials = list(pkg = "dials", fun = "neighbors"))))
)

model_registration_ikpca_qd <- function() register_krein_model(
  "ikpca_qd", label = "IKPCA-QD: quadratic discriminant in the indefinite kernel PCA space",
  fit = "ikpca_qd_fit",
  parameters = data.frame(parameter = c("pvar", "shrinkage"), class = c("numeric", "numeric"),
                          label = c("share of eigenvalue mass", "covariance shrinkage"),
                          stringsAsFactors = FALSE),
  types = "projection", renamed = c(reg = "shrinkage"),
  ranges = function(args) list(shrinkage = c(-3, 0)),
  default_grid = function(size, args, data) list(shrinkage = range_values(tuning_range("ikpca_qd", "shrinkage"), size))
)

model_registration_isvm <- function() register_krein_model(
  "isvm", label = "ISVM: kernlab's support vector machine on the kernel matrix", fit = "isvm_fit",
  parameters = data.frame(parameter = "C", class = "numeric", label = "cost",
                          stringsAsFactors = FALSE),
  predict_args = "rule", ranges = function(args) list(C = c(-1, 3)),
  default_grid = function(size, args, data) list(C = range_values(tuning_range("isvm", "C"), size)),
  # kernlab's rbfdot() sigma, parsnip's rbf_sigma, is kernel_rbf()'s gamma
  parsnip = list(model = "svm_rbf",
                 args = list(cost = list(krein = "C", main = TRUE, dials = list(pkg = "dials", fun = "cost")),
                             rbf_sigma = list(krein = "gamma", main = TRUE, dials = list(pkg = "krein", fun = "rbf_gamma_dimension"))))
)
