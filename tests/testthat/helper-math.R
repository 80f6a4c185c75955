# Formulas in the documentation: how many an R Markdown source writes, and how
# many a page shows rendered in a headless browser with no network. Used by
# test-vignettes-math.R (the installed vignettes) and by tools/site_check.R
# (the pkgdown site), which sources this file.

# The number of TeX formulas an R Markdown source writes: $$...$$ (displayed,
# possibly over several lines) and $...$ (inline; the opening $ not followed by
# a space, the closing one not preceded by a space nor followed by a digit, as
# pandoc and the markdown package read them), outside the YAML header, code
# chunks and inline code. \(...\) and \[...\] count too: Markdown reads
# them as escaped brackets, so they show as "(...)", not as formulas, and a
# page that has them shows fewer formulas than its source writes.
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
  bracketed <- gregexpr("(?s)\\\\\\((.+?)\\\\\\)|\\\\\\[(.+?)\\\\\\]", text, perl = TRUE)[[1]]
  n_display + sum(inline > 0) + sum(bracketed > 0)
}

# The browser: Chromium or Chrome, "" when there is none.
math_browser <- function() {
  found <- unname(Sys.which(c("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")))
  found <- found[nzchar(found)]
  if (length(found) == 0) "" else found[1]
}

# The DOMs of pages after their scripts ran, from a headless browser without a
# network: every host name resolves to nothing and every request goes to a
# proxy on a closed port, so nothing leaves the machine and CDN assets fail.
# Two browsers run at a time where there is a POSIX shell.
math_browser_flags <- function(budget_ms) {
  c("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
    "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
    paste0("--virtual-time-budget=", budget_ms), "--dump-dom")
}
# A browser that hangs is stopped after two minutes.
math_dump_dom <- function(browser, url, budget_ms = 15000) {
  out <- suppressWarnings(system2(browser, c(shQuote(math_browser_flags(budget_ms)), shQuote(url)),
                                  stdout = TRUE, stderr = FALSE, timeout = 120))
  paste(out, collapse = "\n")
}
math_dump_doms <- function(browser, urls, budget_ms = 15000) {
  if (.Platform$OS.type != "unix") return(vapply(urls, math_dump_dom, "", browser = browser, budget_ms))
  files <- vapply(seq_along(urls), function(i) tempfile(fileext = ".html"), "")
  on.exit(unlink(files), add = TRUE)
  limit <- if (nzchar(Sys.which("timeout"))) "timeout 120 " else ""
  runs <- sprintf("%s%s %s %s > %s 2> /dev/null &", limit, shQuote(browser),
                  paste(shQuote(math_browser_flags(budget_ms)), collapse = " "), shQuote(urls),
                  shQuote(files))
  pairs <- split(runs, ceiling(seq_along(runs) / 2))
  system(paste(vapply(pairs, function(p) paste(c(p, "wait"), collapse = " "), ""), collapse = "; "))
  vapply(files, function(f) if (file.exists(f)) paste(readLines(f, warn = FALSE), collapse = "\n") else "",
         "", USE.NAMES = FALSE)
}

# What a dumped DOM shows: `rendered`, the number of rendered formulas, and
# `raw`, the TeX delimiters \( \) \[ \] $$ left in the page's text (outside
# code, scripts and styles), each with some context. A rendered formula is a
# MathML <math> element: KaTeX writes one into each formula it renders (beside
# the HTML it shows), and a page whose formulas were converted to MathML when
# it was built (pandoc --mathml) has one per formula too. A formula KaTeX
# cannot parse shows as an error, without one.
math_in_dom <- function(dom) {
  rendered <- lengths(regmatches(dom, gregexpr("<math[ >]", dom)))
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
