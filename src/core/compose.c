/* compose.c: the composer's discrete-event simulation and Kineto writer.
 *
 * The step program is generated once for all ranks in lockstep (SPMD: every
 * rank issues the same sequence; only group membership differs). Each
 * emitted operation becomes one node per rank in a DAG:
 *   - CPU nodes chain on the rank's CPU thread (start = previous end + gap);
 *     a sync node (cudaStreamSynchronize) ends after the GPU op it waits for;
 *   - GPU nodes start after the previous op of their stream, the events the
 *     stream waits for (cudaStreamWaitEvent) and their launch (+ latency);
 *   - a collective is one GPU node per member plus one rendezvous node per
 *     instance: rendezvous = latest member start + intrinsic transfer time;
 *     every member ends there (early ranks wait inside the kernel).
 * The DAG is solved in topological order (Kahn) with integer nanoseconds,
 * then every rank's events are written as Kineto JSON text. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "weft/weft-compose.h"
#include "weft/weft-save.h"
#include "save-private.h"
#include "compose-attention-private.h"
#include "compose-memory-private.h"
#include "compose-emit-private.h"

/* the Kineto tid of each stream */
static const int stream_ids[N_STREAMS] = { 7, 15, 17, 19, 21, 23, 25, 27, 13, 29, 31, 33, 35 };

/* ---- solving ------------------------------------------------------------------------ */

static gboolean
solve (Ctx *c, GError **error)
{
  guint n = c->nodes->len;
  guint32 *indeg = g_new0 (guint32, n);
  guint32 *off = g_new0 (guint32, n + 1);
  guint32 *adj = g_new (guint32, c->deps->len + 1);
  guint32 *queue = g_new (guint32, n + 1);
  guint qh = 0, qt = 0, done = 0;
  gboolean ok;

  for (guint i = 0; i < n; i++)
    {
      Node *nd = N (c, i);
      indeg[i] = nd->n_deps;
      for (guint k = 0; k < nd->n_deps; k++)
        off[(g_array_index (c->deps, guint32, nd->first_dep + k) & ~EDGE_MASK) + 1]++;
    }
  for (guint i = 0; i < n; i++)
    off[i + 1] += off[i];
  {
    guint32 *fill = g_memdup2 (off, sizeof (guint32) * (n + 1));
    for (guint i = 0; i < n; i++)
      {
        Node *nd = N (c, i);
        for (guint k = 0; k < nd->n_deps; k++)
          {
            guint32 d = g_array_index (c->deps, guint32, nd->first_dep + k) & ~EDGE_MASK;
            adj[fill[d]++] = i;
          }
      }
    g_free (fill);
  }
  for (guint i = 0; i < n; i++)
    if (indeg[i] == 0)
      queue[qt++] = i;
  while (qh < qt)
    {
      guint32 i = queue[qh++];
      Node *nd = N (c, i);
      gint64 start = 0;
      gint64 sync_end = G_MININT64;

      for (guint k = 0; k < nd->n_deps; k++)
        {
          guint32 e = g_array_index (c->deps, guint32, nd->first_dep + k);
          Node *d = N (c, e & ~EDGE_MASK);
          switch (e & EDGE_MASK)
            {
            case EDGE_END:
              start = MAX (start, d->end + nd->gap);
              break;
            case EDGE_START:
              start = MAX (start, d->start + nd->lat);
              break;
            default:
              sync_end = MAX (sync_end, d->end);
              break;
            }
        }
      nd->start = start;
      nd->end = start + nd->dur;
      if (sync_end != G_MININT64)
        nd->end = MAX (nd->end, sync_end + 1800);
      done++;
      for (guint32 k = off[i]; k < off[i + 1]; k++)
        if (--indeg[adj[k]] == 0)
          queue[qt++] = adj[k];
    }
  ok = done == n;
  if (!ok)
    g_set_error (error, WEFT_ERROR, WEFT_ERROR_CYCLE, "composer: the step program has a dependency cycle (%u of %u ops timed)",
                 done, n);
  g_free (indeg);
  g_free (off);
  g_free (adj);
  g_free (queue);
  return ok;
}

/* ---- writing ------------------------------------------------------------------------ */

static const gint64 ORIGIN_NS = 1000000; /* the first event at ts 1000.000 us */

static void
put_time (GString *out, gint64 ns)
{
  if (ns < 0)
    {
      g_string_append_c (out, '-');
      ns = -ns;
    }
  g_string_append_printf (out, "%" G_GINT64_FORMAT ".%03d", ns / 1000, (int) (ns % 1000));
}

static void
put_str (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (; *s; s++)
    {
      if (*s == '"' || *s == '\\')
        g_string_append_c (out, '\\');
      g_string_append_c (out, *s);
    }
  g_string_append_c (out, '"');
}

typedef struct
{
  gint64 ts;
  guint  idx;
} Order;

static int
order_cmp (gconstpointer a, gconstpointer b)
{
  const Order *x = a, *y = b;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->idx < y->idx ? -1 : (x->idx > y->idx ? 1 : 0);
}

static GBytes *
write_rank (Ctx *c, int r)
{
  RankState *s = &c->rs[r];
  GString *o = g_string_sized_new (1 << 20);
  int pid = 1840000 + r * 16 + 7;
  int dev = r % c->p.hw.gpus_per_node;
  int ndev = MIN (c->world, c->p.hw.gpus_per_node);
  gint64 first = G_MAXINT64, last = 0;
  g_autoptr (GArray) order = g_array_new (FALSE, FALSE, sizeof (Order));
  json_object *meta = weft_compose_params_to_json (&c->p);
  gboolean used[N_STREAMS] = { 0 };

  for (guint i = 0; i < s->recs->len; i++)
    {
      Rec *rec = &g_array_index (s->recs, Rec, i);
      Order od = { N (c, rec->a)->start, i };
      first = MIN (first, od.ts);
      last = MAX (last, N (c, rec->b != NONE ? rec->b : rec->a)->end);
      g_array_append_val (order, od);
      if (rec->kind == REC_GPU)
        used[rec->stream] = TRUE;
    }
  g_array_sort (order, order_cmp);

  g_string_append (o, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
  for (int i = 0; i < ndev; i++)
    g_string_append_printf (o,
                            "%s\n    {\"id\": %d, \"name\": \"%s\", \"totalGlobalMem\": %" G_GINT64_FORMAT
                            ", \"computeMajor\": 9, \"computeMinor\": 0, \"maxThreadsPerBlock\": 1024, "
                            "\"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": 65536, \"warpSize\": 32, "
                            "\"sharedMemPerBlock\": 49152, \"numSms\": %d, \"regsPerMultiprocessor\": 65536, "
                            "\"sharedMemPerBlockOptin\": 232448, \"sharedMemPerMultiprocessor\": 233472}",
                            i ? "," : "", i, c->p.hw.device_name ? c->p.hw.device_name : "NVIDIA GPU",
                            c->p.hw.hbm_total_bytes, c->p.hw.num_sms > 0 ? c->p.hw.num_sms : 132);
  g_string_append (o, "],\n  \"cupti_version\": 28,\n  \"cuda_runtime_version\": 12090,\n  \"cuda_driver_version\": 13000,\n");
  /* distributedInfo */
  {
    int members[WEFT_COMPOSE_MAX_RANKS];
    int n_pg = 0;
    GString *pg = g_string_new (NULL);
    for (int dim = 0; dim < N_DIMS; dim++)
      {
        int n;
        g_autofree char *rt = NULL;
        if (!c->dim_on[dim])
          continue;
        n = group_members (c, dim, r, members);
        rt = ranks_text (members, n);
        g_string_append_printf (pg,
                                "%s{\"pg_name\": \"%s\", \"pg_desc\": \"%s\", \"backend_config\": \"cuda:nccl\", "
                                "\"pg_size\": %d, \"ranks\": %s}",
                                n_pg ? ", " : "", c->pg_name[dim], c->pg_desc[dim], n, rt);
        n_pg++;
      }
    g_string_append_printf (o,
                            "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d, "
                            "\"pg_count\": %d, \"pg_config\": [%s], \"nccl_version\": \"2.27.5\"},\n",
                            r, c->world, n_pg, pg->str);
    g_string_free (pg, TRUE);
  }
  g_string_append (o, "  \"record_shapes\": 1,\n  \"weft\": ");
  g_string_append (o, json_object_to_json_string_ext (meta, JSON_C_TO_STRING_PLAIN));
  json_object_put (meta);
  g_string_append_printf (o, ",\n  \"trace_id\": \"%016" G_GINT64_MODIFIER "X%016" G_GINT64_MODIFIER "X\",\n",
                          (guint64) c->seed_hash, (guint64) (r + 1) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));
  g_string_append (o, "  \"displayTimeUnit\": \"ms\",\n");
  g_string_append_printf (o, "  \"baseTimeNanoseconds\": %" G_GINT64_FORMAT ",\n  \"traceEvents\": [\n",
                          c->p.base_time_ns);

#define T0(x) ((x) + ORIGIN_NS)
  guint ev_idx = 0;
  for (guint k = 0; k < order->len; k++)
    {
      Rec *rec = &g_array_index (s->recs, Rec, g_array_index (order, Order, k).idx);
      Node *a = N (c, rec->a);
      gint64 ts = a->start;
      gint64 end = rec->b != NONE ? N (c, rec->b)->end : a->end;
      if (rec->kind == REC_GPU && rec->nccl)
        {
          /* the collective's gpu_user_annotation before its kernel: with the
           * same ts and dur, Perfetto nests the later slice in the earlier
           * one, and the launch flow binds to the innermost: the kernel */
          g_string_append (o, "  {\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": ");
          put_str (o, rec->annot);
          g_string_append_printf (o, ", \"pid\": %d, \"tid\": %d, \"ts\": ", dev, stream_ids[rec->stream]);
          put_time (o, T0 (ts));
          g_string_append (o, ", \"dur\": ");
          put_time (o, end - ts);
          g_string_append_printf (o, ", \"args\": {\"External id\": %" G_GINT64_FORMAT "}},\n", rec->annot_ext);
        }
      g_string_append (o, "  {\"ph\": \"X\", \"cat\": ");
      put_str (o, rec->cat);
      g_string_append (o, ", \"name\": ");
      put_str (o, rec->name);
      if (rec->kind == REC_GPU)
        g_string_append_printf (o, ", \"pid\": %d, \"tid\": %d", dev, stream_ids[rec->stream]);
      else
        g_string_append_printf (o, ", \"pid\": %d, \"tid\": %d", pid, pid);
      g_string_append (o, ", \"ts\": ");
      put_time (o, T0 (ts));
      g_string_append (o, ", \"dur\": ");
      put_time (o, end - ts);
      g_string_append (o, ", \"args\": {");
      switch (rec->kind)
        {
        case REC_SCOPE:
          if (g_str_equal (rec->cat, "python_function"))
            g_string_append_printf (o, "\"Python id\": %" G_GINT64_FORMAT ", \"Python thread\": 0", rec->ext);
          else
            {
              g_string_append_printf (o, "\"External id\": %" G_GINT64_FORMAT ", \"Record function id\": 0", rec->ext);
              if (rec->args)
                g_string_append_printf (o, ", %s", rec->args);
              g_string_append_printf (o, ", \"Ev Idx\": %u", ev_idx++);
            }
          break;
        case REC_RUNTIME:
          if (rec->ext > 0)
            g_string_append_printf (o, "\"External id\": %" G_GINT64_FORMAT ", ", rec->ext);
          g_string_append_printf (o, "\"cbid\": %d, \"correlation\": %" G_GINT64_FORMAT, rec->cbid, rec->corr);
          break;
        case REC_GPU:
          if (rec->ext > 0)
            g_string_append_printf (o, "\"External id\": %" G_GINT64_FORMAT ", ", rec->ext);
          if (rec->memcpy)
            g_string_append_printf (o, "\"device\": %d, \"context\": 1, \"stream\": %d, \"correlation\": %" G_GINT64_FORMAT,
                                    dev, stream_ids[rec->stream], rec->corr);
          else
            g_string_append_printf (o, "\"queued\": 0, \"device\": %d, \"context\": 1, \"stream\": %d, \"correlation\": %" G_GINT64_FORMAT,
                                    dev, stream_ids[rec->stream], rec->corr);
          if (rec->args)
            g_string_append_printf (o, ", %s", rec->args);
          break;
        }
      g_string_append (o, "}},\n");
      if (rec->kind == REC_RUNTIME && rec->launch)
        {
          g_string_append_printf (o, "  {\"ph\": \"s\", \"id\": %" G_GINT64_FORMAT ", \"pid\": %d, \"tid\": %d, \"ts\": ",
                                  rec->corr, pid, pid);
          put_time (o, T0 (ts));
          g_string_append (o, ", \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n");
        }
      if (rec->kind == REC_GPU)
        {
          g_string_append_printf (o, "  {\"ph\": \"f\", \"id\": %" G_GINT64_FORMAT ", \"pid\": %d, \"tid\": %d, \"ts\": ",
                                  rec->corr, dev, stream_ids[rec->stream]);
          put_time (o, T0 (ts));
          g_string_append (o, ", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n");
        }
    }
  /* the memory model's allocator events (compose-memory.c) */
  {
    g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (WeftComposeSpan));
    for (guint i = 0; i < s->recs->len; i++)
      {
        Rec *rec = &g_array_index (s->recs, Rec, i);
        WeftComposeSpan sp = { rec->name, T0 (N (c, rec->a)->start),
                               T0 (N (c, rec->b != NONE ? rec->b : rec->a)->end) };
        if (rec->kind == REC_SCOPE)
          g_array_append_val (spans, sp);
      }
    _weft_compose_memory_write_events (o, &c->p, c->p.ac, spans, pid, dev);
  }
  /* metadata */
  {
    gint64 mts = T0 (first) - 400000;
    char tsbuf[40];
    GString *t = g_string_new (NULL);
    put_time (t, mts);
    g_strlcpy (tsbuf, t->str, sizeof tsbuf);
    g_string_free (t, TRUE);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"process_name\", \"ts\": %s, \"pid\": %d, \"tid\": 0, \"args\": {\"name\": \"python3.12\"}},\n", tsbuf, pid);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"process_labels\", \"ts\": %s, \"pid\": %d, \"tid\": 0, \"args\": {\"labels\": \"CPU\"}},\n", tsbuf, pid);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"process_sort_index\", \"ts\": %s, \"pid\": %d, \"tid\": 0, \"args\": {\"sort_index\": %d}},\n", tsbuf, pid, pid);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"process_name\", \"ts\": %s, \"pid\": %d, \"tid\": 0, \"args\": {\"name\": \"python3.12\"}},\n", tsbuf, dev);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"process_labels\", \"ts\": %s, \"pid\": %d, \"tid\": 0, \"args\": {\"labels\": \"GPU %d\"}},\n", tsbuf, dev, dev);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"process_sort_index\", \"ts\": %s, \"pid\": %d, \"tid\": 0, \"args\": {\"sort_index\": %d}},\n", tsbuf, dev, 5000000 + dev);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"thread_name\", \"ts\": %s, \"pid\": %d, \"tid\": %d, \"args\": {\"name\": \"thread %d (python3.12)\"}},\n", tsbuf, pid, pid, pid);
    g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"thread_sort_index\", \"ts\": %s, \"pid\": %d, \"tid\": %d, \"args\": {\"sort_index\": %d}},\n", tsbuf, pid, pid, pid);
    for (int st = 0; st < N_STREAMS; st++)
      if (used[st])
        {
          g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"thread_name\", \"ts\": %s, \"pid\": %d, \"tid\": %d, \"args\": {\"name\": \"stream %d \"}},\n", tsbuf, dev, stream_ids[st], stream_ids[st]);
          g_string_append_printf (o, "  {\"ph\": \"M\", \"name\": \"thread_sort_index\", \"ts\": %s, \"pid\": %d, \"tid\": %d, \"args\": {\"sort_index\": %d}},\n", tsbuf, dev, stream_ids[st], stream_ids[st]);
        }
    g_string_append (o, "  {\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"PyTorch Profiler (0)\", \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\", \"ts\": ");
    put_time (o, T0 (first) - 200000);
    g_string_append (o, ", \"dur\": ");
    put_time (o, last - first + 400000);
    g_string_append (o, ", \"args\": {\"Op count\": 0}},\n");
    g_string_append (o, "  {\"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ");
    put_time (o, T0 (first) - 200000);
    g_string_append (o, "},\n  {\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", \"tid\": \"\", \"ts\": ");
    put_time (o, T0 (last) + 200000);
    g_string_append (o, "}\n  ],\n  \"traceName\": \"");
    g_string_append_printf (o, "profiling/traces/iteration_%d/rank%d_trace.json\"\n}\n", c->p.iteration, r);
  }
#undef T0
  return g_string_free_to_bytes (o);
}

/* ---- driver ---------------------------------------------------------------------------- */

static void
ctx_free (Ctx *c)
{
  if (c->rs != NULL)
    for (int r = 0; r < c->world; r++)
      {
        if (c->rs[r].recs)
          g_array_unref (c->rs[r].recs);
        if (c->rs[r].rng)
          g_rand_free (c->rs[r].rng);
      }
  g_free (c->rs);
  if (c->nodes)
    g_array_unref (c->nodes);
  if (c->deps)
    g_array_unref (c->deps);
  if (c->strs)
    g_string_chunk_free (c->strs);
  if (c->rng)
    g_rand_free (c->rng);
  weft_cost_model_free (c->own_cm);
}

static void
ctx_init (Ctx *c, const WeftComposeParams *params)
{
  static const char *descs[N_DIMS] = { "default_pg", "mesh_dp", "mesh_tp", "mesh_cp", "mesh_ep", "mesh_dp_mod_ep",
                                       "mesh_dp_replicate", "mesh_pp" };
  int next_pg = 0;

  memset (c, 0, sizeof *c);
  c->p = *params;
  c->world = weft_compose_world_size (params);
  c->nodes = g_array_sized_new (FALSE, FALSE, sizeof (Node), 1 << 16);
  c->deps = g_array_sized_new (FALSE, FALSE, sizeof (guint32), 1 << 17);
  c->strs = g_string_chunk_new (1 << 16);
  c->rng = g_rand_new_with_seed (params->seed * 2654435761u + 17);
  c->seed_hash = fnv1a (params->model.name, G_GUINT64_CONSTANT (1469598103934665603) + params->seed);
  if (params->cost_model == NULL)
    {
      c->own_cm = weft_cost_model_new (&params->hw);
      c->cm = c->own_cm;
    }
  else
    c->cm = params->cost_model;
  c->dim_on[DIM_WORLD] = TRUE;
  c->dim_on[DIM_DP] = (params->strategies & (WEFT_STRATEGY_DDP | WEFT_STRATEGY_FSDP)) && params->dp * params->cp > 1;
  c->dim_on[DIM_TP] = (params->strategies & WEFT_STRATEGY_TP) && params->tp > 1;
  c->dim_on[DIM_CP] = (params->strategies & WEFT_STRATEGY_CP) && params->cp > 1;
  c->dim_on[DIM_EP] = (params->strategies & WEFT_STRATEGY_EP) && params->ep > 1;
  c->dim_on[DIM_DPEP] = c->dim_on[DIM_EP] && (params->strategies & WEFT_STRATEGY_FSDP)
                        && params->dp * params->cp / params->ep > 1;
  c->dim_on[DIM_REPL] = (params->strategies & WEFT_STRATEGY_FSDP) && params->dp_replicate > 1;
  c->dim_on[DIM_PP] = params->pp > 1;
  for (int d = 0; d < N_DIMS; d++)
    {
      c->pg_desc[d] = descs[d];
      if (c->dim_on[d])
        g_snprintf (c->pg_name[d], sizeof c->pg_name[d], "%d", next_pg++);
    }
  if (params->cp > 1 && c->dim_on[DIM_DP])
    c->pg_desc[DIM_DP] = "mesh_dp_cp";
  if (c->dim_on[DIM_REPL])
    c->pg_desc[DIM_DP] = params->cp > 1 ? "mesh_dp_shard_cp" : "mesh_dp_shard";
  c->rs = g_new0 (RankState, c->world);
  c->r_lo = 0;
  c->r_hi = c->world;
  c->inner = c->world / MAX (params->pp, 1);
  for (int r = 0; r < c->world; r++)
    {
      RankState *s = &c->rs[r];
      s->recs = g_array_sized_new (FALSE, TRUE, sizeof (Rec), 4096);
      s->rng = g_rand_new_with_seed (params->seed * 1000003u + (guint32) r * 7919u + 1);
      s->cpu_last = NONE;
      for (int st = 0; st < N_STREAMS; st++)
        s->stream_last[st] = NONE;
      for (guint i = 0; i < G_N_ELEMENTS (s->handles); i++)
        s->handles[i] = NONE;
      for (int st = 0; st < N_STREAMS; st++)
        s->rec_node[st] = NONE;
      for (guint i = 0; i < G_N_ELEMENTS (s->handle_wait); i++)
        s->handle_wait[i] = NONE;
      s->scratch = NONE;
      s->scratch_wait = NONE;
      s->ext = 300 + r * 0;
      s->corr = 1400;
      /* each rank's CPU starts a little apart */
      s->cpu_last = node_new (c, NODE_CPU, (gint64) (g_rand_double (s->rng) * 40000), 0, 0);
    }
}

static gboolean
compose_build (Ctx *c, const WeftComposeParams *params, GError **error)
{
  if (!weft_compose_params_validate (params, error))
    return FALSE;
  ctx_init (c, params);
  for (int k = 0; k < params->steps; k++)
    {
      if (params->pp <= 1)
        emit_step (c, params->iteration - params->steps + k);
      else if (!pp_emit_step (c, params->iteration - params->steps + k, error))
        {
          ctx_free (c);
          return FALSE;
        }
    }
  if (!solve (c, error))
    {
      ctx_free (c);
      return FALSE;
    }
  return TRUE;
}

GPtrArray *
weft_compose_json (const WeftComposeParams *params, GError **error)
{
  Ctx c;
  GPtrArray *out;

  if (!compose_build (&c, params, error))
    return NULL;
  out = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  for (int r = 0; r < c.world; r++)
    g_ptr_array_add (out, write_rank (&c, r));
  ctx_free (&c);
  return out;
}

typedef struct
{
  Ctx         *c;
  WeftSaveTxn *txn;        /* file r is rank r's */
  GMutex       lock;
  GError      *error;
  const WeftComposeParams *params;  /* its progress callback */
  guint        n_written;  /* atomic */
} WriteJobs;

static void
write_job (gpointer data, gpointer user_data)
{
  WriteJobs *jobs = user_data;
  int r = GPOINTER_TO_INT (data) - 1;
  g_autoptr (GBytes) b = NULL;
  GError *error = NULL;

  g_mutex_lock (&jobs->lock);
  if (jobs->error != NULL)
    {
      g_mutex_unlock (&jobs->lock);
      return;
    }
  g_mutex_unlock (&jobs->lock);
  b = write_rank (jobs->c, r);
  /* to the rank's temporary: the set is renamed into place only when every
   * rank is written (save.c) */
  if (!weft_save_txn_write_bytes (jobs->txn, r, b, &error))
    {
      g_mutex_lock (&jobs->lock);
      if (jobs->error == NULL)
        jobs->error = error;
      else
        g_error_free (error);
      g_mutex_unlock (&jobs->lock);
      return;
    }
  if (jobs->params->progress != NULL)
    {
      guint n = (guint) g_atomic_int_add ((gint *) &jobs->n_written, 1) + 1;
      jobs->params->progress (1 + n, (guint64) jobs->c->world + 1, jobs->params->progress_data);
    }
}

gboolean
weft_compose_write (const WeftComposeParams *params,
                    const char              *out_dir,
                    const char              *ext,
                    char                   **written_dir,
                    GError                 **error)
{
  g_autofree char *dir = NULL;
  g_autoptr (GPtrArray) targets = NULL;
  g_autoptr (WeftSaveTxn) txn = NULL;
  gboolean gz;
  Ctx c;
  WriteJobs jobs = { 0 };
  GThreadPool *pool;
  int n_threads;

  if (ext == NULL)
    ext = ".json.gz";
  gz = g_str_equal (ext, ".json.gz") || g_str_equal (ext, "json.gz");
  if (!gz && !g_str_equal (ext, ".json") && !g_str_equal (ext, "json"))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID, "unknown output format '%s' (json or json.gz)", ext);
      return FALSE;
    }
  if (!weft_compose_params_validate (params, error))
    return FALSE;
  dir = g_strdup_printf ("%s/profiling/traces/iteration_%d", out_dir, params->iteration);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot create the folder", dir);
      return FALSE;
    }
  if (params->progress != NULL)
    params->progress (0, (guint64) weft_compose_world_size (params) + 1, params->progress_data);
  if (!compose_build (&c, params, error))
    return FALSE;
  if (params->progress != NULL)
    params->progress (1, (guint64) c.world + 1, params->progress_data);
  /* Loading OUT (or the iteration folder) later must give exactly these
   * ranks: refuse a folder holding other traces. */
  targets = g_ptr_array_new_with_free_func (g_free);
  for (int r = 0; r < c.world; r++)
    g_ptr_array_add (targets, g_strdup_printf ("%s/rank%d_trace.json%s", dir, r, gz ? ".gz" : ""));
  if (!weft_save_check_folder (dir, (const char *const *) targets->pdata, targets->len, error) ||
      !weft_save_check_folder (out_dir, (const char *const *) targets->pdata, targets->len, error))
    {
      ctx_free (&c);
      return FALSE;
    }
  jobs.txn = txn = weft_save_txn_new ();
  for (int r = 0; r < c.world; r++)
    {
      if (weft_save_txn_add (txn, g_ptr_array_index (targets, r), error) < 0)
        {
          ctx_free (&c);
          return FALSE;
        }
      weft_save_txn_remove_other_formats (txn, r);
    }
  /* every rank's text is built and compressed in parallel (read-only on c) */
  jobs.c = &c;
  jobs.params = params;
  g_mutex_init (&jobs.lock);
  n_threads = CLAMP ((int) g_get_num_processors (), 1, c.world);
  pool = g_thread_pool_new (write_job, &jobs, n_threads, TRUE, NULL);
  for (int r = 0; r < c.world; r++)
    g_thread_pool_push (pool, GINT_TO_POINTER (r + 1), NULL);
  g_thread_pool_free (pool, FALSE, TRUE);
  g_mutex_clear (&jobs.lock);
  ctx_free (&c);
  if (jobs.error == NULL)
    weft_save_txn_commit (txn, &jobs.error);
  if (jobs.error != NULL)
    {
      g_propagate_error (error, jobs.error);
      return FALSE;
    }
  if (written_dir != NULL)
    *written_dir = g_steal_pointer (&dir);
  return TRUE;
}
