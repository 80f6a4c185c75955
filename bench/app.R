# Benchmark: how long krein_app() takes to redraw after a change of input,
# at n = 200 and n = 1000 training points (as many test points). The targets
# (issue 27): at most 1 s at n = 200 and 2 s at n = 1000 on 2 cores.
# Run from the checkout's root after installing krein:  Rscript bench/app.R
#
# Two measurements of each change:
#   * server: shiny::testServer() sets the input and reads the outputs a
#     browser shows on the first tab (errors, signature, code, the decision
#     regions drawn to PNG): the refit, the kernel spectrum (recomputed only
#     when the data or the kernel change) and the drawing, without the
#     browser;
#   * browser (needs shinytest2, chromote and Chromium): shinytest2 sets the
#     input in headless Chromium and waits until the page has received the
#     redrawn outputs: what a student sees, websocket and image included.
#     Its "own" part is that time less the time the page saw Shiny busy (from
#     its first shiny:busy to its last shiny:idle event: the server's
#     work): the browser, the websocket and shinytest2's polling, a figure
#     that depends little on the load, as the server's work is most of it.
# Each change is made `repeats` times, alternating two values, and the table
# gives the median and the fastest (the least disturbed on a shared machine)
# of the elapsed times, and for the server the median CPU time of the R
# process (user + system, all its threads: what the redraw costs whatever
# the load), with the load average before and after the run.
library(krein)
stopifnot(requireNamespace("shiny", quietly = TRUE))
repeats <- 5L
sizes <- c(200L, 1000L)

# the changes: input values (alternated) from the start settings
start <- list(source = "banana", n = 200, noise_banana = 0.5, seed = 1, kernel = "rbf", kernel_rbf_gamma = "",
              invariant = FALSE, model = "kqd", model_kqd_variant = "RC+", model_kqd_reg = "0.01")
changes <- list(
  "model parameter (kqd reg 0.01 / 0.1)" = list(list(model_kqd_reg = "0.1"), list(model_kqd_reg = "0.01")),
  "kernel width (gamma 1 / 2)" = list(list(kernel_rbf_gamma = "1"), list(kernel_rbf_gamma = "2")),
  "data (seed 2 / 1)" = list(list(seed = 2), list(seed = 1)),
  "kqd's default reg (CV over its path) / 0.01" = list(list(model_kqd_reg = ""), list(model_kqd_reg = "0.01")),
  "model (ikfd / kqd)" = list(list(model = "ikfd"), list(model = "kqd")),
  "landmarks (ikfd, MEB eps 0.1 / none)" = list(list(landmarks = "meb", eps = "0.1"), list(landmarks = "none"))
)

server_times <- function(n) {
  times <- list()
  shiny::testServer(krein:::app_server(), {
    do.call(session$setInputs, utils::modifyList(start, list(n = n)))
    invisible(output$regions)
    for (change in names(changes)) {
      if (startsWith(change, "landmarks")) session$setInputs(model = "ikfd")
      invisible(output$regions)
      elapsed <- vapply(seq_len(repeats), function(r) {
        started <- proc.time()
        do.call(session$setInputs, changes[[change]][[(r - 1L) %% 2L + 1L]])
        invisible(c(output$message, output$results, output$signature, output$code, output$regions))
        used <- proc.time() - started
        c(used[["elapsed"]], used[["user.self"]] + used[["sys.self"]])
      }, numeric(2))
      if (!is.null(problem())) stop(change, ": ", problem())
      times[[change]] <<- elapsed
      # back to the start
      do.call(session$setInputs, utils::modifyList(start, list(n = n)))
      invisible(output$regions)
    }
  })
  times
}

browser_times <- function(n) {
  if (!requireNamespace("shinytest2", quietly = TRUE)) return(NULL)
  # AppDriver skips itself outside tests unless told it is not on CRAN
  Sys.setenv(NOT_CRAN = "true")
  if (!nzchar(Sys.getenv("CHROMOTE_CHROME")) && file.exists("/usr/bin/chromium")) {
    Sys.setenv(CHROMOTE_CHROME = "/usr/bin/chromium")
  }
  dir <- tempfile("krein-app-bench-")
  dir.create(dir)
  writeLines(c("library(krein)", "krein:::app_object()"), file.path(dir, "app.R"))
  app <- shinytest2::AppDriver$new(dir, width = 1300, height = 950, load_timeout = 180000, timeout = 120000)
  on.exit(app$stop())
  reset <- function() {
    do.call(app$set_inputs, c(utils::modifyList(start, list(n = n)), list(wait_ = FALSE)))
    app$wait_for_idle(duration = 1000, timeout = 120000)
  }
  reset()
  # the page's own clock: when Shiny went busy (the server started), idle
  # (the server finished) and the last output arrived
  app$run_js(paste(
    "window.kreinEvents = [];",
    "['shiny:busy', 'shiny:idle', 'shiny:value'].forEach(function (type) {",
    "  $(document).on(type, function () { window.kreinEvents.push([type, performance.now()]); });",
    "});"))
  times <- list()
  for (change in names(changes)) {
    if (startsWith(change, "landmarks")) app$set_inputs(model = "ikfd")
    times[[change]] <- vapply(seq_len(repeats), function(r) {
      app$run_js("window.kreinEvents = [];")
      started <- proc.time()[["elapsed"]]
      # waits until the page has received the redrawn outputs (every redraw
      # changes them: the fit time is among them)
      do.call(app$set_inputs, c(changes[[change]][[(r - 1L) %% 2L + 1L]], list(timeout_ = 120000)))
      elapsed <- proc.time()[["elapsed"]] - started
      events <- jsonlite::fromJSON(app$get_js("JSON.stringify(window.kreinEvents)"))
      at <- function(type, pick) pick(as.numeric(events[events[, 1] == type, 2]))
      server <- (at("shiny:idle", max) - at("shiny:busy", min)) / 1000
      c(elapsed, elapsed - server)
    }, numeric(2))
    reset()
  }
  times
}

cat(sprintf("load average before the run: %s\n", paste(readLines("/proc/loadavg", warn = FALSE), collapse = " ")))
rows <- list()
for (n in sizes) {
  server <- server_times(n)
  browser <- tryCatch(browser_times(n), error = function(e) {
    message("browser timing skipped: ", conditionMessage(e))
    NULL
  })
  for (change in names(changes)) {
    rows[[length(rows) + 1L]] <- data.frame(
      n = n, change = change,
      server_median = stats::median(server[[change]][1, ]), server_best = min(server[[change]][1, ]),
      server_cpu = stats::median(server[[change]][2, ]),
      browser_median = if (is.null(browser)) NA else stats::median(browser[[change]][1, ]),
      browser_best = if (is.null(browser)) NA else min(browser[[change]][1, ]),
      browser_own = if (is.null(browser)) NA else stats::median(browser[[change]][2, ]))
  }
}
table <- do.call(rbind, rows)
cat("\n| n | change | server median (s) | server best (s) | server CPU median (s) | browser median (s) | browser best (s) | browser's own median (s) |\n")
cat("|---|---|---|---|---|---|---|---|\n")
for (i in seq_len(nrow(table))) {
  with(table[i, ], cat(sprintf("| %d | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", n, change, server_median,
                               server_best, server_cpu, browser_median, browser_best, browser_own)))
}
cat(sprintf("\nload average after the run: %s\n", paste(readLines("/proc/loadavg", warn = FALSE), collapse = " ")))
