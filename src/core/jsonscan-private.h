/* jsonscan-private.h: what the parts of the JSON scanner share (private to
 * jsonscan.c and jsonscan-lex.c): the scanner's state, the character
 * classes and the lexical primitives (strings, numbers, literals, skipping
 * a whole value, unescaping). */
#pragma once

#include <zstd.h>

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
  gboolean      eof;
  const char   *end;      /* buf + len: the sentinel */
  guint         max_depth;
  guint8       *stack;    /* container stack for skip_value */
  GError       *error;
  const WeftScanOptions *options;

  /* caches */
  char         *lane_key;       /* pid text, tid text of the last lane */
  gsize         lane_pid_len;
  gsize         lane_tid_len;
  gsize         lane_key_cap;
  guint32       lane_last;
  GByteArray   *cat_of_id;      /* WeftCategory + 1 by interned cat id (0 = unknown yet) */
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

/* Errors: "<name>: byte <offset>: <what>" into S->error (the first one
 * wins); both return SCAN_ERROR, or SCAN_MORE where p is at the end of the
 * buffer. */
G_GNUC_INTERNAL ScanStatus scan_fail (Scan *S, const char *at, const char *format, ...) G_GNUC_PRINTF (3, 4);
G_GNUC_INTERNAL ScanStatus scan_unexpected (Scan *S, const char *p, const char *expected);
G_GNUC_INTERNAL void       scan_describe_byte (char out[32], guchar c);

G_GNUC_INTERNAL ScanStatus scan_string_body (Scan *S, const guchar **ps, gboolean *escaped);
G_GNUC_INTERNAL ScanStatus scan_string (Scan *S, const char **pp, StrSpan *out);
G_GNUC_INTERNAL ScanStatus scan_number (Scan *S, const char **pp, gboolean *is_int);
G_GNUC_INTERNAL ScanStatus scan_scalar (Scan *S, const char **pp);
G_GNUC_INTERNAL ScanStatus scan_skip_value (Scan *S, const char **pp, guint depth);
G_GNUC_INTERNAL const char *scan_unescape (Scan *S, const StrSpan *span, gsize *len);

G_END_DECLS
