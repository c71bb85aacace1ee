/* weft-template-dialog.h: New from Template: the composer's parameters
 * (strategies, degrees, model preset, hardware, options) with a live
 * preview of the composed step (a small timeline painted by weft-render,
 * step time, overlap %, exposed communication); Create hands the composed
 * trace, already loaded and solved, to the window as a new unsaved trace. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define WEFT_TYPE_TEMPLATE_DIALOG (weft_template_dialog_get_type ())
G_DECLARE_FINAL_TYPE (WeftTemplateDialog, weft_template_dialog, WEFT, TEMPLATE_DIALOG, GtkWindow)

/* Signal "created" (gpointer session, const char *name): Create was pressed;
 * the handler takes the WeftEditSession (the composed trace and its solver)
 * and shows it under name ("fsdp-llama3-8b-8ranks (new)"). When nobody
 * handles it the dialog frees the session. */
/* Signal "created-compared" (gpointer session_a, const char *name_a,
 * gpointer session_b, const char *name_b): Create after Keep as A; the
 * handler takes both sessions (A: the kept configuration) and shows them
 * compared. Without a handler, "created" gets B and A is freed. */
GtkWidget *weft_template_dialog_new (GtkWindow *parent);

G_END_DECLS
