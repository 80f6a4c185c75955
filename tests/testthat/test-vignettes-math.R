# The installed vignettes show every formula rendered, with no network: KaTeX
# comes from doc/katex, installed from vignettes/katex. Each vignette's HTML is
# opened from file:// in headless Chromium, whose every request outside the
# machine fails; then no TeX delimiter may be left in its text, and it must
# show as many rendered formulas as its source (doc/*.Rmd) writes.
test_that("the installed vignettes render every formula without a network", {
  skip_on_cran()
  browser <- math_browser()
  skip_if(!nzchar(browser), paste("Chromium was not found (Debian: apt-get install chromium):",
                                  "the installed vignettes' formulas were not checked."))
  # the vignettes as R's index of the installed package lists them
  info <- tools::getVignetteInfo("krein")
  info <- info[grepl("\\.html$", info[, "PDF"]), , drop = FALSE]
  skip_if(nrow(info) == 0, paste("krein is installed without its vignettes (or loaded from source):",
                                 "their formulas were not checked."))
  doc <- file.path(info[, "Dir"], "doc")[1]
  pages <- file.path(doc, info[, "PDF"])
  sources <- file.path(doc, info[, "File"])
  expect_true(all(file.exists(c(pages, sources))), label = "each installed vignette's HTML and source")
  expect_true(file.exists(file.path(doc, "katex", "katex.min.js")), label = "doc/katex/katex.min.js")

  doms <- math_dump_doms(browser, paste0("file://", normalizePath(pages)))
  for (i in seq_along(pages)) {
    name <- basename(pages[i])
    shown <- math_in_dom(doms[i])
    written <- math_in_source(readLines(sources[i], warn = FALSE, encoding = "UTF-8"))
    expect_true(nzchar(doms[i]), label = paste(name, "opened in the browser"))
    expect_identical(shown$raw, character(), label = paste("TeX delimiters left in", name))
    expect_identical(shown$rendered, written, label = paste("formulas rendered in", name))
  }
})
