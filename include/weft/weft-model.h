/* weft-model.h: the in-memory trace model.
 *
 * A WeftTrace is a set of ranks (one Kineto file each). A rank owns its events
 * in file order (compact fixed-size records, no JSON tree), its lanes (each a
 * list of event indices sorted by start), its flows, collectives and the
 * verbatim text of its other top-level keys. Strings are interned per rank.
 *
 * Every loaded event keeps its original JSON object text (zstd-compressed in
 * blocks, read back with weft_rank_event_text_dup() or a WeftTextCursor), so
 * saving writes untouched events byte-for-byte. Args are parsed lazily with
 * json-c (weft_event_parse_args()).
 *
 * Structs are public for speed (the solver and the painter walk the arrays
 * directly); mutate them only through the functions here and in
 * weft-edit.h so the indexes stay valid. */
#pragma once

#include <glib.h>
#include <json-c/json.h>

#include "weft-types.h"

G_BEGIN_DECLS

/* ---- interned strings ---------------------------------------------------- */

typedef struct _WeftStrings WeftStrings;

WeftStrings *weft_strings_new (void); /* (transfer full) */
void         weft_strings_free (WeftStrings *self);
/* Returns a stable id; the same bytes always give the same id. Id 0 is "". */
guint32      weft_strings_intern (WeftStrings *self, const char *str, gssize len);
/* NUL-terminated; valid as long as the pool lives. */
const char  *weft_strings_get (const WeftStrings *self, guint32 id); /* (transfer none): owned by the table */
guint        weft_strings_count (const WeftStrings *self);
/* Returns WEFT_NONE where the string is not in the pool. */
guint32      weft_strings_lookup (const WeftStrings *self, const char *str, gssize len);

/* ---- text arena: stable copies of raw JSON text ------------------------- */

typedef struct _WeftArena WeftArena;

WeftArena *weft_arena_new (gsize chunk_size); /* (transfer full) */
void       weft_arena_free (WeftArena *self);
/* Copies len bytes plus a trailing NUL; the copy never moves. */
/* (transfer none): owned by the arena, which never moves it */
char      *weft_arena_dup (WeftArena *self, const char *data, gsize len);
gsize      weft_arena_bytes (const WeftArena *self);

/* ---- event texts ----------------------------------------------------------- */

/* A rank's original event texts (WeftRank.texts): consecutive texts packed
 * in zstd blocks of ~128 KiB, decoded on demand. */
typedef struct _WeftTextStore WeftTextStore;

/* WeftEvent.text_slot of an event without a text: 0, so that a record
 * made with { 0 } or memset has none. */
#define WEFT_TEXT_NONE ((guint32) 0)

/* ---- enums ----------------------------------------------------------------- */

typedef enum
{
  WEFT_PH_X = 0,   /* complete */
  WEFT_PH_I,       /* instant: 'i' or 'I' */
  WEFT_PH_S,       /* flow start */
  WEFT_PH_T,       /* flow step */
  WEFT_PH_F,       /* flow end */
  WEFT_PH_M,       /* metadata */
  WEFT_PH_C,       /* counter */
  WEFT_PH_B,       /* begin */
  WEFT_PH_E,       /* end */
  WEFT_PH_OTHER,   /* any other ph text (kept verbatim) */
  WEFT_PH_N_PHASES
} WeftPhase;

/* Kineto categories Weft understands; the category text itself is kept
 * interned in WeftEvent.cat. */
typedef enum
{
  WEFT_CAT_OTHER = 0,
  WEFT_CAT_CPU_OP,
  WEFT_CAT_USER_ANNOTATION,
  WEFT_CAT_GPU_USER_ANNOTATION,
  WEFT_CAT_PYTHON_FUNCTION,
  WEFT_CAT_CUDA_RUNTIME,
  WEFT_CAT_CUDA_DRIVER,
  WEFT_CAT_KERNEL,
  WEFT_CAT_GPU_MEMCPY,
  WEFT_CAT_GPU_MEMSET,
  WEFT_CAT_CUDA_SYNC,
  WEFT_CAT_CUDA_EVENT,
  WEFT_CAT_OVERHEAD,
  WEFT_CAT_TRACE,
  WEFT_CAT_AC2G,          /* "ac2g" and the older "async_cpu_to_gpu" */
  WEFT_CAT_FWDBWD,
  WEFT_CAT_CPU_INSTANT,   /* cpu_instant_event */
  WEFT_CAT_N_CATEGORIES
} WeftCategory;

WeftCategory weft_category_from_string (const char *cat, gsize len);
const char  *weft_phase_to_string (WeftPhase ph); /* (transfer none): a static string */

/* Classes of GPU operations (WeftEvent.kclass). WEFT_KCLASS_NONE for events
 * that are not GPU operations. */
typedef enum
{
  WEFT_KCLASS_NONE = 0,
  WEFT_KCLASS_GEMM,
  WEFT_KCLASS_ATTENTION,
  WEFT_KCLASS_NORM,
  WEFT_KCLASS_ELEMENTWISE,
  WEFT_KCLASS_REDUCTION,
  WEFT_KCLASS_OPTIMIZER,
  WEFT_KCLASS_COPY,        /* memcpy / memset / copy kernels */
  WEFT_KCLASS_OTHER,
  WEFT_KCLASS_COMM,        /* communication (NCCL/RCCL, EP, NVSHMEM, symmetric memory) */
  WEFT_KCLASS_N_CLASSES
} WeftKernelClass;

const char *weft_kernel_class_to_string (WeftKernelClass kclass); /* (transfer none): a static string */

typedef enum
{
  WEFT_COLL_NONE = 0,
  WEFT_COLL_ALL_REDUCE,
  WEFT_COLL_ALL_GATHER,
  WEFT_COLL_REDUCE_SCATTER,
  WEFT_COLL_ALL_TO_ALL,
  WEFT_COLL_SEND,
  WEFT_COLL_RECV,
  WEFT_COLL_SEND_RECV,     /* batched P2P / SendRecv kernel with no args */
  WEFT_COLL_BROADCAST,
  WEFT_COLL_REDUCE,
  WEFT_COLL_BARRIER,
  WEFT_COLL_EP_NOTIFY,      /* expert-parallel bookkeeping: DeepEP notify / layout / buffer clean */
  WEFT_COLL_UNKNOWN,
  WEFT_COLL_N_TYPES
} WeftCollType;

const char  *weft_coll_type_to_string (WeftCollType type); /* (transfer none): a static string */
WeftCollType weft_coll_type_from_string (const char *str);

typedef enum
{
  WEFT_LANE_GPU = 0,   /* a CUDA/HIP stream: pid = device index, tid = stream */
  WEFT_LANE_CPU,       /* a CPU thread */
  WEFT_LANE_OTHER,     /* "Spans", "Traces", pid -1 overhead, ... */
} WeftLaneKind;

typedef enum
{
  WEFT_LANE_ROLE_NONE = 0,
  WEFT_LANE_ROLE_COMPUTE,
  WEFT_LANE_ROLE_COMM,          /* NCCL stream */
  WEFT_LANE_ROLE_FSDP_AG,       /* FSDP all-gather stream */
  WEFT_LANE_ROLE_FSDP_RS,       /* FSDP reduce-scatter stream */
  WEFT_LANE_ROLE_COPY,
  WEFT_LANE_ROLE_SYNC,          /* Stream Sync lane (tid = stream + 1000000) */
} WeftLaneRole;

const char *weft_lane_role_to_string (WeftLaneRole role); /* (transfer none): a static string */

/* ---- records --------------------------------------------------------------- */

enum
{
  WEFT_EVENT_HAS_DUR   = 1 << 0,  /* the event had a "dur" */
  WEFT_EVENT_EDITED    = 1 << 1,  /* text is stale: re-serialise on save */
  WEFT_EVENT_DELETED   = 1 << 2,  /* removed by an edit; skipped everywhere */
  WEFT_EVENT_CREATED   = 1 << 3,  /* inserted by an edit (text may be NULL) */
  WEFT_EVENT_GPU_OP    = 1 << 4,  /* kernel / memcpy / memset on a GPU lane */
  WEFT_EVENT_LAUNCH    = 1 << 5,  /* CPU call that launches a GPU op */
  WEFT_EVENT_BP_E      = 1 << 6,  /* flow event with "bp":"e" */
  WEFT_EVENT_HELD      = 1 << 7,  /* GPU op held back by a user minimum start: saved with
                                   * args "weft held" so that its start is explained on reopening */
};

/* One event: 40 bytes, 8-byte aligned, no padding. What an event has
 * rarely, or can find elsewhere, lives outside the record, behind an
 * accessor:
 * - a duration past 32 bits: in the rank's wide_ids pool (weft_event_dur(),
 *   weft_event_set_dur());
 * - its original text: a loaded event's is the text slot "its index + 1"
 *   of the rank's store; a created event has none, or shares the text of
 *   the loaded event it copies (rank->created_texts; weft_event_text_slot());
 * - its collective: rank->event_colls (weft_rank_event_coll());
 * - the "id" of a flow event (s/t/f), which has no launch link, shares
 *   link_code with the link of the other phases (weft_event_link(),
 *   weft_event_flow_id()). */
typedef struct
{
  gint64      ts;          /* absolute ns: baseTimeNanoseconds + ts (file clock) */
  /* The duration in ns, 0 when absent (see WEFT_EVENT_HAS_DUR), encoded:
   * 0 .. WEFT_DUR_INLINE_MAX in the record, any other gint64 in
   * rank->wide_ids at index -1 - dur_code. Read and write it only with
   * weft_event_dur() and weft_event_set_dur(). */
  gint32      dur_code;
  guint32     name;        /* interned in the rank's pool */
  guint32     cat;         /* interned category text */
  guint32     lane;        /* index into rank->lanes, WEFT_NONE if none */
  /* Flow phases (s/t/f): the flow "id", encoded as the ids below; other
   * phases: the launch <-> GPU op partner event, WEFT_NONE if none. Read
   * and write it only with weft_event_link() / weft_event_set_link() and
   * weft_event_flow_id() / weft_event_set_flow_id(). */
  guint32     link_code;
  /* The two args ids, encoded (see WEFT_ID_INLINE_MAX): read and write them
   * only with weft_event_correlation() / weft_event_set_correlation() etc. */
  gint32      correlation_code; /* args.correlation, -1 if none */
  gint32      external_id_code; /* args["External id"], -1 if none */
  guint8      ph;          /* WeftPhase */
  guint8      category;    /* WeftCategory */
  guint8      kclass;      /* WeftKernelClass */
  guint8      flags;
} WeftEvent;

G_STATIC_ASSERT (sizeof (WeftEvent) == 40);
G_STATIC_ASSERT (G_ALIGNOF (WeftEvent) == 8);

/* An id (correlation, External id, flow id) from -1 (none) to this is kept
 * in the record itself; any other gint64 is appended to the rank's
 * WeftRank.wide_ids and the record keeps -2 - its index there. The pool is
 * append-only, so a copy of a record stays valid within its rank. */
#define WEFT_ID_INLINE_MAX ((gint64) G_MAXINT32)
/* A duration from 0 to this is kept in the record; any other (longer than
 * ~2.1 s, or negative, which only edits can make) goes to the same pool,
 * the record keeping -1 - its index there. */
#define WEFT_DUR_INLINE_MAX ((gint64) G_MAXINT32)
/* At most this many wide ids and durations per rank (the loader fails past it). */
#define WEFT_WIDE_IDS_MAX ((guint) G_MAXINT32 - 1)

typedef struct
{
  WeftLaneKind kind;
  WeftLaneRole role;
  guint32      pid_text;   /* interned raw JSON text of pid, e.g. "0", "\"Spans\"" */
  guint32      tid_text;
  gint64       pid;        /* numeric pid; G_MININT64 when pid is not a number */
  gint64       tid;
  guint32      name;       /* thread_name / stream label, interned; 0 if none */
  guint32      process_name; /* process_name metadata, 0 if none */
  gint64       sort_index; /* thread_sort_index, else tid */
  int          device;     /* GPU device index, -1 for CPU lanes */
  GArray      *events;     /* guint32 event indices sorted by (ts, -dur) */
} WeftLane;

/* 20 bytes: the flow's id is its start event's (weft_event_flow_id()). */
typedef struct
{
  WeftCategory category;   /* AC2G or FWDBWD (others kept as events only) */
  guint32      start;      /* the 's' event index */
  guint32      end;        /* the 'f' event index */
  guint32      from;       /* the slice the start binds to, WEFT_NONE */
  guint32      to;         /* the slice the end binds to, WEFT_NONE */
} WeftFlow;

typedef enum
{
  WEFT_COLL_SOURCE_KERNEL_ARGS = 0,
  WEFT_COLL_SOURCE_CPU_OP,       /* record_param_comms with the same External id / launch */
  WEFT_COLL_SOURCE_KERNEL_NAME,
} WeftCollSource;

typedef struct
{
  guint32        event;        /* the GPU kernel */
  guint32        cpu_event;    /* record_param_comms (or nccl:*) cpu_op, WEFT_NONE */
  WeftCollType   type;
  WeftCollSource source;
  guint32        coll_name;    /* "Collective name" text, interned; 0 if none */
  gint64         in_nelems;    /* -1 if unknown */
  gint64         out_nelems;
  gint64         bytes;        /* payload S of the full (unsharded) buffer, -1 if unknown */
  guint32        dtype;        /* interned; 0 if unknown */
  int            group_size;   /* -1 if unknown */
  guint32        pg_name;      /* interned; 0 if unknown */
  guint32        pg_desc;
  int           *pg_ranks;     /* g_malloc'd, n_pg_ranks entries; NULL if unknown */
  guint          n_pg_ranks;
  gint64         seq;          /* -1 if unknown */
  int            src_rank;     /* P2P, -1 if unknown */
  int            dst_rank;
  guint32        instance;     /* index into trace->instances, WEFT_NONE */
} WeftCollective;

/* A top-level value whose text is longer than this is kept zstd-compressed
 * in memory (WeftTopKey.packed), except the values Weft itself parses
 * ("weft", "distributedInfo", "baseTimeNanoseconds"), which stay text. */
#define WEFT_TOP_KEY_PACK_BYTES ((gsize) 1 << 20)

typedef struct
{
  guint32 key;        /* interned key text (without quotes) */
  char   *raw;        /* raw JSON value text, NUL-terminated; NULL when packed */
  gsize   raw_len;    /* length of the value text (packed or not) */
  guint8 *packed;     /* the text as one zstd frame, or NULL */
  gsize   packed_len;
} WeftTopKey;

typedef struct
{
  guint32 event;   /* the ProfilerStep#N annotation */
  int     number;
  gint64  begin;
  gint64  end;
} WeftStep;

typedef struct
{
  guint32 name;          /* pg_name */
  guint32 desc;          /* pg_desc */
  int    *ranks;
  guint   n_ranks;
  int     size;
} WeftProcessGroup;

typedef enum
{
  WEFT_RANK_FROM_DISTRIBUTED_INFO = 0,
  WEFT_RANK_FROM_FILE_NAME,
  WEFT_RANK_FROM_ORDER,
} WeftRankSource;

typedef enum
{
  WEFT_TS_RELATIVE = 0,   /* baseTimeNanoseconds present, ts relative with 3 decimals */
  WEFT_TS_ABSOLUTE_US,    /* absolute epoch microseconds, integer */
  WEFT_TS_ABSOLUTE_FRAC,  /* absolute epoch microseconds with decimals */
} WeftTsStyle;

typedef struct
{
  int             rank;
  int             world_size;     /* -1 if unknown */
  WeftRankSource  rank_source;
  char           *path;
  WeftTsStyle     ts_style;
  gboolean        has_base;
  gint64          base_ns;        /* baseTimeNanoseconds, 0 if absent */
  gint64          clock_offset_ns;/* estimated; subtract-free: view time = ts + offset */
  gsize           json_bytes;     /* uncompressed size of the file */

  WeftStrings    *strings;
  WeftTextStore  *texts;          /* the events' original JSON texts (see below) */
  GArray         *events;         /* WeftEvent, in traceEvents order */
  GArray         *wide_ids;       /* gint64: the event ids and durations that do not fit
                                   * a record (see WEFT_ID_INLINE_MAX), append-only */
  GArray         *event_colls;    /* WeftEventColl sorted by event: the events that have
                                   * a collective (weft_rank_event_coll()) */
  GArray         *coll_marks;     /* guint64 words: bit i set when event i is in event_colls */
  GHashTable     *created_texts;  /* created event index -> the text slot it shares
                                   * (weft_event_text_slot()) */
  GPtrArray      *lanes;          /* WeftLane* */
  GArray         *flows;          /* WeftFlow */
  GArray         *collectives;    /* WeftCollective */
  GArray         *steps;          /* WeftStep, sorted */
  GArray         *top_keys;       /* WeftTopKey, file order, without traceEvents */
  guint           trace_events_pos; /* index in top_keys before which traceEvents stood */
  GArray         *process_groups; /* WeftProcessGroup from distributedInfo.pg_config */
  GHashTable     *lane_index;     /* "pid\x1ftid" raw texts -> lane index + 1 */
  guint64         n_negative_dur; /* events whose negative "dur" was clamped to 0 at load */
} WeftRank;

typedef struct
{
  WeftCollType type;
  guint32      pg_name_rank0; /* pg_name (interned in the first member's rank) */
  gint64       seq;           /* -1 when matched by ordinal */
  int          method;        /* WeftMatchMethod */
  GArray      *members;       /* WeftInstanceMember, sorted by rank */
} WeftCollInstance;

typedef enum
{
  WEFT_MATCH_SEQ = 0,          /* (pg name, pg ranks, Seq) */
  WEFT_MATCH_PG_ORDINAL,       /* k-th collective of the group on each rank */
  WEFT_MATCH_STREAM_ORDINAL,   /* k-th comm kernel per stream */
  WEFT_MATCH_P2P,              /* send/recv by src/dst */
} WeftMatchMethod;

typedef struct
{
  guint rank_index;            /* index into trace->ranks */
  guint32 coll;                /* index into that rank's collectives */
} WeftInstanceMember;

typedef struct
{
  GPtrArray *ranks;            /* WeftRank*, sorted by rank number */
  GArray    *instances;        /* WeftCollInstance */
  gboolean   apply_clock_offsets;
  gboolean   offsets_estimated;
  GPtrArray *warnings;         /* char*: what the loader skipped or repaired (load report) */
} WeftTrace;

/* ---- lifecycle ------------------------------------------------------------- */

WeftRank  *weft_rank_new (const char *path); /* (transfer full) */
void       weft_rank_free (WeftRank *self);
WeftTrace *weft_trace_new (void); /* (transfer full) */
void       weft_trace_free (WeftTrace *self);
/* Takes ownership of rank. */
void       weft_trace_add_rank (WeftTrace *self, WeftRank *rank);
/* Adds a line to trace->warnings (also g_debug; the CLI prints them). */
void       weft_trace_add_warning (WeftTrace *self, const char *format, ...) G_GNUC_PRINTF (2, 3);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftTrace, weft_trace_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftRank, weft_rank_free)

/* ---- access ---------------------------------------------------------------- */

static inline WeftEvent *
weft_rank_event (WeftRank *rank, guint32 idx)
{
  return &g_array_index (rank->events, WeftEvent, idx);
}

/* ---- event ids --------------------------------------------------------------- */

static inline gint64
_weft_rank_id_decode (const WeftRank *rank, gint32 code)
{
  if (G_LIKELY (code >= -1))
    return code;
  return g_array_index (rank->wide_ids, gint64, (guint) (-2 - (gint64) code));
}

/* The event's args.correlation, -1 if none. ev is a record of rank (or a
 * copy of one, or one being made for it). */
static inline gint64
weft_event_correlation (const WeftRank *rank, const WeftEvent *ev)
{
  return _weft_rank_id_decode (rank, ev->correlation_code);
}

/* The event's args["External id"], -1 if none. */
static inline gint64
weft_event_external_id (const WeftRank *rank, const WeftEvent *ev)
{
  return _weft_rank_id_decode (rank, ev->external_id_code);
}

static inline gboolean
_weft_event_is_flow (const WeftEvent *ev)
{
  return ev->ph == WEFT_PH_S || ev->ph == WEFT_PH_T || ev->ph == WEFT_PH_F;
}

/* The "id" of a flow event (s/t/f), -1 otherwise. */
static inline gint64
weft_event_flow_id (const WeftRank *rank, const WeftEvent *ev)
{
  if (!_weft_event_is_flow (ev))
    return -1;
  return _weft_rank_id_decode (rank, (gint32) ev->link_code);
}

/* The launch <-> GPU op partner of ev, WEFT_NONE if none (always for the
 * flow phases s/t/f). */
static inline guint32
weft_event_link (const WeftEvent *ev)
{
  if (_weft_event_is_flow (ev))
    return WEFT_NONE;
  return ev->link_code;
}

/* Sets the link of a non-flow event; WEFT_NONE on a flow event does nothing
 * (its slot holds the flow id), any other link there is refused. Set the
 * phase first. */
static inline void
weft_event_set_link (WeftEvent *ev, guint32 link)
{
  if (_weft_event_is_flow (ev))
    {
      g_return_if_fail (link == WEFT_NONE);
      return;
    }
  ev->link_code = link;
}

/* The event's duration in ns (0 when it has none). */
static inline gint64
weft_event_dur (const WeftRank *rank, const WeftEvent *ev)
{
  if (G_LIKELY (ev->dur_code >= 0))
    return ev->dur_code;
  return g_array_index (rank->wide_ids, gint64, (guint) (-1 - (gint64) ev->dur_code));
}

/* Sets it: any gint64; outside 0 .. WEFT_DUR_INLINE_MAX it goes to
 * rank->wide_ids (as the ids; aborts past WEFT_WIDE_IDS_MAX). */
void weft_event_set_dur (WeftRank *rank, WeftEvent *ev, gint64 value);

/* ts + dur; the loader keeps |ts| and |ts + dur| within 2^62 ns, edits may
 * not: saturates rather than wraps. */
static inline gint64
weft_event_end (const WeftRank *rank, const WeftEvent *ev)
{
  gint64 end, dur = weft_event_dur (rank, ev);

  if (G_UNLIKELY (__builtin_add_overflow (ev->ts, dur, &end)))
    return dur > 0 ? G_MAXINT64 : G_MININT64;
  return end;
}

/* Set an id of ev (a record of rank, or one to be appended to it): any
 * gint64, -1 for none; the flow id only on a flow event (set its phase
 * first; -1 elsewhere does nothing, any other value is refused). Values outside -1 .. WEFT_ID_INLINE_MAX go to
 * rank->wide_ids; past WEFT_WIDE_IDS_MAX of them this aborts (the loader
 * refuses such a file first, with an error). */
void weft_event_set_correlation (WeftRank *rank, WeftEvent *ev, gint64 value);
void weft_event_set_external_id (WeftRank *rank, WeftEvent *ev, gint64 value);
void weft_event_set_flow_id (WeftRank *rank, WeftEvent *ev, gint64 value);

static inline WeftLane *
weft_rank_lane (WeftRank *rank, guint32 idx)
{
  return (WeftLane *) g_ptr_array_index (rank->lanes, idx);
}

static inline WeftRank *
weft_trace_rank (WeftTrace *trace, guint idx)
{
  return (WeftRank *) g_ptr_array_index (trace->ranks, idx);
}

static inline const char *
weft_rank_string (const WeftRank *rank, guint32 id)
{
  return weft_strings_get (rank->strings, id);
}

/* ---- event texts ------------------------------------------------------------ */

/* The text slot of ev in rank->texts, WEFT_TEXT_NONE if none: "index + 1"
 * for a loaded event; for a created one, the slot it shares with the loaded
 * event it copies, if any. ev must be a record in rank->events: any other
 * (a copy on the stack) has none. */
guint32 weft_event_text_slot (const WeftRank *rank, const WeftEvent *ev);
/* Makes created event idx share a loaded event's text slot (WEFT_TEXT_NONE:
 * none). */
void    weft_rank_set_created_text (WeftRank *rank, guint32 idx, guint32 slot);

/* Whether the event has an original text (loaded events do; created ones
 * and the copies of created ones do not; a created copy of a loaded event
 * shares its model's text, which save parses for its args). */
static inline gboolean
weft_event_has_text (const WeftRank *rank, const WeftEvent *ev)
{
  return weft_event_text_slot (rank, ev) != WEFT_TEXT_NONE;
}

/* ---- collectives of events -------------------------------------------------- */

/* An entry of rank->event_colls. */
typedef struct
{
  guint32 event;
  guint32 coll;   /* index into rank->collectives */
} WeftEventColl;

guint32 _weft_rank_event_coll_lookup (const WeftRank *rank, guint32 idx);

/* The index into rank->collectives of event idx's collective, WEFT_NONE if none. */
static inline guint32
weft_rank_event_coll (const WeftRank *rank, guint32 idx)
{
  guint w = idx >> 6;

  if (G_LIKELY (w >= rank->coll_marks->len || !((g_array_index (rank->coll_marks, guint64, w) >> (idx & 63)) & 1)))
    return WEFT_NONE;
  return _weft_rank_event_coll_lookup (rank, idx);
}

/* As weft_rank_event_coll() for a record in rank->events (any other: WEFT_NONE). */
static inline guint32
weft_event_coll (const WeftRank *rank, const WeftEvent *ev)
{
  const WeftEvent *base = (const WeftEvent *) (const void *) rank->events->data;

  if (ev < base || ev >= base + rank->events->len)
    return WEFT_NONE;
  return weft_rank_event_coll (rank, (guint32) (ev - base));
}

/* Sets (WEFT_NONE: clears) event idx's collective. */
void    weft_rank_event_set_coll (WeftRank *rank, guint32 idx, guint32 coll);
/* Clears every event's collective (the classifier, before it rebuilds them). */
void    weft_rank_clear_event_colls (WeftRank *rank);

/* The event's original JSON object text, byte for byte as in the file
 * (NUL-terminated; *len, when given, its length without the NUL). NULL
 * (and *len 0) when it has none. Decodes its block through the rank's
 * one-block cache under the store's lock: safe from any thread (the window's
 * inspector while a save runs on a worker thread). (transfer full): g_free. */
char       *weft_rank_event_text_dup (const WeftRank *rank, const WeftEvent *ev, gsize *len);

/* A reader of many texts in a row (save, tests): its own decoded block, no
 * lock. One cursor per thread; any number of cursors may read one rank at
 * once. The rank must outlive it. */
typedef struct _WeftTextCursor WeftTextCursor;

WeftTextCursor *weft_text_cursor_new (const WeftRank *rank); /* (transfer full) */
/* As weft_rank_event_text_dup, without the copy: (transfer none), valid until
 * the next call on this cursor or its free. */
const char     *weft_text_cursor_get (WeftTextCursor *self, const WeftEvent *ev, gsize *len);
void            weft_text_cursor_free (WeftTextCursor *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftTextCursor, weft_text_cursor_free)

/* What a rank's texts occupy (bench-resident). */
typedef struct
{
  guint64 n_texts;
  guint64 n_blocks;
  guint64 text_bytes;    /* the texts themselves */
  guint64 block_bytes;   /* the blocks decoded: texts + lengths + NULs */
  guint64 stored_bytes;  /* what is held: the packed blocks and their table */
  guint64 n_blocks_packed_aside; /* of n_blocks, those a packing thread compressed during the load
                                  * (docs/loading.md, "One big file on several cores"); 0 on one thread */
  gboolean gzip_backed;  /* the texts are ranges of the kept .json.gz (stored_bytes: the file, its
                          * access points and the texts' table); nothing was packed */
} WeftTextStats;

void        weft_rank_text_stats (const WeftRank *rank, WeftTextStats *out);

/* The text of a top-level value, in pieces (a packed one is decompressed
 * piece by piece, at most 128 KiB at a time, never whole): func is called
 * for each; FALSE as soon as func returns FALSE (its own failure), or with
 * error set (WEFT_ERROR_COMPRESSION) when the packed frame is damaged. */
typedef gboolean (*WeftTopKeyFunc) (const char *data, gsize len, gpointer user_data);
gboolean   weft_top_key_foreach (const WeftTopKey *k, WeftTopKeyFunc func, gpointer user_data, GError **error);
/* The whole text, NUL-terminated (transfer full); NULL with
 * WEFT_ERROR_TOO_LARGE when it does not fit in memory. */
char      *weft_top_key_dup_text (const WeftTopKey *k, GError **error);

/* Offset applied to this rank's times on the common timeline. */
static inline gint64
weft_trace_rank_offset (const WeftTrace *trace, const WeftRank *rank)
{
  return trace->apply_clock_offsets ? rank->clock_offset_ns : 0;
}

/* The event's "args" object parsed with json-c (new reference, NULL if none). */
/* (transfer full) (nullable): NULL when the text has none or does not parse */
json_object *weft_event_parse_args (const WeftRank *rank, const WeftEvent *ev);
/* The whole event object parsed with json-c (new reference). */
/* (transfer full) (nullable): NULL when the text has none or does not parse */
json_object *weft_event_parse (const WeftRank *rank, const WeftEvent *ev);

/* Lane of (pid text, tid text); creates it when missing. */
guint32   weft_rank_ensure_lane (WeftRank *rank, const char *pid_text, gsize pid_len,
                                 const char *tid_text, gsize tid_len);
/* Re-sorts one lane's event indices by (ts, -dur). */
void      weft_lane_sort (WeftRank *rank, WeftLane *lane);
/* First index into lane->events of an event that may overlap t (binary search). */
guint     weft_lane_lower_bound (WeftRank *rank, WeftLane *lane, gint64 t);

/* Time span over every timed event of the rank (file clock). */
WeftTimeSpan weft_rank_time_span (WeftRank *rank);
/* Time span of the whole trace on the common timeline (offsets applied). */
WeftTimeSpan weft_trace_time_span (WeftTrace *trace);

/* Index of the rank with that rank number, or -1. */
int       weft_trace_find_rank (WeftTrace *trace, int rank_number);

/* Post-load analysis, run by the loader (and again after structural edits):
 * lane kinds and roles, sorting, flow pairing, launch links, steps,
 * classification, collectives, instance matching, clock offsets. */
void      weft_trace_index (WeftTrace *self);
void      weft_rank_index (WeftRank *rank);
/* The cross-rank part of weft_trace_index() (collective matching, clock
 * offsets), for callers that already ran weft_rank_index() on every rank
 * (the loader does, in its worker threads). */
void      weft_trace_index_across_ranks (WeftTrace *self);

/* One event of one rank: what the edit operations take, the painter
 * highlights and hit testing returns. */
typedef struct
{
  guint   rank_index;
  guint32 event;
} WeftEventRef;

G_END_DECLS
