# The real data sets of the benchmarks (bench/real_data.R, bench/defaults.R):
# `sets` (the eight of issue 30), `held_out` (four more, not used when the
# defaults of issue 30 were chosen) and `unseen` (seven of other shapes), each
# list(data, formula, D = dissimilarities for promotergene); their 70/30
# splits; the model matrix the competitors get. Sourced from the checkout's
# root; needs mlbench and kernlab.

# The rows of the 70/30 split of seed `seed`
split_rows <- function(n, seed) {
  set.seed(seed)
  train <- sort(sample.int(n, round(0.7 * n)))
  list(train = train, test = setdiff(seq_len(n), train))
}

e <- new.env()
utils::data("Sonar", "Ionosphere", "Glass", "BreastCancer", "Vowel", package = "mlbench", envir = e)
utils::data("promotergene", "spam", package = "kernlab", envir = e)
ionosphere <- e$Ionosphere
ionosphere$V2 <- NULL
breast <- e$BreastCancer
breast$Id <- NULL
breast <- stats::na.omit(breast)
set.seed(1)
spam <- e$spam[sort(sample.int(nrow(e$spam), 2000)), ]
promoter <- e$promotergene
dna <- apply(as.matrix(promoter[, -1]), 1, paste, collapse = "")

sets <- list(
  Sonar = list(data = e$Sonar, formula = Class ~ .),
  Ionosphere = list(data = ionosphere, formula = Class ~ .),
  Glass = list(data = e$Glass, formula = Type ~ .),
  BreastCancer = list(data = breast, formula = Class ~ ., na_action = stats::na.omit),
  iris = list(data = datasets::iris, formula = Species ~ .),
  promotergene = list(data = promoter, formula = Class ~ ., D = utils::adist(dna)),
  spam = list(data = spam, formula = type ~ .),
  Vowel = list(data = e$Vowel, formula = Class ~ .)
)
# Four more sets, held out: not used when the defaults were chosen (issue
# 30), to check that the targets hold beyond the eight above. Run them by
# name: KREIN_BENCH_SETS="Satellite,Vehicle,HouseVotes84,musk".
more <- new.env()
utils::data("Satellite", "Vehicle", "HouseVotes84", package = "mlbench", envir = more)
utils::data("musk", package = "kernlab", envir = more)
set.seed(2)
satellite <- more$Satellite[sort(sample.int(nrow(more$Satellite), 1500)), ]
held_out <- list(
  Satellite = list(data = satellite, formula = classes ~ .),
  Vehicle = list(data = more$Vehicle, formula = Class ~ .),
  HouseVotes84 = list(data = stats::na.omit(more$HouseVotes84), formula = Class ~ .),
  musk = list(data = more$musk, formula = Class ~ .)
)
# Six more, of shapes the twelve above lack (chosen after issue 30's
# defaults, which missed on sets like them): two inputs (Pima: glucose and
# body mass index of MASS's Pima.tr + Pima.te), four small classes of 5 inputs
# (crabs: species x sex), many more inputs than points per class (DNA: 333
# random rows of 180 binary inputs), many small classes (Soybean: 15 classes
# of 14-64 training rows, 35 factor inputs), many classes of factor inputs
# (kernlab's income: 1500 random complete rows, 13 factors coded in 63
# columns, 9 classes), many classes (LetterRecognition: 2500 random rows, 26
# classes). And promotergene again, as the formula interface sees it: its 57
# bases as factor columns and the default kernel. Run them by name, as the
# held-out sets:
# KREIN_BENCH_SETS="Pima,crabs,DNA,Soybean,income,Letter,promoter_bases".
pima <- rbind(MASS::Pima.tr, MASS::Pima.te)
crabs <- MASS::crabs
crabs <- data.frame(class = interaction(crabs$sp, crabs$sex), crabs[c("FL", "RW", "CL", "CW", "BD")])
utils::data("DNA", "Soybean", "LetterRecognition", package = "mlbench", envir = more)
set.seed(3)
dna <- more$DNA[sort(sample.int(nrow(more$DNA), 333)), ]
soybean <- stats::na.omit(more$Soybean)
soybean$Class <- droplevels(soybean$Class)
set.seed(4)
letter <- more$LetterRecognition[sort(sample.int(nrow(more$LetterRecognition), 2500)), ]
utils::data("income", package = "kernlab", envir = more)
income <- stats::na.omit(more$income)
set.seed(5)
income <- income[sort(sample.int(nrow(income), 1500)), ]
unseen <- list(
  Pima = list(data = pima, formula = type ~ glu + bmi),
  crabs = list(data = crabs, formula = class ~ .),
  DNA = list(data = dna, formula = Class ~ .),
  Soybean = list(data = soybean, formula = Class ~ .),
  income = list(data = income, formula = INCOME ~ .),
  Letter = list(data = letter, formula = lettr ~ .),
  promoter_bases = list(data = promoter, formula = Class ~ .)
)

# Real data at its edges (issue 60): mlbench's Zoo, 101 animals of 7 types,
# two of them of 4 and 5 animals, so that a 70/30 split leaves a type
# without training rows (splits 1 and 9: the outcome keeps the level), with
# one (splits 2 and 3) or two (split 6). Predictions must keep the
# outcome's seven levels and the fits take the rare types. Run by name:
# KREIN_BENCH_SETS=Zoo KREIN_BENCH_SPLITS=1:10.
utils::data("Zoo", package = "mlbench", envir = more)
edges <- list(
  Zoo = list(data = more$Zoo, formula = type ~ .)
)

# The competitors get the model matrix of the formula (no intercept), as
# krein's formula methods build it.
design <- function(formula, data) {
  x <- stats::model.matrix(formula, data)
  x[, colnames(x) != "(Intercept)", drop = FALSE]
}
