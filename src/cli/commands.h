/* commands.h: weft-cli subcommands. Each lives in its own cmd-<name>.c and
 * is listed in the table in weft-cli.c.
 *
 * Exit codes (documented in --help and docs/cli.md):
 *   0  success
 *   1  the operation failed for another reason (I/O while writing, ...)
 *   2  bad input (unreadable or malformed trace, bad script) or bad usage */
#pragma once

#include <glib.h>

#include "weft/weft-model.h"
#include "weft/weft-compose.h"
#include "weft/weft-solver.h"

#define WEFT_EXIT_OK 0
#define WEFT_EXIT_FAILURE 1
#define WEFT_EXIT_BAD_INPUT 2

typedef int (*WeftCommandFunc) (int argc, char **argv);

typedef struct
{
  const char     *name;
  const char     *summary;
  WeftCommandFunc func;
} WeftCommand;

/* Prints "weft-cli: <message>" to stderr and returns WEFT_EXIT_BAD_INPUT. */
int weft_cli_fail (const char *format, ...) G_GNUC_PRINTF (1, 2);

/* Loads a trace for a command (cmd-info.c): options from --max-json-bytes
 * (0 = the loader's default) or env WEFT_MAX_JSON_BYTES. NULL with the
 * loader's error (file and byte offset) on failure. */
WeftTrace *weft_cli_load_trace (const char *path, guint64 max_json_bytes, GError **error);
/* "4096", "512M", "2G", "1GiB": bytes; FALSE for anything else (signs, 0, overflow). */
gboolean   weft_cli_parse_bytes (const char *text, guint64 *out);

/* --format of the commands that write traces (weft-cli.c): json, json.gz or
 * json.zst (also gz, zst, and each with a leading dot); NULL: json. *ext:
 * the file extension (".json", ...). FALSE for anything else. */
gboolean weft_cli_parse_format (const char *text, const char **ext);

int weft_cmd_version (int argc, char **argv);
int weft_cmd_compose (int argc, char **argv);
/* compose --json: the prediction of the composed step (cmd-compose-json.c) */
int weft_cli_compose_print_json (const WeftComposeParams *params, WeftAcMode ac);
int weft_cmd_render (int argc, char **argv);
int weft_cmd_info (int argc, char **argv);
int weft_cmd_analyze (int argc, char **argv);
/* analyze's fields of a WeftMetrics (its `whole` and per-rank objects), with
 * the *_delta_* fields against base when base is not NULL (cmd-analyze.c);
 * also diff's `a` and `b` (transfer full) */
json_object *weft_cli_metrics_json (const WeftMetrics *m, const WeftMetrics *base);
int weft_cmd_diff (int argc, char **argv);
int weft_cmd_convert (int argc, char **argv);
int weft_cmd_sample (int argc, char **argv);
int weft_cmd_edit (int argc, char **argv);
int weft_cmd_apply (int argc, char **argv);
