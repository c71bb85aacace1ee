/* util-private.h: small helpers the core files share: comparing and taking
 * the median of gint64 values, and typed fields of a json-c object. For the
 * core's own .c files only; the app keeps its own copy (it may not include
 * the core's private headers). */
#pragma once

#include <json-c/json.h>

#include <glib.h>

G_BEGIN_DECLS

/* ---- integers ------------------------------------------------------------------ */

/* qsort / g_array_sort order of gint64 values, ascending. */
static inline int
_weft_gint64_cmp (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return (x > y) - (x < y);
}

/* The same for int values. */
static inline int
_weft_int_cmp (gconstpointer a, gconstpointer b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

/* The upper median of an array of gint64 (the element at len / 2 once
 * sorted; values is sorted in place), fallback when it is empty. */
static inline gint64
_weft_gint64_median_or (GArray *values, gint64 fallback)
{
  if (values->len == 0)
    return fallback;
  g_array_sort (values, _weft_gint64_cmp);
  return g_array_index (values, gint64, values->len / 2);
}

/* The median of a non-empty array of gint64 (sorted in place): the middle
 * value, or the mean of the two middle values (rounded towards zero,
 * without overflow). */
static inline gint64
_weft_gint64_median_mean (GArray *values)
{
  gint64 *v = (gint64 *) (void *) values->data;
  guint n = values->len;

  g_array_sort (values, _weft_gint64_cmp);
  if (n % 2 == 1)
    return v[n / 2];
  return v[n / 2 - 1] / 2 + v[n / 2] / 2 + (v[n / 2 - 1] % 2 + v[n / 2] % 2) / 2;
}

/* ---- JSON fields ------------------------------------------------------------- */

/* The field key of obj when it is a JSON integer; FALSE (out untouched)
 * when absent or of another type. */
static inline gboolean
_weft_json_get_int64 (json_object *obj, const char *key, gint64 *out)
{
  json_object *v;
  if (!json_object_object_get_ex (obj, key, &v) || !json_object_is_type (v, json_type_int))
    return FALSE;
  *out = json_object_get_int64 (v);
  return TRUE;
}

/* The field as a double when it is a JSON integer or number (not checked
 * for finiteness); FALSE (out untouched) otherwise. */
static inline gboolean
_weft_json_get_double (json_object *obj, const char *key, double *out)
{
  json_object *v;
  if (!json_object_object_get_ex (obj, key, &v) ||
      (!json_object_is_type (v, json_type_int) && !json_object_is_type (v, json_type_double)))
    return FALSE;
  *out = json_object_get_double (v);
  return TRUE;
}

/* The field when it is a JSON boolean; FALSE (out untouched) otherwise. */
static inline gboolean
_weft_json_get_bool (json_object *obj, const char *key, gboolean *out)
{
  json_object *v;
  if (!json_object_object_get_ex (obj, key, &v) || !json_object_is_type (v, json_type_boolean))
    return FALSE;
  *out = json_object_get_boolean (v);
  return TRUE;
}

/* The field when it is a JSON string (owned by obj); NULL otherwise. */
static inline const char *
_weft_json_get_str (json_object *obj, const char *key)
{
  json_object *v;
  if (!json_object_object_get_ex (obj, key, &v) || !json_object_is_type (v, json_type_string))
    return NULL;
  return json_object_get_string (v);
}

G_END_DECLS
