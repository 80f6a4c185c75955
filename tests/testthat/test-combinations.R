# The property test over the registry: krein's parts combined as a user
# combines them, each fit compared with its explicit equivalent. The
# combination table is built from the registry (combination_table(),
# helper-combinations.R), so a new model, a new choice of an option or a new
# Nystroem model is checked without editing this file.
#
# Models: every registered one (kqd, kmdc, ikfd, pcvm, kfda, onda, iknn,
# ikpca_qd, isvm today). Settings of each: its defaults; every other value of
# each option whose default in the fitting function lists its choices (today
# kqd `indefinite` yes/no and `bias` map/none; kmdc `distance` IC,
# `classifier` qda, `indefinite` yes/no; ikfd `weights` prior; kfda
# `discriminant` quadratic and `reduce` subset/ridge); and a Nystroem fit on
# 9 landmark rows where the registry's `landmark_args` says how to ask for
# one (ikfd, kqd, pcvm `landmarks`; kfda `reduce = "subset"`, `bases`).
#
# Combinations covered (form x scale x na.action, and the explicit equivalent):
# every setting, scale = TRUE (and FALSE for the defaults and Nystroem settings):
#   * formula = matrix (default kernel, its width from the same data);
#   * a fitted model (this model and setting, matrix fit) as onda()'s
#     `posterior` = a function calling its predict() on the raw data;
#   * a kernel = its precomputed kernel, as a matrix with kernel =
#     "precomputed" and as precomputed_kernel() (kernel models whose setting
#     does not need the inputs themselves);
#   * scale = TRUE = scale = FALSE on scale()d data, with an explicit width and
#     with the median heuristic (which sees the same scaled data).
# the defaults and Nystroem settings, in addition:
#   * na.action = na.omit, na.exclude and the default (getOption("na.action")
#     = "na.omit") x formula and matrix, scale = TRUE; na.omit x formula,
#     scale = FALSE; na.omit x strings with NA objects: = the fit on the
#     complete rows (new data and training predictions; na.exclude pads NA
#     rows);
#   * a formula fit as onda()'s `posterior` (scale = TRUE);
#   * strings = their precomputed kernel (a function kernel), scale TRUE and
#     FALSE (ignored for objects), and kernel_dissimilarity(adist) =
#     kernel_from_dissimilarity() of the same dissimilarities (scale = TRUE);
#   * a kernel fitted on data (kernel_discriminant() of an onda() fit on the
#     raw data) = its precomputed kernel, scale TRUE and FALSE;
#   * Nystroem settings of models with `landmarks` and `m`: landmarks chosen
#     beforehand by select_landmarks(scale = ) = landmarks = "meb" in the fit;
#   * Nystroem settings of models with a krein_chunks method: chunks (two
#     chunks; the response by column name, scale TRUE and FALSE, and by
#     formula, scale = TRUE) = in memory, with an explicit width (and the
#     median heuristic: column name, scale = TRUE), and predict() over chunks
#     = predict() in memory (to 1e-8: the merged per-chunk factors are exact
#     to rounding only).
# Compared: every predict() type (class, prob, decision and the model's extra
# types) on new data and on the training data, and fitted(); numbers to
# 1e-10 (1e-12 where the same computation runs twice). Where the explicit
# equivalent is refused with a krein error (a singular covariance), the
# combination must be refused with the same message.
#
# Combinations that cannot be covered, and why:
#   * na.action with a precomputed kernel: a kernel matrix cannot drop rows
#     (missing labels are an error by design); with chunks: missing values in
#     chunks are an error naming the chunk (remove them first).
#   * onda with precomputed kernels, strings or chunks: it estimates
#     posteriors from input features (refused with a clear error).
#   * chunks of the full (non-Nystroem) fits and of the models without a
#     krein_chunks method: they need all rows in memory (refused).
#   * options whose choices the fitting function does not list in its
#     default (kqd's `variant`, onda's `posterior`, the numeric ones): only
#     their defaults are combined; landmarks chosen at random or by k-means
#     inside a chunked fit (on the sample of the first chunks, documented
#     to differ from the fit in memory).
#   * the other values of an option get the short list above, not the whole
#     grid, to keep the file fast.

combinations <- combination_table()

test_that("the combination table is built from the registry and covers every model", {
  expect_setequal(unique(combinations$model), krein:::registered_models())
  for (name in krein:::registered_models()) {
    info <- krein:::model_info(name)
    properties <- unique(combinations$property[combinations$model == name])
    expect_true("scale = TRUE = scale = FALSE on scale()d data" %in% properties, info = name)
    expect_identical("strings = their precomputed kernel" %in% properties, info$uses_kernel, info = name)
    expect_identical("chunks = in memory" %in% properties, accepts_chunks(name), info = name)
  }
})

# one test per combination, so that one failing combination does not hide the others
for (i in seq_len(nrow(combinations))) {
  test_that(combination_label(combinations[i, ]), {
    check_combination(combinations[i, ])
  })
}

test_that("kfda's Fisher directions have one sign, over chunks as in memory", {
  # an eigenvector's sign is arbitrary: with these bases the chunked fit's
  # projection could be the in-memory one with the first direction's sign
  # flipped, unless fisher_directions() fixes the sign
  d <- combination_data
  rows <- c(1L, 2L, 3L, 10L, 14L, 20L, 27L, 33L, 41L)
  chunks <- krein_chunks(unname(split(d$data, rep(1:3, each = 15))), y = "y")
  for (scale in c(TRUE, FALSE)) {
    chunked <- kfda(chunks, kernel = kernel_rbf(0.7), reduce = "subset", bases = d$x[rows, ], scale = scale,
                    threads = 1)
    memory <- kfda(d$x, d$y, kernel = kernel_rbf(0.7), reduce = "subset", bases = rows, scale = scale, threads = 1)
    expect_equal(predict(chunked, d$data_new, type = "projection"), predict(memory, d$x_new, type = "projection"),
                 tolerance = 1e-8, ignore_attr = TRUE)
    expect_equal(predict(chunked, type = "projection"), predict(memory, type = "projection"), tolerance = 1e-8,
                 ignore_attr = TRUE)
  }
})
