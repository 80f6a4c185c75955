# pcvm(): the probabilistic classification vector machine, full and
# Nystroem -- its control, the starts of EM and their average, the pairwise
# fits, troubles reported, prediction, print, summary, plot and
# registration. Ny-PCVM over data in chunks is in R/pcvm_chunks.R.

#' Probabilistic classification vector machine, full and Nystroem (Ny-PCVM)
#'
#' The sparse probabilistic kernel classifier PCVM of Chen, Tino and Yao (2009),
#' as reviewed by Schleif, Gisbrecht and Tino (2018, Sec. 2.4, eqs. 4-7), for
#' any kernel: the kernel
#' values are only basis functions, so indefinite and precomputed similarities
#' work unchanged. With `landmarks`, Ny-PCVM (Schleif et al. 2018, Sec. 5.1)
#' runs on the
#' Nystroem approximation of the kernel.
#'
#' @section The default kernel:
#' Without a `kernel`, `pcvm()` takes the Gaussian kernel of width
#' \eqn{\gamma = 1/p} on the \eqn{p} input columns centred and scaled with
#' `scale = TRUE`, `kernel_rbf(heuristic = "dimension")`: the default of
#' [e1071::svm()], [isvm()] and [krein_svm()]. The median heuristic
#' (`kernel_rbf()`) gives a wider kernel on every data set measured (0.47 to
#' 0.98 times \eqn{1/p}); over two or three 70/30 splits of seventeen real
#' data sets (mlbench's, kernlab's and MASS's) \eqn{1/p} was the more
#' accurate by 0.8 points on average and by up to 4 (Sonar, Vowel,
#' promotergene by formula), the less by 2.6 points on Glass and at most 1
#' elsewhere.
#'
#' Where the EM of a pair of at least 1000 points goes wrong on that width
#' (its training error rises or its weights blow up; see Which E-step), the
#' pair is fitted again with
#' \eqn{\gamma} doubled, up to three times, and keeps the first fit whose EM
#' goes right (else the one of lowest training error, the first included);
#' `print()` and `summary()` show the width used. The prior prunes a wide
#' kernel's nearly collinear basis functions to a handful when the data are
#' many: on `banana(10000)` with \eqn{\gamma = 1/p = 0.5} EM kept 7 relevance
#' vectors, its training error rising from 0 to 0.11, and erred on 0.110 of
#' `banana(5000)` against 0.076 for `e1071::svm()`; at \eqn{\gamma = 1}, 23
#' relevance vectors and 0.078. On fewer points a rise of the training error
#' is EM pruning an early interpolating basis, and a narrower kernel only
#' interpolates (kernlab's promotergene by formula, 74 training points:
#' refitted at \eqn{4/p} on four of ten splits, test accuracy 0.44-0.56
#' against 0.75-0.84), so such a fit is kept, with its warning. While a
#' pair may be fitted again, an EM start whose weights blow up (a training
#' latent value beyond 1000) is stopped there and left out of the pair's
#' average of starts; the pair goes wrong when every start does (a run-away
#' otherwise takes thousands of iterations to settle). This applies to the
#' full PCVM and to Ny-PCVM on data in memory (on the same landmarks), on
#' the default kernel (or any `kernel_rbf()` whose width is left to the
#' data) without a spectrum correction: on `checkerboard(20000)` Ny-PCVM on
#' 300 random landmarks at \eqn{1/p} blew up (test accuracy 0.49) and at
#' \eqn{4/p} reached 0.974. A width you give is kept, and a fit that goes
#' wrong on it warns; so is Ny-PCVM's over chunks.
#'
#' @section Model and EM:
#' With labels \eqn{y_i \in \{-1, +1\}} (the first class of a pair is
#' \eqn{+1}), \eqn{f(x) = \sum_j k(x, x_j) y_j w_j + b} with weights \eqn{w_j
#' \ge 0} under truncated Gaussian priors, and \eqn{P(+1 | x) = \Psi(f(x))},
#' the probit link. EM follows the order and constants of the authors'
#' reference code: the first E-step uses a
#' latent vector consistent with the labels; each iteration computes the
#' E-step's expected latent values \eqn{Z} (see Which E-step); then \eqn{w = M (I + M \Phi'\Phi M)^{-1} M \Phi'(Z - b
#' 1)} with \eqn{M = \sqrt 2\, \mathrm{diag}(w)} by a Cholesky factorisation
#' (the matrix is positive definite for any kernel), then \eqn{b =
#' \sum_i (Z - \Phi w)_i / (n + 1 / (2 b^2))} with the new \eqn{w}; weights
#' below `prune` are dropped with their basis functions. The reference
#' code's random start (\eqn{w \sim U(0.2, 1.2)}, \eqn{b \sim N(0, 1)}, the
#' latent vector) is `pcvm_control(start = "random")`, drawn from R's RNG;
#' by default krein starts from its means, so that a fit does not depend on
#' the seed (see [pcvm_control()]).
#'
#' EM finds a local optimum that depends on its start: on small real data
#' sets the test accuracy of one split moves by up to 10 points between
#' starts. By default each pair of classes runs EM from three starts (ten
#' when the fit has fewer than 250 training points) -- the fixed one and the
#' others drawn like the reference code's random start, from a fixed stream,
#' so that the fit stays a deterministic function of the data -- and keeps
#' the average of their latent functions, \eqn{f = \Phi \bar w + \bar b}:
#' one kernel expansion over the union of their relevance vectors, at about
#' three (ten) times the cost of one EM. See [pcvm_control()] for what was measured.
#'
#' The full PCVM solves the M-step's system \eqn{(I + M \Phi_A'\Phi_A M) x =
#' M \Phi_A'(Z - b 1)} (\eqn{A} the active basis functions) by preconditioned
#' conjugate gradients while at least \eqn{\max(1000, n/4)} basis functions
#' are active: each step costs two products with the active kernel columns,
#' \eqn{O(n |A|)}, instead of the \eqn{O(n |A|^2 + |A|^3)} of forming and
#' factorising the matrix. The preconditioner comes from a sketch
#' \eqn{K'K \approx K'QQ'K} computed once per fit, \eqn{Q} an orthonormal
#' basis of an approximate range of \eqn{K} from the adaptive randomized
#' range finder of Halko, Martinsson and Tropp (2011), its rank (typically
#' 100-300) growing until it captures the kernel's spectrum; it is positive
#' definite for any kernel, indefinite ones included, and is applied through
#' the Woodbury identity. CG stops at a residual of \eqn{10^{-14}} relative to
#' the right-hand side, so the iterates equal those of a direct solve up to
#' rounding; an M-step where CG has not converged in 200 steps (or whose
#' first ten steps predict more) is solved directly. Below that size, \eqn{G_A = K_A'K_A} is formed once for the
#' active set of that moment and every later \eqn{\Phi'\Phi} is taken from
#' its rows and columns still active (later active sets are subsets), with a
#' Cholesky factorisation per iteration. Each model records what its M-steps
#' did in `solver` (CG iterations and steps, fallbacks to the direct solve,
#' the sketch's rank, \eqn{|A|} where \eqn{G_A} was formed).
#' `pcvm_control(solver = "cholesky")` forms \eqn{G = K'K} in the first
#' iteration instead, and `solver = "cg"` uses CG at every size.
#'
#' @section Which E-step:
#' The E-step's expected latent values are
#' \eqn{Z_i = f_i + y_i \phi(f_i) / \Psi(y_i f_i)} in exact arithmetic
#' (`pcvm_control(e_step = "exact")`; the ratio is evaluated without
#' underflow, through the continued fraction of the Mills ratio for
#' \eqn{y_i f_i < -5}). It pulls a point on the wrong side of the boundary
#' with a force \eqn{r(y_i f_i) = \phi(y_i f_i) / \Psi(y_i f_i)} that grows
#' like \eqn{|y_i f_i|}. The authors' reference code divides by
#' \eqn{\Psi(y_i f_i) + \epsilon} instead (\eqn{\epsilon = 2^{-52}}, the
#' machine epsilon; `e_step = "reference"`), which agrees to
#' \eqn{3 \times 10^{-7}} for \eqn{y_i f_i \ge -6} but not beyond: where
#' \eqn{y_i f_i < -8} both factors vanish and its pull falls to 0, so that a
#' badly misclassified point stops pulling at all. krein's default,
#' `e_step = "bounded"`, is the exact E-step with the pull held at that of
#' \eqn{y_i f_i = -8} below it:
#' \eqn{Z_i = f_i + y_i r(\max(y_i f_i, -8))}, \eqn{r(-8) = 8.12}. Down to
#' \eqn{y_i f_i = -8} it is the exact E-step (and so agrees with the
#' reference code's wherever that one agrees with the exact); below, its pull
#' is constant, neither growing without bound nor vanishing.
#'
#' Why, as measured. With the exact E-step EM runs away at large \eqn{N}
#' (and, at smaller \eqn{N}, on a kernel of larger scale): a few hundred
#' points far on the wrong side after the first iterations pull a handful of
#' weights to \eqn{10^3}-\eqn{10^6} (the M-step's penalty \eqn{1 / (2 w^2)}
#' vanishes as weights grow), and the training error rises while EM goes on.
#' On `checkerboard(10000)` (Gaussian kernel, \eqn{\gamma = 5}) the exact
#' E-step gave test errors of 0.021-0.228 over six starts, the reference one
#' 0.009-0.013 and the bounded one 0.009-0.013 (e1071's SVM with the same
#' kernel, 0.018); on `banana(10000)` (\eqn{\gamma = 3}) 0.079-0.168, 0.075-0.085
#' and 0.075-0.081 (SVM 0.073). With the reference E-step EM instead settles on
#' poor models where points start far on the wrong side and stop pulling:
#' in paper 002's Ball and Checker experiments (Schleif, Gisbrecht and Tino
#' 2018; 10-fold cross-validation) its accuracies were 58.0% and 58.4%, the
#' exact E-step's 93.5% and 93.8%, the bounded one's 92.5% and 94.9%; on a
#' checkerboard of 800 points with its kernel scaled by 100 (which scales the
#' start's latent values as a large \eqn{N} does), test errors from one
#' start of 0.086 (reference), 0.299 (exact) and 0.044 (bounded). On seven
#' of the real data sets of the benchmark script `bench/real_data.R` in
#' krein's source repository (spam left out; three 70/30
#' splits each) the bounded and the reference E-step gave accuracies within
#' 2 points of each other in 19 of the 21 cases. The limit 8 is where the reference code's ratio parts from the
#' exact one (by 36%); a limit of 4 gave results within a point of it.
#'
#' A run that goes wrong is reported, never silent: each pairwise model
#' records its training error per EM iteration (`training_errors`) and the
#' problem in words (`trouble`; shown by `print()` and `summary()`), with a
#' warning of class `krein_pcvm_trouble_warning`, when its training error
#' rose during EM (its last value exceeds the lowest after the first
#' iteration by at least ten percentage points, by at least five points and
#' by more than one percentage point plus the lowest itself) or its weights
#' blew up (a training latent value
#' beyond 1000, where \eqn{|f| = 40} already gives probabilities of 0 and 1).
#' Where huge weights make the M-step's Cholesky factorisation fail in
#' rounding (the matrix is positive definite in exact arithmetic, with
#' eigenvalues at least 1), the step is solved by the symmetric
#' eigendecomposition with the eigenvalues raised to 1, with a warning and a
#' count in the model (`hessian_fallbacks`).
#'
#' `pcvm_control(e_step = "reference", convergence = "weights", start =
#' "random")` is the reference code's algorithm (its E-step, stopping rule
#' and random start, one start); `pcvm_control(e_step = "exact", starts = 1)`
#' is EM with the exact E-step from the fixed start alone.
#'
#' By default EM stops when the training latent values \eqn{f} have settled
#' (`pcvm_control(convergence = "latent")`); the reference code's rule, no
#' weight moves by `tol` or more, is `convergence = "weights"`. In 5-fold
#' cross-validation on Sonar, Ionosphere, Glass, BreastCancer (R package
#' mlbench), iris and musk (kernlab) with the default kernel, the reference
#' rule reached its 500 iterations in 28 of 30 fits. The default stopped
#' without reaching its limit in every fit on five of the six data sets, after
#' 180 to 650 iterations on average, with an accuracy no more than one test
#' point lower (one higher on Glass); on BreastCancer it reached its limit
#' (then 2000) in three of five folds,
#' as EM converges slowly there. Reaching `max_iter` is a warning, recorded in
#' the fit (`converged`).
#'
#' A pair of classes whose every basis function is pruned keeps a bias-only
#' model, \eqn{f = \Psi^{-1}(n_+ / n)} (the pair's class proportions, the
#' maximum-likelihood probit model without basis functions), with a warning
#' and `bias_only = TRUE` in its model, instead of failing the fit.
#'
#' The bias is pruned like a weight. Its M-step (Schleif et al. 2018, eq. 6)
#' is \eqn{b^{new} = t (1 + t N t)^{-1} t (1^\top \bar H - 1^\top \Phi w)}
#' with \eqn{t = \sqrt 2 |b|}: the Gaussian prior on \eqn{b}, its precision
#' \eqn{1 / (2 b^2)} re-estimated in every iteration, shrinks a bias the data
#' do not need towards 0 ever faster, and once it is 0 it stays 0 (the
#' precision is infinite). A bias whose start has the wrong sign is pruned
#' on its way through 0 even where the data need one. The fixed start
#' has \eqn{b = 0} (see [pcvm_control()]), so every pairwise model of a
#' fit from it alone (`starts = 1`) has a bias of exactly 0 in `summary()` (55
#' of 55 on mlbench's Vowel); from the reference code's random start most
#' biases still end at 0 (52 of 55 there), and the default's bias, the mean
#' of its starts', mostly is 0 too. That is the reference algorithm's
#' answer, not a failure.
#' A bias without this prior (estimated freely in every M-step) was
#' measured and not adopted: on mlbench's Ionosphere it raised the test
#' accuracy by up to 6 points, but on Sonar, Glass and spam it lowered it by
#' 1-3 points, and on iris it changed nothing.
#'
#' @section Ny-PCVM:
#' With landmarks, the basis functions are those of the \eqn{m} landmarks,
#' \eqn{k(x, l_j) y_j} (a landmark's label is its class; for k-means centres
#' the majority class of its cluster), and the relevance vectors are a subset
#' of the landmarks. The Nystroem approximation \eqn{\hat K = K_{nm}
#' K_{mm}^+ K_{nm}'} reproduces these columns exactly, \eqn{\hat K_{\cdot L}
#' = K_{nm}}, so this is PCVM on \eqn{\hat K} restricted to the landmark basis
#' functions. With the thin QR factorisation \eqn{K_{nm} = Q R}, computed
#' once, \eqn{\Phi_A'\Phi_A = D R_A' R_A D} and \eqn{\Phi_A' v = D R_A' Q'v}:
#' an EM iteration costs \eqn{O(n m + m |A|^2)} and memory stays \eqn{O(n
#' m)}. The model predicts from the landmarks alone, \eqn{f(x) = k(x, L)'a +
#' b}. With every training point a landmark it is the full PCVM, step for
#' step.
#'
#' Schleif et al. (2018) keep all \eqn{n} basis functions of \eqn{\hat K}
#' instead (and approximate the inverse in the M-step by a second Nystroem
#' step). krein
#' implemented that exactly (with the Woodbury identity, \eqn{O(|A| r^2)} per
#' step) and found it unstable at scale: on `checkerboard(20000)` with 150 MEB
#' landmarks, the exact EM on 20,000 basis functions of a rank-150 kernel let
#' the weights grow from 3 to \eqn{4 \times 10^7} and \eqn{\max|f|} from 8 to
#' \eqn{7 \times 10^4} within seven iterations, with the training error rising
#' from 3% to 24%: with far more basis functions than rank, the least-squares
#' M-step relies on cancelling positive and negative weights, which pruning
#' then removes. The landmark basis has at most as many functions as the
#' rank and does not suffer from this.
#'
#' @section Data in chunks:
#' `pcvm(<krein_chunks>, landmarks = )` fits Ny-PCVM over data in chunks
#' ([krein_chunks()]), with the same iterates as the fit in memory (to
#' rounding; the same start). The landmarks need their
#' classes (a [select_landmarks()] result, or a method name applied to the
#' first chunks; a bare matrix of points has none). Unlike iKFD and KQD,
#' PCVM has no finite sufficient statistic: the E-step's expected latent
#' values depend on the current weights at every training point. So the fit
#' reads the data once per EM iteration: the pairs of classes and their
#' starts (`starts` in [pcvm_control()]) run their EMs side by side, and each
#' pass evaluates the landmark kernel of every chunk again and returns, for
#' every EM still running, \eqn{\Phi'(\bar z - b)}, \eqn{\sum \bar z} and
#' the two norms of the convergence test; an EM that has converged leaves the
#' later passes. The data are read as often as the longest-running EM
#' iterates (with the default `convergence = "latent"`, once more: the test
#' of an iteration needs the next one's latent values), whatever the number
#' of classes and starts. \eqn{\Phi'\Phi} and
#' \eqn{\Phi'1} come from one
#' first pass (the per-class QR factors of Ny-iKFD). With the default
#' `pcvm_control()` (up to 5000 iterations) that can be hundreds of reads
#' of the data: keep the chunks fast to read (files on a local disk, or a
#' list in memory on the workers) and consider `max_iter` and `tol`.
#'
#' @section Multi-class:
#' One-vs-one: a PCVM per pair of classes, on the points of the two classes.
#' The pairwise probabilities are combined by pairwise coupling (Wu, Lin and
#' Weng 2004, their second method, the one libsvm uses): \eqn{p} minimises
#' \eqn{\sum_{i < j} (r_{ji} p_i - r_{ij} p_j)^2} subject to \eqn{\sum_i p_i =
#' 1}, a linear system per point. The predicted class is the most probable.
#'
#' @section Prediction:
#' [predict()][predict.krein_model()] gives `type = "class"` (the most
#' probable class), `"prob"` (the probit posterior \eqn{\Psi(f)} for two
#' classes, the pairwise-coupled one otherwise; rows sum to 1), `"decision"`
#' (an \eqn{n \times c} matrix: for class \eqn{i} the sum of the latent
#' values \eqn{f_{ij}} of its pairwise models, each signed to favour \eqn{i};
#' \eqn{(f, -f)} for two classes) and `"latent"` (the latent \eqn{f} of each
#' pairwise model, one column per pair of classes, named `"a vs b"`: positive
#' favours the first class). `predict(fit)` without `newdata` gives the
#' training predictions: the fit keeps the training latent values, so no
#' kernel is recomputed. For a precomputed kernel, `newdata` is the kernel of
#' the new points against all training points (only the relevance-vector or
#' landmark columns are used). [plot()][plot.krein_model()] draws the
#' decision regions for two inputs (with the training points, or for Ny-PCVM
#' its landmarks, circled); otherwise, without `data`, the sorted
#' relevance-vector weights of each pairwise model, and with `data` the class
#' probabilities of its points.
#'
#' @inheritParams krein_inputs
#' @inheritParams ikfd
#' @param landmarks `"auto"` (the default): the full PCVM up to a number of
#'   training rows, Ny-PCVM on random landmarks beyond (see [krein_forms]);
#'   `NULL` (or `"none"`, which interfaces that drop `NULL` arguments can pass, such as parsnip's `set_engine()`) for PCVM; `"meb"`, `"kmeans"`, `"random"`, row
#'   indices or a [select_landmarks()] result for Ny-PCVM, as in [ikfd()].
#'   For data in chunks: a [select_landmarks()] result (with points) or a
#'   method applied to the first chunks (see Data in chunks).
#' @param control A [pcvm_control()] list.
#' @param eps,m Passed to [select_landmarks()] when `landmarks` names a method.
#'   Ny-PCVM's basis is its landmarks, so its default `eps` is 3e-4, not
#'   `select_landmarks()`'s 0.01 (Schleif et al.'s, which Ny-iKFD and Ny-KQD
#'   keep): on the 4 x 4 `checkerboard()` at \eqn{N = 10^5} (RBF, gamma = 5 on
#'   scaled inputs) `eps = 0.01` gives 76 MEB landmarks and 4.0 to 5.3 times
#'   the test error of `e1071::svm()`; `eps = 1e-3` (about 130) twice it in one
#'   landmark draw of five; `eps = 3e-4` (about 140) at most 1.2 times it in
#'   all five, and at most 1.03 times in every run at \eqn{N = 10^3} to
#'   \eqn{3 \cdot 10^4} on the checkerboard, banana and sine data
#'   (the benchmark script `bench/pcvm_accuracy.R` in krein's source
#'   repository). The MEB count levels off with \eqn{N}: on
#'   real and simulated data of 990 to 20,000 points (spam, vowel, twonorm,
#'   ringnorm) 3e-4 gave 1.3 to 4.4 times the landmarks of 0.01, at most 545.
#'   A kernel so narrow that the points are nearly orthogonal needs about
#'   \eqn{1/\epsilon} per class, though: give a larger `eps` there, or a
#'   number `m` with `landmarks = "kmeans"`.
#' @returns An object of class `c("pcvm", "krein_model")`: a list with
#'   `models` (one per pair of classes: the relevance vectors `relevant`
#'   (training rows, or landmark numbers for Ny-PCVM), `coefficients`
#'   (\eqn{y_j w_j} over the relevance vectors, or the landmark vector
#'   \eqn{a} for Ny-PCVM), `bias`, `iterations`, `converged`, `bias_only`
#'   (every basis function pruned), `solver` (full PCVM: what its M-steps
#'   did, see Model and EM), `training_errors` (the training error of each
#'   EM iteration; of the first start averaged when there are several, each
#'   start's in `start_training_errors`, their iterations in
#'   `start_iterations`, those that pruned every basis function in
#'   `start_bias_only`, those left out of the average in `start_dropped`
#'   (see `starts` in [pcvm_control()]), and `iterations` is the most of
#'   those averaged), `trouble` (what went wrong in EM, `""` if nothing; see
#'   Which E-step), `hessian_fallbacks` (M-steps solved by
#'   eigendecomposition), the pair, and
#'   with `optimize_width` its own `kernel`), `control`, `landmarks`,
#'   `training_latent` (the \eqn{n \times} pairs latent values of the
#'   training points), `x` (the training inputs of a full PCVM, for plot()),
#'   with the `levels`, `counts`, `training_error` and the input description
#'   every krein model has.
#' @references
#' Chen, H., Tino, P. and Yao, X. (2009). Probabilistic classification
#' vector machines. *IEEE Transactions on Neural Networks*, 20(6), 901-914.
#' \doi{10.1109/TNN.2009.2014161}.
#'
#' Halko, N., Martinsson, P.-G. and Tropp, J. A. (2011). Finding structure
#' with randomness: probabilistic algorithms for constructing approximate
#' matrix decompositions. *SIAM Review*, 53(2), 217-288.
#' \doi{10.1137/090771806}.
#'
#' Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#' indefinite kernel approximation using minimum enclosing balls.
#' *Neurocomputing*, 318, 213-226. \doi{10.1016/j.neucom.2018.08.057}.
#'
#' Wu, T.-F., Lin, C.-J. and Weng, R. C. (2004). Probability estimates for
#' multi-class classification by pairwise coupling. *Journal of Machine
#' Learning Research*, 5, 975-1005.
#' @family probabilistic classification vector machine
#' @examples
#' set.seed(1)
#' train <- checkerboard(300, size = 2)
#' fit <- pcvm(y ~ x1 + x2, data = train, kernel = kernel_rbf(2))
#' fit
#' test <- checkerboard(500, size = 2)
#' mean(predict(fit, test) != test$y)
#' head(predict(fit, test, type = "prob"))
#' # the training predictions
#' table(predict(fit), train$y)
#' @export
pcvm <- function(x, ...) UseMethod("pcvm")

#' @rdname pcvm
#' @export
pcvm.formula <- function(formula, data, ..., subset, na.action, kernel = kernel_rbf(heuristic = "dimension"),
                        scale = TRUE) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel, scale = scale)
  fit_model("pcvm", inputs, list(...), match.call())
}

#' @rdname pcvm
#' @export
pcvm.default <- function(x, y, ..., kernel = kernel_rbf(heuristic = "dimension"), scale = TRUE, spectrum = "none", landmarks = "auto", control = pcvm_control(),
                         eps = 3e-4, m = NULL, na.action = NULL, threads = NULL) {
  check_dots_empty("pcvm", ...)
  inputs <- inputs_from_xy(x, y, kernel, na.action, scale = scale, chunks = TRUE)
  fit_model("pcvm", inputs, method_arguments("pcvm"), match.call())
}

#' Control parameters of pcvm()
#'
#' @param max_iter The most EM iterations, a whole number of at least 1; by
#'   default 5000 for `convergence = "latent"` and the reference code's 500
#'   for `"weights"`. (On `banana(10000)` EM settles after up to about 2400
#'   iterations, and the iterations after the first hundred are cheap, as
#'   few basis functions remain.)
#' @param tol The tolerance of the stopping rule `convergence`; by default
#'   `3e-4` for `"latent"` and the reference code's `1e-3` for `"weights"`.
#' @param prune Weights below `prune` are set to zero and their basis
#'   functions dropped.
#' @param optimize_width For a Gaussian kernel ([kernel_rbf()]) and the full
#'   PCVM: also optimise its `gamma` inside EM, as the reference code does
#'   with its width parameter. After each M-step, krein maximises the expected
#'   complete-data log-likelihood over \eqn{\log\gamma}, i.e. minimises
#'   \eqn{\|Z - \Phi_\gamma w - b\|^2} with this iteration's \eqn{Z}, \eqn{w}
#'   and \eqn{b}, by a golden-section search ([stats::optimize()]) within a
#'   factor \eqn{e} of the current value; each pair of classes gets its own
#'   width. The basis functions are those still active, with their weights.
#'   This corrects the reference code's width step, which in its first
#'   iteration indexes the weights by a double 0/1 vector instead of a
#'   logical one: MATLAB reads the entries as positions, so that step does
#'   not see the weights of the active basis functions. krein's does, in
#'   every iteration.
#' @param convergence When EM stops:
#'   * `"latent"` (the default): when the training latent values \eqn{f}
#'     (from which every prediction follows: the class, the posterior
#'     \eqn{\Psi(f)} and the decision values) have settled, i.e. move by at
#'     most `tol` relative to their size between two iterations,
#'     \eqn{\|f_t - f_{t-1}\|_2 \le} `tol` \eqn{\|f_{t-1}\|_2}. The test
#'     does not depend on the scale of the kernel. EM converges slowly
#'     (weights shrink gradually before they are pruned) and the accuracy
#'     keeps improving slightly for several hundred iterations, hence the
#'     small default `tol` and the larger `max_iter`; the iterations after
#'     the first few are cheap, as only the relevance vectors remain.
#'   * `"weights"`: the reference code's rule, when no weight moves by `tol`
#'     or more. On real data the weights keep drifting long after the
#'     predictions have settled (basis functions die slowly before they are
#'     pruned), so this rule rarely stops within 500 iterations; choose it to
#'     reproduce the reference code's iterates.
#' @param start The start of EM:
#'   * `"fixed"` (the default): the means of the reference code's random
#'     start, \eqn{w_j = 0.7}, \eqn{b = 0} and latent values \eqn{5 y_i +
#'     0.5}, so that a fit -- and its classes -- are a deterministic function
#'     of the data and the arguments. A bias that starts at 0 stays 0 (its
#'     prior's precision is infinite; see [pcvm()], Model and EM): a fit from
#'     this start alone (`starts = 1`) has no bias. EM may stop at a different point from
#'     different starts (weights are pruned along the way), and with a random
#'     start about 1 in 100 test points changed class between two seeds.
#'   * `"random"`: the reference code's start, \eqn{w_j \sim U(0.2, 1.2)},
#'     \eqn{b \sim N(0, 1)} and latent values \eqn{10 u_i y_i + u'_i} with
#'     uniform \eqn{u}, drawn from R's RNG (so `set.seed()` reproduces a
#'     fit); the paper reproductions use it.
#' @param e_step The E-step's expected latent values (see [pcvm()], section
#'   "Which E-step"):
#'   * `"bounded"` (the default): the exact E-step below with its pull on a
#'     point far on the wrong side held at that of \eqn{y_i f_i = -8},
#'     \eqn{Z_i = f_i + y_i \phi(t_i) / \Psi(t_i)},
#'     \eqn{t_i = \max(y_i f_i, -8)}; EM neither runs away at large
#'     \eqn{N} nor lets badly misclassified points stop pulling.
#'   * `"reference"`: the authors' reference code's
#'     \eqn{Z_i = f_i + y_i \phi(f_i) / (\Psi(y_i f_i) + \epsilon)}, under
#'     which a point far on the wrong side stops pulling.
#'   * `"exact"`: \eqn{Z_i = f_i + y_i \phi(f_i) / \Psi(y_i f_i)}, the
#'     posterior mean of the latent value; EM can run away at large
#'     \eqn{N}, which the fit reports.
#' @param starts The number of EM starts per pair of classes, a whole number
#'   of at least 1, whose latent functions are averaged: the pair's model is
#'   \eqn{f = \Phi \bar w + \bar b}, the mean of the starts' weights and
#'   biases (a start whose every basis function was pruned counts as its
#'   bias-only model), one kernel expansion over the union of their relevance
#'   vectors. By default (`NULL`) 10 when the fit has fewer than 250
#'   training points and 3 from 250, and 1 with `start = "random"` (the
#'   reference code's algorithm) or `optimize_width = TRUE` (each start would
#'   optimise its own width; more than one start is an error there). The first start
#'   is `start`; the others are drawn as the reference code's random start,
#'   from R's RNG for `start = "random"` and otherwise from a fixed stream
#'   (not R's RNG), so that the default fit is a deterministic function of the
#'   data and leaves R's random stream alone. Each start costs one EM; over
#'   data in chunks, the EMs of all starts share the passes over the chunks,
#'   so the starts add computation to each pass but no passes. The starts
#'   run on the fit's `threads`, one start each, for Ny-PCVM and for the full
#'   PCVM below 1,000 training points of a pair (where its M-step needs no
#'   threads of its own), with the same fit on any number of threads.
#'   `starts = 1` fits from `start` alone.
#'
#'   A start whose EM ended far behind the best start on the training data
#'   is left out of the average: when its final training error \eqn{e}
#'   exceeds the best start's \eqn{e_0} by more than \eqn{0.1 e_0} and by
#'   more than \eqn{3 \sqrt{(e + e_0)/n}} (three standard errors of the
#'   difference on the pair's \eqn{n} training points, McNemar's, bounded by
#'   counting every error of either start as a disagreement). So on small
#'   data, where starts differ by a few points, none is left out. The fit
#'   records it (`start_dropped` in each of `models`, `starts_dropped` in
#'   `summary()`, a line in `print()`), without a warning: the model does not
#'   use that start. Why: on the banana data at \eqn{N = 30000}, one of the
#'   three starts ended at a training error of 0.096 with its weights blown
#'   up, the others at 0.080 and 0.075; the average of all three had 1.25
#'   times the test error of `e1071::svm()` (0.0900 against 0.0719) and
#'   warned, the average of the two kept has 1.06 times it (0.0762). On the
#'   twelve real data sets of the benchmark script `bench/real_data.R` in
#'   krein's source repository (three splits each: 303
#'   pairwise fits, 909 starts), one start was left out (Vowel's second
#'   split, whose accuracy moved from 0.926 to 0.929).
#'
#'   Why: EM's optimum depends on its start; on small data sets the test
#'   accuracy of one split moved by up to 10 points between starts. Over the
#'   70/30 splits `set.seed(1..3)` of that script, `bench/real_data.R` (eight
#'   data sets),
#'   averaging three starts brought PCVM within 5 points of `e1071::svm()`
#'   on iris (0.911, 0.822, 0.956 -> 0.933, 0.867, 0.933, against 0.978,
#'   0.911, 0.978) and on Ionosphere's third split (0.895 -> 0.933, against
#'   0.962), at 1.5-2.8 times the fit time. Ten starts on small data, where
#'   a start costs least and EM's optimum varies most: over ten splits of the
#'   nine data sets of that script with fewer than 250 training points, the
#'   mean gap to `e1071::svm()` fell on kernlab's promotergene by formula
#'   from 6.6 to 3.1 points (worst split 21.9 -> 9.4) and on its edit
#'   distances from 6.3 to 4.4, and the worst split's gap fell or stayed on
#'   all nine (Glass 7.8 -> 4.7, iris 8.9 -> 4.4); at 250 points and more
#'   (Vehicle, Vowel, Soybean, musk) ten starts gained at most 1.6 points, at
#'   up to 2.5 times the time (Vowel 3.7 -> 8.3 s, Soybean 2.6 -> 6.5 s). Measured and not adopted: choosing
#'   one of the starts by its training error (most starts tie at the lowest
#'   training error; over six starts the choice was up to 12.5 points behind
#'   the SVM), by its likelihood or by its number of relevance vectors.
#' @param solver How the full PCVM solves its M-step (Details of [pcvm()]):
#'   `"auto"` (the default) by preconditioned conjugate gradients while at
#'   least \eqn{\max(1000, n/4)} basis functions are active and then by a
#'   Cholesky factorisation from \eqn{G_A = K_A'K_A}; `"cholesky"` from
#'   \eqn{G = K'K} formed in the first iteration (at \eqn{O(n^3)}, the
#'   faster for a few thousand points or fewer); `"cg"` by conjugate
#'   gradients at every size (falling back to the direct solve where they do
#'   not converge). The iterates are the same up to rounding; Ny-PCVM's
#'   M-step is always direct (it is small).
#' @param em_rows The most training rows Ny-PCVM's EM runs on, for data in
#'   memory: where there are more, EM runs on a random sample of this many,
#'   stratified by class (R's random numbers, after the landmarks), and the
#'   fit's training predictions still cover every row. `Inf`: every row. Why
#'   50,000 by default: Ny-PCVM has at most as many weights as landmarks (300
#'   by default), while its EM iterates hundreds to thousands of times, each
#'   time over its rows. On 1e6 rows of [checkerboard()], EM on every row
#'   took 381 s and 9.9 GB and blew up at every width it tried (test accuracy
#'   0.772); on a sample of 50,000 rows, 43 s, 0.64 GB and 0.982
#'   ([sine_populations()]: 34 s, 0.45 GB, 0.971; the package's
#'   benchmarks). Below 50,000 rows nothing changes. The full PCVM and data
#'   in chunks use every row.
#' @param ... Nothing: an argument not named above is an error.
#' @returns A list of class `pcvm_control`.
#' @family probabilistic classification vector machine
#' @examples
#' # the reference code's stopping rule
#' pcvm_control(convergence = "weights")
#' @export
pcvm_control <- function(max_iter = NULL, tol = NULL, prune = 1e-3, optimize_width = FALSE,
                         convergence = c("latent", "weights"), start = c("fixed", "random"),
                         e_step = c("bounded", "reference", "exact"), starts = NULL,
                         solver = c("auto", "cholesky", "cg"), em_rows = 50000, ...) {
  check_no_more_arguments("pcvm_control", list(...), setdiff(names(formals(pcvm_control)), "..."),
                          aliases = c(maxit = "max_iter", maxiter = "max_iter", iter = "max_iter",
                                      tolerance = "tol", eps = "tol", restarts = "starts"))
  convergence <- match_choice(convergence, "convergence", c("latent", "weights"))
  start <- match_choice(start, "start", c("fixed", "random"))
  e_step <- match_choice(e_step, "e_step", c("bounded", "reference", "exact"))
  solver <- match_choice(solver, "solver", c("auto", "cholesky", "cg"))
  reference <- convergence == "weights"
  max_iter <- max_iter %||% if (reference) 500 else 5000
  tol <- tol %||% if (reference) 1e-3 else 3e-4
  # one start for the reference code's random start and for the width step
  # (each start would optimise its own width); otherwise NULL, which the fit
  # resolves from the number of training points (pcvm_default_starts())
  if (identical(start, "random") || isTRUE(optimize_width)) starts <- starts %||% 1
  validated_pcvm_control(list(max_iter = max_iter, tol = tol, prune = prune, optimize_width = optimize_width,
                              convergence = convergence, start = start, e_step = e_step, starts = starts,
                              solver = solver, em_rows = em_rows),
                         label = identity)
}

#' The default number of EM starts per pair: ten on small data, where the
#' optimum EM reaches varies most with its start and a start costs least,
#' else three (see `starts` in ?pcvm_control)
#' @noRd
pcvm_default_starts <- function(n) if (n < pcvm_small_data_points) 10L else 3L

# Fewer training points than this: ten EM starts by default
pcvm_small_data_points <- 250L

#' The fields of a pcvm_control, checked; `label` names a field in messages
#' (its name in pcvm_control(), `control$name` for a list given to a model)
#' @noRd
validated_pcvm_control <- function(values, label) {
  structure(list(
    max_iter = check_number(values$max_iter, label("max_iter"), lower = 1, allow_lower = TRUE, integer = TRUE),
    tol = check_number(values$tol, label("tol"), lower = 0),
    prune = check_number(values$prune, label("prune"), lower = 0, allow_lower = TRUE),
    optimize_width = check_flag(values$optimize_width, label("optimize_width")),
    convergence = check_choice(values$convergence, label("convergence"), c("latent", "weights")),
    start = check_choice(values$start, label("start"), c("fixed", "random")),
    e_step = check_choice(values$e_step, label("e_step"), c("bounded", "reference", "exact")),
    starts = if (!is.null(values$starts)) {
      check_number(values$starts, label("starts"), lower = 1, allow_lower = TRUE, integer = TRUE)
    },
    solver = check_choice(values$solver, label("solver"), c("auto", "cholesky", "cg")),
    em_rows = if (identical(values$em_rows, Inf)) Inf else {
      check_number(values$em_rows, label("em_rows"), lower = 2, allow_lower = TRUE, integer = TRUE)
    }
  ), class = "pcvm_control")
}

#' The starts of EM for a pair: the reference code's random one, or its
#' means (pcvm_control(start = "fixed"), the default: a deterministic fit).
#' With `starts` > 1, the further starts follow the reference code's random
#' start: drawn from R's RNG for `"random"`, and for `"fixed"` from the fixed
#' stream of cpp_deterministic_uniform() (start k from its own place in the
#' stream), so that the default fit stays a deterministic function of the
#' data and leaves R's random stream alone.
#' @noRd
pcvm_starts <- function(kind, starts, n_basis, signs) {
  n <- length(signs)
  lapply(seq_len(starts), function(k) {
    if (kind == "fixed" && k == 1L) return(list(weights = rep(0.7, n_basis), bias = 0, latent = 5 * signs + 0.5))
    if (kind == "random") {
      return(list(weights = stats::runif(n_basis) + 0.2, bias = stats::rnorm(1),
                  latent = 10 * stats::runif(n) * signs + stats::runif(n)))
    }
    # uniform on [0, 1) from the fixed stream, one column per draw
    u <- (cpp_deterministic_uniform(max(n_basis, n), 4L, (k - 1) * 2^40) + 1) / 2
    list(weights = u[seq_len(n_basis), 1] + 0.2, bias = stats::qnorm(min(max(u[1, 4], 1e-12), 1 - 1e-12)),
         latent = 10 * u[seq_len(n), 2] * signs + u[seq_len(n), 3])
  })
}

#' One pair's EM results from its starts (one list per start) as one: the
#' latent function of the pair is the average of theirs, f = K (y . mean w) +
#' mean b, a kernel expansion over the union of their relevance vectors. A
#' start whose every basis function was pruned counts as its bias-only model
#' (the pair's class proportions, as pcvm_pair_model() keeps it). A start
#' whose EM ended far behind the best start on the training data is left out
#' of the average (pcvm_dropped_starts()).
#' @noRd
pcvm_average_starts <- function(ems, signs) {
  if (length(ems) == 1L) return(ems[[1L]])
  pruned <- vapply(ems, function(em) isTRUE(em$all_pruned), logical(1))
  # a start stopped as a run-away (pcvm_narrowing_control()) is a failed
  # start, left out like one far behind; if every start ran away, the pair
  # has (and the average keeps) them all
  ran_away <- vapply(ems, function(em) isTRUE(em$ran_away), logical(1))
  dropped <- if (all(ran_away)) logical(length(ems)) else
    ran_away | pcvm_dropped_starts(ems, pruned | ran_away, length(signs))
  all_errors <- lapply(ems, `[[`, "training_errors")
  all_iterations <- vapply(ems, function(em) as.integer(em$iterations), integer(1))
  all_pruned <- pruned
  ems <- ems[!dropped]
  pruned <- pruned[!dropped]
  ems <- lapply(ems, function(em) {
    if (isTRUE(em$all_pruned)) {
      em$weights[] <- 0
      em$bias <- stats::qnorm(mean(signs > 0))
    }
    em
  })
  first <- ems[[1L]]
  first$weights <- Reduce(`+`, lapply(ems, `[[`, "weights")) / length(ems)
  first$bias <- mean(vapply(ems, `[[`, numeric(1), "bias"))
  first$all_pruned <- all(vapply(ems, function(em) isTRUE(em$all_pruned), logical(1)))
  first$iterations <- max(vapply(ems, function(em) as.integer(em$iterations), integer(1)))
  first$converged <- all(vapply(ems, function(em) isTRUE(em$converged) || isTRUE(em$all_pruned), logical(1)))
  first$hessian_fallbacks <- sum(vapply(ems, function(em) as.integer(em$hessian_fallbacks %||% 0L), integer(1)))
  first$start_training_errors <- all_errors
  first$start_iterations <- all_iterations
  first$start_bias_only <- all_pruned
  first$start_dropped <- dropped
  first$ran_away <- all(ran_away)
  first
}

#' The starts left out of a pair's average: those whose EM ended far behind
#' the best start on the pair's n training points (an EM that ran away). At
#' N = 30000 on the banana data, one of the default's three starts ended at
#' a training error of 0.0963 with weights blown up, the others at 0.0796
#' and 0.0750; averaging all three gave a test error 1.25 times e1071::svm()'s, the two
#' kept 1.06 times (bench/README.md, pcvm_accuracy.R). A start
#' is dropped when its final training error e exceeds the best start's e0 by
#' more than 10% of e0 and by more than three standard errors of the
#' difference, sqrt((e + e0) / n), McNemar's with every error of either
#' start counted as a disagreement (a bound). So on small data, where starts
#' differ by a few points and averaging them is what helps, none is
#' dropped. Bias-only starts (every basis function pruned) take no part:
#' they are neither dropped nor the best. The final training error is that of
#' the last E-step's latent values (the last of `training_errors`).
#' @noRd
pcvm_dropped_starts <- function(ems, pruned, n) {
  final <- vapply(ems, function(em) {
    errors <- em$training_errors
    if (length(errors)) errors[length(errors)] else NA_real_
  }, numeric(1))
  eligible <- !pruned & !is.na(final)
  dropped <- logical(length(ems))
  if (sum(eligible) < 2L) return(dropped)
  best <- min(final[eligible])
  gap <- final - best
  dropped[eligible] <- gap[eligible] > 0.1 * best & gap[eligible] > 3 * sqrt((final[eligible] + best) / n)
  dropped
}

#' A `control` made by pcvm_control(), its fields checked again (a list can
#' be edited after pcvm_control() made it)
#' @noRd
check_pcvm_control <- function(control) {
  fields <- c("max_iter", "tol", "prune", "optimize_width", "convergence", "start", "e_step", "starts", "solver",
              "em_rows")
  if (!inherits(control, "pcvm_control")) {
    krein_abort(sprintf("`control` must be made by pcvm_control(), not %s.", describe_value(control)))
  }
  extra <- setdiff(names(control), fields)
  absent <- setdiff(fields, names(control))
  if (length(extra) || length(absent)) {
    krein_abort(sprintf("`control` must have the fields of pcvm_control() (%s), but it %s.",
                        paste0("`", fields, "`", collapse = ", "),
                        paste(c(if (length(absent)) paste("lacks", paste0("`", absent, "`", collapse = ", ")),
                                if (length(extra)) paste("has", paste0("`", extra, "`", collapse = ", "), "besides")),
                              collapse = " and ")))
  }
  validated_pcvm_control(control, label = function(name) sprintf("control$%s", name))
}

#' The fit behind every pcvm() interface (the defaults are pcvm.default()'s,
#' filled in by fit_model()); over chunks, Ny-PCVM with one pass over the
#' chunks per EM iteration for all pairs of classes and all starts
#' (chunk_pcvm_basis())
#' @noRd
pcvm_fit <- function(inputs, landmarks, control, eps, m, threads) {
  control <- check_pcvm_control(control)
  control$starts <- control$starts %||% pcvm_default_starts(length(inputs$y))
  threads <- check_threads(threads)
  if (control$optimize_width) {
    if (control$starts > 1) {
      krein_abort("`optimize_width = TRUE` needs `starts = 1` in pcvm_control() (each start would optimise its own width).")
    }
    if (!is.null(landmarks)) krein_abort("`optimize_width = TRUE` needs the full PCVM (`landmarks = NULL`).")
    if (is.null(inputs$kernel) || !identical(inputs$kernel$name, "rbf")) {
      krein_abort("`optimize_width = TRUE` needs a Gaussian kernel, kernel_rbf().")
    }
  }
  warn_one_row_classes(table(inputs$y), "its pairs' models are fitted with that row as the class's only point")
  landmarks <- resolve_landmarks(landmarks, inputs, eps, m, threads)
  # Ny-PCVM's EM on a sample of many rows (`em_rows` in ?pcvm_control); the
  # training predictions at the end cover every row
  every_row <- inputs
  em_rows <- pcvm_em_sample(inputs, landmarks, control)
  if (!is.null(em_rows)) inputs <- rows_of_inputs(inputs, em_rows)
  basis <- if (inherits(inputs, "krein_chunked_inputs")) {
    chunk_pcvm_basis(inputs, landmarks, threads)
  } else if (is.null(landmarks)) {
    list(K = if (!control$optimize_width) training_kernel(inputs, threads))
  } else {
    list(C = landmark_columns(inputs, landmarks, seq_along(inputs$y), threads), classes = landmarks$class,
         points = landmarks$points)
  }
  narrowing <- pcvm_narrows_width(inputs, control)
  models <- if (is.null(basis$em)) {
    one_vs_one_pairs(inputs$y, function(members, pair_y, pair) {
      pcvm_pair(inputs, basis, pair, pcvm_narrowing_control(control, narrowing, length(members)), threads)
    })
  } else {
    # over chunks: the EMs of all pairs and all their starts in lockstep,
    # each pass over the chunks serving every EM still running
    # (chunk_pcvm_basis()), so that the starts add no passes: the data are
    # read as often as the longest EM iterates, not as often as the sum
    # over the starts of their longest
    problems <- one_vs_one_pairs(inputs$y, function(members, pair_y, pair) {
      pcvm_pair_problem(inputs, basis, pair, control)
    })
    per_pair <- basis$em(problems, control)
    Map(function(problem, ems) {
      pcvm_pair_model(inputs, basis, problem, pcvm_average_starts(ems, problem$signs), inputs$kernel)
    }, problems, per_pair)
  }
  # the training predictions of predict(fit): prediction needs only the
  # relevance vectors (or landmarks); `x` is kept for plot()
  training_latent <- pcvm_training_latent(models, inputs, basis, threads)
  for (p in seq_along(models)) models[[p]]$trouble <- pcvm_pair_trouble(models[[p]], training_latent[, p], inputs$y)
  if (narrowing) {
    basis <- NULL  # the n x n kernel is not needed any more
    narrowed <- vapply(models, function(model) {
      nzchar(model$trouble) && sum(as.integer(inputs$y) %in% model$pair) >= pcvm_narrowing_min_points()
    }, logical(1))
    for (p in which(narrowed)) {
      narrower <- pcvm_narrower_pair(models[[p]], training_latent[, p], inputs, landmarks, control, threads)
      models[[p]] <- narrower$model
      training_latent[, p] <- narrower$latent
    }
  }
  bias_only <- vapply(models, `[[`, logical(1), "bias_only")
  if (any(bias_only)) {
    krein_warn(sprintf(paste("PCVM pruned every basis function for %s; %s a bias-only model (the class",
                             "proportions). Lower `prune` in pcvm_control() or choose another kernel."),
                       paste(vapply(models[bias_only], `[[`, character(1), "label"), collapse = ", "),
                       if (sum(bias_only) == 1L) "that pair keeps" else "those pairs keep"))
  }
  trouble <- vapply(models, `[[`, character(1), "trouble")
  if (any(nzchar(trouble))) {
    krein_warn(sprintf(paste("PCVM's EM went wrong for %s; the model may be poor. Try",
                             "`pcvm_control(e_step = \"bounded\")` if another E-step was chosen, a",
                             "narrower kernel, or Ny-PCVM (`landmarks`); see ?pcvm, \"Which E-step\"."),
                       paste(sprintf("%s (%s)", vapply(models, `[[`, character(1), "label"), trouble)[nzchar(trouble)],
                             collapse = ", ")),
               class = "krein_pcvm_trouble_warning")
  }
  fallbacks <- vapply(models, function(model) as.integer(model$hessian_fallbacks), integer(1))
  if (any(fallbacks > 0L)) {
    krein_warn(sprintf(paste("The Cholesky factorisation of PCVM's M-step failed in rounding in %d EM",
                             "iteration%s (weights far too large); those steps were solved by",
                             "eigendecomposition."), sum(fallbacks), if (sum(fallbacks) == 1L) "" else "s"))
  }
  # (a run-away stopped early is reported as trouble, above)
  unconverged <- !vapply(models, `[[`, logical(1), "converged") & !bias_only &
    !vapply(models, function(model) isTRUE(model$ran_away), logical(1))
  if (any(unconverged)) {
    krein_warn(sprintf("PCVM reached `max_iter` (%d) without converging for %s; the last iterate is used.",
                       control$max_iter, paste(vapply(models[unconverged], `[[`, character(1), "label"),
                                               collapse = ", ")))
  }
  # the kernel is stored once, in the fit's input description; a pair keeps
  # its own only when its width was optimised or narrowed
  if (!control$optimize_width) {
    models <- lapply(models, function(model) {
      if (is.null(model$narrowed)) model$kernel <- NULL
      model
    })
  }
  if (!is.null(em_rows)) training_latent <- pcvm_latent_in_blocks(models, every_row, landmarks, threads)
  list(models = models, control = control, landmarks = landmarks, training_latent = training_latent,
       x = if (is.null(landmarks)) inputs$x, threads = threads, em_rows = if (!is.null(em_rows)) length(em_rows))
}

#' The training rows Ny-PCVM's EM runs on where it does not run on all
#' (NULL): for Ny-PCVM on data in memory with more than `control$em_rows`
#' rows, a random sample of about that many, each class its share (at least
#' 100 rows, or every row of a smaller class), drawn from R's RNG
#' @noRd
pcvm_em_sample <- function(inputs, landmarks, control) {
  n <- length(inputs$y)
  if (is.null(landmarks) || is.null(inputs$x) || inherits(inputs, "krein_chunked_inputs") || n <= control$em_rows) {
    return(NULL)
  }
  share <- control$em_rows / n
  rows <- lapply(split(seq_len(n), inputs$y), function(members) {
    if (length(members) == 0L) return(integer())
    take <- min(length(members), max(100L, round(length(members) * share)))
    members[sample.int(length(members), take)]
  })
  sort(unlist(rows, use.names = FALSE))
}

#' The inputs of some training rows (data in memory)
#' @noRd
rows_of_inputs <- function(inputs, rows) {
  inputs$x <- inputs$x[rows, , drop = FALSE]
  inputs$y <- inputs$y[rows]
  inputs
}

#' Ny-PCVM's pairwise latent values of every training row, from their
#' kernel against the landmarks in blocks of rows (nystrom_block_rows()),
#' never n x m at once; a pair fitted on a narrower kernel uses its own
#' @noRd
pcvm_latent_in_blocks <- function(models, inputs, landmarks, threads) {
  n <- length(inputs$y)
  latent <- matrix(0, n, length(models))
  size <- nystrom_block_rows(nrow(landmarks$points))
  for (start in seq(1L, n, by = size)) {
    block <- start:min(n, start + size - 1L)
    x <- inputs$x[block, , drop = FALSE]
    K <- evaluate_kernel(inputs$kernel, x, landmarks$points, threads)
    latent[block, ] <- pcvm_pair_latent(models, function(model) {
      if (is.null(model$kernel)) K else evaluate_kernel(model$kernel, x, landmarks$points, threads)
    }, length(block))
  }
  latent
}

#' The EM problem of a pair of classes (the first +1, the second -1): its
#' training rows and their signs, its basis functions (Ny-PCVM: the
#' landmarks of its two classes, `columns`; PCVM: its rows) and their signs,
#' and the start of EM, drawn here from R's RNG
#' @noRd
pcvm_pair_problem <- function(inputs, basis, pair, control) {
  levels <- levels(inputs$y)
  rows <- which(as.integer(inputs$y) %in% pair)
  signs <- ifelse(as.integer(inputs$y[rows]) == pair[1], 1, -1)
  low_rank <- !is.null(basis$classes)
  if (low_rank) {
    # the landmarks of the pair's classes are its basis functions
    columns <- which(as.integer(basis$classes) %in% pair)
    column_signs <- ifelse(as.integer(basis$classes[columns]) == pair[1], 1, -1)
    if (!all(c(1, -1) %in% column_signs)) {
      krein_abort(sprintf("Ny-PCVM needs landmarks of both classes %s and %s; select more landmarks.",
                          levels[pair[1]], levels[pair[2]]))
    }
  } else {
    columns <- NULL
    column_signs <- signs
  }
  n_basis <- length(column_signs)
  starts <- pcvm_starts(control$start %||% "random", control$starts %||% 1L, n_basis, signs)
  list(pair = pair, rows = rows, signs = signs, low_rank = low_rank, columns = columns,
       column_signs = column_signs, start = starts[[1L]], starts = starts)
}

# What went wrong in a pair's EM (pcvm_trouble()) from its training latent
# values `latent` (over all training points): the training errors of its
# starts but those that pruned every basis function (their error rises as
# the basis functions die, and a bias-only pair is reported as such) and
# those left out of the model (pcvm_dropped_starts(); reported as such).
pcvm_pair_trouble <- function(model, latent, y) {
  if (model$bias_only) return("")
  rows <- as.integer(y) %in% model$pair
  errors <- model$start_training_errors %||% list(model$training_errors)
  if (!is.null(model$start_bias_only)) errors <- errors[!model$start_bias_only & !model$start_dropped]
  # a start stopped as a run-away has blown up whatever the average of the others
  pcvm_trouble(errors, max(abs(latent[rows])), sum(rows), ran_away = isTRUE(model$ran_away))
}

# The training latent value beyond which PCVM's weights have blown up
# (pcvm_trouble()); where a blown-up pair is fitted again on a narrower
# kernel, EM stops there (pcvm_narrowing_control()).
pcvm_run_away_latent <- function() 1000

# The fewest points of a pair whose EM went wrong for it to be fitted again
# with a narrower kernel (pcvm_narrower_pair()). Below, a rise of the
# training error is EM pruning an early interpolating basis, and the
# narrower kernel that goes right only interpolates: on kernlab's
# promotergene by formula (74 training points, 171 columns) four of ten
# splits were refitted at 4/p, with test accuracy 0.44-0.56 against
# 0.75-0.84 on the others. Run-aways of EM are a large-N phenomenon (see
# ?pcvm, Which E-step).
pcvm_narrowing_min_points <- function() 1000L

# Whether a pair whose EM went wrong is fitted again with a narrower
# Gaussian kernel: the full PCVM or Ny-PCVM on data in memory, on the
# Gaussian kernel whose width the data chose (the default kernel), its own
# kernel values (no spectrum correction) and no optimised width. Ny-PCVM's
# basis functions are the landmarks' kernel columns, pruned by the same
# prior, so a wide kernel runs away there as in the full PCVM
# (checkerboard(20000), 300 landmarks, gamma = 1/p: training latent values
# up to 4.5e4 and test accuracy 0.489).
pcvm_narrows_width <- function(inputs, control) {
  # (width_from_data: a kernel_rbf() without gamma, see finish_inputs())
  isTRUE(inputs$width_from_data) && is.null(inputs$precomputed) && !control$optimize_width &&
    !inherits(inputs, "krein_chunked_inputs")
}

# The control of a pair's EM: where a pair that blows up is fitted again on
# a narrower kernel (`narrowing`, and pcvm_narrowing_min_points() or more
# points), its EM stops once its weights have blown up -- that fit is
# replaced by one on a narrower kernel (or, where every width blows up, the
# one of lowest training error is kept, with its warning), and a run-away
# takes thousands of iterations to settle (checkerboard(20000), Ny-PCVM at
# gamma = 1: 4,141 iterations and 62 s of a 129 s fit).
pcvm_narrowing_control <- function(control, narrowing, points) {
  if (narrowing && points >= pcvm_narrowing_min_points()) control$stop_latent_beyond <- pcvm_run_away_latent()
  control
}

# A pair whose EM went wrong on the width the data chose, fitted again with
# gamma doubled, up to three times, until EM goes right; if it never does,
# the fit of the lowest training error (the first fit's included). Why:
# PCVM's prior prunes a wide kernel's nearly collinear basis functions down
# to a handful at large N
# (banana(10000), gamma = 1/p = 0.5: 7 relevance vectors, the training
# error rising from 0 to 0.11 during EM and the weights blowing up; test
# error 0.110 against e1071::svm()'s 0.076 with the same width), while a
# narrower one keeps enough of them (gamma = 1: 23 relevance vectors, no
# trouble, 0.078). Only pairs of pcvm_narrowing_min_points() or more.
# `latent` is the pair's training latent values.
# Returns the pair's model (a narrower one has its own `kernel` and
# `narrowed`: the data's width and what went wrong there) and its training
# latent values.
pcvm_narrower_pair <- function(model, latent, inputs, landmarks, control, threads) {
  rows <- which(as.integer(inputs$y) %in% model$pair)
  signs <- ifelse(as.integer(inputs$y[rows]) == model$pair[1], 1, -1)
  training_error <- function(latent) mean(sign(latent[rows]) != signs)
  # Ny-PCVM's coefficients run over all landmarks, the PCVM's over its
  # relevance vectors
  kernel_of <- function(model) {
    evaluate_kernel(model$kernel, inputs$x, if (is.null(landmarks)) model$points else landmarks$points, threads)
  }
  narrowed <- list(gamma = inputs$kernel$params$gamma, trouble = model$trouble)
  candidates <- list(list(model = model, latent = latent, error = training_error(latent)))
  kernel <- inputs$kernel
  for (attempt in 1:3) {
    kernel$params$gamma <- 2 * kernel$params$gamma
    pair_inputs <- inputs
    pair_inputs$kernel <- kernel
    # the pair's own kernel matrix (pcvm_pair() takes it whole), or every
    # training row's kernel against the landmarks at the new width
    basis <- if (is.null(landmarks)) {
      list(K = evaluate_kernel(kernel, inputs$x[rows, , drop = FALSE], NULL, threads))
    } else {
      list(C = landmark_columns(pair_inputs, landmarks, seq_along(inputs$y), threads), classes = landmarks$class,
           points = landmarks$points)
    }
    refit <- pcvm_pair(pair_inputs, basis, model$pair, pcvm_narrowing_control(control, TRUE, length(rows)), threads)
    basis <- NULL
    latent <- pcvm_pair_latent(list(refit), kernel_of, length(inputs$y))[, 1]
    refit$trouble <- pcvm_pair_trouble(refit, latent, inputs$y)
    refit$narrowed <- narrowed
    candidates[[attempt + 1L]] <- list(model = refit, latent = latent, error = training_error(latent))
    if (!nzchar(refit$trouble)) return(candidates[[attempt + 1L]])
  }
  candidates[[which.min(vapply(candidates, `[[`, numeric(1), "error"))]]
}

# One binary PCVM on the points of classes pair[1] (+1) and pair[2] (-1), in
# memory.
pcvm_pair <- function(inputs, basis, pair, control, threads) {
  problem <- pcvm_pair_problem(inputs, basis, pair, control)
  rows <- problem$rows
  signs <- problem$signs
  kernel <- inputs$kernel
  kernel_columns <- if (problem$low_rank) {
    basis$C[rows, problem$columns, drop = FALSE]
  } else if (control$optimize_width) {
    evaluate_kernel(kernel, inputs$x[rows, , drop = FALSE], NULL, threads)
  } else if (length(rows) == nrow(basis$K)) {
    basis$K  # two classes: no copy of the n x n kernel
  } else {
    basis$K[rows, rows, drop = FALSE]
  }
  width_step <- if (control$optimize_width) function(active, weights, bias, Z) {
    kernel <<- optimize_rbf_width(kernel, inputs$x[rows, , drop = FALSE], active, signs,
                                  list(weights = weights, bias = bias), Z, threads)
    evaluate_kernel(kernel, inputs$x[rows, , drop = FALSE], NULL, threads)
  }
  # the control list carries the full PCVM's M-step solver (`solver`)
  # one call for all starts: they share the basis's QR (Ny-PCVM) or the
  # sketch of K'K behind the full PCVM's CG steps
  ems <- cpp_pcvm_fit_starts(kernel_columns, problem$low_rank, signs, problem$column_signs, problem$starts,
                             control, width_step, threads)
  pcvm_pair_model(inputs, basis, problem, pcvm_average_starts(ems, signs), kernel)
}

#' A pair's model from its EM result (cpp_pcvm_fit()'s or the chunked
#' EM's); `kernel` is the one EM ended with (its own with optimize_width)
#' @noRd
pcvm_pair_model <- function(inputs, basis, problem, em, kernel) {
  levels <- levels(inputs$y)
  pair <- problem$pair
  rows <- problem$rows
  signs <- problem$signs
  columns <- problem$columns
  column_signs <- problem$column_signs
  low_rank <- problem$low_rank
  if (em$all_pruned) {
    # no basis function left: the maximum-likelihood probit model of the
    # pair without them, P(+1) = the proportion of its first class
    em$weights[] <- 0
    em$bias <- stats::qnorm(mean(signs > 0))
  }
  w_full <- em$weights
  b <- em$bias
  iterations <- em$iterations
  converged <- em$converged
  active <- which(w_full > 0)
  coefficients <- column_signs[active] * w_full[active]
  if (low_rank) {
    # over all landmarks (zero off the relevance vectors): f(x) = k(x, L)' a + b
    relevant <- columns[active]
    a <- numeric(length(basis$classes))
    a[relevant] <- coefficients
    coefficients <- a
  } else {
    relevant <- rows[active]
  }
  list(pair = pair, label = sprintf("%s vs %s", levels[pair[1]], levels[pair[2]]),
       relevant = relevant, relevant_class = if (low_rank) basis$classes[relevant] else inputs$y[relevant],
       weights = w_full[active], coefficients = coefficients, bias = b,
       iterations = iterations, converged = converged, bias_only = em$all_pruned, kernel = kernel,
       ran_away = isTRUE(em$ran_away),
       # the run's health (see pcvm_trouble(), filled in by pcvm_fit())
       training_errors = em$training_errors, hessian_fallbacks = em$hessian_fallbacks %||% 0L,
       # with several starts (pcvm_control(starts)): each start's training
       # errors and iterations (`training_errors` is the first start's)
       start_training_errors = em$start_training_errors, start_iterations = em$start_iterations,
       start_bias_only = em$start_bias_only, start_dropped = em$start_dropped,
       # the full PCVM's M-steps: CG iterations and steps, fallbacks to the
       # direct solve, the sketch's rank and |A| where G_A was formed
       solver = if (!low_rank) em$solver,
       points = if (low_rank) basis$points[relevant, , drop = FALSE] else if (!is.null(inputs$x)) inputs$x[relevant, , drop = FALSE])
}

# What went wrong in a pair's EM, as words ("" when nothing did):
#   - the training error rose during EM: its last iterate's error exceeds the
#     lowest of the iterations after the first (the first E-step starts from
#     latent values consistent with the labels) by at least 10 percentage
#     points, by at least 5 points and by more than 1 percentage point plus
#     the lowest error itself. Smaller rises are EM pruning an early
#     interpolating basis on small data, not a run-away: 0 -> 0.068 on
#     promotergene (74 training points), 0.016 -> 0.049 on Ionosphere (245),
#     both more accurate on test data than e1071::svm (bench/real_data.R);
#     run-aways of EM rise by 19-32 points (0.08 -> 0.27 in the tests,
#     0.047 -> 0.37 at N = 1e4);
#   - the weights blew up: a training latent value beyond 1000 in magnitude.
#     f is on the probit scale, where |f| = 40 already gives probabilities of
#     0 and 1 in double precision; healthy fits stay within a few hundred
#     (checkerboard, N = 1e4: weights up to about 100), a run-away reaches
#     1e5-1e6.
pcvm_trouble <- function(training_errors, largest_latent, n, ran_away = FALSE) {
  problems <- character()
  # one vector per EM start (pcvm_control(starts)); the first rise is reported
  if (!is.list(training_errors)) training_errors <- list(training_errors)
  for (errors in training_errors) {
    later <- errors[-1L]
    if (length(later) < 2L) next
    lowest <- min(later)
    last <- later[length(later)]
    if (last - lowest >= 0.1 && (last - lowest) * n >= 5 && last > 2 * lowest + 0.01) {
      problems <- c(problems, sprintf("its training error rose from %.3g to %.3g during EM", lowest, last))
      break
    }
  }
  if (ran_away) {
    # a start EM stopped once its weights had blown up (pcvm_narrowing_control())
    problems <- c(problems, sprintf("its weights blew up (training latent values beyond %.2g, where EM was stopped)",
                                    pcvm_run_away_latent()))
  } else if (!is.na(largest_latent) && largest_latent > pcvm_run_away_latent()) {
    problems <- c(problems, sprintf("its weights blew up (training latent values up to %.2g)", largest_latent))
  }
  paste(problems, collapse = " and ")
}

# The width step of pcvm_control(optimize_width = TRUE): documented there.
optimize_rbf_width <- function(kernel, x, active, signs, step, Z, threads) {
  coefficients <- signs[active] * step$weights
  residual <- function(log_gamma) {
    K_active <- evaluate_kernel(kernel_rbf(exp(log_gamma)), x, x[active, , drop = FALSE], threads)
    sum((Z - K_active %*% coefficients - step$bias)^2)
  }
  current <- log(kernel$params$gamma)
  best <- stats::optimize(residual, c(current - 1, current + 1), tol = 1e-3)$minimum
  kernel_rbf(exp(best))
}

# Pairwise latent values f (n x pairs) of points given by their kernels.
pcvm_pair_latent <- function(models, kernel_of, n) {
  f <- vapply(models, function(model) {
    if (isTRUE(model$bias_only)) return(rep(model$bias, n))
    drop(kernel_of(model) %*% model$coefficients) + model$bias
  }, numeric(n))
  matrix(f, nrow = n)
}

# For each pair model, the kernel of the new points against its expansion
# points: relevance vectors (PCVM) or landmarks (Ny-PCVM).
pcvm_new_kernels <- function(object, new) {
  lm <- object$landmarks
  if (!is.null(lm)) {
    K <- new_kernels(object, new, points = lm$points, columns = lm$indices)$K
    # a pair fitted again with a narrower kernel (pcvm_narrower_pair())
    return(function(model) if (is.null(model$kernel)) K else evaluate_kernel(model$kernel, new$x, lm$points, object$threads))
  }
  function(model) {
    # a width optimised for this pair (pcvm_control(optimize_width = TRUE))
    if (!is.null(model$kernel)) return(evaluate_kernel(model$kernel, new$x, model$points, object$threads))
    new_kernels(object, new, points = model$points, columns = model$relevant)$K
  }
}

# The training latent values, from the kernel columns the fit computed anyway
pcvm_training_latent <- function(models, inputs, basis, threads) {
  if (!is.null(basis$latent)) return(basis$latent(models))
  kernel_of <- if (!is.null(basis$C)) {
    C <- basis$C
    function(model) C
  } else if (!is.null(basis$K)) {
    function(model) basis$K[, model$relevant, drop = FALSE]
  } else {
    function(model) evaluate_kernel(model$kernel, inputs$x, model$points, threads)
  }
  pcvm_pair_latent(models, kernel_of, length(inputs$y))
}

#' @export
krein_scores.pcvm <- function(object, new, type) {
  if (is.null(new)) {
    f <- object$training_latent
    names <- rownames(object$x)
  } else {
    points <- new$x %||% new$K
    names <- rownames(points)
    f <- pcvm_pair_latent(object$models, pcvm_new_kernels(object, new), nrow(points))
  }
  classes <- length(object$levels)
  if (type == "latent") {
    dimnames(f) <- list(names, vapply(object$models, `[[`, character(1), "label"))
    return(f)
  }
  # the pairs' models are in class_pairs() order, f > 0 favouring the first
  # class; class i's decision value is the sum of its pairwise latent values,
  # signed to favour i; its probability couples the pairs' Psi(f)
  p <- if (type == "decision") {
    pairwise_class_scores(f, classes)$decision
  } else {
    couple_pairwise(stats::pnorm(f), classes, check_threads(object$threads))
  }
  dimnames(p) <- list(names, object$levels)
  p
}

#' @export
model_title.pcvm <- function(x) nystrom_title(x$landmarks)

#' @export
model_print_lines.pcvm <- function(x) {
  relevant <- pcvm_relevance_count(x)
  iterations <- vapply(x$models, `[[`, integer(1), "iterations")
  bias_only <- vapply(x$models, function(m) isTRUE(m$bias_only), logical(1))
  ran_away <- vapply(x$models, function(m) isTRUE(m$ran_away), logical(1))
  converged <- vapply(x$models, `[[`, logical(1), "converged") | bias_only
  c(paste0(if (length(x$models) == 1L) "one binary model" else paste(length(x$models), "pairwise models"),
           "; relevance vectors: ", relevant, " (", format(100 * relevant / length(x$y), digits = 3), "%)"),
    paste0("EM iterations: ", paste(unique(range(iterations)), collapse = "-"),
           if (all(converged)) {
             ", converged"
           } else if (all(converged | ran_away)) {
             ", converged but where EM was stopped as its weights blew up"
           } else {
             ", NOT converged (max_iter reached)"
           }),
    if (any(bias_only)) paste0("bias only (every basis function pruned): ",
                               paste(vapply(x$models[bias_only], `[[`, character(1), "label"), collapse = ", ")),
    if (!is.null(x$em_rows)) {
      sprintf("EM on a stratified random %s of the %s training rows (pcvm_control(em_rows))",
              format_rows(x$em_rows), format_rows(length(x$y)))
    },
    pcvm_narrowed_lines(x),
    pcvm_trouble_lines(x),
    pcvm_dropped_lines(x),
    if (x$control$optimize_width) paste0("optimised gamma: ", paste(format(pcvm_widths(x), digits = 4), collapse = ", ")))
}

# "gamma narrowed: <pair> (<gamma> where EM went wrong: <what>; <gamma'>)"
# for the pairs fitted again with a narrower kernel (pcvm_narrower_pair())
pcvm_narrowed_lines <- function(x) {
  narrowed <- Filter(function(m) !is.null(m$narrowed), x$models)
  if (!length(narrowed)) return(NULL)
  paste0("gamma narrowed where EM went wrong at the data's width: ",
         paste(vapply(narrowed, function(m) {
           sprintf("%s (%s: %s; now %s)", m$label, format(m$narrowed$gamma, digits = 4), m$narrowed$trouble,
                   format(m$kernel$params$gamma, digits = 4))
         }, character(1)), collapse = "; "))
}

# "EM went wrong: <pair> (<what>)" for the pairs whose EM did (none for fits
# made before krein recorded it)
pcvm_trouble_lines <- function(x) {
  trouble <- vapply(x$models, function(m) m$trouble %||% "", character(1))
  if (!any(nzchar(trouble))) return(NULL)
  paste0("EM went wrong: ", paste(sprintf("%s (%s)", vapply(x$models, `[[`, character(1), "label"), trouble)[nzchar(trouble)],
                                  collapse = "; "))
}

# "EM starts left out: <pair> (<k> of <starts>: training error <e> against
# the best start's <e0>)" for the pairs that dropped starts
# (pcvm_dropped_starts(); none for fits made before krein dropped any)
pcvm_dropped_lines <- function(x) {
  described <- vapply(x$models, function(m) {
    dropped <- m$start_dropped
    if (!any(dropped)) return("")
    final <- vapply(m$start_training_errors, function(e) e[length(e)], numeric(1))
    kept <- !dropped & !m$start_bias_only
    sprintf("%s (%d of %d: training error %s against the best start's %s)", m$label, sum(dropped),
            length(dropped), paste(format(final[dropped], digits = 3), collapse = ", "),
            format(min(final[kept]), digits = 3))
  }, character(1))
  if (!any(nzchar(described))) return(NULL)
  paste0("EM starts left out: ", paste(described[nzchar(described)], collapse = "; "))
}

# Distinct relevance vectors over the pairwise models (training rows or landmarks)
pcvm_relevance_count <- function(x) length(unique(unlist(lapply(x$models, `[[`, "relevant"))))

# Each pair's Gaussian width: its own (optimised or narrowed) or the fit's
pcvm_widths <- function(x) {
  vapply(x$models, function(m) (m$kernel %||% model_kernel(x))$params$gamma %||% NA_real_, numeric(1))
}

#' @export
model_summary.pcvm <- function(object) {
  models <- data.frame(
    pair = vapply(object$models, `[[`, character(1), "label"),
    relevance_vectors = vapply(object$models, function(m) length(m$relevant), integer(1)),
    bias = vapply(object$models, `[[`, numeric(1), "bias"),
    iterations = vapply(object$models, `[[`, integer(1), "iterations"),
    converged = vapply(object$models, `[[`, logical(1), "converged"),
    bias_only = vapply(object$models, function(m) isTRUE(m$bias_only), logical(1)),
    trouble = vapply(object$models, function(m) m$trouble %||% "", character(1)),
    # EM starts left out of the pair's average (pcvm_dropped_starts())
    starts_dropped = vapply(object$models, function(m) sum(m$start_dropped), integer(1)),
    check.names = FALSE)
  if (object$control$optimize_width || any(vapply(object$models, function(m) !is.null(m$narrowed), logical(1)))) {
    models$gamma <- pcvm_widths(object)
  }
  control <- object$control
  list(`Pairwise models` = models,
       EM = sprintf("max_iter = %d, tol = %s, convergence = \"%s\", prune = %s, optimize_width = %s, starts = %d%s",
                    control$max_iter, format(control$tol),
                    # fits made before the rule was selectable used "weights"
                    control$convergence %||% "weights", format(control$prune), control$optimize_width,
                    # fits made before starts were averaged had one
                    as.integer(control$starts %||% 1L),
                    if (is.null(object$landmarks)) "" else
                      sprintf("; %d landmarks (%s)", length(object$landmarks$class), object$landmarks$method)))
}

# Inputs that are not two columns: the sorted relevance-vector weights of each
# pairwise model; with `data`, the class probabilities of its points.
#' @export
plot_model_diagnostic.pcvm <- function(x, data, main, predict_args, ...) {
  if (!is.null(data)) return(NextMethod())
  weights <- lapply(x$models, `[[`, "weights")
  # bias-only pairs have no weights
  graphics::plot(NULL, xlim = c(1, max(1L, lengths(weights))), ylim = c(0, max(1e-3, unlist(weights))),
                 xlab = "relevance vector", ylab = "weight w", main = main, ...)
  col <- grDevices::hcl.colors(length(weights), "Dark 3")
  for (k in seq_along(weights)) {
    graphics::points(seq_along(weights[[k]]), sort(weights[[k]], decreasing = TRUE), col = col[k], pch = 19)
  }
  graphics::legend("topright", legend = vapply(x$models, `[[`, character(1), "label"), col = col,
                   pch = 19, bty = "n")
  invisible(x)
}

model_registration_pcvm <- function() register_krein_model(
  full_form = function(args) is.null(args$landmarks), full_copies = 3,
  forms = landmark_forms(), full_max_rows = 5500,
  "pcvm", label = "Probabilistic classification vector machine", fit = "pcvm_fit",
  parameters = data.frame(parameter = character(), class = character(), label = character(),
                          stringsAsFactors = FALSE),
  needs_inputs = function(args) landmarks_need_inputs(args$landmarks) || isTRUE(args$control$optimize_width),
  types = "latent", chunks = function(args) invisible(),
  landmark_args = function(landmarks) list(landmarks = landmarks)
)

# 2-D decision regions circle the relevance vectors of every pairwise model
# (for Ny-PCVM, the landmarks among them), as Chen et al. (2009) show them.
#' @export
plot_marks.pcvm <- function(x) {
  points <- lapply(x$models, `[[`, "points")
  if (all(vapply(points, is.null, logical(1)))) return(NULL)
  unique(do.call(rbind, points))
}
