/* weft-app-util.h: small helpers shared by the window's widgets. */
#pragma once

#include <glib.h>
#include <gtk/gtk.h>

#include "weft/weft-compose.h"

G_BEGIN_DECLS

/* "812 ns", "12.345 µs", "3.200 ms", "1.250 s" (signed). */
char *weft_format_duration (gint64 ns);
/* "+1.2 ms" / "−0.4 ms" / "±0". */
char *weft_format_delta (gint64 ns);
/* "512 B", "1.5 KiB", "24.0 MiB". */
char *weft_format_bytes (gint64 bytes);

/* Renders the shown window or dialog NATIVE into a PNG at PATH (written next to
 * it, then renamed: a reader never sees half a PNG).  WHAT names it in the error
 * when it is not shown yet ("The <what> is not shown yet"). */
gboolean weft_native_save_png (GtkNative  *native,
                               const char *what,
                               const char *path,
                               GError    **error);

/* The side panels' body: a vertically scrolling window, set as PARENT's only
 * child, holding a vertical box (spacing 6, margins 12), returned in *BOX. */
GtkWidget *weft_scrolled_column_new (GtkWidget  *parent,
                                     GtkWidget **box);

/* When TRACE was composed by Weft: its parameters, from the "weft"
 * top-level key the composer writes (also in a saved and reopened
 * composed file). FALSE otherwise. */
gboolean weft_trace_get_compose_params (WeftTrace         *trace,
                                        WeftComposeParams *params);
G_END_DECLS
