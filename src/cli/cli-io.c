/* cli-io.c: "-" for standard input and output (docs/cli.md, "Standard
 * input and output"): a trace or an edit script read from standard input,
 * a file's bytes copied to standard output. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "weft/weft.h"

#define STDIN_NAME "(standard input)"

static gboolean stdin_used;

GBytes *
weft_cli_read_stdin (const char *what, GError **error)
{
  GByteArray *buf;
  char chunk[65536];

  if (stdin_used)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "%s: standard input was already read for another argument: give at most one -", what);
      return NULL;
    }
  stdin_used = TRUE;
  if (isatty (STDIN_FILENO))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "%s: - reads standard input, which is a terminal: pipe or redirect a file into it", what);
      return NULL;
    }
  buf = g_byte_array_new ();
  for (;;)
    {
      ssize_t n = read (STDIN_FILENO, chunk, sizeof chunk);
      if (n == 0)
        break;
      if (n < 0)
        {
          int saved = errno;
          if (saved == EINTR)
            continue;
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot read standard input: %s", what,
                       g_strerror (saved));
          g_byte_array_unref (buf);
          return NULL;
        }
      g_byte_array_append (buf, (const guint8 *) chunk, (guint) n);
    }
  return g_byte_array_free_to_bytes (buf);
}

WeftTrace *
weft_cli_load_stdin (const WeftLoadOptions *options, GError **error)
{
  g_autoptr (GBytes) data = weft_cli_read_stdin (STDIN_NAME, error);
  gsize len;
  const void *p;

  if (data == NULL)
    return NULL;
  p = g_bytes_get_data (data, &len);
  if (len == 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_FORMAT, "%s: empty: no trace was piped in", STDIN_NAME);
      return NULL;
    }
  return weft_trace_load_memory (STDIN_NAME, p, len, options, error);
}

gboolean
weft_cli_copy_to_stdout (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize len, done = 0;

  if (!g_file_get_contents (path, &data, &len, error))
    return FALSE;
  while (done < len)
    {
      ssize_t n = write (STDOUT_FILENO, data + done, len - done);
      if (n < 0)
        {
          int saved = errno;
          if (saved == EINTR)
            continue;
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "standard output: cannot write: %s", g_strerror (saved));
          return FALSE;
        }
      done += (gsize) n;
    }
  return TRUE;
}
