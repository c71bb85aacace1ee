/* jsonscan-lex.c: the JSON scanner's lexical primitives: strings (escapes
 * and UTF-8 validated), numbers, literals, skipping a whole value,
 * unescaping, and the exact decimal-to-integer conversion. The buffer ends
 * in a NUL sentinel (see jsonscan.c), so the loops need no bounds checks. */
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "core/jsonscan-private.h"

gboolean weft_json_lex_reference = FALSE;

/* ---- character classes ------------------------------------------------------ */

/* C_STR | C_WS | C_DIGIT | C_HEX of each byte (generated; a constant, so
 * worker threads share it without initialisation). */
const guint8 weft_json_cclass[256] = {
   0,  0,  0,  0,  0,  0,  0,  0,  0,  2,  2,  0,  0,  2,  0,  0,  /* 0x00 */
   0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  /* 0x10 */
   3,  1,  0,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  /* 0x20 */
  13, 13, 13, 13, 13, 13, 13, 13, 13, 13,  1,  1,  1,  1,  1,  1,  /* 0x30 */
   1,  9,  9,  9,  9,  9,  9,  1,  1,  1,  1,  1,  1,  1,  1,  1,  /* 0x40 */
   1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  0,  1,  1,  1,  /* 0x50 */
   1,  9,  9,  9,  9,  9,  9,  1,  1,  1,  1,  1,  1,  1,  1,  1,  /* 0x60 */
   1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  /* 0x70 */
   0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  /* 0x80 */
   0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  /* 0x90 */
   0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  /* 0xa0 */
   0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  /* 0xb0 */
   0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  /* 0xc0 */
   0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  /* 0xd0 */
   0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  /* 0xe0 */
   0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  /* 0xf0 */
};

/* ---- errors ----------------------------------------------------------------- */


ScanStatus
scan_fail (Scan *S, const char *at, const char *format, ...)
{
  if (S->error == NULL)
    {
      va_list args;
      char *what;
      va_start (args, format);
      what = g_strdup_vprintf (format, args);
      va_end (args);
      g_set_error (&S->error, WEFT_ERROR, WEFT_ERROR_FORMAT, "%s: byte %" G_GUINT64_FORMAT ": %s", S->name,
                   offset_of (S, at), what);
      g_free (what);
    }
  return SCAN_ERROR;
}

void
scan_describe_byte (char out[32], guchar c)
{
  if (c >= 0x21 && c < 0x7f)
    g_snprintf (out, 32, "'%c'", c);
  else
    g_snprintf (out, 32, "byte 0x%02x", c);
}

/* At p there is something other than what the grammar wants. */
ScanStatus
scan_unexpected (Scan *S, const char *p, const char *expected)
{
  char what[32];

  if (p >= S->end)
    return SCAN_MORE;
  if (strncmp (p, "NaN", MIN (3, (gsize) (S->end - p))) == 0 ||
      strncmp (p, "Infinity", MIN (8, (gsize) (S->end - p))) == 0 ||
      strncmp (p, "-Infinity", MIN (9, (gsize) (S->end - p))) == 0)
    {
      gsize avail = (gsize) (S->end - p);
      if ((*p == 'N' && avail < 3) || (*p == 'I' && avail < 8) || (*p == '-' && avail < 9))
        return SCAN_MORE;
      return scan_fail (S, p, "NaN and Infinity are not valid JSON numbers");
    }
  scan_describe_byte (what, (guchar) *p);
  return scan_fail (S, p, "unexpected %s, expected %s", what, expected);
}

/* ---- scalars ---------------------------------------------------------------- */

static inline gboolean
plain8 (guint64 x)
{
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
  const guint64 high = G_GUINT64_CONSTANT (0x8080808080808080);
  guint64 q = x ^ (ones * 0x22);
  guint64 b = x ^ (ones * 0x5c);
  guint64 bad = ((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((b - ones) & ~b) | x;
  return (bad & high) == 0;
}

static int
hex_value (guchar c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* \uXXXX at s (s[0] == '\\', s[1] == 'u'). */
static ScanStatus
scan_u4 (Scan *S, const guchar *s, guint *cp)
{
  guint v = 0;
  for (int i = 2; i < 6; i++)
    {
      if (!IS_HEX (s[i]))
        {
          if ((const char *) s + i >= S->end)
            return SCAN_MORE;
          return scan_fail (S, (const char *) s, "invalid \\u escape in a string");
        }
      v = v * 16 + (guint) hex_value (s[i]);
    }
  *cp = v;
  return SCAN_OK;
}

/* Validates one UTF-8 sequence at s (s[0] >= 0x80); *n = its length. */
static ScanStatus
scan_utf8 (Scan *S, const guchar *s, int *n)
{
  guchar c = s[0];
  guchar lo = 0x80, hi = 0xbf;
  int len;

  if (c >= 0xc2 && c <= 0xdf)
    len = 2;
  else if (c >= 0xe0 && c <= 0xef)
    {
      len = 3;
      if (c == 0xe0)
        lo = 0xa0;
      else if (c == 0xed)
        hi = 0x9f;
    }
  else if (c >= 0xf0 && c <= 0xf4)
    {
      len = 4;
      if (c == 0xf0)
        lo = 0x90;
      else if (c == 0xf4)
        hi = 0x8f;
    }
  else
    return scan_fail (S, (const char *) s, "invalid UTF-8 byte 0x%02x in a string", c);

  for (int i = 1; i < len; i++)
    {
      guchar b = s[i];
      guchar l = i == 1 ? lo : 0x80, h = i == 1 ? hi : 0xbf;
      if (b < l || b > h)
        {
          if ((const char *) s + i >= S->end)
            return SCAN_MORE;
          return scan_fail (S, (const char *) s, "invalid UTF-8 sequence in a string");
        }
    }
  *n = len;
  return SCAN_OK;
}

/* The body of a string from *ps (just after its opening quote, or where
 * an earlier call stopped) to its closing quote, where *ps is left. On
 * SCAN_MORE *ps is where to resume: the start of the escape or UTF-8
 * sequence the end of the buffer cut (everything before it is valid), so a
 * string longer than the buffer can be scanned in pieces. *escaped is set
 * when the string has a backslash. */
ScanStatus
scan_string_body (Scan *S, const guchar **ps, gboolean *escaped)
{
  const guchar *s = *ps;
  const guchar *end = (const guchar *) S->end;
  ScanStatus st;

  for (;;)
    {
      guchar c;

#ifdef WEFT_JSON_SSE2
      if (!weft_json_lex_reference)
        {
          while (s + 16 <= end)
            {
              guint n = plain_run16 (s);
              s += n;
              if (n < 16)
                goto special;
            }
        }
#endif
      while (s + 8 <= end)
        {
          guint64 x;
          memcpy (&x, s, 8);
          if (!plain8 (x))
            break;
          s += 8;
        }
      while (IS_STR (*s))
        s++;
#ifdef WEFT_JSON_SSE2
    special:
#endif
      c = *s;
      if (c == '"')
        break;
      if (c == '\\')
        {
          *escaped = TRUE;
          switch (s[1])
            {
            case '"':
            case '\\':
            case '/':
            case 'b':
            case 'f':
            case 'n':
            case 'r':
            case 't':
              s += 2;
              continue;
            case 'u':
              {
                /* read only after scan_u4 returned SCAN_OK and set them,
                 * which gcc 12 at -O3 does not see (-Wmaybe-uninitialized) */
                guint cp = 0, lo = 0;
                if ((st = scan_u4 (S, s, &cp)) != SCAN_OK)
                  goto stop;
                if (cp >= 0xd800 && cp <= 0xdbff)
                  {
                    if (s[6] != '\\' || s[7] != 'u')
                      {
                        if ((const char *) s + 6 >= S->end || ((const char *) s + 7 >= S->end && s[6] == '\\'))
                          goto more;
                        return scan_fail (S, (const char *) s, "lone UTF-16 surrogate in a \\u escape");
                      }
                    if ((st = scan_u4 (S, s + 6, &lo)) != SCAN_OK)
                      goto stop;
                    if (lo < 0xdc00 || lo > 0xdfff)
                      return scan_fail (S, (const char *) s, "lone UTF-16 surrogate in a \\u escape");
                    s += 12;
                  }
                else if (cp >= 0xdc00 && cp <= 0xdfff)
                  return scan_fail (S, (const char *) s, "lone UTF-16 surrogate in a \\u escape");
                else
                  s += 6;
                continue;
              }
            default:
              if ((const char *) s + 1 >= S->end)
                goto more;
              return scan_fail (S, (const char *) s, "invalid escape in a string");
            }
        }
      if ((const char *) s >= S->end)
        goto more;
      if (c < 0x20)
        {
          if (c == 0)
            return scan_fail (S, (const char *) s, "NUL byte in a string");
          return scan_fail (S, (const char *) s, "control character 0x%02x in a string (must be escaped)", c);
        }
      {
        int n = 0;
        if ((st = scan_utf8 (S, s, &n)) != SCAN_OK)
          goto stop;
        s += n;
      }
    }
  *ps = s;
  return SCAN_OK;

more:
  st = SCAN_MORE;
stop:
  if (st == SCAN_MORE)
    *ps = s;
  return st;
}

/* Number at *pp; *is_int is TRUE when it has no fraction or exponent. */
ScanStatus
scan_number (Scan *S, const char **pp, gboolean *is_int)
{
  const char *q = *pp;
  gboolean integer = TRUE;

  if (*q == '-')
    q++;
  if (*q == '0')
    q++;
  else if (IS_DIGIT (*q))
    while (IS_DIGIT (*q))
      q++;
  else if (*q == 'I' && q > *pp)
    return scan_unexpected (S, *pp, "a number"); /* -Infinity */
  else
    return scan_unexpected (S, q, "a digit");
  if (*q == '.')
    {
      q++;
      integer = FALSE;
      if (!IS_DIGIT (*q))
        return scan_unexpected (S, q, "a digit after the decimal point");
      while (IS_DIGIT (*q))
        q++;
    }
  if (*q == 'e' || *q == 'E')
    {
      q++;
      integer = FALSE;
      if (*q == '+' || *q == '-')
        q++;
      if (!IS_DIGIT (*q))
        return scan_unexpected (S, q, "a digit in the exponent");
      while (IS_DIGIT (*q))
        q++;
    }
  if (q >= S->end)
    return SCAN_MORE; /* the number may go on in the next chunk */
  if (is_int)
    *is_int = integer;
  *pp = q;
  return SCAN_OK;
}

static ScanStatus
scan_literal (Scan *S, const char **pp, const char *lit)
{
  const char *p = *pp;

  for (gsize i = 0; lit[i] != '\0'; i++)
    if (p[i] != lit[i])
      {
        if (p + i >= S->end)
          return SCAN_MORE;
        return scan_fail (S, p, "invalid literal (expected %s)", lit);
      }
  *pp = p + strlen (lit);
  return SCAN_OK;
}

ScanStatus
scan_scalar (Scan *S, const char **pp)
{
  StrSpan span;

  switch (**pp)
    {
    case '"':
      return scan_string (S, pp, &span);
    case 't':
      return scan_literal (S, pp, "true");
    case 'f':
      return scan_literal (S, pp, "false");
    case 'n':
      return scan_literal (S, pp, "null");
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
      return scan_number (S, pp, NULL);
    default:
      return scan_unexpected (S, *pp, "a JSON value");
    }
}

/* Any value at *pp, validated and skipped. depth: nesting depth of the
 * container holding it. Iterative (explicit stack), so deep input cannot
 * overflow the C stack. */
ScanStatus
scan_skip_value (Scan *S, const char **pp, guint depth)
{
  const char *p = *pp;
  guint sp = 0;
  ScanStatus st;
  StrSpan span;

  if (*p != '{' && *p != '[')
    return scan_scalar (S, pp);

  for (;;)
    {
      /* p is at a value */
      if (*p == '{' || *p == '[')
        {
          if (depth + sp + 1 > S->max_depth)
            return scan_fail (S, p, "nesting deeper than %u levels", S->max_depth);
          S->stack[sp++] = (guint8) *p;
          p = skip_ws (p + 1);
          if (S->stack[sp - 1] == '{')
            {
              if (*p == '}')
                {
                  p++;
                  sp--;
                  goto after_value;
                }
              goto key;
            }
          if (*p == ']')
            {
              p++;
              sp--;
              goto after_value;
            }
          continue;
        }
      if ((st = scan_scalar (S, &p)) != SCAN_OK)
        return st;

    after_value:
      if (sp == 0)
        break;
      p = skip_ws (p);
      if (*p == ',')
        {
          p = skip_ws (p + 1);
          if (S->stack[sp - 1] == '{')
            goto key;
          continue;
        }
      if ((S->stack[sp - 1] == '{' && *p == '}') || (S->stack[sp - 1] == '[' && *p == ']'))
        {
          p++;
          sp--;
          goto after_value;
        }
      return scan_unexpected (S, p, S->stack[sp - 1] == '{' ? "',' or '}'" : "',' or ']'");

    key:
      if (*p != '"')
        return scan_unexpected (S, p, "a string (object key)");
      if ((st = scan_string (S, &p, &span)) != SCAN_OK)
        return st;
      p = skip_ws (p);
      if (*p != ':')
        return scan_unexpected (S, p, "':'");
      p = skip_ws (p + 1);
    }
  *pp = p;
  return SCAN_OK;
}

/* ---- exact decimal conversion ------------------------------------------------ */

/* The forms Kineto writes ([-]digits[.digits], at most 19 digits before
 * the scaled point, scale 0..3) in one pass, eight digits at a time;
 * FALSE for anything else (exponents, errors, overflow), which the
 * general path below then handles, so the results are the same. */
static inline gboolean
decimal_fast (const char *text, gsize len, int scale, gint64 *out)
{
  const char *p = text, *e = text + len, *int_start, *frac_start;
  gboolean neg = FALSE;
  guint64 v = 0, limit;
  int used = 0;
  guint round_up = 0;

  if (len > 32 || scale < 0 || scale > 3)
    return FALSE;
  if (p < e && *p == '-')
    {
      neg = TRUE;
      p++;
    }
  int_start = p;
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  while (e - p >= 8)
    {
      guint64 x;
      memcpy (&x, p, 8);
      if (!digits8 (x))
        break;
      v = v * 100000000 + value8 (x); /* wraps only past 19 digits: refused below */
      p += 8;
    }
#endif
  while (p < e && (guint) (*p - '0') < 10)
    v = v * 10 + (guint) (*p++ - '0');
  if (p == int_start || (p - int_start) + scale > 19)
    return FALSE;
  if (p < e && *p == '.')
    {
      frac_start = ++p;
      while (p < e && (guint) (*p - '0') < 10)
        {
          guint d = (guint) (*p - '0');
          if (used < scale)
            {
              v = v * 10 + d;
              used++;
            }
          else if (p == frac_start + scale)
            round_up = d >= 5;
          p++;
        }
      if (p == frac_start)
        return FALSE;
    }
  if (p != e)
    return FALSE;
  for (; used < scale; used++)
    v *= 10;
  v += round_up; /* < 10^19 + 1: no wrap */
  limit = neg ? (G_GUINT64_CONSTANT (1) << 63) : (guint64) G_MAXINT64;
  if (v > limit)
    return FALSE;
  if (neg)
    *out = v == (G_GUINT64_CONSTANT (1) << 63) ? G_MININT64 : -(gint64) v;
  else
    *out = (gint64) v;
  return TRUE;
}

gboolean
weft_json_decimal_to_int (const char *text, gsize len, int scale, gint64 *out, const char **why)
{
  const char *p = text, *e = text + len;
  const char *int_start, *frac_start = NULL;
  gsize n_int, n_frac = 0, total;
  gboolean neg = FALSE, round_up = FALSE;
  gint64 exp = 0, point;
  guint64 v = 0, limit;
  const char *dummy;

  if (!weft_json_lex_reference && decimal_fast (text, len, scale, out))
    return TRUE;
  if (why == NULL)
    why = &dummy;
  if (p < e && *p == '-')
    {
      neg = TRUE;
      p++;
    }
  int_start = p;
  while (p < e && *p >= '0' && *p <= '9')
    p++;
  n_int = (gsize) (p - int_start);
  if (n_int == 0)
    {
      *why = "not a number";
      return FALSE;
    }
  if (p < e && *p == '.')
    {
      p++;
      frac_start = p;
      while (p < e && *p >= '0' && *p <= '9')
        p++;
      n_frac = (gsize) (p - frac_start);
      if (n_frac == 0)
        {
          *why = "not a number";
          return FALSE;
        }
    }
  if (p < e && (*p == 'e' || *p == 'E'))
    {
      gboolean eneg = FALSE;
      const char *estart;
      p++;
      if (p < e && (*p == '+' || *p == '-'))
        eneg = *p++ == '-';
      estart = p;
      while (p < e && *p >= '0' && *p <= '9')
        {
          if (exp < 1000000000)
            exp = exp * 10 + (*p - '0');
          p++;
        }
      if (p == estart)
        {
          *why = "not a number";
          return FALSE;
        }
      if (eneg)
        exp = -exp;
    }
  if (p != e)
    {
      *why = "not a number";
      return FALSE;
    }

  limit = neg ? (G_GUINT64_CONSTANT (1) << 63) : (guint64) G_MAXINT64;
  total = n_int + n_frac;
  point = (gint64) n_int + exp + scale; /* digits before the (scaled) decimal point */
  for (gsize k = 0; k < total; k++)
    {
      int d = k < n_int ? int_start[k] - '0' : frac_start[k - n_int] - '0';
      if ((gint64) k < point)
        {
          if (v > (limit - (guint64) d) / 10)
            goto overflow;
          v = v * 10 + (guint64) d;
        }
      else
        {
          if ((gint64) k == point)
            round_up = d >= 5;
          break;
        }
    }
  for (gint64 k = (gint64) total; k < point && v != 0; k++)
    {
      if (v > limit / 10)
        goto overflow;
      v *= 10;
    }
  if (round_up)
    {
      if (v >= limit)
        goto overflow;
      v++;
    }
  if (neg)
    *out = v == (G_GUINT64_CONSTANT (1) << 63) ? G_MININT64 : -(gint64) v;
  else
    *out = (gint64) v;
  return TRUE;

overflow:
  *why = "number out of range (does not fit in 64-bit nanoseconds)";
  return FALSE;
}

static void
append_utf8 (GString *s, guint cp)
{
  char tmp[8];
  int n = g_unichar_to_utf8 (cp, tmp);
  g_string_append_len (s, tmp, n);
}

/* Unescapes a validated string span into S->scratch. */
const char *
scan_unescape (Scan *S, const StrSpan *span, gsize *len)
{
  const char *s = span->start, *e = span->start + span->len;
  GString *out = S->scratch;

  g_string_truncate (out, 0);
  while (s < e)
    {
      const char *bs = memchr (s, '\\', (gsize) (e - s));
      if (bs == NULL)
        {
          g_string_append_len (out, s, e - s);
          break;
        }
      g_string_append_len (out, s, bs - s);
      switch (bs[1])
        {
        case 'b': g_string_append_c (out, '\b'); s = bs + 2; break;
        case 'f': g_string_append_c (out, '\f'); s = bs + 2; break;
        case 'n': g_string_append_c (out, '\n'); s = bs + 2; break;
        case 'r': g_string_append_c (out, '\r'); s = bs + 2; break;
        case 't': g_string_append_c (out, '\t'); s = bs + 2; break;
        case 'u':
          {
            guint cp = 0;
            for (int i = 2; i < 6; i++)
              cp = cp * 16 + (guint) hex_value ((guchar) bs[i]);
            s = bs + 6;
            if (cp >= 0xd800 && cp <= 0xdbff)
              {
                guint lo = 0;
                for (int i = 2; i < 6; i++)
                  lo = lo * 16 + (guint) hex_value ((guchar) s[i]);
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                s += 6;
              }
            append_utf8 (out, cp);
            break;
          }
        default: /* '"', '\\', '/' */
          g_string_append_c (out, bs[1]);
          s = bs + 2;
          break;
        }
    }
  *len = out->len;
  return out->str;
}
