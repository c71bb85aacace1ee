/* classify-args-private.h: the few args fields the classifier reads from a
 * collective kernel or its record_param_comms / nccl:* op (classify.c,
 * classify-args.c, and tests/test-classify-args.c, which checks the fast
 * path against the reference path). */
#pragma once

#include "weft/weft-model.h"

G_BEGIN_DECLS

/* Ranks read from one "Process Group Ranks" at most. */
#define WEFT_MAX_PG_RANKS (1 << 20)

/* The integer fields, as the classifier's json_int () reads them. */
typedef enum
{
  WEFT_CA_IN_NELEMS,    /* "In msg nelems" */
  WEFT_CA_OUT_NELEMS,   /* "Out msg nelems" */
  WEFT_CA_GROUP_SIZE,   /* "Group size" */
  WEFT_CA_SEQ,          /* "Seq" */
  WEFT_CA_SRC_RANK,     /* "Src Rank" */
  WEFT_CA_DST_RANK,     /* "Dst Rank" */
  WEFT_CA_RANK_START,   /* "Global rank start" */
  WEFT_CA_RANK_STRIDE,  /* "Global rank stride" */
  WEFT_CA_N_INTS
} WeftCommArgInt;

/* The strings (as json_str (): a string, or an integer's decimal text). */
typedef enum
{
  WEFT_CA_COLL_NAME,    /* "Collective name" */
  WEFT_CA_DTYPE,        /* "dtype" */
  WEFT_CA_PG_NAME,      /* "Process Group Name" */
  WEFT_CA_PG_DESC,      /* "Process Group Description" */
  WEFT_CA_INPUT_TYPE,   /* "Input type": its first element when a string */
  WEFT_CA_N_STRS
} WeftCommArgStr;

/* What an event's "args" object says, for the classifier: every field is
 * a pure function of the args value, so the two ways of reading it (a
 * json-c tree, or a direct pass over the text) must give equal results. */
typedef struct
{
  gboolean has_int[WEFT_CA_N_INTS];
  gint64   ints[WEFT_CA_N_INTS];
  char    *strs[WEFT_CA_N_STRS];     /* owned; NULL: absent or not a string */
  GArray  *pg_ranks;                 /* int; "Process Group Ranks", NULL when none */
  gboolean pg_ranks_truncated;       /* a quoted list cut with "..." */
  gboolean has_input_dims;           /* "Input Dims": the first input's dims are all ints >= 0 */
  gint64   input_nelems;             /* their product */
} WeftCommArgs;

void     _weft_comm_args_clear (WeftCommArgs *a);

/* The event's args through the direct pass over its text, falling back to
 * the json-c tree for anything the pass does not handle. */
void     _weft_comm_args_read (const WeftRank *rank, const WeftEvent *ev, WeftCommArgs *out);

/* The reference: from a json-c args value (NULL: none). */
void     _weft_comm_args_from_json (json_object *args, WeftCommArgs *out);

/* The direct pass over an event's whole JSON object text. FALSE (out
 * cleared) where it cannot be sure to read what json-c would: escapes in a
 * key or a wanted string, fractions or exponents or 19+ digits in a wanted
 * number, deep nesting, anything malformed. */
gboolean _weft_comm_args_from_text (const char *text, gsize len, WeftCommArgs *out);

/* TRUE when the classifier may read the args of an event of this name:
 * a communication kernel (weft_coll_type_from_kernel_name), a
 * record_param_comms op, an nccl:* / rccl:* / c10d::* op (classify.c,
 * build_collective). A superset is fine: the scanner keeps the texts of
 * such events plain until the rank is indexed (_weft_text_store_keep), so
 * that reading them decodes no block; any other text is read from its
 * block as always, with the same bytes. */
gboolean _weft_classify_name_reads_args (const char *name);

G_END_DECLS
