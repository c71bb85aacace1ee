/* cmd-convert.c: `weft-cli convert IN OUT`: re-writes a trace as .json,
 * .json.gz or .json.zst (the format from OUT's extension). IN is a file or a
 * folder; OUT is a file (single-rank trace) or a folder (one
 * rank<R>_trace<ext> per rank). Untouched events are written byte-for-byte. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "weft/weft.h"

/* A folder OUT must not keep other trace files next to the ones written:
 * loading the folder later would mix them in (duplicate ranks, stale
 * ranks). Files this convert overwrites are fine. */
static gboolean
check_out_folder (WeftTrace *trace, const char *out, const char *ext, GError **error)
{
  g_autoptr (GHashTable) ours = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GDir *dir = g_dir_open (out, 0, NULL);
  const char *name;
  gboolean ok = TRUE;

  if (dir == NULL)
    return TRUE; /* created by the save */
  for (guint i = 0; i < trace->ranks->len; i++)
    {
      WeftRank *rank = weft_trace_rank (trace, i);
      g_hash_table_add (ours, g_strdup_printf ("rank%d_trace%s", rank->rank >= 0 ? rank->rank : (int) i, ext));
    }
  while (ok && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (out, name, NULL);
      if (weft_file_format_from_path (name, NULL) && g_file_test (child, G_FILE_TEST_IS_REGULAR) &&
          !g_hash_table_contains (ours, name))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                       "%s: the folder already holds %s, which this convert would not replace; loading the folder "
                       "later would mix the two (write into an empty folder)",
                       out, name);
          ok = FALSE;
        }
    }
  g_dir_close (dir);
  return ok;
}

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
  const char *ext = NULL;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format,
      "Format of the files written into a folder OUT: json, json.gz or json.zst (default: the input's)", "FORMAT" },
    { "max-json-bytes", 0, 0, G_OPTION_ARG_INT64, &max_bytes,
      "Cap on the decompressed JSON bytes per input file (default 16 GiB; env WEFT_MAX_JSON_BYTES)", "BYTES" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("IN OUT - re-write a trace as .json, .json.gz or .json.zst");
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftTrace) trace = NULL;
  const char *in, *out;
  WeftFileFormat out_format;
  gboolean out_is_file;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (
    ctx, "IN is a trace file or a folder of rank files. OUT is a file whose name ends in .json,\n"
         ".json.gz or .json.zst (for a single-rank trace), or a folder that receives\n"
         "rank<R>_trace<ext> per rank. Files are written atomically; untouched events byte-for-byte.\n\n"
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

  trace = weft_cli_load_trace (in, (guint64) max_bytes, &error);
  if (trace == NULL)
    return weft_cli_fail ("%s", error->message);

  if (out_is_file && trace->ranks->len != 1)
    return weft_cli_fail ("convert: %s has %u ranks: give a folder as OUT to write one file per rank", in,
                          trace->ranks->len);

  if (!out_is_file)
    {
      if (ext == NULL)
        ext = source_ext (trace);
      if (!check_out_folder (trace, out, ext, &error))
        return weft_cli_fail ("%s", error->message);
    }
  if (out_is_file ? !weft_trace_save (trace, out, NULL, &error) : !weft_trace_save_dir (trace, out, ext, NULL, &error))
    {
      fprintf (stderr, "weft-cli: %s\n", error->message);
      return g_error_matches (error, WEFT_ERROR, WEFT_ERROR_INVALID) ? WEFT_EXIT_BAD_INPUT : WEFT_EXIT_FAILURE;
    }
  return WEFT_EXIT_OK;
}
