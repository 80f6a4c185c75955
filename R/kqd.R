# kqd(): kernel quadratic discriminant analysis (paper 000) in full -- the
# fit, the regularisation path and its cross-validated default, the biases,
# prediction, print, summary, plot and registration. Ny-KQD is in
# R/kqd_nystrom.R.

#' Kernel quadratic discriminant analysis
#'
#' Quadratic discriminant analysis in the feature space of a kernel -- positive
#' definite or indefinite -- after Pekalska and Haasdonk (2009, Sec. IV and
#' Table II). Each class gets a Gaussian
#' model in the feature space; an object is assigned to the class with the
#' largest decision value
#' \deqn{f_j(x) = -\tfrac12 d_j^2(x) + b_j,}
#' where \eqn{d_j^2} is a squared kernel Mahalanobis distance to class \eqn{j}
#' and \eqn{b_j} a bias. With `landmarks`, the same six variants in the
#' feature space of a Nystroem approximation (Ny-KQD, derived for krein; see
#' Nystroem KQD): linear in the number of training points, and the full KQD
#' whenever the landmarks span the kernel.
#'
#' @section Variants (Pekalska and Haasdonk 2009, Table II):
#' * `"IC+"`, `"IC-"` (invertible covariance, eqs. 14-17):
#'   \eqn{d^2 = n_j \tilde k_x' M^2 \tilde k_x}, with \eqn{M = (\tilde K + \alpha
#'   I)^{-1}} (`+`) or the pseudo-inverse of \eqn{\tilde K} with threshold
#'   \eqn{\alpha} (`-`); \eqn{\tilde K} the centred class kernel, \eqn{\tilde
#'   k_x} the centred kernel vector of \eqn{x} against the class.
#' * `"RC+"`, `"RC-"` (regularised covariance \eqn{C + \sigma^2 I}, eqs.
#'   18-21): \eqn{d^2 = (\tilde k_{xx} - \tilde k_x' M \tilde k_x) /
#'   \sigma^2} with \eqn{M = (\tilde K + n_j \sigma^2 I)^{-1}} (`+`) or
#'   \eqn{I / (n_j \sigma^2)} (`-`). Needs the self-similarity \eqn{k(x, x)}.
#' * `"FK+"`, `"FK-"` (full kernel space, eqs. 22-23): like IC but with the
#'   \eqn{n \times n} matrix \eqn{\tilde K_j H_j \tilde K_j'} built from all
#'   training points, so between-class information enters.
#'
#' For indefinite kernels the IKQD formulas regularise in the Krein sense:
#' \eqn{U(\Lambda + \alpha J)U'} for IC+, \eqn{\tilde K + n_j \sigma^2 U J U'} for
#' RC+ and \eqn{U J U'} for RC-, with \eqn{\tilde K = U \Lambda U'} and \eqn{J}
#' the signs of the eigenvalues (zero eigenvalues count as +1). IC- and the FK
#' variants are the same for both kinds of kernel (their matrices are
#' pseudo-inverted or positive semidefinite). With `indefinite = "auto"` a
#' class uses the IKQD formulas when its centred kernel has an eigenvalue below
#' \eqn{-10^{-8}} times its largest absolute eigenvalue (or, on the Cholesky
#' path, when \eqn{\tilde K + 10^{-8} \max_i |\tilde K_{ii}| I} has no Cholesky
#' factor). Eigenvalues within \eqn{100 n_j \epsilon} times the largest of zero
#' count as zero.
#'
#' As printed, the IKQD-RC+ quadratic form (eq. 20) can be negative for an
#' indefinite kernel: the derivation in Appendix I-C adds
#' \eqn{\sigma^2\tilde\psi(x)} where \eqn{C + \sigma^2 \mathcal{J}} gives
#' \eqn{\sigma^2 \mathcal{J} \tilde\psi(x)}. krein implements the formula as
#' published, which reproduces the paper's results; its values are then
#' indefinite quadratic forms rather than squared distances.
#'
#' @section Nystroem KQD (Ny-KQD):
#' With `landmarks`, the kernel is replaced by its Nystroem approximation
#' (see [nystrom()]) and every variant is computed in the feature space of
#' that approximation, with \eqn{r \times r} matrices instead of
#' \eqn{n_j \times n_j} or \eqn{n \times n} ones. The papers give only the
#' kernel forms; the low-rank forms below are derived from them (exact algebra,
#' checked against the full KQD in the tests).
#'
#' *The feature space.* For the \eqn{m} landmarks \eqn{L}, \eqn{W = k(L, L) =
#' V \Lambda V'}, keeping the \eqn{r} eigenvalues above \eqn{\sqrt{\epsilon}}
#' times the largest in absolute value (as [nystrom()]). The map
#' \deqn{\phi(x) = |\Lambda|^{-1/2} V' k(L, x) \in R^r, \qquad J =
#'   \mathrm{sign}(\Lambda)}
#' gives \eqn{\phi(x)' J \phi(x') = k(x, L) W^{+} k(L, x')}, the Nystroem
#' kernel: the approximated data live in a pseudo-Euclidean space of
#' signature \eqn{(p, q)} (a Euclidean one, \eqn{J = I}, when \eqn{W} is
#' positive semidefinite).
#'
#' *A class.* Let \eqn{\Phi_j} hold the features of the \eqn{n_j} points of
#' class \eqn{j} in rows, \eqn{\mu_j} their mean, \eqn{\tilde\Phi_j = \Phi_j -
#' 1 \mu_j'} and \eqn{\tilde\phi(x) = \phi(x) - \mu_j}. Then the centred class
#' kernel and centred kernel vector of Table II are
#' \eqn{\tilde K = \tilde\Phi_j J \tilde\Phi_j'} and \eqn{\tilde k_x =
#' \tilde\Phi_j J \tilde\phi(x)}. The class covariance in the feature space
#' is \eqn{C_j = G_j / n_j} with the \eqn{r \times r} Gram matrix \eqn{G_j =
#' \tilde\Phi_j'\tilde\Phi_j = F_j' F_j} (\eqn{F_j = S V_s'} from the thin
#' SVD \eqn{\tilde\Phi_j = U S V_s'}). So \eqn{\tilde K = U M_j U'} with
#' \eqn{M_j = F_j J F_j' = Q \Lambda_j Q'}: the nonzero eigenvalues of
#' \eqn{\tilde K} are the \eqn{r} or fewer eigenvalues \eqn{\Lambda_j} of
#' \eqn{M_j} (the nonzero eigenvalues of \eqn{J G_j = n_j J C_j}), with
#' eigenvectors \eqn{U Q}, and \eqn{\tilde k_x = U Q c(x)} with the
#' coordinates \deqn{c(x) = Q' F_j J \tilde\phi(x),} having no part outside
#' that eigenbasis. Every Table II formula is a quadratic form
#' \eqn{\tilde k_x' g(\tilde K) \tilde k_x} with a function \eqn{g} of the
#' eigenvalues of \eqn{\tilde K}, so it becomes \eqn{\sum_i g(\Lambda_{j,i})
#' c_i(x)^2}:
#' * IC+: \eqn{d^2 = n_j \sum_i c_i^2 / (\Lambda_i + \alpha)^2}; IKQD-IC+:
#'   \eqn{(|\Lambda_i| + \alpha)^2} in the denominator (\eqn{\Lambda + \alpha
#'   J_j}, \eqn{J_j = \mathrm{sign}(\Lambda_j)}).
#' * IC- (both kinds): \eqn{n_j \sum c_i^2 / \Lambda_i^2} over \eqn{|\Lambda_i|
#'   \ge \alpha}.
#' * RC+: \eqn{d^2 = (\tilde k_{xx} - \sum_i c_i^2 / (\Lambda_i + n_j
#'   \sigma^2)) / \sigma^2}; IKQD-RC+: \eqn{\sum_i J_{j,i} c_i^2 / (|\Lambda_i|
#'   + n_j \sigma^2)}.
#' * RC-: \eqn{(\tilde k_{xx} - \|c\|^2 / (n_j \sigma^2)) / \sigma^2}, with
#'   \eqn{\|c\|^2 = \|\tilde k_x\|^2}; IKQD-RC-: \eqn{\sum_i J_{j,i} c_i^2} in
#'   place of \eqn{\|c\|^2}.
#' * FK: with \eqn{\bar\Phi} all training features minus their grand mean,
#'   \eqn{\tilde K = \bar\Phi J \bar\Phi'}, \eqn{\tilde K_j H_j \tilde K_j' =
#'   \bar\Phi J G_j J \bar\Phi'} and \eqn{\tilde{\tilde k}_x = \bar\Phi J
#'   \tilde\phi(x)}. With \eqn{\bar\Phi'\bar\Phi = \bar F'\bar F} (the
#'   within-class Grams plus \eqn{n_j (\mu_j - \bar\mu)(\mu_j - \bar\mu)'}),
#'   the same argument gives the eigenvalues of \eqn{\bar F J G_j J \bar F'}
#'   (positive semidefinite) and the coordinates \eqn{c = Q' \bar F J
#'   \tilde\phi(x)}; FK+ and FK- are then \eqn{n_j \sum c_i^2 / (\Lambda_i +
#'   \alpha)} and \eqn{n_j \sum c_i^2 / \Lambda_i} over \eqn{\Lambda_i \ge
#'   \alpha}, for both kinds of kernel.
#'
#' Eigenvalues of \eqn{\tilde K} outside this basis are zero, and the
#' formulas give them the weight of a zero eigenvalue (\eqn{J = +1}), so they
#' count nowhere: \eqn{\tilde k_x} has no part there. The zero tolerance,
#' the automatic choice of the IKQD formulas, the signature \eqn{(p, q, z)}
#' (with \eqn{z = n_j - p - q}) and the MAP bias use the spectrum
#' \eqn{\Lambda_j} exactly as the full fit uses that of \eqn{\tilde K}. RC
#' needs the centred self-similarity \eqn{\tilde k_{xx} = k(x, x) - 2 \phi(x)'
#' J \mu_j + \mu_j' J \mu_j}: krein uses the exact \eqn{k(x, x)}, so the part
#' of \eqn{x} outside the span of the landmarks counts as isotropic residual,
#' as in the full RC model.
#'
#' *When it is the full KQD.* If the landmarks span the kernel -- every
#' training point is a landmark (with an invertible \eqn{W}), or the kernel
#' has rank at most \eqn{m} and \eqn{W} has its rank (such as a quadratic
#' kernel of 2-D inputs, with 6 features, and \eqn{m \ge 6} landmarks in
#' general position) -- then \eqn{k(x, L) W^{+} k(L, x_i) = k(x, x_i)} for every
#' point \eqn{x} and training point \eqn{x_i}: the approximated training
#' kernel and kernel vectors are the exact ones, and since the formulas above
#' are exact rewritings of Table II, Ny-KQD gives the full KQD's distances,
#' biases and classes (to rounding).
#'
#' *Cost.* The fit needs of each class only its count, mean and centred Gram
#' matrix. They come from the landmark kernel \eqn{C = k(X, L)}, computed in
#' blocks of rows as for Ny-iKFD (`getOption("krein.block_rows")`; see
#' [ikfd()]) and reduced at once to one triangular QR factor of \eqn{[C_j,
#' 1]} per class (tall-skinny QR), which gives the centred Gram exactly,
#' without subtracting the large mean of kernel rows: \eqn{O(n m^2)} time and
#' \eqn{O(m^2)} memory beyond one block, then \eqn{O(c m^3)} for the
#' spectra, and a second pass (or the kept blocks, when all of them fit in
#' 128 MB) for the training distances the biases need. The model keeps the
#' landmarks, the \eqn{r \times m} map and per class \eqn{\mu_j}, the
#' projection \eqn{Q'F_jJ} and \eqn{\Lambda_j} -- not the training data --
#' and predicts a point with one product of its kernel against the landmarks,
#' \eqn{O(m r)} per class. A regularisation path costs one fit, as in the full
#' KQD.
#'
#' @section Regularisation and the path:
#' `reg` is \eqn{\alpha_j} for IC and FK (a ridge or pseudo-inverse threshold on
#' eigenvalues of centred kernel matrices, so it scales with the kernel) and
#' \eqn{\sigma_j^2} for RC. The default for RC (`reg = NULL`) is a path of
#' seven values, \eqn{\sigma^2 = s \cdot 10^{-5}, \dots, s \cdot 10}, with
#' \eqn{s = \mathrm{tr}(HKH)/n}, the mean squared distance of the training
#' points to their centroid in feature space (\eqn{s = 1} if that is not
#' positive), whose value is chosen by cross-validation as described below:
#' the variance added to the class covariances is measured against the
#' data's own spread, so the default keeps the invariances of
#' \eqn{d_{RC}^2} to adding a constant to the kernel and to scaling it, and
#' suits any kernel. Ny-KQD (`landmarks`) takes the same path, with \eqn{s}
#' that of the Nystroem kernel it works in (computed from the class moments
#' its fit gathers anyway). A class of a single point trains in every fold
#' of the path's cross-validation (its fold in `cv_folds` is 0); Ny-KQD then
#' takes the single value `0.1` for RC, as does every fit where no class has
#' two points (`reg = 0.1` fits that value on any data). For IC and FK the default is `1e-3`. These single
#' values suit kernels with \eqn{k(x, x) = 1} such as the Gaussian; paper
#' 000 searches eight values on a log scale. A vector of values is a
#' regularisation path: one eigendecomposition per class serves all of them,
#' each extra value costing only \eqn{O(n n_j)} per class, and
#' `predict(fit, newdata, reg = )` picks one. A matrix with one column per
#' class gives per-class values, one path point per row. A single value of
#' IC+ or RC+ with the positive definite formulas is fitted by a Cholesky
#' factorisation instead of an eigendecomposition. The FK variants always use
#' the eigenpairs of \eqn{\tilde K_j H_j \tilde K_j'} (from an \eqn{n_j \times
#' n_j} problem): its rank is below \eqn{n_j}, so prediction costs
#' \eqn{O(n r)} per point for its numerical rank \eqn{r}. A value so small
#' for the kernel's scale that the training distances overflow (RC divides
#' by \eqn{\sigma^2}; `reg = 1e-200`) is an error, or, in a path with
#' usable values, left out with a warning (`NA` in `path_error` and `bias`).
#'
#' *The default value of a path* (`best`, what `predict()` uses without
#' `reg`) is chosen by `nfolds`-fold cross-validation (`select = "cv"`, the
#' default), as `cv.glmnet()` chooses its \eqn{\lambda}: the training points
#' are split into `nfolds` folds stratified by class (at most as many as the
#' smallest class has points), dealt in turn rather than at random -- the
#' points of each class, in data order, go to folds 1, 2, 3, ... -- so that
#' the default fit is a function of the data and the arguments alone (it
#' predicts the same classes whatever the seed and does not use the random
#' number generator; [tune_krein()] draws random folds), and each fold is
#' predicted by a fit on the others: one
#' decomposition per class and fold serves the whole path, with biases
#' found on the fold's training part as the full fit finds its own. `best`
#' is the value with the lowest cross-validated error (`cv_error`, printed
#' by [summary()][summary.krein_model()]), and among tied values the more
#' regularised one (the larger value; for per-class values, the larger
#' geometric mean): on small data whole stretches of a path tie, and the
#' more regularised end is the more stable estimate, where the less
#' regularised one is the degenerate choice the training error makes. The
#' training error cannot choose: for IC and FK the training points' own
#' distances are degenerate (every point of class \eqn{j} is at distance
#' \eqn{n_j - 1} once \eqn{\alpha} is below the nonzero eigenvalues), so
#' the training errors are 0 along the path. `select = "training"` takes
#' the lowest training error instead, with ties to the first value, without
#' the extra fits (the paper reproductions choose their
#' values themselves). A class with fewer points than the cross-validation
#' needs (two per class and fold; three for IC and FK-) falls back to the
#' training error with a warning. Ny-KQD fits (in memory or over chunks)
#' are cross-validated the same way, at about the cost of one more pass
#' over the data per fold: one pass gives every class's moments within
#' every fold, a fold's model merges those of its training folds exactly and
#' solves eigenproblems of the landmarks' size, and one pass per fold gives
#' its distances. [tune_krein()] validates the path on its own folds, so its fits
#' skip the inner cross-validation.
#'
#' @section Bias:
#' * `"error"` (Pekalska and Haasdonk 2009, Sec. IV-D): for each pair of
#'   classes, the bias difference minimising their training errors -- the
#'   middle of the widest
#'   interval of optimal thresholds (closed with the mean gap between scores
#'   when it is unbounded) -- and then the biases, summing to zero, that fit
#'   these differences in least squares. The errors are weighted by the
#'   prior: an error on a point of class \eqn{j} counts \eqn{P(\omega_j) /
#'   n_j}, so the search minimises the prior-weighted training error
#'   \eqn{\sum_j P(\omega_j) e_j} (\eqn{e_j} the error rate within class
#'   \eqn{j}). With the default prior, the class proportions, every error
#'   counts the same: the paper's error count.
#' * `"map"`: \eqn{b_j = -\frac12 \log \det \Sigma_j + \log P(\omega_j)}, the
#'   bias of the Gaussian model's maximum a posteriori decision. For RC+ the
#'   class covariance \eqn{\Sigma_j = C_j + \sigma_j^2 I} covers the whole
#'   feature space (the RC distance weights the part of a point outside the
#'   class's span by \eqn{1/\sigma_j^2}), so \eqn{b_j = -\frac12 \sum_i
#'   \log(1 + |\lambda_i| / (n_j \sigma_j^2)) - \frac n2 \log \sigma_j^2 +
#'   \log P(\omega_j)}: the log-determinant in the span of the \eqn{n}
#'   training points, whose last term is the same for every class when
#'   \eqn{\sigma^2} is. This is stable, and it is what makes the MAP decision
#'   the Gaussian model's: summing \eqn{\log(|\lambda_i| / n_j + \sigma^2)} over
#'   each class's own nonzero eigenvalues, as the paper's formula reads, leaves
#'   out \eqn{\log \sigma^2} for every dimension outside the class's span and
#'   put the MAP fit below chance on real data where classes differ in size
#'   (krein <= 0.1). For the other variants \eqn{b_j = -\frac12 \sum_i \log
#'   \mu_i + \log P(\omega_j)} with \eqn{\mu_i} the eigenvalues of the
#'   (regularised) class covariance in the span of the class,
#'   \eqn{(|\lambda_i| + \alpha) / n_j} for IC+ and FK+, over the eigenvalues
#'   counted as nonzero, and \eqn{|\lambda_i| / n_j} over those above
#'   \eqn{\alpha} for IC- and FK-. As the paper warns, this is numerically
#'   fragile: krein warns when the classes keep different numbers of
#'   eigenvalues or the smallest kept one is below \eqn{10^{-8}} times the
#'   largest. RC- has no class covariance model: its MAP bias is the log
#'   prior.
#' * `"none"`: \eqn{b_j = \log P(\omega_j)}.
#'
#' @section Prediction:
#' [predict()][predict.krein_model()] gives `type = "class"`, `"prob"` (the
#' softmax of the decision values, \eqn{\exp f_j / \sum_l \exp f_l}; see
#' below), `"decision"` (the decision values \eqn{f_j}) and
#' `"distance"` (the squared kernel Mahalanobis distances \eqn{d_j^2}); its
#' argument `reg` picks a value of the regularisation path (one of the fitted
#' values; `NULL`, the default, takes the fit's `best`, chosen by
#' cross-validation: see Regularisation and the path).
#' Precomputed fits of the RC variants need the self-similarities of new
#' points: `precomputed_kernel(K_new, self = )`. New points whose distances
#' are not finite (kernel values far beyond the training data's scale) are
#' an error, never NaN probabilities. A Ny-KQD fit on a precomputed kernel
#' uses only the landmark columns of the new kernel (and, for RC, the
#' self-similarities). [plot()][plot.krein_model()]
#' takes `reg` too; for more than two inputs it shows a pairs plot of the
#' training points' squared distances to the classes -- for two classes the
#' KQD boundary is a line parallel to the diagonal there (Haasdonk and
#' Pekalska 2010, Sec. 3.3).
#'
#' *What `"prob"` is.* Only with `bias = "map"` is the softmax the
#' posterior of the model's Gaussian assumption (plug-in class means,
#' regularised covariances and priors; as fragile as the MAP bias itself).
#' With `bias = "error"` (the default) the biases are thresholds chosen for
#' the training error, and with `"none"` the log determinants are left out:
#' the softmax is then a monotone score -- its largest entry is the predicted
#' class and it ranks the classes -- but its scale (how close to 0 or 1 it
#' goes) was never fitted to data, so it is not a calibrated probability.
#' krein does not calibrate it, since a calibration (a sigmoid fitted to
#' held-out decision values, as Platt's) would need an inner
#' cross-validation the paper's model does not have; [tune_krein()]
#' therefore refuses `metric = "logloss"` and `"brier"` for kqd unless
#' `bias = "map"`.
#'
#' @param x A formula, a numeric matrix or data frame, a precomputed kernel
#'   (see [krein_inputs]), or data in chunks ([krein_chunks()]) for the fits
#'   that take them.
#' @param y The class labels (not for the formula method, nor for data in
#'   chunks, which carry their own).
#' @inheritParams krein_inputs
#' @param formula,data,subset,na.action As in [MASS::lda()]: see [krein_inputs].
#' @param kernel A kernel (see [kernels]), or `"precomputed"` when `x` is a
#'   kernel matrix.
#' @param variant One of `"RC+"`, `"RC-"`, `"IC+"`, `"IC-"`, `"FK+"`, `"FK-"`.
#' @param reg The regularisation: `NULL` for the variant's default (RC: a
#'   cross-validated path of seven values scaled to the kernel's spread; IC
#'   and FK: `1e-3`; see Regularisation and the path), a positive number, a
#'   vector of positive numbers (a path), or a matrix with one column per
#'   class.
#' @param indefinite `"auto"`, `"yes"` (IKQD formulas for every class) or
#'   `"no"` (positive definite formulas for every class).
#' @param bias `"error"`, `"map"` or `"none"`.
#' @param prior Class prior probabilities in the order of the levels; `NULL`
#'   for the class proportions.
#' @param select How the default value of a regularisation path (`best`) is
#'   chosen: `"cv"` (cross-validated error, ties to the more regularised
#'   value) or `"training"` (the lowest training error, ties to the first
#'   value). See Regularisation and the path. A
#'   single value needs no choice.
#' @param nfolds The number of folds of `select = "cv"` (at most the size of
#'   the smallest class is used).
#' @param landmarks `"auto"` (the default): the full form up to a number of
#'   training rows, the Nystroem form on random landmarks beyond (see
#'   [krein_forms]); `NULL` (or `"none"`, which interfaces that drop `NULL` arguments can pass, such as parsnip's `set_engine()`) for the full KQD; for Ny-KQD (see Nystroem KQD)
#'   `"meb"`, `"kmeans"` or `"random"` to select landmarks with
#'   [select_landmarks()], a vector of training-row indices, or a
#'   `krein_landmarks` object from [select_landmarks()] on the same training
#'   data (with the same `scale`) -- as [ikfd()] takes them. For data in chunks ([krein_chunks()],
#'   given as `x`; the fit is mapped over the chunks): a matrix of landmark points (original units), a `krein_landmarks` object
#'   or a method applied to the first chunks.
#' @param eps,m Passed to [select_landmarks()] when `landmarks` names a
#'   method (`m`: the number of landmarks); with `landmarks = "auto"`, `m`
#'   sets the number of the automatic Nystroem form's landmarks (default
#'   \eqn{\min(300, n/2)}).
#' @param threads Threads for the kernel matrices; `NULL` uses
#'   `getOption("krein.threads")`.
#' @param ... Not used: every argument after the data must be named in full
#'   (an unknown name is an error).
#' @returns An object of class `c("kqd", "krein_model")`: a list with
#'   `variant`, `reg` (a matrix: one row per path value, one column per class),
#'   `bias` (same shape), `path_error` (the training error at each path value;
#'   `NA`, with `NA` biases and a warning, where the training distances were
#'   not finite because the value is too small for the kernel's scale --
#'   predict() refuses such a value, and the fit fails if every value does),
#'   `cv_error` (the cross-validated error at each path value; `NULL`
#'   unless a path was cross-validated), `cv_folds` (the fold of each
#'   training point, 0 for the point of a class of one, or `NULL`), `select` (the rule that chose: `"cv"`,
#'   `"training"`, or `"none"` for one value),
#'   `best` (the path value chosen, the default of `predict()`; see
#'   Regularisation and the path), `training_error` (at `best`),
#'   `indefinite` (per class: were the IKQD formulas used), `signature` (per
#'   class: \eqn{(p, q, z)} of the centred class kernel, `NA` where a Cholesky
#'   factorisation replaced the eigendecomposition and for FK), `levels`,
#'   `prior`, `counts`, the kernel and what prediction needs: the training
#'   inputs `x` for a full fit; for Ny-KQD, `landmarks` (a `krein_landmarks`)
#'   and in `core` the feature map, its signs \eqn{J} and per class the
#'   mean, projection and eigenvalues, with `x` `NULL`.
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (Sections, equations and tables are cited
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#'
#' Haasdonk, B. and Pekalska, E. (2010). Classification with kernel
#' Mahalanobis distance classifiers. In *Advances in Data Analysis, Data
#' Handling and Business Intelligence*, Studies in Classification, Data
#' Analysis, and Knowledge Organization, Springer, 351-361.
#' \doi{10.1007/978-3-642-01044-6_32}.
#' @family kernel quadratic discriminants
#' @examples
#' set.seed(1)
#' train <- checkerboard(200, size = 2)
#' fit <- kqd(y ~ x1 + x2, data = train, kernel = kernel_rbf(2), variant = "RC+")
#' fit
#' test <- checkerboard(200, size = 2)
#' mean(predict(fit, test) != test$y)
#' head(predict(fit, test, type = "prob"))
#' # a regularisation path: one decomposition, several values
#' path <- kqd(y ~ x1 + x2, data = train, kernel = kernel_rbf(2), variant = "IC-",
#'             reg = c(1e-4, 1e-3, 1e-2))
#' path$path_error
#' # Ny-KQD: 40 random landmarks instead of all 200 points
#' ny <- kqd(y ~ x1 + x2, data = train, kernel = kernel_rbf(2), variant = "RC+",
#'           landmarks = "random", m = 40)
#' ny
#' mean(predict(ny, test) != test$y)
#' @export
kqd <- function(x, ...) UseMethod("kqd")

#' @rdname kqd
#' @export
kqd.formula <- function(formula, data, ..., subset, na.action, kernel = kernel_rbf(),
                        scale = TRUE) {
  inputs <- inputs_from_formula(match.call(expand.dots = FALSE), parent.frame(), kernel, scale = scale)
  fit_model("kqd", inputs, list(...), match.call())
}

#' @rdname kqd
#' @export
kqd.default <- function(x, y, ..., kernel = kernel_rbf(), scale = TRUE, spectrum = "none", variant = "RC+", reg = NULL,
                        indefinite = c("auto", "yes", "no"), bias = c("error", "map", "none"),
                        prior = NULL, landmarks = "auto", eps = 0.01, m = NULL,
                        select = c("cv", "training"), nfolds = 5L, na.action = NULL, threads = NULL) {
  check_dots_empty("kqd", ...)
  inputs <- inputs_from_xy(x, y, kernel, na.action, scale = scale, chunks = TRUE)
  fit_model("kqd", inputs, method_arguments("kqd"), match.call())
}

kqd_variants <- c("RC+", "RC-", "IC+", "IC-", "FK+", "FK-")

#' The fit behind every kqd() interface (the defaults are kqd.default()'s,
#' filled in by fit_model())
#' @noRd
kqd_fit <- function(inputs, variant, reg, indefinite, bias, prior, landmarks, eps, m, select, nfolds,
                    threads) {
  variant <- check_choice(variant, "variant", kqd_variants)
  indefinite <- match_choice(indefinite, "indefinite", c("auto", "yes", "no"))
  bias <- match_choice(bias, "bias", c("error", "map", "none"))
  threads <- check_threads(threads)
  select <- match_choice(select, "select", c("cv", "training"))
  nfolds <- as.integer(check_number(nfolds, "nfolds", lower = 2, allow_lower = TRUE, integer = TRUE))
  y <- inputs$y
  levels <- levels(y)
  counts <- as.vector(table(y))
  names(counts) <- levels
  prior <- check_prior(prior, levels, counts)
  default_path <- is.null(reg) && startsWith(variant, "RC")
  reg <- check_kqd_reg(reg, variant, levels)
  check_class_sizes(counts, variant)
  landmarks <- resolve_landmarks(landmarks, inputs, eps, m, threads)
  warn_one_row_classes(counts, paste0(
    "its covariance in the kernel space is zero, so its distance is to its one point under the regularisation alone",
    if (default_path && is.null(landmarks)) {
      ", and the cross-validation of the regularisation path keeps its row in every fold's training part"
    } else if (default_path) {
      paste0(" (with landmarks the default `reg` is then the single value ", format(kqd_default_reg(variant)),
             ": Ny-KQD's cross-validation of the path cannot keep a row in every fold)")
    }))
  K <- NULL
  if (is.null(landmarks)) {
    K <- training_kernel(inputs, threads)
    # a class of one point trains in every fold of the path's
    # cross-validation (kqd_cv_folds())
    if (default_path && any(counts >= 2L)) reg <- check_kqd_reg(kqd_default_path(K), variant, levels)
    core <- cpp_kqd_fit(K, as.integer(y), length(levels), variant, reg, indefinite,
                        allow_cholesky = bias != "map")
    distances <- cpp_kqd_distances(core, K, if (startsWith(variant, "RC")) diag(K) else NULL)
  } else {
    path <- default_path && min(counts) >= 2L
    # a path to cross-validate: the one pass over the rows gathers the class
    # factors within each fold, which merge into the fit's own
    fold_ids <- if (select == "cv" && (path || nrow(reg) > 1L)) kqd_cv_folds(nfolds, y, variant)
    nystrom_fit <- kqd_nystrom_fit(inputs, landmarks, variant, reg, indefinite, threads, default_path = path,
                                   fold_ids = fold_ids)
    reg <- nystrom_fit$reg
    core <- nystrom_fit$core
    distances <- nystrom_fit$distances
  }
  usable <- kqd_check_path(distances, reg, variant)
  bias_matrix <- kqd_biases(bias, core, distances, y, prior, reg, variant, usable)
  path_error <- vapply(seq_len(nrow(reg)), function(k) {
    if (!usable[k]) return(NA_real_)
    f <- -distances[[k]] / 2 + rep(bias_matrix[k, ], each = length(y))
    mean(class_from_decisions(f, levels) != y)
  }, numeric(1))
  fold_errors <- if (is.null(landmarks)) {
    function(fold_ids) kqd_cv_errors(K, y, fold_ids, variant, reg, indefinite, bias, prior)
  } else {
    function(fold_ids) kqd_nystrom_cv_errors(nystrom_fit, inputs, landmarks, fold_ids, variant, reg, indefinite,
                                             bias, prior, threads)
  }
  cv <- kqd_select_path(select, nfolds, y, variant, reg, path_error, fold_errors, one_row = is.null(landmarks))

  classes <- core$classes
  indefinite_used <- stats::setNames(vapply(classes, `[[`, logical(1), "indefinite"), levels)
  negative_found <- vapply(classes, `[[`, logical(1), "negative_found")
  signature <- t(vapply(classes, function(cl) {
    s <- cl$signature
    s[s < 0] <- NA_integer_
    as.integer(s)
  }, integer(3)))
  dimnames(signature) <- list(levels, c("p", "q", "z"))
  kqd_warnings(indefinite, negative_found, classes, levels)

  list(variant = variant, reg = reg, bias = bias_matrix, bias_method = bias,
       path_error = path_error, cv_error = cv$error, cv_folds = cv$folds, select = cv$select,
       best = cv$best,
       indefinite = indefinite_used, indefinite_mode = indefinite, signature = signature,
       prior = prior, landmarks = landmarks,
       # a Nystroem fit keeps its landmarks, not the training data
       x = if (is.null(landmarks)) inputs$x, core = core, threads = threads,
       training_distances = distances)
}

# The training distances of every path value must be finite: a `reg` too
# small for the kernel's scale overflows them (RC divides by sigma^2 twice;
# IC+ squares 1 / (0 + alpha)), and a NaN reaching the error bias's tie loop
# would grow memory there until std::bad_alloc. No usable value: an error. Some: those values are left out with a warning, recorded as NA in
# `path_error` and `bias`, and predict() refuses them (kqd_path_index).
kqd_check_path <- function(distances, reg, variant) {
  usable <- vapply(distances, function(d) all(is.finite(d)), logical(1))
  if (all(usable)) return(usable)
  values <- vapply(which(!usable), function(k) format_reg_row(reg[k, ]), character(1))
  what <- sprintf("The squared kernel Mahalanobis distances of the training points are not finite (NaN or Inf) for variant \"%s\" at reg = %s",
                  variant, paste(values, collapse = ", "))
  why <- "the regularisation is too small for the scale of the kernel, so the distances overflow"
  if (!any(usable)) {
    krein_abort(sprintf("%s: %s. Use a larger `reg`.", what, why))
  }
  krein_warn(sprintf("%s: %s. %s left out: `path_error` and `bias` are NA there, and predict() refuses %s.",
                     what, why, if (length(values) > 1) "These values are" else "This value is",
                     if (length(values) > 1) "them" else "it"))
  usable
}

# The default value of a regularisation path: the lowest K-fold
# cross-validated error, ties to the more regularised value. The training
# error cannot choose: for IC and FK the training points' own distances are
# degenerate (with alpha below the class kernel's nonzero eigenvalues every
# point of class j is at n_j - 1 from it, Haasdonk and Pekalska 2010, eq. 4),
# so their training errors are 0 all along the path and the least
# regularised value would win. As cv.glmnet, each fold costs one
# decomposition per class, serving every value of the path.
# `fold_errors(fold_ids)` gives the cross-validated error of every path
# value (kqd_cv_errors(), kqd_nystrom_cv_errors()). select = "training"
# takes the lowest training error instead (ties to the first row).
kqd_select_path <- function(select, nfolds, y, variant, reg, path_error, fold_errors, one_row = FALSE) {
  none <- list(error = NULL, folds = NULL, select = select, best = which.min(path_error))
  if (nrow(reg) == 1L) return(utils::modifyList(none, list(select = "none")))
  if (select == "training") return(none)
  fold_ids <- kqd_cv_folds(nfolds, y, variant, one_row = one_row)
  if (is.null(fold_ids)) {
    counts <- as.vector(table(y))
    krein_warn(sprintf(
      "The regularisation path cannot be cross-validated (a class has %d point%s; %d-fold cross-validation needs %d): the default value is the one with the lowest training error (select = \"training\").",
      min(counts), if (min(counts) > 1) "s" else "", max(min(nfolds, min(counts)), 2L), kqd_cv_needed(variant)))
    return(utils::modifyList(none, list(select = "training")))
  }
  error <- fold_errors(fold_ids)
  if (all(is.na(error))) {
    krein_warn("No value of the regularisation path gave finite distances in every fold of the cross-validation: the default value is the one with the lowest training error.")
    return(utils::modifyList(none, list(error = error, folds = fold_ids, select = "training")))
  }
  list(error = error, folds = fold_ids, select = "cv", best = most_regularised_minimum(error, reg))
}

# The folds of the path's cross-validation (interleaved_folds(), at most as
# many as the smallest class has points), or NULL where it cannot be done:
# every fold's training part keeps at least kqd_cv_needed() points per class
# With `one_row`, a class of one point is held out of no fold and trains in
# every one (one_row_folds(), fold 0), where the variant takes such a class.
kqd_cv_folds <- function(nfolds, y, variant, one_row = FALSE) {
  counts <- as.vector(table(y))
  single <- one_row && kqd_cv_needed(variant) == 2L && any(counts >= 2L)
  if (single) counts <- counts[counts >= 2L]
  folds <- min(nfolds, min(counts))
  if (min(counts) < kqd_cv_needed(variant) || folds < 2L) return(NULL)
  if (single) one_row_folds(y, folds) else interleaved_folds(y, folds)
}

# Points per class a fold's training part needs: two, three for the
# variants that need two within a class (IC, FK-)
kqd_cv_needed <- function(variant) if (variant %in% c("IC+", "IC-", "FK-")) 3L else 2L

# The row of the lowest error (NA rows left out), ties to the more
# regularised value: the larger mean log reg. For alpha, sigma^2 and the
# pseudo-inverse threshold alike, a larger value regularises more.
most_regularised_minimum <- function(error, reg) {
  tied <- which(!is.na(error) & error <= min(error, na.rm = TRUE) + 1e-12)
  strength <- rowMeans(log(reg))[tied]
  tied[which.max(strength)]
}

# The cross-validated error of every path value: per fold, one fit (one
# decomposition per class) on the other folds, its biases from their
# distances (as the fit's own), and the errors on the held-out fold. NA for a
# value whose distances are not finite in some fold.
kqd_cv_errors <- function(K, y, fold_ids, variant, reg, indefinite, bias, prior) {
  rc <- startsWith(variant, "RC")
  self <- if (rc) diag(K)
  wrong <- matrix(0, max(fold_ids), nrow(reg))
  for (f in seq_len(max(fold_ids))) {
    test <- fold_ids == f
    train <- !test
    K_train <- K[train, train, drop = FALSE]
    core <- cpp_kqd_fit(K_train, as.integer(y[train]), nlevels(y), variant, reg, indefinite,
                        allow_cholesky = bias != "map")
    wrong[f, ] <- kqd_fold_wrong(core, cpp_kqd_distances(core, K_train, if (rc) self[train]),
                                 cpp_kqd_distances(core, K[test, train, drop = FALSE], if (rc) self[test]),
                                 y, test, variant, reg, bias, prior)
  }
  colSums(wrong) / sum(fold_ids > 0L)
}

# The number of held-out points of a fold misclassified at each path value
# (NA where a value gave distances that are not finite), from the fold's
# model `core`, fitted on the points outside the fold (`test` FALSE), and its
# distances of those points (`d_train`) and of the held-out ones (`d_test`):
# the biases are found on the training part as the full fit finds its own.
kqd_fold_wrong <- function(core, d_train, d_test, y, test, variant, reg, bias, prior) {
  usable <- vapply(seq_len(nrow(reg)), function(k) {
    all(is.finite(d_train[[k]])) && all(is.finite(d_test[[k]]))
  }, logical(1))
  if (!any(usable)) return(rep(NA_real_, nrow(reg)))
  # the fit on all points gives the MAP bias's warning once; not per fold
  b <- withCallingHandlers(kqd_biases(bias, core, d_train, y[!test], prior, reg, variant, usable),
                           krein_warning = function(w) invokeRestart("muffleWarning"))
  vapply(seq_len(nrow(reg)), function(k) {
    if (!usable[k]) return(NA_real_)
    decisions <- -d_test[[k]] / 2 + rep(b[k, ], each = sum(test))
    sum(class_from_decisions(decisions, levels(y)) != y[test])
  }, numeric(1))
}

kqd_default_reg <- function(variant) if (startsWith(variant, "RC")) 0.1 else 1e-3

# The default sigma^2 of a full RC fit: a path of seven values, s 10^(-5:1),
# with s = tr(H K H) / n = mean(diag(K)) - mean(K), the mean squared distance
# of the training points to their centroid in feature space (about 0.6 for a
# Gaussian kernel of median width on real data). sigma^2 is a variance added
# to the class covariances, so it is measured against the data's own spread:
# the default then keeps the two invariances Haasdonk and Pekalska (2010,
# Sec. 5) prove for d_RC -- a constant added to the kernel leaves s
# unchanged, a factor scales s -- and serves any kernel, not only those with
# k(x, x) = 1. The range was measured on eight real data sets (NEWS, bench/
# real_data.R): the cross-validated choices fall inside it, from 1e-5 s
# (spam, Vowel) to 10 s (promotergene's edit-distance kernel). A kernel
# whose spread is not positive (an indefinite one can have tr(HKH) <= 0)
# takes s = 1.
kqd_default_path <- function(K) {
  spread <- mean(diag(K)) - mean(K)
  if (!is.finite(spread) || spread <= 0) spread <- 1
  spread * 10^(-5:1)
}

check_kqd_reg <- function(reg, variant, levels) {
  c_classes <- length(levels)
  if (is.null(reg)) reg <- kqd_default_reg(variant)
  what <- sprintf("`reg` must be a positive number, a vector of positive numbers (a path) or a matrix with one column per class (%d)",
                  c_classes)
  if (!is.numeric(reg) || length(reg) == 0L) {
    krein_abort(sprintf("%s, not %s.", what, describe_value(reg)))
  }
  if (anyNA(reg) || any(!is.finite(reg))) krein_abort(sprintf("%s; it has missing or infinite values.", what))
  if (any(reg <= 0)) krein_abort(sprintf("%s; it has values <= 0.", what))
  if (is.matrix(reg)) {
    if (ncol(reg) != c_classes) {
      krein_abort(sprintf("%s, not a matrix with %d columns.", what, ncol(reg)))
    }
  } else {
    reg <- matrix(reg, nrow = length(reg), ncol = c_classes)
  }
  storage.mode(reg) <- "double"
  dimnames(reg) <- list(NULL, levels)
  reg
}

check_prior <- function(prior, levels, counts) {
  if (is.null(prior)) return(stats::setNames(counts / sum(counts), levels))
  if (!is.numeric(prior) || length(prior) != length(levels) || anyNA(prior) || any(prior <= 0)) {
    krein_abort(sprintf("`prior` must be %d positive probabilities, one per class, not %s.",
                        length(levels), describe_value(prior)))
  }
  if (abs(sum(prior) - 1) > 1e-8) krein_abort(sprintf("`prior` must sum to 1, not %s.", format(sum(prior))))
  if (!is.null(names(prior))) {
    if (!setequal(names(prior), levels)) krein_abort("`prior` names must be the class levels.")
    prior <- prior[levels]
  }
  stats::setNames(as.double(prior), levels)
}

# A class of one point: its centred kernel is 0. IC and FK- then carry no
# information (every distance would be 0); RC (distance to the point, scaled)
# and FK+ (ridge only) still work.
check_class_sizes <- function(counts, variant) {
  small <- counts < 2
  if (any(small) && variant %in% c("IC+", "IC-", "FK-")) {
    krein_abort(sprintf(
      "`y` has a class with a single point (%s); %s needs at least two points per class (RC+, RC- and FK+ work with one).",
      paste0("\"", names(counts)[small], "\"", collapse = ", "), variant))
  }
}

kqd_biases <- function(method, core, distances, y, prior, reg, variant, usable) {
  c_classes <- nlevels(y)
  out <- matrix(NA_real_, nrow(reg), c_classes, dimnames = list(NULL, levels(y)))
  weights <- kqd_error_weights(prior, y)
  for (k in which(usable)) {
    out[k, ] <- switch(method,
      error = cpp_kqd_error_biases(-distances[[k]] / 2, as.integer(y), c_classes, weights),
      none = log(prior),
      map = kqd_map_bias(core, reg[k, ], variant) + log(prior)
    )
  }
  out
}

# The error bias minimises the prior-weighted training error: an error on a
# point of class j counts prior_j / n_j (scaled so the largest weight is 1).
# With the class proportions as prior (the default) every point counts the
# same, and the search is the paper's error count (Sec. IV-D).
kqd_error_weights <- function(prior, y) {
  counts <- as.vector(table(y))
  w <- as.vector(prior) / counts
  w <- w / max(w)
  if (all(abs(w - 1) <= 1e-12)) w[] <- 1
  w
}

# MAP bias (paper 000, Sec. IV-D, first paragraph): -1/2 the log-determinant
# of the class covariance. Documented in ?kqd.
#
# RC+ models class j as a Gaussian with covariance C_j + sigma_j^2 I in the
# whole feature space (its distance weights the part of x - m_j outside the
# class's span by 1 / sigma_j^2). Its log-determinant over a space of
# dimension D is sum_i log(lambda_i / n_j + sigma_j^2) + (D - k_j) log
# sigma_j^2 over the class's k_j nonzero eigenvalues, i.e.
#   sum_i log(1 + lambda_i / (n_j sigma_j^2)) + D log sigma_j^2.
# The first sum is stable (small eigenvalues add about 0), and the second
# term is the same for every class when sigma^2 is (D = n, the dimension of
# the span of all training points, for per-class values). Summing log(lambda_i
# / n_j + sigma_j^2) over the k_j eigenvalues alone, as the paper's formula
# reads, leaves out (D - k_j) log sigma^2: with classes of different sizes
# that favours the larger class by about log(1 / sigma^2) / 2 per
# eigenvalue, and puts the MAP fit below chance on real data (8% on
# mlbench's Vowel, 33% on BreastCancer). The other variants keep the paper's
# sum over the kept eigenvalues, which is fragile, so they warn.
kqd_map_bias <- function(core, reg, variant) {
  if (variant == "RC-") return(rep(0, length(core$classes)))
  n <- sum(vapply(core$classes, function(cl) as.numeric(cl$n_j %||% length(cl$members)), numeric(1)))
  kept <- integer(length(core$classes))
  smallest_ratio <- numeric(length(core$classes))
  b <- vapply(seq_along(core$classes), function(j) {
    cl <- core$classes[[j]]
    n_j <- cl$n_j %||% length(cl$members)
    # the nonzero eigenvalues (a Nystroem core also keeps the zero ones)
    lambda <- abs(cl$values[abs(cl$values) > (cl$zero %||% 0)])
    if (variant == "RC+") return(-0.5 * sum(log1p(lambda / (n_j * reg[j]))) - 0.5 * n * log(reg[j]))
    mu <- switch(variant,
      "IC+" = (lambda + reg[j]) / n_j,
      "FK+" = (lambda + reg[j]) / n_j,
      "IC-" = lambda[lambda >= reg[j]] / n_j,
      "FK-" = lambda[lambda >= reg[j]] / n_j)
    kept[j] <<- length(mu)
    smallest_ratio[j] <<- if (length(mu)) min(mu) / max(mu) else 1
    -0.5 * sum(log(mu))
  }, numeric(1))
  if (variant != "RC+" && (length(unique(kept)) > 1L || any(smallest_ratio < 1e-8))) {
    krein_warn(paste0(
      "The MAP bias is numerically unreliable here (the classes keep ", paste(kept, collapse = "/"),
      " eigenvalues; small eigenvalues dominate the log-determinants). Consider bias = \"error\"."))
  }
  b
}

kqd_warnings <- function(mode, negative_found, classes, levels) {
  if (mode == "no" && any(negative_found)) {
    krein_warn(sprintf(
      "The centred kernel of class%s %s is indefinite, but `indefinite = \"no\"` forces the positive definite formulas.",
      if (sum(negative_found) > 1) "es" else "", paste0("\"", levels[negative_found], "\"", collapse = ", ")))
  }
  singular <- vapply(classes, `[[`, logical(1), "regularised_singular")
  if (any(singular)) {
    krein_warn(sprintf(
      "The regularised kernel of class%s %s is singular or indefinite (an eigenvalue of the centred kernel is near -reg); use indefinite = \"yes\" or a larger `reg`.",
      if (sum(singular) > 1) "es" else "", paste0("\"", levels[singular], "\"", collapse = ", ")))
  }
}

# Which path point: NULL -> the best; else a value of the path (a number for a
# shared path, or one value per class).
kqd_path_index <- function(object, reg) {
  if (is.null(reg)) return(object$best)
  path <- object$reg
  if (!is.numeric(reg) || anyNA(reg)) {
    krein_abort(sprintf("`reg` must be one of the fitted regularisation values, not %s.", describe_value(reg)))
  }
  # one value shared by the classes, or one per class
  matches <- if (length(reg) %in% c(1L, ncol(path))) {
    which(apply(path, 1, function(row) all(abs(row - reg) <= 1e-10 * abs(reg))))
  } else integer()
  if (length(matches) == 0L) {
    shown <- if (all(path == path[, 1])) format(path[, 1], digits = 4) else sprintf("rows of a %d x %d matrix", nrow(path), ncol(path))
    krein_abort(sprintf("`reg` must be one of the fitted regularisation values (%s), not %s; refit to use another value.",
                        paste(shown, collapse = ", "), describe_value(reg)))
  }
  if (is.na(object$path_error[matches[1]])) {
    krein_abort(sprintf("`reg` = %s was left out of the fit: the training distances were not finite there. Use another value of the path.",
                        format_reg_row(path[matches[1], ])))
  }
  matches[1]
}

# Non-finite distances of new points (kernel values far beyond the training
# data's scale, a regularisation too small for them) would become NaN
# probabilities and arbitrary classes: refuse them, naming the rows.
check_kqd_new_distances <- function(d, object, k) {
  bad <- which(rowSums(!is.finite(d)) > 0)
  if (length(bad) == 0L) return(d)
  krein_abort(sprintf(paste0(
    "The squared kernel Mahalanobis distances of `newdata` row%s %s are not finite (NaN or Inf) for variant \"%s\" at reg = %s: ",
    "their kernel values are too large for the regularisation (check their scale against the training data's, or refit with a larger `reg`)."),
    if (length(bad) > 1) "s" else "", format_indices(bad), object$variant, format_reg_row(object$reg[k, ])))
}

#' @export
krein_scores.kqd <- function(object, new, type, reg = NULL) {
  k <- kqd_path_index(object, reg)
  if (is.null(new)) {
    # the training points: their distances were computed by the fit
    d <- object$training_distances[[k]]
    dimnames(d) <- list(rownames(object$x), object$levels)
  } else if (!is.null(object$landmarks)) {
    nystrom <- kqd_nystrom_new_distances(object, new, k)
    d <- check_kqd_new_distances(nystrom$d, object, k)
    dimnames(d) <- list(nystrom$names, object$levels)
  } else {
    kernels <- new_kernels(object, new, need_self = startsWith(object$variant, "RC"))
    d <- check_kqd_new_distances(cpp_kqd_distances(object$core, kernels$K, kernels$self)[[k]], object, k)
    dimnames(d) <- list(kernels$names, object$levels)
  }
  if (type == "distance") return(d)
  f <- -d / 2 + rep(object$bias[k, ], each = nrow(d))
  if (type == "decision") f else softmax_rows(f)
}

#' @export
model_title.kqd <- function(x) {
  if (is.null(x$landmarks)) x$variant else paste0(x$variant, ", ", nystrom_title(x$landmarks))
}

#' @export
model_print_lines.kqd <- function(x) {
  reg_name <- if (startsWith(x$variant, "RC")) "sigma^2" else "alpha"
  c(if (!is.null(x$landmarks)) {
      paste0("Nystroem feature space of rank ", length(x$core$signs), ", signature (p, q) = (",
             sum(x$core$signs > 0), ", ", sum(x$core$signs < 0), ")")
    },
    paste0("indefinite formulas for: ",
           if (any(x$indefinite)) paste(names(x$indefinite)[x$indefinite], collapse = ", ") else "no class"),
    if (nrow(x$reg) > 1L) {
      paste0(reg_name, " path of ", nrow(x$reg), " values; best ", format_reg_row(x$reg[x$best, ]),
             " (", kqd_selection_text(x), "), bias by ", x$bias_method)
    } else {
      paste0(reg_name, " = ", format_reg_row(x$reg[1, ]), ", bias by ", x$bias_method)
    })
}

# How `best` was chosen, for print()
kqd_selection_text <- function(x) {
  if (identical(x$select, "cv")) {
    return(sprintf("lowest %d-fold CV error, %s", max(x$cv_folds), format(x$cv_error[x$best], digits = 3)))
  }
  "lowest training error"
}

format_reg_row <- function(row) {
  if (all(row == row[1])) format(row[1], digits = 4) else paste0("(", paste(format(row, digits = 4), collapse = ", "), ")")
}

#' @export
model_summary.kqd <- function(object) {
  classes <- data.frame(n = as.vector(object$counts), prior = as.vector(object$prior),
                        object$signature, indefinite = as.vector(object$indefinite),
                        row.names = object$levels, check.names = FALSE)
  path <- data.frame(object$reg, training_error = object$path_error, check.names = FALSE)
  if (!is.null(object$cv_error)) path$cv_error <- object$cv_error
  names(path)[seq_len(ncol(object$reg))] <- paste0("reg[", object$levels, "]")
  biases <- object$bias
  colnames(biases) <- paste0("b[", object$levels, "]")
  path <- cbind(path, biases)
  lm <- object$landmarks
  if (!is.null(lm)) classes$landmarks <- as.vector(table(factor(lm$class, levels = object$levels)))
  out <- list(classes, path)
  names(out) <- c(paste0("Classes (signature p, q, z of the centred class kernel", kqd_signature_note(object), ")"),
                  sprintf("Regularisation path (bias by %s; best: row %d, %s)", object$bias_method, object$best,
                          kqd_selection_text(object)))
  if (!is.null(lm)) {
    signs <- object$core$signs
    out[["Nystroem approximation"]] <- sprintf(
      "%d landmarks (%s); feature space of rank %d, signature (p, q) = (%d, %d)",
      length(lm$class), lm$method, length(signs), sum(signs > 0), sum(signs < 0))
  }
  out
}

# Why a kqd fit's signature table has NA entries, for summary(): the paths
# that compute no eigenvalues of the centred class kernel.
kqd_signature_note <- function(object) {
  missing <- is.na(object$signature[, "p"])
  if (!any(missing)) return("")
  if (object$variant %in% c("FK+", "FK-")) {
    return("; not computed for FK: its class matrix is positive semidefinite by construction")
  }
  cholesky <- vapply(object$core$classes, function(cl) isTRUE(cl$cholesky), logical(1))
  if (any(cholesky[missing])) {
    return(paste0("; NA where a Cholesky factorisation (positive definite class kernel, one reg value)",
                  " replaced the eigendecomposition; indefinite = \"yes\" computes it"))
  }
  "; NA: not computed"
}

# Inputs that are not two columns: the points' squared distances to the
# classes, coloured by class -- for two classes the KQD boundary is a line
# parallel to the diagonal there (paper 001, Sec. 3.3).
#' @export
plot_model_diagnostic.kqd <- function(x, data, main, predict_args, ...) {
  d <- do.call(stats::predict, c(list(x, data, type = "distance"), predict_args))
  y <- if (is.null(data)) stats::napredict(x$na_action, x$y) else data_response(x, data, nrow(d))
  col <- grDevices::hcl.colors(length(x$levels), "Dark 3")
  graphics::pairs(d, col = ifelse(is.na(y), "grey40", col[as.integer(y)]), pch = 19, main = main,
                  labels = paste("d2 to", x$levels), ...)
  invisible(x)
}

model_registration_kqd <- function() register_krein_model(
  full_form = function(args) is.null(args$landmarks), full_copies = 5,
  forms = landmark_forms(chooses_width = TRUE), full_max_rows = 2000,
  "kqd", label = "Kernel quadratic discriminant", fit = "kqd_fit",
  # `choices`: the values of a character parameter whose default names only
  # one of them (krein_app() offers them)
  parameters = data.frame(parameter = c("variant", "reg"), class = c("character", "numeric"),
                          label = c("variant", "regularisation"),
                          choices = c(paste(kqd_variants, collapse = ", "), NA), stringsAsFactors = FALSE),
  path = "reg",
  needs_self = function(args) startsWith(model_argument("kqd", args, "variant"), "RC"),
  needs_inputs = function(args) landmarks_need_inputs(args$landmarks),
  types = "distance", predict_args = "reg",
  ranges = function(args) list(reg = reg_range(args$variant)),
  default_grid = function(size, args, data) list(reg = range_values(tuning_range("kqd", "reg", args), size)),
  # `penalty`, not `reg`: see ?krein_tidymodels
  parsnip = list(model = "discrim_quad",
                 args = list(penalty = list(krein = "reg", main = FALSE, dials = list(pkg = "krein", fun = "kqd_penalty")))),
  chunks = function(args) invisible(),
  calibrated = function(args) {
    if (identical((args$bias %||% "error")[1], "map")) return(TRUE)
    "with `bias = \"error\"` or `\"none\"` it is the softmax of the decision values, a monotone score whose scale no fit has calibrated (see ?kqd, Prediction); `bias = \"map\"` gives the posterior of the Gaussian model."
  },
  landmark_args = function(landmarks) list(landmarks = landmarks)
)
