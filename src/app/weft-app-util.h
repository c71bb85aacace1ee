/* weft-app-util.h: small helpers shared by the window's widgets. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* "812 ns", "12.345 µs", "3.200 ms", "1.250 s" (signed). */
char *weft_format_duration (gint64 ns);
/* "+1.2 ms" / "−0.4 ms" / "±0". */
char *weft_format_delta (gint64 ns);
/* "512 B", "1.5 KiB", "24.0 MiB". */
char *weft_format_bytes (gint64 bytes);

G_END_DECLS
