/* edit-script-parse.c: reading edit-script operations (docs/editing.md):
 * typed fields, times and spans, class and collective names, matches and
 * the ops an entry targets (edit-script-private.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "edit-script-private.h"

/* ---- edit scripts ------------------------------------------------------------------------------ */

/* Reads an integer or a number; FALSE when absent (or not finite). */
gboolean
_weft_edit_json_get_number (json_object *obj, const char *key, double *out)
{
  return _weft_json_get_double (obj, key, out) && isfinite (*out);
}

static gboolean
us_to_ns (double us, gint64 *out)
{
  double ns = us * 1000.0;
  if (!isfinite (ns) || fabs (ns) > 9.0e18)
    return FALSE;
  *out = (gint64) llround (ns);
  return TRUE;
}

/* A duration from "<key>_ns" (integer) or "<key>_us" (number). */
gboolean
_weft_edit_get_span (json_object *op, const char *key, gint64 *out, gboolean *present, GError **error)
{
  g_autofree char *kns = g_strconcat (key, "_ns", NULL);
  g_autofree char *kus = g_strconcat (key, "_us", NULL);
  double us;

  *present = TRUE;
  if (json_object_object_get_ex (op, kns, NULL))
    {
      if (!_weft_json_get_int64 (op, kns, out))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"%s\" must be an integer", kns);
          return FALSE;
        }
      return TRUE;
    }
  if (json_object_object_get_ex (op, kus, NULL))
    {
      if (!_weft_edit_json_get_number (op, kus, &us) || !us_to_ns (us, out))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"%s\" must be a finite number", kus);
          return FALSE;
        }
      return TRUE;
    }
  *present = FALSE;
  return TRUE;
}

/* A point in time: "<key>_ns" absolute (common timeline), "<key>_us"
 * microseconds from the beginning of the trace as loaded. */
gboolean
_weft_edit_get_time (WeftEditSession *self, json_object *op, const char *key, gint64 *out, gboolean *present,
                     GError **error)
{
  g_autofree char *kns = g_strconcat (key, "_ns", NULL);
  gboolean absolute = json_object_object_get_ex (op, kns, NULL);

  if (!_weft_edit_get_span (op, key, out, present, error))
    return FALSE;
  if (*present && !absolute)
    *out += self->origin;
  return TRUE;
}

gboolean
_weft_edit_parse_kclass (const char *s, WeftKernelClass *out)
{
  for (int k = WEFT_KCLASS_GEMM; k < WEFT_KCLASS_N_CLASSES; k++)
    if (g_ascii_strcasecmp (s, weft_kernel_class_to_string ((WeftKernelClass) k)) == 0)
      {
        *out = (WeftKernelClass) k;
        return TRUE;
      }
  if (g_ascii_strcasecmp (s, "comm") == 0)
    {
      *out = WEFT_KCLASS_COMM;
      return TRUE;
    }
  return FALSE;
}

gboolean
_weft_edit_parse_coll (const char *s, WeftCollType *out)
{
  g_autofree char *norm = g_strdelimit (g_ascii_strdown (s, -1), "-", '_');
  WeftCollType t;
  if (strcmp (norm, "any") == 0 || strcmp (norm, "all") == 0)
    {
      *out = WEFT_COLL_NONE;
      return TRUE;
    }
  if (strcmp (norm, "allreduce") == 0)
    t = WEFT_COLL_ALL_REDUCE;
  else if (strcmp (norm, "allgather") == 0)
    t = WEFT_COLL_ALL_GATHER;
  else if (strcmp (norm, "reducescatter") == 0)
    t = WEFT_COLL_REDUCE_SCATTER;
  else if (strcmp (norm, "alltoall") == 0)
    t = WEFT_COLL_ALL_TO_ALL;
  else
    t = weft_coll_type_from_string (norm);
  if (t == WEFT_COLL_NONE)
    return FALSE;
  *out = t;
  return TRUE;
}

void
_weft_edit_match_clear (Match *m)
{
  if (m->name)
    g_regex_unref (m->name);
  if (m->ranks)
    g_array_free (m->ranks, TRUE);
}

gboolean
_weft_edit_match_parse (json_object *obj, Match *m, GError **error)
{
  json_object *v;
  const char *s;

  memset (m, 0, sizeof *m);
  m->nth = -1;
  if (!json_object_is_type (obj, json_type_object))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"match\" must be an object");
      return FALSE;
    }
  json_object_object_foreach (obj, key, val)
    {
      if (strcmp (key, "collective") != 0 && strcmp (key, "class") != 0 && strcmp (key, "name") != 0 &&
          strcmp (key, "rank") != 0 && strcmp (key, "stream") != 0 && strcmp (key, "nth") != 0)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: unknown key \"%s\"", key);
          return FALSE;
        }
      (void) val;
    }
  if ((s = _weft_json_get_str (obj, "collective")) != NULL)
    {
      m->has_coll = TRUE;
      if (!_weft_edit_parse_coll (s, &m->coll))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: unknown collective \"%s\"", s);
          return FALSE;
        }
    }
  else if (json_object_object_get_ex (obj, "collective", NULL))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: \"collective\" must be a string");
      return FALSE;
    }
  if ((s = _weft_json_get_str (obj, "class")) != NULL)
    {
      m->has_class = TRUE;
      if (!_weft_edit_parse_kclass (s, &m->kclass))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: unknown class \"%s\"", s);
          return FALSE;
        }
    }
  else if (json_object_object_get_ex (obj, "class", NULL))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: \"class\" must be a string");
      return FALSE;
    }
  if ((s = _weft_json_get_str (obj, "name")) != NULL)
    {
      GError *rerr = NULL;
      m->name = g_regex_new (s, G_REGEX_OPTIMIZE, 0, &rerr);
      if (m->name == NULL)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: bad name regex: %s", rerr->message);
          g_error_free (rerr);
          return FALSE;
        }
    }
  else if (json_object_object_get_ex (obj, "name", NULL))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: \"name\" must be a string (a regex)");
      return FALSE;
    }
  if (json_object_object_get_ex (obj, "rank", &v))
    {
      m->ranks = g_array_new (FALSE, FALSE, sizeof (int));
      if (json_object_is_type (v, json_type_int))
        {
          int r = (int) CLAMP (json_object_get_int64 (v), G_MININT, G_MAXINT);
          g_array_append_val (m->ranks, r);
        }
      else if (json_object_is_type (v, json_type_array))
        {
          for (size_t i = 0; i < json_object_array_length (v); i++)
            {
              json_object *e = json_object_array_get_idx (v, i);
              int r;
              if (!json_object_is_type (e, json_type_int))
                {
                  g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: \"rank\" must hold integers");
                  return FALSE;
                }
              r = (int) CLAMP (json_object_get_int64 (e), G_MININT, G_MAXINT);
              g_array_append_val (m->ranks, r);
            }
        }
      else
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: \"rank\" must be an integer or a list");
          return FALSE;
        }
    }
  if (json_object_object_get_ex (obj, "stream", NULL))
    {
      if (!_weft_json_get_int64 (obj, "stream", &m->stream))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: \"stream\" must be an integer");
          return FALSE;
        }
      m->has_stream = TRUE;
    }
  if (json_object_object_get_ex (obj, "nth", NULL) && (!_weft_json_get_int64 (obj, "nth", &m->nth) || m->nth < 0))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "match: \"nth\" must be an integer >= 0");
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  WeftEventRef ref;
  gint64    start;
} Hit;

static int
cmp_hit (gconstpointer a, gconstpointer b)
{
  const Hit *x = a, *y = b;
  if (x->ref.rank_index != y->ref.rank_index)
    return x->ref.rank_index < y->ref.rank_index ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->ref.event > y->ref.event) - (x->ref.event < y->ref.event);
}

/* Live GPU ops matching m, by (rank, solved start). */
GArray *
_weft_edit_match_run (WeftEditSession *self, const Match *m)
{
  GArray *hits = g_array_new (FALSE, FALSE, sizeof (Hit));
  GArray *out = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));

  for (guint r = 0; r < self->trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (self->trace, r);
      if (m->ranks != NULL)
        {
          gboolean in = FALSE;
          for (guint i = 0; i < m->ranks->len && !in; i++)
            in = g_array_index (m->ranks, int, i) == rank->rank;
          if (!in)
            continue;
        }
      for (guint32 e = 0; e < rank->events->len; e++)
        {
          WeftEvent *ev = weft_rank_event (rank, e);
          Hit h;
          if (!(ev->flags & WEFT_EVENT_GPU_OP) || (ev->flags & WEFT_EVENT_DELETED))
            continue;
          if (m->has_coll)
            {
              WeftCollective *c;
              if (weft_event_coll (rank, ev) == WEFT_NONE || weft_event_coll (rank, ev) >= rank->collectives->len)
                continue;
              c = &g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev));
              if (m->coll != WEFT_COLL_NONE && c->type != m->coll)
                continue;
            }
          if (m->has_class && ev->kclass != m->kclass)
            continue;
          if (!weft_solver_is_node (self->solver, r, e))
            continue;
          if (m->has_stream)
            {
              guint32 l = weft_solver_op_lane (self->solver, r, e);
              if (l == WEFT_NONE || weft_rank_lane (rank, l)->tid != m->stream)
                continue;
            }
          if (m->name != NULL && !g_regex_match (m->name, weft_rank_string (rank, ev->name), 0, NULL))
            continue;
          h.ref.rank_index = r;
          h.ref.event = e;
          h.start = weft_solver_start (self->solver, r, e);
          g_array_append_val (hits, h);
        }
    }
  g_array_sort (hits, cmp_hit);
  for (guint i = 0; i < hits->len; i++)
    if (m->nth < 0 || (gint64) i == m->nth)
      g_array_append_val (out, g_array_index (hits, Hit, i).ref);
  g_array_free (hits, TRUE);
  return out;
}

/* The explicit op of an entry ("rank" number + "event" index, with the
 * "name" checked when given). */
gboolean
_weft_edit_explicit_ref (WeftEditSession *self, json_object *op, const char *rank_key, const char *event_key,
                         WeftEventRef *out, GError **error)
{
  gint64 rank, event;
  int idx;
  const char *name;

  if (!_weft_json_get_int64 (op, rank_key, &rank) || !_weft_json_get_int64 (op, event_key, &event))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs integer \"%s\" and \"%s\" (or a \"match\")",
                   rank_key, event_key);
      return FALSE;
    }
  idx = rank >= G_MININT && rank <= G_MAXINT ? weft_trace_find_rank (self->trace, (int) rank) : -1;
  if (idx < 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "rank %" G_GINT64_FORMAT " is not in the trace", rank);
      return FALSE;
    }
  if (event < 0 || event >= weft_trace_rank (self->trace, idx)->events->len)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "rank %" G_GINT64_FORMAT ": no event %" G_GINT64_FORMAT,
                   rank, event);
      return FALSE;
    }
  out->rank_index = (guint) idx;
  out->event = (guint32) event;
  name = _weft_json_get_str (op, "name");
  if (name != NULL && strcmp (name, _weft_edit_op_name (self, *out)) != 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "rank %" G_GINT64_FORMAT " event %" G_GINT64_FORMAT
                   " is \"%s\", not \"%s\": the edits do not fit this trace",
                   rank, event, _weft_edit_op_name (self, *out), name);
      return FALSE;
    }
  return TRUE;
}

/* The ops an entry targets: explicit, or "match", or the shorthand keys
 * "collective" / "class" at the top level. Never empty on success. */
GArray *
_weft_edit_resolve_targets (WeftEditSession *self, json_object *op, GError **error)
{
  json_object *mobj = NULL;
  Match m;
  GArray *out;

  if (json_object_object_get_ex (op, "event", NULL))
    {
      WeftEventRef ref;
      if (!_weft_edit_explicit_ref (self, op, "rank", "event", &ref, error))
        return NULL;
      if (!_weft_edit_check_op (self, ref, error))
        return NULL;
      out = g_array_new (FALSE, FALSE, sizeof (WeftEventRef));
      g_array_append_val (out, ref);
      return out;
    }
  if (json_object_object_get_ex (op, "match", &mobj))
    {
      if (!_weft_edit_match_parse (mobj, &m, error))
        {
          _weft_edit_match_clear (&m);
          return NULL;
        }
    }
  else
    {
      /* shorthand: the entry's own collective / class keys */
      json_object *tmp = json_object_new_object ();
      gboolean ok;
      if (json_object_object_get_ex (op, "collective", &mobj))
        json_object_object_add (tmp, "collective", json_object_get (mobj));
      if (json_object_object_get_ex (op, "class", &mobj))
        json_object_object_add (tmp, "class", json_object_get (mobj));
      if (json_object_object_length (tmp) == 0)
        {
          json_object_put (tmp);
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                       "no target: give \"rank\" and \"event\", or \"match\", or \"collective\" / \"class\"");
          return NULL;
        }
      ok = _weft_edit_match_parse (tmp, &m, error);
      json_object_put (tmp);
      if (!ok)
        {
          _weft_edit_match_clear (&m);
          return NULL;
        }
    }
  out = _weft_edit_match_run (self, &m);
  _weft_edit_match_clear (&m);
  if (out->len == 0)
    {
      g_array_free (out, TRUE);
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "the match selects no live GPU op");
      return NULL;
    }
  return out;
}

/* _weft_edit_resolve_targets for an op that acts on exactly one op. */
gboolean
_weft_edit_resolve_one_target (WeftEditSession *self, json_object *op, WeftEventRef *ref, GError **error)
{
  g_autoptr (GArray) refs = _weft_edit_resolve_targets (self, op, error);

  if (refs == NULL)
    return FALSE;
  if (refs->len != 1)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs exactly one op (the match selects %u)", refs->len);
      return FALSE;
    }
  *ref = g_array_index (refs, WeftEventRef, 0);
  return TRUE;
}

/* op's "stream" (an integer, required) and "device" (an integer; device
 * left as it is when absent). */
gboolean
_weft_edit_get_stream_device (json_object *op, gint64 *stream, gint64 *device, GError **error)
{
  if (!_weft_json_get_int64 (op, "stream", stream) || *stream < 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs an integer \"stream\" >= 0");
      return FALSE;
    }
  if (json_object_object_get_ex (op, "device", NULL)
      && (!_weft_json_get_int64 (op, "device", device) || *device < 0))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"device\" must be an integer >= 0");
      return FALSE;
    }
  return TRUE;
}

gboolean
_weft_edit_require_factor (json_object *op, double *factor, GError **error)
{
  if (!_weft_edit_json_get_number (op, "factor", factor))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs a number \"factor\"");
      return FALSE;
    }
  return _weft_edit_check_factor (*factor, error);
}


/* Checks a created event's index against the log's ("event"). */
gboolean
_weft_edit_check_expected_event (WeftEditSession *self, json_object *op, const char *key, guint rank_index,
                                 GError **error)
{
  gint64 expect;
  WeftRank *rank = weft_trace_rank (self->trace, rank_index);
  if (!_weft_json_get_int64 (op, key, &expect))
    return TRUE;
  if (expect != (gint64) rank->events->len)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "rank %d: the edits created event %" G_GINT64_FORMAT
                   " but the trace now has %u events: the edits do not fit this trace",
                   rank->rank, expect, rank->events->len);
      return FALSE;
    }
  return TRUE;
}

gboolean
_weft_edit_script_rank_index (WeftEditSession *self, json_object *op, const char *key, guint *out, GError **error)
{
  gint64 rank;
  int idx;
  if (!_weft_json_get_int64 (op, key, &rank))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs an integer \"%s\"", key);
      return FALSE;
    }
  idx = rank >= G_MININT && rank <= G_MAXINT ? weft_trace_find_rank (self->trace, (int) rank) : -1;
  if (idx < 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "rank %" G_GINT64_FORMAT " is not in the trace", rank);
      return FALSE;
    }
  *out = (guint) idx;
  return TRUE;
}

/* "at_ns"/"at_us", or "after": a match; its first op on the rank decides:
 * on the same stream (lane) the new op goes right after it, elsewhere it
 * is released at its end. */
gboolean
_weft_edit_script_at (WeftEditSession *self, json_object *op, guint rank_index, guint32 lane, gint64 *at,
                      GError **error)
{
  gboolean present;
  json_object *after;

  if (!_weft_edit_get_time (self, op, "at", at, &present, error))
    return FALSE;
  if (present)
    return TRUE;
  if (json_object_object_get_ex (op, "after", &after))
    {
      Match m;
      g_autoptr (GArray) hits = NULL;
      if (!_weft_edit_match_parse (after, &m, error))
        {
          _weft_edit_match_clear (&m);
          return FALSE;
        }
      if (m.ranks == NULL)
        {
          int rn = _weft_edit_rank_number (self, rank_index);
          m.ranks = g_array_new (FALSE, FALSE, sizeof (int));
          g_array_append_val (m.ranks, rn);
        }
      hits = _weft_edit_match_run (self, &m);
      _weft_edit_match_clear (&m);
      if (hits->len == 0)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "\"after\" selects no op");
          return FALSE;
        }
      {
        WeftEventRef h = g_array_index (hits, WeftEventRef, 0);
        if (h.rank_index == rank_index && weft_solver_op_lane (self->solver, h.rank_index, h.event) == lane)
          *at = weft_solver_start (self->solver, h.rank_index, h.event);
        else
          *at = weft_solver_end (self->solver, h.rank_index, h.event);
      }
      return TRUE;
    }
  g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "needs \"at_us\", \"at_ns\" or \"after\"");
  return FALSE;
}
