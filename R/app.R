# krein_app(): a Shiny app for the classroom. Everything it shows comes from
# R code it writes and evaluates (app_code(), app_run()), so "Show code" is
# by construction the code of the view. The models and their parameters come
# from the registry (R/contract.R), the kernel families from their
# constructors' formals (R/kernels.R), so a new model or kernel parameter
# appears with no change here. shiny is in Suggests: only krein_app() and the
# app_ui() / app_server() it builds need it.

#' A Shiny app to see a kernel discriminant at work
#'
#' Starts an app in which a student changes the data, the kernel, the model
#' and its parameters and sees the decision regions, the kernel's eigenvalue
#' spectrum, the training and test errors and the R code that reproduces the
#' view. It needs the shiny package and works offline: nothing is fetched
#' from the network.
#'
#' * **Data:** one of krein's generators ([checkerboard()],
#'   [sine_populations()], [xor4()], [gaussian_mixture_2d()], [banana()])
#'   with its size, its noise parameter and a seed; a test set of the same
#'   size is drawn from the same generator. Or `data`: then 30% of its rows,
#'   drawn with the seed, are the test set.
#' * **Kernel:** every built-in family of [kernels] with its parameters (an
#'   empty field takes the default; a Gaussian width left empty is the
#'   median heuristic, whose value is shown), optionally made invariant to
#'   the reflection \eqn{x \mapsto -x} by [kernel_invariant()].
#' * **Model:** every model of [krein_models()] with its tunable arguments
#'   (empty: the model's default) and, for the models with a Nystroem
#'   approximation, the landmark selection (method and number).
#' * **Views:** the decision regions with the training points (landmarks and
#'   relevance vectors circled), the spectrum of the training kernel matrix
#'   with its signature \eqn{(p, q, z)} and \eqn{r_{neg}}
#'   ([indefiniteness()]), the training and test errors, the fit time, and
#'   the code.
#'
#' A setting that fails (a parameter outside its domain, a fit that fails,
#' data with one class) shows the error in the app and keeps the previous
#' view. Fits run in the app's R process: a progress bar shows while one
#' runs, and the app fits at most 5000 training points.
#'
#' @param data `NULL` for the generators only, or a data frame with two
#'   numeric columns (the inputs) and one class column (a factor, character
#'   or logical column), each with a name of its own: the app takes the
#'   columns by name, so an empty or missing (`NA`) name and a name used
#'   twice are errors. Rows with missing values are left out (the app
#'   names them, and its code shows how); infinite values are an error.
#' @param ... Passed to [shiny::runApp()], e.g. `port` or `launch.browser`.
#' @returns Nothing useful; it runs the app until the app is stopped.
#' @seealso `vignette("krein")` for a tour.
#' @examples
#' if (interactive() && requireNamespace("shiny", quietly = TRUE)) {
#'   krein_app()
#'   # your own data: two numeric columns and a class column
#'   krein_app(iris[iris$Species != "setosa", c("Petal.Length", "Petal.Width", "Species")])
#' }
#' @export
krein_app <- function(data = NULL, ...) {
  check_shiny()
  user <- app_user_data(data, paste(deparse(substitute(data)), collapse = " "))
  shiny::runApp(app_object(user), ...)
}

check_shiny <- function(available = requireNamespace("shiny", quietly = TRUE)) {
  if (!available) {
    krein_abort("krein_app() needs the shiny package, which is not installed: install.packages(\"shiny\").",
                class = "krein_missing_package")
  }
}

#' The app: a shiny.appobj of app_ui() and app_server()
#' @param user NULL or the result of app_user_data()
#' @noRd
app_object <- function(user = NULL) {
  check_shiny()
  shiny::shinyApp(app_ui(user), app_server(user))
}

# ---------------------------------------------------------------------------
# What the app offers

#' The generators: function, size argument (and how many points one unit of
#' it makes), and the one parameter shown as "noise"
#' @noRd
app_generators <- function() {
  list(
    banana = list(label = "banana", size_arg = "n", per_unit = 1L,
                  noise = list(arg = "overlap", label = "overlap (0 to 1)", value = 0.5)),
    checkerboard = list(label = "checkerboard", size_arg = "n", per_unit = 1L,
                        noise = list(arg = "size", label = "cells per side", value = 4)),
    gaussian_mixture_2d = list(label = "Gaussian mixture (noisy XOR)", size_arg = "n", per_unit = 1L,
                               noise = list(arg = "sd", label = "component sd", value = 0.5)),
    sine_populations = list(label = "sine populations (4 classes)", size_arg = "n_per_class", per_unit = 4L,
                            noise = list(arg = "noise", label = "noise sd", value = 0.1)),
    xor4 = list(label = "XOR, four points", size_arg = NULL, per_unit = NA_integer_, noise = NULL)
  )
}

#' The most training points the app fits
#' @noRd
app_max_points <- 5000L

#' The built-in kernel families and their parameters, from the constructors'
#' formals (the heuristic's choices from kernel_rbf()'s default)
#' @noRd
app_kernels <- function() {
  families <- c(rbf = "Gaussian RBF", rbf_diag = "Gaussian RBF, diagonal", poly = "polynomial",
                linear = "linear", tanh = "sigmoid (tanh)", elm = "ELM (arcsine)",
                dist = "distance-based", epanechnikov = "Epanechnikov")
  lapply(stats::setNames(names(families), names(families)), function(name) {
    args <- formals(get(paste0("kernel_", name), mode = "function"))
    params <- lapply(names(args), function(arg) {
      if (identical(args[[arg]], quote(expr = ))) return(list(name = arg, type = "number", default = NULL))
      default <- args[[arg]]
      if (is.call(default) && identical(default[[1L]], as.name("c"))) {
        return(list(name = arg, type = "choice", choices = vapply(as.list(default)[-1L], as.character, "")))
      }
      list(name = arg, type = "number", default = eval(default))
    })
    list(label = families[[name]], params = params)
  })
}

#' The models and their tunable arguments, from the registry: numeric ones as
#' numbers (empty: the default), character ones as a choice among the
#' default's values or the registry's `choices`; landmarks for the models
#' whose fitting function takes them
#' @noRd
app_models <- function() {
  models <- registered_models()
  lapply(stats::setNames(models, models), function(name) {
    info <- model_info(name)
    defaults <- formals(default_method(name) %||% get(info$fit, mode = "function"))
    table <- info$parameters
    params <- lapply(seq_len(nrow(table)), function(i) {
      arg <- table$parameter[i]
      value <- if (is.null(defaults[[arg]]) || identical(defaults[[arg]], quote(expr = ))) NULL else
        eval(defaults[[arg]], environment(app_models))
      choices <- if (!is.null(table$choices) && !is.na(table$choices[i])) {
        trimws(strsplit(table$choices[i], ",")[[1L]])
      } else if (is.character(value) && length(value) > 1L) value
      if (table$class[i] == "character" && length(choices)) {
        return(list(name = arg, label = table$label[i], type = "choice", choices = choices,
                    default = if (is.character(value)) value[1L] else choices[1L]))
      }
      list(name = arg, label = table$label[i], type = if (table$class[i] == "numeric") "number" else "text",
           default = if (is.numeric(value) || is.character(value)) value)
    })
    list(label = info$label, params = params, uses_kernel = info$uses_kernel,
         landmarks = "landmarks" %in% fit_argument_names(info))
  })
}

#' The user's data: two numeric columns and a class column
#' @noRd
app_user_data <- function(data, expr = "data") {
  if (is.null(data)) return(NULL)
  if (!is.data.frame(data)) {
    krein_abort(sprintf("`data` must be a data frame with two numeric columns and a class column, not %s.",
                        describe_value(data)))
  }
  numeric <- vapply(data, is.numeric, NA)
  classes <- vapply(data, function(column) is.factor(column) || is.character(column) || is.logical(column), NA)
  if (sum(numeric) != 2L || sum(classes) != 1L || ncol(data) != 3L) {
    krein_abort(sprintf(paste0(
      "`data` must have exactly two numeric columns (the inputs) and one class column (a factor, ",
      "character or logical column); it has %d column%s, %d numeric and %d of a class type. Select ",
      "three columns, e.g. iris[, c(\"Petal.Length\", \"Petal.Width\", \"Species\")]."),
      ncol(data), if (ncol(data) == 1L) "" else "s", sum(numeric), sum(classes)))
  }
  # the app's code takes the columns by name: each needs a name of its own.
  # An empty name cannot be written in a formula, and a missing one (NA) is
  # not the column `NA` the code would write; the string "NA" is a name,
  # written `NA` in the code.
  name_first <- function(empty) {
    sprintf("names(data)[%d] <- \"%s\" names column %d", empty[1],
            if (classes[empty[1]]) "class" else paste0("x", empty[1]), empty[1])
  }
  check_column_names(names(data), "data", why = "the app takes its columns by name", fix = name_first)
  # infinite values, and missing ones, in the user's rows and columns: a
  # split would report them in rows of the training part under names the
  # user never gave
  where <- function(rows, columns) {
    sprintf("row%s %s (column%s %s)", if (length(rows) > 1L) "s" else "", format_indices(rows),
            if (length(columns) > 1L) "s" else "", paste0("\"", columns, "\"", collapse = ", "))
  }
  infinite <- !apply(is.finite(as.matrix(data[numeric])) | is.na(as.matrix(data[numeric])), 1L, all)
  if (any(infinite)) {
    columns <- names(data)[numeric][vapply(data[numeric], function(column) any(is.infinite(column)), NA)]
    krein_abort(sprintf("`data` has infinite values in %s; remove %s first.", where(which(infinite), columns),
                        if (sum(infinite) > 1L) "those rows" else "that row"))
  }
  # rows with missing values are left out, as model.frame()'s na.omit does;
  # the app says which, and its code shows how
  incomplete <- which(!stats::complete.cases(data))
  note <- NULL
  if (length(incomplete) > 0L) {
    columns <- names(data)[vapply(data, anyNA, NA)]
    note <- sprintf("Your data have missing values in %s; %s left out.", where(incomplete, columns),
                    if (length(incomplete) > 1L) "those rows are" else "that row is")
    data <- data[-incomplete, , drop = FALSE]
  }
  if (nrow(data) < 4L) {
    krein_abort(sprintf("`data` must have at least 4 rows%s, not %d.",
                        if (length(incomplete)) " without missing values" else "", nrow(data)))
  }
  if (nrow(data) * 0.7 > app_max_points) {
    krein_abort(sprintf("`data` has %d rows; the app fits at most %d training points (70%% of the rows).",
                        nrow(data), app_max_points))
  }
  list(data = data, expr = expr, x = names(data)[numeric], y = names(data)[classes], incomplete = incomplete,
       note = note)
}

# ---------------------------------------------------------------------------
# Settings -> code -> results (no shiny here: testable as plain functions)

#' Default settings (the app's starting view)
#' @noRd
app_default_settings <- function(user = NULL) {
  list(data = list(source = if (is.null(user)) "banana" else "user", n = 200, noise = NULL, seed = 1),
       kernel = list(family = "rbf", params = list(), invariant = FALSE),
       model = list(name = "kqd", params = list()),
       landmarks = list(method = "auto", m = NULL, eps = NULL))
}

#' A field's text as numbers: "" or NULL is NULL (the default); "1, 2" two
#' numbers; anything else a krein_error naming the field
#' @noRd
app_parse_number <- function(text, arg) {
  if (is.null(text) || (is.numeric(text) && length(text) == 1L && is.na(text))) return(NULL)
  if (is.numeric(text)) return(text)
  text <- trimws(paste(text, collapse = " "))
  if (!nzchar(text)) return(NULL)
  parts <- strsplit(text, "[,;[:space:]]+")[[1L]]
  value <- suppressWarnings(as.numeric(parts))
  if (anyNA(value)) {
    krein_abort(sprintf("`%s` must be a number (or numbers separated by commas), or empty for the default; \"%s\" is not.",
                        arg, text))
  }
  value
}

#' R code of a value, as short as it round-trips
#' @noRd
app_deparse <- function(value) {
  if (is.numeric(value)) {
    text <- vapply(value, function(v) {
      for (digits in c(7L, 15L)) {
        shown <- formatC(v, digits = digits, format = "g")
        if (as.numeric(shown) == v) return(trimws(shown))
      }
      sprintf("%.17g", v)
    }, "")
    return(if (length(text) == 1L) text else paste0("c(", paste(text, collapse = ", "), ")"))
  }
  paste(deparse(value, width.cutoff = 500L), collapse = " ")
}

#' `name = value` pairs of the non-NULL entries of a list
#' @noRd
app_arguments <- function(values) {
  # an unset parameter is left out; `landmarks = NULL` asks for the full form
  values <- values[!vapply(values, is.null, NA) | names(values) == "landmarks"]
  if (length(values) == 0L) return("")
  paste0(names(values), " = ", vapply(values, app_deparse, ""), collapse = ", ")
}

#' The R code of a view: named chunks (data, kernel, fit, errors, spectrum,
#' plots), each a character vector of lines
#' @noRd
app_code <- function(settings, user = NULL) {
  d <- settings$data
  k <- settings$kernel
  m <- settings$model
  if (!is.numeric(d$seed) || length(d$seed) != 1L || is.na(d$seed) || d$seed != round(d$seed)) {
    krein_abort("`seed` must be a whole number.")
  }
  seed <- app_deparse(d$seed)
  if (identical(d$source, "user")) {
    if (is.null(user)) krein_abort("There are no user data in this app; start it with krein_app(data = ).")
    inputs <- vapply(user$x, function(x) deparse(as.name(x), backtick = TRUE), "")
    response <- deparse(as.name(user$y), backtick = TRUE)
    data_code <- c(paste0("data <- ", user$expr),
                   if (length(user$incomplete)) "data <- data[stats::complete.cases(data), ]",
                   paste0("set.seed(", seed, ")"),
                   "rows <- sample(nrow(data), round(0.7 * nrow(data)))",
                   "train <- data[rows, ]",
                   "test <- data[-rows, ]")
    x_names <- user$x
    y_name <- user$y
  } else {
    generator <- app_generators()[[d$source]]
    if (is.null(generator)) krein_abort(sprintf("`%s` is not one of the app's data generators.", d$source))
    args <- list()
    if (!is.null(generator$size_arg)) {
      n <- d$n
      if (!is.numeric(n) || length(n) != 1L || is.na(n)) {
        krein_abort("`n`, the number of training points, must be a whole number.")
      }
      if (n > app_max_points) {
        krein_abort(sprintf("The app fits at most %d training points; `n` = %s is too many.", app_max_points,
                            app_deparse(n)))
      }
      # sine_populations() takes points per class
      args[[generator$size_arg]] <- if (generator$per_unit > 1L) max(1, round(n / generator$per_unit)) else n
    }
    if (!is.null(generator$noise)) args[[generator$noise$arg]] <- d$noise
    call <- paste0(d$source, "(", app_arguments(args), ")")
    data_code <- c(paste0("set.seed(", seed, ")"),
                   paste0("train <- ", call),
                   paste0("test <- ", call, "  # a test set from the same generator"))
    x_names <- c("x1", "x2")
    y_name <- "y"
    inputs <- x_names
    response <- y_name
  }
  columns <- paste0("train[, c(", paste0("\"", x_names, "\"", collapse = ", "), ")]")
  # the columns as the model sees them: centred and scaled, but as given for an
  # invariant kernel, whose reflection is about the data's own origin
  seen <- if (isTRUE(k$invariant)) columns else paste0("scale(", columns, ")")

  params <- k$params
  # widths without a default: from the median heuristic, written out
  width_rule <- c(dist = "s", epanechnikov = "width")
  if (k$family %in% names(width_rule) && is.null(params[[width_rule[[k$family]]]])) {
    params[[width_rule[[k$family]]]] <- structure("median", class = "app_median_width")
  }
  shown <- vapply(names(params), function(arg) {
    value <- params[[arg]]
    if (inherits(value, "app_median_width")) return(paste0(arg, " = 1 / sqrt(median_gamma(", seen, "))"))
    if (is.null(value)) return(NA_character_)
    paste0(arg, " = ", app_deparse(value))
  }, "")
  kernel_call <- paste0("kernel_", k$family, "(", paste(stats::na.omit(shown), collapse = ", "), ")")
  if (isTRUE(k$invariant)) kernel_call <- paste0("kernel_invariant(", kernel_call, ")  # k(x, -x') too")
  kernel_code <- paste0("kernel <- ", kernel_call)

  info <- model_info(m$name)
  model_args <- m$params
  # "auto": the model's default, which chooses the form by size (R/form.R);
  # "none": the full form, `landmarks = NULL`
  method <- settings$landmarks$method
  if (!identical(method, "auto") && app_models()[[m$name]]$landmarks) {
    if (identical(method, "none")) {
      model_args["landmarks"] <- list(NULL)
    } else {
      model_args$landmarks <- method
      if (identical(method, "meb")) model_args$eps <- settings$landmarks$eps
      else model_args$m <- settings$landmarks$m
    }
  }
  formula <- paste(response, "~", paste(inputs, collapse = " + "))
  fit_args <- c(paste0(formula, ", data = train"), if (info$uses_kernel) "kernel = kernel",
                if (nzchar(app_arguments(model_args))) app_arguments(model_args))
  fit_code <- paste0("fit <- ", m$name, "(", paste(fit_args, collapse = ", "), ")")
  y_of <- function(set) paste0(set, "[[\"", y_name, "\"]]")
  # as characters: the class column may be a factor, characters or logical
  errors_code <- c(paste0("training_error <- mean(as.character(fitted(fit)) != ", y_of("train"), ")"),
                   paste0("test_error <- mean(as.character(predict(fit, test)) != ", y_of("test"), ")"),
                   "c(training = training_error, test = test_error)")
  spectrum_code <- c(
    if (isTRUE(k$invariant)) "# the training kernel matrix as the model sees it (the invariant kernel takes the columns as given)"
    else "# the training kernel matrix as the model sees it (columns centred and scaled)",
    paste0("spectrum <- indefiniteness(kernel_matrix(kernel, ", seen, "))"),
    "spectrum")
  resolution <- app_resolution(d, user)
  list(data = data_code, kernel = kernel_code, fit = fit_code, errors = errors_code,
       spectrum = spectrum_code,
       plots = c(paste0("plot(fit, data = train, resolution = ", resolution, ")"), "plot(spectrum)"),
       resolution = resolution)
}

#' The grid of the decision regions: predicting it costs about resolution^2
#' x n kernel evaluations and more, so it is coarser for more points (100
#' per axis up to 300 points, 55 at 1000, at least 40)
#' @noRd
app_resolution <- function(data, user = NULL) {
  n <- if (identical(data$source, "user")) 0.7 * nrow(user$data) else if (identical(data$source, "xor4")) 4 else data$n
  as.integer(max(40, min(100, round(sqrt(3e6 / n)))))
}

#' The whole code of a view, as shown
#' @noRd
app_code_text <- function(code) {
  paste(c("library(krein)", code$data, code$kernel, code$fit, code$errors, code$spectrum, code$plots),
        collapse = "\n")
}

#' Evaluate a view's code: the data, the kernel, the fit (timed), the
#' errors and the spectrum (cached by the code of the data and kernel: a
#' change of a model parameter does not recompute it). Warnings are
#' collected, errors propagate. `progress(value, detail)` reports progress.
#' @noRd
app_run <- function(settings, user = NULL, cache = new.env(), progress = function(value, detail) NULL) {
  code <- app_code(settings, user)
  env <- new.env(parent = app_code_env())
  if (!is.null(user)) assign("data", user$data, envir = env)
  warnings <- character()
  run <- function(lines) {
    withCallingHandlers(
      for (expr in parse(text = lines, keep.source = FALSE)) eval(expr, env),
      warning = function(w) {
        warnings <<- c(warnings, conditionMessage(w))
        invokeRestart("muffleWarning")
      })
  }
  progress(0.1, "data")
  run(code$data[!startsWith(code$data, "data <- ")])
  own <- identical(settings$data$source, "user")
  if (length(unique(env$train[[if (own) user$y else "y"]])) < 2L) {
    krein_abort("The training data have only one class; a discriminant needs at least two. Change the data or the seed.")
  }
  progress(0.2, "kernel")
  run(code$kernel)
  progress(0.3, paste0(settings$model$name, "()"))
  started <- proc.time()[["elapsed"]]
  run(code$fit)
  fit_time <- proc.time()[["elapsed"]] - started
  progress(0.7, "errors")
  run(code$errors[-length(code$errors)])
  key <- paste(c(code$data, code$kernel), collapse = "\n")
  if (identical(cache$key, key)) {
    env$spectrum <- cache$spectrum
  } else {
    progress(0.8, "kernel spectrum")
    run(code$spectrum[-length(code$spectrum)])
    cache$key <- key
    cache$spectrum <- env$spectrum
  }
  progress(0.9, "drawing")
  x <- as.matrix(env$train[, if (own) user$x else c("x1", "x2")])
  # the median heuristic as the model takes it (on the columns as given for an
  # invariant kernel, else centred and scaled)
  median <- tryCatch(median_gamma(if (isTRUE(settings$kernel$invariant)) x else scale(x)),
                     error = function(e) NA_real_)
  if (own && !is.null(user$note)) warnings <- c(user$note, warnings)
  list(settings = settings, code = code, text = app_code_text(code), train = env$train, test = env$test,
       fit = env$fit, kernel = env$kernel, spectrum = env$spectrum, training_error = env$training_error,
       test_error = env$test_error, fit_time = fit_time, median_gamma = median, warnings = unique(warnings))
}

#' Where a view's code runs: krein's exported functions (as after
#' library(krein)) over the global environment (the user's data and the
#' attached packages)
#' @noRd
app_code_env <- function() {
  ns <- asNamespace("krein")
  exports <- new.env(parent = globalenv())
  for (name in getNamespaceExports(ns)) {
    if (exists(name, envir = ns, inherits = FALSE)) assign(name, get(name, envir = ns), envir = exports)
  }
  exports
}

#' One line of results: errors and fit time
#' @noRd
app_results_text <- function(view) {
  sprintf("training error %.1f%%   test error %.1f%%   fit %.2f s   (%d training, %d test points)",
          100 * view$training_error, 100 * view$test_error, view$fit_time, nrow(view$train), nrow(view$test))
}

#' The signature line of a view's spectrum
#' @noRd
app_signature_text <- function(spectrum) {
  s <- spectrum$signature
  sprintf("signature (p, q, z) = (%d, %d, %d)   r_neg = %.4f", s[["p"]], s[["q"]], s[["z"]], spectrum$r_neg)
}

# ---------------------------------------------------------------------------
# Shiny: the page and the server

#' Input ids of kernel and model parameters
#' @noRd
app_kernel_id <- function(family, param) paste("kernel", family, param, sep = "_")
app_model_id <- function(model, param) paste("model", model, param, sep = "_")

#' The page
#' @param user NULL or the result of app_user_data()
#' @noRd
app_ui <- function(user = NULL) {
  check_shiny()
  generators <- app_generators()
  kernels <- app_kernels()
  models <- app_models()
  sources <- stats::setNames(names(generators), vapply(generators, `[[`, "", "label"))
  if (!is.null(user)) sources <- c(stats::setNames("user", paste("your data:", user$expr)), sources)
  shown_when <- function(input, values) {
    paste0("[", paste0("'", values, "'", collapse = ", "), "].indexOf(input.", input, ") >= 0")
  }
  data_panel <- shiny::tagList(
    shiny::selectInput("source", "Data", sources, selected = if (is.null(user)) "banana" else "user"),
    shiny::conditionalPanel(shown_when("source", setdiff(names(generators), "xor4")),
      shiny::numericInput("n", "training points (as many test points)", 200, min = 4, max = app_max_points,
                          step = 50)),
    lapply(names(generators), function(name) {
      noise <- generators[[name]]$noise
      if (is.null(noise)) return(NULL)
      shiny::conditionalPanel(shown_when("source", name),
        shiny::numericInput(paste0("noise_", name), noise$label, noise$value, step = 0.1))
    }),
    shiny::numericInput("seed", "seed", 1, step = 1))
  kernel_panel <- shiny::tagList(
    shiny::selectInput("kernel", "Kernel", stats::setNames(names(kernels), vapply(kernels, `[[`, "", "label"))),
    lapply(names(kernels), function(family) {
      params <- kernels[[family]]$params
      shiny::conditionalPanel(shown_when("kernel", family), lapply(params, function(p) {
        id <- app_kernel_id(family, p$name)
        if (p$type == "choice") return(shiny::selectInput(id, p$name, p$choices))
        shiny::textInput(id, p$name, value = if (is.null(p$default)) "" else app_deparse(p$default),
                         placeholder = "empty: default")
      }))
    }),
    shiny::div(class = "help-block", shiny::textOutput("kernel_default")),
    shiny::checkboxInput("invariant", "invariant to the reflection x -> -x (kernel_invariant())", FALSE))
  model_panel <- shiny::tagList(
    shiny::selectInput("model", "Model",
                       stats::setNames(names(models), paste0(names(models), ": ", vapply(models, `[[`, "", "label"))),
                       selected = "kqd"),
    lapply(names(models), function(name) {
      params <- models[[name]]$params
      shiny::conditionalPanel(shown_when("model", name), lapply(params, function(p) {
        id <- app_model_id(name, p$name)
        label <- if (identical(p$name, p$label)) p$name else paste0(p$name, " (", p$label, ")")
        if (p$type == "choice") return(shiny::selectInput(id, label, p$choices, selected = p$default))
        shiny::textInput(id, label, value = if (is.null(p$default)) "" else app_deparse(p$default),
                         placeholder = "empty: the model's default")
      }))
    }),
    shiny::conditionalPanel(shown_when("model", names(models)[vapply(models, `[[`, NA, "landmarks")]),
      shiny::selectInput("landmarks", "landmarks (Nystroem approximation)",
                         c(`auto (by size)` = "auto", `none (full form)` = "none", MEB = "meb",
                           `k-means` = "kmeans", random = "random")),
      shiny::conditionalPanel("input.landmarks == 'meb'",
        shiny::textInput("eps", "eps (MEB quality; fewer landmarks when larger)", "0.1")),
      shiny::conditionalPanel("input.landmarks == 'kmeans' || input.landmarks == 'random'",
        shiny::numericInput("m", "number of landmarks", 20, min = 2, step = 5))))
  shiny::fluidPage(
    title = "krein: kernel discriminants",
    shiny::tags$head(shiny::tags$style(shiny::HTML(
      "#code { max-height: 520px; overflow-y: auto; } .results { font-family: monospace; margin: 6px 0; }"))),
    shiny::h3("krein: a kernel discriminant at work"),
    shiny::sidebarLayout(
      shiny::sidebarPanel(width = 3, data_panel, shiny::hr(), kernel_panel, shiny::hr(), model_panel),
      shiny::mainPanel(width = 9,
        shiny::uiOutput("message"),
        shiny::div(class = "results", shiny::textOutput("results")),
        shiny::div(class = "results", shiny::textOutput("signature")),
        shiny::tabsetPanel(id = "view",
          shiny::tabPanel("Decision regions", shiny::plotOutput("regions", height = "520px")),
          shiny::tabPanel("Kernel spectrum", shiny::plotOutput("spectrum", height = "520px")),
          shiny::tabPanel("Show code", shiny::verbatimTextOutput("code"))))))
}

#' The settings the inputs describe; reads only the inputs of the chosen
#' data, kernel and model, so a change of a hidden input redraws nothing
#' @noRd
app_settings <- function(input, user = NULL) {
  value <- function(id, default = NULL) input[[id]] %||% default
  source <- value("source", if (is.null(user)) "banana" else "user")
  generator <- app_generators()[[source]]
  data <- list(source = source, seed = app_parse_number(value("seed", 1), "seed"),
               n = if (!is.null(generator$size_arg)) app_parse_number(value("n", 200), "n"),
               noise = if (!is.null(generator$noise)) {
                 app_parse_number(value(paste0("noise_", source), generator$noise$value), generator$noise$arg)
               })
  family <- value("kernel", "rbf")
  if (!family %in% names(app_kernels())) krein_abort(sprintf("`%s` is not one of krein's kernel families.", family))
  kernel_params <- list()
  for (p in app_kernels()[[family]]$params) {
    raw <- value(app_kernel_id(family, p$name))
    kernel_params[p$name] <- list(if (p$type == "choice") {
      # the first choice is the constructor's default: leave it implicit
      if (is.null(raw) || identical(raw, p$choices[1L])) NULL else raw
    } else app_parse_number(raw, p$name))
  }
  model <- value("model", "kqd")
  info <- app_models()[[model]]
  if (is.null(info)) krein_abort(sprintf("`%s` is not a registered krein model.", model))
  model_params <- list()
  for (p in info$params) {
    raw <- value(app_model_id(model, p$name))
    model_params[p$name] <- list(switch(p$type,
      choice = if (is.null(raw) || identical(raw, p$default)) NULL else raw,
      number = app_parse_number(raw, p$name),
      text = if (is.null(raw) || !nzchar(trimws(raw))) NULL else trimws(raw)))
  }
  landmarks <- if (info$landmarks) value("landmarks", "auto") else "auto"
  landmarks <- check_choice(landmarks, "landmarks", c("auto", "none", "meb", "kmeans", "random"))
  list(data = data,
       kernel = list(family = family, params = kernel_params, invariant = isTRUE(value("invariant", FALSE))),
       model = list(name = model, params = model_params),
       landmarks = list(method = landmarks,
                        m = if (landmarks %in% c("kmeans", "random")) app_parse_number(value("m"), "m"),
                        eps = if (identical(landmarks, "meb")) app_parse_number(value("eps"), "eps")))
}

#' The server
#' @param user NULL or the result of app_user_data()
#' @noRd
app_server <- function(user = NULL) {
  force(user)
  function(input, output, session) {
    cache <- new.env()
    view <- shiny::reactiveVal(NULL)     # the last view that worked
    problem <- shiny::reactiveVal(NULL)  # why the last settings did not
    shiny::observe({
      outcome <- tryCatch({
        settings <- app_settings(input, user)
        shiny::withProgress(message = paste0("Fitting ", settings$model$name, "()"), value = 0, {
          app_run(settings, user, cache, progress = function(value, detail) {
            shiny::setProgress(value, detail = detail)
          })
        })
      }, error = function(e) e)
      if (inherits(outcome, "error")) {
        problem(conditionMessage(outcome))
      } else {
        problem(NULL)
        view(outcome)
      }
    })
    # for shinytest2: the exact test error of the view
    shiny::exportTestValues(test_error = view()$test_error)
    output$message <- shiny::renderUI({
      current <- view()
      if (!is.null(problem())) {
        return(shiny::div(class = "alert alert-danger", id = "app-error", role = "alert",
                          shiny::strong("Not drawn: "), problem(),
                          if (!is.null(current)) " (The view below is of the last settings that worked.)"))
      }
      if (length(current$warnings)) {
        return(shiny::div(class = "alert alert-warning", id = "app-warning",
                          shiny::strong("Warning: "), paste(current$warnings, collapse = " ")))
      }
      NULL
    })
    output$results <- shiny::renderText({
      shiny::req(view())
      app_results_text(view())
    })
    output$signature <- shiny::renderText({
      shiny::req(view())
      app_signature_text(view()$spectrum)
    })
    output$kernel_default <- shiny::renderText({
      shiny::req(view())
      sprintf("Empty widths take the median heuristic: gamma = %.4g for these data (scaled columns).",
              view()$median_gamma)
    })
    output$code <- shiny::renderText({
      shiny::req(view())
      view()$text
    })
    # the code is cheap: kept current in a hidden tab too
    shiny::outputOptions(output, "code", suspendWhenHidden = FALSE)
    output$regions <- shiny::renderPlot({
      shiny::req(view())
      # the training points, also where the fit keeps only its landmarks
      plot(view()$fit, data = view()$train, resolution = view()$code$resolution)
    })
    output$spectrum <- shiny::renderPlot({
      shiny::req(view())
      plot(view()$spectrum)
    })
  }
}
