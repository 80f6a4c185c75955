# The README's screenshot of krein_app() (man/figures/app.png), taken by
# shinytest2 in headless Chromium. Run from the checkout's root after
# installing krein:  Rscript tools/app_screenshot.R
# Needs shinytest2 and chromote (tools/check.R installs them) and Chromium
# (Debian's package `chromium`, or set CHROMOTE_CHROME). Where pngquant is
# installed (Debian's package `pngquant`) the image is reduced to a palette:
# it is installed with the help pages, and the package's installed size is
# close to the 5 MB that R CMD check notes.
for (p in c("shiny", "shinytest2", "chromote")) {
  if (!requireNamespace(p, quietly = TRUE)) stop("install ", p, " first: install.packages(\"", p, "\")", call. = FALSE)
}
if (!nzchar(Sys.getenv("CHROMOTE_CHROME")) && file.exists("/usr/bin/chromium")) {
  Sys.setenv(CHROMOTE_CHROME = "/usr/bin/chromium")
}
dir <- tempfile("krein-app-")
dir.create(dir)
writeLines(c("library(krein)", "krein:::app_object()"), file.path(dir, "app.R"))
app <- shinytest2::AppDriver$new(dir, width = 1200, height = 780, load_timeout = 180000, timeout = 120000)
on.exit(app$stop())
# a checkerboard with a reflection-invariant, indefinite kernel (Pekalska and
# Haasdonk 2009), a kernel quadratic discriminant on 40 k-means landmarks
app$set_inputs(source = "checkerboard", noise_checkerboard = 3, n = 400)
app$set_inputs(kernel = "dist")
app$set_inputs(kernel_dist_s = "0.5", kernel_dist_power = "2", invariant = TRUE)
app$set_inputs(landmarks = "kmeans", m = 40)
app$wait_for_idle(duration = 1000)
out <- file.path("man", "figures", "app.png")
dir.create(dirname(out), showWarnings = FALSE, recursive = TRUE)
unlink(out)
app$get_screenshot(out)
if (nzchar(Sys.which("pngquant"))) {
  status <- system2("pngquant", c("--quality=60-85", "--speed=1", "--force", "--output", out, out))
  if (status != 0) warning("pngquant failed; ", out, " is left as Chromium wrote it", call. = FALSE)
} else {
  message("pngquant not found (apt-get install pngquant): ", out, " is not reduced")
}
message(sprintf("%s: %.0f KB", out, file.size(out) / 1024))
