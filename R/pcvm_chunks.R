# Ny-PCVM over chunks. EM for PCVM (Chen, Tino and Yao 2009) needs at every
# iteration the expected latent values of all training points, which depend
# on the current weights: no finite sufficient statistic, so each iteration
# is one pass over the chunks. The EMs of all pairs of classes and all their
# starts (pcvm_control(starts)) run in lockstep so that one pass serves
# every EM still running: one pass per pair would read the data k(k - 1) / 2
# times per iteration for k classes, and one series of passes per start up
# to S times as often for S starts (on 60 rows of a checkerboard with the
# ten default starts, 1775 passes instead of 292). An EM that has converged
# or lost every basis function leaves the later passes. With Phi_A = C_A D
# (C the landmark kernel of the pair's rows, D the
# landmark signs), a pass returns for each pair Phi'(Z - b 1) (as C'(Z - b 1)
# over the pair's landmarks), sum(Z), the rows with y f <= 0 and, for the
# "latent" convergence rule, |f_t - f_{t-1}|^2 and |f_{t-1}|^2;
# Phi_A'Phi_A = D R_A'R_A D and 1'C come from one first pass (the per-class
# factors R of [C, 1] of chunk_class_factors(), merged over the pair's two
# classes). The E-step, the moments and the M-step are the core's
# (pcvm.hpp: pass_moments(), step_moments(), prune_weights(), which the fit
# in memory runs too); here is only the loop over the chunks and the
# iterations.

# The moments of one block of rows for each pair of `tasks` (the pairs still
# running: classes `pair`, landmark `columns`, coefficients `current` (a over
# its landmarks, b), for the convergence test the `previous` ones and, in
# the first pass, the columns of `extra` with the start latent values of the
# rows of its first and second class, `start`): the core's E-step and
# moments (pcvm.hpp's pass_moments()). `extra` holds the rows' class codes
# and, in the first pass, their start latent values.
pcvm_block_statistics <- function(C, self, extra, tasks, e_step) {
  storage.mode(extra) <- "double"  # the class codes come as integers
  cpp_pcvm_pass_moments(C, extra, tasks, list(e_step = e_step))
}

add_statistics <- function(a, b) Map(`+`, a, b)

add_pair_statistics <- function(a, b) Map(add_statistics, a, b)

#' The basis pcvm_fit() uses over chunks: the landmark classes and points,
#' `em(problems, control)` (EM from every start of every pair of classes,
#' given as pcvm_pair_problem() results with their `starts`, in lockstep, one
#' pass over the chunks per iteration; for each pair, a list over its starts
#' of results as cpp_pcvm_fit()'s, with `training_errors` and
#' `hessian_fallbacks`) and `latent(models)` (the training latent values, one
#' more pass).
#' @noRd
chunk_pcvm_basis <- function(inputs, landmarks, threads) {
  if (anyNA(landmarks$class)) {
    krein_abort("`landmarks` must carry their classes for Ny-PCVM over chunks (its basis functions are signed by them): give a select_landmarks() result or a method name (\"meb\", \"kmeans\", \"random\"), not bare points.")
  }
  factors <- chunk_class_factors(inputs, landmarks, threads)
  m <- length(landmarks$class)
  codes <- inputs$codes
  em <- function(problems, control) {
    e_step <- control$e_step %||% "exact"
    latent_rule <- control$convergence == "latent"
    other_classes <- nlevels(inputs$y) - 1L
    n_starts <- length(problems[[1L]]$starts)
    # one EM per pair and start: every pair from the first start, then every
    # pair from the second, ...
    runs <- expand.grid(problem = seq_along(problems), start = seq_len(n_starts))
    pair_bases <- lapply(problems, function(problem) {
      pair <- problem$pair
      columns <- problem$columns
      # R with R'R = [C, 1]'[C, 1] over the pair's rows
      R <- cpp_triangular_factor(rbind(factors[[pair[1L]]], factors[[pair[2L]]]))
      list(sums = drop(crossprod(R[, seq_len(m), drop = FALSE], R[, m + 1L]))[columns],  # 1'C
           R = R[, columns, drop = FALSE])
    })
    states <- Map(function(p, s) {
      problem <- problems[[p]]
      pair <- problem$pair
      start <- problem$starts[[s]]
      list(pair = pair, columns = problem$columns, column_signs = problem$column_signs,
           sums = pair_bases[[p]]$sums, R = pair_bases[[p]]$R, n = length(problem$signs),
           # see start_latent below; +1 for the class codes in front
           start = 1L + (s - 1L) * other_classes + c(pair[2L] - 1L, pair[1L]),
           w = start$weights, b = start$bias, current = NULL, previous = NULL,
           running = TRUE, iterations = 0L, converged = FALSE, all_pruned = FALSE,
           training_errors = numeric(control$max_iter), hessian_fallbacks = 0L)
    }, runs$problem, runs$start)
    rm(pair_bases)
    # The start latent values for the first pass. A row is in k - 1 pairs,
    # one with each other class: of each start's k - 1 columns, column j
    # holds its start in the pair with the j-th other class (pair (a, b),
    # a < b as combn() gives them: column b - 1 for the rows of a, column a
    # for those of b), so the pass carries S (k - 1) n values for S starts,
    # not one column per pair and start. They are in memory anyway: each
    # problem holds its starts' latent values.
    start_latent <- matrix(NA_real_, length(inputs$y), n_starts * other_classes)
    for (s in seq_len(n_starts)) {
      offset <- (s - 1L) * other_classes
      for (problem in problems) {
        first <- problem$signs > 0
        latent <- problem$starts[[s]]$latent
        start_latent[problem$rows[first], offset + problem$pair[2L] - 1L] <- latent[first]
        start_latent[problem$rows[!first], offset + problem$pair[1L]] <- latent[!first]
      }
    }
    chunk_of <- rep(seq_along(codes), lengths(codes))
    first_extra <- lapply(seq_along(codes), function(i) cbind(codes[[i]], start_latent[chunk_of == i, , drop = FALSE]))
    later_extra <- lapply(codes, function(v) cbind(v))
    rm(start_latent, chunk_of)
    coefficients_of <- function(state) {
      a <- numeric(length(state$columns))
      on <- state$w > 0
      a[on] <- state$column_signs[on] * state$w[on]
      list(a = a, b = state$b)
    }
    # one pass over the chunks for the EMs `live`: their statistics, in
    # order; f_{t-1} is computed only where the "latent" test reads it (`test`)
    pass <- function(live, first, test) {
      tasks <- lapply(states[live], function(state) {
        list(pair = state$pair, columns = state$columns, current = state$current,
             previous = if (test) state$previous, start = if (first) state$start)
      })
      fun <- bare_function(function(C, self, extra) pcvm_block_statistics(C, self, extra, tasks, e_step),
                           tasks = tasks, e_step = e_step)
      map_landmark_kernel(inputs, landmarks, fun, combine = add_pair_statistics,
                          per_chunk = if (first) first_extra else later_extra)
    }
    settled <- function(statistics) sqrt(statistics$change) <= control$tol * sqrt(statistics$size)
    # an EM's iteration from its pass's statistics (pcvm.hpp's fit() and
    # step_factored())
    advance <- function(state, statistics, iteration) {
      # the "latent" test of the previous iteration (pcvm.hpp's fit(): after
      # iteration t > 1, f_t against f_{t-1}), known only now
      if (latent_rule && iteration > 2L && settled(statistics)) {
        state$converged <- TRUE
        state$running <- FALSE
        return(state)
      }
      state$iterations <- iteration
      state$training_errors[iteration] <- statistics$errors / state$n
      # the core's M-step from the pass's moments (pcvm.hpp's step_moments(),
      # the same as for data in memory) and its pruning
      step <- cpp_pcvm_moment_step(state$R, state$column_signs, state$sums, state$w, state$b, statistics$g,
                                   statistics$latent_sum, state$n, control$prune)
      state$hessian_fallbacks <- state$hessian_fallbacks + step$hessian_fallback
      state$previous <- state$current
      state$b <- step$bias
      state$w <- step$weights
      if (!any(step$weights > 0)) {
        state$all_pruned <- TRUE
        state$running <- FALSE
      } else if (!latent_rule && iteration > 1L && step$change < control$tol) {
        state$converged <- TRUE
        state$running <- FALSE
      }
      state
    }
    running <- function() which(vapply(states, `[[`, logical(1), "running"))
    for (iteration in seq_len(control$max_iter)) {
      live <- running()
      if (!length(live)) break
      for (p in live) states[[p]]$current <- coefficients_of(states[[p]])
      statistics <- pass(live, first = iteration == 1L, test = latent_rule && iteration > 2L)
      for (k in seq_along(live)) states[[live[k]]] <- advance(states[[live[k]]], statistics[[k]], iteration)
    }
    # the "latent" test after the last iteration needs one more pass, for
    # the EMs that ran to max_iter
    live <- running()
    if (latent_rule && control$max_iter > 1L && length(live)) {
      for (p in live) states[[p]]$current <- coefficients_of(states[[p]])
      statistics <- pass(live, first = FALSE, test = TRUE)
      for (k in seq_along(live)) states[[live[k]]]$converged <- settled(statistics[[k]])
    }
    results <- lapply(states, function(state) {
      list(weights = state$w, bias = state$b, iterations = state$iterations, converged = state$converged,
           all_pruned = state$all_pruned, training_errors = state$training_errors[seq_len(state$iterations)],
           hessian_fallbacks = state$hessian_fallbacks)
    })
    lapply(seq_along(problems), function(p) results[runs$problem == p])  # in the order of the starts
  }
  latent <- function(models) {
    score <- function(C, self, codes) pcvm_pair_latent(models, function(model) C, nrow(C))
    blocks <- map_landmark_kernel(inputs, landmarks, bare_function(score, models = models))
    do.call(rbind, blocks)
  }
  list(classes = landmarks$class, points = landmarks$points, em = em, latent = latent)
}
