#' krein: kernel discriminant analysis for positive definite and indefinite kernels
#'
#' krein implements kernel discriminant analysis for positive definite and
#' indefinite (Krein space) kernels, from five papers:
#'
#' * Pekalska & Haasdonk, *Kernel quadratic discriminant analysis for positive
#'   definite and indefinite kernels* (TPAMI 2009);
#' * Haasdonk & Pekalska, *Classification with kernel Mahalanobis distance
#'   classifiers* (2008);
#' * Schleif, Gisbrecht & Tino, *Supervised low rank indefinite kernel
#'   approximation using minimum enclosing balls* (Neurocomputing 2018);
#' * Huang, Hwang & Lin, *Kernel Fisher's discriminant analysis in Gaussian
#'   RKHS* (2005);
#' * Hidaka & Kurita, *Optimum nonlinear discriminant analysis and discriminant
#'   kernel support vector machine* (IEICE 2016).
#'
#' Models so far: [kqd()] (kernel quadratic discriminants, positive definite
#' and indefinite), [kernel_mahalanobis()] and [kmdc()].
#'
#' The foundation the models stand on: the kernels
#' ([kernel_rbf()] and friends, evaluated by the multi-threaded
#' [kernel_matrix()]), precomputed kernels ([precomputed_kernel()]),
#' dissimilarity data ([kernel_from_dissimilarity()]), indefiniteness
#' diagnostics ([indefiniteness()]) and the papers' data generators
#' ([checkerboard()], [sine_populations()], [xor4()], [gaussian_mixture_2d()],
#' [banana()], [ball_dissimilarities()]).
#'
#' @section Options:
#' * `krein.threads`: the number of threads the kernel engine uses when a
#'   function's `threads` argument is `NULL`; the default, 0, uses every core.
#'
#' @keywords internal
#' @useDynLib krein, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importFrom MASS lda qda
#' @importFrom utils head
#' @importFrom grDevices hcl.colors
"_PACKAGE"
