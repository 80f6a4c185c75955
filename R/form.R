# The form of a fit: full or Nystroem.
#
# A model with both forms holds, in its full form, n x n kernel matrices and
# spends time cubic in the n training rows; its Nystroem form works on m
# landmarks: memory n x m and time n m^2 (Schleif, Gisbrecht and Tino 2018,
# Sec. 3). By default (`landmarks = "auto"`; kfda(): `reduce = "auto"`)
# krein takes the full form up to the number of rows at which it still
# costs about what an SVM fit costs (the model's registry entry,
# `full_max_rows`, measured: bench/README.md, "The switch of the defaults"),
# and while its memory estimate fits the machine (R/memory.R); beyond, the
# Nystroem form on landmarks_auto_count() stratified random landmarks. The
# choice is made once, in fit_model(), before any n x n allocation: it
# rewrites the model's arguments to those of a form the model already has,
# so it adds no way of fitting, and it records what it chose and why
# (`fit$form`, printed by print() and summary()).

#' The form of a fit: full, or Nystroem for large data
#'
#' Most of krein's models have two forms. The **full form** works on the n x
#' n kernel matrix of the n training rows: exact, but its memory grows as
#' \eqn{n^2} and its time as \eqn{n^3}. The **Nystroem form** works on m
#' landmarks: it approximates the kernel by \eqn{K_{nm} W^{+} K_{nm}'} (W
#' the landmarks' kernel; Williams and Seeger 2001; for indefinite kernels
#' Schleif, Gisbrecht and Tino 2018, Sec. 3), in memory \eqn{n m} and time
#' \eqn{n m^2}, and keeps only the landmarks for prediction. [kfda()]'s
#' counterpart is its random subset of bases (`reduce = "subset"`; Huang,
#' Hwang and Lin 2005, Sec. 4.2).
#'
#' @section Left to krein, the form follows the data's size:
#' With its default, `landmarks = "auto"` ([kfda()]: `reduce = "auto"`), a
#' model fits its full form up to a number of training rows of its own, and
#' its Nystroem form beyond:
#'
#' | model | full form up to | beyond: the Nystroem form |
#' |---|---|---|
#' | [ikfd()] | 2,000 rows | Ny-iKFD (Schleif, Gisbrecht and Tino 2018, Sec. 5.2) |
#' | [kqd()] | 2,000 rows | Ny-KQD (see its help page) |
#' | [pcvm()] | 5,500 rows | Ny-PCVM (Schleif, Gisbrecht and Tino 2018, Sec. 5.1) |
#' | [krein_svm()] | 5,500 rows | the Nystroem KSVM (linear SVMs on Nystroem features) |
#' | [isvm()] | 5,500 rows | the Nystroem KSVM, as `krein_svm(landmarks = )` fits it |
#' | [kmdc()] | 2,000 rows | the distances of the Nystroem KQD |
#' | [ikpca_qd()] | 2,000 rows | Gaussian classes in the kernel PCA of the Nystroem approximation |
#' | [kfda()] | 6,000 rows | `reduce = "subset"`, a random subset of bases |
#' | [iknn()] | 70,000 rows | the neighbours among \eqn{5 \times 10^9 / n} random prototypes |
#'
#' Each limit is at least 2,000 rows, so that data of the sizes the
#' package's real-data benchmarks train on keep the full form; above that,
#' the largest size, in steps of 500, at which the model's full form,
#' fitted and predicting 1,000 new points with its defaults, costs at most
#' about eight times `e1071::svm(probability = TRUE)` on the same data (two
#' of the papers' generators, [sine_populations()] and [checkerboard()];
#' measured in the package's benchmarks), and never beyond 6,000 rows
#' unless the full form stays within three times the SVM there. Above a
#' limit, the full form's cost grows as the cube of the rows while the
#' Nystroem form's grows linearly. [iknn()] is the exception: its full form
#' holds no \eqn{n \times n} matrix and costs \eqn{n^2} kernel
#' evaluations, less than the SVM at every size measured, so its limit and
#' its number of prototypes keep those evaluations within \eqn{5 \times
#' 10^9} (see its Details).
#'
#' The automatic Nystroem form takes \eqn{m = \min(300, n/2)} landmarks
#' drawn at random within the classes (`select_landmarks(method = "random",
#' stratified = TRUE)`, with R's random numbers: [set.seed()] reproduces
#' them); `m` sets another count. More landmarks buy nothing on the
#' default kernel of data with few inputs: at 20,000 rows of both
#' generators, 600 and 1,200 landmarks gave [kqd()], [kmdc()], [ikfd()] and
#' [ikpca_qd()] the test accuracy of 300 to within 0.2 points, because the
#' Nystroem approximation keeps the landmark kernel's eigenvalues above
#' \eqn{\sqrt{\epsilon}} times the largest, and that smooth kernel has
#' fewer than 300 of them (49 to 56 on these data with 300 or 1,200
#' landmarks). Random landmarks need no pass over the data and suit every
#' kernel, a precomputed one included; the minimum
#' enclosing ball landmarks of Schleif, Gisbrecht and Tino (`landmarks =
#' "meb"`) stop at a few dozen on smooth kernels over few inputs, too few
#' there. kfda()'s subset draws its default number of bases.
#'
#' Memory decides too: where the full form's estimated peak (see the option
#' `krein.memory_limit` in [krein-package]) would exceed the memory krein
#' may use, the Nystroem form is taken at any size. The same rule holds for
#' data in chunks ([krein_chunks()]): below the limit their rows are read
#' into memory and fitted in the full form.
#'
#' `print()` and `summary()` of a fit give its form and why it was chosen;
#' the fit keeps the record as `form`.
#'
#' @section Choosing yourself:
#' `landmarks = NULL` ([kfda()]: `reduce = "pca"`) forces the full form at
#' any size (the memory check still applies); a landmark method
#' (`"meb"`, `"kmeans"`, `"random"`), row indices or a [select_landmarks()]
#' result force the Nystroem form. `options(krein.full_max_rows = k)` lowers
#' every model's limit to k rows (0: always the Nystroem form), for a small
#' machine or a test. [tune_krein()], [caret_model()] and the parsnip
#' engines pass the argument on as given; left to choose, each of their fits
#' chooses by its own training rows.
#'
#' @references
#' Williams, C. K. I. and Seeger, M. (2001). Using the Nystroem method to
#' speed up kernel machines. In *Advances in Neural Information Processing
#' Systems 13*, MIT Press, 682-688.
#'
#' Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#' indefinite kernel approximation using minimum enclosing balls.
#' *Neurocomputing*, 318, 213-226. \doi{10.1016/j.neucom.2018.08.057}.
#'
#' Huang, S.-Y., Hwang, C.-R. and Lin, M.-H. (2005). Kernel Fisher's
#' discriminant analysis in Gaussian reproducing kernel Hilbert space.
#' Manuscript, Institute of Statistical Science, Academia Sinica, Taipei.
#' @family Nystroem approximation
#' @name krein_forms
NULL

#' A model's forms, for its registry entry: the argument that chooses the
#' form, its value for the full form, and `nystrom(inputs, args)`, the
#' arguments of its automatic Nystroem form, on `count(inputs)` random
#' landmarks
#' @noRd
landmark_forms <- function(count = landmarks_auto_count) {
  list(argument = "landmarks", full = list(landmarks = NULL),
       nystrom = function(inputs, args) list(landmarks = "random", m = args$m %||% count(inputs)))
}

#' The number of landmarks of an automatic Nystroem form: 300, at most half
#' the training rows; a class of fewer rows than its stratified share gives
#' its rows (random_landmarks()). Measured against the full forms at 6,000
#' rows and for time at 1e6 rows: bench/README.md, "The switch of the
#' defaults".
#' @noRd
landmarks_auto_count <- function(inputs) {
  as.integer(min(300, length(inputs$y) %/% 2))
}

#' Does a form argument ask krein to choose (`"auto"`, or kfda()'s default
#' vector of choices, which starts with it)?
#' @noRd
is_auto_form <- function(value) {
  is.character(value) && length(value) >= 1L && identical(value[1], "auto")
}

#' The largest training set a model fits in its full form when it chooses:
#' its registry's `full_max_rows`, or the option `krein.full_max_rows` where
#' that is lower
#' @noRd
full_max_rows <- function(info) {
  option <- getOption("krein.full_max_rows")
  if (is.null(option)) return(info$full_max_rows)
  if (!is.numeric(option) || length(option) != 1L || is.na(option) || option < 0) {
    krein_abort(sprintf("The option `krein.full_max_rows` must be a number of rows >= 0, not %s.",
                        describe_value(option)))
  }
  min(info$full_max_rows, floor(option))
}

#' Choose the form of a fit from the model's registry entry (`info`), its
#' inputs and its arguments (defaults filled in), touching no n x n matrix.
#' Returns the arguments of the chosen form and the record kept in the fit: `kind` ("full" or
#' "nystrom"), `chosen` ("given": the user's argument; "size" or "memory":
#' krein's choice), `n`, `limit` (full_max_rows()), `bytes` (the full
#' form's estimate) and `memory` (memory_limit()).
#' @noRd
choose_form <- function(info, inputs, args) {
  forms <- info$forms
  if (is.null(forms)) return(list(args = args, record = NULL))
  n <- length(inputs$y)
  record <- list(kind = NULL, chosen = "given", n = n, argument = forms$argument,
                 limit = full_max_rows(info), bytes = full_form_bytes(n, info$full_copies))
  if (is_auto_form(args[[forms$argument]])) {
    fixed <- if (!is.null(forms$fixed)) forms$fixed(args)
    if (!is.null(fixed)) {
      # an argument only one form takes (kfda's `ncomp`, `bases`) decides
      args[names(fixed)] <- fixed
      record$chosen <- "argument"
      record$by <- attr(fixed, "by")
    } else {
      record$memory <- memory_limit()
      fits <- record$bytes <= record$memory
      if (n <= record$limit && fits) {
        args[names(forms$full)] <- forms$full
        record$chosen <- "size"
      } else {
        args <- utils::modifyList(args, forms$nystrom(inputs, args))
        record$chosen <- if (n <= record$limit) "memory" else "size"
      }
    }
  }
  record$kind <- if (isTRUE(info$full_form(args))) "full" else "nystrom"
  list(args = args, record = record)
}

#' The rows of data in chunks, read into memory for a full form: the inputs
#' of a fit on data in memory, with the chunks' scaling and kernel
#' @noRd
chunk_rows_in_memory <- function(inputs) {
  sample <- chunk_sample(inputs, inputs$spec, limit = length(inputs$y))
  structure(list(x = sample$x, y = inputs$y, kernel = inputs$kernel, precomputed = NULL, na_action = NULL,
                 spec = inputs$spec),
            class = "krein_inputs")
}

#' The line print() and summary() give on the form of a fit
#' @noRd
form_text <- function(x) {
  record <- x$form
  if (is.null(record)) return(NULL)
  what <- if (record$kind == "full") "full" else form_size_text(x)
  name <- class(x)[1]
  why <- switch(record$chosen,
    given = sprintf("as asked (`%s = %s`)", record$argument, form_argument_text(x, record)),
    argument = sprintf("as `%s` asks", record$by),
    size = if (record$kind == "full") {
      sprintf("chosen by size: %s rows, within %s()'s full-form limit of %s rows", format_rows(record$n), name,
              format_rows(record$limit))
    } else {
      sprintf("chosen by size: %s rows, above %s()'s full-form limit of %s (%s forces the full form)",
              format_rows(record$n), name, format_rows(record$limit), full_form_call(x))
    },
    memory = sprintf("chosen by memory: the full form would hold about %s, more than the %s krein may use",
                     format_bytes(record$bytes), format_bytes(record$memory))
  )
  paste0(what, " -- ", why)
}

format_rows <- function(n) format(n, big.mark = ",", scientific = FALSE, trim = TRUE)

# "Nystroem, 300 random landmarks", "subset of 500 bases", "5,000 random
# prototypes"
form_size_text <- function(x) {
  if (identical(x$reduce, "subset")) return(sprintf("subset of %d bases", NROW(x$landmarks$points %||% x$bases)))
  if (inherits(x, "iknn")) {
    return(sprintf("%s %sprototypes", format_rows(length(x$landmarks$class)), landmark_method_word(x$landmarks)))
  }
  nystrom_title(x$landmarks)
}

# how the user's value of the form argument reads in the form line
form_argument_text <- function(x, record) {
  if (record$kind == "full" && record$argument == "landmarks") return("NULL")
  if (record$argument == "reduce") return(sprintf("\"%s\"", x$reduce))
  method <- x$landmarks$method
  if (method %in% c("meb", "kmeans", "random")) sprintf("\"%s\"", method) else "given landmarks"
}

full_form_call <- function(x) {
  if (inherits(x, "kfda")) "reduce = \"pca\"" else "landmarks = NULL"
}
