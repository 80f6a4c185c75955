# What isvm() and krein_svm() share: kernlab's SVM on a precomputed kernel,
# the cross-validation that chooses the cost, Platt's sigmoid fitted to
# cross-validated decision values and its probabilities, and the one-vs-one
# predictions of both models.

check_kernlab <- function(available = requireNamespace("kernlab", quietly = TRUE), model = "isvm()") {
  if (!available) {
    krein_abort(sprintf("%s needs the kernlab package: install it with install.packages(\"kernlab\").", model),
                class = "krein_missing_package")
  }
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
#' cost of `grid`, the share of the training points that the SVM (the
#' one-vs-one vote of the core's two-class SVMs, smo_fold_outputs(): the
#' problems kernlab solves for the main fit, to its tolerance) misclassifies
#' when fitted without their fold. The folds are stratified and deterministic, so
#' the RNG is untouched and the chosen C is a function of the data
#' (interleaved_folds(), as kqd's and kmdc's). A class of one point is
#' missing from the training part of the fold that holds its point out
#' (present_class_outputs()).
#'
#' The same fits give every training point its pairwise decision values from
#' models that did not see it: for the chosen cost they are the
#' cross-validated decision values Platt's sigmoids are fitted to
#' (isvm_platt(held_out = )), so the default fit needs no second
#' cross-validation for its probabilities.
#' @param K The training kernel matrix (or, with `block = feature_block`,
#'   the training points' feature rows).
#' @param fold_outputs `function(K, y, grid, K_new)`: for the held-out points
#'   (kernel rows `K_new`), from the models fitted on the fold's training
#'   part (kernel `K`, labels `y`) with each cost of `grid`, a list of
#'   `classes` (a matrix with one column per cost) and `decisions` (one
#'   matrix per cost, a column per pair of classes in class_pairs() order,
#'   f > 0 favouring the pair's second class). All costs at once, so that a
#'   model whose fit shares work between costs (krein_svm()'s
#'   eigendecompositions) does it once per fold.
#' @param block How the rows of a subset of the points and the columns of
#'   the training part are taken from `K` (kernel_block(), feature_block()).
#' @returns A list: `table`, a data frame `C`, `error` (the fit takes the
#'   first row of the lowest error: ties to the smaller cost), and
#'   `decisions`, per cost the n x pairs matrix of held-out decision values.
#' @noRd
isvm_cost_cv <- function(K, y, grid = isvm_cost_grid, folds = isvm_cost_folds,
                         fold_outputs = smo_fold_outputs, block = kernel_block) {
  fold <- interleaved_folds(y, folds)
  wrong <- numeric(length(grid))
  n_pairs <- ncol(class_pairs(nlevels(y)))
  decisions <- rep(list(matrix(NA_real_, length(y), n_pairs)), length(grid))
  for (k in unique(fold)) {
    held_out <- which(fold == k)
    train <- which(fold != k)
    out <- present_class_outputs(fold_outputs, block(K, train, train), y[train], grid, block(K, held_out, train))
    wrong <- wrong + colSums(out$classes != as.character(y[held_out]))
    for (j in seq_along(grid)) decisions[[j]][held_out, ] <- out$decisions[[j]]
  }
  list(table = data.frame(C = grid, error = wrong / length(y)), decisions = decisions)
}

#' `fold_outputs(K, y, grid, K_new)` (see isvm_cost_cv()) of a fold whose
#' training part may lack a class: the fold that holds out the one row of a
#' class has none of it. The pairs of the classes present are fitted by
#' `fold_outputs` on those classes; a pair with a class absent gives every
#' held-out point the decision value libsvm gives a fold whose training part
#' holds one class only (svm_binary_svc_probability): +1 or -1 for the class
#' present (f > 0 favours the pair's second class), 0 if neither is. The
#' vote then never chooses an absent class and ranks the others as the pairs
#' of present classes do.
#' @noRd
present_class_outputs <- function(fold_outputs, K, y, grid, K_new) {
  present <- as.vector(table(y)) > 0
  if (all(present)) return(fold_outputs(K, y, grid, K_new))
  levels <- levels(y)
  pairs <- class_pairs(length(levels))
  both <- present[pairs[1L, ]] & present[pairs[2L, ]]
  constant <- as.double(present[pairs[2L, ]]) - as.double(present[pairs[1L, ]])
  fitted <- if (sum(present) >= 2L) fold_outputs(K, factor(y, levels = levels[present]), grid, K_new)
  per_cost_outputs(seq_along(grid), function(j) {
    pairwise <- matrix(rep(constant, each = nrow(K_new)), nrow(K_new))
    if (!is.null(fitted)) pairwise[, both] <- fitted$decisions[[j]]
    vote_outputs(pairwise, levels)
  })
}

# What isvm() and krein_svm() do with a class of one training row, as libsvm
# does (warn_one_row_classes())
svm_one_row_treatment <- paste(
  "its pairs' SVMs are fitted with that row as the class's only point, and the cross-validation fold",
  "that holds it out (of the cost, of the Platt model) gives its pairs the other class's decision, as",
  "libsvm does; its probabilities rest on that one point")

#' The default cost from isvm_cost_cv()'s result `cv`: the first of the
#' lowest error, with the table the fit keeps (`cost_cv`) and the held-out
#' decision values at that cost, which the Platt model is fitted to
#' (isvm_platt(held_out = ))
#' @noRd
cross_validated_cost <- function(cv) {
  best <- which.min(cv$table$error)
  list(C = cv$table$C[best], cost_cv = cv$table, held_out = cv$decisions[[best]])
}

# The tolerance of the KKT conditions at which the two-class SVM stops
# (kernlab's and libsvm's default)
svm_tolerance <- 1e-3

#' The two-class C-SVM of the core (svm.hpp: libsvm's algorithm without
#' shrinking) on the kernel `K` with labels `y`, a two-level factor whose
#' second level is +1: `coefficients` (a_i y_i, one per row) and `b`
#' (-rho), so that f(x) = k(x, X) coefficients + b > 0 favours the second
#' level, as kernlab's two-class decision values do
#' @noRd
smo_binary <- function(K, y, C) {
  fit <- cpp_svm_binary(K, ifelse(as.integer(y) == 2L, 1, -1), C, svm_tolerance)
  list(coefficients = fit$coefficients, b = -fit$rho, converged = fit$converged)
}

#' kernlab's two-class SVM as smo_binary() gives it (without shrinking;
#' `support`: its SVindex())
#' @noRd
kernlab_binary <- function(K, y, C) {
  model <- kernlab_svm(K, y, C)$model
  support <- kernlab::SVindex(model)
  coefficients <- numeric(length(y))
  coefficients[support] <- kernlab::coef(model)[[1L]]
  list(coefficients = coefficients, b = -kernlab::b(model), support = support)
}

#' The classes of the one-vs-one vote of two-class SVMs (smo_binary()) and
#' their pairwise decision values for held-out points, as
#' kernlab_fold_outputs() gives kernlab's: isvm_cost_cv()'s default
#' `fold_outputs`. The same problems as kernlab's, solved to the same
#' tolerance, without its per-call cost (its S4 objects: most of a fit on
#' small data, and the cross-validation makes 20 fits per pair).
#' @noRd
smo_fold_outputs <- function(K, y, grid, K_new) {
  # one core call for every pair and cost (svm.hpp, one_vs_one_decisions():
  # each pair's kernel gathered once, no R work per pair and cost)
  n_pairs <- ncol(class_pairs(nlevels(y)))
  decisions <- cpp_svm_one_vs_one(K, as.integer(y), nlevels(y), as.double(grid), K_new, svm_tolerance)
  per_cost_outputs(seq_along(grid), function(j) {
    vote_outputs(decisions[, (j - 1L) * n_pairs + seq_len(n_pairs), drop = FALSE], levels(y))
  })
}

#' The classes kernlab's SVM (its one-vs-one vote) gives held-out points and
#' their pairwise decision values: fitted on the kernel `K` of the training
#' part with labels `y` and each cost of `grid`, applied to the held-out
#' points' kernel rows `K_new` against it (isvm_cost_cv()'s default
#' `fold_outputs`; krein_svm() passes its own)
#' @noRd
kernlab_fold_outputs <- function(K, y, grid, K_new) {
  n_pairs <- ncol(class_pairs(nlevels(y)))
  per_cost_outputs(grid, function(C) {
    model <- kernlab_svm(K, y, C)$model
    K_sv <- kernlab::as.kernelMatrix(K_new[, kernlab::SVindex(model), drop = FALSE])
    list(classes = as.character(kernlab::predict(model, K_sv)),
         decisions = matrix(kernlab::predict(model, K_sv, type = "decision"), nrow(K_new), n_pairs))
  })
}

#' `outputs(C)` (a list of `classes` and `decisions`) for each cost of
#' `grid`, in the form of isvm_cost_cv()'s `fold_outputs`: `classes` a
#' matrix with a column per cost, `decisions` a list of one matrix per cost
#' @noRd
per_cost_outputs <- function(grid, outputs) {
  each <- lapply(grid, outputs)
  list(classes = do.call(cbind, lapply(each, `[[`, "classes")), decisions = lapply(each, `[[`, "decisions"))
}

#' The one-vs-one vote's classes and the decision values of pairwise models
#' whose values `pairwise` (rows x pairs) favour the pair's second class, in
#' the form of one cost's `fold_outputs` (krein_svm()'s KSVMs)
#' @noRd
vote_outputs <- function(pairwise, levels) {
  list(classes = one_vs_one_vote(-pairwise, levels), decisions = pairwise)
}

#' Platt's probability model for every pair of classes, as libsvm fits it
#' (svm_binary_svc_probability): decision values of the pair's points from
#' SVMs fitted without them, then the sigmoid fitted to them
#' (platt_sigmoid()). The decision values are `held_out` where given (the
#' cost's cross-validation, isvm_cost_cv(): the pair's model of each fold
#' was fitted on the fold's training part, the pair's points among them);
#' otherwise those of a `isvm_platt_folds`-fold cross-validation within the
#' pair, folds from R's RNG, fitted without shrinking like the main model.
#' @param held_out NULL, or an n x pairs matrix of held-out decision values
#'   (class_pairs() order, f > 0 favouring the pair's second class).
#' @returns A data frame with one row per pair (i, j), i < j, in kernlab's
#'   order: `pair`, `A`, `B`, `iterations`, `converged`.
#' @noRd
isvm_platt <- function(K, y, C, binary_decisions = kernlab_binary_decisions, block = kernel_block,
                       held_out = NULL) {
  pair_number <- 0L
  sigmoids <- one_vs_one_pairs(y, function(members, pair_y, pair) {
    pair_number <<- pair_number + 1L
    decision <- if (is.null(held_out)) {
      isvm_cv_decisions(block(K, members, members), pair_y, C, binary_decisions, block)
    } else {
      held_out[members, pair_number]
    }
    c(platt_sigmoid(decision, pair_y == levels(pair_y)[2]), pair = paste(levels(pair_y), collapse = " vs "))
  })
  field <- function(name, type) vapply(sigmoids, `[[`, type, name)
  data.frame(pair = field("pair", ""), A = field("A", 0), B = field("B", 0),
             iterations = field("iterations", 0L), converged = field("converged", TRUE), stringsAsFactors = FALSE)
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
  solved <- kernlab_binary(K, y, C)
  drop(K_new[, solved$support, drop = FALSE] %*% solved$coefficients[solved$support]) + solved$b
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
  # -log-likelihood, each term written so that exp() cannot overflow:
  # t z + log(1 + e^-z) for z >= 0, (t - 1) z + log(1 + e^z) below
  objective <- function(A, B) {
    fApB <- decision * A + B
    sum((target - (fApB < 0)) * fApB + log1p(exp(-abs(fApB))))
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
    positive_z <- fApB >= 0
    p <- (positive_z * e + !positive_z) / (1 + e)
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

#' The outputs of isvm() and krein_svm() from their pairwise decision values
#' (f > 0 favouring the pair's second class, as kernlab's): the values and,
#' with a Platt model, the class probabilities coupled from the pairs'
#' P(i | i or j) = 1 - P(j), the sigmoid fitted with j positive
#' @noRd
svm_outputs <- function(object, pairwise, levels) {
  prob <- if (object$probability) {
    r_first <- 1 - vapply(seq_len(ncol(pairwise)), function(p) {
      platt_probability(pairwise[, p], object$platt$A[p], object$platt$B[p])
    }, numeric(nrow(pairwise)))
    couple_pairwise(matrix(r_first, nrow(pairwise)), length(levels))
  }
  list(pairwise = pairwise, prob = prob)
}
