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
#' median heuristic's kernel over few inputs: at 20,000 rows of both
#' generators, 600 and 1,200 landmarks gave [kqd()], [kmdc()], [ikfd()] and
#' [ikpca_qd()] the test accuracy of 300 to within 0.2 points, because the
#' Nystroem approximation keeps the landmark kernel's eigenvalues above
#' \eqn{\sqrt{\epsilon}} times the largest, and that smooth kernel has
#' fewer than 300 of them (49 to 56 on these data with 300 or 1,200
#' landmarks); a narrower kernel has more (see the next section). Random landmarks need no pass over the data and suit every
#' kernel, a precomputed one included; the minimum
#' enclosing ball landmarks of Schleif, Gisbrecht and Tino (`landmarks =
#' "meb"`) stop at a few dozen on smooth kernels over few inputs, too few
#' there. kfda()'s subset draws its default number of bases.
#'
#' @section The width of an automatic Nystroem form:
#' [ikfd()], [kqd()], [kmdc()] and [ikpca_qd()] have no capacity but their
#' kernel's: on a Gaussian kernel as wide as the median heuristic
#' ([median_gamma()]) their Nystroem features span a few dozen directions,
#' however many landmarks, and on tens of thousands of rows they stay below
#' an SVM that adapts through its margin. So where krein chose their
#' Nystroem form (by size or memory) on a Gaussian kernel whose width is left
#' to the data (`kernel_rbf()` without `gamma`), the width is chosen too:
#' gamma at 1, 2, 4, 8 and 16 times the heuristic's (the median heuristic
#' unless `kernel_rbf(heuristic = )` says otherwise), each scored by
#' the error of Ny-iKFD on 150 random landmarks on held-out rows (every k-th
#' row of each class, at most 1,000; at most 10,000 of the others to fit
#' on), and the widest kernel within one standard error of the lowest error
#' is kept. Ny-iKFD scores for all four: it is the cheapest (about a second
#' for the five widths) and, in every run measured, best at the multiples
#' best for the others. On 20,000 rows this raised the test accuracy of
#' [kqd()] from 0.904 to 0.973 ([sine_populations()]) and of [kmdc()] from
#' 0.800 to 0.983 ([checkerboard()]). The SVMs and [pcvm()] keep the width
#' their heuristic gives (their margins and priors adapt; they are within a
#' point of an SVM or better there). The choice uses R's random numbers and restores them, so the
#' fit equals the same call with `kernel = kernel_rbf(gamma = )` at the
#' chosen width and `landmarks = "random"`; `print()` gives the choice in
#' its `Width:` line, and the fit keeps it as `form$width`. Fewer than 1,000
#' rows, a width given, or a form asked for choose no width.
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
#' any size (the memory check still applies); `landmarks = "none"` does the
#' same where `NULL` cannot be passed (parsnip drops engine arguments given
#' as `NULL`: `set_engine("krein", landmarks = "none")`); a landmark method
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
#' landmarks; `chooses_width`: whether that form chooses a Gaussian width
#' left to the data (choose_nystrom_width())
#' @noRd
landmark_forms <- function(count = landmarks_auto_count, chooses_width = FALSE) {
  list(argument = "landmarks", full = list(landmarks = NULL), chooses_width = chooses_width,
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

#' `landmarks = "none"` asks for the full form, as `landmarks = NULL` does:
#' for the interfaces that drop an argument given as NULL (parsnip's
#' `set_engine()` among them), which could not force the full form otherwise
#' @noRd
full_form_alias <- function(info, args) {
  forms <- info$forms
  if (!is.null(forms) && identical(forms$argument, "landmarks") && identical(args$landmarks, "none")) {
    args["landmarks"] <- list(NULL)
  }
  args
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

# ---------------------------------------------------------------------------
# The width of an automatic Nystroem form
#
# The median heuristic (median_gamma()) is the width of every Gaussian kernel
# left to the data. On the thousands of rows where the discriminants switch to
# their Nystroem forms it is too wide for them: their class models -- a
# Fisher discriminant, Gaussian classes, class distances -- have no capacity
# but the kernel's, which a wide kernel keeps to a few dozen directions
# (49 to 56 on the generators, whatever the landmarks). At 20,000 rows, 8
# times the median heuristic's gamma raised the test accuracy of kqd from
# 0.904 to 0.973 (sine_populations()) and of kmdc from 0.800 to 0.983
# (checkerboard()); ikfd and ikpca_qd alike (bench/README.md, "The width of
# the automatic Nystroem form"). The SVMs and the PCVM adapt through their
# margins and priors and keep their heuristic's width. So an automatic Nystroem form of a model whose
# registry asks for it (`forms$chooses_width`), on a Gaussian kernel whose
# width the data choose, tries gamma at 1, 2, 4, 8 and 16 times the
# heuristic's and keeps the widest kernel whose held-out error is within one
# standard error of the lowest (the one-standard-error rule, as the models'
# own path choices use). The error is Ny-iKFD's for every model: the
# cheapest of them (one n m^2 pass per width), and best at the same multiples
# as the others in every run measured.

nystrom_width_multiples <- function() c(1, 2, 4, 8, 16)

#' The rows the width is chosen on: at most 1,000 held out (a quarter of the
#' rows on fewer than 4,000), and at most 10,000 of the rest to fit on. Fewer
#' than 1,000 rows (possible where memory alone chose the Nystroem form)
#' choose no width.
#' @noRd
width_choice_rows <- function(n) {
  if (n < 1000L) return(NULL)
  list(held_out = min(1000L, n %/% 4L), fit = 10000L, landmarks = 150L)
}

#' Choose the Gaussian width of an automatic Nystroem form (see above).
#' Returns NULL where no width is chosen, else the record kept in the fit's
#' form: `gamma` (the width chosen), `multiple`, `multiples`, `errors` and
#' `held_out` (rows). Deterministic in the data: the held-out rows are dealt
#' in turn within the classes (interleaved_folds()), and the random
#' landmarks of the trial fits come from R's random numbers, which are put
#' back afterwards, so the fit then draws the landmarks the same call with
#' the chosen width would draw.
#' @noRd
choose_nystrom_width <- function(info, inputs, args, record) {
  if (!isTRUE(info$forms$chooses_width) || !identical(record$kind, "nystrom") ||
      !(record$chosen %in% c("size", "memory")) || !isTRUE(inputs$width_from_data)) {
    return(NULL)
  }
  rows <- if (inherits(inputs, "krein_chunked_inputs")) chunk_sample(inputs, inputs$spec) else inputs[c("x", "y")]
  n <- length(rows$y)
  sizes <- width_choice_rows(n)
  if (is.null(sizes)) return(NULL)
  held_out <- interleaved_folds(rows$y, ceiling(n / sizes$held_out)) == 1L
  fit_rows <- which(!held_out)
  if (length(fit_rows) > sizes$fit) fit_rows <- fit_rows[unique(round(seq(1, length(fit_rows), length.out = sizes$fit)))]
  base <- inputs$kernel$params$gamma
  multiples <- nystrom_width_multiples()
  state <- get_random_state()
  on.exit(set_random_state(state), add = TRUE)
  trial_args <- list(landmarks = "random", m = min(args$m, sizes$landmarks, length(fit_rows) %/% 2L),
                     scale = FALSE, threads = args$threads)
  errors <- vapply(multiples, function(multiple) {
    # a trial's warnings and messages are about the trial, not the fit
    tryCatch(suppressMessages(suppressWarnings({
      trial <- fit_registered(model_info("ikfd"), rows$x[fit_rows, , drop = FALSE], rows$y[fit_rows],
                              kernel_rbf(gamma = base * multiple), trial_args)
      mean(stats::predict(trial, rows$x[held_out, , drop = FALSE]) != rows$y[held_out])
    })), krein_error = function(e) NA_real_)
  }, numeric(1))
  if (all(is.na(errors))) return(NULL)
  best <- min(errors, na.rm = TRUE)
  within <- which(errors <= best + sqrt(best * (1 - best) / sum(held_out)))
  list(gamma = base * multiples[within[1]], multiple = multiples[within[1]], multiples = multiples,
       errors = errors, held_out = sum(held_out))
}

#' Inputs on the Gaussian width `gamma` instead of the one they carry
#' @noRd
with_kernel_width <- function(inputs, gamma) {
  inputs$kernel$params$gamma <- gamma
  inputs$spec$kernel$params$gamma <- gamma
  inputs
}

#' The line print() and summary() give on the width an automatic Nystroem
#' form chose (NULL: none chosen)
#' @noRd
width_text <- function(x) {
  width <- x$form$width
  if (is.null(width)) return(NULL)
  sprintf("gamma %s x the heuristic's %s, the widest of %s x within one standard error of the lowest held-out error (%s rows; see ?krein_forms)",
          format(width$multiple), format(width$gamma / width$multiple, digits = 4),
          paste(width$multiples, collapse = ", "), format_rows(width$held_out))
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
