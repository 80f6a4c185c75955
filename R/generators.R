# Data generators for the papers' artificial data sets. All randomness comes
# from R's RNG (runif / rnorm / sample), so set.seed() reproduces every draw.
# Class labels are factors with levels "1", "2", ..., the papers' class indices.

#' Checkerboard data
#'
#' Draws `n` points uniformly from the square `range` x `range`, cut into a
#' `size` x `size` board of equal cells with alternating labels. Pekalska and
#' Haasdonk (2009, Sec. V-B) use a 4 x 4 board on \eqn{[-2, 2]^2} (the
#' defaults) with an invariant indefinite Gaussian kernel; Schleif, Gisbrecht
#' and Tino (2018, Sec. 4.3) use a 3 x 3 board (`size = 3`).
#'
#' Cell \eqn{(i, j)}, counted from 0 along `x1` and `x2` respectively, has
#' class `"1"` when \eqn{i + j} is even and class `"2"` otherwise, so the
#' lower-left cell is class `"1"`. A point exactly on the upper edge of the
#' square belongs to the last cell.
#'
#' @param n Number of points, a positive whole number.
#' @param size Number of cells along each side, a whole number >= 2.
#' @param range The interval both coordinates are drawn from: two increasing
#'   finite numbers.
#' @references
#' Pekalska, E. and Haasdonk, B. (2009). Kernel discriminant analysis for
#' positive definite and indefinite kernels. *IEEE Transactions on Pattern
#' Analysis and Machine Intelligence*, 31(6), 1017-1032.
#' \doi{10.1109/TPAMI.2008.290}. (Sections, equations and tables are cited
#' as numbered in its 2008 preprint, *Kernel quadratic discriminant analysis
#' for positive definite and indefinite kernels*, Angewandte Mathematik und
#' Informatik 06/08-N, University of Muenster.)
#'
#' Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#' indefinite kernel approximation using minimum enclosing balls.
#' *Neurocomputing*, 318, 213-226. \doi{10.1016/j.neucom.2018.08.057}.
#' @returns A data frame of class `data.frame` with `n` rows and columns `x1`,
#'   `x2` (numeric) and `y` (factor with levels `"1"`, `"2"`).
#' @family data generators
#' @export
#' @examples
#' set.seed(1)
#' d <- checkerboard(200)
#' table(d$y)
#' plot(d$x1, d$x2, col = d$y, pch = 19, asp = 1)
#' # the 3 x 3 board of Schleif, Gisbrecht and Tino (2018)
#' head(checkerboard(50, size = 3, range = c(0, 3)))
checkerboard <- function(n, size = 4, range = c(-2, 2)) {
  n <- check_number(n, "n", lower = 1, allow_lower = TRUE, integer = TRUE)
  size <- check_number(size, "size", lower = 2, allow_lower = TRUE, integer = TRUE)
  range <- check_range(range, "range")
  if (!is.finite(range[2] - range[1])) {
    krein_abort(sprintf("`range` must have a finite width, but c(%s) spans more than the largest double.",
                        paste(vapply(range, format, "", digits = 7), collapse = ", ")))
  }
  x1 <- stats::runif(n, range[1], range[2])
  x2 <- stats::runif(n, range[1], range[2])
  data.frame(x1 = x1, x2 = x2, y = checkerboard_labels(x1, x2, size, range))
}

#' Checkerboard class of points in the square `range` x `range`
#' @noRd
checkerboard_labels <- function(x1, x2, size, range) {
  width <- (range[2] - range[1]) / size
  # cell index from 0; pmin puts points on the upper edge into the last cell
  i <- pmin(floor((x1 - range[1]) / width), size - 1)
  j <- pmin(floor((x2 - range[1]) / width), size - 1)
  class_factor(ifelse((i + j) %% 2 == 0, 1L, 2L), 2L)
}

#' Four sine populations
#'
#' The four populations of Example 3 of Huang, Hwang and Lin (2005), Sec. 5
#' (Tables 3-4, Fig. 16): \eqn{x_1 \sim U(0, 3\pi)}{x1 ~ U(0, 3 pi)} for
#' classes 1 and 2 and \eqn{x_1 \sim U(3\pi, 6\pi)}{x1 ~ U(3 pi, 6 pi)} for
#' classes 3 and 4; \eqn{x_2 = \sin(x_1) + \mathrm{noise}\,\epsilon}{x2 =
#' sin(x1) + noise * eps} for classes 1 and 3 and \eqn{x_2 = -\sin(x_1) +
#' \mathrm{noise}\,\epsilon}{x2 = -sin(x1) + noise * eps} for classes 2 and 4,
#' with \eqn{\epsilon}{eps} standard normal. The paper uses 100 points per
#' class and `noise = 0.1` (the defaults).
#'
#' @param n_per_class Number of points in each of the four classes, a positive
#'   whole number.
#' @param noise Standard deviation of the Gaussian noise added to `x2`, a
#'   non-negative number.
#' @returns A data frame of class `data.frame` with `4 * n_per_class` rows,
#'   ordered by class, and columns `x1`, `x2` (numeric) and `y` (factor with
#'   levels `"1"` to `"4"`).
#' @references
#' Huang, S.-Y., Hwang, C.-R. and Lin, M.-H. (2005). Kernel Fisher's
#' discriminant analysis in Gaussian reproducing kernel Hilbert space.
#' Manuscript, Institute of Statistical Science, Academia Sinica, Taipei.
#' @family data generators
#' @export
#' @examples
#' set.seed(1)
#' d <- sine_populations(50)
#' table(d$y)
#' plot(d$x1, d$x2, col = d$y, pch = 19)
sine_populations <- function(n_per_class = 100, noise = 0.1) {
  n_per_class <- check_number(n_per_class, "n_per_class", lower = 1, allow_lower = TRUE,
                              integer = TRUE)
  noise <- check_number(noise, "noise", lower = 0, allow_lower = TRUE)
  lower <- c(0, 0, 3, 3) * pi
  upper <- c(3, 3, 6, 6) * pi
  sign <- c(1, -1, 1, -1)
  y <- rep(1:4, each = n_per_class)
  x1 <- stats::runif(4L * n_per_class, lower[y], upper[y])
  x2 <- sign[y] * sin(x1) + noise * stats::rnorm(4L * n_per_class)
  data.frame(x1 = x1, x2 = x2, y = class_factor(y, 4L))
}

#' Four-point XOR data
#'
#' The XOR example of Haasdonk and Pekalska (2010), Sec. 5 (Fig. 2):
#' the points \eqn{(-1, -1)}, \eqn{(-1, 1)}, \eqn{(1, -1)}, \eqn{(1, 1)} with
#' classes 1, 2, 2, 1. The paper uses it to show that the kernel Mahalanobis
#' distance \eqn{d_{IC}} can put a class's own training points farther from
#' the class than the other class's points. No randomness is involved.
#'
#' @references
#' Haasdonk, B. and Pekalska, E. (2010). Classification with kernel
#' Mahalanobis distance classifiers. In *Advances in Data Analysis, Data
#' Handling and Business Intelligence*, Studies in Classification, Data
#' Analysis, and Knowledge Organization, Springer, 351-361.
#' \doi{10.1007/978-3-642-01044-6_32}.
#' @returns A data frame of class `data.frame` with 4 rows and columns `x1`,
#'   `x2` (numeric) and `y` (factor with levels `"1"`, `"2"`).
#' @family data generators
#' @param ... Nothing: `xor4()` takes no arguments (it is an error to give any).
#' @export
#' @examples
#' xor4()
xor4 <- function(...) {
  check_no_more_arguments("xor4", list(...))
  data.frame(x1 = c(-1, -1, 1, 1), x2 = c(-1, 1, -1, 1),
             y = class_factor(c(1L, 2L, 2L, 1L), 2L))
}

#' Two-class mixture of bivariate normals
#'
#' A two-class toy problem in the spirit of Haasdonk and Pekalska (2010),
#' Sec. 4.1 (Fig. 1): each class is an
#' equal-weight mixture of two bivariate normals, so neither class is
#' unimodal. Being symmetric, this noisy XOR is easier than the paper's
#' figure suggests: its Bayes boundary \eqn{x_1 x_2 = 0}{x1 * x2 = 0} is
#' itself quadratic, so a quadratic discriminant on the inputs
#' ([MASS::qda()]) comes close to the Bayes error.
#'
#' The paper does not give its parameters; krein uses isotropic components
#' with standard deviation `sd` and means
#'
#' * class `"1"`: \eqn{(-1, -1)} and \eqn{(1, 1)};
#' * class `"2"`: \eqn{(-1, 1)} and \eqn{(1, -1)},
#'
#' a noisy XOR. With the default `sd = 0.5` neighbouring components of
#' different classes are 4 standard deviations apart, so the classes overlap a
#' little: the Bayes rule is the sign of \eqn{x_1 x_2}{x1 * x2} and its error
#' is \eqn{2p(1 - p) \approx 4.4\%}{2 p (1 - p), about 4.4\%}, with \eqn{p}
#' = `pnorm(-1 / sd)`. Each point picks one of its class's two components at
#' random with probability 1/2.
#'
#' @param n Total number of points, a whole number >= 2. The classes are as
#'   equal as possible; class `"1"` gets the extra point when `n` is odd.
#' @param sd Standard deviation of every mixture component (in each
#'   coordinate), a positive number.
#' @references
#' Haasdonk, B. and Pekalska, E. (2010). Classification with kernel
#' Mahalanobis distance classifiers. In *Advances in Data Analysis, Data
#' Handling and Business Intelligence*, Studies in Classification, Data
#' Analysis, and Knowledge Organization, Springer, 351-361.
#' \doi{10.1007/978-3-642-01044-6_32}.
#' @returns A data frame of class `data.frame` with `n` rows, ordered by class,
#'   and columns `x1`, `x2` (numeric) and `y` (factor with levels `"1"`,
#'   `"2"`).
#' @family data generators
#' @export
#' @examples
#' set.seed(1)
#' d <- gaussian_mixture_2d(200)
#' table(d$y)
#' plot(d$x1, d$x2, col = d$y, pch = 19, asp = 1)
gaussian_mixture_2d <- function(n, sd = 0.5) {
  n <- check_number(n, "n", lower = 2, allow_lower = TRUE, integer = TRUE)
  sd <- check_number(sd, "sd", lower = 0)
  counts <- class_counts(n, 2L)
  y <- rep(1:2, counts)
  # component means: rows 1-2 for class 1, rows 3-4 for class 2
  means <- rbind(c(-1, -1), c(1, 1), c(-1, 1), c(1, -1))
  component <- 2L * (y - 1L) + sample.int(2L, n, replace = TRUE)
  x1 <- means[component, 1] + sd * stats::rnorm(n)
  x2 <- means[component, 2] + sd * stats::rnorm(n)
  data.frame(x1 = x1, x2 = x2, y = class_factor(y, 2L))
}

#' Two banana-shaped classes
#'
#' Two interleaving half moons with adjustable overlap, after the banana data
#' of Schleif, Gisbrecht and Tino (2018), Sec. 4.3 (Fig. 5), which varies the
#' overlap from almost separated to strongly overlapping.
#'
#' The paper does not give its construction; krein uses
#'
#' * class `"1"`: \eqn{(\cos t, \sin t)}{(cos t, sin t)}, the upper half of
#'   the unit circle around \eqn{(0, 0)};
#' * class `"2"`: \eqn{(1 - \cos t, 0.5 - \sin t)}{(1 - cos t, 0.5 - sin t)},
#'   the lower half of the unit circle around \eqn{(1, 0.5)},
#'
#' with \eqn{t \sim U(0, \pi)}{t ~ U(0, pi)} and isotropic Gaussian noise of
#' standard deviation \eqn{0.05 + 0.45 \cdot \mathrm{overlap}}{0.05 + 0.45 *
#' overlap} added to both coordinates. The noise-free moons are 0.5 apart, so
#' `overlap = 0` (noise sd 0.05) gives separated classes and `overlap = 1`
#' (noise sd 0.5) strongly overlapping ones; the geometry itself does not
#' change. (Measured with a 25-nearest-neighbour rule on 4000 training
#' points, the test error is about 0%, 2%, 7%, 13% and 18% for `overlap` 0,
#' 0.25, 0.5, 0.75 and 1.)
#'
#' @param n Total number of points, a whole number >= 2. The classes are as
#'   equal as possible; class `"1"` gets the extra point when `n` is odd.
#' @param overlap How much the classes overlap, a number in \eqn{[0, 1]}.
#' @references
#' Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#' indefinite kernel approximation using minimum enclosing balls.
#' *Neurocomputing*, 318, 213-226. \doi{10.1016/j.neucom.2018.08.057}.
#' @returns A data frame of class `data.frame` with `n` rows, ordered by class,
#'   and columns `x1`, `x2` (numeric) and `y` (factor with levels `"1"`,
#'   `"2"`).
#' @family data generators
#' @export
#' @examples
#' set.seed(1)
#' d <- banana(300, overlap = 0.2)
#' plot(d$x1, d$x2, col = d$y, pch = 19, asp = 1)
banana <- function(n, overlap = 0.5) {
  n <- check_number(n, "n", lower = 2, allow_lower = TRUE, integer = TRUE)
  overlap <- check_number(overlap, "overlap", lower = 0, upper = 1, allow_lower = TRUE)
  counts <- class_counts(n, 2L)
  y <- rep(1:2, counts)
  sd <- 0.05 + 0.45 * overlap
  t <- stats::runif(n, 0, pi)
  first <- y == 1L
  x1 <- ifelse(first, cos(t), 1 - cos(t)) + sd * stats::rnorm(n)
  x2 <- ifelse(first, sin(t), 0.5 - sin(t)) + sd * stats::rnorm(n)
  data.frame(x1 = x1, x2 = x2, y = class_factor(y, 2L))
}

#' Non-Euclidean ball dissimilarity data
#'
#' The ball data of Schleif, Gisbrecht and Tino (2018), Sec. 4.3, proposed by
#' Duin & Pekalska (2010): surface distances between randomly placed balls
#' whose radius depends on the class. Ball centres \eqn{x_i} are drawn
#' uniformly from \eqn{[0, 100]^{dim}}{[0, 100]^dim}, a ball of class \eqn{c}
#' has radius `radii[c]`, and
#' \deqn{D_{ij} = \|x_i - x_j\| - r_i - r_j, \qquad D_{ii} = 0,}{
#' D[i, j] = ||x_i - x_j|| - r_i - r_j,  D[i, i] = 0,}
#' the distance between the two balls' surfaces. Balls may not overlap: a
#' centre whose ball would overlap an already placed ball (a negative
#' distance) is drawn again, up to `max_tries` times per ball. The balls are
#' placed in random class order, so both classes see the same crowding.
#'
#' `D` is not Euclidean: the classical-scaling kernel
#' \eqn{-\frac12 J D^{(2)} J}{-1/2 J D^2 J} (squared entries,
#' \eqn{J = I - \frac1n 1 1'}{J = I - 11'/n}) has negative eigenvalues, and
#' the class information lies largely in them (Schleif et al. 2018, Fig. 3).
#' With the
#' defaults (100 balls per class in 3 dimensions, radii 5 and 6, as in the
#' paper's 200-point set) about 11% of the absolute eigenvalue mass is
#' negative and the most negative eigenvalue is about 3% of the largest one
#' in size. Larger radii give more indefiniteness but crowd the space: 200
#' balls of radii 8 and 10 fill about 63% of the cube in 3 dimensions, far
#' beyond what random sequential placement can reach, so it fails.
#'
#' @param n_per_class Number of balls in each class, a positive whole number.
#' @param dim Dimension of the space the balls live in, a positive whole
#'   number.
#' @param radii Ball radius of each class, a vector of positive numbers; its
#'   length sets the number of classes.
#' @param max_tries How many times one ball's centre may be drawn before
#'   giving up, a positive whole number.
#' @returns A list of class `krein_ball_data` with elements
#'   * `D`: the \eqn{n \times n}{n x n} symmetric surface-distance matrix, with
#'     \eqn{n} = `n_per_class * length(radii)`, zero diagonal and non-negative
#'     entries;
#'   * `y`: the classes, a factor of length \eqn{n} with levels `"1"`,
#'     `"2"`, ..., ordered by class;
#'   * `centers`: the \eqn{n \times}{n x} `dim` matrix of ball centres;
#'   * `radius`: the numeric vector of the \eqn{n} ball radii.
#'
#'   An error of class `krein_error` is signalled when a ball cannot be placed
#'   in `max_tries` draws (the radii are too large for the space).
#' @references Duin, R. P. W. and Pekalska, E. (2010). Non-Euclidean
#'   dissimilarities: causes and informativeness. *SSPR&SPR 2010*, LNCS 6218,
#'   324-333.
#'
#'   Schleif, F.-M., Gisbrecht, A. and Tino, P. (2018). Supervised low rank
#'   indefinite kernel approximation using minimum enclosing balls.
#'   *Neurocomputing*. \doi{10.1016/j.neucom.2018.08.057}.
#' @family data generators
#' @export
#' @examples
#' set.seed(1)
#' b <- ball_dissimilarities(n_per_class = 30)
#' b
#' # classical scaling: the kernel is indefinite
#' n <- nrow(b$D)
#' J <- diag(n) - 1 / n
#' ev <- eigen(-0.5 * J %*% b$D^2 %*% J, symmetric = TRUE, only.values = TRUE)$values
#' sum(abs(ev[ev < 0])) / sum(abs(ev))
ball_dissimilarities <- function(n_per_class = 100, dim = 3, radii = c(5, 6),
                                 max_tries = 1000) {
  n_per_class <- check_number(n_per_class, "n_per_class", lower = 1, allow_lower = TRUE,
                              integer = TRUE)
  dim <- check_number(dim, "dim", lower = 1, allow_lower = TRUE, integer = TRUE)
  radii <- check_positive_vector(radii, "radii")
  max_tries <- check_number(max_tries, "max_tries", lower = 1, allow_lower = TRUE,
                            integer = TRUE)
  k <- length(radii)
  n <- n_per_class * k
  y <- rep(seq_len(k), each = n_per_class)
  radius <- radii[y]
  centers <- matrix(NA_real_, n, dim)
  placed <- logical(n)
  # place the balls in random order so that neither class is packed last
  for (i in sample.int(n)) {
    others <- which(placed)
    ok <- FALSE
    for (attempt in seq_len(max_tries)) {
      x <- stats::runif(dim, 0, 100)
      if (length(others) == 0L) {
        ok <- TRUE
      } else {
        diff <- centers[others, , drop = FALSE] - rep(x, each = length(others))
        ok <- all(sqrt(rowSums(diff^2)) - radius[others] - radius[i] >= 0)
      }
      if (ok) break
    }
    if (!ok) {
      krein_abort(sprintf(paste0(
        "`radii` are too large for the space: ball %d of %d (radius %s) could not be placed ",
        "without overlap in %d tries. Use smaller `radii`, fewer balls or a larger `dim`."),
        sum(placed) + 1L, n, format(radius[i]), max_tries))
    }
    centers[i, ] <- x
    placed[i] <- TRUE
  }
  D <- ball_surface_distances(centers, radius)
  structure(list(D = D, y = class_factor(y, k), centers = centers, radius = radius),
            class = "krein_ball_data")
}

#' @export
print.krein_ball_data <- function(x, ...) {
  counts <- table(x$y)
  radii <- tapply(x$radius, x$y, function(r) r[1])
  cat(sprintf("<krein_ball_data> %d balls in %d dimension%s, %d class%s\n",
              length(x$y), ncol(x$centers), if (ncol(x$centers) == 1L) "" else "s",
              length(counts), if (length(counts) == 1L) "" else "es"))
  cat(sprintf("  class %s: %d balls of radius %s\n", names(counts), as.integer(counts),
              format(radii)), sep = "")
  cat(sprintf("  D: %d x %d surface-distance matrix\n", nrow(x$D), ncol(x$D)))
  invisible(x)
}

# --- internal helpers --------------------------------------------------------

#' Surface distances ||x_i - x_j|| - r_i - r_j with a zero diagonal
#' @noRd
ball_surface_distances <- function(centers, radius) {
  D <- as.matrix(stats::dist(centers)) - outer(radius, radius, "+")
  diag(D) <- 0
  dimnames(D) <- NULL
  D
}

#' Class sizes as equal as possible, the first classes get the extra points
#' @noRd
class_counts <- function(n, k) {
  n %/% k + (seq_len(k) <= n %% k)
}

#' Integer class indices to a factor with levels "1", ..., "k"
#' @noRd
class_factor <- function(y, k) {
  factor(y, levels = seq_len(k), labels = as.character(seq_len(k)))
}
