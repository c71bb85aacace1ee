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
#include "weft/weft-load.h"

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
 * (0 = the loader's default) or env WEFT_MAX_JSON_BYTES; path "-" reads
 * standard input. NULL with the loader's error (file and byte offset) on
 * failure. */
WeftTrace *weft_cli_load_trace (const char *path, guint64 max_json_bytes, GError **error);
/* "-": standard input (cli-io.c). The whole of it, at most once per run
 * (a second call fails, naming what): FALSE where it is a terminal. */
GBytes    *weft_cli_read_stdin (const char *what, GError **error); /* (transfer full) */
/* A trace file piped on standard input (plain, gzip or zstd): one rank
 * named "(standard input)". weft_cli_load_trace() calls it for "-". */
WeftTrace *weft_cli_load_stdin (const WeftLoadOptions *options, GError **error);
/* Copies a (written) file's bytes to standard output. */
gboolean   weft_cli_copy_to_stdout (const char *path, GError **error);
/* "4096", "512M", "2G", "1GiB": bytes; FALSE for anything else (signs, 0, overflow). */
gboolean   weft_cli_parse_bytes (const char *text, guint64 *out);

/* --format of the commands that write traces (weft-cli.c): json, json.gz or
 * json.zst (also gz, zst, and each with a leading dot); NULL: json. *ext:
 * the file extension (".json", ...). FALSE for anything else. */
gboolean weft_cli_parse_format (const char *text, const char **ext);

/* ---- JSON output (cli-json.c; the schema: docs/cli.md, "JSON output") ---- */

/* Bumped when a field of any command's --json document is renamed, removed
 * or changes its meaning or unit (adding fields keeps it). */
#define WEFT_CLI_SCHEMA_VERSION 2

/* A new document: { "schema_version": WEFT_CLI_SCHEMA_VERSION, "weft_version": "x.y.z" }. */
json_object *weft_cli_json_new (void); /* (transfer full) */
/* Prints doc (pretty) and a newline to stdout, then frees it; FALSE when
 * writing failed. */
gboolean     weft_cli_json_print (json_object *doc);
/* The metrics object of analyze, edit and apply (base: as loaded, for the
 * *_delta fields; nullable). */
json_object *weft_cli_metrics_json (const WeftMetrics *m, const WeftMetrics *base); /* (transfer full) */

/* ---- progress on standard error (cli-progress.c) ---- */

/* --progress: also when standard error is not a terminal. */
extern gboolean weft_cli_progress_option;
void weft_cli_add_progress_option (GOptionContext *ctx);

typedef struct _WeftCliProgress WeftCliProgress;
/* The line for done of total (freed by the caller). */
typedef char *(*WeftCliDescribeFunc) (guint64 done, guint64 total);
/* NULL (report nothing) unless standard error is a terminal or --progress
 * was given; env WEFT_NO_PROGRESS turns it off on a terminal. */
WeftCliProgress *weft_cli_progress_new  (WeftCliDescribeFunc describe); /* (transfer full) (nullable) */
/* A WeftProgressFunc (thread-safe; user_data: the WeftCliProgress, may be
 * NULL): redraws the terminal line at most 10 times a second, or prints a
 * line per tenth of the work. */
void             weft_cli_progress_cb   (guint64 done, guint64 total, gpointer user_data);
/* Clears the terminal line. */
void             weft_cli_progress_free (WeftCliProgress *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftCliProgress, weft_cli_progress_free)

int weft_cmd_version (int argc, char **argv);
int weft_cmd_compose (int argc, char **argv);
/* compose --json: the prediction of the composed step (cmd-compose-json.c) */
int weft_cli_compose_print_json (const WeftComposeParams *params, WeftAcMode ac);
int weft_cmd_render (int argc, char **argv);
int weft_cmd_info (int argc, char **argv);
int weft_cmd_analyze (int argc, char **argv);
int weft_cmd_diff (int argc, char **argv);
int weft_cmd_convert (int argc, char **argv);
int weft_cmd_sample (int argc, char **argv);
int weft_cmd_edit (int argc, char **argv);
int weft_cmd_apply (int argc, char **argv);
