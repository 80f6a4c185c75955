# The one-vs-one layer of every pairwise model (isvm(), krein_svm(),
# pcvm()): the pairs of classes and the models fitted on them, the class
# scores and votes of their decision values, and the coupling of their
# pairwise probabilities into class probabilities (the core's,
# multiclass.hpp). One sign convention: a pairwise value f > 0 favours the
# pair's first class (pcvm's latent values; isvm() and krein_svm(), whose
# kernlab values favour the second class, pass -f).

#' The pairs of classes (i, j), i < j, in the order every pairwise model
#' keeps them (utils::combn()'s, kernlab's): a 2-row matrix
#' @noRd
class_pairs <- function(n_classes) utils::combn(n_classes, 2L)

#' One model per pair of classes, in class_pairs() order: `fit_pair(members,
#' pair_y, pair)` gets the rows of the two classes, their labels as a factor
#' with the levels (i, j) and the pair's class codes c(i, j), and returns the
#' pair's model. The models come back as a list in pair order, the order
#' pairwise_class_scores() and couple_pairwise() read pairwise columns in.
#' @noRd
one_vs_one_pairs <- function(y, fit_pair) {
  levels <- levels(y)
  codes <- as.integer(y)
  pairs <- class_pairs(length(levels))
  lapply(seq_len(ncol(pairs)), function(p) {
    members <- which(codes %in% pairs[, p])
    fit_pair(members, factor(levels[codes[members]], levels = levels[pairs[, p]]), pairs[, p])
  })
}

#' Class scores of pairwise values `f` (rows x pairs, class_pairs() order;
#' f > 0 favours the pair's first class): `decision`, each class's sum of its
#' pairs' values signed to favour it, and `votes`, the contests each class
#' wins (f = 0 votes for neither)
#' @noRd
pairwise_class_scores <- function(f, n_classes) {
  pairs <- class_pairs(n_classes)
  decision <- votes <- matrix(0, nrow(f), n_classes)
  for (p in seq_len(ncol(pairs))) {
    first <- pairs[1L, p]
    second <- pairs[2L, p]
    decision[, first] <- decision[, first] + f[, p]
    decision[, second] <- decision[, second] - f[, p]
    votes[, first] <- votes[, first] + (f[, p] > 0)
    votes[, second] <- votes[, second] + (f[, p] < 0)
  }
  list(decision = decision, votes = votes)
}

#' The classes of a one-vs-one vote on pairwise values `f` (f > 0 favours
#' the pair's first class; ties to the first class)
#' @noRd
one_vs_one_vote <- function(f, levels) {
  levels[max.col(pairwise_class_scores(f, length(levels))$votes, ties.method = "first")]
}

#' Class probabilities from pairwise ones by the second method of Wu, Lin and
#' Weng (2004, "Probability estimates for multi-class classification by
#' pairwise coupling", JMLR 5, eq. 21), libsvm's multiclass_probability: the
#' core's (multiclass.hpp), one small linear system per row, on threads.
#' (kernlab's couple() fills its pair matrix in an order that differs from
#' its one-vs-one order for four or more classes, hence krein's own.)
#' @param r_first A matrix, one column per pair (i, j) in class_pairs() order:
#'   the probability of i against j.
#' @noRd
couple_pairwise <- function(r_first, n_classes, threads = 1L) {
  cpp_couple_pairwise(matrix(as.double(r_first), nrow(r_first)), as.integer(n_classes), as.integer(threads))
}
