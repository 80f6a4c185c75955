# predict() on data in chunks: the predictions chunk by chunk (one chunk in
# memory at a time), in chunk order, or written chunk by chunk (`output`).

#' Predictions for a chunk source, chunk by chunk (one chunk in memory at a
#' time), in chunk order; or, with `output`, written chunk by chunk
#' (chunk_output())
#' @noRd
predict_chunks <- function(object, chunks, type, extra, output = NULL) {
  write <- chunk_output(output)
  spec <- object$spec
  parts <- map_chunks_sequential(chunks, function(data, task) {
    new <- new_inputs(spec, data)
    predictions <- outcome_predictions(object, model_predictions(object, new, type, extra), type)
    if (is.null(write)) predictions else write(predictions, task$index)
  })
  if (!is.null(write)) {
    if (is.function(output)) return(invisible(NULL))
    return(vapply(parts, function(file) as.vector(file), ""))
  }
  if (type == "class" || is.factor(parts[[1L]])) {
    out <- unlist(lapply(parts, as.character), use.names = FALSE)
    return(factor(out, levels = object$outcome_levels %||% object$levels))
  }
  out <- do.call(rbind, lapply(parts, function(p) { attr(p, "rows") <- NULL; p }))
  rownames(out) <- NULL
  out
}

# predict(output = ): NULL, a file name pattern with one integer field (one
# CSV per chunk; the writer returns the file name) or a function(predictions,
# chunk) (the writer returns NA: map_chunks() marks each result with its rows).
chunk_output <- function(output) {
  if (is.null(output)) return(NULL)
  if (is.function(output)) {
    if (length(formals(output)) < 2L && !"..." %in% names(formals(output))) {
      krein_abort("`output` as a function must take two arguments, the predictions of a chunk and its number.")
    }
    return(function(predictions, index) {
      with_chunk_errors(output(predictions, index), sprintf("`output` failed on the predictions of chunk %d", index))
      NA_character_
    })
  }
  fields <- if (is.character(output) && length(output) == 1L && !is.na(output)) {
    regmatches(output, gregexpr("%[-+ 0#]*[0-9]*[a-zA-Z%]", output))[[1L]]
  }
  if (is.null(fields) || sum(fields != "%%") != 1L || !any(grepl("^%[-+ 0#]*[0-9]*d$", fields))) {
    krein_abort(sprintf("`output` must be NULL, a function(predictions, chunk) or a file name pattern with one integer field such as \"pred-%%03d.csv\", not %s.",
                        describe_value(output)))
  }
  folder <- dirname(sprintf(output, 1L))
  if (!dir.exists(folder)) {
    krein_abort(sprintf("`output` writes into the folder `%s`, which does not exist; create it first.", folder))
  }
  function(predictions, index) {
    file <- sprintf(output, index)
    table <- if (is.factor(predictions)) data.frame(class = as.character(predictions)) else
      as.data.frame(predictions, optional = TRUE)
    with_chunk_errors(
      if (requireNamespace("data.table", quietly = TRUE)) data.table::fwrite(table, file) else
        utils::write.csv(table, file, row.names = FALSE),
      sprintf("Writing the predictions of chunk %d to `%s` (`output`) failed", index, file))
    file
  }
}
