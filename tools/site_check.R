# Check the built pkgdown site in a real headless browser (Chromium). Usage,
# from the checkout's root, after tools/site.R:
#   Rscript tools/site_check.R [--site DIR] [--shots DIR]
# --site DIR   the built site (default docs/)
# --shots DIR  where the screenshots go (default: a new temporary folder)
#
# For the home page, the reference index, two reference pages and one article
# it takes a screenshot and asks the browser, after the page's load event,
# which images it shows and at what natural size: a page must have a main
# heading, every image must have loaded with a non-zero size, and the
# plot() reference page and the article must show figures. The browser also
# says which scripts, stylesheets, images and fonts of the page failed to load
# (none may), whether the libraries of pkgdown's templates are there
# (headroom.js, bootstrap-toc, clipboard.js, Fuse.js, autocomplete.js,
# mark.js), and whether they did their work: the navbar hides on scrolling
# (headroom), the "On this page" list has entries, every code block has a
# copy button. Then it reads every HTML file of the site and checks that no
# page loads a script or stylesheet from a network (outside HTML comments),
# that each relative link or source (href, src) points to a file of the site,
# and that each #fragment into a site page names an id there. It prints a
# pass/fail summary and exits non-zero on a failure.
#
# Formulas: every article and every reference page whose Rd file has \eqn or
# \deqn is opened in the browser (two at a time) and its DOM read after its
# scripts ran: no TeX delimiter \( \) \[ \] $$ may be left in its text, and it
# must show as many formulas rendered by KaTeX as its source writes (the
# vignette's $...$ and $$...$$, the Rd file's \eqn and \deqn).
#
# Needs Chromium (Debian: apt-get install chromium). The browser gets no
# network: every host name resolves to nothing and every request goes to a
# closed port, so no request leaves the machine, and an asset that a page
# loads from a CDN fails to load, as it does for a reader without a network.

source(file.path("tools", "setup.R"))  # option_value()
source(file.path("tests", "testthat", "helper-math.R"))  # math_*()
site_dir <- option_value("--site", "docs")
shots_dir <- option_value("--shots", tempfile("krein-site-shots-"))
if (!file.exists(file.path(site_dir, "index.html"))) {
  stop("No built site in ", site_dir, ": run Rscript tools/site.R first.", call. = FALSE)
}
site_dir <- normalizePath(site_dir)
dir.create(shots_dir, recursive = TRUE, showWarnings = FALSE)
shots_dir <- normalizePath(shots_dir)

browser <- unname(Sys.which(c("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")))
browser <- browser[nzchar(browser)][1]
if (is.na(browser)) stop("Chromium was not found (Debian: apt-get install chromium).", call. = FALSE)

results <- data.frame(check = character(), passed = logical(), detail = character())
record <- function(check, passed, detail = "") {
  results[nrow(results) + 1, ] <<- list(check, passed, detail)
  cat(sprintf("%-4s %s%s\n", if (passed) "ok" else "FAIL", check, if (nzchar(detail)) paste0(": ", detail) else ""))
}

run_browser <- function(url, extra) {
  # --no-sandbox: Chromium's sandbox refuses to run as root (containers, CI)
  flags <- c("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
             "--virtual-time-budget=10000", extra)
  suppressWarnings(system2(browser, c(shQuote(flags), shQuote(url)), stdout = TRUE, stderr = FALSE))
}

# The pages to look at: kqd's reference page (text and examples), the
# reference page of the models' plot() method and the checkerboard article,
# which must show figures.
pages <- data.frame(
  name = c("home", "reference index", "reference page (kqd)", "reference page (plot.krein_model)",
           "article (checkerboard)"),
  path = c("index.html", "reference/index.html", "reference/kqd.html", "reference/plot.krein_model.html",
           "articles/checkerboard.html"),
  needs_figures = c(FALSE, FALSE, FALSE, TRUE, TRUE),
  shot = c("home.png", "reference-index.png", "reference-kqd.png", "reference-plot-krein-model.png",
           "article-checkerboard.png")
)

# A copy of each page with two scripts. The first, at the start of <head>,
# notes every script, stylesheet or image that fails to load (their error
# events reach a listener on the window in the capture phase). The second, on
# the load event (which waits for them), writes into the page, for
# --dump-dom to show, one line a fact: the main heading (H1), each image's
# state (IMG), what failed to load (FAILED; a font that failed too), the
# libraries of pkgdown's templates that are missing (MISSING), whether
# headroom.js took the navbar (HEADROOM), the entries of the "On this page"
# list and the page's h2 headings (TOC; -1 without a list), and the code
# blocks and their copy buttons (COPY).
probe_head <- paste0(
  "<script>window.kreinFailed = [];",
  "window.addEventListener('error', function (e) { var t = e.target;",
  "if (t && t !== window && (t.src || t.href)) window.kreinFailed.push(t.tagName.toLowerCase() + ' ' + (t.src || t.href));",
  "}, true);</script>")
probe <- paste0(
  "<script>window.addEventListener('load', function () {",
  "var rows = []; var $ = window.jQuery;",
  "var h1 = document.querySelector('h1');",
  "rows.push('H1\\t' + (h1 ? h1.textContent.trim() : ''));",
  "for (var i = 0; i < document.images.length; i++) { var im = document.images[i];",
  "rows.push(['IMG', im.getAttribute('src'), im.complete, im.naturalWidth, im.naturalHeight].join('\\t')); }",
  "var failed = (window.kreinFailed || []).slice();",
  "if (document.fonts) document.fonts.forEach(function (f) { if (f.status === 'error') failed.push('font ' + f.family); });",
  "failed.forEach(function (f) { rows.push('FAILED\\t' + f); });",
  "var libs = { 'headroom.js': typeof window.Headroom === 'function' && !!($ && $.fn.headroom),",
  "'bootstrap-toc': !!(window.Toc && typeof window.Toc.init === 'function'),",
  "'clipboard.js': typeof window.ClipboardJS === 'function', 'Fuse.js': typeof window.Fuse === 'function',",
  "'autocomplete.js': !!($ && $.fn.autocomplete), 'mark.js': typeof window.Mark === 'function' };",
  "for (var name in libs) if (!libs[name]) rows.push('MISSING\\t' + name);",
  "rows.push('HEADROOM\\t' + !!document.querySelector('nav.navbar.headroom'));",
  "var toc = document.getElementById('toc');",
  "rows.push('TOC\\t' + (toc ? toc.querySelectorAll('a.nav-link').length : -1) + '\\t' +",
  "document.querySelectorAll('main h2').length);",
  "rows.push('COPY\\t' + document.querySelectorAll('div.sourceCode').length + '\\t' +",
  "document.querySelectorAll('.btn-copy-ex').length);",
  "var out = document.createElement('pre'); out.id = 'krein-site-check';",
  "out.textContent = rows.join('\\n');",
  "document.body.appendChild(out); });</script>")

# The facts of a probe's report of one kind ("IMG", ...): a matrix, one row a
# line, one column a tab-separated field after the kind
probe_facts <- function(lines, kind, fields) {
  found <- lines[startsWith(lines, paste0(kind, "\t"))]
  if (length(found) == 0) return(matrix(character(), 0, fields))
  matrix(unlist(lapply(strsplit(found, "\t", fixed = TRUE), function(f) c(f[-1], "")[seq_len(fields)])),
         ncol = fields, byrow = TRUE)
}
unescape_html <- function(x) gsub("&amp;", "&", gsub("&gt;", ">", gsub("&lt;", "<", x, fixed = TRUE), fixed = TRUE),
                                  fixed = TRUE)

for (i in seq_len(nrow(pages))) {
  page <- file.path(site_dir, pages$path[i])
  if (!file.exists(page)) {
    record(pages$name[i], FALSE, paste(pages$path[i], "was not built"))
    next
  }
  shot <- file.path(shots_dir, pages$shot[i])
  start <- proc.time()[["elapsed"]]
  run_browser(paste0("file://", page), c("--window-size=1280,1600", paste0("--screenshot=", shot)))
  shot_ok <- file.exists(shot) && file.size(shot) > 10000
  record(paste(pages$name[i], "screenshot"), shot_ok,
         if (shot_ok) sprintf("%s (%.0f kB)", shot, file.size(shot) / 1024) else "no screenshot")

  html <- readLines(page, warn = FALSE, encoding = "UTF-8")
  probed <- file.path(dirname(page), paste0(".krein-probe-", basename(page)))
  head_at <- grep("<head(\\s[^>]*)?>", html, perl = TRUE)[1]
  if (!is.na(head_at)) html[head_at] <- sub("(<head(\\s[^>]*)?>)", paste0("\\1", probe_head), html[head_at], perl = TRUE)
  writeLines(sub("</body>", paste0(probe, "</body>"), html, fixed = TRUE), probed, useBytes = TRUE)
  dom <- run_browser(paste0("file://", probed), "--dump-dom")
  unlink(probed)
  dom <- paste(dom, collapse = "\n")
  report <- regmatches(dom, regexpr("<pre id=\"krein-site-check\">[^<]*</pre>", dom))
  if (length(report) == 0) {
    record(paste(pages$name[i], "renders"), FALSE, "the page did not finish loading in the browser")
    next
  }
  lines <- unescape_html(strsplit(sub("^<pre[^>]*>", "", sub("</pre>$", "", report)), "\n", fixed = TRUE)[[1]])
  heading <- probe_facts(lines, "H1", 1)[1, 1]
  record(paste(pages$name[i], "renders"), nzchar(heading),
         sprintf("heading \"%s\" (%.1f s)", heading, proc.time()[["elapsed"]] - start))
  images <- probe_facts(lines, "IMG", 4)
  loaded <- images[, 2] == "true" & as.numeric(images[, 3]) > 0 & as.numeric(images[, 4]) > 0
  figures <- grepl("\\.(png|jpe?g|svg|gif)$", images[, 1], ignore.case = TRUE) |
    startsWith(images[, 1], "data:image")
  detail <- sprintf("%d images, %d loaded, %d of them figures", nrow(images), sum(loaded), sum(loaded & figures))
  if (any(!loaded)) {
    sources <- ifelse(nzchar(images[!loaded, 1]), images[!loaded, 1], "(empty src)")
    detail <- paste0(detail, "; not loaded: ", paste(sources, collapse = ", "))
  }
  record(paste(pages$name[i], "images"), all(loaded) && (!pages$needs_figures[i] || sum(loaded & figures) > 0),
         detail)

  # Every script, stylesheet and font loaded (a CDN's fails: no network)
  failed <- probe_facts(lines, "FAILED", 1)[, 1]
  record(paste(pages$name[i], "assets load"), length(failed) == 0,
         if (length(failed)) paste("failed:", paste(failed, collapse = ", ")) else "every script, stylesheet and font")
  # pkgdown's script stops at its first call of a missing library, and the
  # navbar, the "On this page" list and the copy buttons are its work
  missing <- probe_facts(lines, "MISSING", 1)[, 1]
  headroom <- identical(probe_facts(lines, "HEADROOM", 1)[1, 1], "true")
  toc <- as.integer(probe_facts(lines, "TOC", 2)[1, ])
  copy <- as.integer(probe_facts(lines, "COPY", 2)[1, ])
  toc_ok <- toc[1] < 0 || toc[2] == 0 || toc[1] > 0
  copy_ok <- copy[2] == copy[1]
  record(paste(pages$name[i], "scripts work"), length(missing) == 0 && headroom && toc_ok && copy_ok,
         sprintf("%s; navbar %s; %s; %d code blocks, %d copy buttons",
                 if (length(missing)) paste("missing:", paste(missing, collapse = ", ")) else "libraries loaded",
                 if (headroom) "taken by headroom.js" else "NOT taken by headroom.js",
                 if (toc[1] < 0) "no \"On this page\" list" else
                   sprintf("\"On this page\": %d entries for %d h2 headings", toc[1], toc[2]),
                 copy[1], copy[2]))
}

# Formulas. The number an Rd file writes: its \eqn and \deqn, outside
# comment lines.
math_in_rd <- function(lines) {
  lines <- lines[!grepl("^\\s*%", lines)]
  sum(lengths(regmatches(lines, gregexpr("\\\\d?eqn\\{", lines))))
}
articles <- list.files(file.path(site_dir, "articles"), pattern = "\\.html$")
articles <- articles[file.exists(file.path("vignettes", sub("\\.html$", ".Rmd", articles)))]
rd_files <- list.files("man", pattern = "\\.Rd$")
rd_math <- vapply(file.path("man", rd_files), function(f) math_in_rd(readLines(f, warn = FALSE)), 0)
rd_files <- rd_files[rd_math > 0]
math_pages <- data.frame(
  page = c(file.path("articles", articles), file.path("reference", sub("\\.Rd$", ".html", rd_files))),
  written = c(vapply(file.path("vignettes", sub("\\.html$", ".Rmd", articles)),
                     function(f) math_in_source(readLines(f, warn = FALSE, encoding = "UTF-8")), 0),
              rd_math[rd_math > 0])
)
math_pages <- math_pages[file.exists(file.path(site_dir, math_pages$page)), ]
start <- proc.time()[["elapsed"]]
doms <- math_dump_doms(browser, paste0("file://", file.path(site_dir, math_pages$page)))
# The "On this page" list (nav#toc) repeats the headings, formulas included:
# its copies are not counted.
doms <- gsub("(?s)<nav id=\"toc\".*?</nav>", "", doms, perl = TRUE)
for (i in seq_len(nrow(math_pages))) {
  shown <- math_in_dom(doms[i])
  detail <- sprintf("%d rendered, %d written", shown$rendered, as.integer(math_pages$written[i]))
  if (length(shown$raw)) {
    detail <- paste0(detail, "; TeX left in the text: ",
                     paste(utils::head(shown$raw, 5), collapse = " | "))
  }
  record(paste("formulas", math_pages$page[i]),
         nzchar(doms[i]) && length(shown$raw) == 0 && shown$rendered == math_pages$written[i], detail)
}
message(sprintf("Formulas of %d pages checked in %.0f s.", nrow(math_pages),
                proc.time()[["elapsed"]] - start))

# Internal links: every href and src of every page that is not a URL with a
# scheme (http:, mailto:, data: ...) or protocol-relative (//host) must name a
# file of the site; a #fragment into an HTML page must name an id in it; and
# no page may point into the building machine's file system (file://).
html_files <- list.files(site_dir, pattern = "\\.html$", recursive = TRUE, full.names = TRUE)

# Scripts and stylesheets: every <script src> and <link rel="stylesheet">
# of every page, outside HTML comments, must be a file of the site (which the
# check of internal links below finds), not an address with a scheme or a
# host (a CDN's, which a reader without a network does not reach).
elsewhere <- character()
n_assets <- 0L
for (file in html_files) {
  text <- paste(readLines(file, warn = FALSE, encoding = "UTF-8"), collapse = "\n")
  text <- gsub("(?s)<!--.*?-->", "", text, perl = TRUE)
  tags <- regmatches(text, gregexpr("<script\\b[^>]*\\ssrc=\"[^\"]*\"[^>]*>|<link\\b[^>]*>", text, perl = TRUE))[[1]]
  tags <- tags[startsWith(tags, "<script") | grepl("\\srel=\"?stylesheet\\b", tags, ignore.case = TRUE)]
  tags <- tags[grepl("\\s(src|href)=\"", tags)]
  targets <- sub("^.*\\s(src|href)=\"([^\"]*)\".*$", "\\2", tags, perl = TRUE)
  n_assets <- n_assets + length(targets)
  targets <- targets[grepl("^([A-Za-z][A-Za-z0-9+.-]*:|//)", targets) & !startsWith(targets, "data:")]
  if (length(targets)) {
    elsewhere <- c(elsewhere, sprintf("%s -> %s", sub(paste0(site_dir, "/"), "", file, fixed = TRUE), targets))
  }
}
record("scripts and stylesheets are the site's files", length(elsewhere) == 0,
       sprintf("%d in %d pages, %d not%s", n_assets, length(html_files), length(elsewhere),
               if (length(elsewhere)) paste0(":\n  ", paste(utils::head(elsewhere, 20), collapse = "\n  ")) else ""))

ids_cache <- new.env()
page_ids <- function(file) {
  if (is.null(ids_cache[[file]])) {
    text <- paste(readLines(file, warn = FALSE, encoding = "UTF-8"), collapse = "\n")
    found <- regmatches(text, gregexpr("\\s(id|name)=\"[^\"]*\"", text))[[1]]
    ids_cache[[file]] <- sub("^\\s(id|name)=\"([^\"]*)\"$", "\\2", found)
  }
  ids_cache[[file]]
}
broken <- character()
n_links <- 0L
for (file in html_files) {
  text <- paste(readLines(file, warn = FALSE, encoding = "UTF-8"), collapse = "\n")
  attrs <- regmatches(text, gregexpr("\\s(href|src)=\"[^\"]*\"", text))[[1]]
  targets <- unique(sub("^\\s(href|src)=\"([^\"]*)\"$", "\\2", attrs))
  # a file:// URL names a file of the machine that built the site
  for (target in targets[startsWith(tolower(targets), "file:")]) {
    broken <- c(broken, sprintf("%s -> %s (a file of the building machine)",
                                sub(paste0(site_dir, "/"), "", file, fixed = TRUE), target))
  }
  targets <- targets[!grepl("^([A-Za-z][A-Za-z0-9+.-]*:|//)", targets) & nzchar(targets)]
  for (target in targets) {
    n_links <- n_links + 1L
    target_decoded <- utils::URLdecode(gsub("&amp;", "&", target, fixed = TRUE))
    path_part <- sub("[?#].*$", "", target_decoded)
    fragment <- if (grepl("#", target_decoded, fixed = TRUE)) sub("^[^#]*#", "", target_decoded) else ""
    resolved <- if (nzchar(path_part)) file.path(dirname(file), path_part) else file
    if (dir.exists(resolved)) resolved <- file.path(resolved, "index.html")
    where <- sub(paste0(site_dir, "/"), "", file, fixed = TRUE)
    if (!file.exists(resolved)) {
      broken <- c(broken, sprintf("%s -> %s (no such file)", where, target))
    } else if (nzchar(fragment) && grepl("\\.html$", resolved) && !(fragment %in% page_ids(resolved))) {
      broken <- c(broken, sprintf("%s -> %s (no such anchor)", where, target))
    }
  }
}
record("internal links", length(broken) == 0,
       sprintf("%d links in %d pages, %d broken%s", n_links, length(html_files), length(broken),
               if (length(broken)) paste0(":\n  ", paste(utils::head(broken, 40), collapse = "\n  ")) else ""))

failed <- sum(!results$passed)
cat(sprintf("\nSite check: %d checks, %d passed, %d failed. Screenshots in %s\n",
            nrow(results), sum(results$passed), failed, shots_dir))
quit(status = if (failed > 0) 1L else 0L, save = "no")
