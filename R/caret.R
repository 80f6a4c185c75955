#' krein models as caret custom models
#'
#' `caret_model(name)` returns the list caret's `train()` takes as a custom
#' `method`, so that `caret::train(x, y, method = caret_model("kqd"),
#' tuneGrid = ...)` tunes a krein model with caret's resampling. The tuning
#' parameters are the model's main ones; the Gaussian kernel's `gamma` is
#' one of them for the kernel models (other kernels: pass `kernel = ` to
#' `train()`, which forwards it, and leave `gamma` out of the grid by setting
#' it to `NA`). caret is a suggested package: install it to use this.
#'
#' | name | parameters |
#' |---|---|
#' | `"kqd"` | `variant`, `reg`, `gamma` |
#' | `"ikfd"` | `reg`, `gamma` |
#' | `"pcvm"` | `gamma` |
#' | `"kfda"` | `type`, `ncomp`, `gamma` |
#' | `"onda"` | `posterior` |
#' | `"iknn"` | `k`, `gamma` |
#' | `"ikpca_qd"` | `pvar`, `reg`, `gamma` |
#' | `"isvm"` | `C`, `gamma` |
#'
#' @param name The krein model, one of the names in the table.
#' @returns A list with the elements caret expects (`library`, `type`,
#'   `parameters`, `grid`, `fit`, `predict`, `prob`, `sort`, `levels`).
#' @family model selection
#' @examples
#' if (requireNamespace("caret", quietly = TRUE)) {
#'   set.seed(1)
#'   d <- checkerboard(150, size = 3)
#'   tuned <- caret::train(d[, 1:2], d$y, method = caret_model("kqd"),
#'                         tuneGrid = expand.grid(variant = "RC+", reg = c(0.01, 0.1), gamma = c(2, 8)),
#'                         trControl = caret::trainControl(method = "cv", number = 3))
#'   tuned$bestTune
#' }
#' @export
caret_model <- function(name) {
  name <- check_choice(name, "name", c("kqd", "ikfd", "pcvm", "kfda", "onda", "iknn", "ikpca_qd", "isvm"))
  spec <- switch(name,
    kqd = list(parameters = c("variant", "reg", "gamma"), classes = c("character", "numeric", "numeric"),
               default = data.frame(variant = "RC+", reg = c(0.01, 0.1, 1), gamma = NA, stringsAsFactors = FALSE)),
    ikfd = list(parameters = c("reg", "gamma"), classes = c("numeric", "numeric"),
                default = data.frame(reg = 10^c(-5, -4, -3), gamma = NA)),
    pcvm = list(parameters = "gamma", classes = "numeric", default = data.frame(gamma = NA)),
    kfda = list(parameters = c("type", "ncomp", "gamma"), classes = c("character", "numeric", "numeric"),
                default = data.frame(type = "linear", ncomp = c(5, 10, 20), gamma = NA, stringsAsFactors = FALSE)),
    onda = list(parameters = "posterior", classes = "character",
                default = data.frame(posterior = c("gaussian", "linear"), stringsAsFactors = FALSE)),
    iknn = list(parameters = c("k", "gamma"), classes = c("numeric", "numeric"),
                default = data.frame(k = c(1, 5, 9), gamma = NA)),
    ikpca_qd = list(parameters = c("pvar", "reg", "gamma"), classes = c("numeric", "numeric", "numeric"),
                    default = data.frame(pvar = 0.8, reg = c(0.01, 0.1), gamma = NA)),
    isvm = list(parameters = c("C", "gamma"), classes = c("numeric", "numeric"),
                default = data.frame(C = c(0.1, 1, 10), gamma = NA))
  )
  fun <- tuned_models()[[name]]
  list(
    label = paste("krein", name),
    library = "krein",
    type = "Classification",
    parameters = data.frame(parameter = spec$parameters, class = spec$classes, label = spec$parameters,
                            stringsAsFactors = FALSE),
    grid = function(x, y, len = NULL, search = "grid") spec$default,
    fit = function(x, y, wts, param, lev, last, weights, classProbs, ...) {
      args <- list(...)
      # expand.grid() makes factors of character values
      param <- lapply(as.list(param), function(v) if (is.factor(v)) as.character(v) else v)
      if ("gamma" %in% names(param)) {
        gamma <- param$gamma
        param$gamma <- NULL
        if (is.null(args$kernel)) args$kernel <- kernel_rbf(if (is.na(gamma)) NULL else gamma)
      }
      x <- if (is.data.frame(x)) as.matrix(x) else x
      do.call(fun, c(list(x, y), param, args))
    },
    predict = function(modelFit, newdata, submodels = NULL) {
      as.character(stats::predict(modelFit, as.matrix(newdata), type = "class"))
    },
    prob = function(modelFit, newdata, submodels = NULL) {
      as.data.frame(stats::predict(modelFit, as.matrix(newdata), type = "prob"))
    },
    sort = function(x) x,
    levels = function(x) x$levels
  )
}
