/* jsonscan.c: streaming, validating JSON scanner for Kineto traces.
 *
 * The decompressed stream is read in chunks into one buffer that always
 * ends in a NUL sentinel. NUL is never valid JSON outside a string and never
 * valid inside one either, so the hot loops need no bounds checks: hitting
 * NUL at the end of the buffer means "need more data" (SCAN_MORE), anywhere
 * else it is an error. The root object is walked as a small state machine
 * whose units (a key, a top-level value, one traceEvents element, a comma)
 * are scanned whole or not at all; on SCAN_MORE the buffer is refilled
 * (grown geometrically when a single unit is larger than it) and the unit is
 * scanned again from its start, so the cost stays linear.
 *
 * This file holds the trace-level scanner (events, the root object, the
 * top-level values, the refills); the lexical primitives are in
 * jsonscan-lex.c, the state they share in jsonscan-private.h. */
#include "config.h"

#include <string.h>

#include "core/jsonscan-private.h"
#include "core/textstore-private.h"
#include "core/classify-args-private.h"

#define SCAN_CHUNK (256u << 10)
#define DEFAULT_MAX_DEPTH 256

/* Bytes asked of the reader per refill; tests and the fuzzer make it tiny
 * so that chunk boundaries fall everywhere. */
static gsize scan_chunk = SCAN_CHUNK;

void
weft_json_scan_set_chunk_size (gsize bytes)
{
  scan_chunk = bytes ? bytes : SCAN_CHUNK;
}

/* ---- events ------------------------------------------------------------------ */

typedef struct
{
  StrSpan     ph, cat, name, bp;
  const char *pid, *tid, *ts, *dur, *id;
  gsize       pid_len, tid_len, ts_len, dur_len, id_len;
  gboolean    has_ph, has_cat, has_name, has_bp;
  gboolean    ts_int, dur_int;      /* ts / dur had no fraction or exponent */
  gboolean    ts_fast, dur_fast;    /* ..., and ts_ns / dur_ns are their values */
  gint64      ts_ns, dur_ns;
  gint64      correlation, external_id;
} EvFields;

static gint64
int_or_none (const char *s, gsize len)
{
  gint64 v;
  if (!weft_json_decimal_to_int (s, len, 0, &v, NULL))
    return -1;
  return v;
}

/* A plain integer at v (an optional '-', 1-18 digits, no leading zero)
 * that ends before the buffer does, read in one pass: TRUE with its end in
 * *endp and its value in *out. FALSE for any other form (and always in the
 * tests' reference mode): the caller then scans it the general way. */
static inline gboolean
plain_int (Scan *S, const char *v, const char **endp, gint64 *out)
{
  const char *q = *v == '-' ? v + 1 : v, *d0 = q;
  guint64 acc = 0;

  if (weft_json_lex_reference)
    return FALSE;
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  /* eight digits at a time, at most twice (Kineto's ts has 16) */
  while (S->end - q >= 8 && q - d0 <= 8)
    {
      guint64 x;
      memcpy (&x, q, 8);
      if (!digits8 (x))
        break;
      acc = acc * 100000000 + value8 (x);
      q += 8;
    }
#endif
  while (IS_DIGIT (*q) && q - d0 < 19)
    {
      acc = acc * 10 + (guint64) (*q - '0');
      q++;
    }
  /* (at the end of the buffer the number may go on in the next read) */
  if (q == d0 || q - d0 > 18 || (d0[0] == '0' && q - d0 > 1) || q >= S->end || IS_DIGIT (*q) || *q == '.' ||
      *q == 'e' || *q == 'E')
    return FALSE;
  *endp = q;
  *out = *v == '-' ? -(gint64) acc : (gint64) acc;
  return TRUE;
}

/* "args" object at *pp (depth of the args object: 4). */
static ScanStatus
scan_args (Scan *S, const char **pp, EvFields *f)
{
  const char *p = *pp;
  ScanStatus st;
  StrSpan key;
  gint64 skipped;

  if (4 > S->max_depth)
    return scan_fail (S, p, "nesting deeper than %u levels", S->max_depth);
  p = skip_ws (p + 1);
  if (*p == '}')
    {
      *pp = p + 1;
      return SCAN_OK;
    }
  for (;;)
    {
      if (*p != '"')
        return scan_unexpected (S, p, "a string (object key)");
      if ((st = scan_string (S, &p, &key)) != SCAN_OK)
        return st;
      p = skip_ws (p);
      if (*p != ':')
        return scan_unexpected (S, p, "':'");
      p = skip_ws (p + 1);
      if (key.len == 11 && (memcmp (key.start, "correlation", 11) == 0 || memcmp (key.start, "External id", 11) == 0) &&
          (*p == '-' || IS_DIGIT (*p)))
        {
          const char *v = p;
          gboolean is_int = FALSE;
          gint64 n = -1;
          if (plain_int (S, v, &p, &n))
            is_int = TRUE; /* int_or_none's value, read as it is scanned */
          else if ((st = scan_number (S, &p, &is_int)) != SCAN_OK)
            return st;
          else if (is_int)
            n = int_or_none (v, (gsize) (p - v));
          if (is_int)
            {
              if (key.start[0] == 'c')
                f->correlation = n;
              else
                f->external_id = n;
            }
        }
      else if ((*p == '-' || IS_DIGIT (*p)) && plain_int (S, p, &p, &skipped))
        ; /* most args are small integers: skipped inline, as scan_number would */
      else if ((st = scan_skip_value (S, &p, 4)) != SCAN_OK)
        return st;
      p = skip_ws (p);
      if (*p == ',')
        {
          p = skip_ws (p + 1);
          continue;
        }
      if (*p == '}')
        break;
      return scan_unexpected (S, p, "',' or '}' in args");
    }
  *pp = p + 1;
  return SCAN_OK;
}

static ScanStatus
scan_string_field (Scan *S, const char **pp, StrSpan *span, const char *field)
{
  if (**pp != '"')
    {
      if (**pp == '\0' && *pp >= S->end)
        return SCAN_MORE;
      return scan_fail (S, *pp, "\"%s\" is not a string", field);
    }
  return scan_string (S, pp, span);
}

static ScanStatus
scan_number_field (Scan *S, const char **pp, const char **text, gsize *len, const char *field)
{
  const char *v = *pp;
  ScanStatus st;

  if (*v != '-' && !IS_DIGIT (*v))
    {
      if (*v == '\0' && v >= S->end)
        return SCAN_MORE;
      if (*v == 'N' || *v == 'I')
        return scan_unexpected (S, v, "a number");
      if (*v == '"')
        return scan_fail (S, v, "\"%s\" is a string, expected a number", field);
      return scan_fail (S, v, "\"%s\" is not a number", field);
    }
  if ((st = scan_number (S, pp, NULL)) != SCAN_OK)
    return st;
  *text = v;
  *len = (gsize) (*pp - v);
  return SCAN_OK;
}

/* "ts" / "dur": a number (its text in *text, *len), as scan_number_field
 * reads it; *is_int when it has no fraction or exponent. The plain
 * integers Kineto writes (at most 18 digits, below 2^63 ns once scaled)
 * are converted while they are scanned: *fast, and *ns is the value in ns,
 * as weft_json_decimal_to_int (text, len, 3) gives it; other numbers are
 * converted from their text when the event is committed. */
static ScanStatus
scan_time_field (Scan *S, const char **pp, const char **text, gsize *len, const char *field, gboolean *is_int,
                 gboolean *fast, gint64 *ns)
{
  const char *v = *pp;
  ScanStatus st;

  *fast = FALSE;
  /* below 2^63 ns once scaled: |value| <= G_MAXINT64 / 1000 */
  if (plain_int (S, v, pp, ns) && *ns <= G_MAXINT64 / 1000 && *ns >= -(G_MAXINT64 / 1000))
    {
      *text = v;
      *len = (gsize) (*pp - v);
      *is_int = TRUE;
      *fast = TRUE;
      *ns *= 1000;
      return SCAN_OK;
    }
  *pp = v;
  if ((st = scan_number_field (S, pp, text, len, field)) != SCAN_OK)
    return st;
  *is_int = memchr (*text, '.', *len) == NULL && memchr (*text, 'e', *len) == NULL && memchr (*text, 'E', *len) == NULL;
  return SCAN_OK;
}

/* Raw value text of pid / tid: a number or a string. */
static ScanStatus
scan_id_field (Scan *S, const char **pp, const char **text, gsize *len, const char *field)
{
  const char *v = *pp;
  ScanStatus st;
  StrSpan span;

  if (*v == '"')
    st = scan_string (S, pp, &span);
  else if (*v == '-' || IS_DIGIT (*v))
    st = scan_number (S, pp, NULL);
  else
    {
      if (*v == '\0' && v >= S->end)
        return SCAN_MORE;
      if (*v == 'N' || *v == 'I')
        return scan_unexpected (S, v, "a number");
      return scan_fail (S, v, "\"%s\" is neither a number nor a string", field);
    }
  if (st != SCAN_OK)
    return st;
  *text = v;
  *len = (gsize) (*pp - v);
  return SCAN_OK;
}

#define NAME_CACHE_SIZE 4096

/* The same names recur all through a trace; a small cache keyed by the
 * length and three 8-byte samples avoids hashing every byte of a long
 * kernel name again. A collision only costs a normal intern. */
static guint32
intern_cached (Scan *S, const char *text, gsize len)
{
  guint64 h = len * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  struct NameSlot *slot;
  guint32 id;

  if (len >= 8)
    {
      guint64 a, b, c;
      memcpy (&a, text, 8);
      memcpy (&b, text + (len >= 16 ? len / 2 - 4 : 0), 8);
      memcpy (&c, text + len - 8, 8);
      h ^= a * G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
      h ^= (b + (h >> 29)) * G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
      h ^= c + (h >> 31);
    }
  else
    for (gsize i = 0; i < len; i++)
      h = (h ^ (guchar) text[i]) * G_GUINT64_CONSTANT (0x100000001b3);
  h ^= h >> 33;
  h *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  h ^= h >> 33;
  slot = &S->names[h & (NAME_CACHE_SIZE - 1)];
  if (slot->str != NULL && slot->len == len && memcmp (slot->str, text, len) == 0)
    return slot->id;
  id = weft_strings_intern (S->rank->strings, text, (gssize) len);
  if (len <= G_MAXUINT32)
    {
      slot->str = weft_strings_get (S->rank->strings, id);
      slot->len = (guint32) len;
      slot->id = id;
    }
  return id;
}

/* A "\u0000" in a string that is interned would cut the C string. */
static gboolean
span_has_nul (Scan *S, const StrSpan *span)
{
  gsize len;
  const char *text;

  if (!span->escaped)
    return FALSE;
  text = scan_unescape (S, span, &len);
  return memchr (text, '\0', len) != NULL;
}

static guint32
intern_span (Scan *S, const StrSpan *span)
{
  gsize len = span->len;
  const char *text = span->escaped ? scan_unescape (S, span, &len) : span->start;
  return intern_cached (S, text, len);
}

static WeftPhase
phase_of (const StrSpan *ph)
{
  if (ph->len != 1)
    return WEFT_PH_OTHER;
  switch (ph->start[0])
    {
    case 'X': return WEFT_PH_X;
    case 'i':
    case 'I': return WEFT_PH_I;
    case 's': return WEFT_PH_S;
    case 't': return WEFT_PH_T;
    case 'f': return WEFT_PH_F;
    case 'M': return WEFT_PH_M;
    case 'C': return WEFT_PH_C;
    case 'B': return WEFT_PH_B;
    case 'E': return WEFT_PH_E;
    default: return WEFT_PH_OTHER;
    }
}

/* The byte that a per-string cache (0: not known yet) holds for string id,
 * the cache grown (with zeros) to hold it. */
static inline guint8 *
string_cache_slot (GByteArray *cache, guint32 id)
{
  if (id >= cache->len)
    {
      guint old = cache->len;
      g_byte_array_set_size (cache, MAX (id + 1, old * 2));
      memset (cache->data + old, 0, cache->len - old);
    }
  return &cache->data[id];
}

static WeftCategory
category_of (Scan *S, guint32 cat_id)
{
  guint8 *k = string_cache_slot (S->cat_of_id, cat_id);

  if (*k == 0)
    {
      const char *text = weft_strings_get (S->rank->strings, cat_id);
      *k = (guint8) weft_category_from_string (text, strlen (text)) + 1;
    }
  return (WeftCategory) (*k - 1);
}

/* Whether the classifier will read the args of events of this name: their
 * texts are then kept plain until the rank is indexed (textstore.c). */
static gboolean
keep_text_of (Scan *S, guint32 name_id)
{
  guint8 *k = string_cache_slot (S->keep_of_name, name_id);

  if (*k == 0)
    *k = _weft_classify_name_reads_args (weft_strings_get (S->rank->strings, name_id)) ? 2 : 1;
  return *k == 2;
}

static guint32
lane_of (Scan *S, const char *pid, gsize pid_len, const char *tid, gsize tid_len)
{
  struct LaneSlot *c = S->lanes, hit;
  guint k;

  for (k = 0; k < LANE_CACHE_SIZE && c[k].lane != WEFT_NONE; k++)
    if (pid_len == c[k].pid_len && tid_len == c[k].tid_len && memcmp (pid, c[k].key, pid_len) == 0 &&
        memcmp (tid, c[k].key + pid_len, tid_len) == 0)
      break;
  if (k < LANE_CACHE_SIZE && c[k].lane != WEFT_NONE)
    hit = c[k];
  else
    {
      hit.lane = weft_rank_ensure_lane (S->rank, pid, pid_len, tid, tid_len);
      if (pid_len + tid_len > sizeof hit.key)
        return hit.lane; /* not cached */
      memcpy (hit.key, pid, pid_len);
      memcpy (hit.key + pid_len, tid, tid_len);
      hit.pid_len = (guint8) pid_len;
      hit.tid_len = (guint8) tid_len;
      k = LANE_CACHE_SIZE - 1; /* the least recent goes */
    }
  if (k > 0)
    memmove (&c[1], &c[0], k * sizeof *c);
  c[0] = hit;
  return hit.lane;
}

static ScanStatus
convert_time (Scan *S, const char *text, gsize len, const char *field, gint64 *out)
{
  const char *why = NULL;

  if (!weft_json_decimal_to_int (text, len, 3, out, &why))
    return scan_fail (S, text, "\"%s\" %.*s: %s", field, (int) MIN (len, 40), text, why);
  return SCAN_OK;
}

/* Turns the scanned fields of the event whose text is [start, end) into a
 * record. Runs only once the whole element has been scanned. */
static ScanStatus
commit_event (Scan *S, const char *start, const char *end, EvFields *f)
{
  WeftRank *rank = S->rank;
  WeftEvent ev;
  gint64 flow_id, dur = 0;
  guint wide_before;
  guint32 slot;
  gsize len = (gsize) (end - start);

  if (len > G_MAXUINT32)
    return scan_fail (S, start, "event larger than 4 GiB");
  S->model_bytes += len + 1 + sizeof (WeftEvent);
  if (S->model_bytes > S->budget)
    {
      g_set_error (&S->error, WEFT_ERROR, WEFT_ERROR_TOO_LARGE,
                   "%s: byte %" G_GUINT64_FORMAT ": the events take more than %" G_GUINT64_FORMAT
                   " bytes of memory (the limit: the decompressed-size cap, at most half the memory)",
                   S->name, offset_of (S, start), S->budget);
      return SCAN_ERROR;
    }
  if (rank->events->len >= G_MAXUINT32 - 1)
    return scan_fail (S, start, "too many events (more than 4 billion)");

  if (f->has_name && span_has_nul (S, &f->name))
    return scan_fail (S, f->name.start - 1, "\"name\" contains \\u0000 (a NUL character): not supported");
  if (f->has_cat && span_has_nul (S, &f->cat))
    return scan_fail (S, f->cat.start - 1, "\"cat\" contains \\u0000 (a NUL character): not supported");

  memset (&ev, 0, sizeof ev);
  ev.ph = (guint8) (f->has_ph ? phase_of (&f->ph) : WEFT_PH_OTHER);
  if (f->has_ph && f->ph.escaped)
    ev.ph = WEFT_PH_OTHER;
  ev.cat = f->has_cat ? intern_span (S, &f->cat) : 0;
  ev.category = (guint8) (f->has_cat ? category_of (S, ev.cat) : WEFT_CAT_OTHER);
  ev.name = f->has_name ? intern_span (S, &f->name) : 0;
  ev.lane = WEFT_NONE;
  if (ev.ph != WEFT_PH_M && f->pid != NULL && f->tid != NULL)
    ev.lane = lane_of (S, f->pid, f->pid_len, f->tid, f->tid_len);
  if (f->ts != NULL)
    {
      if (f->ts_fast)
        ev.ts = f->ts_ns;
      else if (convert_time (S, f->ts, f->ts_len, "ts", &ev.ts) != SCAN_OK)
        return SCAN_ERROR;
      if (!f->ts_int)
        S->ts_has_fraction = TRUE;
    }
  if (f->dur != NULL)
    {
      if (f->dur_fast)
        dur = f->dur_ns;
      else if (convert_time (S, f->dur, f->dur_len, "dur", &dur) != SCAN_OK)
        return SCAN_ERROR;
      ev.flags |= WEFT_EVENT_HAS_DUR;
      if (dur < 0)
        {
          /* Kineto never writes one; a negative duration would make the
           * solver's paths longer than the step. Counted, then reported. */
          dur = 0;
          S->n_negative_dur++;
        }
    }
  if (ev.ts > TIME_LIMIT_NS || ev.ts < -TIME_LIMIT_NS)
    return scan_fail (S, f->ts, "\"ts\" %.*s: out of range (more than 2^62 ns, about 146 years, from 0)",
                 (int) MIN (f->ts_len, 40), f->ts);
  if (dur > TIME_LIMIT_NS || ev.ts + dur > TIME_LIMIT_NS)
    return scan_fail (S, f->dur, "\"dur\" %.*s: out of range (ts + dur more than 2^62 ns, about 146 years, from 0)",
                 (int) MIN (f->dur_len, 40), f->dur);
  if (G_UNLIKELY (rank->wide_ids->len > WEFT_WIDE_IDS_MAX - 4))
    return scan_fail (S, start, "more than 2^31 event ids (correlation, External id, flow id) outside -1 .. 2^31-1 "
                      "and durations past 2^31 ns: not supported");
  wide_before = rank->wide_ids->len;
  weft_event_set_dur (rank, &ev, dur);
  weft_event_set_correlation (rank, &ev, f->correlation);
  weft_event_set_external_id (rank, &ev, f->external_id);
  flow_id = -1;
  if (f->id != NULL && (ev.ph == WEFT_PH_S || ev.ph == WEFT_PH_T || ev.ph == WEFT_PH_F))
    {
      if (f->id[0] == '"')
        {
          /* "id": "123" or "0x7b" */
          const char *s = f->id + 1;
          gsize n = f->id_len - 2;
          if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
            {
              char tmp[24];
              if (n - 2 < sizeof tmp)
                {
                  char *endp = NULL;
                  guint64 u;
                  memcpy (tmp, s + 2, n - 2);
                  tmp[n - 2] = '\0';
                  u = g_ascii_strtoull (tmp, &endp, 16);
                  if (endp != tmp && *endp == '\0' && u <= G_MAXINT64)
                    flow_id = (gint64) u;
                }
            }
          else
            flow_id = int_or_none (s, n);
        }
      else
        flow_id = int_or_none (f->id, f->id_len);
    }
  weft_event_set_flow_id (rank, &ev, flow_id);
  S->model_bytes += (rank->wide_ids->len - wide_before) * sizeof (gint64);
  if (f->has_bp && f->bp.len == 1 && f->bp.start[0] == 'e')
    ev.flags |= WEFT_EVENT_BP_E;
  weft_event_set_link (&ev, WEFT_NONE);
  ev.kclass = WEFT_KCLASS_NONE;
  /* the record does not keep its slot: it is its index + 1 (weft_event_text_slot()) */
  slot = S->gz ? _weft_text_store_add_at (rank->texts, offset_of (S, start), len, S->follows)
               : _weft_text_store_add (rank->texts, start, len);
  if (G_UNLIKELY (slot != rank->events->len + 1))
    return scan_fail (S, start, "internal error: text slot %u for event %u", slot, rank->events->len);
  if (f->has_name && keep_text_of (S, ev.name))
    _weft_text_store_keep (rank->texts, slot, start, len); /* FALSE past its cap: read from the block */
  g_array_append_val (rank->events, ev);
  return SCAN_OK;
}

/* The keys of an event that the scanner reads. */
typedef enum
{
  EV_KEY_OTHER,
  EV_KEY_PH,
  EV_KEY_TS,
  EV_KEY_ID,
  EV_KEY_BP,
  EV_KEY_CAT,
  EV_KEY_PID,
  EV_KEY_TID,
  EV_KEY_DUR,
  EV_KEY_NAME,
  EV_KEY_ARGS,
} EvKey;

/* The kind of a scanned key. */
static inline EvKey
ev_key_of (const StrSpan *key)
{
  if (key->escaped)
    return EV_KEY_OTHER;
  switch (key->len)
    {
    case 2:
      if (memcmp (key->start, "ph", 2) == 0)
        return EV_KEY_PH;
      if (memcmp (key->start, "ts", 2) == 0)
        return EV_KEY_TS;
      if (memcmp (key->start, "id", 2) == 0)
        return EV_KEY_ID;
      if (memcmp (key->start, "bp", 2) == 0)
        return EV_KEY_BP;
      break;
    case 3:
      if (memcmp (key->start, "cat", 3) == 0)
        return EV_KEY_CAT;
      if (memcmp (key->start, "pid", 3) == 0)
        return EV_KEY_PID;
      if (memcmp (key->start, "tid", 3) == 0)
        return EV_KEY_TID;
      if (memcmp (key->start, "dur", 3) == 0)
        return EV_KEY_DUR;
      break;
    case 4:
      if (memcmp (key->start, "name", 4) == 0)
        return EV_KEY_NAME;
      if (memcmp (key->start, "args", 4) == 0)
        return EV_KEY_ARGS;
      break;
    default:
      break;
    }
  return EV_KEY_OTHER;
}

/* A key the scanner reads, written as Kineto writes it (plain, its ':'
 * right after the quote), at *pp: its kind, and *pp past the ':'. Else
 * -1, and the caller scans the key the general way, which gives the same
 * for these. Skipping the string scan and the length switch of the known
 * keys saved ~3 % of a load's CPU (the scaled df_index_resolver trace,
 * docs/benchmarks.md). Never in the tests' reference mode. */
static inline int
ev_key_fast (Scan *S, const char **pp)
{
  const char *p = *pp;
  int key = -1;
  gsize n = 0;

  if (S->end - p < 8 || weft_json_lex_reference)
    return -1;
#define EV_KEY_IS(text) (memcmp (p, text, sizeof text - 1) == 0 && (n = sizeof text - 1) > 0)
  switch (p[1])
    {
    case 'p':
      key = EV_KEY_IS ("\"ph\":") ? EV_KEY_PH : EV_KEY_IS ("\"pid\":") ? EV_KEY_PID : -1;
      break;
    case 't':
      key = EV_KEY_IS ("\"ts\":") ? EV_KEY_TS : EV_KEY_IS ("\"tid\":") ? EV_KEY_TID : -1;
      break;
    case 'n':
      key = EV_KEY_IS ("\"name\":") ? EV_KEY_NAME : -1;
      break;
    case 'c':
      key = EV_KEY_IS ("\"cat\":") ? EV_KEY_CAT : -1;
      break;
    case 'd':
      key = EV_KEY_IS ("\"dur\":") ? EV_KEY_DUR : -1;
      break;
    case 'a':
      key = EV_KEY_IS ("\"args\":") ? EV_KEY_ARGS : -1;
      break;
    case 'i':
      key = EV_KEY_IS ("\"id\":") ? EV_KEY_ID : -1;
      break;
    case 'b':
      key = EV_KEY_IS ("\"bp\":") ? EV_KEY_BP : -1;
      break;
    default:
      break;
    }
#undef EV_KEY_IS
  if (key >= 0)
    *pp = p + n;
  return key;
}

/* One traceEvents element at *pp ('{'), depth 3. */
static ScanStatus
scan_event (Scan *S, const char **pp)
{
  const char *start = *pp;
  const char *p = start;
  EvFields f;
  StrSpan key;
  ScanStatus st;

  memset (&f, 0, sizeof f);
  f.correlation = -1;
  f.external_id = -1;
  if (3 > S->max_depth)
    return scan_fail (S, p, "nesting deeper than %u levels", S->max_depth);

  p = skip_ws (p + 1);
  if (*p != '}')
    for (;;)
      {
        int kind;

        if (*p != '"')
          return scan_unexpected (S, p, "a string (object key)");
        if ((kind = ev_key_fast (S, &p)) < 0)
          {
            if ((st = scan_string (S, &p, &key)) != SCAN_OK)
              return st;
            p = skip_ws (p);
            if (*p != ':')
              return scan_unexpected (S, p, "':'");
            p++;
            kind = (int) ev_key_of (&key);
          }
        p = skip_ws (p);

        st = SCAN_OK;
        switch ((EvKey) kind)
          {
          case EV_KEY_PH:
            st = scan_string_field (S, &p, &f.ph, "ph");
            f.has_ph = TRUE;
            break;
          case EV_KEY_TS:
            st = scan_time_field (S, &p, &f.ts, &f.ts_len, "ts", &f.ts_int, &f.ts_fast, &f.ts_ns);
            break;
          case EV_KEY_ID:
            st = scan_id_field (S, &p, &f.id, &f.id_len, "id");
            break;
          case EV_KEY_BP:
            if (*p == '"')
              {
                st = scan_string (S, &p, &f.bp);
                f.has_bp = TRUE;
              }
            else
              st = scan_skip_value (S, &p, 3);
            break;
          case EV_KEY_CAT:
            st = scan_string_field (S, &p, &f.cat, "cat");
            f.has_cat = TRUE;
            break;
          case EV_KEY_PID:
            st = scan_id_field (S, &p, &f.pid, &f.pid_len, "pid");
            break;
          case EV_KEY_TID:
            st = scan_id_field (S, &p, &f.tid, &f.tid_len, "tid");
            break;
          case EV_KEY_DUR:
            st = scan_time_field (S, &p, &f.dur, &f.dur_len, "dur", &f.dur_int, &f.dur_fast, &f.dur_ns);
            break;
          case EV_KEY_NAME:
            st = scan_string_field (S, &p, &f.name, "name");
            f.has_name = TRUE;
            break;
          case EV_KEY_ARGS:
            if (*p == '{')
              st = scan_args (S, &p, &f);
            else
              st = scan_skip_value (S, &p, 3);
            break;
          case EV_KEY_OTHER:
          default:
            st = scan_skip_value (S, &p, 3);
            break;
          }
        if (st != SCAN_OK)
          return st;

        p = skip_ws (p);
        if (*p == ',')
          {
            p = skip_ws (p + 1);
            continue;
          }
        if (*p == '}')
          break;
        return scan_unexpected (S, p, "',' or '}' in an event");
      }
  p++;
  if ((st = commit_event (S, start, p, &f)) != SCAN_OK)
    return st;
  *pp = p;
  return SCAN_OK;
}

/* ---- the root ---------------------------------------------------------------- */

typedef enum
{
  ROOT_START,
  ROOT_FIRST_KEY,
  ROOT_KEY,
  ROOT_VALUE,
  ROOT_AFTER,
  EV_FIRST,
  EV_ELEM,
  EV_AFTER,
  ROOT_DONE,
} RootState;

/* ---- top-level values, in pieces -------------------------------------------- */

/* The values Weft parses itself (load.c, edit.c, compose-apply.c) stay
 * text; any other is packed once it is longer than WEFT_TOP_KEY_PACK_BYTES. */
static gboolean
top_key_parsed_by_weft (const char *key)
{
  return strcmp (key, "weft") == 0 || strcmp (key, "distributedInfo") == 0 ||
         strcmp (key, "baseTimeNanoseconds") == 0;
}

static void
top_reset (TopValue *T)
{
  g_clear_pointer (&T->plain, g_free);
  g_clear_pointer (&T->packed, g_free);
  g_clear_pointer (&T->zc, ZSTD_freeCCtx);
  T->plain_len = T->plain_cap = T->packed_len = T->packed_cap = 0;
  T->total = 0;
  T->sp = 0;
  T->active = FALSE;
}

static void
top_start (Scan *S, guint32 key)
{
  TopValue *T = &S->top;

  top_reset (T);
  T->active = TRUE;
  T->mode = W_VALUE;
  T->start = S->base + S->pos;
  T->plain_only = top_key_parsed_by_weft (weft_rank_string (S->rank, key));
}

/* Grows *buf to hold need bytes; an error (never an abort) when memory is
 * not there. */
static gboolean
top_grow (Scan *S, void **buf, gsize *cap, gsize need)
{
  gsize want;
  void *grown;

  if (need <= *cap)
    return TRUE;
  want = MAX (need, *cap <= G_MAXSIZE / 2 ? *cap * 2 : need);
  grown = g_try_realloc (*buf, want);
  if (grown == NULL && want > need)
    grown = g_try_realloc (*buf, want = need);
  if (grown == NULL)
    {
      g_set_error (&S->error, WEFT_ERROR, WEFT_ERROR_TOO_LARGE,
                   "%s: byte %" G_GUINT64_FORMAT ": a top-level value of more than %" G_GUINT64_FORMAT
                   " bytes does not fit in memory", S->name, S->top.start, S->top.total);
      return FALSE;
    }
  *buf = grown;
  *cap = want;
  return TRUE;
}

static gboolean
top_compress (Scan *S, const char *data, gsize len, ZSTD_EndDirective end)
{
  TopValue *T = &S->top;
  ZSTD_inBuffer in = { data, len, 0 };

  for (;;)
    {
      ZSTD_outBuffer out;
      size_t rc;
      if (!top_grow (S, (void **) &T->packed, &T->packed_cap, T->packed_len + ZSTD_CStreamOutSize ()))
        return FALSE;
      out.dst = T->packed + T->packed_len;
      out.size = T->packed_cap - T->packed_len;
      out.pos = 0;
      rc = ZSTD_compressStream2 (T->zc, &out, &in, end);
      if (ZSTD_isError (rc))
        {
          g_set_error (&S->error, WEFT_ERROR, WEFT_ERROR_COMPRESSION, "%s: byte %" G_GUINT64_FORMAT
                       ": cannot compress a top-level value: %s", S->name, T->start, ZSTD_getErrorName (rc));
          return FALSE;
        }
      T->packed_len += out.pos;
      if (end == ZSTD_e_end ? rc == 0 : in.pos == in.size)
        return TRUE;
    }
}

/* Appends len bytes of the value's text. */
static gboolean
top_add (Scan *S, const char *data, gsize len)
{
  TopValue *T = &S->top;

  if (len == 0)
    return TRUE;
  T->total += len;
  if (T->zc == NULL && (T->plain_only || T->plain_len + len <= WEFT_TOP_KEY_PACK_BYTES))
    {
      if (!top_grow (S, (void **) &T->plain, &T->plain_cap, T->plain_len + len + 1))
        return FALSE;
      memcpy (T->plain + T->plain_len, data, len);
      T->plain_len += len;
      return TRUE;
    }
  if (T->zc == NULL)
    {
      /* level 1: about as fast as the scanner; the text held so far first */
      T->zc = ZSTD_createCCtx ();
      if (T->zc == NULL || ZSTD_isError (ZSTD_CCtx_setParameter (T->zc, ZSTD_c_compressionLevel, 1)))
        {
          g_set_error (&S->error, WEFT_ERROR, WEFT_ERROR_COMPRESSION, "%s: byte %" G_GUINT64_FORMAT
                       ": cannot start compressing a top-level value", S->name, T->start);
          return FALSE;
        }
      if (!top_compress (S, T->plain, T->plain_len, ZSTD_e_continue))
        return FALSE;
      g_clear_pointer (&T->plain, g_free);
      T->plain_len = T->plain_cap = 0;
    }
  return top_compress (S, data, len, ZSTD_e_continue);
}

/* Ends the value: its text (or its packed frame) moves into *tk. */
static gboolean
top_finish (Scan *S, WeftTopKey *tk)
{
  TopValue *T = &S->top;

  memset (tk, 0, sizeof *tk);
  tk->raw_len = (gsize) T->total;
  if (T->zc != NULL)
    {
      guint8 *shrunk;
      if (!top_compress (S, NULL, 0, ZSTD_e_end))
        return FALSE;
      shrunk = g_try_realloc (T->packed, MAX (T->packed_len, 1));
      tk->packed = shrunk != NULL ? shrunk : T->packed;
      tk->packed_len = T->packed_len;
      T->packed = NULL;
    }
  else
    {
      char *shrunk;
      if (!top_grow (S, (void **) &T->plain, &T->plain_cap, T->plain_len + 1))
        return FALSE;
      T->plain[T->plain_len] = '\0';
      shrunk = g_try_realloc (T->plain, T->plain_len + 1);
      tk->raw = shrunk != NULL ? shrunk : T->plain;
      T->plain = NULL;
    }
  top_reset (T);
  return TRUE;
}

/* The top-level value at *pp (its first byte on the first call), validated
 * exactly as scan_skip_value (S, pp, 1) does, with the same errors, but
 * resumable: on SCAN_MORE the text up to the last complete token (or the
 * last complete character of a string) is handed to top_add () and S->pos
 * moved past it, so the buffer holds at most one token of the value, and
 * not even that of a string: a top-level string of 10 GB goes through a
 * 256 KiB buffer. On SCAN_OK *pp is after the value and its text is all
 * added. */
static ScanStatus
walk_top (Scan *S, const char **pp)
{
  TopValue *T = &S->top;
  const char *p = *pp;
  ScanStatus st = SCAN_OK;

  for (;;)
    switch (T->mode)
      {
      case W_STRING:
        {
          const guchar *s = (const guchar *) p;
          gboolean escaped = FALSE;
          st = scan_string_body (S, &s, &escaped);
          p = (const char *) s;
          if (st != SCAN_OK)
            goto stop;
          p++;
          T->mode = T->str_is_key ? W_COLON : W_AFTER;
          break;
        }

      case W_VALUE:
        p = skip_ws (p);
        if (*p == '{' || *p == '[')
          {
            if (1 + T->sp + 1 > S->max_depth)
              return scan_fail (S, p, "nesting deeper than %u levels", S->max_depth);
            T->stack[T->sp++] = (guint8) *p;
            T->mode = *p == '{' ? W_OBJ_FIRST : W_ARR_FIRST;
            p++;
          }
        else if (*p == '"')
          {
            T->mode = W_STRING;
            T->str_is_key = FALSE;
            p++;
          }
        else
          {
            if ((st = scan_scalar (S, &p)) != SCAN_OK)
              goto stop;
            T->mode = W_AFTER;
          }
        break;

      case W_OBJ_FIRST:
      case W_ARR_FIRST:
        p = skip_ws (p);
        if (*p == (T->mode == W_OBJ_FIRST ? '}' : ']'))
          {
            p++;
            T->sp--;
            T->mode = W_AFTER;
          }
        else if (p >= S->end)
          {
            st = SCAN_MORE;
            goto stop;
          }
        else
          T->mode = T->mode == W_OBJ_FIRST ? W_KEY : W_VALUE;
        break;

      case W_KEY:
        p = skip_ws (p);
        if (*p != '"')
          {
            st = scan_unexpected (S, p, "a string (object key)");
            goto stop;
          }
        T->mode = W_STRING;
        T->str_is_key = TRUE;
        p++;
        break;

      case W_COLON:
        p = skip_ws (p);
        if (*p != ':')
          {
            st = scan_unexpected (S, p, "':'");
            goto stop;
          }
        p++;
        T->mode = W_VALUE;
        break;

      case W_AFTER:
        if (T->sp == 0)
          {
            if (!top_add (S, S->buf + S->pos, (gsize) (p - (S->buf + S->pos))))
              return SCAN_ERROR;
            *pp = p;
            return SCAN_OK;
          }
        p = skip_ws (p);
        if (*p == ',')
          {
            p++;
            T->mode = T->stack[T->sp - 1] == '{' ? W_KEY : W_VALUE;
          }
        else if ((T->stack[T->sp - 1] == '{' && *p == '}') || (T->stack[T->sp - 1] == '[' && *p == ']'))
          {
            p++;
            T->sp--;
          }
        else
          {
            st = scan_unexpected (S, p, T->stack[T->sp - 1] == '{' ? "',' or '}'" : "',' or ']'");
            goto stop;
          }
        break;
      }

stop:
  if (st == SCAN_MORE)
    {
      if (!top_add (S, S->buf + S->pos, (gsize) (p - (S->buf + S->pos))))
        return SCAN_ERROR;
      S->pos = (gsize) (p - S->buf);
    }
  return st;
}

static gboolean
refill (Scan *S)
{
  gsize keep = S->len - S->pos;
  gsize want;

  if (S->options->cancellable != NULL && g_cancellable_is_cancelled (S->options->cancellable))
    {
      g_set_error (&S->error, WEFT_ERROR, WEFT_ERROR_CANCELLED, "%s: loading cancelled", S->name);
      return FALSE;
    }
  if (S->pos > 0)
    {
      memmove (S->buf, S->buf + S->pos, keep);
      S->base += S->pos;
      S->pos = 0;
      S->len = keep;
    }
  /* Read at least as much as is kept: a unit bigger than the buffer is
   * rescanned at most O(log n) times, linear overall. */
  want = MAX (scan_chunk, keep);
  if (S->cap - S->len - 1 < want)
    {
      /* One unit (a top-level value, an event) larger than memory allows
       * is an error, never an allocation abort. */
      guint64 data_max = weft_reader_get_limit (S->reader) + 1; /* the reader never hands out more */
      gsize cap = (gsize) MAX (MIN ((guint64) S->len + want + 1, data_max + 1), (guint64) S->len + 2);
      char *grown = g_try_realloc (S->buf, cap);
      if (grown == NULL)
        {
          g_set_error (&S->error, WEFT_ERROR, WEFT_ERROR_TOO_LARGE,
                       "%s: byte %" G_GUINT64_FORMAT ": a single value of more than %" G_GSIZE_FORMAT
                       " bytes (a top-level value or an event) does not fit in memory (limit %" G_GUINT64_FORMAT
                       " bytes)", S->name, S->base, keep, data_max - 1);
          return FALSE;
        }
      S->buf = grown;
      S->cap = cap;
    }
  {
    gssize n = weft_reader_read (S->reader, S->buf + S->len, S->cap - S->len - 1, &S->error);
    if (n < 0)
      return FALSE;
    if (n == 0)
      S->eof = TRUE;
    S->len += (gsize) n;
  }
  S->buf[S->len] = '\0';
  S->end = S->buf + S->len;
  if (S->options->progress != NULL)
    S->options->progress (S->reader, S->options->progress_data);
  return TRUE;
}

/* ROOT_START: an optional UTF-8 byte order mark, then the root's '{'. */
static ScanStatus
root_start (Scan *S, const char **pp, RootState *state)
{
  const char *p = *pp;

  if (p >= S->end)
    return SCAN_MORE;
  if (S->base + S->pos == 0 && (guchar) p[0] == 0xef)
    {
      /* UTF-8 byte order mark */
      if ((guchar) p[1] == 0xbb && (guchar) p[2] == 0xbf)
        {
          *pp = p + 3;
          return SCAN_OK;
        }
      if (p + 3 > S->end)
        return SCAN_MORE;
    }
  if (*p != '{')
    {
      char what[32];
      scan_describe_byte (what, (guchar) *p);
      return scan_fail (S, p, "the root is not a JSON object (starts with %s)", what);
    }
  *pp = p + 1;
  *state = ROOT_FIRST_KEY;
  return SCAN_OK;
}

/* ROOT_KEY: a top-level key and its ':'; "traceEvents" opens the events
 * array (EV_FIRST), any other key is interned into *cur_key (ROOT_VALUE). */
static ScanStatus
root_key (Scan *S, const char **pp, RootState *state, guint32 *cur_key, gboolean *seen_events)
{
  WeftRank *rank = S->rank;
  const char *p = *pp;
  ScanStatus st;
  StrSpan key;

  if (*p != '"')
    return scan_unexpected (S, p, "a string (object key)");
  if ((st = scan_string (S, &p, &key)) != SCAN_OK)
    return st;
  p = skip_ws (p);
  if (*p != ':')
    return scan_unexpected (S, p, "':'");
  p = skip_ws (p + 1);
  if (p >= S->end)
    return SCAN_MORE;
  if (key.len == 11 && memcmp (key.start, "traceEvents", 11) == 0)
    {
      if (*seen_events)
        return scan_fail (S, key.start - 1, "\"traceEvents\" appears twice");
      if (*p != '[')
        return scan_fail (S, p, "\"traceEvents\" is not an array");
      if (2 > S->max_depth)
        return scan_fail (S, p, "nesting deeper than %u levels", S->max_depth);
      *seen_events = TRUE;
      rank->trace_events_pos = rank->top_keys->len;
      p++;
      *state = EV_FIRST;
    }
  else
    {
      *cur_key = weft_strings_intern (rank->strings, key.start, (gssize) key.len);
      *state = ROOT_VALUE;
    }
  *pp = p;
  return SCAN_OK;
}

/* The error of an end of file where the root is not complete. */
static void
set_eof_error (Scan *S, RootState state)
{
  if (S->base + S->len == 0)
    g_set_error (&S->error, WEFT_ERROR, WEFT_ERROR_FORMAT, "%s: byte 0: empty file", S->name);
  else if (state == ROOT_START && S->pos >= S->len)
    g_set_error (&S->error, WEFT_ERROR, WEFT_ERROR_FORMAT, "%s: byte %" G_GUINT64_FORMAT
                 ": no JSON in the file (only whitespace)", S->name, S->base + S->len);
  else
    g_set_error (&S->error, WEFT_ERROR, WEFT_ERROR_FORMAT,
                 "%s: byte %" G_GUINT64_FORMAT ": unexpected end of file (truncated JSON%s)", S->name,
                 S->base + S->len,
                 state == EV_ELEM || state == EV_AFTER || state == EV_FIRST ? " inside traceEvents" : "");
}

static gboolean
scan_root (Scan *S)
{
  RootState state = ROOT_START;
  guint32 cur_key = 0;
  gboolean seen_events = FALSE;
  WeftRank *rank = S->rank;

  for (;;)
    {
      const char *p = S->buf + S->pos;
      ScanStatus st = SCAN_OK;

      /* whitespace is always consumed, so a long run of it never piles up
       * (inside a top-level value, walk_top () keeps it) */
      if (!S->top.active)
        {
          p = skip_ws (p);
          S->pos = (gsize) (p - S->buf);
        }

      switch (state)
        {
        case ROOT_START:
          st = root_start (S, &p, &state);
          break;

        case ROOT_FIRST_KEY:
          if (p >= S->end)
            st = SCAN_MORE;
          else if (*p == '}')
            {
              p++;
              state = ROOT_DONE;
            }
          else
            state = ROOT_KEY;
          break;

        case ROOT_KEY:
          st = root_key (S, &p, &state, &cur_key, &seen_events);
          break;

        case ROOT_VALUE:
          {
            WeftTopKey tk;
            if (!S->top.active)
              top_start (S, cur_key);
            if ((st = walk_top (S, &p)) != SCAN_OK)
              break;
            if (!top_finish (S, &tk))
              return FALSE;
            tk.key = cur_key;
            g_array_append_val (rank->top_keys, tk);
            state = ROOT_AFTER;
            break;
          }

        case ROOT_AFTER:
          if (*p == ',')
            {
              p++;
              state = ROOT_KEY;
            }
          else if (*p == '}')
            {
              p++;
              state = ROOT_DONE;
            }
          else
            st = scan_unexpected (S, p, "',' or '}' after a top-level value");
          break;

        case EV_FIRST:
          S->follows = FALSE;
          if (p >= S->end)
            st = SCAN_MORE;
          else if (*p == ']')
            {
              p++;
              state = ROOT_AFTER;
            }
          else
            state = EV_ELEM;
          break;

        case EV_ELEM:
          if (*p != '{')
            {
              if (p >= S->end)
                st = SCAN_MORE;
              else
                {
                  char what[32];
                  scan_describe_byte (what, (guchar) *p);
                  st = scan_fail (S, p, "a traceEvents element is not an object (starts with %s)", what);
                }
              break;
            }
          if ((st = scan_event (S, &p)) != SCAN_OK)
            break;
          S->follows = TRUE;
          state = EV_AFTER;
          break;

        case EV_AFTER:
          if (*p == ',')
            {
              p++;
              state = EV_ELEM;
            }
          else if (*p == ']')
            {
              p++;
              state = ROOT_AFTER;
            }
          else
            st = scan_unexpected (S, p, "',' or ']' in traceEvents");
          break;

        case ROOT_DONE:
          if (p < S->end)
            {
              char what[32];
              scan_describe_byte (what, (guchar) *p);
              st = scan_fail (S, p, "%s after the end of the root object", what);
              break;
            }
          if (!S->eof)
            {
              st = SCAN_MORE;
              break;
            }
          if (!seen_events)
            {
              g_set_error (&S->error, WEFT_ERROR, WEFT_ERROR_FORMAT,
                           "%s: no \"traceEvents\" array: not a Kineto/Chrome trace", S->name);
              return FALSE;
            }
          return TRUE;
        }

      if (st == SCAN_OK)
        {
          S->pos = (gsize) (p - S->buf);
          continue;
        }
      if (st == SCAN_ERROR)
        return FALSE;
      /* SCAN_MORE */
      if (S->eof)
        {
          set_eof_error (S, state);
          return FALSE;
        }
      if (!refill (S))
        return FALSE;
    }
}

gboolean
weft_json_scan_trace (WeftRank *rank, WeftReader *reader, const WeftScanOptions *options, WeftScanResult *result,
                      GError **error)
{
  static const WeftScanOptions defaults = { 0 };
  Scan S;
  gboolean ok;

  memset (&S, 0, sizeof S);
  S.options = options ? options : &defaults;
  S.rank = rank;
  S.reader = reader;
  S.name = weft_reader_get_name (reader);
  S.max_depth = S.options->max_depth ? S.options->max_depth : DEFAULT_MAX_DEPTH;
  /* the cap on decompressed bytes (default min (16 GiB, RAM / 2)) bounds
   * the memory of the model too, plus room for one read */
  S.budget = weft_reader_get_limit (reader) + 2 * (guint64) SCAN_CHUNK;
  S.stack = g_malloc (S.max_depth + 1);
  S.top.stack = g_malloc (S.max_depth + 1);
  S.cap = scan_chunk + 1;
  S.buf = g_malloc (S.cap);
  S.buf[0] = '\0';
  S.end = S.buf;
  for (guint k = 0; k < LANE_CACHE_SIZE; k++)
    S.lanes[k].lane = WEFT_NONE;
  S.cat_of_id = g_byte_array_new ();
  S.keep_of_name = g_byte_array_new ();
  S.scratch = g_string_new (NULL);
  S.names = g_new0 (struct NameSlot, NAME_CACHE_SIZE);

  /* Reserve the event records from the file size (about one event per
   * 256 bytes of JSON, compressed files ~8x smaller): growing by doubling
   * would copy the array and briefly hold both copies. Reserved but
   * unused capacity is never touched, so it costs address space, not
   * memory. */
  if (rank->events->len == 0 && weft_reader_raw_size (reader) > 0)
    {
      guint64 json_guess = weft_reader_raw_size (reader);
      guint64 n;
      if (weft_reader_get_format (reader) != WEFT_READER_PLAIN)
        json_guess *= 8;
      n = MIN (json_guess / 256 + 16, (guint64) 1 << 22); /* at most 370 MB of address space */
      g_array_set_size (rank->events, (guint) n);
      g_array_set_size (rank->events, 0);
    }

  /* a .json.gz the reader keeps: its texts stay in it (gzindex-private.h) */
  S.gz = weft_reader_keeps_gzip (reader) && _weft_text_store_begin_gzip (rank->texts);
  ok = scan_root (&S);
  _weft_text_store_finish (rank->texts);

  if (result != NULL)
    {
      result->ts_has_fraction = S.ts_has_fraction;
      result->n_negative_dur = S.n_negative_dur;
      result->json_bytes = weft_reader_bytes_out (reader);
    }
  /* the kept file to the store (this stops any read-ahead: the scan has
   * read all it will) */
  if (weft_reader_keeps_gzip (reader))
    _weft_text_store_set_gzip (rank->texts, weft_reader_steal_gzip (reader));
  if (!ok)
    g_propagate_error (error, S.error);
  else
    g_clear_error (&S.error);
  g_free (S.stack);
  top_reset (&S.top);
  g_free (S.top.stack);
  g_free (S.buf);
  g_byte_array_free (S.cat_of_id, TRUE);
  g_byte_array_free (S.keep_of_name, TRUE);
  g_string_free (S.scratch, TRUE);
  g_free (S.names);
  return ok;
}
