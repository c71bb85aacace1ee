/* test-edit-save.c: saving an edited session and reloading it with the real
 * loader, the recovery file, the history's log past its maximum depth, and
 * edits of the real 8-rank DLRM job (edit-fixture.h: the 2-rank trace). */

#include <glib/gstdio.h>
#include <string.h>
#include <time.h>
#include <utime.h>

#include "edit-fixture.h"
#include "testutil.h"
#include "weft/weft.h"
#include "weft/weft-edit.h"
#include "weft/weft-solver.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (json_object, json_object_put)

/* ---- saving --------------------------------------------------------------------------------- */

static char *
read_text (const char *path)
{
  char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  return text;
}

/* Every "ts" / "dur" value of a saved file as Kineto writes it: integer us,
 * or "<us>.<3 digits>" (three_decimals: only the latter). Returns the count. */
static guint
check_kineto_times (const char *path, const char *text, gboolean three_decimals)
{
  static const char *keys[] = { "\"ts\":", "\"dur\":" };
  guint n = 0;

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    for (const char *p = strstr (text, keys[k]); p != NULL; p = strstr (p + 1, keys[k]))
      {
        const char *v = p + strlen (keys[k]), *q;
        guint digits = 0, decimals = 0;
        gboolean dot = FALSE;
        while (*v == ' ')
          v++;
        q = v;
        if (*q == '-')
          q++;
        for (; g_ascii_isdigit (*q) || *q == '.'; q++)
          {
            if (*q == '.')
              {
                if (dot)
                  break;
                dot = TRUE;
              }
            else if (dot)
              decimals++;
            else
              digits++;
          }
        if (digits == 0 || (dot && decimals != 3) || (three_decimals && !dot) || (*q != ',' && *q != '}' && *q != ' ' && *q != '\n'))
          g_error ("%s: %s written as %.*s, not Kineto's text", path, keys[k], (int) MIN (strlen (v), 24), v);
        n++;
      }
  return n;
}

static void
test_save_reload (void)
{
  g_autofree char *dir = write_trace ("save-in");
  g_autofree char *out = g_build_filename (weft_test_tmpdir (), "save-out", NULL);
  g_autoptr (WeftEditSession) s = open_session (dir);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) edited = NULL;
  g_autoptr (WeftEditSession) s2 = NULL;
  g_autoptr (GArray) reloaded = NULL;
  g_autofree char *rank0 = NULL;
  g_autofree char *text = NULL;
  guint n_ts = 0;

  g_assert_true (weft_edit_session_move_to_stream (s, find_op (s, 0, N_AR), 20, -1, TRUE, &error));
  g_assert_true (weft_edit_session_set_duration (s, find_op (s, 1, N_G1), 90123, &error));
  g_assert_no_error (error);
  edited = snapshot (s);
  g_assert_true (weft_edit_session_is_modified (s));
  if (!weft_edit_session_save (s, out, ".json", &error))
    g_error ("%s", error->message);
  g_assert_false (weft_edit_session_is_modified (s));

  /* the "weft" key lists the edits */
  rank0 = g_build_filename (out, "rank0_trace.json", NULL);
  text = read_text (rank0);
  {
    g_autoptr (json_object) root = json_tokener_parse (text);
    json_object *weft, *edits;
    g_assert_nonnull (root);
    g_assert_true (json_object_object_get_ex (root, "weft", &weft));
    g_assert_true (json_object_object_get_ex (weft, "edits", &edits));
    g_assert_cmpuint (json_object_array_length (edits), ==, 1 + 1); /* the stream moves (together), 1 duration */
    g_assert_cmpstr (json_object_get_string (json_object_object_get (json_object_array_get_idx (edits, 0), "op")), ==,
                     "move_to_position");
  }
  /* every ts and dur in Kineto's text style: "<us>.<3 digits>" */
  n_ts = check_kineto_times (rank0, text, TRUE);
  g_assert_cmpuint (n_ts, >=, 12);
  {
    g_autofree char *rank1 = g_build_filename (out, "rank1_trace.json", NULL);
    g_autofree char *text1 = read_text (rank1);
    g_assert_nonnull (strstr (text1, "\"dur\": 90.123"));
  }

  /* reloads with the real loader and solves to the edited schedule */
  s2 = open_session (out);
  reloaded = snapshot (s2);
  g_assert_cmpuint (reloaded->len, ==, edited->len);
  for (int r = 0; r < 2; r++)
    {
      g_assert_cmpint (stream_of (s2, r, N_AR), ==, 20);
      g_assert_cmpint (start_of (s2, r, N_E1), ==, start_of (s, r, N_E1));
      g_assert_cmpint (end_of (s2, r, N_AR), ==, end_of (s, r, N_AR));
      g_assert_cmpint (end_of (s2, r, N_RS), ==, end_of (s, r, N_RS));
    }
  g_assert_cmpint (end_of (s2, 1, N_G1) - start_of (s2, 1, N_G1), ==, 90123);

  /* undo everything, save again: the events equal the original ones */
  g_assert_true (weft_edit_session_undo (s, NULL));
  g_assert_true (weft_edit_session_undo (s, NULL));
  {
    g_autofree char *out2 = g_build_filename (weft_test_tmpdir (), "save-out2", NULL);
    g_autoptr (WeftEditSession) s3 = NULL;
    g_autoptr (WeftEditSession) s0 = open_session (dir);
    g_autoptr (GArray) orig = snapshot (s0);
    g_autoptr (GArray) back = NULL;
    if (!weft_edit_session_save (s, out2, ".json.zst", &error))
      g_error ("%s", error->message);
    s3 = open_session (out2);
    back = snapshot (s3);
    assert_same_snapshot (orig, back, "saved after undoing every edit");
  }
}

/* ---- recovery --------------------------------------------------------------------------------- */

static void
test_recovery (void)
{
  g_autofree char *dir = write_trace ("recover");
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) before_crash = NULL;
  g_autoptr (GArray) restored = NULL;
  g_autoptr (GArray) after_redo = NULL;
  g_autofree char *found = NULL;
  g_autofree char *expect = weft_recovery_path (dir);
  g_autofree char *beside = g_strconcat (dir, ".weft-recovery.json", NULL);
  WeftEditSession *s = open_session (dir);

  g_assert_null (weft_recovery_find (dir));
  /* nothing to write yet */
  g_assert_true (weft_edit_session_autosave (s, &error));
  g_assert_false (g_file_test (expect, G_FILE_TEST_EXISTS));

  /* three entries: a gesture (two ops), a script op, a delete; then undo the delete */
  weft_edit_session_begin_gesture (s);
  g_assert_true (weft_edit_session_move_time (s, find_op (s, 0, N_AR), US (120), TRUE, NULL));
  g_assert_true (weft_edit_session_set_duration (s, find_op (s, 0, N_G2), 20000, NULL));
  weft_edit_session_end_gesture (s);
  g_assert_true (weft_edit_session_scale_class (s, WEFT_KCLASS_GEMM, 0.75, NULL, NULL));
  {
    WeftEventRef e1 = find_op (s, 1, N_E1);
    g_assert_true (weft_edit_session_delete (s, &e1, 1, NULL));
  }
  {
    WeftEditCollSpec spec = { WEFT_COLL_ALL_GATHER, 4096, NULL, 0, 20, US (450), NULL, NULL, -1 };
    g_assert_true (weft_edit_session_insert_collective (s, &spec, NULL, NULL));
  }
  g_assert_true (weft_edit_session_undo (s, NULL));
  g_assert_true (weft_edit_session_undo (s, NULL));
  g_assert_true (weft_edit_session_redo (s, NULL));
  before_crash = snapshot (s);
  g_assert_true (weft_edit_session_autosave (s, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (expect, G_FILE_TEST_EXISTS));
  /* in the user's state folder, never beside the trace nor in its folder */
  {
    g_autofree char *state = g_build_filename (weft_test_tmpdir (), "state", "weft", "recovery", NULL);
    g_autofree char *rank0 = g_build_filename (dir, "rank0_trace.json", NULL);
    g_autofree char *beside0 = g_strconcat (rank0, ".weft-recovery.json", NULL);
    GDir *d = g_dir_open (dir, 0, NULL);
    const char *name;
    g_assert_true (g_str_has_prefix (expect, state));
    g_assert_true (g_str_has_suffix (expect, ".json"));
    g_assert_false (g_file_test (beside, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (beside0, G_FILE_TEST_EXISTS));
    while ((name = g_dir_read_name (d)) != NULL)
      g_assert_true (g_str_equal (name, "rank0_trace.json") || g_str_equal (name, "rank1_trace.json"));
    g_dir_close (d);
  }
  /* an unchanged session does not rewrite it */
  {
    struct stat st1, st2;
    g_assert_cmpint (g_stat (expect, &st1), ==, 0);
    g_unlink (expect);
    g_assert_true (weft_edit_session_autosave (s, &error));
    g_assert_cmpint (g_stat (expect, &st2), !=, 0);
    g_assert_true (weft_edit_session_write_recovery (s, &error));
  }

  /* "crash": the session goes away without saving */
  weft_edit_session_free (s);

  found = weft_recovery_find (dir);
  g_assert_cmpstr (found, ==, expect);
  s = open_session (dir);
  if (!weft_recovery_apply (s, found, &error))
    g_error ("%s", error->message);
  restored = snapshot (s);
  assert_same_snapshot (before_crash, restored, "restored from the recovery file");
  g_assert_cmpuint (weft_history_get_undo_depth (weft_edit_session_get_history (s)), ==, 3);
  g_assert_cmpuint (weft_history_get_redo_depth (weft_edit_session_get_history (s)), ==, 1);
  g_assert_true (weft_edit_session_is_modified (s));
  /* the restored entries undo as they did: the gesture is one entry */
  g_assert_true (weft_edit_session_redo (s, NULL));
  after_redo = snapshot (s);
  g_assert_cmpint (after_redo->len, ==, restored->len + 2);
  for (int i = 0; i < 4; i++)
    g_assert_true (weft_edit_session_undo (s, NULL));
  {
    g_autoptr (WeftEditSession) fresh = open_session (dir);
    g_autoptr (GArray) a = snapshot (fresh);
    g_autoptr (GArray) b = snapshot (s);
    assert_same_snapshot (a, b, "after undoing every restored entry");
  }
  weft_edit_session_free (s);

  /* a recovery file for a trace touched since is not offered */
  {
    g_autofree char *rank0 = g_build_filename (dir, "rank0_trace.json", NULL);
    struct utimbuf tb;
    tb.actime = tb.modtime = time (NULL) + 100;
    g_assert_cmpint (g_utime (rank0, &tb), ==, 0);
    g_assert_null (weft_recovery_find (dir));
  }

  /* a recovery file that does not fit the trace is refused, leaving no edits */
  {
    g_autofree char *bad = weft_test_write_file (
      "bad-recovery.json",
      "{\"weft_recovery\": 1, \"trace\": \"x\", \"entries\": [[{\"op\": \"set_duration\", \"rank\": 0, "
      "\"event\": 3, \"name\": \"nope\", \"dur_ns\": 5}]], \"redo\": []}",
      -1);
    g_autoptr (WeftEditSession) s4 = open_session (dir);
    g_autoptr (GArray) a = snapshot (s4);
    g_autoptr (GArray) b = NULL;
    g_assert_false (weft_recovery_apply (s4, bad, &error));
    g_test_message ("%s", error->message);
    g_clear_error (&error);
    b = snapshot (s4);
    assert_same_snapshot (a, b, "after a refused recovery");
    g_assert_false (weft_edit_session_can_undo (s4));
    g_assert_false (weft_edit_session_can_redo (s4));
  }

  /* saving removes the recovery file */
  g_assert_true (g_file_test (expect, G_FILE_TEST_EXISTS));
  {
    g_autoptr (WeftEditSession) s5 = open_session (dir);
    g_autofree char *out = g_build_filename (weft_test_tmpdir (), "recover-out", NULL);
    g_assert_true (weft_edit_session_set_duration (s5, find_op (s5, 0, N_G1), 1000, NULL));
    g_assert_true (weft_edit_session_save (s5, out, NULL, &error));
    g_assert_no_error (error);
    g_assert_false (g_file_test (expect, G_FILE_TEST_EXISTS));
  }

  /* a recovery file for another version of the trace files is not offered */
  {
    g_autoptr (WeftEditSession) s6 = open_session (dir);
    g_autofree char *rank1 = g_build_filename (dir, "rank1_trace.json", NULL);
    g_autofree char *text1 = read_text (rank1);
    g_assert_true (weft_edit_session_set_duration (s6, find_op (s6, 0, N_G1), 1000, NULL));
    g_assert_true (weft_edit_session_write_recovery (s6, &error));
    g_assert_no_error (error);
    {
      g_autofree char *found6 = weft_recovery_find (dir);
      g_assert_nonnull (found6);
    }
    {
      g_autofree char *longer = g_strconcat (text1, " ", NULL);
      g_assert_true (g_file_set_contents (rank1, longer, -1, NULL));
    }
    g_assert_null (weft_recovery_find (dir));
    /* and the session, whose log belongs to the files as they were, writes none */
    g_assert_true (weft_edit_session_set_duration (s6, find_op (s6, 0, N_G1), 2000, NULL));
    weft_recovery_discard (dir);
    g_assert_true (weft_edit_session_autosave (s6, &error));
    g_assert_false (g_file_test (expect, G_FILE_TEST_EXISTS));
  }

  /* saved over the trace it was loaded from: no recovery file after that */
  {
    g_autofree char *dir2 = write_trace ("recover-inplace");
    g_autofree char *expect2 = weft_recovery_path (dir2);
    g_autoptr (WeftEditSession) s7 = open_session (dir2);
    g_assert_true (weft_edit_session_set_duration (s7, find_op (s7, 0, N_G1), 1000, NULL));
    g_assert_true (weft_edit_session_autosave (s7, &error));
    g_assert_true (g_file_test (expect2, G_FILE_TEST_EXISTS));
    g_usleep (2000); /* a later modification time for the saved files */
    g_assert_true (weft_edit_session_save (s7, dir2, ".json", &error));
    g_assert_no_error (error);
    g_assert_false (g_file_test (expect2, G_FILE_TEST_EXISTS));
    g_assert_true (weft_edit_session_set_duration (s7, find_op (s7, 0, N_G2), 1000, NULL));
    g_assert_true (weft_edit_session_autosave (s7, &error));
    g_assert_false (g_file_test (expect2, G_FILE_TEST_EXISTS));
    g_assert_null (weft_recovery_find (dir2));
  }

  /* files of Weft 0.1: one beside the trace (in a shared folder it may be
   * another person's) is never offered nor removed, and never loaded as a
   * rank; one in the user's cache is offered, and removed with the new one */
  {
    g_autofree char *sum = NULL;
    g_autofree char *abs = g_canonicalize_filename (dir, NULL);
    g_autofree char *legacy = NULL;
    g_autofree char *rank0 = g_build_filename (dir, "rank0_trace.json", NULL);
    g_autofree char *beside0 = g_strconcat (rank0, ".weft-recovery.json", NULL);
    g_autofree char *text = NULL;
    g_autofree char *offered = NULL;
    g_autoptr (WeftTrace) t = NULL;
    g_autoptr (WeftEditSession) s8 = open_session (dir);
    g_autofree char *legacy_dir = NULL;

    weft_recovery_discard (dir);
    g_assert_true (weft_edit_session_set_duration (s8, find_op (s8, 0, N_G1), 2000, NULL));
    g_assert_true (weft_edit_session_write_recovery (s8, &error));
    g_assert_true (g_file_get_contents (expect, &text, NULL, NULL));
    g_assert_cmpint (g_rename (expect, beside), ==, 0);
    g_assert_true (g_file_set_contents (beside0, text, -1, NULL));
    g_assert_null (weft_recovery_find (dir));
    t = weft_trace_load (dir, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (t->ranks->len, ==, 2);
    weft_recovery_discard (dir);
    g_assert_true (g_file_test (beside, G_FILE_TEST_EXISTS));
    g_assert_true (g_file_test (beside0, G_FILE_TEST_EXISTS));
    g_unlink (beside);
    g_unlink (beside0);

    sum = g_compute_checksum_for_string (G_CHECKSUM_SHA1, abs, -1);
    legacy = g_strdup_printf ("%s/cache/weft/%s.weft-recovery.json", weft_test_tmpdir (), sum);
    legacy_dir = g_path_get_dirname (legacy);
    g_assert_cmpint (g_mkdir_with_parents (legacy_dir, 0700), ==, 0);
    g_assert_true (g_file_set_contents (legacy, text, -1, NULL));
    offered = weft_recovery_find (dir);
    g_assert_cmpstr (offered, ==, legacy);
    weft_recovery_discard (dir);
    g_assert_false (g_file_test (legacy, G_FILE_TEST_EXISTS));
  }
}

/* A real trace: the 8 DLRM ranks (old format: integer absolute us, no
 * collective args on the kernels). Every all-reduce moves to a new stream on
 * every rank (one entry), undo/redo are exact, and the saved files reload
 * with the real loader in the same ts text style and solve to the same
 * schedule. */
static void
test_real_dlrm (void)
{
  g_autofree char *dir = weft_test_require_trace ("param/et_replay/tests/inputs/dlrm_kineto");
  g_autofree char *out = NULL;
  g_autoptr (WeftEditSession) s = NULL;
  g_autoptr (WeftEditSession) s2 = NULL;
  g_autoptr (GArray) loaded = NULL;
  g_autoptr (GArray) done = NULL;
  g_autoptr (GArray) now = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (json_object) op = NULL;
  g_autoptr (json_object) log = NULL;
  WeftMetrics m_now, m_before;
  WeftTsStyle styles[8];

  if (dir == NULL)
    return;
  {
    WeftTrace *trace = weft_trace_load (dir, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (trace->ranks->len, ==, 8);
    for (guint r = 0; r < 8; r++)
      styles[r] = weft_trace_rank (trace, r)->ts_style;
    /* not the shared folder: a recovery file must never land there */
    s = weft_edit_session_new (trace, NULL, &error);
    g_assert_no_error (error);
  }
  loaded = snapshot (s);
  op = json_tokener_parse ("{\"op\": \"move_stream\", \"match\": {\"collective\": \"all_reduce\"}, \"stream\": 99}");
  if (!weft_edit_session_apply_json (s, op, &error))
    g_error ("%s", error->message);
  log = weft_edit_session_log (s);
  {
    /* 3 all-reduces on 8 ranks, moved (and logged) together */
    json_object *moves;
    g_assert_cmpuint (json_object_array_length (log), ==, 1);
    g_assert_true (json_object_object_get_ex (json_object_array_get_idx (log, 0), "moves", &moves));
    g_assert_cmpuint (json_object_array_length (moves), ==, 3 * 8);
  }
  g_assert_cmpuint (weft_history_get_undo_depth (weft_edit_session_get_history (s)), ==, 1);
  done = snapshot (s);
  g_assert_cmpuint (done->len, ==, loaded->len);
  g_assert_true (weft_edit_session_metrics (s, &m_now, &m_before));
  g_assert_cmpint (m_now.step_time, <=, m_before.step_time);

  g_assert_true (weft_edit_session_undo (s, NULL));
  now = snapshot (s);
  assert_same_snapshot (loaded, now, "DLRM after undo");
  g_assert_true (weft_edit_session_redo (s, NULL));
  g_clear_pointer (&now, g_array_unref);
  now = snapshot (s);
  assert_same_snapshot (done, now, "DLRM after redo");

  out = g_build_filename (weft_test_tmpdir (), "dlrm-out", NULL);
  if (!weft_edit_session_save (s, out, ".json.gz", &error))
    g_error ("%s", error->message);
  {
    WeftTrace *trace2 = weft_trace_load (out, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (trace2->ranks->len, ==, 8);
    for (guint r = 0; r < 8; r++)
      {
        /* integer-us files stay integer-us unless an edited time is not a
         * whole us (then Kineto's "<us>.<3 digits>" keeps it ns-exact) */
        WeftTsStyle st = weft_trace_rank (trace2, r)->ts_style;
        g_assert_true (st == styles[r] || (styles[r] == WEFT_TS_ABSOLUTE_US && st == WEFT_TS_ABSOLUTE_FRAC));
      }
    s2 = weft_edit_session_new (trace2, NULL, &error);
    g_assert_no_error (error);
  }
  g_clear_pointer (&now, g_array_unref);
  now = snapshot (s2);
  assert_same_snapshot (done, now, "DLRM saved and reloaded");

  /* every ts / dur written as Kineto text: integer us or "<us>.<3 digits>" */
  {
    for (int r = 0; r < 8; r++)
      {
        g_autofree char *name = g_strdup_printf ("rank%d_trace.json", r);
        g_autofree char *json_out = g_build_filename (weft_test_tmpdir (), "dlrm-plain", NULL);
        g_autofree char *path = g_build_filename (json_out, name, NULL);
        g_autofree char *text = NULL;
        guint n;
        if (r == 0 && !weft_edit_session_save (s, json_out, ".json", &error))
          g_error ("%s", error->message);
        text = read_text (path);
        n = check_kineto_times (path, text, FALSE);
        g_assert_cmpuint (n, >, 1000);
      }
  }
}

/* With a maximum depth, what falls off the history stays in the log, the
 * saved "weft" key and the recovery file. */
static void
test_max_depth_log (void)
{
  g_autofree char *dir = write_trace ("max-depth");
  g_autoptr (WeftEditSession) s = open_session (dir);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) done = NULL;
  g_autofree char *rec = NULL;

  weft_history_set_max_depth (weft_edit_session_get_history (s), 2);
  g_assert_true (weft_edit_session_set_duration (s, find_op (s, 0, N_G1), 70000, NULL));
  g_assert_true (weft_edit_session_move_to_stream (s, find_op (s, 0, N_AR), 20, -1, TRUE, NULL));
  g_assert_true (weft_edit_session_scale_collective (s, WEFT_COLL_ALL_GATHER, 2.0, NULL, NULL));
  g_assert_cmpuint (weft_history_get_undo_depth (weft_edit_session_get_history (s)), ==, 2);
  done = snapshot (s);
  {
    g_autoptr (json_object) log = weft_edit_session_log (s);
    g_assert_cmpuint (json_object_array_length (log), ==, 1 + 1 + 1); /* duration, moves (2 ranks), all-gather */
    g_assert_cmpstr (json_object_get_string (json_object_object_get (json_object_array_get_idx (log, 0), "op")), ==,
                     "set_duration");
  }
  g_assert_true (weft_edit_session_write_recovery (s, &error));
  g_assert_no_error (error);
  rec = weft_recovery_find (dir);
  g_assert_nonnull (rec);
  {
    g_autoptr (WeftEditSession) s2 = open_session (dir);
    g_autoptr (GArray) restored = NULL;
    if (!weft_recovery_apply (s2, rec, &error))
      g_error ("%s", error->message);
    restored = snapshot (s2);
    assert_same_snapshot (done, restored, "restored with entries that fell off the history");
  }
  weft_recovery_discard (dir);
  g_assert_null (weft_recovery_find (dir));
}

int
main (int argc, char **argv)
{
  edit_fixture_test_init (&argc, &argv);

  g_test_add_func ("/edit/save-reload", test_save_reload);
  g_test_add_func ("/edit/recovery", test_recovery);
  g_test_add_func ("/edit/max-depth-log", test_max_depth_log);
  g_test_add_func ("/edit/real-dlrm", test_real_dlrm);
  return g_test_run ();
}
