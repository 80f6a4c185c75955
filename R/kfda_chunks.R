# kfda(reduce = "subset") over chunks: Lee and Mangasarian's reduced set as
# Huang, Hwang and Lin (2005, Sec. 4.2) use it, its bases drawn from the
# first chunks. The fit is the in-memory one (kfda_subset_moments(), one row
# source): everything it needs of the n x m kernel data K(x, B) is, per
# class, the count, the mean and the triangular factor of the centred rows,
# from the per-class QR factors of [K(x, B) | 1] merged over blocks and
# chunks, which give the column means and standard deviations of K as well.

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
#' the reduction kfda_fit() takes (the moments of the kernel data on their
#' principal components in place of Z) and, in `training(fit)`, a second
#' pass for the training decisions and Fisher coordinates.
#' @noRd
kfda_subset_chunks <- function(inputs, bases, discriminant, counts, ridge, threads) {
  landmarks <- chunk_bases(bases, inputs, discriminant, counts)
  c(kfda_subset_moments(inputs, landmarks, discriminant, ridge, threads),
    list(points = landmarks$points, class = landmarks$class, bases = NULL))
}
