/* weft-template-dialog.h: New from Template: the composer's parameters with
 * a live preview of step time and overlap; Create composes the step and
 * emits "created" (folder) for the window to open. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define WEFT_TYPE_TEMPLATE_DIALOG (weft_template_dialog_get_type ())
G_DECLARE_FINAL_TYPE (WeftTemplateDialog, weft_template_dialog, WEFT, TEMPLATE_DIALOG, GtkWindow)

GtkWidget *weft_template_dialog_new (GtkWindow *parent);

G_END_DECLS
