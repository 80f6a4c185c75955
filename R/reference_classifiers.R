# The help page the reference classifiers of Pekalska and Haasdonk share:
# iknn() (R/iknn.R), ikpca_qd() (R/ikpca_qd.R) and isvm() (R/isvm.R). Its
# `@order 1` makes this block the page's first (its name and alias), ahead of
# the methods' blocks in the files that sort before this one.

#' Reference classifiers of Pekalska and Haasdonk: IKNN, IKPCA-QD and ISVM
#'
#' The classifiers Pekalska & Haasdonk compare their kernel quadratic
#' discriminants with (Pekalska and Haasdonk 2009, Secs. IV-E and V, Table
#' III), for positive definite and indefinite kernels alike, with
#' krein's kernels and interfaces so that they can be tuned and compared with
#' [tune_krein()].
#'
#' * `iknn()`: \eqn{k} nearest neighbours in the kernel-induced distance
#'   \eqn{d^2(x, x') = k(x, x) - 2 k(x, x') + k(x', x')} (Sec. IV-E), valid
#'   for indefinite kernels, where \eqn{d^2} may be negative: neighbours are
#'   still the points with the smallest \eqn{d^2}. For a Gaussian kernel it
#'   is ordinary \eqn{k}-NN in the input space (\eqn{d^2 = 2 - 2e^{-\gamma
#'   \|x - x'\|^2}} is increasing in \eqn{\|x - x'\|}). The class is the
#'   majority vote; ties go to the tied class with the nearest neighbour.
#'   Equal distances are ordered by training row (the earlier row is the
#'   nearer), as [base::order()] orders them.
#'
#'   The full form (`landmarks = NULL`) is one pass over the training rows
#'   in blocks, each block's kernel against all training points, its
#'   squared distances and each row's 26 nearest (a bounded partial sort in
#'   C++): \eqn{n^2} kernel evaluations, and in memory one block (about 32
#'   MB) with no \eqn{n \times n} matrix (on 20,000 rows of
#'   [sine_populations()], 7.7 s on two cores with the prediction of 1,000
#'   rows). Left to choose (`landmarks = "auto"`, the default), `iknn()`
#'   fits the full form up to 70,000 training rows and beyond the prototype
#'   form on \eqn{m = 5 \times 10^9 / n} random prototypes (5,000 at
#'   \eqn{10^6} rows): both evaluate at most \eqn{5 \times 10^9} pairs,
#'   about 100 s on two cores for data of a few inputs (see [krein_forms]).
#'
#'   With `landmarks`, the neighbours are found among prototypes instead of
#'   all training points: the landmark points with their class labels
#'   (`landmarks = "random"` with `m`: \eqn{m} training rows drawn at
#'   random within the classes, in proportion to their sizes; or row
#'   indices, a [select_landmarks()] result, `"meb"`, or `"kmeans"`, whose
#'   centres take the majority class of their clusters). This is \eqn{k}-NN
#'   with a random subsample of the training data as its reference set: the
#'   error of the nearest-neighbour rule converges, as the reference set
#'   grows, to its limit (at most twice the Bayes error for \eqn{k = 1},
#'   Cover and Hart 1967; the Bayes error itself for \eqn{k \to \infty},
#'   \eqn{k/m \to 0}, Stone 1977), so a few thousand stratified prototypes
#'   lose little where the classes are not too finely interleaved, and the
#'   stratification keeps every class among them. On 3,000 training points
#'   of [sine_populations()], [checkerboard()] (`size = 3`) and [banana()]
#'   (three draws each, test sets of 3,000), the full form's test errors of
#'   3.9%, 2.2% and 7.0% became 5.2%, 4.3% and 7.3% with 1,000 random
#'   prototypes and 8.6%, 7.4% and 7.3% with 300; on 100,000 points of
#'   [sine_populations()], 2,000 prototypes gave 4.1% in a fit of 9 s on
#'   two cores. The fit is one pass over
#'   the training rows in blocks: each row's kernel against the
#'   \eqn{m} prototypes, its squared distances to them and its 26 nearest
#'   (a bounded partial sort in C++): \eqn{O(nm)} kernel evaluations, and
#'   in memory one block of rows against the prototypes (about 32 MB) and
#'   the classes of each row's 25 nearest prototypes; no \eqn{n \times n}
#'   matrix is formed. `k` is chosen by the leave-one-out error of the
#'   training points as in the full form: a training point that is itself a
#'   prototype is left out of its own neighbours (the other training points
#'   are not among the prototypes, so held out already). Prediction needs
#'   the new points' kernel against the \eqn{m} prototypes only. With
#'   every training row as a landmark (`landmarks = seq_len(n)`) the fit is
#'   the full form's. The fit keeps the prototypes (`landmarks`), not the
#'   training points.
#' * `ikpca_qd()`: indefinite kernel PCA (Appendix I-E): the centred kernel
#'   \eqn{\tilde K = H K H = Q \Lambda Q'}, components by decreasing
#'   \eqn{|\lambda|} until they hold the share `pvar` of \eqn{\sum |\lambda|},
#'   the map \eqn{\psi(x) = |\Lambda|^{-1/2} Q' \tilde k_x}; then Gaussian
#'   quadratic discriminant analysis there with the class proportions as
#'   priors and maximum-likelihood class covariances \eqn{C_j}, first pooled
#'   as in the regularised discriminant analysis of Friedman (1989), \eqn{C_j'
#'   = (1 - \lambda) C_j + \lambda C} with the pooled within-class covariance
#'   \eqn{C = \sum_j n_j C_j / n} and \eqn{\lambda} = `pooling`, then shrunk
#'   towards a multiple of the identity, \eqn{S_j = (1 - \alpha) C_j' +
#'   \alpha (\mathrm{tr} C_j' / p) I} with \eqn{\alpha} = `shrinkage` (the
#'   regularisation of PRTools' `qdc`, which the paper used). The default
#'   `pooling = NULL` takes \eqn{\lambda} from the class sizes and the
#'   number of components \eqn{p}: \eqn{\lambda = \min(1, \max(0, 2 -
#'   n_{\min} / p))} for the smallest class size \eqn{n_{\min}}. So every
#'   class keeps its own covariance (the paper's QDA) while the smallest has
#'   at least twice as many points as components; a class with no more
#'   points than components, whose own covariance is singular, makes every
#'   class take the pooled one (a Gaussian linear discriminant in the kernel
#'   PCA space); in between the weight grows linearly. Pooling all classes,
#'   not only the small ones, keeps their covariances comparable: on Glass
#'   (mlbench; classes of 7 to 51 training points, 14 components) pooling
#'   only the classes smaller than \eqn{p} gives 52% test accuracy, pooling
#'   all 64%, the paper's QDA 38%. `pooling = 0` is the paper's
#'   classifier. A covariance that is still
#'   singular (its reciprocal condition number below the machine epsilon: a
#'   class with no more points than components, `pooling = 0` and `shrinkage
#'   = 0`, or one whose points coincide in the kernel PCA space) is an error of class
#'   `krein_singular_covariance`. The default `pvar = NULL` chooses the share
#'   among 0.8 (the paper's), 0.9, 0.95, 0.99 and 0.999 by the least 5-fold
#'   cross-validated error (fewer folds when a class has fewer points; the
#'   folds stratified and dealt in turn, as [kqd()]'s; ties to the smaller
#'   share): the kernel PCA needs no labels, so its one eigendecomposition of
#'   all training points serves every fold and candidate, and only the class
#'   Gaussians are refitted, each candidate's scores being the first columns
#'   of the largest's. With few points per class the paper's 0.8 can leave
#'   out the low-variance directions that separate the classes: on
#'   MASS::crabs (four classes of about 35 training points, 5 inputs) 0.8
#'   keeps 3 or 4 components and gives 35-52% test accuracy over three
#'   70/30 splits; the chosen 0.99 or 0.999 gives 83-98% over five. `fit$pvar_selection` keeps every candidate's
#'   error. The number of components, the centring and the map are fixed at
#'   the fit and reused for new points. With `landmarks`, the Nystroem form
#'   (see below).
#' * `isvm()`: a support vector machine on the precomputed (possibly
#'   indefinite) kernel matrix through [kernlab::ksvm()] (`kernel =
#'   "matrix"`, one-vs-one), without kernlab's shrinking heuristic (which
#'   stalls far from the optimum at large `C` on precomputed kernels); needs
#'   the kernlab package. Its class probabilities are Platt's (1999) as
#'   libsvm computes them, fitted by krein rather than by kernlab (whose
#'   inner cross-validation refits with shrinking on, and gives flat
#'   sigmoids or errors at large `C`): for each pair of classes,
#'   cross-validated decision values of the pair's points and the sigmoid
#'   \eqn{P(j \mid f) = 1 / (1 + e^{A f + B})} fitted to them with Platt's
#'   prior-corrected targets by the Newton method of Lin, Lin and Weng
#'   (2007). With the default `C = NULL` the decision values are those of
#'   the cost's own cross-validation (below) at the chosen cost: each fold's
#'   pairwise SVM, fitted on the other folds, gives the pair's held-out
#'   points theirs, so the fit makes no second cross-validation and draws no
#'   random numbers. With a given `C`, a 5-fold cross-validation within each
#'   pair gives them, as libsvm's does (folds from R's random number
#'   generator, so [set.seed()] reproduces a fit; SVMs without shrinking).
#'   A sigmoid that does not converge gives a warning of class
#'   `krein_convergence_warning`. With `landmarks`, `isvm()` fits its
#'   Nystroem form instead (see isvm()'s Nystroem form).
#'
#' @section ikpca_qd()'s Nystroem form:
#' With `landmarks`, `ikpca_qd()` is the kernel PCA of the Nystroem
#' approximation \eqn{\hat K = C W^{+} C'} of the training kernel (Williams
#' and Seeger 2001; for indefinite kernels Schleif, Gisbrecht and Tino 2018;
#' see [nystrom()]), \eqn{C = k(X, L)} the kernel between the \eqn{n}
#' training points and the \eqn{m} landmarks \eqn{L}, \eqn{W = k(L, L)},
#' followed by the same Gaussian discriminants. With \eqn{W = V \Lambda_W V'}
#' (the \eqn{r} eigenvalues above \eqn{\sqrt{\epsilon}} times the largest in
#' absolute value), the features \eqn{\phi(x) = |\Lambda_W|^{-1/2} V' k(L, x)}
#' and the signs \eqn{J = \mathrm{sign}(\Lambda_W)} give \eqn{\hat K = \Phi J
#' \Phi'} (\eqn{\Phi}: the \eqn{n \times r} features of the training points,
#' as in [kqd()]'s Ny-KQD). Its centred form is \eqn{H \hat K H = \tilde\Phi J
#' \tilde\Phi'} with \eqn{\tilde\Phi = \Phi - 1 \mu'} (\eqn{\mu} the mean
#' feature), whose nonzero eigenpairs follow from \eqn{r \times r} matrices:
#' with the Gram matrix \eqn{\tilde\Phi'\tilde\Phi = P D P'} (its positive
#' part), \eqn{\tilde\Phi = Q R} with \eqn{R = D^{1/2} P'} and \eqn{Q}
#' orthonormal, and \eqn{R J R' = U_R \Lambda U_R'}, so \eqn{H \hat K H = U
#' \Lambda U'} with \eqn{U = Q U_R}: at most \eqn{r} components, ordered by
#' \eqn{|\lambda|} as in the full form. The map of a point is the full form's
#' applied to \eqn{\hat K}, \eqn{\psi(x) = |\Lambda|^{-1/2} U' H (\hat k_x -
#' \hat K 1 / n)} with \eqn{\hat k_x = \Phi J \phi(x)}, which is \eqn{\psi(x) =
#' B' (\phi(x) - \mu)} with \eqn{B = J R' U_R |\Lambda|^{-1/2}}: the fit keeps
#' the \eqn{m \times p} `projection` \eqn{A = V |\Lambda_W|^{-1/2} B_p} over
#' the landmark kernel and the `offset` \eqn{B_p' \mu}, and maps a new point
#' by \eqn{\psi(x) = A' k(L, x) - B_p' \mu} from the landmarks alone. When
#' \eqn{\hat K = K} (every training point a landmark and \eqn{K} without
#' eigenvalues below the cutoff) the eigenvalues, shares, scores (up to the
#' sign of each component, which the Gaussian discriminants ignore) and so
#' the classifier are the full form's. `pvar = NULL` is chosen by the same
#' cross-validation (the same candidates and folds), each fold's kernel PCA
#' being that of the Nystroem kernel of its training rows (the \eqn{r \times
#' r} Gram of their features, centred at their own mean) and its held-out
#' rows mapped as new points. Cost: \eqn{O(n m r)} for the features (one
#' pass over the landmark kernel of the training rows, in blocks: the
#' \eqn{n \times m} kernel is never held), \eqn{O(n r^2)} per eigenproblem
#' (the fit and each fold); memory \eqn{O(n r)}, never \eqn{n \times n}.
#'
#' @section isvm()'s defaults:
#' Without a `kernel`, `isvm()` takes the Gaussian kernel of width
#' \eqn{\gamma = 1/p} for \eqn{p} input columns (centred and scaled with
#' `scale = TRUE`), `kernel_rbf(heuristic = "dimension")`, the default of
#' libsvm and [e1071::svm()] (and of [krein_svm()]); the other krein models take
#' the median heuristic, `kernel_rbf()`. Without `C`, it takes the cost of the lowest
#' 5-fold cross-validated error among \eqn{C = 0.1, 1, 10, 100} (the
#' smallest of tied costs), from the one training kernel matrix: the folds
#' are stratified and dealt in turn, as [kqd()]'s (the points of each class
#' in data order, the classes one after another, go to folds 1, 2, ..., 5,
#' 1, 2, ...), so the
#' random number generator is untouched and the choice is a function of the
#' data; `fit$cost_cv` holds the errors, shown by [summary()][summary.krein_model()].
#' The search fits 20 SVMs on 80% of the points -- each pair's two-class
#' dual, the problem kernlab solves, solved by krein's core to kernlab's
#' tolerance with libsvm's algorithm (Fan, Chen and Lin 2005), without
#' kernlab's per-call cost of several milliseconds, most of a small fit --
#' and its held-out decision values at the chosen cost serve the Platt
#' model, which then costs no further fits (on mlbench's Glass, 15 pairs of classes, the separate Platt
#' cross-validation was 75 more SVMs, 60% of the default fit's time). `kernel = kernel_rbf()` with
#' `C = 1` leaves many points inside the margin: on mlbench's Vowel, 685 of
#' 693 points are support vectors and the test accuracy is 0.626, against
#' 0.751 for `e1071::svm()` with its defaults and 0.980 with `isvm()`'s
#' (see NEWS for all the benchmark sets); `isvm(..., kernel = kernel_rbf(),
#' C = 1)` gives that fit. The paper reproductions tune `C` and pass their
#' kernels.
#'
#' @section isvm()'s Nystroem form (`landmarks`):
#' For many training points: with `landmarks` (not `NULL`), `isvm()`
#' replaces the \eqn{n \times n} kernel matrix by its Nystroem approximation
#' \eqn{\hat K = K_{nm} K_{mm}^+ K_{nm}^\top} on \eqn{m} landmarks
#' (Williams and Seeger 2001), chosen by [select_landmarks()] (the minimum
#' enclosing balls of Schleif, Gisbrecht and Tino 2018 with `"meb"`) or
#' given, and fits exactly what [krein_svm()] fits with the same
#' `landmarks` (its section "Nystroem Krein SVM"), with the same
#' predictions, probabilities, print and summary: one linear SVM per pair of
#' classes on the Nystroem features by LIBLINEAR (package LiblineaR, which
#' must be installed; kernlab is not used), `C = NULL` chosen by the same
#' cross-validation as the full form's (on a stratified subsample of 10,000
#' points when there are more), and the Platt probabilities fitted to its
#' held-out decision values. Prediction needs the landmarks only.
#'
#' With a positive definite kernel (the default Gaussian) the landmark
#' kernel \eqn{K_{mm}} and so \eqn{\hat K} are positive semidefinite,
#' \eqn{|\hat K| = \hat K}, and the Krein SVM's flip changes nothing: the
#' fit is the C-SVM on the Nystroem approximation of the kernel, up to what
#' LIBLINEAR changes (the squared hinge loss for the hinge, a regularised
#' bias, its stopping tolerance; see [krein_svm()]). With an indefinite
#' kernel the two forms solve different problems, not only on different
#' kernels: the Nystroem form flips the negative eigenvalues of \eqn{\hat
#' K}, which it takes from those of the landmark kernel (the Krein SVM's
#' Nystroem form, predicting with the raw \eqn{\hat K}), while the full form
#' solves kernlab's SMO on \eqn{K} as given. For two classes the Nystroem form
#' is thus the counterpart of `isvm(spectrum = "flip")` (see [krein_svm()])
#' rather than of `isvm()`.
#'
#' @section Prediction:
#' [predict()][predict.krein_model()] gives `type = "class"` (the most
#' probable class), `"prob"` and `"decision"` for all three:
#'
#' * `iknn()`: `"decision"` is the vote count, the number of the \eqn{k}
#'   nearest neighbours in each class. `"prob"` is the vote share (votes /
#'   \eqn{k}), except that where several classes share the most votes, the
#'   one with the nearest neighbour among them takes \eqn{10^{-9}} of the
#'   share of each other tied class: so the most probable class is the
#'   classifier's (majority vote, ties to the nearest neighbour's class), and
#'   the probabilities differ from the vote shares by less than \eqn{10^{-9}}
#'   times the number of classes. Precomputed fits need the self-similarities
#'   of the training points (`precomputed_kernel(K, self = )`) and of new
#'   points (`precomputed_kernel(K_new, self = )`).
#' * `ikpca_qd()`: `"decision"` is the quadratic discriminant \eqn{g_j(x) =
#'   -\frac12 (\psi(x) - m_j)' S_j^{-1} (\psi(x) - m_j) - \frac12 \log |S_j| +
#'   \log \pi_j} (\eqn{m_j} the class mean in the kernel PCA space, \eqn{\pi_j}
#'   the class proportion), `"prob"` its softmax (the Gaussian posterior), and
#'   the extra type `"projection"` the coordinates \eqn{\psi(x)} (one column
#'   per component).
#' * `isvm()`: kernlab's one-vs-one decision values \eqn{f_{ij}(x)}, one per
#'   pair of classes \eqn{i < j} (in the order of the levels; \eqn{f_{ij} > 0}
#'   favours \eqn{j}), summed per class: `"decision"` is \eqn{D_j = \sum_{i <
#'   j} f_{ij} - \sum_{l > j} f_{jl}}, for two classes \eqn{(-f, f)}.
#'   `"prob"` is the Platt probabilities of the pairs, coupled into class
#'   probabilities by the second method of Wu, Lin and Weng (2004), as libsvm
#'   does (krein solves it directly; kernlab's `couple()` pairs the
#'   probabilities in the wrong order for four or more classes); for a
#'   fit with `probability = FALSE`, the share of the one-vs-one contests each
#'   class wins (not calibrated: 0 or 1 for two classes). The predict argument
#'   `rule = c("vote", "posterior")` chooses the class rule: kernlab's (and
#'   libsvm's) own, the class that wins the most one-vs-one contests, ties to
#'   the first level (the default), or the most probable class. The vote is the default
#'   because it is a deterministic function of the data and the arguments:
#'   with a given `C` the Platt probabilities come from an inner
#'   cross-validation whose folds are drawn from R's random number
#'   generator, so their most probable class changes with the seed near the
#'   boundary (on 4% of the test points of a two-class problem). Without
#'   Platt probabilities the two rules agree. The Nystroem form's
#'   \eqn{f_{ij}} are its linear SVMs' (the Krein SVM's on \eqn{\hat K}),
#'   combined in the same way.
#'
#' [plot()][plot.krein_model()] draws the decision regions for two input
#' columns (as Pekalska and Haasdonk 2009, Fig. 2, draw IKNN and IKPCA-QD)
#' and the class probabilities of the points otherwise; it takes `isvm()`'s
#' `rule` too.
#'
#' @inheritParams krein_inputs
#' @inheritParams kqd
#' @param k Number of neighbours, a whole number between 1 and the number of
#'   training points (of prototypes with `landmarks`); `NULL` (the default)
#'   chooses it from 1 to 25 (at most the number of training points, or of
#'   prototypes, less one) by the leave-one-out error of the training
#'   points, ties to the smaller \eqn{k}: one ordering of each training
#'   point's distances serves every candidate.
#' @param pvar Share of the absolute eigenvalue mass kept by the indefinite
#'   kernel PCA, in \eqn{(0, 1]} (the paper uses 0.8); `NULL` (the default)
#'   chooses it among 0.8, 0.9, 0.95, 0.99 and 0.999 by the 5-fold
#'   cross-validated error of the class Gaussians (see Details).
#' @param shrinkage Shrinkage \eqn{\alpha} of the class covariances towards a
#'   multiple of the identity in `ikpca_qd()`, in \eqn{[0, 1]}.
#' @param pooling Weight \eqn{\lambda} of the pooled within-class covariance
#'   in each class covariance of `ikpca_qd()`, in \eqn{[0, 1]}: 0 for the
#'   paper's quadratic discriminant (each class its own covariance), 1 for
#'   the pooled covariance in every class;
#'   `NULL` (the default) chooses it from the class sizes and the number of
#'   components (see Details).
#' @param landmarks For `ikpca_qd()`, `isvm()` and `iknn()`: `"auto"` (the default)
#'   fits the full form up to a number of training rows and the Nystroem
#'   form on random landmarks beyond (see [krein_forms]); `NULL` (or `"none"`, which interfaces that drop `NULL` arguments can pass, such as parsnip's `set_engine()`) forces the
#'   full form (for `isvm()` the SVM on the kernel matrix); for the
#'   Nystroem form (see ikpca_qd()'s and isvm()'s Nystroem forms) `"meb"`,
#'   `"kmeans"` or `"random"` to select landmarks with [select_landmarks()],
#'   a vector of training-row indices, or a `krein_landmarks` object from
#'   [select_landmarks()] on the same training data (with the same `scale`),
#'   as [ikfd()] and [krein_svm()] take them. For `iknn()`: `"auto"` finds
#'   the neighbours among all training points up to 70,000 of them and
#'   among \eqn{5 \times 10^9 / n} random prototypes beyond (see Details);
#'   `NULL` among all training points at any size; otherwise the
#'   prototypes among which they are found: `"random"`,
#'   `"meb"` or `"kmeans"` (selected as by [select_landmarks()] with `eps`
#'   and `m`), training-row indices (for a precomputed kernel, its columns),
#'   or a [select_landmarks()] result.
#' @param C The cost of constraint violation of the SVM, a positive number;
#'   `NULL` (the default) chooses it by cross-validation (see isvm()'s
#'   defaults). `C = 1` is kernlab's default cost. With `landmarks`, from
#'   1e-15 to 1e15, the costs LIBLINEAR's solver finishes with (see
#'   [krein_svm()]).
#' @param probability Fit the Platt probability model (on the held-out
#'   decision values of the cost's cross-validation, or with a given `C` an
#'   inner cross-validation per pair of classes) for `predict(type = "prob")`;
#'   `FALSE` for class predictions by kernlab's vote only, e.g. when tuning
#'   `C` by error with [tune_krein()].
#' @returns A fit of class `c("iknn", "krein_model")`, `c("ikpca_qd",
#'   "krein_model")` or `c("isvm", "krein_model")` (see
#'   [predict.krein_model()], [summary.krein_model()] and
#'   [plot.krein_model()]). Besides what every krein fit holds (`call`,
#'   `levels`, `counts`, `y`, `training_error`, ...):
#'   * `iknn()`: `k`, `k_selection` (for the default `k = NULL`, a data
#'     frame of the candidates `k` and their `loo_error`; else `NULL`), `self`
#'     (the self-similarities of the training points, or of the prototypes),
#'     `landmarks` (the prototypes, a `krein_landmarks` object; `NULL` for
#'     the full form), `loo_error`
#'     (the leave-one-out error, `NA` when `k` is the number of training
#'     points or prototypes) and `negative_d2` (the share of pairs of
#'     training points, or of a training point and a prototype other than
#'     itself, with \eqn{d^2 < 0}, a sign of indefiniteness);
#'   * `ikpca_qd()`: `ncomp`, `share` (of the absolute eigenvalue mass),
#'     `values` (the kept eigenvalues), `signature` (\eqn{p}, \eqn{q}: kept
#'     positive and negative ones), `projection`, `gaussian` (the class
#'     means and triangular factors \eqn{R_j' R_j = S_j} of the shrunk
#'     covariances, from a QR decomposition of the centred class coordinates,
#'     with their log-determinants and reciprocal condition numbers), `prior`,
#'     `pvar` (the share used), `pvar_selection` (for `pvar = NULL`: a data
#'     frame of the candidates `pvar`, their `ncomp` and `cv_error`, `NA`
#'     where a fold's covariance was singular; else `NULL`), `shrinkage`,
#'     `pooling` (the weight used), `landmarks` (`NULL` for the full form,
#'     else the `krein_landmarks`), and for the Nystroem form `offset` (the
#'     projection is then over the landmark kernel) and `landmark_rank`
#'     (\eqn{r});
#'   * `isvm()`: `model` (the [kernlab::ksvm()] fit), `support` (indices of
#'     the support vectors among the training points), `C` (the cost used),
#'     `cost_cv` (for `C = NULL`: a data frame of the costs tried, `C`, and
#'     their cross-validated `error`; else `NULL`), `probability`,
#'     `platt` (one row per pair of classes: the sigmoid's `A` and `B`, its
#'     Newton `iterations` and whether it `converged`; `NULL` without
#'     probabilities) and `kernlab_output` (what kernlab printed); with
#'     `landmarks`, instead, the fields of [krein_svm()]'s Nystroem fit
#'     (`pairs`, `C`, `cost_cv`, `probability`, `platt`, `landmarks`,
#'     `landmark_rank` and `signature`).
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (Sections, equations and tables are cited
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#'
#' Cover, T. M. and Hart, P. E. (1967). Nearest neighbor pattern
#' classification. *IEEE Transactions on Information Theory*, 13(1), 21-27.
#' \doi{10.1109/TIT.1967.1053964}.
#'
#' Stone, C. J. (1977). Consistent nonparametric regression. *The Annals of
#' Statistics*, 5(4), 595-620. \doi{10.1214/aos/1176343886}.
#'
#' Friedman, J. H. (1989). Regularized discriminant analysis. *Journal of the
#' American Statistical Association*, 84(405), 165-175.
#' \doi{10.1080/01621459.1989.10478752}.
#'
#' Williams, C. K. I. and Seeger, M. (2001). Using the Nystroem method to
#' speed up kernel machines. In *Advances in Neural Information Processing
#' Systems 13*, MIT Press, 682-688.
#'
#' Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#' indefinite kernel approximation using minimum enclosing balls.
#' *Neurocomputing*, 318, 213-226. \doi{10.1016/j.neucom.2018.08.057}.
#'
#' Platt, J. C. (1999). Probabilistic outputs for support vector machines and
#' comparisons to regularized likelihood methods. In *Advances in Large
#' Margin Classifiers*, MIT Press, 61-74.
#'
#' Lin, H.-T., Lin, C.-J. and Weng, R. C. (2007). A note on Platt's
#' probabilistic outputs for support vector machines. *Machine Learning*,
#' 68(3), 267-276. \doi{10.1007/s10994-007-5018-6}.
#'
#' Wu, T.-F., Lin, C.-J. and Weng, R. C. (2004). Probability estimates for
#' multi-class classification by pairwise coupling. *Journal of Machine
#' Learning Research*, 5, 975-1005.
#'
#' Williams, C. K. I. and Seeger, M. (2001). Using the Nystroem method to
#' speed up kernel machines. In *Advances in Neural Information Processing
#' Systems 13*, MIT Press, 682-688.
#'
#' Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#' indefinite kernel approximation using minimum enclosing balls.
#' *Neurocomputing*, 318, 213-226. \doi{10.1016/j.neucom.2018.08.057}.
#' @family reference classifiers
#' @examples
#' set.seed(1)
#' train <- checkerboard(200, size = 3)
#' test <- checkerboard(500, size = 3)
#' kernel <- kernel_invariant(kernel_dist(s = 1, power = 4))
#' knn <- iknn(y ~ ., data = train, kernel = kernel, k = 5)
#' mean(predict(knn, test) != test$y)
#' head(predict(knn, test, type = "decision"))
#' # the neighbours among 60 prototypes drawn at random within the classes
#' prototypes <- iknn(y ~ ., data = train, kernel = kernel, landmarks = "random", m = 60)
#' prototypes
#' mean(predict(prototypes, test) != test$y)
#' pca <- ikpca_qd(y ~ ., data = train, kernel = kernel, pvar = 0.8, shrinkage = 0.1)
#' pca
#' mean(predict(pca, test) != test$y)
#' plot(pca)
#' # the Nystroem form on 40 random landmarks
#' ny <- ikpca_qd(y ~ ., data = train, kernel = kernel, landmarks = "random", m = 40, shrinkage = 0.1)
#' mean(predict(ny, test) != test$y)
#' if (requireNamespace("kernlab", quietly = TRUE)) {
#'   svm <- isvm(y ~ ., data = train, kernel = kernel, C = 10)
#'   table(vote = predict(svm, test), posterior = predict(svm, test, rule = "posterior"))
#' }
#' if (requireNamespace("LiblineaR", quietly = TRUE)) {
#'   # the Nystroem form on 40 random landmarks (the default Gaussian kernel)
#'   ny <- isvm(y ~ ., data = train, landmarks = "random", m = 40, C = 10)
#'   ny
#'   mean(predict(ny, test) != test$y)
#' }
#' @name reference_classifiers
#' @order 1
NULL
