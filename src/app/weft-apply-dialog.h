/* weft-apply-dialog.h: Apply a parallelism strategy to the open trace
 * (weft-apply.h): strategy, degree and options, the collectives it will
 * insert (with their cost-model times), the blocks found in the trace; Apply
 * inserts them as one undo entry. A one-rank profile is replicated to
 * `degree` ranks first and opened as a new trace ("created"). */
#pragma once

#include <gtk/gtk.h>

#include "weft/weft-edit.h"

G_BEGIN_DECLS

#define WEFT_TYPE_APPLY_DIALOG (weft_apply_dialog_get_type ())
G_DECLARE_FINAL_TYPE (WeftApplyDialog, weft_apply_dialog, WEFT, APPLY_DIALOG, GtkWindow)

/* session: the window's (borrowed; the dialog is modal). Signal "created"
 * (gpointer session, const char *name): a one-rank profile was replicated
 * and the strategy applied to the copy; the handler takes the session. */
GtkWidget *weft_apply_dialog_new (GtkWindow       *parent,
                                  WeftEditSession *session);

G_END_DECLS
