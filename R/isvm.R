# isvm(): kernlab's support vector machine on the kernel matrix, with
# Platt's probabilities per pair of classes, coupled (documented in
# ?reference_classifiers). The SVM machinery it shares with krein_svm() is in
# R/svm_tools.R. Its Nystroem form (`landmarks`) is the Nystroem Krein SVM's
# fit (R/krein_svm_nystrom.R), scored, printed and summarised by
# krein_svm()'s methods.

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
                         probability = TRUE, landmarks = "auto", eps = 0.01, m = NULL, na.action = NULL,
                         threads = NULL) {
  check_dots_empty("isvm", ...)
  inputs <- inputs_from_xy(x, y, kernel, na.action, scale = scale, chunks = TRUE)
  fit_model("isvm", inputs, method_arguments("isvm"), match.call())
}

#' The fit behind every isvm() interface
#' @noRd
isvm_fit <- function(inputs, C, probability, landmarks, eps, m, threads) {
  if (!is.null(landmarks)) {
    # The Nystroem form is the Nystroem Krein SVM's fit, not a second copy of
    # it: with a positive definite kernel the landmark kernel's signature J
    # is all +1 (its rounding-level eigenvalues fall below the Nystroem
    # cutoff), K^ is positive semidefinite and its flip the identity, so the
    # fit is the SVM on K^ (Williams and Seeger 2001); an indefinite K^ is
    # flipped, unlike K in the full form (?reference_classifiers)
    check_liblinear(model = "isvm(landmarks = )")
    return(krein_svm_fit(inputs, C, probability, landmarks, eps, m, threads))
  }
  check_kernlab()
  if (!is.null(C)) C <- check_number(C, "C", lower = 0)
  probability <- check_flag(probability, "probability")
  threads <- check_threads(threads)
  warn_one_row_classes(table(inputs$y), svm_one_row_treatment)
  K <- training_kernel(inputs, threads)
  # C = NULL: the cost of the lowest cross-validated error (isvm_cost_cv()),
  # whose held-out decision values at that cost serve the Platt model
  choice <- if (is.null(C)) cross_validated_cost(isvm_cost_cv(K, inputs$y)) else list(C = C)
  C <- choice$C
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
  platt <- if (probability) isvm_platt(K, inputs$y, C, held_out = choice$held_out)
  if (!is.null(platt) && any(!platt$converged)) {
    krein_warn(sprintf("The Platt sigmoid of %d pair%s of classes did not converge (%s); its probabilities may be poorly calibrated.",
                       sum(!platt$converged), if (sum(!platt$converged) > 1) "s" else "",
                       paste(platt$pair[!platt$converged], collapse = ", ")),
               class = "krein_convergence_warning")
  }
  fit <- list(model = model, support = sort(unique(kernlab::SVindex(model))), C = C, cost_cv = choice$cost_cv,
              probability = probability, platt = platt, kernlab_output = console, x = inputs$x,
              threads = threads)
  # the training outputs, kept so that the n x n kernel is not
  fit$training_outputs <- isvm_outputs(fit, K[, fit$support, drop = FALSE], levels(inputs$y))
  fit
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
  svm_outputs(object, matrix(kernlab::predict(object$model, K_sv, type = "decision"), nrow(K_sv)), levels)
}

#' @export
krein_scores.isvm <- function(object, new, type, rule = "vote") {
  if (!is.null(object$landmarks)) return(krein_scores.krein_svm(object, new, type, rule = rule))
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

#' @export
model_title.isvm <- function(x) paste0("C = ", format(x$C), if (!is.null(x$cost_cv)) ", cross-validated")

#' @export
model_print_lines.isvm <- function(x) {
  if (!is.null(x$landmarks)) return(model_print_lines.krein_svm(x))
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
  if (!is.null(object$landmarks)) return(model_summary.krein_svm(object))
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

model_registration_isvm <- function() register_krein_model(
  full_form = function(args) is.null(args$landmarks), full_copies = 5,
  forms = landmark_forms(), full_max_rows = 5500,
  "isvm", label = "ISVM: kernlab's support vector machine on the kernel matrix", fit = "isvm_fit",
  parameters = data.frame(parameter = "C", class = "numeric", label = "cost",
                          stringsAsFactors = FALSE),
  needs_inputs = function(args) landmarks_need_inputs(args$landmarks),
  predict_args = "rule", ranges = function(args) list(C = c(-1, 3)),
  default_grid = function(size, args, data) list(C = range_values(tuning_range("isvm", "C"), size)),
  landmark_args = function(landmarks) list(landmarks = landmarks),
  # kernlab's rbfdot() sigma, parsnip's rbf_sigma, is kernel_rbf()'s gamma
  parsnip = list(model = "svm_rbf",
                 args = list(cost = list(krein = "C", main = TRUE, dials = list(pkg = "dials", fun = "cost")),
                             rbf_sigma = list(krein = "gamma", main = TRUE, dials = list(pkg = "krein", fun = "rbf_gamma_dimension"))))
)
