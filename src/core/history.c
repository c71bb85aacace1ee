/* history.c: undo/redo of tagged actions, modelled on gtk/gtktexthistory.c.
 *
 * Every undo entry is a list of actions (one for a plain push, several for a
 * group). The undo stack is a GQueue with the newest entry at the tail, the
 * redo stack one with the next entry to redo at the head. Entries carry a
 * serial so that "modified" is a comparison of the current state's serial
 * with the serial marked as saved. */
#include "config.h"

#include "weft/weft-history.h"
#include "weft/weft-types.h"

typedef struct
{
  guint    tag;
  gpointer data;
} Action;

typedef struct
{
  guint64 serial;
  GArray *actions;   /* Action, in the order they were done */
} Entry;

#define SERIAL_NEVER G_MAXUINT64

struct _WeftHistory
{
  WeftHistoryFuncs funcs;
  gpointer         user_data;

  GQueue   undo;          /* Entry*, oldest at head */
  GQueue   redo;          /* Entry*, next to redo at head */
  Entry   *open_entry;    /* tail of undo while a group records, else NULL */
  guint    group_depth;
  guint    max_depth;
  guint64  next_serial;
  guint64  base_serial;   /* state below the oldest undo entry */
  guint64  saved_serial;

  guint    applying : 1;
  guint    enabled : 1;
  guint    last_modified : 1;
  guint    last_can_undo : 1;
  guint    last_can_redo : 1;
};

/* ---- helpers ------------------------------------------------------------------ */

static void
entry_free (WeftHistory *self, Entry *entry)
{
  if (entry == NULL)
    return;
  for (guint i = 0; i < entry->actions->len; i++)
    {
      Action *a = &g_array_index (entry->actions, Action, i);
      if (self->funcs.free_action != NULL)
        self->funcs.free_action (self->user_data, a->tag, a->data);
    }
  g_array_free (entry->actions, TRUE);
  g_free (entry);
}

static Entry *
entry_new (WeftHistory *self)
{
  Entry *entry = g_new0 (Entry, 1);
  entry->serial = ++self->next_serial;
  entry->actions = g_array_new (FALSE, FALSE, sizeof (Action));
  return entry;
}

static guint64
current_serial (WeftHistory *self)
{
  Entry *top = g_queue_peek_tail (&self->undo);
  return top != NULL ? top->serial : self->base_serial;
}

static void
update_state (WeftHistory *self)
{
  gboolean modified = current_serial (self) != self->saved_serial;
  gboolean can_undo = self->group_depth == 0 && !g_queue_is_empty (&self->undo);
  gboolean can_redo = self->group_depth == 0 && !g_queue_is_empty (&self->redo);

  if (modified == (gboolean) self->last_modified && can_undo == (gboolean) self->last_can_undo &&
      can_redo == (gboolean) self->last_can_redo)
    return;
  self->last_modified = modified;
  self->last_can_undo = can_undo;
  self->last_can_redo = can_redo;
  if (self->funcs.change_state != NULL)
    self->funcs.change_state (self->user_data, modified, can_undo, can_redo);
}

static void
clear_redo (WeftHistory *self)
{
  Entry *entry;
  while ((entry = g_queue_pop_head (&self->redo)) != NULL)
    entry_free (self, entry);
}

static void
enforce_max_depth (WeftHistory *self)
{
  if (self->max_depth == 0)
    return;
  while (g_queue_get_length (&self->undo) > self->max_depth)
    {
      Entry *oldest = g_queue_peek_head (&self->undo);
      if (oldest == self->open_entry)
        break;
      g_queue_pop_head (&self->undo);
      if (self->funcs.dropped != NULL)
        for (guint i = 0; i < oldest->actions->len; i++)
          {
            Action *a = &g_array_index (oldest->actions, Action, i);
            self->funcs.dropped (self->user_data, a->tag, a->data);
          }
      self->base_serial = oldest->serial;
      entry_free (self, oldest);
    }
}

/* Applies every action of entry in the given direction (undo: newest first).
 * On failure, re-applies in the other direction what was already done, so
 * the owner's state is as before, and returns FALSE. */
static gboolean
entry_apply (WeftHistory *self, Entry *entry, gboolean undo, GError **error)
{
  guint n = entry->actions->len;
  gboolean ok = TRUE;
  guint done = 0;

  self->applying = TRUE;
  for (done = 0; done < n; done++)
    {
      guint i = undo ? n - 1 - done : done;
      Action *a = &g_array_index (entry->actions, Action, i);
      if (!self->funcs.apply (self->user_data, a->tag, a->data, undo, error))
        {
          ok = FALSE;
          break;
        }
    }
  if (!ok)
    {
      /* roll back the ones already applied, in reverse */
      while (done > 0)
        {
          guint i;
          Action *a;
          g_autoptr (GError) rollback_error = NULL;

          done--;
          i = undo ? n - 1 - done : done;
          a = &g_array_index (entry->actions, Action, i);
          if (!self->funcs.apply (self->user_data, a->tag, a->data, !undo, &rollback_error))
            g_warning ("history: rolling back a failed %s: %s", undo ? "undo" : "redo",
                       rollback_error->message);
        }
    }
  self->applying = FALSE;
  return ok;
}

/* ---- public API ------------------------------------------------------------- */

WeftHistory *
weft_history_new (const WeftHistoryFuncs *funcs, gpointer user_data)
{
  WeftHistory *self;

  g_return_val_if_fail (funcs != NULL, NULL);
  g_return_val_if_fail (funcs->apply != NULL, NULL);

  self = g_new0 (WeftHistory, 1);
  self->funcs = *funcs;
  self->user_data = user_data;
  g_queue_init (&self->undo);
  g_queue_init (&self->redo);
  self->enabled = TRUE;
  self->base_serial = 0;
  self->saved_serial = 0;
  return self;
}

void
weft_history_free (WeftHistory *self)
{
  Entry *entry;

  if (self == NULL)
    return;
  while ((entry = g_queue_pop_head (&self->undo)) != NULL)
    entry_free (self, entry);
  clear_redo (self);
  g_free (self);
}

void
weft_history_push (WeftHistory *self, guint tag, gpointer action)
{
  Action a = { tag, action };

  g_return_if_fail (self != NULL);

  if (self->applying || !self->enabled)
    {
      if (self->funcs.free_action != NULL)
        self->funcs.free_action (self->user_data, tag, action);
      return;
    }

  clear_redo (self);

  if (self->group_depth > 0)
    {
      if (self->open_entry == NULL)
        {
          self->open_entry = entry_new (self);
          g_queue_push_tail (&self->undo, self->open_entry);
        }
      else if (self->open_entry->actions->len > 0 && self->funcs.merge != NULL)
        {
          Action *last = &g_array_index (self->open_entry->actions, Action,
                                         self->open_entry->actions->len - 1);
          if (last->tag == tag && self->funcs.merge (self->user_data, tag, last->data, action))
            {
              if (self->funcs.free_action != NULL)
                self->funcs.free_action (self->user_data, tag, action);
              update_state (self);
              return;
            }
        }
      g_array_append_val (self->open_entry->actions, a);
    }
  else
    {
      Entry *entry = entry_new (self);
      g_array_append_val (entry->actions, a);
      g_queue_push_tail (&self->undo, entry);
    }

  enforce_max_depth (self);
  update_state (self);
}

void
weft_history_begin_group (WeftHistory *self)
{
  g_return_if_fail (self != NULL);
  self->group_depth++;
  update_state (self);
}

void
weft_history_end_group (WeftHistory *self)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->group_depth > 0);

  self->group_depth--;
  if (self->group_depth == 0)
    {
      self->open_entry = NULL;
      enforce_max_depth (self);
    }
  update_state (self);
}

gboolean
weft_history_cancel_group (WeftHistory *self, GError **error)
{
  Entry *entry;
  gboolean ok = TRUE;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->group_depth == 0)
    return TRUE;
  entry = self->open_entry;
  self->open_entry = NULL;
  self->group_depth = 0;
  if (entry != NULL)
    {
      if (entry_apply (self, entry, TRUE, error))
        {
          g_queue_remove (&self->undo, entry);
          entry_free (self, entry);
        }
      else
        ok = FALSE; /* keep it as a normal closed entry: the state still has it */
    }
  enforce_max_depth (self);
  update_state (self);
  return ok;
}

guint
weft_history_get_group_depth (WeftHistory *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->group_depth;
}

gboolean
weft_history_undo (WeftHistory *self, GError **error)
{
  Entry *entry;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->group_depth > 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "cannot undo while a gesture is in progress");
      return FALSE;
    }
  entry = g_queue_peek_tail (&self->undo);
  if (entry == NULL)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "nothing to undo");
      return FALSE;
    }
  if (!entry_apply (self, entry, TRUE, error))
    return FALSE;
  g_queue_pop_tail (&self->undo);
  g_queue_push_head (&self->redo, entry);
  update_state (self);
  return TRUE;
}

gboolean
weft_history_redo (WeftHistory *self, GError **error)
{
  Entry *entry;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->group_depth > 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "cannot redo while a gesture is in progress");
      return FALSE;
    }
  entry = g_queue_peek_head (&self->redo);
  if (entry == NULL)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "nothing to redo");
      return FALSE;
    }
  if (!entry_apply (self, entry, FALSE, error))
    return FALSE;
  g_queue_pop_head (&self->redo);
  g_queue_push_tail (&self->undo, entry);
  update_state (self);
  return TRUE;
}

gboolean
weft_history_get_can_undo (WeftHistory *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->group_depth == 0 && !g_queue_is_empty (&self->undo);
}

gboolean
weft_history_get_can_redo (WeftHistory *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->group_depth == 0 && !g_queue_is_empty (&self->redo);
}

guint
weft_history_get_undo_depth (WeftHistory *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return g_queue_get_length (&self->undo);
}

guint
weft_history_get_redo_depth (WeftHistory *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return g_queue_get_length (&self->redo);
}

gboolean
weft_history_is_applying (WeftHistory *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->applying;
}

void
weft_history_set_max_depth (WeftHistory *self, guint max_depth)
{
  g_return_if_fail (self != NULL);
  self->max_depth = max_depth;
  enforce_max_depth (self);
  update_state (self);
}

guint
weft_history_get_max_depth (WeftHistory *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->max_depth;
}

void
weft_history_set_enabled (WeftHistory *self, gboolean enabled)
{
  g_return_if_fail (self != NULL);
  self->enabled = !!enabled;
}

gboolean
weft_history_get_enabled (WeftHistory *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->enabled;
}

gboolean
weft_history_get_modified (WeftHistory *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return current_serial (self) != self->saved_serial;
}

void
weft_history_set_modified (WeftHistory *self, gboolean modified)
{
  g_return_if_fail (self != NULL);
  self->saved_serial = modified ? SERIAL_NEVER : current_serial (self);
  update_state (self);
}

void
weft_history_clear (WeftHistory *self)
{
  Entry *entry;
  guint64 cur;

  g_return_if_fail (self != NULL);
  cur = current_serial (self);
  while ((entry = g_queue_pop_head (&self->undo)) != NULL)
    entry_free (self, entry);
  clear_redo (self);
  self->open_entry = NULL;
  self->base_serial = cur;
  update_state (self);
}

static void
foreach_queue (GList *link, WeftHistoryForeachFunc func, gpointer user_data)
{
  for (guint n = 0; link != NULL; link = link->next, n++)
    {
      Entry *entry = link->data;
      for (guint i = 0; i < entry->actions->len; i++)
        {
          Action *a = &g_array_index (entry->actions, Action, i);
          func (n, a->tag, a->data, user_data);
        }
    }
}

void
weft_history_foreach_undo (WeftHistory *self, WeftHistoryForeachFunc func, gpointer user_data)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (func != NULL);
  foreach_queue (self->undo.head, func, user_data);
}

void
weft_history_foreach_redo (WeftHistory *self, WeftHistoryForeachFunc func, gpointer user_data)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (func != NULL);
  foreach_queue (self->redo.head, func, user_data);
}
