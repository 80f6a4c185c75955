// Glue for PCVM EM (inst/include/krein/pcvm.hpp): the start is drawn in R,
// validation and the non-convergence warning are there too.
#include "glue.h"
#include "krein/pcvm.hpp"
#include "krein/parallel.hpp"

#include <atomic>
#include <functional>
#include <memory>

// The interrupt check of EM iterations that run on several threads: only
// the calling thread may ask R for an interrupt; the others stop at their
// next iteration once it has. (The flag is shared by the copies of the
// returned function.)
inline std::function<void()> interrupt_checkpoint() {
  auto interrupted = std::make_shared<std::atomic<bool>>(false);
  return [interrupted]() {
    if (!krein::parallel::on_calling_thread()) {
      if (interrupted->load()) throw std::runtime_error("interrupted");
      return;
    }
    try {
      glue::check_interrupt();
    } catch (...) {
      interrupted->store(true);
      throw;
    }
  };
}

// The E-step a pcvm_control() list names (absent or NULL: `fallback`)
inline krein::pcvm::EStep pcvm_e_step_of(const Rcpp::List& control, krein::pcvm::EStep fallback) {
  using krein::pcvm::EStep;
  return glue::list_choice<EStep>(
      control, "e_step", {{"reference", EStep::reference}, {"exact", EStep::exact}, {"bounded", EStep::bounded}},
      fallback, "PCVM E-step");
}

// EM for one pair of classes from each of its starts. `basis` is the pair's
// kernel (full PCVM) or its landmark columns (Ny-PCVM, `low_rank`); `y_rows`
// labels its rows and `y_columns` its columns (+1 / -1). `starts` is a list
// of starts, each list(weights, bias, latent); they share what depends on
// the basis alone (Ny-PCVM's QR of C; the full PCVM's sketch of K'K, see
// FullBasis::next_start()). `control` is a pcvm_control() list (a plain list
// works too: absent entries take the core's defaults). Each result adds to
// the fit the training error of each iteration and the count of M-steps
// solved by the Hessian's fallback. `width_step`, for the full PCVM only
// (and one start), is an R function(active, weights, bias, latent) called
// after each M-step that returns the kernel for the next iteration. `gram`
// = FALSE selects the full PCVM's path before the Gram matrix K'K
// (Phi_A'Phi_A formed in every iteration), kept for the benchmark and the
// equality tests. The full PCVM's M-step solver comes in `control` too
// (internal entries, see pcvm_solver_options()): `solver` ("auto",
// "cholesky" or "cg"), `cg_max_steps` and `cg_min_active`; each result's
// `solver` reports what its M-steps did (krein::pcvm::SolverStatistics).
// [[Rcpp::export]]
Rcpp::List cpp_pcvm_fit_starts(const Eigen::Map<Eigen::MatrixXd> basis, bool low_rank,
                               const Eigen::Map<Eigen::VectorXd> y_rows, const Eigen::Map<Eigen::VectorXd> y_columns,
                               const Rcpp::List& starts, const Rcpp::List& control,
                               Rcpp::Nullable<Rcpp::Function> width_step, int threads, bool gram = true) {
  krein::pcvm::Control settings;
  settings.max_iter = static_cast<int>(glue::list_number(control, "max_iter", settings.max_iter));
  settings.tol = glue::list_number(control, "tol", settings.tol);
  settings.prune = glue::list_number(control, "prune", settings.prune);
  settings.stop_latent_beyond = glue::list_number(control, "stop_latent_beyond", settings.stop_latent_beyond);
  using krein::pcvm::Convergence;
  using krein::pcvm::EStep;
  settings.convergence = glue::list_choice<Convergence>(
      control, "convergence", {{"latent", Convergence::latent}, {"weights", Convergence::weights}},
      settings.convergence, "PCVM convergence rule");
  settings.e_step = pcvm_e_step_of(control, settings.e_step);
  krein::pcvm::SolverControl solver;
  using krein::pcvm::Solver;
  solver.solver = glue::list_choice<Solver>(
      control, "solver", {{"auto", Solver::automatic}, {"cholesky", Solver::cholesky}, {"cg", Solver::cg}},
      solver.solver, "PCVM solver");
  solver.cg_max_steps = static_cast<int>(glue::list_number(control, "cg_max_steps", solver.cg_max_steps));
  solver.cg_min_active = static_cast<Eigen::Index>(glue::list_number(control, "cg_min_active", 0.0));
  if (width_step.isNotNull() && (low_rank || starts.size() != 1)) {
    throw std::invalid_argument("the width step needs the full PCVM and one start");
  }
  // the start's weights, bias and latent values (NULL: from the weights)
  struct Start {
    Eigen::VectorXd w, latent;
    double b;
    bool has_latent;
  };
  std::vector<Start> parsed;
  for (R_xlen_t k = 0; k < starts.size(); ++k) {
    const Rcpp::List start = starts[k];
    Start one;
    one.w = Rcpp::as<Eigen::VectorXd>(start["weights"]);
    one.b = Rcpp::as<double>(start["bias"]);
    one.has_latent = !Rf_isNull(start["latent"]);
    if (one.has_latent) one.latent = Rcpp::as<Eigen::VectorXd>(start["latent"]);
    parsed.push_back(std::move(one));
  }
  auto result = [](const krein::pcvm::Fit& fit, const krein::pcvm::SolverStatistics& statistics) {
    return Rcpp::List::create(Rcpp::Named("weights") = fit.weights, Rcpp::Named("bias") = fit.bias,
                              Rcpp::Named("iterations") = fit.iterations, Rcpp::Named("converged") = fit.converged,
                              Rcpp::Named("all_pruned") = fit.all_pruned, Rcpp::Named("ran_away") = fit.ran_away,
                              Rcpp::Named("training_errors") = fit.training_errors,
                              Rcpp::Named("hessian_fallbacks") = fit.hessian_fallbacks,
                              Rcpp::Named("solver") = Rcpp::List::create(
                                  Rcpp::Named("cg_iterations") = statistics.cg_iterations,
                                  Rcpp::Named("cg_steps") = statistics.cg_steps,
                                  Rcpp::Named("fallbacks") = statistics.fallbacks,
                                  Rcpp::Named("sketch_rank") = static_cast<double>(statistics.sketch_rank),
                                  Rcpp::Named("gram_size") = static_cast<double>(statistics.gram_size)));
  };
  Rcpp::List out(parsed.size());
  if (low_rank) {
    // Ny-PCVM's basis is read-only once factored, so the starts run on
    // `threads` threads, one start each (every start's iterates are those of
    // its own run, whatever the threads).
    const krein::pcvm::FactoredBasis factored(basis, y_rows, y_columns);
    std::vector<krein::pcvm::Fit> fits(parsed.size());
    const std::function<void()> checkpoint = interrupt_checkpoint();
    krein::parallel::parallel_for(0, static_cast<Eigen::Index>(parsed.size()), threads,
                                  krein::parallel::Schedule::dynamic(1), [&](Eigen::Index k) {
      const Start& start = parsed[static_cast<size_t>(k)];
      fits[static_cast<size_t>(k)] = krein::pcvm::fit(factored, start.w, start.b,
                                                      start.has_latent ? &start.latent : nullptr, settings, {},
                                                      checkpoint);
    });
    for (size_t k = 0; k < parsed.size(); ++k) out[k] = result(fits[k], krein::pcvm::SolverStatistics());
    return out;
  }
  // Below the size where the M-step's CG (and its sketch, shared by the
  // starts) would be used, the starts of the full PCVM share nothing but the
  // kernel: each runs on its own thread with its own basis (its own G_A) and
  // one thread inside, the same iterates as one after the other (every
  // kernel product sums in the same order whatever the threads). On small
  // data, where a fit runs ten starts per pair, this is where threads pay:
  // the M-steps are too small to share.
  const Eigen::Index n = basis.rows();
  const bool independent_starts = width_step.isNull() && parsed.size() > 1 && threads > 1 && gram &&
                                   solver.solver != krein::pcvm::Solver::cg &&
                                   n < (solver.cg_min_active > 0 ? solver.cg_min_active : krein::pcvm::cg_min_active(n));
  if (independent_starts) {
    std::vector<krein::pcvm::Fit> fits(parsed.size());
    std::vector<krein::pcvm::SolverStatistics> statistics(parsed.size());
    const std::function<void()> checkpoint = interrupt_checkpoint();
    krein::parallel::parallel_for(0, static_cast<Eigen::Index>(parsed.size()), threads,
                                  krein::parallel::Schedule::dynamic(1), [&](Eigen::Index k) {
      const Start& start = parsed[static_cast<size_t>(k)];
      const krein::pcvm::FullBasis own(basis, y_rows, 1, true, solver);
      fits[static_cast<size_t>(k)] = krein::pcvm::fit(own, start.w, start.b, start.has_latent ? &start.latent : nullptr,
                                                      settings, {}, checkpoint);
      statistics[static_cast<size_t>(k)] = own.statistics();
    });
    for (size_t k = 0; k < parsed.size(); ++k) out[k] = result(fits[k], statistics[k]);
    return out;
  }
  // with a width step the kernel changes after the first iteration: its G
  // would be used once, and forming it costs what that iteration costs
  krein::pcvm::FullBasis full(basis, y_rows, threads, gram && width_step.isNull(), solver);
  full.keep_sketch(parsed.size() > 1);
  krein::pcvm::AfterStep after_step;
  if (width_step.isNotNull()) {
    after_step = [&full, width = Rcpp::Function(width_step.get())](const std::vector<Eigen::Index>& active,
                                                                    const krein::pcvm::Step& step) {
      full.replace_kernel(Rcpp::as<Eigen::MatrixXd>(
          width(glue::one_based_indices(active), step.weights, step.bias, step.latent)));
    };
  }
  for (size_t k = 0; k < parsed.size(); ++k) {
    if (k > 0) full.next_start();
    const Start& start = parsed[k];
    const krein::pcvm::Fit fit = krein::pcvm::fit(full, start.w, start.b, start.has_latent ? &start.latent : nullptr,
                                                  settings, after_step, glue::check_interrupt);
    out[k] = result(fit, full.statistics());
  }
  return out;
}

// cpp_pcvm_fit_starts() from one start (`start`), its one result
// [[Rcpp::export]]
Rcpp::List cpp_pcvm_fit(const Eigen::Map<Eigen::MatrixXd> basis, bool low_rank,
                        const Eigen::Map<Eigen::VectorXd> y_rows, const Eigen::Map<Eigen::VectorXd> y_columns,
                        const Rcpp::List& start, const Rcpp::List& control,
                        Rcpp::Nullable<Rcpp::Function> width_step, int threads, bool gram = true) {
  const Rcpp::List fits = cpp_pcvm_fit_starts(basis, low_rank, y_rows, y_columns, Rcpp::List::create(start),
                                              control, width_step, threads, gram);
  return fits[0];
}

// A rows x cols block of uniform numbers in [-1, 1) from the fixed stream of
// inst/include/krein/deterministic_uniform.hpp after `state` (given as a
// whole number below 2^53): the further EM starts of pcvm_control(start =
// "fixed", starts > 1), which must not come from R's RNG, so that the default
// fit stays a deterministic function of the data and R's random stream is
// left untouched.
// [[Rcpp::export]]
Eigen::MatrixXd cpp_deterministic_uniform(int rows, int cols, double state) {
  return krein::deterministic_uniform_block(rows, cols, static_cast<std::uint64_t>(state));
}

// The E-step's expected latent values of the core (krein::pcvm::
// expected_latent()), for the tests against the formulas in R.
// [[Rcpp::export]]
Eigen::VectorXd cpp_pcvm_expected_latent(const Eigen::Map<Eigen::VectorXd> f, const Eigen::Map<Eigen::VectorXd> y,
                                         const Rcpp::List& control) {
  if (f.size() != y.size()) throw std::invalid_argument("f and y differ in length");
  return krein::pcvm::expected_latent(f, y, pcvm_e_step_of(control, krein::pcvm::EStep::exact));
}

// Ny-PCVM over chunks: R runs the loop over the chunks and the EM
// iterations; the core computes each block's moments and each M-step.

// The moments of one block of rows (krein::pcvm::pass_moments()), one list
// (g, latent_sum, errors, change, size) per pair of `tasks`. `C` holds the
// block's kernel values against every landmark, `extra` the rows' class
// codes in its first column and, in the first pass, their start latent
// values in the others. A task is list(pair = two class codes, columns =
// the pair's landmark columns (1-based), current = list(a, b), previous =
// NULL or list(a, b), start = NULL or the two columns of `extra` (1-based)
// with the start latent values of the rows of the first and the second
// class); `control` names the E-step.
// [[Rcpp::export]]
Rcpp::List cpp_pcvm_pass_moments(const Eigen::Map<Eigen::MatrixXd> C, const Eigen::Map<Eigen::MatrixXd> extra,
                                 const Rcpp::List& tasks, const Rcpp::List& control) {
  if (extra.rows() != C.rows() || extra.cols() < 1) throw std::invalid_argument("one row of `extra` per row of C");
  const krein::pcvm::EStep kind = pcvm_e_step_of(control, krein::pcvm::EStep::exact);
  std::vector<int> codes(static_cast<size_t>(C.rows()));
  for (Eigen::Index i = 0; i < C.rows(); ++i) codes[static_cast<size_t>(i)] = static_cast<int>(extra(i, 0));
  Rcpp::List out(tasks.size());
  for (R_xlen_t t = 0; t < tasks.size(); ++t) {
    const Rcpp::List task = tasks[t];
    krein::pcvm::PassTask pass;
    const Rcpp::IntegerVector pair = task["pair"];
    pass.first_class = pair[0];
    pass.second_class = pair[1];
    const Rcpp::IntegerVector columns = task["columns"];
    for (const int column : columns) {
      if (column < 1 || column > C.cols()) throw std::invalid_argument("a task's column is out of range");
      pass.columns.push_back(column - 1);
    }
    const Rcpp::List current = task["current"];
    pass.coefficients = Rcpp::as<Eigen::VectorXd>(current["a"]);
    pass.bias = Rcpp::as<double>(current["b"]);
    if (pass.coefficients.size() != static_cast<Eigen::Index>(pass.columns.size())) {
      throw std::invalid_argument("one coefficient per column of a task");
    }
    if (task.containsElementNamed("previous") && !Rf_isNull(task["previous"])) {
      const Rcpp::List previous = task["previous"];
      pass.has_previous = true;
      pass.previous_coefficients = Rcpp::as<Eigen::VectorXd>(previous["a"]);
      pass.previous_bias = Rcpp::as<double>(previous["b"]);
    }
    if (task.containsElementNamed("start") && !Rf_isNull(task["start"])) {
      const Rcpp::IntegerVector start = task["start"];
      if (start[0] < 2 || start[1] < 2 || start[0] > extra.cols() || start[1] > extra.cols()) {
        throw std::invalid_argument("a task's start column is out of range");
      }
      pass.start_first = start[0] - 1;
      pass.start_second = start[1] - 1;
    }
    const krein::pcvm::PassMoments moments = krein::pcvm::pass_moments(C, codes, extra, pass, kind);
    out[t] = Rcpp::List::create(Rcpp::Named("g") = moments.g, Rcpp::Named("latent_sum") = moments.latent_sum,
                                Rcpp::Named("errors") = moments.errors, Rcpp::Named("change") = moments.change,
                                Rcpp::Named("size") = moments.size);
  }
  return out;
}

// One M-step of a pair from a pass's moments summed over the chunks
// (krein::pcvm::step_moments(), then prune_weights()): `R` with R'R = C'C
// over the pair's rows and landmark columns, `column_signs` and
// `column_sums` (1'C) of those columns, the weights over them (active where
// positive) and the bias of the iterate the pass ran on, the pass's `g` and
// `latent_sum`, the pair's row count `n`. Returns the new weights over the
// columns (pruned), the bias, the largest move of a weight and whether the
// Hessian's solve needed its fallback.
// [[Rcpp::export]]
Rcpp::List cpp_pcvm_moment_step(const Eigen::Map<Eigen::MatrixXd> R, const Eigen::Map<Eigen::VectorXd> column_signs,
                                const Eigen::Map<Eigen::VectorXd> column_sums, const Eigen::Map<Eigen::VectorXd> weights,
                                double bias, const Eigen::Map<Eigen::VectorXd> g, double latent_sum, double n,
                                double prune) {
  const Eigen::Index m = R.cols();
  if (column_signs.size() != m || column_sums.size() != m || weights.size() != m || g.size() != m) {
    throw std::invalid_argument("one sign, sum, weight and moment per column of R");
  }
  std::vector<Eigen::Index> active;
  for (Eigen::Index j = 0; j < m; ++j) {
    if (weights[j] > 0) active.push_back(j);
  }
  Eigen::VectorXd w_active(static_cast<Eigen::Index>(active.size()));
  for (size_t k = 0; k < active.size(); ++k) w_active[static_cast<Eigen::Index>(k)] = weights[active[k]];
  const krein::pcvm::Step step = krein::pcvm::step_moments(R, column_signs, column_sums, active, w_active, bias, g,
                                                           latent_sum, static_cast<Eigen::Index>(n));
  const krein::pcvm::Pruned pruned = krein::pcvm::prune_weights(weights, active, step.weights, prune);
  return Rcpp::List::create(Rcpp::Named("weights") = pruned.weights, Rcpp::Named("bias") = step.bias,
                            Rcpp::Named("change") = pruned.change,
                            Rcpp::Named("hessian_fallback") = step.hessian_fallback);
}
