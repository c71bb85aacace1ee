/* solver-explain.c: what the graph says about an op, in both directions
 * and in words: its dependents (weft_solver_succs, the mirror of
 * weft_solver_preds) and the reason of each critical-path segment
 * (weft_solver_path_reason), built from the segment, the binding edges and
 * the collective waits (docs/solver.md, "Explanations"). Reads the graph
 * only. */
#include "config.h"

#include <string.h>

#include "solver-private.h"

guint
weft_solver_succs (WeftSolver *self, guint rank_index, guint32 event, WeftSolverDep *out, guint max)
{
  guint32 v;
  guint k = 0;
  Node *n;
  guint32 nx;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (out != NULL || max == 0, 0);
  v = _weft_solver_node (self, rank_index, event);
  _weft_solver_sync (self);
  if (v == WEFT_NONE)
    return 0;
  n = &self->nodes[v];
  nx = _weft_solver_stream_next (self, v);
  if (nx != WEFT_NONE)
    {
      if (k < max)
        out[k] = (WeftSolverDep) { WEFT_DEP_STREAM, self->nodes[nx].rank, self->nodes[nx].event, self->nodes[nx].w_stream };
      k++;
    }
  for (guint o = 0; o < n->n_out; o++)
    {
      Node *s = &self->nodes[n->out[o]];
      if ((s->flags & NODE_DELETED) || s->kind == NODE_INST)
        continue;
      for (guint e = 0; e < s->n_in; e++)
        {
          if (s->in[e].src != v)
            continue;
          if (k < max)
            out[k] = (WeftSolverDep) { s->in[e].kind, s->rank, s->event, s->in[e].w };
          k++;
        }
    }
  if (_weft_solver_is_member (self, v))
    {
      /* a rendezvous binds every member to every other one */
      Node *in = &self->nodes[n->inst];
      for (guint i = 0; i < in->n_members; i++)
        {
          Node *m = &self->nodes[in->members[i]];
          if (in->members[i] == v || (m->flags & NODE_DELETED))
            continue;
          if (k < max)
            out[k] = (WeftSolverDep) { WEFT_DEP_RENDEZVOUS, m->rank, m->event, in->dur };
          k++;
        }
    }
  return k;
}

/* ---- reasons in words ------------------------------------------------------- */

/* "850 ns", "12.4 us", "2.10 ms", "1.234 s" */
static void
append_duration (GString *s, gint64 ns)
{
  double a = ns < 0 ? -(double) ns : (double) ns;
  if (a < 1e3)
    g_string_append_printf (s, "%" G_GINT64_FORMAT " ns", ns);
  else if (a < 1e6)
    g_string_append_printf (s, "%.1f us", ns / 1e3);
  else if (a < 1e9)
    g_string_append_printf (s, "%.2f ms", ns / 1e6);
  else
    g_string_append_printf (s, "%.3f s", ns / 1e9);
}

/* a name shortened for a sentence: at most 60 characters */
static void
append_name (GString *s, WeftTrace *trace, guint r, guint32 e)
{
  WeftRank *rank;
  const char *name;
  glong len;

  if (r >= trace->ranks->len || (rank = weft_trace_rank (trace, r)) == NULL || e >= rank->events->len)
    {
      g_string_append (s, "an op");
      return;
    }
  name = weft_rank_string (rank, weft_rank_event (rank, e)->name);
  len = g_utf8_strlen (name, -1);
  if (len <= 60)
    g_string_append (s, name);
  else
    {
      const char *cut = g_utf8_offset_to_pointer (name, 57);
      g_string_append_len (s, name, cut - name);
      g_string_append (s, "...");
    }
}

static int
rank_number (WeftTrace *trace, guint r)
{
  return r < trace->ranks->len ? weft_trace_rank (trace, r)->rank : -1;
}

static gint64
lane_tid (WeftTrace *trace, guint r, guint32 e)
{
  WeftRank *rank = weft_trace_rank (trace, r);
  guint32 lane = e < rank->events->len ? weft_rank_event (rank, e)->lane : WEFT_NONE;
  return lane == WEFT_NONE ? -1 : weft_rank_lane (rank, lane)->tid;
}

/* Why the op (r, e) started when it did: its binding edge, in words
 * ("it follows X on stream 7", "its CPU launch came late", ...). */
static void
append_start_cause (GString *s, WeftSolver *self, guint r, guint32 e)
{
  WeftTrace *trace = self->trace;
  guint pr = G_MAXUINT;
  guint32 pe = WEFT_NONE;
  WeftDepKind kind = weft_solver_binding (self, r, e, &pr, &pe);
  gint64 start = weft_solver_start (self, r, e);

  switch (kind)
    {
    case WEFT_DEP_STREAM:
      g_string_append (s, "it queued behind ");
      append_name (s, trace, pr, pe);
      g_string_append_printf (s, " on stream %" G_GINT64_FORMAT " (ended ", lane_tid (trace, pr, pe));
      append_duration (s, start - weft_solver_end (self, pr, pe));
      g_string_append (s, " before it started)");
      break;
    case WEFT_DEP_LAUNCH:
      {
        /* how long the stream sat idle waiting for the CPU */
        WeftSolverDep d[8];
        guint n = MIN (weft_solver_preds (self, r, e, d, G_N_ELEMENTS (d)), G_N_ELEMENTS (d));
        g_string_append (s, "its CPU launched it late");
        for (guint i = 0; i < n; i++)
          if (d[i].kind == WEFT_DEP_STREAM && weft_solver_end (self, d[i].rank_index, d[i].event) < start)
            {
              g_string_append (s, ": its stream sat idle ");
              append_duration (s, start - weft_solver_end (self, d[i].rank_index, d[i].event));
              g_string_append (s, " after ");
              append_name (s, trace, d[i].rank_index, d[i].event);
              break;
            }
      }
      break;
    case WEFT_DEP_CROSS_STREAM:
      g_string_append (s, "it waited for ");
      append_name (s, trace, pr, pe);
      g_string_append_printf (s, " on stream %" G_GINT64_FORMAT " (a cross-stream event)", lane_tid (trace, pr, pe));
      break;
    case WEFT_DEP_SYNC:
      g_string_append (s, "its CPU thread waited on a GPU sync before launching it");
      break;
    case WEFT_DEP_USER:
      g_string_append (s, "it is held by the minimum start set by an edit");
      break;
    case WEFT_DEP_EXPLICIT:
      g_string_append (s, "of the dependency added on ");
      append_name (s, trace, pr, pe);
      break;
    case WEFT_DEP_RENDEZVOUS:
      g_string_append (s, "the collective before it waited for its last rank");
      break;
    default:
      if (weft_solver_inferred_cause (self, r, e, &pr, &pe) == WEFT_DEP_INFERRED)
        {
          g_string_append (s, "no recorded edge explains it; ");
          append_name (s, trace, pr, pe);
          g_string_append_printf (s, " on rank %d ended just before", rank_number (trace, pr));
        }
      else
        g_string_append (s, "it started at its observed time (no recorded dependency)");
      break;
    }
}

/* A collective segment: who arrived last and why. */
static void
append_collective (GString *s, WeftSolver *self, const WeftPathSegment *seg, guint32 instance)
{
  WeftTrace *trace = self->trace;
  const WeftCollInstance *inst = &g_array_index (trace->instances, WeftCollInstance, instance);
  guint n = inst->members->len;
  g_autofree WeftSolverArrival *arr = g_new0 (WeftSolverArrival, MAX (n, 1));
  WeftSolverInstanceInfo info;
  gint64 first = G_MAXINT64;
  guint first_rank = G_MAXUINT;
  guint32 last_event = WEFT_NONE;
  const char *type;

  if (!weft_solver_instance_info (self, instance, &info, arr, n))
    {
      g_string_append (s, "a collective's transfer");
      return;
    }
  type = weft_coll_type_to_string (info.type);
  for (guint k = 0; k < info.n_members && k < n; k++)
    {
      if (arr[k].arrival < first)
        {
          first = arr[k].arrival;
          first_rank = arr[k].rank_index;
        }
      if (arr[k].rank_index == info.last_rank_index)
        last_event = arr[k].event;
    }
  if (info.n_members < 2 || info.max_wait <= 0)
    {
      g_string_append_printf (s, "rank %d transfers this %s (", rank_number (trace, seg->rank_index), type);
      append_duration (s, seg->end - seg->begin);
      g_string_append (s, "); every rank arrived together");
      return;
    }
  g_string_append_printf (s, "rank %d arrives last at this %s, ", rank_number (trace, info.last_rank_index), type);
  append_duration (s, info.last_arrival - first);
  g_string_append_printf (s, " after rank %d, because ", rank_number (trace, first_rank));
  if (last_event != WEFT_NONE)
    append_start_cause (s, self, info.last_rank_index, last_event);
  else
    g_string_append (s, "it arrived late");
  g_string_append (s, "; then the transfer takes ");
  append_duration (s, info.transfer);
  if (seg->rank_index != info.last_rank_index)
    g_string_append_printf (s, " (shown on rank %d)", rank_number (trace, seg->rank_index));
}

char *
weft_solver_path_reason (WeftSolver *self, const WeftPathSegment *seg)
{
  GString *s;
  WeftTrace *trace;
  WeftRank *rank;
  const WeftEvent *ev;
  int rn;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (seg != NULL, NULL);
  trace = self->trace;
  s = g_string_new (NULL);
  if (seg->rank_index >= trace->ranks->len)
    {
      g_string_append (s, "unknown op");
      return g_string_free (s, FALSE);
    }
  rank = weft_trace_rank (trace, seg->rank_index);
  rn = rank->rank;
  ev = seg->event < rank->events->len ? weft_rank_event (rank, seg->event) : NULL;
  switch (seg->kind)
    {
    case WEFT_PATH_COMM:
      if (ev != NULL && weft_event_coll (rank, ev) != WEFT_NONE && weft_event_coll (rank, ev) < rank->collectives->len &&
          g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)).instance < trace->instances->len)
        append_collective (s, self, seg, g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)).instance);
      else
        {
          g_string_append_printf (s, "rank %d transfers ", rn);
          append_name (s, trace, seg->rank_index, seg->event);
          g_string_append (s, " for ");
          append_duration (s, seg->end - seg->begin);
        }
      break;
    case WEFT_PATH_COMPUTE:
      g_string_append_printf (s, "rank %d computes ", rn);
      append_name (s, trace, seg->rank_index, seg->event);
      g_string_append (s, " for ");
      append_duration (s, seg->end - seg->begin);
      g_string_append (s, "; it starts when it does because ");
      append_start_cause (s, self, seg->rank_index, seg->event);
      break;
    case WEFT_PATH_LAUNCH:
      g_string_append_printf (s, "rank %d's GPU waits ", rn);
      append_duration (s, seg->end - seg->begin);
      g_string_append (s, " for the CPU: ");
      if (seg->via == WEFT_DEP_SYNC)
        g_string_append (s, "the launching thread was blocked on a GPU sync before queueing ");
      else
        g_string_append (s, "launch latency and CPU work before queueing ");
      append_name (s, trace, seg->rank_index, seg->event);
      break;
    case WEFT_PATH_WAIT:
      g_string_append_printf (s, "rank %d: ", rn);
      append_name (s, trace, seg->rank_index, seg->event);
      g_string_append (s, " waits ");
      append_duration (s, seg->end - seg->begin);
      g_string_append (s, " because ");
      append_start_cause (s, self, seg->rank_index, seg->event);
      break;
    case WEFT_PATH_INFERRED:
    default:
      g_string_append_printf (s, "rank %d: ", rn);
      append_name (s, trace, seg->rank_index, seg->event);
      g_string_append (s, " starts ");
      append_duration (s, seg->end - seg->begin);
      g_string_append (s, " after ");
      if (seg->pred_rank_index != WEFT_NONE && seg->pred_rank_index < trace->ranks->len)
        {
          append_name (s, trace, seg->pred_rank_index, seg->pred_event);
          g_string_append_printf (s, " on rank %d ends, the likely cause: no recorded edge explains the gap",
                                  rank_number (trace, seg->pred_rank_index));
        }
      else
        g_string_append (s, "what ended last before it; no recorded edge explains the gap");
      break;
    }
  return g_string_free (s, FALSE);
}
