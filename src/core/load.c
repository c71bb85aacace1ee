/* load.c: loading Kineto traces (files and torchtitan folders) into the
 * model: format detection (reader.c), streaming scan (jsonscan.c),
 * distributedInfo, baseTimeNanoseconds, rank numbers, parallel loading of
 * several files, progress and cancellation. See docs/loading.md. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <glib/gstdio.h>

#include "core/jsonscan.h"
#include "core/reader.h"
#include "core/textstore-private.h"
#include "weft/weft-load.h"

#define DEFAULT_MAX_DEPTH 256
#define PROGRESS_INTERVAL_US (50 * 1000)
#define FIND_MAX_DEPTH 8
#define SNIFF_BYTES (256 * 1024)
#define TIME_LIMIT_NS ((G_GINT64_CONSTANT (1) << 62) - 1) /* as jsonscan.c's */

/* ---- progress -------------------------------------------------------------- */

typedef struct
{
  const WeftLoadOptions *options;
  GMutex                 lock;
  guint64                total;
  guint64                done;
  gint64                 last_us;
} Progress;

typedef struct
{
  Progress *progress;
  guint64   reported;   /* raw bytes of this file already added to done */
} FileProgress;

static void
progress_add (Progress *pr, guint64 delta, gboolean force)
{
  gint64 now;

  if (pr == NULL || pr->options == NULL || pr->options->progress == NULL)
    return;
  g_mutex_lock (&pr->lock);
  pr->done += delta;
  now = g_get_monotonic_time ();
  if (force || now - pr->last_us >= PROGRESS_INTERVAL_US)
    {
      pr->last_us = now;
      pr->options->progress (MIN (pr->done, pr->total), pr->total, pr->options->progress_data);
    }
  g_mutex_unlock (&pr->lock);
}

static void
file_progress (WeftReader *reader, FileProgress *fp, gboolean force)
{
  guint64 now = weft_reader_raw_done (reader);

  if (now > fp->reported || force)
    {
      progress_add (fp->progress, now > fp->reported ? now - fp->reported : 0, force);
      fp->reported = MAX (now, fp->reported);
    }
}

static void
scan_progress_cb (WeftReader *reader, gpointer user_data)
{
  file_progress (reader, user_data, FALSE);
}

/* ---- one rank ---------------------------------------------------------------- */

static const WeftTopKey *
find_top_key (WeftRank *rank, const char *key)
{
  guint32 id = weft_strings_lookup (rank->strings, key, -1);

  if (id == WEFT_NONE)
    return NULL;
  for (guint i = 0; i < rank->top_keys->len; i++)
    {
      const WeftTopKey *k = &g_array_index (rank->top_keys, WeftTopKey, i);
      if (k->key == id)
        return k;
    }
  return NULL;
}

static gboolean
json_to_int (json_object *v, gint64 *out)
{
  if (v == NULL)
    return FALSE;
  if (json_object_is_type (v, json_type_int))
    {
      errno = 0;
      *out = json_object_get_int64 (v);
      return errno == 0;
    }
  if (json_object_is_type (v, json_type_string))
    {
      const char *s = json_object_get_string (v);
      char *end = NULL;
      gint64 n;
      if (*s == '\0')
        return FALSE;
      n = g_ascii_strtoll (s, &end, 10);
      if (*end != '\0')
        return FALSE;
      *out = n;
      return TRUE;
    }
  return FALSE;
}

/* pg_config "ranks": a list, or a quoted list such as "[0, 1]". */
static int *
parse_rank_list (json_object *v, guint *n_out)
{
  json_object *owned = NULL;
  GArray *ranks;
  int *result;

  *n_out = 0;
  if (v == NULL)
    return NULL;
  if (json_object_is_type (v, json_type_string))
    {
      const char *s = json_object_get_string (v);
      owned = json_tokener_parse (s);
      if (owned == NULL)
        {
          /* "0, 1, 2" without brackets */
          char *tmp = g_strdup_printf ("[%s]", s);
          owned = json_tokener_parse (tmp);
          g_free (tmp);
        }
      v = owned;
    }
  if (v == NULL || !json_object_is_type (v, json_type_array))
    {
      json_object_put (owned);
      return NULL;
    }
  ranks = g_array_new (FALSE, FALSE, sizeof (int));
  for (size_t i = 0; i < json_object_array_length (v); i++)
    {
      gint64 r;
      if (json_to_int (json_object_array_get_idx (v, i), &r) && r >= 0 && r <= G_MAXINT)
        {
          int ri = (int) r;
          g_array_append_val (ranks, ri);
        }
    }
  json_object_put (owned);
  *n_out = ranks->len;
  result = (int *) (void *) g_array_free (ranks, FALSE);
  if (*n_out == 0)
    {
      g_free (result);
      result = NULL;
    }
  return result;
}

static guint32
intern_json_string (WeftRank *rank, json_object *v)
{
  if (v == NULL || json_object_is_type (v, json_type_null))
    return 0;
  return weft_strings_intern (rank->strings, json_object_get_string (v), -1);
}

static gboolean
apply_distributed_info (WeftRank *rank, const WeftTopKey *k, guint max_depth, GError **error)
{
  json_tokener *tok = json_tokener_new_ex ((int) MAX (max_depth, 32));
  json_object *obj = json_tokener_parse_ex (tok, k->raw, (int) MIN (k->raw_len, (gsize) G_MAXINT));
  json_object *v;
  gint64 n;

  json_tokener_free (tok);
  if (obj == NULL || !json_object_is_type (obj, json_type_object))
    {
      /* null / other types: treat as absent (older writers), but say so */
      g_debug ("%s: distributedInfo is not an object; ignored", rank->path);
      json_object_put (obj);
      return TRUE;
    }
  if (json_object_object_get_ex (obj, "rank", &v) && !json_object_is_type (v, json_type_null))
    {
      if (!json_to_int (v, &n) || n < 0 || n > G_MAXINT)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_FORMAT, "%s: distributedInfo.rank is not a rank number: %s",
                       rank->path, json_object_to_json_string_ext (v, JSON_C_TO_STRING_PLAIN));
          json_object_put (obj);
          return FALSE;
        }
      rank->rank = (int) n;
      rank->rank_source = WEFT_RANK_FROM_DISTRIBUTED_INFO;
    }
  if (json_object_object_get_ex (obj, "world_size", &v) && json_to_int (v, &n) && n > 0 && n <= G_MAXINT)
    rank->world_size = (int) n;
  if (json_object_object_get_ex (obj, "pg_config", &v))
    {
      /* a list of groups; some writers use an object keyed by group name */
      if (json_object_is_type (v, json_type_array) || json_object_is_type (v, json_type_object))
        {
          GPtrArray *groups = g_ptr_array_new ();
          if (json_object_is_type (v, json_type_array))
            for (size_t i = 0; i < json_object_array_length (v); i++)
              g_ptr_array_add (groups, json_object_array_get_idx (v, i));
          else
            {
              json_object_object_foreach (v, key, val)
                {
                  (void) key;
                  g_ptr_array_add (groups, val);
                }
            }
          for (guint i = 0; i < groups->len; i++)
            {
              json_object *g = groups->pdata[i], *f;
              WeftProcessGroup pg = { 0 };
              if (g == NULL || !json_object_is_type (g, json_type_object))
                continue;
              if (json_object_object_get_ex (g, "pg_name", &f))
                pg.name = intern_json_string (rank, f);
              if (json_object_object_get_ex (g, "pg_desc", &f))
                pg.desc = intern_json_string (rank, f);
              pg.size = -1;
              if (json_object_object_get_ex (g, "pg_size", &f) && json_to_int (f, &n) && n >= 0 && n <= G_MAXINT)
                pg.size = (int) n;
              if (json_object_object_get_ex (g, "ranks", &f))
                pg.ranks = parse_rank_list (f, &pg.n_ranks);
              if (pg.size < 0 && pg.ranks != NULL)
                pg.size = (int) pg.n_ranks;
              g_array_append_val (rank->process_groups, pg);
            }
          g_ptr_array_free (groups, TRUE);
        }
    }
  json_object_put (obj);
  return TRUE;
}

/* baseTimeNanoseconds, ts style, distributedInfo, rank from the name. */
static gboolean
finish_rank (WeftRank *rank, const WeftScanResult *res, const WeftLoadOptions *options, GError **error)
{
  const WeftTopKey *k;
  guint max_depth = options && options->max_depth ? options->max_depth : DEFAULT_MAX_DEPTH;

  rank->json_bytes = res->json_bytes;
  rank->n_negative_dur = res->n_negative_dur;
  k = find_top_key (rank, "baseTimeNanoseconds");
  if (k != NULL)
    {
      const char *why = NULL;
      const char *text = k->raw;
      gsize len = k->raw_len;
      if (len >= 2 && text[0] == '"')
        {
          text++;
          len -= 2;
        }
      if (!weft_json_decimal_to_int (text, len, 0, &rank->base_ns, &why))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_FORMAT, "%s: baseTimeNanoseconds %.*s: %s", rank->path,
                       (int) MIN (k->raw_len, 40), k->raw, why);
          return FALSE;
        }
      rank->has_base = TRUE;
    }
  if (rank->has_base)
    rank->ts_style = WEFT_TS_RELATIVE;
  else
    rank->ts_style = res->ts_has_fraction ? WEFT_TS_ABSOLUTE_FRAC : WEFT_TS_ABSOLUTE_US;

  if (rank->has_base && rank->base_ns != 0)
    {
      gint64 base = rank->base_ns;
      WeftEvent *events = (WeftEvent *) (void *) rank->events->data;
      for (guint i = 0; i < rank->events->len; i++)
        {
          gint64 ts;
          /* the scanner bounds |ts| and |ts + dur| by 2^62; so must the sum */
          if (__builtin_add_overflow (events[i].ts, base, &ts) || ts > TIME_LIMIT_NS || ts < -TIME_LIMIT_NS ||
              ts + weft_event_dur (rank, &events[i]) > TIME_LIMIT_NS)
            {
              g_set_error (error, WEFT_ERROR, WEFT_ERROR_FORMAT,
                           "%s: event %u (traceEvents[%u]): baseTimeNanoseconds + ts (+ dur) is out of range "
                           "(more than 2^62 ns, about 146 years, from 0)", rank->path, i, i);
              return FALSE;
            }
          events[i].ts = ts;
        }
    }

  k = find_top_key (rank, "distributedInfo");
  if (k != NULL && !apply_distributed_info (rank, k, max_depth, error))
    return FALSE;
  if (rank->rank_source != WEFT_RANK_FROM_DISTRIBUTED_INFO || rank->rank < 0)
    {
      int r = weft_rank_from_file_name (rank->path);
      if (r >= 0)
        {
          rank->rank = r;
          rank->rank_source = WEFT_RANK_FROM_FILE_NAME;
        }
      else
        {
          rank->rank = 0;
          rank->rank_source = WEFT_RANK_FROM_ORDER;
        }
    }
  return TRUE;
}

/* Parses one reader into a new rank (not indexed). pipelined: the reader
 * reads ahead and the text store packs its blocks on threads of their own
 * (docs/loading.md, "One big file on several cores"). fp: the file's
 * progress (NULL: none). */
static WeftRank *
load_reader (WeftReader *reader, const char *path, const WeftLoadOptions *options, GCancellable *cancellable,
             FileProgress *fp, gboolean pipelined, GError **error)
{
  WeftScanOptions so = { 0 };
  WeftScanResult res = { 0 };
  WeftRank *rank;

  weft_reader_set_limit (reader, options ? options->max_json_bytes : 0);
  weft_reader_set_cancellable (reader, cancellable);
  so.max_depth = options && options->max_depth ? options->max_depth : DEFAULT_MAX_DEPTH;
  so.cancellable = cancellable;
  if (fp != NULL && fp->progress != NULL)
    {
      so.progress = scan_progress_cb;
      so.progress_data = fp;
    }
  rank = weft_rank_new (path);
  /* a .json.gz is kept as read and holds its own texts (gzindex-private.h) */
  if (!(options != NULL && options->pack_gzip_texts))
    weft_reader_keep_gzip (reader);
  if (pipelined)
    {
      weft_reader_start_read_ahead (reader);
      _weft_text_store_set_packer (rank->texts, TRUE);
    }
  if (!weft_json_scan_trace (rank, reader, &so, &res, error) || !finish_rank (rank, &res, options, error))
    {
      weft_rank_free (rank);
      return NULL;
    }
  if (fp != NULL && fp->progress != NULL)
    file_progress (reader, fp, TRUE); /* each finished file is reported */
  return rank;
}

static WeftRank *
load_file_once (const char *path, const WeftLoadOptions *options, GCancellable *cancellable, FileProgress *fp,
                gboolean pipelined, GError **error)
{
  WeftReader *reader;
  WeftRank *rank;

  if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_CANCELLED, "%s: loading cancelled", path);
      return NULL;
    }
  reader = weft_reader_open (path, error);
  if (reader == NULL)
    return NULL;
  rank = load_reader (reader, path, options, cancellable, fp, pipelined, error);
  weft_reader_free (reader);
  return rank;
}

/* pipelined: see load_reader. A pipelined load that fails (but for
 * cancellation) is read again without the pipeline, so that its error is
 * the one a load on one thread gives, word for word and byte for byte
 * (the reading thread runs ahead of the scanner and decompresses in its
 * own steps: a decoder's error could name another offset, or come before
 * a JSON error the scanner would have found first). */
static WeftRank *
load_file (const char *path, const WeftLoadOptions *options, GCancellable *cancellable, Progress *progress,
           gboolean pipelined, GError **error)
{
  FileProgress fp = { progress, 0 };
  GError *local = NULL;
  WeftRank *rank;

  rank = load_file_once (path, options, cancellable, &fp, pipelined, &local);
  if (rank == NULL && pipelined && !g_error_matches (local, WEFT_ERROR, WEFT_ERROR_CANCELLED))
    {
      g_clear_error (&local);
      rank = load_file_once (path, options, cancellable, &fp, FALSE, &local);
    }
  if (local != NULL)
    g_propagate_error (error, local);
  return rank;
}

WeftRank *
weft_rank_load_file (const char *path, const WeftLoadOptions *options, GCancellable *cancellable, GError **error)
{
  WeftRank *rank = load_file (path, options, cancellable, NULL, FALSE, error);

  if (rank != NULL)
    weft_rank_index (rank);
  return rank;
}

/* detect_compression as weft_reader_new_for_memory's. */
static WeftRank *
load_memory (const char *name, const void *data, gsize len, gboolean detect_compression,
             const WeftLoadOptions *options, GError **error)
{
  WeftReader *reader = weft_reader_new_for_memory (name, data, len, detect_compression);
  WeftRank *rank;

  rank = load_reader (reader, name, options, NULL, NULL, FALSE, error);
  weft_reader_free (reader);
  if (rank != NULL)
    weft_rank_index (rank);
  return rank;
}

WeftRank *
weft_rank_load_buffer (const char *name, const char *data, gsize len, const WeftLoadOptions *options,
                       GError **error)
{
  /* Already decompressed: read it as plain JSON whatever its first bytes. */
  return load_memory (name, data, len, FALSE, options, error);
}

WeftRank *
weft_rank_load_memory (const char *name, const void *data, gsize len, const WeftLoadOptions *options,
                       GError **error)
{
  return load_memory (name, data, len, TRUE, options, error);
}

/* ---- rank numbers ------------------------------------------------------------ */

int
weft_rank_from_file_name (const char *path)
{
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *lower = g_ascii_strdown (base, -1);
  static const char *const words[] = { "rank", "worker" };

  for (guint w = 0; w < G_N_ELEMENTS (words); w++)
    {
      const char *p = lower;
      gsize wl = strlen (words[w]);
      while ((p = strstr (p, words[w])) != NULL)
        {
          const char *d = p + wl;
          gint64 n = 0;
          int digits = 0;
          if (*d == '-' || *d == '_')
            d++;
          while (*d >= '0' && *d <= '9' && digits < 10)
            {
              n = n * 10 + (*d - '0');
              d++;
              digits++;
            }
          if (digits > 0 && digits < 10 && !(*d >= '0' && *d <= '9'))
            return (int) n;
          p += wl;
        }
    }
  return -1;
}

static const char *
rank_source_name (WeftRankSource s)
{
  switch (s)
    {
    case WEFT_RANK_FROM_DISTRIBUTED_INFO:
      return "distributedInfo.rank";
    case WEFT_RANK_FROM_FILE_NAME:
      return "the file name";
    case WEFT_RANK_FROM_ORDER:
    default:
      return "the file order";
    }
}

/* Numbers ranks without one (file order) and refuses duplicates. ranks are
 * in file order. Keys are the rank numbers themselves (looked up with
 * g_hash_table_lookup_extended, so rank 0 and G_MAXINT both work). */
static gboolean
number_ranks (WeftRank **ranks, guint n, GError **error)
{
  GHashTable *used = g_hash_table_new (g_direct_hash, g_direct_equal);
  int next = 0;
  gboolean ok = TRUE;

  for (guint i = 0; i < n && ok; i++)
    {
      WeftRank *r = ranks[i];
      gpointer prev;
      if (r->rank_source == WEFT_RANK_FROM_ORDER)
        continue;
      if (g_hash_table_lookup_extended (used, GINT_TO_POINTER (r->rank), NULL, &prev))
        {
          WeftRank *o = prev;
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_DUPLICATE_RANK,
                       "%s: rank %d (from %s) is also claimed by %s (from %s)", r->path, r->rank,
                       rank_source_name (r->rank_source), o->path, rank_source_name (o->rank_source));
          ok = FALSE;
          break;
        }
      g_hash_table_insert (used, GINT_TO_POINTER (r->rank), r);
    }
  for (guint i = 0; i < n && ok; i++)
    {
      WeftRank *r = ranks[i];
      if (r->rank_source != WEFT_RANK_FROM_ORDER)
        continue;
      while (next < G_MAXINT && g_hash_table_contains (used, GINT_TO_POINTER (next)))
        next++;
      r->rank = next;
      g_hash_table_insert (used, GINT_TO_POINTER (next), r);
    }
  g_hash_table_destroy (used);
  return ok;
}

/* Files that cannot be one job: two world sizes, or a rank number that is
 * not below its world size. ranks are in file order. */
static gboolean
check_one_job (WeftRank **ranks, guint n, GError **error)
{
  const WeftRank *sized = NULL;

  for (guint i = 0; i < n; i++)
    {
      WeftRank *r = ranks[i];
      if (r->world_size <= 0)
        continue;
      if (sized != NULL && r->world_size != sized->world_size)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_DUPLICATE_RANK,
                       "%s: world_size %d, but %s has world_size %d: these files are not one job "
                       "(load them separately)", r->path, r->world_size, sized->path, sized->world_size);
          return FALSE;
        }
      sized = r;
      if (r->rank >= r->world_size)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_DUPLICATE_RANK,
                       "%s: rank %d (from %s) is not below its world_size %d: not a rank of this job", r->path,
                       r->rank, rank_source_name (r->rank_source), r->world_size);
          return FALSE;
        }
    }
  return TRUE;
}

/* ---- several files in parallel ------------------------------------------------ */

typedef struct
{
  const char *path;
  WeftRank   *rank;
  GError     *error;
} Job;

typedef struct
{
  const WeftLoadOptions *options;
  GCancellable          *cancel;    /* internal: user's cancel or a failed file */
  Progress              *progress;
  gboolean               pipelined; /* fewer files than threads: see load_reader */
  gint                   jobs_done; /* atomic: publishes each job's results */
} Shared;

static void
run_job (Job *job, Shared *sh)
{
  job->rank = load_file (job->path, sh->options, sh->cancel, sh->progress, sh->pipelined, &job->error);
  if (job->rank != NULL)
    weft_rank_index (job->rank);
  else if (!g_error_matches (job->error, WEFT_ERROR, WEFT_ERROR_CANCELLED))
    g_cancellable_cancel (sh->cancel); /* no use parsing the others */
  /* g_thread_pool_free() already waits for the job; this atomic (release,
   * read back with acquire below) makes the hand-over of the rank visible
   * to ThreadSanitizer too, which does not see GLib's futex-based locks. */
  g_atomic_int_inc (&sh->jobs_done);
}

static void
pool_func (gpointer data, gpointer user_data)
{
  run_job (data, user_data);
}

static void
forward_cancel (GCancellable *user, gpointer data)
{
  (void) user;
  g_cancellable_cancel (G_CANCELLABLE (data));
}

WeftTrace *
weft_trace_load_files (const char * const *paths, guint n_paths, const WeftLoadOptions *options,
                       GCancellable *cancellable, GError **error)
{
  Progress progress = { 0 };
  Shared sh = { 0 };
  Job *jobs;
  guint n_threads;
  gulong handler = 0;
  WeftTrace *trace = NULL;
  GError *first = NULL;

  if (n_paths == 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_NO_TRACE, "no trace files given");
      return NULL;
    }

  g_mutex_init (&progress.lock);
  progress.options = options;
  for (guint i = 0; i < n_paths; i++)
    {
      GStatBuf st;
      if (g_stat (paths[i], &st) == 0)
        progress.total += (guint64) st.st_size;
    }
  sh.options = options;
  sh.progress = &progress;
  sh.cancel = g_cancellable_new ();
  if (cancellable != NULL)
    handler = g_cancellable_connect (cancellable, G_CALLBACK (forward_cancel), g_object_ref (sh.cancel),
                                     g_object_unref);

  jobs = g_new0 (Job, n_paths);
  for (guint i = 0; i < n_paths; i++)
    jobs[i].path = paths[i];

  n_threads = options && options->n_threads ? options->n_threads : g_get_num_processors ();
  /* Fewer files than threads: each file also reads ahead and packs its
   * texts on threads of its own (a 1 GB rank on its own would use one
   * core); never with as many files as threads (no oversubscription). */
  sh.pipelined = n_paths < n_threads && !(options != NULL && options->sequential) &&
                 g_getenv ("WEFT_LOAD_SEQUENTIAL") == NULL;
  n_threads = CLAMP (n_threads, 1, n_paths);
  if (n_threads == 1)
    for (guint i = 0; i < n_paths; i++)
      run_job (&jobs[i], &sh);
  else
    {
      GThreadPool *pool = g_thread_pool_new (pool_func, &sh, (gint) n_threads, TRUE, NULL);
      for (guint i = 0; i < n_paths; i++)
        g_thread_pool_push (pool, &jobs[i], NULL);
      g_thread_pool_free (pool, FALSE, TRUE);
    }
  if (handler != 0)
    g_cancellable_disconnect (cancellable, handler);
  g_assert ((guint) g_atomic_int_get (&sh.jobs_done) == n_paths);

  /* The first real error in file order; cancellation only if nothing else. */
  for (guint i = 0; i < n_paths && first == NULL; i++)
    if (jobs[i].error != NULL && !g_error_matches (jobs[i].error, WEFT_ERROR, WEFT_ERROR_CANCELLED))
      first = g_error_copy (jobs[i].error);
  for (guint i = 0; i < n_paths && first == NULL; i++)
    if (jobs[i].error != NULL)
      first = g_error_copy (jobs[i].error);

  if (first == NULL)
    {
      WeftRank **ranks = g_new (WeftRank *, n_paths);
      for (guint i = 0; i < n_paths; i++)
        ranks[i] = jobs[i].rank;
      if (number_ranks (ranks, n_paths, &first) && check_one_job (ranks, n_paths, &first))
        {
          trace = weft_trace_new ();
          for (guint i = 0; i < n_paths; i++)
            {
              if (jobs[i].rank->n_negative_dur > 0)
                weft_trace_add_warning (trace, "%s: %" G_GUINT64_FORMAT " events with a negative \"dur\": "
                                        "clamped to 0", jobs[i].path, jobs[i].rank->n_negative_dur);
              weft_trace_add_rank (trace, jobs[i].rank);
              jobs[i].rank = NULL;
            }
          weft_trace_index_across_ranks (trace);
        }
      g_free (ranks);
    }
  if (first == NULL)
    progress_add (&progress, 0, TRUE);

  for (guint i = 0; i < n_paths; i++)
    {
      weft_rank_free (jobs[i].rank);
      g_clear_error (&jobs[i].error);
    }
  g_free (jobs);
  g_object_unref (sh.cancel);
  g_mutex_clear (&progress.lock);
#ifdef __GLIBC__
  /* The load freed its buffers (reader, scanner, zstd contexts, the
   * workers' arenas) in pieces that glibc keeps: hand their pages back
   * (~6 MiB on a 485 MB file, a few ms; docs/benchmarks.md) */
  malloc_trim (0);
#endif
  if (first != NULL)
    g_propagate_error (error, first);
  return trace;
}

/* ---- folders ------------------------------------------------------------------ */

static gboolean
has_trace_ext (const char *lower)
{
  return g_str_has_suffix (lower, ".json") || g_str_has_suffix (lower, ".json.gz") ||
         g_str_has_suffix (lower, ".json.zst");
}

/* Does the start of the (decompressed) file look like a Kineto trace? */
static gboolean
sniff_trace (const char *path)
{
  WeftReader *reader = weft_reader_open (path, NULL);
  char *buf;
  gssize n;
  gboolean yes = FALSE;

  if (reader == NULL)
    return FALSE;
  buf = g_malloc (SNIFF_BYTES + 1);
  n = weft_reader_read (reader, buf, SNIFF_BYTES, NULL);
  if (n > 0)
    {
      const char *p = buf;
      buf[n] = '\0';
      while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
      yes = *p == '{' && (strstr (p, "\"traceEvents\"") != NULL || strstr (p, "\"schemaVersion\"") != NULL ||
                          strstr (p, "\"distributedInfo\"") != NULL);
    }
  g_free (buf);
  weft_reader_free (reader);
  return yes;
}

/* N of the deepest "iteration_N" folder in rel, or -1. */
static gint64
iteration_of (const char *rel)
{
  g_auto (GStrv) parts = g_strsplit (rel, G_DIR_SEPARATOR_S, -1);
  gint64 it = -1;

  for (guint i = 0; parts[i] != NULL; i++)
    if (g_str_has_prefix (parts[i], "iteration_") && parts[i][10] != '\0')
      {
        char *end = NULL;
        gint64 n = g_ascii_strtoll (parts[i] + 10, &end, 10);
        if (end != NULL && *end == '\0' && n >= 0)
          it = n;
      }
  return it;
}

static void
warn (GPtrArray *warnings, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
warn (GPtrArray *warnings, const char *format, ...)
{
  va_list ap;
  char *line;

  va_start (ap, format);
  line = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_debug ("%s", line);
  g_ptr_array_add (warnings, line);
}

static void
walk (const char *dir, guint depth, GPtrArray *out, GPtrArray *warnings)
{
  GDir *d;
  const char *name;
  GError *error = NULL;

  if (depth > FIND_MAX_DEPTH)
    {
      warn (warnings, "%s: more than %d folders deep: not searched for traces", dir, FIND_MAX_DEPTH);
      return;
    }
  d = g_dir_open (dir, 0, &error);
  if (d == NULL)
    {
      warn (warnings, "%s: cannot read this folder (%s): skipped", dir, error->message);
      g_error_free (error);
      return;
    }
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *child = NULL;
      g_autofree char *lower = NULL;
      GStatBuf st;
      if (name[0] == '.')
        continue;
      child = g_build_filename (dir, name, NULL);
      if (g_stat (child, &st) != 0)
        continue; /* a dangling link */
      if (S_ISDIR (st.st_mode))
        {
          if (!g_file_test (child, G_FILE_TEST_IS_SYMLINK))
            walk (child, depth + 1, out, warnings);
          continue;
        }
      lower = g_ascii_strdown (name, -1);
      /* never a rank: the recovery files earlier versions wrote beside a trace */
      if (!has_trace_ext (lower) || g_str_has_suffix (lower, ".weft-recovery.json"))
        continue;
      if (!S_ISREG (st.st_mode))
        {
          /* never opened: a FIFO would block the sniff */
          warn (warnings, "%s: %s: skipped", child, weft_reader_describe_not_regular (st.st_mode));
          continue;
        }
      if (strstr (lower, "trace") != NULL || sniff_trace (child))
        g_ptr_array_add (out, g_steal_pointer (&child));
    }
  g_dir_close (d);
}

static gint
path_cmp (gconstpointer a, gconstpointer b)
{
  const char *pa = *(const char * const *) a;
  const char *pb = *(const char * const *) b;
  g_autofree char *ka = g_utf8_collate_key_for_filename (pa, -1);
  g_autofree char *kb = g_utf8_collate_key_for_filename (pb, -1);
  return strcmp (ka, kb);
}

/* warnings: where to add what was skipped (never NULL). */
static GPtrArray *
find_trace_files (const char *path, GPtrArray *warnings, GError **error)
{
  GPtrArray *found;
  gint64 best = -1;
  gsize root_len;
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    {
      int saved = errno;
      if (saved == ENOENT || saved == ENOTDIR)
        g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: no such file or folder", path);
      else
        g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot stat: %s", path, g_strerror (saved));
      return NULL;
    }
  found = g_ptr_array_new_with_free_func (g_free);
  if (!S_ISDIR (st.st_mode))
    {
      /* weft_reader_open refuses FIFOs and devices with a clear message */
      g_ptr_array_add (found, g_strdup (path));
      return found;
    }
  {
    GError *derr = NULL;
    GDir *d = g_dir_open (path, 0, &derr);
    if (d == NULL)
      {
        g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot read this folder (%s)", path, derr->message);
        g_error_free (derr);
        g_ptr_array_free (found, TRUE);
        return NULL;
      }
    g_dir_close (d);
  }
  walk (path, 0, found, warnings);
  root_len = strlen (path);

  for (guint i = 0; i < found->len; i++)
    best = MAX (best, iteration_of ((const char *) found->pdata[i] + root_len));
  if (best >= 0)
    {
      guint n_before = found->len;
      for (guint i = found->len; i > 0; i--)
        if (iteration_of ((const char *) found->pdata[i - 1] + root_len) != best)
          g_ptr_array_remove_index (found, i - 1);
      if (found->len != n_before)
        g_info ("%s: several profiled iterations; loading iteration_%" G_GINT64_FORMAT " (%u of %u trace files)", path,
                best, found->len, n_before);
      else
        g_debug ("%s: loading iteration_%" G_GINT64_FORMAT, path, best);
    }
  if (found->len == 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_NO_TRACE,
                   "%s: no trace files in this folder (looked for *.json, *.json.gz, *.json.zst Kineto traces)%s%s",
                   path, warnings->len > 0 ? "; " : "",
                   warnings->len > 0 ? (const char *) warnings->pdata[0] : "");
      g_ptr_array_free (found, TRUE);
      return NULL;
    }
  g_ptr_array_sort (found, path_cmp);
  return found;
}

GPtrArray *
weft_find_trace_files (const char *path, GError **error)
{
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);

  return find_trace_files (path, warnings, error);
}

WeftTrace *
weft_trace_load (const char *path, const WeftLoadOptions *options, GCancellable *cancellable, GError **error)
{
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) files = find_trace_files (path, warnings, error);
  WeftTrace *trace;

  if (files == NULL)
    return NULL;
  trace = weft_trace_load_files ((const char * const *) files->pdata, files->len, options, cancellable, error);
  if (trace != NULL)
    for (guint i = 0; i < warnings->len; i++)
      g_ptr_array_insert (trace->warnings, (gint) i, g_strdup (warnings->pdata[i]));
  return trace;
}

WeftTrace *
weft_trace_load_memory (const char *name, const void *data, gsize len, const WeftLoadOptions *options,
                        GError **error)
{
  WeftRank *rank;
  WeftTrace *trace;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (data != NULL || len == 0, NULL);

  rank = load_memory (name, data, len, TRUE, options, error);
  if (rank == NULL)
    return NULL;
  if (!number_ranks (&rank, 1, error) || !check_one_job (&rank, 1, error))
    {
      weft_rank_free (rank);
      return NULL;
    }
  trace = weft_trace_new ();
  if (rank->n_negative_dur > 0)
    weft_trace_add_warning (trace, "%s: %" G_GUINT64_FORMAT " events with a negative \"dur\": clamped to 0", name,
                            rank->n_negative_dur);
  weft_trace_add_rank (trace, rank);
  weft_trace_index_across_ranks (trace);
  return trace;
}
