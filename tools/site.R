# Build the pkgdown documentation site: home page from README.md, the grouped
# reference index of _pkgdown.yml, the vignettes as articles. Usage, from the
# checkout's root:
#   Rscript tools/site.R [--out DIR] [--installed]
# --out DIR    where the site goes (default docs/, which git and R CMD build
#              ignore); the folder is emptied first.
# --installed  use the krein already installed (for instance by tools/demo.R)
#              instead of installing this checkout into a temporary library;
#              quicker, but only right when that installation is current.
# Needs pandoc (pkgdown renders the articles with rmarkdown). Uses the pkgdown
# installed (Debian's r-cran-pkgdown, for instance), else installs it from the
# package repositories (CRAN): some of its dependencies compile against system
# libraries, and where one is missing the script stops first, naming the
# Debian packages that provide them. Check the result in a headless browser
# with tools/site_check.R.
#
# Formulas: the site renders them with the copy of KaTeX in vignettes/katex,
# copied to the site's katex/ and loaded by pkgdown/extra.js, so that they show
# without a network too; the MathJax that pkgdown's templates load is removed.
#
# No network, with pkgdown 2.0.x or >= 2.1: the JavaScript and CSS libraries
# of pkgdown's templates (headroom.js, bootstrap-toc, clipboard.js, Fuse.js,
# autocomplete.js, mark.js; Font Awesome in 2.0.x), which pkgdown takes from
# CDNs, come from krein's copies in pkgdown/vendor (see its README.md).
# pkgdown >= 2.1 downloads them while "Initialising site" and stops without a
# network: the build gives it a cache of its own, in a temporary folder,
# seeded with the copies (the user's pkgdown cache is neither read nor
# changed). pkgdown 2.0.x writes CDN <script> and <link> tags into the pages:
# they are pointed to the copies, which go into the site's vendor/. Neither
# looks krein up on CRAN, Bioconductor or crandb (see pkgdown.internet below).
source(file.path("tools", "setup.R"))

args <- commandArgs(trailingOnly = TRUE)
out_dir <- option_value("--out", "docs")
use_installed <- "--installed" %in% args

# The R packages among pkgdown's dependencies that compile against system
# libraries: for each, the pkg-config modules it needs (from its configure
# script) and the Debian packages that provide them.
system_requirements <- list(
  textshaping = c(harfbuzz = "libharfbuzz-dev", fribidi = "libfribidi-dev", freetype2 = "libfreetype-dev"),
  systemfonts = c(fontconfig = "libfontconfig-dev", freetype2 = "libfreetype-dev"),
  ragg = c(freetype2 = "libfreetype-dev", libpng = "libpng-dev", `libtiff-4` = "libtiff-dev",
           libjpeg = "libjpeg-dev", libwebp = "libwebp-dev", libwebpmux = "libwebp-dev"),
  xml2 = c(`libxml-2.0` = "libxml2-dev"),
  openssl = c(openssl = "libssl-dev"),
  curl = c(libcurl = "libcurl4-openssl-dev")
)

# Before installing `packages` from the repositories: stop, naming the Debian
# packages to install, when a package among them or their dependencies that is
# not installed yet needs a system library that pkg-config does not find.
check_system_libraries <- function(packages) {
  missing <- packages[!vapply(packages, requireNamespace, logical(1), quietly = TRUE)]
  if (length(missing) == 0) return(invisible())
  db <- utils::available.packages()
  needed <- unique(c(missing, unlist(tools::package_dependencies(
    intersect(missing, rownames(db)), db = db, which = c("Depends", "Imports", "LinkingTo"),
    recursive = TRUE))))
  to_compile <- intersect(names(system_requirements), needed)
  to_compile <- to_compile[!vapply(to_compile, requireNamespace, logical(1), quietly = TRUE)]
  if (length(to_compile) == 0) return(invisible())
  modules <- unlist(unname(system_requirements[to_compile]))
  modules <- modules[!duplicated(names(modules))]
  if (!nzchar(Sys.which("pkg-config"))) {
    stop("Installing ", paste(missing, collapse = ", "), " compiles ", paste(to_compile, collapse = ", "),
         ", which need system libraries found with pkg-config, which is missing. On Debian or Ubuntu: ",
         "apt-get install pkg-config ", paste(unique(modules), collapse = " "),
         " (or Debian's pkgdown: apt-get install r-cran-pkgdown).", call. = FALSE)
  }
  found <- vapply(names(modules), function(m) {
    suppressWarnings(system2("pkg-config", c("--exists", shQuote(m)), stdout = FALSE, stderr = FALSE)) == 0
  }, logical(1))
  if (all(found)) return(invisible())
  users <- vapply(names(modules)[!found], function(m) {
    paste(to_compile[vapply(system_requirements[to_compile], function(r) m %in% names(r), logical(1))],
          collapse = ", ")
  }, "")
  stop("Installing ", paste(missing, collapse = ", "), " from ", paste(getOption("repos"), collapse = ", "),
       " compiles R packages that need system libraries which are missing: ",
       paste(sprintf("%s (for %s)", names(modules)[!found], users), collapse = "; "), ".\n",
       "On Debian or Ubuntu install them with\n  apt-get install ",
       paste(unique(modules[!found]), collapse = " "),
       "\nor install Debian's pkgdown instead: apt-get install r-cran-pkgdown", call. = FALSE)
}

site_packages <- c("Rcpp", "RcppEigen", "knitr", "markdown", "rmarkdown", "pkgdown", "kernlab", "e1071")
check_system_libraries(site_packages)
install_missing(site_packages)
if (requireNamespace("pkgdown", quietly = TRUE)) {
  message("Using pkgdown ", utils::packageVersion("pkgdown"), " from ", dirname(find.package("pkgdown")))
}
if (!rmarkdown::pandoc_available("1.12.3")) {
  stop("pkgdown renders the articles with pandoc, which was not found: install it (Debian: ",
       "apt-get install pandoc) or set RSTUDIO_PANDOC to its folder.", call. = FALSE)
}

# pkgdown would look krein up on CRAN and Bioconductor for a "View on" link,
# and on crandb for the release dates of the news: krein is on neither, and
# the build must work offline. pkgdown 2.0.x skips both under
# options(pkgdown.internet = FALSE); pkgdown >= 2.1 reads no such option: the
# news dates are turned off in the configuration (news: cran_dates: false,
# given to as_pkgdown() below), and the look-up of the link, pkgdown's
# internal cran_link(), is replaced by a function that returns what it finds
# for krein: nothing.
options(pkgdown.internet = FALSE)
if (exists("cran_link", envir = asNamespace("pkgdown"), inherits = FALSE)) {
  utils::assignInNamespace("cran_link", function(pkg) NULL, ns = "pkgdown")
}

# The front-end libraries of pkgdown's templates, from pkgdown/vendor rather
# than from CDNs (see the header). pkgdown/vendor/assets.csv lists each copy
# with the end of the CDN address it replaces (url_tail) and the hash pkgdown
# names for that address (integrity; empty for krein's stand-in for
# bootstrap-toc, which no registry publishes).
vendor_dir <- file.path("pkgdown", "vendor")
vendored <- utils::read.csv(file.path(vendor_dir, "assets.csv"), colClasses = "character")

# The row of assets.csv for a CDN address, or NULL
vendored_asset <- function(url) {
  row <- which(endsWith(url, paste0("/", vendored$url_tail)))
  if (length(row) == 0) NULL else vendored[row[1], ]
}

# A file's Subresource Integrity hash ("sha512-..."), of the size `integrity` names
integrity_of <- function(path, integrity) {
  size <- as.integer(sub("^sha(256|384|512)-.*$", "\\1", integrity))
  paste0("sha", size, "-", openssl::base64_encode(openssl::sha2(file(path), size)))
}

# What pkgdown >= 2.1 downloads into its cache while it initialises the site:
# its internal external_dependencies() run with cached_dependency(), which
# downloads, replaced by a function that returns what it is asked for. A data
# frame (name, version, url, integrity), or NULL for a pkgdown without these
# functions (2.0.x, which downloads nothing and writes CDN tags instead).
pkgdown_downloads <- function(pkg) {
  pkgdown_ns <- asNamespace("pkgdown")
  if (!all(c("external_dependencies", "cached_dependency") %in% ls(pkgdown_ns, all.names = TRUE))) {
    return(NULL)
  }
  asked <- new.env(parent = pkgdown_ns)
  asked$cached_dependency <- function(name, version, files) {
    data.frame(name = name, version = version, url = vapply(files, `[[`, "", "url"),
               integrity = vapply(files, `[[`, "", "integrity"))
  }
  external_dependencies <- get("external_dependencies", pkgdown_ns)
  environment(external_dependencies) <- asked
  found <- tryCatch(external_dependencies(pkg), error = function(e) e)
  if (inherits(found, "error")) {
    message("Could not tell which files pkgdown ", utils::packageVersion("pkgdown"), " downloads (",
            conditionMessage(found), "): it downloads them itself, which needs a network.")
    return(NULL)
  }
  do.call(rbind, Filter(is.data.frame, found))
}

# pkgdown >= 2.1: a cache of the build's own, in a temporary folder (the
# R_USER_CACHE_DIR that tools::R_user_dir() reads), holding the vendored
# copies under the names pkgdown looks for, so that it downloads nothing and
# the user's cache is left as it is. pkgdown checks the hash only of what it
# downloads, not of what it finds in its cache: each copy is checked here
# against the hash pkgdown names, as pkgdown would (not krein's stand-in for
# bootstrap-toc, whose hash differs by design). Returns the folder.
seed_pkgdown_cache <- function(downloads) {
  cache_home <- tempfile("krein-site-cache-")
  Sys.setenv(R_USER_CACHE_DIR = cache_home)
  cache_dir <- tools::R_user_dir("pkgdown", "cache")
  lacking <- character()
  for (i in seq_len(nrow(downloads))) {
    url <- downloads$url[i]
    asset <- vendored_asset(url)
    if (is.null(asset)) {
      lacking <- c(lacking, url)
      next
    }
    source_file <- file.path(vendor_dir, asset$file)
    if (nzchar(asset$integrity) && integrity_of(source_file, downloads$integrity[i]) != downloads$integrity[i]) {
      stop(source_file, " is not the file pkgdown expects for ", url, ": its hash is not ",
           downloads$integrity[i], ". Refresh it (see pkgdown/vendor/README.md).", call. = FALSE)
    }
    target_dir <- file.path(cache_dir, downloads$name[i], downloads$version[i])
    dir.create(target_dir, recursive = TRUE, showWarnings = FALSE)
    if (!file.copy(source_file, file.path(target_dir, basename(url)), overwrite = TRUE)) {
      stop("Could not copy ", source_file, " into ", target_dir, call. = FALSE)
    }
  }
  message(sprintf("pkgdown's cache for this build: %d of the %d files it downloads, from %s.",
                  nrow(downloads) - length(lacking), nrow(downloads), vendor_dir))
  if (length(lacking) > 0) {
    message("pkgdown ", utils::packageVersion("pkgdown"), " also downloads ", paste(lacking, collapse = ", "),
            ", of which ", vendor_dir, " has no copy: without a network the build stops there. ",
            "Add them (see ", file.path(vendor_dir, "README.md"), ").")
  }
  invisible(cache_home)
}

# pkgdown 2.0.x: the <script src> and <link href> tags of a page's lines that
# load a vendored library from a CDN point to its copy in the site's vendor/
# instead (`root`: the way from the page to the site's root, "" or "../").
# Each copy is checked against the hash the tag gives (but krein's stand-in
# for bootstrap-toc). Then the tag's integrity and crossorigin attributes go:
# Chromium refuses a script that has an integrity attribute when it reads it
# from a file (a site opened from disk), and the stand-in is not the file of
# the hash. Returns the lines, with attribute "assets": the vendored files
# they load.
vendored_tags <- function(lines, root) {
  used <- character()
  tags <- gregexpr("<(script|link)\\b[^>]*>", lines, perl = TRUE)
  regmatches(lines, tags) <- lapply(regmatches(lines, tags), function(found) {
    vapply(found, function(tag) {
      url <- sub("^.*\\s(src|href)=\"((https?:)?//[^\"]+)\".*$", "\\2", tag, perl = TRUE)
      asset <- if (identical(url, tag)) NULL else vendored_asset(url)
      if (is.null(asset)) return(tag)
      source_file <- file.path(vendor_dir, asset$file)
      claimed <- sub("^.*\\sintegrity=\"([^\"]+)\".*$", "\\1", tag, perl = TRUE)
      if (nzchar(asset$integrity) && !identical(claimed, tag) && integrity_of(source_file, claimed) != claimed) {
        stop(source_file, " is not the file pkgdown's pages load from ", url, ": its hash is not ", claimed,
             ". Refresh it (see pkgdown/vendor/README.md).", call. = FALSE)
      }
      used <<- c(used, asset$file)
      tag <- sub(url, paste0(root, "vendor/", asset$file), tag, fixed = TRUE)
      gsub("\\s(integrity|crossorigin)(=\"[^\"]*\")?", "", tag, perl = TRUE)
    }, "", USE.NAMES = FALSE)
  })
  structure(lines, assets = unique(used))
}

elapsed <- function(start) proc.time()[["elapsed"]] - start
start_all <- proc.time()[["elapsed"]]

# The examples and articles run the krein of this checkout: installed (compiled
# once, optimised) into a temporary library, which the article processes see too.
if (use_installed) {
  if (!requireNamespace("krein", quietly = TRUE)) stop("--installed: krein is not installed.", call. = FALSE)
  message("Using the installed krein ", utils::packageVersion("krein"), " in ",
          dirname(find.package("krein")))
} else {
  start <- proc.time()[["elapsed"]]
  work <- tempfile("krein-site-")
  dir.create(work)
  site_lib <- file.path(work, "library")
  dir.create(site_lib)
  source_copy <- copy_package_source(".", work)
  r_install(file.path(R.home("bin"), "R"), source_copy, site_lib)
  .libPaths(c(site_lib, .libPaths()))
  Sys.setenv(R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep))
  message(sprintf("krein installed into a temporary library in %.0f s.", elapsed(start)))
}

# Topics and articles that no group of _pkgdown.yml selects go into an "Other"
# group at the end, so that a topic or vignette added without an edit of
# _pkgdown.yml is listed instead of failing the build (pkgdown refuses an index
# that leaves one out). This uses pkgdown's internal selector function,
# select_topics(), which 2.0.x and >= 2.1 share (the functions around it
# differ; vignettes are selected as topics named by their names, as pkgdown
# does); with a pkgdown that lacks it, the index is used as it stands. Returns
# the site's configuration with those groups added. (pkgdown's `override`
# cannot do this: it merges lists by name, and the groups are an unnamed list.)
add_unfiled_groups <- function(pkg) {
  pkgdown_ns <- asNamespace("pkgdown")
  if (!exists("select_topics", envir = pkgdown_ns, inherits = FALSE)) return(pkg)
  select_topics <- get("select_topics", pkgdown_ns)
  # the indices of the topics a group's contents select; pkgdown >= 2.1 also
  # wants the place in _pkgdown.yml, for its messages
  selected <- function(contents, topics, where) {
    selection <- list(unlist(contents), topics)
    if ("error_path" %in% names(formals(select_topics))) {
      selection <- c(selection, list(error_path = where, error_pkg = pkg))
    }
    do.call(select_topics, selection)
  }

  reference <- pkg$meta$reference
  listed <- unlist(lapply(seq_along(reference), function(i) {
    if (is.null(reference[[i]]$contents)) return(character())
    pkg$topics$name[selected(reference[[i]]$contents, pkg$topics, sprintf("reference[%d].contents", i))]
  }))
  public <- pkg$topics$name[!pkg$topics$internal]
  unfiled <- setdiff(public, listed)
  twice <- unique(listed[duplicated(listed)])
  if (length(twice) > 0) message("Topics listed in more than one group: ", paste(twice, collapse = ", "))
  if (length(unfiled) > 0) {
    message("Topics in no group of _pkgdown.yml, listed under 'Other topics': ",
            paste(unfiled, collapse = ", "))
    pkg$meta$reference <- c(reference, list(list(
      title = "Other topics", desc = "Topics not yet filed in a group above.",
      contents = unfiled)))
  }

  articles <- pkg$meta$articles
  if (length(articles) > 0) {
    vignette_topics <- data.frame(name = pkg$vignettes$name, internal = rep(FALSE, nrow(pkg$vignettes)))
    vignette_topics$alias <- as.list(pkg$vignettes$name)
    listed <- unlist(lapply(seq_along(articles), function(i) {
      pkg$vignettes$name[selected(articles[[i]]$contents, vignette_topics, sprintf("articles[%d].contents", i))]
    }))
    unfiled <- setdiff(pkg$vignettes$name, c(listed, pkg$package))
    if (length(unfiled) > 0) {
      message("Vignettes in no group of _pkgdown.yml, listed under 'Other articles': ",
              paste(unfiled, collapse = ", "))
      pkg$meta$articles <- c(articles, list(list(title = "Other articles", navbar = "Other articles",
                                                 contents = unfiled)))
    }
  }
  pkg
}

# Empty the output folder, but only one that is empty or holds an earlier site
# (pkgdown writes pkgdown.yml into it): never the checkout or another folder.
if (dir.exists(out_dir) && length(list.files(out_dir, all.files = TRUE, no.. = TRUE)) > 0 &&
    !file.exists(file.path(out_dir, "pkgdown.yml"))) {
  stop("--out ", out_dir, " is neither empty nor an earlier pkgdown site; not emptying it.", call. = FALSE)
}
unlink(out_dir, recursive = TRUE)
dir.create(out_dir, recursive = TRUE, showWarnings = FALSE)
out_dir <- normalizePath(out_dir)
pkg <- add_unfiled_groups(pkgdown::as_pkgdown(".", override = list(destination = out_dir,
                                                                   news = list(cran_dates = FALSE))))
# pkgdown >= 2.1: its downloads come from the vendored copies (the cache's
# folder is in R's temporary folder, removed when R ends).
downloads <- pkgdown_downloads(pkg)
if (!is.null(downloads) && nrow(downloads) > 0) seed_pkgdown_cache(downloads)

start <- proc.time()[["elapsed"]]
# devel = FALSE: examples and articles use library(krein), the installation
# above, rather than pkgload::load_all() (an unoptimised compile into src/).
pkgdown::build_site(pkg, preview = FALSE, devel = FALSE, new_process = FALSE,
                    install = FALSE)
# Formulas: the copy of KaTeX that the vignettes ship goes to the site's
# katex/, where pkgdown/extra.js (which pkgdown copies to the site's root and
# loads on every page) finds krein-math.js, which renders the formulas.
katex_dir <- file.path("vignettes", "katex")
if (!file.copy(katex_dir, out_dir, recursive = TRUE)) {
  stop("Could not copy ", katex_dir, " to ", out_dir, call. = FALSE)
}
# Repairs of what pkgdown's templates wrote:
# * pkgdown 2.0.7's Bootstrap 5 templates write an empty logo image,
#   <img src="" class="logo">, on every page but the home page when the
#   package has no logo; a browser shows it as a broken image. Removed.
# * pkgdown 2.0.x's templates load MathJax on every page (Debian's from the
#   building machine, file:///usr/share/javascript/mathjax/MathJax.js, which a
#   visitor does not have; upstream's from a CDN, which needs a network).
#   Removed: KaTeX renders the formulas instead (above).
# * pkgdown 2.0.x's templates load the libraries of pkgdown/vendor from CDNs:
#   pointed to the copies, which go into the site's vendor/ with their
#   licences (see the header).
assets_used <- character()
for (page in list.files(out_dir, pattern = "\\.html$", recursive = TRUE, full.names = TRUE)) {
  html <- readLines(page, warn = FALSE, encoding = "UTF-8")
  repaired <- gsub('<img src="" class="logo" alt="">', "", html, fixed = TRUE)
  repaired <- gsub("<script[^>]+src=\"[^\"]*mathjax[^\"]*\"[^>]*>\\s*</script>", "", repaired,
                   ignore.case = TRUE)
  repaired <- gsub("<!-- mathjax -->", "", repaired, fixed = TRUE)
  in_site <- substring(page, nchar(out_dir) + 2)  # e.g. reference/kqd.html
  repaired <- vendored_tags(repaired, root = strrep("../", nchar(gsub("[^/]", "", in_site))))
  assets_used <- union(assets_used, attr(repaired, "assets"))
  repaired <- as.vector(repaired)
  if (!identical(repaired, html)) writeLines(repaired, page, useBytes = TRUE)
}
# each library's folder, whole: its licence, and the fonts Font Awesome's
# stylesheet loads from ../webfonts/
for (library_dir in unique(sub("/.*$", "", assets_used))) {
  dir.create(file.path(out_dir, "vendor"), showWarnings = FALSE)
  if (!file.copy(file.path(vendor_dir, library_dir), file.path(out_dir, "vendor"), recursive = TRUE)) {
    stop("Could not copy ", file.path(vendor_dir, library_dir), " to ", out_dir, call. = FALSE)
  }
}
if (length(assets_used) > 0) {
  message("CDN assets of the pages pointed to the site's vendor/: ", paste(assets_used, collapse = ", "))
}
message(sprintf("Site built in %.0f s (%.0f s in all) into %s", elapsed(start), elapsed(start_all),
                out_dir))
