/* test-history.c: table-driven tests of WeftHistory, in the shape of GTK's
 * testsuite/gtk/texthistory.c: each row is a command and the state expected
 * after it (the owner's "document", can-undo, can-redo, modified, depths).
 *
 * The owner here is a tiny document: a text buffer (INSERT appends text) and
 * an integer value (DRAG sets it; drags merge inside a group, as a mouse drag
 * does in the editor). Its apply function also tries to record an action,
 * which the history must ignore while applying. */
#include "config.h"

#include <string.h>

#include "weft/weft-history.h"
#include "weft/weft-types.h"

enum
{
  TAG_INSERT = 1,
  TAG_SET,
};

typedef struct
{
  char *text;
} InsertAction;

typedef struct
{
  int from;
  int to;
} SetAction;

typedef struct
{
  WeftHistory *history;
  GString     *buffer;
  int          value;
  char        *fail_on;       /* applying the INSERT of this text fails */
  guint        n_live;        /* actions not yet freed */
  guint        n_changes;     /* change_state calls */
  gboolean     last_modified;
  gboolean     last_can_undo;
  gboolean     last_can_redo;
  GString     *dropped;       /* texts of dropped inserts */
} Doc;

static gboolean
doc_apply (gpointer user_data, guint tag, gpointer action, gboolean undo, GError **error)
{
  Doc *doc = user_data;

  /* Changes made while applying must not be recorded: try to. */
  {
    InsertAction *echo = g_new0 (InsertAction, 1);
    echo->text = g_strdup ("echo");
    doc->n_live++;
    weft_history_push (doc->history, TAG_INSERT, echo);
  }

  if (tag == TAG_INSERT)
    {
      InsertAction *a = action;
      gsize len = strlen (a->text);
      if (doc->fail_on != NULL && strcmp (doc->fail_on, a->text) == 0)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_CYCLE, "cannot apply %s", a->text);
          return FALSE;
        }
      if (undo)
        {
          g_assert_cmpuint (doc->buffer->len, >=, len);
          g_assert_cmpstr (doc->buffer->str + doc->buffer->len - len, ==, a->text);
          g_string_truncate (doc->buffer, doc->buffer->len - len);
        }
      else
        g_string_append (doc->buffer, a->text);
      return TRUE;
    }
  else if (tag == TAG_SET)
    {
      SetAction *a = action;
      g_assert_cmpint (doc->value, ==, undo ? a->to : a->from);
      doc->value = undo ? a->from : a->to;
      return TRUE;
    }
  g_assert_not_reached ();
  return FALSE;
}

static gboolean
doc_merge (gpointer user_data, guint tag, gpointer prev, gpointer next)
{
  if (tag == TAG_SET)
    {
      SetAction *p = prev, *n = next;
      g_assert_cmpint (p->to, ==, n->from);
      p->to = n->to;
      return TRUE;
    }
  return FALSE;
}

static void
doc_free_action (gpointer user_data, guint tag, gpointer action)
{
  Doc *doc = user_data;

  g_assert_cmpuint (doc->n_live, >, 0);
  doc->n_live--;
  if (tag == TAG_INSERT)
    g_free (((InsertAction *) action)->text);
  g_free (action);
}

static void
doc_dropped (gpointer user_data, guint tag, gpointer action)
{
  Doc *doc = user_data;
  if (tag == TAG_INSERT)
    g_string_append_printf (doc->dropped, "[%s]", ((InsertAction *) action)->text);
}

static void
doc_change_state (gpointer user_data, gboolean is_modified, gboolean can_undo, gboolean can_redo)
{
  Doc *doc = user_data;
  doc->n_changes++;
  doc->last_modified = is_modified;
  doc->last_can_undo = can_undo;
  doc->last_can_redo = can_redo;
}

static const WeftHistoryFuncs doc_funcs = {
  .apply = doc_apply,
  .merge = doc_merge,
  .free_action = doc_free_action,
  .dropped = doc_dropped,
  .change_state = doc_change_state,
};

/* ---- commands ------------------------------------------------------------------ */

typedef enum
{
  INSERT,        /* append s, record it */
  DRAG,          /* set value to i, record it */
  UNDO,
  REDO,
  BEGIN,
  END,
  CANCEL,
  MAX_DEPTH,     /* set max depth to i */
  SAVED,         /* set_modified (FALSE) */
  MODIFIED,      /* set_modified (TRUE) */
  CLEAR,
  FAIL_ON,       /* applying the insert of s fails from now on (NULL: none) */
  DISABLE,
  ENABLE,
} Cmd;

enum { NO = 0, YES = 1 };

typedef struct
{
  Cmd         cmd;
  const char *s;
  int         i;
  gboolean    ok;         /* expected result of UNDO/REDO/CANCEL */
  const char *text;       /* expected buffer */
  int         value;      /* expected value */
  gboolean    can_undo;
  gboolean    can_redo;
  gboolean    modified;
  guint       undo_depth;
  guint       redo_depth;
} Row;

static void
run_table (const Row *rows, guint n_rows, const char *expect_dropped)
{
  Doc doc = { 0 };

  doc.buffer = g_string_new (NULL);
  doc.dropped = g_string_new (NULL);
  doc.history = weft_history_new (&doc_funcs, &doc);

  for (guint r = 0; r < n_rows; r++)
    {
      const Row *row = &rows[r];
      g_autoptr (GError) error = NULL;
      gboolean ok = TRUE;

      g_test_message ("row %u", r);
      switch (row->cmd)
        {
        case INSERT:
          {
            InsertAction *a = g_new0 (InsertAction, 1);
            a->text = g_strdup (row->s);
            g_string_append (doc.buffer, row->s);
            doc.n_live++;
            weft_history_push (doc.history, TAG_INSERT, a);
          }
          break;
        case DRAG:
          {
            SetAction *a = g_new0 (SetAction, 1);
            a->from = doc.value;
            a->to = row->i;
            doc.value = row->i;
            doc.n_live++;
            weft_history_push (doc.history, TAG_SET, a);
          }
          break;
        case UNDO:
          ok = weft_history_undo (doc.history, &error);
          break;
        case REDO:
          ok = weft_history_redo (doc.history, &error);
          break;
        case BEGIN:
          weft_history_begin_group (doc.history);
          break;
        case END:
          weft_history_end_group (doc.history);
          break;
        case CANCEL:
          ok = weft_history_cancel_group (doc.history, &error);
          break;
        case MAX_DEPTH:
          weft_history_set_max_depth (doc.history, (guint) row->i);
          break;
        case SAVED:
          weft_history_set_modified (doc.history, FALSE);
          break;
        case MODIFIED:
          weft_history_set_modified (doc.history, TRUE);
          break;
        case CLEAR:
          weft_history_clear (doc.history);
          break;
        case FAIL_ON:
          g_free (doc.fail_on);
          doc.fail_on = g_strdup (row->s);
          break;
        case DISABLE:
          weft_history_set_enabled (doc.history, FALSE);
          break;
        case ENABLE:
          weft_history_set_enabled (doc.history, TRUE);
          break;
        default:
          g_assert_not_reached ();
        }

      if (row->cmd == UNDO || row->cmd == REDO || row->cmd == CANCEL)
        {
          g_assert_cmpint (ok, ==, row->ok);
          if (!ok)
            g_assert_nonnull (error);
          else
            g_assert_no_error (error);
        }
      g_assert_cmpstr (doc.buffer->str, ==, row->text);
      g_assert_cmpint (doc.value, ==, row->value);
      g_assert_cmpint (weft_history_get_can_undo (doc.history), ==, row->can_undo);
      g_assert_cmpint (weft_history_get_can_redo (doc.history), ==, row->can_redo);
      g_assert_cmpint (weft_history_get_modified (doc.history), ==, row->modified);
      g_assert_cmpuint (weft_history_get_undo_depth (doc.history), ==, row->undo_depth);
      g_assert_cmpuint (weft_history_get_redo_depth (doc.history), ==, row->redo_depth);
      g_assert_false (weft_history_is_applying (doc.history));
      /* the callback saw every change of state */
      if (doc.n_changes > 0)
        {
          g_assert_cmpint (doc.last_modified, ==, row->modified);
          g_assert_cmpint (doc.last_can_undo, ==, row->can_undo);
          g_assert_cmpint (doc.last_can_redo, ==, row->can_redo);
        }
      else
        g_assert_true (!row->modified && !row->can_undo && !row->can_redo);
    }

  g_assert_cmpstr (doc.dropped->str, ==, expect_dropped ? expect_dropped : "");
  weft_history_free (doc.history);
  g_assert_cmpuint (doc.n_live, ==, 0); /* every action freed exactly once */
  g_string_free (doc.buffer, TRUE);
  g_string_free (doc.dropped, TRUE);
  g_free (doc.fail_on);
}

#define RUN(rows, dropped) run_table (rows, G_N_ELEMENTS (rows), dropped)

/*  cmd        s      i  ok   text     val undo redo mod  ud rd */

static void
test_basic (void)
{
  static const Row rows[] = {
    { INSERT,   "a",    0, YES, "a",      0, YES, NO,  YES, 1, 0 },
    { INSERT,   "b",    0, YES, "ab",     0, YES, NO,  YES, 2, 0 },
    { UNDO,     NULL,   0, YES, "a",      0, YES, YES, YES, 1, 1 },
    { UNDO,     NULL,   0, YES, "",       0, NO,  YES, NO,  0, 2 },
    { UNDO,     NULL,   0, NO,  "",       0, NO,  YES, NO,  0, 2 },  /* nothing to undo */
    { REDO,     NULL,   0, YES, "a",      0, YES, YES, YES, 1, 1 },
    { REDO,     NULL,   0, YES, "ab",     0, YES, NO,  YES, 2, 0 },
    { REDO,     NULL,   0, NO,  "ab",     0, YES, NO,  YES, 2, 0 },  /* nothing to redo */
    { UNDO,     NULL,   0, YES, "a",      0, YES, YES, YES, 1, 1 },
    { INSERT,   "c",    0, YES, "ac",     0, YES, NO,  YES, 2, 0 },  /* new action clears redo */
    { REDO,     NULL,   0, NO,  "ac",     0, YES, NO,  YES, 2, 0 },
    { UNDO,     NULL,   0, YES, "a",      0, YES, YES, YES, 1, 1 },
    { UNDO,     NULL,   0, YES, "",       0, NO,  YES, NO,  0, 2 },
  };
  RUN (rows, NULL);
}

static void
test_group (void)
{
  static const Row rows[] = {
    { INSERT,   "a",    0, YES, "a",      0, YES, NO,  YES, 1, 0 },
    { BEGIN,    NULL,   0, YES, "a",      0, NO,  NO,  YES, 1, 0 },  /* no undo mid-gesture */
    { INSERT,   "b",    0, YES, "ab",     0, NO,  NO,  YES, 2, 0 },
    { UNDO,     NULL,   0, NO,  "ab",     0, NO,  NO,  YES, 2, 0 },  /* refused in a group */
    { BEGIN,    NULL,   0, YES, "ab",     0, NO,  NO,  YES, 2, 0 },  /* nested */
    { INSERT,   "c",    0, YES, "abc",    0, NO,  NO,  YES, 2, 0 },
    { END,      NULL,   0, YES, "abc",    0, NO,  NO,  YES, 2, 0 },
    { INSERT,   "d",    0, YES, "abcd",   0, NO,  NO,  YES, 2, 0 },
    { END,      NULL,   0, YES, "abcd",   0, YES, NO,  YES, 2, 0 },
    { UNDO,     NULL,   0, YES, "a",      0, YES, YES, YES, 1, 1 },  /* whole gesture at once */
    { REDO,     NULL,   0, YES, "abcd",   0, YES, NO,  YES, 2, 0 },
    { UNDO,     NULL,   0, YES, "a",      0, YES, YES, YES, 1, 1 },
    { BEGIN,    NULL,   0, YES, "a",      0, NO,  NO,  YES, 1, 1 },
    { END,      NULL,   0, YES, "a",      0, YES, YES, YES, 1, 1 },  /* empty group: no entry, redo kept */
    { UNDO,     NULL,   0, YES, "",       0, NO,  YES, NO,  0, 2 },
    { REDO,     NULL,   0, YES, "a",      0, YES, YES, YES, 1, 1 },
    { BEGIN,    NULL,   0, YES, "a",      0, NO,  NO,  YES, 1, 1 },
    { INSERT,   "x",    0, YES, "ax",     0, NO,  NO,  YES, 2, 0 },  /* first record clears redo */
    { END,      NULL,   0, YES, "ax",     0, YES, NO,  YES, 2, 0 },
  };
  RUN (rows, NULL);
}

static void
test_drag (void)
{
  /* a drag: many intermediate positions, one entry with the first "from"
   * and the last "to" */
  static const Row rows[] = {
    { BEGIN,    NULL,   0, YES, "",       0, NO,  NO,  NO,  0, 0 },
    { DRAG,     NULL,  10, YES, "",      10, NO,  NO,  YES, 1, 0 },
    { DRAG,     NULL,  20, YES, "",      20, NO,  NO,  YES, 1, 0 },
    { DRAG,     NULL,  35, YES, "",      35, NO,  NO,  YES, 1, 0 },
    { END,      NULL,   0, YES, "",      35, YES, NO,  YES, 1, 0 },
    { DRAG,     NULL,  50, YES, "",      50, YES, NO,  YES, 2, 0 },  /* outside a group: no merging */
    { DRAG,     NULL,  60, YES, "",      60, YES, NO,  YES, 3, 0 },
    { UNDO,     NULL,   0, YES, "",      50, YES, YES, YES, 2, 1 },
    { UNDO,     NULL,   0, YES, "",      35, YES, YES, YES, 1, 2 },
    { UNDO,     NULL,   0, YES, "",       0, NO,  YES, NO,  0, 3 },
    { REDO,     NULL,   0, YES, "",      35, YES, YES, YES, 1, 2 },
    { BEGIN,    NULL,   0, YES, "",      35, NO,  NO,  YES, 1, 2 },
    { INSERT,   "k",    0, YES, "k",     35, NO,  NO,  YES, 2, 0 },  /* mixed tags do not merge */
    { DRAG,     NULL,   5, YES, "k",      5, NO,  NO,  YES, 2, 0 },
    { DRAG,     NULL,   7, YES, "k",      7, NO,  NO,  YES, 2, 0 },
    { END,      NULL,   0, YES, "k",      7, YES, NO,  YES, 2, 0 },
    { UNDO,     NULL,   0, YES, "",      35, YES, YES, YES, 1, 1 },
  };
  RUN (rows, NULL);
}

static void
test_cancel (void)
{
  /* Escape during a drag: the gesture is undone and leaves no entry */
  static const Row rows[] = {
    { INSERT,   "a",    0, YES, "a",      0, YES, NO,  YES, 1, 0 },
    { BEGIN,    NULL,   0, YES, "a",      0, NO,  NO,  YES, 1, 0 },
    { DRAG,     NULL,   4, YES, "a",      4, NO,  NO,  YES, 2, 0 },
    { INSERT,   "b",    0, YES, "ab",     4, NO,  NO,  YES, 2, 0 },
    { DRAG,     NULL,   9, YES, "ab",     9, NO,  NO,  YES, 2, 0 },
    { CANCEL,   NULL,   0, YES, "a",      0, YES, NO,  YES, 1, 0 },
    { CANCEL,   NULL,   0, YES, "a",      0, YES, NO,  YES, 1, 0 },  /* no group: no-op */
    { BEGIN,    NULL,   0, YES, "a",      0, NO,  NO,  YES, 1, 0 },
    { CANCEL,   NULL,   0, YES, "a",      0, YES, NO,  YES, 1, 0 },  /* empty gesture */
    { UNDO,     NULL,   0, YES, "",       0, NO,  YES, NO,  0, 1 },
  };
  RUN (rows, NULL);
}

static void
test_modified (void)
{
  static const Row rows[] = {
    { INSERT,   "a",    0, YES, "a",      0, YES, NO,  YES, 1, 0 },
    { SAVED,    NULL,   0, YES, "a",      0, YES, NO,  NO,  1, 0 },
    { INSERT,   "b",    0, YES, "ab",     0, YES, NO,  YES, 2, 0 },
    { UNDO,     NULL,   0, YES, "a",      0, YES, YES, NO,  1, 1 },  /* back at the saved state */
    { UNDO,     NULL,   0, YES, "",       0, NO,  YES, YES, 0, 2 },
    { REDO,     NULL,   0, YES, "a",      0, YES, YES, NO,  1, 1 },
    { REDO,     NULL,   0, YES, "ab",     0, YES, NO,  YES, 2, 0 },
    { SAVED,    NULL,   0, YES, "ab",     0, YES, NO,  NO,  2, 0 },
    { UNDO,     NULL,   0, YES, "a",      0, YES, YES, YES, 1, 1 },
    { INSERT,   "c",    0, YES, "ac",     0, YES, NO,  YES, 2, 0 },  /* the saved state is gone for good */
    { UNDO,     NULL,   0, YES, "a",      0, YES, YES, YES, 1, 1 },
    { UNDO,     NULL,   0, YES, "",       0, NO,  YES, YES, 0, 2 },
    { MODIFIED, NULL,   0, YES, "",       0, NO,  YES, YES, 0, 2 },
    { SAVED,    NULL,   0, YES, "",       0, NO,  YES, NO,  0, 2 },
    { MODIFIED, NULL,   0, YES, "",       0, NO,  YES, YES, 0, 2 },
  };
  RUN (rows, NULL);
}

static void
test_max_depth (void)
{
  static const Row rows[] = {
    { MAX_DEPTH, NULL,  2, YES, "",       0, NO,  NO,  NO,  0, 0 },
    { INSERT,   "a",    0, YES, "a",      0, YES, NO,  YES, 1, 0 },
    { INSERT,   "b",    0, YES, "ab",     0, YES, NO,  YES, 2, 0 },
    { INSERT,   "c",    0, YES, "abc",    0, YES, NO,  YES, 2, 0 },  /* "a" falls off */
    { UNDO,     NULL,   0, YES, "ab",     0, YES, YES, YES, 1, 1 },
    { UNDO,     NULL,   0, YES, "a",      0, NO,  YES, YES, 0, 2 },  /* "a" stays: still modified */
    { UNDO,     NULL,   0, NO,  "a",      0, NO,  YES, YES, 0, 2 },
    { REDO,     NULL,   0, YES, "ab",     0, YES, YES, YES, 1, 1 },
    { REDO,     NULL,   0, YES, "abc",    0, YES, NO,  YES, 2, 0 },
    { BEGIN,    NULL,   0, YES, "abc",    0, NO,  NO,  YES, 2, 0 },
    { INSERT,   "d",    0, YES, "abcd",   0, NO,  NO,  YES, 2, 0 },  /* "b" falls off */
    { INSERT,   "e",    0, YES, "abcde",  0, NO,  NO,  YES, 2, 0 },
    { END,      NULL,   0, YES, "abcde",  0, YES, NO,  YES, 2, 0 },
    { MAX_DEPTH, NULL,  1, YES, "abcde",  0, YES, NO,  YES, 1, 0 },  /* "c" falls off */
    { UNDO,     NULL,   0, YES, "abc",    0, NO,  YES, YES, 0, 1 },
    { SAVED,    NULL,   0, YES, "abc",    0, NO,  YES, NO,  0, 1 },
    { REDO,     NULL,   0, YES, "abcde",  0, YES, NO,  YES, 1, 0 },
    { UNDO,     NULL,   0, YES, "abc",    0, NO,  YES, NO,  0, 1 },
    { MAX_DEPTH, NULL,  0, YES, "abc",    0, NO,  YES, NO,  0, 1 },
  };
  RUN (rows, "[a][b][c]");
}

static void
test_failure (void)
{
  /* An action the owner refuses to apply leaves everything as it was, also
   * for a group half of which had been applied already. */
  static const Row rows[] = {
    { INSERT,   "a",    0, YES, "a",      0, YES, NO,  YES, 1, 0 },
    { BEGIN,    NULL,   0, YES, "a",      0, NO,  NO,  YES, 1, 0 },
    { INSERT,   "b",    0, YES, "ab",     0, NO,  NO,  YES, 2, 0 },
    { INSERT,   "c",    0, YES, "abc",    0, NO,  NO,  YES, 2, 0 },
    { INSERT,   "d",    0, YES, "abcd",   0, NO,  NO,  YES, 2, 0 },
    { END,      NULL,   0, YES, "abcd",   0, YES, NO,  YES, 2, 0 },
    { FAIL_ON,  "b",    0, YES, "abcd",   0, YES, NO,  YES, 2, 0 },
    { UNDO,     NULL,   0, NO,  "abcd",   0, YES, NO,  YES, 2, 0 },  /* d, c undone, b fails: rolled back */
    { FAIL_ON,  NULL,   0, YES, "abcd",   0, YES, NO,  YES, 2, 0 },
    { UNDO,     NULL,   0, YES, "a",      0, YES, YES, YES, 1, 1 },
    { FAIL_ON,  "c",    0, YES, "a",      0, YES, YES, YES, 1, 1 },
    { REDO,     NULL,   0, NO,  "a",      0, YES, YES, YES, 1, 1 },  /* b done, c fails: rolled back */
    { FAIL_ON,  NULL,   0, YES, "a",      0, YES, YES, YES, 1, 1 },
    { REDO,     NULL,   0, YES, "abcd",   0, YES, NO,  YES, 2, 0 },
  };
  RUN (rows, NULL);
}

static void
test_clear_disable (void)
{
  static const Row rows[] = {
    { INSERT,   "a",    0, YES, "a",      0, YES, NO,  YES, 1, 0 },
    { INSERT,   "b",    0, YES, "ab",     0, YES, NO,  YES, 2, 0 },
    { UNDO,     NULL,   0, YES, "a",      0, YES, YES, YES, 1, 1 },
    { CLEAR,    NULL,   0, YES, "a",      0, NO,  NO,  YES, 0, 0 },  /* still differs from saved */
    { SAVED,    NULL,   0, YES, "a",      0, NO,  NO,  NO,  0, 0 },
    { DISABLE,  NULL,   0, YES, "a",      0, NO,  NO,  NO,  0, 0 },
    { INSERT,   "z",    0, YES, "az",     0, NO,  NO,  NO,  0, 0 },  /* not recorded */
    { ENABLE,   NULL,   0, YES, "az",     0, NO,  NO,  NO,  0, 0 },
    { INSERT,   "y",    0, YES, "azy",    0, YES, NO,  YES, 1, 0 },
    { UNDO,     NULL,   0, YES, "az",     0, NO,  YES, NO,  0, 1 },
  };
  RUN (rows, NULL);
}

static void
collect (guint entry, guint tag, gpointer action, gpointer user_data)
{
  GString *s = user_data;
  g_string_append_printf (s, "%u:", entry);
  if (tag == TAG_INSERT)
    g_string_append (s, ((InsertAction *) action)->text);
  else
    g_string_append_printf (s, "=%d", ((SetAction *) action)->to);
}

static void
test_foreach (void)
{
  Doc doc = { 0 };
  g_autoptr (GString) undo = g_string_new (NULL);
  g_autoptr (GString) redo = g_string_new (NULL);
  const char *texts[] = { "a", "b", "c", "d" };

  doc.buffer = g_string_new (NULL);
  doc.dropped = g_string_new (NULL);
  doc.history = weft_history_new (&doc_funcs, &doc);
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      InsertAction *a = g_new0 (InsertAction, 1);
      if (i == 1)
        weft_history_begin_group (doc.history);
      a->text = g_strdup (texts[i]);
      g_string_append (doc.buffer, texts[i]);
      doc.n_live++;
      weft_history_push (doc.history, TAG_INSERT, a);
      if (i == 2)
        weft_history_end_group (doc.history);
    }
  /* entries: [a] [b c] [d]; undo two entries -> redo holds [b c] [d] */
  g_assert_true (weft_history_undo (doc.history, NULL));
  g_assert_true (weft_history_undo (doc.history, NULL));
  g_assert_cmpstr (doc.buffer->str, ==, "a");
  weft_history_foreach_undo (doc.history, collect, undo);
  weft_history_foreach_redo (doc.history, collect, redo);
  g_assert_cmpstr (undo->str, ==, "0:a");
  g_assert_cmpstr (redo->str, ==, "0:b0:c1:d");   /* in the order redo applies them, by entry */
  weft_history_free (doc.history);
  g_assert_cmpuint (doc.n_live, ==, 0);
  g_string_free (doc.buffer, TRUE);
  g_string_free (doc.dropped, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/history/basic", test_basic);
  g_test_add_func ("/history/group", test_group);
  g_test_add_func ("/history/drag-merge", test_drag);
  g_test_add_func ("/history/cancel-group", test_cancel);
  g_test_add_func ("/history/modified", test_modified);
  g_test_add_func ("/history/max-depth", test_max_depth);
  g_test_add_func ("/history/failure-rollback", test_failure);
  g_test_add_func ("/history/clear-disable", test_clear_disable);
  g_test_add_func ("/history/foreach", test_foreach);
  return g_test_run ();
}
