# kfda(): kernel Fisher linear and quadratic discriminant analysis on the
# kernel data -- the fit, the Fisher directions and the kernel expansion,
# prediction, print, summary, plot and registration. Its reductions are in
# R/kfda_reductions.R (in memory) and R/kfda_chunks.R (over chunks).

#' Kernel Fisher linear and quadratic discriminant analysis on the kernel data
#'
#' KFLDA and KFQDA of Huang, Hwang and Lin (2005, Sec. 4): every point
#' \eqn{x} is represented by
#' its kernel data \eqn{K_x = (k(x, x_1), \dots, k(x, x_n))'}, the Aronszajn
#' map of eq. (7) discretised at the training points, and classical Fisher
#' discriminant analysis runs on the kernel training data \eqn{[K, y]} (eq.
#' 10). Kernel data are much closer to Gaussian than most raw data (Example 1,
#' see [kernel_normality()]), which is what Fisher's Gaussian model needs.
#'
#' @section The discriminants:
#' With \eqn{\bar k_i} the mean kernel data of class \eqn{i} and \eqn{q_i} its
#' prior, KFLDA (`discriminant = "linear"`, eq. 11) gives the log-likelihood ratio of
#' class \eqn{i} against the reference class 1 as
#' \deqn{\{K_x - (\bar k_i + \bar k_1)/2\}' M^{-1} (\bar k_i - \bar k_1) + \log(q_i/q_1)}
#' with \eqn{M} the pooled covariance; KFQDA (`discriminant = "quadratic"`, eq. 12) as
#' \deqn{\tfrac12 \{(K_x - \bar k_1)' M_1^{-1} (K_x - \bar k_1) - (K_x - \bar
#' k_i)' M_i^{-1} (K_x - \bar k_i)\} + \log(q_i/q_1) + \tfrac12 \log(|M_1| / |M_i|)}
#' with class covariances \eqn{M_i}. `logdet = FALSE` drops the determinant
#' term (Remark 1: a kernel Mahalanobis criterion). These ratios are the
#' `"decision"` values (the first column, class 1 against itself, is 0); the
#' posteriors are eq. (9), their softmax, and the class is the one with the
#' largest posterior. Everything is computed on the reduced kernel data
#' described next, with \eqn{K_x} replaced by its reduction, by krein's
#' one model of Gaussian classes (class means, covariance factors from a QR
#' decomposition of the centred data, log-determinants).
#'
#' **Covariance normalisation.** As [MASS::lda()] and [MASS::qda()]
#' (`method = "moment"`): \eqn{M = \sum_i S_i / (n - K)} and \eqn{M_i = S_i /
#' (n_i - 1)}, where \eqn{S_i} is the centred scatter matrix of class \eqn{i}
#' and \eqn{K} the number of classes. So `kfda()` gives the posteriors of
#' `MASS::lda()` / `MASS::qda()` run on the same reduced kernel data.
#'
#' @section The default kernel:
#' Without a `kernel`, `kfda()` takes the Gaussian kernel of the median
#' heuristic, `kernel_rbf()`, as the paper's examples and the other krein
#' models do (on the columns centred and scaled with `scale = TRUE`).
#' `kernel_rbf(heuristic = "dimension")` takes the width \eqn{1/p} of
#' [isvm()] and [e1071::svm()] instead. Without the ridge candidates of the
#' default selection (see below), the median heuristic's wider kernel leaves
#' kfda 8 points of test accuracy behind an untuned SVM on mlbench's Sonar.
#' With them, over three to five 70/30 splits of fourteen real data sets,
#' the median heuristic is within 1 point of \eqn{1/p} or better on all but
#' Sonar (0.813 against 0.832; e1071::svm 0.816) and musk (0.900 against
#' 0.909; 0.881), and far better where the inputs outnumber the points:
#' kernlab's promotergene by formula (57 bases as 171 dummy columns, 74
#' training points; 0.819 against 0.762, svm 0.831) and 333 rows of
#' mlbench's DNA (180 inputs; 0.842 against 0.800, svm 0.768).
#'
#' @section Regularisation (Huang, Hwang and Lin 2005, Sec. 4.2):
#' The kernel data are \eqn{n}-dimensional and their covariances singular
#' (Remark 3), so one of three reductions is used:
#' * `reduce = "pca"` (the paper's choice for small data): the leading
#'   `ncomp` principal components of the kernel data \eqn{K}. `ncomp` is a
#'   whole number, or a fraction in \eqn{(0, 1)}: the fewest components whose
#'   share of the variance reaches it. `NULL` (the default) chooses the
#'   number by leave-one-out cross-validation in closed form: among 1 to at
#'   most 128 components, and at most a fifth of the training points
#'   (linear) or a quarter of the smallest class (quadratic), so that each
#'   covariance has several points per dimension, the count whose
#'   least-squares regressions of the class indicators (one for two classes)
#'   on the leading component scores have the smallest sum of squared
#'   leave-one-out residuals (PRESS). These regressions give the Fisher
#'   discriminants of the components (for two classes the direction itself,
#'   for more by optimal scoring), and the components are orthogonal, so
#'   every count's residuals follow from one decomposition by cumulative
#'   sums. For the linear rule the same PRESS is computed for ridge
#'   regressions on every component computed (all of the rank up to 200
#'   points, where the full SVD is used; the cap's otherwise), with ridges
#'   of \eqn{10^{-3}} to 1 times the components' mean variance (a component
#'   whose variance is below \eqn{10^{-6}} times the ridge, which the ridge
#'   shrinks to nothing, is left out); where one has a smaller PRESS than
#'   every count, the fit takes those components with that `ridge` (for two
#'   classes the ridge regression's direction is that of the Fisher
#'   discriminant with the ridge on the pooled covariance). On kernlab's
#'   promotergene as the formula gives it (57 bases as factor columns, 74
#'   training points), where the cap allows 14 components, the ridges give
#'   a mean test accuracy over five 70/30 splits of 0.76 against 0.72 for
#'   the counts alone with the width \eqn{1/p}, and 0.82 with the default
#'   kernel (e1071::svm 0.83).
#'   The fit keeps them as `ncomp_selection` (`press` per count, `ridges`
#'   and their `ridge_press`, `chosen`, `chosen_ridge`). The right count depends on the data: few on smooth
#'   two-class problems, over a hundred on mlbench's Vowel (11 classes),
#'   where the fewest components reaching 99% of the variance (at most the
#'   cap; 26 components there) reach 69% test accuracy against 95% for the
#'   cross-validated count (`ncomp = 0.99` asks for the fewest reaching
#'   99%; the fit's `ncomp` shows the count). The share of the variance of
#'   the centred kernel data kept is reported. (The percentages of the
#'   paper's Tables 3-4 are another quantity: the cumulative share of the absolute eigenvalues of the
#'   uncentred \eqn{K}.) The components are the leading singular vectors
#'   of the centred kernel data (not the eigenvectors of their covariance,
#'   which would square the condition number), kept up to its numerical
#'   rank: singular values below \eqn{n \epsilon} times the largest are
#'   rounding noise. A larger `ncomp` is an error of class
#'   `krein_rank_error`. Only the components needed are computed, by block
#'   Lanczos bidiagonalisation (Golub, Luk and Overton 1981) to the accuracy
#'   of a full singular value decomposition (residuals at the rounding level
#'   of the data); the share of the variance needs only the total, the trace
#'   of the covariance. A full SVD is used instead where it is as cheap (at
#'   most 200 points, or more than a tenth of the points' components) and,
#'   with a warning of class `krein_numerical_warning`, where the partial one
#'   does not converge; `spectrum` in the fit says which.
#'   Costs \eqn{O(n^2 q)} time for \eqn{q} components (\eqn{O(n^3)} for
#'   the full SVD) and \eqn{O(n^2)} memory; the model keeps all training
#'   points.
#' * `reduce = "subset"` (Lee & Mangasarian's reduced set, for large data):
#'   the kernel data are only the columns of `bases` training points drawn at
#'   random with R's RNG (`set.seed()` reproduces them): \eqn{K_x = (k(x,
#'   u_1), \dots, k(x, u_m))}. `bases` is a count, a fraction of the
#'   training points in \eqn{(0, 1)}, or a vector of training-row indices.
#'   `NULL` takes 10% of the points, at most 500 (at most a quarter of the
#'   smallest class for KFQDA). The paper suggests 1-2% for massive data,
#'   10-20% for moderate sizes. Costs \eqn{O(n m^2)} time; on data (not a
#'   precomputed kernel) the kernel data are computed in blocks of rows,
#'   twice (the class moments, then the training predictions), and never
#'   held whole, so memory is \eqn{O(m^2)} beyond the data and the
#'   \eqn{n \times} classes training predictions (at \eqn{n = 10^6}, \eqn{m
#'   = 300}: 0.5 GB, where the whole kernel data and their scaled copy took
#'   7 GB). The model keeps the \eqn{m} bases. Kernel columns of nearby
#'   bases are nearly collinear (a smooth kernel on few inputs: on 6,000
#'   points of the four sine populations the pooled covariance of 100 to 500
#'   Gaussian columns has a reciprocal condition number near
#'   \eqn{10^{-17}}; 500 bases on `checkerboard(6000)` span about 100
#'   directions), so the kernel data are taken on their principal components
#'   with variance: the singular values of the centred kernel data above
#'   \eqn{\max(n, m)\,\epsilon} times the largest, the numerical rank rule
#'   of `"pca"`, computed from the class moments without forming the
#'   scatter. The discriminant does not depend on the basis of that space.
#'   There the linear discriminant needs no ridge (`ridge = NULL`: 0): on
#'   `checkerboard(6000)` and the sine populations it reached the test
#'   accuracy of `"pca"` (0.967 and 0.971 against 0.965 and 0.972), where
#'   the earlier default ridge on all 500 columns gave 0.64 and 0.86. The
#'   quadratic one takes \eqn{10^{-3}} times the mean within-class variance
#'   of the kernel data columns, as `"ridge"` does; with a ridge,
#'   components whose variance is below \eqn{10^{-12}} times it are left
#'   out (the ridge swamps them).
#' * `reduce = "ridge"` (Mika et al.): all \eqn{n} columns of \eqn{K}, with
#'   `ridge` \eqn{\times I} added to the covariances (\eqn{M + rI}, \eqn{M_i +
#'   rI}). `NULL` takes \eqn{r} = 1e-3 times the mean variance of the kernel
#'   data columns (the mean diagonal of the pooled covariance). Costs
#'   \eqn{O(n^3)} per class.
#'
#' A `ridge` can also be added to the covariances of the `"pca"` and
#' `"subset"` reductions (in the units of their coordinates: principal
#' component scores, of the kernel data for `"subset"`). A covariance that is still singular --
#' the "---" cells of Tables 3-4, where a class has too few points or too
#' little spread for the dimension -- is an error that says which class and
#' what to change; there is no silent pseudo-inverse. Singular means that a
#' class has no more points than dimensions (without a ridge), or that the
#' reciprocal condition number of the covariance's triangular factor
#' (LAPACK's `dtrcon` through [rcond()], about the ratio of the smallest to
#' the largest singular value of the centred class data, on coordinates
#' scaled to unit variance) is below `tol`. The factors come from a QR
#' decomposition of the centred data, never from the covariance itself, so
#' the small directions keep their digits. The default `tol = 1e-9` is far
#' below MASS's `1e-4` (which refuses most reductions the paper uses) and
#' above the rounding level of Matlab's `classify`, which the paper used. On
#' one draw of `sine_populations()` it refused the "---" cells of Table 3 at
#' \eqn{\sigma^2 = 0.25} (25 components) and \eqn{\sigma^2 = 10} (35) and
#' accepted its cells with 8-15 components and most of those with 25; cells
#' near the threshold can go either way with the draw.
#'
#' The kernel need not be positive definite: the kernel data are features, so
#' any similarity (or a precomputed kernel matrix, or dissimilarities through
#' [kernel_from_dissimilarity()]) can be used.
#'
#' @section The expansion:
#' For KFLDA every log-likelihood ratio is a kernel expansion \eqn{d_i(x) =
#' \sum_j \alpha_{ij} k(x_j, x) + b_i} (Remark 4, eq. 13) over the training
#' points (or the bases); [coef()] returns the \eqn{\alpha}s and \eqn{b}s.
#'
#' @section Prediction:
#' [predict()][predict.krein_model()] gives `type = "class"` (the class with
#' the largest posterior), `"prob"` (the posteriors of eq. 9), `"decision"`
#' (the log-likelihood ratios of eqs. 11-12 against the first class, prior
#' ratios included: larger favours the class, the first column is 0) and
#' `"projection"` (the Fisher discriminant coordinates `LD1`, `LD2`, ... in
#' the reduced kernel data space, as `predict(<lda>)$x`). For a precomputed
#' kernel, `newdata` is the kernel of the new points against all training
#' points (a `"subset"` fit uses the columns of its bases). Without
#' `newdata`: the training predictions, computed at the fit (a `"subset"` fit
#' keeps only its bases, not the training data). Everything the fit resolved
#' -- the kernel width of `kernel_rbf(gamma = NULL)`, the default `ridge`,
#' `ncomp` from a share of variance, the bases, the centring and scaling of
#' the kernel data -- is stored and reused for new points.
#' [plot()][plot.krein_model()] shows the decision regions for two input
#' variables (with the bases circled for a `"subset"` fit, whose bases are
#' the points drawn); otherwise the training points (or those of `data`) in
#' the Fisher discriminant coordinates (LD1 against LD2, or histograms of LD1
#' for two classes) with the class means as diamonds, as `plot(<lda>)` draws
#' them.
#'
#' @inheritParams krein_inputs
#' @inheritParams kqd
#' @param discriminant `"linear"` (KFLDA, eq. 11) or `"quadratic"` (KFQDA, eq.
#'   12). (`type` is predict()'s argument, not kfda()'s.)
#' @param reduce `"auto"` (the default): `"pca"` up to a number of training
#'   rows, `"subset"` beyond (see [krein_forms]); `"pca"`, `"subset"` or
#'   `"ridge"` (see Regularisation).
#' @param ncomp For `"pca"`: the number of principal components, or the share
#'   of the variance to keep (a number in \eqn{(0, 1)}); `NULL` for the
#'   number chosen by leave-one-out cross-validation (see Regularisation).
#'   `ncomp = 0.99` keeps the fewest components that reach 99% of the
#'   variance.
#' @param bases For `"subset"`: the number of random bases, their share of the
#'   training points, or their row indices; `NULL` for the default. (Named
#'   `bases`, not `subset`, because `subset` selects training rows in the
#'   formula interface, as in every R modelling function.)
#'   For data in chunks ([krein_chunks()] as `x`; `"pca"` and `"ridge"` read
#'   their rows into memory): a matrix of points (in the original units of the
#'   predictors), or a count or share of the training points drawn with R's
#'   RNG from the sample of the first chunks (`sample_rows` rows; `NULL`
#'   for the default count). The fit reads the chunks twice: once for the
#'   class counts, means and covariance factors of the kernel data against
#'   the bases (merged exactly over chunks), once for the training
#'   predictions; it equals the fit in memory with the same bases.
#' @param ridge A non-negative number added to the diagonal of the
#'   covariances; `NULL` for the default: for `"pca"` 0 or the ridge its
#'   selection chose, for `"subset"` 0 for the linear discriminant, for
#'   `"ridge"` and the quadratic `"subset"` \eqn{10^{-3}} times the mean
#'   within-class variance of the kernel data columns (see Regularisation).
#' @param logdet For `discriminant = "quadratic"`: keep the log-determinant
#'   term of eq. (12) (`TRUE`) or drop it (`FALSE`, Remark 1). Ignored for
#'   the linear rule, where the determinants cancel.
#' @param tol Singularity tolerance on the reciprocal condition number of a
#'   covariance's factor, a number in \eqn{(0, 1)} (see Regularisation).
#' @param threads Threads for the kernel evaluations and the covariances.
#' @returns An object of class `c("kfda", "krein_model")`: a list with
#'   `discriminant`, `reduce`, `ncomp` (the reduced dimension),
#'   `ncomp_selection` (for `"pca"` with `ncomp = NULL`: the leave-one-out
#'   `press` of each count of components, the `ridges` tried on every
#'   component and their `ridge_press` (linear rule), the `chosen` count and
#'   `chosen_ridge` (`NULL` when a count won); else `NULL`),
#'   `variance_explained` and `spectrum` (for `"pca"`: how the components
#'   were computed, `method` `"krylov"` or `"svd"`), `bases` (training-row indices, for
#'   `"subset"`), `ridge` (the one used, in the units of the kernel data),
#'   `prior`, `means` (class means of the reduced kernel data, one row per
#'   class), `scaling` (the Fisher discriminant directions in the reduced
#'   space, as `MASS::lda()`'s) and `trace_proportion` (their share of the
#'   between-class variance), the shared fields of a krein fit (`levels`,
#'   `counts`, `training_error`, ...) and what prediction needs.
#' @references
#' Huang, S.-Y., Hwang, C.-R. and Lin, M.-H. (2005). Kernel Fisher's
#' discriminant analysis in Gaussian reproducing kernel Hilbert space.
#' Manuscript, Institute of Statistical Science, Academia Sinica, Taipei.
#'
#' Golub, G. H., Luk, F. T. and Overton, M. L. (1981). A block Lanczos
#' method for computing the singular values and corresponding singular
#' vectors of a matrix. ACM Transactions on Mathematical Software 7(2),
#' 149-169. \doi{10.1145/355945.355946}
#'
#' Hastie, T., Buja, A. and Tibshirani, R. (1995). Penalized discriminant
#' analysis. *The Annals of Statistics*, 23(1), 73-102.
#' \doi{10.1214/aos/1176324456}.
#'
#' Lee, Y.-J. and Mangasarian, O. L. (2001). RSVM: reduced support vector
#' machines. In *Proceedings of the 2001 SIAM International Conference on Data
#' Mining*, SIAM, 1-17. \doi{10.1137/1.9781611972719.13}.
#'
#' Mika, S., Raetsch, G., Weston, J., Schoelkopf, B. and Mueller, K.-R.
#' (1999). Fisher discriminant analysis with kernels. In *Neural Networks for
#' Signal Processing IX*, IEEE, 41-48. \doi{10.1109/NNSP.1999.788121}.
#' @family kernel Fisher discriminant on the kernel data
#' @examples
#' set.seed(1)
#' train <- sine_populations(100)
#' test <- sine_populations(200)
#' # Huang, Hwang and Lin (2005), Example 3: the quadratic rule wins by far
#' # at 10 components
#' lin <- kfda(y ~ ., data = train, kernel = kernel_rbf(2), ncomp = 10)
#' quad <- kfda(y ~ ., data = train, kernel = kernel_rbf(2), ncomp = 10, discriminant = "quadratic")
#' c(linear = mean(predict(lin, test) != test$y),
#'   quadratic = mean(predict(quad, test) != test$y))
#' quad
#' head(predict(quad, test, type = "prob"))
#' # a random subset of 20% of the points as bases
#' rs <- kfda(y ~ ., data = train, kernel = kernel_rbf(2), reduce = "subset", bases = 0.2)
#' mean(predict(rs, test) != test$y)
#' @export
kfda <- function(x, ...) UseMethod("kfda")

#' @rdname kfda
#' @export
kfda.formula <- function(formula, data, ..., subset, na.action, kernel = kernel_rbf(),
                        scale = TRUE) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel, scale = scale)
  fit_model("kfda", inputs, list(...), match.call())
}

#' @rdname kfda
#' @export
kfda.default <- function(x, y, ..., kernel = kernel_rbf(), scale = TRUE, spectrum = "none",
                         discriminant = c("linear", "quadratic"),
                         reduce = c("auto", "pca", "subset", "ridge"), ncomp = NULL, bases = NULL,
                         ridge = NULL, prior = NULL, logdet = TRUE, tol = 1e-9, na.action = NULL,
                         threads = NULL) {
  check_dots_empty("kfda", ...)
  inputs <- inputs_from_xy(x, y, kernel, na.action, scale = scale, chunks = TRUE)
  fit_model("kfda", inputs, method_arguments("kfda"), match.call())
}

#' The fit behind every kfda() interface (the defaults are kfda.default()'s,
#' filled in by fit_model())
#' @noRd
kfda_fit <- function(inputs, discriminant, reduce, ncomp, bases, ridge, prior, logdet, tol, threads) {
  discriminant <- match_choice(discriminant, "discriminant", c("linear", "quadratic"))
  reduce <- check_choice(reduce, "reduce", c("auto", "pca", "subset", "ridge"))
  # "auto" is resolved once, by choose_form() (R/form.R)
  if (reduce == "auto") krein_abort("internal: `reduce = \"auto\"` reached kfda_fit() unresolved.")
  logdet <- check_flag(logdet, "logdet")
  tol <- check_number(tol, "tol", lower = 0, upper = 1)
  threads <- check_threads(threads)
  if (!is.null(ridge)) ridge <- check_number(ridge, "ridge", lower = 0, allow_lower = TRUE)
  if (!is.null(ncomp) && reduce != "pca") {
    krein_abort(sprintf("`ncomp` is for reduce = \"pca\"; with reduce = \"%s\" leave it NULL.", reduce))
  }
  if (!is.null(bases) && reduce != "subset") {
    krein_abort(sprintf("`bases` is for reduce = \"subset\"; with reduce = \"%s\" leave it NULL.", reduce))
  }
  y <- inputs$y
  levels <- levels(y)
  counts <- stats::setNames(as.vector(table(y)), levels)
  prior <- check_prior(prior, levels, counts)
  check_some_class_of_two(counts, "kfda() estimates the covariance of the kernel data within the classes")
  # a class of one point has no covariance of its own: the quadratic
  # discriminant gives it the pooled one (class_poolings()), so the classes
  # that estimate their own bound the components
  own <- counts[counts >= 2L]
  warn_one_row_classes(counts, if (discriminant == "linear") {
    "its mean is that row, and the pooled within-class covariance comes from the other classes"
  } else {
    "its mean is that row, and its covariance in the quadratic discriminant is the pooled within-class covariance of the other classes"
  })

  reduction <- switch(reduce,
    pca = kfda_pca(inputs, ncomp, discriminant, own, threads),
    subset = kfda_subset(inputs, bases, discriminant, own, ridge, threads),
    ridge = kfda_full_columns(inputs, threads)
  )
  Z <- reduction$Z
  classes <- length(levels)
  p <- length(reduction$scale)
  n <- length(y)
  if (is.null(ridge)) {
    # the default ridge of reduce = "ridge": 1e-3 of the mean variance of the
    # kernel data columns within the classes (in their own units, hence the
    # scale^2); of "pca", the one its selection chose, if any
    ridge <- if (reduce == "ridge") 1e-3 * mean(within_class_variances(Z, y) * reduction$scale^2) else
      reduction$ridge %||% 0
  }
  ridge_scaled <- ridge / reduction$scale^2
  hint <- kfda_singular_hint(reduce, discriminant)
  if (discriminant == "linear" && n - classes < p && ridge == 0) {
    krein_abort(sprintf("The pooled covariance of the reduced kernel data is singular: %d points in %d classes cannot estimate it in %d dimensions. %s",
                        n, classes, p, hint), class = "krein_singular_covariance")
  }
  # moment covariances, as MASS::lda and MASS::qda(method = "moment")
  gaussian <- gaussian_classes(Z, y, prior, pooled = discriminant == "linear", denominator = "unbiased",
                               ridge = ridge_scaled, threads = threads, moments = reduction$moments,
                               pooling = if (discriminant == "quadratic") class_poolings(counts, p, 0) else 0)
  check_covariance_factor(gaussian$pooled_rcond, "The pooled covariance", p, tol, hint)
  if (discriminant == "quadratic") {
    for (i in seq_len(classes)) {
      what <- sprintf("The covariance of class \"%s\"", levels[i])
      if (counts[i] > 1L && counts[i] - 1 < p && ridge == 0) {
        krein_abort(sprintf("%s of the reduced kernel data is singular: %d points cannot estimate it in %d dimensions. %s",
                            what, counts[i], p, hint), class = "krein_singular_covariance")
      }
      check_covariance_factor(gaussian$rcond[i], what, p, tol, hint)
    }
  }
  fisher <- fisher_directions(gaussian$pooled_factor, t(gaussian$means), prior)
  gaussian$pooled_factor <- NULL  # the Fisher directions hold what prediction needs of it
  fit <- list(discriminant = discriminant, reduce = reduce, ncomp = p,
              variance_explained = reduction$variance_explained, eigenvalues = reduction$eigenvalues,
              spectrum = reduction$spectrum, ncomp_selection = reduction$selection,
              bases = reduction$bases, ridge = ridge, logdet = logdet, tol = tol, prior = prior,
              means = stats::setNames(as.data.frame(gaussian$means * rep(reduction$scale, each = classes)),
                                      paste0("Z", seq_len(p))),
              projection = reduction[c("center", "rotation", "scale")], gaussian = gaussian,
              scaling = fisher$scaling, fisher_center = fisher$center,
              trace_proportion = fisher$trace_proportion,
              x = if (reduce != "subset") inputs$x,
              landmarks = if (reduce == "subset" && !is.null(reduction$points)) {
                list(points = reduction$points, class = reduction$class %||% y[reduction$bases])
              },
              threads = threads)
  rownames(fit$means) <- levels
  if (discriminant == "linear") fit[c("coefficients", "intercept")] <- kfda_expansion(fit, levels)
  # the training predictions, computed once (a subset fit keeps no training data)
  names <- rownames(inputs$x %||% inputs$precomputed$K)
  # a "subset" fit on data (in memory or in chunks) forms no Z: a second pass
  # over the rows (kfda_moments_reduction())
  training <- if (is.null(Z)) reduction$training(fit) else {
    list(decisions = kfda_decisions(fit, Z), projection = fisher_coordinates(fit, Z))
  }
  fit$training_decisions <- training$decisions
  dimnames(fit$training_decisions) <- list(names, levels)
  fit$training_projection <- training$projection
  rownames(fit$training_projection) <- names
  fit
}

# Variances of the columns of Z within the classes (pooled, denominator n - K)
within_class_variances <- function(Z, y) {
  means <- rowsum(Z, y) / as.vector(table(y))
  colSums((Z - means[as.integer(y), , drop = FALSE])^2) / (nrow(Z) - nlevels(y))
}

kfda_singular_hint <- function(reduce, discriminant) {
  change <- switch(reduce,
    pca = "Use fewer components (`ncomp`) or add a `ridge`",
    subset = "Use fewer bases (`bases`) or add a `ridge`",
    ridge = "Use a larger `ridge`"
  )
  paste0(change, if (discriminant == "quadratic") ", or discriminant = \"linear\"" else "", ".")
}

# An error naming the covariance M when its factor R (R'R = M, from a QR
# decomposition of the centred data plus the ridge rows) is singular: its
# reciprocal condition number (LAPACK dtrcon, about the ratio of the smallest
# to the largest singular value of the centred data) is below `tol`.
check_covariance_factor <- function(condition, what, p, tol, hint) {
  if (condition < tol) {
    krein_abort(sprintf("%s of the reduced kernel data is singular in %d dimensions (reciprocal condition number %s, below `tol` = %s). %s",
                        what, p, format(condition, digits = 3), format(tol, digits = 3), hint),
                class = "krein_singular_covariance")
  }
}

# Fisher's canonical directions in the reduced space, as MASS::lda's
# `scaling`: the generalised eigenvectors of the prior-weighted between-class
# covariance against the pooled one, normalised so that the pooled
# within-class covariance of the coordinates is the identity. An
# eigenvector's sign is arbitrary and may flip with rounding (a fit over
# chunks against the same fit in memory): each direction's largest
# coefficient is made positive, as onda() does.
#
# The between-class covariance is B B' with B = (means - center)
# diag(sqrt(prior)), p x K, so the eigenproblem of R^-T B B' R^-1 is the
# singular value decomposition of the p x K matrix R^-T B: O(p^2 K) flops
# rather than the O(p^3) of forming R^-1 and the p x p problem (959
# components on mlbench's Satellite).
fisher_directions <- function(R, means, prior) {
  center <- as.vector(means %*% prior)
  spread <- (means - center) * rep(sqrt(prior), each = nrow(means))
  s <- svd(backsolve(R, spread, transpose = TRUE), nv = 0)
  d <- min(nrow(R), ncol(means) - 1L)
  values <- c(s$d^2, double(d))[seq_len(d)]
  scaling <- backsolve(R, s$u[, seq_len(d), drop = FALSE])
  # (the directions, not the eigenvectors: R's rows have arbitrary signs too)
  largest <- max.col(abs(t(scaling)), ties.method = "first")
  scaling <- scaling * rep(sign(scaling[cbind(largest, seq_len(d))]), each = nrow(scaling))
  colnames(scaling) <- paste0("LD", seq_len(d))
  list(scaling = scaling, center = center,
       trace_proportion = if (sum(values) > 0) values / sum(values) else values)
}

fisher_coordinates <- function(fit, Z) {
  (Z - rep(fit$fisher_center, each = nrow(Z))) %*% fit$scaling
}

# n x K log-likelihood ratios against the first class (eqs. 11, 12)
kfda_decisions <- function(fit, Z) {
  g <- gaussian_discriminants(fit$gaussian, Z, logdet = fit$logdet)
  g - g[, 1]
}

# KFLDA as a kernel expansion (Remark 4, eq. 13): d_i(x) = k_x' alpha_i + b_i
kfda_expansion <- function(fit, levels) {
  weights <- fit$gaussian$weights
  constant <- fit$gaussian$constant
  proj <- fit$projection
  W <- weights - weights[, 1]
  if (length(proj$rotation)) W <- proj$rotation %*% (W / proj$scale) else W <- W / proj$scale
  b <- constant - constant[1] - as.vector(crossprod(proj$center, W))
  colnames(W) <- names(b) <- levels
  list(coefficients = W, intercept = b)
}

#' @export
coef.kfda <- function(object, ...) {
  if (object$discriminant != "linear") {
    krein_abort("Only the linear rule (discriminant = \"linear\") is a kernel expansion; KFQDA has no coefficients of that form.")
  }
  rbind(`(Intercept)` = object$intercept, object$coefficients)
}

#' @export
krein_scores.kfda <- function(object, new, type) {
  if (is.null(new)) {
    if (type == "projection") return(object$training_projection)
    decision <- object$training_decisions
  } else {
    K <- new_kernels(object, new, points = object$landmarks$points %||% object$x, columns = object$bases)$K
    proj <- object$projection
    Z <- cpp_kfda_project(K, proj$center, proj$rotation %||% matrix(0, ncol(K), 0), proj$scale)
    if (type == "projection") {
      out <- fisher_coordinates(object, Z)
      rownames(out) <- rownames(K)
      return(out)
    }
    if (type == "prob") {
      # discriminants relative to each row's largest, so that points far out
      # (a quadratic form of 1e600) give probabilities, not Inf - Inf
      prob <- softmax_rows(gaussian_discriminants(object$gaussian, Z, logdet = object$logdet,
                                                  relative = TRUE))
      dimnames(prob) <- list(rownames(K), object$levels)
      return(prob)
    }
    decision <- kfda_decisions(object, Z)
    dimnames(decision) <- list(rownames(K), object$levels)
  }
  if (type == "decision") decision else softmax_rows(decision)
}

#' @export
model_title.kfda <- function(x) if (x$discriminant == "linear") "KFLDA" else "KFQDA"

kfda_reduction_text <- function(x) {
  switch(x$reduce,
    pca = sprintf("%d principal components (%.2f%% of the variance of the kernel data)", x$ncomp,
                  100 * x$variance_explained),
    subset = sprintf("%d bases (%.1f%% of the number of training points)", x$ncomp, 100 * x$ncomp / sum(x$counts)),
    ridge = sprintf("all %d kernel columns", x$ncomp))
}

#' @export
model_print_lines.kfda <- function(x) {
  c(paste0("reduction: ", kfda_reduction_text(x),
           if (x$ridge > 0) sprintf(", ridge %s", format(x$ridge, digits = 3)) else ""),
    if (x$discriminant == "quadratic" && !x$logdet) "log-determinants dropped (kernel Mahalanobis rule)")
}

#' @export
model_summary.kfda <- function(object) {
  classes <- data.frame(n = as.vector(object$counts), prior = as.vector(object$prior),
                        row.names = object$levels)
  if (object$discriminant == "quadratic") {
    classes$log_det <- object$gaussian$logdet + 2 * sum(log(object$projection$scale))
  }
  trace <- matrix(object$trace_proportion, nrow = 1L, dimnames = list("proportion", colnames(object$scaling)))
  out <- list(paste0(kfda_reduction_text(object),
                     if (object$ridge > 0) paste0("; ridge ", format(object$ridge, digits = 4)) else ""),
              classes, trace)
  names(out) <- c("Reduction of the kernel data",
                  if (object$discriminant == "quadratic") "Classes (log-determinant of the covariance of the reduced kernel data)" else "Classes",
                  "Proportion of trace (Fisher directions)")
  out
}

# Inputs that are not two columns: the points in the Fisher discriminant
# coordinates, as plot(<lda>) draws them, with the class means as diamonds.
#' @export
plot_model_diagnostic.kfda <- function(x, data, main, predict_args, ...) {
  means <- fisher_coordinates(x, x$gaussian$means)
  plot_discriminant_space(x, data, main, predict_args, means, ...)
}

# kfda()'s forms: the kernel PCA of all n kernel columns (full), or a
# random subset of bases (Huang, Hwang and Lin 2005, Sec. 4.2), whose
# kernel data K(x, B) the landmark pass reduces as it does the Nystroem
# forms' (kfda_subset_moments()); `ncomp` belongs to the one, `bases` to
# the other
kfda_forms <- function() {
  list(argument = "reduce", full = list(reduce = "pca"),
       nystrom = function(inputs, args) list(reduce = "subset"),
       fixed = function(args) {
         if (!is.null(args$ncomp)) return(structure(list(reduce = "pca"), by = "ncomp"))
         if (!is.null(args$bases)) return(structure(list(reduce = "subset"), by = "bases"))
         NULL
       })
}

model_registration_kfda <- function() register_krein_model(
  full_form = function(args) !identical(args$reduce[1], "subset"), full_copies = 3,
  forms = kfda_forms(), full_max_rows = 6000,
  "kfda", label = "Kernel Fisher discriminant on the kernel data", fit = "kfda_fit",
  parameters = data.frame(parameter = c("discriminant", "reduce", "ncomp", "bases", "ridge"),
                          class = c("character", "character", "numeric", "numeric", "numeric"),
                          label = c("linear or quadratic rule", "reduction", "principal components",
                                    "random bases", "ridge"),
                          stringsAsFactors = FALSE),
  types = "projection", ranges = function(args) list(ridge = c(-6, -1)),
  default_grid = function(size, args, data) kfda_default_grid(size, args, data),
  # a `type` given to kfda() is the rule: the error points to `discriminant`
  renamed = c(type = "discriminant"),
  chunks = function(args) invisible(),
  landmark_args = function(landmarks) {
    list(reduce = "subset", bases = if (inherits(landmarks, "krein_landmarks")) landmarks$points else landmarks)
  }
)
