// Glue for PCVM EM (inst/include/krein/pcvm.hpp): the start is drawn in R,
// validation and the non-convergence warning are there too.
#include "glue.h"
#include "krein/pcvm.hpp"

// EM for one pair of classes. `basis` is the pair's kernel (full PCVM) or its
// landmark columns (Ny-PCVM, `low_rank`); `y_rows` labels its rows and
// `y_columns` its columns (+1 / -1). `start` is list(weights, bias, latent),
// `control` a pcvm_control() list (a plain list works too: absent entries
// take the core's defaults). The result adds to the fit the training error of
// each iteration and the count of M-steps solved by the Hessian's fallback. `width_step`, for the full PCVM only, is
// an R function(active, weights, bias, latent) called after each M-step that
// returns the kernel for the next iteration. `gram` = FALSE selects the
// full PCVM's path before the Gram matrix K'K (Phi_A'Phi_A formed in
// every iteration), kept for the benchmark and the equality tests. The
// full PCVM's M-step solver comes in `control` too (internal entries, see
// pcvm_solver_options()): `solver` ("auto", "cholesky" or "cg"),
// `cg_max_steps` and `cg_min_active`; the result's `solver` reports what
// the M-steps did (krein::pcvm::SolverStatistics).
// [[Rcpp::export]]
Rcpp::List cpp_pcvm_fit(const Eigen::Map<Eigen::MatrixXd> basis, bool low_rank,
                        const Eigen::Map<Eigen::VectorXd> y_rows, const Eigen::Map<Eigen::VectorXd> y_columns,
                        const Rcpp::List& start, const Rcpp::List& control,
                        Rcpp::Nullable<Rcpp::Function> width_step, int threads, bool gram = true) {
  krein::pcvm::Control settings;
  settings.max_iter = static_cast<int>(glue::list_number(control, "max_iter", settings.max_iter));
  settings.tol = glue::list_number(control, "tol", settings.tol);
  settings.prune = glue::list_number(control, "prune", settings.prune);
  using krein::pcvm::Convergence;
  using krein::pcvm::EStep;
  settings.convergence = glue::list_choice<Convergence>(
      control, "convergence", {{"latent", Convergence::latent}, {"weights", Convergence::weights}},
      settings.convergence, "PCVM convergence rule");
  settings.e_step = glue::list_choice<EStep>(
      control, "e_step", {{"reference", EStep::reference}, {"exact", EStep::exact}, {"bounded", EStep::bounded}},
      settings.e_step, "PCVM E-step");
  const Eigen::VectorXd w = Rcpp::as<Eigen::VectorXd>(start["weights"]);
  const double b = Rcpp::as<double>(start["bias"]);
  Eigen::VectorXd latent;
  if (!Rf_isNull(start["latent"])) latent = Rcpp::as<Eigen::VectorXd>(start["latent"]);
  const Eigen::VectorXd* latent_ptr = Rf_isNull(start["latent"]) ? nullptr : &latent;
  krein::pcvm::SolverControl solver;
  using krein::pcvm::Solver;
  solver.solver = glue::list_choice<Solver>(
      control, "solver", {{"auto", Solver::automatic}, {"cholesky", Solver::cholesky}, {"cg", Solver::cg}},
      solver.solver, "PCVM solver");
  solver.cg_max_steps = static_cast<int>(glue::list_number(control, "cg_max_steps", solver.cg_max_steps));
  solver.cg_min_active = static_cast<Eigen::Index>(glue::list_number(control, "cg_min_active", 0.0));
  krein::pcvm::Fit fit;
  krein::pcvm::SolverStatistics statistics;
  if (low_rank) {
    if (width_step.isNotNull()) throw std::invalid_argument("the width step needs the full PCVM");
    const krein::pcvm::FactoredBasis factored(basis, y_rows, y_columns);
    fit = krein::pcvm::fit(factored, w, b, latent_ptr, settings, {}, glue::check_interrupt);
  } else {
    // with a width step the kernel changes after the first iteration: its G
    // would be used once, and forming it costs what that iteration costs
    krein::pcvm::FullBasis full(basis, y_rows, threads, gram && width_step.isNull(), solver);
    krein::pcvm::AfterStep after_step;
    if (width_step.isNotNull()) {
      after_step = [&full, width = Rcpp::Function(width_step.get())](const std::vector<Eigen::Index>& active,
                                                                      const krein::pcvm::Step& step) {
        full.replace_kernel(Rcpp::as<Eigen::MatrixXd>(
            width(glue::one_based_indices(active), step.weights, step.bias, step.latent)));
      };
    }
    fit = krein::pcvm::fit(full, w, b, latent_ptr, settings, after_step, glue::check_interrupt);
    statistics = full.statistics();
  }
  return Rcpp::List::create(Rcpp::Named("weights") = fit.weights, Rcpp::Named("bias") = fit.bias,
                            Rcpp::Named("iterations") = fit.iterations, Rcpp::Named("converged") = fit.converged,
                            Rcpp::Named("all_pruned") = fit.all_pruned,
                            Rcpp::Named("training_errors") = fit.training_errors,
                            Rcpp::Named("hessian_fallbacks") = fit.hessian_fallbacks,
                            Rcpp::Named("solver") = Rcpp::List::create(
                                Rcpp::Named("cg_iterations") = statistics.cg_iterations,
                                Rcpp::Named("cg_steps") = statistics.cg_steps,
                                Rcpp::Named("fallbacks") = statistics.fallbacks,
                                Rcpp::Named("sketch_rank") = static_cast<double>(statistics.sketch_rank),
                                Rcpp::Named("gram_size") = static_cast<double>(statistics.gram_size)));
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
