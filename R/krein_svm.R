# The Krein-space SVM of Loosli, Canu and Ong (2016): the C-SVM dual solved
# on the flipped kernel |K| = U |Lambda| U' by kernlab (as isvm() solves it
# on K), its coefficients mapped back to the raw kernel's, predictions with
# the raw kernel. One-vs-one for several classes; probabilities by krein's
# Platt sigmoids and coupling (R/svm_tools.R).

#' Krein-space support vector machine
#'
#' The Krein-space SVM (KSVM) of Loosli, Canu and Ong (2016) for indefinite
#' kernels. For two classes with training kernel \eqn{K = U \Lambda
#' U^\top}, it solves the C-SVM dual on the flipped kernel \eqn{|K| = U
#' |\Lambda| U^\top} (positive semidefinite) with labels \eqn{y}, giving
#' coefficients \eqn{a = \alpha \odot y} and bias \eqn{b}, and maps them back
#' to \deqn{\beta = U\, \mathrm{sign}(\Lambda)\, U^\top a,} so that the
#' decision function uses the **raw** kernel:
#' \deqn{f(x) = \sum_i \beta_i k(x, x_i) + b.}
#' Since \eqn{K \beta = |K| a}, \eqn{f} equals the flipped SVM's decision
#' values on the training points. On a new point with similarities \eqn{s}
#' to the training points, \eqn{f = s^\top \beta + b = (P s)^\top a + b} with
#' \eqn{P = U\, \mathrm{sign}(\Lambda)\, U^\top}: the SVM on \eqn{|K|} with
#' the flip's consistent map of new points of Chen et al. (2009), that is
#' `isvm(spectrum = "flip")` for two classes. An SVM trained on \eqn{|K|} and
#' evaluated on the raw \eqn{s} (\eqn{s^\top a + b}) is neither.
#' \eqn{\beta} is dense: the sparsity of the flipped SVM's \eqn{\alpha} is
#' lost, and prediction uses every training point. With several classes the
#' Krein SVM decomposes each pair's kernel (its own \eqn{U, \Lambda}), where
#' `isvm(spectrum = "flip")` flips the kernel of all classes at once.
#'
#' Several classes: one KSVM per pair of classes \eqn{i < j} (each on the
#' eigendecomposition of its own pair's kernel), combined as [isvm()]
#' combines kernlab's: `"decision"` sums the pairwise \eqn{f_{ij}} per class
#' (\eqn{f_{ij} > 0} favours \eqn{j}; for two classes \eqn{(-f, f)}),
#' `"class"` is the one-vs-one vote by default (`rule = "vote"`, ties to the
#' first level) or the most probable class (`rule = "posterior"`), `"prob"`
#' the pairwise Platt probabilities (sigmoids fitted to cross-validated KSVM
#' decision values of the pair's points: with `C = NULL` those of the cost's
#' own cross-validation at the chosen cost, with a given `C` those of a
#' 5-fold cross-validation within the pair, folds from R's RNG) coupled as
#' in [isvm()], or the shares of votes with `probability = FALSE`.
#'
#' The dual is solved by kernlab's `ksvm()` on the flipped kernel matrix
#' (without shrinking, as [isvm()]): kernlab must be installed. The
#' cross-validation of `C = NULL` solves the same duals in krein's core, as
#' [isvm()]'s does. The cost is
#' an eigendecomposition of each pair's kernel (\eqn{O(n^3)}) besides the
#' SVM; for large \eqn{n} use the Nystroem KSVM (`landmarks`, below).
#' A kernel known to be positive definite (`kernel$positive_definite`, as
#' [kernel_rbf()]'s) has \eqn{|K| = K}: the flip is the identity,
#' \eqn{\beta = \alpha y}, and each pair's KSVM is the C-SVM on \eqn{K}, so
#' krein fits it without the eigendecompositions (their rounding-level
#' negative eigenvalues would move \eqn{K} by about \eqn{10^{-13}}). A
#' precomputed kernel, or one after a `spectrum` correction, is flipped.
#'
#' @section Nystroem Krein SVM (`landmarks`):
#' Beyond the paper, for large \eqn{n}: with `landmarks` the kernel is
#' replaced by its Nystroem approximation on \eqn{m} landmarks (Schleif,
#' Gisbrecht and Tino 2018, Sec. 3 and 4.2), \eqn{\hat K = \Phi J
#' \Phi^\top} with the signed features \eqn{\phi(x) = |l|^{-1/2} V^\top
#' k(L, x)} from the landmark block \eqn{K_{mm} = V \mathrm{diag}(l)
#' V^\top} and its signature \eqn{J = \mathrm{sign}(l)}, and the KSVM on
#' \eqn{\hat K} becomes a linear SVM, solved by LIBLINEAR (package
#' LiblineaR) with the squared hinge loss \eqn{\max(0, 1 - y f)^2} (its
#' primal Newton solver, several times faster at this scale than its
#' hinge-loss solver, with the same accuracy in the benchmark script
#' `bench/krein_svm.R` of krein's source repository). The columns of \eqn{\Phi} are not
#' orthogonal in general, so \eqn{\Phi \Phi^\top} (the flip of
#' \eqn{K_{mm}} alone) is not the flipped \eqn{|\hat K|}; krein flips
#' \eqn{\hat K} itself from the \eqn{r \times r} Gram matrix
#' \eqn{\Phi^\top\Phi = R^\top R}: with \eqn{R J R^\top = E \Lambda
#' E^\top}, the nonzero spectrum of \eqn{\hat K} is \eqn{\Lambda} and
#' \eqn{|\hat K| = \Psi \Psi^\top} with the features \eqn{\Psi = \Phi
#' R^{-1} E |\Lambda|^{1/2}}. The linear SVM on \eqn{\Psi} (weights
#' \eqn{w = \Psi^\top a}) is the kernel SVM on \eqn{|\hat K|}; the KSVM's map back
#' \eqn{\beta = U \mathrm{sign}(\Lambda) U^\top a} (\eqn{U} the
#' eigenvectors of \eqn{\hat K}) gives, with the raw Nystroem kernel,
#' \deqn{f(x) = \hat k(x, X) \beta + b = \phi(x)^\top J R^\top E
#' \mathrm{sign}(\Lambda) |\Lambda|^{-1/2} w + b = k(x, L)^\top c + b,}
#' an \eqn{m}-vector \eqn{c} over the landmarks: prediction needs the
#' landmarks only. On the training points \eqn{f} equals the linear SVM's
#' decision values. Exact: the flip of \eqn{\hat K} and the map back (to
#' rounding). Approximations: \eqn{\hat K} for \eqn{K} (exact when the
#' landmarks span the kernel), the squared hinge loss for the C-SVM's hinge,
#' LIBLINEAR's stopping tolerance (0.01), and its bias, a weight on a
#' constant feature of value 1 and therefore regularised, where the C-SVM's
#' bias is free. The fit draws no random numbers besides the landmarks and,
#' with a given `C`, the Platt folds. Cost: \eqn{O(n m r)} for the features and
#' \eqn{O(n r^2)} per pair of classes for the flip, plus the linear SVMs;
#' memory \eqn{O(n r)}. The cross-validation of `C` (when `C = NULL`; its
#' held-out decision values serve the Platt model) or the Platt folds (a
#' given `C`) refit on the training part of each fold, flip included.
#' The `"decision"` values are those of the KSVM on \eqn{\hat K}, and an SVM
#' pair's `margin` counts the points on or inside the flipped SVM's margin
#' (LIBLINEAR gives no dual coefficients). LiblineaR must be installed.
#'
#' @inheritParams krein_inputs
#' @inheritParams kqd
#' @param landmarks `"auto"` (the default): the full KSVM up to a number of
#'   training rows, the Nystroem KSVM on random landmarks beyond (see
#'   [krein_forms]); `NULL` (or `"none"`, which interfaces that drop `NULL` arguments can pass, such as parsnip's `set_engine()`) for the full KSVM; `"meb"`, `"kmeans"`,
#'   `"random"`, training-row indices or a [select_landmarks()] result for
#'   the Nystroem KSVM (see its section), as in [ikfd()].
#' @param eps,m Passed to [select_landmarks()] when `landmarks` names a
#'   method.
#' @param C The SVM's cost (a positive number; with `landmarks` from 1e-15,
#'   where LIBLINEAR's weights are about to vanish, to 1e15, where its fit has
#'   long reached its hard-margin limit: far outside, its solver does not
#'   finish), or `NULL` (the default) for
#'   the one of 0.1, 1, 10, 100 with the lowest 5-fold cross-validated error
#'   of the vote (stratified, deterministic folds; ties to the smaller cost).
#'   With `landmarks` and more than 10,000 training points, the
#'   cross-validation (and the Platt model, fitted to its held-out decision
#'   values) uses a stratified subsample of 10,000: each class's share,
#'   spread evenly over its rows in data order, so no random numbers; the
#'   KSVMs at the chosen cost are then fitted on all points.
#' @param probability If `TRUE` (the default), fit Platt's probability model
#'   for every pair of classes.
#' @returns A `krein_model` of class `krein_svm`: besides the shared fields,
#'   `pairs` (one element per pair of classes: `classes`, `members` (training
#'   rows), `beta`, `b`, `values` (the eigenvalues of the pair's kernel;
#'   `NULL` for a positive definite kernel), `support` (the flipped SVM's
#'   support vectors, rows of `members`)), `C`, `cost_cv`, `probability`,
#'   `platt` and `definite` (`TRUE` when the kernel is positive definite and
#'   nothing was flipped). A Nystroem fit has instead per
#'   pair `classes`, `coefficients` (\eqn{c}, one per landmark), `b`,
#'   `values` (the nonzero eigenvalues of the pair's \eqn{\hat K}), `w` (the
#'   linear SVM's weights), `v` (the coefficients over the features) and
#'   `margin`; and `landmarks`, `landmark_rank` and `signature` (\eqn{p, q}
#'   of \eqn{J}).
#' @references
#' Loosli, G., Canu, S. and Ong, C. S. (2016). Learning SVM in Krein spaces.
#' *IEEE Transactions on Pattern Analysis and Machine Intelligence*, 38(6),
#' 1204-1216. \doi{10.1109/TPAMI.2015.2477830}
#'
#' Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#' indefinite kernel approximation using minimum enclosing balls.
#' *Neurocomputing*, 318, 213-226. \doi{10.1016/j.neucom.2018.08.057}
#'
#' Fan, R.-E., Chang, K.-W., Hsieh, C.-J., Wang, X.-R. and Lin, C.-J. (2008).
#' LIBLINEAR: a library for large linear classification. *Journal of Machine
#' Learning Research*, 9, 1871-1874.
#' @seealso [isvm()] (kernlab's SVM on the kernel as it is), the `spectrum`
#'   argument and [correct_spectrum()] (an SVM on a corrected kernel).
#' @family reference classifiers
#' @examples
#' if (requireNamespace("kernlab", quietly = TRUE)) {
#'   set.seed(1)
#'   train <- checkerboard(150, size = 2)
#'   kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
#'   fit <- krein_svm(y ~ x1 + x2, data = train, kernel = kernel, C = 10)
#'   fit
#'   test <- checkerboard(200, size = 2)
#'   mean(predict(fit, test) != test$y)
#' }
#' if (requireNamespace("LiblineaR", quietly = TRUE)) {
#'   set.seed(1)
#'   train <- checkerboard(2000, size = 2)
#'   kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
#'   ny <- krein_svm(y ~ x1 + x2, data = train, kernel = kernel, C = 10, landmarks = "random", m = 60,
#'                   probability = FALSE, threads = 2)
#'   ny
#'   test <- checkerboard(500, size = 2)
#'   mean(predict(ny, test) != test$y)
#' }
#' @export
krein_svm <- function(x, ...) UseMethod("krein_svm")

#' @rdname krein_svm
#' @export
krein_svm.formula <- function(formula, data, ..., subset, na.action, kernel = kernel_rbf(heuristic = "dimension"),
                              scale = TRUE) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel, scale = scale)
  fit_model("krein_svm", inputs, list(...), match.call())
}

#' @rdname krein_svm
#' @export
krein_svm.default <- function(x, y, ..., kernel = kernel_rbf(heuristic = "dimension"), scale = TRUE,
                              spectrum = "none", C = NULL, probability = TRUE, landmarks = "auto", eps = 0.01,
                              m = NULL, na.action = NULL, threads = NULL) {
  check_dots_empty("krein_svm", ...)
  inputs <- inputs_from_xy(x, y, kernel, na.action, scale = scale)
  fit_model("krein_svm", inputs, method_arguments("krein_svm"), match.call())
}

#' The fit behind every krein_svm() interface
#' @noRd
krein_svm_fit <- function(inputs, C, probability, landmarks, eps, m, threads) {
  if (is.null(landmarks)) check_kernlab(model = "krein_svm()") else check_liblinear()
  if (!is.null(C)) C <- check_number(C, "C", lower = 0)
  # LIBLINEAR's Newton solver never returns (nor lets R interrupt it) for
  # costs around 1e100 and beyond, nor around 1e-165 and below; its fit is
  # the hard-margin limit long before the first, all zero long before the
  # second (krein_svm_liblinear_max_cost)
  if (!is.null(C) && !is.null(landmarks) && C > krein_svm_liblinear_max_cost) {
    krein_abort(sprintf("`C` must be at most %s with landmarks, not %s: LIBLINEAR's solver, which fits the Nystroem Krein SVM, does not finish for far larger costs, and its fit reaches the hard-margin limit well below this one.",
                        format(krein_svm_liblinear_max_cost), format_number(C)))
  }
  if (!is.null(C) && !is.null(landmarks) && C < krein_svm_liblinear_min_cost) {
    krein_abort(sprintf("`C` must be at least %s with landmarks, not %s: LIBLINEAR's solver, which fits the Nystroem Krein SVM, does not finish for far smaller costs, and its weights are all zero (one decision for every point) well above them.",
                        format(krein_svm_liblinear_min_cost), format_number(C)))
  }
  probability <- check_flag(probability, "probability")
  threads <- check_threads(threads)
  warn_one_row_classes(table(inputs$y), svm_one_row_treatment)
  if (!is.null(landmarks)) return(krein_svm_nystrom_fit(inputs, C, probability, landmarks, eps, m, threads))
  K <- training_kernel(inputs, threads)
  y <- inputs$y
  # A positive definite kernel has |K| = K: the flip is the identity, beta =
  # alpha y, and each KSVM is the C-SVM on K (Loosli et al. 2016, Sec. 4), so
  # no pair needs its eigendecomposition, in the folds or in the model.
  # Rounding leaves such a K eigenvalues of order -1e-13, which the flip would
  # only move by as much. A precomputed or corrected kernel is not known to be
  # positive definite and is flipped.
  definite <- is.null(inputs$precomputed) && isTRUE(inputs$kernel$positive_definite)
  route <- if (definite) {
    list(fold_outputs = smo_fold_outputs, pairs = krein_svm_definite_pairs,
         binary_decisions = kernlab_binary_decisions)
  } else {
    list(fold_outputs = krein_svm_fold_outputs, pairs = krein_svm_pairs,
         binary_decisions = krein_svm_binary_decisions)
  }
  # C = NULL: the cross-validated cost, whose held-out decision values serve
  # the Platt model (isvm_cost_cv())
  choice <- if (is.null(C)) {
    cross_validated_cost(isvm_cost_cv(K, y, fold_outputs = route$fold_outputs))
  } else list(C = C)
  C <- choice$C
  pairs <- route$pairs(K, y, C)
  platt <- if (probability) isvm_platt(K, y, C, binary_decisions = route$binary_decisions, held_out = choice$held_out)
  warn_platt_convergence(platt)
  fit <- list(pairs = pairs, C = C, cost_cv = choice$cost_cv, probability = probability, platt = platt,
              definite = definite, x = inputs$x, threads = threads)
  fit$training_outputs <- svm_outputs(fit, krein_svm_pairwise(fit, K), levels(y))
  fit
}

#' The warning of a Platt model with sigmoids that did not converge
#' @noRd
warn_platt_convergence <- function(platt) {
  if (!is.null(platt) && any(!platt$converged)) {
    krein_warn(sprintf("The Platt sigmoid of %d pair%s of classes did not converge (%s); its probabilities may be poorly calibrated.",
                       sum(!platt$converged), if (sum(!platt$converged) > 1) "s" else "",
                       paste(platt$pair[!platt$converged], collapse = ", ")),
               class = "krein_convergence_warning")
  }
}

#' One two-class KSVM (Loosli et al. 2016, Algorithm 1) on a pair's flipped
#' kernel `flip` (krein_svm_flip() of its kernel, computed once and shared
#' between costs) and labels `y` (a two-level factor): the dual on |K| by
#' `solve` (kernlab_binary() for the model, smo_binary() in the cost's
#' cross-validation), a = alpha y, beta = U sign(Lambda) U' a; f > 0 favours
#' the second level.
#' @noRd
krein_svm_binary <- function(flip, y, C, solve = kernlab_binary) {
  # f(x) = sum_i a_i k(x, x_i) + b, > 0 for the second level (as kernlab's
  # one-vs-one values)
  solved <- solve(flip$flipped, y, C)
  a <- solved$coefficients
  beta <- if (flip$identity) a else drop(flip$vectors %*% (sign(flip$values) * crossprod(flip$vectors, a)))
  list(beta = beta, b = solved$b, values = flip$values, support = solved$support %||% which(a != 0), a = a)
}

#' The flipped kernel |K| = U |Lambda| U' of a pair's kernel `K`, with the
#' eigenpairs that map the coefficients back (krein_svm_binary())
#' @noRd
krein_svm_flip <- function(K) {
  K <- (K + t(K)) / 2
  eig <- kernel_eigen(K)
  # A kernel without a negative eigenvalue beyond rounding (n eps of the
  # largest magnitude) is positive semidefinite to working precision: its
  # flip is itself (Loosli et al. 2016, Sec. 4), and the SVM is solved on K
  # as given, as for a kernel known to be positive definite. Rebuilt as
  # U |Lambda| U' it would differ from K in the last digits, which can move
  # the solver to another point within its tolerance (a precomputed copy of a
  # positive definite kernel gave Platt probabilities 1e-5 apart under
  # OpenBLAS).
  rounding <- nrow(K) * .Machine$double.eps * max(abs(eig$values), 0)
  if (all(eig$values >= -rounding)) {
    return(list(flipped = K, vectors = eig$vectors, values = eig$values, identity = TRUE))
  }
  list(flipped = spectral_matrix(eig$vectors, abs(eig$values)), vectors = eig$vectors, values = eig$values,
       identity = FALSE)
}

#' The one-vs-one KSVMs, pairs (i, j), i < j, in kernlab's order
#' @noRd
krein_svm_pairs <- function(K, y, C) {
  one_vs_one_pairs(y, function(members, pair_y, pair) {
    c(list(classes = levels(pair_y), members = members),
      krein_svm_binary(krein_svm_flip(K[members, members, drop = FALSE]), pair_y, C))
  })
}

#' The one-vs-one KSVMs of a positive definite kernel: the C-SVMs on K,
#' solved by one multi-class kernlab fit (its pairs are kernlab_binary()'s
#' problems, in the same order) rather than one fit per pair, each of which
#' costs kernlab's S4 set-up (most of a small fit: 15 pairs on mlbench's
#' Glass)
#' @noRd
krein_svm_definite_pairs <- function(K, y, C) {
  model <- kernlab_svm(K, y, C)$model
  indices <- kernlab::alphaindex(model)
  coefficients <- kernlab::coef(model)
  bias <- kernlab::b(model)
  pair_number <- 0L
  one_vs_one_pairs(y, function(members, pair_y, pair) {
    pair_number <<- pair_number + 1L
    support <- match(indices[[pair_number]], members)
    a <- numeric(length(members))
    a[support] <- coefficients[[pair_number]]
    list(classes = levels(pair_y), members = members, beta = a, b = -bias[[pair_number]], values = NULL,
         support = sort(support), a = a)
  })
}

#' Pairwise decision values of points whose kernel rows against the
#' training points are `K`: f = K_members beta + b; for a Nystroem fit, `K`
#' holds the rows against the landmarks and f = K c + b
#' @noRd
krein_svm_pairwise <- function(object, K) {
  pairwise <- vapply(object$pairs, function(pair) {
    if (is.null(pair$members)) return(drop(K %*% pair$coefficients) + pair$b)
    drop(K[, pair$members, drop = FALSE] %*% pair$beta) + pair$b
  }, numeric(nrow(K)))
  matrix(pairwise, nrow(K))
}

#' The classes the KSVMs' one-vs-one vote gives held-out points and their
#' pairwise decision values, for each cost of `grid` (isvm_cost_cv()'s
#' `fold_outputs`: krein_svm() shares isvm()'s folds and costs)
#' @noRd
krein_svm_fold_outputs <- function(K, y, grid, K_new) {
  # the flip of each pair's kernel does not depend on C: once per fold
  flips <- one_vs_one_pairs(droplevels(y), function(members, pair_y, pair) {
    list(members = members, y = pair_y, flip = krein_svm_flip(K[members, members, drop = FALSE]))
  })
  per_cost_outputs(grid, function(C) {
    pairs <- lapply(flips, function(pair) {
      c(list(members = pair$members), krein_svm_binary(pair$flip, pair$y, C, solve = smo_binary))
    })
    vote_outputs(krein_svm_pairwise(list(pairs = pairs), K_new), levels(y))
  })
}

#' Decision values of a two-class KSVM for points with kernel rows `K_new`
#' against its training points (for isvm_platt()'s cross-validation)
#' @noRd
krein_svm_binary_decisions <- function(K, y, C, K_new) {
  binary <- krein_svm_binary(krein_svm_flip(K), y, C)
  drop(K_new %*% binary$beta) + binary$b
}

#' @export
krein_scores.krein_svm <- function(object, new, type, rule = "vote") {
  rule <- match_choice(rule, "rule", c("vote", "posterior"))
  levels <- object$levels
  if (is.null(new)) {
    out <- object$training_outputs
    names <- rownames(object$x)
  } else {
    lm <- object$landmarks
    kernels <- if (is.null(lm)) new_kernels(object, new) else
      new_kernels(object, new, points = lm$points, columns = lm$indices)
    out <- svm_outputs(object, krein_svm_pairwise(object, kernels$K), levels)
    names <- kernels$names
  }
  svm_scores_of_type(out, levels, names, type, object$probability)
}

#' @export
default_class_rule.krein_svm <- function(object) "vote"

#' @export
model_title.krein_svm <- function(x) paste0("C = ", format(x$C), if (!is.null(x$cost_cv)) ", cross-validated")

#' @export
model_print_lines.krein_svm <- function(x) {
  negative <- vapply(x$pairs, function(p) sum(p$values < 0), integer(1))
  pairs <- sprintf("%d pair%s of classes", length(x$pairs), if (length(x$pairs) > 1) "s" else "")
  c(if (!is.null(x$landmarks)) sprintf(
      "Nystroem kernel on %d landmarks (%s), signature (p, q) = (%d, %d); linear SVMs by LIBLINEAR",
      length(x$landmarks$class), x$landmarks$method, x$signature[["p"]], x$signature[["q"]]),
    if (isTRUE(x$definite)) {
      sprintf("%s; the kernel is positive definite, so |K| = K and each KSVM is the C-SVM on K", pairs)
    } else {
      sprintf("%s; negative eigenvalues of the pair kernels: %s", pairs, paste(negative, collapse = ", "))
    },
    if (isTRUE(x$definite)) {
      sprintf("support vectors: %s", paste(vapply(x$pairs, function(p) length(p$support), integer(1)), collapse = ", "))
    } else if (is.null(x$landmarks)) {
      sprintf("support vectors of the flipped SVMs: %s (the coefficients on the raw kernel are dense)",
              paste(vapply(x$pairs, function(p) length(p$support), integer(1)), collapse = ", "))
    } else {
      sprintf("points on or inside the margin of the flipped SVMs: %s",
              paste(vapply(x$pairs, function(p) p$margin, integer(1)), collapse = ", "))
    },
    if (x$probability) "class probabilities: Platt sigmoids per pair, coupled" else
      "no Platt model: \"prob\" gives the shares of one-vs-one votes")
}

#' @export
model_summary.krein_svm <- function(object) {
  nystrom <- !is.null(object$landmarks)
  pairs <- data.frame(
    pair = vapply(object$pairs, function(p) paste(p$classes, collapse = " vs "), ""),
    points = vapply(object$pairs, function(p) {
      if (nystrom) as.integer(sum(object$counts[p$classes])) else length(p$members)
    }, integer(1)),
    negative_eigenvalues = vapply(object$pairs, function(p) sum(p$values < 0), integer(1)),
    support_vectors = vapply(object$pairs, function(p) if (nystrom) p$margin else length(p$support), integer(1)),
    bias = vapply(object$pairs, function(p) p$b, numeric(1)))
  title <- "Pairs of classes (the flipped SVM's support vectors; b the bias)"
  if (isTRUE(object$definite)) {
    # no eigenvalues were computed: the kernel is positive definite
    pairs$negative_eigenvalues <- NULL
    title <- "Pairs of classes (a positive definite kernel: C-SVMs on K; b the bias)"
  }
  if (nystrom) {
    names(pairs)[4] <- "margin_points"
    title <- "Pairs of classes (points on or inside the flipped SVM's margin; b the bias)"
  }
  c(stats::setNames(list(pairs), title),
    if (!is.null(object$cost_cv)) list("C by cross-validation (stratified folds, the vote's error)" = object$cost_cv))
}

model_registration_krein_svm <- function() register_krein_model(
  full_form = function(args) is.null(args$landmarks), full_copies = 5,
  forms = landmark_forms(), full_max_rows = 5500,
  "krein_svm", label = "KSVM: Krein-space support vector machine", fit = "krein_svm_fit",
  parameters = data.frame(parameter = "C", class = "numeric", label = "cost", stringsAsFactors = FALSE),
  needs_inputs = function(args) landmarks_need_inputs(args$landmarks),
  predict_args = "rule", ranges = function(args) list(C = c(-1, 3)),
  default_grid = function(size, args, data) list(C = range_values(tuning_range("krein_svm", "C"), size)),
  landmark_args = function(landmarks) list(landmarks = landmarks)
)
