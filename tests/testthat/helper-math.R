# Formulas in the documentation: how many an R Markdown source writes, and how
# many a page shows rendered in a headless browser with no network. Used by
# test-vignettes-math.R (the installed vignettes) and by tools/site_check.R
# (the pkgdown site), which sources this file.

# The number of TeX formulas an R Markdown source writes: $$...$$ (displayed,
# possibly over several lines) and $...$ (inline; the opening $ not followed by
# a space, the closing one not preceded by a space nor followed by a digit, as
# pandoc and the markdown package read them), outside the YAML header, code
# chunks and inline code.
math_in_source <- function(lines) {
  if (length(lines) > 0 && grepl("^---\\s*$", lines[1])) {
    end <- which(grepl("^---\\s*$", lines))[2]
    if (!is.na(end)) lines <- lines[-seq_len(end)]
  }
  fence <- grepl("^\\s*(```|~~~)", lines)
  in_chunk <- (cumsum(fence) %% 2 == 1) | fence
  text <- paste(lines[!in_chunk], collapse = "\n")
  text <- gsub("`[^`]*`", " ", text)        # inline code, `r ...` included
  text <- gsub("\\\\\\$", " ", text)        # escaped dollars
  display <- gregexpr("(?s)\\$\\$.+?\\$\\$", text, perl = TRUE)[[1]]
  n_display <- sum(display > 0)
  text <- gsub("(?s)\\$\\$.+?\\$\\$", " ", text, perl = TRUE)
  # within a paragraph: it may span lines, not a blank one
  inline <- gregexpr("\\$(?!\\s)(?:[^$\n]|\n(?!\\s*\n))+?(?<!\\s)\\$(?!\\d)", text, perl = TRUE)[[1]]
  n_display + sum(inline > 0)
}

# The browser: Chromium or Chrome, "" when there is none.
math_browser <- function() {
  found <- unname(Sys.which(c("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")))
  found <- found[nzchar(found)]
  if (length(found) == 0) "" else found[1]
}

# The DOM of a page after its scripts ran, from a headless browser without a
# network: every host name resolves to nothing and every request goes to a
# proxy on a closed port, so nothing leaves the machine and CDN assets fail.
math_dump_dom <- function(browser, url, budget_ms = 15000) {
  flags <- c("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
             "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
             paste0("--virtual-time-budget=", budget_ms), "--dump-dom")
  out <- suppressWarnings(system2(browser, c(shQuote(flags), shQuote(url)), stdout = TRUE,
                                  stderr = FALSE))
  paste(out, collapse = "\n")
}

# The DOMs of several pages, two browsers at a time where the platform forks.
math_dump_doms <- function(browser, urls, budget_ms = 15000) {
  cores <- if (.Platform$OS.type == "unix") 2L else 1L
  unlist(parallel::mclapply(urls, function(url) math_dump_dom(browser, url, budget_ms), mc.cores = cores))
}

# What a dumped DOM shows: `rendered`, the number of formulas KaTeX rendered
# (each is one element of class "katex"; a displayed one sits inside a
# "katex-display"), and `raw`, the TeX delimiters \( \) \[ \] $$ left in the
# page's text (outside code, scripts and styles), each with some context.
math_in_dom <- function(dom) {
  rendered <- lengths(regmatches(dom, gregexpr("class=\"katex\"", dom, fixed = TRUE)))
  text <- dom
  for (tag in c("script", "style", "pre", "code", "annotation")) {
    text <- gsub(sprintf("(?s)<%s\\b[^>]*>.*?</%s>", tag, tag), " ", text, perl = TRUE)
  }
  text <- gsub("<[^>]*>", " ", text)
  found <- gregexpr("\\\\[()\\[\\]]|\\$\\$", text, perl = TRUE)[[1]]
  raw <- if (found[1] > 0) {
    vapply(found, function(at) gsub("\\s+", " ", substr(text, max(1, at - 30), at + 30)), "")
  } else character()
  list(rendered = rendered, raw = raw)
}
