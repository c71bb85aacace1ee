/* classify-args.c: reading the collective fields of an event's "args"
 * (classify-args-private.h) without building a json-c tree.
 *
 * The classifier reads a dozen fields of each collective kernel and of its
 * record_param_comms op; parsing the whole event text with json-c for that
 * was ~15 % of a load's instructions (callgrind, df_index_resolver). The
 * direct pass walks the text once, skips every other value, and keeps the
 * fields as json-c would give them (the last of duplicate keys wins). It
 * gives up (and the json-c path runs) on whatever it cannot be sure of; the
 * two are compared on every event of the shared traces and on made-up
 * texts by tests/test-classify-args.c. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "classify-args-private.h"
#include "weft/weft-classify.h"
#include "textstore-private.h"

/* Nesting the direct pass follows (json-c's limit, model.c, is far deeper). */
#define FAST_MAX_DEPTH 64

typedef struct
{
  const char *s;
  gsize       len;
} Key;

#define K(lit) { lit, sizeof (lit) - 1 }

static const Key int_keys[WEFT_CA_N_INTS] = {
  [WEFT_CA_IN_NELEMS] = K ("In msg nelems"),       [WEFT_CA_OUT_NELEMS] = K ("Out msg nelems"),
  [WEFT_CA_GROUP_SIZE] = K ("Group size"),         [WEFT_CA_SEQ] = K ("Seq"),
  [WEFT_CA_SRC_RANK] = K ("Src Rank"),             [WEFT_CA_DST_RANK] = K ("Dst Rank"),
  [WEFT_CA_RANK_START] = K ("Global rank start"),  [WEFT_CA_RANK_STRIDE] = K ("Global rank stride"),
};

/* WEFT_CA_INPUT_TYPE is read from an array: not in this table. */
static const Key str_keys[WEFT_CA_INPUT_TYPE] = {
  [WEFT_CA_COLL_NAME] = K ("Collective name"),
  [WEFT_CA_DTYPE] = K ("dtype"),
  [WEFT_CA_PG_NAME] = K ("Process Group Name"),
  [WEFT_CA_PG_DESC] = K ("Process Group Description"),
};

static const Key key_ranks = K ("Process Group Ranks");
static const Key key_dims = K ("Input Dims");
static const Key key_types = K ("Input type");
static const Key key_args = K ("args");

gboolean
_weft_classify_name_reads_args (const char *name)
{
  if (name == NULL || *name == '\0')
    return FALSE;
  return strcmp (name, "record_param_comms") == 0 || g_str_has_prefix (name, "nccl:") ||
         g_str_has_prefix (name, "rccl:") || g_str_has_prefix (name, "c10d::") ||
         weft_coll_type_from_kernel_name (name) != WEFT_COLL_NONE;
}

void
_weft_comm_args_clear (WeftCommArgs *a)
{
  for (guint i = 0; i < WEFT_CA_N_STRS; i++)
    g_free (a->strs[i]);
  if (a->pg_ranks != NULL)
    g_array_free (a->pg_ranks, TRUE);
  memset (a, 0, sizeof *a);
}

/* A decimal in a NUL-terminated string, as g_ascii_strtoll reads it whole. */
static gboolean
string_to_int (const char *s, gint64 *out)
{
  char *end = NULL;
  gint64 x = g_ascii_strtoll (s, &end, 10);

  if (end == s || *end != '\0')
    return FALSE;
  *out = x;
  return TRUE;
}

/* A quoted rank list: "[0, 1, 2]", or "[0, 1, ..., 29, ...]" (truncated). */
static void
ranks_from_string (const char *s, GArray *ranks, gboolean *truncated)
{
  while (*s != '\0' && ranks->len < WEFT_MAX_PG_RANKS)
    {
      if (g_ascii_isdigit (*s) || (*s == '-' && g_ascii_isdigit (s[1])))
        {
          char *end = NULL;
          gint64 x = g_ascii_strtoll (s, &end, 10);
          int r = (int) CLAMP (x, G_MININT, G_MAXINT);
          g_array_append_val (ranks, r);
          s = end;
          continue;
        }
      if (*s == '.')
        *truncated = TRUE;
      s++;
    }
}

/* ranks gathered, or freed and NULL when there is nothing to say. */
static GArray *
ranks_finish (GArray *ranks, gboolean truncated)
{
  if (ranks->len == 0 && !truncated)
    {
      g_array_free (ranks, TRUE);
      return NULL;
    }
  return ranks;
}

/* ---- the reference: a json-c tree ---------------------------------------------- */

static gboolean
json_int (json_object *obj, const char *key, gint64 *out)
{
  json_object *v = NULL;

  if (obj == NULL || !json_object_object_get_ex (obj, key, &v) || v == NULL)
    return FALSE;
  switch (json_object_get_type (v))
    {
    case json_type_int:
      *out = json_object_get_int64 (v);
      return TRUE;
    case json_type_double:
      {
        double d = json_object_get_double (v);
        if (!isfinite (d) || d > 9.0e18 || d < -9.0e18)
          return FALSE;
        *out = (gint64) d;
        return TRUE;
      }
    case json_type_string:
      return string_to_int (json_object_get_string (v), out);
    default:
      return FALSE;
    }
}

static char *
json_str (json_object *obj, const char *key)
{
  json_object *v = NULL;

  if (obj == NULL || !json_object_object_get_ex (obj, key, &v) || v == NULL)
    return NULL;
  if (json_object_get_type (v) == json_type_string)
    return g_strdup (json_object_get_string (v));
  if (json_object_get_type (v) == json_type_int)
    return g_strdup (json_object_get_string (v)); /* "Process Group Name": 0 */
  return NULL;
}

/* "Process Group Ranks": a JSON list, or a quoted "[0, 1, 2]" that Kineto
 * truncates to "[0, 1, ..., 29, ...]" after 30 entries. */
static GArray *
json_ranks (json_object *v, gboolean *truncated)
{
  GArray *ranks = g_array_new (FALSE, FALSE, sizeof (int));

  *truncated = FALSE;
  if (json_object_get_type (v) == json_type_array)
    {
      gsize n = json_object_array_length (v);
      for (gsize i = 0; i < n && i < WEFT_MAX_PG_RANKS; i++)
        {
          json_object *e = json_object_array_get_idx (v, i);
          int r;
          if (e == NULL || json_object_get_type (e) != json_type_int)
            continue;
          r = (int) CLAMP (json_object_get_int64 (e), G_MININT, G_MAXINT);
          g_array_append_val (ranks, r);
        }
    }
  else if (json_object_get_type (v) == json_type_string)
    ranks_from_string (json_object_get_string (v), ranks, truncated);
  return ranks_finish (ranks, *truncated);
}

/* Old traces: "Input Dims" / "Input type" on the nccl:* annotation; the
 * first input is the tensor sent. */
static void
json_input_dims (json_object *args, WeftCommArgs *out)
{
  json_object *dims = NULL, *types = NULL, *first, *t;
  gint64 n = 1;
  gsize len;

  if (json_object_object_get_ex (args, "Input type", &types) && json_object_get_type (types) == json_type_array &&
      json_object_array_length (types) > 0 && (t = json_object_array_get_idx (types, 0)) != NULL &&
      json_object_get_type (t) == json_type_string)
    out->strs[WEFT_CA_INPUT_TYPE] = g_strdup (json_object_get_string (t));
  if (!json_object_object_get_ex (args, "Input Dims", &dims) || json_object_get_type (dims) != json_type_array ||
      json_object_array_length (dims) == 0)
    return;
  first = json_object_array_get_idx (dims, 0);
  if (first == NULL || json_object_get_type (first) != json_type_array)
    return;
  len = json_object_array_length (first);
  if (len == 0)
    return;
  for (gsize i = 0; i < len; i++)
    {
      json_object *d = json_object_array_get_idx (first, i);
      gint64 k;
      if (d == NULL || json_object_get_type (d) != json_type_int)
        return;
      k = json_object_get_int64 (d);
      if (k < 0 || (k > 0 && n > G_MAXINT64 / k))
        return;
      n *= k;
    }
  out->has_input_dims = TRUE;
  out->input_nelems = n;
}

void
_weft_comm_args_from_json (json_object *args, WeftCommArgs *out)
{
  json_object *v = NULL;

  memset (out, 0, sizeof *out);
  if (args == NULL || json_object_get_type (args) != json_type_object)
    return;
  for (guint i = 0; i < WEFT_CA_N_INTS; i++)
    out->has_int[i] = json_int (args, int_keys[i].s, &out->ints[i]);
  for (guint i = 0; i < WEFT_CA_INPUT_TYPE; i++)
    out->strs[i] = json_str (args, str_keys[i].s);
  if (json_object_object_get_ex (args, "Process Group Ranks", &v) && v != NULL)
    out->pg_ranks = json_ranks (v, &out->pg_ranks_truncated);
  json_input_dims (args, out);
}

/* ---- the direct pass ------------------------------------------------------------- */

typedef enum
{
  V_BAIL = 0,   /* give up: let json-c read it */
  V_STRING,     /* plain (no escapes) */
  V_INT,        /* at most 18 digits */
  V_OTHER,      /* a value of another kind, skipped */
} VKind;

typedef struct
{
  const char *p;
  const char *end;
  const char *s;     /* V_STRING: its bytes */
  gsize       slen;
  gint64      i;     /* V_INT */
  GString    *tmp;   /* a NUL-terminated copy of a string */
} Lex;

static inline void
ws (Lex *L)
{
  while (L->p < L->end && (*L->p == ' ' || *L->p == '\t' || *L->p == '\n' || *L->p == '\r'))
    L->p++;
}

/* A string at p (at its '"'): plain ones give V_STRING; escaped ones
 * V_OTHER when only skipped (want == FALSE), else V_BAIL. */
static VKind
lex_string (Lex *L, gboolean want)
{
  const char *q = L->p + 1;
  gboolean escaped = FALSE;

  while (q < L->end && *q != '"')
    {
      guchar c = (guchar) *q;
      if (c < 0x20)
        return V_BAIL;
      if (c == '\\')
        {
          if (want)
            return V_BAIL;
          escaped = TRUE;
          q++;
          if (q >= L->end)
            return V_BAIL;
        }
      q++;
    }
  if (q >= L->end)
    return V_BAIL;
  L->s = L->p + 1;
  L->slen = (gsize) (q - L->s);
  L->p = q + 1;
  return escaped ? V_OTHER : V_STRING;
}

/* A number at p: V_INT for an integer of at most 18 digits; a longer one,
 * a fraction or an exponent is V_OTHER when skipped, else V_BAIL. */
static VKind
lex_number (Lex *L, gboolean want)
{
  const char *q = L->p;
  gboolean neg = FALSE, frac = FALSE;
  guint64 v = 0;
  guint nd = 0;

  if (*q == '-')
    {
      neg = TRUE;
      q++;
    }
  if (q >= L->end || !g_ascii_isdigit (*q))
    return V_BAIL;
  if (*q == '0' && q + 1 < L->end && g_ascii_isdigit (q[1]))
    return V_BAIL;
  while (q < L->end && g_ascii_isdigit (*q))
    {
      if (nd < 19)
        v = v * 10 + (guint64) (*q - '0');
      nd++;
      q++;
    }
  if (q < L->end && *q == '.')
    {
      frac = TRUE;
      q++;
      if (q >= L->end || !g_ascii_isdigit (*q))
        return V_BAIL;
      while (q < L->end && g_ascii_isdigit (*q))
        q++;
    }
  if (q < L->end && (*q == 'e' || *q == 'E'))
    {
      frac = TRUE;
      q++;
      if (q < L->end && (*q == '+' || *q == '-'))
        q++;
      if (q >= L->end || !g_ascii_isdigit (*q))
        return V_BAIL;
      while (q < L->end && g_ascii_isdigit (*q))
        q++;
    }
  L->p = q;
  if (frac || nd > 18)
    return want ? V_BAIL : V_OTHER;
  L->i = neg ? -(gint64) v : (gint64) v;
  return V_INT;
}

static VKind skip_value (Lex *L, guint depth);

/* The value at p (whitespace skipped), lexed; containers and literals
 * are skipped (V_OTHER). */
static VKind
lex_value (Lex *L, gboolean want, guint depth)
{
  ws (L);
  if (L->p >= L->end)
    return V_BAIL;
  switch (*L->p)
    {
    case '"':
      return lex_string (L, want);
    case '-':
    case '0' ... '9':
      return lex_number (L, want);
    case '{':
    case '[':
      return skip_value (L, depth);
    case 't':
      if (L->end - L->p >= 4 && memcmp (L->p, "true", 4) == 0)
        {
          L->p += 4;
          return V_OTHER;
        }
      return V_BAIL;
    case 'f':
      if (L->end - L->p >= 5 && memcmp (L->p, "false", 5) == 0)
        {
          L->p += 5;
          return V_OTHER;
        }
      return V_BAIL;
    case 'n':
      if (L->end - L->p >= 4 && memcmp (L->p, "null", 4) == 0)
        {
          L->p += 4;
          return V_OTHER;
        }
      return V_BAIL;
    default:
      return V_BAIL;
    }
}

/* After an element or a member: TRUE with *more when a ',' follows, FALSE
 * with *more = FALSE at the closing bracket, V_BAIL otherwise. */
static gboolean
next_item (Lex *L, char close, gboolean *more)
{
  ws (L);
  if (L->p < L->end && *L->p == ',')
    {
      L->p++;
      *more = TRUE;
      return TRUE;
    }
  if (L->p < L->end && *L->p == close)
    {
      L->p++;
      *more = FALSE;
      return TRUE;
    }
  return FALSE;
}

/* Opens a container at p (its bracket): FALSE on a bad one; *empty when
 * it closes at once. */
static gboolean
open_container (Lex *L, char open, char close, gboolean *empty)
{
  if (L->p >= L->end || *L->p != open)
    return FALSE;
  L->p++;
  ws (L);
  *empty = L->p < L->end && *L->p == close;
  if (*empty)
    L->p++;
  return TRUE;
}

/* An object key and its colon: V_STRING (plain) or V_BAIL. */
static VKind
lex_key (Lex *L)
{
  ws (L);
  if (L->p >= L->end || *L->p != '"' || lex_string (L, TRUE) != V_STRING)
    return V_BAIL;
  ws (L);
  if (L->p >= L->end || *L->p != ':')
    return V_BAIL;
  L->p++;
  return V_STRING;
}

static VKind
skip_value (Lex *L, guint depth)
{
  gboolean empty, more = TRUE;
  gboolean obj = *L->p == '{';

  if (depth >= FAST_MAX_DEPTH || !open_container (L, obj ? '{' : '[', obj ? '}' : ']', &empty))
    return V_BAIL;
  if (empty)
    return V_OTHER;
  while (more)
    {
      if (obj && lex_key (L) == V_BAIL)
        return V_BAIL;
      if (lex_value (L, FALSE, depth + 1) == V_BAIL)
        return V_BAIL;
      if (!next_item (L, obj ? '}' : ']', &more))
        return V_BAIL;
    }
  return V_OTHER;
}

static inline gboolean
key_is (const Lex *L, const Key *key)
{
  return L->slen == key->len && memcmp (L->s, key->s, key->len) == 0;
}

/* The last string lexed, NUL-terminated (in tmp). */
static const char *
tmp_string (Lex *L)
{
  g_string_truncate (L->tmp, 0);
  g_string_append_len (L->tmp, L->s, (gssize) L->slen);
  return L->tmp->str;
}

/* Process Group Ranks: an array of integers, or a quoted list. */
static gboolean
fast_ranks (Lex *L, WeftCommArgs *out, guint depth)
{
  GArray *ranks;
  gboolean empty, more = TRUE;
  VKind k;

  ws (L);
  if (L->p >= L->end)
    return FALSE;
  out->pg_ranks_truncated = FALSE;
  if (out->pg_ranks != NULL)
    g_array_free (out->pg_ranks, TRUE);
  out->pg_ranks = NULL;
  if (*L->p == '"')
    {
      if (lex_string (L, TRUE) != V_STRING)
        return FALSE;
      ranks = g_array_new (FALSE, FALSE, sizeof (int));
      ranks_from_string (tmp_string (L), ranks, &out->pg_ranks_truncated);
      out->pg_ranks = ranks_finish (ranks, out->pg_ranks_truncated);
      return TRUE;
    }
  if (*L->p != '[')
    return lex_value (L, FALSE, depth) != V_BAIL; /* null, a number, ...: none */
  if (!open_container (L, '[', ']', &empty))
    return FALSE;
  ranks = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint n = 0; !empty && more; n++)
    {
      /* json-c's path looks at the first WEFT_MAX_PG_RANKS elements */
      k = n < WEFT_MAX_PG_RANKS ? lex_value (L, TRUE, depth + 1) : V_BAIL;
      if (k == V_INT)
        {
          int r = (int) CLAMP (L->i, G_MININT, G_MAXINT);
          g_array_append_val (ranks, r);
        }
      if (k == V_BAIL || !next_item (L, ']', &more))
        {
          g_array_free (ranks, TRUE);
          return FALSE;
        }
    }
  out->pg_ranks = ranks_finish (ranks, FALSE);
  return TRUE;
}

/* Input Dims: the product of the first element's dims, when that is a
 * non-empty array of integers >= 0 and the product fits. */
static gboolean
fast_input_dims (Lex *L, WeftCommArgs *out, guint depth)
{
  gboolean empty, more = TRUE, first = TRUE;

  out->has_input_dims = FALSE;
  out->input_nelems = 0;
  ws (L);
  if (L->p >= L->end)
    return FALSE;
  if (*L->p != '[')
    return lex_value (L, FALSE, depth) != V_BAIL;
  if (depth + 1 >= FAST_MAX_DEPTH || !open_container (L, '[', ']', &empty))
    return FALSE;
  while (!empty && more)
    {
      ws (L);
      if (L->p >= L->end)
        return FALSE;
      if (first && *L->p == '[')
        {
          gboolean e2, more2 = TRUE, ok = TRUE;
          gint64 n = 1;
          if (!open_container (L, '[', ']', &e2))
            return FALSE;
          ok = !e2;
          while (!e2 && more2)
            {
              VKind k = lex_value (L, ok, depth + 2);
              if (k == V_BAIL)
                return FALSE;
              if (ok)
                {
                  if (k != V_INT || L->i < 0 || (L->i > 0 && n > G_MAXINT64 / L->i))
                    ok = FALSE;
                  else
                    n *= L->i;
                }
              if (!next_item (L, ']', &more2))
                return FALSE;
            }
          out->has_input_dims = ok;
          out->input_nelems = ok ? n : 0;
        }
      else if (lex_value (L, FALSE, depth + 1) == V_BAIL)
        return FALSE;
      first = FALSE;
      if (!next_item (L, ']', &more))
        return FALSE;
    }
  return TRUE;
}

/* Input type: its first element when a string. */
static gboolean
fast_input_type (Lex *L, WeftCommArgs *out, guint depth)
{
  gboolean empty, more = TRUE, first = TRUE;

  g_clear_pointer (&out->strs[WEFT_CA_INPUT_TYPE], g_free);
  ws (L);
  if (L->p >= L->end)
    return FALSE;
  if (*L->p != '[')
    return lex_value (L, FALSE, depth) != V_BAIL;
  if (!open_container (L, '[', ']', &empty))
    return FALSE;
  while (!empty && more)
    {
      VKind k = lex_value (L, first, depth + 1);
      if (k == V_BAIL)
        return FALSE;
      if (first && k == V_STRING)
        out->strs[WEFT_CA_INPUT_TYPE] = g_strndup (L->s, L->slen);
      first = FALSE;
      if (!next_item (L, ']', &more))
        return FALSE;
    }
  return TRUE;
}

/* The args object at p, into out (cleared first: the last "args" wins). */
static gboolean
fast_args (Lex *L, WeftCommArgs *out)
{
  gboolean empty, more = TRUE;

  _weft_comm_args_clear (out);
  ws (L);
  if (L->p >= L->end)
    return FALSE;
  if (*L->p != '{')
    return lex_value (L, FALSE, 1) != V_BAIL; /* not an object: nothing */
  if (!open_container (L, '{', '}', &empty))
    return FALSE;
  while (!empty && more)
    {
      guint i;
      gboolean done = FALSE;
      if (lex_key (L) == V_BAIL)
        return FALSE;
      for (i = 0; i < WEFT_CA_N_INTS && !done; i++)
        if (key_is (L, &int_keys[i]))
          {
            VKind k = lex_value (L, TRUE, 2);
            gint64 x;
            done = TRUE;
            out->has_int[i] = FALSE;
            if (k == V_BAIL)
              return FALSE;
            if (k == V_INT)
              {
                out->has_int[i] = TRUE;
                out->ints[i] = L->i;
              }
            else if (k == V_STRING && string_to_int (tmp_string (L), &x))
              {
                out->has_int[i] = TRUE;
                out->ints[i] = x;
              }
          }
      for (i = 0; i < WEFT_CA_INPUT_TYPE && !done; i++)
        if (key_is (L, &str_keys[i]))
          {
            VKind k = lex_value (L, TRUE, 2);
            done = TRUE;
            g_clear_pointer (&out->strs[i], g_free);
            if (k == V_BAIL)
              return FALSE;
            if (k == V_STRING)
              out->strs[i] = g_strndup (L->s, L->slen);
            else if (k == V_INT)
              out->strs[i] = g_strdup_printf ("%" G_GINT64_FORMAT, L->i);
          }
      if (!done && key_is (L, &key_ranks))
        {
          done = TRUE;
          if (!fast_ranks (L, out, 2))
            return FALSE;
        }
      if (!done && key_is (L, &key_dims))
        {
          done = TRUE;
          if (!fast_input_dims (L, out, 2))
            return FALSE;
        }
      if (!done && key_is (L, &key_types))
        {
          done = TRUE;
          if (!fast_input_type (L, out, 2))
            return FALSE;
        }
      if (!done && lex_value (L, FALSE, 2) == V_BAIL)
        return FALSE;
      if (!next_item (L, '}', &more))
        return FALSE;
    }
  return TRUE;
}

gboolean
_weft_comm_args_from_text (const char *text, gsize len, WeftCommArgs *out)
{
  Lex L = { text, text + len, NULL, 0, 0, NULL };
  gboolean empty, more = TRUE, ok = FALSE;

  memset (out, 0, sizeof *out);
  if (text == NULL)
    return FALSE;
  L.tmp = g_string_sized_new (64);
  ws (&L);
  if (!open_container (&L, '{', '}', &empty))
    goto done;
  while (!empty && more)
    {
      if (lex_key (&L) == V_BAIL)
        goto done;
      if (key_is (&L, &key_args))
        {
          if (!fast_args (&L, out))
            goto done;
        }
      else if (lex_value (&L, FALSE, 1) == V_BAIL)
        goto done;
      if (!next_item (&L, '}', &more))
        goto done;
    }
  ws (&L);
  ok = L.p == L.end;
done:
  g_string_free (L.tmp, TRUE);
  if (!ok)
    _weft_comm_args_clear (out);
  return ok;
}

void
_weft_comm_args_read (const WeftRank *rank, const WeftEvent *ev, WeftCommArgs *out)
{
  const char *text;
  gsize len;
  gboolean ok = FALSE;
  json_object *args;

  memset (out, 0, sizeof *out);
  if (!weft_event_has_text (rank, ev))
    return;
  text = _weft_rank_text_lock (rank, ev, &len);
  if (text == NULL || len == 0 || len > G_MAXINT)
    {
      _weft_rank_text_unlock (rank);
      return;
    }
  ok = _weft_comm_args_from_text (text, len, out);
  _weft_rank_text_unlock (rank);
  if (ok)
    return;
  args = weft_event_parse_args (rank, ev);
  _weft_comm_args_from_json (args, out);
  if (args != NULL)
    json_object_put (args);
}
