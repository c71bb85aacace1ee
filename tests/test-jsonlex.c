/* test-jsonlex.c: the JSON scanner's fast paths against its reference
 * paths (issue 18, item 2), through the private header.
 *
 * - Strings: random string bodies built from plain ASCII, quotes,
 *   backslash escapes (valid and not), \u escapes (surrogate pairs, lone
 *   surrogates, bad hex), control bytes, NUL, valid and invalid UTF-8,
 *   placed at every alignment (0..31) and cut at every length, scanned
 *   with the SSE2 path (where built) and with the portable word-at-a-time
 *   path: the same status, the same stop (or resume) position, the same
 *   "escaped" flag, the same error message. Also scan_string () (whose
 *   inline 16-byte check is the first step) against the reference, and
 *   every byte value at every position of a long plain run.
 * - Numbers: weft_json_decimal_to_int's unchecked fast path (at most 18
 *   digits before the scaled point) against the checked digit-by-digit
 *   path, on random decimals around the 18/19-digit boundary, with
 *   fractions, exponents and signs, at scales 0 and 3; plus the
 *   extremes of int64. */
#include "config.h"

#include <string.h>

#include "core/jsonscan-private.h"
#include "weft/weft-load.h"
#include "weft/weft-model.h"

#define BUF_PAD 64

typedef struct
{
  ScanStatus st;
  gsize      stop;      /* offset of *ps after the call */
  gboolean   escaped;
  char      *message;
} StrResult;

/* A random string body (no opening quote) into out; returns its length. */
static gsize
random_body (GRand *r, char *out, gsize cap)
{
  gsize n = 0;
  guint pieces = (guint) g_rand_int_range (r, 0, 24);

  for (guint i = 0; i < pieces && n + 16 < cap; i++)
    {
      int kind = g_rand_int_range (r, 0, 100);
      if (kind < 45)
        {
          int run = g_rand_int_range (r, 1, 40);
          for (int k = 0; k < run && n + 1 < cap; k++)
            out[n++] = (char) g_rand_int_range (r, 0x20, 0x7f);
        }
      else if (kind < 52)
        out[n++] = '"';
      else if (kind < 62)
        {
          static const char esc[] = "\"\\/bfnrtuxq0";
          out[n++] = '\\';
          out[n++] = esc[g_rand_int_range (r, 0, (int) sizeof esc - 1)];
        }
      else if (kind < 70)
        {
          static const char *const u[] = { "\\u0041", "\\u00e9", "\\ud83d\\ude00", "\\ud83d", "\\ude00",
                                           "\\u12G4", "\\uD800\\u0041", "\\u0000", "\\uFFFF", "\\u" };
          const char *s = u[g_rand_int_range (r, 0, G_N_ELEMENTS (u))];
          gsize l = strlen (s);
          memcpy (out + n, s, l);
          n += l;
        }
      else if (kind < 76)
        out[n++] = (char) g_rand_int_range (r, 0, 0x20);
      else if (kind < 92)
        {
          static const char *const utf8[] = { "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xed\x9f\xbf",
                                              "\xef\xbf\xbd", "\xf4\x8f\xbf\xbf" };
          const char *s = utf8[g_rand_int_range (r, 0, G_N_ELEMENTS (utf8))];
          gsize l = strlen (s);
          memcpy (out + n, s, l);
          n += l;
        }
      else
        {
          static const char *const bad[] = { "\x80", "\xc0\x80", "\xc3", "\xe0\x80\x80", "\xed\xa0\x80", "\xf5",
                                             "\xff", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xe2\x82" };
          const char *s = bad[g_rand_int_range (r, 0, G_N_ELEMENTS (bad))];
          gsize l = strlen (s);
          memcpy (out + n, s, l);
          n += l;
        }
    }
  return n;
}

/* Scans the body at buf + at, the buffer's data ending at buf + len
 * (NUL sentinel there, as the scanner's buffer). */
static StrResult
run_body (char *buf, gsize at, gsize len, gboolean reference)
{
  Scan S;
  StrResult res = { 0 };
  const guchar *s = (const guchar *) buf + at;

  memset (&S, 0, sizeof S);
  S.name = "t.json";
  S.buf = buf;
  S.len = len;
  S.end = buf + len;
  weft_json_lex_reference = reference;
  res.st = scan_string_body (&S, &s, &res.escaped);
  weft_json_lex_reference = FALSE;
  res.stop = (gsize) ((const char *) s - buf);
  if (res.st == SCAN_ERROR)
    {
      g_assert_nonnull (S.error);
      res.message = g_strdup (S.error->message);
    }
  else
    g_assert_null (S.error);
  g_clear_error (&S.error);
  return res;
}

/* scan_string () from the opening quote at buf + at - 1. */
static StrResult
run_string (char *buf, gsize at, gsize len, gboolean reference)
{
  Scan S;
  StrResult res = { 0 };
  const char *p = buf + at - 1;
  StrSpan span = { 0 };

  memset (&S, 0, sizeof S);
  S.name = "t.json";
  S.buf = buf;
  S.len = len;
  S.end = buf + len;
  weft_json_lex_reference = reference;
  res.st = scan_string (&S, &p, &span);
  weft_json_lex_reference = FALSE;
  if (res.st == SCAN_OK)
    {
      g_assert_true (span.start == buf + at);
      g_assert_true (p == span.start + span.len + 1);
      res.stop = span.len;
      res.escaped = span.escaped;
    }
  if (res.st == SCAN_ERROR)
    res.message = g_strdup (S.error->message);
  g_clear_error (&S.error);
  return res;
}

static void
assert_same (const StrResult *a, const StrResult *b)
{
  g_assert_cmpint (a->st, ==, b->st);
  if (a->st != SCAN_ERROR)
    g_assert_cmpuint (a->stop, ==, b->stop);
  if (a->st == SCAN_OK)
    g_assert_cmpint (a->escaped, ==, b->escaped);
  g_assert_cmpstr (a->message, ==, b->message);
}

static void
test_strings (void)
{
  GRand *r = g_rand_new_with_seed (18002);
  char body[512];
  char *buf = g_malloc (sizeof body + 2 * BUF_PAD);
  guint n_ok = 0, n_more = 0, n_error = 0, n_escaped = 0;

  for (guint iter = 0; iter < 800; iter++)
    {
      gsize n = random_body (r, body, sizeof body - 2);
      if (g_rand_boolean (r))
        body[n++] = '"';
      if (g_rand_int_range (r, 0, 4) == 0)
        {
          /* plain tail after the closing quote, as the rest of an event */
          memcpy (body + n, ",\"ts\":1}", 8);
          n += 8;
        }
      for (gsize align = 0; align < 32; align++)
        {
          gsize at = 1 + align; /* buf[align] is the opening quote */
          /* every cut (the end of the data, where the sentinel stands) */
          for (gsize cut = 0; cut <= n; cut += (iter % 7 == 0 ? 1 : 1 + (cut % 5)))
            {
              StrResult a, b, c, d;
              memset (buf, 'x', sizeof body + 2 * BUF_PAD);
              buf[align] = '"';
              memcpy (buf + at, body, cut);
              buf[at + cut] = '\0';
              a = run_body (buf, at, at + cut, FALSE);
              b = run_body (buf, at, at + cut, TRUE);
              assert_same (&a, &b);
              c = run_string (buf, at, at + cut, FALSE);
              d = run_string (buf, at, at + cut, TRUE);
              assert_same (&c, &d);
              g_assert_cmpint (c.st, ==, a.st);
              n_ok += a.st == SCAN_OK;
              n_more += a.st == SCAN_MORE;
              n_error += a.st == SCAN_ERROR;
              n_escaped += a.st == SCAN_OK && a.escaped;
              g_free (a.message);
              g_free (b.message);
              g_free (c.message);
              g_free (d.message);
            }
        }
    }
  g_test_message ("strings: %u ok (%u escaped), %u need more, %u errors", n_ok, n_escaped, n_more, n_error);
  /* the generator reaches every outcome */
  g_assert_cmpuint (n_ok, >, 1000);
  g_assert_cmpuint (n_escaped, >, 100);
  g_assert_cmpuint (n_more, >, 1000);
  g_assert_cmpuint (n_error, >, 1000);
  g_free (buf);
  g_rand_free (r);
}

/* Every byte value at every position of a 48-byte plain run, at every
 * alignment, the run ending in a quote: each 16-byte block of the fast
 * path sees each byte everywhere. */
static void
test_single_bytes (void)
{
  char *buf = g_malloc (128);

  for (guint c = 0; c < 256; c++)
    for (gsize pos = 0; pos < 48; pos++)
      for (gsize align = 0; align < 32; align++)
        {
          gsize at = 1 + align;
          StrResult a, b, s1, s2;
          memset (buf, 'a', 128);
          buf[align] = '"';
          buf[at + pos] = (char) c;
          buf[at + 48] = '"';
          buf[at + 49] = '}';
          buf[at + 50] = '\0';
          a = run_body (buf, at, at + 50, FALSE);
          b = run_body (buf, at, at + 50, TRUE);
          assert_same (&a, &b);
          s1 = run_string (buf, at, at + 50, FALSE);
          s2 = run_string (buf, at, at + 50, TRUE);
          assert_same (&s1, &s2);
          /* plain printable ASCII other than '"' and '\\' is part of the run */
          if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
            {
              g_assert_cmpint (a.st, ==, SCAN_OK);
              g_assert_cmpuint (a.stop, ==, at + 48);
            }
          if (c == '"')
            g_assert_cmpuint (a.stop, ==, at + pos);
          if (c < 0x20 || c >= 0x80)
            g_assert_cmpint (a.st, ==, SCAN_ERROR); /* control byte, NUL, or a lone UTF-8 byte */
          g_free (a.message);
          g_free (b.message);
          g_free (s1.message);
          g_free (s2.message);
        }
  g_free (buf);
}

static void
check_decimal (const char *text, int scale)
{
  gint64 fast = 0, ref = 0;
  const char *why_fast = NULL, *why_ref = NULL;
  gboolean ok_fast, ok_ref;

  ok_fast = weft_json_decimal_to_int (text, strlen (text), scale, &fast, &why_fast);
  weft_json_lex_reference = TRUE;
  ok_ref = weft_json_decimal_to_int (text, strlen (text), scale, &ref, &why_ref);
  weft_json_lex_reference = FALSE;
  if (ok_fast != ok_ref || (ok_ref && fast != ref) || g_strcmp0 (why_fast, why_ref) != 0)
    g_error ("%s (scale %d): fast %d %" G_GINT64_FORMAT " (%s), reference %d %" G_GINT64_FORMAT " (%s)", text, scale,
             ok_fast, fast, why_fast ? why_fast : "-", ok_ref, ref, why_ref ? why_ref : "-");
}

static void
test_decimals (void)
{
  static const char *const fixed[] = {
    "0", "-0", "0.0005", "0.0004999", "-0.0005", "999999999999999.9995", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "922337203685477.5807",
    "1e15", "1e16", "9.999e17", "1E-3", "5e-4", "4.9e-4", "1.5e+2", "123456789012345678",
    "1234567890123456789", "0.000000000000000000000001", "1e-999999999", "1e999999999", "00", "1.", ".5",
    "-", "1e", "1e+", "--1", "1.5x", "", "12345678/", "1234567:", "1234567\x80", "123456781234567:",
    "1669783687464181", "1669783687464181.999", "16697836874641819", "9223372036854775.807", "9223372036854775.8075",
    "-9223372036854775.808", "-9223372036854775.8085", "12345678.12345678", "1.23456789",
  };
  GRand *r = g_rand_new_with_seed (18003);

  for (guint i = 0; i < G_N_ELEMENTS (fixed); i++)
    for (int scale = 0; scale <= 3; scale += 3)
      check_decimal (fixed[i], scale);

  for (guint iter = 0; iter < 200000; iter++)
    {
      char text[96];
      gsize n = 0;
      int n_int = g_rand_int_range (r, 1, 21);
      if (g_rand_int_range (r, 0, 4) == 0)
        text[n++] = '-';
      for (int k = 0; k < n_int; k++)
        text[n++] = (char) ('0' + g_rand_int_range (r, k == 0 && n_int > 1 ? 1 : 0, 10));
      if (g_rand_boolean (r))
        {
          int n_frac = g_rand_int_range (r, 1, 12);
          text[n++] = '.';
          for (int k = 0; k < n_frac; k++)
            text[n++] = (char) ('0' + g_rand_int_range (r, 0, 10));
        }
      if (g_rand_int_range (r, 0, 5) == 0)
        n += (gsize) g_snprintf (text + n, sizeof text - n, "e%d", g_rand_int_range (r, -25, 25));
      text[n] = '\0';
      check_decimal (text, g_rand_boolean (r) ? 3 : 0);
    }
  g_rand_free (r);
}

/* ---- whole loads: the scanner's fast paths against the reference ---------------- */

/* A number for "ts" / "dur": the forms Kineto writes, and the others. */
static void
append_number (GString *out, GRand *r, gboolean odd_ones)
{
  static const char *const odd[] = { "0", "-0", "00", "01", "-", "1.", ".5", "1e", "1e+", "--1", "+1", "1.5x",
                                     "9223372036854775", "9223372036854776", "-9223372036854775",
                                     "9223372036854775807", "99999999999999999", "999999999999999999",
                                     "1000000000000000000", "12345678901234567890", "1E3", "2.5e-3", "1.0005",
                                     "\"12\"", "null", "true", "NaN", "-Infinity" };
  int n;

  switch (g_rand_int_range (r, odd_ones ? 0 : 1, 6))
    {
    case 0:
      g_string_append (out, odd[g_rand_int_range (r, 0, G_N_ELEMENTS (odd))]);
      return;
    case 1:
      if (g_rand_boolean (r))
        g_string_append_c (out, '-');
      /* fall through */
    default:
      n = g_rand_int_range (r, 1, odd_ones ? 21 : 17);
      for (int k = 0; k < n; k++)
        g_string_append_c (out, (char) ('0' + g_rand_int_range (r, k == 0 && n > 1 ? 1 : 0, 10)));
      if (g_rand_int_range (r, 0, 4) == 0)
        {
          g_string_append_c (out, '.');
          for (int k = g_rand_int_range (r, 1, 8); k > 0; k--)
            g_string_append_c (out, (char) ('0' + g_rand_int_range (r, 0, 10)));
        }
      if (g_rand_int_range (r, 0, 8) == 0)
        g_string_append_printf (out, "e%d", g_rand_int_range (r, -9, 9));
    }
}

static void
append_ws (GString *out, GRand *r)
{
  static const char ws[] = " \n\t\r";
  int n = g_rand_int_range (r, 0, 4) == 0 ? g_rand_int_range (r, 0, 40) : g_rand_int_range (r, 0, 3);

  for (int k = 0; k < n; k++)
    g_string_append_c (out, ws[g_rand_int_range (r, 0, 4)]);
}

/* A made-up trace: events on more lanes than the scanner remembers, pids
 * too long for its cache, times in every form, whitespace everywhere. */
static char *
random_trace (GRand *r, gsize *len)
{
  GString *t = g_string_new ("{");
  int n_events = g_rand_int_range (r, 1, 40);
  gboolean odd_ones = g_rand_int_range (r, 0, 3) == 0; /* most of these fail to load */

  append_ws (t, r);
  g_string_append (t, "\"traceEvents\":");
  append_ws (t, r);
  g_string_append_c (t, '[');
  for (int e = 0; e < n_events; e++)
    {
      int lane = g_rand_int_range (r, 0, 9);
      append_ws (t, r);
      g_string_append (t, e > 0 ? ",{" : "{");
      append_ws (t, r);
      g_string_append_printf (t, "\"ph\":\"%c\",", "XXXiMf"[g_rand_int_range (r, 0, 6)]);
      append_ws (t, r);
      if (lane == 8)
        g_string_append (t, "\"pid\": \"a process name longer than the forty-eight bytes of a slot\",");
      else
        g_string_append_printf (t, "\"pid\": %d,", lane % 3);
      append_ws (t, r);
      g_string_append_printf (t, "\"tid\":%d,", lane);
      append_ws (t, r);
      g_string_append (t, "\"name\":\"k\",");
      if (g_rand_int_range (r, 0, 8) != 0)
        {
          g_string_append (t, "\"ts\":");
          append_ws (t, r);
          append_number (t, r, odd_ones);
          append_ws (t, r);
          g_string_append_c (t, ',');
        }
      if (g_rand_int_range (r, 0, 3) != 0)
        {
          append_ws (t, r);
          g_string_append (t, "\"dur\"");
          append_ws (t, r);
          g_string_append_c (t, ':');
          append_ws (t, r);
          append_number (t, r, odd_ones);
          g_string_append_c (t, ',');
        }
      if (g_rand_boolean (r))
        {
          /* the two ids the scanner reads from args */
          g_string_append (t, "\"args\":{");
          append_ws (t, r);
          g_string_append (t, "\"External id\":");
          append_ws (t, r);
          append_number (t, r, odd_ones);
          g_string_append (t, ", \"correlation\":");
          append_number (t, r, odd_ones);
          append_ws (t, r);
          g_string_append (t, "},");
        }
      append_ws (t, r);
      g_string_append (t, "\"cat\":\"kernel\"");
      append_ws (t, r);
      g_string_append_c (t, '}');
    }
  append_ws (t, r);
  g_string_append (t, "]}");
  append_ws (t, r);
  *len = t->len;
  return g_string_free (t, FALSE);
}

static WeftRank *
load_as (const char *data, gsize len, gboolean reference, char **message)
{
  GError *error = NULL;
  WeftRank *rank;

  weft_json_lex_reference = reference;
  rank = weft_rank_load_buffer ("t.json", data, len, NULL, &error);
  weft_json_lex_reference = FALSE;
  *message = error != NULL ? g_strdup (error->message) : NULL;
  g_assert_true ((rank == NULL) == (error != NULL));
  g_clear_error (&error);
  return rank;
}

static void
test_loads (void)
{
  GRand *r = g_rand_new_with_seed (18024);
  guint n_ok = 0;

  for (guint iter = 0; iter < 4000; iter++)
    {
      gsize len;
      g_autofree char *text = random_trace (r, &len);
      g_autofree char *m_fast = NULL, *m_ref = NULL;
      WeftRank *fast, *ref;

      /* small reads put the buffer's end everywhere */
      weft_json_scan_set_chunk_size (g_rand_boolean (r) ? (gsize) g_rand_int_range (r, 1, 64) : 0);
      fast = load_as (text, len, FALSE, &m_fast);
      ref = load_as (text, len, TRUE, &m_ref);
      weft_json_scan_set_chunk_size (0);
      if (g_strcmp0 (m_fast, m_ref) != 0)
        g_error ("%s\nfast: %s\nreference: %s", text, m_fast ? m_fast : "(loaded)", m_ref ? m_ref : "(loaded)");
      if (fast == NULL)
        continue;
      n_ok++;
      g_assert_cmpuint (fast->events->len, ==, ref->events->len);
      g_assert_cmpint (fast->ts_style, ==, ref->ts_style);
      g_assert_cmpuint (fast->n_negative_dur, ==, ref->n_negative_dur);
      g_assert_cmpuint (fast->lanes->len, ==, ref->lanes->len);
      for (guint i = 0; i < fast->events->len; i++)
        {
          const WeftEvent *a = weft_rank_event (fast, i), *b = weft_rank_event (ref, i);
          g_assert_cmpint (a->ts, ==, b->ts);
          g_assert_cmpint (weft_event_dur (fast, a), ==, weft_event_dur (ref, b));
          g_assert_cmpuint (a->flags, ==, b->flags);
          g_assert_cmpint (weft_event_correlation (fast, a), ==, weft_event_correlation (ref, b));
          g_assert_cmpint (weft_event_external_id (fast, a), ==, weft_event_external_id (ref, b));
          g_assert_cmpuint (a->lane, ==, b->lane);
          if (a->lane != WEFT_NONE)
            {
              /* the lane is the event's own pid and tid (the lane cache) */
              gsize n = 0;
              g_autofree char *own = weft_rank_event_text_dup (fast, a, &n);
              const WeftLane *lane = weft_rank_lane (fast, a->lane);
              g_autofree char *pid = g_strdup_printf ("\"pid\": %s,", weft_rank_string (fast, lane->pid_text));
              g_autofree char *tid = g_strdup_printf ("\"tid\":%s,", weft_rank_string (fast, lane->tid_text));
              g_assert_nonnull (strstr (own, pid));
              g_assert_nonnull (strstr (own, tid));
            }
        }
      weft_rank_free (fast);
      weft_rank_free (ref);
    }
  g_assert_cmpuint (n_ok, >, 400); /* enough of them load to compare */
  g_rand_free (r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/jsonlex/strings-fast-vs-reference", test_strings);
  g_test_add_func ("/jsonlex/single-bytes-fast-vs-reference", test_single_bytes);
  g_test_add_func ("/jsonlex/decimals-fast-vs-reference", test_decimals);
  g_test_add_func ("/jsonlex/loads-fast-vs-reference", test_loads);
  return g_test_run ();
}
