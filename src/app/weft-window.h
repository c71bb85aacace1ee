/* weft-window.h: a Weft window: one trace (or the empty "Open a trace"
 * page), loaded in the background. */
#pragma once

#include <gtk/gtk.h>

#include "weft-application.h"
#include "weft/weft-edit.h"

G_BEGIN_DECLS

#define WEFT_TYPE_WINDOW (weft_window_get_type ())
G_DECLARE_FINAL_TYPE (WeftWindow, weft_window, WEFT, WINDOW, GtkApplicationWindow)

WeftWindow *weft_window_new        (WeftApplication *app);
/* Opens a file or a folder in the background. */
void        weft_window_open       (WeftWindow      *self,
                                    GFile           *file);
/* Opens several files as the ranks of one trace. */
void        weft_window_open_files (WeftWindow      *self,
                                    GFile          **files,
                                    guint            n_files);
/* Shows an in-memory trace (e.g. New from Template) as a new, unsaved
 * document: takes the session (trace + solver); Save asks where. */
void        weft_window_open_session (WeftWindow      *self,
                                      WeftEditSession *session,
                                      const char      *display_name);
/* Opens a as the document, then b, and shows them compared (a above b). */
void        weft_window_open_compare (WeftWindow *self,
                                      GFile      *a,
                                      GFile      *b);
/* The document's edit session (trace + solver), NULL when none. */
WeftEditSession *weft_window_get_session (WeftWindow *self);
/* No trace shown and none loading. */
gboolean    weft_window_is_empty   (WeftWindow      *self);
/* Writes a PNG of the whole window as it is on screen. */
gboolean    weft_window_save_screenshot (WeftWindow  *self,
                                         const char  *path,
                                         GError     **error);

G_END_DECLS
