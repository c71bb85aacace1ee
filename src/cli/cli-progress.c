/* cli-progress.c: progress of long work on standard error, only where
 * standard error is a terminal (one line redrawn in place) or with
 * --progress (then one line per tenth of the work, for logs): scripts that
 * capture standard error see nothing new. */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "commands.h"

gboolean weft_cli_progress_option;

struct _WeftCliProgress
{
  GMutex              lock;
  WeftCliDescribeFunc describe;
  gboolean            tty;
  gboolean            drawn;    /* a line is on the terminal */
  gint64              last_us;  /* last redraw */
  int                 last_tenth;
};

void
weft_cli_add_progress_option (GOptionContext *ctx)
{
  GOptionEntry entries[] = {
    { "progress", 0, 0, G_OPTION_ARG_NONE, &weft_cli_progress_option,
      "Print progress on standard error even when it is not a terminal (on a terminal it always is)", NULL },
    { NULL }
  };
  g_option_context_add_main_entries (ctx, entries, NULL);
}

WeftCliProgress *
weft_cli_progress_new (WeftCliDescribeFunc describe)
{
  gboolean tty = isatty (STDERR_FILENO) && g_getenv ("WEFT_NO_PROGRESS") == NULL;
  WeftCliProgress *self;

  if (!tty && !weft_cli_progress_option)
    return NULL;
  self = g_new0 (WeftCliProgress, 1);
  g_mutex_init (&self->lock);
  self->describe = describe;
  self->tty = tty;
  self->last_tenth = -1;
  return self;
}

void
weft_cli_progress_cb (guint64 done, guint64 total, gpointer user_data)
{
  WeftCliProgress *self = user_data;
  g_autofree char *text = NULL;
  gint64 now = g_get_monotonic_time ();
  int tenth = total > 0 ? (int) MIN (done * 10 / total, 10) : 0;

  if (self == NULL)
    return;
  g_mutex_lock (&self->lock);
  if (self->tty ? (self->drawn && now - self->last_us < 100000 && done < total)
                : tenth == self->last_tenth)
    {
      g_mutex_unlock (&self->lock);
      return;
    }
  text = self->describe (done, total);
  if (self->tty)
    fprintf (stderr, "\r\033[K%s", text);
  else
    fprintf (stderr, "%s\n", text);
  fflush (stderr);
  self->drawn = TRUE;
  self->last_us = now;
  self->last_tenth = tenth;
  g_mutex_unlock (&self->lock);
}

void
weft_cli_progress_free (WeftCliProgress *self)
{
  if (self == NULL)
    return;
  if (self->tty && self->drawn)
    {
      fprintf (stderr, "\r\033[K");
      fflush (stderr);
    }
  g_mutex_clear (&self->lock);
  g_free (self);
}
