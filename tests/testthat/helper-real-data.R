# A 400-row sample of mlbench's Vowel (11 classes) with a fixed 280/120
# split, for the tests that default settings hold up on real data: the data,
# the training rows and the test accuracy of a fit.
vowel_sample <- function() {
  e <- new.env()
  utils::data("Vowel", package = "mlbench", envir = e)
  set.seed(1)
  data <- e$Vowel[sort(sample.int(nrow(e$Vowel), 400)), ]
  set.seed(1)
  train <- sort(sample.int(400, 280))
  test <- setdiff(seq_len(400), train)
  list(data = data, train = train,
       accuracy = function(fit) mean(predict(fit, data[test, ]) == data$Class[test]))
}
