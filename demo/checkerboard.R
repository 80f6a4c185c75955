# krein's demonstration: the 4 x 4 checkerboard of Pekalska & Haasdonk (paper
# 000, Sec. V-B) with their kernel made invariant to the point reflection
# x -> -x. The invariance makes the kernel indefinite; how much depends on the
# width s (Table V). Writes krein-checkerboard.png to the working directory.
library(krein)
set.seed(2009)

train <- checkerboard(100, size = 4, range = c(-2, 2))
x <- train[, c("x1", "x2")]
invariant_kernel <- function(s) kernel_invariant(kernel_dist(s = s, power = 4))
invariant_kernel(1)

# Indices of indefiniteness across s (paper 000, Table V, first rows)
s_values <- c(0.05, 0.1, 0.5, 1, 5, 10, 50)
spectra <- lapply(s_values, function(s) indefiniteness(kernel_matrix(invariant_kernel(s), x)))
table_v <- data.frame(
  s = s_values,
  p = vapply(spectra, function(ind) ind$signature[["p"]], integer(1)),
  q = vapply(spectra, function(ind) ind$signature[["q"]], integer(1)),
  r_neg = round(vapply(spectra, function(ind) ind$r_neg, numeric(1)), 3),
  r_neg_paper = c(0.160, 0.180, 0.211, 0.218, 0.214, 0.207, 0.128)
)
cat("Signature (p, q) and r_neg of the invariant kernel for one draw of 100 points\n",
    "(the paper's Table V averages ten draws):\n", sep = "")
print(table_v, row.names = FALSE)

# The data and the spectrum at s = 1
png_file <- "krein-checkerboard.png"
grDevices::png(png_file, width = 1400, height = 650, res = 120)
old_par <- graphics::par(mfrow = c(1, 2), mar = c(4.5, 4.5, 3, 1))
graphics::plot(x, col = c("steelblue", "darkorange")[train$y], pch = 19, asp = 1,
               main = "4 x 4 checkerboard, 100 training points")
graphics::abline(h = -1:1, v = -1:1, col = "grey80")
plot(spectra[[which(s_values == 1)]],
     main = "Invariant kernel, s = 1: eigenvalues of K")
graphics::par(old_par)
grDevices::dev.off()
cat("Wrote", normalizePath(png_file), "\n")
