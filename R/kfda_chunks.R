# kfda(reduce = "subset") over chunks: Lee and Mangasarian's reduced set as
# Huang, Hwang and Lin (2005, Sec. 4.2) use it. Everything the in-memory fit
# needs of the n x m kernel data K(x, B) is, per class, the count, the mean
# and the triangular factor of the centred rows (cpp_kfda_class_factors(),
# as gaussian_classes() computes them); these merge exactly over blocks and
# chunks, and give the column means and standard deviations of K as well.

check_chunk_reduce <- function(reduce) {
  reduce <- match_choice(reduce, "reduce", c("pca", "subset", "ridge"))
  if (!identical(reduce, "subset")) {
    krein_abort(sprintf("`reduce` must be \"subset\" for chunked data, not \"%s\"%s: the \"pca\" and \"ridge\" reductions need all n kernel columns. Give `reduce = \"subset\"`, or read the data into memory.",
                        reduce, if (reduce == "pca") " (the default)" else ""))
  }
  invisible()
}

# The class moments of rows A and B from those of A and of B: counts add,
# means by the pairwise update of Chan, Golub and LeVeque (1983), and the
# centred factor of the union is the factor of [R_A; R_B; sqrt(n_A n_B / n)
# (m_B - m_A)'] (the centred scatter of the union is S_A + S_B + n_A n_B / n
# dd'), so the scatter itself is never formed.
merge_class_moments <- function(a, b) {
  n <- a$counts + b$counts
  means <- a$means
  factors <- a$factors
  for (j in seq_along(n)) {
    if (b$counts[j] == 0) next
    if (a$counts[j] == 0) {
      means[, j] <- b$means[, j]
      factors[[j]] <- b$factors[[j]]
      next
    }
    delta <- b$means[, j] - a$means[, j]
    means[, j] <- a$means[, j] + delta * b$counts[j] / n[j]
    factors[[j]] <- cpp_triangular_factor(rbind(a$factors[[j]], b$factors[[j]],
                                                sqrt(a$counts[j] * b$counts[j] / n[j]) * delta))
  }
  list(means = means, factors = factors, counts = n)
}

# The bases of a chunked "subset" fit: points (a matrix or a krein_landmarks
# with points, in original units), or a number / share of the training rows
# drawn with R's RNG from the sample of the first chunks (chunk_sample()).
chunk_bases <- function(bases, inputs, discriminant, counts) {
  if (is.matrix(bases) || is.data.frame(bases) || inherits(bases, "krein_landmarks")) {
    return(chunk_landmarks(bases, inputs, NULL, NULL, 1L, arg = "bases"))
  }
  if (!is.null(bases) && (!is.numeric(bases) || length(bases) != 1L || is.na(bases) || bases <= 0)) {
    krein_abort(sprintf("`bases` must be a number of bases, a share of the training points in (0, 1) or a matrix of points for chunked data, not %s; row indices cannot point into chunks.",
                        describe_value(bases)))
  }
  n <- length(inputs$y)
  m <- if (is.null(bases)) {
    default <- min(ceiling(n / 10), 500)
    if (discriminant == "quadratic") default <- min(default, floor(min(counts) / 4))
    max(1L, default)
  } else if (bases < 1) {
    max(1L, round(bases * n))
  } else {
    check_number(bases, "bases", lower = 1, allow_lower = TRUE, integer = TRUE)
  }
  sample <- chunk_sample(inputs, inputs$spec)
  if (m > nrow(sample$x)) {
    krein_abort(sprintf("`bases` asks for %d bases, more than the %d rows of the sample of the first chunks they are drawn from; raise krein_chunks(sample_rows = ) or ask for fewer.",
                        m, nrow(sample$x)))
  }
  drawn <- sort(sample.int(nrow(sample$x), m))
  structure(list(method = "random", indices = NULL, points = sample$x[drawn, , drop = FALSE],
                 class = sample$y[drawn], n = n, levels = levels(inputs$y), precomputed = FALSE, sample = TRUE),
            class = "krein_landmarks")
}

#' kfda_subset() over chunks: one pass for the class moments of K(x, B), then
#' the reduction kfda_fit() takes (the moments of the centred and scaled
#' kernel data in place of Z) and, in `training(fit)`, a second pass for the
#' training decisions and Fisher coordinates.
#' @noRd
kfda_subset_chunks <- function(inputs, bases, discriminant, counts, threads) {
  landmarks <- chunk_bases(bases, inputs, discriminant, counts)
  classes <- nlevels(inputs$y)
  moments_of <- function(C, self, codes) cpp_kfda_class_factors(C, codes, classes, check_threads(NULL))
  moments <- map_landmark_kernel(inputs, landmarks, bare_function(moments_of, classes = classes),
                                 combine = merge_class_moments)
  each_block <- function(fun) map_landmark_kernel(inputs, landmarks, fun)
  c(kfda_moments_reduction(moments, length(inputs$y), each_block),
    list(points = landmarks$points, class = landmarks$class, bases = NULL))
}
