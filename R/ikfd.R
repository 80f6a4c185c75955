# ikfd(): the indefinite kernel Fisher discriminant, full (with the
# leave-one-out choice of its ridge) and Nystroem (Ny-iKFD, in memory and
# over chunks), the calibration of its scores, prediction, print, summary,
# plot and registration. The landmark passes are in R/landmark_pass.R.

#' Indefinite kernel Fisher discriminant, full and Nystroem low-rank
#'
#' The kernel Fisher discriminant for positive definite and indefinite kernels
#' (IKFD; Pekalska and Haasdonk 2009, Sec. III-A, eqs. 7-8): the Fisher
#' discriminant in the Krein space of the kernel
#' equals the one in its associated Hilbert space, so the usual kernelised
#' formula applies to any symmetric similarity. With `landmarks`, the
#' Nystroem low-rank version Ny-iKFD of Schleif, Gisbrecht and Tino (2018,
#' Sec. 5.2), linear in the number of training
#' points in time and memory.
#'
#' @section The discriminant:
#' For two groups \eqn{A} and \eqn{B} of training points, with \eqn{K} the
#' \eqn{n \times n} training kernel (not centred, as in the DisTools reference
#' code), \eqn{s_G = K_{\cdot G} 1} and \eqn{n_G = |G|}:
#' \deqn{N = \sum_G P_G (K_{\cdot G} K_{\cdot G}' - s_G s_G' / n_G), \quad
#'   \alpha = (N + \mu I)^{-1} (s_A / n_A - s_B / n_B),}
#' \eqn{b = -\alpha'(s_A / n_A + s_B / n_B) / 2} and \eqn{f(x) = k_x'\alpha + b}
#' (eq. 8). `weights = "equal"` takes \eqn{P_G = 1} (DisTools' `ikfd.m`, the
#' default); `"prior"` takes \eqn{P_G = n_G / n}, the priors of eq. 7. Two
#' classes give one discriminant, positive for the first class. More classes
#' are handled one-vs-rest, as DisTools does: discriminant \eqn{i} separates
#' class \eqn{i} from the others. DisTools predicts the argmax of the \eqn{c}
#' decision values; krein predicts the most probable class under the
#' calibration below and offers DisTools' rule as `predict(rule = "decision")`
#' (see Prediction).
#'
#' @section Regularisation:
#' By default (`ridge_relative = NULL`) iKFD chooses its ridge from
#' the data, by leave-one-out cross-validation in closed form (Cawley and
#' Talbot 2003): with equal weights, each discriminant's direction is that of
#' the ridge regression of its first group's indicator on the kernel rows
#' \eqn{k_i} (with an unpenalised intercept and the penalty
#' \eqn{\mu \|\alpha\|^2}), whose leave-one-out residuals follow from one
#' eigendecomposition of \eqn{K} for every \eqn{\mu} (for Ny-iKFD, of its
#' kernel \eqn{\hat K}; see Nystroem low rank). Over the
#' `ridge_relative` in \eqn{10^{-6}, 10^{-5.5}, \dots, 10} it computes the
#' sum of squared leave-one-out residuals over the points and discriminants
#' (PRESS), and takes the largest ridge whose PRESS is within one standard
#' error of the smallest (the one-standard-error rule of Breiman, Friedman,
#' Olshen and Stone 1984: the most regularised fit the data cannot tell from
#' the best; the standard error is \eqn{\sqrt{n}} times the standard
#' deviation of the points' losses at the smallest PRESS). On ten random
#' 70/30 splits of each of six real data sets (mlbench's Sonar, Glass,
#' PimaIndiansDiabetes and Vehicle, iris, kernlab's promotergene) its mean
#' test accuracy equalled that of the smallest PRESS (81.2% against 81.1%).
#' The fit keeps the grid, the sums, the standard error and the chosen
#' ridge as `ridge_selection` (where no ridge gives finite sums, as for
#' kernel rows without spread within the classes, it takes `1e-4`); with
#' `weights = "prior"` the same choice is used (it is exact for equal
#' weights). The eigendecomposition and the sums cost one to two fits more
#' (\eqn{O(n^3)}; 1.5 s -> 4.2 s on 1400 rows of kernlab's spam). A good ridge depends on the kernel's spectrum: Gaussian
#' kernels on dense data take small ones (mlbench's Vowel: about
#' \eqn{3 \cdot 10^{-6}}), flat spectra such as those of edit-distance
#' kernels need large ones (kernlab's promotergene: about 3; with
#' \eqn{10^{-4}} the discriminant separates the training classes perfectly
#' and predicts test points barely above chance). A number gives
#' a fixed ridge instead; the papers' experiments take theirs from
#' cross-validation (see [tune_krein()]).
#'
#' `ridge_relative` is relative to the scale of the within-class scatter:
#' \eqn{\mu = \mathrm{ridge\_relative} \cdot \mathrm{tr}(N) / n}, the mean
#' eigenvalue of \eqn{N} times `ridge_relative`. Scaling the kernel by
#' \eqn{c} scales \eqn{N} by \eqn{c^2}; a relative ridge leaves the classifier
#' unchanged, so one default suits Gaussian kernels with values in \eqn{[0,
#' 1]} and dissimilarity kernels with values in the thousands alike. The
#' absolute \eqn{\mu} is resolved once, at the fit, from the training scatter
#' of each discriminant; the fit keeps it as `ridge` and print() shows it.
#' DisTools' absolute \eqn{\mu = 10^{-4}} corresponds to `ridge_relative =
#' 1e-4 * n / tr(N)`: from a first fit, `fit$ridge_relative * 1e-4 /
#' fit$ridge`. Should rounding leave \eqn{N + \mu I} without a Cholesky
#' factor, or with one whose smallest pivot is below the rounding level of
#' \eqn{N} (\eqn{10^{-12}} times its largest diagonal entry; the solution would
#' then depend on rounding errors, so on the BLAS and the compiler), \eqn{\mu}
#' is raised to at least that level and doubled until every pivot is above it
#' (at most 60 times), with a warning giving the final \eqn{\mu}; the fit keeps
#' it as `ridge` and sets `ridge_increased`.
#'
#' @section Nystroem low rank (Ny-iKFD):
#' With `landmarks`, the kernel is replaced by its Nystroem approximation
#' \eqn{\hat K = K_{nm} K_{mm}^+ K_{nm}'} (see [nystrom()]), whose signed
#' eigendecomposition \eqn{\hat K = Q \Lambda Q'} turns the \eqn{n \times n}
#' system into an \eqn{r \times r} one:
#' \eqn{G = \Lambda (\sum_G P_G (Q_G'Q_G - q_G q_G'/n_G)) \Lambda},
#' \eqn{\beta = (G + \mu I)^{-1} \Lambda (q_A/n_A - q_B/n_B)}, \eqn{\alpha = Q
#' \beta}, with \eqn{q_G = Q'1_G}. The landmark kernel \eqn{K_{nm}} is
#' computed in blocks of rows and reduced at once to one small triangular QR
#' factor per class (tall-skinny QR), so no \eqn{n \times m} or \eqn{n \times
#' n} matrix is ever held: \eqn{O(n m^2)} time, \eqn{O(m^2)} memory beyond the
#' data and the blocks. For the coordinate kernels ([kernel_rbf()],
#' [kernel_rbf_diag()], [kernel_dist()], [kernel_epanechnikov()]) each thread
#' computes and reduces its own blocks of \eqn{2^{18} / m} rows (2 MB), and
#' the training scores take a second such pass; for the other kernels a block
#' has \eqn{2^{22} / m} rows (32 MB), and the training scores need a second
#' pass over the blocks unless all of them fit in 128 MB.
#' `getOption("krein.block_rows")` sets the rows of a block for both. The model
#' keeps the \eqn{m} landmarks, an \eqn{m}-vector \eqn{a = K_{mm}^+ K_{nm}'
#' \alpha} per discriminant and the training scores (\eqn{n} per
#' discriminant, for `predict(fit)`), and predicts \eqn{f(x) = k(x, L)'a + b}
#' from the landmarks alone. When the landmarks span the kernel
#' (every training point a landmark, or a kernel of rank at most \eqn{m}) the
#' result is the full iKFD.
#'
#' Its default ridge is chosen by the leave-one-out rule of Regularisation,
#' applied to the ridge regressions on the rows of \eqn{\hat K}: its
#' \eqn{n - r} missing eigenvalues are 0, so that without the intercept
#' \eqn{I - H_0 = I - Q \mathrm{diag}(\lambda^2 / (\lambda^2 + \mu)) Q'},
#' and a point's leave-one-out residual needs only its row of \eqn{Q} and the
#' \eqn{r}-vectors \eqn{Q'1} and \eqn{Q't}, with \eqn{\mu} resolved from
#' \eqn{\mathrm{tr}(N)} of \eqn{\hat K} as the fit resolves it. This takes
#' one more pass over the blocks of the landmark kernel (over the chunks, for
#' data in chunks), \eqn{O(n m r)} time, and no \eqn{n \times r} matrix; a
#' number for `ridge_relative` skips it. With every training point a landmark
#' (and \eqn{K_{mm}} nonsingular) it chooses the full iKFD's ridge.
#'
#' @section Probabilities:
#' The decision values are calibrated by the model KFD rests on: Gaussian
#' class-conditional densities of the discriminant scores with a pooled
#' covariance, fitted on the training scores (one score for two classes, the
#' \eqn{c} one-vs-rest scores otherwise), and the class proportions as
#' priors. Their posterior (the softmax of a linear function of the scores)
#' gives `type = "prob"`, and its most probable class `type = "class"`. A
#' ridge of \eqn{10^{-10}} times the mean pooled variance is added (one-vs-rest
#' scores can be nearly collinear). When the training scores have no spread
#' within the classes (pooled standard deviation at most \eqn{10^{-12}} of
#' the root mean square score, as with a constant kernel or constant inputs),
#' the pooled standard deviation is floored at that value, with a warning, and
#' `calibration$floored` is `TRUE`: points then get the
#' class priors where the class means of the scores coincide, and
#' probabilities of 0 or 1 where they differ.
#'
#' @section Prediction:
#' [predict()][predict.krein_model()] gives `type = "class"` (the most
#' probable class), `"prob"` (the calibrated posterior above; rows sum to 1)
#' and `"decision"` (an \eqn{n \times c} matrix: \eqn{(f, -f)} for two
#' classes, the one-vs-rest values \eqn{f_i} otherwise; larger favours the
#' class). Its argument `rule` picks the class rule: `"posterior"` (the
#' default, the argmax of `"prob"`) or `"decision"`, the argmax of the
#' decision values (for two classes the sign of \eqn{f}), the rule of
#' DisTools and of the papers' experiments (Pekalska and Haasdonk 2009;
#' Schleif, Gisbrecht and Tino 2018). Near a boundary the two can disagree
#' (for more than two classes, noticeably often), because the posterior also
#' weighs the spread and correlation of the classes' scores. `predict(fit)`
#' without `newdata` gives the training predictions, for Nystroem fits too
#' (the fit keeps the training scores). A Nystroem fit on a precomputed kernel
#' uses only the landmark columns of the new kernel. [plot()][plot.krein_model()]
#' draws the decision regions for two inputs (with the landmarks circled for
#' Ny-iKFD, as Schleif, Gisbrecht and Tino 2018, Fig. 2; a Nystroem fit keeps
#' only its landmarks, so pass `data` to show other points); otherwise the
#' discriminant scores of the training points (or of `data`): histograms per
#' class for two classes, a pairs plot of the one-vs-rest scores for more. It
#' takes `rule` too.
#'
#' @inheritParams krein_inputs
#' @inheritParams kqd
#' @param ridge_relative The ridge on the within-class scatter, relative to
#'   its mean eigenvalue (see Regularisation): a positive number, or `NULL`
#'   (the default) to choose it by leave-one-out cross-validation, for the
#'   full iKFD and Ny-iKFD alike. The absolute ridge it gives is the fit's
#'   `ridge`.
#' @param landmarks `"auto"` (the default): the full form up to a number of
#'   training rows, the Nystroem form on random landmarks beyond (see
#'   [krein_forms]); `NULL` (or `"none"`, which interfaces that drop `NULL` arguments can pass, such as parsnip's `set_engine()`) for the full iKFD; `"meb"`, `"kmeans"` or
#'   `"random"` to select landmarks with [select_landmarks()]; a vector of
#'   training-row indices; or a `krein_landmarks` object from
#'   [select_landmarks()] (on the same training data, with the same `scale`
#'   and kernel: then it equals the method's own selection). For data in chunks
#'   ([krein_chunks()], given as `x`; the fit is mapped over the chunks): a
#'   matrix of landmark points in the original units, a `krein_landmarks`
#'   object, or a method applied to the first chunks.
#' @param eps,m Passed to [select_landmarks()] when `landmarks` names a
#'   method.
#' @param weights `"equal"` (DisTools) or `"prior"` (Pekalska and Haasdonk
#'   2009, eq. 7)
#'   within-class weights.
#' @param threads Threads for kernel evaluations and the Nystroem factors.
#' @returns An object of class `c("ikfd", "krein_model")`: a list with
#'   `coefficients` (one column per discriminant: \eqn{\alpha} over the
#'   training points, or \eqn{a} over the landmarks), `bias`, `ridge` (the
#'   absolute \eqn{\mu} of each discriminant), `ridge_relative` (given or
#'   chosen), `ridge_selection` (for a chosen ridge: the `grid` of relative
#'   ridges, their leave-one-out `press`, its standard error `se` at the
#'   smallest and the `chosen` ridge; else `NULL`),
#'   `weights`,
#'   `calibration` (the Gaussian model of the training scores behind
#'   `type = "prob"`: class means, priors, the triangular factor of the
#'   pooled covariance, its `ridge`, and `floored`, see Probabilities),
#'   `ridge_increased` (`TRUE` when the ridge had to grow, see
#'   Regularisation), `training_scores` (the \eqn{n \times d} discriminant
#'   scores of the training points), `landmarks` (`NULL` for a full fit, else
#'   the `krein_landmarks`), `x` (the training inputs of a full fit), and for
#'   Ny-iKFD `values` (the signed eigenvalues of \eqn{\hat K}), `signature`
#'   and `landmark_rank`; with the `levels`, `counts`, `training_error` and
#'   the input description every krein model has.
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (Sections, equations and tables are cited
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#'
#' Mika, S., Raetsch, G., Weston, J., Schoelkopf, B. and Mueller, K.-R.
#' (1999). Fisher discriminant analysis with kernels. In *Neural Networks for
#' Signal Processing IX*, IEEE, 41-48. \doi{10.1109/NNSP.1999.788121}.
#'
#' Breiman, L., Friedman, J. H., Olshen, R. A. and Stone, C. J. (1984).
#' *Classification and Regression Trees*. Wadsworth, Belmont, CA.
#' \doi{10.1201/9781315139470}.
#'
#' Cawley, G. C. and Talbot, N. L. C. (2003). Efficient leave-one-out
#' cross-validation of kernel Fisher discriminant classifiers. *Pattern
#' Recognition*, 36(11), 2585-2592. \doi{10.1016/S0031-3203(03)00136-5}.
#'
#' Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#' indefinite kernel approximation using minimum enclosing balls.
#' *Neurocomputing*, 318, 213-226. \doi{10.1016/j.neucom.2018.08.057}.
#' @family indefinite kernel Fisher discriminant
#' @examples
#' set.seed(1)
#' train <- checkerboard(400, size = 3)
#' test <- checkerboard(1000, size = 3)
#' full <- ikfd(y ~ x1 + x2, data = train, kernel = kernel_rbf(5))
#' mean(predict(full, test) != test$y)
#' ny <- ikfd(y ~ x1 + x2, data = train, kernel = kernel_rbf(5), landmarks = "meb")
#' ny
#' mean(predict(ny, test) != test$y)
#' head(predict(ny, test, type = "prob"))
#' # DisTools' class rule: the argmax of the decision values
#' mean(predict(ny, test, rule = "decision") != predict(ny, test))
#' # an indefinite kernel
#' fit <- ikfd(y ~ x1 + x2, data = train, kernel = kernel_tanh(2, -1))
#' fit
#' @export
ikfd <- function(x, ...) UseMethod("ikfd")

#' @rdname ikfd
#' @export
ikfd.formula <- function(formula, data, ..., subset, na.action, kernel = kernel_rbf(),
                        scale = TRUE) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel, scale = scale)
  fit_model("ikfd", inputs, list(...), match.call())
}

#' @rdname ikfd
#' @export
ikfd.default <- function(x, y, ..., kernel = kernel_rbf(), scale = TRUE, spectrum = "none", ridge_relative = NULL, landmarks = "auto",
                         eps = 0.01, m = NULL, weights = c("equal", "prior"), na.action = NULL,
                         threads = NULL) {
  check_dots_empty("ikfd", ...)
  inputs <- inputs_from_xy(x, y, kernel, na.action, scale = scale, chunks = TRUE)
  fit_model("ikfd", inputs, method_arguments("ikfd"), match.call())
}

#' The fit behind every ikfd() interface (the defaults are ikfd.default()'s,
#' filled in by fit_model())
#' @noRd
ikfd_fit <- function(inputs, ridge_relative, landmarks, eps, m, weights, threads) {
  if (!is.null(ridge_relative)) ridge_relative <- check_number(ridge_relative, "ridge_relative", lower = 0)
  weights <- match_choice(weights, "weights", c("equal", "prior"))
  threads <- check_threads(threads)
  y <- inputs$y
  warn_one_row_classes(table(y), paste(
    "its discriminant's within-class scatter is that of the other classes (its own is zero) with the ridge,",
    "and the probability calibration gives its scores the spread pooled over the other classes"))
  landmarks <- resolve_landmarks(landmarks, inputs, eps, m, threads)
  fit <- if (is.null(landmarks)) {
    ikfd_full(inputs, ridge_relative, weights, threads)
  } else {
    ikfd_nystrom(inputs, landmarks, ridge_relative, weights, threads)
  }
  ridge_relative <- fit$ridge_relative %||% ridge_relative
  ridge_increased <- isTRUE(fit$ridge_increased)
  if (ridge_increased) {
    krein_warn(sprintf(
      "The regularised within-class scatter had no Cholesky factor with pivots above its rounding level; its ridge was raised and doubled until it had one, to mu = %s (see `ridge`). Consider a larger `ridge_relative`.",
      format_ridges(fit$ridge)))
  }
  scores <- fit$scores
  dimnames(scores) <- NULL
  list(coefficients = fit$coefficients, bias = fit$bias, ridge = fit$ridge,
       ridge_relative = ridge_relative, ridge_selection = fit$ridge_selection,
       ridge_increased = ridge_increased, weights = weights,
       calibration = calibrate_scores(scores, y, threads), landmarks = landmarks, values = fit$values,
       signature = if (!is.null(fit$values)) c(p = sum(fit$values > 0), q = sum(fit$values < 0)),
       landmark_rank = fit$landmark_rank,
       # the training predictions of predict(fit): a Nystroem fit keeps no training data
       training_scores = scores,
       x = if (is.null(landmarks)) inputs$x, threads = threads)
}

ikfd_full <- function(inputs, reg, weights, threads) {
  K <- training_kernel(inputs, threads)
  selection <- NULL
  if (is.null(reg)) {
    selection <- ikfd_loo_ridge(K, inputs$y, threads = threads)
    reg <- selection$chosen
  }
  core <- unfactorisable_scatter(cpp_ikfd_full(K, as.integer(inputs$y), nlevels(inputs$y), weights, reg, threads))
  scores <- K %*% core$coefficients + rep(core$bias, each = nrow(K))
  c(core[c("coefficients", "bias", "ridge", "ridge_increased")],
    list(scores = scores, ridge_relative = reg, ridge_selection = selection))
}

# The 0/1 targets of the regressions behind the Fisher discriminants of
# ikfd_loo_ridge() and kfda_loo_components(): one column (class 1 against
# the other) for two classes, one per class (against the rest) for more
discriminant_indicators <- function(y) {
  codes <- as.integer(y)
  if (nlevels(y) == 2L) return(matrix(as.double(codes == 1L), length(y), 1L))
  vapply(seq_len(nlevels(y)), function(j) as.double(codes == j), double(length(y)))
}

# The relative ridges the leave-one-out selection tries (documented in ?ikfd)
ikfd_ridge_grid <- function() 10^seq(-6, 1, by = 0.5)

# The default relative ridge of iKFD: the largest of ikfd_ridge_grid() whose
# leave-one-out squared error (PRESS) of the ridge regressions iKFD's
# discriminants are (Cawley and Talbot 2003) is within one standard error of
# the smallest (the one-standard-error rule). With equal weights,
# discriminant d's direction (N_d + mu I)^{-1} (m_A - m_B) is that of the
# ridge regression of the indicator of its first group on the kernel rows
# k_i, with an unpenalised intercept and penalty mu ||alpha||^2 (the total
# scatter N_d + between-class term, by Sherman-Morrison, gives the same
# direction). One eigendecomposition K = Q diag(lambda) Q' gives every hat
# matrix: without the intercept H0 = Q diag(lambda^2 / (lambda^2 + mu)) Q',
# with it H = H0 + u u' / (1'u), u = (I - H0) 1; the leave-one-out residual
# of point i is r_i / (1 - H_ii). I - H0 = Q diag(w) Q' with w = mu /
# (lambda^2 + mu) is formed directly, so that 1 - H_ii keeps its digits when
# it is small. mu = ridge_relative tr(N_d) / n, as the fit resolves it.
# Ny-iKFD takes the same rule on its own kernel (ikfd_nystrom_loo_ridge()).
ikfd_loo_ridge <- function(K, y, grid = ikfd_ridge_grid(), threads = 1L) {
  n <- nrow(K)
  eig <- with_core_errors("The eigendecomposition of the kernel matrix", cpp_symmetric_eigen(K, TRUE))
  targets <- discriminant_indicators(y)
  # tr(N_d) of each discriminant: the scatter of the kernel rows about the
  # means of its two groups (the class, the others), from the per-class sums
  # of the rows (no copy of K per group)
  row_norms <- rowSums(K^2)
  class_sums <- rowsum(K, as.integer(y), reorder = TRUE)
  total_sum <- colSums(class_sums)
  counts <- as.vector(table(y))
  traces <- vapply(seq_len(ncol(targets)), function(d) {
    sum(row_norms) - sum(class_sums[d, ]^2) / counts[d] - sum((total_sum - class_sums[d, ])^2) / (n - counts[d])
  }, double(1))
  # the squared leave-one-out residuals of each point (summed over the
  # discriminants), one column per ridge, in the core: per discriminant,
  # every ridge's w at once, in three products with Q (ikfd.hpp,
  # loo_ridge_losses(): u = Q (w Q'1), 1 - H_ii = (Q o Q) w - u^2 / c1 with
  # c1 = sum(w (Q'1)^2), residual = Q (w Q't) - u (u't) / c1)
  losses <- cpp_ikfd_loo_losses(eig$vectors, eig$values, targets, traces, as.double(grid), threads)
  ikfd_ridge_choice(grid, loss_moments(losses))
}

# Ny-iKFD's default relative ridge: ikfd_loo_ridge()'s rule on its own
# kernel K_hat = C W^+ C' = Q diag(lambda) Q' (Q: n x r), whose n - r
# missing eigenvalues are 0: I - H0 = I - Q diag(lambda^2 / (lambda^2 + mu))
# Q'. A point's leave-one-out residual needs its row of Q, Q'1 and Q't
# (r-vectors the class factors of the first pass give) and tr(N_d) of
# K_hat (the trace of the r x r scatter of the fit), so the losses come from
# one more pass over the rows' landmark kernel (landmark_blocks(), data in
# memory or in chunks), block by block (ikfd.hpp, nystrom_loo_losses(): the
# rows of Q are C E' Lambda^{-1}), folded into their sums and sums of
# squared deviations: O(n m r) time, no n x r matrix held.
ikfd_nystrom_loo_ridge <- function(inputs, landmarks, W, pass, threads, grid = ikfd_ridge_grid()) {
  loo <- cpp_ikfd_nystrom_loo(pass$factors, as.double(table(inputs$y)), W)
  block_moments <- function(C, self, codes) {
    loss_moments(cpp_ikfd_nystrom_loo_losses(C, loo, as.integer(codes), grid, check_threads(NULL)))
  }
  moments <- landmark_blocks(inputs, landmarks, bare_function(block_moments, loo = loo, grid = as.double(grid)),
                             threads, pass, combine = merge_loss_moments)
  ikfd_ridge_choice(grid, moments)
}

# The points' leave-one-out losses (one column per ridge) as their count,
# sums and sums of squared deviations from the mean, which
# merge_loss_moments() folds over blocks of points (Chan, Golub and LeVeque's
# pairwise update) without holding the n x ridges losses
loss_moments <- function(losses) {
  n <- nrow(losses)
  sums <- colSums(losses)
  list(n = n, sum = sums, squares = colSums((losses - rep(sums / n, each = n))^2))
}

merge_loss_moments <- function(a, b) {
  if (a$n == 0) return(b)
  if (b$n == 0) return(a)
  n <- a$n + b$n
  delta <- b$sum / b$n - a$sum / a$n
  # as doubles: the product of two counts passes R's integers from about 46,341 each
  list(n = n, sum = a$sum + b$sum, squares = a$squares + b$squares + delta^2 * (as.double(a$n) * b$n / n))
}

# The one-standard-error rule on the PRESS of each ridge of `grid` (the
# column sums of the points' losses, as loss_moments())
ikfd_ridge_choice <- function(grid, moments) {
  press <- moments$sum
  # no finite PRESS: kernel rows without spread within the groups (tr(N) = 0,
  # a constant or block kernel): DisTools' scale, 1e-4
  if (!any(is.finite(press))) return(list(grid = grid, press = press, se = NA_real_, chosen = 1e-4))
  # the largest ridge whose PRESS is within one standard error (of the sum of
  # the points' losses: sqrt(n) times their standard deviation) of the smallest
  best <- which.min(press)
  se <- sqrt(moments$n) * sqrt(moments$squares[best] / (moments$n - 1))
  list(grid = grid, press = press, se = se, chosen = grid[max(which(press <= press[best] + se))])
}

# Ny-iKFD: the landmark kernel of the training rows in one pass, reduced to
# per-class QR factors, then the training scores in a second pass (one row
# source, R/landmark_pass.R: data in memory or in chunks alike); the default
# ridge takes one more pass between them (ikfd_nystrom_loo_ridge()).
ikfd_nystrom <- function(inputs, landmarks, reg, weights, threads) {
  W <- landmark_kernel(inputs, landmarks, threads)
  pass <- landmark_class_factors(inputs, landmarks, threads)
  selection <- NULL
  if (is.null(reg)) {
    selection <- ikfd_nystrom_loo_ridge(inputs, landmarks, W, pass, threads)
    reg <- selection$chosen
  }
  core <- unfactorisable_scatter(cpp_ikfd_nystrom(pass$factors, as.double(table(inputs$y)), W, weights, reg))
  scores <- landmark_scores(inputs, landmarks, core$coefficients, threads, pass)
  c(core, list(scores = scores + rep(core$bias, each = length(inputs$y)), ridge_relative = reg,
               ridge_selection = selection))
}

# The core's last resort (ikfd.hpp, ridged_cholesky): a scatter that no ridge
# up to 1e6 times its largest diagonal entry makes factorisable, which only
# non-finite kernel values cause.
unfactorisable_scatter <- function(expr) {
  tryCatch(expr, error = function(e) {
    if (!grepl("could not be factorised", conditionMessage(e), fixed = TRUE)) stop(e)
    krein_abort(sprintf("iKFD failed: %s, even with a ridge of 1e6 times its largest diagonal entry; check the kernel for missing or infinite values.",
                        conditionMessage(e)))
  })
}

# n x c decision values: (f, -f) for two classes, the one-vs-rest scores otherwise
ikfd_decisions <- function(scores, classes) {
  if (classes == 2L) cbind(scores[, 1], -scores[, 1]) else scores
}

# Gaussian class-conditional densities of the scores with a pooled covariance
# (denominator n - c; documented under Probabilities in ?ikfd), as a
# `krein_gaussian` (gaussian.R). A tiny ridge, 1e-10 of the mean diagonal of
# the pooled covariance, is added: one-vs-rest scores can be nearly collinear.
# Scores without spread within the classes (a constant kernel, constant
# inputs) have no covariance to invert: when the pooled standard deviation is
# at most 1e-12 of the root mean square score (below what rounding of the
# scores can resolve), it is floored at that value (at 1e-12 if every score
# is 0), with a warning, and the calibration records `floored = TRUE`. Classes whose scores coincide then
# get their priors; classes with distinct scores are told apart with
# certainty.
calibrate_scores <- function(scores, y, threads = 1L) {
  # the class moments once, for both Gaussian fits below (a pass over 1e7
  # scores for a fit over chunks)
  moments <- cpp_kfda_class_factors(scores, as.integer(y), nlevels(y), threads)
  plain <- gaussian_classes(scores, y, pooled = TRUE, denominator = "unbiased", threads = threads, moments = moments)
  R <- plain$pooled_factor
  # root mean squares, scaled so that no square overflows or underflows
  spread <- root_mean_square(R) * sqrt(length(R) / ncol(scores))   # sqrt(tr(R'R) / d)
  score_scale <- root_mean_square(scores)
  if (!is.finite(score_scale) || score_scale <= 0) score_scale <- 1
  floored <- !is.finite(spread) || spread <= 1e-12 * score_scale
  ridge <- if (floored) (1e-12 * score_scale)^2 else (1e-5 * spread)^2
  # scores so small (a huge ridge) that the floor's square underflows: they
  # cannot be told apart from 0 at any variance a double holds
  if (floored && !(ridge > 0)) ridge <- 1e-24
  if (floored) {
    krein_warn(sprintf(
      "The training discriminant scores have no spread within the classes (pooled standard deviation %s), so the probability calibration has no variance to use: its standard deviation was floored at %s (1e-12 of the root mean square score; see `calibration`). Probabilities are the class priors where the class means of the scores coincide, and 0 or 1 elsewhere.",
      format(spread, digits = 3), format(sqrt(ridge), digits = 3)))
  }
  model <- gaussian_classes(scores, y, pooled = TRUE, denominator = "unbiased", ridge = ridge,
                            threads = threads, moments = moments)
  model$floored <- floored
  model
}

#' @export
krein_scores.ikfd <- function(object, new, type, rule = c("posterior", "decision")) {
  rule <- match_choice(rule, "rule", c("posterior", "decision"))
  if (is.null(new)) {
    scores <- object$training_scores
    names <- rownames(object$x)
  } else {
    lm <- object$landmarks
    scores <- if (!is.null(lm) && landmark_pass_applies_new(object, new, lm$points)) {
      landmark_pass_scores(list(x = new$x, kernel = object$spec$kernel), lm, object$coefficients,
                           check_threads(object$threads))
    }
    if (is.null(scores)) {
      kernels <- if (is.null(lm)) new_kernels(object, new) else
        new_kernels(object, new, points = lm$points, columns = lm$indices)
      scores <- kernels$K %*% object$coefficients
    }
    scores <- scores + rep(object$bias, each = nrow(scores))
    names <- rownames(new$x %||% new$K)
  }
  if (type == "prob" || (type == "class" && rule == "posterior")) {
    p <- gaussian_posteriors(object$calibration, scores)
    dimnames(p) <- list(names, object$levels)
    if (type == "prob") return(p)
    return(stats::setNames(class_from_decisions(p, object$levels), names))
  }
  decision <- ikfd_decisions(scores, length(object$levels))
  dimnames(decision) <- list(names, object$levels)
  if (type == "decision") return(decision)
  # rule = "decision": DisTools' argmax of the (one-vs-rest) decision values
  stats::setNames(class_from_decisions(decision, object$levels), names)
}

#' @export
model_title.ikfd <- function(x) nystrom_title(x$landmarks)

#' @export
model_print_lines.ikfd <- function(x) {
  d <- length(x$bias)
  lm <- x$landmarks
  c(paste0(if (d == 1L) "one discriminant" else paste(d, "one-vs-rest discriminants"), ", ",
           x$weights, " weights"),
    paste0("ridge_relative = ", format(x$ridge_relative),
           if (!is.null(x$ridge_selection)) " (chosen by leave-one-out PRESS, one-standard-error rule)",
           "; absolute ridge mu = ", format_ridges(x$ridge),
           if (isTRUE(x$ridge_increased)) " (raised until the scatter had a Cholesky factor)"),
    if (isTRUE(x$calibration$floored)) {
      paste0("probability calibration: no spread of the training scores within the classes; standard deviation floored at ",
             format(sqrt(x$calibration$ridge), digits = 3))
    },
    if (!is.null(lm)) {
      paste0("approximated kernel of rank ", length(x$values), ", signature (p, q) = (",
             x$signature[["p"]], ", ", x$signature[["q"]], ")")
    })
}

# One value, or one per discriminant
format_ridges <- function(ridge) {
  if (length(ridge) == 1L || all(ridge == ridge[1])) return(format(ridge[1], digits = 4))
  paste0("(", paste(format(ridge, digits = 4), collapse = ", "), ")")
}

#' @export
model_summary.ikfd <- function(object) {
  lm <- object$landmarks
  classes <- data.frame(n = as.vector(object$counts), prior = as.vector(object$calibration$prior),
                        row.names = object$levels)
  if (!is.null(lm)) classes$landmarks <- as.vector(table(factor(lm$class, levels = object$levels)))
  d <- length(object$bias)
  discriminants <- data.frame(
    discriminant = if (d == 1L) paste(object$levels, collapse = " vs ") else paste(object$levels, "vs rest"),
    ridge = object$ridge, bias = object$bias, check.names = FALSE)
  out <- list(Classes = classes,
              Discriminants = discriminants,
              Regularisation = sprintf("ridge_relative = %s%s (mu = ridge_relative x the mean eigenvalue of the within-class scatter), %s weights",
                                       format(object$ridge_relative),
                                       if (!is.null(object$ridge_selection)) ", chosen by leave-one-out PRESS (one-standard-error rule)" else "",
                                       object$weights))
  if (!is.null(lm)) {
    out[["Nystroem approximation"]] <- sprintf(
      "%d landmarks (%s); K_mm of rank %d; approximated kernel of rank %d, signature (p, q) = (%d, %d)",
      length(lm$class), lm$method, object$landmark_rank, length(object$values),
      object$signature[["p"]], object$signature[["q"]])
  }
  out
}

# Inputs that are not two columns: the discriminant scores of the points --
# histograms per class for one discriminant, a pairs plot of the one-vs-rest
# scores (of at most 2000 evenly spaced points) for more.
#' @export
plot_model_diagnostic.ikfd <- function(x, data, main, predict_args, ...) {
  f <- do.call(stats::predict, c(list(x, data, type = "decision"), predict_args))
  y <- if (is.null(data)) stats::napredict(x$na_action, x$y) else data_response(x, data, nrow(f))
  complete <- stats::complete.cases(f)
  f <- f[complete, , drop = FALSE]
  y <- y[complete]
  if (length(x$levels) == 2L) {
    scores <- f[, 1, drop = FALSE]
    colnames(scores) <- "discriminant score f(x)"
    plot_projection(scores, y, main, ...)
    graphics::abline(v = 0, lty = 2)
    return(invisible(x))
  }
  shown <- unique(round(seq(1, nrow(f), length.out = min(nrow(f), 2000L))))
  col <- grDevices::hcl.colors(length(x$levels), "Dark 3")
  graphics::pairs(f[shown, , drop = FALSE], col = ifelse(is.na(y[shown]), "grey40", col[as.integer(y[shown])]),
                  pch = 19, cex = 0.5, main = main, labels = paste("f", x$levels), ...)
  invisible(x)
}

model_registration_ikfd <- function() register_krein_model(
  full_form = function(args) is.null(args$landmarks), full_copies = 7,
  forms = landmark_forms(chooses_width = TRUE), full_max_rows = 2000,
  "ikfd", label = "Indefinite kernel Fisher discriminant", fit = "ikfd_fit",
  parameters = data.frame(parameter = "ridge_relative", class = "numeric", label = "relative ridge",
                          stringsAsFactors = FALSE),
  needs_inputs = function(args) landmarks_need_inputs(args$landmarks),
  predict_args = "rule", renamed = c(reg = "ridge_relative"),
  ranges = function(args) list(ridge_relative = c(-6, -2)),
  default_grid = function(size, args, data) list(ridge_relative = range_values(tuning_range("ikfd", "ridge_relative"), size)),
  parsnip = list(model = "discrim_linear",
                 args = list(penalty = list(krein = "ridge_relative", main = TRUE,
                                            dials = list(pkg = "krein", fun = "ikfd_penalty")))),
  chunks = function(args) invisible(),
  landmark_args = function(landmarks) list(landmarks = landmarks)
)
