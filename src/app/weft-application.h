/* weft-application.h: the Weft GtkApplication. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define WEFT_APPLICATION_ID "org.weft.Weft"
#define WEFT_TYPE_APPLICATION (weft_application_get_type ())
G_DECLARE_FINAL_TYPE (WeftApplication, weft_application, WEFT, APPLICATION, GtkApplication)

WeftApplication *weft_application_new (void);

/* Whether the UI should be dark (system preference or theme name). */
gboolean         weft_application_get_dark (WeftApplication *self);

/* Monotonic time (µs) at process start, for the launch-to-first-frame figure. */
void             weft_app_mark_start (void);
gint64           weft_app_start_time (void);

G_END_DECLS
