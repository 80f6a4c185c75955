# The papers krein implements. Code comments, tests and the reproduction
# scripts cite them in a short form, "paper 000, eq. (18)"; the numbers map to
# the references of ?krein-package (and of citation("krein")):
#   paper 000: Pekalska & Haasdonk (2009), Kernel discriminant analysis for
#              positive definite and indefinite kernels, IEEE TPAMI,
#              doi:10.1109/TPAMI.2008.290 (section, equation and table numbers
#              of its 2008 preprint, Kernel quadratic discriminant analysis for
#              positive definite and indefinite kernels, Muenster 06/08-N)
#   paper 001: Haasdonk & Pekalska (2010), Classification with kernel
#              Mahalanobis distance classifiers, doi:10.1007/978-3-642-01044-6_32
#   paper 002: Schleif, Gisbrecht & Tino (2018), Supervised low rank indefinite
#              kernel approximation using minimum enclosing balls,
#              Neurocomputing, doi:10.1016/j.neucom.2018.08.057
#   paper 003: Huang, Hwang & Lin (2005), Kernel Fisher's discriminant analysis
#              in Gaussian reproducing kernel Hilbert space, Academia Sinica
#   paper 004: Hidaka & Kurita (2016), Optimum nonlinear discriminant analysis
#              and discriminant kernel support vector machine, IEICE Trans. Inf.
#              & Syst., doi:10.1587/transinf.2016EDP7081

#' krein: kernel discriminant analysis for positive definite and indefinite kernels
#'
#' krein implements kernel discriminant analysis for positive definite and
#' indefinite (Krein space) kernels, from five papers (see References; the
#' vignettes and the code call them "paper 000" to "paper 004", in the order
#' listed there):
#'
#' * Pekalska and Haasdonk (2009): kernel quadratic discriminants, the
#'   indefinite kernel Fisher discriminant, indefiniteness indices and the
#'   invariant checkerboard;
#' * Haasdonk and Pekalska (2010): kernel Mahalanobis distances and their
#'   classifiers;
#' * Schleif, Gisbrecht and Tino (2018): Nystroem approximation of indefinite
#'   kernels on minimum-enclosing-ball landmarks, Ny-iKFD and Ny-PCVM, built on
#'   the probabilistic classification vector machine of Chen, Tino and Yao
#'   (2009);
#' * Huang, Hwang and Lin (2005): kernel Fisher linear and quadratic
#'   discriminants on kernel data;
#' * Hidaka and Kurita (2016): optimum nonlinear discriminant analysis and
#'   discriminant kernels.
#'
#' @section Models:
#' Nine model families, all with `predict()`, `print()` and `plot()` methods
#' and usable with [tune_krein()]:
#'
#' * [kqd()]: kernel quadratic discriminants (IC+, IC-, RC+, RC-, FK+, FK-),
#'   positive definite and indefinite;
#' * [kmdc()]: classifiers in the space of kernel Mahalanobis distances
#'   ([kernel_mahalanobis()]);
#' * [ikfd()]: the indefinite kernel Fisher discriminant, full or Nystroem
#'   low-rank (Ny-iKFD);
#' * [pcvm()]: the probabilistic classification vector machine, full or
#'   Nystroem (Ny-PCVM);
#' * [kfda()]: kernel Fisher linear and quadratic discriminants on kernel data;
#' * [onda()]: optimum nonlinear discriminant analysis;
#' * [iknn()], [ikpca_qd()] and [isvm()]: the reference classifiers of
#'   Pekalska and Haasdonk (2009).
#'
#' @section Helpers:
#' * Kernels: [kernel_rbf()] and the other constructors of [kernels],
#'   [kernel_invariant()], [kernel_discriminant()], evaluated by the
#'   multi-threaded [kernel_matrix()]; [median_gamma()] for the Gaussian width.
#' * Kernel and dissimilarity data: [precomputed_kernel()],
#'   [kernel_from_dissimilarity()].
#' * Diagnostics: [indefiniteness()], [kernel_normality()],
#'   [plot_kernel_matrix()], [plot_kernel_map()].
#' * Low rank: [nystrom()], [nystrom_error()], [select_landmarks()].
#' * Model selection: [tune_krein()] (cross-validation on any future backend)
#'   and [caret_model()].
#' * The papers' data generators: [checkerboard()], [sine_populations()],
#'   [xor4()], [gaussian_mixture_2d()], [banana()], [ball_dissimilarities()].
#'
#' @section Options:
#' krein reads four options, and no other option changes what it computes:
#'
#' | Option | Default | What it sets |
#' |---|---|---|
#' | `krein.threads` | 0 | The threads of the kernel engine and the C++ core when a function's `threads` argument is `NULL`: a whole number >= 0, where 0 uses every core (or `OMP_NUM_THREADS` where set) and values above the number of processors are capped at it. Under a package check that limits cores (the environment variable `_R_CHECK_LIMIT_CORES_` set, as `R CMD check --as-cran` does) the default is 2. |
#' | `krein.memory_limit` | `NULL` | The memory, in bytes, a fit may hold. Before a full form (see [krein_forms]) allocates its first n x n matrix, krein estimates its peak (a measured number of n x n matrices of doubles per model). A model left to choose its form (`landmarks = "auto"`, the default) then takes its Nystroem form; one asked for the full form stops with the estimate, the limit and what to do. `NULL` takes 80% of the memory the system reports available (Linux's MemAvailable); where the system does not report it, only a limit you set applies. |
#' | `krein.full_max_rows` | `NULL` | The most training rows at which a model left to choose its form (`landmarks = "auto"`, [kfda()]'s `reduce = "auto"`) fits its full form: a number >= 0 that lowers every model's own limit (see [krein_forms]); 0 takes the Nystroem form at every size. `NULL` keeps the models' limits. |
#' | `krein.block_rows` | `NULL` | The rows of a block of the landmark kernel in the Nystroem fits ([ikfd()], [kqd()] with `landmarks`) and of the kernel against the references in [iknn()]'s fit and prediction: by default about 2 MB of kernel values per thread for the coordinate kernels and 32 MB for the others (see "Nystroem low rank" in [ikfd()]). Smaller blocks use less memory. |
#'
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (krein cites sections, equations and tables
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#'
#' Haasdonk, B. and Pekalska, E. (2010). Classification with kernel
#' Mahalanobis distance classifiers. In *Advances in Data Analysis, Data
#' Handling and Business Intelligence*, Studies in Classification, Data
#' Analysis, and Knowledge Organization, Springer, 351-361.
#' \doi{10.1007/978-3-642-01044-6_32}.
#'
#' Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#' indefinite kernel approximation using minimum enclosing balls.
#' *Neurocomputing*, 318, 213-226. \doi{10.1016/j.neucom.2018.08.057}.
#'
#' Chen, H., Tino, P. and Yao, X. (2009). Probabilistic classification
#' vector machines. *IEEE Transactions on Neural Networks*, 20(6), 901-914.
#' \doi{10.1109/TNN.2009.2014161}.
#'
#' Huang, S.-Y., Hwang, C.-R. and Lin, M.-H. (2005). Kernel Fisher's
#' discriminant analysis in Gaussian reproducing kernel Hilbert space.
#' Manuscript, Institute of Statistical Science, Academia Sinica, Taipei.
#'
#' Hidaka, A. and Kurita, T. (2016). Optimum nonlinear discriminant analysis
#' and discriminant kernel support vector machine. *IEICE Transactions on
#' Information and Systems*, E99.D(11), 2734-2744.
#' \doi{10.1587/transinf.2016EDP7081}.
#'
#' `citation("krein")` gives these entries in BibTeX form. The help page of
#' each function cites the further work it builds on (for example Mika et al.
#' 1999 in [ikfd()] and [kfda()], Williams and Seeger 2001 in [nystrom()],
#' Otsu 1975 and 1982 in [onda()]).
#'
#' @keywords internal
#' @useDynLib krein, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importFrom MASS lda qda
#' @importFrom utils head
#' @importFrom stats predict fitted nobs coef
#' @importFrom graphics plot
#' @importFrom grDevices hcl.colors
"_PACKAGE"

.onLoad <- function(libname, pkgname) {
  register_models()
  # the tidymodels engines (R/tidymodels.R), now or when parsnip is loaded
  register_parsnip_hook()
  # under a check that limits cores, OpenMP's default (what a thread count of
  # 0 and Eigen's products use) is capped too
  cap <- check_thread_cap()
  if (!is.null(cap)) cpp_set_omp_threads(cap)
}
