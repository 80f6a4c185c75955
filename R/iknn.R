# iknn(): k nearest neighbours in the kernel-induced distance, for positive
# definite and indefinite kernels (documented in ?reference_classifiers).

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
  votes <- neighbours$votes
  first <- neighbours$first
  rows <- seq_len(nrow(votes))
  first[votes < votes[cbind(rows, max.col(votes, ties.method = "first"))]] <- Inf
  # the first smallest position (max.col of its negation, vectorised over rows)
  max.col(-first, ties.method = "first")
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

model_registration_iknn <- function() register_krein_model(
  full_form = function(args) TRUE, full_copies = 5,
  "iknn", label = "IKNN: kernel nearest neighbours", fit = "iknn_fit",
  parameters = data.frame(parameter = "k", class = "numeric", label = "neighbours",
                          stringsAsFactors = FALSE),
  needs_self = function(args) TRUE,
  default_grid = function(size, args, data) list(k = unique(pmin(seq(1, by = 2, length.out = size), data$n))),
  parsnip = list(model = "nearest_neighbor",
                 args = list(neighbors = list(krein = "k", main = TRUE, dials = list(pkg = "dials", fun = "neighbors"))))
)
