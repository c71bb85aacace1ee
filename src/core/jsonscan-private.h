/* jsonscan-private.h: what the parts of the JSON scanner share (private to
 * jsonscan.c and jsonscan-lex.c): the scanner's state, the character
 * classes and the lexical primitives (strings, numbers, literals, skipping
 * a whole value, unescaping). */
#pragma once

#include <string.h>
#include <zstd.h>

/* SSE2 is the x86-64 baseline: used without runtime dispatch; nothing
 * beyond it is. Elsewhere the portable word-at-a-time path runs. */
#if defined(__SSE2__) && !defined(WEFT_JSON_NO_SIMD)
#include <emmintrin.h>
#define WEFT_JSON_SSE2 1
#endif

#include "core/jsonscan.h"

G_BEGIN_DECLS

typedef enum
{
  SCAN_OK = 0,
  SCAN_MORE,
  SCAN_ERROR,
} ScanStatus;

typedef struct
{
  const char *start;   /* first byte after the opening quote */
  gsize       len;     /* raw (escaped) length */
  gboolean    escaped;
} StrSpan;

/* Where walk_top () stands inside a top-level value. */
typedef enum
{
  W_VALUE,      /* a value next */
  W_OBJ_FIRST,  /* after '{': '}' or a key */
  W_ARR_FIRST,  /* after '[': ']' or a value */
  W_KEY,        /* an object key next */
  W_STRING,     /* inside a string (a key when str_is_key) */
  W_COLON,      /* after a key */
  W_AFTER,      /* after a value: ',', the closing bracket, or the end */
} WalkMode;

/* A top-level value, scanned in pieces as the buffer refills (so that a
 * value larger than the buffer never has to fit in it), and its text kept
 * as it goes: plain up to WEFT_TOP_KEY_PACK_BYTES, then compressed with
 * streaming zstd (never held whole). */
typedef struct
{
  gboolean    active;
  WalkMode    mode;
  gboolean    str_is_key;
  guint       sp;
  guint8     *stack;          /* open containers ('{' / '['), max_depth bytes */
  gboolean    plain_only;     /* a value Weft parses: never packed */
  char       *plain;
  gsize       plain_len;
  gsize       plain_cap;
  ZSTD_CCtx  *zc;
  guint8     *packed;
  gsize       packed_len;
  gsize       packed_cap;
  guint64     total;          /* bytes of text so far */
  guint64     start;          /* decompressed offset of the value */
} TopValue;

/* Lanes the scanner remembers (events alternate between a few threads and
 * streams: one slot missed ~20 % of the events on df_index_resolver). */
#define LANE_CACHE_SIZE 4

typedef struct
{
  WeftRank     *rank;
  WeftReader   *reader;
  const char   *name;
  char         *buf;
  gsize         cap;      /* allocated bytes (data + sentinel) */
  gsize         len;      /* bytes of data in buf */
  gsize         pos;      /* start of the next unit */
  guint64       base;     /* decompressed file offset of buf[0] */
  gboolean      gz;       /* texts are ranges of the kept .json.gz (textstore-private.h) */
  gboolean      follows;  /* the next event follows one in the same traceEvents array */
  gboolean      eof;
  const char   *end;      /* buf + len: the sentinel */
  guint         max_depth;
  guint8       *stack;    /* container stack for skip_value */
  GError       *error;
  const WeftScanOptions *options;

  /* caches */
  struct LaneSlot
  {
    char        key[48];        /* pid text then tid text */
    guint8      pid_len;
    guint8      tid_len;
    guint32     lane;           /* WEFT_NONE: empty */
  }             lanes[LANE_CACHE_SIZE]; /* the last lanes, most recent first */
  GByteArray   *cat_of_id;      /* WeftCategory + 1 by interned cat id (0 = unknown yet) */
  GByteArray   *keep_of_name;   /* by interned name id: 0 unknown yet, 1 no, 2 keep the text plain */
  GString      *scratch;        /* unescaped strings */
  struct NameSlot
  {
    const char *str;            /* the interned copy (stable) */
    guint32     len;
    guint32     id;
  }            *names;          /* direct-mapped cache in front of the pool */
  gboolean      ts_has_fraction;
  guint64       n_negative_dur; /* clamped to 0 */
  guint64       budget;         /* bytes the buffer and the model may take */
  guint64       model_bytes;    /* event records + their texts so far */
  TopValue      top;            /* the top-level value being scanned */
} Scan;

/* |ts| and |ts + dur| in ns must stay within this (about 146 years from
 * the epoch), so that sums of a few times never leave int64. */
#define TIME_LIMIT_NS ((G_GINT64_CONSTANT (1) << 62) - 1)

/* ---- character classes ------------------------------------------------------ */

enum
{
  C_STR = 1,     /* plain string byte: >= 0x20, < 0x80, not '"' or '\\' */
  C_WS = 2,
  C_DIGIT = 4,
  C_HEX = 8,
};

/* C_STR | C_WS | C_DIGIT | C_HEX of each byte (jsonscan-lex.c). */
G_GNUC_INTERNAL extern const guint8 weft_json_cclass[256];

#define IS_STR(c) (weft_json_cclass[(guchar) (c)] & C_STR)
#define IS_WS(c) (weft_json_cclass[(guchar) (c)] & C_WS)
#define IS_DIGIT(c) (weft_json_cclass[(guchar) (c)] & C_DIGIT)
#define IS_HEX(c) (weft_json_cclass[(guchar) (c)] & C_HEX)

static inline guint64
offset_of (Scan *S, const char *at)
{
  return S->base + (guint64) (at - S->buf);
}

static inline const char *
skip_ws (const char *p)
{
  while (IS_WS (*p))
    p++;
  return p;
}

/* Eight ASCII digits in x (little-endian load)? And their value. From
 * simdjson's parse_eight_digits_unrolled: three multiplies, no branch per
 * digit (jsonscan-lex.c's decimals, jsonscan.c's plain integers). */
static inline gboolean
digits8 (guint64 x)
{
  return ((x & G_GUINT64_CONSTANT (0xf0f0f0f0f0f0f0f0)) |
          (((x + G_GUINT64_CONSTANT (0x0606060606060606)) & G_GUINT64_CONSTANT (0xf0f0f0f0f0f0f0f0)) >> 4)) ==
         G_GUINT64_CONSTANT (0x3333333333333333);
}

static inline guint64
value8 (guint64 x)
{
  x = ((x & G_GUINT64_CONSTANT (0x0f0f0f0f0f0f0f0f)) * 2561) >> 8;
  x = ((x & G_GUINT64_CONSTANT (0x00ff00ff00ff00ff)) * 6553601) >> 16;
  return ((x & G_GUINT64_CONSTANT (0x0000ffff0000ffff)) * G_GUINT64_CONSTANT (42949672960001)) >> 32;
}

/* Errors: "<name>: byte <offset>: <what>" into S->error (the first one
 * wins); both return SCAN_ERROR, or SCAN_MORE where p is at the end of the
 * buffer. */
G_GNUC_INTERNAL ScanStatus scan_fail (Scan *S, const char *at, const char *format, ...) G_GNUC_PRINTF (3, 4);
G_GNUC_INTERNAL ScanStatus scan_unexpected (Scan *S, const char *p, const char *expected);
G_GNUC_INTERNAL void       scan_describe_byte (char out[32], guchar c);

G_GNUC_INTERNAL ScanStatus scan_string_body (Scan *S, const guchar **ps, gboolean *escaped);
G_GNUC_INTERNAL ScanStatus scan_number (Scan *S, const char **pp, gboolean *is_int);
G_GNUC_INTERNAL ScanStatus scan_scalar (Scan *S, const char **pp);
G_GNUC_INTERNAL ScanStatus scan_skip_value (Scan *S, const char **pp, guint depth);
G_GNUC_INTERNAL const char *scan_unescape (Scan *S, const StrSpan *span, gsize *len);

/* Testing aid: TRUE makes the primitives take only their reference paths
 * (the portable word-at-a-time string scan, the digit-by-digit checked
 * decimal conversion); tests/test-jsonlex.c compares both. Process-wide,
 * not for use while loads run. */
G_GNUC_INTERNAL extern gboolean weft_json_lex_reference;

#ifdef WEFT_JSON_SSE2
/* Index of the first byte of s[0..15] that ends a plain run of a string
 * ('"', '\\', a control byte or a byte >= 0x80: as signed bytes, the
 * last two are exactly those < 0x20), or 16 when all are plain. */
static inline guint
plain_run16 (const guchar *s)
{
  __m128i x = _mm_loadu_si128 ((const __m128i *) (const void *) s);
  __m128i m = _mm_or_si128 (_mm_or_si128 (_mm_cmpeq_epi8 (x, _mm_set1_epi8 ('"')), _mm_cmpeq_epi8 (x, _mm_set1_epi8 ('\\'))),
                            _mm_cmplt_epi8 (x, _mm_set1_epi8 (0x20)));
  guint bits = (guint) _mm_movemask_epi8 (m);
  return bits ? (guint) __builtin_ctz (bits) : 16;
}
#endif

/* String at *pp (which points at the opening quote). Inline: most keys
 * and values are short plain strings that one 16-byte test finishes; the
 * rest goes through scan_string_body (). */
static inline ScanStatus
scan_string (Scan *S, const char **pp, StrSpan *out)
{
  const guchar *s = (const guchar *) *pp + 1;
  gboolean escaped = FALSE;
  gboolean done = FALSE;
  ScanStatus st;

#ifdef WEFT_JSON_SSE2
  if (s + 16 <= (const guchar *) S->end && !weft_json_lex_reference)
    {
      guint n = plain_run16 (s);
      if (n < 16 && s[n] == '"')
        {
          s += n;
          done = TRUE;
        }
    }
#endif
  if (!done && (st = scan_string_body (S, &s, &escaped)) != SCAN_OK)
    return st;
  out->start = *pp + 1;
  out->len = (gsize) ((const char *) s - out->start);
  out->escaped = escaped;
  *pp = (const char *) s + 1;
  return SCAN_OK;
}

G_END_DECLS
