/* test-classify-args.c: the classifier's direct pass over an event's text
 * (classify-args.c) against its reference, the json-c tree of the same
 * text (issue 18, item 2).
 *
 * - Every event with a text in every shared trace: where the direct pass
 *   answers, its fields equal the reference's; it must answer for nearly
 *   all (it gives up only on escapes in wanted strings and keys, and on
 *   numbers json-c reads differently).
 * - Made-up events: args built at random from the wanted keys (and
 *   others), each value of a random kind (integers short and long,
 *   negative, fractions, numeric and other strings, escapes, null, bools,
 *   rank lists as arrays and as quoted "[0, 1, ...]", dims arrays of
 *   several shapes, nested objects), keys repeated, "args" repeated or not
 *   an object: the same comparison, and the plain ones must be answered. */
#include "config.h"

#include <string.h>

#include "core/classify-args-private.h"
#include "testutil.h"

static gboolean
args_equal (const WeftCommArgs *a, const WeftCommArgs *b, GString *why)
{
  for (guint i = 0; i < WEFT_CA_N_INTS; i++)
    if (a->has_int[i] != b->has_int[i] || (a->has_int[i] && a->ints[i] != b->ints[i]))
      {
        g_string_append_printf (why, "int %u: %d %" G_GINT64_FORMAT " vs %d %" G_GINT64_FORMAT, i, a->has_int[i],
                                a->ints[i], b->has_int[i], b->ints[i]);
        return FALSE;
      }
  for (guint i = 0; i < WEFT_CA_N_STRS; i++)
    if (g_strcmp0 (a->strs[i], b->strs[i]) != 0)
      {
        g_string_append_printf (why, "str %u: %s vs %s", i, a->strs[i] ? a->strs[i] : "(null)",
                                b->strs[i] ? b->strs[i] : "(null)");
        return FALSE;
      }
  if ((a->pg_ranks == NULL) != (b->pg_ranks == NULL) || a->pg_ranks_truncated != b->pg_ranks_truncated ||
      (a->pg_ranks != NULL && (a->pg_ranks->len != b->pg_ranks->len ||
                               memcmp (a->pg_ranks->data, b->pg_ranks->data, a->pg_ranks->len * sizeof (int)) != 0)))
    {
      g_string_append_printf (why, "ranks: %u%s vs %u%s", a->pg_ranks ? a->pg_ranks->len : 0,
                              a->pg_ranks_truncated ? "..." : "", b->pg_ranks ? b->pg_ranks->len : 0,
                              b->pg_ranks_truncated ? "..." : "");
      return FALSE;
    }
  if (a->has_input_dims != b->has_input_dims || (a->has_input_dims && a->input_nelems != b->input_nelems))
    {
      g_string_append_printf (why, "dims: %d %" G_GINT64_FORMAT " vs %d %" G_GINT64_FORMAT, a->has_input_dims,
                              a->input_nelems, b->has_input_dims, b->input_nelems);
      return FALSE;
    }
  return TRUE;
}

/* The reference on a text: json-c's tree of the whole event, its "args". */
static void
reference_from_text (const char *text, gsize len, WeftCommArgs *out)
{
  json_tokener *tok = json_tokener_new_ex (4096);
  json_object *obj = json_tokener_parse_ex (tok, text, (int) len);
  json_object *args = NULL;

  json_tokener_free (tok);
  if (obj != NULL && !json_object_object_get_ex (obj, "args", &args))
    args = NULL;
  _weft_comm_args_from_json (args, out);
  json_object_put (obj);
}

/* Compares the two paths on one text; TRUE when the direct pass answered. */
static gboolean
check_text (const char *text, gsize len, const char *where)
{
  WeftCommArgs fast, ref;
  gboolean answered = _weft_comm_args_from_text (text, len, &fast);

  if (answered)
    {
      g_autoptr (GString) why = g_string_new (NULL);
      reference_from_text (text, len, &ref);
      if (!args_equal (&fast, &ref, why))
        g_error ("%s: direct pass and json-c differ (%s) on %.*s", where, why->str, (int) MIN (len, 2000), text);
      _weft_comm_args_clear (&ref);
    }
  _weft_comm_args_clear (&fast);
  return answered;
}

static void
collect_traces (const char *dir, GPtrArray *out)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        collect_traces (path, out);
      else if (g_str_has_suffix (name, ".json") || g_str_has_suffix (name, ".json.gz"))
        g_ptr_array_add (out, g_steal_pointer (&path));
    }
}

static void
test_shared_traces (void)
{
  g_autofree char *root = weft_test_trace_path ("");
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  guint64 n_args = 0, n_answered = 0, n_events = 0;

  if (root == NULL)
    {
      g_test_skip ("shared traces absent (WEFT_TRACES_DIR)");
      return;
    }
  collect_traces (root, files);
  g_assert_cmpuint (files->len, >, 0);
  for (guint f = 0; f < files->len; f++)
    {
      const char *path = files->pdata[f];
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftRank) rank = weft_rank_load_file (path, NULL, NULL, &error);
      guint64 answered = 0, with_args = 0;

      g_assert_no_error (error);
      for (guint32 i = 0; i < rank->events->len; i++)
        {
          const WeftEvent *ev = weft_rank_event (rank, i);
          gsize len = 0;
          g_autofree char *text = weft_rank_event_text_dup (rank, ev, &len);
          if (text == NULL)
            continue;
          n_events++;
          if (strstr (text, "\"args\"") == NULL)
            {
              /* no args: both read nothing */
              g_assert_true (check_text (text, len, path));
              continue;
            }
          with_args++;
          if (check_text (text, len, path))
            answered++;
        }
      g_test_message ("%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " events with args read by the direct pass",
                      path, answered, with_args);
      n_args += with_args;
      n_answered += answered;
    }
  g_test_message ("all: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " events)", n_answered,
                  n_args, n_events);
  g_assert_cmpuint (n_args, >, 10000);
  /* it must not hand nearly everything back to json-c */
  g_assert_cmpuint (n_answered * 100, >=, n_args * 99);
}

/* The scanner keeps the texts of collective kernels and their CPU ops plain
 * until the rank is indexed, and the classification of the load reads
 * those; classifying again afterwards reads the zstd blocks. Both must
 * give the same collectives, field for field. */
static void
test_kept_texts (void)
{
  g_autofree char *root = weft_test_trace_path ("");
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  guint64 n_colls = 0;

  if (root == NULL)
    {
      g_test_skip ("shared traces absent (WEFT_TRACES_DIR)");
      return;
    }
  collect_traces (root, files);
  for (guint f = 0; f < files->len; f++)
    {
      const char *path = files->pdata[f];
      g_autoptr (GError) error = NULL;
      g_autoptr (WeftRank) rank = weft_rank_load_file (path, NULL, NULL, &error);
      g_autoptr (GArray) before = NULL;
      g_autoptr (GPtrArray) ranks = g_ptr_array_new_with_free_func (g_free);

      g_assert_no_error (error);
      before = g_array_new (FALSE, FALSE, sizeof (WeftCollective));
      for (guint i = 0; i < rank->collectives->len; i++)
        {
          WeftCollective c = g_array_index (rank->collectives, WeftCollective, i);
          g_ptr_array_add (ranks, g_memdup2 (c.pg_ranks, c.n_pg_ranks * sizeof (int)));
          g_array_append_val (before, c);
        }
      weft_rank_classify (rank);
      g_assert_cmpuint (rank->collectives->len, ==, before->len);
      for (guint i = 0; i < before->len; i++)
        {
          const WeftCollective *a = &g_array_index (before, WeftCollective, i);
          const WeftCollective *b = &g_array_index (rank->collectives, WeftCollective, i);
          g_assert_cmpuint (a->event, ==, b->event);
          g_assert_cmpuint (a->cpu_event, ==, b->cpu_event);
          g_assert_cmpint (a->type, ==, b->type);
          g_assert_cmpint (a->source, ==, b->source);
          g_assert_cmpuint (a->coll_name, ==, b->coll_name);
          g_assert_cmpint (a->in_nelems, ==, b->in_nelems);
          g_assert_cmpint (a->out_nelems, ==, b->out_nelems);
          g_assert_cmpint (a->bytes, ==, b->bytes);
          g_assert_cmpuint (a->dtype, ==, b->dtype);
          g_assert_cmpint (a->group_size, ==, b->group_size);
          g_assert_cmpuint (a->pg_name, ==, b->pg_name);
          g_assert_cmpuint (a->pg_desc, ==, b->pg_desc);
          g_assert_cmpint (a->seq, ==, b->seq);
          g_assert_cmpint (a->src_rank, ==, b->src_rank);
          g_assert_cmpint (a->dst_rank, ==, b->dst_rank);
          g_assert_cmpuint (a->n_pg_ranks, ==, b->n_pg_ranks);
          g_assert_true (a->n_pg_ranks == 0 || memcmp (ranks->pdata[i], b->pg_ranks, a->n_pg_ranks * sizeof (int)) == 0);
          g_assert_cmpuint (weft_event_coll (rank, weft_rank_event (rank, b->event)), ==, i);
        }
      n_colls += before->len;
    }
  g_assert_cmpuint (n_colls, >, 1000);
}

/* ---- made-up events ---------------------------------------------------------------- */

static const char *const wanted[] = {
  "Collective name", "In msg nelems", "Out msg nelems", "Group size", "dtype", "Process Group Name",
  "Process Group Description", "Process Group Ranks", "Seq", "Src Rank", "Dst Rank", "Global rank start",
  "Global rank stride", "Input Dims", "Input type",
};

static void
random_int (GRand *r, GString *s, gboolean plain)
{
  static const char *const odd[] = { "9223372036854775807", "-9223372036854775808", "18446744073709551615",
                                     "99999999999999999999", "123456789012345678", "1234567890123456789",
                                     "-0", "0" };
  if (!plain && g_rand_int_range (r, 0, 4) == 0)
    g_string_append (s, odd[g_rand_int_range (r, 0, G_N_ELEMENTS (odd))]);
  else
    g_string_append_printf (s, "%s%d", g_rand_boolean (r) && !plain ? "-" : "", g_rand_int_range (r, 0, 100000));
}

static void random_value (GRand *r, GString *s, int depth, gboolean plain);

static void
random_string (GRand *r, GString *s, gboolean plain)
{
  static const char *const bodies[] = { "allreduce", "0", "12", " 7", "-3", "12x", "", "[0, 1, 2, 3]",
                                        "[0, 1, ..., 29, ...]", "0, 1, 2", "Float", "c10::BFloat16", "double",
                                        "abc\\\"def", "\\u0041llreduce", "tab\\tx", "\\u00e9", "caf\xc3\xa9",
                                        "9223372036854775808", "[ -1, 2]" };
  guint n = plain ? 13 : G_N_ELEMENTS (bodies);
  g_string_append_printf (s, "\"%s\"", bodies[g_rand_int_range (r, 0, n)]);
}

static void
random_array (GRand *r, GString *s, int depth, gboolean plain, int kind)
{
  guint n = (guint) g_rand_int_range (r, 0, 6);

  g_string_append_c (s, '[');
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append (s, g_rand_boolean (r) ? ", " : ",");
      if (kind == 0)
        random_int (r, s, plain);
      else if (kind == 1)
        random_array (r, s, depth + 1, plain, 0); /* dims: arrays of ints */
      else if (kind == 2)
        random_string (r, s, plain);
      else
        random_value (r, s, depth + 1, plain);
    }
  g_string_append_c (s, ']');
}

static void
random_value (GRand *r, GString *s, int depth, gboolean plain)
{
  switch (g_rand_int_range (r, 0, depth > 3 ? 6 : 10))
    {
    case 0:
    case 1:
      random_int (r, s, plain);
      break;
    case 2:
      if (plain)
        random_int (r, s, plain);
      else
        g_string_append (s, g_rand_boolean (r) ? "1.5" : "2e3");
      break;
    case 3:
    case 4:
      random_string (r, s, plain);
      break;
    case 5:
      g_string_append (s, g_rand_boolean (r) ? "null" : g_rand_boolean (r) ? "true" : "false");
      break;
    case 6:
      random_array (r, s, depth, plain, 0);
      break;
    case 7:
      random_array (r, s, depth, plain, 1);
      break;
    case 8:
      random_array (r, s, depth, plain, 3);
      break;
    default:
      g_string_append (s, "{\"k\": ");
      random_value (r, s, depth + 1, plain);
      g_string_append (s, ", \"Seq\": 4}");
      break;
    }
}

static void
random_args (GRand *r, GString *s, gboolean plain)
{
  guint n = (guint) g_rand_int_range (r, 0, 12);

  if (g_rand_int_range (r, 0, 20) == 0)
    {
      random_value (r, s, 1, plain); /* not an object */
      return;
    }
  g_string_append_c (s, '{');
  for (guint i = 0; i < n; i++)
    {
      const char *key = g_rand_int_range (r, 0, 5) == 0 ? "other" : wanted[g_rand_int_range (r, 0, G_N_ELEMENTS (wanted))];
      if (i > 0)
        g_string_append (s, ", ");
      if (!plain && g_rand_int_range (r, 0, 30) == 0)
        g_string_append (s, "\"Seq\\u0020\": ");
      else
        g_string_append_printf (s, "\"%s\": ", key);
      if (strcmp (key, "Process Group Ranks") == 0 && g_rand_boolean (r))
        {
          if (g_rand_boolean (r))
            random_array (r, s, 2, plain, g_rand_int_range (r, 0, 4) == 0 ? 3 : 0);
          else
            random_string (r, s, plain);
        }
      else if (strcmp (key, "Input Dims") == 0 && g_rand_boolean (r))
        random_array (r, s, 2, plain, g_rand_int_range (r, 0, 4) == 0 ? 3 : 1);
      else if (strcmp (key, "Input type") == 0 && g_rand_boolean (r))
        random_array (r, s, 2, plain, g_rand_int_range (r, 0, 4) == 0 ? 3 : 2);
      else
        random_value (r, s, 2, plain);
    }
  g_string_append_c (s, '}');
}

static void
test_random (void)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (18);
  guint plain_answered = 0, plain_total = 0, any_answered = 0;

  for (guint iter = 0; iter < 40000; iter++)
    {
      gboolean plain = iter % 2 == 0;
      g_autoptr (GString) s = g_string_new ("{\"ph\": \"X\", \"name\": \"nccl:all_reduce\", ");
      guint n_args = (guint) g_rand_int_range (r, 0, 3);
      if (!plain && n_args == 0)
        n_args = 1;
      for (guint k = 0; k < n_args; k++)
        {
          g_string_append (s, "\"args\": ");
          random_args (r, s, plain);
          g_string_append (s, ", \"ts\": 5");
          g_string_append (s, k + 1 < n_args ? ", " : "");
        }
      if (n_args == 0)
        g_string_append (s, "\"ts\": 1");
      g_string_append_c (s, '}');
      {
        gboolean answered = check_text (s->str, s->len, "made-up");
        any_answered += answered;
        if (plain)
          {
            plain_total++;
            plain_answered += answered;
            if (!answered)
              g_error ("direct pass gave up on a plain text: %s", s->str);
          }
      }
    }
  g_test_message ("plain %u/%u, all %u/40000 answered", plain_answered, plain_total, any_answered);
  g_assert_cmpuint (any_answered, >, plain_total);
}

/* Texts the direct pass must hand back (or read the same). */
static void
test_edges (void)
{
  static const char *const texts[] = {
    "{\"args\": {\"Seq\": 1, \"Seq\": 2}}",
    "{\"args\": {\"Seq\": 1}, \"args\": {\"dtype\": \"Float\"}}",
    "{\"args\": {\"Seq\": 1}, \"args\": null}",
    "{\"args\": [1, 2]}",
    "{\"args\": {\"Process Group Name\": 0, \"Group size\": \"8\"}}",
    "{\"args\": {\"Process Group Ranks\": \"[0, 1, ..., 29, ...]\"}}",
    "{\"args\": {\"Process Group Ranks\": [0, \"x\", 2.5, null, 3]}}",
    "{\"args\": {\"Input Dims\": [[2, 3, 4], [5]], \"Input type\": [\"float\", \"int\"]}}",
    "{\"args\": {\"Input Dims\": [[2, -3]], \"Input type\": [1, \"int\"]}}",
    "{\"args\": {\"Input Dims\": [[]], \"Input type\": []}}",
    "{\"args\": {\"Input Dims\": [[4294967296, 4294967296]]}}",
    "{\"args\": {\"Input Dims\": [[3037000499, 3037000499]]}}",
    "{\"args\": {\"Seq\": 12345678901234567890}}",
    "{\"args\": {\"Seq\": 1.0e2}}",
    "{\"args\": {\"Collective name\": \"all\\u0072educe\"}}",
    "{\"ar\\u0067s\": {\"Seq\": 3}}",
    "{\"args\": {\"deep\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]], \"Seq\": 5}}",
    " { \"args\" : { \"Seq\" : 7 , \"dtype\" : \"Half\" } } ",
    "{}",
    "{\"args\": {}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    check_text (texts[i], strlen (texts[i]), "edge");
  /* a plain one is answered, with the values json-c gives */
  {
    const char *t = texts[7];
    WeftCommArgs a;
    g_assert_true (_weft_comm_args_from_text (t, strlen (t), &a));
    g_assert_true (a.has_input_dims);
    g_assert_cmpint (a.input_nelems, ==, 24);
    g_assert_cmpstr (a.strs[WEFT_CA_INPUT_TYPE], ==, "float");
    _weft_comm_args_clear (&a);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/classify-args/edges", test_edges);
  g_test_add_func ("/classify-args/made-up-fast-vs-reference", test_random);
  g_test_add_func ("/classify-args/shared-traces-fast-vs-reference", test_shared_traces);
  g_test_add_func ("/classify-args/kept-texts-vs-blocks", test_kept_texts);
  return g_test_run ();
}
