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

# pkgdown would look krein up on CRAN and Bioconductor for a "View on" link:
# krein is on neither, and the build must work offline.
options(pkgdown.internet = FALSE)

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
# that leaves one out). This uses two of pkgdown's internal selector functions;
# with a pkgdown that lacks them, the index is used as it stands. Returns the
# site's configuration with those groups added. (pkgdown's `override` cannot
# do this: it merges lists by name, and the groups are an unnamed list.)
add_unfiled_groups <- function(pkg) {
  pkgdown_ns <- asNamespace("pkgdown")
  if (!all(c("section_topics", "select_vignettes") %in% ls(pkgdown_ns, all.names = TRUE))) return(pkg)
  section_topics <- get("section_topics", pkgdown_ns)
  select_vignettes <- get("select_vignettes", pkgdown_ns)

  reference <- pkg$meta$reference
  listed <- unlist(lapply(reference, function(section) {
    if (is.null(section$contents)) return(character())
    section_topics(unlist(section$contents), pkg$topics, pkg$src_path)$name
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
    listed <- unlist(lapply(articles, function(section) {
      pkg$vignettes$name[select_vignettes(unlist(section$contents), pkg$vignettes)]
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
pkg <- add_unfiled_groups(pkgdown::as_pkgdown(".", override = list(destination = out_dir)))

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
for (page in list.files(out_dir, pattern = "\\.html$", recursive = TRUE, full.names = TRUE)) {
  html <- readLines(page, warn = FALSE, encoding = "UTF-8")
  repaired <- gsub('<img src="" class="logo" alt="">', "", html, fixed = TRUE)
  repaired <- gsub("<script[^>]+src=\"[^\"]*mathjax[^\"]*\"[^>]*>\\s*</script>", "", repaired,
                   ignore.case = TRUE)
  repaired <- gsub("<!-- mathjax -->", "", repaired, fixed = TRUE)
  if (!identical(repaired, html)) writeLines(repaired, page, useBytes = TRUE)
}
message(sprintf("Site built in %.0f s (%.0f s in all) into %s", elapsed(start), elapsed(start_all),
                out_dir))
