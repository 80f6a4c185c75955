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
iknn.default <- function(x, y, ..., kernel = kernel_rbf(), scale = TRUE, spectrum = "none", k = NULL,
                         landmarks = "auto", eps = 0.01, m = NULL, na.action = NULL, threads = NULL) {
  check_dots_empty("iknn", ...)
  inputs <- inputs_from_xy(x, y, kernel, na.action, scale = scale, chunks = TRUE)
  fit_model("iknn", inputs, method_arguments("iknn"), match.call())
}

#' The fit behind every iknn() interface: the neighbours among all training
#' points (the full form) or among the landmark prototypes
#' @noRd
iknn_fit <- function(inputs, k, landmarks, eps, m, threads) {
  n <- length(inputs$y)
  if (!is.null(k)) k <- check_number(k, "k", lower = 1, upper = n, allow_lower = TRUE, integer = TRUE)
  threads <- check_threads(threads)
  landmarks <- resolve_landmarks(landmarks, inputs, eps, m, threads)
  # the reference points among which the neighbours are found
  references <- if (is.null(landmarks)) n else length(landmarks$class)
  if (!is.null(landmarks) && !is.null(k) && k > references) {
    krein_abort(sprintf("`k` must be at most the number of prototypes (the %d landmarks), not %d.", references, k))
  }
  if (is.null(k) && references < 2L) {
    krein_abort(if (is.null(landmarks)) "`x` must have at least two training points to choose `k` by leave-one-out; give `k`." else
      "`landmarks` must give at least two prototypes to choose `k` by leave-one-out; give `k`.")
  }
  # one ordering of each training row serves the leave-one-out errors of
  # every candidate k (the point itself left out) and the training
  # neighbours of the chosen one (the point among its own)
  candidates <- if (is.null(k)) seq_len(min(iknn_max_k, references - 1L)) else if (k < references) k else integer()
  kept <- if (is.null(k)) max(candidates) else k
  plan <- list(candidates = candidates, kept = kept, n_classes = nlevels(inputs$y),
               count = min(references, max(kept, max(candidates, 0L) + 1L)))
  pass <- iknn_prototypes(inputs, landmarks %||% iknn_every_row(inputs), plan, threads)
  loo <- pass$errors / n
  k_selection <- NULL
  if (is.null(k)) {
    k_selection <- data.frame(k = candidates, loo_error = loo)
    k <- candidates[which.min(loo)]  # the first minimum: ties to the smaller k
  }
  loo_error <- if (k < references) loo[match(k, candidates)] else NA_real_
  # kept for the training points' predictions
  training <- iknn_votes(pass$with_self[, seq_len(k), drop = FALSE], plan$n_classes)
  list(k = k, k_selection = k_selection, self = pass$self, x = if (is.null(landmarks)) inputs$x,
       landmarks = landmarks, threads = threads, training_neighbours = training, loo_error = loo_error,
       negative_d2 = pass$negative_d2)
}

# The largest k the default considers (leave-one-out over 1..25)
iknn_max_k <- 25L

#' The full form's reference points: every training row, as prototypes, so
#' that the full form is the prototype form's pass over blocks of rows
#' against all of them (time n^2, memory n times a block: no n x n matrix;
#' on 20,000 rows of sine_populations() 7.7 s where the n x n distances took
#' 108 s and 10 GB). Equal distances order by prototype, here the training
#' row, as the documented tie rule asks.
#' @noRd
iknn_every_row <- function(inputs) {
  if (is.null(inputs$x) && is.null(inputs$precomputed$self)) {
    krein_abort("`x` must carry the self-similarities k(x, x) of the training points for iknn(): pass precomputed_kernel(K, self = ...).")
  }
  list(indices = seq_along(inputs$y), points = inputs$x, class = inputs$y)
}

#' The prototype form: the neighbours of each training point among the
#' landmarks, in one pass over the training rows in blocks (their kernel
#' against the landmarks, never n x n). A training point that is itself a
#' prototype leaves itself out of its leave-one-out neighbours, as in the
#' full form.
#' @noRd
iknn_prototypes <- function(inputs, landmarks, plan, threads) {
  n <- length(inputs$y)
  m <- length(landmarks$class)
  # k(l, l), as landmark_blocks() gives the training rows' k(x, x)
  self <- if (is.null(landmarks$points)) training_self_similarity(inputs, landmarks$indices) else
    kernel_self(inputs$kernel, landmarks$points)
  # each training row's own column among the prototypes (0: none; k-means
  # centres are no training rows)
  own <- integer(n)
  if (!is.null(landmarks$indices)) own[landmarks$indices] <- seq_len(m)
  prototype_self <- self
  prototype_codes <- as.integer(landmarks$class)
  block_fun <- function(C, row_self, extra) {
    nearest <- cpp_iknn_nearest_kernel(C, row_self, prototype_self, extra[, 2L], plan$count, check_threads(NULL))
    c(iknn_block(nearest, extra[, 2L], extra[, 1L], prototype_codes, plan), negative = attr(nearest, "negative"))
  }
  # the block function carries only what it uses (bare_function())
  parts <- landmark_blocks(inputs, landmarks,
                           bare_function(block_fun, prototype_self = prototype_self, prototype_codes = prototype_codes,
                                         plan = plan),
                           threads, need_self = TRUE, per_row = cbind(as.integer(inputs$y), own))
  negative <- sum(vapply(parts, `[[`, double(1), "negative"))
  list(self = self, with_self = do.call(rbind, lapply(parts, `[[`, "with_self")),
       errors = Reduce(`+`, lapply(parts, `[[`, "errors")),
       # the pairs of a training point and a prototype other than itself
       negative_d2 = negative / (as.double(n) * m - sum(own > 0L)))
}

#' From the `plan$count` nearest reference points of a block of training
#' points (`nearest`, indices of the references, nearest first): the classes
#' of the `plan$kept` nearest with the point itself among them
#' (`with_self`), and the leave-one-out errors of every candidate k
#' (`errors`, counts): the neighbours without the point itself, dropping a
#' point's `own` index (0: it is no reference) or else its farthest. `codes`
#' are the points' classes, `reference_codes` the references'.
#' @noRd
iknn_block <- function(nearest, own, codes, reference_codes, plan) {
  rows <- nrow(nearest)
  with_self <- matrix(reference_codes[nearest[, seq_len(plan$kept), drop = FALSE]], rows)
  errors <- integer(length(plan$candidates))
  if (length(plan$candidates)) {
    dropped <- nearest == own  # own[i] against every column of row i
    dropped[rowSums(dropped) == 0L, ncol(nearest)] <- TRUE
    others <- matrix(t(nearest)[!t(dropped)], rows, ncol(nearest) - 1L, byrow = TRUE)
    without_self <- matrix(reference_codes[others[, seq_len(max(plan$candidates)), drop = FALSE]], rows)
    errors <- iknn_loo_errors(without_self, codes, plan$candidates, plan$n_classes)
  }
  list(with_self = with_self, errors = errors)
}

#' The leave-one-out errors (counts) of the candidate k, from the classes of
#' each point's nearest neighbours without itself: the votes and first
#' positions of iknn_votes() grown one neighbour at a time (O(n c) per k
#' rather than O(n c k)), each candidate's vote by iknn_winner()
#' @noRd
iknn_loo_errors <- function(without_self, codes, candidates, n_classes) {
  rows <- nrow(without_self)
  votes <- matrix(0, rows, n_classes)
  first <- matrix(Inf, rows, n_classes)
  errors <- integer(length(candidates))
  for (j in seq_len(max(candidates))) {
    at <- cbind(seq_len(rows), without_self[, j])
    votes[at] <- votes[at] + 1
    first[at[first[at] == Inf, , drop = FALSE]] <- j
    candidate <- match(j, candidates)
    if (!is.na(candidate)) errors[candidate] <- sum(iknn_winner(list(votes = votes, first = first)) != codes)
  }
  errors
}

# d2(x, x') = k(x, x) - 2 k(x, x') + k(x', x') (paper 000, Sec. IV-E)
iknn_distances <- function(self_new, K, self_train) {
  self_new - 2 * K + rep(self_train, each = nrow(K))
}

#' The k nearest reference points of new points from their kernel `K`
#' against the references and the self-similarities: per class, the votes
#' and the position of the class's nearest neighbour among the k (Inf if it
#' has none). The core evaluates d2 as iknn_distances() does.
#' @noRd
iknn_neighbours <- function(K, self_new, self_references, reference_codes, n_classes, k, threads) {
  nearest <- cpp_iknn_nearest_kernel(K, as.double(self_new), as.double(self_references), integer(), k, threads)
  iknn_votes(matrix(reference_codes[nearest], nrow(nearest)), n_classes)
}

#' Per row of `nearest` (the classes of the nearest reference points,
#' nearest first) and class: the votes, and the position of the class's
#' nearest neighbour among them (Inf if it has none)
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
  if (!is.null(new)) {
    # new rows in blocks against the references (every training row of the
    # full form, up to 70,000), as the fit's pass takes the training rows:
    # the kernel of 1e5 new rows against 70,000 references at once would
    # take 56 GB
    rows <- NROW(new$x %||% new$K)
    block <- nystrom_block_rows(length(object$landmarks$class %||% object$y))
    if (rows > block) {
      starts <- seq(1L, rows, by = block)
      parts <- lapply(starts, function(start) {
        krein_scores.iknn(object, subset_new_inputs(new, start:min(rows, start + block - 1L)), type)
      })
      return(do.call(rbind, parts))
    }
  }
  if (is.null(new)) {
    neighbours <- object$training_neighbours
    names <- rownames(object$x)
  } else {
    lm <- object$landmarks
    kernels <- if (is.null(lm)) new_kernels(object, new, need_self = TRUE) else
      new_kernels(object, new, points = lm$points, columns = lm$indices, need_self = TRUE)
    neighbours <- iknn_neighbours(kernels$K, kernels$self, object$self, as.integer(lm$class %||% object$y),
                                  length(object$levels), object$k, check_threads(object$threads))
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
model_title.iknn <- function(x) {
  lm <- x$landmarks
  paste0("k = ", x$k, if (!is.null(lm)) sprintf(", %d %sprototypes", length(lm$class), landmark_method_word(lm)))
}

#' @export
model_print_lines.iknn <- function(x) {
  lm <- x$landmarks
  c(sprintf("%d nearest neighbour%s in the kernel-induced distance%s%s; leave-one-out error %s",
            x$k, if (x$k > 1) "s" else "",
            if (!is.null(lm)) sprintf(" among %d %sprototypes", length(lm$class), landmark_method_word(lm)) else "",
            if (!is.null(x$k_selection)) sprintf(" (k chosen among 1..%d by it)", max(x$k_selection$k)) else "",
            format(x$loo_error, digits = 3)),
    if (x$negative_d2 > 0) {
      sprintf("%.1f%% of the %s have d2 < 0 (an indefinite kernel)", 100 * x$negative_d2,
              if (is.null(lm)) "training pairs" else "pairs of a training point and a prototype")
    })
}

#' @export
model_summary.iknn <- function(object) {
  lm <- object$landmarks
  votes <- object$training_neighbours$votes
  classes <- if (!is.null(votes)) {  # NULL: drop_training_scores() removed them
    own <- votes[cbind(seq_along(object$y), as.integer(object$y))]
    tied <- rowSums(votes == apply(votes, 1, max)) > 1L
    data.frame(n = as.vector(object$counts),
               own_votes = as.vector(tapply(own / object$k, object$y, mean)),
               ties = as.vector(tapply(tied, object$y, sum)),
               row.names = object$levels)
  }
  prototypes <- if (!is.null(lm)) {
    data.frame(n = as.vector(object$counts),
               prototypes = as.vector(table(factor(lm$class, levels = object$levels))),
               row.names = object$levels)
  }
  pairs <- if (is.null(lm)) "training pairs" else "pairs of a training point and a prototype"
  Filter(Negate(is.null), list(
    "Prototypes (the landmarks with their classes; the neighbours are found among them)" = prototypes,
    "Neighbours of the training points (own_votes: mean share of votes for their own class, each point among its neighbours; ties: points whose vote was tied)" = classes,
    "Errors" = c(sprintf("leave-one-out error: %s", format(object$loo_error, digits = 3)),
                 sprintf("share of %s with d2 < 0: %s", pairs, format(object$negative_d2, digits = 3)))))
}

# A fit on prototypes draws them as its points (plot_points() takes the
# landmarks of a fit without training points): circling thousands of them
# too would hide the regions
#' @export
plot_marks.iknn <- function(x) NULL

# The automatic form's budget: the pairs of a training row and a reference
# point whose kernel and distance the fit evaluates, about 5.2e7 a second on
# two cores (sine_populations(), 20,000 rows against all of them: 7.7 s
# with prediction). The full form takes n^2 pairs, so it is fitted up to
# iknn_full_max_rows = sqrt(5e9) rows (about 100 s), and above, the
# prototype form on iknn_prototype_count() = 5e9 / n random prototypes:
# 5,000 at 1e6 rows.
iknn_pair_budget <- 5e9
iknn_full_max_rows <- 70000

iknn_prototype_count <- function(inputs) {
  n <- length(inputs$y)
  as.integer(min(n, floor(iknn_pair_budget / n)))
}

# The number of reference points a fit with arguments `args` on `n` rows
# finds its neighbours among, where the arguments tell it (NULL: unknown
# before the fit, as for MEB landmarks)
iknn_reference_count <- function(args, n) {
  landmarks <- args$landmarks
  if (is.null(landmarks)) return(n)
  if (inherits(landmarks, "krein_landmarks")) return(length(landmarks$class))
  if (is.numeric(landmarks)) return(length(landmarks))
  args$m
}

model_registration_iknn <- function() register_krein_model(
  # the full form holds no n x n matrix (iknn_every_row())
  full_form = function(args) is.null(args$landmarks), full_copies = 0,
  forms = landmark_forms(count = iknn_prototype_count), full_max_rows = iknn_full_max_rows,
  "iknn", label = "IKNN: kernel nearest neighbours", fit = "iknn_fit",
  parameters = data.frame(parameter = "k", class = "numeric", label = "neighbours",
                          stringsAsFactors = FALSE),
  needs_self = function(args) TRUE,
  needs_inputs = function(args) landmarks_need_inputs(args$landmarks),
  default_grid = function(size, args, data) {
    list(k = unique(pmin(seq(1, by = 2, length.out = size), data$n, iknn_reference_count(args, data$n) %||% data$n)))
  },
  parsnip = list(model = "nearest_neighbor",
                 args = list(neighbors = list(krein = "k", main = TRUE, dials = list(pkg = "dials", fun = "neighbors")))),
  landmark_args = function(landmarks) list(landmarks = landmarks)
)
