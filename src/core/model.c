/* model.c: ranks, lanes, events, strings of the enums, time spans. The
 * post-load index (lanes, flows, launch links, steps) is in model-index.c,
 * classification and matching in classify.c. */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "weft/weft-model.h"
#include "runsort-private.h"
#include "textstore-private.h"

G_DEFINE_QUARK (weft-error-quark, weft_error)

/* ---- enums ------------------------------------------------------------------ */

static const struct
{
  const char  *name;
  WeftCategory cat;
} category_names[] = {
  { "cpu_op", WEFT_CAT_CPU_OP },
  { "user_annotation", WEFT_CAT_USER_ANNOTATION },
  { "gpu_user_annotation", WEFT_CAT_GPU_USER_ANNOTATION },
  { "python_function", WEFT_CAT_PYTHON_FUNCTION },
  { "cuda_runtime", WEFT_CAT_CUDA_RUNTIME },
  { "cuda_driver", WEFT_CAT_CUDA_DRIVER },
  { "kernel", WEFT_CAT_KERNEL },
  { "gpu_memcpy", WEFT_CAT_GPU_MEMCPY },
  { "gpu_memset", WEFT_CAT_GPU_MEMSET },
  { "cuda_sync", WEFT_CAT_CUDA_SYNC },
  { "cuda_event", WEFT_CAT_CUDA_EVENT },
  { "overhead", WEFT_CAT_OVERHEAD },
  { "Trace", WEFT_CAT_TRACE },
  { "ac2g", WEFT_CAT_AC2G },
  { "async_cpu_to_gpu", WEFT_CAT_AC2G },
  { "fwdbwd", WEFT_CAT_FWDBWD },
  { "cpu_instant_event", WEFT_CAT_CPU_INSTANT },
  /* ROCm / older names */
  { "Kernel", WEFT_CAT_KERNEL },
  { "Memcpy", WEFT_CAT_GPU_MEMCPY },
  { "Memset", WEFT_CAT_GPU_MEMSET },
  { "Runtime", WEFT_CAT_CUDA_RUNTIME },
  { "Operator", WEFT_CAT_CPU_OP },
};

WeftCategory
weft_category_from_string (const char *cat, gsize len)
{
  for (guint i = 0; i < G_N_ELEMENTS (category_names); i++)
    if (strlen (category_names[i].name) == len && memcmp (category_names[i].name, cat, len) == 0)
      return category_names[i].cat;
  return WEFT_CAT_OTHER;
}

const char *
weft_phase_to_string (WeftPhase ph)
{
  static const char *names[] = { "X", "i", "s", "t", "f", "M", "C", "B", "E", "other" };
  return ph < G_N_ELEMENTS (names) ? names[ph] : "other";
}

const char *
weft_kernel_class_to_string (WeftKernelClass kclass)
{
  static const char *names[] = { "none",      "gemm",      "attention", "norm",  "elementwise",
                                 "reduction", "optimizer", "copy",      "other", "communication" };
  return kclass < G_N_ELEMENTS (names) ? names[kclass] : "other";
}

static const char *coll_names[] = { "none",       "all_reduce", "all_gather", "reduce_scatter",
                                     "all_to_all", "send",       "recv",       "send_recv",
                                     "broadcast",  "reduce",     "barrier",    "ep_notify",
                                     "unknown" };
G_STATIC_ASSERT (G_N_ELEMENTS (coll_names) == WEFT_COLL_N_TYPES);

const char *
weft_coll_type_to_string (WeftCollType type)
{
  return type < G_N_ELEMENTS (coll_names) ? coll_names[type] : "unknown";
}

WeftCollType
weft_coll_type_from_string (const char *str)
{
  for (guint i = 0; i < G_N_ELEMENTS (coll_names); i++)
    if (g_strcmp0 (coll_names[i], str) == 0)
      return (WeftCollType) i;
  return WEFT_COLL_NONE;
}

const char *
weft_lane_role_to_string (WeftLaneRole role)
{
  static const char *names[] = { "", "compute", "nccl", "fsdp all-gather", "fsdp reduce-scatter", "copy", "sync" };
  return role < G_N_ELEMENTS (names) ? names[role] : "";
}

/* ---- lifecycle -------------------------------------------------------------- */

static void
top_key_clear (gpointer data)
{
  WeftTopKey *k = data;
  g_free (k->raw);
  g_free (k->packed);
}

static void
collective_clear (gpointer data)
{
  WeftCollective *c = data;
  g_free (c->pg_ranks);
}

static void
process_group_clear (gpointer data)
{
  WeftProcessGroup *pg = data;
  g_free (pg->ranks);
}

static void
lane_free (gpointer data)
{
  WeftLane *lane = data;
  g_array_free (lane->events, TRUE);
  g_free (lane);
}

/* ---- event ids --------------------------------------------------------------- */

static void
id_encode (WeftRank *rank, gint32 *code, gint64 value)
{
  guint idx;

  if (value >= -1 && value <= WEFT_ID_INLINE_MAX)
    {
      *code = (gint32) value;
      return;
    }
  /* the same value already in the pool for this field: keep it */
  if (*code < -1 && (guint) (-2 - (gint64) *code) < rank->wide_ids->len && _weft_rank_id_decode (rank, *code) == value)
    return;
  if (rank->wide_ids->len >= WEFT_WIDE_IDS_MAX)
    g_error ("%s: more than %u event ids outside -1 .. 2^31-1", rank->path, WEFT_WIDE_IDS_MAX);
  idx = rank->wide_ids->len;
  g_array_append_val (rank->wide_ids, value);
  *code = (gint32) (-2 - (gint64) idx);
}

void
weft_event_set_correlation (WeftRank *rank, WeftEvent *ev, gint64 value)
{
  g_return_if_fail (rank != NULL && ev != NULL);
  id_encode (rank, &ev->correlation_code, value);
}

void
weft_event_set_external_id (WeftRank *rank, WeftEvent *ev, gint64 value)
{
  g_return_if_fail (rank != NULL && ev != NULL);
  id_encode (rank, &ev->external_id_code, value);
}

void
weft_event_set_flow_id (WeftRank *rank, WeftEvent *ev, gint64 value)
{
  gint32 code;

  g_return_if_fail (rank != NULL && ev != NULL);
  if (!_weft_event_is_flow (ev))
    {
      g_return_if_fail (value == -1);
      return;
    }
  code = (gint32) ev->link_code;
  id_encode (rank, &code, value);
  ev->link_code = (guint32) code;
}

void
weft_event_set_dur (WeftRank *rank, WeftEvent *ev, gint64 value)
{
  guint idx;

  g_return_if_fail (rank != NULL && ev != NULL);
  if (value >= 0 && value <= WEFT_DUR_INLINE_MAX)
    {
      ev->dur_code = (gint32) value;
      return;
    }
  /* the same value already in the pool for this record: keep it */
  if (ev->dur_code < 0 && (guint) (-1 - (gint64) ev->dur_code) < rank->wide_ids->len &&
      weft_event_dur (rank, ev) == value)
    return;
  if (rank->wide_ids->len >= WEFT_WIDE_IDS_MAX)
    g_error ("%s: more than %u event ids and durations outside 32 bits", rank->path, WEFT_WIDE_IDS_MAX);
  idx = rank->wide_ids->len;
  g_array_append_val (rank->wide_ids, value);
  ev->dur_code = (gint32) (-1 - (gint64) idx);
}

/* ---- texts and collectives of events ------------------------------------------ */

guint32
weft_event_text_slot (const WeftRank *rank, const WeftEvent *ev)
{
  const WeftEvent *base;
  guint32 idx;

  g_return_val_if_fail (rank != NULL && ev != NULL, WEFT_TEXT_NONE);
  base = (const WeftEvent *) (const void *) rank->events->data;
  if (ev < base || ev >= base + rank->events->len)
    return WEFT_TEXT_NONE;
  idx = (guint32) (ev - base);
  if (G_LIKELY (!(ev->flags & WEFT_EVENT_CREATED)))
    {
      /* the loader gives each event the next slot; a record appended
       * without the CREATED flag (tests, benchmarks) has none */
      return idx < _weft_text_store_count (rank->texts) ? idx + 1 : WEFT_TEXT_NONE;
    }
  return GPOINTER_TO_UINT (g_hash_table_lookup (rank->created_texts, GUINT_TO_POINTER (idx)));
}

void
weft_rank_set_created_text (WeftRank *rank, guint32 idx, guint32 slot)
{
  g_return_if_fail (rank != NULL);
  if (slot == WEFT_TEXT_NONE)
    g_hash_table_remove (rank->created_texts, GUINT_TO_POINTER (idx));
  else
    g_hash_table_insert (rank->created_texts, GUINT_TO_POINTER (idx), GUINT_TO_POINTER (slot));
}

/* The position of idx in rank->event_colls, or where it would go. */
static guint
event_coll_pos (const WeftRank *rank, guint32 idx)
{
  const WeftEventColl *a = (const WeftEventColl *) (const void *) rank->event_colls->data;
  guint lo = 0, hi = rank->event_colls->len;

  if (hi > 0 && a[hi - 1].event < idx)
    return hi; /* appending in order (the classifier) */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (a[mid].event < idx)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

guint32
_weft_rank_event_coll_lookup (const WeftRank *rank, guint32 idx)
{
  guint pos = event_coll_pos (rank, idx);

  if (pos < rank->event_colls->len && g_array_index (rank->event_colls, WeftEventColl, pos).event == idx)
    return g_array_index (rank->event_colls, WeftEventColl, pos).coll;
  return WEFT_NONE;
}

void
weft_rank_event_set_coll (WeftRank *rank, guint32 idx, guint32 coll)
{
  guint w = idx >> 6, pos;
  gboolean present;

  g_return_if_fail (rank != NULL);
  pos = event_coll_pos (rank, idx);
  present = pos < rank->event_colls->len && g_array_index (rank->event_colls, WeftEventColl, pos).event == idx;
  if (coll == WEFT_NONE)
    {
      if (w < rank->coll_marks->len)
        g_array_index (rank->coll_marks, guint64, w) &= ~((guint64) 1 << (idx & 63));
      if (present)
        g_array_remove_index (rank->event_colls, pos);
      return;
    }
  if (w >= rank->coll_marks->len)
    g_array_set_size (rank->coll_marks, w + 1); /* a cleared array: new words are 0 */
  g_array_index (rank->coll_marks, guint64, w) |= (guint64) 1 << (idx & 63);
  if (present)
    g_array_index (rank->event_colls, WeftEventColl, pos).coll = coll;
  else
    g_array_insert_val (rank->event_colls, pos, ((WeftEventColl) { idx, coll }));
}

void
weft_rank_clear_event_colls (WeftRank *rank)
{
  g_return_if_fail (rank != NULL);
  g_array_set_size (rank->event_colls, 0);
  g_array_set_size (rank->coll_marks, 0);
}

WeftRank *
weft_rank_new (const char *path)
{
  WeftRank *self = g_new0 (WeftRank, 1);
  self->rank = -1;
  self->world_size = -1;
  self->path = g_strdup (path ? path : "");
  self->strings = weft_strings_new ();
  self->texts = _weft_text_store_new ();
  self->events = g_array_new (FALSE, FALSE, sizeof (WeftEvent));
  self->wide_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->event_colls = g_array_new (FALSE, FALSE, sizeof (WeftEventColl));
  self->coll_marks = g_array_new (FALSE, TRUE, sizeof (guint64));
  self->created_texts = g_hash_table_new (NULL, NULL);
  self->lanes = g_ptr_array_new_with_free_func (lane_free);
  self->flows = g_array_new (FALSE, FALSE, sizeof (WeftFlow));
  self->collectives = g_array_new (FALSE, TRUE, sizeof (WeftCollective));
  g_array_set_clear_func (self->collectives, collective_clear);
  self->steps = g_array_new (FALSE, FALSE, sizeof (WeftStep));
  self->top_keys = g_array_new (FALSE, TRUE, sizeof (WeftTopKey));
  g_array_set_clear_func (self->top_keys, top_key_clear);
  self->process_groups = g_array_new (FALSE, TRUE, sizeof (WeftProcessGroup));
  g_array_set_clear_func (self->process_groups, process_group_clear);
  self->lane_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return self;
}

void
weft_rank_free (WeftRank *self)
{
  if (self == NULL)
    return;
  g_free (self->path);
  weft_strings_free (self->strings);
  _weft_text_store_free (self->texts);
  g_array_free (self->events, TRUE);
  g_array_free (self->wide_ids, TRUE);
  g_array_free (self->event_colls, TRUE);
  g_array_free (self->coll_marks, TRUE);
  g_hash_table_destroy (self->created_texts);
  g_ptr_array_free (self->lanes, TRUE);
  g_array_free (self->flows, TRUE);
  g_array_free (self->collectives, TRUE);
  g_array_free (self->steps, TRUE);
  g_array_free (self->top_keys, TRUE);
  g_array_free (self->process_groups, TRUE);
  g_hash_table_destroy (self->lane_index);
  g_free (self);
}

static void
instance_clear (gpointer data)
{
  WeftCollInstance *inst = data;
  g_array_free (inst->members, TRUE);
}

WeftTrace *
weft_trace_new (void)
{
  WeftTrace *self = g_new0 (WeftTrace, 1);
  self->ranks = g_ptr_array_new_with_free_func ((GDestroyNotify) weft_rank_free);
  self->instances = g_array_new (FALSE, TRUE, sizeof (WeftCollInstance));
  g_array_set_clear_func (self->instances, instance_clear);
  self->apply_clock_offsets = TRUE;
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  return self;
}

void
weft_trace_add_warning (WeftTrace *self, const char *format, ...)
{
  va_list ap;
  char *line;

  va_start (ap, format);
  line = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_debug ("%s", line);
  g_ptr_array_add (self->warnings, line);
}

void
weft_trace_free (WeftTrace *self)
{
  if (self == NULL)
    return;
  g_ptr_array_free (self->ranks, TRUE);
  g_array_free (self->instances, TRUE);
  g_ptr_array_free (self->warnings, TRUE);
  g_free (self);
}

static gint
rank_cmp (gconstpointer a, gconstpointer b)
{
  const WeftRank *ra = *(WeftRank * const *) a;
  const WeftRank *rb = *(WeftRank * const *) b;
  return (ra->rank > rb->rank) - (ra->rank < rb->rank);
}

void
weft_trace_add_rank (WeftTrace *self, WeftRank *rank)
{
  g_ptr_array_add (self->ranks, rank);
  g_ptr_array_sort (self->ranks, rank_cmp);
}

int
weft_trace_find_rank (WeftTrace *trace, int rank_number)
{
  for (guint i = 0; i < trace->ranks->len; i++)
    if (weft_trace_rank (trace, i)->rank == rank_number)
      return (int) i;
  return -1;
}

/* ---- args ------------------------------------------------------------------- */

#define WEFT_EVENT_PARSE_MAX_DEPTH 4096

static void
event_tokener_free (gpointer tok)
{
  json_tokener_free (tok);
}

static GPrivate event_tokener = G_PRIVATE_INIT (event_tokener_free);

json_object *
weft_event_parse (const WeftRank *rank, const WeftEvent *ev)
{
  json_tokener *tok;
  json_object *obj;
  const char *text;
  gsize len;

  if (!weft_event_has_text (rank, ev))
    return NULL;
  /* The loader already validated the text under its own nesting limit
   * (default 256, settable): json-c's tokener keeps an explicit stack, so a
   * generous depth costs nothing for ordinary events. */
  /* one tokener per thread, reset per event: making one clears its whole
   * depth stack (~100 KiB at this depth), which cost more than parsing a
   * collective kernel's event (perf: 3 % of a load went to that memset) */
  tok = g_private_get (&event_tokener);
  if (tok == NULL)
    {
      tok = json_tokener_new_ex (WEFT_EVENT_PARSE_MAX_DEPTH);
      g_private_set (&event_tokener, tok);
    }
  else
    json_tokener_reset (tok);
  text = _weft_rank_text_lock (rank, ev, &len);
  obj = text != NULL && len > 0 && len <= G_MAXINT ? json_tokener_parse_ex (tok, text, (int) len) : NULL;
  _weft_rank_text_unlock (rank);
  json_tokener_reset (tok);
  return obj;
}

json_object *
weft_event_parse_args (const WeftRank *rank, const WeftEvent *ev)
{
  json_object *obj = weft_event_parse (rank, ev);
  json_object *args = NULL;

  if (obj == NULL)
    return NULL;
  if (json_object_object_get_ex (obj, "args", &args))
    json_object_get (args);
  else
    args = NULL;
  json_object_put (obj);
  return args;
}

/* ---- lanes ------------------------------------------------------------------ */

static gboolean
parse_int_text (const char *s, gint64 *out)
{
  char *end = NULL;
  gint64 v;

  if (*s == '"')
    return FALSE;
  v = g_ascii_strtoll (s, &end, 10);
  if (end == s || *end != '\0')
    return FALSE;
  *out = v;
  return TRUE;
}

guint32
weft_rank_ensure_lane (WeftRank *rank, const char *pid_text, gsize pid_len, const char *tid_text, gsize tid_len)
{
  char stack_key[128];
  char *key;
  gsize klen = pid_len + 1 + tid_len;
  gpointer found;
  WeftLane *lane;
  guint32 idx;

  key = klen < sizeof stack_key ? stack_key : g_malloc (klen + 1);
  memcpy (key, pid_text, pid_len);
  key[pid_len] = '\x1f';
  memcpy (key + pid_len + 1, tid_text, tid_len);
  key[klen] = '\0';

  found = g_hash_table_lookup (rank->lane_index, key);
  if (found != NULL)
    {
      if (key != stack_key)
        g_free (key);
      return GPOINTER_TO_UINT (found) - 1;
    }

  lane = g_new0 (WeftLane, 1);
  lane->pid_text = weft_strings_intern (rank->strings, pid_text, (gssize) pid_len);
  lane->tid_text = weft_strings_intern (rank->strings, tid_text, (gssize) tid_len);
  if (!parse_int_text (weft_strings_get (rank->strings, lane->pid_text), &lane->pid))
    lane->pid = G_MININT64;
  if (!parse_int_text (weft_strings_get (rank->strings, lane->tid_text), &lane->tid))
    lane->tid = G_MININT64;
  lane->kind = WEFT_LANE_OTHER;
  lane->device = -1;
  lane->sort_index = lane->tid;
  lane->events = g_array_new (FALSE, FALSE, sizeof (guint32));
  idx = rank->lanes->len;
  g_ptr_array_add (rank->lanes, lane);
  g_hash_table_insert (rank->lane_index, key == stack_key ? g_strdup (key) : key, GUINT_TO_POINTER (idx + 1));
  return idx;
}

static gint
lane_event_cmp (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const WeftRank *rank = user_data;
  const WeftEvent *events = (const WeftEvent *) (const void *) rank->events->data;
  const WeftEvent *ea = &events[*(const guint32 *) a];
  const WeftEvent *eb = &events[*(const guint32 *) b];
  gint64 da, db;
  if (ea->ts != eb->ts)
    return ea->ts < eb->ts ? -1 : 1;
  da = weft_event_dur (rank, ea);
  db = weft_event_dur (rank, eb);
  if (da != db)
    return da > db ? -1 : 1;
  return *(const guint32 *) a < *(const guint32 *) b ? -1 : 1;
}

typedef struct
{
  gint64  ts;
  gint64  dur;
  guint32 idx;
} LaneSortKey;

static inline gboolean
lane_key_before (const LaneSortKey *x, const LaneSortKey *y)
{
  if (x->ts != y->ts)
    return x->ts < y->ts;
  if (x->dur != y->dur)
    return x->dur > y->dur;
  return x->idx < y->idx;
}

/* The keys in lane_key_before's order (runsort-private.h: a lane is
 * mostly a few runs in order, 1-4 breaks in df_index_resolver's lanes of
 * up to 90k events). A total order, so the result is qsort's. */
WEFT_DEFINE_RUN_SORT (sort_lane_keys, LaneSortKey, lane_key_before)

void
weft_lane_sort (WeftRank *rank, WeftLane *lane)
{
  guint n = lane->events->len;
  guint32 *idx = (guint32 *) (void *) lane->events->data;
  const WeftEvent *events = (const WeftEvent *) (void *) rank->events->data;
  LaneSortKey *keys;

  if (n < 64)
    {
      g_qsort_with_data (idx, (gint) n, sizeof (guint32), lane_event_cmp, rank);
      return;
    }
  /* The same order (a total one) over packed keys: comparing through the
   * records missed the cache on every comparison (5 % of a load);
   * lanes written in order (most of them) are only checked. */
  keys = g_new (LaneSortKey, n);
  for (guint i = 0; i < n; i++)
    {
      const WeftEvent *ev = &events[idx[i]];
      keys[i].ts = ev->ts;
      keys[i].dur = weft_event_dur (rank, ev);
      keys[i].idx = idx[i];
    }
  if (sort_lane_keys (keys, n))
    {
      for (guint i = 0; i < n; i++)
        idx[i] = keys[i].idx;
    }
  g_free (keys);
}

guint
weft_lane_lower_bound (WeftRank *rank, WeftLane *lane, gint64 t)
{
  /* Events sorted by start; find the first event whose start >= t, then step
   * back over events that still cover t (bounded by a scan of the maximum
   * duration is not needed for drawing: callers start a few before). */
  guint lo = 0, hi = lane->events->len;
  const guint32 *idx = (const guint32 *) (void *) lane->events->data;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (weft_rank_event (rank, idx[mid])->ts < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo > 0 && weft_event_end (rank, weft_rank_event (rank, idx[lo - 1])) > t)
    lo--;
  return lo;
}

WeftTimeSpan
weft_rank_time_span (WeftRank *rank)
{
  WeftTimeSpan span = { G_MAXINT64, G_MININT64 };

  for (guint i = 0; i < rank->lanes->len; i++)
    {
      WeftLane *lane = weft_rank_lane (rank, i);
      for (guint j = 0; j < lane->events->len; j++)
        {
          const WeftEvent *ev = weft_rank_event (rank, g_array_index (lane->events, guint32, j));
          if (ev->flags & WEFT_EVENT_DELETED)
            continue;
          span.begin = MIN (span.begin, ev->ts);
          span.end = MAX (span.end, weft_event_end (rank, ev));
        }
    }
  if (span.begin > span.end)
    span.begin = span.end = 0;
  return span;
}

WeftTimeSpan
weft_trace_time_span (WeftTrace *trace)
{
  WeftTimeSpan span = { G_MAXINT64, G_MININT64 };

  for (guint i = 0; i < trace->ranks->len; i++)
    {
      WeftRank *rank = weft_trace_rank (trace, i);
      WeftTimeSpan r = weft_rank_time_span (rank);
      gint64 off = weft_trace_rank_offset (trace, rank);
      if (r.begin == 0 && r.end == 0)
        continue;
      span.begin = MIN (span.begin, r.begin + off);
      span.end = MAX (span.end, r.end + off);
    }
  if (span.begin > span.end)
    span.begin = span.end = 0;
  return span;
}

/* ---- top-level values ------------------------------------------------------ */

gboolean
weft_top_key_foreach (const WeftTopKey *k, WeftTopKeyFunc func, gpointer user_data, GError **error)
{
  ZSTD_DCtx *dc;
  ZSTD_inBuffer in;
  gsize cap = 128u << 10, done = 0;
  char *out;
  gboolean ok = TRUE;

  g_return_val_if_fail (k != NULL && func != NULL, FALSE);
  if (k->packed == NULL)
    return func (k->raw != NULL ? k->raw : "", k->raw != NULL ? k->raw_len : 0, user_data);

  dc = ZSTD_createDCtx ();
  out = g_malloc (cap);
  in.src = k->packed;
  in.size = k->packed_len;
  in.pos = 0;
  for (;;)
    {
      ZSTD_outBuffer ob = { out, cap, 0 };
      size_t rc = dc != NULL ? ZSTD_decompressStream (dc, &ob, &in) : (size_t) -1;
      if (dc == NULL || ZSTD_isError (rc) || done + ob.pos > k->raw_len)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_COMPRESSION,
                       "a top-level value kept compressed in memory is damaged (%s)",
                       dc == NULL ? "no memory" : ZSTD_isError (rc) ? ZSTD_getErrorName (rc) : "too long");
          ok = FALSE;
          break;
        }
      done += ob.pos;
      if (ob.pos > 0 && !func (out, ob.pos, user_data))
        {
          ok = FALSE;
          break;
        }
      if (rc == 0 && in.pos == in.size)
        break;
      if (ob.pos == 0 && in.pos == in.size)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_COMPRESSION,
                       "a top-level value kept compressed in memory is damaged (truncated)");
          ok = FALSE;
          break;
        }
    }
  if (ok && done != k->raw_len)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_COMPRESSION,
                   "a top-level value kept compressed in memory is damaged (%" G_GSIZE_FORMAT " bytes, expected %"
                   G_GSIZE_FORMAT ")", done, k->raw_len);
      ok = FALSE;
    }
  ZSTD_freeDCtx (dc);
  g_free (out);
  return ok;
}

typedef struct
{
  char  *text;
  gsize  len;
} DupText;

static gboolean
dup_text_cb (const char *data, gsize len, gpointer user_data)
{
  DupText *d = user_data;
  memcpy (d->text + d->len, data, len);
  d->len += len;
  return TRUE;
}

char *
weft_top_key_dup_text (const WeftTopKey *k, GError **error)
{
  DupText d = { NULL, 0 };

  g_return_val_if_fail (k != NULL, NULL);
  if (k->packed == NULL)
    return g_strndup (k->raw != NULL ? k->raw : "", k->raw != NULL ? k->raw_len : 0);
  d.text = k->raw_len < G_MAXSIZE ? g_try_malloc (k->raw_len + 1) : NULL;
  if (d.text == NULL)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_TOO_LARGE,
                   "a top-level value of %" G_GSIZE_FORMAT " bytes does not fit in memory", k->raw_len);
      return NULL;
    }
  /* foreach checks that the frame holds exactly raw_len bytes first */
  if (!weft_top_key_foreach (k, dup_text_cb, &d, error))
    {
      g_free (d.text);
      return NULL;
    }
  d.text[d.len] = '\0';
  return d.text;
}
