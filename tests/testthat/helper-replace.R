# Replaces functions of krein's namespace while `expr` runs: the seams the
# tests use to take the other route of an algorithm (kfda_pca_method(),
# landmark_pass_applies(), gaussian_block_rows(), gaussian_always_scaled(),
# cpp_pcvm_fit() ...) and compare the two. testthat's with_mocked_bindings()
# does the same from version 3.1.7 on; this works with any testthat (Debian
# ships 3.1.6). `replacements`: a named list of functions.
with_krein_functions <- function(replacements, expr) {
  old <- assign_krein_functions(replacements)
  on.exit(assign_krein_functions(old))
  expr
}

# The same, for the rest of the calling test (as local_mocked_bindings())
local_krein_functions <- function(replacements, envir = parent.frame()) {
  old <- assign_krein_functions(replacements)
  # on.exit() in the caller's frame (as withr::defer() does it)
  restore <- as.call(list(function() assign_krein_functions(old)))
  do.call(base::on.exit, list(restore, TRUE, FALSE), envir = envir)
  invisible()
}

# Puts `values` (a named list of functions) in krein's namespace; returns the
# functions they replace
assign_krein_functions <- function(values) {
  ns <- asNamespace("krein")
  old <- mget(names(values), envir = ns)
  for (name in names(values)) {
    locked <- bindingIsLocked(name, ns)
    if (locked) unlockBinding(name, ns)
    assign(name, values[[name]], envir = ns)
    if (locked) lockBinding(name, ns)
  }
  old
}

# The Nystroem fits without the core's landmark pass: the row blocks of
# blockwise_class_factors() (the route of kernels the pass does not take)
without_landmark_pass <- function(expr) {
  with_krein_functions(list(landmark_pass_applies = function(...) FALSE), expr)
}
