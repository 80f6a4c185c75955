# Build the pkgdown documentation site: home page from README.md, the grouped
# reference index of _pkgdown.yml, the vignettes as articles. Usage, from the
# checkout's root:
#   Rscript tools/site.R [--out DIR] [--installed]
# --out DIR    where the site goes (default docs/, which git and R CMD build
#              ignore); the folder is emptied first.
# --installed  use the krein already installed (for instance by tools/demo.R)
#              instead of installing this checkout into a temporary library;
#              quicker, but only right when that installation is current.
# Needs pandoc (pkgdown renders the articles with rmarkdown). Check the result
# in a headless browser with tools/site_check.R.
source(file.path("tools", "setup.R"))

args <- commandArgs(trailingOnly = TRUE)
out_dir <- option_value("--out", "docs")
use_installed <- "--installed" %in% args

install_missing(c("Rcpp", "RcppEigen", "knitr", "markdown", "rmarkdown", "pkgdown", "kernlab", "e1071"))
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
# Two repairs of what the templates of this pkgdown wrote:
# * pkgdown 2.0.7's Bootstrap 5 templates write an empty logo image,
#   <img src="" class="logo">, on every page but the home page when the
#   package has no logo; a browser shows it as a broken image. Removed.
# * Debian's pkgdown loads MathJax from the building machine
#   (file:///usr/share/javascript/mathjax/MathJax.js), which a visitor of the
#   site does not have. Pointed back to the CDN copy that upstream pkgdown's
#   template loads (the same version, which the integrity hash there pins).
local_mathjax <- "file:///usr/share/javascript/mathjax/MathJax.js"
cdn_mathjax <- "https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.5/MathJax.js"
for (page in list.files(out_dir, pattern = "\\.html$", recursive = TRUE, full.names = TRUE)) {
  html <- readLines(page, warn = FALSE, encoding = "UTF-8")
  repaired <- gsub('<img src="" class="logo" alt="">', "", html, fixed = TRUE)
  repaired <- gsub(local_mathjax, cdn_mathjax, repaired, fixed = TRUE)
  if (!identical(repaired, html)) writeLines(repaired, page, useBytes = TRUE)
}
message(sprintf("Site built in %.0f s (%.0f s in all) into %s", elapsed(start), elapsed(start_all),
                out_dir))
