/* cmd-convert.c: `weft-cli convert IN OUT`: re-writes a trace as .json,
 * .json.gz or .json.zst (the format from OUT's extension). IN is a file or a
 * folder; OUT is a file (single-rank trace) or a folder (one
 * rank<R>_trace<ext> per rank; refused when it holds other traces, see
 * weft_trace_save_dir), or "-" (standard output). --merge writes every rank
 * into one file for Perfetto (weft_trace_save_merged). Untouched events are
 * written byte-for-byte. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "weft/weft.h"

static const char *
source_ext (WeftTrace *trace)
{
  WeftFileFormat f = WEFT_FORMAT_JSON;
  if (trace->ranks->len > 0)
    weft_file_format_from_path (weft_trace_rank (trace, 0)->path, &f);
  return f == WEFT_FORMAT_JSON_GZ ? ".json.gz" : f == WEFT_FORMAT_JSON_ZST ? ".json.zst" : ".json";
}

int
weft_cmd_convert (int argc, char **argv)
{
  gint64 max_bytes = 0;
  g_autofree char *format = NULL;
  gboolean merge = FALSE;
  const char *ext = NULL;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format,
      "Format of the files written into a folder OUT, or to standard output: json, json.gz or json.zst "
      "(default: the input's; json for -)", "FORMAT" },
    { "merge", 'm', 0, G_OPTION_ARG_NONE, &merge,
      "Write every rank into ONE file for Perfetto: each rank a process \"rank N\", clocks aligned", NULL },
    { "max-json-bytes", 0, 0, G_OPTION_ARG_INT64, &max_bytes,
      "Cap on the decompressed JSON bytes per input file (default 16 GiB; env WEFT_MAX_JSON_BYTES)", "BYTES" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("IN OUT - re-write a trace as .json, .json.gz or .json.zst");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  const char *in, *out;
  WeftFileFormat out_format;
  gboolean out_is_file, to_stdout;

  g_option_context_add_main_entries (ctx, entries, NULL);
  weft_cli_add_progress_option (ctx);
  g_option_context_set_description (
    ctx, "IN is a trace file or a folder of rank files. OUT is a file whose name ends in .json,\n"
         ".json.gz or .json.zst (for a single-rank trace, or any trace with --merge), a folder\n"
         "that receives rank<R>_trace<ext> per rank (refused when it holds other traces), or -\n"
         "for standard output (one rank, or --merge). Files are written atomically (a folder's\n"
         "rank files as one set); untouched events byte-for-byte.\n\n"
         "--merge: one file for Perfetto; rank N is process N named \"rank N\", each of its\n"
         "lanes a named thread, flow ids kept apart per rank, times aligned with the trace's\n"
         "clock offsets from one baseTimeNanoseconds.\n\n"
         "Exit status: 0 success, 1 failure writing, 2 bad input (the message names the file\n"
         "and byte offset) or bad usage.");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return weft_cli_fail ("convert: %s", error->message);
  if (argc != 3)
    return weft_cli_fail ("convert: expected IN and OUT (see weft-cli convert --help)");
  if (max_bytes < 0)
    return weft_cli_fail ("convert: --max-json-bytes must be positive");
  if (format != NULL && !weft_cli_parse_format (format, &ext))
    return weft_cli_fail ("convert: unknown --format '%s' (json, json.gz or json.zst)", format);
  in = argv[1];
  out = argv[2];
  to_stdout = strcmp (out, "-") == 0;

  if (to_stdout)
    {
      if (!weft_file_format_from_path (ext != NULL ? ext : ".json", &out_format))
        out_format = WEFT_FORMAT_JSON;
      if (isatty (STDOUT_FILENO) && out_format != WEFT_FORMAT_JSON)
        return weft_cli_fail ("convert: standard output is a terminal: not writing compressed data there");
      trace = weft_cli_load_trace (in, (guint64) max_bytes, &error);
      if (trace == NULL)
        return weft_cli_fail ("%s", error->message);
      if (!merge && trace->ranks->len != 1)
        return weft_cli_fail ("convert: %s has %u ranks: standard output takes one file; add --merge to write "
                              "them as one merged trace, or give a folder as OUT",
                              in, trace->ranks->len);
      if (merge ? !weft_trace_write_merged_fd (trace, STDOUT_FILENO, out_format, &error)
                : !weft_rank_write_fd (weft_trace_rank (trace, 0), STDOUT_FILENO, out_format, NULL, &error))
        {
          fprintf (stderr, "weft-cli: %s\n", error->message);
          return WEFT_EXIT_FAILURE;
        }
      if (fflush (stdout) != 0)
        return WEFT_EXIT_FAILURE;
      return WEFT_EXIT_OK;
    }

  out_is_file = !g_file_test (out, G_FILE_TEST_IS_DIR) && weft_file_format_from_path (out, &out_format);
  if (!out_is_file && !g_file_test (out, G_FILE_TEST_IS_DIR) && !g_str_has_suffix (out, "/"))
    {
      /* A new OUT with an unknown extension is a mistake, not a folder. */
      g_autofree char *base = g_path_get_basename (out);
      if (strchr (base, '.') != NULL)
        return weft_cli_fail ("convert: %s: unknown output format (end the name in .json, .json.gz or .json.zst; "
                              "for a new folder whose name has a dot, end it with /)",
                              out);
    }
  if (out_is_file && ext != NULL)
    return weft_cli_fail ("convert: --format is for a folder OUT; %s already names its format", out);
  if (merge && !out_is_file)
    return weft_cli_fail ("convert: --merge writes one file: end OUT in .json, .json.gz or .json.zst, or give -");

  trace = weft_cli_load_trace (in, (guint64) max_bytes, &error);
  if (trace == NULL)
    return weft_cli_fail ("%s", error->message);

  if (out_is_file && !merge && trace->ranks->len != 1)
    return weft_cli_fail ("convert: %s has %u ranks: give a folder as OUT to write one file per rank, or --merge "
                          "for one merged file",
                          in, trace->ranks->len);

  if (!out_is_file && ext == NULL)
    ext = source_ext (trace);
  if (!out_is_file && !weft_file_format_from_path (ext, &out_format))
    out_format = WEFT_FORMAT_JSON;
  if (merge ? !weft_trace_save_merged (trace, out, &error)
      : out_is_file ? !weft_trace_save (trace, out, NULL, &error)
                    : !weft_trace_save_dir (trace, out, out_format, NULL, &error))
    {
      fprintf (stderr, "weft-cli: %s\n", error->message);
      return g_error_matches (error, WEFT_ERROR, WEFT_ERROR_INVALID) ? WEFT_EXIT_BAD_INPUT : WEFT_EXIT_FAILURE;
    }
  return WEFT_EXIT_OK;
}
