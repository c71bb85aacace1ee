/* weft-pipeline.h: pipeline-parallel actions in a trace.
 *
 * torch.distributed.pipelining's runtime wraps each action in
 * record_function ("PP:<stage><F|B|I|W><microbatch>", e.g. "PP:0F3":
 * _get_profiler_function_name), a user_annotation on the CPU thread; the
 * composer writes them for every schedule (docs/composer.md, "Pipeline
 * parallel"). */
#pragma once

#include "weft-model.h"

G_BEGIN_DECLS

typedef struct
{
  int  stage;        /* the (virtual) pipeline stage */
  char kind;         /* 'F' forward, 'B' full backward, 'I' input gradients, 'W' weight gradients */
  int  microbatch;
} WeftPpAction;

/* The action an event belongs to: the innermost "PP:..." user_annotation
 * on the same CPU thread enclosing it (for a GPU op: its launch). FALSE
 * (out untouched) when there is none or the event is out of range. */
gboolean weft_rank_pp_action (const WeftRank *rank, guint32 event, WeftPpAction *out);

/* Parses one annotation name "PP:<stage><F|B|I|W><microbatch>"; FALSE (out
 * untouched) for anything else (DualPipeV's "PP:(0F3;7B2)OVERLAP_F_B"
 * container included). */
gboolean weft_pp_action_parse (const char *name, WeftPpAction *out);
/* Every event's action at once, as weft_rank_pp_action() answers it, in
 * O(events log actions): a g_malloc'd array of rank->events->len packed
 * actions (weft_pp_action_pack; 0: none), or NULL when the rank has no
 * "PP:" action. Valid until the rank's events change. (transfer full) */
guint32 *weft_rank_pp_action_table (const WeftRank *rank);

/* An action in 32 bits (bit 31 set, kind in 29-30, stage in 17-28,
 * microbatch in 0-16); 0 when it does not fit (stage >= 4096 or microbatch
 * >= 131072). */
static inline guint32
weft_pp_action_pack (const WeftPpAction *a)
{
  guint32 k = a->kind == 'F' ? 0 : a->kind == 'B' ? 1 : a->kind == 'I' ? 2 : 3;
  if (a->stage < 0 || a->stage >= 4096 || a->microbatch < 0 || a->microbatch >= 131072)
    return 0;
  return 0x80000000u | (k << 29) | ((guint32) a->stage << 17) | (guint32) a->microbatch;
}

/* FALSE for 0 (none). */
static inline gboolean
weft_pp_action_unpack (guint32 packed, WeftPpAction *out)
{
  if (!(packed & 0x80000000u))
    return FALSE;
  out->kind = "FBIW"[(packed >> 29) & 3];
  out->stage = (int) ((packed >> 17) & 0xfff);
  out->microbatch = (int) (packed & 0x1ffff);
  return TRUE;
}

G_END_DECLS
