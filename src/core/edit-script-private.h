/* edit-script-private.h: reading edit-script operations (edit-script-parse.c)
 * for the operations that run them (edit-script.c): typed fields of a JSON
 * entry, times and spans ("_ns" / "_us"), kernel classes and collective
 * types by name, and the ops an entry targets (explicit, or a "match").
 * See docs/editing.md for the script format. */
#pragma once

#include "edit-private.h"
#include "util-private.h"

G_BEGIN_DECLS

/* ---- fields ------------------------------------------------------------------------ */

/* Reads an integer or a number; FALSE when absent. */
gboolean    _weft_edit_json_get_number (json_object *obj, const char *key, double *out);
/* A duration from "<key>_ns" (integer) or "<key>_us" (number). */
gboolean    _weft_edit_get_span        (json_object *op, const char *key, gint64 *out, gboolean *present,
                                        GError **error);
/* A point in time: "<key>_ns" absolute (common timeline), "<key>_us"
 * microseconds from the beginning of the trace as loaded. */
gboolean    _weft_edit_get_time        (WeftEditSession *self, json_object *op, const char *key, gint64 *out,
                                        gboolean *present, GError **error);
gboolean    _weft_edit_parse_kclass    (const char *s, WeftKernelClass *out);
gboolean    _weft_edit_parse_coll      (const char *s, WeftCollType *out);
/* op's "stream" (an integer, required) and "device" (an integer; device
 * left as it is when absent). */
gboolean    _weft_edit_get_stream_device (json_object *op, gint64 *stream, gint64 *device, GError **error);
gboolean    _weft_edit_require_factor  (json_object *op, double *factor, GError **error);
/* "one_rank": true. */
gboolean    _weft_edit_one_rank        (json_object *op);
/* Checks a created event's index against the log's ("event"). */
gboolean    _weft_edit_check_expected_event (WeftEditSession *self, json_object *op, const char *key,
                                             guint rank_index, GError **error);
/* The rank index of the rank number in op's key. */
gboolean    _weft_edit_script_rank_index (WeftEditSession *self, json_object *op, const char *key, guint *out,
                                          GError **error);
/* "at_ns"/"at_us", or "after": a match; its first op on the rank decides:
 * on the same stream (lane) the new op goes right after it, elsewhere it
 * is released at its end. */
gboolean    _weft_edit_script_at       (WeftEditSession *self, json_object *op, guint rank_index, guint32 lane,
                                        gint64 *at, GError **error);

/* ---- targets ----------------------------------------------------------------------- */

typedef struct
{
  gboolean        has_coll;
  WeftCollType    coll;          /* WEFT_COLL_NONE with has_coll: any collective */
  gboolean        has_class;
  WeftKernelClass kclass;
  GRegex         *name;
  GArray         *ranks;         /* int rank numbers, NULL: any */
  gboolean        has_stream;
  gint64          stream;
  gint64          nth;           /* -1: all */
} Match;

gboolean _weft_edit_match_parse (json_object *obj, Match *m, GError **error);
void     _weft_edit_match_clear (Match *m);
/* Live GPU ops matching m, by (rank, solved start). */
GArray  *_weft_edit_match_run   (WeftEditSession *self, const Match *m);
/* The explicit op of an entry ("rank" number + "event" index, with the
 * "name" checked when given). */
gboolean _weft_edit_explicit_ref (WeftEditSession *self, json_object *op, const char *rank_key,
                                  const char *event_key, WeftEventRef *out, GError **error);
/* The ops an entry targets: explicit, or "match", or the shorthand keys
 * "collective" / "class" at the top level. Never empty on success. */
GArray  *_weft_edit_resolve_targets (WeftEditSession *self, json_object *op, GError **error);
/* _weft_edit_resolve_targets for an op that acts on exactly one op. */
gboolean _weft_edit_resolve_one_target (WeftEditSession *self, json_object *op, WeftEventRef *ref, GError **error);

G_END_DECLS
