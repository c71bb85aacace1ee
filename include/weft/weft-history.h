/* weft-history.h: a UI-free undo/redo history of tagged actions.
 *
 * Modelled on GTK's gtk/gtktexthistory.c: a queue of actions split into an
 * undo stack and a redo stack; a new action clears the redo stack; actions
 * recorded between begin_group() and end_group() form ONE undo entry (a
 * finished gesture: a drag makes many intermediate updates, one entry); an
 * "applying" flag so that the changes made while undoing or redoing are not
 * recorded again; a change_state callback whenever can-undo, can-redo or the
 * modified state changes; a maximum depth.
 *
 * The history does not know what an action means. Its owner records an
 * action AFTER it has applied it (weft_history_push()), and the history calls
 * funcs->apply to undo or redo it. Every action carries a tag (the owner's
 * operation kind) and an opaque pointer owned by the history from then on. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _WeftHistory WeftHistory;

typedef struct
{
  /* Applies one action backward (undo = TRUE) or forward again (redo).
   * Returns FALSE with error set when the owner cannot; the history then
   * puts every action of that entry back as it was. Required. */
  gboolean (*apply)        (gpointer     user_data,
                            guint        tag,
                            gpointer     action,
                            gboolean     undo,
                            GError     **error);
  /* Optional. Inside an open group, a new action with the same tag as the
   * group's last one is offered here: return TRUE when prev now also covers
   * next (e.g. the previous drag position is replaced by the new one); the
   * history then frees next. */
  gboolean (*merge)        (gpointer     user_data,
                            guint        tag,
                            gpointer     prev,
                            gpointer     next);
  /* Optional. Frees an action (cleared redo entries, dropped entries, free). */
  void     (*free_action)  (gpointer     user_data,
                            guint        tag,
                            gpointer     action);
  /* Optional. Called for each action of the oldest undo entry just before it
   * falls off the bottom because of the maximum depth (it stays applied, it
   * just can no longer be undone), oldest first, then free_action. */
  void     (*dropped)      (gpointer     user_data,
                            guint        tag,
                            gpointer     action);
  /* Optional. Called whenever modified, can_undo or can_redo changes. */
  void     (*change_state) (gpointer     user_data,
                            gboolean     is_modified,
                            gboolean     can_undo,
                            gboolean     can_redo);
} WeftHistoryFuncs;

/* Visits actions oldest first; group members in the order they were done.
 * entry counts the undo entries (groups) visited so far, from 0, so the
 * caller can tell where one entry ends and the next begins. */
typedef void (*WeftHistoryForeachFunc) (guint entry, guint tag, gpointer action, gpointer user_data);

WeftHistory *weft_history_new              (const WeftHistoryFuncs *funcs,
                                            gpointer                user_data); /* (transfer full) */
void         weft_history_free             (WeftHistory            *self);

/* Records an action that the owner has just applied; takes ownership. The
 * redo stack is cleared. While applying (undo/redo in progress) or while
 * disabled, the action is freed and nothing is recorded. */
void         weft_history_push             (WeftHistory            *self,
                                            guint                   tag,
                                            gpointer                action);

/* Groups nest; the outermost end_group() closes the entry. An empty group
 * leaves no entry. */
void         weft_history_begin_group      (WeftHistory            *self);
void         weft_history_end_group        (WeftHistory            *self);
/* Undoes what was recorded in the open group (an aborted gesture) and
 * closes every nesting level; nothing is left on the undo stack for it. */
gboolean     weft_history_cancel_group     (WeftHistory            *self,
                                            GError                **error);
guint        weft_history_get_group_depth  (WeftHistory            *self);

/* Undo/redo one entry. FALSE with WEFT_ERROR_INVALID while a group is open
 * or when there is nothing to undo/redo, or with the owner's error when an
 * action cannot be applied (the history and the owner's state are then as
 * before the call). */
gboolean     weft_history_undo             (WeftHistory            *self,
                                            GError                **error);
gboolean     weft_history_redo             (WeftHistory            *self,
                                            GError                **error);

gboolean     weft_history_get_can_undo     (WeftHistory            *self);
gboolean     weft_history_get_can_redo     (WeftHistory            *self);
guint        weft_history_get_undo_depth   (WeftHistory            *self);
guint        weft_history_get_redo_depth   (WeftHistory            *self);
gboolean     weft_history_is_applying      (WeftHistory            *self);

/* 0 = unlimited (the default). Lowering it drops the oldest entries now. */
void         weft_history_set_max_depth    (WeftHistory            *self,
                                            guint                   max_depth);
guint        weft_history_get_max_depth    (WeftHistory            *self);

/* A disabled history records nothing (e.g. while loading). */
void         weft_history_set_enabled      (WeftHistory            *self,
                                            gboolean                enabled);
gboolean     weft_history_get_enabled      (WeftHistory            *self);

/* Modified = the state differs from the last one marked unmodified (the
 * saved state). set_modified (FALSE) marks the current state as saved. */
gboolean     weft_history_get_modified     (WeftHistory            *self);
void         weft_history_set_modified     (WeftHistory            *self,
                                            gboolean                modified);

/* Forgets every entry (an irreversible change); the current state stays. */
void         weft_history_clear            (WeftHistory            *self);

/* The actions of the undo stack (what is in effect) or of the redo stack
 * (what was undone, in the order redo would apply them), oldest first. */
void         weft_history_foreach_undo     (WeftHistory            *self,
                                            WeftHistoryForeachFunc  func,
                                            gpointer                user_data);
void         weft_history_foreach_redo     (WeftHistory            *self,
                                            WeftHistoryForeachFunc  func,
                                            gpointer                user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftHistory, weft_history_free)

G_END_DECLS
