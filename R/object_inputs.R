# Strings and other objects as `x`. A character vector or a plain list of
# objects (sequences, point sets, ...) has no coordinates: the kernel compares
# objects. The training kernel is computed here once and handed to the models
# as a precomputed kernel (inputs$precomputed, inputs$x = NULL), so every
# model that works on a kernel matrix works on objects with no change of its
# own. The spec keeps the kernel (with what it took from the training
# objects: a median-heuristic width, the conversion of dissimilarities) and
# the training objects that prediction needs; new_inputs() then computes the
# kernel of new objects against them, as the precomputed path would receive
# it. tuning_inputs() checks the `x` and `y` of tune_krein(), objects or not.

#' Objects without coordinates: a character vector or a plain list (a data
#' frame or any other classed object is not)
#' @noRd
is_object_data <- function(x) {
  (is.character(x) && is.null(dim(x))) || (is.list(x) && !is.object(x))
}

#' A missing object: NA in a character vector, a single NA in a list
#' @noRd
is_missing_object <- function(objects) {
  if (is.character(objects)) return(is.na(objects))
  vapply(objects, function(o) is.atomic(o) && length(o) == 1L && is.na(o), logical(1))
}

#' Words for error messages: "character vector of 40 strings", "list of 40 objects"
#' @noRd
describe_objects <- function(objects) {
  if (is.character(objects)) sprintf("a character vector of %d string%s", length(objects), if (length(objects) == 1L) "" else "s")
  else sprintf("a list of %d object%s", length(objects), if (length(objects) == 1L) "" else "s")
}

#' Check objects given as `x` or `newdata`: not empty, no NULL elements
#' (missing objects are NA, which `na.action` or predict() deal with)
#' @noRd
check_objects <- function(objects, arg, allow_empty = FALSE) {
  if (length(objects) == 0L && !allow_empty) {
    krein_abort(sprintf("`%s` must hold at least one object, not %s.", arg, describe_value(objects)))
  }
  if (is.list(objects)) {
    null <- which(vapply(objects, is.null, logical(1)))
    if (length(null)) {
      krein_abort(sprintf("`%s` has NULL element%s at position%s %s; every element must be an object (NA marks a missing one).",
                          arg, if (length(null) > 1) "s" else "", if (length(null) > 1) "s" else "",
                          format_indices(null)))
    }
  }
  objects
}

#' Training inputs from objects and labels. `evaluate = FALSE` checks and
#' subsets them only (tune_krein() computes the kernels per fold).
#' @noRd
inputs_from_objects <- function(x, y, kernel, na.action = NULL, min_classes = 2L, scale = FALSE,
                                evaluate = TRUE) {
  objects <- check_objects(x, "x")
  y <- check_label_vector(y)
  if (length(y) != length(objects)) {
    krein_abort(sprintf("`y` must have one label per object in `x` (%d), not %d.", length(objects), length(y)))
  }
  if (evaluate) {
    if (is.null(kernel)) {
      krein_abort(sprintf("`x` is %s, which have no numeric coordinates: a kernel model (kqd(), ikfd(), kfda(), ...) takes them with a kernel that compares them, e.g. kernlab::stringdot() or kernel_dissimilarity(adist); onda() works on input features only.",
                          describe_objects(objects)))
    }
    kernel <- as_krein_kernel(kernel)
    check_object_kernel(kernel, objects, "x")
  }
  # missing objects go through na.action as missing rows would
  missing <- is_missing_object(objects)
  proxy <- matrix(ifelse(missing, NA_real_, 0), ncol = 1L, dimnames = list(names(objects), NULL))
  keep <- na_rows_action(na.action, proxy, y, "x", "`y`", unit = "element")
  # `scale` is checked but ignored: objects have no columns to scale
  spec <- list(type = "objects", object_type = if (is.character(objects)) "character" else "list")
  inputs <- finish_inputs(NULL, y, NULL, spec, keep, min_classes, scale = scale)
  objects <- objects[keep]
  if (!evaluate) {
    inputs$objects <- objects
    # stands for the kernel that tune_krein() computes per fold
    inputs$precomputed <- new_precomputed(NULL, NULL)
    return(inputs)
  }
  trained <- train_object_kernel(kernel, objects)
  K <- trained$K
  dimnames(K) <- list(names(objects), names(objects))
  inputs$precomputed <- new_precomputed(K, unname(diag(K)))
  inputs$spec$kernel <- trained$kernel
  inputs$spec$objects <- objects
  inputs$spec$stored <- seq_along(objects)
  inputs
}

#' The kernel of new objects against the stored training objects, with their
#' self-similarities; missing objects give NA rows
#' @noRd
new_object_data <- function(spec, newdata) {
  if (!is_object_data(newdata)) {
    krein_abort(sprintf("`newdata` must be objects like the training ones (%s), not %s.",
                        if (identical(spec$object_type, "character")) "a character vector" else "a list",
                        describe_value(newdata)))
  }
  objects <- check_objects(newdata, "newdata", allow_empty = TRUE)  # no objects: an empty prediction
  missing <- is_missing_object(objects)
  K <- matrix(NA_real_, length(objects), length(spec$objects), dimnames = list(names(objects), NULL))
  self <- rep(NA_real_, length(objects))
  if (any(!missing)) {
    values <- object_test_kernel(spec$kernel, objects[!missing], spec$objects, "newdata")
    K[!missing, ] <- values$K
    self[!missing] <- values$self
  }
  list(K = K, self = self)
}

#' Columns `columns` (training indices; NULL: all) of a new kernel computed
#' against the stored objects
#' @noRd
stored_object_columns <- function(spec, K, columns) {
  if (is.null(columns)) columns <- seq_len(spec$n_train)
  position <- match(columns, spec$stored)
  if (anyNA(position)) {
    krein_abort("This fit did not keep the training objects its prediction needs; refit the model.")
  }
  K[, position, drop = FALSE]
}

#' The spec a fit stores: for objects, only the training objects its
#' predictions use -- the landmarks of a Nystroem fit (unless converting new
#' dissimilarities needs them all, as classical scaling does), else all.
#' @param fields The model's fields (its landmarks among them).
#' @noRd
stored_input_spec <- function(spec, fields) {
  if (!identical(spec$type, "objects")) return(spec)
  indices <- fields$landmarks$indices
  if (is.null(indices) || object_kernel_needs_all(spec$kernel)) return(spec)
  keep <- sort(unique(indices))
  spec$objects <- spec$objects[match(keep, spec$stored)]
  spec$stored <- keep
  spec
}

#' What tune_krein() checks `x` and `y` with: objects are checked and their
#' missing values handled, their kernel computed per fold later; other data
#' go the models' way (no kernel yet).
#' @noRd
tuning_inputs <- function(x, y, precomputed, na.action, info) {
  if (is_object_data(x)) {
    if (!info$uses_kernel) {
      krein_abort(sprintf("`x` is %s, which have no numeric coordinates, but %s() works on the input features; give them as a matrix or data frame.",
                          describe_objects(x), info$name))
    }
    return(inputs_from_objects(x, y, NULL, na.action, evaluate = FALSE))
  }
  inputs_from_xy(x, y, NULL, na.action)
}
