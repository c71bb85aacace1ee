/* fuzz-load.c: libFuzzer target for the trace loader.
 *
 * Each input goes through weft_rank_load_memory(): gzip / zstd inputs (by
 * their magic bytes) through the streaming decompressors, anything else
 * as plain JSON through the scanner, then the per-rank index. Every input
 * is loaded twice, with the default 1 MiB chunks and with tiny chunks
 * (1..64 bytes, chosen from the input) in the scanner's reference mode
 * (none of its fast paths: keys, strings, integers, decimals), and the
 * two results must agree: the same model, or the same error message (the
 * second load of a gzip input also packs its texts with zstd instead of
 * reading them back from the kept file: the same texts). A
 * load either succeeds with a consistent model or fails with one
 * WEFT_ERROR naming the input;
 * anything else (crash, leak, sanitizer report, hang, disagreement) is a
 * bug. Build and run: docs/loading.md. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonscan.h"
#include "core/jsonscan-private.h"
#include "core/reader.h"
#include "weft/weft-load.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

static void
quiet_log (const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer user_data)
{
  (void) domain;
  (void) level;
  (void) message;
  (void) user_data;
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  g_log_set_default_handler (quiet_log, NULL);
  return 0;
}

static void
check_rank (WeftRank *rank)
{
  g_autoptr (WeftTextCursor) texts = weft_text_cursor_new (rank);

  for (guint i = 0; i < rank->events->len; i++)
    {
      const WeftEvent *ev = weft_rank_event (rank, i);
      gsize len = 0;
      const char *text = weft_text_cursor_get (texts, ev, &len);
      if (text == NULL || len == 0 || text[0] != '{' || text[len - 1] != '}' || strlen (text) > len)
        abort ();
      if (ev->lane != WEFT_NONE && ev->lane >= rank->lanes->len)
        abort ();
      if (ev->ph >= WEFT_PH_N_PHASES || ev->category >= WEFT_CAT_N_CATEGORIES)
        abort ();
      /* the record layout (weft-model.h): a loaded event's text is slot
       * index + 1; a flow event has no link, another phase no flow id; the
       * loader's durations are >= 0 and ts + dur within 2^62 ns; a
       * collective maps back to its kernel */
      if (weft_event_text_slot (rank, ev) != i + 1 || (ev->flags & WEFT_EVENT_CREATED))
        abort ();
      if ((ev->ph == WEFT_PH_S || ev->ph == WEFT_PH_T || ev->ph == WEFT_PH_F) ? weft_event_link (ev) != WEFT_NONE
                                                                              : weft_event_flow_id (rank, ev) != -1)
        abort ();
      if (weft_event_dur (rank, ev) < 0 || weft_event_end (rank, ev) > ((gint64) 1 << 62))
        abort ();
      if (weft_rank_event_coll (rank, i) != WEFT_NONE &&
          (weft_rank_event_coll (rank, i) >= rank->collectives->len ||
           g_array_index (rank->collectives, WeftCollective, weft_rank_event_coll (rank, i)).event != i))
        abort ();
      (void) weft_rank_string (rank, ev->name);
    }
  if (rank->trace_events_pos > rank->top_keys->len)
    abort ();
  /* a top-level value is text up to the packing threshold, packed above */
  for (guint i = 0; i < rank->top_keys->len; i++)
    {
      const WeftTopKey *k = &g_array_index (rank->top_keys, WeftTopKey, i);
      if ((k->raw == NULL) == (k->packed == NULL) || k->raw_len == 0 ||
          (k->raw != NULL && strlen (k->raw) != k->raw_len))
        abort ();
    }
}

/* The same top-level values, byte for byte (a packed one decompressed). */
static gboolean
same_top_keys (WeftRank *a, WeftRank *b)
{
  for (guint i = 0; i < a->top_keys->len; i++)
    {
      const WeftTopKey *x = &g_array_index (a->top_keys, WeftTopKey, i);
      const WeftTopKey *y = &g_array_index (b->top_keys, WeftTopKey, i);
      char *tx, *ty;
      gboolean same;
      if (x->raw_len != y->raw_len || (x->packed == NULL) != (y->packed == NULL) ||
          strcmp (weft_rank_string (a, x->key), weft_rank_string (b, y->key)) != 0)
        return FALSE;
      tx = weft_top_key_dup_text (x, NULL);
      ty = weft_top_key_dup_text (y, NULL);
      same = tx != NULL && ty != NULL && memcmp (tx, ty, x->raw_len) == 0;
      g_free (tx);
      g_free (ty);
      if (!same)
        return FALSE;
    }
  return TRUE;
}

/* One load; returns the rank or NULL with *message set. */
static WeftRank *
load_once (const uint8_t *data, size_t size, const WeftLoadOptions *options, gsize chunk, gboolean reference,
           char **message)
{
  GError *error = NULL;
  WeftRank *rank;

  weft_json_scan_set_chunk_size (chunk);
  weft_json_lex_reference = reference;
  rank = weft_rank_load_memory ("fuzz-input", data, size, options, &error);
  weft_json_lex_reference = FALSE;
  weft_json_scan_set_chunk_size (0);
  *message = NULL;
  if (rank != NULL)
    {
      if (error != NULL)
        abort ();
      check_rank (rank);
      return rank;
    }
  if (error == NULL || error->domain != WEFT_ERROR || !g_str_has_prefix (error->message, "fuzz-input"))
    abort ();
  *message = g_strdup (error->message);
  g_error_free (error);
  return NULL;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  WeftLoadOptions options = { 0 }, packed;
  static const gsize chunks[] = { 1, 2, 3, 5, 8, 13, 64 };
  char *m1 = NULL, *m2 = NULL;
  WeftRank *a, *b;

  options.max_json_bytes = 8u << 20;   /* keeps bombs cheap */
  options.max_depth = size > 0 && (data[0] & 1) ? 32 : 0;

  /* Differential: default chunking and fast paths vs tiny chunks and the
   * reference scan must agree exactly. */
  packed = options;
  packed.pack_gzip_texts = TRUE;
  a = load_once (data, size, &options, 0, FALSE, &m1);
  b = load_once (data, size, &packed, chunks[size % G_N_ELEMENTS (chunks)], TRUE, &m2);
  if ((a == NULL) != (b == NULL))
    abort ();
  if (a != NULL)
    {
      if (a->events->len != b->events->len || a->top_keys->len != b->top_keys->len ||
          a->lanes->len != b->lanes->len || a->base_ns != b->base_ns || a->rank != b->rank ||
          !same_top_keys (a, b))
        abort ();
      for (guint i = 0; i < a->events->len; i++)
        {
          const WeftEvent *x = weft_rank_event (a, i), *y = weft_rank_event (b, i);
          gsize nx = 0, ny = 0;
          g_autofree char *tx = weft_rank_event_text_dup (a, x, &nx);
          g_autofree char *ty = weft_rank_event_text_dup (b, y, &ny);
          if (x->ts != y->ts || weft_event_dur (a, x) != weft_event_dur (b, y) || tx == NULL || ty == NULL || nx != ny ||
              memcmp (tx, ty, nx) != 0 || x->flags != y->flags || x->lane != y->lane || x->ph != y->ph ||
              x->category != y->category || x->kclass != y->kclass ||
              strcmp (weft_rank_string (a, x->name), weft_rank_string (b, y->name)) != 0 ||
              strcmp (weft_rank_string (a, x->cat), weft_rank_string (b, y->cat)) != 0 ||
              weft_event_correlation (a, x) != weft_event_correlation (b, y) ||
              weft_event_external_id (a, x) != weft_event_external_id (b, y) ||
              weft_event_flow_id (a, x) != weft_event_flow_id (b, y) || weft_event_link (x) != weft_event_link (y))
            abort ();
        }
    }
  else if (strcmp (m1, m2) != 0)
    {
      /* the compression layer may report a different compressed offset
       * depending on how much was read; the JSON layer may not */
      if (strstr (m1, "gzip") == NULL && strstr (m1, "zstd") == NULL && strstr (m1, "limit") == NULL)
        abort ();
    }
  g_free (m1);
  g_free (m2);
  weft_rank_free (a);
  weft_rank_free (b);
  return 0;
}
